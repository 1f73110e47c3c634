//! The docs run: every `console` block of README.md and docs/*.md is a transcript that trycmd
//! runs against the real binary, so a changed output fails `cargo test`; and every relative
//! link in those pages points at a file (and heading) that exists.
//!
//! Each page runs in a directory of its own, its working directory, with
//! `KEYHOOK_DB=keyhook.db`, `HOME` and `XDG_DATA_HOME` inside it, `NO_COLOR=1`, `COLUMNS=100`
//! and nothing else of the caller's environment: trycmd can add variables to the commands it
//! runs but not take any away, so the page runs in a child process of this test binary whose
//! environment is built from nothing. `TRYCMD=overwrite` passes through: it rewrites a page's
//! outputs in place (then put the `[..]` back where an output is random).
//!
//! Keys and ids are random, so a command cannot name something a page made before it. What a
//! page names is made before it runs by [`seed`], with the real CLI, and then given a fixed id
//! (a key also a fixed prefix); the page says what it starts with.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::api_reference::slug;
use crate::common::{repo_root, std_cmd, TEST_CLOCK_FILE};

/// Set in the child process: the page it runs.
const PAGE: &str = "DOC_TRANSCRIPT_PAGE";

/// README.md and docs/*.md, relative to the repository root.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo_root().join("docs"))
        .expect("docs/")
        .map(|e| PathBuf::from("docs").join(e.unwrap().file_name()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    pages.insert(0, PathBuf::from("README.md"));
    pages
}

/// This test's name as the test harness knows it (`doc_transcripts::...`).
fn this_test() -> String {
    let module = module_path!();
    let module = module.split_once("::").map_or(module, |(_, m)| m);
    format!("{module}::transcripts_in_the_docs_run_as_written")
}

#[test]
fn transcripts_in_the_docs_run_as_written() {
    if crate::common::skip_unless_sqlite("the pages run on a SQLite file seeded with SQL") {
        return;
    }
    if let Some(page) = std::env::var_os(PAGE) {
        run_page(Path::new(&page));
        return;
    }
    // trycmd's filter: `cargo test --test cli doc_transcripts -- trycmd=keys` runs the pages
    // whose names contain `keys`.
    let only: Vec<String> = std::env::args()
        .filter_map(|a| a.strip_prefix("trycmd=").map(str::to_string))
        .collect();
    // One page at a time: tables say "just now" for what a page made less than 10 s before,
    // which a page run beside ten others on a loaded machine might not be.
    let failures: Vec<String> = pages()
        .iter()
        .filter(|p| only.is_empty() || only.iter().any(|o| p.to_string_lossy().contains(o)))
        .filter_map(|page| run_in_child(page))
        .collect();
    assert!(
        failures.is_empty(),
        "{} page(s) no longer print what they show:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Runs `page` in a fresh directory and environment; its failure report, if it failed.
fn run_in_child(page: &Path) -> Option<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let name = page.file_name().unwrap().to_string_lossy().into_owned();
    seed(&name, dir.path());
    let clock = PageClock::start();
    let mut child = Command::new(std::env::current_exe().expect("test binary"));
    child
        .args([this_test().as_str(), "--exact", "--test-threads=1"])
        .current_dir(dir.path())
        .env_clear()
        .env(PAGE, repo_root().join(page))
        .env("KEYHOOK_DB", "keyhook.db")
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .env(TEST_CLOCK_FILE, clock.file());
    for pass in ["PATH", "TRYCMD"] {
        if let Some(v) = std::env::var_os(pass) {
            child.env(pass, v);
        }
    }
    let out = child.output().expect("run the test binary");
    drop(clock);
    (!out.status.success()).then(|| {
        format!(
            "--- {} ---\n{}{}",
            page.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The time a page's commands read (a debug build's test clock): it starts at the real time
/// and runs at a quarter of its pace. A page's tables say "just now" for what it made less
/// than 10 s before, which a page on a loaded machine can take longer than to run; at a quarter
/// pace that takes 40 s of the machine's time, while what a page shows of time passing (a key
/// that expired 1 ms ago, "in 60 minutes") still passes, and each command still reads a later
/// millisecond than the one before it (commands take more than 4 ms each).
struct PageClock {
    dir: tempfile::TempDir,
    /// Dropped (or sent on) when the page is done: the ticker's timer and its stop at once.
    stop: Option<std::sync::mpsc::Sender<()>>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl PageClock {
    const SLOWER: u128 = 4;

    fn start() -> PageClock {
        use std::sync::mpsc::{channel, RecvTimeoutError};
        use std::time::{Instant, SystemTime, UNIX_EPOCH};
        // In memory where there is a tmpfs: a write and rename on a disk busy with other
        // processes' syncs can stall the ticker for tens of milliseconds, and two commands
        // then read the same millisecond (two keys made one after the other listed by id).
        let dir = Some(std::path::Path::new("/dev/shm"))
            .filter(|shm| shm.is_dir())
            .and_then(|shm| tempfile::tempdir_in(shm).ok())
            .map_or_else(tempfile::tempdir, Ok)
            .expect("temp dir");
        let start = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("a clock after 1970")
            .as_millis();
        let begun = Instant::now();
        let (file, next) = (dir.path().join("now"), dir.path().join("next"));
        // Written whole, then renamed over the clock: a reader never sees half a number.
        let write = move || {
            let now = start + begun.elapsed().as_millis() / Self::SLOWER;
            std::fs::write(&next, now.to_string()).expect("write the test clock");
            std::fs::rename(&next, &file).expect("move the test clock");
        };
        write();
        let (stop, stopped) = channel::<()>();
        let ticker = std::thread::spawn(move || {
            while let Err(RecvTimeoutError::Timeout) =
                stopped.recv_timeout(Duration::from_millis(1))
            {
                write();
            }
        });
        PageClock {
            dir,
            stop: Some(stop),
            ticker: Some(ticker),
        }
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("now")
    }
}

impl Drop for PageClock {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
    }
}

/// In the child: trycmd runs the page's transcripts in order, in the working directory.
fn run_page(page: &Path) {
    trycmd::TestCases::new()
        .case(page)
        .register_bin("keyhook", assert_cmd::cargo::cargo_bin("keyhook"))
        .timeout(Duration::from_secs(60))
        .run();
}

// --- What the pages start with ---

/// Key `ci` of docs/keys.md: `keys create --name ci --permission readonly`.
pub const CI_KEY_ID: &str = "67e1a4b6-429e-492a-8d99-7f3c4a80ae09";
pub const CI_KEY_PREFIX: &str = "kp_a0bbd323";
/// The webhooks of docs/webhooks.md.
pub const HOOKS_ID: &str = "eda1cc93-5392-47a1-aa15-5c7231527f43";
pub const STATUS_503_ID: &str = "63c149de-5e3c-4407-8771-3e82e0038731";

/// Makes what page `name` names, in `dir`/keyhook.db.
fn seed(name: &str, dir: &Path) {
    let db = dir.join("keyhook.db");
    match name {
        "keys.md" => {
            keyhook(
                &db,
                &["keys", "create", "--name", "ci", "--permission", "readonly"],
            );
            let c = rusqlite::Connection::open(&db).unwrap();
            // A new plaintext with the chosen prefix, so that the row is what `keys create`
            // would have stored for it; the plaintext itself is dropped.
            let key = format!(
                "{CI_KEY_PREFIX}{}",
                &hex::encode(rand::random::<[u8; 32]>())[8..]
            );
            let hash = hex::encode(Sha256::digest(key.as_bytes()));
            let n = c
                .execute(
                    "UPDATE api_keys SET id = ?1, key_prefix = ?2, key_hash = ?3 WHERE name = 'ci'",
                    (CI_KEY_ID, CI_KEY_PREFIX, hash),
                )
                .unwrap();
            assert_eq!(n, 1);
        }
        "webhooks.md" => {
            for (id, url, events) in [
                (
                    HOOKS_ID,
                    "http://127.0.0.1:9000/hooks",
                    &["post.published", "post.deleted"][..],
                ),
                (
                    STATUS_503_ID,
                    "http://127.0.0.1:9000/status/503",
                    &["post.published"][..],
                ),
            ] {
                let mut args = vec![
                    "--allow-private-targets",
                    "webhooks",
                    "create",
                    "--url",
                    url,
                ];
                for e in events {
                    args.extend(["--event", e]);
                }
                keyhook(&db, &args);
                let c = rusqlite::Connection::open(&db).unwrap();
                // A sealed secret opens for its own row only: the renamed row gets a
                // plaintext secret again, and the database no key, so the page's first
                // command seals it under the page's key (as it would a row from before
                // encryption).
                let secret = format!(
                    "whsec_{}",
                    base64::Engine::encode(
                        &base64::engine::general_purpose::STANDARD,
                        rand::random::<[u8; 32]>()
                    )
                );
                let n = c
                    .execute(
                        "UPDATE webhooks SET id = ?1, secret = ?3 WHERE url = ?2",
                        (id, url, secret),
                    )
                    .unwrap();
                assert_eq!(n, 1);
                c.execute("DELETE FROM secrets_key", []).unwrap();
            }
            // The files the event catalog's section adds a type with.
            std::fs::write(
                dir.join("post-updated.schema.json"),
                r#"{"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}"#,
            )
            .unwrap();
            std::fs::write(
                dir.join("post-updated.json"),
                r#"{"title": "Hello", "tags": ["news"]}"#,
            )
            .unwrap();
            // Bob's ten webhooks: the most a user may have.
            for i in 1..=10 {
                let url = format!("http://127.0.0.1:9000/bob/{i}");
                keyhook(
                    &db,
                    &[
                        "--user",
                        "bob",
                        "--allow-private-targets",
                        "webhooks",
                        "create",
                        "--url",
                        &url,
                        "--event",
                        "post.published",
                    ],
                );
            }
        }
        _ => {}
    }
}

/// `keyhook --db DB ARGS`, which must succeed.
fn keyhook(db: &Path, args: &[&str]) {
    // The page's own HOME: its commands find the secrets key the seeding made there.
    let home = db
        .parent()
        .expect("the database is in the page's directory");
    let out = std_cmd()
        .env("HOME", home)
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "seeding: keyhook {args:?}: {out:?}");
}

// --- Links ---

/// The lines of a markdown page outside its fenced code blocks.
fn outside_fences(text: &str) -> Vec<&str> {
    let mut fence: Option<String> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        let marks: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        if marks.len() >= 3 {
            match &fence {
                None => fence = Some(marks),
                Some(open) if marks.starts_with(open.as_str()) && trimmed == marks => fence = None,
                Some(_) => {}
            }
        } else if fence.is_none() {
            out.push(line);
        }
    }
    out
}

/// The targets of the inline links (`[text](target)`) and link definitions
/// (`[label]: target`) of a page.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in outside_fences(text) {
        // What `code spans` hold is not a link.
        let line: String = line.split('`').step_by(2).collect::<Vec<_>>().join("");
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            found.push(target.trim_matches(['<', '>']).to_string());
            rest = &after[end..];
        }
        let t = line.trim_start();
        if let Some(def) = t.strip_prefix('[').and_then(|t| t.split_once("]:")) {
            if let Some(target) = def.1.split_whitespace().next() {
                found.push(target.to_string());
            }
        }
    }
    found
}

