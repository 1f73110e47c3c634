//! A plaintext key put where it does not belong (an id, a flag value, an extra argument,
//! `--user`, `--db`, a URL path, a JSON field name, an HTTP method) is never repeated whole:
//! CLI errors on stderr, the `--json` error envelope on stdout, the HTTP error object and the
//! serve access log show its 11-character prefix and `…` instead. Every
//! test greps every output for the 64-hex payload of a real key.

use std::path::Path;

use serde_json::json;

use crate::common::{bare_cmd, run, Env, Run};
use crate::server::{raw_request, Server};

/// A real key of `env` (created through the CLI) and its 64-hex payload.
fn real_key(env: &Env) -> (String, String) {
    let key = env.create_key("real", &[])["key"]
        .as_str()
        .expect("key")
        .to_string();
    let payload = key[3..].to_string();
    (key, payload)
}

/// `kp_` and the first 8 hex digits, then `…`: how a key is shown.
fn shown(key: &str) -> String {
    format!("{}…", &key[..11])
}

/// Fails if `payload` appears anywhere in what `r` printed.
fn assert_no_payload(what: &str, r: &Run, payload: &str) {
    assert!(
        !r.stdout.contains(payload) && !r.stderr.contains(payload),
        "{what}: the key was echoed:\n{r:#?}"
    );
    assert!(!r.stderr.contains("panicked"), "{what}: {r:#?}");
}

/// Runs `keyhook --db <env> ARGS`, with and without `--json`; each must fail with `code`,
/// never print `payload`, and show the key as `kp_xxxxxxxx…` on stderr (and in the JSON
/// envelope on stdout with `--json`).
fn check(env: &Env, args: &[&str], key: &str, payload: &str, code: i32) {
    for json in [false, true] {
        let mut cmd = env.cmd();
        if json {
            cmd.arg("--json");
        }
        let r = run(cmd.args(args));
        let what = format!("{args:?} json={json}");
        assert_no_payload(&what, &r, payload);
        assert_eq!(r.code, code, "{what}: {r:#?}");
        assert!(r.stderr.contains(&shown(key)), "{what}: {r:#?}");
        if json {
            let v = r.json();
            assert!(v["error"]["code"].is_string(), "{what}: {r:#?}");
            assert!(r.stdout.contains(&shown(key)), "{what}: {r:#?}");
        } else {
            assert_eq!(r.stdout, "", "{what}");
        }
    }
}

#[test]
fn commands_that_take_an_id_show_a_key_as_its_prefix() {
    let env = Env::new();
    let (key, payload) = real_key(&env);
    // Upper-case hex is the same shape; a longer hex run is one token.
    let upper = format!("kp_{}", payload.to_uppercase());
    let longer = format!("{key}0123");
    for id in [key.as_str(), upper.as_str(), longer.as_str()] {
        for args in [
            &["keys", "show", id][..],
            &["keys", "delete", id],
            &["keys", "delete", id, "--yes"],
            &["keys", "rotate", id],
            &["keys", "rotate", id, "--grace", "1h"],
            &["webhooks", "show", id],
            &["webhooks", "test", id],
            &["webhooks", "enable", id],
            &["webhooks", "disable", id],
            &["webhooks", "delete", id, "--yes"],
            &["webhooks", "deliveries", id],
        ] {
            check(&env, args, id, &payload, 3);
        }
    }
    // The key itself still works: nothing above touched it.
    assert_eq!(env.list(&[]).len(), 1);
}

