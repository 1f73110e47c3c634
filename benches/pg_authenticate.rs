//! `authenticate()` on PostgreSQL beside the bare lookup it cannot avoid.
//!
//! Starts a throwaway cluster (`test-postgres`, loopback), stores `KEYHOOK_BENCH_KEYS` keys
//! (default 100,000), then for `KEYHOOK_BENCH_SECS` seconds (default 3) each, on one thread:
//!
//! - the baseline: `SELECT 1 FROM api_keys WHERE key_hash = $1`, prepared once, through the
//!   `postgres` client with precomputed hashes;
//! - `keyhook::auth::authenticate` on one connection (a store held, as a request holds it):
//!   hashing the token, then the lookup of the whole row, read every time (no cache);
//! - a request's share: a connection from the pool (`Backend::connect`, which r2d2 checks
//!   with an empty query), `authenticate`, and the connection back.
//!
//! Run with `cargo bench -p keyhook-bench --bench pg_authenticate` (or `bash bench/all.sh
//! pg-authenticate`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use keyhook::auth::{authenticate, generate_key, hash_key, key_prefix};
use keyhook::postgres::PgBackend;
use keyhook::store::Backend;
use keyhook::tables::{Cell, TABLES};
use keyhook::time::Timestamp;
use keyhook_bench::figure;

const SAMPLE: usize = 10_000;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map(|v| v.replace('_', "").parse().expect("a positive integer"))
        .unwrap_or(default)
}

/// Calls `op` on `inputs` in a cycle for about `secs`; operations per second.
fn rate<T>(inputs: &[T], secs: f64, mut op: impl FnMut(&T)) -> f64 {
    for input in inputs.iter().take(1_000) {
        op(input);
    }
    let budget = Duration::from_secs_f64(secs);
    let start = Instant::now();
    let mut done = 0u64;
    loop {
        for input in inputs {
            op(input);
            done += 1;
            if done % 256 == 0 && start.elapsed() >= budget {
                return done as f64 / start.elapsed().as_secs_f64();
            }
        }
    }
}

fn main() {
    let n = env_usize("KEYHOOK_BENCH_KEYS", 100_000).max(SAMPLE);
    let secs = env_usize("KEYHOOK_BENCH_SECS", 3).max(1) as f64;
    let db = test_postgres::database().expect("PostgreSQL for the benchmark");
    let backend = PgBackend::new(&db.url(), 4, true).expect("backend");
    let store = backend.connect().expect("connect");

    let setup = Instant::now();
    let now = Timestamp::now();
    let (users, keys) = (&TABLES[0], &TABLES[1]);
    store
        .write(|c| Ok(c.write_rows(users, &[vec![Cell::Text("u".into()), Cell::Int(now.0)]])?))
        .unwrap();
    let mut sample = Vec::with_capacity(SAMPLE);
    let mut done = 0;
    while done < n {
        let batch: Vec<Vec<Cell>> = (done..(done + 5_000).min(n))
            .map(|i| {
                let plaintext = generate_key();
                let row = vec![
                    Cell::Text(hash_key(&plaintext)),
                    Cell::Text(format!("key-{i}")),
                    Cell::Text("u".into()),
                    Cell::Text(format!("bench {i}")),
                    Cell::Text(key_prefix(&plaintext).to_string()),
                    Cell::Text("readwrite".into()),
                    Cell::Int(1),
                    Cell::Text("[]".into()),
                    Cell::Null,
                    Cell::Null,
                    Cell::Int(now.0),
                    // Checksummed, no rate limit or uses of its own.
                    Cell::Int(1),
                    Cell::Null,
                    Cell::Null,
                ];
                if sample.len() < SAMPLE && i % (n / SAMPLE).max(1) == 0 {
                    sample.push(plaintext);
                }
                row
            })
            .collect();
        done += batch.len();
        store.write(|c| Ok(c.write_rows(keys, &batch)?)).unwrap();
    }
    db.sql("VACUUM ANALYZE api_keys");
    println!("setup: {n} keys in {:.1} s", setup.elapsed().as_secs_f64());

    let hashes: Vec<String> = sample.iter().map(|k| hash_key(k)).collect();
    let mut client: postgres::Client = db
        .url()
        .parse::<postgres::Config>()
        .unwrap()
        .connect(postgres::NoTls)
        .unwrap();
    let bare = client
        .prepare("SELECT 1 FROM api_keys WHERE key_hash = $1")
        .unwrap();
    let baseline = rate(&hashes, secs, |h| {
        black_box(client.query_opt(&bare, &[h]).unwrap().is_some());
    });
    let held = rate(&sample, secs, |k| {
        black_box(authenticate(&store, k, now).unwrap());
    });
    drop(store);
    let pooled = rate(&sample, secs, |k| {
        let s = backend.connect().unwrap();
        black_box(authenticate(&s, k, now).unwrap());
    });
    let checkout = rate(&sample, secs, |_| {
        black_box(backend.connect().unwrap());
    });
    println!("bare SELECT by key_hash (baseline)     {baseline:>9.0}/s");
    println!("pool checkout + return alone             {checkout:>9.0}/s");
    println!(
        "authenticate(), connection held          {held:>9.0}/s  ({:.2} of the baseline)",
        held / baseline
    );
    println!(
        "pool checkout + authenticate() + return  {pooled:>9.0}/s  ({:.2} of the baseline)",
        pooled / baseline
    );
    let bare = Some(("bare SELECT by key_hash", baseline));
    figure(
        "pg-authenticate",
        "authenticate(), connection held",
        held,
        "/s",
        bare,
        "",
    );
    figure(
        "pg-authenticate",
        "checkout + authenticate() + return",
        pooled,
        "/s",
        bare,
        "",
    );
}
