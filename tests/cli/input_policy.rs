//! Input policy: a JSON object that repeats a key is refused (it would mean different things
//! to different parsers), names and profile ids with invisible, control or reordering
//! characters are refused (they spoof what operators read in tables), and a webhook URL with
//! port 0 is refused. Each refusal is a 400 VALIDATION_ERROR over HTTP and exit 2 in the CLI,
//! and creates nothing.

use serde_json::{json, Value};

use crate::common::{admin_key, str_of, Env};
use crate::server::{Resp, Server, KEYS};

const HOOKS: &str = "/api/v1/webhooks";

/// The error object of a 400 VALIDATION_ERROR; fails the test for anything else.
fn validation_error(r: &Resp) -> Value {
    assert_eq!(r.status, 400, "{r:?}");
    let err = r.json()["error"].clone();
    assert_eq!(err["code"], "VALIDATION_ERROR", "{r:?}");
    err
}

/// The `field` of the single detail of a 400 VALIDATION_ERROR, and its message.
fn only_detail(r: &Resp) -> (String, String) {
    let err = validation_error(r);
    let details = err["details"].as_array().expect("details");
    assert_eq!(details.len(), 1, "{r:?}");
    (
        str_of(&details[0], "field").to_string(),
        str_of(&details[0], "message").to_string(),
    )
}

fn post_raw(s: &Server, path: &str, key: &str, body: &str) -> Resp {
    s.post(path, Some(key), "application/json", body.as_bytes())
}

