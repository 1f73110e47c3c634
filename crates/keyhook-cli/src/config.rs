//! Where things are: flag > `KEYHOOK_*` environment variable (both resolved by clap) > the XDG
//! default. Only the front ends call this; the core is handed resolved values.

use std::path::PathBuf;

use crate::error::{Error, Result};

/// The database file: `path` if given, else `$XDG_DATA_HOME/keyhook/keyhook.db`, else
/// `$HOME/.local/share/keyhook/keyhook.db`.
pub fn database_path(path: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(p) = path {
        if p.as_os_str().is_empty() {
            return Err(Error::validation("--db", "must not be empty"));
        }
        return Ok(p);
    }
    let data_home = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })
        .ok_or_else(|| {
            Error::validation(
                "--db",
                "no database path: set --db, KEYHOOK_DB, XDG_DATA_HOME or HOME",
            )
        })?;
    Ok(data_home.join("keyhook").join("keyhook.db"))
}
