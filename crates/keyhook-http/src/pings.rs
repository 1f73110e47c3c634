//! The bound on test pings running at once per user. A ping may wait for its endpoint up to
//! the delivery timeout (10 s by default), holding its connection's thread and an outgoing
//! socket all along; the bound keeps one user's slow or silent endpoint from taking those
//! from everyone else.

use std::collections::HashMap;
use std::sync::Mutex;

use keyhook_core::error::{Error, Result};

/// Test pings one user may have running at once in `serve`. A user has at most 10 webhooks;
/// testing a few of them at once (a dashboard's buttons, a deploy script) fits, while one
/// user's pings to an endpoint that never answers hold at most this many threads and sockets
/// for at most the delivery timeout.
pub const MAX_PINGS_PER_USER: usize = 4;

/// How many test pings each user has running.
pub struct PingSlots {
    running: Mutex<HashMap<String, usize>>,
    per_user: usize,
}

/// One running ping's place; given back when dropped, however the ping ends (an error or a
/// panic included).
pub struct Slot<'a> {
    slots: &'a PingSlots,
    user: String,
}

impl PingSlots {
    pub fn new(per_user: usize) -> PingSlots {
        PingSlots {
            running: Mutex::new(HashMap::new()),
            per_user,
        }
    }

    /// A place for one more ping of `user`, or `RATE_LIMITED` if they have all theirs running.
    pub fn take(&self, user: &str) -> Result<Slot<'_>> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let n = running.entry(user.to_string()).or_insert(0);
        if *n >= self.per_user {
            return Err(Error::RateLimited(format!(
                "too many test pings at once: a user may have at most {} running; \
                 try again when one has finished",
                self.per_user
            )));
        }
        *n += 1;
        Ok(Slot {
            slots: self,
            user: user.to_string(),
        })
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut running = self.slots.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = running.get_mut(&self.user) {
            *n -= 1;
            if *n == 0 {
                running.remove(&self.user);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_gets_at_most_the_bound_and_a_dropped_slot_is_free_again() {
        let slots = PingSlots::new(2);
        let a1 = slots.take("a").unwrap();
        let _a2 = slots.take("a").unwrap();
        let over = slots
            .take("a")
            .err()
            .expect("a third ping of user a is refused");
        assert_eq!(over.http_status(), 429);
        assert_eq!(over.code(), "RATE_LIMITED");
        assert!(over.to_string().contains("at most 2"), "{over}");
        let _b = slots.take("b").expect("another user is not affected");
        drop(a1);
        let _a3 = slots.take("a").expect("a finished ping frees its slot");
    }

    #[test]
    fn a_panicking_ping_gives_its_slot_back() {
        let slots = PingSlots::new(1);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _slot = slots.take("a").unwrap();
            panic!("handler bug");
        }));
        assert!(r.is_err());
        assert!(slots.take("a").is_ok());
        assert!(
            slots.running.lock().unwrap().is_empty(),
            "no user is left counted"
        );
    }
}
