//! `keyhook serve` and the request target, `Host` and routing, over raw loopback sockets:
//! no fragment in a target, a valid authority in an absolute-form target and in `Host`,
//! no empty path segment, line endings counted as received and a bare CR refused at once,
//! and one `Authorization` at most.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::common::str_of;
use crate::raw_http::{assert_envelope, refused, serve};
use crate::server::{raw_request, read_response, Server, KEYS};

/// `GET target` with the key, `Host: host` (bytes as given) and `Connection: close`.
fn get_with_host(key: &str, target: &str, host: &[u8]) -> Vec<u8> {
    let mut out = format!("GET {target} HTTP/1.1\r\nHost: ").into_bytes();
    out.extend_from_slice(host);
    out.extend_from_slice(
        format!("\r\nConnection: close\r\nAuthorization: Bearer {key}\r\n\r\n").as_bytes(),
    );
    out
}

/// The key list was served.
fn served(s: &Server, bytes: &[u8]) {
    let r = s
        .raw(bytes)
        .unwrap_or_else(|| panic!("no answer to {:?}", String::from_utf8_lossy(bytes)));
    assert_eq!(r.status, 200, "{:?}: {r:?}", String::from_utf8_lossy(bytes));
    assert!(r.json()["data"].is_array(), "{r:?}");
}

#[test]
fn a_fragment_in_any_target_is_400_and_closes() {
    let (_env, s, key) = serve(&[]);
    let auth = format!("Bearer {key}");
    for target in [
        "http://h#/api/v1/api-keys",
        "http://h/api/v1/api-keys#x",
        "/api/v1/api-keys#frag",
        "/api/v1/api-keys?a=b#frag",
        "/api/v1/api-keys#",
    ] {
        let rq = raw_request("GET", target, &[("Authorization", &auth)], b"");
        let err = refused(&s, &rq, 400, "BAD_REQUEST");
        assert!(
            err["message"].as_str().unwrap().contains('#'),
            "{target}: {err}"
        );
    }
    // The same without the fragment is served.
    served(
        &s,
        &raw_request(
            "GET",
            "http://h/api/v1/api-keys",
            &[("Authorization", &auth)],
            b"",
        ),
    );
}

#[test]
fn an_absolute_form_target_needs_a_valid_authority() {
    let (_env, s, key) = serve(&[]);
    let auth = format!("Bearer {key}");
    for target in [
        "http:///api/v1/api-keys",
        "http://:80/api/v1/api-keys",
        "http://u:pw@h/api/v1/api-keys",
        "http://u@h/api/v1/api-keys",
        "http://h:99999/api/v1/api-keys",
        "http://h:65536/api/v1/api-keys",
        "http://h:/api/v1/api-keys",
        "http://h:8x/api/v1/api-keys",
        "http://[::1/api/v1/api-keys",
        "http://[::1]x/api/v1/api-keys",
        "http://h%zz/api/v1/api-keys",
        "http:/api/v1/api-keys",
        "ftp://h/api/v1/api-keys",
        "h:80",
        "api/v1/api-keys",
    ] {
        let rq = raw_request("GET", target, &[("Authorization", &auth)], b"");
        refused(&s, &rq, 400, "BAD_REQUEST");
    }
    for target in [
        "http://h:65535/api/v1/api-keys",
        "HTTPS://H/api/v1/api-keys?x=1",
        "http://[::1]:1/api/v1/api-keys",
        "http://127.0.0.1/api/v1/api-keys",
        "http://a-b.c_d~e%41/api/v1/api-keys",
    ] {
        served(
            &s,
            &raw_request("GET", target, &[("Authorization", &auth)], b""),
        );
    }
}

#[test]
fn an_invalid_host_header_is_400_and_closes() {
    let (_env, s, key) = serve(&[]);
    for host in [
        &b"a b"[..],
        b"h\xc3\xa9",
        b"a/b",
        b"u@a",
        b"a:xyz",
        b"a:0",
        b"a:",
        b"a:99999",
        b"[::1",
        b"a?b",
        b"a#b",
    ] {
        let err = refused(&s, &get_with_host(&key, KEYS, host), 400, "BAD_REQUEST");
        assert!(err["message"].as_str().unwrap().contains("Host"), "{err}");
    }
    // Valid hosts, and an empty one (what a client sends when the target has no authority).
    for host in [
        &b"example.com"[..],
        b"example.com:8080",
        b"127.0.0.1:1",
        b"[::1]:80",
        b"",
    ] {
        served(&s, &get_with_host(&key, KEYS, host));
    }
    // HTTP/1.0 is checked too.
    let rq = format!("GET {KEYS} HTTP/1.0\r\nHost: u@a\r\nAuthorization: Bearer {key}\r\n\r\n");
    refused(&s, rq.as_bytes(), 400, "BAD_REQUEST");
}

