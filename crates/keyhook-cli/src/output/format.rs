//! Values as the tables and messages show them: times, outcomes, uses, scopes.

use keyhook_core::model::ApiKey;
use keyhook_core::time::Timestamp;

/// A key's remaining uses, `unlimited` without a limit, `none (exhausted)` at 0.
pub(super) fn uses_left(k: &ApiKey) -> String {
    match k.remaining_uses {
        None => "unlimited".into(),
        Some(0) => "none (exhausted)".into(),
        Some(n) => n.to_string(),
    }
}

pub(super) fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// How long ago or ahead `t` is, in the largest whole unit: `in 3 days`, `2 hours ago`.
pub fn relative(t: Timestamp, now: Timestamp) -> String {
    let ms = t.millis() - now.millis();
    let secs = ms.unsigned_abs() / 1000;
    if secs < 10 {
        return "just now".into();
    }
    let (n, unit) = [
        (365 * 86_400, "year"),
        (30 * 86_400, "month"),
        (7 * 86_400, "week"),
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ]
    .into_iter()
    .find(|(size, _)| secs >= *size)
    .map(|(size, unit)| ((secs + size / 2) / size, unit))
    .unwrap_or((secs, "second"));
    let plural = if n == 1 { "" } else { "s" };
    if ms > 0 {
        format!("in {n} {unit}{plural}")
    } else {
        format!("{n} {unit}{plural} ago")
    }
}

/// An attempt's outcome: `500 Internal Server Error`, or only the reason when no response
/// came (status 0: `blocked: private address`, `timed out`). The receiver wrote `text` (a reason phrase): secret-shaped strings in it are redacted and
/// control characters escaped, as in any message (`redact::display`).
pub fn status(code: u16, text: &str) -> String {
    let text = keyhook_core::redact::display(text);
    match (code, text.trim()) {
        (0, "") => "no response".into(),
        (0, text) => text.into(),
        (code, "") => code.to_string(),
        (code, text) => format!("{code} {text}"),
    }
}

/// `2026-11-22 03:47 UTC`, or `-` for no time.
pub fn when(t: Option<Timestamp>) -> String {
    match t {
        None => "-".into(),
        Some(t) => t.to_datetime().format("%Y-%m-%d %H:%M UTC").to_string(),
    }
}

/// `2026-11-22 03:47 UTC (2 hours ago)`, for detail views.
pub(super) fn when_full(t: Option<Timestamp>, now: Timestamp) -> String {
    match t {
        None => "-".into(),
        Some(t) => format!("{} ({})", when(Some(t)), relative(t, now)),
    }
}

/// A key's or a webhook's scope, as the SCOPE column shows it.
pub(super) fn scope(s: keyhook_core::auth::Scope<'_>) -> String {
    if s.full_access {
        "all profiles".into()
    } else {
        s.profile_ids.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times() {
        let now = Timestamp(1_800_000_000_000);
        let at = |ms: i64| relative(now.add_millis(ms), now);
        assert_eq!(at(0), "just now");
        assert_eq!(at(-9_000), "just now");
        assert_eq!(at(-80_000), "1 minute ago");
        assert_eq!(at(3 * 86_400_000 - 5), "in 3 days");
        assert_eq!(at(2 * 3_600_000 + 5_000), "in 2 hours");
        assert_eq!(at(3 * 86_400_000), "in 3 days");
        assert_eq!(at(-14 * 86_400_000), "2 weeks ago");
        assert_eq!(at(400 * 86_400_000), "in 1 year");
    }

    #[test]
    fn status_without_a_response_is_only_the_reason() {
        assert_eq!(
            status(0, "blocked: private address"),
            "blocked: private address"
        );
        assert_eq!(status(0, ""), "no response");
        assert_eq!(
            status(500, "Internal Server Error"),
            "500 Internal Server Error"
        );
        assert_eq!(status(418, " "), "418");
        let key = format!("kp_{}", "ab".repeat(32));
        assert_eq!(
            status(500, &format!("leak {key}\u{1b}[2J")),
            "500 leak kp_abababab…\\u{1b}[2J"
        );
    }
}
