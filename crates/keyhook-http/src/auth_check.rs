//! `/api/v1/auth` and `/api/v1/auth/{path...}` (CONTRACT §13): a reverse proxy asks whether
//! the request it describes may be made with the key. The key is authenticated, rate limited
//! and its use counted by `api::dispatch` as for any request of `/api/v1`; this module reads
//! the description from its sources and answers with `keyhook_core::forward`'s decision.

use std::cell::RefCell;
use std::net::IpAddr;
use std::sync::Arc;

use tiny_http::{HeaderLines, Request};

use super::reply::{self, Reply};
use keyhook_core::error::{Error, Result};
use keyhook_core::forward::{self, Cidr, ProfileTemplate};
use keyhook_core::model::ApiKey;

/// The method headers, in the order they are read.
const METHOD_HEADERS: [&str; 2] = ["X-Original-Method", "X-Forwarded-Method"];
/// The URI headers.
const URI_HEADERS: [&str; 2] = ["X-Original-URI", "X-Forwarded-Uri"];

/// The check's answer for `key`. `own`: for `/auth/{path...}`, this request's `/{path...}`
/// (its method and query are read from `rq`).
pub fn answer(
    rq: &Request,
    own: Option<&str>,
    key: &Arc<ApiKey>,
    templates: &[ProfileTemplate],
) -> Reply {
    match decide(rq, own, key, templates) {
        Ok(()) => {
            let mut r = reply::allowed();
            r.headers = Some(identity(key));
            r
        }
        Err(e) => reply::error(&e),
    }
}

thread_local! {
    /// The key this thread last allowed and its [`identity`] lines.
    static LAST_IDENTITY: RefCell<Option<(Arc<ApiKey>, HeaderLines)>> = const { RefCell::new(None) };
}

/// The `X-Keyhook-*` lines that tell the upstream who calls with `key`: the lines this thread
/// last sent, if they were made for this key (the same shared copy, or one whose fields they
/// show are all equal), else made anew and kept for the next check. Built only from the key
/// the check was answered with, so never another key's.
fn identity(key: &Arc<ApiKey>) -> HeaderLines {
    LAST_IDENTITY.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((kept, lines)) = &mut *last {
            if Arc::ptr_eq(kept, key) {
                return lines.clone();
            }
            if same_identity(kept, key) {
                // The next check with this copy is found by address.
                *kept = Arc::clone(key);
                return lines.clone();
            }
        }
        let lines = identity_lines(key);
        *last = Some((Arc::clone(key), lines.clone()));
        lines
    })
}

/// Whether the identity lines of `a` and `b` are the same: every field they show is equal.
fn same_identity(a: &ApiKey, b: &ApiKey) -> bool {
    a.id == b.id
        && a.key_prefix == b.key_prefix
        && a.user_id == b.user_id
        && a.permission == b.permission
        && a.full_access == b.full_access
        && a.profile_ids == b.profile_ids
}

/// The `X-Keyhook-*` lines of `key` (CONTRACT §13), each value encoded so that no id reads
/// as `*` or as two.
fn identity_lines(key: &ApiKey) -> HeaderLines {
    let id = forward::header_encode(&key.id);
    let user = forward::header_encode(&key.user_id);
    let profiles = forward::profiles_header(key);
    HeaderLines::new([
        ("X-Keyhook-Key-Id", id.as_str()),
        ("X-Keyhook-Key-Prefix", key.key_prefix.as_str()),
        ("X-Keyhook-User", user.as_str()),
        ("X-Keyhook-Permission", key.permission.as_str()),
        ("X-Keyhook-Profiles", profiles.as_str()),
    ])
}

