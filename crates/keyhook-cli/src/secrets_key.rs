//! The key webhook secrets are sealed with at rest (`keyhook_core::secrets`, CONTRACT §15):
//! where it comes from, its first use on a database, and `keyhook db rekey`.
//!
//! The key is `KEYHOOK_SECRETS_KEY` (base64 of 32 bytes) when that is set, else the file
//! `$XDG_CONFIG_HOME/keyhook/secrets.key` (`$HOME/.config/...` without XDG_CONFIG_HOME), mode
//! 0600. The file is created only for a database that records no key yet. Every command that
//! opens a database goes through [`prepare`]: a database whose recorded fingerprint is not
//! this key's is refused at the first secret it needs (every webhook read or write); `serve`,
//! `deliver` and `listen` refuse to start ([`require`]). Commands that touch no webhook
//! (`keys ...`, `events ...`, `audit`, `backup`, `db copy`) work without the key.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use keyhook_core::error::Error;
use keyhook_core::secrets::{self, SecretsKey};
use keyhook_core::store::Store;

pub const ENV: &str = "KEYHOOK_SECRETS_KEY";

/// The fault points of [`rekey`] a debug build stops at (`std::process::abort`) when
/// `KEYHOOK_TEST_FAULT` names one: the crash tests kill it between the steps.
const FAULT_VAR: &str = "KEYHOOK_TEST_FAULT";

fn fault(point: &str) {
    if cfg!(debug_assertions) && std::env::var(FAULT_VAR).is_ok_and(|v| v == point) {
        std::process::abort();
    }
}

/// `$XDG_CONFIG_HOME/keyhook/secrets.key`, else `$HOME/.config/keyhook/secrets.key`.
pub fn key_file() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        })
        .map(|dir| dir.join("keyhook").join("secrets.key"))
}

fn pending_file(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".new");
    PathBuf::from(p)
}

/// Where the key was found, for messages.
enum Found {
    Env(SecretsKey),
    File(SecretsKey, PathBuf),
    /// No key: the file that would hold it, if there is a place for one.
    None(Option<PathBuf>),
}

fn env_key() -> Result<Option<SecretsKey>, Error> {
    match std::env::var(ENV) {
        Ok(v) if !v.trim().is_empty() => SecretsKey::from_base64(&v).map(Some).map_err(|m| {
            Error::validation(
                ENV,
                format!("{ENV} {m}: it must be the base64 of 32 bytes (head -c 32 /dev/urandom | base64)"),
            )
        }),
        Ok(_) => Ok(None),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(Error::validation(
            ENV,
            format!("{ENV} must be the base64 of 32 bytes"),
        )),
    }
}

