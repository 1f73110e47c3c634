//! The cost of signing one delivery (CONTRACT §15): the `v1a` (Ed25519) signature of a 1 KiB
//! payload must stay at or under 30 µs; next to it, in the same run, the `v1` (HMAC-SHA256)
//! signature it is compared with, and opening a sealed secret (XChaCha20-Poly1305), which
//! every delivery does right before it signs.
//!
//! Measured in alternating chunks so that the load of a shared machine falls on all alike;
//! exits 1 when the v1a median chunk is over the bound. Run with
//! `cargo bench --bench sign_v1a`.

use std::hint::black_box;
use std::time::Instant;

use keyhook_core::secrets::SecretsKey;
use keyhook_core::sign;

const ROUNDS: usize = 20_000;
const CHUNKS: usize = 40;
/// The bound on one v1a signature of a 1 KiB payload, in microseconds.
const BOUND_US: f64 = 30.0;

fn main() {
    let body: Vec<u8> = (0..1024).map(|i| b"abcdefghij"[i % 10]).collect();
    let secret = sign::generate_secret();
    let (private, _public) = sign::generate_signing_key();
    let key = SecretsKey::generate();
    let sealed = key.seal("5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c", "secret", &secret);
    let ops: [(&str, &dyn Fn(usize) -> usize); 3] = [
        ("v1a (Ed25519)", &|i| {
            sign::sign(&private, "evt_0123456789abcdef", i as i64, black_box(&body))
                .unwrap()
                .len()
        }),
        ("v1 (HMAC-SHA256)", &|i| {
            sign::sign(&secret, "evt_0123456789abcdef", i as i64, black_box(&body))
                .unwrap()
                .len()
        }),
        ("open a sealed secret", &|_| {
            key.open(
                "5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c",
                "secret",
                black_box(&sealed),
            )
            .unwrap()
            .len()
        }),
    ];
    let mut per_chunk: Vec<Vec<f64>> = vec![Vec::new(); ops.len()];
    let mut total = 0;
    for _ in 0..CHUNKS {
        for (n, (_, op)) in ops.iter().enumerate() {
            let started = Instant::now();
            for i in 0..ROUNDS / CHUNKS {
                total += op(i);
            }
            let us = started.elapsed().as_secs_f64() * 1e6 / (ROUNDS / CHUNKS) as f64;
            per_chunk[n].push(us);
        }
    }
    black_box(total);
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let medians: Vec<f64> = per_chunk.iter_mut().map(median).collect();
    println!(
        "{:<24} {:>12} {:>16}",
        "1 KiB payload", "µs (median)", "ratio to v1"
    );
    for ((name, _), us) in ops.iter().zip(&medians) {
        println!("{name:<24} {us:>12.2} {:>16.2}", us / medians[1]);
    }
    let v1a = medians[0];
    let v1 = Some(("v1 (HMAC-SHA256)", medians[1]));
    let goal = format!("<= {BOUND_US} us");
    keyhook_bench::figure(
        "sign-v1a",
        "v1a signature, 1 KiB payload",
        v1a,
        "us",
        v1,
        &goal,
    );
    keyhook_bench::figure("sign-v1a", "open a sealed secret", medians[2], "us", v1, "");
    println!(
        "v1a: {v1a:.2} µs per signature, bound {BOUND_US} µs: {}",
        if v1a <= BOUND_US { "ok" } else { "OVER" }
    );
    if v1a > BOUND_US {
        std::process::exit(1);
    }
}