#[test]
fn a_path_with_an_empty_segment_is_404_after_authentication() {
    let (_env, s, key) = serve(&[]);
    let auth = format!("Bearer {key}");
    let id = str_of(&s.get(KEYS, &key).data()[0], "id").to_string();
    let under_prefix = [
        "/api/v1//api-keys".to_string(),
        "/api/v1///api-keys".into(),
        "/api/v1/api-keys//".into(),
        "/api/v1/api-keys/".into(),
        "/api/v1/".into(),
        "/api/v1//".into(),
        format!("/api/v1/api-keys//{id}"),
        format!("/api/v1/api-keys/{id}/"),
        "/api/v1//webhooks?x=1".into(),
        "http://h/api/v1//api-keys".into(),
    ];
    for path in &under_prefix {
        let r = s
            .raw(&raw_request("GET", path, &[("Authorization", &auth)], b""))
            .expect("an answer");
        assert_envelope(&r, 404, "NOT_FOUND");
        // Authentication comes first, as for any path under /api/v1.
        let r = s
            .raw(&raw_request("GET", path, &[], b""))
            .expect("an answer");
        assert_envelope(&r, 401, "UNAUTHORIZED");
    }
    for path in ["//api/v1/api-keys", "/api//v1/api-keys"] {
        let r = s
            .raw(&raw_request("GET", path, &[("Authorization", &auth)], b""))
            .expect("an answer");
        assert_envelope(&r, 404, "NOT_FOUND");
    }
    // Without the empty segments: served.
    served(
        &s,
        &raw_request("GET", KEYS, &[("Authorization", &auth)], b""),
    );
    let r = s.get(&format!("{KEYS}/{id}"), &key);
    assert_eq!(r.status, 200, "{r:?}");
}

/// A head whose header lines, each ending in `eol`, are exactly `size` bytes together.
fn head_of_size(key: &str, eol: &str, size: usize) -> Vec<u8> {
    let mut lines = vec![
        "Host: x".to_string(),
        "Connection: close".to_string(),
        format!("Authorization: Bearer {key}"),
    ];
    let used: usize = lines.iter().map(|l| l.len() + eol.len()).sum();
    let rest = size - used;
    let n = rest.div_ceil(8000);
    for i in 0..n {
        // each filler line `X-Fnn: aaa...` plus its ending; the first takes the remainder
        let total = rest / n + if i == 0 { rest % n } else { 0 };
        lines.push(format!("X-F{i:02}: {}", "a".repeat(total - 7 - eol.len())));
    }
    let mut out = format!("GET {KEYS} HTTP/1.1{eol}");
    for l in &lines {
        out.push_str(l);
        out.push_str(eol);
    }
    assert_eq!(out.len() - KEYS.len() - 13 - eol.len(), size);
    out.push_str(eol);
    out.into_bytes()
}

#[test]
fn line_endings_are_counted_as_received_and_a_bare_cr_is_400_at_once() {
    let (_env, s, key) = serve(&["--header-timeout", "3s"]);
    // 64 KiB of header lines, endings included, whether they end in LF or CRLF.
    for eol in ["\n", "\r\n"] {
        served(&s, &head_of_size(&key, eol, 64 * 1024));
        let err = refused(
            &s,
            &head_of_size(&key, eol, 64 * 1024 + 1),
            431,
            "HEADERS_TOO_LARGE",
        );
        assert!(err["message"].as_str().unwrap().contains("in all"), "{err}");
    }
    // A CR that ends no line: 400 at once, not 408 at the header deadline.
    for head in [
        format!("GET {KEYS} HTTP/1.1\rHost: x\r\r"),
        format!("GET {KEYS} HTTP/1.1\r\nHost: x\r\r"),
        format!("GET {KEYS} HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n"),
        format!("GET {KEYS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\r\n"),
    ] {
        let started = Instant::now();
        let err = refused(&s, head.as_bytes(), 400, "BAD_REQUEST");
        assert!(
            err["message"].as_str().unwrap().contains("bare CR"),
            "{err}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{head:?} answered after {:?}",
            started.elapsed()
        );
    }
    // A CR and its LF in separate packets still end a line.
    let mut c = s.connect();
    let head = format!("GET {KEYS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r");
    c.write_all(head.as_bytes()).unwrap();
    c.flush().unwrap();
    s.wait_until_read(&c);
    c.write_all(b"\nConnection: close\r\n\r\n").unwrap();
    let r = read_response(&mut c).expect("an answer");
    assert_eq!(r.status, 200, "{r:?}");
}

#[test]
fn two_host_headers_are_400_in_any_version_with_the_right_message() {
    let (_env, s, key) = serve(&[]);
    let auth = format!("Authorization: Bearer {key}\r\n");
    for version in ["1.0", "1.1"] {
        let rq = format!("GET {KEYS} HTTP/{version}\r\nHost: a\r\nHost: a\r\n{auth}\r\n");
        let err = refused(&s, rq.as_bytes(), 400, "BAD_REQUEST");
        assert_eq!(
            err["message"], "a request may have at most one Host header",
            "HTTP/{version}"
        );
    }
    let rq = format!("GET {KEYS} HTTP/1.1\r\n{auth}\r\n");
    let err = refused(&s, rq.as_bytes(), 400, "BAD_REQUEST");
    assert_eq!(
        err["message"],
        "an HTTP/1.1 request needs exactly one Host header"
    );
    // HTTP/1.0 without Host is served.
    let rq = format!("GET {KEYS} HTTP/1.0\r\n{auth}\r\n");
    served(&s, rq.as_bytes());
}

#[test]
fn more_than_one_authorization_header_is_401() {
    let (_env, s, key) = serve(&[]);
    let good = format!("Bearer {key}");
    let bad = "Bearer kh_not_a_key";
    for pair in [[good.as_str(), bad], [bad, good.as_str()], [&good, &good]] {
        let rq = raw_request(
            "GET",
            KEYS,
            &[("Authorization", pair[0]), ("Authorization", pair[1])],
            b"",
        );
        let r = s.raw(&rq).expect("an answer");
        let err = assert_envelope(&r, 401, "UNAUTHORIZED");
        assert_eq!(
            err["message"], "more than one Authorization header",
            "{pair:?}"
        );
    }
    // One is served; it is the only change.
    served(
        &s,
        &raw_request("GET", KEYS, &[("Authorization", &good)], b""),
    );
}
