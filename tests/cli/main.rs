//! keyhook's integration tests: the real binary, hermetic (a temporary database, no
//! `KEYHOOK_*` or `NO_COLOR` from the caller's environment).

mod abuse;
mod api_reference;
mod architecture;
mod backends;
mod clock;
mod common;
mod db_copy;
mod db_location;
mod doc_transcripts;
mod docs;
mod faults;
mod help;
mod http_body;
mod http_protocol;
mod http_target;
mod input_policy;
mod instances;
mod keys;
mod leases;
mod newcomer;
mod openapi;
mod openapi_bounds;
mod pings;
mod privilege;
mod raw_http;
mod receiver;
mod retention;
mod secrets;
mod serve;
mod server;
mod store;
mod webhooks;
