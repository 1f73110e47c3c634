//! keyhook's core: the model, every rule of the spec and the contract, the services both
//! front ends call, and the storage boundary each backend implements. It prints nothing,
//! reads no environment, and knows no SQL, clap or HTTP server; see ARCHITECTURE.md.

pub mod access_log;
pub mod auth;
pub mod error;
pub mod forward;
pub mod guard;
pub mod key_shape;
pub mod model;
pub mod rate;
pub mod redact;
pub mod scan;
pub mod secrets;
pub mod service;
pub mod sign;
pub mod stop;
pub mod store;
pub mod tables;
pub mod time;
pub mod transport;

pub use error::{Error, FieldError, Result};
