//! `keyhook db`: the database as a whole. `db copy --to TARGET` copies everything from the
//! `--db` database into an empty TARGET (`service::copy`), the secrets sealed as they are
//! (with the fingerprint of their key); `db rekey` seals them under a new key
//! (`secrets_key::rekey`).

use std::io::IsTerminal;
use std::path::Path;

use clap::Subcommand;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Context;
use crate::config::DbLocation;
use keyhook_core::error::{Error, FieldError};
use keyhook_core::service::copy::{self, Copied, Progress};

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Copy everything in the --db database into an empty database
    #[command(
        after_help = "The copy is one transaction: if it fails, the target is left without a row. On a\nterminal it shows a progress bar per table (not with --json).\n\nExample:\n  keyhook --db keyhook.db db copy --to /srv/keyhook/keyhook.db"
    )]
    Copy {
        /// The database to copy into, named like --db; it must be empty (a missing file is
        /// created)
        #[arg(long, value_name = "PATH|URL", value_parser = crate::db_location(),
              value_hint = clap::ValueHint::AnyPath)]
        to: DbLocation,
    },
    /// Encrypt the webhook secrets at rest under a new secrets key
    #[command(
        after_help = "With the key file ($XDG_CONFIG_HOME/keyhook/secrets.key), a new key is generated and
written beside it (secrets.key.new), every secret is sealed again under it in one
transaction, then the new file replaces the old one; a crash at any point leaves a database
that one of the two keys opens (and the next command finishes a rotation that committed).
With KEYHOOK_SECRETS_KEY, give the new key with --new-key and set KEYHOOK_SECRETS_KEY to
it on every instance afterwards. Instances still running with the old key deliver nothing
until restarted with the new one.

Examples:
  keyhook db rekey
  head -c 32 /dev/urandom | base64 > new.key && keyhook db rekey --new-key new.key"
    )]
    Rekey {
        /// The new key (base64 of 32 bytes) from this file, or - for standard input; without
        /// it a key is generated (only with the key file)
        #[arg(long, value_name = "FILE|-", value_hint = clap::ValueHint::FilePath)]
        new_key: Option<String>,
    },
}

pub fn run(ctx: &Context, cmd: DbCommand) -> anyhow::Result<()> {
    let to = match cmd {
        DbCommand::Copy { to } => to,
        DbCommand::Rekey { new_key } => {
            let store = ctx.existing_store()?;
            let done = crate::secrets_key::rekey(&store, new_key.as_deref())?;
            ctx.out.note(&format!(
                "Sealed {} secret{} again under the new secrets key {}{}.",
                done.secrets,
                if done.secrets == 1 { "" } else { "s" },
                done.fingerprint,
                match &done.key_file {
                    Some(f) => format!(", now in {f}"),
                    None => format!(
                        "; set {} to the new key on every instance",
                        crate::secrets_key::ENV
                    ),
                }
            ));
            return ctx.out.data(&done, |_| Ok(()));
        }
    };
    // The source must exist: a mistyped --db would copy an empty new database.
    let source_location = ctx.location()?;
    let source = ctx.existing_store()?;
    // --to is parsed the way --db is (`db_location`).
    if same_database(&source_location, &to) {
        return Err(Error::validation(
            "--to",
            "is the --db database itself; copy into another database",
        )
        .into());
    }
    let target = ctx.wiring.backend(&to, true, 1)?;
    let described = target.describe();
    let target = target.connect()?;

    let mut bars = Bars::new(!ctx.out.is_json() && std::io::stderr().is_terminal());
    let copied = copy::run(&*source, &*target, &mut |p| bars.show(p));
    bars.clear();
    let copied = copied.map_err(as_to)?;
    ctx.out.note(&summary(&copied, &described));
    ctx.out.data(&copied, |_| Ok(()))
}

/// The core names the target `target`; at the shell it is `--to` (`--db` when it was
/// refused by the parser `--db` shares).
fn as_to(e: Error) -> Error {
    match e {
        Error::Validation(details) => Error::Validation(
            details
                .into_iter()
                .map(|d| match d.field.as_str() {
                    "target" | "--db" => FieldError::new("--to", d.message),
                    _ => d,
                })
                .collect(),
        ),
        other => other,
    }
}

/// Whether `a` and `b` name one database: one file, or one PostgreSQL URL (its password
/// aside). Two URLs for one server spelled differently are not recognised; a non-empty
/// target is refused anyway, so such a copy copies nothing.
fn same_database(a: &DbLocation, b: &DbLocation) -> bool {
    match (a, b) {
        (DbLocation::File(a), DbLocation::File(b)) => same_file(a, b),
        (DbLocation::Server(_), DbLocation::Server(_)) => a.to_string() == b.to_string(),
        _ => false,
    }
}

/// Whether `a` and `b` are one file (the same device and inode: a symlink, a hard link or
/// another spelling of the path). A missing `b` is a new file, never `a`.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// `Copied 14 rows into PATH:` and a line per table.
fn summary(copied: &Copied, target: &str) -> String {
    let rows = copied.rows();
    let mut s = format!(
        "Copied {rows} row{} into {target}:",
        if rows == 1 { "" } else { "s" }
    );
    let width = copied
        .tables
        .iter()
        .map(|(t, _)| t.len())
        .max()
        .unwrap_or(0);
    for (table, n) in &copied.tables {
        s.push_str(&format!("\n  {table:<width$}  {n:>9}"));
    }
    s
}

/// One progress bar per table on stderr, drawn by indicatif. A bar shows a table's name and
/// its row counts: nothing read from a row (a key hash, a secret) and nothing of the target's
/// name (a URL may hold a password) ever reaches one.
struct Bars {
    multi: Option<MultiProgress>,
    bars: Vec<(&'static str, ProgressBar)>,
}

impl Bars {
    /// Bars when `shown`, else nothing is drawn.
    fn new(shown: bool) -> Bars {
        Bars {
            multi: shown.then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr())),
            bars: Vec::new(),
        }
    }

    fn show(&mut self, p: Progress) {
        let Some(multi) = &self.multi else { return };
        let bar = match self.bars.iter().find(|(t, _)| *t == p.table) {
            Some((_, bar)) => bar.clone(),
            None => {
                let style = ProgressStyle::with_template(
                    "{prefix:>17} [{bar:30}] {pos:>9}/{len} rows {elapsed}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
                let bar = multi.add(ProgressBar::new(p.total).with_style(style));
                bar.set_prefix(p.table);
                self.bars.push((p.table, bar.clone()));
                bar
            }
        };
        bar.set_length(p.total);
        bar.set_position(p.done);
    }

    /// Takes the bars off the screen: the summary or the error says the rest.
    fn clear(&self) {
        if let Some(multi) = &self.multi {
            for (_, bar) in &self.bars {
                bar.finish();
            }
            let _ = multi.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_has_a_line_per_table() {
        let copied = Copied {
            tables: vec![("users", 1), ("delivery_attempts", 12)],
        };
        assert_eq!(
            summary(&copied, "/tmp/t.db"),
            "Copied 13 rows into /tmp/t.db:\n  users                      1\n  delivery_attempts         12"
        );
    }

    #[test]
    fn a_refusal_names_the_flag() {
        let e = as_to(Error::validation("target", "is not empty"));
        let Error::Validation(d) = e else {
            panic!("{e:?}")
        };
        assert_eq!(d[0].field, "--to");
    }
}
