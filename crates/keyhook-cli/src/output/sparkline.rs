//! A webhook's recent attempts as one line: outcomes and a latency sparkline.

use keyhook_core::service::history::Mark;

/// The levels of the latency sparkline, lowest first.
const SPARKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A webhook's recent attempts as one line, oldest first and newest last (read left to
/// right, as time goes): a ✓ (delivered) or ✗ per attempt, a space, then a sparkline of their
/// durations, each scaled between the fastest (▁) and the slowest (█) of these attempts (all
/// ▁ when they took the same time). With `color`, ✓ runs are green and ✗ runs red (ANSI);
/// empty without attempts.
pub fn history_line(marks: &[Mark], color: bool) -> String {
    if marks.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for run in marks.chunk_by(|a, b| a.delivered == b.delivered) {
        let (sign, code) = if run[0].delivered {
            ('✓', "32")
        } else {
            ('✗', "31")
        };
        if color {
            out.push_str(&format!("\x1b[{code}m"));
        }
        out.extend(std::iter::repeat_n(sign, run.len()));
        if color {
            out.push_str("\x1b[0m");
        }
    }
    out.push(' ');
    let min = marks.iter().map(|m| m.duration_ms).min().unwrap_or(0);
    let max = marks.iter().map(|m| m.duration_ms).max().unwrap_or(0);
    let span = i128::from(max) - i128::from(min);
    for m in marks {
        let level = if span == 0 {
            0
        } else {
            let top = SPARKS.len() as i128 - 1;
            ((i128::from(m.duration_ms) - i128::from(min)) * top + span / 2) / span
        };
        out.push(SPARKS[level as usize]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(list: &[(bool, i64)]) -> Vec<Mark> {
        list.iter()
            .map(|&(delivered, duration_ms)| Mark {
                delivered,
                duration_ms,
            })
            .collect()
    }

    #[test]
    fn history_line_oldest_first_with_a_sparkline_scaled_to_its_attempts() {
        let m = marks(&[
            (true, 10),
            (true, 80),
            (false, 45),
            (true, 10),
            (false, 100),
        ]);
        assert_eq!(history_line(&m, false), "✓✓✗✓✗ ▁▆▄▁█");
        assert_eq!(
            history_line(&m, true),
            "\x1b[32m✓✓\x1b[0m\x1b[31m✗\x1b[0m\x1b[32m✓\x1b[0m\x1b[31m✗\x1b[0m ▁▆▄▁█"
        );
        // The same time for all: the lowest bar; one attempt; none.
        assert_eq!(
            history_line(&marks(&[(true, 7), (true, 7)]), false),
            "✓✓ ▁▁"
        );
        assert_eq!(history_line(&marks(&[(false, 3)]), false), "✗ ▁");
        assert_eq!(history_line(&[], true), "");
        // Every level is reachable, the extremes at the ends.
        let ramp: Vec<(bool, i64)> = (0..8).map(|i| (true, i * 100)).collect();
        assert_eq!(history_line(&marks(&ramp), false), "✓✓✓✓✓✓✓✓ ▁▂▃▄▅▆▇█");
        // Extreme durations do not overflow.
        let wide = marks(&[(true, i64::MIN), (true, i64::MAX)]);
        assert_eq!(history_line(&wide, false), "✓✓ ▁█");
    }
}
