//! `keyhook backup FILE [--force]`: a consistent copy of the SQLite database while others
//! write (the backend's `Backend::backup`; on PostgreSQL it refuses and names pg_dump).

use std::path::PathBuf;

use clap::Args;

use super::Context;
use keyhook_core::error::{Error, FieldError};

#[derive(Debug, Args)]
#[command(
    after_help = "The copy is consistent (one moment of the database) even while serve and other commands write.\nFILE gets mode 0600; a missing directory is created with mode 0700. FILE appears only once the copy\nis complete and checked. Restore: stop keyhook, copy FILE over the database file, start it.\n\nExample:\n  keyhook backup /var/backups/keyhook/keyhook-$(date +%F).db"
)]
pub struct BackupArgs {
    /// The file to write (refused if it exists, unless --force)
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    file: PathBuf,
    /// Replace FILE if it exists
    #[arg(long)]
    force: bool,
}

pub fn run(ctx: &Context, args: BackupArgs) -> anyhow::Result<()> {
    // It copies what exists: a missing database is an error, never created. The webhook
    // secrets are copied sealed, as they are: no secrets key is needed (nor checked).
    let backend = ctx.wiring.backend(&ctx.location()?, false, 1)?;
    let done = backend.backup(&args.file, args.force).map_err(as_file)?;
    ctx.out.note(&format!(
        "Backed up {} to {} ({} bytes).",
        backend.describe(),
        done.file,
        done.bytes
    ));
    ctx.out.data(&done, |_| Ok(()))
}

/// The backend names the target `file`; at the shell it is the FILE argument.
fn as_file(e: Error) -> Error {
    match e {
        Error::Validation(details) => Error::Validation(
            details
                .into_iter()
                .map(|d| match d.field.as_str() {
                    "file" => FieldError::new("FILE", d.message),
                    _ => d,
                })
                .collect(),
        ),
        other => other,
    }
}
