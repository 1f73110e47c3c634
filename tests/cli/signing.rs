//! Delivery control, signing and static headers (CONTRACT §15): `--signing hmac|ed25519|both`
//! (Standard Webhooks `v1a`, checked here with ed25519-dalek directly and in CI with Python's
//! `cryptography`, .ci/verify-v1a.sh), rotation of Ed25519 keys with a grace period, and
//! `--header`s whose values never leave keyhook but in the delivery itself.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::common::{emit, str_of, Env};
use crate::receiver::{Receiver, Request};
use crate::server::Server;

/// The signed content of a delivery: `{webhook-id}.{webhook-timestamp}.{body}`.
fn signed_content(r: &Request) -> Vec<u8> {
    let mut m = format!(
        "{}.{}.",
        r.header("webhook-id"),
        r.header("webhook-timestamp")
    )
    .into_bytes();
    m.extend_from_slice(&r.body);
    m
}

/// Whether `entry` (`v1a,<base64>`) is a valid Ed25519 signature of `r` under `public`.
fn v1a_verifies(public: &str, entry: &str, r: &Request) -> bool {
    let Some(sig) = entry.strip_prefix("v1a,") else {
        return false;
    };
    let pk: [u8; 32] = STANDARD
        .decode(public.strip_prefix("whpk_").expect("whpk_ prefix"))
        .unwrap()
        .try_into()
        .unwrap();
    let key = VerifyingKey::from_bytes(&pk).unwrap();
    let Ok(sig) = STANDARD.decode(sig) else {
        return false;
    };
    let Ok(sig) = Signature::from_slice(&sig) else {
        return false;
    };
    key.verify(&signed_content(r), &sig).is_ok()
}

fn v1_of(secret: &str, r: &Request) -> String {
    let key = STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap())
        .unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(&signed_content(r));
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

fn deliver_one(env: &Env, rx: &Receiver) -> Request {
    let before = rx.requests().len();
    emit(env, &["post.published", "--data", "{}"]);
    env.deliver_once();
    let all = rx.wait_for(before + 1, std::time::Duration::from_secs(10));
    all[before].clone()
}

/// No output anywhere carries a private key.
fn assert_no_private_key(what: &str, text: &str) {
    assert!(
        !text.contains("whsk_"),
        "{what} shows a private key: {text}"
    );
}

#[test]
fn ed25519_webhooks_sign_v1a_that_the_public_key_alone_verifies() {
    let env = Env::new();
    let rx = Receiver::start();
    let w = env.create_webhook_with(
        &rx.url("/hook"),
        "post.published",
        &["--signing", "ed25519"],
    );
    assert_eq!(w["signing"], "ed25519");
    let public = str_of(&w, "publicKey").to_string();
    assert!(public.starts_with("whpk_"), "{w}");
    assert_eq!(STANDARD.decode(&public[5..]).unwrap().len(), 32);
    assert_no_private_key("create --json", &w.to_string());
    let id = str_of(&w, "id").to_string();

    let r = deliver_one(&env, &rx);
    let sigs = r.signatures();
    assert_eq!(sigs.len(), 1, "{sigs:?}");
    assert!(v1a_verifies(&public, &sigs[0], &r), "{sigs:?}");

    // show (table and --json), list --json: the public key, never the private one.
    let show = env.run(&["webhooks", "show", &id]);
    assert!(show.stdout.contains(&public), "{}", show.stdout);
    assert!(show.stdout.contains("ed25519"), "{}", show.stdout);
    assert_no_private_key("show", &show.stdout);
    let (_, list) = env.json(&["webhooks", "list"]);
    assert_eq!(list["data"][0]["publicKey"], public.as_str());
    assert_no_private_key("list --json", &list.to_string());
    let audit = env.run(&["--json", "audit"]);
    assert_no_private_key("audit", &audit.stdout);
    assert!(!env.stored_bytes().windows(5).any(|w| w == b"whsk_"));
}

#[test]
fn both_signs_v1_then_v1a_and_a_rotation_with_grace_signs_with_old_and_new() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let w = env.create_webhook_with(&rx.url("/hook"), "post.published", &["--signing", "both"]);
    let (secret, public) = (str_of(&w, "secret"), str_of(&w, "publicKey"));
    let id = str_of(&w, "id");

    let r = deliver_one(&env, &rx);
    let sigs = r.signatures();
    assert_eq!(sigs.len(), 2, "{sigs:?}");
    assert_eq!(sigs[0], v1_of(secret, &r));
    assert!(v1a_verifies(public, &sigs[1], &r));

    // rotate-secret --quiet prints the new secret, then the new public key.
    let rot = env.run(&["webhooks", "rotate-secret", id, "--grace", "1h", "--quiet"]);
    assert_eq!(rot.code, 0, "{rot:#?}");
    let lines: Vec<&str> = rot.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", rot.stdout);
    let (new_secret, new_public) = (lines[0], lines[1]);
    assert!(new_secret.starts_with("whsec_") && new_secret != secret);
    assert!(new_public.starts_with("whpk_") && new_public != public);
    assert_no_private_key("rotate-secret", &rot.stdout);

    // In the grace period: v1 new, v1 old, v1a new, v1a old.
    let r = deliver_one(&env, &rx);
    let sigs = r.signatures();
    assert_eq!(sigs.len(), 4, "{sigs:?}");
    assert_eq!(sigs[0], v1_of(new_secret, &r));
    assert_eq!(sigs[1], v1_of(secret, &r));
    assert!(v1a_verifies(new_public, &sigs[2], &r));
    assert!(v1a_verifies(public, &sigs[3], &r));

    // After it: the new ones only.
    env.advance_clock(3_600_000 + 1_000);
    let r = deliver_one(&env, &rx);
    let sigs = r.signatures();
    assert_eq!(sigs.len(), 2, "{sigs:?}");
    assert_eq!(sigs[0], v1_of(new_secret, &r));
    assert!(v1a_verifies(new_public, &sigs[1], &r));
}

