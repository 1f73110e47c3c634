//! `keyhook serve` reading request bodies from hostile and sloppy clients, over raw loopback
//! sockets: bounded chunk lines, strict chunked framing, trailers, a deadline for the whole
//! body, truncated bodies, `Connection: upgrade`, `Expect: 100-continue`. Any body that
//! cannot be read whole is answered (400, 408 or 413 envelope, `Connection: close`) and its
//! connection closed: nothing after it is read as a request.

use std::io::Write;
use std::net::Shutdown;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::poll_until;
use crate::raw_http::{
    assert_closed, assert_envelope, dribble, key_names, refused, refused_while_sending, serve,
};
use crate::server::{create_with, read_all_responses, read_response, KEYS};

/// A complete request creating the key `smuggled`, to follow a broken body.
fn smuggled(key: &str) -> String {
    format!(
        "POST {KEYS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 19\r\nConnection: close\r\n\r\n\
         {{\"name\":\"smuggled\"}}"
    )
}

/// Rule: nothing is buffered without a bound. A chunk-size line that never ends is refused
/// after its first KiB (1 KiB with extensions), while the client is still sending.
#[test]
fn an_endless_chunk_size_line_is_refused_after_its_first_kib() {
    let (_env, s, _key) = serve(&[]);
    refused_while_sending(
        &s,
        b"GET /nope HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
        b'0',
        400,
        "BAD_REQUEST",
    );
}

/// Rule: a body framing error is a 400 and the end of the connection; what follows it is
/// never served as a request (request smuggling).
#[test]
fn a_malformed_chunked_body_is_400_and_nothing_after_it_is_served() {
    let (_env, s, key) = serve(&[]);
    let smuggle = smuggled(&key);
    for body in [
        "zz\r\n",                           // not a size
        "3\r\nabcd\r\n0\r\n\r\n",           // a chunk longer than its size
        "c\n{\"name\":\"z\"}\r\n0\r\n\r\n", // an LF-only size line
        "1\r\na\r\n0\r\nX",                 // a trailer line that is not one
    ] {
        let mut bytes = create_with(&key, "Transfer-Encoding: chunked\r\n", body);
        bytes.extend_from_slice(smuggle.as_bytes());
        refused(&s, &bytes, 400, "BAD_REQUEST");
    }
    // Without a key: 401, not read, closed.
    let mut bytes =
        b"POST /api/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
Transfer-Encoding: chunked\r\n\r\nzz\r\n"
            .to_vec();
    bytes.extend_from_slice(smuggle.as_bytes());
    let mut c = s.connect();
    c.write_all(&bytes).unwrap();
    let all = read_all_responses(&mut c);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_envelope(&all[0], 401, "UNAUTHORIZED");
    assert_eq!(all[0].header("Connection"), Some("close"), "{all:?}");
    assert!(!key_names(&s, &key).contains(&"smuggled".to_string()));
}

/// Requests with bodies pipelined on one kept-alive connection (one write, before any
/// answer): each is answered in order with its own body, framed by `Content-Length` or
/// chunked, and the request after a body is read from the bytes that follow it (the
/// connection's reader passes from request to request: `vendor/tiny_http/PATCHES.md` k).
#[test]
fn pipelined_requests_with_bodies_are_answered_in_order() {
    let (_env, s, key) = serve(&[]);
    let mut bytes = create_with(&key, "Content-Length: 16\r\n", "{\"name\":\"first\"}");
    bytes.extend(create_with(
        &key,
        "Transfer-Encoding: chunked\r\n",
        "5\r\n{\"nam\r\nc\r\ne\":\"second\"}\r\n0\r\n\r\n",
    ));
    bytes.extend(create_with(
        &key,
        "Content-Length: 16\r\n",
        "{\"name\":\"third\"}",
    ));
    bytes.extend_from_slice(smuggled(&key).as_bytes());
    let mut c = s.connect();
    c.write_all(&bytes).unwrap();
    let all = read_all_responses(&mut c);
    let answered: Vec<(u16, Value)> = all
        .iter()
        .map(|r| (r.status, r.json()["data"]["name"].clone()))
        .collect();
    assert_eq!(
        answered,
        [
            (201, Value::from("first")),
            (201, Value::from("second")),
            (201, Value::from("third")),
            (201, Value::from("smuggled")),
        ],
        "{all:?}"
    );
}

