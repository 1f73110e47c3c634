use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::logging::LogFormat;
use super::Context;
use keyhook_core::access_log::AccessLog;
use keyhook_core::forward::{Cidr, ProfileTemplate};
use keyhook_core::rate::RateLimit;
use keyhook_core::service::portal::{self, PortalConfig};
use keyhook_core::service::{event_types, routing};
use keyhook_core::store::Backend;
use keyhook_core::time::Clock;
use keyhook_delivery::worker::{self, WorkerOptions};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the address is printed on stderr)
    #[arg(
        long,
        env = "KEYHOOK_BIND",
        default_value = "127.0.0.1:8787",
        value_name = "ADDR"
    )]
    bind: String,
    /// Requests handled at once (each connection has its own thread; more wait their turn)
    #[arg(long, env = "KEYHOOK_THREADS", default_value_t = 64,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Disconnect a client that sends nothing for this long (between requests or within one)
    #[arg(long, env = "KEYHOOK_READ_TIMEOUT", default_value = "30s", value_name = "DUR",
          value_parser = read_timeout)]
    read_timeout: Duration,
    /// Disconnect a client whose request head (request line and headers) takes longer than
    /// this (from connecting for the first request, from its first byte for later ones), or
    /// whose request body takes longer than this after the head
    #[arg(long, env = "KEYHOOK_HEADER_TIMEOUT", default_value = "10s", value_name = "DUR",
          value_parser = read_timeout)]
    header_timeout: Duration,
    /// Connections served at once; a connection over the limit is answered 503 and closed
    #[arg(long, env = "KEYHOOK_MAX_CONNECTIONS", default_value_t = 1024, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_connections: u32,
    /// Of those, connections served at once from one client address (an IPv6 address counts
    /// by its /64 prefix); one more from it is answered 503 and closed, so that one client
    /// cannot take all of --max-connections. Behind a proxy every client has the proxy's
    /// address: raise it to --max-connections there
    #[arg(long, env = "KEYHOOK_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 128, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_connections_per_address: u32,
    /// Requests per API key, N/s or N/min (burst N), counted by this instance; failed
    /// authentications are limited per client address at the same rate. Off when not given
    #[arg(long, env = "KEYHOOK_RATE_LIMIT", value_name = "RATE",
          value_parser = RateLimit::parse)]
    rate_limit: Option<RateLimit>,
    /// Where the URIs that /api/v1/auth is asked about name a profile: a path template with
    /// {profile} as one whole segment, matched as a prefix (e.g. /profiles/{profile}/);
    /// repeat for several (docs/guarding.md)
    #[arg(long = "auth-profile", env = "KEYHOOK_AUTH_PROFILE", value_name = "TEMPLATE",
          value_delimiter = ',', value_parser = ProfileTemplate::parse)]
    auth_profiles: Vec<ProfileTemplate>,
    /// A reverse proxy's address or network (e.g. 127.0.0.1/32); only from such peers are
    /// X-Forwarded-For / X-Real-IP read as the client's address (failed-authentication
    /// limit); repeat for several. None by default
    #[arg(long = "trusted-proxy", env = "KEYHOOK_TRUSTED_PROXY", value_name = "CIDR",
          value_delimiter = ',', value_parser = Cidr::parse)]
    trusted_proxies: Vec<Cidr>,
    /// Where this server is reached from outside (https://keys.example.com): portal links
    /// point there, and the portal's cookie is Secure when it is https. Default: http:// and
    /// the bound address
    #[arg(long, env = "KEYHOOK_PUBLIC_URL", value_name = "URL",
          value_parser = portal::public_url)]
    public_url: Option<String>,
    /// An https origin allowed to show the portal in a frame (repeat for several); the
    /// portal's cookie is then SameSite=None; Secure; Partitioned. Needs an https --public-url
    #[arg(long = "portal-embed-origin", env = "KEYHOOK_PORTAL_EMBED_ORIGIN", value_name = "ORIGIN",
          value_delimiter = ',', value_parser = portal::embed_origin)]
    portal_embed_origins: Vec<String>,
    /// Let the portal point webhooks at private and loopback addresses (local development and
    /// tests only; --allow-private-targets does not reach the portal)
    #[arg(long, env = "KEYHOOK_PORTAL_ALLOW_PRIVATE_TARGETS")]
    portal_allow_private_targets: bool,
    /// How log lines are written on stderr: text, or one JSON object per line (the filter is
    /// KEYHOOK_LOG, default info)
    #[arg(long, env = "KEYHOOK_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text,
          value_name = "FORMAT")]
    pub log_format: LogFormat,
    #[command(flatten)]
    delivery: super::deliver::DeliveryArgs,
}