fn read_key_file(path: &Path) -> Result<Option<SecretsKey>, Error> {
    match std::fs::read_to_string(path) {
        Ok(text) => SecretsKey::from_base64(&text).map(Some).map_err(|m| {
            Error::Io(format!(
                "the secrets key file {} {m}: it must hold the base64 of 32 bytes",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::Io(format!(
            "cannot read the secrets key file {}: {e}",
            path.display()
        ))),
    }
}

fn find(fingerprint: Option<&str>) -> Result<Found, Error> {
    if let Some(k) = env_key()? {
        return Ok(Found::Env(k));
    }
    let Some(path) = key_file() else {
        return Ok(Found::None(None));
    };
    // A rekey stopped after its commit but before the new key file took the old one's
    // place: finish it. (A `.new` the database does not name is left alone: a rekey may be
    // writing it now.)
    let pending = pending_file(&path);
    if let (Some(fp), Some(new)) = (fingerprint, read_key_file(&pending).ok().flatten()) {
        if new.fingerprint() == fp && read_key_file(&path)?.is_none_or(|k| k.fingerprint() != fp) {
            std::fs::rename(&pending, &path).map_err(|e| {
                Error::Io(format!(
                    "cannot finish the key rotation ({} to {}): {e}",
                    pending.display(),
                    path.display()
                ))
            })?;
            sync_dir(&path);
        }
    }
    Ok(match read_key_file(&path)? {
        Some(k) => Found::File(k, path),
        None => Found::None(Some(path)),
    })
}

/// The keys a running process may take when the database was re-keyed under it
/// ([`secrets::on_reload`]): the key file's and a rotation's pending file's. None when the
/// key is `KEYHOOK_SECRETS_KEY`, which a running process cannot be given again.
fn reload() -> Vec<SecretsKey> {
    if std::env::var_os(ENV).is_some_and(|v| !v.is_empty()) {
        return Vec::new();
    }
    let Some(path) = key_file() else {
        return Vec::new();
    };
    [read_key_file(&path), read_key_file(&pending_file(&path))]
        .into_iter()
        .filter_map(|k| k.ok().flatten())
        .collect()
}

fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent() {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// Writes `key` to a new file `tmp` (mode 0600, synced).
fn write_key(tmp: &Path, key: &SecretsKey) -> std::io::Result<()> {
    if let Some(dir) = tmp.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let _ = std::fs::remove_file(tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(tmp)?;
    writeln!(f, "{}", key.to_base64())?;
    f.sync_all()
}

/// A new key at `path`, unless another process made one first (then that one).
fn create_key_file(path: &Path) -> Result<SecretsKey, Error> {
    let io = |e: std::io::Error| {
        Error::Io(format!(
            "cannot create the secrets key file {}: {e} (or set {ENV})",
            path.display()
        ))
    };
    let key = SecretsKey::generate();
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    write_key(&tmp, &key).map_err(io)?;
    // A link never replaces a file: of processes creating it at once, one wins, and the
    // others take its key.
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            sync_dir(path);
            Ok(key)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            read_key_file(path)?.ok_or_else(|| io(e))
        }
        Err(e) => Err(io(e)),
    }
}

fn mismatch(fp: &str, found: &Found) -> String {
    let (what, fix) = match found {
        Found::Env(k) => (
            format!("{ENV} is another key ({})", k.fingerprint()),
            format!("set {ENV} to the database's key"),
        ),
        Found::File(k, p) => (
            format!("{} holds another key ({})", p.display(), k.fingerprint()),
            format!(
                "set {ENV} to the database's key, or put it in {}",
                p.display()
            ),
        ),
        Found::None(Some(p)) => (
            format!(
                "there is no key ({ENV} is not set, {} does not exist)",
                p.display()
            ),
            format!(
                "set {ENV} to the database's key, or put it in {}",
                p.display()
            ),
        ),
        Found::None(None) => (
            format!("there is no key ({ENV}, XDG_CONFIG_HOME and HOME are not set)"),
            format!("set {ENV} to the database's key"),
        ),
    };
    format!(
        "the database's webhook secrets are encrypted with the secrets key {fp}, and {what}: \
         {fix}; nothing is signed or delivered without it"
    )
}

/// Finds the key for the database `store` and installs it for this process (or the reason
/// there is none, which every seal and open of a secret then reports). A database that
/// records no key yet gets this one (created in the key file if there is none), and its
/// plaintext secrets (from before encryption) are sealed, in one transaction.
pub fn prepare(store: &Store) -> Result<(), Error> {
    secrets::on_reload(reload);
    let fp = store.conn().secrets_fingerprint()?;
    let found = find(fp.as_deref())?;
    if let Some(fp) = &fp {
        match &found {
            Found::Env(k) | Found::File(k, _) if k.fingerprint() == *fp => {
                secrets::install(Arc::new(k.clone()))
            }
            other => secrets::refuse(mismatch(fp, other)),
        }
        return Ok(());
    }
    let found = match found {
        Found::None(Some(path)) => Found::File(create_key_file(&path)?, path),
        other => other,
    };
    let key = match &found {
        Found::Env(k) | Found::File(k, _) => k.clone(),
        Found::None(_) => {
            secrets::refuse(format!(
                "no secrets key to encrypt webhook secrets with: set {ENV} (the base64 of 32 \
                 bytes), XDG_CONFIG_HOME or HOME"
            ));
            return Ok(());
        }
    };
    let mine = key.fingerprint();
    let recorded = store.write(|c| {
        // Asked again under the write lock: another process may have given it a key.
        match c.lock_secrets_fingerprint()? {
            Some(fp) => Ok(Some(fp)),
            None => {
                secrets::reseal_all(c, None, &key)?;
                Ok(None)
            }
        }
    })?;
    match recorded {
        // Another process gave the database its key first (PostgreSQL instances starting
        // together, each with a key file of its own).
        Some(fp) if fp != mine => {
            secrets::refuse(mismatch(&fp, &found));
        }
        _ => secrets::install(Arc::new(key)),
    }
    Ok(())
}

/// Fails when this process has no usable key for its database: `serve`, `deliver` and
/// `listen` would deliver nothing.
pub fn require() -> Result<(), Error> {
    secrets::require().map_err(Error::Unavailable)
}

/// What `db rekey` did.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rekeyed {
    /// The new key's fingerprint.
    pub fingerprint: String,
    /// The old key's.
    pub previous_fingerprint: String,
    /// Secret cells sealed again.
    pub secrets: usize,
    /// The key file now holding the new key; `null` when the key is `KEYHOOK_SECRETS_KEY`.
    pub key_file: Option<String>,
}

/// `keyhook db rekey`: seals every secret again under a new key, crash-safely. With the key
/// file: the new key is written beside it (`secrets.key.new`, synced), the cells are sealed
/// again and the fingerprint replaced in one transaction, then the new file takes the old
/// one's name (and a crash between the commit and the rename is finished by the next open,
/// [`find`]). With `KEYHOOK_SECRETS_KEY`: the new key is read from `new_key` (a file, or `-`
/// for standard input), and the operator sets the variable to it afterwards.
pub fn rekey(store: &Store, new_key: Option<&str>) -> Result<Rekeyed, Error> {
    let fp = store.conn().secrets_fingerprint()?;
    let found = find(fp.as_deref())?;
    let old = match (&fp, &found) {
        (Some(fp), Found::Env(k) | Found::File(k, _)) if k.fingerprint() == *fp => k.clone(),
        (Some(fp), other) => return Err(Error::Unavailable(mismatch(fp, other))),
        (None, _) => {
            return Err(Error::validation(
                "db",
                "the database records no secrets key yet: there is nothing to rekey",
            ))
        }
    };
    let given = match new_key {
        Some(src) => Some(read_new_key(src)?),
        None => None,
    };
    let (new, path) = match (&found, given) {
        (Found::Env(_), None) => {
            return Err(Error::validation(
                "--new-key",
                format!(
                    "{ENV} holds the key: give the new key with --new-key FILE (or - for \
                     standard input), then set {ENV} to it on every instance"
                ),
            ))
        }
        (Found::Env(_), Some(k)) => (k, None),
        (Found::File(_, p), given) => (given.unwrap_or_else(SecretsKey::generate), Some(p.clone())),
        (Found::None(_), _) => unreachable!("a database key was found above"),
    };
    if new.fingerprint() == old.fingerprint() {
        return Err(Error::validation("--new-key", "is the key in use"));
    }
    if let Some(path) = &path {
        let pending = pending_file(path);
        write_key(&pending, &new).map_err(|e| {
            Error::Io(format!(
                "cannot write the new key to {}: {e}",
                pending.display()
            ))
        })?;
        sync_dir(path);
    }
    fault("rekey-after-new-key");
    let n = store.write(|c| {
        // Under the lock webhook writes take (`check_recorded`): one that sealed with the old
        // key has committed, and its cells are among those read now.
        if c.lock_secrets_fingerprint()?.as_deref() != Some(old.fingerprint().as_str()) {
            return Err(Error::Conflict(
                "the database's secrets key changed meanwhile (another rekey): nothing done".into(),
            ));
        }
        Ok(secrets::reseal_all(c, Some(&old), &new)?)
    })?;
    fault("rekey-after-commit");
    if let Some(path) = &path {
        let pending = pending_file(path);
        if let Err(e) = std::fs::rename(&pending, path) {
            // Another process opening the database finished the rotation first.
            if read_key_file(path)?.is_none_or(|k| k != new) {
                return Err(Error::Io(format!(
                    "the secrets were sealed with the new key, kept in {}, but it could not \
                     replace {}: {e}; move it there",
                    pending.display(),
                    path.display()
                )));
            }
        }
        sync_dir(path);
    }
    secrets::install(Arc::new(new.clone()));
    Ok(Rekeyed {
        fingerprint: new.fingerprint(),
        previous_fingerprint: old.fingerprint(),
        secrets: n,
        key_file: path.map(|p| p.display().to_string()),
    })
}

fn read_new_key(src: &str) -> Result<SecretsKey, Error> {
    let text = if src == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| Error::Io(format!("cannot read the new key from standard input: {e}")))?;
        s
    } else {
        std::fs::read_to_string(src)
            .map_err(|e| Error::Io(format!("cannot read the new key from {src}: {e}")))?
    };
    SecretsKey::from_base64(&text).map_err(|m| {
        Error::validation(
            "--new-key",
            format!("the new key {m}: it must be the base64 of 32 bytes"),
        )
    })
}
