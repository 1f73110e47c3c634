//! `serve --rate-limit`: memory stays bounded when a million distinct keys and a million
//! distinct client addresses pass.
//!
//! Each measurement runs in a child process of its own (this binary again, with
//! `KEYHOOK_BENCH_MODE`), so that one does not reuse memory another freed, and reports the
//! growth of the resident set (VmRSS) over what the process had before:
//!
//! - `bounded`: keyhook's limiter (`keyhook::http::ratelimit::Limits`, 100/min, the slowest
//!   forgetting a real setting would have) sees `KEYHOOK_BENCH_N` (1,000,000) distinct key ids,
//!   one request each, and as many distinct addresses failing authentication, as fast as it can;
//! - `unbounded`, the baseline: governor's stock keyed limiter (`RateLimiter::keyed`, a
//!   DashMap that grows with every key until `retain_recent` is called) on the same key ids.
//!
//! Run with `cargo bench -p keyhook-bench --bench ratelimit_memory` (or bench/ratelimit.sh).
//! Target: the bounded limiter's growth stays under 64 MB and does not grow with N (compare
//! N=250,000).

use std::fmt::Write as _;
use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::num::NonZeroU32;
use std::process::Command;
use std::time::{Duration, Instant};

use governor::{Quota, RateLimiter};
use keyhook::http::ratelimit::Limits;
use keyhook::rate::RateLimit;
use keyhook_bench::figure;

fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

fn n() -> u32 {
    std::env::var("KEYHOOK_BENCH_N")
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(1_000_000)
}

/// A key id as keyhook makes them (32 hex digits).
fn key_id(i: u32) -> String {
    format!("{:032x}", u128::from(i) * 0x9e37_79b9)
}

fn child(mode: &str) {
    let n = n();
    // Key ids are made as they are used (the bounded run writes them into one reused
    // buffer), so the memory that grows is the limiter's.
    let before = rss_kb();
    let started = Instant::now();
    let peak;
    let tracked = match mode {
        "bounded" => {
            let limits = Limits::new(RateLimit::parse("100/min").unwrap());
            let mut id = String::with_capacity(32);
            for i in 0..n {
                id.clear();
                write!(id, "{:032x}", u128::from(i) * 0x9e37_79b9).unwrap();
                black_box(limits.check_key(&id)).ok();
                let addr = IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i));
                black_box(limits.failed_auth(addr));
            }
            peak = (rss_kb(), limits.tracked());
            limits.sweep();
            limits.tracked()
        }
        _ => {
            let quota = Quota::per_minute(NonZeroU32::new(100).unwrap());
            let limiter = RateLimiter::keyed(quota);
            for i in 0..n {
                // The stock limiter keeps each key (a String of its own).
                black_box(limiter.check_key(&key_id(i))).ok();
            }
            peak = (rss_kb(), limiter.len());
            limiter.retain_recent();
            limiter.len()
        }
    };
    let grown = rss_kb().saturating_sub(before);
    let what = if mode == "bounded" {
        " and addresses"
    } else {
        ""
    };
    println!(
        "{mode}: {n} distinct keys{what} in {:.1} s: RSS +{:.1} MB with {} entries held; after a sweep +{:.1} MB, {tracked} entries",
        started.elapsed().as_secs_f64(),
        peak.0.saturating_sub(before) as f64 / 1024.0,
        peak.1,
        grown as f64 / 1024.0
    );
}

fn main() {
    if let Ok(mode) = std::env::var("KEYHOOK_BENCH_MODE") {
        child(&mode);
        return;
    }
    let me = std::env::current_exe().expect("this benchmark's path");
    let mut figures = Vec::new();
    for mode in ["bounded", "unbounded"] {
        let out = Command::new(&me)
            .env("KEYHOOK_BENCH_MODE", mode)
            .output()
            .expect("run a measurement");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        print!("{text}");
        let mb: f64 = text
            .split("RSS +")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|v| v.parse().ok())
            .expect("a figure");
        figures.push(mb);
    }
    let _ = Duration::ZERO;
    println!(
        "rate limiter memory, {} distinct keys: bounded {:.1} MB, governor's stock keyed limiter {:.1} MB (ratio {:.2}; target: bounded < 64 MB)",
        n(),
        figures[0],
        figures[1],
        figures[0] / figures[1].max(0.1)
    );
    let metric = format!("RSS, {} distinct keys and addresses", n());
    let governor = Some(("governor's stock keyed limiter", figures[1]));
    figure("ratelimit", &metric, figures[0], "MB", governor, "< 64 MB");
}
