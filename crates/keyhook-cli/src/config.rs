//! Where things are: flag > `KEYHOOK_*` environment variable (both resolved by clap) > the XDG
//! default. Only the front ends call this; the core is handed resolved values.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::time::{Clock, Timestamp};

/// Names a file that holds the time, in milliseconds since the Unix epoch, that the binary's
/// clock shows (standing still until the file changes; it is read at every reading). For the
/// black-box tests, which move the clock of the real binary, `keyhook serve` included, instead
/// of sleeping until a key expires. Honoured only by debug builds, so a release (or
/// `cargo install`) binary cannot be told the wrong time; not a flag, so no help, man page or
/// completion shows it.
pub const TEST_CLOCK_FILE: &str = "KEYHOOK_TEST_CLOCK_FILE";

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

/// The clock the front ends hand to the core: the system's. A debug build takes the time from
/// the file named by [`TEST_CLOCK_FILE`] when that is set; a release build never looks.
pub fn clock() -> Clock {
    clock_from(cfg!(debug_assertions), |name| std::env::var_os(name))
}

/// [`clock`], with whether the test clock may be used and the environment lookup passed in,
/// so a test of any build can take the release path. Without `test_clock` the environment is
/// not even read.
fn clock_from(test_clock: bool, var: impl FnOnce(&str) -> Option<OsString>) -> Clock {
    if !test_clock {
        return Clock::system();
    }
    let Some(file) = var(TEST_CLOCK_FILE) else {
        return Clock::system();
    };
    let file = PathBuf::from(file);
    Clock::reading(move || {
        // A test's mistake, in a debug build: better loud than a wrong time.
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{TEST_CLOCK_FILE}: cannot read {}: {e}", file.display()));
        Timestamp(text.trim().parse().unwrap_or_else(|_| {
            panic!(
                "{TEST_CLOCK_FILE}: {} holds {text:?}, not milliseconds since the epoch",
                file.display()
            )
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_build_never_looks_for_the_test_clock() {
        let clock = clock_from(false, |name| panic!("{name} was looked up"));
        let before = Timestamp::now();
        let read = clock.now();
        assert!(before <= read && read <= Timestamp::now(), "{read:?}");
        assert_eq!(format!("{clock:?}"), "Clock(system)");
    }

    #[test]
    fn the_test_clock_shows_the_file_and_follows_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("clock");
        let var = |name: &str| (name == TEST_CLOCK_FILE).then(|| file.clone().into_os_string());
        assert_eq!(format!("{:?}", clock_from(true, |_| None)), "Clock(system)");
        std::fs::write(&file, "946684800000\n").unwrap();
        let clock = clock_from(true, var);
        assert_eq!(clock.now(), Timestamp(946_684_800_000));
        std::fs::write(&file, "946684800001").unwrap();
        assert_eq!(clock.now(), Timestamp(946_684_800_001));
        std::fs::write(&file, "soon").unwrap();
        let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| clock.now())).unwrap_err();
        let e = e.downcast_ref::<String>().unwrap();
        assert!(e.contains("not milliseconds since the epoch"), "{e}");
    }
}
