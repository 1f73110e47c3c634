//! Operating `serve`: `--rate-limit` (a bucket per key, failed
//! authentications per address, 429 with `Retry-After`, the `RateLimit-*` headers),
//! `GET /healthz` (200, or 503 when the database does not answer) and `GET /metrics`
//! (Prometheus text: counters that move by what happened, labels bounded whatever the paths).

use std::collections::BTreeMap;

use serde_json::json;

use crate::common::{fold_log, new_key, poll, poll_until, skip_unless_sqlite, Env};
use crate::receiver::Receiver;
use crate::server::{Resp, Server, KEYS, PATIENCE};

/// The `Accept` of a Prometheus 2.x scrape.
const OPENMETRICS: &str = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

/// `Retry-After` and the three `RateLimit-*` headers as numbers (None when absent).
fn limit_headers(r: &Resp) -> [Option<u64>; 4] {
    [
        "Retry-After",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
    ]
    .map(|h| {
        r.header(h)
            .map(|v| v.parse().unwrap_or_else(|_| panic!("{h}: {v:?}")))
    })
}

/// A scrape of /metrics: each sample line's name with labels, and its value.
pub(crate) fn scrape(server: &Server) -> BTreeMap<String, f64> {
    let r = server.send("GET", "/metrics", &[("Accept", OPENMETRICS)], None);
    assert_eq!(r.status, 200, "{r:?}");
    let ct = r.header("Content-Type").unwrap_or("");
    assert!(ct.starts_with("application/openmetrics-text"), "{ct}");
    assert!(r.body.ends_with("# EOF\n"), "{}", r.body);
    r.body
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, value) = l.rsplit_once(' ').unwrap_or_else(|| panic!("{l:?}"));
            (
                name.to_string(),
                value.parse().unwrap_or_else(|_| panic!("{l:?}")),
            )
        })
        .collect()
}

pub(crate) fn sample(m: &BTreeMap<String, f64>, name: &str) -> f64 {
    m.get(name).copied().unwrap_or(0.0)
}

pub(crate) fn requests(route: &str, status: u16) -> String {
    format!("keyhook_http_requests_total{{route=\"{route}\",status=\"{status}\"}}")
}

#[test]
fn a_bad_rate_is_refused_with_exit_2_and_a_reason() {
    let env = Env::new();
    for (rate, says) in [
        ("0/s", "at least 1"),
        ("10/hour", "unknown period"),
        ("abc", "not a rate"),
        ("1.5/s", "not a rate"),
    ] {
        let r = env.run(&["serve", "--bind", "127.0.0.1:0", "--rate-limit", rate]);
        r.assert_error(2);
        assert!(r.stderr.contains("--rate-limit"), "{rate}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{rate}: {}", r.stderr);
        let mut c = env.cmd();
        let out = c
            .env("KEYHOOK_RATE_LIMIT", rate)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "KEYHOOK_RATE_LIMIT={rate}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(says));
    }
}

#[test]
fn a_key_over_its_rate_gets_429_with_retry_after_and_others_are_not_slowed() {
    let env = Env::new();
    let (a, b) = (new_key(&env, "a", &[]).0, new_key(&env, "b", &[]).0);
    let server = Server::start_with(&env, &["--rate-limit", "3/min"]);
    for remaining in [2, 1, 0] {
        let r = server.get(KEYS, &a);
        assert_eq!(r.status, 200, "{r:?}");
        // 3/min: a cell comes back every 20 s; the bucket is full again when all have.
        let used = 3 - remaining;
        assert_eq!(
            limit_headers(&r),
            [None, Some(3), Some(remaining), Some(20 * used)],
            "{r:?}"
        );
    }
    let r = server.get(KEYS, &a);
    assert_eq!(r.status, 429, "{r:?}");
    assert_eq!(r.json()["error"]["code"], "RATE_LIMITED", "{r:?}");
    let [retry, limit, remaining, reset] = limit_headers(&r);
    let retry = retry.expect("Retry-After");
    assert!(
        (1..=20).contains(&retry),
        "whole seconds until a cell is back: {r:?}"
    );
    assert_eq!((limit, remaining), (Some(3), Some(0)), "{r:?}");
    assert!(reset.unwrap() >= retry, "{r:?}");
    // An error after authentication carries the headers too (a 404 costs a request).
    let mut c = Server::start_with(&env, &["--rate-limit", "3/min"]);
    let r = c.get("/api/v1/nothing-here", &a);
    assert_eq!(r.status, 404, "{r:?}");
    assert_eq!(
        limit_headers(&r)[1..],
        [Some(3), Some(2), Some(20)],
        "{r:?}"
    );
    c.stop_with("TERM");
    // Another key has its own bucket.
    let r = server.get(KEYS, &b);
    assert_eq!((r.status, limit_headers(&r)[2]), (200, Some(2)), "{r:?}");
    // The log names the key by its prefix only.
    assert!(!server.log().contains(&a), "the plaintext key is logged");
}

