//! The rules a backend has to run inside its SQL (for atomicity or for speed: the claim,
//! replay `--failed-only`'s history, retention's batch deletes), written once
//! here as `concat!`-able fragments that both backends splice into their statements. A
//! backend writes no rule of its own: it names its placeholders and its dialect, and the
//! core's fragment says what is selected. The store's contract suite
//! (`crates/keyhook-core/tests/contract`) runs the same cases through every backend and
//! checks that they agree with each other and with the core's rule in Rust.
//!
//! # Dialects
//!
//! Where the two SQL dialects differ, a fragment takes the backend's dialect as the name of
//! a macro `$d` with these arms (`keyhook-sqlite` and `keyhook-postgres` each define one,
//! `dialect!`, in their `lib.rs`):
//!
//! - `$d!(flag LIT...)`: the boolean column (or parameter) the literals spell is true;
//! - `$d!(insertion_order LIT)`: the column of table alias `LIT` that orders its rows as they
//!   were inserted (the tie-break of "the newest").
//! - `$d!(queue_order LIT)`: a delivery's place in its webhook's queue, the columns prefixed
//!   `LIT` (`"d."`): unique, growing as deliveries are inserted, in commit order for the
//!   deliveries of one ordered webhook (CONTRACT §15 `--ordered`).
//!
//! Placeholders (`?1`, `$1`) and table aliases are literals the backend passes; the
//! fragments never see input, only constants.

/// [`DeliveryState::Pending`](crate::store::DeliveryState::Pending) as an SQL literal: the
/// state a queued delivery is inserted in, the one the outbox takes and counts from. Retention deletes a delivery only when `state <> ` this (every state of
/// [`DeliveryState::FINISHED`](crate::store::DeliveryState::FINISHED); written so, the
/// statement matches the `deliveries_finished` partial index). `store::sql::tests` checks
/// that it renders the enum.
#[macro_export]
macro_rules! pending_state_sql {
    () => {
        "'pending'"
    };
}

/// [`DeliveryState::REPLAYED_AS_FAILED`](crate::store::DeliveryState::REPLAYED_AS_FAILED) as
/// an SQL list literal (`replay --failed-only`: a delivery whose latest copy is in one of
/// these is replayed). Checked like [`pending_state_sql`].
#[macro_export]
macro_rules! replayed_as_failed_sql {
    () => {
        "('failed', 'cancelled')"
    };
}

/// `replay --failed-only`: unless the parameter `$failed_only` is false, the newest
/// delivery of the event `$e` (a table alias) to the webhook whose id is `$webhook` (an
/// expression: a placeholder) (newest by `created_at`, then by insertion) ended in one of
/// [`replayed_as_failed_sql`]'s states.
#[macro_export]
macro_rules! replay_failed_only_sql {
    ($d:ident, $failed_only:literal, $webhook:literal, $e:literal) => {
        concat!(
            "(NOT (",
            $d!(flag $failed_only),
            ") OR (SELECT d.state FROM deliveries d WHERE d.event_id = ",
            $e,
            ".id AND d.webhook_id = ",
            $webhook,
            " ORDER BY d.created_at DESC, ",
            $d!(insertion_order "d"),
            " DESC LIMIT 1) IN ",
            $crate::replayed_as_failed_sql!(),
            ")"
        )
    };
}

/// A delivery's lease is free at `$now`: never leased, or its lease has run out (a lease
/// ending at `$now` has run out). `$t` prefixes the columns (`"d."` or `""`).
#[macro_export]
macro_rules! lease_free_sql {
    ($t:literal, $now:literal) => {
        concat!(
            "(",
            $t,
            "lease_until IS NULL OR ",
            $t,
            "lease_until <= ",
            $now,
            ")"
        )
    };
}

/// A delivery is due at `$now`: pending, its next attempt at or before `$now`, and not
/// leased ([`lease_free_sql`]): what `any_due` asks and `claim_due_within` takes.
#[macro_export]
macro_rules! due_sql {
    ($t:literal, $now:literal) => {
        concat!(
            $t,
            "state = ",
            $crate::pending_state_sql!(),
            " AND ",
            $t,
            "next_attempt_at <= ",
            $now,
            " AND ",
            $crate::lease_free_sql!($t, $now)
        )
    };
}

