//! The key check a reverse proxy asks (CONTRACT §13): `/api/v1/auth` and
//! `/api/v1/auth/{path...}` decide as `/api/v1` does, on both backends; `--trusted-proxy`;
//! `keys verify --uri`. The real proxies in front of it: `proxies.rs`.

use std::sync::Barrier;
use std::thread;
use std::time::Duration;

use serde_json::Value;

use crate::common::{new_key, poll_until, Env};
use crate::server::{Resp, Server};

const TEMPLATE: &str = "/profiles/{profile}/";

/// `GET /api/v1/auth` describing `method uri` the nginx way.
fn check(server: &Server, key: Option<&str>, method: &str, uri: &str) -> Resp {
    let auth = key.map(|k| format!("Bearer {k}"));
    let mut h = vec![("X-Original-Method", method), ("X-Original-URI", uri)];
    if let Some(a) = auth.as_deref() {
        h.push(("Authorization", a));
    }
    server.send("GET", "/api/v1/auth", &h, None)
}

/// A refusal of the check: its status, the error object's code, and the same code and
/// message in the `X-Keyhook-Error-*` headers.
fn refused(r: &Resp, status: u16, code: &str) -> Value {
    assert_eq!(r.status, status, "{r:?}");
    let e = r.json()["error"].clone();
    assert_eq!(e["code"], code, "{r:?}");
    assert_eq!(r.header("X-Keyhook-Error-Code"), Some(code), "{r:?}");
    // The message percent-encoded where it is not printable ASCII, and its `%`, `"`, `\`.
    let shown = r
        .header("X-Keyhook-Error-Message")
        .expect("the message header");
    assert_eq!(
        Some(percent_decoded(shown).as_str()),
        e["message"].as_str(),
        "{r:?}"
    );
    assert!(r.header("X-Keyhook-User").is_none(), "{r:?}");
    e
}

fn percent_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn the_check_allows_and_tells_the_upstream_who_calls() {
    let env = Env::new();
    let (k, made) = new_key(&env, "guard", &["--profile", "brand-a", "--profile", "a,b"]);
    let server = Server::start_with(&env, &["--auth-profile", TEMPLATE]);
    let r = check(&server, Some(&k), "POST", "/profiles/brand-a/posts");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.body, "");
    assert_eq!(r.header("X-Keyhook-Key-Id"), made["id"].as_str());
    assert_eq!(r.header("X-Keyhook-Key-Prefix"), Some(&k[..11]));
    assert_eq!(r.header("X-Keyhook-User"), made["userId"].as_str());
    assert_eq!(r.header("X-Keyhook-Permission"), Some("readwrite"));
    // Each id encoded: `a,b` is one profile, not two.
    assert_eq!(r.header("X-Keyhook-Profiles"), Some("brand-a,a%2Cb"));
    assert!(r.header("X-Keyhook-Error-Code").is_none());
    // The use is recorded as any request's: at best effort, as on /api/v1 (a check never
    // waits more than a moment for another writer, so under load a use may go unrecorded;
    // the next check records it).
    let recorded = poll_until(Duration::from_secs(20), || {
        env.list(&[])[0]["lastUsedAt"].is_string()
            || check(&server, Some(&k), "POST", "/profiles/brand-a/posts").status != 200
    });
    assert!(recorded, "no check recorded the use");
    let shown = &env.list(&[])[0];
    assert!(shown["lastUsedAt"].is_string(), "{shown}");
    // A full-access key reads as `*`; a profile named `*` never does.
    let (full, _) = new_key(&env, "guard", &[]);
    let r = check(&server, Some(&full), "GET", "/profiles/x/posts");
    assert_eq!(r.header("X-Keyhook-Profiles"), Some("*"));
    let (star, _) = new_key(&env, "guard", &["--profile", "*"]);
    let r = check(&server, Some(&star), "GET", "/profiles/*/posts");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("X-Keyhook-Profiles"), Some("%2A"));
    // Without a method header the request described is a GET; HEAD and OPTIONS read too.
    let (ro, _) = new_key(&env, "guard", &["--permission", "readonly"]);
    let auth = format!("Bearer {ro}");
    let r = server.send(
        "GET",
        "/api/v1/auth",
        &[("Authorization", &auth), ("X-Original-URI", "/posts")],
        None,
    );
    assert_eq!(r.status, 200, "{r:?}");
    for m in ["HEAD", "OPTIONS"] {
        assert_eq!(check(&server, Some(&ro), m, "/posts").status, 200, "{m}");
    }
}

