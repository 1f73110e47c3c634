use std::io::{IsTerminal, Read};

use clap::Subcommand;
use serde_json::Value;

use super::Context;
use keyhook_core::error::Error;
use keyhook_core::model::EventAccepted;
use keyhook_core::service::event_types;
use keyhook_core::service::events::{self, EventName, IdempotencyKey, NewEvent, IDEMPOTENCY_FIELD};
use keyhook_core::service::input::Problems;
use keyhook_core::service::keys::ProfileId;

/// The most event data read from --data, a file or standard input.
const MAX_DATA_BYTES: u64 = 64 * 1024;

#[derive(Debug, Subcommand)]
pub enum EventsCommand {
    /// Queue an event for every active webhook of the user subscribed to it
    #[command(
        after_help = "Examples:\n  keyhook events emit post.published --profile brand-a --data '{\"postId\": \"p_1\"}'\n  keyhook events emit profile.created --data @event.json"
    )]
    Emit {
        /// The event name, e.g. post.published
        #[arg(value_parser = EventNameArg, hide_possible_values = true)]
        name: String,
        /// The event's data: a JSON object, @FILE to read it from a file, or - for stdin
        #[arg(long, value_name = "JSON|@FILE|-")]
        data: Option<String>,
        /// The profile the event is about: only webhooks whose scope covers it get it;
        /// without it the event is user-wide and goes only to webhooks of all profiles
        #[arg(long, value_name = "ID")]
        profile: Option<String>,
        /// A key for this event (1-255 printable ASCII characters): a repeat with the same
        /// key within 24 hours queues nothing and prints the first event
        #[arg(long, value_name = "K")]
        idempotency_key: Option<String>,
    },
    /// Emit the event type's example (see event-types), with changes, to try a receiver
    #[command(
        after_help = "PATH names a field of the example: title, author.name, tags[0] (a missing field is added,
tags[N] with N the list's length appends). VALUE is taken as JSON when it parses as JSON (42,
true, \"x\", [1]), else as a string. The event is checked like events emit's.

Example:
  keyhook events trigger post.published --profile brand-a --set title=Hello --set 'tags[0]=breaking'"
    )]
    Trigger {
        /// The event name, e.g. post.published
        #[arg(value_parser = EventNameArg, hide_possible_values = true)]
        name: String,
        /// The profile the event is about (as events emit --profile)
        #[arg(long, value_name = "ID")]
        profile: Option<String>,
        /// Change one field of the example (repeatable)
        #[arg(long = "set", value_name = "PATH=VALUE")]
        sets: Vec<String>,
    },
}

pub fn run(ctx: &Context, cmd: EventsCommand) -> anyhow::Result<()> {
    let (name, data, profile, idempotency_key) = match cmd {
        EventsCommand::Emit {
            name,
            data,
            profile,
            idempotency_key,
        } => (name, data, profile, idempotency_key),
        EventsCommand::Trigger {
            name,
            profile,
            sets,
        } => return trigger(ctx, &name, profile, &sets),
    };
    let data = match data {
        None => None,
        Some(arg) => Some(parse_data(&read_data(&arg)?)?),
    };
    let mut p = Problems::default();
    let input = NewEvent {
        event: p.take("event", EventName::new(&name)),
        data,
        profile_id: profile.and_then(|id| p.take("profileId", ProfileId::new(&id))),
        idempotency_key: None,
        problems: p,
    };
    let mut input = input;
    if let Some(k) = idempotency_key {
        input.idempotency_key = input
            .problems
            .take(IDEMPOTENCY_FIELD, IdempotencyKey::new(&k));
    }
    // The event's own problems first (exit 2); then the database, which must exist: on a
    // missing one (a mistyped --db) the event would be queued for no webhook.
    let actor = ctx.actor()?;
    let input_keyed = input.idempotency_key.is_some();
    let checked = events::check(&actor, input)?;
    let now = ctx.clock.now();
    let accepted = events::emit_checked(&ctx.existing_store()?, &actor, checked, now)?;
    if input_keyed && accepted.created_at != now {
        ctx.out.note(
            "This idempotency key was used within the last 24 hours: the first event is shown, \
             and nothing new was queued.",
        );
    }
    print_accepted(ctx, &accepted)
}

