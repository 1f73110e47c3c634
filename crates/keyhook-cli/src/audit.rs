//! `keyhook audit`: the audit log, newest first (`service::audit`).

use clap::Args;

use super::Context;
use keyhook_core::error::Error;
use keyhook_core::service::audit::{self, Query};

#[derive(Debug, Args)]
#[command(
    after_help = "Each change to a key or webhook is one entry: when, who (cli:<login name>, a key's prefix, or\nsystem), through what (cli, http, worker), the action and its target.\n\nExamples:\n  keyhook audit --since 24h\n  keyhook --json audit --since 2026-11-01T00:00:00Z --limit 1000 --all-users"
)]
pub struct AuditArgs {
    /// Only entries at or after TS (RFC 3339) or this long ago (90m, 7d)
    #[arg(long, value_name = "TS|DUR")]
    since: Option<String>,
    /// At most N entries (1 to 1000)
    #[arg(long, value_name = "N", default_value_t = audit::DEFAULT_LIMIT,
          value_parser = limit)]
    limit: i64,
    /// The entries of every user
    #[arg(long)]
    all_users: bool,
}

fn limit(s: &str) -> Result<i64, String> {
    let n = s
        .parse::<i64>()
        .map_err(|_| format!("must be an integer from 1 to {}", audit::MAX_LIMIT))?;
    audit::check_limit(n)
}

pub fn run(ctx: &Context, args: AuditArgs) -> anyhow::Result<()> {
    let now = ctx.clock.now();
    let since = args
        .since
        .as_deref()
        .map(|s| keyhook_core::time::parse_since(s, now).map_err(|m| Error::validation("since", m)))
        .transpose()?;
    let actor = ctx.actor()?;
    let q = Query {
        since,
        limit: args.limit,
        all_users: args.all_users,
    };
    let list = audit::list(&ctx.existing_store()?, &actor, q)?;
    if list.is_empty() {
        ctx.out
            .note(&format!("No audit entries for user {}.", ctx.user));
    }
    ctx.out.data(&list, |w| {
        if list.is_empty() {
            return Ok(());
        }
        writeln!(w, "{}", ctx.out.audit_list(&list, args.all_users))
    })
}
