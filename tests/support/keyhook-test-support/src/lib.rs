#![doc = include_str!("../README.md")]

mod backends;
mod fixtures;
mod postgres;

pub use backends::*;
pub use fixtures::*;
pub use postgres::*;
