//! `GET /healthz` and `GET /metrics`: outside `/api/v1`, for load balancers, orchestrators
//! and Prometheus. No authentication and no rate limit (they name no key); neither is in the
//! OpenAPI document, which describes the API under `/api/v1` (docs/rate-limit-and-metrics.md).

use tiny_http::{Method, Request};

use super::metrics::Format;
use super::reply::{self, Reply};
use super::Shared;

/// The answer to a request for `/healthz` or `/metrics`, or None for any other path.
pub fn answer(shared: &Shared, rq: &Request) -> Option<Reply> {
    let path = super::router::path_of(rq.url());
    let which = match path {
        "/healthz" => health,
        "/metrics" => metrics,
        _ => return None,
    };
    Some(match rq.method() {
        Method::Get | Method::Head => which(shared, rq),
        _ => reply::method_not_allowed("GET"),
    })
}

/// 200 `{"status":"ok"}` when the database answers a real query (a connection from the
/// backend's pool, then a read of the schema); otherwise 503 with `{"status":"unavailable"}`
/// and the error envelope's `error` member beside it (code `SERVICE_UNAVAILABLE`, a message
/// without internals), so that both a probe reading `status` and a client reading the
/// envelope understand it.
fn health(shared: &Shared, _: &Request) -> Reply {
    let ok = shared
        .db
        .connect()
        .and_then(|store| Ok(store.conn().ping()?));
    match ok {
        Ok(()) => reply::raw(200, br#"{"status":"ok"}"#.to_vec()),
        Err(e) => {
            reply::log(&format!(
                "keyhook: healthz: the database does not answer: {e}"
            ));
            reply::raw(
                503,
                br#"{"status":"unavailable","error":{"code":"SERVICE_UNAVAILABLE","message":"the database does not answer","details":[]}}"#
                    .to_vec(),
            )
        }
    }
}

/// OpenMetrics or the Prometheus text format 0.0.4, as `Accept` asks (`metrics::Format`).
fn metrics(shared: &Shared, rq: &Request) -> Reply {
    let accept = rq
        .headers()
        .iter()
        .find(|h| h.field.equiv("Accept"))
        .map(|h| h.value.as_str());
    let format = Format::negotiate(accept);
    let mut r = reply::raw(200, shared.metrics.render(format).into_bytes());
    r.content_type = Some(format.content_type());
    r
}
