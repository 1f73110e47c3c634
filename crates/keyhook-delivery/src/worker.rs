//! The outbox worker: leases due deliveries, sends them on a pool of threads, and records
//! each attempt, its retry or its end in batched transactions.
//!
//! At-least-once: a delivery is leased before it is sent and settled after; if the process
//! dies in between, the lease runs out and the delivery is claimed and sent again.

use std::collections::{HashMap, HashSet};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender as Tx, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::client::{ClientConfig, Sender};
use super::schedule::Schedule;
use keyhook_core::error::Result;
use keyhook_core::service::listen::{self, url_for_event};
use keyhook_core::service::operational;
use keyhook_core::service::retention::{self, Pruned};
use keyhook_core::service::routing;
use keyhook_core::service::webhooks::{
    drop_expired_secrets, log_attempt_in, AttemptLog, AttemptOf, DISABLE_AFTER_FAILURES,
};
use keyhook_core::stop::Stop;
use keyhook_core::store::{Backend, Claimed, Conn, DeliveryState, Signing, Store};
use keyhook_core::time::{Clock, Timestamp};
use keyhook_core::transport::Attempt;

/// Deliveries claimed and not settled, per sender thread: the senders' queue holds up to
/// `(CLAIM_DEPTH - 1) × senders` waiting ones. A claim is taken only once at least one
/// sender's worth of room is free ([`claim_room`]), and goes in the transaction that
/// settles the results before it ([`Settler::settle_finished`]), so a busy worker commits
/// once per [`GATHER`] (or [`SETTLE_SHARE`] of its capacity) rather than twice per handful
/// (on SQLite each commit writes its log frames and feeds the checkpoints, a large share
/// of a busy worker's CPU when commits are small). The queue outlasts a settle
/// transaction: while the settle thread writes a batch, the senders go on with what is queued instead of running
/// dry (at 16 per sender they did, and the machine sat a third idle). More held leases do
/// not slow a dead worker's recovery: every one of them lapses [`LEASE`] after its last
/// renewal. What they hold in memory is bounded by [`HELD_BYTES`].
const CLAIM_DEPTH: usize = 64;
/// The payload bytes the deliveries claimed and not settled may hold: a claim stops at what
/// is left of it (`OutboxQueries::claim_due_within`), so a worker holds at most this and one
/// event more, whatever the events' sizes and `--delivery-workers`.
const HELD_BYTES: usize = 16 << 20;
/// The settle loop gathers up to `capacity / SETTLE_SHARE` results (half of what is claimed)
/// for one transaction...
const SETTLE_SHARE: usize = 2;
/// ...for at most this long once the first is in. Failed attempts hold up the next request
/// to their webhook ([`Unsettled`]) at most that much longer.
const GATHER: Duration = Duration::from_millis(10);
/// How often an idle worker looks for due deliveries.
const POLL: Duration = Duration::from_millis(100);
/// How long a sender that has finished its job, or the settle loop waiting for a result,
/// looks for the next one before it sleeps ([`recv_soon`]). An ordered webhook's deliveries
/// pass between the two threads twice each (the result to the settle loop, the next head back
/// to a sender), with only a round trip or a commit between, well under this; putting a
/// thread to sleep and waking it again cost more than either on a virtual machine's cores (a
/// third of an ordered delivery's time). At most this much per wait, and a thread that is
/// ready to run gets the core between looks.
const SPIN: Duration = Duration::from_micros(200);
/// How long a claim holds a delivery unless renewed. While a worker lives it renews the
/// leases of everything it has claimed and not settled every [`RENEW_EVERY`], however long a
/// request takes; a delivery held by a worker that died is due again within `LEASE` of its
/// last renewal, and claimed at another worker's next look, within 15 s.
const LEASE: Duration = Duration::from_secs(10);
/// How often the leases of deliveries in flight are renewed: well within [`LEASE`], so a busy
/// database or a slow round trip does not let one lapse. Measured by the worker's clock, the
/// one the leases are written in.
const RENEW_EVERY: Duration = Duration::from_secs(3);
/// How often the previous secrets whose grace period has ended are deleted. Until then they
/// are only kept, never used: a delivery reads the secrets valid at its own time.
const DROP_SECRETS_EVERY: Duration = Duration::from_secs(1);
/// How often the database's log is looked at (`Storage::trim_log`; for SQLite, the size of
/// the write-ahead log file, restarted once it is over its limit).
const TRIM_LOG_EVERY: Duration = Duration::from_millis(250);
/// The connections a worker takes: one to claim and settle and one for the sender threads to
/// look at each webhook right before its request, held for its run, and one for its pruner
/// while it prunes (`Backend` pools are sized for it: `deliver` and `serve` add this many).
pub const CONNECTIONS: u32 = 3;

pub struct WorkerOptions {
    pub client: ClientConfig,
    pub schedule: Schedule,
    /// Deliveries in flight at once (sender threads).
    pub concurrency: usize,
    /// Stop when nothing is due instead of waiting for more.
    pub once: bool,
    /// Told what each committed batch settled (`serve`'s metrics: `keyhook_deliveries_total`).
    pub on_settled: Option<OnSettled>,
    /// Delete what is older than this (`service::retention`), in small batches: every
    /// [`prune_interval`] on a thread of its own, or once at the end with `once`. `None`:
    /// never.
    pub retention: Option<Duration>,
    /// `None` (`serve`, `deliver`): the deliveries of every webhook but the ephemeral ones,
    /// whose listeners stopped beating are removed every [`REMOVE_STALE_EVERY`]. `Some(id)`
    /// (`keyhook listen`): that ephemeral webhook's deliveries alone, each to its URL with
    /// `{event}` replaced by the event's name (`service::listen::url_for_event`).
    pub only: Option<String>,
    /// Told of each attempt once it is recorded (`keyhook listen` prints it).
    pub on_attempt: Option<OnAttempt>,
}

