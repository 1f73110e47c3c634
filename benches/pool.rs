//! The SQLite backend's connection pool against r2d2 (the PostgreSQL backend's pool) over the
//! same connections, in the same run: why SQLite keeps a pool of its own.
//!
//! Both pools lend `SqliteStore` connections to one settled file (r2d2 through a minimal
//! `ManageConnection`: open the file, nothing to check, never broken). Measured:
//! - checkouts per second (take a connection, look up an unknown key hash: a request's first
//!   step, give it back) on 1 thread and on 8 threads sharing 8 connections;
//! - how long a caller waits to learn that the file cannot be opened (a missing file, opened
//!   without creating it): the SQLite pool opens on the caller's thread and returns the
//!   error, typed; r2d2 opens on its own threads, retries until its checkout timeout (3 s
//!   here, the PostgreSQL backend's `CHECKOUT_TIMEOUT`), then reports the error as text.
//!
//! Run with `cargo bench -p keyhook-bench --bench pool`. `KEYHOOK_BENCH_SECS` (default 2) per
//! throughput figure.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use keyhook::sqlite::{SqliteBackend, SqliteStore};
use keyhook::store::{Backend, ReadAhead, Storage};
use keyhook_bench::figure;

/// r2d2 over `SqliteStore`s of one file.
struct Manager(PathBuf);

impl r2d2::ManageConnection for Manager {
    type Connection = SqliteStore;
    type Error = keyhook::sqlite::Error;

    fn connect(&self) -> Result<SqliteStore, Self::Error> {
        SqliteStore::open_existing(&self.0)
    }

    fn is_valid(&self, _: &mut SqliteStore) -> Result<(), Self::Error> {
        Ok(())
    }

    fn has_broken(&self, _: &mut SqliteStore) -> bool {
        false
    }
}

const UNKNOWN_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(3);

/// Checkouts per second of `checkout` on `threads` threads for `secs`.
fn rate(threads: usize, secs: f64, checkout: Arc<dyn Fn() + Send + Sync>) -> f64 {
    let budget = Duration::from_secs_f64(secs);
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let checkout = Arc::clone(&checkout);
            std::thread::spawn(move || {
                let mut done = 0u64;
                while start.elapsed() < budget {
                    for _ in 0..256 {
                        checkout();
                    }
                    done += 256;
                }
                done
            })
        })
        .collect();
    let done: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    done as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let secs: f64 = std::env::var("KEYHOOK_BENCH_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2.0);
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("bench.db");
    drop(SqliteStore::open(&path).expect("create the database"));

    println!(
        "pool checkouts/s (take, look up an unknown key hash, give back); same file, same run"
    );
    println!(
        "{:<10} {:>14} {:>14} {:>8}",
        "threads", "sqlite pool", "r2d2", "ratio"
    );
    for threads in [1usize, 8] {
        let ours = Arc::new(SqliteBackend::new(&path, false, 8));
        let theirs = r2d2::Pool::builder()
            .max_size(8)
            .connection_timeout(CHECKOUT_TIMEOUT)
            .build(Manager(path.clone()))
            .expect("r2d2 pool");
        let a = rate(
            threads,
            secs,
            Arc::new(move || {
                let s = ours.connect().expect("connect");
                std::hint::black_box(
                    s.key_by_hash_ahead(UNKNOWN_HASH, ReadAhead::Nothing)
                        .expect("lookup"),
                );
            }),
        );
        let b = rate(
            threads,
            secs,
            Arc::new(move || {
                let s = theirs.get().expect("checkout");
                std::hint::black_box(
                    s.key_by_hash_ahead(UNKNOWN_HASH, ReadAhead::Nothing)
                        .expect("lookup"),
                );
            }),
        );
        println!("{threads:<10} {a:>14.0} {b:>14.0} {:>8.2}", b / a);
        let metric = format!("checkouts, {threads} threads");
        figure("pool", &metric, a, "/s", Some(("r2d2", b)), "");
    }

    println!();
    println!("time to learn that the file cannot be opened (a missing file, not created)");
    let missing = dir.path().join("missing.db");
    let ours = SqliteBackend::new(&missing, false, 8);
    let t = Instant::now();
    let e = ours.connect().err().expect("a missing file is an error");
    let ours_ms = t.elapsed().as_secs_f64() * 1000.0;
    println!("sqlite pool {ours_ms:>10.3} ms  {e}");
    let theirs = r2d2::Pool::builder()
        .max_size(8)
        .min_idle(Some(0))
        .connection_timeout(CHECKOUT_TIMEOUT)
        .build_unchecked(Manager(missing));
    let t = Instant::now();
    let e = theirs.get().err().expect("a missing file is an error");
    let theirs_ms = t.elapsed().as_secs_f64() * 1000.0;
    println!("r2d2        {theirs_ms:>10.3} ms  {e}");
    let r2d2 = Some(("r2d2", theirs_ms));
    figure(
        "pool",
        "an unopenable file refused",
        ours_ms,
        "ms",
        r2d2,
        "",
    );
}
