//! Attempts: the test ping, the attempt log, and the failure counter that disables a webhook.

use crate::service::audit::{self, Action, Entry, Via};
use crate::service::events::{self, TEST_EVENT};
use crate::service::idempotency::{self, Idempotent, Turn};
use crate::service::operational;

use crate::auth::Scope;
use crate::error::Result;
use crate::model::{DeliveryAttempt, TestResult, Webhook};
use crate::service::{Actor, Database, Operation};
use crate::store::{AttemptRecord, Conn, FailCounter, Signing, Store};
use crate::time::Timestamp;
use crate::transport::{Attempt, Transport};

use super::{find, ATTEMPT_LOG_LIMIT, DISABLE_AFTER_FAILURES};

/// Why `w` was disabled automatically (a 410 Gone, or too many failures in a row), if it
/// was and has not been enabled since: for `webhooks show`.
pub fn disabled_reason(store: &Store, w: &Webhook) -> Result<Option<String>> {
    if w.is_active {
        return Ok(None);
    }
    Ok(store.conn().disabled_reason(&w.id)?)
}

/// Sends one `webhook.test` delivery now, even to a disabled webhook, and counts it toward
/// `failCount` like any attempt. Three phases: look the webhook up (one database step), send
/// (holding nothing of the database: no connection, pool slot or transaction), record the
/// attempt (another step). A webhook deleted while its ping was in flight gets no attempt
/// logged; the caller still learns what the endpoint answered. With an `Idempotency-Key`
/// (`service::idempotency`) the key is taken with the lookup, before the ping goes out; a
/// repeat within 24 hours sends nothing and answers the first ping's result (503 while the
/// first is still in flight); a ping that fails to be recorded frees its key.
pub fn test(
    db: &(impl Database + ?Sized),
    actor: &Actor,
    id: &str,
    sender: &dyn Transport,
    idem: Option<&Idempotent>,
    now: Timestamp,
) -> Result<TestResult> {
    actor.may(Operation::TestWebhook, None)?;
    let (ping, turn) = db.step(|store| {
        let ping = Ping::prepare(store, actor, id, now)?;
        let Some(idem) = idem else {
            return Ok((ping, None));
        };
        let op = Operation::TestWebhook;
        let turn = store.write(|c| idempotency::take(c, actor, op, &ping.webhook_id, idem, now))?;
        Ok((ping, Some(turn)))
    })?;
    let taken = match turn {
        None => None,
        Some(Turn::First(taken)) => Some(taken),
        Some(Turn::Repeat(response)) => return idempotency::decode(&response),
    };
    let a = ping.send(sender);
    let result = TestResult {
        delivered: a.delivered,
        status_code: a.status_code,
        status_text: a.status_text.clone(),
    };
    let recorded = db.step(|store| {
        store.write(|c| {
            ping.log(c, &a)?;
            if let Some(taken) = &taken {
                idempotency::answer(c, taken, &serde_json::to_value(&result).unwrap_or_default())?;
            }
            Ok(())
        })
    });
    if let (Err(_), Some(taken)) = (&recorded, &taken) {
        // Best effort: a key left taken is freed after `idempotency::ABANDONED_AFTER_MS`.
        let _ = db.step(|store| store.write(|c| idempotency::release(c, taken)));
    }
    recorded?;
    Ok(result)
}

/// A test ping ready to go: everything the network call needs, owned, so that sending it
/// borrows nothing from the database.
struct Ping {
    webhook_id: String,
    url: String,
    /// The current secret first, then one in its rotation's grace period.
    secrets: Vec<String>,
    /// Its static headers.
    headers: Vec<(String, String)>,
    event_id: String,
    body: Vec<u8>,
    at: Timestamp,
}

impl Ping {
    fn prepare(store: &Store, actor: &Actor, id: &str, now: Timestamp) -> Result<Ping> {
        let w = find(store.conn(), actor, id)?;
        // The secrets of a rotation in its grace period sign a ping as they sign deliveries.
        let signing = store.conn().signing(&w.id, now)?;
        let (secrets, headers) = signing.map_or_else(
            || (vec![w.secret.clone()], Vec::new()),
            |s: Signing| (s.secrets, s.headers),
        );
        let event_id = events::new_event_id();
        let data = serde_json::json!({ "webhookId": w.id });
        let body = events::payload(&event_id, TEST_EVENT, None, now, &data);
        Ok(Ping {
            webhook_id: w.id,
            url: w.url,
            secrets,
            headers,
            event_id,
            body,
            at: now,
        })
    }

    fn send(&self, sender: &dyn Transport) -> Attempt {
        let ts = self.at.millis() / 1000;
        let secrets: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
        sender.send_with(
            &self.url,
            &secrets,
            &self.headers,
            &self.event_id,
            &self.body,
            ts,
        )
    }