/// One attempt, recorded: what `listen` prints.
pub struct AttemptReport<'a> {
    pub delivery: &'a Claimed,
    pub attempt: &'a Attempt,
    /// When it was sent.
    pub at: Timestamp,
    /// The request's headers (none when it was not sent).
    pub headers: &'a [(String, String)],
}

/// The attempt hook, called after the commit that records the attempt.
pub type OnAttempt = Arc<dyn Fn(&AttemptReport<'_>) + Send + Sync>;

/// How often a normal worker looks for ephemeral webhooks whose listener stopped beating
/// (`service::listen::remove_stale`).
const REMOVE_STALE_EVERY: Duration = Duration::from_secs(1);

/// The metrics hook: called with the counts of one committed transaction, never with counts
/// a rolled-back transaction would have recorded. keyhook-delivery knows no metrics crate.
pub type OnSettled = Arc<dyn Fn(&Summary) + Send + Sync>;

/// How often a running worker prunes: a tenth of the retention, between 1 s and 1 min, so a
/// short retention (a benchmark's) is kept closely and the default costs one look a minute.
pub fn prune_interval(retention: Duration) -> Duration {
    (retention / 10).clamp(Duration::from_secs(1), Duration::from_secs(60))
}

/// Between two batches the pruner pauses at least as long as the batch took (and 2 ms), so
/// it holds the write lock at most half the time and a waiting writer gets its turn.
const PRUNE_MIN_PAUSE: Duration = Duration::from_millis(2);

/// What a run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub delivered: u64,
    pub retrying: u64,
    pub failed: u64,
    pub cancelled: u64,
}

impl Summary {
    /// Adds what one committed transaction settled, and tells the metrics hook.
    fn add(&mut self, settled: &Summary, opts: &WorkerOptions) {
        if *settled == Summary::default() {
            return;
        }
        self.delivered += settled.delivered;
        self.retrying += settled.retrying;
        self.failed += settled.failed;
        self.cancelled += settled.cancelled;
        if let Some(hook) = &opts.on_settled {
            hook(settled);
        }
    }
}

/// What became of a claimed delivery on a sender thread.
enum Outcome {
    /// Sent: what the endpoint answered, and the request's headers when they are reported.
    Sent(Attempt, Vec<(String, String)>),
    /// Not sent: its webhook was disabled or deleted after the claim.
    Cancelled,
    /// Not sent: the webhook could not be looked at (the database busy). The lease runs out
    /// and the delivery is claimed again.
    Unchecked,
    /// Not sent: a receiver's `Retry-After` holds the webhook's deliveries until then
    /// (CONTRACT §15). Put back, due then, with no attempt counted.
    Held(Timestamp),
}

type Done = (Claimed, Outcome, Timestamp);

/// A claimed delivery handed to the senders.
struct Job {
    d: Claimed,
    /// Its webhook as the transaction that claimed it left it (`None` inside: deleted), and
    /// when that was, for a delivery claimed for a sender that is free
    /// ([`Settler::settle_finished`]). `None`: looked at right before its request.
    read: Option<(Option<Signing>, Timestamp)>,
}

/// The failed attempts of this worker not yet settled, per webhook. A failed attempt may
/// disable its webhook when it is settled (the 10th consecutive failure, a 410 Gone), so the
/// check before the next request to the same webhook waits until it is committed: whatever
/// the claim batching and however many senders, a check sees the disable of every attempt
/// that ended before it. A success never disables, so it holds nobody up.
#[derive(Default)]
struct Unsettled {
    state: Mutex<UnsettledState>,
    settled: Condvar,
}

#[derive(Default)]
struct UnsettledState {
    failed: HashMap<String, usize>,
    /// The settle loop has ended: nothing will be settled any more.
    closed: bool,
}

impl Unsettled {
    /// A failed attempt to `webhook` waits for its settling.
    fn failed(&self, webhook: &str) {
        if let Ok(mut s) = self.state.lock() {
            *s.failed.entry(webhook.to_string()).or_default() += 1;
        }
    }

    /// Waits until no failed attempt to `webhook` waits for its settling; false when the
    /// settle loop has ended instead (the delivery is then left to its lease).
    fn wait_for(&self, webhook: &str) -> bool {
        let Ok(mut s) = self.state.lock() else {
            return false;
        };
        while !s.closed && s.failed.contains_key(webhook) {
            s = match self.settled.wait(s) {
                Ok(s) => s,
                Err(_) => return false,
            };
        }
        !s.closed
    }

    /// The failed attempts of `finished` are committed.
    fn settled(&self, finished: &[Done]) {
        let Ok(mut s) = self.state.lock() else { return };
        for (d, outcome, _) in finished {
            if matches!(outcome, Outcome::Sent(a, _) if !a.delivered) {
                if let Some(n) = s.failed.get_mut(&d.webhook_id) {
                    *n -= 1;
                    if *n == 0 {
                        s.failed.remove(&d.webhook_id);
                    }
                }
            }
        }
        self.settled.notify_all();
    }

    fn close(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.closed = true;
        }
        self.settled.notify_all();
    }
}