#[test]
fn each_refusal_is_the_error_object_with_its_headers() {
    let env = Env::with_clock();
    let (k, made) = new_key(
        &env,
        "guard",
        &["--profile", "brand-a", "--permission", "readonly"],
    );
    let server = Server::start_with(&env, &["--auth-profile", TEMPLATE]);
    // Permission by the described method (spec §5).
    for m in ["POST", "PUT", "PATCH", "DELETE", "PROPFIND", "get"] {
        let r = check(&server, Some(&k), m, "/profiles/brand-a/posts");
        refused(&r, 403, "FORBIDDEN");
    }
    // Profile scope: by the template, and by profileId.
    for uri in [
        "/profiles/brand-b/posts",
        "/PROFILES/brand-b/posts",
        "/profiles/br%61nd-b/posts",
        "/profiles/brand-a/posts?profileId=brand-b",
        "/posts?profileId=brand-b",
        "/posts?profile%49d=brand-b",
    ] {
        let r = check(&server, Some(&k), "GET", uri);
        let e = refused(&r, 403, "FORBIDDEN");
        assert_eq!(e["details"][0]["field"], "profileId", "{uri}");
        assert_eq!(
            r.header("X-Keyhook-Error-Field"),
            Some("profileId"),
            "{uri}"
        );
    }
    assert_eq!(
        check(&server, Some(&k), "GET", "/posts?profileId=brand-a").status,
        200
    );
    // Forms an upstream would normalise into another profile are refused, not normalised.
    for uri in [
        "/profiles/brand-a/../brand-b/posts",
        "/profiles/brand-a/./posts",
        "/profiles//brand-b/posts",
        "/profiles/brand-a%2F..%2Fbrand-b/posts",
        "/profiles/brand-a/%2e%2e/brand-b/posts",
        "/profiles/brand-a%5C..%5Cbrand-b/posts",
        "/profiles/brand-a/..;/brand-b/posts",
        "/profiles/brand-a/%252e%252e/brand-b/posts",
        "/profiles/brand-a%252F..%252Fbrand-b/posts",
        "/posts?profileId=brand+a",
    ] {
        let r = check(&server, Some(&k), "GET", uri);
        let e = refused(&r, 400, "VALIDATION_ERROR");
        assert_eq!(e["details"][0]["field"], "X-Original-URI", "{uri}");
    }
    // Two sources that disagree: refused, naming the header.
    let auth = format!("Bearer {k}");
    let r = server.send(
        "GET",
        "/api/v1/auth",
        &[
            ("Authorization", &auth),
            ("X-Original-URI", "/profiles/brand-a/posts"),
            ("X-Forwarded-Uri", "/profiles/brand-b/posts"),
        ],
        None,
    );
    let e = refused(&r, 400, "VALIDATION_ERROR");
    assert_eq!(e["details"][0]["field"], "X-Forwarded-Uri");
    let r = server.send(
        "GET",
        "/api/v1/auth",
        &[
            ("Authorization", &auth),
            ("X-Original-URI", "/posts"),
            ("X-Original-Method", "GET"),
            ("X-Forwarded-Method", "POST"),
        ],
        None,
    );
    assert_eq!(
        refused(&r, 400, "VALIDATION_ERROR")["details"][0]["field"],
        "X-Forwarded-Method"
    );
    // With --auth-profile, a check that describes no URI is refused.
    let r = server.send("GET", "/api/v1/auth", &[("Authorization", &auth)], None);
    refused(&r, 400, "VALIDATION_ERROR");
    // 401: no key, a checksum mismatch, an unknown key, a deleted key, an expired one.
    let r = check(&server, None, "GET", "/posts");
    refused(&r, 401, "UNAUTHORIZED");
    assert_eq!(
        r.header("WWW-Authenticate"),
        Some("Bearer realm=\"keyhook\"")
    );
    let mut typo = k.clone();
    typo.replace_range(20..21, if &k[20..21] == "0" { "1" } else { "0" });
    let e = refused(
        &check(&server, Some(&typo), "GET", "/posts"),
        401,
        "UNAUTHORIZED",
    );
    assert_eq!(e["message"], "API key checksum mismatch");
    let (gone, gone_made) = new_key(&env, "guard", &[]);
    let id = gone_made["id"].as_str().unwrap();
    assert_eq!(env.run(&["keys", "delete", id, "--yes"]).code, 0);
    refused(
        &check(&server, Some(&gone), "GET", "/posts"),
        401,
        "UNAUTHORIZED",
    );
    let (soon, _) = new_key(&env, "guard", &["--expires-in", "1h"]);
    assert_eq!(check(&server, Some(&soon), "GET", "/posts").status, 200);
    env.advance_clock(3_600_001);
    let e = refused(
        &check(&server, Some(&soon), "GET", "/posts"),
        401,
        "API_KEY_EXPIRED",
    );
    assert_eq!(e["message"], "API key has expired");
    let _ = made;
}

