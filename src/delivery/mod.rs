//! Webhook delivery: Standard Webhooks signing (`sign`), the target-safety guard against SSRF
//! (`guard`) and the HTTP client that posts one signed attempt (`client`).

pub mod client;
pub mod guard;
pub mod schedule;
pub mod sign;
pub mod worker;
