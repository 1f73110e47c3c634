//! `authenticate()` throughput with many keys stored.
//!
//! Fills a temporary database with `KEYHOOK_BENCH_KEYS` keys (default 1,000,000), checkpoints
//! it (a settled database), then calls `keyhook::auth::authenticate` on one thread for
//! `KEYHOOK_BENCH_SECS` seconds (default 3) per measurement: over a random sample of 10,000
//! stored keys (the first use of each, which misses the store's key cache, is timed on its
//! own; then returning keys, the steady state of clients that reuse their keys), and over
//! unknown well-formed tokens. The same-run baseline is the bare indexed lookup the check cannot avoid,
//! `SELECT 1 FROM api_keys WHERE key_hash = ?` through rusqlite with precomputed hashes.
//!
//! Checksums: a flood of random well-formed tokens (`kp_` and 64 random hex digits,
//! whose last 8 are the CRC32 of the rest once in 2^32), first while one stored key has no
//! checksum (each is looked up, and the store asks whether such keys are left), then once none
//! is left (each is refused on its checksum, with no query): the same tokens, the same store,
//! in the same run.
//!
//! Run with `cargo bench -p keyhook-bench --bench authenticate`. Target: >= 200,000 verifications
//! per second.

use std::collections::HashSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

use keyhook::auth::{authenticate, generate_key, hash_key, key_prefix};
use keyhook::model::{ApiKey, Permission};
use keyhook::sqlite::SqliteStore as Store;
use keyhook::time::Timestamp;
use keyhook_bench::figure;
use rusqlite::{Connection, OpenFlags};

const TARGET_PER_SEC: f64 = 200_000.0;
const BATCH: usize = 50_000;
const SAMPLE: usize = 10_000;
const UNKNOWN: usize = 1_000;

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a positive integer, got {v:?}")),
        Err(_) => default,
    }
}

