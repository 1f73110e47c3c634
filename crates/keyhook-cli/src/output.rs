//! Printing: data to stdout, messages to stderr; `--json` prints exactly the HTTP body.

use std::collections::HashMap;
use std::io::{self, IsTerminal, Write};

use comfy_table::{presets, Attribute, Cell, Color, ContentArrangement, Table};
use serde::Serialize;

use keyhook_core::error::Error;
use keyhook_core::model::{ApiKey, AuditEntry, Data, DeliveryAttempt, ErrorEnvelope, Webhook};
use keyhook_core::service::history::Mark;
use keyhook_core::time::Timestamp;

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
/// (`keyhook_core::redact`): the one way the CLI prints a message.
pub fn say(line: &str) {
    keyhook_core::redact::to_stderr(line);
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
        "profileIds" | "fullAccess" | "profileId" => "--profile",
        "expiresAt" => "--expires-at",
        "rateLimit" => "--rate-limit",
        "remainingUses" => "--max-uses",
        "url" => "--url",
        "events" => "--event",
        "data" => "--data",
        "user" => "--user",
        "since" => "--since",
        "eventId" => "--event",
        "Idempotency-Key" => "--idempotency-key",
        "limit" => "--limit",
        _ => return field.to_string(),
    };
    format!("{flag}{index}")
}

/// A key's remaining uses, `unlimited` without a limit, `none (exhausted)` at 0.
fn uses_left(k: &ApiKey) -> String {
    match k.remaining_uses {
        None => "unlimited".into(),
        Some(0) => "none (exhausted)".into(),
        Some(n) => n.to_string(),
    }
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
fn when_full(t: Option<Timestamp>, now: Timestamp) -> String {
    match t {
        None => "-".into(),
        Some(t) => format!("{} ({})", when(Some(t)), relative(t, now)),
    }
}

/// How a cell gives way when its table is wider than the screen. Nothing is ever broken
/// mid-word: a URL or an id split over two lines can no longer be copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// Never narrowed: ids, prefixes and secrets are copied into other commands.
    Whole,
    /// Wrapped at spaces; a single word longer than the column is cut with `…`.
    Wrap,
    /// Cut with `…` (URLs; `--json` shows them whole).
    Cut,
    /// Shortened to no fewer than this many characters, without `…`: a webhook id, whose
    /// unique prefix every command takes in its place.
    Prefix(usize),
}

/// One cell: its text, how it may be narrowed, and its color (`Some(true)` green,
/// `Some(false)` red; only with color on).
struct Text {
    text: String,
    fit: Fit,
    good: Option<bool>,
    /// The text with its own colors, shown instead of `text` when color is on (a `Whole`
    /// cell, measured by `text`).
    styled: Option<String>,
}

fn whole(text: impl Into<String>) -> Text {
    Text {
        text: text.into(),
        fit: Fit::Whole,
        good: None,
        styled: None,
    }
}

fn wrap(text: impl Into<String>) -> Text {
    Text {
        text: text.into(),
        fit: Fit::Wrap,
        good: None,
        styled: None,
    }
}

fn cut(text: impl Into<String>) -> Text {
    Text {
        text: text.into(),
        fit: Fit::Cut,
        good: None,
        styled: None,
    }
}

