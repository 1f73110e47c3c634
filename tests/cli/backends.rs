//! One suite, two backends: plain `cargo test` runs every test on SQLite, and this file's
//! one test runs the same test binary again with `KEYHOOK_TEST_BACKEND=postgres`, where each
//! `common::Env` gets a database of its own on a throwaway PostgreSQL cluster
//! (`test-postgres`). Tests about the SQLite file itself say so with
//! `skip_unless_sqlite`, which prints why they do not run on PostgreSQL.

/// This test, which the run on PostgreSQL skips.
const THIS_TEST: &str = "backends::the_suite_passes_on_postgresql";

#[test]
fn the_suite_passes_on_postgresql() {
    test_postgres::run_again_on_postgres(THIS_TEST, "cargo test --test cli");
}