/// The OpenAPI document says where the `RateLimit-*` headers come: on every operation's
/// success and on each error answered after the key was authenticated (a 404 above), not
/// on 401; the 429 adds `Retry-After`.
#[test]
fn the_openapi_document_names_the_rate_limit_headers_on_authenticated_responses() {
    let env = Env::new();
    let server = Server::start(&env);
    let doc = server.send("GET", "/api/v1/openapi.json", &[], None).json();
    let names = |r: &serde_json::Value| -> Vec<String> {
        let mut v: Vec<String> = r["headers"]
            .as_object()
            .map(|h| h.keys().cloned().collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    let rate = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];
    let components = &doc["components"]["responses"];
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            operations += 1;
            let responses = op["responses"].as_object().unwrap();
            // Any authenticated operation can be over `--rate-limit`.
            if op["security"] != json!([]) {
                assert!(responses.contains_key("429"), "{method} {path}: no 429");
            }
            for (code, resp) in responses {
                let resp = match resp["$ref"].as_str() {
                    Some(r) => &components[r.rsplit('/').next().unwrap()],
                    None => resp,
                };
                let at = format!("{method} {path} {code}");
                assert!(resp["description"].is_string(), "{at}: {resp}");
                // The key check's own headers (its identity, its refusals' error object) are
                // checked by openapi::the_key_checks_answers_carry_their_declared_headers.
                let has: Vec<String> = names(resp)
                    .into_iter()
                    .filter(|h| !(path.starts_with("/auth") && h.starts_with("X-Keyhook-")))
                    .collect();
                // No key asked for (the document itself): nothing to count; a 405 names
                // the methods the path takes.
                if op["security"] == json!([]) {
                    let want: &[&str] = if code == "405" { &["Allow"] } else { &[] };
                    assert_eq!(has, want, "{at}");
                    continue;
                }
                match code.as_str() {
                    "401" => assert_eq!(has, ["WWW-Authenticate"], "{at}"),
                    "405" => assert_eq!(
                        has,
                        [
                            "Allow",
                            "RateLimit-Limit",
                            "RateLimit-Remaining",
                            "RateLimit-Reset"
                        ],
                        "{at}"
                    ),
                    "408" | "414" | "417" | "431" | "501" | "505" => {
                        assert!(has.is_empty(), "{at}: {has:?}")
                    }
                    // A 400 without a body to validate is the protocol's BadRequest.
                    "400" if resp == &components["BadRequest"] => {
                        assert!(has.is_empty(), "{at}: {has:?}")
                    }
                    "429" => assert_eq!(
                        has,
                        [
                            "RateLimit-Limit",
                            "RateLimit-Remaining",
                            "RateLimit-Reset",
                            "Retry-After"
                        ],
                        "{at}"
                    ),
                    _ => assert_eq!(has, rate, "{at}"),
                }
                for h in has
                    .iter()
                    .filter(|h| h.starts_with("RateLimit") || *h == "Retry-After")
                {
                    assert_eq!(resp["headers"][h]["schema"]["type"], "integer", "{at} {h}");
                }
            }
        }
    }
    assert!(operations >= 15, "{operations} operations");
}

#[test]
fn without_rate_limit_nothing_is_limited_and_no_header_is_sent() {
    let env = Env::new();
    let a = new_key(&env, "a", &[]).0;
    let server = Server::start(&env);
    for _ in 0..30 {
        let r = server.get(KEYS, &a);
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(limit_headers(&r), [None; 4], "{r:?}");
    }
}

