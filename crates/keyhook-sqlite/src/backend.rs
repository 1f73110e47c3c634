//! The SQLite file as a [`Backend`]: every connection opens the same file.

use std::path::PathBuf;

use keyhook_core::store::{Backend, Store};

use crate::SqliteStore;

/// A database file; `create` says whether connecting may create it (and its directory).
#[derive(Debug, Clone)]
pub struct SqliteBackend {
    pub path: PathBuf,
    pub create: bool,
}

impl Backend for SqliteBackend {
    fn connect(&self) -> keyhook_core::Result<Box<Store>> {
        let store = if self.create {
            SqliteStore::open(&self.path)?
        } else {
            SqliteStore::open_existing(&self.path)?
        };
        Ok(Box::new(store))
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}
