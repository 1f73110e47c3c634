//! What the benchmarks of this package share: the one output line of a figure, the format
//! bench/lib.sh's `figure` prints (and bench/all.sh collects), so that `cargo bench` and the
//! bench/ scripts report alike.

/// Prints one figure: `bench`, the benchmark, the metric, its value and unit, then the
/// baseline measured in the same run (its name and value; empty without one), the ratio
/// value / baseline and the goal, tab-separated (see bench/lib.sh).
pub fn figure(
    bench: &str,
    metric: &str,
    value: f64,
    unit: &str,
    baseline: Option<(&str, f64)>,
    goal: &str,
) {
    println!("{}", line(bench, metric, value, unit, baseline, goal));
}

/// The line `figure` prints.
pub fn line(
    bench: &str,
    metric: &str,
    value: f64,
    unit: &str,
    baseline: Option<(&str, f64)>,
    goal: &str,
) -> String {
    let (name, base, ratio) = match baseline {
        Some((name, base)) if base != 0.0 => (name, number(base), format!("{:.3}", value / base)),
        Some((name, base)) => (name, number(base), String::new()),
        None => ("", String::new(), String::new()),
    };
    format!(
        "bench\t{bench}\t{metric}\t{}\t{unit}\t{name}\t{base}\t{ratio}\t{goal}",
        number(value)
    )
}

/// A figure's value: at most three decimals, none for a whole number.
fn number(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::line;

    #[test]
    fn a_figure_is_one_tab_separated_line_with_its_ratio() {
        assert_eq!(
            line(
                "redact",
                "access line, redacted",
                1.5,
                "us",
                Some(("unredacted", 1.2)),
                "<= 1.5x"
            ),
            "bench\tredact\taccess line, redacted\t1.5\tus\tunredacted\t1.2\t1.250\t<= 1.5x"
        );
        assert_eq!(
            line("pool", "open error", 3000.0, "ms", None, ""),
            "bench\tpool\topen error\t3000\tms\t\t\t\t"
        );
    }
}
