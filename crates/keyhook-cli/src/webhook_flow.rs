//! `webhooks create|update`'s delivery settings (CONTRACT §15): `--retry-schedule`,
//! `--timeout`, `--rate` and `--ordered`, with `--no-...` to go back to serve's. Converted by the core's types
//! (`service::webhooks::flow`), the rule HTTP obeys too.

use clap::Args;

use keyhook_core::rate::RateLimit;
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
    /// At most this many attempts to this webhook, N/s or N/min (a burst of N), counted
    /// across every instance
    #[arg(long, value_name = "RATE")]
    pub rate: Option<String>,
    /// Deliver one at a time, in the order the events were queued: a failing delivery
    /// holds the later ones until it is delivered or exhausted
    #[arg(long)]
    pub ordered: bool,
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
    /// No rate limit: as fast as the workers go
    #[arg(long, conflicts_with = "rate")]
    pub no_rate: bool,
    /// Deliver as fast as the workers go, several at a time, in no particular order
    #[arg(long, conflicts_with = "ordered")]
    pub no_ordered: bool,
}

/// The flags' ids, for `update`'s group of changes (at least one needed).
pub const CHANGE_IDS: [&str; 8] = [
    "retry_schedule",
    "timeout",
    "rate",
    "no_rate",
    "no_retry_schedule",
    "no_timeout",
    "ordered",
    "no_ordered",
];

impl FlowArgs {
    /// The settings as the service takes them, problems noted under the API's field names.
    pub fn convert(self, p: &mut Problems) -> Settings {
        let rate = self
            .rate
            .as_deref()
            .and_then(|r| p.take("rate", RateLimit::parse(r)));
        let schedule = self
            .retry_schedule
            .and_then(|s| p.take("retrySchedule", RetrySchedule::parse(&s)));
        let timeout = self
            .timeout
            .and_then(|t| p.take("timeoutMs", Timeout::parse(&t)));
        (schedule, timeout, rate)
    }
}

/// The settings of a create.
pub type Settings = (Option<RetrySchedule>, Option<Timeout>, Option<RateLimit>);

/// A change: `Some(None)` clears a setting.
pub type Changes = (
    Option<Option<RetrySchedule>>,
    Option<Option<Timeout>>,
    Option<Option<RateLimit>>,
);

impl FlowChange {
    /// `--ordered` / `--no-ordered`: `Some(x)` sets `ordered` to x.
    pub fn ordered(&self) -> Option<Option<bool>> {
        match (self.set.ordered, self.no_ordered) {
            (true, _) => Some(Some(true)),
            (false, true) => Some(Some(false)),
            (false, false) => None,
        }
    }

    pub fn convert(self, p: &mut Problems) -> Changes {
        let (clear_schedule, clear_timeout) = (self.no_retry_schedule, self.no_timeout);
        let (named_schedule, named_timeout) = (
            self.set.retry_schedule.is_some(),
            self.set.timeout.is_some(),
        );
        let (named_rate, clear_rate) = (self.set.rate.is_some(), self.no_rate);
        let (schedule, timeout, rate) = self.set.convert(p);
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
        let rate = match (named_rate, clear_rate) {
            (true, _) => rate.map(Some),
            (false, true) => Some(None),
            (false, false) => None,
        };
        (schedule, timeout, rate)
    }
}