/// Rule: a body that stops arriving mid-chunk is a 408 at the deadline, and what the client
/// sends after it is not a request.
#[test]
fn a_body_read_timeout_mid_chunk_is_408_and_closes() {
    let (_env, s, key) = serve(&["--header-timeout", "1s"]);
    let mut c = s.connect();
    let started = Instant::now();
    c.write_all(&create_with(
        &key,
        "Transfer-Encoding: chunked\r\n",
        "5\r\nab",
    ))
    .unwrap();
    // The 408 comes at the deadline, with nothing more sent; what comes after it is
    // not read as a request.
    let r = read_response(&mut c).expect("a 408");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert_envelope(&r, 408, "REQUEST_TIMEOUT");
    assert_eq!(r.header("Connection"), Some("close"), "{r:?}");
    let _ = c.write_all(smuggled(&key).as_bytes());
    assert_closed(&mut c);
    assert!(!key_names(&s, &key).contains(&"smuggled".to_string()));
}

/// Rule: the body must arrive within `--header-timeout` after the head; an unauthenticated
/// body is not waited for at all (401 and close), so slow bodies cannot hold the
/// connection slots.
#[test]
fn a_slow_body_is_cut_at_the_deadline_and_an_unauthenticated_one_is_not_read() {
    let (_env, s, key) = serve(&["--header-timeout", "1s", "--max-connections", "3"]);

    // Authenticated, one byte every 100 ms of a 60000-byte body: 408 at about 1 s.
    let c = s.connect();
    let started = Instant::now();
    let mut w = c.try_clone().unwrap();
    w.write_all(&create_with(&key, "Content-Length: 60000\r\n", ""))
        .unwrap();
    let writer = dribble(w, vec![b' '; 60], Duration::from_millis(100));
    let mut c = c;
    let r = read_response(&mut c).expect("a 408");
    let took = started.elapsed();
    assert_envelope(&r, 408, "REQUEST_TIMEOUT");
    assert_eq!(r.header("Connection"), Some("close"), "{r:?}");
    assert!(
        (Duration::from_millis(900)..Duration::from_secs(4)).contains(&took),
        "answered after {took:?}"
    );
    writer.join().unwrap();

    // Unauthenticated slow bodies on every slot: each is a prompt 401, and the slots free.
    let started = Instant::now();
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut h = s.connect();
        h.write_all(b"POST /api/v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n{")
            .unwrap();
        let r = read_response(&mut h).expect("a 401");
        assert_envelope(&r, 401, "UNAUTHORIZED");
        assert_eq!(r.header("Connection"), Some("close"), "{r:?}");
        held.push(h);
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    for h in &mut held {
        assert_closed(h);
    }
    // The slots are free again (a connection's thread lets go just after the close).
    let mut status = 0;
    poll_until(Duration::from_secs(2), || {
        status = s.get(KEYS, &key).status;
        status == 200
    });
    assert_eq!(status, 200);
}

/// Rule: `Connection: upgrade` changes nothing: the body is framed by its length, and the
/// connection serves its next request.
#[test]
fn connection_upgrade_is_ignored() {
    let (_env, s, key) = serve(&[]);
    let started = Instant::now();
    let r = s
        .raw(&create_with(
            &key,
            "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\nContent-Length: 12\r\n",
            "{\"name\":\"u\"}",
        ))
        .expect("an answer");
    assert_eq!(r.status, 201, "{r:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    let get = |conn: &str| {
        format!("GET {KEYS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\nConnection: {conn}\r\n\r\n")
    };
    let mut c = s.connect();
    c.write_all(format!("{}{}", get("upgrade"), get("close")).as_bytes())
        .unwrap();
    let all = read_all_responses(&mut c);
    let statuses: Vec<u16> = all.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200], "{all:?}");
}

/// Rule: an incomplete message is never acted on (RFC 9112 section 8): 400, nothing created.
#[test]
fn a_truncated_body_is_400_and_not_acted_on() {
    let (_env, s, key) = serve(&[]);
    for (framing, body) in [
        ("Content-Length: 5000\r\n", "{\"name\":\"z\"}"),
        ("Content-Length: 100\r\n", "{\"name\":\"z\"}"),
        ("Transfer-Encoding: chunked\r\n", "100\r\n{\"name\":\"z\"}"),
    ] {
        let mut c = s.connect();
        c.write_all(&create_with(&key, framing, body)).unwrap();
        c.shutdown(Shutdown::Write).unwrap();
        let r = read_response(&mut c).unwrap_or_else(|| panic!("no answer for {framing}"));
        assert_envelope(&r, 400, "BAD_REQUEST");
        assert_eq!(r.header("Connection"), Some("close"), "{r:?}");
        assert_closed(&mut c);
    }
    assert!(!key_names(&s, &key).contains(&"z".to_string()));
}