#[test]
fn repeated_json_keys_are_refused_at_any_depth_and_create_nothing() {
    let env = Env::new();
    let key = admin_key(&env);
    let s = Server::start(&env);
    let hook = s.post_json(
        HOOKS,
        &key,
        &json!({ "url": "https://example.com/a", "events": ["post.published"] }),
    );
    assert_eq!(hook.status, 201, "{hook:?}");
    let hook = hook.data();
    let hook_path = format!("{HOOKS}/{}", str_of(&hook, "id"));
    let cases: &[(&str, &str, &str, &str)] = &[
        // (method, path, body, the repeated key)
        (
            "POST",
            KEYS,
            r#"{"name":"ro","permission":"readonly","permission":"readwrite"}"#,
            "permission",
        ),
        ("POST", KEYS, r#"{"name":"a","name":"b"}"#, "name"),
        (
            "POST",
            KEYS,
            r#"{"name":"a","profileIds":null,"fullAccess":true,"x":{"y":[{"z":1,"z":2}]}}"#,
            "z",
        ),
        (
            "POST",
            HOOKS,
            r#"{"url":"https://example.com/b","events":["post.published"],"url":"https://example.com/c"}"#,
            "url",
        ),
        (
            "POST",
            HOOKS,
            r#"{"url":"https://example.com/b","events":["post.published"],"m":{"a":{"b":1,"b":1}}}"#,
            "b",
        ),
        (
            "PATCH",
            &hook_path,
            r#"{"isActive":false,"isActive":true}"#,
            "isActive",
        ),
        (
            "PATCH",
            &hook_path,
            r#"{"url":"https://example.com/d","n":[[{"q":0,"q":0}]]}"#,
            "q",
        ),
        (
            "POST",
            "/api/v1/events",
            r#"{"event":"post.published","data":{"postId":"p1","postId":"p2"}}"#,
            "postId",
        ),
        (
            "POST",
            "/api/v1/events",
            r#"{"event":"post.published","event":"post.deleted","data":{}}"#,
            "event",
        ),
    ];
    for (method, path, body, dup) in cases {
        let r = s.send(
            method,
            path,
            &[
                ("Authorization", &format!("Bearer {key}")),
                ("Content-Type", "application/json"),
            ],
            Some(body.as_bytes()),
        );
        let (field, message) = only_detail(&r);
        assert_eq!(field, "body", "{method} {path} {body}");
        assert!(
            message.contains("duplicate key") && message.contains(&format!("\"{dup}\"")),
            "{method} {path} {body}: {message}"
        );
    }
    // Nothing was created, changed or queued.
    assert_eq!(env.count_rows("api_keys"), 1);
    assert_eq!(env.count_rows("webhooks"), 1);
    assert_eq!(env.count_rows("events"), 0);
    let now = s.get(&hook_path, &key).data();
    assert_eq!(now, hook, "the webhook is unchanged");
    // The same key twice in different objects is no repetition.
    let r = post_raw(
        &s,
        "/api/v1/events",
        &key,
        r#"{"event":"post.published","data":{"a":{"id":1},"b":{"id":2}}}"#,
    );
    assert_eq!(r.status, 202, "{r:?}");
}

#[test]
fn events_emit_refuses_repeated_keys_from_every_source() {
    let env = Env::new();
    admin_key(&env); // the database exists, with no events
    let dup = r#"{"postId":"p1","nested":{"a":1,"a":2}}"#;
    let file = env.dir.path().join("event.json");
    std::fs::write(&file, dup).unwrap();
    let at_file = format!("@{}", file.display());
    for data in [r#"{"postId":"p1","postId":"p2"}"#, dup, at_file.as_str()] {
        let (code, v) = env.json(&["events", "emit", "post.published", "--data", data]);
        assert_eq!(code, 2, "{data}: {v}");
        assert_eq!(v["error"]["code"], "VALIDATION_ERROR", "{v}");
        assert_eq!(v["error"]["details"][0]["field"], "data", "{v}");
        let message = str_of(&v["error"]["details"][0], "message");
        assert!(message.contains("duplicate key"), "{message}");
        let r = env.run(&["events", "emit", "post.published", "--data", data]);
        r.assert_error(2);
        assert!(r.stderr.contains("--data: duplicate key"), "{r:#?}");
    }
    let r = crate::common::run(
        env.cmd()
            .args(["events", "emit", "post.published", "--data", "-"])
            .write_stdin(dup),
    );
    r.assert_error(2);
    assert!(r.stderr.contains("duplicate key \"a\""), "{r:#?}");
    assert_eq!(env.count_rows("events"), 0, "nothing was queued");
    let (code, v) = env.json(&[
        "events",
        "emit",
        "post.published",
        "--data",
        r#"{"a":{"id":1},"b":{"id":2}}"#,
    ]);
    assert_eq!(code, 0, "{v}");
}

/// One character of every class that must not appear in human-visible text.
const INVISIBLE: &[char] = &[
    // Bidi embeddings, overrides and isolates.
    '\u{202a}',
    '\u{202b}',
    '\u{202c}',
    '\u{202d}',
    '\u{202e}',
    '\u{2066}',
    '\u{2067}',
    '\u{2068}',
    '\u{2069}',
    '\u{200e}',
    '\u{200f}',
    '\u{061c}',
    // Zero-width characters and the byte order mark.
    '\u{200b}',
    '\u{200c}',
    '\u{200d}',
    '\u{2060}',
    '\u{feff}',
    // Line and paragraph separators.
    '\u{2028}',
    '\u{2029}',
    // Control characters (C0, DEL, C1).
    '\u{0}',
    '\u{1}',
    '\t',
    '\n',
    '\r',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '\u{9b}',
    // Other characters that render as nothing.
    '\u{ad}',
    '\u{34f}',
    '\u{115f}',
    '\u{2800}',
    '\u{e000}',
    '\u{fffc}',
    '\u{1d159}',
    '\u{f0000}',
    '\u{3164}',
    '\u{ffa0}',
    '\u{17b4}',
    '\u{180e}',
    '\u{fe0f}',
    '\u{1d173}',
    '\u{e0041}',
    '\u{e0100}',
    '\u{fffe}',
];

/// `c` in the middle of a name and at its end (where trimming must not hide it).
fn spoofed(c: char) -> [String; 2] {
    [format!("deploy{c}prod"), format!("deploy{c}")]
}

#[test]
fn invisible_characters_in_names_and_profile_ids_are_refused_over_http() {
    let env = Env::new();
    let key = admin_key(&env);
    let s = Server::start(&env);
    for &c in INVISIBLE {
        let code = format!("U+{:04X}", u32::from(c));
        for text in spoofed(c) {
            let r = s.post_json(KEYS, &key, &json!({ "name": text }));
            let (field, message) = only_detail(&r);
            assert_eq!(field, "name", "{code}");
            assert!(message.contains(&code), "{code}: {message}");
            let body = json!({ "name": "ok", "fullAccess": false, "profileIds": ["p1", text] });
            let r = s.post_json(KEYS, &key, &body);
            let (field, message) = only_detail(&r);
            assert_eq!(field, "profileIds[1]", "{code}");
            assert!(message.contains(&code), "{code}: {message}");
        }
    }
    assert_eq!(env.count_rows("api_keys"), 1, "nothing was created");
    // Ordinary non-ASCII text is welcome.
    for name in [
        "é",
        "日本",
        "🚀",
        "Ωμέγα café",
        "  naïve  ",
        "مرحبا",
        "שלום",
    ] {
        let r = s.post_json(
            KEYS,
            &key,
            &json!({ "name": name, "fullAccess": false, "profileIds": [name.trim(), "профиль"] }),
        );
        assert_eq!(r.status, 201, "{name}: {r:?}");
        assert_eq!(r.data()["name"], name.trim());
    }
}

#[test]
fn invisible_characters_are_refused_on_the_command_line() {
    let env = Env::new();
    for &c in INVISIBLE {
        if c == '\u{0}' {
            continue; // argv cannot carry NUL
        }
        let code = format!("U+{:04X}", u32::from(c));
        for text in spoofed(c) {
            for args in [
                &["keys", "create", "--name", text.as_str()][..],
                &["keys", "create", "--name", "ok", "--profile", text.as_str()],
                &["--user", text.as_str(), "keys", "create", "--name", "ok"],
                // Checked before anything is read, so the echo is never the raw text.
                &["keys", "verify", "--profile", text.as_str()],
            ] {
                let r = env.run(args);
                r.assert_error(2);
                assert!(r.stderr.contains(&code), "{code} {args:?}: {r:#?}");
                let (exit, v) = env.json(args);
                assert_eq!(exit, 2, "{code} {args:?}");
                assert_eq!(v["error"]["code"], "VALIDATION_ERROR", "{v}");
            }
        }
    }
    assert_eq!(env.count_rows("api_keys"), 0, "nothing was created");
    for name in ["é", "日本", "🚀 deploy"] {
        let k = env.create_key(name, &["--profile", "日本"]);
        assert_eq!(k["name"], name);
    }
    let (code, v) = env.json(&["--user", "josé", "keys", "create", "--name", "ok"]);
    assert_eq!(code, 0, "{v}");
    // An empty profile is no profile: a usage error, not a refusal of the key.
    for empty in ["", "  "] {
        env.run(&["keys", "verify", "--profile", empty])
            .assert_error(2);
    }
}

#[test]
fn webhook_urls_with_port_0_are_refused_and_ports_1_to_65535_accepted() {
    let env = Env::new();
    let key = admin_key(&env);
    let s = Server::start(&env);
    let create = |url: &str| {
        s.post_json(
            HOOKS,
            &key,
            &json!({ "url": url, "events": ["post.published"] }),
        )
    };
    for url in [
        "http://example.com:0/",
        "https://example.com:0",
        "http://example.com:0/hook?x=1",
        "http://203.0.113.7:0/",
    ] {
        let (field, message) = only_detail(&create(url));
        assert_eq!(field, "url", "{url}");
        assert!(message.contains("port"), "{url}: {message}");
    }
    assert_eq!(env.count_rows("webhooks"), 0);
    let one = create("http://example.com:1/");
    assert_eq!(one.status, 201, "{one:?}");
    let top = create("https://example.com:65535/hook");
    assert_eq!(top.status, 201, "{top:?}");
    let path = format!("{HOOKS}/{}", str_of(&one.data(), "id"));
    let patch = |url: &str| {
        s.send(
            "PATCH",
            &path,
            &[
                ("Authorization", &format!("Bearer {key}")),
                ("Content-Type", "application/json"),
            ],
            Some(json!({ "url": url }).to_string().as_bytes()),
        )
    };
    let (field, _) = only_detail(&patch("http://example.com:0/"));
    assert_eq!(field, "url");
    assert_eq!(s.get(&path, &key).data()["url"], "http://example.com:1/");
    let r = patch("http://example.com:65535/");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["url"], "http://example.com:65535/");
    // The CLI, too.
    let r = env.run(&[
        "webhooks",
        "create",
        "--url",
        "http://example.com:0/",
        "--event",
        "post.published",
    ]);
    r.assert_error(2);
    assert!(r.stderr.contains("--url"), "{r:#?}");
    assert_eq!(env.count_rows("webhooks"), 2);
}

