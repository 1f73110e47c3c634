//! keyhook's integration tests: the real binary, hermetic (a temporary database, no
//! `KEYHOOK_*` or `NO_COLOR` from the caller's environment).

mod abuse;
mod common;
mod docs;
mod faults;
mod help;
mod http_protocol;
mod keys;
mod openapi;
mod receiver;
mod serve;
mod server;
mod store;
mod webhooks;
