use clap::Subcommand;

use super::output::status;
use serde_json::Value;

use super::webhook_flow::{FlowArgs, FlowChange, CHANGE_IDS};
use super::{prompt, secret_out, Context, Status};
use keyhook_core::error::Error;
use keyhook_core::model::SigningMode;
use keyhook_core::model::Webhook;
use keyhook_core::service::event_types::{self, TrialRefused};
use keyhook_core::service::events::EventName;
use keyhook_core::service::filter::Filter;
use keyhook_core::service::history;
use keyhook_core::service::input::Problems;
use keyhook_core::service::keys::{ProfileId, ProfileIds};
use keyhook_core::service::replay::{self, ReplayRequest};
use keyhook_core::service::webhooks::{
    self, Grace, HeaderPatch, NewWebhook, RotateSecret, StaticHeaders, WebhookEvents, WebhookPatch,
    WebhookUrl,
};
use keyhook_core::service::Publish;
use keyhook_core::time::Timestamp;

#[derive(Debug, Subcommand)]
pub enum WebhooksCommand {
    /// Subscribe a URL to events (at most 10 webhooks per user)
    #[command(
        after_help = "Example:\n  keyhook webhooks create --url https://example.com/hooks --event post.published --event post.failed"
    )]
    Create {
        /// The http(s) URL that receives the deliveries
        #[arg(long)]
        url: String,
        /// An event to subscribe to (repeat for several), e.g. post.published
        #[arg(long = "event", value_name = "NAME", required = true,
              value_parser = crate::events::EventNameArg, hide_possible_values = true)]
        events: Vec<String>,
        /// Deliver only events of this profile (repeat for several); without it the webhook
        /// gets the events of all profiles, and user-wide events
        #[arg(long = "profile", value_name = "ID")]
        profiles: Vec<String>,
        /// Deliver only the events for which this CEL expression over event, profileId and
        /// data is true, e.g. 'data.tags.exists(t, t == "breaking")'
        #[arg(long, value_name = "EXPR")]
        filter: Option<String>,
        #[command(flatten)]
        flow: FlowArgs,
        #[command(flatten)]
        delivery: DeliveryArgs,
    },
    /// Change a webhook's URL, events, scope or filter (what PATCH /webhooks/{id} changes)
    #[command(
        after_help = "Examples:\n  keyhook webhooks update 5b8f0c4e --url https://example.com/hooks/v2\n  keyhook webhooks update 5b8f0c4e --event post.published --event post.failed\n  keyhook webhooks update 5b8f0c4e --profile brand-a --profile brand-b\n  keyhook webhooks update 5b8f0c4e --all-profiles",
        group(clap::ArgGroup::new("change").required(true).multiple(true)
            .args(["url", "events", "profiles", "all_profiles", "filter", "no_filter",
                   "signing", "headers", "no_headers"])
            .args(CHANGE_IDS))
    )]
    Update {
        /// Webhook id
        id: String,
        /// The new http(s) URL
        #[arg(long)]
        url: Option<String>,
        /// The events to subscribe to, replacing the current ones (repeat for several)
        #[arg(long = "event", value_name = "NAME",
              value_parser = crate::events::EventNameArg, hide_possible_values = true)]
        events: Vec<String>,
        /// Deliver only events of these profiles, replacing the current scope (repeat for
        /// several)
        #[arg(long = "profile", value_name = "ID", conflicts_with = "all_profiles")]
        profiles: Vec<String>,
        /// Deliver the events of all profiles, and user-wide events
        #[arg(long)]
        all_profiles: bool,
        /// Deliver only the events for which this CEL expression is true, replacing the
        /// current filter
        #[arg(long, value_name = "EXPR", conflicts_with = "no_filter")]
        filter: Option<String>,
        /// Remove the filter: deliver every subscribed event
        #[arg(long)]
        no_filter: bool,
        #[command(flatten)]
        flow: FlowChange,
        #[command(flatten)]
        delivery: DeliveryArgs,
        /// Stop sending this static header (repeat for several)
        #[arg(long = "no-header", value_name = "NAME")]
        no_headers: Vec<String>,
    },
    /// List the user's webhooks
    #[command(after_help = "Example:\n  keyhook webhooks list")]
    List,
    /// Show one webhook, its secret included
    #[command(
        after_help = "Example:\n  keyhook webhooks show 5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c"
    )]
    Show {
        /// Webhook id
        id: String,
    },
    /// Send a webhook.test delivery now and report what the endpoint answered
    #[command(
        after_help = "Example:\n  keyhook webhooks test 5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c"
    )]
    Test {
        /// Webhook id
        id: String,
    },
    /// Re-enable a webhook and reset its failure count
    #[command(
        after_help = "Example:\n  keyhook webhooks enable 5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c"
    )]
    Enable {
        /// Webhook id
        id: String,
    },
    /// Stop event deliveries to a webhook
    #[command(
        after_help = "Example:\n  keyhook webhooks disable 5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c"
    )]
    Disable {
        /// Webhook id
        id: String,
    },
    /// Delete a webhook and its delivery log
    #[command(
        after_help = "Example:\n  keyhook webhooks delete 5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c --yes"
    )]
    Delete {
        /// Webhook id
        id: String,
        /// Do not ask for confirmation (required without a terminal)
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period
    #[command(
        after_help = "Example:\n  keyhook webhooks rotate-secret 5b8f0c4e --grace 2d\n  SECRET=$(keyhook webhooks rotate-secret 5b8f0c4e --quiet)"
    )]
    RotateSecret {
        /// Webhook id
        id: String,
        /// Keep signing with the old secret too for this long (0 to 7d; 0 drops it at once)
        #[arg(long, value_name = "DUR", default_value = "24h", value_parser = grace)]
        grace: Grace,
        /// Print only the new secret (an ed25519 webhook: its new public key; both: the
        /// secret, then the public key)
        #[arg(long, short = 'q')]
        quiet: bool,
    },
    /// Show the newest delivery attempts to a webhook
    #[command(
        after_help = "Examples:\n  keyhook webhooks deliveries 5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c\n  keyhook webhooks deliveries 5b8f0c4e --follow"
    )]
    Deliveries {
        /// Webhook id
        id: String,
        /// Then print each new attempt as it is recorded (one JSON object per line with
        /// --json), looking once a second, until SIGINT or SIGTERM
        #[arg(long, short = 'f')]
        follow: bool,
    },
    /// Queue past events again for a webhook (after its endpoint was down)
    #[command(
        after_help = "Each replayed delivery keeps its event id as webhook-id, so receivers can de-duplicate.\n\nExamples:\n  keyhook webhooks replay 5b8f0c4e --since 2h --failed-only\n  keyhook webhooks replay 5b8f0c4e --since 2026-11-22T08:00:00Z\n  keyhook webhooks replay 5b8f0c4e --event evt_0f3c9a7e5b2d4c1a8e6f0b3d7a9c2e4f"
    )]
    Replay {
        /// Webhook id
        id: String,
        /// Replay events since this time: RFC 3339, or a duration ago such as 2h [default: 24h]
        #[arg(long, value_name = "TS|DUR")]
        since: Option<String>,
        /// Replay only this event (its id, evt_...)
        #[arg(long = "event", value_name = "EVT_ID")]
        event_id: Option<String>,
        /// Only events whose last delivery to this webhook failed; one waiting for its next
        /// retry is sent now (not queued twice)
        #[arg(long)]
        failed_only: bool,
    },
    /// Try a filter on an event before saving it: prints true or false, or why it fails
    #[command(after_help = FILTER_TEST_HELP)]
    FilterTest {
        /// The CEL expression, as webhooks create --filter takes it
        #[arg(value_name = "EXPR")]
        expr: String,
        /// The event type: the filter's `event`, and without --data its catalog example is the
        /// data
        #[arg(long, value_name = "NAME", default_value = "post.published",
              value_parser = crate::events::EventNameArg, hide_possible_values = true)]
        event: String,
        /// The event's data instead of the example: a JSON object, @FILE to read it from a
        /// file, or - for stdin
        #[arg(long, value_name = "JSON|@FILE|-")]
        data: Option<String>,
        /// The event's profile, the filter's `profileId` (without it: null)
        #[arg(long, value_name = "ID")]
        profile: Option<String>,
    },
}

