//! `keys scan`: keyhook keys in files, directories or standard input, what each is in this
//! database, and, with `--revoke`, their deletion. The search is `keyhook_core::scan` (a
//! stream, any line length); the lookups and revocations are `service::keys::{identify,
//! revoke_leaked}`. Only a key's prefix is ever printed.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::{output, prompt, Context, Status};
use keyhook_core::auth;
use keyhook_core::error::Error;
use keyhook_core::scan;
use keyhook_core::service::keys::{self, Leaked};

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Files and directories to read (directories recursively, skipping binary files and
    /// .git/objects), or - for standard input. Default: standard input when it is not a
    /// terminal, else the current directory
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Delete every active key found (each in its own transaction, audited as leaked)
    #[arg(long)]
    revoke: bool,
    /// Do not ask before revoking (required without a terminal)
    #[arg(long, short = 'y', requires = "revoke")]
    yes: bool,
}

/// One key found: where, and what it is here. `--json` prints one per line.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Finding<'a> {
    found_in: &'a str,
    key_prefix: &'a str,
    /// `valid` or `invalid` (a typo, a key from before checksums, or not a key).
    checksum: &'static str,
    /// `active`, `expired` or `unknown`.
    status: &'static str,
    key_id: Option<&'a str>,
    name: Option<&'a str>,
    user_id: Option<&'a str>,
}

/// An active key found, to revoke: its id and prefix, and the first place it was found.
struct Active {
    id: String,
    prefix: String,
    name: String,
    user: String,
    found_in: String,
}

struct Scan<'a> {
    ctx: &'a Context,
    store: Box<keyhook_core::store::Store>,
    actor: keyhook_core::service::Actor,
    active: Vec<Active>,
    seen: HashSet<String>,
    /// Files that could not be read.
    unreadable: usize,
    skipped_binary: usize,
}

pub fn run(ctx: &Context, args: ScanArgs) -> anyhow::Result<()> {
    let stdin = Path::new("-");
    let paths = if args.paths.is_empty() {
        vec![if io::stdin().is_terminal() {
            PathBuf::from(".")
        } else {
            stdin.to_path_buf()
        }]
    } else {
        args.paths
    };
    // Usage first: a path that is not there fails before anything is read.
    if paths.iter().filter(|p| *p == stdin).count() > 1 {
        return Err(Error::validation("PATH", "- (standard input) may be given once").into());
    }
    for p in paths.iter().filter(|p| *p != stdin) {
        if let Err(e) = std::fs::metadata(p) {
            return Err(Error::validation("PATH", format!("{}: {e}", p.display())).into());
        }
    }
    let mut scan = Scan {
        ctx,
        store: ctx.existing_store()?,
        actor: ctx.actor()?,
        active: Vec::new(),
        seen: HashSet::new(),
        unreadable: 0,
        skipped_binary: 0,
    };
    for p in &paths {
        if p == stdin {
            scan.stream("-", io::stdin().lock())?;
        } else if std::fs::metadata(p)?.is_dir() {
            scan.walk(p)?;
        } else {
            scan.file(p, false)?;
        }
    }
    scan.finish(args.revoke, args.yes)
}

