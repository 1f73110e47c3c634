//! The injected clock: the binary reads the time only through `time::Clock`, and its debug
//! builds take a test clock (`KEYHOOK_TEST_CLOCK_FILE`) that the tests move instead of
//! sleeping.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{emit, id_of, Env, TEST_CLOCK_FILE};
use crate::receiver::Receiver;

/// The outbox worker claims, stamps and schedules by the clock it is handed: a retry due in
/// 5 s (the default schedule, give or take a tenth) is not sent at +4.4 s, though a new event
/// is, and is sent at +5.6 s, with no wait; `webhook-timestamp` is the clock's time. The clock
/// stands in 2001, so that a reading of the system's time anywhere would be far off.
#[test]
fn the_outbox_worker_schedules_and_stamps_by_its_clock() {
    let env = Env::with_clock();
    env.set_clock(1_000_000_000_000);
    let rx = Receiver::start();
    let url = rx.url("/fail");
    env.create_webhook(&url, "post.published");
    let sent = |n: usize| {
        let all = rx.wait_for(n, Duration::from_secs(10));
        assert_eq!(all.len(), n, "{all:#?}");
        let last = &all[n - 1];
        (
            last.json()["id"].as_str().unwrap().to_string(),
            last.header("webhook-timestamp").to_string(),
        )
    };

    let first = emit(&env, &["post.published"]);
    assert_eq!(first["deliveries"], 1, "{first}");
    let first = id_of(&first);
    let summary = env.deliver_once();
    assert!(summary.contains("to retry 1"), "{summary}");
    assert_eq!(sent(1), (first.clone(), "1000000000".into()));

    env.advance_clock(4_400);
    let second = emit(&env, &["post.published"]);
    assert_eq!(second["deliveries"], 1, "{second}");
    let second = id_of(&second);
    let summary = env.deliver_once();
    assert!(summary.contains("delivered 0, to retry 1"), "{summary}");
    assert_eq!(sent(2), (second, "1000000004".into()), "only the new event");

    env.advance_clock(1_200);
    let summary = env.deliver_once();
    assert!(summary.contains("delivered 0, to retry 1"), "{summary}");
    assert_eq!(sent(3), (first, "1000000005".into()), "the retry, now due");
}

