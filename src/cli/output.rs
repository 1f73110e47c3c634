//! Printing: data to stdout, messages to stderr; `--json` prints exactly the HTTP body.

use std::io::{self, Write};

use comfy_table::{presets, ContentArrangement, Table};
use serde::Serialize;

use crate::error::Error;
use crate::model::{ApiKey, Data, DeliveryAttempt, ErrorEnvelope, Webhook};
use crate::time::Timestamp;

pub struct Output {
    json: bool,
}

impl Output {
    pub fn new(json: bool) -> Output {
        Output { json }
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
            eprintln!("{message}");
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
                    eprintln!("keyhook: {}: {}", flag_name(&d.field), d.message);
                }
            }
            _ => eprintln!("keyhook: {e}"),
        }
    }
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

fn table() -> Table {
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t
}

/// `2026-11-22 03:47 UTC`, or `-` for no time.
pub fn when(t: Option<Timestamp>) -> String {
    match t {
        None => "-".into(),
        Some(t) => t.to_datetime().format("%Y-%m-%d %H:%M UTC").to_string(),
    }
}

fn expiry(key: &ApiKey, now: Timestamp) -> String {
    match key.expires_at {
        None => "never".into(),
        Some(_) if key.is_expired(now) => format!("EXPIRED {}", when(key.expires_at)),
        t => when(t),
    }
}

fn scope(key: &ApiKey) -> String {
    if key.full_access {
        "all profiles".into()
    } else {
        key.profile_ids.join(", ")
    }
}

pub fn key_list(keys: &[ApiKey], now: Timestamp, with_user: bool) -> Table {
    let mut t = table();
    let mut header = vec![
        "ID",
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
    t.set_header(header);
    for k in keys {
        let mut row = vec![
            k.id.clone(),
            k.key_prefix.clone(),
            k.name.clone(),
            k.permission.as_str().to_string(),
            scope(k),
            expiry(k, now),
            when(k.last_used_at),
        ];
        if with_user {
            row.insert(0, k.user_id.clone());
        }
        t.add_row(row);
    }
    t
}

pub fn key_detail(k: &ApiKey, now: Timestamp) -> Table {
    let mut t = table();
    let rows = [
        ("id", k.id.clone()),
        ("user", k.user_id.clone()),
        ("name", k.name.clone()),
        ("prefix", k.key_prefix.clone()),
        ("permission", k.permission.as_str().to_string()),
        ("scope", scope(k)),
        ("expires", expiry(k, now)),
        ("last used", when(k.last_used_at)),
        ("created", when(Some(k.created_at))),
    ];
    for (field, value) in rows {
        t.add_row(vec![field.to_string(), value]);
    }
    t
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

pub fn webhook_list(list: &[Webhook]) -> Table {
    let mut t = table();
    t.set_header(vec!["ID", "URL", "EVENTS", "ACTIVE", "FAILS", "CREATED"]);
    for w in list {
        t.add_row(vec![
            w.id.clone(),
            w.url.clone(),
            w.events.join(", "),
            yes_no(w.is_active).to_string(),
            w.fail_count.to_string(),
            when(Some(w.created_at)),
        ]);
    }
    t
}

pub fn webhook_detail(w: &Webhook) -> Table {
    let mut t = table();
    let rows = [
        ("id", w.id.clone()),
        ("user", w.user_id.clone()),
        ("url", w.url.clone()),
        ("events", w.events.join(", ")),
        ("active", yes_no(w.is_active).to_string()),
        ("failures", w.fail_count.to_string()),
        ("secret", w.secret.clone()),
        ("created", when(Some(w.created_at))),
        ("updated", when(Some(w.updated_at))),
    ];
    for (field, value) in rows {
        t.add_row(vec![field.to_string(), value]);
    }
    t
}

pub fn attempt_list(list: &[DeliveryAttempt]) -> Table {
    let mut t = table();
    t.set_header(vec![
        "TIME", "EVENT", "ATTEMPT", "RESULT", "STATUS", "DURATION",
    ]);
    for a in list {
        t.add_row(vec![
            a.attempted_at
                .to_datetime()
                .format("%Y-%m-%d %H:%M:%S UTC")
                .to_string(),
            format!("{} {}", a.event, a.event_id),
            a.attempt.to_string(),
            if a.delivered { "delivered" } else { "failed" }.to_string(),
            format!("{} {}", a.status_code, a.status_text),
            format!("{} ms", a.duration_ms),
        ]);
    }
    t
}