/// Envoy's form: the check's own method and path describe the request.
#[test]
fn the_path_form_describes_itself() {
    let env = Env::new();
    let (k, _) = new_key(&env, "guard", &["--profile", "brand-a"]);
    let server = Server::start_with(&env, &["--auth-profile", TEMPLATE]);
    let auth = format!("Bearer {k}");
    let h = [("Authorization", auth.as_str())];
    let r = server.send("POST", "/api/v1/auth/profiles/brand-a/posts?x=1", &h, None);
    assert_eq!(r.status, 200, "{r:?}");
    let r = server.send("DELETE", "/api/v1/auth/profiles/brand-b/posts", &h, None);
    assert_eq!(r.status, 403, "{r:?}");
    let r = server.send("GET", "/api/v1/auth/posts?profileId=brand-b", &h, None);
    assert_eq!(r.status, 403, "{r:?}");
    // (Raw: an HTTP client would normalise the dot segments away.)
    let raw = format!(
        "GET /api/v1/auth/profiles/brand-a/../brand-b HTTP/1.1\r\nHost: x\r\n\
         Authorization: {auth}\r\nConnection: close\r\n\r\n"
    );
    let r = server.raw(raw.as_bytes()).expect("an answer");
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.header("X-Keyhook-Error-Code"), Some("VALIDATION_ERROR"));
    // A header that disagrees with the request's own path is refused.
    let r = server.send(
        "GET",
        "/api/v1/auth/profiles/brand-a/posts",
        &[
            ("Authorization", &auth),
            ("X-Forwarded-Uri", "/profiles/brand-b/posts"),
        ],
        None,
    );
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.header("X-Keyhook-Error-Field"), Some("X-Forwarded-Uri"));
}

/// `--max-uses` holds exactly under concurrent checks; the last use refuses with the spec's
/// message.
#[test]
fn max_uses_are_exact_under_concurrent_checks() {
    let env = Env::new();
    let (k, made) = new_key(&env, "guard", &["--max-uses", "5"]);
    let server = Server::start_with(&env, &[]);
    let barrier = Barrier::new(12);
    let statuses: Vec<u16> = thread::scope(|s| {
        let handles: Vec<_> = (0..12)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    check(&server, Some(&k), "GET", "/posts").status
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        5,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 403).count(),
        7,
        "{statuses:?}"
    );
    let e = refused(
        &check(&server, Some(&k), "GET", "/posts"),
        403,
        "KEY_EXHAUSTED",
    );
    assert_eq!(e["message"], "API key has no uses left");
    let id = made["id"].as_str().unwrap();
    let r = env.run(&["--json", "keys", "show", id]);
    assert_eq!(r.json()["data"]["remainingUses"], 0, "{r:?}");
}

/// `--rate-limit` counts checks as requests: 429 with Retry-After and the RateLimit-*
/// headers, which an allowed check carries too.
#[test]
fn checks_are_rate_limited_as_requests() {
    let env = Env::new();
    let (k, _) = new_key(&env, "guard", &[]);
    let server = Server::start_with(&env, &["--rate-limit", "2/min"]);
    let first = check(&server, Some(&k), "GET", "/posts");
    assert_eq!(first.status, 200);
    assert_eq!(first.header("RateLimit-Limit"), Some("2"));
    assert_eq!(first.header("RateLimit-Remaining"), Some("1"));
    // One request of the API and one check share the key's bucket.
    assert_eq!(server.get("/api/v1/api-keys", &k).status, 200);
    let r = check(&server, Some(&k), "GET", "/posts");
    refused(&r, 429, "RATE_LIMITED");
    assert!(r.header("Retry-After").unwrap().parse::<u64>().unwrap() >= 1);
    assert_eq!(r.header("RateLimit-Remaining"), Some("0"));
}