/// Whose deliveries a worker claims (the delivery's columns prefixed `$t`): with the text
/// parameter `$only` NULL (every `serve` and `deliver`), the deliveries of every webhook but
/// an ephemeral one, which only its own `keyhook listen` sends (its machine may be the only
/// one that reaches its target); with `$only` a webhook id (`listen`'s worker), that
/// webhook's alone.
#[macro_export]
macro_rules! claimable_sql {
    ($d:ident, $t:literal, $only:literal) => {
        concat!(
            "(",
            $t,
            "webhook_id = ",
            $only,
            " OR (",
            $only,
            " IS NULL AND NOT EXISTS (SELECT 1 FROM webhooks cw WHERE cw.id = ",
            $t,
            "webhook_id AND ",
            $d!(flag "cw.ephemeral"),
            ")))"
        )
    };
}

/// An ephemeral webhook (table alias `$w`) whose listener is gone: its last heartbeat is
/// before `$cutoff` (one at the cutoff is alive). Any normal worker deletes it.
#[macro_export]
macro_rules! stale_listener_sql {
    ($d:ident, $w:literal, $cutoff:literal) => {
        concat!(
            $d!(flag $w ".ephemeral"),
            " AND ",
            $crate::before_sql!(($w ".heartbeat_at"), $cutoff)
        )
    };
}

/// A delivery that has failed and waits for its next retry, not leased at `$now`: what
/// `replay --failed-only` makes due now instead of queueing a second copy.
#[macro_export]
macro_rules! waiting_retry_sql {
    ($t:literal, $now:literal) => {
        concat!(
            $t,
            "state = ",
            $crate::pending_state_sql!(),
            " AND ",
            $t,
            "attempts > 0 AND ",
            $crate::lease_free_sql!($t, $now)
        )
    };
}

/// Older than a cutoff, for retention and pruning: the column `$col` is strictly before
/// `$cutoff` (a row stamped at the cutoff is kept).
#[macro_export]
macro_rules! before_sql {
    ($col:literal, $cutoff:literal) => {
        concat!($col, " < ", $cutoff)
    };
    (($($col:literal)+), $cutoff:literal) => {
        concat!($($col,)+ " < ", $cutoff)
    };
}

/// The deliveries retention may delete: finished (not [`pending_state_sql`]) before
/// `$cutoff`; a pending delivery never, however old.
#[macro_export]
macro_rules! prunable_delivery_sql {
    ($cutoff:literal) => {
        concat!(
            "state <> ",
            $crate::pending_state_sql!(),
            " AND ",
            $crate::before_sql!("updated_at", $cutoff)
        )
    };
}

/// The events (table alias `$e`) retention may delete: created before `$cutoff` and no
/// longer referred to by any delivery (so never one with a pending delivery, nor one whose
/// delivery is still kept).
#[macro_export]
macro_rules! prunable_event_sql {
    ($e:literal, $cutoff:literal) => {
        concat!(
            $crate::before_sql!(($e ".created_at"), $cutoff),
            " AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = ",
            $e,
            ".id)"
        )
    };
}

/// The portal sessions (table alias `$s`) retention may delete: ended at their 8 hours
/// before `$cutoff`. (One ended early, by its link's revocation or signing out, is already
/// gone; one whose minting key was deleted or expired goes the retention after its 8 hours.)
#[macro_export]
macro_rules! prunable_portal_session_sql {
    ($s:literal, $cutoff:literal) => {
        $crate::before_sql!(($s ".expires_at"), $cutoff)
    };
}

/// The portal links (table alias `$l`) retention may delete: ended before `$cutoff` (opened,
/// revoked, or past their expiry, whichever came first) and with no session left (a session
/// lives longer than its link; it is pruned first, by [`prunable_portal_session_sql`]).
#[macro_export]
macro_rules! prunable_portal_link_sql {
    ($l:literal, $cutoff:literal) => {
        concat!(
            "(",
            $crate::before_sql!(($l ".expires_at"), $cutoff),
            " OR ",
            $crate::before_sql!(($l ".used_at"), $cutoff),
            " OR ",
            $crate::before_sql!(($l ".revoked_at"), $cutoff),
            ") AND NOT EXISTS (SELECT 1 FROM portal_sessions s WHERE s.link_id = ",
            $l,
            ".id)"
        )
    };
}

