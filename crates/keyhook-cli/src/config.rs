//! Where things are: flag > `KEYHOOK_*` environment variable (both resolved by clap) > the XDG
//! default. Only the front ends call this; the core is handed resolved values.

use std::ffi::OsString;
use std::path::PathBuf;

use keyhook_core::error::{Error, Result};
use keyhook_core::time::{Clock, Timestamp};

/// Names a file that holds the time, in milliseconds since the Unix epoch, that the binary's
/// clock shows (standing still until the file changes; it is read at every reading). For the
/// black-box tests, which move the clock of the real binary, `keyhook serve` included, instead
/// of sleeping until a key expires. Honoured only by debug builds, so a release (or
/// `cargo install`) binary cannot be told the wrong time; not a flag, so no help, man page or
/// completion shows it.
pub const TEST_CLOCK_FILE: &str = "KEYHOOK_TEST_CLOCK_FILE";

/// Where the database is: what `--db` or `KEYHOOK_DB` names, parsed once (by clap, through
/// [`DbLocation::parse`]). The binary turns it into a backend (`Wiring::backend`); the core
/// never sees it.
#[derive(Clone, PartialEq, Eq)]
pub enum DbLocation {
    /// A SQLite file: any value that is not a URL.
    File(PathBuf),
    /// A database server: a URL as the binary accepted it (`Wiring::database_url`: for
    /// PostgreSQL, `postgres://` or `postgresql://` with the scheme in lowercase).
    Server(String),
}

/// The binary's wiring, for `--db`'s parser to ask which URLs name a database
/// ([`DbLocation::parse`]): set once, by [`crate::main`], before the command line is parsed.
static WIRING: std::sync::OnceLock<&'static dyn crate::Wiring> = std::sync::OnceLock::new();

/// Sets the wiring `--db`'s parser asks (the first call wins: one binary, one wiring).
pub(crate) fn wire(wiring: &'static dyn crate::Wiring) {
    let _ = WIRING.set(wiring);
}

impl DbLocation {
    /// A `--db` value: a URL (`scheme://...`) must be one the binary's backends accept
    /// (`Wiring::database_url`, which says why not); anything else is a file path, as it
    /// always was. The error, a usage error, never holds the password (clap quotes the value
    /// with it; `lib::usage_error` masks that).
    pub fn parse(value: PathBuf) -> std::result::Result<DbLocation, String> {
        let bytes = value.as_os_str().as_encoded_bytes();
        if scheme_len(bytes).is_none() {
            return Ok(DbLocation::File(value));
        }
        let Some(url) = value.to_str() else {
            return Err("a database URL must be valid UTF-8".into());
        };
        let Some(wiring) = WIRING.get() else {
            return Err("no database server backend is wired in".into());
        };
        wiring.database_url(url).map(DbLocation::Server)
    }
}

/// Shown as the user may see it: the path, or the URL with its password masked.
impl std::fmt::Display for DbLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbLocation::File(path) => write!(f, "{}", path.display()),
            DbLocation::Server(url) => f.write_str(&keyhook_core::redact::url(url)),
        }
    }
}

/// Like [`Display`](std::fmt::Display): a `{:?}` of the parsed command line shows no password
/// either.
impl std::fmt::Debug for DbLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbLocation::File(path) => f.debug_tuple("File").field(path).finish(),
            DbLocation::Server(_) => f.debug_tuple("Server").field(&self.to_string()).finish(),
        }
    }
}

/// The length of the URL scheme `bytes` starts with (RFC 3986: a letter, then letters,
/// digits, `+`, `-` or `.`), if `://` follows it.
fn scheme_len(bytes: &[u8]) -> Option<usize> {
    let len = bytes
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))?;
    (len > 0 && bytes[0].is_ascii_alphabetic() && bytes[len..].starts_with(b"://")).then_some(len)
}

/// The database file used when neither `--db` nor `KEYHOOK_DB` names one:
/// `$XDG_DATA_HOME/keyhook/keyhook.db`, else `$HOME/.local/share/keyhook/keyhook.db`.
pub fn default_database_path() -> Result<PathBuf> {
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

/// `--db`'s default, which `--help` shows: the database a command would use without `--db`.
/// That is `KEYHOOK_DB` when it is set, shown with a URL's password masked (clap takes the
/// variable's own value, never this default, when it is set), else the default file.
pub fn db_default() -> Option<OsString> {
    match std::env::var_os("KEYHOOK_DB").filter(|v| !v.is_empty()) {
        Some(v) => Some(
            keyhook_core::redact::url(&v.to_string_lossy())
                .into_owned()
                .into(),
        ),
        None => default_database_path().ok().map(PathBuf::into_os_string),
    }
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

/// Who is at the shell, for the audit log's `cli:<login>`: the name the password database
/// (`getpwuid_r`, so NSS/LDAP users too) gives the process's real user id, or `uid-<N>`
/// when it has none. Not `$USER` or `$LOGNAME`, which any process may set to anything; the
/// core sanitises the name (`audit::login_name`). Whoever can open the database file can
/// write the audit table directly, so this records who ran keyhook, not a proof of it.
pub fn login_name() -> String {
    // SAFETY: getuid cannot fail and touches no memory of ours.
    let uid = unsafe { libc::getuid() };
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is to a live local of the size given; the result points into
    // `pwd` and `buf`, which outlive its use below.
    let rc = unsafe { libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr(), buf.len(), &mut found) };
    if rc == 0 && !found.is_null() && !pwd.pw_name.is_null() {
        // SAFETY: getpwuid_r succeeded, so pw_name is a NUL-terminated string inside `buf`.
        let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
        if let Ok(name) = name.to_str() {
            if !name.is_empty() {
                return name.to_string();
            }
        }
    }
    format!("uid-{uid}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> std::result::Result<DbLocation, String> {
        DbLocation::parse(PathBuf::from(s))
    }

    #[test]
    fn a_value_that_is_not_a_url_is_a_file_as_before() {
        for path in [
            "keyhook.db",
            "/var/lib/keyhook/keyhook.db",
            "./a:b.db",
            "c:/x.db",
            "postgres:/x.db",
            "postgres:x",
            "1postgres://x",
            "-://x",
            "dir/postgres://x",
        ] {
            assert_eq!(parse(path), Ok(DbLocation::File(path.into())), "{path}");
        }
        // A path need not be UTF-8.
        use std::os::unix::ffi::OsStrExt;
        let raw = PathBuf::from(std::ffi::OsStr::from_bytes(b"k\xffy.db"));
        assert_eq!(DbLocation::parse(raw.clone()), Ok(DbLocation::File(raw)));
    }

    #[test]
    fn a_url_that_is_not_utf8_is_refused_before_any_backend_is_asked() {
        use std::os::unix::ffi::OsStrExt;
        let raw = PathBuf::from(std::ffi::OsStr::from_bytes(b"postgres://h/\xff"));
        assert!(DbLocation::parse(raw).unwrap_err().contains("UTF-8"));
    }

    #[test]
    fn a_location_is_shown_without_its_password() {
        let db = DbLocation::Server("postgres://u:SE%20CRET@h/db?password=SECRET2".into());
        assert_eq!(db.to_string(), "postgres://u:***@h/db?password=***");
        let debug = format!("{db:?}");
        assert_eq!(debug, "Server(\"postgres://u:***@h/db?password=***\")");
        let file = parse("/var/lib/k.db").unwrap();
        assert_eq!(file.to_string(), "/var/lib/k.db");
        assert_eq!(format!("{file:?}"), "File(\"/var/lib/k.db\")");
    }

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
