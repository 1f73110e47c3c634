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
    /// The receiver answered 410 Gone ([`store::gone`](crate::store::gone)).
    pub fn gone(&self) -> bool {
        crate::store::gone(self.delivered, self.status_code)
    }
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