    fn log(&self, c: Conn<'_>, a: &Attempt) -> Result<()> {
        let of = AttemptOf {
            webhook_id: &self.webhook_id,
            delivery_id: None,
            event_id: &self.event_id,
            event: TEST_EVENT,
            attempt: 1,
        };
        log_attempt(c, of, self.at, a)
    }
}

/// What an attempt was for.
pub struct AttemptOf<'a> {
    pub webhook_id: &'a str,
    /// The outbox entry; `None` for a test ping.
    pub delivery_id: Option<&'a str>,
    pub event_id: &'a str,
    pub event: &'a str,
    /// 1 for the first attempt of a delivery.
    pub attempt: i64,
}

/// Logs an attempt and counts it toward the webhook's `failCount`; the
/// [`DISABLE_AFTER_FAILURES`]th consecutive failure disables the webhook in the same
/// transaction ([`record_attempt`]).
/// Test pings and outbox deliveries both come through here. An automatic disable is
/// recorded in the audit log in the same transaction: actor `system`, via `worker` (also
/// when a test ping's failure was the one that crossed the threshold: the disable is the
/// failure counter's doing, not the pinging actor's).
pub fn log_attempt(c: Conn<'_>, of: AttemptOf<'_>, at: Timestamp, a: &Attempt) -> Result<()> {
    log_attempt_disabling(c, of, at, a).map(drop)
}

/// What an attempt does to its webhook's failure counter, decided from the counter the store
/// saw under the row's lock: the counter to write back (`None`: unchanged) and whether this
/// attempt disabled the webhook (it was active, and answered 410 Gone or was the
/// `disable_after`th failure in a row).
///
/// A success resets `failCount`; a failure adds one, and a 410 Gone or the `disable_after`th
/// failure deactivates the webhook and records why. A webhook disabled automatically
/// (`disabled_reason` set) keeps the failCount that disabled it until it is enabled again.
pub fn count_attempt(
    seen: &FailCounter,
    a: &AttemptRecord<'_>,
    disable_after: i64,
) -> (Option<FailCounter>, bool) {
    if seen.disabled_reason.is_some() {
        return (None, false);
    }
    if a.delivered {
        if seen.fail_count == 0 {
            return (None, false);
        }
        let after = FailCounter {
            fail_count: 0,
            ..seen.clone()
        };
        return (Some(after), false);
    }
    let fail_count = seen.fail_count + 1;
    if !(a.gone() || fail_count >= disable_after) {
        let after = FailCounter {
            fail_count,
            ..seen.clone()
        };
        return (Some(after), false);
    }
    let after = FailCounter {
        fail_count,
        is_active: false,
        disabled_reason: Some(disable_reason(a, disable_after)),
        updated_at: if seen.is_active {
            a.attempted_at
        } else {
            seen.updated_at
        },
        user_id: seen.user_id.clone(),
    };
    (Some(after), seen.is_active)
}

/// Logs an attempt and counts it ([`count_attempt`]), in the caller's write transaction:
/// the store locks the webhook's row and returns its counter, this decides, the store writes.
/// Nothing is written for a webhook deleted while the request was out. Returns the webhook's
/// user when this attempt disabled it, for the audit entry of the same transaction.
pub fn record_attempt(
    c: Conn<'_>,
    a: &AttemptRecord<'_>,
    disable_after: i64,
) -> Result<Option<String>> {
    let mut log = AttemptLog::new(disable_after);
    let disabled = log.record(c, a.clone())?;
    log.flush(c)?;
    Ok(disabled)
}

/// The attempts of one settling transaction, counted as [`record_attempt`] counts them one
/// by one, and written per run of attempts to the same webhook: its row is locked and its
/// counter read once for the run, the attempts go in one statement
/// (`WebhookQueries::insert_attempts`) and the counter is written once, at
/// [`AttemptLog::flush`] or when the next attempt is to another webhook. An attempt that
/// disables its webhook writes the run at once, so what the caller does next (the audit
/// entry, the operational event) reads the webhook as disabled. Nothing is written for a
/// webhook deleted while its requests were out. What is gathered and not flushed is lost:
/// flush before the transaction commits.
pub struct AttemptLog<'a> {
    disable_after: i64,
    run: Option<Run<'a>>,
}

/// The attempts gathered for one webhook.
struct Run<'a> {
    webhook_id: &'a str,
    /// The counter as the gathered attempts leave it; `None`: the webhook is gone.
    counter: Option<FailCounter>,
    /// Whether `counter` differs from the stored one.
    changed: bool,
    rows: Vec<AttemptRecord<'a>>,
}