/// Works the outbox until `stop` is raised (or, with `once`, until nothing is due), then
/// waits for the deliveries in flight and records them.
pub fn run(db: &dyn Backend, opts: &WorkerOptions, stop: &Stop) -> Result<Summary> {
    let Some(retention) = opts.retention.filter(|_| !opts.once) else {
        let summary = deliver(db, opts, stop)?;
        if let Some(retention) = opts.retention {
            prune_pass(db, retention, &opts.client.clock, &mut |p| !stop.sleep(p))?;
        }
        return Ok(summary);
    };
    // The pruner runs beside the deliveries on its own connection, one pass at a time (a
    // pass never overlaps the next), until the worker stops or fails: `finished`, raised when
    // the deliveries end (as they do once `stop` is), wakes it from its pause.
    let finished = Stop::new();
    thread::scope(|s| {
        let pruner = thread::Builder::new()
            .name("prune".into())
            .spawn_scoped(s, || {
                prune_loop(db, retention, &opts.client.clock, stop, &finished)
            })?;
        let result = deliver(db, opts, stop);
        finished.raise();
        let _ = pruner.join();
        result
    })
}

fn prune_loop(db: &dyn Backend, retention: Duration, clock: &Clock, stop: &Stop, finished: &Stop) {
    let every = prune_interval(retention);
    while !stop.is_raised() {
        // Best effort: a pass that fails (the database busy) is tried at the next turn.
        let _ = prune_pass(db, retention, clock, &mut |p| {
            !finished.sleep(p) && !stop.is_raised()
        });
        if finished.sleep(every) {
            break;
        }
    }
}

/// Deletes what is older than `retention`, in batches with pauses between them: `pause`
/// takes each pause and says whether to go on (false: the worker is stopping).
fn prune_pass(
    db: &dyn Backend,
    retention: Duration,
    clock: &Clock,
    pause: &mut dyn FnMut(Duration) -> bool,
) -> Result<Pruned> {
    let store = db.connect()?;
    let cutoff = retention::cutoff(clock.now(), retention);
    let mut mark = Instant::now();
    retention::prune(&*store, cutoff, retention::BATCH, &mut || {
        let go_on = pause(mark.elapsed().max(PRUNE_MIN_PAUSE));
        mark = Instant::now();
        go_on
    })
}

/// Sends what is due until `stop` (or, with `once`, until nothing is due).
fn deliver(db: &dyn Backend, opts: &WorkerOptions, stop: &Stop) -> Result<Summary> {
    let store = db.connect()?;
    let check = Arc::new(Mutex::new(db.connect()?));
    let unsettled = Arc::new(Unsettled::default());
    let sender = Sender::new(&opts.client);
    let concurrency = opts.concurrency.max(1);
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let senders: Vec<_> = (0..concurrency)
        .map(|i| {
            let (rx, tx, sender) = (Arc::clone(&job_rx), done_tx.clone(), sender.clone());
            let clock = opts.client.clock.clone();
            let (check, unsettled) = (Arc::clone(&check), Arc::clone(&unsettled));
            let listener = opts.only.is_some();
            let report = opts.on_attempt.is_some();
            thread::Builder::new()
                .name(format!("deliver-{i}"))
                .spawn(move || {
                    let how = SendHow { listener, report };
                    send_loop(&rx, &tx, &sender, &clock, &check, &unsettled, how)
                })
        })
        .collect::<std::io::Result<_>>()?;
    drop(done_tx);
    let result = settle_loop(
        &*store,
        opts,
        stop,
        concurrency * CLAIM_DEPTH,
        &job_tx,
        &done_rx,
        &unsettled,
    );
    unsettled.close();
    drop(job_tx);
    for s in senders {
        let _ = s.join();
    }
    result
}

/// What a sender thread does beyond the plain send.
#[derive(Clone, Copy)]
struct SendHow {
    /// `{event}` in the URL's path is the event's name (a listener's webhook).
    listener: bool,
    /// Keep the request's headers for [`WorkerOptions::on_attempt`].
    report: bool,
}

fn send_loop(
    jobs: &Mutex<Receiver<Job>>,
    done: &Tx<Done>,
    sender: &Sender,
    clock: &Clock,
    check: &Mutex<Box<Store>>,
    unsettled: &Unsettled,
    how: SendHow,
) {
    loop {
        let job = match jobs.lock() {
            Ok(rx) => recv_soon(&rx, Duration::MAX),
            Err(_) => return,
        };
        let Ok(Job { d: c, read }) = job else { return };
        // A claim may wait behind other requests: the webhook is looked at again right before
        // its request (`Storage::signing`: one primary-key read, or on SQLite the connection's
        // copy of the row while nobody has committed since), after the failed attempts to it
        // that have ended are committed, so a delivery to a webhook disabled or deleted since
        // (by hand, or by the attempt before it) is not sent, and one rotated since is signed
        // with the secrets of now. A delivery claimed for a free sender comes with its webhook
        // as the claim's transaction left it, committed an instant ago with nothing queued
        // before it: that is the look, unless the time passed a secret's grace period since.
        let settled = unsettled.wait_for(&c.webhook_id);
        let now = clock.now();
        let signing = match read {
            Some((found, at)) if settled && found.as_ref().is_none_or(|s| s.holds_at(at, now)) => {
                Some(found)
            }
            _ => match check.lock() {
                Ok(store) if settled => store.signing(&c.webhook_id, now).ok(),
                _ => None,
            },
        };
        let outcome = match signing {
            None => Outcome::Unchecked,
            Some(None) => Outcome::Cancelled,
            // The webhook no longer receives the event (disabled, or its scope narrowed since
            // the event was queued): `service::routing`'s check at the send.
            Some(Some(s)) if !routing::still_receives(&s, &c.event, c.profile_id.as_ref()) => {
                Outcome::Cancelled
            }
            // Held since the claim (an answer to another of its deliveries).
            Some(Some(Signing {
                held_until: Some(until),
                ..
            })) if until > now => Outcome::Held(until),
            Some(Some(s)) => {
                let secrets: Vec<&str> = s.secrets.iter().map(String::as_str).collect();
                let url = if how.listener {
                    url_for_event(&s.url, &c.event)
                } else {
                    s.url.clone()
                };
                let timestamp = now.millis() / 1000;
                let timeout = c
                    .timeout_ms
                    .and_then(|ms| u64::try_from(ms).ok())
                    .map(Duration::from_millis);
                let (a, mut headers) = sender.send_within(
                    &url,
                    &secrets,
                    &s.headers,
                    &c.event_id,
                    &c.payload,
                    timestamp,
                    timeout,
                );
                if !how.report {
                    headers = Vec::new();
                }
                if !a.delivered {
                    unsettled.failed(&c.webhook_id);
                }
                Outcome::Sent(a, headers)
            }
        };
        if done.send((c, outcome, now)).is_err() {
            return;
        }
    }
}

