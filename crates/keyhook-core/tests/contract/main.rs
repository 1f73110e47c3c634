//! The store's contract, one story for every backend (as atuin's `crates/tests-database`):
//! each case below is a function of a backend ([`support::Kind`]), and `contract!` makes it
//! one test per backend, `sqlite::semantics::…`, `postgres::semantics::…`, all in this one
//! test process. A third backend is one more `name => support::KIND` line in `backends`
//! (and its `Kind` in `tests/support`).
//!
//! - `semantics`: every method of `Queries`, in and out of a write transaction, answers on
//!   each backend as on the reference (the first of `support::BACKENDS`, SQLite); `db copy`'s
//!   batches move every row to the backend and back unchanged.
//! - `rules`: the rules the backends run in SQL (`keyhook_core::store::sql`: the enqueue,
//!   replay `--failed-only`, retention, the claim's and the grace period's boundaries, the
//!   sticky disable reason) select on every backend what the core's rule in Rust selects.
//! - `concurrency`: the rules that hold under concurrent writers from several instances
//!   (the webhook limit, the claim, failCount, revocation, lastUsedAt).
//! - `read_ahead`: the list a request reads with its key is the list a read of its own
//!   gives, however the database changed since the last request.
//!
//! A backend that cannot run on this machine (no PostgreSQL, outside CI) prints why and its
//! cases pass without running; under `CI=true` they fail.

use keyhook_test_support as support;

mod concurrency;
mod read_ahead;
mod routing;
mod rules;
mod semantics;

/// One `#[test]` per backend and case: `contract! { backends { name => KIND, … } cases {
/// module: [case, …], … } }` calls `module::case(&KIND)` in a test `name::module::case`.
macro_rules! contract {
    (backends { $($b:ident => $kind:path),* $(,)? } cases $cases:tt) => {
        $( contract!(@backend $b, $kind, $cases); )*
    };
    (@backend $b:ident, $kind:path, { $($m:ident: [$($case:ident),* $(,)?]),* $(,)? }) => {
        mod $b {
            $(
                mod $m {
                    $(
                        #[test]
                        fn $case() {
                            crate::$m::$case(&$kind)
                        }
                    )*
                }
            )*
        }
    };
}

contract! {
    backends {
        sqlite => crate::support::SQLITE,
        postgres => crate::support::POSTGRES,
    }
    cases {
        routing: [every_path_follows_the_one_rule, a_replay_reads_every_event_across_pages],
        semantics: [
            every_query_answers_as_on_the_reference,
            db_copy_batches_move_every_row_unchanged_both_ways,
        ],
        rules: [
            the_enqueue_reaches_the_webhooks_the_core_says,
            replay_selects_what_the_core_says,
            retention_deletes_what_the_core_says,
            boundaries_fall_where_the_core_says,
            an_enable_clears_the_disable_reason_and_nothing_else_does,
            claims_split_between_listeners_and_the_rest,
            a_batch_is_leased_and_finished_as_one_delivery_is,
            claimed_deliveries_end_themselves_and_no_other_row,
            attempts_logged_as_a_batch_write_what_one_by_one_writes,
            a_batch_of_attempts_with_one_bad_row_writes_none,
            the_check_before_a_send_is_the_row_as_last_committed,
            a_claim_stops_at_its_payload_budget,
        ],
        concurrency: [
            the_webhook_limit_holds_when_creates_race,
            two_claimers_never_claim_the_same_delivery,
            a_claim_skips_rows_another_claim_holds,
            fail_count_is_exact_under_concurrent_attempts_and_edits,
            the_tenth_consecutive_failure_disables_and_a_success_resets,
            a_key_revoked_anywhere_is_refused_everywhere_at_once,
            last_used_never_moves_back_and_never_waits_long,
        ],
        read_ahead: [
            the_list_read_with_the_key_is_the_list_read_alone,
            another_instances_commit_shows_in_the_next_list_read_ahead,
            the_connections_own_writes_show_in_its_next_list_read_ahead,
            a_list_read_ahead_and_left_is_never_given_to_the_next_user,
            a_later_use_recorded_elsewhere_shows_in_the_list_read_ahead,
            a_use_not_recorded_leaves_the_list_as_read,
        ],
    }
}
