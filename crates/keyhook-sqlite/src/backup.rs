//! `keyhook backup FILE`: a consistent copy of the live database through SQLite's online
//! backup API, while `serve` and other commands keep writing.
//!
//! - The copy is one backup step over every page, in one read transaction of the source: a
//!   snapshot of one moment, and in WAL mode writers go on meanwhile (a chunked backup would
//!   restart at every write and might never finish under a steady load).
//! - It goes to a new temporary file beside FILE, created with mode 0600 (never wider, not
//!   even for a moment), is checked (`PRAGMA integrity_check`), synced, and only then renamed
//!   onto FILE: a full or failing disk leaves FILE as it was (absent or the old backup) and
//!   no temporary file behind, never a half-written FILE that looks complete.
//! - FILE must not be the database itself, whatever the spelling (a symlink, `..`, a hard
//!   link), nor its `-wal`, `-shm` or `-journal` file; an existing FILE is replaced only with
//!   `force`; a missing directory is created with mode 0700, as the database's is.

use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use keyhook_core::store::{BackupDone, StoreError};
use keyhook_core::Error as CoreError;

use crate::error::Error;
use crate::{create_parent_dir, SqliteStore};

/// How long the copy waits for a lock before giving up (the busy timeout's length).
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Copies the keyhook database at `db` into `to`.
pub(crate) fn run(db: &Path, to: &Path, force: bool) -> keyhook_core::Result<BackupDone> {
    // The source must be a keyhook database (and is brought up to date, as any command does).
    let source = SqliteStore::open_existing(db)?;
    refuse_live_files(db, to)?;
    match std::fs::symlink_metadata(to) {
        Ok(m) if m.is_dir() => {
            return Err(CoreError::validation(
                "file",
                format!("{} is a directory; name a file to write", to.display()),
            ))
        }
        Ok(_) if !force => {
            return Err(CoreError::validation(
                "file",
                format!(
                    "{} exists; pass --force to replace it (or name a new file)",
                    to.display()
                ),
            ))
        }
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => {
            return Err(StoreError::Io(format!("cannot look at {}: {e}", to.display())).into());
        }
    }
    create_parent_dir(to)?;
    let temp = Temp::create(to)?;
    copy(&source, &temp.path).map_err(|e| describe(e, to))?;
    drop(source);
    let bytes = std::fs::metadata(&temp.path)
        .map_err(|e| StoreError::Io(format!("cannot read {}: {e}", temp.path.display())))?
        .len();
    temp.persist(to)?;
    Ok(BackupDone {
        file: to.display().to_string(),
        bytes,
    })
}

/// Refuses `to` when it is the database or one of its companion files, however it is
/// spelled: the same file (device and inode) if it exists, else the same canonical path.
fn refuse_live_files(db: &Path, to: &Path) -> keyhook_core::Result<()> {
    let canonical_db = std::fs::canonicalize(db).unwrap_or_else(|_| db.to_path_buf());
    let canonical_to = canonical_target(to);
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut live = canonical_db.clone().into_os_string();
        live.push(suffix);
        let live = PathBuf::from(live);
        let same_inode = match (std::fs::metadata(&live), std::fs::metadata(to)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        };
        if same_inode || canonical_to.as_deref() == Some(live.as_path()) {
            let what = if suffix.is_empty() {
                "the live database itself".to_string()
            } else {
                format!("the live database's {suffix} file")
            };
            return Err(CoreError::validation(
                "file",
                format!(
                    "{} is {what} ({}); back up into another file",
                    to.display(),
                    db.display()
                ),
            ));
        }
    }
    Ok(())
}

/// `to` with its directory resolved (symlinks, `..`), whether or not `to` exists.
fn canonical_target(to: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(to) {
        return Some(p);
    }
    let name = to.file_name()?;
    let parent = match to.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(name))
}