/// The settle side of the worker: one loop of named steps, each a job of its own. Per turn:
/// the periodic upkeep ([`Settler::drop_expired_secrets`], [`Settler::trim_log`]), the
/// renewal of the leases held ([`Settler::renew_leases`]), a claim of due deliveries handed
/// to the senders ([`Settler::claim`]), then the results the senders report
/// ([`Settler::collect`]) settled in one transaction ([`Settler::settle_finished`]).
fn settle_loop(
    store: &Store,
    opts: &WorkerOptions,
    stop: &Stop,
    capacity: usize,
    jobs: &Tx<Job>,
    done: &Receiver<Done>,
    unsettled: &Unsettled,
) -> Result<Summary> {
    let mut s = Settler {
        store,
        opts,
        capacity,
        jobs,
        unsettled,
        lease_ms: i64::try_from(LEASE.as_millis()).unwrap_or(i64::MAX),
        summary: Summary::default(),
        in_flight: 0,
        held: HashSet::new(),
        held_bytes: 0,
        renewed: opts.client.clock.now(),
        nothing_more_due: false,
        secrets_dropped: None,
        stale_removed: None,
        trimmed: None,
    };
    loop {
        s.drop_expired_secrets()?;
        s.remove_stale_listeners()?;
        s.trim_log();
        s.renew_leases();
        let stopping = stop.is_raised();
        // Right after a settle whose claim found less than it had room for, nothing else was
        // due at that commit: the look (`any_due`, a read) would find nothing new but what
        // came since, which the next settle's claim, or the next turn after a quiet `POLL`,
        // takes. An ordered webhook's next delivery is claimed in its predecessor's settle,
        // so this saves it a read per delivery.
        let exhausted = std::mem::take(&mut s.nothing_more_due);
        let claimed = if stopping || exhausted { 0 } else { s.claim()? };
        if s.in_flight == 0 {
            if claimed == 0 && (opts.once || stopping) {
                return Ok(s.summary);
            }
            if claimed == 0 {
                stop.sleep(POLL);
            }
            continue;
        }
        // Wait for a result when there is nothing more to claim; otherwise take what is
        // ready and go back to claiming.
        let wait = if claimed > 0 && s.in_flight < capacity {
            Duration::ZERO
        } else {
            POLL
        };
        let Some(finished) = s.collect(done, wait) else {
            return Ok(s.summary);
        };
        if !finished.is_empty() {
            s.settle_finished(finished, !stop.is_raised())?;
        }
    }
}

/// What the settle loop keeps from one turn to the next.
struct Settler<'a> {
    store: &'a Store,
    opts: &'a WorkerOptions,
    capacity: usize,
    jobs: &'a Tx<Job>,
    unsettled: &'a Unsettled,
    lease_ms: i64,
    summary: Summary,
    in_flight: usize,
    /// The deliveries claimed and not yet settled, whose leases this worker renews.
    held: HashSet<String>,
    /// The payload bytes of `held` ([`HELD_BYTES`]).
    held_bytes: usize,
    /// When the leases were last renewed, by the worker's clock (which the leases themselves
    /// are written in), so a test clock moved past `RENEW_EVERY` renews them without a wait.
    renewed: Timestamp,
    /// The last settle's claim ([`Settler::settle_finished`]) took every delivery due at its
    /// commit: the next turn does not look again.
    nothing_more_due: bool,
    secrets_dropped: Option<Instant>,
    stale_removed: Option<Instant>,
    trimmed: Option<Instant>,
}