#[test]
fn the_openapi_document_states_the_rules() {
    let env = Env::new();
    let s = Server::start(&env);
    let doc = s.call("GET", "/api/v1/openapi.json", None).json();
    let schemas = &doc["components"]["schemas"];
    let pattern = |v: &Value| regex::Regex::new(v.as_str().expect("a pattern")).unwrap();
    let name = pattern(&schemas["CreateApiKey"]["properties"]["name"]["pattern"]);
    let profile = pattern(&schemas["CreateApiKey"]["properties"]["profileIds"]["items"]["pattern"]);
    let described = schemas["CreateApiKey"]["properties"]["name"]["description"]
        .as_str()
        .unwrap();
    for &c in INVISIBLE {
        // Above the Basic Multilingual Plane the patterns say nothing (every engine must read
        // them alike, JavaScript's without the u flag too); the description names them.
        if u32::from(c) > 0xFFFF {
            assert!(described.contains("above it"), "{described}");
            continue;
        }
        for text in spoofed(c) {
            assert!(!name.is_match(&text), "name pattern takes {text:?}");
            assert!(
                !profile.is_match(&text),
                "profileIds pattern takes {text:?}"
            );
        }
    }
    for ok in ["é", "日本", "🚀", "  naïve  "] {
        assert!(name.is_match(ok), "{ok}");
        assert!(profile.is_match(ok), "{ok}");
    }
    // Every pattern uses only escapes that ECMA-262 (with and without the u flag), Python's
    // `re` (schemathesis) and the regex crate read alike: no `\u{...}`, no character above
    // U+FFFF.
    let text = doc.to_string();
    let mut patterns = 0;
    for (at, _) in text.match_indices("\"pattern\":") {
        let v: Value = serde_json::Deserializer::from_str(&text[at + 10..])
            .into_iter()
            .next()
            .unwrap()
            .unwrap();
        let p = v.as_str().expect("a pattern");
        // ASCII only: a character above U+FFFF would be two code units to a JavaScript
        // RegExp without the u flag.
        assert!(p.is_ascii() && !p.contains("\\u{"), "{p}");
        patterns += 1;
    }
    assert!(patterns >= 5, "{patterns} patterns");
    let url = pattern(&schemas["CreateWebhook"]["properties"]["url"]["pattern"]);
    assert!(!url.is_match("http://example.com:0/"));
    assert!(url.is_match("http://example.com:1/"));
    assert!(url.is_match("http://example.com:65535/"));
}

