use clap::Args;

use super::Context;
use keyhook_delivery::schedule::{Schedule, DEFAULT_SCHEDULE};
use keyhook_delivery::worker::{self, WorkerOptions};

/// How the outbox worker sends (shared by `deliver` and `serve`).
#[derive(Debug, Args)]
pub struct DeliveryArgs {
    /// Delays before each retry of a failed delivery, comma-separated
    #[arg(long, env = "KEYHOOK_RETRY_SCHEDULE", default_value = DEFAULT_SCHEDULE,
          value_name = "DURS", value_parser = Schedule::parse)]
    pub retry_schedule: Schedule,
    /// Deliveries sent at once
    #[arg(long, env = "KEYHOOK_DELIVERY_WORKERS", default_value_t = 16, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=512))]
    pub delivery_workers: u16,
    /// Delete events, finished deliveries and attempts older than this (at least 1s), in
    /// small batches; pending deliveries and their events are kept
    #[arg(long, env = "KEYHOOK_RETENTION", default_value = keyhook_core::service::retention::DEFAULT_RETENTION,
          value_name = "DUR", value_parser = super::prune::retention_arg)]
    pub retention: std::time::Duration,
}

impl DeliveryArgs {
    pub fn worker_options(&self, ctx: &Context, once: bool) -> WorkerOptions {
        WorkerOptions {
            client: ctx.client_config(),
            schedule: self.retry_schedule.clone(),
            concurrency: usize::from(self.delivery_workers),
            once,
            on_settled: None,
            retention: Some(self.retention),
            only: None,
            on_attempt: None,
        }
    }
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  keyhook deliver              # until SIGINT/SIGTERM\n  keyhook deliver --once       # from cron: what is due now"
)]
pub struct DeliverArgs {
    /// Send what is due now, then exit (for cron) instead of waiting for more
    #[arg(long)]
    once: bool,
    #[command(flatten)]
    delivery: DeliveryArgs,
}

pub fn run(ctx: &Context, args: DeliverArgs) -> anyhow::Result<()> {
    let stop = super::stop_on_signals()?;
    // Deliveries come from events in a database that exists: a mistyped --db is an error,
    // not a new empty database with nothing to send.
    let db = ctx.backend(false, worker::CONNECTIONS)?;
    // A database whose secrets this keyhook cannot open: nothing would be delivered.
    crate::secrets_key::require()?;
    let opts = args.delivery.worker_options(ctx, args.once);
    let s = worker::run(&*db, &opts, &stop)?;
    ctx.out.note(&format!(
        "delivered {}, to retry {}, given up {}, cancelled {}",
        s.delivered, s.retrying, s.failed, s.cancelled
    ));
    Ok(())
}