impl Settler<'_> {
    fn clock(&self) -> &Clock {
        &self.opts.client.clock
    }

    /// Every [`DROP_SECRETS_EVERY`]: the previous secrets whose grace period has ended.
    fn drop_expired_secrets(&mut self) -> Result<()> {
        if self
            .secrets_dropped
            .is_none_or(|t| t.elapsed() >= DROP_SECRETS_EVERY)
        {
            drop_expired_secrets(self.store, self.clock().now())?;
            self.secrets_dropped = Some(Instant::now());
        }
        Ok(())
    }

    /// Every [`REMOVE_STALE_EVERY`], for a normal worker: the ephemeral webhooks whose
    /// listener stopped beating, deleted with their pending deliveries.
    fn remove_stale_listeners(&mut self) -> Result<()> {
        if self.opts.only.is_some() {
            return Ok(());
        }
        if self
            .stale_removed
            .is_none_or(|t| t.elapsed() >= REMOVE_STALE_EVERY)
        {
            listen::remove_stale(self.store, self.clock().now())?;
            self.stale_removed = Some(Instant::now());
        }
        Ok(())
    }

    /// Every [`TRIM_LOG_EVERY`]: the backend's log trimmed. Best effort, tried again next
    /// time: keeps the log bounded while reads and writes never stop.
    fn trim_log(&mut self) {
        if self.trimmed.is_none_or(|t| t.elapsed() >= TRIM_LOG_EVERY) {
            let _ = self.store.trim_log(false);
            self.trimmed = Some(Instant::now());
        }
    }

    /// Every [`RENEW_EVERY`] by the worker's clock: the leases of the deliveries in flight
    /// extended by [`LEASE`].
    fn renew_leases(&mut self) {
        let now = self.clock().now();
        let renew_ms = i64::try_from(RENEW_EVERY.as_millis()).unwrap_or(i64::MAX);
        // A clock set back renews at once rather than waiting for it to catch up.
        let renew_due = now.millis() >= self.renewed.millis().saturating_add(renew_ms)
            || now.millis() < self.renewed.millis();
        if self.held.is_empty() || !renew_due {
            return;
        }
        let ids: Vec<&str> = self.held.iter().map(String::as_str).collect();
        let until = now.add_millis(self.lease_ms);
        // Best effort: a renewal that fails (the database busy) is tried again at the next
        // turn; if the lease lapses meanwhile, another worker may send the delivery again,
        // which at-least-once allows. Giving up here would drop the results of every request
        // in flight.
        if self
            .store
            .write(|c| Ok(c.renew_leases(&ids, until)?))
            .is_ok()
        {
            self.renewed = now;
        }
    }

    /// Claims due deliveries up to the free capacity and hands them to the senders; those of
    /// a disabled webhook are cancelled in the claim's transaction. Returns how many were
    /// claimed, handed over or cancelled (so `once` goes on while cancellations free room:
    /// operational events queue deliveries to webhooks disabled right after).
    fn claim(&mut self) -> Result<usize> {
        let Some(room) = self.room() else {
            return Ok(0);
        };
        let now = self.clock().now();
        if !self.store.conn().any_due(now, self.opts.only.as_deref())? {
            return Ok(0);
        }
        let mut settled = Summary::default();
        let (batch, _) = self
            .store
            .write(|c| self.claim_in(c, now, room, &mut settled))?;
        self.summary.add(&settled, self.opts);
        let batch = batch.into_iter().map(|d| Job { d, read: None }).collect();
        Ok(self.hand_over(batch, now) + settled.cancelled as usize)
    }

    fn room(&self) -> Option<usize> {
        claim_room(self.capacity, self.in_flight, self.held_bytes)
    }

    fn free_senders_for(&self, n: usize) -> bool {
        free_senders_for(self.capacity, n, self.in_flight)
    }

    /// The claim itself, in the caller's write transaction: up to `room` due deliveries
    /// leased; those of a disabled webhook cancelled (counted in `settled`). Returns the live
    /// ones, to be handed over once the transaction has committed, and whether the claim took
    /// every delivery that was due (fewer than `room`, and not cut short by the bytes bound).
    fn claim_in(
        &self,
        c: Conn<'_>,
        now: Timestamp,
        room: usize,
        settled: &mut Summary,
    ) -> Result<(Vec<Claimed>, bool)> {
        let only = self.opts.only.as_deref();
        let until = now.add_millis(self.lease_ms);
        let bytes = HELD_BYTES.saturating_sub(self.held_bytes);
        let batch = c.claim_due_within(now, room, bytes, until, only)?;
        let taken: usize = batch.iter().map(|d| d.payload.len()).sum();
        let all = batch.len() < room && taken < bytes;
        // Over its webhook's `--rate`: given back, due as it was.
        let batch = super::rate::admit(c, batch, now)?;
        let mut live = Vec::with_capacity(batch.len());
        for d in batch {
            if d.webhook_active {
                live.push(d);
            } else {
                // A disabled webhook gets no event deliveries.
                cancel(c, &d, now, settled)?;
            }
        }
        Ok((live, all))
    }

    /// Hands a committed claim to the senders; returns how many were handed over.
    fn hand_over(&mut self, batch: Vec<Job>, now: Timestamp) -> usize {
        for job in batch.iter().filter(|job| job.d.recovered) {
            log::recovered(&job.d);
        }
        let claimed = batch.len();
        if self.held.is_empty() {
            self.renewed = now;
        }
        for job in batch {
            let (id, bytes) = (job.d.delivery_id.clone(), job.d.payload.len());
            if self.jobs.send(job).is_ok() {
                self.in_flight += 1;
                self.held.insert(id);
                self.held_bytes += bytes;
            }
        }
        claimed
    }

    /// The results the senders have reported, waiting up to `wait` for the first; `None`
    /// when every sender is gone.
    fn collect(&mut self, done: &Receiver<Done>, wait: Duration) -> Option<Vec<Done>> {
        let mut finished = Vec::new();
        match recv_soon(done, wait) {
            Ok(d) => finished.push(d),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return None,
        }
        finished.extend(done.try_iter());
        // Once results come in, up to half the capacity is gathered for one transaction, for
        // at most `GATHER`: a commit per handful was the other big cost.
        let batch = (self.capacity / SETTLE_SHARE).max(1).min(self.in_flight);
        if !finished.is_empty() {
            let until = Instant::now() + GATHER;
            while finished.len() < batch {
                let left = until.saturating_duration_since(Instant::now());
                match done.recv_timeout(left) {
                    Ok(d) => finished.push(d),
                    Err(_) => break,
                }
            }
        }
        self.in_flight -= finished.len();
        for (d, ..) in &finished {
            self.held.remove(&d.delivery_id);
            self.held_bytes = self.held_bytes.saturating_sub(d.payload.len());
        }
        Some(finished)
    }

    /// Records `finished` in one transaction (attempts, schedules, cancellations), then
    /// releases the webhooks' pending checks and writes the log lines. With `claim`, the
    /// next claim ([`Settler::claim_in`]) goes in the same transaction when there is room
    /// for it: one commit per turn rather than two.
    fn settle_finished(&mut self, mut finished: Vec<Done>, claim: bool) -> Result<()> {
        // Rows are locked in one order by every worker (webhook, then delivery), so two
        // instances settling attempts for the same webhooks wait for each other instead of
        // deadlocking (PostgreSQL aborts one of a deadlocked pair, and its batch with it).
        finished.sort_by(|(x, ..), (y, ..)| {
            (&x.webhook_id, &x.delivery_id).cmp(&(&y.webhook_id, &y.delivery_id))
        });
        let clock = self.clock();
        let opts = self.opts;
        let mut settled = Summary::default();
        // Written once the transaction has committed: a rolled-back batch logs nothing.
        let mut lines = Vec::new();
        let room = self.room().filter(|_| claim);
        let mut claimed = Vec::new();
        let mut reads = Vec::new();
        let mut all_due = false;
        let now = clock.now();
        self.store.write(|c| {
            settled = Summary::default();
            lines.clear();
            reads.clear();
            let mut delivered = Vec::new();
            // The attempts, per webhook: one counter read and one `INSERT` per run of them.
            let mut log = AttemptLog::new(DISABLE_AFTER_FAILURES);
            for (d, outcome, at) in &finished {
                match outcome {
                    Outcome::Sent(a, _) => {
                        let now = clock.now();
                        let s = &opts.schedule;
                        let sent = Settled { d, a, at: *at };
                        let line = settle(c, &mut log, s, sent, now, &mut settled, &mut delivered)?;
                        lines.extend(line);
                    }
                    Outcome::Cancelled => cancel(c, d, clock.now(), &mut settled)?,
                    Outcome::Held(until) => c.release_delivery(&d.delivery_id, *until, now)?,
                    Outcome::Unchecked => {}
                }
            }
            log.flush(c)?;
            c.finish_claimed(&delivered, DeliveryState::Delivered, true, clock.now())?;
            if let Some(room) = room {
                (claimed, all_due) = self.claim_in(c, now, room, &mut settled)?;
                // Each goes to a free sender as soon as this commits (an ordered webhook's
                // next delivery, claimed here): its webhook is looked at here, after this
                // settle's own changes to it, rather than by the sender a moment later, which
                // would read again every page this transaction wrote.
                if self.free_senders_for(claimed.len()) {
                    reads = claimed
                        .iter()
                        .map(|d| c.signing(&d.webhook_id, now).ok())
                        .collect();
                }
            }
            Ok(())
        })?;
        self.nothing_more_due = all_due;
        self.unsettled.settled(&finished);
        for line in &lines {
            line.write();
        }
        if let Some(hook) = &opts.on_attempt {
            for (d, outcome, at) in &finished {
                if let Outcome::Sent(a, headers) = outcome {
                    hook(&AttemptReport {
                        delivery: d,
                        attempt: a,
                        at: *at,
                        headers,
                    });
                }
            }
        }
        self.summary.add(&settled, opts);
        let mut reads = reads.into_iter();
        let batch = claimed
            .into_iter()
            .map(|d| Job {
                d,
                read: reads.next().flatten().map(|found| (found, now)),
            })
            .collect();
        self.hand_over(batch, now);
        Ok(())
    }
}

