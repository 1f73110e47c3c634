//! What the driver and the server said, sorted into the core's [`StoreError`] by SQLSTATE
//! (or, for failures without one, by what failed) before it crosses the storage boundary.
//!
//! | failure | becomes |
//! |---|---|
//! | server unreachable, connection refused or timed out, the connection lost, the server shutting down (57P01-57P03), any other connection exception (08xxx) | `Unavailable` (503) |
//! | serialization failure 40001, deadlock 40P01, lock timeout 55P03, too many connections 53300 | `Unavailable`, "database is busy; try again" |
//! | disk full 53100, out of memory 53200, a read-only server 25006 | `Unavailable` |
//! | bad credentials 28P01 / 28000, or a password the server wants and the URL lacks | `Unavailable`, saying the login was refused (exit 1) |
//! | the database does not exist 3D000 | `Missing` (`DATABASE_NOT_FOUND`) |
//! | anything else | `Broken` (500) |
//!
//! The driver's messages name the kind of failure, the server's its SQLSTATE and text; the
//! URL (and its password) is never part of either, and never added here.

use keyhook_core::store::StoreError;
use postgres::error::SqlState;

/// A failure inside a query body: the driver's, or a value that is not what keyhook wrote.
#[derive(Debug)]
pub enum Fail {
    Pg(postgres::Error),
    Data(String),
    /// The core's own failure inside a query body (a sealed cell that does not open).
    Store(StoreError),
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Self {
        Fail::Store(e)
    }
}

impl From<postgres::Error> for Fail {
    fn from(e: postgres::Error) -> Self {
        Fail::Pg(e)
    }
}

impl Fail {
    pub fn sorted(&self) -> StoreError {
        match self {
            Fail::Pg(e) => classify(e),
            Fail::Data(m) => StoreError::Broken(m.clone()),
            Fail::Store(e) => e.clone(),
        }
    }
}

/// Sorts a driver error into the boundary's kinds.
pub fn classify(e: &postgres::Error) -> StoreError {
    if let Some(db) = e.as_db_error() {
        let code = db.code();
        let text = db.message();
        return match code.code() {
            "40001" | "40P01" | "55P03" | "53300" => {
                StoreError::Unavailable("database is busy; try again".into())
            }
            "28P01" | "28000" => {
                StoreError::Unavailable(format!("the database server refused the login: {text}"))
            }
            "3D000" => StoreError::Missing(format!("the database server says: {text}")),
            "53100" => StoreError::Unavailable("database or disk is full".into()),
            "25006" => StoreError::Unavailable("database is read-only".into()),
            c if c.starts_with("08") || c.starts_with("57P") || c.starts_with("53") => {
                StoreError::Unavailable(format!("database server unavailable: {text}"))
            }
            _ if *code == SqlState::UNDEFINED_TABLE => StoreError::Broken(format!(
                "the database lacks keyhook's tables ({text}); was it emptied by hand?"
            )),
            c => StoreError::Broken(format!("database error {c}: {text}")),
        };
    }
    let what = describe(e);
    if e.is_closed() {
        return StoreError::Unavailable(format!(
            "lost the connection to the database server ({what})"
        ));
    }
    let head = e.to_string();
    match head.as_str() {
        "error connecting to server"
        | "timeout waiting for server"
        | "error communicating with the server"
        | "error performing TLS handshake"
        | "unexpected message from server"
        | "error parsing response from server" => {
            StoreError::Unavailable(format!("cannot reach the database server: {what}"))
        }
        // The server asked for a password (or a SCRAM exchange failed) and the URL has
        // none, or not the right kind.
        "invalid configuration" | "authentication error" => {
            StoreError::Unavailable(format!("the database server refused the login: {what}"))
        }
        _ => StoreError::Broken(format!("database error: {what}")),
    }
}

/// "kind: cause" from a driver error without a SQLSTATE.
fn describe(e: &postgres::Error) -> String {
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_connection_is_unavailable() {
        // Port 1 on loopback: nothing listens there.
        let mut config: postgres::Config =
            "postgres://u:hunter2secret@127.0.0.1:1/d".parse().unwrap();
        config.connect_timeout(std::time::Duration::from_secs(2));
        let Err(e) = config.connect(postgres::NoTls) else {
            panic!("something listens on 127.0.0.1:1");
        };
        match classify(&e) {
            StoreError::Unavailable(m) => {
                assert!(m.starts_with("cannot reach the database server"), "{m}");
                assert!(!m.contains("hunter2"), "{m}");
            }
            other => panic!("{other:?}"),
        }
    }
}
