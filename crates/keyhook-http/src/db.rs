//! The database as one request sees it. An ordinary request takes a connection from the pool
//! at its first database use (authentication) and keeps it until it is answered: one lease
//! per request on the hot path. A handler that calls the network must first give that
//! connection back ([`RequestDb::for_network`], the only way to reach the [`Transport`]); it
//! then takes a connection for each database step and returns it after the step, so no
//! connection, pool slot or transaction is held while a remote endpoint takes its time.

use super::{Lease, Stores};
use crate::error::Result;
use crate::service::Database;
use crate::store::Store;
use keyhook_core::transport::Transport;

pub struct RequestDb<'a> {
    pool: &'a Stores,
    lease: Option<Lease<'a>>,
    sender: &'a dyn Transport,
}

impl<'a> RequestDb<'a> {
    pub fn new(pool: &'a Stores, sender: &'a dyn Transport) -> RequestDb<'a> {
        RequestDb {
            pool,
            lease: None,
            sender,
        }
    }

    /// The request's connection, taken from the pool at the first call and kept until the
    /// request ends.
    pub fn store(&mut self) -> &Store {
        let pool = self.pool;
        self.lease.get_or_insert_with(|| pool.take()).store()
    }

    /// Gives the request's connection back to the pool and returns what a handler that calls
    /// the network needs: the pool, a connection per step, and the sender.
    pub fn for_network(self) -> (Steps<'a>, &'a dyn Transport) {
        (Steps(self.pool), self.sender)
    }
}

/// The pool, lending a connection for one step at a time.
pub struct Steps<'a>(&'a Stores);

impl Database for Steps<'_> {
    fn step<T>(&self, f: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
        f(self.0.take().store())
    }
}
