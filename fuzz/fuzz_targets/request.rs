//! Arbitrary bytes into what a request to keyhook goes through before the database: the
//! bearer token check, JSON parsing and the decoding of every request body, and the time
//! parsers (`expiresAt`, `--expires-in`, `--grace`), and the redaction every message and log
//! line passes through. Nothing may panic, and what the functions return must keep their
//! promises (asserted below).

#![no_main]

use keyhook::auth;
use keyhook::redact;
use keyhook::error::Error;
use keyhook::http::request_input as input;
use keyhook::service::input::parse_json;
use keyhook::time::{parse_duration, Timestamp};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// 0000-01-01T00:00:00Z: RFC 3339 writes no earlier instant.
const MIN_RFC3339_MS: i64 = -62_167_219_200_000;
/// The longest duration `parse_duration` accepts (about 100 years).
const MAX_DURATION_MS: i64 = 100 * 366 * 86_400_000;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        token(s);
        times(s);
        redacted(s);
    }
    // The strict parser (the one client input goes through) accepts a subset of what
    // serde_json accepts: the same documents, minus those with a repeated object key.
    match parse_json(data) {
        Ok(body) => {
            assert_eq!(serde_json::from_slice::<Value>(data).ok(), Some(body.clone()));
            bodies(&body);
        }
        Err(_) => {}
    }
});

fn token(s: &str) {
    if auth::is_well_formed(s) {
        assert_eq!(s.len(), 67, "{s:?}");
        assert!(s.starts_with("kp_"), "{s:?}");
        assert!(
            s[3..]
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "{s:?}"
        );
        assert_eq!(auth::key_prefix(s).len(), 11, "{s:?}");
        assert_eq!(auth::hash_key(s).len(), 64, "{s:?}");
    }
}

/// Whatever goes in, no 64-hex run behind `kp_` comes out, and text without one is untouched.
fn redacted(s: &str) {
    let out = redact::keys(s);
    let b = out.as_bytes();
    for (i, w) in b.windows(3).enumerate() {
        if w.eq_ignore_ascii_case(b"kp_") {
            let hex = b[i + 3..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
            assert!(hex < 64, "{s:?} -> {out:?}");
        }
    }
    if !s.to_ascii_lowercase().contains("kp") && !s.contains('%') {
        assert_eq!(out, s);
    }
}

fn times(s: &str) {
    if let Ok(ms) = parse_duration(s) {
        assert!(ms > 0 && ms <= MAX_DURATION_MS, "{s:?} -> {ms}");
    }
    if let Some(t) = Timestamp::parse_rfc3339(s) {
        assert!(t <= Timestamp::MAX_RFC3339, "{s:?} -> {t:?}");
        if t.millis() >= MIN_RFC3339_MS {
            // What the API shows must read back as the same instant.
            let shown = t.to_rfc3339();
            assert_eq!(
                Timestamp::parse_rfc3339(&shown),
                Some(t),
                "{s:?} -> {shown}"
            );
        }
    }
}

/// Every body conversion accepts exactly the JSON objects (a bad value is a problem that
/// travels with the input); anything else is one `body` problem.
fn bodies(body: &Value) {
    let now = Timestamp(1_800_000_000_000);
    let results = [
        input::new_key(body, now).map(|_| ()),
        input::new_webhook(body, false).map(|_| ()),
        input::webhook_patch(body, false).map(|_| ()),
        input::new_event(body).map(|_| ()),
    ];
    for r in results {
        match r {
            Ok(()) => assert!(body.is_object()),
            Err(Error::Validation(details)) => {
                assert!(!body.is_object());
                assert_eq!(details.len(), 1);
                assert_eq!(details[0].field, "body");
            }
            Err(e) => panic!("not a validation error: {e:?}"),
        }
    }
}
