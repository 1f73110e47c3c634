//! One suite, two backends: the logic every test binary of keyhook shares to run its tests
//! on SQLite and again on PostgreSQL (the integration suite `tests/cli` and the core's
//! service tests). Plain `cargo test` runs a binary on SQLite; one test of it,
//! [`run_again_on_postgres`], runs the same binary again with [`BACKEND_VAR`]`=postgres`
//! and fails with the failures of that run.

use std::process::Command;

/// Which database a test process runs on: `postgres` for a database of its own on the
/// process's cluster ([`crate::database`]); unset (or `sqlite`), a SQLite file.
pub const BACKEND_VAR: &str = "KEYHOOK_TEST_BACKEND";

/// Whether this test process runs its tests on PostgreSQL ([`BACKEND_VAR`]).
pub fn on_postgres() -> bool {
    match std::env::var(BACKEND_VAR).as_deref() {
        Ok("postgres") => true,
        Ok("sqlite") | Err(_) => false,
        Ok(other) => panic!("{BACKEND_VAR}={other:?}: expected postgres or sqlite"),
    }
}

/// Runs this test binary again on PostgreSQL, without the test calling this (`this`, its
/// full name), and fails with the failures there; `reproduce` is the command that runs the
/// same, for the message. Does nothing when this process already runs on PostgreSQL; skips
/// (saying why) without PostgreSQL, except under `CI=true`, where it fails.
pub fn run_again_on_postgres(this: &str, reproduce: &str) {
    if on_postgres() || !crate::installed() {
        return;
    }
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--skip", this])
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
        "failed on PostgreSQL ({BACKEND_VAR}=postgres {reproduce} reproduces it):\n{failures}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