/// Calls `op` on `inputs` in a cycle for about `secs`, returning operations per second.
fn rate<T>(inputs: &[T], secs: f64, mut op: impl FnMut(&T)) -> f64 {
    let budget = Duration::from_secs_f64(secs);
    // Warm up: one pass over the inputs (brings their pages into the caches).
    for input in inputs {
        op(input);
    }
    let start = Instant::now();
    let mut done: u64 = 0;
    loop {
        for chunk in inputs.chunks(1024) {
            for input in chunk {
                op(input);
            }
            done += chunk.len() as u64;
            if start.elapsed() >= budget {
                return done as f64 / start.elapsed().as_secs_f64();
            }
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; harness = false means we just ignore the arguments.
    let n = env_usize("KEYHOOK_BENCH_KEYS", 1_000_000).max(1);
    let secs = env_usize("KEYHOOK_BENCH_SECS", 3).max(1) as f64;
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("bench.db");

    // --- Setup: n keys, in transactions of BATCH keys. ---
    let setup = Instant::now();
    let store = Store::open(&path).expect("open store");
    let mut rng = rand::thread_rng();
    let mut wanted: Vec<usize> = rand::seq::index::sample(&mut rng, n, SAMPLE.min(n)).into_vec();
    wanted.sort_unstable();
    let mut wanted = wanted.into_iter().peekable();
    let mut sample: Vec<String> = Vec::with_capacity(SAMPLE.min(n));
    let created = Timestamp::now().add_millis(-86_400_000);
    let far_future = Timestamp::now().add_millis(365 * 86_400_000);
    let mut i = 0usize;
    while i < n {
        let end = (i + BATCH).min(n);
        store
            .write(|c| {
                for j in i..end {
                    let plaintext = generate_key();
                    let key = ApiKey {
                        id: uuid::Uuid::new_v4().to_string(),
                        user_id: "bench".to_string(),
                        key_prefix: key_prefix(&plaintext).to_string(),
                        name: format!("bench {j}"),
                        // A mix of shapes, so every branch of the row decoding runs.
                        permission: if j % 4 == 0 {
                            Permission::Readonly
                        } else {
                            Permission::Readwrite
                        },
                        full_access: j % 8 != 0,
                        profile_ids: if j % 8 == 0 {
                            vec!["prof_a".to_string(), "prof_b".to_string()]
                        } else {
                            Vec::new()
                        },
                        last_used_at: None,
                        expires_at: (j % 10 == 0).then_some(far_future),
                        rate_limit: None,
                        remaining_uses: None,
                        budget_id: None,
                        created_at: created.add_millis(j as i64),
                        key: None,
                    };
                    c.insert_key(&key, &hash_key(&plaintext))?;
                    if wanted.peek() == Some(&j) {
                        wanted.next();
                        sample.push(plaintext);
                    }
                }
                Ok(())
            })
            .expect("insert batch");
        i = end;
    }
    // A settled database: everything checkpointed from the WAL into the main file.
    rusqlite::Connection::open(&path)
        .and_then(|c| {
            c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                r.get::<_, i64>(0)
            })
        })
        .expect("checkpoint");
    let setup_time = setup.elapsed();
    let db_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)
        + std::fs::metadata(path.with_extension("db-wal"))
            .map(|m| m.len())
            .unwrap_or(0);
    println!(
        "setup: {n} keys inserted in {:.2} s ({:.0} keys/s), database {:.0} MiB",
        setup_time.as_secs_f64(),
        n as f64 / setup_time.as_secs_f64(),
        db_bytes as f64 / (1024.0 * 1024.0)
    );

    // Shuffle the sample so that the lookups do not walk the index in insertion order.
    rand::seq::SliceRandom::shuffle(&mut sample[..], &mut rng);
    let known: HashSet<&str> = sample.iter().map(String::as_str).collect();
    let unknown: Vec<String> = std::iter::repeat_with(generate_key)
        .filter(|k| !known.contains(k.as_str()))
        .take(UNKNOWN)
        .collect();
    let now = Timestamp::now();

    // --- authenticate() over stored keys: first use of each (cache misses), then returning
    // keys. ---
    let first = Instant::now();
    for token in &sample {
        black_box(authenticate(&store, token, now).expect("a stored key authenticates"));
    }
    let first_rate = sample.len() as f64 / first.elapsed().as_secs_f64();
    let mut failures = 0u64;
    let auth_rate = rate(&sample, secs, |token| {
        match authenticate(&store, token, now) {
            Ok(key) => {
                black_box(key);
            }
            Err(_) => failures += 1,
        };
    });
    assert_eq!(failures, 0, "stored keys failed to authenticate");

    // --- authenticate() over unknown, well-formed tokens. ---
    let mut accepted = 0u64;
    let unknown_rate = rate(&unknown, secs, |token| {
        match authenticate(&store, token, now) {
            Ok(_) => accepted += 1,
            Err(e) => {
                black_box(e);
            }
        };
    });
    assert_eq!(accepted, 0, "an unknown token was accepted");

    // --- Baseline: the bare indexed lookup, hashes precomputed. ---
    let hashes: Vec<String> = sample.iter().map(|k| hash_key(k)).collect();
    let raw = Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .expect("open baseline connection");
    let mut found = 0u64;
    let mut lookups = 0u64;
    let bare_rate = rate(&hashes, secs, |hash| {
        let mut stmt = raw
            .prepare_cached("SELECT 1 FROM api_keys WHERE key_hash = ?1")
            .expect("prepare");
        let hit = stmt.exists([hash.as_str()]).expect("lookup");
        found += u64::from(hit);
        lookups += 1;
    });
    assert_eq!(found, lookups, "baseline lookup missed a stored key");

    // --- Second baseline: the whole row authenticate needs, read but not decoded. This is
    // the SQLite share of authenticate; the rest is hashing, decoding and allocation. ---
    let mut rows = 0u64;
    let row_rate = rate(&hashes, secs, |hash| {
        let mut stmt = raw
            .prepare_cached(
                "SELECT id, user_id, key_prefix, name, permission, full_access, profile_ids, \
                 last_used_at, expires_at, created_at FROM api_keys WHERE key_hash = ?1",
            )
            .expect("prepare");
        let mut it = stmt.query([hash.as_str()]).expect("lookup");
        if let Some(row) = it.next().expect("step") {
            for i in 0..10 {
                black_box(row.get_ref(i).expect("column"));
            }
            rows += 1;
        }
    });
    assert!(rows > 0, "row baseline found nothing");

    // --- A flood of random well-formed tokens, while a key without a checksum is left, then
    // once none is. ---
    let random: Vec<String> = (0..UNKNOWN)
        .map(|_| {
            let mut b = [0u8; 32];
            rand::RngCore::fill_bytes(&mut rng, &mut b);
            format!("kp_{}", hex::encode(b))
        })
        .filter(|t| !keyhook::auth::has_valid_checksum(t))
        .collect();
    let rw = Connection::open(&path).expect("open a writing connection");
    let legacy = |on: bool| {
        rw.execute(
            "UPDATE api_keys SET checksummed = ?1 WHERE id = (SELECT min(id) FROM api_keys)",
            [i64::from(!on)],
        )
        .expect("mark a key")
    };
    legacy(true);
    let flood = Store::open(&path).expect("open store");
    let flood_rate = |label: &str| {
        let mut accepted = 0u64;
        let r = rate(&random, secs, |token| {
            if authenticate(&flood, token, now).is_ok() {
                accepted += 1;
            }
        });
        assert_eq!(accepted, 0, "{label}: a random token was accepted");
        r
    };
    let open_rate = flood_rate("with a key without a checksum");
    legacy(false);
    let closed_rate = flood_rate("with none left");

    let us = |r: f64| 1e6 / r;
    println!();
    println!(
        "{:<46} {:>12} {:>10}",
        "measurement (1 thread)", "per second", "µs each"
    );
    for (what, r) in [
        ("authenticate(), first use of a key", first_rate),
        ("authenticate(), stored keys", auth_rate),
        ("authenticate(), unknown well-formed tokens", unknown_rate),
        ("random tokens, a key without checksum left", open_rate),
        ("random tokens, none left (no lookup)", closed_rate),
        ("baseline: SELECT 1 ... WHERE key_hash = ?", bare_rate),
        ("baseline: SELECT <row> ... WHERE key_hash = ?", row_rate),
    ] {
        println!("{what:<46} {r:>12.0} {:>10.2}", us(r));
    }
    println!();
    println!(
        "ratio authenticate/baseline: {:.2} (authenticate takes {:.2}x the bare lookup's time)",
        auth_rate / bare_rate,
        bare_rate / auth_rate
    );
    println!(
        "ratio first use/baseline: {:.2} (a key not yet in the store's cache)",
        first_rate / bare_rate
    );
    println!(
        "ratio random tokens, none left / one left: {:.2} (what refusing a wrong checksum \
         without a lookup saves)",
        closed_rate / open_rate
    );
    println!(
        "target >= {TARGET_PER_SEC:.0}/s with {n} keys: {}",
        if auth_rate >= TARGET_PER_SEC {
            "met"
        } else {
            "MISSED"
        }
    );
    let bare = Some(("SELECT 1 ... WHERE key_hash = ?", bare_rate));
    let goal = format!(">= {TARGET_PER_SEC:.0}/s");
    figure("authenticate", "stored keys", auth_rate, "/s", bare, &goal);
    figure(
        "authenticate",
        "first use of a key",
        first_rate,
        "/s",
        bare,
        "",
    );
    figure(
        "authenticate",
        "unknown well-formed tokens",
        unknown_rate,
        "/s",
        bare,
        "",
    );
    figure(
        "authenticate",
        "random tokens, none left without a checksum",
        closed_rate,
        "/s",
        Some(("random tokens, one left", open_rate)),
        "",
    );
}