#[test]
fn ed25519_rotation_prints_the_new_public_key_and_keeps_the_hmac_secret() {
    let env = Env::new();
    let w = env.create_webhook_with(
        "https://example.com/h",
        "post.published",
        &["--signing", "ed25519"],
    );
    let id = str_of(&w, "id");
    let rot = env.run(&["webhooks", "rotate-secret", id, "--grace", "0", "--quiet"]);
    assert_eq!(rot.code, 0, "{rot:#?}");
    let printed = rot.stdout.trim();
    assert!(printed.starts_with("whpk_"), "{printed}");
    assert_ne!(printed, str_of(&w, "publicKey"));
    let (_, shown) = env.json(&["webhooks", "show", id]);
    assert_eq!(shown["data"]["publicKey"], printed);
    assert_eq!(
        shown["data"]["secret"], w["secret"],
        "the HMAC secret is not rotated"
    );
}

#[test]
fn signing_switches_over_http_and_null_restores_hmac() {
    let env = Env::new();
    let key = env.create_key("ci", &[]);
    let key = str_of(&key, "key");
    let server = Server::start(&env);
    let resp = server.post_json(
        "/api/v1/webhooks",
        key,
        &json!({"url": "https://example.com/h", "events": ["post.published"], "signing": "both"}),
    );
    assert_eq!(resp.status, 201, "{resp:?}");
    let w = resp.data();
    assert_eq!(w["signing"], "both");
    let public = w["publicKey"].clone();
    assert!(public.as_str().unwrap().starts_with("whpk_"));
    assert_no_private_key("POST /webhooks", &resp.body);
    let path = format!("/api/v1/webhooks/{}", str_of(&w, "id"));

    let resp = server.send_json("PATCH", &path, key, &json!({"signing": null}));
    assert_eq!(resp.status, 200, "{resp:?}");
    assert_eq!(resp.data()["signing"], "hmac");
    // Back to ed25519: the same key pair (receivers keep their public key).
    let resp = server.send_json("PATCH", &path, key, &json!({"signing": "ed25519"}));
    assert_eq!(resp.data()["publicKey"], public);
    let resp = server.send_json("PATCH", &path, key, &json!({"signing": "rsa"}));
    assert_eq!(resp.status, 400, "{resp:?}");
    assert_eq!(resp.error_code(), "VALIDATION_ERROR");

    let rot = server.post_json(&format!("{path}/rotate-secret"), key, &json!({}));
    assert_eq!(rot.status, 200, "{rot:?}");
    assert_ne!(rot.data()["publicKey"], public);
    assert_no_private_key("rotate-secret", &rot.body);
}

#[test]
fn existing_and_default_webhooks_sign_with_hmac_alone() {
    let env = Env::new();
    let rx = Receiver::start();
    let w = env.create_webhook(&rx.url("/hook"), "post.published");
    assert_eq!(w["signing"], "hmac");
    assert_eq!(w["publicKey"], Value::Null);
    assert_eq!(w["headerNames"], json!([]));
    let r = deliver_one(&env, &rx);
    assert_eq!(r.signatures(), [v1_of(str_of(&w, "secret"), &r)]);
}

