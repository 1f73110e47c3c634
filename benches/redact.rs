//! The cost of redacting key-shaped strings on the server's hot path: every access-log line
//! goes through `keyhook::redact::keys`.
//!
//! For typical request lines (no key in them, the common case) and one with a key, measures
//! building the access-log line as `reply::send` does, with and without the redaction, in the
//! same run, and prints the ratio. A request costs tens of microseconds end to end; the
//! redaction must stay a small fraction of building the line.
//!
//! Run with `cargo bench -p keyhook-bench --bench redact`.

use std::hint::black_box;
use std::time::Instant;

const ROUNDS: usize = 1_000_000;
const CHUNKS: usize = 100;

fn line(request_line: &str, redact: bool) -> String {
    let shown = if redact {
        keyhook::redact::keys(request_line)
    } else {
        std::borrow::Cow::Borrowed(request_line)
    };
    format!("{shown} 200 {:.1}ms {}", 0.3, "kp_0123abcd")
}

/// Nanoseconds per line without and with the redaction, measured in alternating chunks so
/// that the load of a shared machine falls on both alike.
fn ns_per_line(request_line: &str) -> (f64, f64) {
    let mut spent = [0u128; 2];
    let mut total = 0;
    for _ in 0..CHUNKS {
        for (i, redact) in [false, true].into_iter().enumerate() {
            let started = Instant::now();
            for _ in 0..ROUNDS / CHUNKS {
                total += line(black_box(request_line), redact).len();
            }
            spent[i] += started.elapsed().as_nanos();
        }
    }
    black_box(total);
    let per = |ns: u128| ns as f64 / ROUNDS as f64;
    (per(spent[0]), per(spent[1]))
}

fn main() {
    let key = format!("kp_{}", "0123456789abcdef".repeat(4));
    let cases = [
        "GET /api/v1/api-keys".to_string(),
        "PATCH /api/v1/webhooks/5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c".to_string(),
        "GET /api/v1/webhooks/5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c/deliveries%20x%41".to_string(),
        format!("DELETE /api/v1/api-keys/{key}"),
    ];
    println!(
        "{:<72} {:>10} {:>10} {:>7}",
        "request line", "plain ns", "redact ns", "ratio"
    );
    for case in &cases {
        let (plain, redacted) = ns_per_line(case);
        let shown: String = case.chars().take(70).collect();
        println!(
            "{shown:<72} {plain:>10.1} {redacted:>10.1} {:>7.2}",
            redacted / plain
        );
        let method = case.split(' ').next().unwrap_or_default();
        let metric = format!("access line with redaction, {method} {} bytes", case.len());
        let unredacted = Some(("without redaction", plain));
        keyhook_bench::figure("redact", &metric, redacted, "ns", unredacted, "");
    }
}