impl<'a> AttemptLog<'a> {
    /// Disables a webhook at its `disable_after`th consecutive failure.
    pub fn new(disable_after: i64) -> AttemptLog<'a> {
        AttemptLog {
            disable_after,
            run: None,
        }
    }

    /// Counts `a`; returns the webhook's user when this attempt disabled it.
    pub fn record(&mut self, c: Conn<'_>, a: AttemptRecord<'a>) -> Result<Option<String>> {
        self.record_counted(c, a, true)
    }

    /// Logs `a` and, with `count`, counts it: a receiver's back-pressure answer
    /// ([`Attempt::back_pressure`]) is logged and not counted.
    fn record_counted(
        &mut self,
        c: Conn<'_>,
        a: AttemptRecord<'a>,
        count: bool,
    ) -> Result<Option<String>> {
        if self
            .run
            .as_ref()
            .is_none_or(|r| r.webhook_id != a.webhook_id)
        {
            self.flush(c)?;
            self.run = Some(Run {
                webhook_id: a.webhook_id,
                counter: c.lock_fail_counter(a.webhook_id)?,
                changed: false,
                rows: Vec::new(),
            });
        }
        let Some(run) = self.run.as_mut() else {
            return Ok(None);
        };
        let Some(seen) = &run.counter else {
            return Ok(None);
        };
        if !count {
            run.rows.push(a);
            return Ok(None);
        }
        let (after, disabled) = count_attempt(seen, &a, self.disable_after);
        let user = disabled.then(|| seen.user_id.clone());
        if let Some(after) = after {
            run.counter = Some(after);
            run.changed = true;
        }
        run.rows.push(a);
        if disabled {
            self.write(c)?;
        }
        Ok(user)
    }

    /// Writes what is gathered: the attempts in one statement, then the counter.
    pub fn flush(&mut self, c: Conn<'_>) -> Result<()> {
        self.write(c)?;
        self.run = None;
        Ok(())
    }

    /// Writes the run's attempts and counter, keeping the run open.
    fn write(&mut self, c: Conn<'_>) -> Result<()> {
        let Some(run) = self.run.as_mut() else {
            return Ok(());
        };
        if let Some(counter) = &run.counter {
            if !run.rows.is_empty() {
                c.insert_attempts(&run.rows)?;
                run.rows.clear();
            }
            if run.changed {
                c.set_fail_counter(run.webhook_id, counter)?;
                run.changed = false;
            }
        }
        Ok(())
    }
}

/// [`log_attempt`], telling why the attempt disabled its webhook, if it did: the reason the
/// audit entry records (for the worker's log line).
pub fn log_attempt_disabling(
    c: Conn<'_>,
    of: AttemptOf<'_>,
    at: Timestamp,
    a: &Attempt,
) -> Result<Option<&'static str>> {
    let mut log = AttemptLog::new(DISABLE_AFTER_FAILURES);
    let disabled = log_attempt_in(c, &mut log, of, at, a)?;
    log.flush(c)?;
    Ok(disabled)
}

/// [`log_attempt_disabling`] with the attempt gathered in `log` (one of a batch the caller
/// settles: [`AttemptLog`]), which the caller flushes before its transaction commits.
pub fn log_attempt_in<'a>(
    c: Conn<'_>,
    log: &mut AttemptLog<'a>,
    of: AttemptOf<'a>,
    at: Timestamp,
    a: &'a Attempt,
) -> Result<Option<&'static str>> {
    let webhook_id = of.webhook_id;
    let record = AttemptRecord {
        webhook_id: of.webhook_id,
        delivery_id: of.delivery_id,
        event_id: of.event_id,
        event: of.event,
        attempt: of.attempt,
        attempted_at: at,
        delivered: a.delivered,
        status_code: a.status_code,
        status_text: &a.status_text,
        duration_ms: a.duration_ms,
        response_excerpt: &a.response_excerpt,
        skipped: None,
    };
    // A receiver's 429/503 with `Retry-After` is back-pressure, not a failure of the
    // endpoint: logged, never counted toward the automatic disable (CONTRACT §15).
    let counted = a.back_pressure().is_none();
    let disabled = log.record_counted(c, record.clone(), counted)?;
    if let Some(user) = disabled {
        // The webhook's scope, for who may read the entry (it exists: it was just disabled).
        let w = c.webhook(&user, webhook_id)?;
        let all = (true, Vec::new());
        let (full_access, ids) = w
            .as_ref()
            .map_or(all, |w| (w.full_access, w.profile_ids.clone()));
        // Why it was disabled: the rule `count_attempt` applied (`AttemptRecord::gone`).
        let (reason, details) = if record.gone() {
            let details = serde_json::json!({ "reason": GONE_REASON, "statusCode": a.status_code });
            (GONE_REASON, details)
        } else {
            let details = serde_json::json!({
                "reason": FAILURES_REASON,
                "failCount": DISABLE_AFTER_FAILURES,
                "statusCode": a.status_code,
            });
            (FAILURES_REASON, details)
        };
        let entry = Entry::system(
            &user,
            Via::Worker,
            Action::WebhookDisabled,
            webhook_id,
            details,
        )
        .about(Scope {
            full_access,
            profile_ids: &ids,
        });
        audit::record(c, at, &entry)?;
        // Reported to the user's other webhooks, unless this was the delivery of an
        // operational event: those never cause another (no loops).
        if let Some(w) = w.filter(|_| !operational::is_operational(record.event)) {
            let stored = disable_reason(&record, DISABLE_AFTER_FAILURES);
            operational::webhook_disabled(c, &w, &stored, at)?;
        }
        return Ok(Some(reason));
    }
    Ok(None)
}

