#![doc = include_str!("../README.md")]

mod backends;
mod fixtures;
mod poll;
mod postgres;
mod queries;

pub use backends::*;
pub use fixtures::*;
pub use poll::*;
pub use postgres::*;
pub use queries::*;