/// Every `.rs` file under `src/` and `crates/*/src/`.
fn shipped_sources(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.join("src"), root.join("crates")];
    let mut files = Vec::new();
    while let Some(path) = dirs.pop() {
        if path.is_dir() {
            let name = path.file_name().unwrap_or_default();
            if ["tests", "benches", "target"].iter().any(|n| name == *n) {
                continue;
            }
            dirs.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// Only `time.rs` (the system clock) reads the time; everything else is handed a `Clock` or a
/// `now`, so the test clock reaches every reading. Deadlines use `Instant`, which is allowed.
#[test]
fn the_time_is_read_only_through_a_clock() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = shipped_sources(root);
    assert!(files.len() > 20, "{files:?}");
    let mut found = Vec::new();
    for path in files {
        if path.file_name().is_some_and(|n| n == "time.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // `#[cfg(test)]` code is not shipped.
        let shipped = text.split("#[cfg(test)]").next().unwrap_or("");
        for reading in [
            "Timestamp::now(",
            "Utc::now(",
            "Local::now(",
            "SystemTime::now(",
        ] {
            if shipped.contains(reading) {
                found.push(format!(
                    "{}: {reading}",
                    path.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "read the time from the Clock you are handed (ctx.clock.now()): {found:?}"
    );
}

/// The test clock is no option: no help text, man page or completion script names it.
#[test]
fn the_test_clock_is_in_no_help_man_page_or_completion() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![
        root.join("man"),
        root.join("completions"),
        root.join("tests/cli/snapshots/help"),
    ];
    let mut seen = 0;
    while let Some(path) = dirs.pop() {
        if path.is_dir() {
            dirs.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert!(!text.contains(TEST_CLOCK_FILE), "{}", path.display());
        assert!(!text.contains("TEST_CLOCK"), "{}", path.display());
        seen += 1;
    }
    assert!(seen > 10, "only {seen} generated files");
    let env = Env::with_clock();
    for args in [&["--help"][..], &["keys", "--help"], &["serve", "--help"]] {
        let r = env.run(args);
        assert_eq!(r.code, 0, "{r:#?}");
        assert!(!r.stdout.contains("TEST_CLOCK"), "{}", r.stdout);
    }
}

/// The most sleeping calls the tests may hold. Waiting for time to pass goes through the test
/// clock (`Env::with_clock`, `Env::advance_clock`); waiting for another process polls with a
/// deadline (`common::poll`), or watches what it waits for (`Server::wait_until_read`,
/// `Server::wait_until_refusing`). What is left: `poll` itself (keyhook-test-support's, which
/// every test uses) and one poll of a crate that cannot reach it (test-postgres's own), real
/// time that is tested (a kept-alive connection idle past the header timeout, a slow client, a
/// random kill point, the rate limiter's buckets refilling, `Stop::sleep`'s own tests: a pause
/// of 30 ms that passes, and one call for the sleeps a raise cuts short) and, in the SQLite
/// crate's unit tests, a lock let go while the code under test waits inside SQLite's busy
/// handler, which nothing outside can see.
const MOST_SLEEPS: usize = 13;

/// The text of every test: `tests/` and `crates/*/tests/` whole, and in `src/` and
/// `crates/*/src/` what follows the first `#[cfg(test)]` (unit tests sit at a file's end).
fn test_sources(root: &Path) -> Vec<(PathBuf, String)> {
    let mut dirs = vec![root.join("tests"), root.join("src"), root.join("crates")];
    let mut found = Vec::new();
    while let Some(path) = dirs.pop() {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            dirs.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let in_tests = rel.components().any(|c| c.as_os_str() == "tests");
            let tested = if in_tests {
                text
            } else {
                // Blank lines for the shipped code, so that line numbers stay the file's.
                match text.find("#[cfg(test)]") {
                    Some(at) => "\n".repeat(text[..at].matches('\n').count()) + &text[at..],
                    None => continue,
                }
            };
            found.push((rel, tested));
        }
    }
    found
}

/// The calls that sleep, spelled so that this file holds none: a call of `sleep` whatever the
/// path it is called by (`thread::sleep`, an imported `sleep`, an async runtime's), and a
/// thread parked with a timeout.
const SLEEP_CALLS: [&str; 2] = [concat!("sleep", "("), concat!("park_", "timeout(")];

/// Every line of `text` that calls a sleep, by line number.
fn sleeps(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| SLEEP_CALLS.iter().any(|call| l.contains(call)))
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn sleeps_count_their_own_calls() {
    let [sleep, park] = SLEEP_CALLS;
    let text = format!(
        "fn a() {{\n    std::thread::{sleep}d);\n    {sleep}e); // imported\n    \
         thread::{park}f);\n}}\n"
    );
    assert_eq!(sleeps(&text), [2, 3, 4]);
    assert!(sleeps("// sleeping, not a call: thread::sleep\n").is_empty());
}

/// Tests wait for time by moving the test clock, and for other processes by polling: at most
/// [`MOST_SLEEPS`] sleeping calls remain in all the tests.
#[test]
fn the_tests_sleep_at_most_a_few_times() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = test_sources(root);
    assert!(
        sources
            .iter()
            .any(|(p, _)| p.ends_with("tests/cli/leases.rs")),
        "{sources:?}"
    );
    assert!(
        sources.iter().any(|(p, _)| p.starts_with("crates")),
        "no crate's tests among {} files",
        sources.len()
    );
    let found: Vec<String> = sources
        .iter()
        .flat_map(|(p, text)| {
            sleeps(text)
                .into_iter()
                .map(move |l| format!("{}:{l}", p.display()))
        })
        .collect();
    assert!(
        found.len() <= MOST_SLEEPS,
        "{} sleeping calls in the tests, at most {MOST_SLEEPS}: move the test clock \
         (Env::advance_clock) or poll (common::poll) instead: {found:#?}",
        found.len()
    );
}
