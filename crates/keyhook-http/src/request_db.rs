//! The database as one request sees it. An ordinary request leases a connection from the
//! backend's pool at its first database use (authentication) and keeps it until it is
//! answered: one lease per request on the hot path. A handler that calls the network must
//! first give that connection back ([`RequestDb::for_network`], the only way to reach the
//! [`Transport`]); it then leases a connection for each database step and gives it back after
//! the step, so no connection, pool slot or transaction is held while a remote endpoint takes
//! its time.

use keyhook_core::error::Result;
use keyhook_core::service::Database;
use keyhook_core::store::{Backend, Store};
use keyhook_core::transport::Transport;

pub struct RequestDb<'a> {
    db: &'a dyn Backend,
    /// The request's connection, back to the pool when dropped.
    lease: Option<Box<Store>>,
    sender: &'a dyn Transport,
}

impl<'a> RequestDb<'a> {
    pub fn new(db: &'a dyn Backend, sender: &'a dyn Transport) -> RequestDb<'a> {
        RequestDb {
            db,
            lease: None,
            sender,
        }
    }

    /// The request's connection, leased at the first call and kept until the request ends.
    /// A backend that cannot give one (a database server gone) fails the request with its
    /// error (503 for an unavailable database).
    pub fn store(&mut self) -> Result<&Store> {
        if self.lease.is_none() {
            self.lease = Some(self.db.connect()?);
        }
        Ok(self
            .lease
            .as_deref()
            .expect("a lease was just taken if there was none"))
    }

    /// Gives the request's connection back to the pool and returns what a handler that calls
    /// the network needs: the backend, a connection per step, and the sender.
    pub fn for_network(self) -> (Steps<'a>, &'a dyn Transport) {
        (Steps(self.db), self.sender)
    }
}

/// The backend, lending a connection for one step at a time.
pub struct Steps<'a>(&'a dyn Backend);

impl Steps<'_> {
    /// A connection of its own, after the network call (the portal's page that follows).
    pub fn connect(&self) -> Result<Box<Store>> {
        self.0.connect()
    }
}

impl Database for Steps<'_> {
    fn step<T>(&self, f: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
        f(&*self.0.connect()?)
    }
}