/// How a webhook is signed and which static headers it sends (CONTRACT §15).
#[derive(Debug, clap::Args)]
pub struct DeliveryArgs {
    /// How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which
    /// receivers verify with the webhook's public key alone) or both
    #[arg(long, value_name = "MODE", value_parser = ["hmac", "ed25519", "both"])]
    signing: Option<String>,
    /// A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it,
    /// replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it
    /// from a file and NAME:- from standard input, which keep it out of the process list
    #[arg(long = "header", value_name = "NAME:VALUE")]
    headers: Vec<String>,
}

impl DeliveryArgs {
    fn signing(&self) -> Option<SigningMode> {
        // The parser takes only the modes' names.
        self.signing
            .as_deref()
            .map(|m| SigningMode::parse(m).expect("clap checked the value"))
    }

    /// The `--header`s, their values read from files or standard input; problems go to `p`
    /// under `headers`, naming a header but never quoting a value.
    fn headers(&self, p: &mut Problems) -> Option<StaticHeaders> {
        if self.headers.is_empty() {
            return None;
        }
        let mut pairs = Vec::with_capacity(self.headers.len());
        let mut stdin_used = false;
        for raw in &self.headers {
            let Some((name, value)) = raw.split_once(':') else {
                p.add(
                    "headers",
                    "a --header is NAME:VALUE, NAME:@FILE or NAME:- (standard input)",
                );
                return None;
            };
            let value = match header_value(name, value, &mut stdin_used) {
                Ok(v) => v,
                Err(m) => {
                    p.add("headers", m);
                    return None;
                }
            };
            pairs.push((name.to_string(), value));
        }
        p.take("headers", StaticHeaders::new(pairs))
    }
}

