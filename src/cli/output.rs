//! Printing: data to stdout, messages to stderr; `--json` prints exactly the HTTP body.

use std::io::{self, IsTerminal, Write};

use comfy_table::{presets, Attribute, Cell, Color, ColumnConstraint, ContentArrangement, Table};
use serde::Serialize;

use crate::error::Error;
use crate::model::{ApiKey, Data, DeliveryAttempt, ErrorEnvelope, Webhook};
use crate::time::Timestamp;

/// `--color`: whether tables use color.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Color on a terminal, unless NO_COLOR is set
    Auto,
    Always,
    Never,
}

pub struct Output {
    json: bool,
    color: bool,
}

impl Output {
    pub fn new(json: bool) -> Output {
        Output { json, color: false }
    }

    /// Output with colors decided by `choice`, the terminal and `NO_COLOR`
    /// (<https://no-color.org>: any non-empty value turns color off unless a flag asks).
    pub fn with_color(json: bool, choice: ColorChoice) -> Output {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Output { json, color }
    }

    pub fn is_json(&self) -> bool {
        self.json
    }

    /// Prints `value` as `{"data": value}` with `--json`, else whatever `human` writes.
    pub fn data<T: Serialize>(
        &self,
        value: &T,
        human: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> anyhow::Result<()> {
        let mut stdout = io::stdout().lock();
        if self.json {
            // Through io::Error, so that a reader that went away stays a broken pipe: a
            // serde_json::Error does not expose the io::Error it wraps as its source.
            serde_json::to_writer(&mut stdout, &Data { data: value }).map_err(io::Error::from)?;
            writeln!(stdout)?;
        } else {
            human(&mut stdout)?;
        }
        stdout.flush()?;
        Ok(())
    }

    /// A message for the person at the shell, on stderr; silent with `--json`.
    pub fn note(&self, message: &str) {
        if !self.json {
            say(message);
        }
    }

    /// Reports an error: the error object on stdout with `--json`, and always a readable line
    /// per problem on stderr.
    pub fn error(&self, e: &Error) {
        if self.json {
            let mut stdout = io::stdout().lock();
            // The reader may be gone; the exit status still tells.
            let _ = serde_json::to_writer(&mut stdout, &ErrorEnvelope::from_error(e));
            let _ = writeln!(stdout);
        }
        match e {
            Error::Validation(details) if !details.is_empty() => {
                for d in details {
                    say(&format!("keyhook: {}: {}", flag_name(&d.field), d.message));
                }
            }
            _ => say(&format!("keyhook: {e}")),
        }
    }
}

/// Writes `line` to stderr, with every key-shaped string in it shown as its prefix
/// (`crate::redact`): the one way the CLI prints a message.
pub fn say(line: &str) {
    eprintln!("{}", crate::redact::keys(line));
}

/// The command-line flag behind a field of the API, for messages at the shell.
fn flag_name(field: &str) -> String {
    let (base, index) = match field.find('[') {
        Some(i) => field.split_at(i),
        None => (field, ""),
    };
    let flag = match base {
        "name" => "--name",
        "permission" => "--permission",
        "profileIds" | "fullAccess" => "--profile",
        "expiresAt" => "--expires-at",
        "url" => "--url",
        "events" => "--event",
        "data" => "--data",
        "user" => "--user",
        _ => return field.to_string(),
    };
    format!("{flag}{index}")
}

fn yes_no(b: bool) -> &'static str {
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

/// `2026-11-22 03:47 UTC`, or `-` for no time.
pub fn when(t: Option<Timestamp>) -> String {
    match t {
        None => "-".into(),
        Some(t) => t.to_datetime().format("%Y-%m-%d %H:%M UTC").to_string(),
    }
}

/// `2026-11-22 03:47 UTC (2 hours ago)`, for detail views.
fn when_full(t: Option<Timestamp>, now: Timestamp) -> String {
    match t {
        None => "-".into(),
        Some(t) => format!("{} ({})", when(Some(t)), relative(t, now)),
    }
}

fn keep_whole(t: &mut Table, columns: &[usize]) {
    for &i in columns {
        if let Some(c) = t.column_mut(i) {
            c.set_constraint(ColumnConstraint::ContentWidth);
        }
    }
}

fn scope(key: &ApiKey) -> String {
    if key.full_access {
        "all profiles".into()
    } else {
        key.profile_ids.join(", ")
    }
}

impl Output {
    fn table(&self) -> Table {
        let mut t = Table::new();
        t.load_preset(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic);
        // On a terminal comfy-table fits its width; elsewhere COLUMNS, if set, does.
        if !io::stdout().is_terminal() {
            if let Some(w) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
                t.set_width(w);
            }
        }
        if self.color {
            t.enforce_styling();
        }
        t
    }

    fn header(&self, names: &[&str]) -> Vec<Cell> {
        names
            .iter()
            .map(|n| {
                let c = Cell::new(n);
                if self.color {
                    c.add_attribute(Attribute::Bold)
                } else {
                    c
                }
            })
            .collect()
    }