/// A second instance on the same database answers the same: uses shared, a revocation seen
/// by both at their next check.
#[test]
fn a_second_instance_answers_the_same() {
    let env = Env::new();
    let (k, made) = new_key(&env, "guard", &["--max-uses", "3"]);
    let a = Server::start_with(&env, &[]);
    let b = Server::start_with(&env, &[]);
    assert_eq!(check(&a, Some(&k), "GET", "/posts").status, 200);
    assert_eq!(check(&b, Some(&k), "GET", "/posts").status, 200);
    assert_eq!(check(&a, Some(&k), "GET", "/posts").status, 200);
    refused(&check(&b, Some(&k), "GET", "/posts"), 403, "KEY_EXHAUSTED");
    let (other, other_made) = new_key(&env, "guard", &[]);
    assert_eq!(check(&a, Some(&other), "GET", "/posts").status, 200);
    assert_eq!(check(&b, Some(&other), "GET", "/posts").status, 200);
    let id = other_made["id"].as_str().unwrap();
    assert_eq!(env.run(&["keys", "delete", id, "--yes"]).code, 0);
    refused(
        &check(&a, Some(&other), "GET", "/posts"),
        401,
        "UNAUTHORIZED",
    );
    refused(
        &check(&b, Some(&other), "GET", "/posts"),
        401,
        "UNAUTHORIZED",
    );
    let _ = made;
}

/// Failed authentications are limited per client: without `--trusted-proxy` every client
/// behind a proxy is the proxy and shares its block; with it, the forwarded address is the
/// client (from trusted peers only).
#[test]
fn trusted_proxies_name_the_client() {
    let env = Env::new();
    let bad = "kp_".to_string() + &"0".repeat(64);
    let from = |server: &Server, client: &str| {
        let auth = format!("Bearer {bad}");
        server
            .send(
                "GET",
                "/api/v1/auth",
                &[("Authorization", &auth), ("X-Forwarded-For", client)],
                None,
            )
            .status
    };
    // Untrusted: the forwarded address is ignored; the third failure blocks everyone.
    let plain = Server::start_with(&env, &["--rate-limit", "2/min"]);
    assert_eq!(from(&plain, "10.0.0.1"), 401);
    assert_eq!(from(&plain, "10.0.0.2"), 401);
    assert_eq!(from(&plain, "10.0.0.3"), 429);
    drop(plain);
    let trusting = Server::start_with(
        &env,
        &["--rate-limit", "2/min", "--trusted-proxy", "127.0.0.0/8"],
    );
    assert_eq!(from(&trusting, "10.0.0.1"), 401);
    assert_eq!(from(&trusting, "10.0.0.1"), 401);
    assert_eq!(from(&trusting, "10.0.0.1"), 429);
    // Another client behind the same proxy is not blocked; the rightmost untrusted
    // address is the client's, whatever a client wrote before it.
    assert_eq!(from(&trusting, "10.0.0.2"), 401);
    assert_eq!(from(&trusting, "10.0.0.1, 10.0.0.3"), 401);
    assert_eq!(from(&trusting, "10.0.0.9, 10.0.0.1"), 429);
    assert_eq!(from(&trusting, "10.0.0.1, 10.0.0.9, 127.0.0.5"), 401);
    drop(trusting);
    // A proxy that is not trusted cannot name the client.
    let elsewhere = Server::start_with(
        &env,
        &["--rate-limit", "2/min", "--trusted-proxy", "192.0.2.0/24"],
    );
    assert_eq!(from(&elsewhere, "10.0.0.1"), 401);
    assert_eq!(from(&elsewhere, "10.0.0.2"), 401);
    assert_eq!(from(&elsewhere, "10.0.0.3"), 429);
}

#[test]
fn serve_refuses_bad_templates_and_networks() {
    let env = Env::new();
    for args in [
        ["--auth-profile", "/profiles/"],
        ["--auth-profile", "profiles/{profile}"],
        ["--trusted-proxy", "10.0.0.0/33"],
        ["--trusted-proxy", "proxy.local"],
    ] {
        let r = env.run(&[&["serve", "--bind", "127.0.0.1:0"][..], &args[..]].concat());
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
    }
}