/// A `--header`'s value: as given, from `@FILE`, or from standard input (`-`, once); one
/// final newline is dropped from what is read.
fn header_value(name: &str, value: &str, stdin_used: &mut bool) -> Result<String, String> {
    let read = if let Some(file) = value.strip_prefix('@') {
        std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read header {name}'s value from {file}: {e}"))?
    } else if value == "-" {
        if std::mem::replace(stdin_used, true) {
            return Err("only one --header can be read from standard input".into());
        }
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| format!("cannot read header {name}'s value from standard input: {e}"))?;
        s
    } else {
        return Ok(value.to_string());
    };
    let read = read.strip_suffix('\n').unwrap_or(&read);
    Ok(read.strip_suffix('\r').unwrap_or(read).to_string())
}

const FILTER_TEST_HELP: &str = "\
EXPR is checked as when a webhook is created with it, then evaluated over event (--event),
profileId (--profile, else null) and data (--data, else the event type's example in the
catalog; --data is checked against the type's schema as events emit checks it). Nothing is
stored, queued or sent; only the database's catalog is read.

Exit status: 0 the filter is true (a webhook with it receives the event); 1 it is false, or
its evaluation fails (printed as error: a webhook with it skips the event); 2 the filter is
refused as it would be when written, or the event type or the data is not valid.

Examples:
  keyhook webhooks filter-test 'data.tags.exists(t, t == \"breaking\")' --event post.updated
  keyhook webhooks filter-test 'data.n > 1.0' --data '{\"n\": 2}' --event post.failed
  keyhook webhooks filter-test 'profileId == \"brand-a\"' --data @post.json --profile brand-a";

pub fn run(ctx: &Context, cmd: WebhooksCommand) -> anyhow::Result<()> {
    if let WebhooksCommand::FilterTest {
        expr,
        event,
        data,
        profile,
    } = cmd
    {
        return filter_test(ctx, &expr, &event, data.as_deref(), profile);
    }
    let now = ctx.clock.now();
    let actor = ctx.actor()?;
    // Only `create` makes something new; every other command reads or acts on a webhook that
    // exists, so it needs the database to exist and never creates an empty one.
    let store = if matches!(cmd, WebhooksCommand::Create { .. }) {
        ctx.store()?
    } else {
        ctx.existing_store()?
    };
    match cmd {
        WebhooksCommand::Create {
            url,
            events,
            profiles,
            filter,
            flow,
            delivery,
        } => {
            let mut p = Problems::default();
            let (full_access, profile_ids) = scope_args(&mut p, profiles, false);
            let ordered = flow.ordered.then_some(true);
            let (retry_schedule, timeout, rate) = flow.convert(&mut p);
            let headers = delivery.headers(&mut p);
            let input = NewWebhook {
                signing: delivery.signing(),
                headers,
                url: p.take("url", WebhookUrl::new(&url, ctx.allow_private)),
                events: p.take_list("events", WebhookEvents::new(events)),
                full_access,
                profile_ids,
                filter: filter.and_then(|f| p.take("filter", Filter::new(&f))),
                retry_schedule,
                timeout,
                rate,
                ordered,
                problems: p,
                idempotency: None,
                ephemeral: false,
            };
            // The output carries the new secret: written and flushed before the commit, or
            // no webhook. /dev/null is fine: `show` prints the secret again.
            let mut publish = |w: &Webhook| {
                secret_out::publish_readable_again(
                    "webhook secret",
                    "no webhook was created",
                    || {
                        ctx.out.data(w, |o| {
                            writeln!(o, "{}", ctx.out.webhook_detail(w, &[], now))
                        })
                    },
                )
            };
            webhooks::create(
                &store,
                &actor,
                input,
                now,
                Publish::BeforeCommit(&mut publish),
            )?;
            ctx.out.note(
                "Receivers verify deliveries with the secret (Standard Webhooks signatures).",
            );
            Ok(())
        }
        WebhooksCommand::List => {
            let list = webhooks::list(&store, &actor)?;
            if list.is_empty() {
                ctx.out.note(&format!("No webhooks for user {}.", ctx.user));
            }
            // The history line is for the table only (`--json` is the API body), fetched for
            // all the user's webhooks in one query.
            let history = if ctx.out.is_json() || list.is_empty() {
                Default::default()
            } else {
                history::recent(&store, &actor, None)?
            };
            ctx.out.data(&*list, |o| {
                if list.is_empty() {
                    return Ok(());
                }
                writeln!(o, "{}", ctx.out.webhook_list(&list, &history, now))
            })
        }
        WebhooksCommand::Show { id } => {
            let w = webhooks::get(&store, &actor, &id)?;
            // Both only for the table: `--json` is the API body.
            let (reason, mut history) = if ctx.out.is_json() {
                Default::default()
            } else {
                (
                    webhooks::disabled_reason(&store, &w)?,
                    history::recent(&store, &actor, Some(&w.id))?,
                )
            };
            let marks = history.remove(&w.id).unwrap_or_default();
            ctx.out.data(&w, |o| {
                writeln!(o, "{}", ctx.out.webhook_detail(&w, &marks, now))?;
                if let Some(reason) = &reason {
                    writeln!(o, "disabled: {reason}")?;
                }
                Ok(())
            })
        }
        WebhooksCommand::RotateSecret { id, grace, quiet } => {
            let input = RotateSecret {
                grace: Some(grace),
                ..RotateSecret::default()
            };
            // As `create`: the new secret is written and flushed before the commit, or the
            // old one stays.
            let mut publish = |w: &Webhook| {
                secret_out::publish_readable_again(
                    "webhook secret",
                    "the secret is unchanged",
                    || {
                        if quiet && !ctx.out.is_json() {
                            use std::io::Write;
                            let mut stdout = std::io::stdout().lock();
                            // What the receiver needs now: the secret, the public key, or
                            // both (secret first).
                            if w.signing.hmac() {
                                writeln!(stdout, "{}", w.secret)?;
                            }
                            if let (true, Some(pk)) = (w.signing.ed25519(), &w.public_key) {
                                writeln!(stdout, "{pk}")?;
                            }
                            stdout.flush()?;
                            return Ok(());
                        }
                        ctx.out.data(w, |o| {
                            writeln!(o, "{}", ctx.out.webhook_detail(w, &[], now))
                        })
                    },
                )
            };
            let publish = Publish::BeforeCommit(&mut publish);
            let w = webhooks::rotate_secret(&store, &actor, &id, input, now, publish)?;
            if !quiet {
                let what = match w.signing {
                    SigningMode::Hmac => "secret",
                    SigningMode::Ed25519 => "signing key",
                    SigningMode::Both => "secret and signing key",
                };
                ctx.out.note(&if grace.seconds() == 0 {
                    format!("Rotated the {what} of {}: the old one was deleted.", w.id)
                } else {
                    format!(
                        "Rotated the {what} of {}: deliveries carry a signature with the old \
                         one too until {}.",
                        w.id,
                        super::output::when(Some(grace.until(now)))
                    )
                });
            }
            Ok(())
        }
        WebhooksCommand::Test { id } => {
            let sender = ctx.sender();
            let spinner = prompt::Spinner::start("sending webhook.test", !ctx.out.is_json());
            let r = webhooks::test(&store, &actor, &id, &sender, None, now);
            drop(spinner);
            let r = r?;
            ctx.out.data(&r, |o| {
                let verdict = if r.delivered {
                    "delivered"
                } else {
                    "not delivered"
                };
                writeln!(o, "{verdict}: {}", status(r.status_code, &r.status_text))
            })?;
            if r.delivered {
                Ok(())
            } else {
                // The result is printed; the exit status tells a script it failed.
                Err(anyhow::anyhow!(
                    "the test delivery failed: {}",
                    status(r.status_code, &r.status_text)
                ))
            }
        }
        WebhooksCommand::Update {
            id,
            url,
            events,
            profiles,
            all_profiles,
            filter,
            no_filter,
            flow,
            delivery,
            no_headers,
        } => {
            let mut p = Problems::default();
            let ordered = flow.ordered();
            let (retry_schedule, timeout, rate) = flow.convert(&mut p);
            let (full_access, profile_ids) = scope_args(&mut p, profiles, all_profiles);
            let set = delivery.headers(&mut p);
            let headers = (set.is_some() || !no_headers.is_empty()).then(|| HeaderPatch::Edit {
                set: set.unwrap_or_default(),
                remove: no_headers,
            });
            let filter = match (filter, no_filter) {
                (Some(f), _) => p.take("filter", Filter::new(&f)).map(Some),
                (None, true) => Some(None),
                (None, false) => None,
            };
            let patch = WebhookPatch {
                url: url.and_then(|u| p.take("url", WebhookUrl::new(&u, ctx.allow_private))),
                events: (!events.is_empty())
                    .then(|| p.take_list("events", WebhookEvents::new(events)))
                    .flatten(),
                full_access,
                profile_ids,
                is_active: None,
                filter,
                retry_schedule,
                timeout,
                rate,
                ordered,
                signing: delivery.signing().map(Some),
                headers,
                problems: p,
            };
            let w = webhooks::update(&store, &actor, &id, patch, now)?;
            ctx.out.data(&w, |o| {
                writeln!(o, "{}", ctx.out.webhook_detail(&w, &[], now))
            })
        }
        WebhooksCommand::Enable { id } => set_active(ctx, &store, &actor, &id, true, now),
        WebhooksCommand::Disable { id } => set_active(ctx, &store, &actor, &id, false, now),
        WebhooksCommand::Delete { id, yes } => {
            let w = webhooks::get(&store, &actor, &id)?;
            prompt::confirm(&format!("Delete webhook {} ({})?", w.id, w.url), yes)?;
            webhooks::delete(&store, &actor, &w.id, now)?;
            ctx.out.note(&format!("Deleted webhook {}.", w.id));
            Ok(())
        }
        WebhooksCommand::Replay {
            id,
            since,
            event_id,
            failed_only,
        } => {
            let mut p = Problems::default();
            let since =
                since.and_then(|s| p.take("since", keyhook_core::time::parse_since(&s, now)));
            let input = ReplayRequest {
                since,
                event_id,
                failed_only,
                problems: p,
                idempotency: None,
            };
            let r = replay::replay(&store, &actor, &id, input, now)?;
            ctx.out.data(&r, |o| {
                writeln!(
                    o,
                    "Queued {} deliver{} for replay.",
                    r.queued,
                    if r.queued == 1 { "y" } else { "ies" }
                )
            })
        }
        WebhooksCommand::FilterTest { .. } => unreachable!("filter-test is run above"),
        WebhooksCommand::Deliveries { id, follow: true } => follow(ctx, &store, &actor, &id),
        WebhooksCommand::Deliveries { id, follow: false } => {
            let list = webhooks::attempts(&store, &actor, &id)?;
            if list.is_empty() {
                ctx.out.note("No delivery attempts yet.");
            }
            ctx.out.data(&list, |o| {
                if list.is_empty() {
                    return Ok(());
                }
                writeln!(o, "{}", ctx.out.attempt_list(&list, now))
            })
        }
    }
}

/// `--profile ID...` (a scope of those profiles) or `--all-profiles`, as the API's
/// `fullAccess` and `profileIds`; neither: no scope named.
pub(crate) fn scope_args(
    p: &mut Problems,
    profiles: Vec<String>,
    all_profiles: bool,
) -> (Option<bool>, Option<ProfileIds>) {
    if all_profiles {
        (Some(true), None)
    } else if profiles.is_empty() {
        (None, None)
    } else {
        (
            Some(false),
            p.take_list("profileIds", ProfileIds::new(profiles)),
        )
    }
}

/// `--grace`: a duration (`90m`, `2d`) of whole seconds from 0 to 7 days; `0` (or `0s`,
/// `0h`...) drops the old secret at once.
fn grace(s: &str) -> Result<Grace, String> {
    Grace::from_millis(keyhook_core::time::parse_duration_or_zero(s)?)
}

fn set_active(
    ctx: &Context,
    store: &keyhook_core::store::Store,
    actor: &keyhook_core::service::Actor,
    id: &str,
    active: bool,
    now: Timestamp,
) -> anyhow::Result<()> {
    let patch = WebhookPatch {
        is_active: Some(active),
        ..WebhookPatch::default()
    };
    let w = webhooks::update(store, actor, id, patch, now)?;
    ctx.out.data(&w, |o| {
        writeln!(o, "{}", ctx.out.webhook_detail(&w, &[], now))
    })
}

/// How often `deliveries --follow` looks for new attempts.
const FOLLOW_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// `webhooks deliveries ID --follow`: the attempts logged so far, oldest first, then each new
/// one as it is recorded, until SIGINT or SIGTERM (exit 0). One read a second (the newest
/// [`webhooks::ATTEMPT_LOG_LIMIT`] attempts, of which those not printed yet); no
/// transaction or lock is held between two.
fn follow(
    ctx: &Context,
    store: &keyhook_core::store::Store,
    actor: &keyhook_core::service::Actor,
    id: &str,
) -> anyhow::Result<()> {
    use std::io::Write;
    let stop = super::stop_on_signals()?;
    let mut seen: Option<i64> = None;
    loop {
        let list = webhooks::attempts(store, actor, id)?;
        let mut stdout = std::io::stdout().lock();
        let before = seen;
        for a in list
            .iter()
            .rev()
            .filter(|a| before.is_none_or(|s| a.id > s))
        {
            if ctx.out.is_json() {
                serde_json::to_writer(&mut stdout, a).map_err(std::io::Error::from)?;
                writeln!(stdout)?;
            } else {
                writeln!(stdout, "{}", attempt_line(a))?;
            }
            seen = Some(seen.map_or(a.id, |s| s.max(a.id)));
        }
        stdout.flush()?;
        drop(stdout);
        if stop.sleep(FOLLOW_EVERY) {
            return Ok(());
        }
    }
}

/// One attempt on one line (`deliveries --follow`): the time in full, the event, the attempt
/// number, the result, the status and the duration; or a skip, with the filter's error.
fn attempt_line(a: &keyhook_core::model::DeliveryAttempt) -> String {
    let profile = a
        .profile_id
        .as_deref()
        .map_or(String::new(), |p| format!(" profile {p}"));
    if let Some(kind) = &a.skipped {
        return format!(
            "{}  {} {}{profile}  skipped  filter error: {kind}",
            a.attempted_at.to_rfc3339(),
            a.event,
            a.event_id,
        );
    }
    let queue = if a.holds_queue {
        format!("  {}", crate::output::holds_queue(a.queued_behind))
    } else {
        String::new()
    };
    format!(
        "{}  {} {}{profile}  attempt {}  {}  {}  {} ms{queue}",
        a.attempted_at.to_rfc3339(),
        a.event,
        a.event_id,
        a.attempt,
        if a.delivered { "delivered" } else { "failed" },
        status(a.status_code, &a.status_text),
        a.duration_ms
    )
}

/// What `webhooks filter-test --json` prints: the event the filter was tried on and its
/// verdict, `result` (null when the evaluation failed) or `error` (the kind of failure).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct FilterTrial<'a> {
    filter: &'a str,
    event: &'a str,
    profile_id: Option<&'a str>,
    data: &'a Value,
    result: Option<bool>,
    error: Option<&'a str>,
}