/// The audit entry's reason when the consecutive failures disabled a webhook.
pub const FAILURES_REASON: &str = "consecutive failures";

/// The reason stored when a receiver answered 410 Gone (`count_attempt`).
pub const GONE_REASON: &str = "receiver answered 410 Gone";

/// The reason stored when the `n`th consecutive failure disabled a webhook.
pub fn failures_reason(n: i64) -> String {
    format!("{n} consecutive failed attempts")
}

/// The `disabled_reason` recorded if the failed attempt `a` disables its webhook: 410 Gone,
/// else it is the `disable_after`th failure in a row.
fn disable_reason(a: &AttemptRecord<'_>, disable_after: i64) -> String {
    if a.gone() {
        GONE_REASON.into()
    } else {
        failures_reason(disable_after)
    }
}

/// The newest attempts to deliver to the webhook, newest first.
pub fn attempts(store: &Store, actor: &Actor, id: &str) -> Result<Vec<DeliveryAttempt>> {
    actor.may(Operation::ListDeliveries, None)?;
    let w = find(store.conn(), actor, id)?;
    let mut list = store.conn().attempts(&w.id, ATTEMPT_LOG_LIMIT)?;
    // An ordered webhook's failing head: the attempts of the delivery that holds its queue.
    if w.control.ordered {
        if let Some((holder, behind)) = store.conn().queue_holder(&w.id)? {
            for a in list
                .iter_mut()
                .filter(|a| a.delivery_id.as_deref() == Some(holder.as_str()))
            {
                a.holds_queue = true;
                a.queued_behind = behind;
            }
        }
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter(is_active: bool, fail_count: i64, reason: Option<&str>) -> FailCounter {
        FailCounter {
            user_id: "u".into(),
            is_active,
            fail_count,
            disabled_reason: reason.map(String::from),
            updated_at: Timestamp(5),
        }
    }

    fn attempt(delivered: bool, status_code: u16) -> AttemptRecord<'static> {
        AttemptRecord {
            webhook_id: "w",
            delivery_id: None,
            event_id: "e",
            event: "post.published",
            attempt: 1,
            attempted_at: Timestamp(9),
            delivered,
            status_code,
            status_text: "",
            duration_ms: 1,
            response_excerpt: "",
            skipped: None,
        }
    }

    #[test]
    fn attempts_count_toward_the_automatic_disable() {
        let n = DISABLE_AFTER_FAILURES;
        let ok = attempt(true, 200);
        let failed = attempt(false, 500);
        let gone = attempt(false, 410);
        // A success resets a count, and leaves a zero count alone.
        let reset = count_attempt(&counter(true, 3, None), &ok, n);
        assert_eq!(reset, (Some(counter(true, 0, None)), false));
        assert_eq!(
            count_attempt(&counter(true, 0, None), &ok, n),
            (None, false)
        );
        // A failure below the threshold counts one.
        let one = count_attempt(&counter(true, n - 2, None), &failed, n);
        assert_eq!(one, (Some(counter(true, n - 1, None)), false));
        // The threshold-th failure disables, records why, and moves updatedAt.
        let reason = failures_reason(n);
        let mut off = counter(false, n, Some(&reason));
        off.updated_at = Timestamp(9);
        let tripped = count_attempt(&counter(true, n - 1, None), &failed, n);
        assert_eq!(tripped, (Some(off), true));
        // 410 Gone disables at once, whatever the count.
        let mut off = counter(false, 1, Some(GONE_REASON));
        off.updated_at = Timestamp(9);
        assert_eq!(
            count_attempt(&counter(true, 0, None), &gone, n),
            (Some(off), true)
        );
        // A webhook disabled by hand still counts and gets the reason, but this attempt did
        // not disable it, and updatedAt stays.
        let manual = count_attempt(&counter(false, n - 1, None), &failed, n);
        assert_eq!(manual, (Some(counter(false, n, Some(&reason))), false));
        // The reason is sticky: once disabled automatically, nothing moves until an enable.
        for a in [&ok, &failed, &gone] {
            let seen = counter(false, n, Some(&reason));
            assert_eq!(count_attempt(&seen, a, n), (None, false));
        }
    }
}