/// One retention batch of the portal's sessions, whole: `$cutoff` and `$limit` are the
/// backend's placeholders, `$lock` what follows `LIMIT` in its row-locking select (`""` on
/// SQLite, `" FOR UPDATE SKIP LOCKED"` on PostgreSQL).
#[macro_export]
macro_rules! prune_portal_sessions_sql {
    ($cutoff:literal, $limit:literal, $lock:literal) => {
        concat!(
            "DELETE FROM portal_sessions WHERE id IN (SELECT p.id FROM portal_sessions p WHERE ",
            $crate::prunable_portal_session_sql!("p", $cutoff),
            " LIMIT ",
            $limit,
            $lock,
            ")"
        )
    };
}

/// One retention batch of the portal's links, whole, as [`prune_portal_sessions_sql`].
#[macro_export]
macro_rules! prune_portal_links_sql {
    ($cutoff:literal, $limit:literal, $lock:literal) => {
        concat!(
            "DELETE FROM portal_links WHERE id IN (SELECT l.id FROM portal_links l WHERE ",
            $crate::prunable_portal_link_sql!("l", $cutoff),
            " LIMIT ",
            $limit,
            $lock,
            ")"
        )
    };
}

/// A webhook's previous secret has reached the end of its grace period at `$now` (a grace
/// ending at `$now` has ended): it is no longer signed with, and may be dropped.
#[macro_export]
macro_rules! secret_expired_sql {
    ($now:literal) => {
        concat!("previous_secret_expires_at <= ", $now)
    };
}

/// A webhook's previous secret is still in its grace period at `$now`: the negation of
/// [`secret_expired_sql`] (false too when there is none).
#[macro_export]
macro_rules! secret_in_grace_sql {
    ($now:literal) => {
        concat!("previous_secret_expires_at > ", $now)
    };
}

/// An idempotency record (columns prefixed `$t`) is stale at `$stale_before`: created at or
/// before it, so a new event may take its key.
#[macro_export]
macro_rules! idempotency_stale_sql {
    ($t:literal, $stale_before:literal) => {
        concat!($t, "created_at <= ", $stale_before)
    };
}

/// A use at `$at` moves a key's `last_used_at` only forward.
#[macro_export]
macro_rules! last_used_moves_sql {
    ($at:literal) => {
        concat!("(last_used_at IS NULL OR last_used_at < ", $at, ")")
    };
}

/// The disable reason is sticky until an enable: an update whose `is_active` parameter
/// `$active` is true clears `disabled_reason`; any other keeps it. The SET clause.
#[macro_export]
macro_rules! enable_clears_reason_sql {
    ($active:literal) => {
        concat!(
            "disabled_reason = CASE WHEN ",
            $active,
            " THEN NULL ELSE disabled_reason END"
        )
    };
}

/// The delivery (columns prefixed `$t`) is not held by its webhook's `Retry-After` at `$now`
/// (`OutboxQueries::hold_webhook`), nor by its webhook's rate (no token left until
/// `webhook_rates.next_at`).
#[macro_export]
macro_rules! unheld_sql {
    ($t:literal, $now:literal) => {
        concat!(
            "NOT EXISTS (SELECT 1 FROM webhooks hw WHERE hw.id = ",
            $t,
            "webhook_id AND hw.held_until > ",
            $now,
            ") AND NOT EXISTS (SELECT 1 FROM webhook_rates hr WHERE hr.webhook_id = ",
            $t,
            "webhook_id AND hr.next_at > ",
            $now,
            ")"
        )
    };
}

/// The `next_attempt_at` of an ordered webhook's delivery as it is queued (CONTRACT §15
/// `--ordered`): parked past any time, so the claim's scan of due deliveries (the
/// `deliveries_due` index) never meets the thousands that may wait behind the head of a
/// queue. A parked delivery is claimed when it is the head of its queue
/// ([`parked_head_sql`]); a retry gives it a time like any other.
/// [`PARKED`](crate::store::PARKED) as an SQL literal; `store::sql::tests` checks it.
#[macro_export]
macro_rules! parked_sql {
    () => {
        "9223372036854775807"
    };
}

