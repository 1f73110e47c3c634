//! The developer portal's rows (`service::portal`): single-use links and the sessions they
//! open. Both are stored by the SHA-256 of their token, never the token itself.

use super::StoreResult;
use crate::time::Timestamp;

/// A portal link as stored: for one user and scope, opened at most once before
/// `expires_at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortalLinkRow {
    pub id: String,
    pub user_id: String,
    pub full_access: bool,
    pub profile_ids: Vec<String>,
    pub read_only: bool,
    /// The key that minted the link over HTTP; `None`: the operator (`portal link`).
    pub minted_by_key: Option<String>,
    /// Who minted it, as the audit log names them (`cli:<login>`, a key's prefix).
    pub minted_by: String,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
    /// When it was opened (exchanged for a session): a link opens once.
    pub used_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
}

/// A session a link opened: the portal's cookie names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortalSessionRow {
    pub id: String,
    pub link_id: String,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

/// Portal links and sessions.
pub trait PortalQueries {
    /// Inserts a link; `token_hash` is the SHA-256 (hex) of its token.
    fn insert_portal_link(&self, link: &PortalLinkRow, token_hash: &str) -> StoreResult<()>;
    /// The link whose token hashes to `token_hash`.
    fn portal_link_by_token(&self, token_hash: &str) -> StoreResult<Option<PortalLinkRow>>;
    /// The link `id` of `user`.
    fn portal_link(&self, user: &str, id: &str) -> StoreResult<Option<PortalLinkRow>>;
    /// Marks the link opened at `at` if it was not opened nor revoked yet, in one statement
    /// (two instances opening it at once: one wins); returns whether this call did.
    fn use_portal_link(&self, id: &str, at: Timestamp) -> StoreResult<bool>;
    /// Revokes the links of `user` (only `id` when given) that are not revoked yet and
    /// deletes their sessions; returns the ids revoked.
    fn revoke_portal_links(
        &self,
        user: &str,
        id: Option<&str>,
        at: Timestamp,
    ) -> StoreResult<Vec<String>>;
    /// The links of `user` that are not revoked, newest first.
    fn list_portal_links(&self, user: &str) -> StoreResult<Vec<PortalLinkRow>>;
    /// Inserts a session; `token_hash` is the SHA-256 (hex) of its cookie's token.
    fn insert_portal_session(&self, s: &PortalSessionRow, token_hash: &str) -> StoreResult<()>;
    /// The session whose token hashes to `token_hash`, with its link.
    fn portal_session_by_token(
        &self,
        token_hash: &str,
    ) -> StoreResult<Option<(PortalSessionRow, PortalLinkRow)>>;
    /// The sessions of the links of `user`, newest first.
    fn list_portal_sessions(&self, user: &str) -> StoreResult<Vec<PortalSessionRow>>;
    /// Deletes a session (signing out); returns whether there was one.
    fn delete_portal_session(&self, id: &str) -> StoreResult<bool>;
    /// Retention: deletes at most `limit` sessions that ended before `cutoff`
    /// ([`prunable_portal_session_sql`](crate::prunable_portal_session_sql)).
    fn prune_portal_sessions(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64>;
    /// Retention: deletes at most `limit` links that ended before `cutoff` and have no
    /// session left ([`prunable_portal_link_sql`](crate::prunable_portal_link_sql)).
    fn prune_portal_links(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64>;
}