    /// A cell in green when `good`, red otherwise (plain without color).
    fn flag(&self, text: impl Into<String>, good: bool) -> Cell {
        let c = Cell::new(text.into());
        match (self.color, good) {
            (false, _) => c,
            (true, true) => c.fg(Color::Green),
            (true, false) => c.fg(Color::Red),
        }
    }

    fn expiry(&self, key: &ApiKey, now: Timestamp, full: bool) -> Cell {
        match key.expires_at {
            None => Cell::new("never"),
            Some(t) if key.is_expired(now) => {
                self.flag(format!("EXPIRED {}", relative(t, now)), false)
            }
            Some(t) if full => Cell::new(when_full(Some(t), now)),
            Some(t) => Cell::new(relative(t, now)),
        }
    }

    pub fn key_list(&self, keys: &[ApiKey], now: Timestamp, with_user: bool) -> Table {
        let mut t = self.table();
        // The prefix names a key in every command; `keys show` and --json give the id.
        let mut header = vec![
            "PREFIX",
            "NAME",
            "PERMISSION",
            "SCOPE",
            "EXPIRES",
            "LAST USED",
        ];
        if with_user {
            header.insert(0, "USER");
        }
        t.set_header(self.header(&header));
        for k in keys {
            let mut row = vec![
                Cell::new(&k.key_prefix),
                Cell::new(&k.name),
                Cell::new(k.permission.as_str()),
                Cell::new(scope(k)),
                self.expiry(k, now, false),
                Cell::new(k.last_used_at.map_or("never".into(), |t| relative(t, now))),
            ];
            if with_user {
                row.insert(0, Cell::new(&k.user_id));
            }
            t.add_row(row);
        }
        // Prefixes are copied into other commands: never wrap them.
        keep_whole(&mut t, &[usize::from(with_user)]);
        t
    }

    pub fn key_detail(&self, k: &ApiKey, now: Timestamp) -> Table {
        let mut t = self.table();
        let rows = [
            ("id", Cell::new(&k.id)),
            ("user", Cell::new(&k.user_id)),
            ("name", Cell::new(&k.name)),
            ("prefix", Cell::new(&k.key_prefix)),
            ("permission", Cell::new(k.permission.as_str())),
            ("scope", Cell::new(scope(k))),
            ("expires", self.expiry(k, now, true)),
            (
                "last used",
                Cell::new(
                    k.last_used_at
                        .map_or("never".into(), |t| when_full(Some(t), now)),
                ),
            ),
            ("created", Cell::new(when_full(Some(k.created_at), now))),
        ];
        for (field, value) in rows {
            t.add_row(vec![Cell::new(field), value]);
        }
        t
    }

    pub fn webhook_list(&self, list: &[Webhook], now: Timestamp) -> Table {
        let mut t = self.table();
        t.set_header(self.header(&["ID", "URL", "EVENTS", "ACTIVE", "FAILS", "CREATED"]));
        for w in list {
            t.add_row(vec![
                Cell::new(&w.id),
                Cell::new(&w.url),
                Cell::new(w.events.join(", ")),
                self.flag(yes_no(w.is_active), w.is_active),
                self.flag(w.fail_count.to_string(), w.fail_count == 0),
                Cell::new(relative(w.created_at, now)),
            ]);
        }
        keep_whole(&mut t, &[0]);
        t
    }

    pub fn webhook_detail(&self, w: &Webhook, now: Timestamp) -> Table {
        let mut t = self.table();
        let rows = [
            ("id", Cell::new(&w.id)),
            ("user", Cell::new(&w.user_id)),
            ("url", Cell::new(&w.url)),
            ("events", Cell::new(w.events.join(", "))),
            ("active", self.flag(yes_no(w.is_active), w.is_active)),
            (
                "failures",
                self.flag(w.fail_count.to_string(), w.fail_count == 0),
            ),
            ("secret", Cell::new(&w.secret)),
            ("created", Cell::new(when_full(Some(w.created_at), now))),
            ("updated", Cell::new(when_full(Some(w.updated_at), now))),
        ];
        for (field, value) in rows {
            t.add_row(vec![Cell::new(field), value]);
        }
        t
    }

    pub fn attempt_list(&self, list: &[DeliveryAttempt], now: Timestamp) -> Table {
        let mut t = self.table();
        t.set_header(self.header(&["WHEN", "EVENT", "ATTEMPT", "RESULT", "STATUS", "DURATION"]));
        for a in list {
            t.add_row(vec![
                Cell::new(relative(a.attempted_at, now)),
                Cell::new(format!("{} {}", a.event, a.event_id)),
                Cell::new(a.attempt),
                self.flag(
                    if a.delivered { "delivered" } else { "failed" },
                    a.delivered,
                ),
                Cell::new(format!("{} {}", a.status_code, a.status_text)),
                Cell::new(format!("{} ms", a.duration_ms)),
            ]);
        }
        t
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
}