/// Rule: a trailer section is read and dropped, within the header limits.
#[test]
fn chunked_trailers_are_accepted_and_bounded() {
    let (_env, s, key) = serve(&[]);
    let r = s
        .raw(&create_with(
            &key,
            "Transfer-Encoding: chunked\r\nConnection: close\r\n",
            "c\r\n{\"name\":\"t\"}\r\n0\r\nX-T: 1\r\nX-U: 2\r\n\r\n",
        ))
        .expect("an answer");
    assert_eq!(r.status, 201, "{r:?}");
    assert!(key_names(&s, &key).contains(&"t".to_string()));

    let many = "X-T: 1\r\n".repeat(101);
    refused(
        &s,
        &create_with(
            &key,
            "Transfer-Encoding: chunked\r\n",
            &format!("c\r\n{{\"name\":\"m\"}}\r\n0\r\n{many}\r\n"),
        ),
        400,
        "BAD_REQUEST",
    );
    let long = format!("X-T: {}\r\n", "a".repeat(9000));
    refused(
        &s,
        &create_with(
            &key,
            "Transfer-Encoding: chunked\r\n",
            &format!("c\r\n{{\"name\":\"m\"}}\r\n0\r\n{long}\r\n"),
        ),
        400,
        "BAD_REQUEST",
    );
}

/// Rule: chunk sizes are `1*HEXDIG [";" ext]` and CRLF, nothing else; a chunk larger than
/// what is left of the 64 KiB body is 413 at once.
#[test]
fn lenient_or_huge_chunk_sizes_are_refused() {
    let (_env, s, key) = serve(&[]);
    for size in ["+c", " c", "c ", "0x0c", "c;\u{1}", ""] {
        refused(
            &s,
            &create_with(
                &key,
                "Transfer-Encoding: chunked\r\n",
                &format!("{size}\r\n{{\"name\":\"z\"}}\r\n0\r\n\r\n"),
            ),
            400,
            "BAD_REQUEST",
        );
    }
    for size in ["10001", "1ffffffffffffffff", "ffffffffffffffffffff"] {
        refused(
            &s,
            &create_with(
                &key,
                "Transfer-Encoding: chunked\r\n",
                &format!("{size}\r\n{{"),
            ),
            413,
            "PAYLOAD_TOO_LARGE",
        );
    }
    // What the grammar allows: an extension, leading zeros.
    let r = s
        .raw(&create_with(
            &key,
            "Transfer-Encoding: chunked\r\nConnection: close\r\n",
            "000c;a=b\r\n{\"name\":\"e\"}\r\n0\r\n\r\n",
        ))
        .expect("an answer");
    assert_eq!(r.status, 201, "{r:?}");
}

/// Rule: an HTTP/1.0 client's `Expect` is ignored (no `100 Continue`); a body declared over
/// the limit with `Expect: 100-continue` gets its 413 and the connection closes at once.
#[test]
fn expect_100_continue_is_for_http_1_1_and_a_refused_body_closes() {
    let (_env, s, key) = serve(&[]);
    let mut c = s.connect();
    c.write_all(
        format!(
            "POST {KEYS} HTTP/1.0\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\n\
             Expect: 100-continue\r\nContent-Length: 12\r\n\r\n{{\"name\":\"o\"}}"
        )
        .as_bytes(),
    )
    .unwrap();
    let r = read_response(&mut c).expect("an answer");
    assert_eq!(r.status, 201, "{r:?}");
    assert!(!r.head.contains("100 Continue"), "{r:?}");

    let started = Instant::now();
    let mut c = s.connect();
    c.write_all(&create_with(
        &key,
        "Expect: 100-continue\r\nContent-Length: 100000\r\n",
        "",
    ))
    .unwrap();
    let r = read_response(&mut c).expect("a 413");
    assert_envelope(&r, 413, "PAYLOAD_TOO_LARGE");
    assert_eq!(r.header("Connection"), Some("close"), "{r:?}");
    assert_closed(&mut c);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

/// The hot path is unchanged: a kept-alive connection serves small JSON POSTs (length and
/// chunked) and GETs in a row.
#[test]
fn well_formed_bodies_keep_the_connection() {
    let (_env, s, key) = serve(&[]);
    let mut c = s.connect();
    c.write_all(&create_with(
        &key,
        "Content-Length: 12\r\n",
        "{\"name\":\"a\"}",
    ))
    .unwrap();
    c.write_all(&create_with(
        &key,
        "Transfer-Encoding: chunked\r\n",
        "6\r\n{\"name\r\n6\r\n\":\"b\"}\r\n0\r\n\r\n",
    ))
    .unwrap();
    c.write_all(
        format!("GET {KEYS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    )
    .unwrap();
    let all = read_all_responses(&mut c);
    let statuses: Vec<u16> = all.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [201, 201, 200], "{all:?}");
}
