//! ARCHITECTURE.md kept true. The walls between the crates ("Layers are crates"): each crate
//! may depend only on the keyhook crates and the outside crates its layer allows. A forbidden
//! dependency is a line in a Cargo.toml; a test reads them all through `cargo metadata` and
//! fails naming it. And the code map: what it names exists, and it names every crate and
//! top-level module.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

/// The keyhook crates each crate may depend on (normal dependencies; dev-dependencies are
/// for tests and not checked).
const ALLOWED: &[(&str, &[&str])] = &[
    ("keyhook-core", &[]),
    ("keyhook-sqlite", &["keyhook-core"]),
    ("keyhook-postgres", &["keyhook-core"]),
    ("keyhook-delivery", &["keyhook-core"]),
    ("keyhook-http", &["keyhook-core"]),
    // keyhook-postgres for `url::check` only: the `--db` URL is checked where it is owned.
    (
        "keyhook-cli",
        &["keyhook-core", "keyhook-delivery", "keyhook-postgres"],
    ),
    (
        "keyhook",
        &[
            "keyhook-core",
            "keyhook-sqlite",
            "keyhook-postgres",
            "keyhook-delivery",
            "keyhook-http",
            "keyhook-cli",
        ],
    ),
    // Test support (tests/support/): a dev-dependency. No row allows it, so no crate can
    // depend on it at runtime.
    ("test-postgres", &[]),
];

/// Outside crates that belong to one layer only: SQL to the backends, the HTTP server to the
/// http front end, the command-line crates to the cli, the HTTP client to delivery.
const OWNED: &[(&str, &[&str])] = &[
    ("rusqlite", &["keyhook-sqlite"]),
    ("postgres", &["keyhook-postgres"]),
    ("r2d2_postgres", &["keyhook-postgres"]),
    ("tiny_http", &["keyhook-http"]),
    ("clap", &["keyhook-cli"]),
    ("clap_complete", &["keyhook-cli"]),
    ("clap_mangen", &["keyhook-cli"]),
    ("dialoguer", &["keyhook-cli"]),
    ("comfy-table", &["keyhook-cli"]),
    ("indicatif", &["keyhook-cli"]),
    ("ureq", &["keyhook-delivery"]),
    // serve's rate limiter and /metrics (ops HTTP) live in the http front end.
    ("governor", &["keyhook-http"]),
    ("prometheus-client", &["keyhook-http"]),
    // The portal's templates (compile-time checked, escaping by default).
    ("maud", &["keyhook-http"]),
    // The log subscriber is the binary's front's (keyhook-cli); libraries only emit `tracing`.
    ("tracing-subscriber", &["keyhook-cli"]),
];

/// Each workspace package's normal dependencies, by name.
fn dependencies(metadata: &Value) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for p in metadata["packages"].as_array().expect("packages") {
        let deps = p["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].is_null())
            .map(|d| d["name"].as_str().expect("name").to_string())
            .collect();
        out.insert(p["name"].as_str().expect("name").to_string(), deps);
    }
    out
}

/// Every dependency that breaks a wall, as "crate -> dependency".
fn violations(deps: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut bad = Vec::new();
    for (krate, ds) in deps {
        let allowed = ALLOWED.iter().find(|(k, _)| k == krate).map(|(_, a)| *a);
        let Some(allowed) = allowed else {
            bad.push(format!(
                "{krate}: not in the crate graph; add it to ALLOWED"
            ));
            continue;
        };
        for d in ds {
            // A workspace crate, whatever its name (test-postgres too).
            let keyhook_crate = ALLOWED.iter().any(|(k, _)| k == d);
            if keyhook_crate && !allowed.contains(&d.as_str()) {
                bad.push(format!("{krate} -> {d}"));
            }
            if let Some((_, owners)) = OWNED.iter().find(|(o, _)| o == d) {
                if krate != "keyhook" && !owners.contains(&krate.as_str()) {
                    bad.push(format!("{krate} -> {d} (belongs to {})", owners.join(", ")));
                }
            }
        }
    }
    bad
}

#[test]
fn no_crate_depends_on_what_its_layer_forbids() {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let deps = dependencies(&metadata);
    for (krate, _) in ALLOWED {
        assert!(
            deps.contains_key(*krate),
            "{krate} is not a workspace member"
        );
    }
    let bad = violations(&deps);
    assert!(bad.is_empty(), "forbidden dependencies: {bad:#?}");
}

#[test]
fn the_check_catches_a_front_end_importing_the_other() {
    let graph = |extra: (&str, &str)| {
        let mut deps: BTreeMap<String, Vec<String>> = ALLOWED
            .iter()
            .map(|(k, a)| (k.to_string(), a.iter().map(|d| d.to_string()).collect()))
            .collect();
        deps.get_mut(extra.0).unwrap().push(extra.1.to_string());
        deps
    };
    assert_eq!(
        violations(&graph(("keyhook-cli", "anyhow"))),
        Vec::<String>::new()
    );
    assert_eq!(
        violations(&graph(("keyhook-cli", "keyhook-http"))),
        ["keyhook-cli -> keyhook-http"]
    );
    assert_eq!(
        violations(&graph(("keyhook-core", "keyhook-sqlite"))),
        ["keyhook-core -> keyhook-sqlite"]
    );
    assert_eq!(
        violations(&graph(("keyhook-http", "rusqlite"))),
        ["keyhook-http -> rusqlite (belongs to keyhook-sqlite)"]
    );
    assert_eq!(
        violations(&graph(("keyhook", "test-postgres"))),
        ["keyhook -> test-postgres"]
    );
    assert_eq!(
        violations(&graph(("keyhook-core", "clap"))),
        ["keyhook-core -> clap (belongs to keyhook-cli)"]
    );
}