impl Scan<'_> {
    /// A directory, depth first in name order, without following symbolic links (no loops,
    /// nothing outside the tree) and without `.git/objects` (compressed, and what matters of
    /// it is in `git log -p`).
    fn walk(&mut self, dir: &Path) -> anyhow::Result<()> {
        let mut entries = match std::fs::read_dir(dir) {
            Ok(rd) => rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect::<Vec<_>>(),
            Err(e) => {
                self.cannot_read(dir, &e);
                return Ok(());
            }
        };
        entries.sort();
        for path in entries {
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                let git_objects = path.file_name().is_some_and(|n| n == "objects")
                    && dir.file_name().is_some_and(|n| n == ".git");
                if !git_objects {
                    self.walk(&path)?;
                }
            } else if meta.is_file() {
                self.file(&path, true)?;
            }
        }
        Ok(())
    }

    /// A file; one found in a directory is skipped if it looks binary (a NUL in its first
    /// bytes), one named on the command line is read whatever it holds.
    fn file(&mut self, path: &Path, skip_binary: bool) -> anyhow::Result<()> {
        let mut f = match File::open(path) {
            Ok(f) => f,
            Err(e) => {
                self.cannot_read(path, &e);
                return Ok(());
            }
        };
        let mut head = Vec::with_capacity(scan::SNIFF_BYTES);
        if let Err(e) = (&mut f)
            .take(scan::SNIFF_BYTES as u64)
            .read_to_end(&mut head)
        {
            self.cannot_read(path, &e);
            return Ok(());
        }
        if skip_binary && scan::looks_binary(&head) {
            self.skipped_binary += 1;
            return Ok(());
        }
        let name = path.display().to_string();
        self.stream(&name, io::Cursor::new(head).chain(f))
    }

    fn cannot_read(&mut self, path: &Path, e: &io::Error) {
        self.unreadable += 1;
        output::say(&format!("keyhook: cannot read {}: {e}", path.display()));
    }

    /// Every key in `input`, reported as it is found.
    fn stream(&mut self, name: &str, input: impl Read) -> anyhow::Result<()> {
        let found = scan::scan(input, |line, key| {
            self.report(&format!("{name}:{line}"), key)
        });
        match found {
            Err(e) if e.downcast_ref::<io::Error>().is_some() && name != "-" => {
                // A file that fails half way (a disk error, a file truncated under us).
                let e = e.downcast::<io::Error>().expect("checked above");
                self.cannot_read(Path::new(name), &e);
                Ok(())
            }
            other => other,
        }
    }

    fn report(&mut self, found_in: &str, token: &str) -> anyhow::Result<()> {
        let now = self.ctx.clock.now();
        let leaked = keys::identify(&*self.store, &self.actor, token, now)?;
        let (status, key) = match &leaked {
            Leaked::Active(k) => ("active", Some(k)),
            Leaked::Expired(k) => ("expired", Some(k)),
            Leaked::Unknown => ("unknown", None),
        };
        let finding = Finding {
            found_in,
            key_prefix: auth::key_prefix(token),
            checksum: if auth::has_valid_checksum(token) {
                "valid"
            } else {
                "invalid"
            },
            status,
            key_id: key.map(|k| k.id.as_str()),
            name: key.map(|k| k.name.as_str()),
            user_id: key.map(|k| k.user_id.as_str()),
        };
        self.print(&finding)?;
        if let Leaked::Active(k) = leaked {
            if self.seen.insert(k.id.clone()) {
                self.active.push(Active {
                    id: k.id,
                    prefix: k.key_prefix,
                    name: k.name,
                    user: k.user_id,
                    found_in: found_in.to_string(),
                });
            }
        }
        Ok(())
    }

    fn print(&self, f: &Finding<'_>) -> anyhow::Result<()> {
        let mut out = io::stdout().lock();
        if self.ctx.out.is_json() {
            serde_json::to_writer(&mut out, f)?;
            writeln!(out)?;
        } else {
            let what = match (f.name, f.user_id) {
                (Some(name), Some(user)) => format!("{} {name:?} of user {user}", f.status),
                _ => f.status.to_string(),
            };
            // A path is the scanned tree's: no control character or key-shaped string in
            // it reaches the terminal as it is.
            let line = format!(
                "{}: {}… {what} (checksum {})",
                f.found_in, f.key_prefix, f.checksum
            );
            writeln!(out, "{}", keyhook_core::redact::display(&line))?;
        }
        Ok(())
    }

    fn finish(self, revoke: bool, yes: bool) -> anyhow::Result<()> {
        if self.skipped_binary > 0 {
            self.ctx.out.note(&format!(
                "Skipped {} binary file{}.",
                self.skipped_binary,
                plural(self.skipped_binary)
            ));
        }
        let n = self.active.len();
        if n == 0 {
            if self.unreadable > 0 {
                return Err(Error::Io(format!(
                    "{} file{} could not be read; no active key was found in the rest",
                    self.unreadable,
                    plural(self.unreadable)
                ))
                .into());
            }
            return Ok(());
        }
        let listed = self
            .active
            .iter()
            .map(|a| format!("{}… ({})", a.prefix, a.name))
            .collect::<Vec<_>>()
            .join(", ");
        if !revoke {
            output::say(&format!(
                "keyhook: {n} active key{} found: {listed}; revoke {} with --revoke",
                plural(n),
                if n == 1 { "it" } else { "them" }
            ));
            return Err(Status(4).into());
        }
        prompt::confirm(
            &format!("Revoke {n} active key{} found: {listed}?", plural(n)),
            yes,
        )?;
        for a in &self.active {
            let now = self.ctx.clock.now();
            match keys::revoke_leaked(&*self.store, &self.actor, &a.id, &a.found_in, now)? {
                Some(_) => output::say(&format!(
                    "Revoked {}… ({}, user {}), found in {}.",
                    a.prefix, a.name, a.user, a.found_in
                )),
                None => output::say(&format!("{}… ({}) was already deleted.", a.prefix, a.name)),
            }
        }
        Ok(())
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
