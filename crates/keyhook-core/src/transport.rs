//! What the core needs of the network: one signed webhook `POST`. The delivery crate's
//! client implements [`Transport`]; the core only describes the outcome.

/// The outcome of one delivery attempt, as the attempt log records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// A 2xx within the timeout.
    pub delivered: bool,
    /// 0 when there was no HTTP response.
    pub status_code: u16,
    /// The reason phrase, or what went wrong (`connection refused`, `timed out`,
    /// `blocked: private address`, ...).
    pub status_text: String,
    pub duration_ms: i64,
    /// The first 1024 bytes of the response body, lossy UTF-8.
    pub response_excerpt: String,
    /// From a `Retry-After` header, clamped to [0, 24 h].
    pub retry_after_ms: Option<i64>,
}

impl Attempt {
    /// The receiver answered 410 Gone ([`gone`]).
    pub fn gone(&self) -> bool {
        gone(self.delivered, self.status_code)
    }

    /// The receiver asked to be left alone for a while (CONTRACT §15): a 429 or 503 with a
    /// `Retry-After` keyhook could read, in milliseconds (bounded to a day by the client).
    /// Such an answer holds the webhook's deliveries and does not count toward its automatic
    /// disable. Without `Retry-After` a 429 or 503 is an ordinary failure.
    pub fn back_pressure(&self) -> Option<i64> {
        let asked = !self.delivered && matches!(self.status_code, 429 | 503);
        self.retry_after_ms.filter(|_| asked)
    }
}

/// Whether an attempt's answer was 410 Gone (and so not delivered): the receiver says the
/// endpoint is gone for good. The webhook is disabled at once and the delivery not retried
/// (`service::webhooks::count_attempt`, the worker's schedule).
pub fn gone(delivered: bool, status_code: u16) -> bool {
    !delivered && status_code == 410
}

/// Sends one webhook message: `body` POSTed to `url`, signed with each of `secrets` (the
/// current one first, then one in its rotation's grace period) per Standard Webhooks under
/// `msg_id` and `timestamp` (seconds). Never panics; every failure is an [`Attempt`] that was
/// not delivered.
pub trait Transport: Send + Sync {
    fn send(
        &self,
        url: &str,
        secrets: &[&str],
        msg_id: &str,
        body: &[u8],
        timestamp: i64,
    ) -> Attempt;

    /// [`Transport::send`] with the webhook's static headers (CONTRACT §15) added to the
    /// request. The default sends without them (a transport that only reports outcomes).
    fn send_with(
        &self,
        url: &str,
        secrets: &[&str],
        headers: &[(String, String)],
        msg_id: &str,
        body: &[u8],
        timestamp: i64,
    ) -> Attempt {
        let _ = headers;
        self.send(url, secrets, msg_id, body, timestamp)
    }
}