/// The online backup of `source` into the empty file at `dest`, checked and synced.
fn copy(source: &SqliteStore, dest: &Path) -> Result<(), Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut out = Connection::open_with_flags(dest, flags)?;
    {
        let backup = Backup::new(&source.conn.0, &mut out)?;
        let started = Instant::now();
        loop {
            match backup.step(-1).map_err(step_failed)? {
                StepResult::Done => break,
                StepResult::More => {}
                StepResult::Busy | StepResult::Locked if started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                _ => {
                    return Err(
                        StoreError::Unavailable("database is busy; try again".into()).into(),
                    )
                }
            }
        }
    }
    let check: String = out.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
    if check != "ok" {
        return Err(
            StoreError::Broken(format!("the copy failed its integrity check: {check}")).into(),
        );
    }
    // The copy is a WAL database like its source: fold any log into the file, so the one
    // file is the whole backup.
    out.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    out.close().map_err(|(_, e)| Error::from(e))?;
    Ok(())
}

/// A failed backup step. SQLite keeps no message for it (the destination's says "not an
/// error"), so the code says what failed: most often the copy could not be written.
fn step_failed(e: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode as C;
    Error(match e.sqlite_error_code() {
        Some(C::DiskFull) => StoreError::Io("cannot write the copy: the disk is full".into()),
        Some(C::SystemIoFailure) => StoreError::Io(
            "cannot write the copy: an I/O error (a full or failing disk, or a file size limit)"
                .into(),
        ),
        Some(C::DatabaseBusy | C::DatabaseLocked) => {
            StoreError::Unavailable("database is busy; try again".into())
        }
        _ => Error::from(e).0,
    })
}

/// An error of the copy, naming the backup file.
fn describe(e: Error, to: &Path) -> CoreError {
    let e = match e.0 {
        StoreError::Broken(m) => StoreError::Broken(format!("backup to {}: {m}", to.display())),
        StoreError::Unavailable(m) => {
            StoreError::Unavailable(format!("backup to {}: {m}", to.display()))
        }
        StoreError::Io(m) => StoreError::Io(format!("backup to {}: {m}", to.display())),
        other => other,
    };
    e.into()
}

/// The file the copy is written to, beside the backup's name; removed (with any `-wal` and
/// `-shm`) unless it was renamed into place.
struct Temp {
    path: PathBuf,
    done: bool,
}

impl Temp {
    fn create(to: &Path) -> keyhook_core::Result<Temp> {
        let name = to.file_name().map(|n| n.to_string_lossy().into_owned());
        let dir = to.parent().filter(|p| !p.as_os_str().is_empty());
        let dir = dir.unwrap_or(Path::new("."));
        let mut last = None;
        for _ in 0..8 {
            let path = dir.join(format!(
                ".{}.{}-{:08x}.tmp",
                name.as_deref().unwrap_or("keyhook-backup"),
                std::process::id(),
                rand_u32()
            ));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(_) => return Ok(Temp { path, done: false }),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    return Err(StoreError::Io(format!(
                        "cannot create a file in {}: {e}",
                        dir.display()
                    ))
                    .into())
                }
            }
        }
        Err(StoreError::Io(format!(
            "cannot create a file in {}: {}",
            dir.display(),
            last.map_or_else(String::new, |e| e.to_string())
        ))
        .into())
    }

    /// Syncs the copy, renames it onto `to` and syncs the directory, so the rename survives
    /// a crash.
    fn persist(mut self, to: &Path) -> keyhook_core::Result<()> {
        let io = |what: &str, e: std::io::Error| StoreError::Io(format!("{what}: {e}"));
        OpenOptions::new()
            .read(true)
            .open(&self.path)
            .and_then(|f| f.sync_all())
            .map_err(|e| io(&format!("cannot sync {}", self.path.display()), e))?;
        std::fs::rename(&self.path, to)
            .map_err(|e| io(&format!("cannot write {}", to.display()), e))?;
        self.done = true;
        let dir = to.parent().filter(|p| !p.as_os_str().is_empty());
        if let Ok(d) = std::fs::File::open(dir.unwrap_or(Path::new("."))) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut p = self.path.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A few random bits for a temporary name (not a secret: the file is created exclusively):
/// each `RandomState` is seeded afresh.
fn rand_u32() -> u32 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(std::process::id()) as u32
}
