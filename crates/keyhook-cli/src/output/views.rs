//! The views: lists and detail views of keys, webhooks, attempts and the audit log, as tables.

use std::collections::HashMap;
use std::io::{self, IsTerminal};

use comfy_table::{presets, Attribute, Cell, Color, ContentArrangement, Table};

use keyhook_core::model::{ApiKey, AuditEntry, DeliveryAttempt, EventType, Webhook};
use keyhook_core::service::history::Mark;
use keyhook_core::time::Timestamp;

use super::fit::{cut, fit_text, fit_widths, whole, wrap, Fit, Text};
use super::format::{scope, uses_left, when_full, yes_no};
use super::{history_line, relative, status, Output};

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
                    cut(listed_url(w)),
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
            ("url", cut(listed_url(w))),
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
        // After the secret: how the webhook signs when it is not the default (hmac), the
        // public key receivers verify v1a with, and the static headers' names (their values
        // are never shown).
        let mut at = rows
            .iter()
            .position(|(k, _)| *k == "secret")
            .map_or(rows.len(), |i| i + 1);
        let mut add = |rows: &mut Vec<_>, row| {
            rows.insert(at, row);
            at += 1;
        };
        if w.signing != keyhook_core::model::SigningMode::Hmac {
            add(&mut rows, ("signing", whole(w.signing.as_str())));
        }
        if let Some(pk) = w.public_key.as_ref().filter(|_| w.signing.ed25519()) {
            add(&mut rows, ("public key", whole(pk)));
        }
        if !w.header_names.is_empty() {
            add(&mut rows, ("headers", wrap(w.header_names.join(", "))));
        }
        if let Some(f) = &w.filter {
            rows.insert(5, ("filter", wrap(f.clone())));
        }
        // A webhook's own delivery settings (CONTRACT §15), before `active`.
        let at = rows
            .iter()
            .position(|(k, _)| *k == "active")
            .unwrap_or(rows.len());
        let mut own = Vec::new();
        if let Some(list) = &w.control.retry_schedule {
            let text = if list.is_empty() {
                "none (no retry)".to_string()
            } else {
                list.join(", ")
            };
            own.push(("retries", wrap(text)));
        }
        if let Some(ms) = w.control.timeout_ms {
            own.push(("timeout", whole(format!("{ms}ms"))));
        }
        if let Some(r) = w.control.rate {
            own.push(("rate", whole(r.to_string())));
        }
        if w.control.ordered {
            own.push(("ordered", wrap("yes: one at a time, in the order queued")));
        }
        rows.splice(at..at, own);
        if !history.is_empty() {
            rows.push(("history", self.history(history)));
        }
        self.detail(rows)
    }

    /// The event catalog, by name.
    pub fn event_type_list(&self, list: &[EventType]) -> Table {
        let header = [
            "NAME",
            "PROFILE",
            "SCHEMA",
            "EXAMPLE",
            "DEPRECATED",
            "DESCRIPTION",
        ];
        let rows = list
            .iter()
            .map(|t| {
                vec![
                    whole(&t.name),
                    whole(t.profile.as_str()),
                    whole(yes_no(t.schema.is_some())),
                    whole(yes_no(t.example.is_some())),
                    whole(yes_no(t.deprecated)),
                    wrap(t.description.as_deref().unwrap_or("")),
                ]
            })
            .collect();
        self.fitted(&header, rows)
    }

    /// One event type, its schema and example as indented JSON (the built-ins' dates, 0, as
    /// `built in`).
    pub fn event_type_detail(&self, t: &EventType, now: Timestamp) -> Table {
        let json = |v: &Option<serde_json::Value>| {
            v.as_ref().map_or("none".to_string(), |v| {
                serde_json::to_string_pretty(v).unwrap_or_default()
            })
        };
        let rows = vec![
            ("name", whole(&t.name)),
            ("description", wrap(t.description.as_deref().unwrap_or(""))),
            ("profile", whole(t.profile.as_str())),
            ("deprecated", whole(yes_no(t.deprecated))),
            ("schema", whole(json(&t.schema))),
            ("example", whole(json(&t.example))),
            ("created", wrap(built_in_or(t.created_at, now))),
            ("updated", wrap(built_in_or(t.updated_at, now))),
        ];
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
                    match &a.skipped {
                        Some(_) => whole("skipped"),
                        None => Text {
                            good: Some(a.delivered),
                            ..whole(if a.delivered { "delivered" } else { "failed" })
                        },
                    },
                    wrap(match &a.skipped {
                        Some(kind) => format!("filter error: {kind}"),
                        None => status(a.status_code, &a.status_text),
                    }),
                    wrap(format!("{} ms", a.duration_ms)),
                ]
            })
            .collect::<Vec<_>>();
        // An ordered webhook whose queue a failing delivery holds: a QUEUE column says which.
        if list.iter().any(|a| a.holds_queue) {
            let rows = rows
                .into_iter()
                .zip(list)
                .map(|(mut row, a)| {
                    row.push(wrap(if a.holds_queue {
                        holds_queue(a.queued_behind)
                    } else {
                        String::new()
                    }));
                    row
                })
                .collect();
            return self.fitted(
                &[
                    "WHEN", "EVENT", "ATTEMPT", "RESULT", "STATUS", "DURATION", "QUEUE",
                ],
                rows,
            );
        }
        self.fitted(
            &["WHEN", "EVENT", "ATTEMPT", "RESULT", "STATUS", "DURATION"],
            rows,
        )
    }
}

/// What an attempt whose delivery holds its ordered webhook's queue says of it.
pub fn holds_queue(behind: i64) -> String {
    format!("holds the queue, {behind} waiting")
}

/// `t` in full, or `built in` for the date 0 the built-in event types carry.
fn built_in_or(t: Timestamp, now: Timestamp) -> String {
    if t.0 == 0 {
        "built in".into()
    } else {
        when_full(Some(t), now)
    }
}

/// A webhook's URL in the lists, an ephemeral one's marked `(listen)` first (the part a
/// narrow table keeps), `{event}` shown as the operator wrote it.
fn listed_url(w: &Webhook) -> String {
    if w.ephemeral {
        format!(
            "(listen) {}",
            keyhook_core::service::listen::shown_url(&w.url)
        )
    } else {
        w.url.clone()
    }
}
