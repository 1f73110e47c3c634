//! Secret rotation and what a delivery is signed with: [`SecretQueries`], [`Signing`].

use super::StoreResult;
use crate::time::Timestamp;

/// Secret rotation with a grace period, why a webhook was disabled, and what a delivery is
/// signed with right before it is sent.
pub trait SecretQueries {
    /// Replaces the webhook's secret with `secret`. `previous` is the secret replaced and
    /// when it stops being used (its grace period); `None` drops any previous secret at once.
    /// Only the newest previous secret is kept (a second rotation during a grace replaces it).
    fn set_secret(
        &self,
        id: &str,
        secret: &str,
        previous: Option<(&str, Timestamp)>,
        now: Timestamp,
    ) -> StoreResult<()>;
    /// What a message to the webhook is signed with at `now`, read right before it is sent:
    /// `None` for a webhook that no longer exists.
    fn signing(&self, id: &str, now: Timestamp) -> StoreResult<Option<Signing>>;
    /// Whether a previous secret's grace period has ended by `now` (a read, through the
    /// partial index on the expiry: the worker asks every second).
    fn any_expired_secret(&self, now: Timestamp) -> StoreResult<bool>;
    /// Deletes every previous secret whose grace period has ended by `now`; returns how many.
    fn drop_expired_secrets(&self, now: Timestamp) -> StoreResult<usize>;
    /// Why the webhook was disabled automatically (`service::webhooks::GONE_REASON`,
    /// `service::webhooks::failures_reason`), if it was and has not been enabled since.
    fn disabled_reason(&self, id: &str) -> StoreResult<Option<String>>;
    /// Replaces the webhook's Ed25519 key pair (`whsk_` private, given in plaintext and
    /// stored sealed, and `whpk_` public), keeping `previous` as [`SecretQueries::set_secret`]
    /// keeps the previous secret (one grace end for both: `previous_secret_expires_at`).
    fn set_signing_key(
        &self,
        id: &str,
        private: &str,
        public: &str,
        previous: Option<(&str, Timestamp)>,
        now: Timestamp,
    ) -> StoreResult<()>;
    /// Every non-null secret cell of every webhook ([`crate::secrets::SECRET_COLUMNS`]), as
    /// stored (sealed or not), for re-sealing ([`crate::secrets::reseal_all`]).
    fn secret_cells(&self) -> StoreResult<Vec<crate::secrets::SecretCell>>;
    /// Writes one cell as given (already sealed).
    fn set_secret_cell(&self, row: &str, column: &str, value: &str) -> StoreResult<()>;
    /// The fingerprint of the key the database's secrets are sealed with; `None` before the
    /// first key.
    fn secrets_fingerprint(&self) -> StoreResult<Option<String>>;
    /// [`SecretQueries::secrets_fingerprint`], read under a lock that `db rekey`'s change of
    /// it waits for (and that waits for a rekey), to the end of the caller's transaction: a
    /// webhook write that seals with the key it read commits before a rekey reads the cells,
    /// or sees the new fingerprint (PostgreSQL: `FOR UPDATE`; SQLite has one writer).
    fn lock_secrets_fingerprint(&self) -> StoreResult<Option<String>> {
        self.secrets_fingerprint()
    }
    fn set_secrets_fingerprint(&self, fingerprint: &str) -> StoreResult<()>;
}

/// A webhook's state as a delivery needs it right before the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signing {
    pub is_active: bool,
    /// The webhook's scope now: a delivery it no longer covers is not sent.
    pub full_access: bool,
    pub profile_ids: Vec<String>,
    pub url: String,
    /// What the message is signed with, in the header's order: the HMAC secrets (the
    /// current, then the previous one while its grace period lasts) when the webhook signs
    /// `v1`, then the Ed25519 private keys likewise when it signs `v1a`
    /// ([`crate::sign::sign_all`] picks the scheme by prefix).
    pub secrets: Vec<String>,
    /// Static headers to send (name, value).
    pub headers: Vec<(String, String)>,
    /// The end of that grace period when `secrets` holds the previous secret: the time from
    /// which the same row answers with the current secret alone. `None` otherwise.
    pub grace_ends_at: Option<Timestamp>,
    /// Until when a receiver's `Retry-After` holds the webhook's deliveries
    /// ([`OutboxQueries::hold_webhook`](super::OutboxQueries::hold_webhook)), if it was ever held.
    pub held_until: Option<Timestamp>,
}

impl Signing {
    /// Whether this answer, read at `read_at`, is still the row's answer at `now` when
    /// nothing was committed since: time has not gone back, nor past the grace period's end
    /// (an answer without the previous secret stays so as time goes on).
    pub fn holds_at(&self, read_at: Timestamp, now: Timestamp) -> bool {
        now >= read_at
            && self.grace_ends_at.is_none_or(|end| now < end)
            && self.held_until.is_none_or(|h| now < h || read_at >= h)
    }
}
