//! The OpenAPI 3.1 description of `/api/v1`, served at `/api/v1/openapi.json`.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::reply::{self, Reply};

pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(build)
}

pub fn reply() -> Reply {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    reply::raw(
        200,
        BYTES
            .get_or_init(|| serde_json::to_vec(document()).unwrap_or_default())
            .clone(),
    )
}

fn build() -> Value {
    json!({"openapi": "3.1.0", "info": {"title": "keyhook", "version": env!("CARGO_PKG_VERSION")}, "paths": {}})
}
