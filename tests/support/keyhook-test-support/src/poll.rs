//! Waiting for another process: the one place where a test sleeps to wait.

use std::time::{Duration, Instant};

/// The longest pause of [`poll`] between two looks.
const POLL_AT_MOST: Duration = Duration::from_millis(100);

/// Waits for another process (a server, a worker, a receiver's thread, PostgreSQL) until
/// `look` sees what it waits for, for at most `patience`: `Some` of what `look` returned, or
/// `None` once the deadline has passed. It looks again after 5 ms, then twice as long each time up to 100 ms,
/// so a quick answer is seen at once and a long wait (a look may start `psql`) costs little.
/// The one place where a test sleeps to wait: waiting for time to pass goes through the test
/// clock (`Env::advance_clock` in tests/cli) instead.
pub fn poll<T>(patience: Duration, mut look: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + patience;
    let mut pause = Duration::from_millis(5);
    loop {
        if let Some(seen) = look() {
            return Some(seen);
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(POLL_AT_MOST);
    }
}

/// [`poll`] for a condition: true once `ready` holds, false if it did not within `patience`.
pub fn poll_until(patience: Duration, mut ready: impl FnMut() -> bool) -> bool {
    poll(patience, || ready().then_some(())).is_some()
}
