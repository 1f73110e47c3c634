//! `keyhook prune`: what the worker's retention does, at once.

use std::time::Duration;

use clap::Args;

use super::Context;
use keyhook_core::service::retention::{self, DEFAULT_RETENTION};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  keyhook prune                    # older than 30 days\n  keyhook prune --older-than 12h"
)]
pub struct PruneArgs {
    /// Delete events, finished deliveries and attempts older than this (0s: everything
    /// finished until now); pending deliveries and their events are kept
    #[arg(long, default_value = DEFAULT_RETENTION, value_name = "DUR",
          value_parser = older_than_arg)]
    older_than: Duration,
}

/// `--older-than`: a duration, 0 meaning now.
fn older_than_arg(s: &str) -> Result<Duration, String> {
    let ms = keyhook_core::time::parse_duration_or_zero(s)?;
    Ok(Duration::from_millis(ms.unsigned_abs()))
}

/// `--retention`: a duration of at least 1s.
pub fn retention_arg(s: &str) -> Result<Duration, String> {
    let ms = retention::parse_retention(s)?;
    Ok(Duration::from_millis(ms.unsigned_abs()))
}

pub fn run(ctx: &Context, args: PruneArgs) -> anyhow::Result<()> {
    let store = ctx.existing_store()?;
    let cutoff = retention::cutoff(ctx.clock.now(), args.older_than);
    let pruned = retention::prune(&store, cutoff, retention::BATCH, &mut || true)?;
    ctx.out.data(&pruned, |o| {
        let counts: Vec<String> = pruned
            .0
            .iter()
            .map(|(name, n)| format!("{n} {name}"))
            .collect();
        writeln!(o, "Deleted {}.", counts.join(", "))
    })
}