#[test]
fn failed_authentications_are_limited_per_address_before_any_key_is_looked_at() {
    let env = Env::new();
    let good = new_key(&env, "good", &[]).0;
    let server = Server::start_with(&env, &["--rate-limit", "3/min"]);
    let wrong = format!("kp_{}", "0".repeat(64));
    for _ in 0..3 {
        let r = server.get(KEYS, &wrong);
        assert_eq!(r.status, 401, "{r:?}");
    }
    // After 3 failures within the minute, every request from the address is refused before
    // its key is looked at: a valid key, a 4th guess, no key at all.
    let r = server.get(KEYS, &good);
    assert_eq!(r.status, 429, "a valid key from a blocked address: {r:?}");
    assert_eq!(r.json()["error"]["code"], "RATE_LIMITED");
    assert!(
        limit_headers(&r)[0].is_some_and(|s| (1..=20).contains(&s)),
        "{r:?}"
    );
    let r = server.get(KEYS, &wrong);
    assert_eq!(r.status, 429, "the fourth guess: {r:?}");
    let r = server.call("GET", KEYS, None);
    assert_eq!(r.status, 429, "{r:?}");
    let m = scrape(&server);
    assert_eq!(
        sample(&m, r#"keyhook_auth_failures_total{reason="unknown_key"}"#),
        3.0,
        "no key is looked up once the address is refused: {m:?}"
    );
    assert_eq!(
        sample(&m, r#"keyhook_auth_failures_total{reason="rate_limited"}"#),
        3.0,
        "{m:?}"
    );
    // /healthz and /metrics are not limited.
    assert_eq!(server.send("GET", "/healthz", &[], None).status, 200);
}

#[test]
fn healthz_answers_200_with_the_database_up() {
    let env = Env::new();
    env.create_key("k", &[]);
    let server = Server::start(&env);
    let r = server.send("GET", "/healthz", &[], None);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json(), json!({"status": "ok"}));
    assert_eq!(r.header("Content-Type"), Some("application/json"));
    // No authentication, and no route under /api/v1 by that name.
    assert_eq!(server.send("POST", "/healthz", &[], Some(b"")).status, 405);
    assert_eq!(server.call("GET", "/api/v1/healthz", None).status, 401);
}

#[test]
fn healthz_answers_503_when_the_sqlite_file_can_no_longer_be_read() {
    if skip_unless_sqlite("truncates the SQLite file under the server") {
        return;
    }
    let env = Env::new();
    env.create_key("k", &[]);
    // The command left its commit in the log beside the file; folded back, the file alone
    // holds the database, and truncating it takes away what the server reads.
    fold_log(&env.db());
    let server = Server::start(&env);
    assert_eq!(server.send("GET", "/healthz", &[], None).status, 200);
    std::fs::OpenOptions::new()
        .write(true)
        .open(env.db())
        .and_then(|f| f.set_len(0))
        .expect("truncate the database file");
    let r = server.send("GET", "/healthz", &[], None);
    assert_eq!(r.status, 503, "{r:?}");
    let v = r.json();
    assert_eq!(v["status"], "unavailable", "{v}");
    assert_eq!(v["error"]["code"], "SERVICE_UNAVAILABLE", "{v}");
}

#[test]
fn healthz_answers_503_while_postgresql_is_stopped_and_200_when_it_is_back() {
    if skip_unless_sqlite("makes its own PostgreSQL cluster") {
        return;
    }
    let Some(cluster) = test_postgres::Cluster::private() else {
        return;
    };
    let db = cluster.database();
    let server = Server::start_on_url(&db.url(), cluster.password(), None, &[]);
    assert_eq!(server.send("GET", "/healthz", &[], None).status, 200);
    db.sql("CHECKPOINT");
    cluster.stop();
    let r = server.send("GET", "/healthz", &[], None);
    assert_eq!(r.status, 503, "{r:?}");
    assert_eq!(r.json()["status"], "unavailable");
    assert!(!r.body.contains(cluster.password()), "{r:?}");
    cluster.start();
    assert!(
        poll_until(PATIENCE, || server
            .send("GET", "/healthz", &[], None)
            .status
            == 200),
        "not healthy again: {}",
        server.log()
    );
}

#[test]
fn metrics_count_requests_by_route_template_and_status() {
    let env = Env::new();
    let a = new_key(&env, "a", &[]).0;
    let server = Server::start(&env);
    let before = scrape(&server);
    for _ in 0..3 {
        assert_eq!(server.get(KEYS, &a).status, 200);
    }
    for i in 0..5 {
        assert_eq!(server.get(&format!("{KEYS}/key_nope{i}"), &a).status, 404);
    }
    assert_eq!(server.call("GET", KEYS, None).status, 401);
    assert_eq!(server.send("GET", "/healthz", &[], None).status, 200);
    let after = scrape(&server);
    let moved = |name: &str| sample(&after, name) - sample(&before, name);
    assert_eq!(moved(&requests("/api/v1/api-keys", 200)), 3.0, "{after:?}");
    assert_eq!(
        moved(&requests("/api/v1/api-keys/{id}", 404)),
        5.0,
        "{after:?}"
    );
    assert_eq!(moved(&requests("/api/v1/api-keys", 401)), 1.0, "{after:?}");
    assert_eq!(moved(&requests("/healthz", 200)), 1.0, "{after:?}");
    assert_eq!(moved(&requests("/metrics", 200)), 1.0, "the first scrape");
    assert_eq!(
        moved(r#"keyhook_auth_failures_total{reason="missing_header"}"#),
        1.0
    );
    let count = r#"keyhook_http_request_duration_seconds_count{route="/api/v1/api-keys"}"#;
    assert_eq!(moved(count), 4.0, "{after:?}");
    let inf = r#"keyhook_http_request_duration_seconds_bucket{le="+Inf",route="/api/v1/api-keys"}"#;
    assert_eq!(sample(&after, inf), sample(&after, count));
    assert!(after.contains_key("keyhook_outbox_pending"), "{after:?}");
    assert!(after.contains_key("keyhook_outbox_oldest_pending_age_seconds"));
}

#[test]
fn random_paths_create_no_label_values() {
    let env = Env::new();
    let a = new_key(&env, "a", &[]).0;
    let server = Server::start(&env);
    let fresh_series = server
        .send("GET", "/metrics", &[], None)
        .body
        .lines()
        .filter(|l| l.starts_with("keyhook_http_requests_total"))
        .count();
    for i in 0..200 {
        let junk = format!("zz{i}q{}", i * 7919);
        server.get(&format!("/api/v1/{junk}/x"), &a);
        server.get(&format!("{KEYS}/{junk}"), &a);
        server.send("GET", &format!("/{junk}"), &[], None);
        server.send("GET", &format!("/metrics/{junk}"), &[], None);
    }
    let r = server.send("GET", "/metrics", &[], None);
    assert!(!r.body.contains("zz"), "a path became a label value");
    let series = r
        .body
        .lines()
        .filter(|l| l.starts_with("keyhook_http_requests_total"))
        .count();
    // The same series as before the first request: one per route and status.
    assert_eq!(series, fresh_series, "{}", r.body);
    let m = scrape(&server);
    assert_eq!(sample(&m, &requests("unmatched", 404)), 600.0, "{m:?}");
    assert_eq!(sample(&m, &requests("/api/v1/api-keys/{id}", 404)), 200.0);
}

/// Polls /metrics until `name` reaches `want` (the worker settles after the endpoint has
/// answered).
fn wait_for_sample(server: &Server, name: &str, want: f64) -> BTreeMap<String, f64> {
    poll(PATIENCE, || {
        let m = scrape(server);
        (sample(&m, name) >= want).then_some(m)
    })
    .unwrap_or_else(|| panic!("{name} never reached {want}: {:?}", scrape(server)))
}

#[test]
fn metrics_count_deliveries_and_show_the_outbox_backlog() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let a = new_key(&env, "a", &[]).0;
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    for (path, event) in [("/ok", "post.published"), ("/fail", "post.failed")] {
        let r = server.post_json(
            "/api/v1/webhooks",
            &a,
            &json!({"url": rx.url(path), "events": [event]}),
        );
        assert_eq!(r.status, 201, "{r:?}");
    }
    let delivered = r#"keyhook_deliveries_total{outcome="delivered"}"#;
    let retrying = r#"keyhook_deliveries_total{outcome="retrying"}"#;
    assert_eq!(sample(&scrape(&server), delivered), 0.0);
    for _ in 0..2 {
        let r = server.post_json(
            "/api/v1/events",
            &a,
            &json!({"event": "post.published", "data": {}}),
        );
        assert_eq!(r.status, 202, "{r:?}");
    }
    let m = wait_for_sample(&server, delivered, 2.0);
    assert_eq!(sample(&m, delivered), 2.0, "{m:?}");
    assert_eq!(sample(&m, "keyhook_outbox_pending"), 0.0, "{m:?}");
    assert_eq!(sample(&m, "keyhook_outbox_oldest_pending_age_seconds"), 0.0);

    // A failing endpoint: the delivery waits for its retry, pending, and ages with the clock.
    let r = server.post_json(
        "/api/v1/events",
        &a,
        &json!({"event": "post.failed", "data": {}}),
    );
    assert_eq!(r.status, 202, "{r:?}");
    let m = wait_for_sample(&server, retrying, 1.0);
    assert_eq!(sample(&m, retrying), 1.0, "{m:?}");
    assert_eq!(sample(&m, delivered), 2.0, "{m:?}");
    assert_eq!(sample(&m, "keyhook_outbox_pending"), 1.0, "{m:?}");
    env.advance_clock(1_000);
    let m = scrape(&server);
    let age = sample(&m, "keyhook_outbox_oldest_pending_age_seconds");
    assert!((1.0..2.0).contains(&age), "{age}: {m:?}");
}

/// The families of the table in docs/rate-limit-and-metrics.md.
fn documented_families() -> Vec<String> {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/rate-limit-and-metrics.md"
    ))
    .unwrap();
    let families: Vec<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| `keyhook_"))
        .map(|l| format!("keyhook_{}", l.split('`').next().unwrap()))
        .collect();
    assert!(families.len() >= 6, "{families:?}");
    families
}