#[test]
fn static_headers_are_sent_and_their_values_shown_nowhere() {
    let env = Env::new();
    let rx = Receiver::start();
    let file = env.dir.path().join("token");
    std::fs::write(&file, "Bearer s3cr3t-from-file\n").unwrap();
    let from_file = format!("Authorization:@{}", file.display());
    let created = env
        .cmd()
        .args([
            "--json",
            "--allow-private-targets",
            "webhooks",
            "create",
            "--url",
            &rx.url("/hook"),
            "--event",
            "post.published",
            "--header",
            "X-Tenant:acme-tenant-value",
            "--header",
            &from_file,
            "--header",
            "X-Stdin:-",
        ])
        .write_stdin("from-stdin-value\n")
        .output()
        .unwrap();
    assert!(created.status.success(), "{created:?}");
    let w: Value = serde_json::from_slice(&created.stdout).unwrap();
    let w = &w["data"];
    assert_eq!(
        w["headerNames"],
        json!(["x-tenant", "authorization", "x-stdin"])
    );
    let id = str_of(w, "id");

    let r = deliver_one(&env, &rx);
    assert_eq!(r.header("x-tenant"), "acme-tenant-value");
    assert_eq!(r.header("authorization"), "Bearer s3cr3t-from-file");
    assert_eq!(r.header("x-stdin"), "from-stdin-value");

    let values = ["acme-tenant-value", "s3cr3t-from-file", "from-stdin-value"];
    let show = env.run(&["webhooks", "show", id]);
    let (_, json_show) = env.json(&["webhooks", "show", id]);
    let audit = env.run(&["--json", "audit"]);
    let stored = String::from_utf8_lossy(&env.stored_bytes()).into_owned();
    for v in values {
        for (what, text) in [
            ("show", &show.stdout),
            ("show --json", &json_show.to_string()),
            (
                "create",
                &String::from_utf8_lossy(&created.stdout).into_owned(),
            ),
            ("audit", &audit.stdout),
            ("the database", &stored),
        ] {
            assert!(!text.contains(v), "{what} holds the value {v}");
        }
    }
    assert!(show.stdout.contains("x-tenant"), "{}", show.stdout);

    // --no-header removes one; --header replaces a value; the audit names names only.
    let r = env.run(&[
        "webhooks",
        "update",
        id,
        "--no-header",
        "X-Stdin",
        "--header",
        "x-tenant:other-tenant-value",
    ]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(!r.stdout.contains("other-tenant-value"));
    let d = deliver_one(&env, &rx);
    assert_eq!(d.header("x-tenant"), "other-tenant-value");
    assert!(d.headers.iter().all(|(k, _)| k != "x-stdin"));
    let audit = env.run(&["--json", "audit"]);
    assert!(!audit.stdout.contains("other-tenant-value"));
    assert!(audit.stdout.contains("headerNames"), "{}", audit.stdout);
    let r = env.run(&["webhooks", "update", id, "--no-header", "x-missing"]);
    assert_eq!(r.code, 2, "{r:#?}");
}

#[test]
fn refused_headers_name_the_header_never_the_value() {
    let env = Env::new();
    for (header, why) in [
        ("webhook-id:evil-value-1", "webhook-"),
        ("Webhook-Signature:evil-value-2", "webhook-"),
        ("content-type:evil-value-3", "content-"),
        ("Host:evil-value-4", "host"),
        ("connection:evil-value-5", "connection"),
        ("transfer-encoding:evil-value-6", "transfer-encoding"),
        ("te:evil-value-7", "te"),
        ("upgrade:evil-value-8", "upgrade"),
        ("keep-alive:evil-value-9", "keep-alive"),
        ("x tenant:evil-value-10", "header name"),
        ("x-a:evil-value-11\r\nx-b: 1", "CR or LF"),
        ("no-colon-evil-value-12", "NAME:VALUE"),
    ] {
        let r = env.run(&[
            "webhooks",
            "create",
            "--url",
            "https://example.com/h",
            "--event",
            "post.published",
            "--header",
            header,
        ]);
        assert_eq!(r.code, 2, "{header}: {r:#?}");
        assert!(r.stderr.contains(why), "{header}: {}", r.stderr);
        let value = header
            .split("evil-value")
            .nth(1)
            .map(|n| format!("evil-value{n}"));
        if let Some(v) = value {
            assert!(!r.stderr.contains(&v), "{header}: {}", r.stderr);
        }
    }
    let r = env.run(&[
        "webhooks",
        "create",
        "--url",
        "https://example.com/h",
        "--event",
        "post.published",
        "--header",
        "x-a:1",
        "--header",
        "X-A:2",
    ]);
    assert_eq!(r.code, 2, "{r:#?}");
    assert!(r.stderr.contains("twice"), "{}", r.stderr);
}

#[test]
fn headers_over_http_are_write_only_and_null_clears_them() {
    let env = Env::new();
    let key = env.create_key("ci", &[]);
    let key = str_of(&key, "key");
    let server = Server::start(&env);
    let resp = server.post_json(
        "/api/v1/webhooks",
        key,
        &json!({"url": "https://example.com/h", "events": ["post.published"],
                "headers": {"X-Tenant": "http-secret-value"}}),
    );
    assert_eq!(resp.status, 201, "{resp:?}");
    assert_eq!(resp.data()["headerNames"], json!(["x-tenant"]));
    assert!(!resp.body.contains("http-secret-value"));
    let path = format!("/api/v1/webhooks/{}", str_of(&resp.data(), "id"));
    let got = server.get(&path, key);
    assert!(!got.body.contains("http-secret-value"));

    let bad = server.send_json(
        "PATCH",
        &path,
        key,
        &json!({"headers": {"content-length": "bad-secret-value"}}),
    );
    assert_eq!(bad.status, 400, "{bad:?}");
    assert!(!bad.body.contains("bad-secret-value"), "{}", bad.body);
    let bad = server.send_json("PATCH", &path, key, &json!({"headers": {"x-a": 1}}));
    assert_eq!(bad.status, 400, "{bad:?}");

    let cleared = server.send_json("PATCH", &path, key, &json!({"headers": null}));
    assert_eq!(cleared.status, 200, "{cleared:?}");
    assert_eq!(cleared.data()["headerNames"], json!([]));
}