/// For each ordered webhook, the id of the head of its queue: its first pending delivery in
/// queue order (`$d!(queue_order)`), pending while leased and while waiting for a retry. A
/// `SELECT` list, one row per ordered webhook (NULL for an empty queue).
#[macro_export]
macro_rules! queue_heads_sql {
    ($d:ident) => {
        concat!(
            "SELECT (SELECT q.id FROM deliveries q WHERE q.webhook_id = qw.id AND q.state = ",
            $crate::pending_state_sql!(),
            " ORDER BY ",
            $d!(queue_order "q."),
            " LIMIT 1) FROM webhooks qw WHERE ",
            $d!(flag "qw.ordered")
        )
    };
}

/// The delivery (columns prefixed `$t`) is of an unordered webhook, or it is the head of its
/// ordered webhook's queue: no pending delivery of the webhook comes before it. So an
/// ordered webhook has one delivery claimable at a time, and the next only once the one
/// before is delivered, failed for good or cancelled.
#[macro_export]
macro_rules! queue_head_sql {
    ($d:ident, $t:literal) => {
        concat!(
            "NOT EXISTS (SELECT 1 FROM webhooks ow WHERE ow.id = ",
            $t,
            "webhook_id AND ",
            $d!(flag "ow.ordered"),
            " AND EXISTS (SELECT 1 FROM deliveries q WHERE q.webhook_id = ",
            $t,
            "webhook_id AND q.state = ",
            $crate::pending_state_sql!(),
            " AND ",
            $d!(queue_order "q."),
            " < ",
            $d!(queue_order $t),
            "))"
        )
    };
}

/// Whether any webhook uses a control the claim has to look at per delivery at `$now`: held
/// by a `Retry-After`, out of `--rate` tokens, or `--ordered`. Uncorrelated, so each backend
/// runs it once per statement (three probes of small partial indexes); when it is false,
/// [`claim_rules_sql`] looks at nothing per row and a claim costs what it did before any
/// control existed.
#[macro_export]
macro_rules! claim_controls_sql {
    ($d:ident, $now:literal) => {
        concat!(
            "(EXISTS (SELECT 1 FROM webhooks xh WHERE xh.held_until > ",
            $now,
            ") OR EXISTS (SELECT 1 FROM webhook_rates xr WHERE xr.next_at > ",
            $now,
            ") OR EXISTS (SELECT 1 FROM webhooks xo WHERE ",
            $d!(flag "xo.ordered"),
            "))"
        )
    };
}

/// What a due delivery (columns prefixed `$t`) must also be to be claimed at `$now`: not
/// held ([`unheld_sql`]) and the head of its queue if its webhook is ordered
/// ([`queue_head_sql`]), both asked only when some webhook uses a control at all
/// ([`claim_controls_sql`]).
#[macro_export]
macro_rules! claim_rules_sql {
    ($d:ident, $t:literal, $now:literal) => {
        concat!(
            "(NOT ",
            $crate::claim_controls_sql!($d, $now),
            " OR (",
            $crate::unheld_sql!($t, $now),
            " AND ",
            $crate::queue_head_sql!($d, $t),
            "))"
        )
    };
}

/// A parked delivery (columns prefixed `$t`, [`parked_sql`]) that a claim at `$now` takes:
/// the head of its ordered webhook's queue ([`queue_heads_sql`]), not leased, not held.
/// Found by id from the heads (one per ordered webhook): the `+` keeps both planners off the
/// `next_attempt_at` index, where every parked delivery of every queue sits.
#[macro_export]
macro_rules! parked_head_sql {
    ($d:ident, $t:literal, $now:literal) => {
        concat!(
            "+",
            $t,
            "next_attempt_at = ",
            $crate::parked_sql!(),
            " AND ",
            $t,
            "state = ",
            $crate::pending_state_sql!(),
            " AND ",
            $crate::lease_free_sql!($t, $now),
            " AND ",
            $t,
            "id IN (",
            $crate::queue_heads_sql!($d),
            ") AND ",
            $crate::unheld_sql!($t, $now)
        )
    };
}

#[cfg(test)]
mod tests {
    use crate::store::DeliveryState;