/// Width of `s` on the screen, in characters.
fn width(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// The narrowest a column that may give way is made (unless its content is narrower), so
/// that a cut cell still shows something.
const MIN_COLUMN: usize = 6;
/// Words up to this long (ids: 36 characters) are kept whole while other columns can give way.
const MAX_WORD: usize = 40;
/// Ids are shortened only if the other columns would be narrower than this.
const COMFORTABLE: usize = 24;

/// Column content widths that fit `total` characters (borders and padding included, as
/// UTF8_FULL_CONDENSED draws them: 3 per column and 1). The widest column that may give way is
/// narrowed first, by stages: while every column keeps a comfortable width; then with ids
/// shortened to their prefixes; then down to each column's longest word; then as far as it
/// takes. `None` when the table fits as it is.
fn fit_widths(total: usize, header: &[&str], rows: &[Vec<Text>]) -> Option<Vec<usize>> {
    let n = rows
        .iter()
        .map(Vec::len)
        .chain([header.len()])
        .max()
        .unwrap_or(0);
    let mut natural = vec![0; n];
    // Per column: the least width keeping ids whole, with ids shortened, and keeping words.
    let mut whole_ids = vec![0; n];
    let mut short_ids = vec![0; n];
    let mut words = vec![0; n];
    for (i, h) in header.iter().enumerate() {
        natural[i] = width(h);
        // A header wraps between its words (`LAST USED`).
        let word = h.split(' ').map(width).max().unwrap_or(0);
        whole_ids[i] = word.max(MIN_COLUMN);
        short_ids[i] = whole_ids[i];
        words[i] = whole_ids[i];
    }
    for row in rows {
        for (i, c) in row.iter().enumerate() {
            let w = width(&c.text);
            natural[i] = natural[i].max(w);
            let (full, short, word) = match c.fit {
                Fit::Whole => (w, w, w),
                Fit::Prefix(min) => (w, min, min),
                Fit::Wrap => {
                    let word = c.text.split_whitespace().map(width).max().unwrap_or(0);
                    (0, 0, word.min(MAX_WORD))
                }
                Fit::Cut => (0, 0, 0),
            };
            whole_ids[i] = whole_ids[i].max(full);
            short_ids[i] = short_ids[i].max(short);
            words[i] = words[i].max(word);
        }
    }
    let budget = total.saturating_sub(3 * n + 1);
    if natural.iter().sum::<usize>() <= budget {
        return None;
    }
    let cap =
        |v: &[usize]| -> Vec<usize> { v.iter().zip(&natural).map(|(&l, &n)| l.min(n)).collect() };
    let comfortable = |v: &[usize]| -> Vec<usize> {
        v.iter()
            .zip(&natural)
            .map(|(&l, &n)| l.max(COMFORTABLE.min(n)))
            .collect()
    };
    // Shortened ids are as short as they may be at once: a few more characters help no one.
    let short = |v: Vec<usize>| -> Vec<usize> {
        (0..n)
            .map(|i| {
                if short_ids[i] < whole_ids[i] {
                    short_ids[i].min(natural[i])
                } else {
                    v[i]
                }
            })
            .collect()
    };
    let whole_words: Vec<usize> = whole_ids
        .iter()
        .zip(&words)
        .map(|(&a, &b)| a.max(b))
        .collect();
    let stages = [
        comfortable(&whole_words),
        short(comfortable(&whole_words)),
        short(cap(&whole_words)),
        cap(&short_ids),
    ];
    let mut widths = natural.clone();
    for least in &stages {
        // Each stage starts afresh, with ids as short as the stage makes them.
        for i in 0..n {
            widths[i] = if short_ids[i] < whole_ids[i] {
                natural[i].min(least[i])
            } else {
                natural[i]
            };
        }
        // The widest column narrowed by one until the table fits or none may give way.
        while widths.iter().sum::<usize>() > budget {
            let widest = (0..n)
                .filter(|&i| widths[i] > least[i])
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)));
            match widest {
                Some(i) => widths[i] -= 1,
                None => break,
            }
        }
        if widths.iter().sum::<usize>() <= budget {
            break;
        }
    }
    // Wrapped at spaces, a column may use less than it was given: what is left goes to the
    // columns still narrowed (an id only if it then fits whole).
    let used = |i: usize, w: usize| {
        rows.iter()
            .filter_map(|r| r.get(i))
            .map(|c| width(&fit_text(&c.text, w, c.fit)))
            .chain(header.get(i).map(|h| width(&fit_text(h, w, Fit::Wrap))))
            .max()
            .unwrap_or(0)
    };
    for (i, w) in widths.iter_mut().enumerate() {
        *w = used(i, *w);
    }
    // First to the columns that then cut no word, those that need least first.
    let slack = |widths: &[usize]| budget.saturating_sub(widths.iter().sum::<usize>());
    let need =
        |widths: &[usize], i: usize| whole_words[i].min(natural[i]).saturating_sub(widths[i]);
    let mut uncut: Vec<usize> = (0..n).filter(|&i| need(&widths, i) > 0).collect();
    uncut.sort_by_key(|&i| need(&widths, i));
    for i in uncut {
        if need(&widths, i) <= slack(&widths) {
            widths[i] += need(&widths, i);
        }
    }
    let cut_first = (0..n).filter(|&i| {
        rows.iter()
            .any(|r| r.get(i).is_some_and(|c| c.fit == Fit::Cut))
    });
    let order: Vec<usize> = cut_first.chain(0..n).collect();
    for i in order {
        let slack = budget.saturating_sub(widths.iter().sum::<usize>());
        let missing = natural[i].saturating_sub(widths[i]);
        if missing == 0 || (short_ids[i] < whole_ids[i] && missing > slack) {
            continue;
        }
        widths[i] += missing.min(slack);
    }
    Some(widths)
}