/// `rx.recv_timeout(wait)`, looking for a message without sleeping for the first [`SPIN`] of
/// it (`Duration::MAX`: no end): a few spins, then giving the core to any other thread that
/// is ready between looks (`yield_now`), so a busy machine loses little to the wait.
fn recv_soon<T>(rx: &Receiver<T>, wait: Duration) -> Result<T, RecvTimeoutError> {
    let start = Instant::now();
    let spin = SPIN.min(wait);
    let mut looks = 0u32;
    loop {
        match rx.try_recv() {
            Ok(t) => return Ok(t),
            Err(TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
            Err(TryRecvError::Empty) if start.elapsed() >= spin => break,
            Err(TryRecvError::Empty) if looks < 6 => {
                (0..1u32 << looks).for_each(|_| std::hint::spin_loop());
                looks += 1;
            }
            Err(TryRecvError::Empty) => thread::yield_now(),
        }
    }
    rx.recv_timeout(wait.saturating_sub(start.elapsed()))
}

/// Whether `n` more deliveries would each find a sender free, at once, of a worker of
/// `capacity` (`CLAIM_DEPTH` per sender) with `in_flight` handed over and not settled: a sender
/// whose result is not settled yet counts as busy, so this errs on the side of a wait.
fn free_senders_for(capacity: usize, n: usize, in_flight: usize) -> bool {
    in_flight + n <= (capacity / CLAIM_DEPTH).max(1)
}

/// How many deliveries the next claim may take, by a worker of `capacity` (`CLAIM_DEPTH` per
/// sender) with `in_flight` claimed and not settled, holding `held_bytes` of their payloads:
/// none once they reach [`HELD_BYTES`]; otherwise the free room, once it is at least a
/// sender's worth (`capacity / CLAIM_DEPTH`): less waits for more results, the senders still
/// have up to `(CLAIM_DEPTH - 1) × senders` queued.
fn claim_room(capacity: usize, in_flight: usize, held_bytes: usize) -> Option<usize> {
    if held_bytes >= HELD_BYTES {
        return None;
    }
    let senders = (capacity / CLAIM_DEPTH).max(1);
    let room = capacity.saturating_sub(in_flight);
    (room >= senders).then_some(room)
}

/// Ends a delivery unsent: its webhook is disabled (or deleted).
fn cancel(c: Conn<'_>, d: &Claimed, now: Timestamp, summary: &mut Summary) -> Result<()> {
    c.finish_delivery(&d.delivery_id, DeliveryState::Cancelled, false, now)?;
    summary.cancelled += 1;
    Ok(())
}

/// A sent delivery and its attempt, sent at `at`.
struct Settled<'f> {
    d: &'f Claimed,
    a: &'f Attempt,
    at: Timestamp,
}

