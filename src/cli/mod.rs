//! The command-line front end: the only user of clap, dialoguer and comfy-table. Each command
//! parses its flags, calls one `service` function and prints the result.

mod keys;
mod output;
mod prompt;
mod serve;

use std::io;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::Error;
use crate::service::Actor;
use crate::store::Store;
pub use output::Output;

/// Issue, rotate and revoke API keys and manage webhook subscriptions over an embedded SQLite
/// file.
#[derive(Debug, Parser)]
#[command(
    name = "keyhook",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// The SQLite database file (created on first use, mode 0600)
    #[arg(long, global = true, env = "KEYHOOK_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// The user that owns what is created and listed
    #[arg(
        long,
        global = true,
        env = "KEYHOOK_USER",
        default_value = "default",
        value_name = "ID"
    )]
    pub user: String,

    /// Print exactly the HTTP API's response body ({"data": ...} or {"error": ...})
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create, list, show, delete, rotate and verify API keys
    #[command(subcommand)]
    Keys(keys::KeysCommand),
    /// Serve the /api/v1 HTTP JSON API
    Serve(serve::ServeArgs),
}

/// What every command gets: the parsed global flags and how to print.
pub struct Context {
    pub db: Option<PathBuf>,
    pub user: String,
    pub out: Output,
}

impl Context {
    pub fn store(&self) -> Result<Store, Error> {
        Store::open(&crate::config::database_path(self.db.clone())?)
    }

    pub fn actor(&self) -> Result<Actor, Error> {
        Actor::operator(&self.user)
    }
}

/// Runs the command line and returns the process exit status.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let ctx = Context {
        db: cli.db,
        user: cli.user,
        out: Output::new(cli.json),
    };
    let result = match cli.command {
        Command::Keys(cmd) => keys::run(&ctx, cmd),
        Command::Serve(args) => serve::run(&ctx, args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => report(&ctx.out, &e),
    }
}

/// Prints `e` (as the error object on stdout too with `--json`) and returns its exit status.
fn report(out: &Output, e: &anyhow::Error) -> i32 {
    if is_broken_pipe(e) {
        return 0;
    }
    match e.downcast_ref::<Error>() {
        Some(err) => {
            out.error(err);
            err.exit_code()
        }
        None => {
            eprintln!("keyhook: {e:#}");
            1
        }
    }
}

/// A reader that went away (`keyhook keys list | head -1`) is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
