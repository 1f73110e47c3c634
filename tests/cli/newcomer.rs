//! What a newcomer trips on: typos get a suggestion, aliases, help that lists a command's own
//! options first and shows the database path it would use, read-only commands that never
//! create a database, webhook id prefixes, messages without a stray status 0, tables that never
//! break a URL or a word, and HTTP docs (docs/http.md) whose endpoint examples sit under their
//! own headings.

use std::path::PathBuf;

use keyhook::time::Timestamp;
use serde_json::Value;

use crate::common::{bare_cmd, run, Env};
use crate::receiver::Receiver;
use crate::server::Server;

fn s(v: &Value, field: &str) -> String {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field} in {v}"))
        .to_string()
}

/// Inserts a webhook with a chosen id, which the CLI cannot do: UUIDs are random.
fn insert_webhook(env: &Env, id: &str, user: &str) {
    let now = Timestamp::now().0;
    env.sql(&format!(
        "INSERT INTO users (id, created_at) VALUES ('{user}', {now}) ON CONFLICT DO NOTHING"
    ));
    env.sql(&format!(
        "INSERT INTO webhooks (id, user_id, url, events, secret, is_active, fail_count,
             created_at, updated_at)
         VALUES ('{id}', '{user}', 'https://example.com/h', '[\"post.published\"]',
             'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', TRUE, 0, {now}, {now})"
    ));
}

// --- Suggestions and aliases ---

#[test]
fn a_typo_gets_did_you_mean() {
    for (args, want) in [
        (vec!["kyes", "list"], "'keys'"),
        (vec!["webhoks", "list"], "'webhooks'"),
        (vec!["keys", "lsit"], "'list'"),
        (vec!["keys", "create", "--nmae", "x"], "'--name'"),
        (
            vec!["keys", "create", "--name", "x", "--permission", "readwirte"],
            "'readwrite'",
        ),
    ] {
        let r = run(bare_cmd().args(&args));
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        let first = r.stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("keyhook: "), "{args:?}: {r:?}");
        assert!(
            first.contains("did you mean") && first.contains(want),
            "{args:?} should suggest {want}: {first}"
        );
    }
    // With --json the suggestion is in the error object too.
    let r = run(bare_cmd().args(["--json", "kyes"]));
    assert_eq!(r.code, 2);
    let v = r.json();
    assert_eq!(v["error"]["code"], "VALIDATION_ERROR", "{v}");
    assert!(
        s(&v["error"], "message").contains("did you mean 'key"),
        "{v}"
    );
}

#[test]
fn key_and_webhook_are_aliases() {
    let env = Env::new();
    env.create_key("deploy", &[]);
    env.create_webhook("https://example.com/hooks", "post.published");
    for (alias, name) in [("key", "keys"), ("webhook", "webhooks")] {
        let a = env.run(&["--json", alias, "list"]);
        let b = env.run(&["--json", name, "list"]);
        assert_eq!(a.code, 0, "{alias}: {a:?}");
        assert_eq!(a.stdout, b.stdout, "{alias} list differs from {name} list");
        assert!(!a.json()["data"].as_array().unwrap().is_empty());
    }
    // The completion scripts know them.
    let bash = run(bare_cmd().args(["completions", "bash"])).stdout;
    assert!(bash.contains("keyhook,key)") && bash.contains("keyhook,webhook)"));
}

// --- Help ---