/// `events trigger`: the type's example with `sets` applied, emitted as `events emit` would.
fn trigger(
    ctx: &Context,
    name: &str,
    profile: Option<String>,
    sets: &[String],
) -> anyhow::Result<()> {
    let mut p = Problems::default();
    let event = p.take("event", EventName::new(name));
    let profile_id = profile.and_then(|id| p.take("profileId", ProfileId::new(&id)));
    p.into_result(&["event", "profileId"])?;
    let actor = ctx.actor()?;
    let store = ctx.existing_store()?;
    // An unknown name is refused by the emit below, with the known names.
    let example = match event_types::show(&store, &actor, name) {
        Ok(t) => match t.example {
            Some(example) => Some(example),
            None => {
                return Err(Error::validation(
                    "event",
                    format!(
                        "{name} has no example to send; add one with: keyhook event-types \
                         update {name} --example FILE"
                    ),
                )
                .into())
            }
        },
        Err(Error::NotFound(_)) => None,
        Err(e) => return Err(e.into()),
    };
    let mut data = example.unwrap_or_else(|| Value::Object(Default::default()));
    for set in sets {
        event_types::set_path(&mut data, set).map_err(|m| Error::validation("set", m))?;
    }
    let Value::Object(data) = data else {
        return Err(Error::validation("example", "must be a JSON object").into());
    };
    let input = NewEvent {
        event,
        data: Some(data),
        profile_id,
        idempotency_key: None,
        problems: Problems::default(),
    };
    let checked = events::check(&actor, input)?;
    let accepted = events::emit_checked(&store, &actor, checked, ctx.clock.now())?;
    print_accepted(ctx, &accepted)
}

fn print_accepted(ctx: &Context, accepted: &EventAccepted) -> anyhow::Result<()> {
    ctx.out.data(accepted, |o| {
        let about = accepted
            .profile_id
            .as_ref()
            .map_or(String::new(), |p| format!(", profile {p}"));
        writeln!(
            o,
            "Queued {} ({}{about}) for {} webhook{}.",
            accepted.id,
            accepted.event,
            accepted.deliveries,
            if accepted.deliveries == 1 { "" } else { "s" }
        )
    })
}

/// Where an input is read from.
pub(crate) enum Source<'a> {
    Stdin,
    File(&'a str),
    Inline(&'a str),
}

/// `--data`: inline JSON, @FILE or - (standard input).
pub(crate) fn read_data(arg: &str) -> anyhow::Result<Vec<u8>> {
    let source = match arg {
        "-" => Source::Stdin,
        _ => arg
            .strip_prefix('@')
            .map_or(Source::Inline(arg), Source::File),
    };
    read_input("data", source, MAX_DATA_BYTES)
}

/// The bytes of an input, at most `max` (else a validation error on `field`).
pub(crate) fn read_input(field: &str, source: Source<'_>, max: u64) -> anyhow::Result<Vec<u8>> {
    let too_big = || Error::validation(field, format!("is larger than {max} bytes"));
    let mut buf = Vec::new();
    let read = |r: &mut dyn Read, buf: &mut Vec<u8>| r.take(max + 1).read_to_end(buf);
    match source {
        Source::Stdin => {
            if std::io::stdin().is_terminal() {
                return Err(Error::validation(field, "expected JSON on standard input").into());
            }
            read(&mut std::io::stdin().lock(), &mut buf)?;
        }
        Source::File(path) => {
            let mut f = std::fs::File::open(path)
                .map_err(|e| Error::validation(field, format!("cannot read {path}: {e}")))?;
            read(&mut f, &mut buf)?;
        }
        Source::Inline(text) => buf = text.as_bytes().to_vec(),
    }
    if buf.len() as u64 > max {
        return Err(too_big().into());
    }
    Ok(buf)
}

pub(crate) fn parse_data(bytes: &[u8]) -> Result<serde_json::Map<String, Value>, Error> {
    // The same strict parser as the server's: a repeated key is refused.
    match keyhook_core::service::input::parse_json(bytes) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(Error::validation("data", "must be a JSON object")),
        Err(message) => Err(Error::validation("data", message)),
    }
}

/// An event name as typed on the command line: any string (`EventName` checks it, with the
/// rule's own message), which shell completion offers from the database's catalog: its one
/// listed value is a mark the completion scripts replace with a call of `keyhook event-types
/// list --names` (`docs::EVENT_NAMES_MARK`). The arguments that take one say
/// `hide_possible_values`, so `--help` and the man pages are unchanged.
#[derive(Debug, Clone, Copy)]
pub struct EventNameArg;

impl clap::builder::TypedValueParser for EventNameArg {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(std::iter::once(
            clap::builder::PossibleValue::new(crate::docs::EVENT_NAMES_MARK),
        )))
    }
}