/// `keys verify --uri` answers the check's question offline, using none of the key's uses.
#[test]
fn verify_decides_a_uri_as_the_check_does() {
    let env = Env::new();
    let (k, made) = new_key(&env, "guard", &["--profile", "brand-a", "--max-uses", "1"]);
    let t = ["--auth-profile", TEMPLATE];
    let ok = env.verify(
        &k,
        &[
            &["--method", "POST", "--uri", "/profiles/brand-a/posts"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(ok.code, 0, "{ok:?}");
    assert!(
        ok.stdout.contains("may POST /profiles/brand-a/posts"),
        "{ok:?}"
    );
    let no = env.verify(
        &k,
        &[
            &["--method", "POST", "--uri", "/profiles/brand-b/posts"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(no.code, 4, "{no:?}");
    assert!(no.stderr.contains("brand-b"), "{no:?}");
    let no = env.verify(&k, &["--uri", "/posts?profileId=brand-b"]);
    assert_eq!(no.code, 4, "{no:?}");
    let bad = env.verify(
        &k,
        &[&["--uri", "/profiles/brand-a/../brand-b/"][..], &t].concat(),
    );
    assert_eq!(bad.code, 2, "{bad:?}");
    // None of its one use was spent.
    let id = made["id"].as_str().unwrap();
    let r = env.run(&["--json", "keys", "show", id]);
    assert_eq!(r.json()["data"]["remainingUses"], 1, "{r:?}");
}

/// `keys verify --method` takes every method the check takes and decides it as the check
/// does (GET, HEAD and OPTIONS read, any other method writes), with `--uri` and without; the
/// spec's methods in any letter case (`options` is OPTIONS); a method the check refuses is a
/// usage error.
#[test]
fn verify_takes_every_method_the_check_takes() {
    let env = Env::new();
    let (k, _) = new_key(&env, "guard", &["--permission", "readonly"]);
    let server = Server::start(&env);
    for m in [
        "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "PROPFIND", "M-SEARCH",
    ] {
        let checked = check(&server, Some(&k), m, "/posts").status;
        let want = match checked {
            200 => 0,
            403 => 4,
            other => panic!("{m}: the check answered {other}"),
        };
        let r = env.verify(&k, &["--method", m, "--uri", "/posts"]);
        assert_eq!(r.code, want, "{m} (the check: {checked}): {r:?}");
        let r = env.verify(&k, &["--method", m]);
        assert_eq!(r.code, want, "{m} without --uri: {r:?}");
    }
    assert_eq!(check(&server, Some(&k), "OPTIONS", "/posts").status, 200);
    let r = env.verify(&k, &["--method", "options"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("may OPTIONS"), "{r:?}");
    for bad in ["", "GET POST", "G\u{e9}T"] {
        let r = env.verify(&k, &["--method", bad]);
        assert_eq!(r.code, 2, "{bad:?}: {r:?}");
    }
}

/// The access log's `client` (`--log-format json`) is the forwarded address from a trusted
/// proxy only, else the peer's.
#[test]
fn the_access_log_names_the_forwarded_client_from_trusted_proxies_only() {
    let env = Env::new();
    let (k, _) = new_key(&env, "guard", &[]);
    let auth = format!("Bearer {k}");
    for (trusted, want) in [(true, "198.51.100.7"), (false, "127.0.0.1")] {
        let mut args = vec!["--log-format", "json"];
        if trusted {
            args.extend(["--trusted-proxy", "127.0.0.1/32"]);
        }
        let server = Server::start_with(&env, &args);
        let r = server.send(
            "GET",
            "/api/v1/auth",
            &[
                ("Authorization", &auth),
                ("X-Forwarded-For", "198.51.100.7"),
            ],
            None,
        );
        assert_eq!(r.status, 200, "{r:?}");
        let line = crate::common::poll(crate::server::PATIENCE, || {
            server.log().lines().find_map(|l| {
                let v: Value = serde_json::from_str(l).ok()?;
                (v["target"] == "keyhook::access").then_some(v)
            })
        })
        .unwrap_or_else(|| panic!("no access line:\n{}", server.log()));
        assert_eq!(line["client"], want, "{line}");
        assert_eq!(line["route"], "/api/v1/auth", "{line}");
    }
}
