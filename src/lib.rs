//! The crates of keyhook under one name, for the integration tests and benches: the binary
//! itself is src/main.rs. See ARCHITECTURE.md for what each crate holds.

pub use keyhook_cli as cli;
pub use keyhook_core::{auth, error, model, rate, redact, service, store, tables, time};
pub use keyhook_core::{Error, FieldError, Result};
pub use keyhook_delivery as delivery;
pub use keyhook_http as http;
pub use keyhook_postgres as postgres;
pub use keyhook_sqlite as sqlite;