#[test]
fn a_key_in_the_wrong_place_on_the_command_line_is_shown_as_its_prefix() {
    let env = Env::new();
    let (key, payload) = real_key(&env);
    let k = key.as_str();
    let as_flag = format!("--{key}");
    let as_flag_value = format!("--name={key}");
    let data_file = format!("@{key}");
    let dup_data = format!(r#"{{"{key}":1,"{key}":2}}"#);
    for args in [
        // As an unknown flag, an unknown flag's value, an extra argument.
        &["keys", "list", as_flag.as_str()][..],
        &["keys", "list", k],
        &["keys", "show", "abc", k],
        &["webhooks", "list", k],
        // As the value of a flag that takes a closed set, a duration, a timestamp.
        &["keys", "create", "--name", "x", "--permission", k],
        &["keys", "create", "--name", "x", "--expires-in", k],
        &["keys", "rotate", "abc", "--grace", k],
        &["completions", k],
        &["--user", k, "keys", "list"],
        &["--user", k, "keys", "create", "--name", "x"],
        // As a name or profile id (a key is never stored) or an event name.
        &["keys", "create", "--name", k],
        &["keys", "create", "--name", "x", "--profile", k],
        &[
            "webhooks",
            "create",
            "--url",
            "https://example.com/hook",
            "--event",
            k,
        ],
        &["events", "emit", k],
        &[
            "events",
            "emit",
            "post.published",
            "--data",
            data_file.as_str(),
        ],
        &[
            "events",
            "emit",
            "post.published",
            "--data",
            dup_data.as_str(),
        ],
    ] {
        check(&env, args, k, &payload, 2);
    }
    // clap names only the flag of `--name=KEY`: nothing of the key is shown.
    let r = env.run(&["keys", "list", as_flag_value.as_str()]);
    assert_eq!(r.code, 2, "{r:#?}");
    assert_no_payload("--name=KEY", &r, &payload);
    assert_eq!(env.list(&[]).len(), 1, "nothing was created");
}

#[test]
fn a_key_as_the_database_path_is_shown_as_its_prefix() {
    let env = Env::new();
    let (key, payload) = real_key(&env);
    // A file named like the key, used as a directory: opening fails and names the path.
    std::fs::write(env.dir.path().join(&key), b"").unwrap();
    let db = format!("{key}/keyhook.db");
    for json in [false, true] {
        let mut cmd = bare_cmd();
        cmd.current_dir(env.dir.path()).args(["--db", &db]);
        if json {
            cmd.arg("--json");
        }
        let r = run(cmd.args(["keys", "create", "--name", "x"]));
        assert_no_payload("--db", &r, &payload);
        assert_eq!(r.code, 1, "{r:#?}");
        assert!(r.stderr.contains(&shown(&key)), "{r:#?}");
    }
    assert!(!Path::new(&env.dir.path().join(&db)).exists());
}

#[test]
fn keys_verify_never_echoes_its_standard_input() {
    let env = Env::new();
    let (key, payload) = real_key(&env);
    for stdin in [
        format!("junk {key}"),
        format!("{key}{key}"),
        format!("kp_{}", payload.to_uppercase()),
        format!("{key}\n{key}\n"),
    ] {
        let r = env.verify(&stdin, &[]);
        assert_no_payload("verify", &r, &payload);
        r.assert_error(4);
        assert!(!r.stderr.contains(&key[..11]), "{r:#?}");
    }
    // A key given as the profile to check is refused (a profile id never holds a key), and
    // echoed as its prefix.
    let r = env.verify(&key, &["--profile", &key]);
    r.assert_error(2);
    assert_no_payload("verify --profile", &r, &payload);
    assert!(r.stderr.contains(&shown(&key)), "{r:#?}");
}

#[test]
fn the_server_never_echoes_a_key_in_replies_or_the_access_log() {
    let env = Env::new();
    let (key, payload) = real_key(&env);
    let s = Server::start(&env);
    let auth = format!("Bearer {key}");
    let h = payload.as_str();
    let upper = payload.to_uppercase();
    // The key in a path, as sent and percent-encoded in every way a client could.
    let ids = [
        key.clone(),
        format!("%6bp_{h}"),
        format!("%6Bp%5f{h}"),
        format!("%6B%70%5F{h}"),
        format!("kp_%{:02x}{}", h.as_bytes()[0], &h[1..]),
        format!("%256bp_{h}"),
        format!("kp_{upper}"),
        format!("{key}ffff"),
    ];
    let mut requests = 0;
    let mut check = |what: &str, status: u16, body: &str| {
        requests += 1;
        assert!(
            !body.contains(h),
            "{what}: the key was echoed: {status} {body}"
        );
    };
    for id in &ids {
        for (method, path) in [
            ("GET", format!("/api/v1/api-keys/{id}")),
            ("DELETE", format!("/api/v1/api-keys/{id}")),
            ("GET", format!("/api/v1/webhooks/{id}")),
            ("DELETE", format!("/api/v1/webhooks/{id}")),
            ("POST", format!("/api/v1/webhooks/{id}/test")),
            ("GET", format!("/api/v1/webhooks/{id}/deliveries")),
            ("GET", format!("/api/v1/{id}")),
            ("GET", format!("/{id}")),
        ] {
            let r = s.send(method, &path, &[("Authorization", &auth)], None);
            check(&format!("{method} {path}"), r.status, &r.body);
            assert!(matches!(r.status, 404 | 405), "{method} {path}: {r:?}");
            if id == &key && path.contains("/api-keys/") && method == "GET" {
                assert!(r.body.contains(&shown(&key)), "{path}: {r:?}");
            }
        }
    }
    // In the query string, a JSON field name and value, a header, an HTTP method.
    let r = s.get(&format!("/api/v1/api-keys?key={key}"), &key);
    check("query", r.status, &r.body);
    assert_eq!(r.status, 200);
    let body = json!({ key.clone(): 1, "name": key.clone() });
    let r = s.post_json("/api/v1/api-keys", &key, &body);
    check("body", r.status, &r.body);
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.body.contains(&shown(&key)), "{r:?}");
    let dup = format!(r#"{{"name":"x","{key}":1,"{key}":2}}"#);
    let r = s.post(
        "/api/v1/api-keys",
        Some(&key),
        "application/json",
        dup.as_bytes(),
    );
    check("repeated key", r.status, &r.body);
    assert_eq!(r.status, 400, "{r:?}");
    assert!(
        r.body
            .contains(&format!("duplicate key \\\"{}", shown(&key))),
        "{r:?}"
    );
    let r = s.post_json("/api/v1/events", &key, &json!({ "event": key.clone() }));
    check("event", r.status, &r.body);
    assert_eq!(r.status, 400, "{r:?}");
    let r = s.post("/api/v1/api-keys", Some(&key), &key, b"{}");
    check("content type", r.status, &r.body);
    assert_eq!(r.status, 415, "{r:?}");
    // Where long input is cut short (at 200 characters), no part of a key survives the cut.
    let long = format!("{}{key}", "a".repeat(150));
    let r = s.post("/api/v1/api-keys", Some(&key), &long, b"{}");
    check("long content type", r.status, &r.body);
    assert!(!r.body.contains(&h[8..24]), "{r:?}");
    let r = s.get(&format!("/api/v1/api-keys/{long}"), &key);
    check("long path", r.status, &r.body);
    let raw = s
        .raw(&raw_request(
            &key,
            "/api/v1/api-keys",
            &[("Authorization", &auth)],
            b"",
        ))
        .expect("an answer to an unknown method");
    check("method", raw.status, &String::from_utf8_lossy(&raw.body));
    let log = s.wait_for_access_lines(requests).join("\n");
    assert!(
        !s.log().contains(&h[8..24]),
        "the access log holds the key:\n{log}"
    );
    assert!(
        log.contains(&format!("/api/v1/api-keys/{}", shown(&key))),
        "{log}"
    );
    // The key that authenticated is still listed: nothing above deleted it.
    assert_eq!(env.list(&[]).len(), 1);
}

/// Every line keyhook writes to stderr goes through the one sink, `redact::to_stderr` (behind
/// `cli::output::say`, `http::reply::log` and the access-log line): a new `eprintln!`
/// elsewhere would bypass the redaction and the control-character escaping, and would panic
/// (an abort, exit 134, from inside the panic hook) when stderr cannot be written.
#[test]
fn every_message_and_log_line_goes_through_a_redacting_sink() {
    // The spinner draws on the terminal (its message passes through `redact::display`).
    let allowed: &[(&str, usize)] = &[
        ("crates/keyhook-core/src/redact.rs", 1),
        ("crates/keyhook-cli/src/prompt.rs", 1),
        // The log subscriber: every event, redacted (`redact::display`) field by field.
        ("crates/keyhook-cli/src/logging.rs", 1),
        // `keyhook listen`'s own secret, on stderr as CONTRACT §11 pins (redacting it would
        // hide it), the one raw write there.
        ("crates/keyhook-cli/src/secret_out.rs", 1),
        // bench/serve.sh's bare HTTP layer: not in the binary; its usage, its address and its
        // errors (no key, no request data).
        ("crates/keyhook-http/examples/bare_http.rs", 6),
        // Its floor, likewise (no key, no request data).
        ("crates/keyhook-http/examples/floor_http.rs", 5),
        // CI's CEL checks (.ci/cel-*.sh): not in the binary; verdicts on the checks' own test
        // data (filters and payloads, no key or secret) and their counts.
        ("crates/keyhook-core/examples/filter_eval.rs", 1),
        ("crates/keyhook-core/examples/cel_conformance.rs", 4),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The sinks are where they are said to be: a moved file must not make this test vacuous.
    for (file, _) in allowed {
        assert!(root.join(file).is_file(), "{file} is gone; update the list");
    }
    // Every shipped source: the binary's and each crate's (not their tests).
    let mut files = vec![root.join("src"), root.join("crates")];
    let mut found = Vec::new();
    let mut scanned = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            // Tests and benches are not shipped (the tests' PostgreSQL, tests/support, neither).
            if path
                .file_name()
                .is_some_and(|n| n == "tests" || n == "benches" || n == "target")
            {
                continue;
            }
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        scanned += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        // Printing macros and raw writes to stderr; `#[cfg(test)]` code is not shipped.
        let shipped = text.split("#[cfg(test)]").next().unwrap_or("");
        let n = ["eprintln!(", "eprint!(", "println!(", "print!(", "io::stderr()"]
            .iter()
            .map(|m| shipped.matches(m).count())
            .sum::<usize>()
            // "eprintln!(" also contains "println!(", and "eprint!(" "print!(".
            - shipped.matches("eprintln!(").count()
            - shipped.matches("eprint!(").count()
            // Asking whether stderr is a terminal writes nothing.
            - shipped.matches("io::stderr().is_terminal()").count();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let ok = allowed
            .iter()
            .find(|(f, _)| *f == rel)
            .map_or(0, |(_, n)| *n);
        if n != ok {
            found.push(format!("{rel}: {n} (allowed {ok})"));
        }
    }
    assert!(scanned > 40, "only {scanned} source files found");
    assert!(
        found.is_empty(),
        "print through redact::to_stderr (cli::output::say, http::reply::log) instead: {found:?}"
    );
}

/// A standard error that cannot be written (a full disk, a log reader that went away) loses
/// its lines and nothing else: each command exits with its own status (never 134, the abort
/// of a panic inside the panic hook), and `serve` goes on answering.
#[test]
fn an_unwritable_stderr_changes_no_exit_status_and_stops_no_server() {
    let env = Env::new();
    let (key, _) = real_key(&env);
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let status = |args: &[&str]| {
        crate::common::std_cmd()
            .arg("--db")
            .arg(env.db_arg())
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(full())
            .status()
            .unwrap()
            .code()
    };
    assert_eq!(status(&["keys", "show", "nope"]), Some(3));
    assert_eq!(status(&["kyes", "list"]), Some(2));
    assert_eq!(status(&["keys", "list"]), Some(0));
    assert_eq!(status(&["webhooks", "show", "nope"]), Some(3));

    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut serve = crate::common::std_cmd()
        .arg("--db")
        .arg(env.db_arg())
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .stderr(full())
        .spawn()
        .unwrap();
    let get = || {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
        let auth = format!("Bearer {key}");
        std::io::Write::write_all(
            &mut s,
            &raw_request("GET", "/api/v1/api-keys", &[("Authorization", &auth)], b""),
        )
        .ok()?;
        crate::server::read_response(&mut s).map(|r| r.status)
    };
    crate::common::poll(std::time::Duration::from_secs(10), get);
    // Each request writes an access-log line that fails; the server answers every one.
    for _ in 0..5 {
        assert_eq!(get(), Some(200));
    }
    assert!(
        serve.try_wait().unwrap().is_none(),
        "serve exited with an unwritable stderr"
    );
    let _ = serve.kill();
    let _ = serve.wait();
}

/// Help names each environment variable but never shows its value: a key set by mistake, a
/// database URL with a password, whatever an operator's environment holds.
#[test]
fn help_never_shows_environment_values() {
    let env = Env::new();
    let (key, payload) = real_key(&env);
    for args in [
        &["--help"][..],
        &["keys", "create", "--help"],
        &["serve", "--help"],
        &["webhooks", "test", "--help"],
    ] {
        let r = run(bare_cmd()
            .env("KEYHOOK_USER", &key)
            .env("KEYHOOK_DB", "postgres://u:s3cretpw@127.0.0.1/db")
            .env("KEYHOOK_DELIVERY_TIMEOUT", &key)
            .env("KEYHOOK_BIND", &key)
            .args(args));
        assert_eq!(r.code, 0, "{args:?}: {r:?}");
        assert!(
            r.stdout.contains("[env: KEYHOOK_USER]"),
            "{args:?}: {}",
            r.stdout
        );
        for secret in [payload.as_str(), "s3cretpw"] {
            assert!(!r.stdout.contains(secret), "{args:?}: {}", r.stdout);
            assert!(!r.stderr.contains(secret), "{args:?}: {}", r.stderr);
        }
    }
}

/// A webhook secret, with or without its `whsec_`, passed where an id is expected is never
/// repeated: the CLI error and the server's reply and access log show at most its first
/// characters.
#[test]
fn a_webhook_secret_given_as_an_id_is_never_repeated() {
    let env = Env::new();
    let (key, _) = real_key(&env);
    let (code, w) = env.json(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        "http://127.0.0.1:9/h",
        "--event",
        "post.published",
    ]);
    assert_eq!(code, 0, "{w}");
    let secret = w["data"]["secret"].as_str().unwrap().to_string();
    let bare = secret.strip_prefix("whsec_").unwrap().to_string();
    let secret_part = &bare[4..];
    for id in [secret.as_str(), bare.as_str()] {
        for json in [false, true] {
            let mut c = env.cmd();
            if json {
                c.arg("--json");
            }
            let r = run(c.args(["webhooks", "show", id]));
            r.assert_error(3);
            assert!(!r.stdout.contains(secret_part), "{r:#?}");
            assert!(!r.stderr.contains(secret_part), "{r:#?}");
        }
    }
    let s = Server::start(&env);
    for id in [secret.as_str(), bare.as_str()] {
        let encoded = id
            .replace('/', "%2F")
            .replace('+', "%2B")
            .replace('=', "%3D");
        for path in [
            format!("/api/v1/webhooks/{id}"),
            format!("/api/v1/webhooks/{encoded}"),
        ] {
            let r = s.get(&path, &key);
            assert!(!r.body.contains(secret_part), "{path}: {r:?}");
        }
    }
    let log = s.log();
    assert!(!log.contains(secret_part), "{log}");
}
