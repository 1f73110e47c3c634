//! keyhook's integration tests: the real binary, hermetic (a temporary database, no
//! `KEYHOOK_*` or `NO_COLOR` from the caller's environment).

mod common;
mod keys;
mod serve;
mod server;
mod store;
