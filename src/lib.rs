//! keyhook: API keys and webhook subscriptions over an embedded SQLite file, administered
//! from a shell (`cli`) and served as the `/api/v1` HTTP JSON API (`http`). Both front ends
//! call the same `service` functions; see ARCHITECTURE.md.

pub mod auth;
pub mod cli;
pub mod config;
pub mod delivery;
pub mod error;
pub mod http;
pub mod model;
pub mod redact;
pub mod service;
pub mod store;
pub mod time;

pub use error::{Error, FieldError, Result};
