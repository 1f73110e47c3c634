//! Webhook delivery: the HTTP client that posts one signed attempt to a vetted address
//! (`client`, the core's `Transport`), the retry schedule (`schedule`) and the outbox worker
//! (`worker`) that `serve` runs beside the API and `deliver` runs alone.

pub mod client;
pub mod rate;
pub mod schedule;
pub mod worker;
