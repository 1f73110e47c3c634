//! Output that carries a new secret (a new API key, a new webhook's signing secret). It is
//! written and flushed inside the transaction that stores the secret, before the commit:
//! a write that fails rolls the change back and the command exits 1. A new API
//! key is shown only there, so a standard output that throws everything away (/dev/null) is
//! refused too ([`publish`]); a webhook's secret can be read again (`webhooks show`, every
//! listing), so a script may send that output to /dev/null ([`publish_readable_again`]).

use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};

use keyhook_core::error::Error;

/// Runs `write` (which writes and flushes the whole output to standard output), then makes
/// sure the bytes are where they were sent, and turns any failure into an `Error::Io` that
/// rolls the transaction back. `what` names the secret ("key", "webhook secret"); `unchanged`
/// says what did not happen ("no key was created"). The message comes from the failure, never
/// from the secret.
pub fn publish(
    what: &str,
    unchanged: &str,
    write: impl FnOnce() -> anyhow::Result<()>,
) -> Result<(), Error> {
    // Checked before writing: a write to /dev/null "succeeds", and the secret is gone.
    if stdout_is_dev_null() {
        return Err(Error::Io(format!(
            "standard output is /dev/null (or was closed): the new {what} would be lost; \
             {unchanged}"
        )));
    }
    publish_readable_again(what, unchanged, write)
}

/// As [`publish`], for a secret that can be read again later: standard output may be
/// /dev/null (nothing is lost); a write that fails still rolls the change back.
pub fn publish_readable_again(
    what: &str,
    unchanged: &str,
    write: impl FnOnce() -> anyhow::Result<()>,
) -> Result<(), Error> {
    write().and_then(|()| Ok(sync_stdout_file()?)).map_err(|e| {
        Error::Io(format!(
            "cannot write the new {what} to standard output ({}); {unchanged}",
            e.root_cause()
        ))
    })
}

/// As [`publish_readable_again`], for `keyhook listen`, whose secret goes to standard error
/// (CONTRACT §11: its standard output is the attempts' lines): `lines` written and flushed
/// there as they are, not through the redacting sink, which would hide the secret. The one
/// raw write to standard error, for the one secret that belongs there.
pub fn publish_on_stderr(what: &str, unchanged: &str, lines: &[String]) -> Result<(), Error> {
    use std::io::Write;
    let write = || -> std::io::Result<()> {
        let mut err = std::io::stderr().lock();
        for line in lines {
            writeln!(err, "{line}")?;
        }
        err.flush()
    };
    write().map_err(|e| {
        Error::Io(format!(
            "cannot write the new {what} to standard error ({e}); {unchanged}"
        ))
    })
}

/// Whether standard output is /dev/null: redirected there (`> /dev/null`), or closed when
/// keyhook started (`>&-`), which the Rust runtime reopens as /dev/null. The open file is
/// compared with /dev/null itself (same file, or a character device with the same device
/// number, as a copy of /dev/null in a container's /dev would be). If either cannot be
/// examined, the answer is no, and the write itself has the last word.
pub fn stdout_is_dev_null() -> bool {
    let Ok(out) = stdout_file().and_then(|f| f.metadata()) else {
        return false;
    };
    let Ok(null) = std::fs::metadata("/dev/null") else {
        return false;
    };
    (out.dev() == null.dev() && out.ino() == null.ino())
        || (out.file_type().is_char_device()
            && null.file_type().is_char_device()
            && out.rdev() == null.rdev())
}

/// A second descriptor of standard output, to examine or sync it.
fn stdout_file() -> std::io::Result<std::fs::File> {
    Ok(std::fs::File::from(
        std::io::stdout().as_fd().try_clone_to_owned()?,
    ))
}

/// When standard output is a regular file (`> new-key`), its bytes reach the disk before the
/// commit: a crash just after the commit must not leave the only copy of a secret in a lost
/// page cache (a rotation has deleted the old key by then). Pipes and terminals have nothing
/// to sync.
fn sync_stdout_file() -> std::io::Result<()> {
    let file = stdout_file()?;
    if file.metadata()?.is_file() {
        file.sync_data()?;
    }
    Ok(())
}