/// What `promtool check metrics` asks of the text format 0.0.4 (its parser and lint): every
/// sample belongs to a family (its own name, or a histogram's `_bucket`, `_sum`, `_count`)
/// that has a `# HELP` and a `# TYPE`, and a counter's name ends in `_total`.
fn lint_text_004(body: &str) {
    let mut help = Vec::new();
    let mut types = BTreeMap::new();
    for line in body.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            help.push(rest.split(' ').next().unwrap().to_string());
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, t) = rest.split_once(' ').unwrap();
            types.insert(name.to_string(), t.to_string());
            if t == "counter" {
                assert!(name.ends_with("_total"), "{line}");
            }
        } else {
            assert!(!line.starts_with('#'), "no such line in 0.0.4: {line}");
            let name = line.split(['{', ' ']).next().unwrap();
            let family = ["_bucket", "_sum", "_count"]
                .iter()
                .filter_map(|s| name.strip_suffix(s))
                .find(|f| types.get(*f).is_some_and(|t| t == "histogram"))
                .unwrap_or(name);
            assert!(help.iter().any(|h| h == family), "{family} no help text");
            assert!(types.contains_key(family), "{family} no type");
        }
    }
}

/// `/metrics` answers OpenMetrics when `Accept` asks for it and the Prometheus text format
/// 0.0.4 otherwise; both hold every documented family, with every series of the HTTP
/// families (each route and status), from the first scrape, before any other request.
#[test]
fn metrics_negotiate_the_format_and_every_series_exists_before_the_first_request() {
    let env = Env::new();
    let server = Server::start(&env);
    let text = server.send("GET", "/metrics", &[], None);
    assert_eq!(text.status, 200);
    assert_eq!(
        text.header("Content-Type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    lint_text_004(&text.body);
    for accept in [
        "*/*",
        "text/plain",
        "text/plain;version=0.0.4",
        "application/json",
    ] {
        let r = server.send("GET", "/metrics", &[("Accept", accept)], None);
        assert!(
            r.header("Content-Type").unwrap().starts_with("text/plain"),
            "{accept}"
        );
    }
    let open = server.send("GET", "/metrics", &[("Accept", OPENMETRICS)], None);
    assert_eq!(
        open.header("Content-Type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    assert!(open.body.ends_with("# EOF\n"));
    let first = &text.body;
    for family in documented_families() {
        let base = family.strip_suffix("_total").unwrap_or(&family);
        assert!(
            first.contains(&format!("# HELP {family} ")),
            "{family}:\n{first}"
        );
        assert!(open.body.contains(&format!("# HELP {base} ")), "{family}");
        assert!(
            first.contains(&format!("\n{family}")),
            "no {family} series:\n{first}"
        );
    }
    // Every route's request and duration series, at 0, before a request reached it.
    let routes: Vec<String> = keyhook::http::ROUTES
        .iter()
        .map(|(t, _)| format!("/api/v1{t}"))
        .chain(keyhook::http::PORTAL_ROUTES.iter().map(|t| t.to_string()))
        .chain(["/healthz".into(), "/metrics".into(), "unmatched".into()])
        .collect();
    for route in &routes {
        for status in ["200", "401", "404", "other"] {
            let want =
                format!("keyhook_http_requests_total{{route=\"{route}\",status=\"{status}\"}} 0\n");
            assert!(first.contains(&want), "{want}");
        }
        let want = format!("keyhook_http_request_duration_seconds_count{{route=\"{route}\"}} 0\n");
        assert!(first.contains(&want), "{want}");
    }
}