fn decide(
    rq: &Request,
    own: Option<&str>,
    key: &ApiKey,
    templates: &[ProfileTemplate],
) -> Result<()> {
    let own_uri = own.map(|path| {
        let url = rq.url();
        match url.find('?') {
            Some(i) => format!("{path}{}", &url[i..]),
            None => path.to_string(),
        }
    });
    let own_method = own.map(|_| rq.method().as_str());
    let method = one_of(rq, &METHOD_HEADERS, own_method, "method")?;
    let uri = one_of(rq, &URI_HEADERS, own_uri.as_deref(), "uri")?;
    let (method, method_field) = method.unwrap_or(("GET", METHOD_HEADERS[0]));
    if !forward::is_method(method) {
        return Err(Error::validation(method_field, "must be an HTTP method"));
    }
    let target = match uri {
        Some((u, field)) => forward::target(u, templates, field)?,
        // A check of the key alone; with templates, a proxy that forgot the URI would let
        // every profile through.
        None if templates.is_empty() => forward::Target::default(),
        None => {
            return Err(Error::validation(
                URI_HEADERS[0],
                "the request's URI is needed (X-Original-URI or X-Forwarded-Uri) when serve \
                 runs with --auth-profile",
            ))
        }
    };
    forward::decide(key, method, &target)
}

/// The one value every source present gives (`own`: the request's own, named `own_name`):
/// None if none is present; refused, naming the header, when two differ.
fn one_of<'a>(
    rq: &'a Request,
    headers: &[&'static str],
    own: Option<&'a str>,
    own_name: &'static str,
) -> Result<Option<(&'a str, &'static str)>> {
    let mut found = own.map(|v| (v, own_name));
    for name in headers {
        for h in rq.headers().iter().filter(|h| h.field.equiv(name)) {
            let v = h.value.as_str();
            match found {
                None => found = Some((v, *name)),
                Some((seen, by)) if seen != v => {
                    return Err(Error::validation(
                        *name,
                        format!("disagrees with {by}: the request described is ambiguous"),
                    ))
                }
                Some(_) => {}
            }
        }
    }
    Ok(found)
}

/// Adds the `X-Keyhook-Error-*` headers to a refusal of the check, from its error object, so
/// that a proxy that drops the body (nginx `auth_request`) can rebuild it.
pub fn error_headers(r: &mut Reply) {
    if r.status < 400 {
        return;
    }
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&r.body) else {
        return;
    };
    let e = &v["error"];
    let mut headers = Vec::with_capacity(3);
    if let Some(code) = e["code"].as_str() {
        headers.push(("X-Keyhook-Error-Code", forward::header_text(code)));
    }
    if let Some(message) = e["message"].as_str() {
        headers.push(("X-Keyhook-Error-Message", forward::header_text(message)));
    }
    if let Some(field) = e["details"][0]["field"].as_str() {
        headers.push(("X-Keyhook-Error-Field", forward::header_text(field)));
    }
    r.headers = Some(HeaderLines::new(
        headers.iter().map(|(name, value)| (*name, value.as_str())),
    ));
}

/// The client's address of `rq` from `peer`: from a peer within `trusted`, the rightmost
/// `X-Forwarded-For` address that is not itself trusted (else `X-Real-IP`); from any other
/// peer, or when those headers do not hold addresses, the peer itself.
pub fn client_addr(rq: &Request, peer: Option<IpAddr>, trusted: &[Cidr]) -> Option<IpAddr> {
    let peer = peer?;
    let is_trusted = |ip: IpAddr| trusted.iter().any(|c| c.contains(ip));
    if !is_trusted(peer) {
        return Some(peer);
    }
    let forwarded: Vec<&str> = rq
        .headers()
        .iter()
        .filter(|h| h.field.equiv("X-Forwarded-For"))
        .flat_map(|h| h.value.as_str().split(','))
        .map(str::trim)
        .collect();
    if !forwarded.is_empty() {
        for entry in forwarded.iter().rev() {
            let Ok(ip) = entry.parse::<IpAddr>() else {
                return Some(peer);
            };
            if !is_trusted(ip) {
                return Some(ip);
            }
        }
        return forwarded[0].parse().ok().or(Some(peer));
    }
    let mut real = rq.headers().iter().filter(|h| h.field.equiv("X-Real-IP"));
    match (real.next(), real.next()) {
        (Some(h), None) => h.value.as_str().trim().parse().ok().or(Some(peer)),
        _ => Some(peer),
    }
}
