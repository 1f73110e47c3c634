//! Printing: data to stdout, messages to stderr; `--json` prints exactly the HTTP body.

mod fit;
mod format;
mod sparkline;
mod views;

pub use format::{relative, status, when};
pub use sparkline::history_line;
pub use views::holds_queue;

use std::io::{self, IsTerminal, Write};

use serde::Serialize;

use keyhook_core::error::Error;
use keyhook_core::model::{Data, ErrorEnvelope};

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
        "filter" => "--filter",
        "events" => "--event",
        "data" => "--data",
        "user" => "--user",
        "since" => "--since",
        "eventId" => "--event",
        "Idempotency-Key" => "--idempotency-key",
        "limit" => "--limit",
        "description" => "--description",
        "schema" => "--schema",
        "example" => "--example",
        "set" => "--set",
        _ => return field.to_string(),
    };
    format!("{flag}{index}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_problem_is_shown_under_the_flag_that_was_typed() {
        assert_eq!(flag_name("expiresAt"), "--expires-at");
        assert_eq!(flag_name("--expires-in"), "--expires-in");
        assert_eq!(flag_name("profileIds[2]"), "--profile[2]");
        assert_eq!(flag_name("events[0]"), "--event[0]");
        assert_eq!(flag_name("name"), "--name");
    }
}