#[test]
fn help_lists_the_command_options_before_the_global_ones() {
    for path in [
        vec!["keys", "create"],
        vec!["webhooks", "create"],
        vec!["keys", "list"],
        vec!["serve"],
    ] {
        let r = run(bare_cmd()
            .args(&path)
            .arg("--help")
            .env("XDG_DATA_HOME", "/xdg"));
        assert_eq!(r.code, 0);
        let at = |needle: &str| {
            r.stdout
                .find(needle)
                .unwrap_or_else(|| panic!("{path:?}: no {needle:?} in\n{}", r.stdout))
        };
        let own = at("\nOptions:\n");
        let global = at("\nGlobal Options:\n");
        assert!(own < global, "{path:?}");
        for flag in ["--db <PATH>", "--user <ID>", "--json", "--color <WHEN>"] {
            assert!(
                at(flag) > global,
                "{path:?}: {flag} is not under Global Options"
            );
        }
        // The command's own options come first.
        let own_flag = match path[..] {
            ["keys", "create"] => "--name <NAME>",
            ["webhooks", "create"] => "--url <URL>",
            ["keys", "list"] => "--all-users",
            _ => "--bind <ADDR>",
        };
        let flag_at = own + r.stdout[own..].find(own_flag).expect(own_flag);
        assert!(flag_at < global, "{path:?}");
    }
}

#[test]
fn help_shows_the_database_path_that_would_be_used() {
    let help = |xdg: Option<&str>, home: &str| {
        let mut c = bare_cmd();
        c.args(["keys", "list", "--help"]).env("HOME", home);
        if let Some(x) = xdg {
            c.env("XDG_DATA_HOME", x);
        }
        run(&mut c).stdout
    };
    let text = help(Some("/srv/data"), "/home/someone");
    assert!(
        text.contains("[default: /srv/data/keyhook/keyhook.db]"),
        "{text}"
    );
    let text = help(None, "/home/someone");
    assert!(
        text.contains("[default: /home/someone/.local/share/keyhook/keyhook.db]"),
        "{text}"
    );
    // A relative XDG_DATA_HOME is ignored, as the database path ignores it.
    let text = help(Some("rel"), "/home/someone");
    assert!(
        text.contains("[default: /home/someone/.local/share/keyhook/keyhook.db]"),
        "{text}"
    );
    // The committed man page names the variable, not a machine's path.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let man = std::fs::read_to_string(root.join("man/keyhook-keys-list.1")).unwrap();
    assert!(
        man.contains("[default: $XDG_DATA_HOME/keyhook/keyhook.db]"),
        "{man}"
    );
    assert!(!man.contains("/.local/share/keyhook/keyhook.db]"));
}

// --- Read-only commands never create a database ---

/// The read-only commands, with the standard input each needs.
fn read_only_commands() -> Vec<(Vec<&'static str>, &'static str)> {
    let key = "kp_0000000000000000000000000000000000000000000000000000000000000000";
    let id = "5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c";
    vec![
        (vec!["keys", "list"], ""),
        (vec!["keys", "list", "--all-users"], ""),
        (vec!["keys", "show", "kp_12345678"], ""),
        (vec!["keys", "verify"], key),
        (vec!["webhooks", "list"], ""),
        (vec!["webhooks", "show", id], ""),
        (vec!["webhooks", "deliveries", id], ""),
        // Commands that act on what exists: on a missing database they could only fail after
        // creating it.
        (vec!["keys", "delete", "kp_12345678", "--yes"], ""),
        (vec!["keys", "rotate", "kp_12345678"], ""),
        (vec!["keys", "prune", "--yes"], ""),
        (vec!["keys", "prune"], ""),
        (vec!["webhooks", "test", id], ""),
        (vec!["webhooks", "enable", id], ""),
        (vec!["webhooks", "disable", id], ""),
        (vec!["webhooks", "delete", id, "--yes"], ""),
        // Events go to webhooks that exist, and deliveries come from them.
        (vec!["events", "emit", "post.published"], ""),
        (vec!["deliver", "--once"], ""),
    ]
}