/// The anchors of a page's headings; a repeated one gets `-1`, `-2`...
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for line in outside_fences(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug = slug(heading);
        let mut unique = slug.clone();
        let mut n = 0;
        while seen.contains(&unique) {
            n += 1;
            unique = format!("{slug}-{n}");
        }
        seen.push(unique);
    }
    seen
}

/// The title of a page: its first line, which must be a level-1 heading.
fn title(text: &str) -> Option<&str> {
    text.lines().next()?.strip_prefix("# ")
}

/// Pages that title themselves alike, as "title: page, page".
fn shared_titles(pages: &[(PathBuf, String)]) -> Vec<String> {
    let mut by_title: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (page, text) in pages {
        let t = title(text).unwrap_or("(no title)").trim().to_lowercase();
        by_title
            .entry(t)
            .or_default()
            .push(page.display().to_string());
    }
    by_title
        .into_iter()
        .filter(|(_, pages)| pages.len() > 1)
        .map(|(t, pages)| format!("{t}: {}", pages.join(", ")))
        .collect()
}

/// Each page starts with a title of its own, so that a reader who lands on one (or a list of
/// them) can tell it from the others.
#[test]
fn every_page_has_a_title_of_its_own() {
    let pages: Vec<(PathBuf, String)> = pages()
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(repo_root().join(&p)).unwrap();
            (p, text)
        })
        .collect();
    let untitled: Vec<_> = pages.iter().filter(|(_, t)| title(t).is_none()).collect();
    assert!(
        untitled.is_empty(),
        "pages without a `# ` title: {untitled:?}"
    );
    let shared = shared_titles(&pages);
    assert!(shared.is_empty(), "pages with the same title: {shared:?}");
    // The check sees two pages that differ only in case.
    let twins = [
        (PathBuf::from("a.md"), "# Operating keyhook\n".to_string()),
        (PathBuf::from("b.md"), "# operating Keyhook\n".to_string()),
    ];
    assert_eq!(shared_titles(&twins), ["operating keyhook: a.md, b.md"]);
}

