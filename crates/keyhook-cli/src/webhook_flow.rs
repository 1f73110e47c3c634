//! `webhooks create|update`'s delivery settings (CONTRACT §15): `--retry-schedule` and
//! `--timeout`, with `--no-...` to go back to serve's. Converted by the core's types
//! (`service::webhooks::flow`), the rule HTTP obeys too.

use clap::Args;

use keyhook_core::service::input::Problems;
use keyhook_core::service::webhooks::flow::{RetrySchedule, Timeout};

/// What `create` takes.
#[derive(Debug, Args)]
pub struct FlowArgs {
    /// This webhook's delays before each retry, comma-separated, as serve's
    /// --retry-schedule (at most 50; "" for no retry), instead of serve's
    #[arg(long, value_name = "DURS")]
    pub retry_schedule: Option<String>,
    /// How long one delivery to this webhook may take (at most 10m), instead of serve's
    /// --delivery-timeout
    #[arg(long, value_name = "DUR")]
    pub timeout: Option<String>,
}

/// What `update` takes: [`FlowArgs`] and the flags that clear them.
#[derive(Debug, Args)]
pub struct FlowChange {
    #[command(flatten)]
    pub set: FlowArgs,
    /// Go back to serve's retry schedule
    #[arg(long, conflicts_with = "retry_schedule")]
    pub no_retry_schedule: bool,
    /// Go back to serve's delivery timeout
    #[arg(long, conflicts_with = "timeout")]
    pub no_timeout: bool,
}

/// The flags' ids, for `update`'s group of changes (at least one needed).
pub const CHANGE_IDS: [&str; 4] = [
    "retry_schedule",
    "timeout",
    "no_retry_schedule",
    "no_timeout",
];

impl FlowArgs {
    /// The settings as the service takes them, problems noted under the API's field names.
    pub fn convert(self, p: &mut Problems) -> (Option<RetrySchedule>, Option<Timeout>) {
        let schedule = self
            .retry_schedule
            .and_then(|s| p.take("retrySchedule", RetrySchedule::parse(&s)));
        let timeout = self
            .timeout
            .and_then(|t| p.take("timeoutMs", Timeout::parse(&t)));
        (schedule, timeout)
    }
}

/// A change: `Some(None)` clears a setting.
pub type Changes = (Option<Option<RetrySchedule>>, Option<Option<Timeout>>);

impl FlowChange {
    pub fn convert(self, p: &mut Problems) -> Changes {
        let (clear_schedule, clear_timeout) = (self.no_retry_schedule, self.no_timeout);
        let (named_schedule, named_timeout) = (
            self.set.retry_schedule.is_some(),
            self.set.timeout.is_some(),
        );
        let (schedule, timeout) = self.set.convert(p);
        let schedule = match (named_schedule, clear_schedule) {
            (true, _) => schedule.map(Some),
            (false, true) => Some(None),
            (false, false) => None,
        };
        let timeout = match (named_timeout, clear_timeout) {
            (true, _) => timeout.map(Some),
            (false, true) => Some(None),
            (false, false) => None,
        };
        (schedule, timeout)
    }
}
