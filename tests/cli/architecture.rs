//! ARCHITECTURE.md kept true. The walls between the crates ("Layers are crates"): each crate
//! may depend only on the keyhook crates and the outside crates its layer allows. A forbidden
//! dependency is a line in a Cargo.toml; a test reads them all through `cargo metadata` and
//! fails naming it. Inside a crate, no module import circle. And the code map: what it names
//! exists, and it names every crate and top-level module.

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
    // The `--db` URL is the binary's to decide (`Wiring::database_url`), not the cli's.
    ("keyhook-cli", &["keyhook-core", "keyhook-delivery"]),
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
    // Test support (tests/support/): dev-dependencies. No row allows them but test support's
    // own, so no crate can depend on them at runtime.
    ("test-postgres", &[]),
    // The in-process benchmarks (benches/): keyhook and their baselines are dev-dependencies.
    ("keyhook-bench", &[]),
    (
        "keyhook-test-support",
        &[
            "keyhook-core",
            "keyhook-sqlite",
            "keyhook-postgres",
            "test-postgres",
        ],
    ),
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
        text.lines().count() <= 210,
        "ARCHITECTURE.md has {} lines: a map, not a manual (at most 210)",
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

/// Rust source with its comments, strings and character literals blanked out (each replaced
/// by a space), so that only code is left to read paths and braces from.
fn code_only(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if char_at(&b, i) == '/' && char_at(&b, i + 1) == '/' {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if char_at(&b, i) == '/' && char_at(&b, i + 1) == '*' {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && char_at(&b, i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && char_at(&b, i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if char_at(&b, i) == 'r'
            && (char_at(&b, i + 1) == '"'
                || (char_at(&b, i + 1) == '#'
                    && (char_at(&b, i + 2) == '"' || char_at(&b, i + 2) == '#')))
            && !src_ident_before(&b, i)
        {
            // A raw string: r"..", r#".."#, as many hashes closing as opening.
            let hashes = b[i + 1..].iter().take_while(|&&c| c == '#').count();
            i += 2 + hashes;
            let close: Vec<char> = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
            out.push(' ');
        } else if char_at(&b, i) == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if char_at(&b, i) == '\''
            && (char_at(&b, i + 1) == '\\' || char_at(&b, i + 2) == '\'')
        {
            // A character literal ('x', '\n', '\u{1b}'); a lifetime ('a) has no closing quote.
            i += 2;
            while i < b.len() && b[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push(' ');
        } else {
            out.push(char_at(&b, i));
            i += 1;
        }
    }
    out
}

/// The character at `i`, or NUL past the end.
fn char_at(b: &[char], i: usize) -> char {
    b.get(i).copied().unwrap_or('\0')
}

/// Whether an identifier character stands before `b[i]` (but a byte string's `b`): then an
/// `r` there ends a name, it does not open a raw string.
fn src_ident_before(b: &[char], i: usize) -> bool {
    let ident = |k: usize| b[k].is_alphanumeric() || b[k] == '_';
    match i.checked_sub(1) {
        Some(p) if b[p] == 'b' => p.checked_sub(1).is_some_and(ident),
        Some(p) => ident(p),
        None => false,
    }
}

/// The module path of the file `rel` (relative to `src/`): `lib.rs` and `main.rs` are the
/// crate's root, `a/mod.rs` and `a.rs` are `a`, `a/b.rs` is `a::b`.
fn module_of(rel: &std::path::Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The `crate::` and `super::` paths the code `code` names, each with the module it is
/// named in (`file`'s module, deeper inside an inline `mod name { ... }`). A `use` tree's
/// braces are expanded: `use super::{a::{self, B}, c}` names `super::a`, `super::a::B` and
/// `super::c`.
fn named_paths(file: &[String], code: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let words = tokens(code);
    let mut found = Vec::new();
    // The inline modules open at each brace depth: (depth, name).
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    let here = |inline: &Vec<(usize, String)>| {
        let mut m = file.to_vec();
        m.extend(inline.iter().map(|(_, n)| n.clone()));
        m
    };
    while i < words.len() {
        match words[i].as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if inline.last().is_some_and(|(d, _)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if words.get(i + 2).is_some_and(|w| w == "{") => {
                inline.push((depth, words[i + 1].clone()));
                depth += 1;
                i += 3;
                continue;
            }
            "use" => {
                let end = (i..words.len())
                    .find(|&k| words[k] == ";")
                    .unwrap_or(words.len());
                let mut paths = Vec::new();
                expand(&words[i + 1..end], &[], &mut paths);
                for p in paths {
                    if matches!(p.first().map(String::as_str), Some("crate" | "super")) {
                        found.push((here(&inline), p));
                    }
                }
                i = end;
                continue;
            }
            "crate" | "super" if i == 0 || words[i - 1] != "::" => {
                let mut p = vec![words[i].clone()];
                let mut k = i + 1;
                while words.get(k).is_some_and(|w| w == "::")
                    && words.get(k + 1).is_some_and(|w| is_ident(w))
                {
                    p.push(words[k + 1].clone());
                    k += 2;
                }
                if p.len() > 1 {
                    found.push((here(&inline), p));
                }
                i = k;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

fn is_ident(w: &str) -> bool {
    w.chars().all(|c| c.is_alphanumeric() || c == '_') && !w.is_empty()
}

/// Code as words: identifiers, `::`, and every other character on its own.
fn tokens(code: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let mut w = c.to_string();
            while let Some(&n) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                w.push(n);
                chars.next();
            }
            words.push(w);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            words.push("::".into());
        } else {
            words.push(c.to_string());
        }
    }
    words
}

/// Expands a `use` tree (its words, without `use` and `;`) under `prefix` into full paths.
fn expand(words: &[String], prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < words.len() {
        match words[i].as_str() {
            "{" => {
                // Split the group at its top-level commas.
                let mut level = 0;
                let mut start = i + 1;
                for k in i..words.len() {
                    match words[k].as_str() {
                        "{" => level += 1,
                        "}" | "," if level == 1 => {
                            expand(&words[start..k], &path, out);
                            start = k + 1;
                            if words[k] == "}" {
                                return;
                            }
                        }
                        "}" => level -= 1,
                        _ => {}
                    }
                }
                return;
            }
            "self" => {}
            "as" => break,
            "::" | "pub" | "(" | ")" | "in" => {}
            w if is_ident(w) => path.push(w.to_string()),
            _ => {}
        }
        i += 1;
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The module a path named in module `at` resolves to among `modules` (the crate's files):
/// the longest module prefix of it, `super` taken from `at`; None outside the crate.
fn target<'m>(
    modules: &'m BTreeMap<Vec<String>, String>,
    at: &[String],
    path: &[String],
) -> Option<&'m String> {
    let mut full: Vec<String> = Vec::new();
    let mut rest = path;
    if rest.first().is_some_and(|w| w == "crate") {
        rest = &rest[1..];
    } else {
        full = at.to_vec();
        while rest.first().is_some_and(|w| w == "super") {
            full.pop()?;
            rest = &rest[1..];
        }
    }
    full.extend(rest.iter().cloned());
    (0..=full.len()).rev().find_map(|n| modules.get(&full[..n]))
}

/// The import circles among a crate's files (`(path under src/, text)`): each the files of
/// one strongly connected component (each reaches every other through imports), found by
/// Tarjan's algorithm. A file naming its own descendants is left out: a parent module declares and
/// re-exports its children; a child naming its parent (`super::`) counts.
fn import_circles(files: &[(std::path::PathBuf, String)]) -> Vec<Vec<String>> {
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|(p, _)| (module_of(p), p.to_string_lossy().into_owned()))
        .collect();
    let mut edges: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for (p, text) in files {
        let from = p.to_string_lossy().into_owned();
        let module = module_of(p);
        for (at, path) in named_paths(&module, &code_only(text)) {
            let Some(to) = target(&modules, &at, &path) else {
                continue;
            };
            let to_module = module_of(std::path::Path::new(to));
            if *to != from && !to_module.starts_with(&module) {
                edges.entry(from.clone()).or_default().insert(to.clone());
            }
        }
    }
    // Tarjan: every component of more than one file is a circle.
    struct Walk<'a> {
        edges: &'a BTreeMap<String, std::collections::BTreeSet<String>>,
        index: BTreeMap<&'a str, (usize, usize)>,
        stack: Vec<&'a str>,
        circles: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let n = w.index.len();
        w.index.insert(v, (n, n));
        w.stack.push(v);
        for to in w.edges.get(v).into_iter().flatten() {
            match w.index.get(to.as_str()) {
                None => {
                    visit(w, to);
                    let low = w.index[to.as_str()].1;
                    let e = w.index.get_mut(v).unwrap();
                    e.1 = e.1.min(low);
                }
                Some(&(i, _)) if w.stack.contains(&to.as_str()) => {
                    let e = w.index.get_mut(v).unwrap();
                    e.1 = e.1.min(i);
                }
                _ => {}
            }
        }
        let (i, low) = w.index[v];
        if i == low {
            let at = w.stack.iter().rposition(|x| *x == v).unwrap();
            let component: Vec<String> = w.stack.drain(at..).map(str::to_string).collect();
            if component.len() > 1 {
                w.circles.push(component);
            }
        }
    }
    let mut walk = Walk {
        edges: &edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for (p, _) in files {
        let name = modules[&module_of(p)].as_str();
        if !walk.index.contains_key(name) {
            visit(&mut walk, name);
        }
    }
    walk.circles
}

/// Each crate's `.rs` files under `src/`, as paths relative to it, with their text.
fn crate_sources(src: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                files.push((path.strip_prefix(src).unwrap().to_path_buf(), text));
            }
        }
    }
    files.sort();
    files
}

/// No module import circle inside a crate: within each crate the files' `use crate::...`,
/// `super::...` and paths in code form no circle, so a crate reads from its leaves up (a
/// shared item lives below both of its users). Between crates, Cargo forbids circles.
#[test]
fn no_module_imports_in_a_circle() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut srcs = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        srcs.push(entry.unwrap().path().join("src"));
    }
    srcs.sort();
    let mut found = Vec::new();
    for src in srcs.iter().filter(|s| s.is_dir()) {
        let files = crate_sources(src);
        assert!(!files.is_empty(), "{}: no sources", src.display());
        for circle in import_circles(&files) {
            found.push(format!("{}: {}", src.display(), circle.join(", ")));
        }
    }
    assert!(found.is_empty(), "import circles: {found:#?}");
}

/// The circle check sees a circle through `use crate::` and through a path in code, and
/// resolves `super` from inline modules; a parent's use of its child, a child's `super::`,
/// and paths in comments and strings make none.
#[test]
fn the_circle_check_catches_a_circle() {
    let files = |list: &[(&str, &str)]| -> Vec<(std::path::PathBuf, String)> {
        list.iter()
            .map(|(p, t)| (std::path::PathBuf::from(p), t.to_string()))
            .collect()
    };
    let circle = files(&[
        ("lib.rs", "pub mod a; pub mod b; pub mod c;"),
        ("a.rs", "use crate::b::{self, B};"),
        ("b.rs", "pub struct B; fn f() { crate::c::g(); }"),
        ("c/mod.rs", "mod d; pub fn g() { super::a::h() }"),
        ("c/d.rs", "// use crate::a;\n"),
    ]);
    assert_eq!(import_circles(&circle), [["a.rs", "b.rs", "c/mod.rs"]]);
    let none = files(&[
        ("lib.rs", "pub mod a; pub mod b; use crate::a::A;"),
        ("a.rs", "pub struct A; use super::b::{x::{self, Y}};"),
        ("b/mod.rs", "pub mod x; pub use crate::b::x::Y;"),
        (
            "b/x.rs",
            "pub struct Y; use super::*; const S: &str = \"crate::a::A\"; /* crate::a */\n\
             #[cfg(test)] mod tests { use super::Y; fn t<'a>(c: char) -> bool { c == '{' } }",
        ),
    ]);
    assert_eq!(import_circles(&none), Vec::<Vec<String>>::new());
    let inline = files(&[
        ("lib.rs", "pub mod a; pub mod b;"),
        ("a.rs", "pub mod inner { use super::super::b::f; }"),
        ("b.rs", "pub fn f() { crate::a::inner::g() }"),
    ]);
    assert_eq!(import_circles(&inline), [["a.rs", "b.rs"]]);
}

/// The helper functions of a test file (`fn` items at the file's top level that are not
/// `#[test]`s), each as (name, its text with the name taken out and the white space folded),
/// so that one helper written twice under two names reads the same.
fn helpers(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let rest = ["pub fn ", "pub(crate) fn ", "fn "]
            .iter()
            .find_map(|p| line.strip_prefix(p));
        let Some(rest) = rest else {
            i += 1;
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let attrs = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.starts_with("#[") || l.starts_with("///"));
        let is_test = attrs.clone().any(|l| l.starts_with("#[test"));
        let end = (i..lines.len()).find(|&j| lines[j] == "}").unwrap_or(i);
        if !is_test {
            let body = lines[i..=end].join("\n");
            let body = body.replacen(&format!("fn {name}"), "fn", 1);
            let folded = body.split_whitespace().collect::<Vec<_>>().join(" ");
            found.push((name, folded));
        }
        i = end + 1;
    }
    found
}