/// `s` cut to `max` characters, the last of them `…`.
fn cut_to(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `s` made to fit `max` characters a line, as `fit` allows.
fn fit_text(s: &str, max: usize, fit: Fit) -> String {
    let mut lines = Vec::new();
    for line in s.lines() {
        match fit {
            Fit::Whole => lines.push(line.to_string()),
            Fit::Cut => lines.push(cut_to(line, max)),
            Fit::Prefix(min) => lines.push(line.chars().take(max.max(min)).collect()),
            Fit::Wrap if line.chars().count() <= max => lines.push(line.to_string()),
            Fit::Wrap => {
                let mut current = String::new();
                for word in line.split(' ').filter(|w| !w.is_empty()) {
                    let word = cut_to(word, max);
                    let len = current.chars().count();
                    if len > 0 && len + 1 + word.chars().count() > max {
                        lines.push(std::mem::take(&mut current));
                    }
                    if !current.is_empty() {
                        current.push(' ');
                    }
                    current.push_str(&word);
                }
                lines.push(current);
            }
        }
    }
    lines.join("\n")
}

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

/// A key's or a webhook's scope, as the SCOPE column shows it.
fn scope(s: keyhook_core::auth::Scope<'_>) -> String {
    if s.full_access {
        "all profiles".into()
    } else {
        s.profile_ids.join(", ")
    }
}

impl Output {
    fn table(&self) -> Table {
        let mut t = Table::new();
        // The cells are fitted to the width beforehand (see `fitted`), at word boundaries;
        // comfy-table's own wrapping would split URLs and ids anywhere.
        t.load_preset(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Disabled);
        // On a terminal comfy-table knows its width; elsewhere COLUMNS, if set, is the width.
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

    /// A table of `rows` under `header` (none for a detail view), each cell narrowed as its
    /// [`Fit`] allows when the table is wider than the screen.
    fn fitted(&self, header: &[&str], rows: Vec<Vec<Text>>) -> Table {
        let mut t = self.table();
        let widths = t
            .width()
            .and_then(|w| fit_widths(usize::from(w), header, &rows));
        if !header.is_empty() {
            let names: Vec<String> = header
                .iter()
                .enumerate()
                .map(|(i, h)| match &widths {
                    Some(w) => fit_text(h, w[i], Fit::Wrap),
                    None => h.to_string(),
                })
                .collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            t.set_header(self.header(&names));
        }
        for row in rows {
            let cells: Vec<Cell> = row
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    let text = match (&widths, c.styled) {
                        (_, Some(styled)) if self.color => styled,
                        (Some(w), _) => fit_text(&c.text, w[i], c.fit),
                        (None, _) => c.text,
                    };
                    match c.good {
                        Some(good) => self.flag(text, good),
                        None => Cell::new(text),
                    }
                })
                .collect();
            t.add_row(cells);
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

    fn expiry(&self, key: &ApiKey, now: Timestamp, full: bool) -> Text {
        match key.expires_at {
            None => wrap("never"),
            Some(t) if key.is_expired(now) => Text {
                good: Some(false),
                ..wrap(format!("EXPIRED {}", relative(t, now)))
            },
            Some(t) if full => wrap(when_full(Some(t), now)),
            Some(t) => wrap(relative(t, now)),
        }
    }

    pub fn key_list(&self, keys: &[ApiKey], now: Timestamp, with_user: bool) -> Table {
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
        // Limits of their own are the exception: their columns appear once a key has one.
        let limited = keys
            .iter()
            .any(|k| k.rate_limit.is_some() || k.remaining_uses.is_some());
        if limited {
            header.extend(["RATE LIMIT", "USES LEFT"]);
        }
        let rows = keys
            .iter()
            .map(|k| {
                // Prefixes are copied into other commands: never narrowed.
                let mut row = vec![
                    whole(&k.key_prefix),
                    wrap(&k.name),
                    whole(k.permission.as_str()),
                    wrap(scope(k.scope())),
                    self.expiry(k, now, false),
                    wrap(k.last_used_at.map_or("never".into(), |t| relative(t, now))),
                ];
                if with_user {
                    row.insert(0, wrap(&k.user_id));
                }
                if limited {
                    row.push(whole(k.rate_limit.map_or("-".into(), |r| r.to_string())));
                    row.push(whole(uses_left(k)));
                }
                row
            })
            .collect();
        self.fitted(&header, rows)
    }

    pub fn key_detail(&self, k: &ApiKey, now: Timestamp) -> Table {
        let rows = vec![
            ("id", whole(&k.id)),
            ("user", whole(&k.user_id)),
            ("name", wrap(&k.name)),
            ("prefix", whole(&k.key_prefix)),
            ("permission", whole(k.permission.as_str())),
            ("scope", wrap(scope(k.scope()))),
            ("expires", self.expiry(k, now, true)),
            (
                "rate limit",
                wrap(
                    k.rate_limit
                        .map_or("the server's (serve --rate-limit)".into(), |r| {
                            r.to_string()
                        }),
                ),
            ),
            ("uses left", whole(uses_left(k))),
            (
                "last used",
                wrap(
                    k.last_used_at
                        .map_or("never".into(), |t| when_full(Some(t), now)),
                ),
            ),
            ("created", wrap(when_full(Some(k.created_at), now))),
        ];
        self.detail(rows)
    }

    /// A two-column view of one record: field names, then values.
    fn detail(&self, rows: Vec<(&str, Text)>) -> Table {
        let rows = rows
            .into_iter()
            .map(|(field, value)| vec![whole(field), value])
            .collect();
        self.fitted(&[], rows)
    }

    /// A webhook's history line as a cell: plain for measuring, colored when color is on.
    fn history(&self, marks: &[Mark]) -> Text {
        Text {
            styled: self.color.then(|| history_line(marks, true)),
            ..whole(history_line(marks, false))
        }
    }

    /// The webhooks, with a HISTORY column (see [`history_line`]) once any of them has an
    /// attempt; `history` holds each one's recent attempts by id.
    pub fn webhook_list(
        &self,
        list: &[Webhook],
        history: &HashMap<String, Vec<Mark>>,
        now: Timestamp,
    ) -> Table {
        // Narrowed, the id column shows prefixes long enough to tell the webhooks apart.
        let unique = |a: &Webhook, b: &Webhook| {
            1 + a
                .id
                .chars()
                .zip(b.id.chars())
                .take_while(|(x, y)| x == y)
                .count()
        };
        let mut shortest = 8;
        for (i, a) in list.iter().enumerate() {
            for b in &list[i + 1..] {
                shortest = shortest.max(unique(a, b));
            }
        }
        let rows = list
            .iter()
            .map(|w| {
                vec![
                    Text {
                        fit: Fit::Prefix(shortest),
                        ..whole(&w.id)
                    },
                    cut(&w.url),
                    wrap(w.events.join(", ")),
                    // "all" rather than "all profiles": the list is the widest table, and
                    // must fit 80 columns with whole event names.
                    wrap(if w.full_access {
                        "all".to_string()
                    } else {
                        scope(w.scope())
                    }),
                    Text {
                        good: Some(w.is_active),
                        ..whole(yes_no(w.is_active))
                    },
                    Text {
                        good: Some(w.fail_count == 0),
                        ..whole(w.fail_count.to_string())
                    },
                    wrap(relative(w.created_at, now)),
                ]
            })
            .collect();
        let mut header = vec!["ID", "URL", "EVENTS", "SCOPE", "ACTIVE", "FAILS", "CREATED"];
        let mut rows: Vec<Vec<Text>> = rows;
        if list.iter().any(|w| history.contains_key(&w.id)) {
            header.push("HISTORY");
            for (row, w) in rows.iter_mut().zip(list) {
                let marks = history.get(&w.id).map_or(&[][..], Vec::as_slice);
                row.push(self.history(marks));
            }
        }
        self.fitted(&header, rows)
    }

    /// One webhook, with a `history` row (see [`history_line`]) when `history` has attempts.
    pub fn webhook_detail(&self, w: &Webhook, history: &[Mark], now: Timestamp) -> Table {
        let mut rows = vec![
            ("id", whole(&w.id)),
            ("user", whole(&w.user_id)),
            ("url", cut(&w.url)),
            ("events", wrap(w.events.join(", "))),
            ("scope", wrap(scope(w.scope()))),
            (
                "active",
                Text {
                    good: Some(w.is_active),
                    ..whole(yes_no(w.is_active))
                },
            ),
            (
                "failures",
                Text {
                    good: Some(w.fail_count == 0),
                    ..whole(w.fail_count.to_string())
                },
            ),
            ("secret", whole(&w.secret)),
            ("created", wrap(when_full(Some(w.created_at), now))),
            ("updated", wrap(when_full(Some(w.updated_at), now))),
        ];
        if !history.is_empty() {
            rows.push(("history", self.history(history)));
        }
        self.detail(rows)
    }

    /// Audit entries, newest first; times in full (an audit trail is read for exact times).
    pub fn audit_list(&self, list: &[AuditEntry], with_user: bool) -> Table {
        let mut header = vec!["AT", "ACTOR", "VIA", "ACTION", "TARGET", "DETAILS"];
        if with_user {
            header.insert(1, "USER");
        }
        let rows = list
            .iter()
            .map(|e| {
                let mut row = vec![
                    whole(e.at.to_rfc3339()),
                    whole(&e.actor),
                    whole(&e.via),
                    whole(&e.action),
                    whole(&e.target),
                    wrap(e.details.to_string()),
                ];
                if with_user {
                    row.insert(1, wrap(&e.user_id));
                }
                row
            })
            .collect();
        self.fitted(&header, rows)
    }

    pub fn attempt_list(&self, list: &[DeliveryAttempt], now: Timestamp) -> Table {
        let rows = list
            .iter()
            .map(|a| {
                vec![
                    wrap(relative(a.attempted_at, now)),
                    // The event's profile after its id, when it has one.
                    wrap(match &a.profile_id {
                        Some(p) => format!("{} {} profile {p}", a.event, a.event_id),
                        None => format!("{} {}", a.event, a.event_id),
                    }),
                    whole(a.attempt.to_string()),
                    Text {
                        good: Some(a.delivered),
                        ..whole(if a.delivered { "delivered" } else { "failed" })
                    },
                    wrap(status(a.status_code, &a.status_text)),
                    wrap(format!("{} ms", a.duration_ms)),
                ]
            })
            .collect();
        self.fitted(
            &["WHEN", "EVENT", "ATTEMPT", "RESULT", "STATUS", "DURATION"],
            rows,
        )
    }
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
    fn each_problem_is_shown_under_the_flag_that_was_typed() {
        assert_eq!(flag_name("expiresAt"), "--expires-at");
        assert_eq!(flag_name("--expires-in"), "--expires-in");
        assert_eq!(flag_name("profileIds[2]"), "--profile[2]");
        assert_eq!(flag_name("events[0]"), "--event[0]");
        assert_eq!(flag_name("name"), "--name");
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

    #[test]
    fn text_is_wrapped_between_words_and_cut_with_an_ellipsis() {
        assert_eq!(
            fit_text("post.published, post.failed", 16, Fit::Wrap),
            "post.published,\npost.failed"
        );
        assert_eq!(fit_text("a  b", 10, Fit::Wrap), "a  b", "fits: as it is");
        assert_eq!(
            fit_text("https://example.com/a/b", 10, Fit::Cut),
            "https://e…"
        );
        assert_eq!(fit_text("short", 10, Fit::Cut), "short");
        assert_eq!(
            fit_text("averyveryverylongword x", 8, Fit::Wrap),
            "averyve…\nx"
        );
        assert_eq!(
            fit_text("5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c", 4, Fit::Prefix(8)),
            "5b8f0c4e"
        );
        assert_eq!(fit_text("kp_12345678", 3, Fit::Whole), "kp_12345678");
    }

    #[test]
    fn widths_fit_the_screen_and_keep_whole_cells_whole() {
        let row = |url: &str| {
            vec![
                Text {
                    fit: Fit::Prefix(8),
                    ..whole("5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c")
                },
                cut(url),
                wrap("post.published, post.failed, account.connected"),
                whole("yes"),
            ]
        };
        let header = ["ID", "URL", "EVENTS", "ACTIVE"];
        let rows = vec![row(&format!("https://example.com/{}", "x".repeat(80)))];
        assert!(fit_widths(400, &header, &rows).is_none(), "fits as it is");
        for total in [60, 80, 100, 120, 160] {
            let w = fit_widths(total, &header, &rows).unwrap();
            assert!(w.iter().sum::<usize>() + 3 * 4 < total, "{total}: {w:?}");
            assert!(
                w[0] == 8 || w[0] == 36,
                "{total}: an id whole or a prefix: {w:?}"
            );
            assert!(
                w[2] >= "account.connected".len(),
                "{total}: words whole: {w:?}"
            );
            assert_eq!(w[3], "ACTIVE".len());
        }
        assert_eq!(
            fit_widths(160, &header, &rows).unwrap()[0],
            36,
            "room for the id"
        );
        assert_eq!(
            fit_widths(80, &header, &rows).unwrap()[0],
            8,
            "no room for the id"
        );
    }
}