/// Logs the attempt in `attempts` (which counts it toward the webhook's `failCount`), and settles
/// the delivery: delivered, retried later, or given up. Returns what the log says of a
/// failure, to be written once the transaction commits.
/// A delivered one is only added to `delivered`, which the caller ends in one statement
/// (`OutboxQueries::finish_claimed`) before the transaction commits, after flushing
/// `attempts`.
fn settle<'f>(
    c: Conn<'_>,
    attempts: &mut AttemptLog<'f>,
    schedule: &Schedule,
    Settled { d, a, at }: Settled<'f>,
    now: Timestamp,
    summary: &mut Summary,
    delivered: &mut Vec<&'f Claimed>,
) -> Result<Option<log::Failure>> {
    let attempt = d.attempts + 1;
    let disabled = log_attempt_in(
        c,
        attempts,
        AttemptOf {
            webhook_id: &d.webhook_id,
            delivery_id: Some(&d.delivery_id),
            event_id: &d.event_id,
            event: &d.event,
            attempt,
        },
        at,
        a,
    )?;
    if a.delivered {
        summary.delivered += 1;
        delivered.push(d);
        return Ok(None);
    }
    // 410 Gone: the receiver says the endpoint is gone for good. `log_attempt` has disabled
    // the webhook; the delivery is not retried.
    // A receiver's 429/503 with `Retry-After` holds every delivery of the webhook until
    // then, this one included (CONTRACT §15).
    if let Some(ms) = a.back_pressure() {
        c.hold_webhook(&d.webhook_id, at.add_millis(ms).max(now), now)?;
    }
    // The webhook's own schedule, if it has one (and it still reads).
    let own = d.retry_schedule.as_deref().and_then(Schedule::from_stored);
    let schedule = own.as_ref().unwrap_or(schedule);
    let next = if a.gone() {
        None
    } else {
        schedule.next_delay(attempt, a.retry_after_ms)
    };
    let next_at = next.map(|delay| now.add_millis(delay));
    match next_at {
        Some(at) => {
            summary.retrying += 1;
            c.retry_delivery(&d.delivery_id, at, now)?;
        }
        None => {
            summary.failed += 1;
            c.finish_delivery(&d.delivery_id, DeliveryState::Failed, true, now)?;
            // Reported to the user's other webhooks (nothing for an operational event's own
            // delivery: no loops), with the attempts gathered so far written first.
            attempts.flush(c)?;
            operational::delivery_exhausted(
                c,
                &d.webhook_id,
                &d.event_id,
                &d.event,
                attempt,
                a.status_code,
                now,
            )?;
        }
    }
    Ok(Some(log::Failure::new(d, attempt, a, next_at, disabled)))
}

/// The worker's log lines (`tracing` events, target `keyhook::delivery`; `serve` and
/// `deliver` write them as text or JSON): each failed attempt, each delivery given up, each
/// webhook disabled, each delivery recovered from a lapsed lease. Ids, attempt numbers,
/// statuses, errors and times only: never a URL, a secret, a payload or a response body.
mod log {
    use super::{Attempt, Claimed, Timestamp};

    /// A failed attempt, and what came of it.
    pub struct Failure {
        webhook_id: String,
        event_id: String,
        attempt: i64,
        /// The HTTP status, if there was a response.
        status: Option<u16>,
        /// The reason phrase, or what went wrong without a response.
        error: String,
        /// When the next attempt is due; `None`: given up.
        next: Option<Timestamp>,
        /// Why this attempt disabled the webhook, if it did.
        disabled: Option<&'static str>,
    }

    impl Failure {
        pub fn new(
            d: &Claimed,
            attempt: i64,
            a: &Attempt,
            next: Option<Timestamp>,
            disabled: Option<&'static str>,
        ) -> Failure {
            Failure {
                webhook_id: d.webhook_id.clone(),
                event_id: d.event_id.clone(),
                attempt,
                status: (a.status_code != 0).then_some(a.status_code),
                error: a.status_text.clone(),
                next,
                disabled,
            }
        }