/// What `keyhook serve` was asked to do, for the [`Wiring`](super::Wiring) that runs it.
pub struct ServeConfig {
    pub bind: String,
    /// The database, whose pool has a connection for each of `--threads` requests at once
    /// and `worker::CONNECTIONS` for the outbox worker (claims, checks and its pruner).
    pub db: Arc<dyn Backend>,
    pub read_timeout: Duration,
    pub header_timeout: Duration,
    pub max_connections: usize,
    pub max_connections_per_address: usize,
    /// The outbox worker that runs beside the server; its client also sends test pings.
    pub delivery: WorkerOptions,
    /// Where requests read the time.
    pub clock: Clock,
    /// `--rate-limit`, when given.
    pub rate_limit: Option<RateLimit>,
    /// Where each request's access line goes: the log, as `--log-format` and `KEYHOOK_LOG`
    /// set it up.
    pub access_log: Arc<dyn AccessLog>,
    /// `--auth-profile`.
    pub auth_profiles: Vec<ProfileTemplate>,
    /// `--trusted-proxy`.
    pub trusted_proxies: Vec<Cidr>,
    /// The developer portal: `--public-url`, `--portal-embed-origin`,
    /// `--portal-allow-private-targets`.
    pub portal: PortalConfig,
}

/// Serves until a signal stops it; `access_log` is where each request's access line goes
/// (the log's, from `logging::init`).
pub fn run(ctx: &Context, args: ServeArgs, access_log: Arc<dyn AccessLog>) -> anyhow::Result<()> {
    // A cross-site frame gets the cookie only over https: refused before anything starts.
    if !args.portal_embed_origins.is_empty()
        && !args
            .public_url
            .as_deref()
            .is_some_and(|u| u.starts_with("https://"))
    {
        return Err(keyhook_core::error::Error::validation(
            "--portal-embed-origin",
            "needs an https --public-url (a framed portal's cookie is SameSite=None; Secure)",
        )
        .into());
    }
    let stop = super::stop_on_signals()?;
    // A connection for each of `--threads` requests at once, and those of the outbox worker.
    let location = ctx.location()?;
    let db = ctx.backend(true, u32::from(args.threads) + worker::CONNECTIONS)?;
    // A database whose secrets this keyhook cannot open: nothing would be delivered.
    crate::secrets_key::require()?;
    // The location as the user gave it, a URL's password masked.
    let shown = location.to_string();
    let config = ServeConfig {
        bind: args.bind,
        db,
        read_timeout: args.read_timeout,
        header_timeout: args.header_timeout,
        max_connections: args.max_connections as usize,
        max_connections_per_address: args.max_connections_per_address as usize,
        delivery: args.delivery.worker_options(ctx, false),
        clock: ctx.clock.clone(),
        rate_limit: args.rate_limit,
        access_log,
        auth_profiles: args.auth_profiles,
        trusted_proxies: args.trusted_proxies,
        portal: PortalConfig {
            public_url: args.public_url,
            embed_origins: args.portal_embed_origins,
            allow_private_targets: args.portal_allow_private_targets,
        },
    };
    let check = Arc::clone(&config.db);
    // Log events, not messages (JSON with `--log-format json`). Scripts and tests read the
    // address from the first line's message, the same text in both formats.
    ctx.wiring.serve(config, stop, &|addr| {
        tracing::info!(
            target: "keyhook::serve",
            address = %addr,
            database = %shown,
            "keyhook: listening on http://{addr} (database {shown})"
        );
        warn_refused(&*check);
    })?;
    tracing::info!(target: "keyhook::serve", "keyhook: stopped");
    Ok(())
}

/// Once at start, a warning line per webhook whose stored filter no longer compiles and per
/// event type whose stored schema the rules of today refuse (written by an older keyhook):
/// both are kept, and the operator should fix them (docs/webhooks.md, "Filters and schemas
/// from before an upgrade"). A database that cannot be read now is said so, and serving goes
/// on.
fn warn_refused(db: &dyn Backend) {
    let found = db.connect().and_then(|store| {
        Ok((
            routing::stale_filters(&*store)?,
            event_types::refused_schemas(&*store)?,
        ))
    });
    let (filters, schemas) = match found {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!(
                target: "keyhook::serve",
                "keyhook: could not check the stored filters and schemas: {e}"
            );
            return;
        }
    };
    for f in filters {
        tracing::warn!(
            target: "keyhook::serve",
            webhook = %f.webhook_id,
            user = %f.user_id,
            "keyhook: webhook {} (user {}): its stored filter no longer compiles ({}); every \
             event is skipped for it until it gets a valid one (webhooks update {} --filter \
             EXPR, or --no-filter)",
            f.webhook_id,
            f.user_id,
            f.error,
            f.webhook_id
        );
    }
    for (name, why) in schemas {
        tracing::warn!(
            target: "keyhook::serve",
            event_type = %name,
            "keyhook: event type {name}: its stored schema would be refused now: {why}; \
             change it (event-types update {name} --schema FILE)"
        );
    }
}

fn read_timeout(s: &str) -> Result<Duration, String> {
    let ms = keyhook_core::time::parse_duration(s)?;
    if ms > 3_600_000 {
        return Err("at most 1h".into());
    }
    Ok(Duration::from_millis(ms.unsigned_abs()))
}
