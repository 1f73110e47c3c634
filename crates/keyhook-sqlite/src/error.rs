//! The backend's own errors: what SQLite and the filesystem said, sorted into the kinds of
//! the core's [`StoreError`] before they cross the storage boundary.

use keyhook_core::store::{StoreError, StoreResult};

/// A failure inside the backend. Each variant becomes the [`StoreError`] of the same name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Storage(String),
    #[error("{0}")]
    Io(String),
    #[error("{0}")]
    NoDatabase(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode as C;
        match e.sqlite_error_code() {
            Some(C::ReadOnly) => Error::Unavailable("database is read-only".into()),
            Some(C::DiskFull) => Error::Unavailable("database or disk is full".into()),
            Some(C::DatabaseBusy) | Some(C::DatabaseLocked) => {
                Error::Unavailable("database is busy; try again".into())
            }
            Some(C::NotADatabase) => {
                Error::Storage("the file is not a SQLite database (or it is corrupt)".into())
            }
            Some(C::DatabaseCorrupt) => Error::Storage("the database file is corrupt".into()),
            Some(C::CannotOpen) => Error::Storage("unable to open the database file".into()),
            _ => Error::Storage(format!("database error: {e}")),
        }
    }
}

impl From<Error> for StoreError {
    fn from(e: Error) -> Self {
        match e {
            Error::Unavailable(m) => StoreError::Unavailable(m),
            Error::Storage(m) => StoreError::Broken(m),
            Error::Io(m) => StoreError::Io(m),
            Error::NoDatabase(m) => StoreError::Missing(m),
        }
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => Error::Unavailable(m),
            StoreError::Broken(m) => Error::Storage(m),
            StoreError::Io(m) => Error::Io(m),
            StoreError::Missing(m) => Error::NoDatabase(m),
        }
    }
}

impl From<Error> for keyhook_core::Error {
    fn from(e: Error) -> Self {
        StoreError::from(e).into()
    }
}

/// Runs a query body whose errors are SQLite's (or the backend's) and reports them as the
/// storage boundary's.
pub(crate) fn sql<T>(f: impl FnOnce() -> Result<T>) -> StoreResult<T> {
    f().map_err(StoreError::from)
}