        pub fn write(&self) {
            let what = match self.status {
                Some(code) => format!("status {code} {}", self.error),
                None => self.error.clone(),
            };
            let (webhook, event, attempt) = (&self.webhook_id, &self.event_id, self.attempt);
            let next = self.next.map(Timestamp::to_rfc3339);
            let when = match &next {
                Some(at) => format!("next try at {at}"),
                None => "no next try".to_string(),
            };
            tracing::warn!(
                target: "keyhook::delivery",
                webhookId = webhook.as_str(),
                eventId = event.as_str(),
                attempt,
                status = self.status,
                error = self.error.as_str(),
                nextAttemptAt = next.as_deref(),
                "keyhook: delivery failed: webhook {webhook} event {event} attempt {attempt}: {what}; {when}"
            );
            if next.is_none() {
                tracing::warn!(
                    target: "keyhook::delivery",
                    webhookId = webhook.as_str(),
                    eventId = event.as_str(),
                    attempts = attempt,
                    "keyhook: delivery given up: webhook {webhook} event {event} after {attempt} attempts"
                );
            }
            if let Some(reason) = self.disabled {
                tracing::warn!(
                    target: "keyhook::delivery",
                    webhookId = webhook.as_str(),
                    reason,
                    "keyhook: webhook {webhook} disabled: {reason}"
                );
            }
        }
    }

    /// A delivery claimed again after the lease of the worker that held it ran out.
    pub fn recovered(d: &Claimed) {
        let (webhook, event, attempt) = (&d.webhook_id, &d.event_id, d.attempts + 1);
        tracing::info!(
            target: "keyhook::delivery",
            webhookId = webhook.as_str(),
            eventId = event.as_str(),
            attempt,
            "keyhook: delivery recovered: webhook {webhook} event {event}: its lease ran out unsettled; sending it again (attempt {attempt})"
        );
    }
}

/// Runs the worker on a thread of its own until `stop` is raised, the way `serve` runs it
/// beside the API: a failure (the database busy past its timeout, say) is logged as an error
/// event (`tracing`, like every event of this crate) and the worker starts again a second
/// later, since leases keep deliveries safe.
pub fn spawn(
    db: Arc<dyn Backend>,
    opts: WorkerOptions,
    stop: Arc<Stop>,
) -> std::io::Result<thread::JoinHandle<()>> {
    thread::Builder::new().name("outbox".into()).spawn(move || {
        while !stop.is_raised() {
            match run(&*db, &opts, &stop) {
                Ok(_) => return,
                Err(e) => {
                    tracing::error!(
                        target: "keyhook",
                        "keyhook: delivery worker: {e}; starting again in 1s"
                    );
                    stop.sleep(Duration::from_secs(1));
                }
            }
        }
    })
}

#[cfg(test)]
mod retention_tests {
    use super::*;

    #[test]
    fn the_pruner_looks_at_a_tenth_of_the_retention_within_1s_and_1min() {
        let s = Duration::from_secs;
        assert_eq!(prune_interval(s(5)), s(1));
        assert_eq!(prune_interval(s(100)), s(10));
        assert_eq!(prune_interval(s(30 * 86_400)), s(60));
    }
}

#[cfg(test)]
mod claim_tests {
    use super::*;

    #[test]
    fn a_claim_waits_for_a_senders_worth_of_room() {
        let capacity = 16 * CLAIM_DEPTH;
        assert_eq!(claim_room(capacity, 0, 0), Some(capacity));
        assert_eq!(claim_room(capacity, capacity - 16, 0), Some(16));
        assert_eq!(claim_room(capacity, capacity - 15, 0), None);
        assert_eq!(claim_room(capacity, capacity, 0), None);
        // One sender: one delivery is a sender's worth.
        assert_eq!(claim_room(CLAIM_DEPTH, CLAIM_DEPTH - 1, 0), Some(1));
    }

    #[test]
    fn a_claim_is_read_for_its_senders_only_when_each_finds_one_free() {
        let capacity = 4 * CLAIM_DEPTH;
        assert!(free_senders_for(capacity, 1, 0));
        assert!(free_senders_for(capacity, 1, 3));
        assert!(!free_senders_for(capacity, 1, 4));
        assert!(free_senders_for(capacity, 4, 0));
        assert!(!free_senders_for(capacity, 5, 0));
        assert!(!free_senders_for(capacity, 2, 3));
        // One sender: a delivery claimed as the last one settles.
        assert!(free_senders_for(CLAIM_DEPTH, 1, 0));
        assert!(!free_senders_for(CLAIM_DEPTH, 1, 1));
    }

    #[test]
    fn recv_soon_takes_what_is_there_and_otherwise_waits_as_long_as_asked() {
        let (tx, rx) = mpsc::channel();
        tx.send(1).unwrap();
        assert_eq!(recv_soon(&rx, Duration::ZERO), Ok(1));
        // Nothing comes: the wait ends after it was asked to, spin included, not before.
        let started = Instant::now();
        let wait = Duration::from_millis(5);
        assert_eq!(recv_soon(&rx, wait), Err(RecvTimeoutError::Timeout));
        assert!(started.elapsed() >= wait);
        // What another thread sends reaches a receiver that waits without end.
        let sender = thread::spawn(move || {
            tx.send(2).unwrap();
            tx
        });
        assert_eq!(recv_soon(&rx, Duration::MAX), Ok(2));
        drop(sender.join().unwrap());
        assert_eq!(
            recv_soon(&rx, Duration::MAX),
            Err(RecvTimeoutError::Disconnected)
        );
    }

    #[test]
    fn no_claim_once_the_held_payloads_reach_their_bound() {
        let capacity = 16 * CLAIM_DEPTH;
        assert_eq!(
            claim_room(capacity, 16, HELD_BYTES - 1),
            Some(capacity - 16)
        );
        assert_eq!(claim_room(capacity, 16, HELD_BYTES), None);
        assert_eq!(claim_room(capacity, 16, HELD_BYTES + 1), None);
    }
}
