#![allow(dead_code, unused_imports)]
mod decoder;
pub use decoder::Decoder;
