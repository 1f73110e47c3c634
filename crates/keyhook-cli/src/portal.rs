//! `keyhook portal`: mint, revoke and list developer-portal links (CONTRACT §14).

use std::io::Write;

use clap::Subcommand;

use super::{prompt, secret_out, Context};
use keyhook_core::service::input::Problems;
use keyhook_core::service::keys::ProfileIds;
use keyhook_core::service::portal::{self, MintedLink, NewLink};
use keyhook_core::service::Publish;
use keyhook_core::time::{parse_duration, Timestamp};

#[derive(Debug, Subcommand)]
pub enum PortalCommand {
    /// Mint a single-use link to the developer portal for --user (printed once: a secret)
    #[command(after_help = "Examples:
  keyhook --user acme portal link --public-url https://keys.example.com
  keyhook --user acme portal link --profile brand-a --ttl 5m --read-only --json")]
    Link {
        /// Limit the link to this profile (repeat for several); without it: all profiles
        #[arg(long = "profile", value_name = "ID")]
        profiles: Vec<String>,
        /// How long the link may wait to be opened (at most 24h)
        #[arg(long, value_name = "DURATION", default_value = "15m", value_parser = ttl)]
        ttl: i64,
        /// The portal shows everything and changes nothing
        #[arg(long)]
        read_only: bool,
        /// Where serve is reached; the link is {public-url}/portal#<token>
        #[arg(long, env = "KEYHOOK_PUBLIC_URL", value_name = "URL",
              default_value = "http://127.0.0.1:8787", value_parser = portal::public_url)]
        public_url: String,
    },
    /// Revoke a link (and end its session), or every link of --user
    #[command(after_help = "Examples:
  keyhook portal revoke pl_0123456789abcdef0123456789abcdef
  keyhook --user acme portal revoke --all --yes")]
    Revoke {
        /// The link's id (from `portal link` or `portal list`)
        #[arg(
            required_unless_present = "all",
            conflicts_with = "all",
            value_name = "LINK_ID"
        )]
        id: Option<String>,
        /// Every link of --user
        #[arg(long)]
        all: bool,
        /// Do not ask for confirmation (required without a terminal)
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// List --user's live links (not yet opened) and sessions
    #[command(after_help = "Example:\n  keyhook --user acme portal list --json")]
    List,
}

fn ttl(s: &str) -> Result<i64, String> {
    let ms = parse_duration(s)?;
    if ms <= 0 || ms > portal::MAX_TTL_MS {
        return Err("must be more than 0 and at most 24h".into());
    }
    Ok(ms)
}

pub fn run(ctx: &Context, cmd: PortalCommand) -> anyhow::Result<()> {
    let now = ctx.clock.now();
    match cmd {
        PortalCommand::Link {
            profiles,
            ttl,
            read_only,
            public_url,
        } => {
            let actor = ctx.actor()?;
            let mut p = Problems::default();
            let input = NewLink {
                full_access: Some(profiles.is_empty()),
                profile_ids: p.take_list("profileIds", ProfileIds::new(profiles)),
                ttl_ms: Some(ttl),
                read_only,
                problems: p,
            };
            let store = ctx.store()?;
            let mut publish = |link: &MintedLink| {
                secret_out::publish("portal link", "no link was minted", || {
                    write_link(ctx, link)
                })
            };
            portal::mint(
                &store,
                &actor,
                input,
                &public_url,
                now,
                Publish::BeforeCommit(&mut publish),
            )?;
            ctx.out.note(
                "Hand this link to the customer now: it opens once, and keyhook keeps only its hash.",
            );
            Ok(())
        }
        PortalCommand::Revoke { id, all, yes } => {
            let actor = ctx.actor()?;
            let store = ctx.existing_store()?;
            if all {
                prompt::confirm(
                    &format!(
                        "Revoke every portal link of user {} and end their sessions?",
                        ctx.user
                    ),
                    yes,
                )?;
            }
            let revoked = portal::revoke(&store, &actor, id.as_deref(), now)?;
            // DELETE answers 204 with an empty body, so --json prints nothing.
            ctx.out.note(&match (all, revoked.len()) {
                (true, 1) => "Revoked 1 portal link.".to_string(),
                (true, n) => format!("Revoked {n} portal links."),
                (false, 0) => format!(
                    "Portal link {} was already revoked.",
                    id.unwrap_or_default()
                ),
                (false, _) => format!("Revoked portal link {}.", id.unwrap_or_default()),
            });
            Ok(())
        }
        PortalCommand::List => {
            let actor = ctx.actor()?;
            let store = ctx.existing_store()?;
            let live = portal::list(&store, &actor, now)?;
            if live.links.is_empty() && live.sessions.is_empty() && !ctx.out.is_json() {
                ctx.out.note(&format!(
                    "No live portal links or sessions for user {}.",
                    ctx.user
                ));
                return Ok(());
            }
            ctx.out.data(&live, |w| {
                let mut table = comfy_table::Table::new();
                table
                    .load_preset(comfy_table::presets::UTF8_FULL_CONDENSED)
                    .set_header(["KIND", "ID", "ACCESS", "SCOPE", "CREATED", "ENDS"]);
                let scope = |full: bool, ids: &[String]| {
                    if full {
                        "all profiles".to_string()
                    } else {
                        ids.join(", ")
                    }
                };
                let access = |ro: bool| if ro { "read-only" } else { "read-write" };
                for l in &live.links {
                    table.add_row([
                        "link".to_string(),
                        l.id.clone(),
                        access(l.read_only).to_string(),
                        scope(l.full_access, &l.profile_ids),
                        when(l.created_at),
                        when(l.expires_at),
                    ]);
                }
                for s in &live.sessions {
                    table.add_row([
                        format!("session of {}", s.link_id),
                        s.id.clone(),
                        access(s.read_only).to_string(),
                        scope(s.full_access, &s.profile_ids),
                        when(s.created_at),
                        when(s.expires_at),
                    ]);
                }
                writeln!(w, "{table}")
            })?;
            Ok(())
        }
    }
}

fn when(t: Timestamp) -> String {
    t.to_datetime().format("%Y-%m-%d %H:%M UTC").to_string()
}

fn write_link(ctx: &Context, link: &MintedLink) -> anyhow::Result<()> {
    ctx.out.data(link, |w| {
        writeln!(w, "{}", link.url)?;
        writeln!(
            w,
            "link {} · {} · {} · opens once, until {}",
            link.id,
            if link.read_only {
                "read-only"
            } else {
                "read-write"
            },
            if link.full_access {
                "all profiles".to_string()
            } else {
                format!("profiles {}", link.profile_ids.join(", "))
            },
            when(link.expires_at)
        )
    })?;
    std::io::stdout().flush()?;
    Ok(())
}
