//! One suite, two backends: plain `cargo test` runs every test on SQLite, and this file's
//! one test runs the same test binary again with `KEYHOOK_TEST_BACKEND=postgres`, where each
//! `common::Env` gets a database of its own on a throwaway PostgreSQL cluster
//! (`test-postgres`). Tests about the SQLite file itself say so with
//! `skip_unless_sqlite`, which prints why they do not run on PostgreSQL.

use std::process::Command;

use crate::common::{on_postgres, BACKEND_VAR};

/// This test, which the run on PostgreSQL skips.
const THIS_TEST: &str = "backends::the_suite_passes_on_postgresql";

#[test]
fn the_suite_passes_on_postgresql() {
    if on_postgres() {
        return;
    }
    // Without PostgreSQL this prints why and returns false, or panics under CI=true.
    if !test_postgres::installed() {
        return;
    }
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--skip", THIS_TEST])
        .env(BACKEND_VAR, "postgres")
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("test result:"))
        .unwrap_or("no summary");
    eprintln!("on PostgreSQL: {summary}");
    // libtest lists each failure's output after "failures:"; the passes are noise.
    let failures = stdout
        .find("\nfailures:")
        .map_or(&*stdout, |at| &stdout[at..]);
    assert!(
        out.status.success(),
        "the suite failed on PostgreSQL ({BACKEND_VAR}=postgres cargo test --test cli \
         reproduces it):\n{failures}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
