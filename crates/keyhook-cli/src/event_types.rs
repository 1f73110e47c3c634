//! `keyhook event-types`: the operator's event catalog (`service::event_types`).

use clap::{Args, Subcommand};
use serde_json::Value;

use super::events::{read_input, Source};
use super::Context;
use keyhook_core::error::Error;
use keyhook_core::model::EventProfile;
use keyhook_core::service::event_types::{self, EventTypePatch, NewEventType, DOCUMENT_MAX_BYTES};
use keyhook_core::service::input::parse_json;

#[derive(Debug, Subcommand)]
pub enum EventTypesCommand {
    /// Add an event type to the catalog
    #[command(
        after_help = "NAME is lowercase words separated by dots (post.updated), at most 64 characters; names under\nwebhook. are keyhook's own. A schema is a JSON Schema (draft 2020-12) that every event's data must\nmatch; an example, which must match it, is what `keyhook events trigger` sends.\n\nExample:\n  keyhook event-types add post.updated --schema post.schema.json --example post.json"
    )]
    Add {
        /// The event name, e.g. post.updated
        name: String,
        #[command(flatten)]
        fields: Fields,
    },
    /// List the event catalog
    #[command(after_help = "Example:\n  keyhook event-types list --names")]
    List {
        /// Print only the names, one per line (what shell completion reads)
        #[arg(long)]
        names: bool,
    },
    /// Show an event type with its schema and example
    #[command(after_help = "Example:\n  keyhook --json event-types show post.published")]
    Show {
        /// The event name
        #[arg(value_parser = crate::events::EventNameArg, hide_possible_values = true)]
        name: String,
    },
    /// Change an event type's description, schema, example or profile rule
    #[command(
        after_help = "Options not given keep their value; --clear-description, --clear-schema and --clear-example\nremove one, --profile-optional undoes --profile-required and --user-wide.\n\nExample:\n  keyhook event-types update post.published --example post.json"
    )]
    Update {
        /// The event name
        #[arg(value_parser = crate::events::EventNameArg, hide_possible_values = true)]
        name: String,
        #[command(flatten)]
        fields: Fields,
        /// Events of this type may name a profile or not (the default)
        #[arg(long, conflicts_with_all = ["profile_required", "user_wide"])]
        profile_optional: bool,
        /// Remove the description
        #[arg(long, conflicts_with = "description")]
        clear_description: bool,
        /// Remove the schema: data is no longer checked
        #[arg(long, conflicts_with = "schema")]
        clear_schema: bool,
        /// Remove the example
        #[arg(long, conflicts_with = "example")]
        clear_example: bool,
    },
    /// Deprecate an event type: no new subscriptions, existing ones keep receiving
    #[command(after_help = "Example:\n  keyhook event-types deprecate post.failed")]
    Deprecate {
        /// The event name
        #[arg(value_parser = crate::events::EventNameArg, hide_possible_values = true)]
        name: String,
    },
    /// Delete an event type nothing subscribes to and nothing is pending for
    #[command(
        after_help = "Built-in types are deprecated, not deleted; a type in use is refused (409, exit 4).\n\nExample:\n  keyhook event-types delete post.updated"
    )]
    Delete {
        /// The event name
        #[arg(value_parser = crate::events::EventNameArg, hide_possible_values = true)]
        name: String,
    },
}

/// What `add` and `update` set.
#[derive(Debug, Args)]
pub struct Fields {
    /// What the event means (at most 500 characters)
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// A JSON Schema (draft 2020-12) the events' data must match: a file, or - for stdin
    #[arg(long, value_name = "FILE|-")]
    schema: Option<String>,
    /// An example of the events' data (a JSON object), for `events trigger`: a file, or -
    #[arg(long, value_name = "FILE|-")]
    example: Option<String>,
    /// Events of this type must name a profile (--profile, profileId)
    #[arg(long, conflicts_with = "user_wide")]
    profile_required: bool,
    /// Events of this type must not name a profile
    #[arg(long)]
    user_wide: bool,
}

impl Fields {
    fn profile(&self) -> Option<EventProfile> {
        if self.profile_required {
            Some(EventProfile::Required)
        } else if self.user_wide {
            Some(EventProfile::None)
        } else {
            None
        }
    }
}

/// A JSON document named by `--schema` or `--example`: a file, or standard input.
fn document(field: &str, arg: Option<&str>) -> anyhow::Result<Option<Value>> {
    let Some(arg) = arg else {
        return Ok(None);
    };
    let source = if arg == "-" {
        Source::Stdin
    } else {
        Source::File(arg)
    };
    let bytes = read_input(field, source, DOCUMENT_MAX_BYTES as u64)?;
    let v = parse_json(&bytes).map_err(|m| Error::validation(field, m))?;
    Ok(Some(v))
}

/// The event type's name is the argument NAME here, not a `--name` (as a key's is).
fn name_is_positional(e: Error) -> Error {
    match e {
        Error::Validation(mut details) => {
            for d in &mut details {
                if d.field == "name" {
                    d.field = "NAME".into();
                }
            }
            Error::Validation(details)
        }
        e => e,
    }
}

pub fn run(ctx: &Context, cmd: EventTypesCommand) -> anyhow::Result<()> {
    let actor = ctx.actor()?;
    let now = ctx.clock.now();
    let t = match cmd {
        EventTypesCommand::Add { name, fields } => {
            let input = NewEventType {
                profile: fields.profile().unwrap_or(EventProfile::Optional),
                schema: document("schema", fields.schema.as_deref())?,
                example: document("example", fields.example.as_deref())?,
                description: fields.description,
                name,
            };
            event_types::add(&ctx.store()?, &actor, input, now).map_err(name_is_positional)?
        }
        EventTypesCommand::List { names } => {
            let list = event_types::list(&ctx.existing_store()?, &actor)?;
            if names {
                return ctx.out.data(&list, |w| {
                    list.iter().try_for_each(|t| writeln!(w, "{}", t.name))
                });
            }
            return ctx
                .out
                .data(&list, |w| writeln!(w, "{}", ctx.out.event_type_list(&list)));
        }
        EventTypesCommand::Show { name } => {
            event_types::show(&ctx.existing_store()?, &actor, &name)?
        }
        EventTypesCommand::Update {
            name,
            fields,
            profile_optional,
            clear_description,
            clear_schema,
            clear_example,
        } => {
            let clear_or =
                |clear: bool, v: Option<Value>| if clear { Some(None) } else { v.map(Some) };
            let patch = EventTypePatch {
                profile: fields
                    .profile()
                    .or(profile_optional.then_some(EventProfile::Optional)),
                schema: clear_or(clear_schema, document("schema", fields.schema.as_deref())?),
                example: clear_or(
                    clear_example,
                    document("example", fields.example.as_deref())?,
                ),
                description: if clear_description {
                    Some(None)
                } else {
                    fields.description.map(Some)
                },
            };
            event_types::update(&ctx.existing_store()?, &actor, &name, patch, now)?
        }
        EventTypesCommand::Deprecate { name } => {
            event_types::deprecate(&ctx.existing_store()?, &actor, &name, now)?
        }
        EventTypesCommand::Delete { name } => {
            let t = event_types::delete(&ctx.existing_store()?, &actor, &name, now)?;
            return ctx
                .out
                .data(&t, |w| writeln!(w, "Deleted event type {}.", t.name));
        }
    };
    ctx.out.data(&t, |w| {
        writeln!(w, "{}", ctx.out.event_type_detail(&t, now))
    })
}
