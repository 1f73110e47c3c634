//! The recent attempts of many webhooks at once: [`HistoryQueries`].

use super::StoreResult;

/// One attempt as the history line draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptMark {
    pub webhook_id: String,
    pub delivered: bool,
    pub duration_ms: i64,
}

/// The recent attempts of many webhooks at once (`webhooks list`'s history line).
pub trait HistoryQueries {
    /// The newest `per_webhook` attempts of each webhook of `user` (only of `webhook_id`
    /// when given), in one query: grouped by webhook, oldest first within each. Skips
    /// ([`AttemptRecord::skip`]) are no attempts and are left out.
    fn recent_attempts(
        &self,
        user: &str,
        webhook_id: Option<&str>,
        per_webhook: i64,
    ) -> StoreResult<Vec<AttemptMark>>;
}