/// The groups of helpers written the same in two or more files of `files` (path, text), each
/// as `path: name` entries.
fn helpers_written_twice(files: &[(std::path::PathBuf, String)]) -> Vec<Vec<String>> {
    let mut by_text: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (path, text) in files {
        for (name, folded) in helpers(text) {
            by_text
                .entry(folded)
                .or_default()
                .push((path.display().to_string(), name));
        }
    }
    by_text
        .into_values()
        .filter(|list| {
            let paths: std::collections::BTreeSet<&String> = list.iter().map(|(p, _)| p).collect();
            paths.len() > 1
        })
        .map(|list| list.iter().map(|(p, n)| format!("{p}: {n}")).collect())
        .collect()
}

/// One test-support home: a helper the tests of two files need lives once (tests/cli's
/// `common`, `server` and `receiver`, or the support crates in tests/support), never copied
/// into each. Every test file of the repository (tests/cli, the crates' tests/, tests/support)
/// is read; a helper written the same in two files, under any names, fails here.
#[test]
fn no_test_helper_is_written_twice() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("tests")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        dirs.push(entry.unwrap().path().join("tests"));
    }
    let mut files = Vec::new();
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        for (path, text) in crate_sources(dir) {
            files.push((
                dir.join(path).strip_prefix(root).unwrap().to_path_buf(),
                text,
            ));
        }
    }
    assert!(files.len() > 50, "only {} test files", files.len());
    assert_eq!(helpers_written_twice(&files), Vec::<Vec<String>>::new());
}

/// The check sees one helper written twice under two names, and passes a `#[test]` written
/// alike and two helpers of one name that differ.
#[test]
fn the_helper_check_catches_a_copy() {
    let files = |list: &[(&str, &str)]| -> Vec<(std::path::PathBuf, String)> {
        list.iter()
            .map(|(p, t)| (std::path::PathBuf::from(p), t.to_string()))
            .collect()
    };
    let copied = files(&[
        ("a.rs", "fn data(env: &Env) -> Value {\n    env.json()\n}\n"),
        (
            "b.rs",
            "/// Doc.\nfn ok(env: &Env) -> Value {\n  env.json()\n}\n",
        ),
    ]);
    assert_eq!(helpers_written_twice(&copied), [["a.rs: data", "b.rs: ok"]]);
    let apart = files(&[
        (
            "a.rs",
            "#[test]\nfn t() {\n    f();\n}\nfn show() {\n    one();\n}\n",
        ),
        (
            "b.rs",
            "#[test]\nfn t() {\n    f();\n}\nfn show() {\n    two();\n}\n",
        ),
    ]);
    assert_eq!(helpers_written_twice(&apart), Vec::<Vec<String>>::new());
}