#[test]
fn relative_links_in_the_docs_point_at_what_exists() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(repo_root().join(&page)).unwrap();
        let dir = page.parent().unwrap().to_path_buf();
        for link in links(&text) {
            if link.is_empty() || link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            let path = repo_root().join(&target);
            if !path.exists() {
                broken.push(format!(
                    "{}: {link}: no {}",
                    page.display(),
                    target.display()
                ));
                continue;
            }
            if let Some(anchor) = anchor {
                let ok = path.extension().is_some_and(|x| x == "md")
                    && anchors(&std::fs::read_to_string(&path).unwrap())
                        .iter()
                        .any(|a| a == anchor);
                if !ok {
                    broken.push(format!(
                        "{}: {link}: no heading #{anchor} in {}",
                        page.display(),
                        target.display()
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 20, "only {checked} relative links found");
}

#[test]
fn the_link_check_reads_markdown_as_github_does() {
    let page = "# Target safety (SSRF)\n\
                ## GET /api/v1/webhooks/{id}\n\
                ## `keys rotate`\n\
                ## Notes\n## Notes\n\
                ```text\n# not a heading [x](nowhere.md)\n```\n\
                See [a](a.md#b), `[code](not-a-link.md)` and [c](<c.md>).\n\
                [def]: d.md\n";
    assert_eq!(
        anchors(page),
        [
            "target-safety-ssrf",
            "get-apiv1webhooksid",
            "keys-rotate",
            "notes",
            "notes-1"
        ]
    );
    assert_eq!(links(page), ["a.md#b", "c.md", "d.md"]);
}
