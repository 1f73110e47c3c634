//! The walls between the crates (ARCHITECTURE.md, "Crate graph"): each crate may depend only
//! on the keyhook crates and the outside crates its layer allows. A forbidden dependency is a
//! line in a Cargo.toml; this test reads them all through `cargo metadata` and fails naming it.

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

/// The code map (ARCHITECTURE.md) names files and folders that exist: every backquoted path
/// under `crates/`, `tests/`, `src/`, `docs/` or `benches/` is there, and every workspace
/// crate's folder has a row. A moved or renamed file fails here until the map follows.
#[test]
fn the_code_map_names_what_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let roots = ["crates/", "tests/", "src/", "docs/", "benches/"];
    let mut named = Vec::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let path_like = quoted
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
        if path_like && roots.iter().any(|r| quoted.starts_with(r)) {
            named.push(quoted.to_string());
        }
    }
    assert!(named.len() >= 20, "too few paths found: {named:?}");
    let missing: Vec<_> = named.iter().filter(|p| !root.join(p).exists()).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names missing paths: {missing:?}"
    );
    for parent in ["crates", "tests/support"] {
        for entry in std::fs::read_dir(root.join(parent)).unwrap() {
            let dir = format!("{parent}/{}/", entry.unwrap().file_name().to_string_lossy());
            assert!(
                text.contains(&format!("`{dir}")),
                "ARCHITECTURE.md's code map has no row for {dir}"
            );
        }
    }
}