#[test]
fn read_only_commands_on_a_missing_database_exit_1_and_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("typo");
    let db = missing.join("sub").join("keyhook.db");
    for (args, stdin) in read_only_commands() {
        for json in [false, true] {
            let mut c = bare_cmd();
            c.arg("--db").arg(&db).args(&args).write_stdin(stdin);
            if json {
                c.arg("--json");
            }
            let r = run(&mut c);
            r.assert_error(1);
            assert!(
                r.stderr.contains(&db.display().to_string()),
                "{args:?}: the message names the path: {r:?}"
            );
            assert!(r.stderr.contains("keyhook keys create"), "{args:?}: {r:?}");
            if json {
                let v = r.json();
                assert_eq!(v["error"]["code"], "DATABASE_NOT_FOUND", "{args:?}: {v}");
                assert!(s(&v["error"], "message").contains(&db.display().to_string()));
            } else {
                assert_eq!(r.stdout, "", "{args:?}");
            }
            assert!(!missing.exists(), "{args:?} created {}", missing.display());
        }
    }
    // The default path too: nothing under XDG_DATA_HOME.
    let xdg = dir.path().join("xdg");
    for (args, stdin) in read_only_commands() {
        let r = run(bare_cmd()
            .env("XDG_DATA_HOME", &xdg)
            .args(&args)
            .write_stdin(stdin));
        r.assert_error(1);
        assert!(r
            .stderr
            .contains(&xdg.join("keyhook/keyhook.db").display().to_string()));
        assert!(!xdg.exists(), "{args:?} created {}", xdg.display());
    }
    // A file that is there is read, even when it is empty of keys.
    let env = Env::new();
    env.create_key("deploy", &[]);
    for (args, stdin) in read_only_commands() {
        let r = run(env.cmd().args(&args).write_stdin(stdin));
        assert_ne!(r.code, 1, "{args:?}: {r:?}");
    }
}

#[test]
fn writing_commands_still_create_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new").join("dir").join("keyhook.db");
    let r = run(bare_cmd()
        .arg("--db")
        .arg(&db)
        .args(["keys", "create", "--name", "first", "--quiet"]));
    assert_eq!(r.code, 0, "{r:?}");
    assert!(db.is_file());
    let r = run(bare_cmd().arg("--db").arg(&db).args(["keys", "list"]));
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("first"));

    let db = dir.path().join("other").join("keyhook.db");
    let r = run(bare_cmd().arg("--db").arg(&db).args([
        "webhooks",
        "create",
        "--url",
        "https://example.com/h",
        "--event",
        "post.published",
    ]));
    assert_eq!(r.code, 0, "{r:?}");
    assert!(db.is_file());

    let xdg = dir.path().join("xdg");
    let r = run(bare_cmd()
        .env("XDG_DATA_HOME", &xdg)
        .args(["keys", "create", "--name", "x", "--quiet"]));
    assert_eq!(r.code, 0, "{r:?}");
    assert!(xdg.join("keyhook/keyhook.db").is_file());
}

// --- Webhook id prefixes ---