/// An endpoint that takes no body (DELETE, the test ping, the reads) refuses one that says
/// something: a client that thinks it sent data learns that it was not read. Nothing sent, or
/// `{}`, is fine; a body that is not JSON gets 415 or 400 as anywhere else.
#[test]
fn endpoints_that_take_no_body_refuse_one_that_says_something() {
    let env = Env::new();
    let key = env.create_key("root", &[])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let victim = env.create_key("victim", &[])["id"]
        .as_str()
        .unwrap()
        .to_string();
    let s = Server::start_with(&env, &["--allow-private-targets"]);
    let auth = format!("Bearer {key}");
    let hook = s.post_json(
        HOOKS,
        &key,
        &json!({"url": "http://127.0.0.1:9/h", "events": ["post.published"]}),
    );
    assert_eq!(hook.status, 201, "{hook:?}");
    let test = format!("{HOOKS}/{}/test", str_of(&hook.data(), "id"));
    let send = |method: &str, path: &str, ct: &str, body: &str| {
        s.send(
            method,
            path,
            &[("Authorization", &auth), ("Content-Type", ct)],
            Some(body.as_bytes()),
        )
    };
    for (method, path) in [
        ("POST", test.as_str()),
        ("DELETE", &format!("{KEYS}/{victim}")),
        ("GET", KEYS),
    ] {
        for body in [r#"{"a":1}"#, r#"{"a":1,"a":2}"#, "[]", "null"] {
            let r = send(method, path, "application/json", body);
            let (field, _) = only_detail(&r);
            assert_eq!(field, "body", "{method} {path} {body}: {r:?}");
        }
        let r = send(method, path, "text/plain", "hello");
        assert_eq!(r.status, 415, "{method} {path}: {r:?}");
        assert_eq!(r.json()["error"]["code"], "UNSUPPORTED_MEDIA_TYPE");
    }
    assert_eq!(
        env.count_rows("api_keys"),
        2,
        "a refused DELETE deleted nothing"
    );
    assert_eq!(
        env.count_rows("delivery_attempts"),
        0,
        "a refused ping sent nothing"
    );
    // Nothing, or an empty object, is no body.
    assert_eq!(send("POST", &test, "application/json", "{}").status, 200);
    assert_eq!(s.get(KEYS, &key).status, 200);
    let r = send(
        "DELETE",
        &format!("{KEYS}/{victim}"),
        "application/json",
        " {} ",
    );
    assert_eq!(r.status, 204, "{r:?}");
}
