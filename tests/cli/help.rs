//! Snapshots of every command's help and of the tables, rendered by the real binary with a
//! clean environment and no terminal (so no color and a fixed width).

use std::path::PathBuf;

use clap::CommandFactory;
use keyhook::cli::Cli;

use crate::common::{bare_cmd, check_generated, Env};

fn snapshots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cli/snapshots")
}

/// Every command path: [], ["keys"], ["keys", "create"], ...
pub(crate) fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        out.push(prefix.to_vec());
        for sub in cmd.get_subcommands() {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_string());
            walk(sub, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(&Cli::command(), &[], &mut out);
    out
}

#[test]
fn help_snapshots_and_every_command_ends_with_an_example() {
    let mut stale = Vec::new();
    for path in command_paths() {
        let out = bare_cmd()
            .args(&path)
            .arg("--help")
            .env_remove("COLUMNS")
            // `--db`'s default is resolved from XDG_DATA_HOME: fixed, so help is the same
            // on every machine.
            .env("XDG_DATA_HOME", "/xdg-data")
            .output()
            .unwrap();
        assert!(out.status.success(), "{path:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let last = text.trim_end().lines().last().unwrap_or_default();
        assert!(
            text.contains("\nExample") && last.starts_with("  ") && last.contains("keyhook "),
            "help of {path:?} should end with an example:\n{text}"
        );
        let name = if path.is_empty() {
            "keyhook".to_string()
        } else {
            format!("keyhook-{}", path.join("-"))
        };
        check_generated(
            &snapshots().join(format!("help/{name}.txt")),
            text.as_bytes(),
            &mut stale,
        );
    }
    assert!(
        stale.is_empty(),
        "rewrote {stale:?}; review and commit them"
    );
}

#[test]
fn help_shows_environment_variables() {
    let out = bare_cmd().arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for var in [
        "KEYHOOK_DB",
        "KEYHOOK_USER",
        "KEYHOOK_ALLOW_PRIVATE_TARGETS",
    ] {
        assert!(text.contains(&format!("[env: {var}")), "{var}:\n{text}");
    }
}

/// Replaces what differs from run to run (ids, prefixes, secrets) with fixed-width
/// placeholders, so the table layout itself is compared.
fn normalize(s: &str) -> String {
    let uuid =
        regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    let prefix = regex::Regex::new(r"kp_[0-9a-f]{8}").unwrap();
    // A narrow webhook list shows ids as 8-character prefixes.
    let short_id = regex::Regex::new(r"│ [0-9a-f]{8} ┆").unwrap();
    let s = uuid.replace_all(s, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
    let s = short_id.replace_all(&s, "│ xxxxxxxx ┆");
    prefix.replace_all(&s, "kp_xxxxxxxx").into_owned()
}

#[test]
fn table_snapshots() {
    let env = Env::new();
    env.create_key("deploy", &[]);
    env.create_key(
        "reporting",
        &[
            "--permission",
            "readonly",
            "--profile",
            "prof_1",
            "--profile",
            "prof_2",
            "--expires-in",
            "30d",
        ],
    );
    let (code, _) = env.json(&[
        "webhooks",
        "create",
        "--url",
        "https://hooks.example.com/services/T0000/B0000/a-rather-long-path?token=abcdef",
        "--event",
        "post.published",
        "--event",
        "post.failed",
        "--event",
        "account.connected",
        "--event",
        "profile.created",
    ]);
    assert_eq!(code, 0);
    let (code, _) = env.json(&[
        "webhooks",
        "create",
        "--url",
        "https://example.com/h",
        "--event",
        "post.published",
    ]);
    assert_eq!(code, 0);
    let run = |args: &[&str], columns: &str| {
        let out = env
            .cmd()
            .args(args)
            .env("COLUMNS", columns)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        assert!(!out.stdout.contains(&0x1b), "no color without a terminal");
        normalize(&String::from_utf8(out.stdout).unwrap())
    };
    let mut stale = Vec::new();
    for (name, args, columns) in [
        ("keys-list-wide", vec!["keys", "list"], "200"),
        ("keys-list-80", vec!["keys", "list"], "80"),
        ("webhooks-list-wide", vec!["webhooks", "list"], "250"),
        ("webhooks-list-100", vec!["webhooks", "list"], "100"),
        ("webhooks-list-80", vec!["webhooks", "list"], "80"),
    ] {
        let text = run(&args, columns);
        for line in text.lines() {
            assert!(
                line.chars().count() <= columns.parse().unwrap(),
                "{name}: {line}"
            );
        }
        check_generated(
            &snapshots().join(format!("tables/{name}.txt")),
            text.as_bytes(),
            &mut stale,
        );
    }
    assert!(
        stale.is_empty(),
        "rewrote {stale:?}; review and commit them"
    );
}

#[test]
fn color_follows_the_flag_and_no_color() {
    let env = Env::with_clock();
    env.create_key("deploy", &["--expires-in", "1s"]);
    env.advance_clock(1_100);
    let plain = env.run(&["--color", "never", "keys", "list"]).stdout;
    assert!(plain.contains("EXPIRED"), "{plain}");
    let esc = |args: &[&str], no_color: bool| {
        let mut c = env.cmd();
        if no_color {
            c.env("NO_COLOR", "1");
        }
        c.args(args).output().unwrap().stdout.contains(&0x1b)
    };
    assert!(esc(&["--color", "always", "keys", "list"], false));
    assert!(
        esc(&["--color", "always", "keys", "list"], true),
        "a flag beats NO_COLOR"
    );
    assert!(!esc(&["--color", "never", "keys", "list"], false));
    assert!(!esc(&["keys", "list"], false), "auto without a terminal");
    assert!(
        !esc(&["--color", "always", "--json", "keys", "list"], false),
        "never in JSON"
    );
}