/// `webhooks filter-test EXPR [--event NAME] [--data JSON] [--profile ID]`: the filter checked
/// as `create --filter` checks it (refused: exit 2), then evaluated on the event as a fan-out
/// would (`Filter::matches`), without counting or logging a failure: true exits 0, false or
/// an evaluation error 1.
fn filter_test(
    ctx: &Context,
    expr: &str,
    event: &str,
    data: Option<&str>,
    profile: Option<String>,
) -> anyhow::Result<()> {
    // Every problem of the input at once (exit 2), before the database is opened.
    let mut p = Problems::default();
    let filter = p.take("EXPR", Filter::new(expr));
    p.take("--event", EventName::new(event));
    let data = match data.map(|arg| -> anyhow::Result<_> {
        Ok(crate::events::parse_data(&crate::events::read_data(arg)?)?)
    }) {
        None => None,
        Some(Ok(m)) => Some(Value::Object(m)),
        Some(Err(e)) => match e.downcast::<Error>() {
            Ok(Error::Validation(details)) => {
                details.into_iter().for_each(|d| p.add(d.field, d.message));
                None
            }
            Ok(e) => return Err(e.into()),
            Err(e) => return Err(e),
        },
    };
    let profile_id = profile.and_then(|id| p.take("profileId", ProfileId::new(&id)));
    p.into_result(&["EXPR", "--event", "data", "profileId"])?;
    let filter = filter.expect("no problem, so the filter compiled");

    let actor = ctx.actor()?;
    let store = ctx.existing_store()?;
    let profile_id = profile_id.as_ref().map(ProfileId::as_str);
    let tried = event_types::try_filter(&store, &actor, &filter, event, data, profile_id)?;
    let (data, verdict) = match tried {
        Ok(t) => (t.data, t.verdict),
        Err(TrialRefused::UnknownEvent) => {
            let known: Vec<String> = event_types::list(&store, &actor)?
                .into_iter()
                .map(|t| t.name)
                .collect();
            return Err(Error::validation(
                "--event",
                format!(
                    "unknown event {event:?}; known events: {}",
                    known.join(", ")
                ),
            )
            .into());
        }
        // A filter the type's schema says can never hold is refused, as `webhooks create`
        // refuses it (exit 2 on EXPR).
        Err(TrialRefused::Schema(m)) => return Err(Error::validation("EXPR", m).into()),
        // An event whose data the schema refuses is never emitted: say so, as emit would.
        Err(TrialRefused::Data(problems)) => return Err(Error::Validation(problems).into()),
        Err(TrialRefused::NoExample) => {
            return Err(Error::validation(
                "data",
                format!(
                    "{event} has no example to try the filter on; give --data JSON, or add one \
                     with: keyhook event-types update {event} --example FILE"
                ),
            )
            .into())
        }
    };
    let trial = FilterTrial {
        filter: expr,
        event,
        profile_id,
        data: &data,
        result: verdict.ok(),
        error: verdict.err(),
    };
    ctx.out.data(&trial, |o| match verdict {
        Ok(b) => writeln!(o, "{b}"),
        Err(_) => writeln!(o, "error"),
    })?;
    match verdict {
        Ok(true) => Ok(()),
        Ok(false) => Err(Status(1).into()),
        Err(kind) => {
            ctx.out.note(&format!(
                "keyhook: the filter failed on this event ({kind}): a webhook with this filter \
                 skips the event (and counts it in keyhook_filter_errors_total)"
            ));
            Err(Status(1).into())
        }
    }
}