/// Where the code map's paths may start: a backquoted string that starts so is a path.
const MAP_ROOTS: &[&str] = &[
    "crates/",
    "tests/",
    "src/",
    "docs/",
    "benches/",
    "bench/",
    "vendor/",
    "completions/",
    "man/",
];

/// The section of `text` under the heading line that names `dir` in backquotes, up to the
/// next heading; None without such a heading.
fn section<'a>(text: &'a str, dir: &str) -> Option<&'a str> {
    let quoted = format!("`{dir}`");
    let at = text.match_indices("\n#").map(|(i, _)| i + 1).find(|&i| {
        text[i..]
            .lines()
            .next()
            .is_some_and(|h| h.contains(&quoted))
    })?;
    let body = &text[at..];
    let first = body.find('\n').map_or(body.len(), |n| n + 1);
    let end = body[first..]
        .find("\n#")
        .map_or(body.len(), |n| first + n + 1);
    Some(&body[..end])
}

/// The top-level modules of the crate at `dir`: `src/NAME.rs` and `src/NAME/`, but the
/// crate roots `lib.rs` and `main.rs`.
fn top_modules(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("src"))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter_map(|p| {
                    if p.is_dir() {
                        p.file_name().map(|n| n.to_string_lossy().into_owned())
                    } else if p.extension().is_some_and(|e| e == "rs") {
                        p.file_stem().map(|n| n.to_string_lossy().into_owned())
                    } else {
                        None
                    }
                })
                .filter(|n| n != "lib" && n != "main")
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// What is wrong with the code map `text` of the tree at `root`: a backquoted path or
/// `keyhook-*` crate that does not exist, a crate (under `crates/` or `tests/support/`)
/// without a section of its own, a top-level module its section does not name.
fn code_map_problems(root: &std::path::Path, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let path_like = quoted
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
        if !path_like {
            continue;
        }
        if MAP_ROOTS.iter().any(|r| quoted.starts_with(r)) && !root.join(quoted).exists() {
            problems.push(format!("{quoted}: no such path"));
        }
        let crate_like = quoted.starts_with("keyhook-") && !quoted.contains(['/', '.']);
        if crate_like && !root.join("crates").join(quoted).is_dir() {
            problems.push(format!("{quoted}: no such crate"));
        }
    }
    for parent in ["crates", "tests/support"] {
        let mut dirs: Vec<_> = std::fs::read_dir(root.join(parent))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for path in dirs {
            let name = path.file_name().unwrap().to_string_lossy();
            let dir = format!("{parent}/{name}/");
            let Some(section) = section(text, &dir) else {
                problems.push(format!("{dir}: no section of its own"));
                continue;
            };
            for module in top_modules(&path) {
                if !section.contains(&format!("`{module}`")) {
                    problems.push(format!("{dir}: module {module} is not in its section"));
                }
            }
        }
    }
    for file in ["src/main.rs", "src/lib.rs"] {
        if !text.contains(&format!("`{file}`")) {
            problems.push(format!("{file}: not in the map"));
        }
    }
    problems
}

/// The code map (ARCHITECTURE.md) is true: every backquoted path (under `crates/`, `tests/`,
/// `src/`, `docs/`...) and `keyhook-*` crate it names exists, every crate under `crates/` and
/// `tests/support/` has a section headed by its folder, and that section names each of the
/// crate's top-level modules. A crate, module or file added, moved or renamed fails here
/// until the map follows.
#[test]
fn the_code_map_names_what_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let paths = text
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|q| MAP_ROOTS.iter().any(|r| q.starts_with(r)))
        .count();
    assert!(paths >= 20, "only {paths} paths in the code map");
    let problems = code_map_problems(root, &text);
    assert!(problems.is_empty(), "ARCHITECTURE.md: {problems:#?}");
    assert!(
        text.lines().count() <= 200,
        "ARCHITECTURE.md has {} lines: a map, not a manual (at most 200)",
        text.lines().count()
    );
}

/// The check sees a stale path, an unknown crate, a module its crate's section leaves out
/// and a crate without a section.
#[test]
fn the_code_map_check_catches_what_is_missing() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let stale = text.replace("`key_cache`", "the key cache")
        + "\nSee `crates/keyhook-core/src/gone.rs` and `keyhook-ghost`.\n";
    assert_eq!(
        code_map_problems(root, &stale),
        [
            "crates/keyhook-core/src/gone.rs: no such path",
            "keyhook-ghost: no such crate",
            "crates/keyhook-sqlite/: module key_cache is not in its section",
        ]
    );
    let unheaded = text.replace("### `crates/keyhook-delivery/`", "### Delivery");
    assert_eq!(
        code_map_problems(root, &unheaded),
        ["crates/keyhook-delivery/: no section of its own"]
    );
}
