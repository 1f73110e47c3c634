//! The backend's own errors: what SQLite and the filesystem said, sorted into the kinds of
//! the core's [`StoreError`] where they are read, before they cross the storage boundary.

use keyhook_core::store::{StoreError, StoreResult};

/// A failure inside the backend, already sorted into the [`StoreError`] it crosses the
/// boundary as. Not a second list of kinds: a wrapper only so that `?` sorts rusqlite's
/// errors (`From<rusqlite::Error> for StoreError` cannot be written here, neither type being
/// this crate's).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(transparent)]
pub struct Error(pub StoreError);

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode as C;
        // A row mapper's own failure (a sealed cell that does not open), carried through
        // rusqlite as it is.
        if let rusqlite::Error::FromSqlConversionFailure(_, _, inner) = &e {
            if let Some(own) = inner.downcast_ref::<StoreError>() {
                return Error(own.clone());
            }
        }
        Error(match e.sqlite_error_code() {
            Some(C::ReadOnly) => StoreError::Unavailable("database is read-only".into()),
            Some(C::DiskFull) => StoreError::Unavailable("database or disk is full".into()),
            Some(C::DatabaseBusy) | Some(C::DatabaseLocked) => {
                StoreError::Unavailable("database is busy; try again".into())
            }
            Some(C::NotADatabase) => {
                StoreError::Broken("the file is not a SQLite database (or it is corrupt)".into())
            }
            Some(C::DatabaseCorrupt) => StoreError::Broken("the database file is corrupt".into()),
            Some(C::CannotOpen) => StoreError::Broken("unable to open the database file".into()),
            _ => StoreError::Broken(format!("database error: {e}")),
        })
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        Error(e)
    }
}

impl From<Error> for StoreError {
    fn from(e: Error) -> Self {
        e.0
    }
}

impl From<Error> for keyhook_core::Error {
    fn from(e: Error) -> Self {
        e.0.into()
    }
}

/// A [`StoreError`] raised inside a row mapper, as rusqlite carries it.
pub(crate) fn in_row(e: StoreError) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
}

/// Runs a query body whose errors are SQLite's (or the backend's) and reports them as the
/// storage boundary's.
pub(crate) fn sql<T>(f: impl FnOnce() -> Result<T>) -> StoreResult<T> {
    f().map_err(StoreError::from)
}
