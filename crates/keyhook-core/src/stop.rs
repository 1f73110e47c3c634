//! The stop of a long-running command (`serve`, `deliver`, `listen`, `webhooks deliveries
//! --follow`): raised once, by a signal or by the command itself, and seen at once by every
//! thread that waits on it. A thread with nothing to do until its next turn sleeps on the stop
//! ([`Stop::sleep`]) for the whole pause instead of waking every few milliseconds to look at
//! a flag: an idle `serve` wakes for its work, not to ask whether it should end.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
pub struct Stop {
    raised: AtomicBool,
    /// Held by a sleeper between its look at `raised` and its wait, and by [`Stop::raise`]
    /// to wake: a raise between the two cannot be missed.
    sleepers: Mutex<()>,
    woken: Condvar,
}

impl Stop {
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Raises the stop and wakes every thread sleeping on it. Raising it again does nothing
    /// more.
    pub fn raise(&self) {
        self.raised.store(true, Ordering::SeqCst);
        let _sleepers = self.sleepers.lock().unwrap_or_else(PoisonError::into_inner);
        self.woken.notify_all();
    }

    pub fn is_raised(&self) -> bool {
        self.raised.load(Ordering::SeqCst)
    }

    /// Sleeps for `pause`, or until the stop is raised: true when it was (before or during
    /// the sleep), false when the pause passed.
    pub fn sleep(&self, pause: Duration) -> bool {
        let until = Instant::now().checked_add(pause);
        let mut sleepers = self.sleepers.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if self.is_raised() {
                return true;
            }
            // A pause too long for the clock to add is a sleep until the stop.
            let left = match until {
                Some(until) => until.saturating_duration_since(Instant::now()),
                None => Duration::MAX,
            };
            if left.is_zero() {
                return false;
            }
            sleepers = self
                .woken
                .wait_timeout(sleepers, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier};
    use std::thread;

    #[test]
    fn a_pause_passes_when_nothing_raises_the_stop() {
        let stop = Stop::new();
        for pause in [Duration::ZERO, Duration::from_millis(30)] {
            let start = Instant::now();
            assert!(!stop.sleep(pause), "no stop was raised");
            assert!(start.elapsed() >= pause);
        }
        assert!(!stop.is_raised());
    }

    #[test]
    fn a_raised_stop_cuts_every_sleep_short_and_stays_raised() {
        let stop = Arc::new(Stop::new());
        let started = Arc::new(Barrier::new(7));
        // Sleeps of an hour (and too long to add to the clock): only the raise ends them;
        // without its wake-up this test does not end.
        let pauses = [Duration::from_secs(3600), Duration::MAX];
        let sleep_on = |stop: &Stop, pause| stop.sleep(pause);
        let sleepers: Vec<_> = pauses
            .into_iter()
            .cycle()
            .take(6)
            .map(|pause| {
                let (stop, started) = (Arc::clone(&stop), Arc::clone(&started));
                thread::spawn(move || {
                    started.wait();
                    sleep_on(&stop, pause)
                })
            })
            .collect();
        started.wait();
        stop.raise();
        for sleeper in sleepers {
            assert!(sleeper.join().unwrap(), "a sleeper woke without the stop");
        }
        assert!(stop.is_raised());
        // Raised before a sleep, the sleep does not wait at all; a second raise changes nothing.
        stop.raise();
        assert!(pauses.into_iter().all(|pause| sleep_on(&stop, pause)));
    }
}