#[test]
fn a_unique_webhook_id_prefix_names_the_webhook() {
    let env = Env::new();
    let w = env.create_webhook("http://127.0.0.1:9/hook", "post.published");
    let id = s(&w, "id");
    for prefix in [&id[..4], &id[..8], &id[..13], id.as_str()] {
        let (code, v) = env.json(&["webhooks", "show", prefix]);
        assert_eq!(code, 0, "{prefix}: {v}");
        assert_eq!(v["data"]["id"], id.as_str());
    }
    let upper = id[..8].to_ascii_uppercase();
    let (code, v) = env.json(&["webhooks", "show", &upper]);
    assert_eq!((code, s(&v["data"], "id")), (0, id.clone()), "{upper}");
    // Every command that takes an id takes the prefix.
    let p = &id[..6];
    let (code, v) = env.json(&["webhooks", "disable", p]);
    assert_eq!(
        (code, v["data"]["isActive"].clone()),
        (0, Value::Bool(false))
    );
    let (code, v) = env.json(&["webhooks", "enable", p]);
    assert_eq!(
        (code, v["data"]["isActive"].clone()),
        (0, Value::Bool(true))
    );
    let (code, v) = env.json(&["webhooks", "deliveries", p]);
    assert_eq!(code, 0, "{v}");
    let r = env.run(&["webhooks", "test", p]);
    assert_eq!(r.code, 1, "blocked, but found: {r:?}");
    assert!(r.stdout.starts_with("not delivered: "), "{r:?}");

    // Shorter than 4 characters names nothing; neither does another user, nor a pattern.
    let other = if id.starts_with('a') { "b" } else { "a" };
    for (user, prefix) in [
        ("default", &id[..3]),
        ("default", &id[..1]),
        ("default", &format!("{other}{}", &id[1..8])),
        ("bob", &id[..8]),
        ("bob", id.as_str()),
        ("default", "%"),
        ("default", "____"),
        ("default", &format!("{}%", &id[..4])),
        ("default", ""),
    ] {
        let r = env.run(&["--user", user, "webhooks", "show", prefix]);
        r.assert_error(3);
    }
    let r = env.run(&["webhooks", "delete", p, "--yes"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(env.run(&["webhooks", "show", &id]).code == 3);
}

#[test]
fn an_ambiguous_webhook_id_prefix_exits_2_and_lists_the_matches() {
    let env = Env::new();
    env.create_key("deploy", &[]);
    let a = "abcd1111-0000-4000-8000-000000000001";
    let b = "abcd2222-0000-4000-8000-000000000002";
    let bobs = "abcd3333-0000-4000-8000-000000000003";
    insert_webhook(&env, a, "default");
    insert_webhook(&env, b, "default");
    insert_webhook(&env, bobs, "bob");
    for prefix in ["a", "abc", "abcd", "ABCD"] {
        for cmd in ["show", "deliveries", "disable", "test"] {
            let r = env.run(&["webhooks", cmd, prefix]);
            r.assert_error(2);
            assert!(
                r.stderr.contains(a) && r.stderr.contains(b),
                "{cmd} {prefix}: lists both: {r:?}"
            );
            assert!(!r.stderr.contains(bobs), "another user's webhook: {r:?}");
        }
    }
    let r = env.run(&["--json", "webhooks", "delete", "abcd", "--yes"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.json()["error"]["code"], "VALIDATION_ERROR");
    assert_eq!(
        env.json(&["webhooks", "list"]).1["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // One more character settles it.
    let (code, v) = env.json(&["webhooks", "show", "abcd1"]);
    assert_eq!((code, s(&v["data"], "id")), (0, a.to_string()));
    // Bob's own prefix is unique to him.
    let (code, v) = env.json(&["--user", "bob", "webhooks", "show", "abcd"]);
    assert_eq!((code, s(&v["data"], "id")), (0, bobs.to_string()));

    // Over HTTP the {id} path parameter is the same: unique prefix 200, ambiguous 400, none
    // 404.
    let key = s(&env.create_key("api", &[]), "key");
    let server = Server::start(&env);
    let r = server.get("/api/v1/webhooks/abcd2", &key);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["id"], b);
    let r = server.get("/api/v1/webhooks/abcd", &key);
    assert_eq!(r.status, 400, "{r:?}");
    let v = r.json();
    assert_eq!(v["error"]["code"], "VALIDATION_ERROR");
    assert_eq!(v["error"]["details"][0]["field"], "id");
    let message = s(&v["error"]["details"][0], "message");
    assert!(message.contains(a) && message.contains(b) && !message.contains(bobs));
    assert_eq!(server.get("/api/v1/webhooks/abcd3", &key).status, 404);
    assert_eq!(server.get("/api/v1/webhooks/ab", &key).status, 400);
}

// --- Messages ---

#[test]
fn test_results_print_no_stray_status_zero() {
    let env = Env::new();
    let rx = Receiver::start();
    let blocked = s(&env.create_webhook(&rx.url("/ok"), "post.published"), "id");
    let failing = s(
        &env.create_webhook(&rx.url("/fail"), "post.published"),
        "id",
    );

    // Without --allow-private-targets the loopback target is blocked: no response, no status.
    let r = env.run(&["webhooks", "test", &blocked]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout, "not delivered: blocked: private address\n",
        "{r:?}"
    );
    assert_eq!(
        r.stderr,
        "keyhook: the test delivery failed: blocked: private address\n"
    );
    let r = env.run(&["--allow-private-targets", "webhooks", "test", &failing]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout, "not delivered: 500 Internal Server Error\n",
        "{r:?}"
    );
    assert_eq!(
        r.stderr,
        "keyhook: the test delivery failed: 500 Internal Server Error\n"
    );
    let r = env.run(&["--allow-private-targets", "webhooks", "test", &blocked]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "delivered: 200 OK\n"));

    // The delivery log says the same.
    let r = run(env
        .cmd()
        .args(["webhooks", "deliveries", &blocked])
        .env("COLUMNS", "200"));
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("┆ blocked: private address ┆"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains(" 0 blocked"), "{}", r.stdout);
    // --json keeps the API's fields.
    let (_, v) = env.json(&["webhooks", "test", &blocked]);
    assert_eq!(v["data"]["statusCode"], 0);
    assert_eq!(v["data"]["statusText"], "blocked: private address");
}

// --- Tables ---

/// The cells of column `col` of a comfy-table rendering, one string per line of each row.
fn column_lines(table: &str, col: usize) -> Vec<String> {
    table
        .lines()
        .filter(|l| l.starts_with('│'))
        .map(|l| {
            let inner = l.trim_start_matches('│').trim_end_matches('│');
            inner
                .split('┆')
                .nth(col)
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .collect()
}

#[test]
fn narrow_tables_never_break_a_url_or_a_word() {
    let env = Env::new();
    let urls = [
        "https://hooks.example.com/services/T0000/B0000/a-rather-long-path-for-a-receiver?token=abcdef",
        "https://example.com/h",
        "https://receiver.example.org/webhooks/keyhook/production/v2",
    ];
    let events = [
        "post.published",
        "post.failed",
        "account.connected",
        "account.disconnected",
        "profile.created",
    ];
    let mut ids = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        let mine = &events[..events.len() - i * 2];
        let more: Vec<&str> = mine[1..].iter().flat_map(|e| ["--event", *e]).collect();
        ids.push(s(&env.create_webhook_with(url, mine[0], &more), "id"));
    }
    for columns in ["80", "90", "100", "120"] {
        let width: usize = columns.parse().unwrap();
        let r = run(env.cmd().args(["webhooks", "list"]).env("COLUMNS", columns));
        assert_eq!(r.code, 0);
        for line in r.stdout.lines() {
            assert!(line.chars().count() <= width, "{columns}: {line}");
        }
        // Every URL line is a whole URL, or the start of one cut with …: never a piece.
        let url_lines: Vec<String> = column_lines(&r.stdout, 1)
            .into_iter()
            .filter(|c| !c.is_empty() && c != "URL")
            .collect();
        assert_eq!(url_lines.len(), urls.len(), "{columns}:\n{}", r.stdout);
        for cell in &url_lines {
            let ok = urls.contains(&cell.as_str())
                || cell.strip_suffix('…').is_some_and(|start| {
                    start.len() >= 4 && urls.iter().any(|u| u.starts_with(start))
                });
            assert!(ok, "{columns}: URL cell {cell:?} in\n{}", r.stdout);
        }
        // Event lists wrap between names.
        for cell in column_lines(&r.stdout, 2) {
            for word in cell.split(", ").map(|w| w.trim_end_matches(',')) {
                assert!(
                    word.is_empty() || word == "EVENTS" || events.contains(&word),
                    "{columns}: event {word:?} in\n{}",
                    r.stdout
                );
            }
        }
        // Ids are whole, or (narrow) a prefix that names the webhook.
        for cell in column_lines(&r.stdout, 0) {
            if cell.is_empty() || cell == "ID" {
                continue;
            }
            let id = ids
                .iter()
                .find(|id| id.starts_with(&cell))
                .unwrap_or_else(|| panic!("{columns}: id {cell:?}"));
            assert!(cell.len() >= 8, "{cell}");
            let (code, v) = env.json(&["webhooks", "show", &cell]);
            assert_eq!((code, s(&v["data"], "id")), (0, id.clone()));
        }
        // One webhook in detail: the URL whole or cut, the id and secret whole.
        let r = run(env
            .cmd()
            .args(["webhooks", "show", &ids[0]])
            .env("COLUMNS", columns));
        let fields = column_lines(&r.stdout, 0);
        let values = column_lines(&r.stdout, 1);
        let value = |field: &str| {
            let i = fields.iter().position(|f| f == field).expect(field);
            values[i].clone()
        };
        let url = &value("url");
        assert!(
            url == urls[0]
                || url
                    .strip_suffix('…')
                    .is_some_and(|s| urls[0].starts_with(s)),
            "{columns}: {url}"
        );
        assert_eq!(value("id"), ids[0]);
        assert!(value("secret").starts_with("whsec_") && value("secret").len() > 40);
    }
    // Wide enough, nothing is cut.
    let r = run(env.cmd().args(["webhooks", "list"]).env("COLUMNS", "400"));
    assert!(!r.stdout.contains('…'));
    for id in &ids {
        assert!(r.stdout.contains(id.as_str()));
    }
    // --json is untouched by the width.
    let wide = run(env
        .cmd()
        .args(["--json", "webhooks", "list"])
        .env("COLUMNS", "400"));
    let narrow = run(env
        .cmd()
        .args(["--json", "webhooks", "list"])
        .env("COLUMNS", "40"));
    assert_eq!(wide.stdout, narrow.stdout);
}

#[test]
fn narrow_key_tables_wrap_names_between_words() {
    let env = Env::new();
    let name = "deploy key for the nightly-reporting-pipeline of the analytics team";
    let words: Vec<&str> = name.split(' ').collect();
    env.create_key(
        name,
        &[
            "--profile",
            "prof_1",
            "--profile",
            "prof_2",
            "--expires-in",
            "30d",
        ],
    );
    env.create_key("second", &["--user", "someone-with-a-long-user-id"]);
    for (columns, args) in [
        ("80", vec!["keys", "list"]),
        ("80", vec!["keys", "list", "--all-users"]),
        ("100", vec!["keys", "list", "--all-users"]),
    ] {
        let r = run(env.cmd().args(&args).env("COLUMNS", columns));
        assert_eq!(r.code, 0);
        let col = usize::from(args.len() == 3) + 1;
        let lines: Vec<String> = column_lines(&r.stdout, col)
            .into_iter()
            .skip(1)
            .filter(|c| !c.is_empty() && c != "second")
            .collect();
        // Every line is whole words of the name, the last maybe cut with `…`: never a piece
        // of a word without the mark.
        let mut rest = name;
        for line in &lines {
            let line = line.as_str();
            match line.strip_suffix('…') {
                None => {
                    assert!(
                        rest.starts_with(line)
                            && (rest.len() == line.len() || rest[line.len()..].starts_with(' ')),
                        "{columns} {args:?}: {line:?} is not whole words of {rest:?}\n{}",
                        r.stdout
                    );
                    rest = rest[line.len()..].trim_start();
                }
                Some(start) => {
                    let word = rest.split(' ').next().unwrap();
                    assert!(
                        word.starts_with(start) && words.contains(&word),
                        "{columns} {args:?}: {line:?}\n{}",
                        r.stdout
                    );
                    rest = rest[word.len()..].trim_start();
                }
            }
        }
        assert_eq!(rest, "", "{columns} {args:?}: the whole name is shown");
        for line in r.stdout.lines() {
            assert!(line.chars().count() <= columns.parse().unwrap(), "{line}");
        }
    }
}

// --- docs/http.md ---

/// The method and path a `curl` command line requests: `-X M`, else POST with `-d`, else GET;
/// `$API` is `/api/v1`.
fn curl_request(line: &str) -> Option<(String, String)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if !words.contains(&"curl") {
        return None;
    }
    let method = match words.iter().position(|w| *w == "-X") {
        Some(i) => words.get(i + 1)?.to_string(),
        None if words.contains(&"-d") => "POST".to_string(),
        None => "GET".to_string(),
    };
    let url = words.iter().find(|w| w.starts_with("$API"))?;
    Some((method, url.replacen("$API", "/api/v1", 1)))
}

/// Whether `path` is what the heading's `template` (with `{id}` segments) names.
fn path_matches(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.split('/').collect();
    let p: Vec<&str> = path
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .split('/')
        .collect();
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| (t.starts_with('{') && !p.is_empty()) || t == p)
}

#[test]
fn http_doc_endpoint_examples_sit_under_their_own_headings() {
    let page =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/http.md"))
            .unwrap();
    let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    let mut checked = Vec::new();
    let lines: Vec<&str> = page.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(heading) = line.strip_prefix("### ") else {
            continue;
        };
        let Some((method, path)) = heading.split_once(' ') else {
            continue;
        };
        if !methods.contains(&method) || !path.starts_with("/api/") {
            continue;
        }
        let section = lines[i + 1..]
            .iter()
            .take_while(|l| !l.starts_with("## ") && !l.starts_with("### "));
        let requests: Vec<(String, String)> = section
            .filter(|l| l.starts_with("$ "))
            .filter_map(|l| curl_request(l))
            .collect();
        let Some((m, p)) = requests.first() else {
            panic!("docs/http.md: no curl example under {line:?}");
        };
        assert!(
            m == method && path_matches(path, p),
            "docs/http.md: the first example under {line:?} requests {m} {p}"
        );
        checked.push(heading.to_string());
    }
    // Every endpoint of the key API has its heading.
    for want in [
        "POST /api/v1/api-keys",
        "GET /api/v1/api-keys",
        "DELETE /api/v1/api-keys/{id}",
        "POST /api/v1/webhooks",
        "GET /api/v1/webhooks",
        "POST /api/v1/webhooks/{id}/test",
        "GET /api/v1/webhooks/{id}",
        "PATCH /api/v1/webhooks/{id}",
        "DELETE /api/v1/webhooks/{id}",
        "GET /api/v1/webhooks/{id}/deliveries",
        "POST /api/v1/events",
        "GET /api/v1/openapi.json",
    ] {
        assert!(
            checked.iter().any(|h| h == want),
            "docs/http.md: no heading {want}"
        );
    }
}

#[test]
fn the_http_doc_check_catches_a_shifted_example() {
    assert_eq!(
        curl_request("$ curl -s -H \"Authorization: Bearer $KEY\" -X DELETE $API/webhooks/ab12"),
        Some(("DELETE".into(), "/api/v1/webhooks/ab12".into()))
    );
    assert_eq!(
        curl_request("$ curl -s -d '{}' $API/events"),
        Some(("POST".into(), "/api/v1/events".into()))
    );
    assert!(path_matches("/api/v1/webhooks/{id}", "/api/v1/webhooks/x"));
    assert!(!path_matches("/api/v1/webhooks/{id}", "/api/v1/webhooks"));
    assert!(!path_matches(
        "/api/v1/webhooks",
        "/api/v1/webhooks/x/deliveries"
    ));
    assert!(!path_matches(
        "/api/v1/webhooks/{id}/deliveries",
        "/api/v1/webhooks/x/test"
    ));
}