    /// A dialect for reading the fragments: what each arm was given, bracketed.
    macro_rules! shown {
        (flag $($c:literal)+) => { concat!("FLAG[", $($c,)+ "]") };
        (insertion_order $t:literal) => { concat!("ORDER[", $t, "]") };
        (queue_order $t:literal) => { concat!("QUEUE[", $t, "]") };
    }

    /// The SQL lists both backends splice into their statements are the core's sets.
    #[test]
    fn state_lists_render_the_cores_sets() {
        assert_eq!(
            crate::pending_state_sql!(),
            format!("'{}'", DeliveryState::Pending.as_str())
        );
        assert_eq!(
            crate::replayed_as_failed_sql!(),
            DeliveryState::sql_list(&DeliveryState::REPLAYED_AS_FAILED)
        );
        // FINISHED is every state but pending (what `state <> 'pending'` selects): retention
        // never deletes a queued delivery.
        assert_eq!(crate::parked_sql!(), crate::store::PARKED.to_string());
        let unfinished: Vec<_> = DeliveryState::ALL
            .into_iter()
            .filter(|s| !DeliveryState::FINISHED.contains(s))
            .collect();
        assert_eq!(unfinished, [DeliveryState::Pending]);
    }

    /// The fragments state the rules as documented, through whatever dialect is given.
    #[test]
    fn fragments_state_the_rules_through_the_dialect() {
        assert_eq!(
            crate::replay_failed_only_sql!(shown, "?4", "?1", "e"),
            "(NOT (FLAG[?4]) OR (SELECT d.state FROM deliveries d WHERE d.event_id = e.id \
             AND d.webhook_id = ?1 ORDER BY d.created_at DESC, ORDER[d] DESC LIMIT 1) IN \
             ('failed', 'cancelled'))"
        );
        assert_eq!(
            crate::due_sql!("d.", "?1"),
            "d.state = 'pending' AND d.next_attempt_at <= ?1 AND (d.lease_until IS NULL OR \
             d.lease_until <= ?1)"
        );
        assert_eq!(
            crate::prunable_event_sql!("e", "?1"),
            "e.created_at < ?1 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = \
             e.id)"
        );
        assert_eq!(
            crate::claimable_sql!(shown, "d.", "?4"),
            "(d.webhook_id = ?4 OR (?4 IS NULL AND NOT EXISTS (SELECT 1 FROM webhooks cw \
             WHERE cw.id = d.webhook_id AND FLAG[cw.ephemeral])))"
        );
        assert_eq!(
            crate::stale_listener_sql!(shown, "w", "?1"),
            "FLAG[w.ephemeral] AND w.heartbeat_at < ?1"
        );
        assert_eq!(
            crate::prunable_delivery_sql!("$1"),
            "state <> 'pending' AND updated_at < $1"
        );
        // An ordered webhook's delivery is claimable only with nothing pending before it.
        assert_eq!(
            crate::queue_head_sql!(shown, "d."),
            "NOT EXISTS (SELECT 1 FROM webhooks ow WHERE ow.id = d.webhook_id AND \
             FLAG[ow.ordered] AND EXISTS (SELECT 1 FROM deliveries q WHERE q.webhook_id = \
             d.webhook_id AND q.state = 'pending' AND QUEUE[q.] < QUEUE[d.]))"
        );
        assert_eq!(
            crate::queue_heads_sql!(shown),
            "SELECT (SELECT q.id FROM deliveries q WHERE q.webhook_id = qw.id AND q.state = \
             'pending' ORDER BY QUEUE[q.] LIMIT 1) FROM webhooks qw WHERE FLAG[qw.ordered]"
        );
        // The per-row rules are asked only when some webhook uses a control.
        assert!(crate::claim_rules_sql!(shown, "d.", "?1").starts_with(
            "(NOT (EXISTS (SELECT 1 FROM webhooks xh WHERE xh.held_until > ?1) OR EXISTS \
             (SELECT 1 FROM webhook_rates xr WHERE xr.next_at > ?1) OR EXISTS (SELECT 1 FROM \
             webhooks xo WHERE FLAG[xo.ordered])) OR (NOT EXISTS"
        ));
    }
}
