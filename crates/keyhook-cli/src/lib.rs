//! The command-line front end: the only user of clap, dialoguer and comfy-table. Each command
//! parses its flags, calls one `service` function and prints the result. The binary plugs in
//! the database backend and the HTTP server through [`Wiring`]; this crate names neither.

mod audit;
mod backup;
mod config;
mod db_command;
mod deliver;
pub mod docs;
mod event_types;
mod events;
mod keys;
mod listen;
pub mod logging;
pub mod output;
mod portal;
mod prompt;
mod prune;
mod scan;
mod secret_out;
pub mod secrets_key;
pub mod serve;
mod webhook_flow;
mod webhooks;

use std::ffi::OsString;
use std::io;
use std::sync::Arc;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub use config::DbLocation;
use keyhook_core::error::Error;
use keyhook_core::service::Actor;
use keyhook_core::stop::Stop;
use keyhook_core::store::{Backend, Store};
use keyhook_delivery::client::{ClientConfig, Sender};
pub use output::Output;

/// What the binary plugs into the command line: the database backend and the HTTP server.
pub trait Wiring: Sync {
    /// The database at `db`, a file or a server. With `create`, connecting creates it (a
    /// file: mode 0600, in directories of mode 0700; a server's database: the schema) if it
    /// is missing; without, a missing database is an error. The backend's pool holds
    /// `pool_size` connections; a caller waits for a free one. An error (a backend that is
    /// not built in, a URL the backend refuses) names no password. A pool of one is asked
    /// for by a command that runs and exits; a file then syncs each commit by itself
    /// (`SqliteBackend::for_one_command`).
    fn backend(
        &self,
        db: &DbLocation,
        create: bool,
        pool_size: u32,
    ) -> Result<Arc<dyn Backend>, Error>;
    /// The decision of which URLs name a database (`--db` and `KEYHOOK_DB`, while the command
    /// line is parsed): `url` (a value with a `scheme://`) as a backend of this binary reads
    /// it, or why none does (a usage error; no message names the password). A URL it accepts
    /// comes back to [`Wiring::backend`] as [`DbLocation::Server`].
    fn database_url(&self, url: &str) -> Result<String, String>;
    /// Runs `keyhook serve` as `config` says until `stop` is raised, calling `listening`
    /// once the socket is bound.
    fn serve(
        &self,
        config: serve::ServeConfig,
        stop: Arc<Stop>,
        listening: &dyn Fn(std::net::SocketAddr),
    ) -> Result<(), Error>;
}

/// Issue, rotate and revoke API keys and manage webhook subscriptions, in an embedded SQLite file
/// by default or in PostgreSQL for several instances.
#[derive(Debug, Parser)]
#[command(
    name = "keyhook",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_help = "Examples:\n  keyhook keys create --name deploy --expires-in 90d\n  keyhook webhooks create --url https://example.com/hooks --event post.published\n  keyhook serve --bind 127.0.0.1:8787"
)]
// The group of its arguments keeps the name it had before `CliOf` was generic.
#[group(id = "Cli")]
pub struct CliOf<C: Subcommand> {
    /// The database: a SQLite file (created, mode 0600, by commands that create something;
    /// the others need it to exist), or a PostgreSQL server's postgres:// URL
    #[arg(
        long,
        global = true,
        env = "KEYHOOK_DB",
        value_name = "PATH",
        help_heading = GLOBAL,
        value_parser = db_location(),
        // Completed as a path, as when it was only one.
        value_hint = clap::ValueHint::AnyPath
    )]
    pub db: Option<DbLocation>,

    /// The user that owns what is created and listed
    #[arg(
        long,
        global = true,
        help_heading = GLOBAL,
        env = "KEYHOOK_USER",
        default_value = "default",
        value_name = "ID"
    )]
    pub user: String,

    /// Print exactly the HTTP API's response body ({"data": ...} or {"error": ...})
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,

    /// When tables use color (NO_COLOR turns auto off)
    #[arg(
        long,
        global = true,
        help_heading = GLOBAL,
        value_enum,
        default_value = "auto",
        value_name = "WHEN"
    )]
    pub color: output::ColorChoice,

    /// Allow webhook deliveries to loopback, private and link-local addresses
    #[arg(long, global = true, help_heading = GLOBAL, env = "KEYHOOK_ALLOW_PRIVATE_TARGETS",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub allow_private_targets: bool,

    /// How long one webhook delivery may take before it counts as failed
    #[arg(long, global = true, help_heading = GLOBAL, env = "KEYHOOK_DELIVERY_TIMEOUT", default_value = "10s",
          value_name = "DUR", value_parser = timeout_ms)]
    pub delivery_timeout: i64,

    #[command(subcommand)]
    pub command: C,
}

/// The whole command line.
pub type Cli = CliOf<Command>;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create, list, show, delete, rotate and verify API keys
    #[command(
        subcommand,
        visible_alias = "key",
        after_help = "Example:\n  keyhook keys create --name ci --expires-in 30d"
    )]
    Keys(keys::KeysCommand),
    /// Create, list, test, enable, disable and delete webhook subscriptions
    #[command(
        subcommand,
        visible_alias = "webhook",
        after_help = "Example:\n  keyhook webhooks create --url https://example.com/hooks --event post.published"
    )]
    Webhooks(webhooks::WebhooksCommand),
    /// Emit events to subscribed webhooks
    #[command(
        subcommand,
        after_help = "Example:\n  keyhook events emit post.published --data '{\"postId\": \"p_1\"}'"
    )]
    Events(events::EventsCommand),
    /// Add, list, show, update, deprecate and delete the event types webhooks subscribe to
    #[command(
        subcommand,
        after_help = "Example:\n  keyhook event-types add post.updated --schema post.schema.json --example post.json"
    )]
    EventTypes(event_types::EventTypesCommand),
    /// Mint, revoke and list links to the developer portal that serve shows your customers
    #[command(
        subcommand,
        after_help = "Example:\n  keyhook --user acme portal link --public-url https://keys.example.com"
    )]
    Portal(portal::PortalCommand),
    /// Send queued webhook deliveries (with --once: what is due now, then exit)
    Deliver(deliver::DeliverArgs),
    /// Receive real, signed deliveries here while this runs (an ephemeral webhook), or
    /// forward them to a local URL
    Listen(listen::ListenArgs),
    /// Copy the whole database into another, empty one
    #[command(
        subcommand,
        after_help = "Example:\n  keyhook --db keyhook.db db copy --to /srv/keyhook/keyhook.db"
    )]
    Db(db_command::DbCommand),
    /// Show the audit log: who changed which key or webhook, newest first
    Audit(audit::AuditArgs),
    /// Back up the SQLite database into FILE while others keep writing
    Backup(backup::BackupArgs),
    /// Serve the /api/v1 HTTP JSON API (and deliver webhooks)
    #[command(after_help = "Example:\n  keyhook serve --bind 127.0.0.1:8787 --threads 4")]
    Serve(serve::ServeArgs),
    /// Delete events, finished deliveries and attempts older than a duration, now
    Prune(prune::PruneArgs),
    /// Print the completion script for a shell
    #[command(
        after_help = "Example:\n  keyhook completions bash > ~/.local/share/bash-completion/completions/keyhook"
    )]
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
}

/// [`Command::Keys`] alone, as the whole command line has it (`keyhook keys ...`, `keyhook key
/// ...`), with the `keys` commands `K`: what [`parse`] builds when the command line names it.
/// The test `the_keys_command_alone_is_the_whole_trees` holds it to [`Command::Keys`]'s
/// attributes.
#[derive(Debug, Subcommand)]
enum KeysOnly<K: Subcommand> {
    /// Create, list, show, delete, rotate and verify API keys
    #[command(
        subcommand,
        visible_alias = "key",
        after_help = "Example:\n  keyhook keys create --name ci --expires-in 30d"
    )]
    Keys(K),
}

/// The global options that take a value (`--db PATH` or `--db=PATH`) and those that take none,
/// as [`CliOf`] defines them (the test `the_global_options_are_all_known` checks the lists).
const GLOBAL_WITH_VALUE: [&str; 4] = ["--db", "--user", "--color", "--delivery-timeout"];
const GLOBAL_FLAGS: [&str; 2] = ["--json", "--allow-private-targets"];

/// The branch of the tree a command line needs.
#[derive(Debug, PartialEq, Eq)]
enum Branch {
    Whole,
    /// `keys ...`
    Keys,
    /// `keys create ...`
    KeysCreate,
}

/// Which branch `args` (the program's name first) runs, from its first two words after the
/// global options (which may come before and after each): `keys` (or `key`), then `create`.
/// Anything else before a word (`--help`, `-V`, `--`, an option clap does not know) is left to
/// the larger tree, which has the answer for it.
fn branch(args: &[OsString]) -> Branch {
    let mut found = Vec::new();
    let mut words = args.iter().skip(1);
    while let Some(word) = words.next() {
        let Some(word) = word.to_str() else {
            break;
        };
        let name = word.split_once('=').map_or(word, |(name, _)| name);
        if GLOBAL_WITH_VALUE.contains(&name) {
            // The value is the next word, whatever it looks like (as `at_runtime` parses it).
            if name == word && words.next().is_none() {
                break;
            }
        } else if GLOBAL_FLAGS.contains(&word) {
        } else {
            found.push(word);
            if found.len() == 2 || word.starts_with('-') {
                break;
            }
        }
    }
    match found[..] {
        ["keys" | "key", "create", ..] => Branch::KeysCreate,
        ["keys" | "key", ..] => Branch::Keys,
        _ => Branch::Whole,
    }
}

/// The command line `args` (the program's name first), parsed. clap builds its whole tree of
/// commands before parsing, and copies the global options into every command it parses
/// through: for `keyhook keys create` that tree was ~0.6 M instructions of the process's
/// ~3.6 M (callgrind). So a `keys` command builds only its own branch ([`KeysOnly`]) under the
/// same top level, and `keys create` only its own under `keys`; every other command line,
/// help and errors included, gets the whole tree. Either way the tree is not dropped: freeing
/// it, allocation by allocation, was a sixth of a one-shot command's instructions, and the
/// process ends with the command it runs.
fn parse(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    match branch(&args) {
        Branch::Whole => parse_whole(args),
        Branch::Keys => parse_keys::<keys::KeysCommand>(args, |k| k),
        Branch::KeysCreate => parse_keys::<keys::CreateOnly>(args, keys::CreateOnly::into),
    }
}

/// [`parse`] of a `keys` command line, with [`KeysOnly`] of the commands `K` (which `into`
/// makes the whole tree's).
fn parse_keys<K: Subcommand>(
    args: Vec<OsString>,
    into: impl FnOnce(K) -> keys::KeysCommand,
) -> Result<Cli, clap::Error> {
    let mut command = runtime_command_of::<KeysOnly<K>>();
    let parsed = command.try_get_matches_from_mut(args);
    std::mem::forget(command);
    let cli = CliOf::<KeysOnly<K>>::from_arg_matches_mut(&mut parsed?)
        .map_err(|e| e.format(&mut runtime_command()))?;
    let KeysOnly::Keys(keys) = cli.command;
    Ok(CliOf {
        db: cli.db,
        user: cli.user,
        json: cli.json,
        color: cli.color,
        allow_private_targets: cli.allow_private_targets,
        delivery_timeout: cli.delivery_timeout,
        command: Command::Keys(into(keys)),
    })
}

/// [`parse`] with the whole tree.
fn parse_whole(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    let mut command = runtime_command();
    let parsed = command.try_get_matches_from_mut(args);
    std::mem::forget(command);
    Cli::from_arg_matches_mut(&mut parsed?).map_err(|e| e.format(&mut runtime_command()))
}

/// The heading of the options every command takes, listed after the command's own.
const GLOBAL: &str = "Global Options";

/// How `--db`'s default is written where it must not depend on this machine (man pages).
pub const DB_DEFAULT_DOC: &str = "$XDG_DATA_HOME/keyhook/keyhook.db";

/// `Cli::command()` with the default of `--db` resolved as on this machine (KEYHOOK_DB, its
/// password masked, else XDG_DATA_HOME, else HOME), so that `--help` shows the database a
/// command would use. Without a resolvable default there is none, and a command needing the
/// database says how to name one.
pub fn runtime_command() -> clap::Command {
    runtime_command_of::<Command>()
}

/// [`runtime_command`] of the command line whose commands are `C`'s.
fn runtime_command_of<C: Subcommand>() -> clap::Command {
    // Both passes in one walk of the tree (each walk rebuilds every command's argument map).
    let cmd = at_runtime(CliOf::<C>::command());
    match crate::config::db_default() {
        Some(path) => {
            // Once per process: clap keeps `'static` defaults.
            let path: &'static std::ffi::OsStr = Box::leak(path.into_boxed_os_str());
            with_db_default(cmd, path)
        }
        None => cmd,
    }
}

/// `cmd` with `--db` defaulting to `path` (in place: the order of the arguments is kept).
fn with_db_default(cmd: clap::Command, path: &'static std::ffi::OsStr) -> clap::Command {
    cmd.mut_args(|a| {
        if a.get_id() == "db" {
            a.default_value(path)
        } else {
            a
        }
    })
}

/// `Cli::command()` with `--db`'s default written as [`DB_DEFAULT_DOC`], for man pages.
pub fn documented_command() -> clap::Command {
    with_db_default(
        hide_env_values(Cli::command()),
        std::ffi::OsStr::new(DB_DEFAULT_DOC),
    )
}

/// `cmd` and every subcommand with help naming each environment variable but not its value
/// (`[env: KEYHOOK_DB]`): a value may be a URL with a password in it, or a key set by mistake,
/// and help is printed where anyone may read it.
fn hide_env_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| a.hide_env_values(true))
        .mut_subcommands(hide_env_values)
}

/// [`hide_env_values`] and [`values_may_start_with_hyphen`] of `cmd` and every subcommand, in
/// one walk of the tree: what every command line is parsed with.
fn at_runtime(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| one_value_may_start_with_hyphen(a.hide_env_values(true)))
        .mut_subcommands(at_runtime)
}

/// `cmd` and every subcommand with each option that takes one value reading the next word as
/// that value even when it starts with `-`, as POSIX `getopt` does: `--grace -1s` is then
/// refused by `--grace`'s own parser, naming the flag, instead of clap's "unexpected argument
/// '-1'", which names none. Options taking several values at once keep clap's rule, or they
/// would swallow the flags after them.
#[cfg(test)]
fn values_may_start_with_hyphen(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(one_value_may_start_with_hyphen)
        .mut_subcommands(values_may_start_with_hyphen)
}

/// The rule of [`values_may_start_with_hyphen`] for one argument.
fn one_value_may_start_with_hyphen(a: clap::Arg) -> clap::Arg {
    let one_value = a.get_num_args().is_none_or(|n| n.max_values() == 1);
    if !a.is_positional() && a.get_action().takes_values() && one_value {
        a.allow_hyphen_values(true)
    } else {
        a
    }
}

/// `--db`'s parser: clap's for a path (which refuses an empty one), then [`DbLocation::parse`].
pub(crate) fn db_location() -> impl clap::builder::TypedValueParser<Value = DbLocation> {
    use clap::builder::TypedValueParser;
    clap::builder::PathBufValueParser::new().try_map(DbLocation::parse)
}

/// The same parser and bounds as a webhook's `--timeout`
/// (`service::webhooks::flow::parse_timeout`).
fn timeout_ms(s: &str) -> Result<i64, String> {
    keyhook_core::service::webhooks::flow::parse_timeout(s)
}

/// What every command gets: the parsed global flags and how to print.
pub struct Context {
    pub wiring: &'static dyn Wiring,
    /// `--db` or `KEYHOOK_DB` (or the default file), if any.
    pub db: Option<DbLocation>,
    pub user: String,
    pub out: Output,
    pub allow_private: bool,
    pub delivery_timeout: std::time::Duration,
    /// Where every command reads the time (`config::clock`).
    pub clock: keyhook_core::time::Clock,
}

impl Context {
    /// The database, created if it is not there: for the commands that create something.
    pub fn store(&self) -> Result<Box<Store>, Error> {
        self.backend(true, 1)?.connect()
    }

    /// [`Context::store`] and [`Context::existing_store`] for the `keys` commands, which seal
    /// and open no secret: a database that records its secrets key's fingerprint is opened
    /// without looking for the key (`KEYHOOK_SECRETS_KEY` or the key file: two files opened
    /// and read at every `keys create`), and anything sealed or opened by mistake fails
    /// (`secrets::refuse`) instead of being stored in plaintext. A database that records no
    /// key yet gets one by its first command, this one too, as `secrets_key::prepare` says.
    pub fn keys_store(&self, create: bool) -> Result<Box<Store>, Error> {
        let store = self
            .wiring
            .backend(&self.location()?, create, 1)?
            .connect()?;
        if store.conn().secrets_fingerprint()?.is_some() {
            keyhook_core::secrets::refuse(
                "a keys command does not load the secrets key of webhook secrets",
            );
        } else {
            secrets_key::prepare(&store)?;
        }
        Ok(store)
    }

    /// The database, which must already exist: for the commands that read or act on what is
    /// there (list, show, verify, delete, rotate, prune, test, enable, disable). A mistyped
    /// `--db` fails (exit 1, naming the path) instead of creating an empty database that
    /// answers "no keys".
    pub fn existing_store(&self) -> Result<Box<Store>, Error> {
        self.backend(false, 1)?.connect()
    }

    /// Where the database is: `--db`, `KEYHOOK_DB` or the default file.
    pub fn location(&self) -> Result<DbLocation, Error> {
        match &self.db {
            Some(db) => Ok(db.clone()),
            None => Ok(DbLocation::File(crate::config::default_database_path()?)),
        }
    }

    /// The database that `--db` (or `KEYHOOK_DB`, or the default path) names, with a pool
    /// of `pool_size` connections: one for a command, more for `serve`.
    /// The key of the webhook secrets is found for it first (`secrets_key::prepare`).
    pub fn backend(&self, create: bool, pool_size: u32) -> Result<Arc<dyn Backend>, Error> {
        let backend = self.wiring.backend(&self.location()?, create, pool_size)?;
        secrets_key::prepare(&*backend.connect()?)?;
        Ok(backend)
    }

    /// The operator acting for `--user`, named in the audit log by the login name of the
    /// process's real user (`config::login_name`).
    pub fn actor(&self) -> Result<Actor, Error> {
        Ok(Actor::operator(&self.user)?.with_login(&crate::config::login_name()))
    }

    pub fn client_config(&self) -> ClientConfig {
        ClientConfig {
            timeout: self.delivery_timeout,
            allow_private: self.allow_private,
            clock: self.clock.clone(),
        }
    }

    pub fn sender(&self) -> Sender {
        Sender::new(&self.client_config())
    }
}

/// Runs the command line with the backend and server `wiring` provides, and returns the
/// process exit status.
pub fn main(wiring: &'static dyn Wiring) -> i32 {
    redact_panics();
    keep_freed_memory();
    config::wire(wiring);
    let cli = match parse(std::env::args_os().collect()) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let ctx = Context {
        wiring,
        db: cli.db,
        user: cli.user,
        out: Output::with_color(cli.json, cli.color),
        allow_private: cli.allow_private_targets,
        delivery_timeout: std::time::Duration::from_millis(cli.delivery_timeout.unsigned_abs()),
        clock: crate::config::clock(),
    };
    // The log subscriber: `serve --log-format`, text for every other command.
    let log_format = match &cli.command {
        Command::Serve(args) => args.log_format,
        _ => logging::LogFormat::Text,
    };
    let access_log = match logging::init(log_format, ctx.clock.clone()) {
        Ok(access_log) => access_log,
        Err(e) => return report(&ctx.out, &anyhow::Error::from(e)),
    };
    let result = match cli.command {
        Command::Keys(cmd) => keys::run(&ctx, cmd),
        Command::Webhooks(cmd) => webhooks::run(&ctx, cmd),
        Command::Events(cmd) => events::run(&ctx, cmd),
        Command::EventTypes(cmd) => event_types::run(&ctx, cmd),
        Command::Deliver(args) => deliver::run(&ctx, args),
        Command::Listen(args) => listen::run(&ctx, args),
        Command::Db(cmd) => db_command::run(&ctx, cmd),
        Command::Audit(args) => audit::run(&ctx, args),
        Command::Backup(args) => backup::run(&ctx, args),
        Command::Serve(args) => serve::run(&ctx, args, access_log),
        Command::Prune(args) => prune::run(&ctx, args),
        Command::Portal(cmd) => portal::run(&ctx, cmd),
        Command::Completions { shell } => {
            use std::io::Write;
            let mut stdout = io::stdout().lock();
            stdout
                .write_all(&docs::completions(shell))
                .and_then(|()| stdout.flush())
                .map_err(anyhow::Error::from)
        }
    };
    let status = match result {
        Ok(()) => 0,
        Err(e) => report(&ctx.out, &e),
    };
    // The access lines still waiting for their batch (`serve` stopped by a signal).
    logging::flush();
    status
}

/// The stop SIGINT and SIGTERM raise: how `serve`, `deliver`, `listen` and `webhooks
/// deliveries --follow` are stopped. A thread of its own takes the signals (from
/// signal-hook's pipe) and raises the stop, waking its sleepers: a signal handler may only
/// set a flag, which sleepers would have to wake to look at.
pub(crate) fn stop_on_signals() -> io::Result<Arc<Stop>> {
    let stop = Arc::new(Stop::new());
    let mut signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
    ])?;
    let raise = Arc::clone(&stop);
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            // Every signal is taken (a second one raises nothing new), so none ends the
            // process before its graceful stop, as when a flag took them.
            for _ in signals.forever() {
                raise.raise();
            }
        })?;
    Ok(stop)
}

/// Help and version go to stdout with status 0; a usage error is reported like any other
/// validation error (`keyhook: ...`, and the error object on stdout with `--json`), status 2.
fn usage_error(e: &clap::Error) -> i32 {
    use clap::error::{ContextKind, ErrorKind};
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return 0;
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = e.print();
        return 2;
    }
    // clap quotes the value it refused: a URL's password in it is masked whatever it holds
    // (spaces, quotes), before the message goes on to the sinks, which redact the rest.
    let rendered = match e.get(ContextKind::InvalidValue) {
        Some(clap::error::ContextValue::String(value)) => e
            .render()
            .to_string()
            .replace(value.as_str(), &keyhook_core::redact::url(value)),
        _ => e.render().to_string(),
    };
    // The message runs from "error: " to the first blank line (it may list possible values).
    let message = rendered
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_string();
    let message = with_suggestion(message, e);
    let field = match e.get(ContextKind::InvalidArg) {
        // "--permission <PERMISSION>" names the flag "--permission".
        Some(clap::error::ContextValue::String(arg)) => {
            arg.split(' ').next().unwrap_or(arg).to_string()
        }
        _ => "command".to_string(),
    };
    let json = std::env::args().any(|a| a == "--json");
    let err = Error::Validation(vec![keyhook_core::error::FieldError::new(field, message)]);
    Output::new(json).error(&err);
    if let Some(usage) = rendered.lines().find(|l| l.starts_with("Usage:")) {
        output::say(&format!("{usage}\n\nFor more information, try '--help'."));
    }
    2
}

/// A command that has said all it had to (on stdout and stderr) and only sets the exit
/// status: `keys scan` finding an active key (4), whose `--json` output stays one object per
/// finding, with no error object after them.
#[derive(Debug)]
pub(crate) struct Status(pub i32);

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit status {}", self.0)
    }
}

impl std::error::Error for Status {}

/// Prints `e` (as the error object on stdout too with `--json`) and returns its exit status.
fn report(out: &Output, e: &anyhow::Error) -> i32 {
    if is_broken_pipe(e) {
        return 0;
    }
    if let Some(Status(code)) = e.downcast_ref::<Status>() {
        return *code;
    }
    match e.downcast_ref::<Error>() {
        Some(err) => {
            out.error(err);
            err.exit_code()
        }
        None => {
            output::say(&format!("keyhook: {e:#}"));
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

/// `message` with clap's suggestion, which it prints as a separate `tip:` paragraph that the
/// one-line report would drop: `unrecognized subcommand 'kyes'; did you mean 'keys'?`.
fn with_suggestion(message: String, e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let mut names = Vec::new();
    for kind in [
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedArg,
        ContextKind::SuggestedValue,
    ] {
        match e.get(kind) {
            Some(ContextValue::String(s)) => names.push(s.clone()),
            Some(ContextValue::Strings(v)) => names.extend(v.iter().cloned()),
            _ => {}
        }
    }
    // `key` is no better a guess than `keys`, which it stands for.
    let root = Cli::command();
    let is_alias_of_another = |n: &String| {
        root.find_subcommand(n)
            .is_some_and(|c| c.get_name() != n && names.iter().any(|m| m == c.get_name()))
    };
    let names: Vec<String> = names
        .iter()
        .filter(|n| !is_alias_of_another(n))
        .map(|n| format!("'{n}'"))
        .collect();
    if names.is_empty() {
        return message;
    }
    format!("{message}; did you mean {}?", names.join(" or "))
}

/// glibc's allocator hands the top of its heap back to the system once more than 128 KiB of
/// it is free, and takes it back page by page (a fault each) at the next allocation. A
/// statement that builds a temporary table (a sort, an `IN` list; an ordered webhook's claim
/// has both) allocates its page cache, about 90 KiB, and frees it when it ends, so every
/// such statement paid both ways, a sixth of an ordered delivery's time. Freed memory is
/// kept up to 4 MiB, and blocks up to 1 MiB come from the heap (the fixed setting ends
/// glibc's own raising of that bound, which would otherwise go up to 32 MiB).
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets two of the allocator's numbers; it is called before any
    // other thread of the process exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 4 << 20);
    }
}

/// A panic message can quote the data it failed on; it goes through the same redaction as
/// every other line on stderr. (The server turns a handler's panic into a 500 and goes on.)
fn redact_panics() {
    std::panic::set_hook(Box::new(|info| {
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("<unnamed>");
        output::say(&format!("thread '{name}' {info}"));
        let backtrace = std::backtrace::Backtrace::capture();
        if backtrace.status() == std::backtrace::BacktraceStatus::Captured {
            output::say(&backtrace.to_string());
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each argument's settings, command by command, in tree order.
    fn settings(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        for a in cmd.get_arguments() {
            out.push(format!(
                "{path} {}: hide_env_values {} allow_hyphen_values {}",
                a.get_id(),
                a.is_hide_env_values_set(),
                a.is_allow_hyphen_values_set()
            ));
        }
        for sub in cmd.get_subcommands() {
            settings(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    /// The one walk of the tree sets what the two passes, one after the other, set: on every
    /// argument of every command.
    #[test]
    fn one_walk_sets_what_both_passes_set() {
        let mut two_passes = Vec::new();
        let cmd = values_may_start_with_hyphen(hide_env_values(Cli::command()));
        settings(&cmd, "keyhook", &mut two_passes);
        let mut one_walk = Vec::new();
        settings(&at_runtime(Cli::command()), "keyhook", &mut one_walk);
        assert_eq!(one_walk, two_passes);
        // Both settings are in use, so the comparison compares something.
        assert!(two_passes
            .iter()
            .any(|s| s.ends_with("allow_hyphen_values true")));
        assert!(two_passes
            .iter()
            .any(|s| s.ends_with("allow_hyphen_values false")));
        assert!(two_passes
            .iter()
            .all(|s| s.contains("hide_env_values true")));
    }
}

/// `keys` command lines build only their branch of the tree ([`parse`]): the same commands,
/// parsed the same way.
#[cfg(test)]
mod keys_alone {
    use super::*;

    fn built(mut c: clap::Command) -> clap::Command {
        c.build();
        c
    }

    /// What a command shows of itself above its subcommands.
    fn top(c: &clap::Command) -> String {
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            c.get_name(),
            c.get_bin_name(),
            c.get_version(),
            c.get_about(),
            c.get_long_about(),
            c.get_after_help(),
            c.is_propagate_version_set(),
            c.get_visible_aliases().collect::<Vec<_>>(),
            c.get_arguments().collect::<Vec<_>>(),
        )
    }

    fn sub<'a>(c: &'a clap::Command, path: &[&str]) -> &'a clap::Command {
        path.iter()
            .fold(c, |c, name| c.find_subcommand(name).unwrap())
    }

    fn names(c: &clap::Command) -> Vec<&str> {
        c.get_subcommands().map(|c| c.get_name()).collect()
    }

    /// Fully built (every command's own arguments and the global ones copied in), the trees of
    /// `keys` alone and of `keys create` alone have the whole tree's top level, `keys` and
    /// `keys create`, to the last field.
    #[test]
    fn the_keys_command_alone_is_the_whole_trees() {
        let whole = built(runtime_command());
        let keys = built(runtime_command_of::<KeysOnly<keys::KeysCommand>>());
        let create = built(runtime_command_of::<KeysOnly<keys::CreateOnly>>());
        for alone in [&keys, &create] {
            assert_eq!(top(alone), top(&whole));
            // (and clap's `help`, which `parse` never takes these trees for: it is not `keys`)
            assert_eq!(names(alone), ["keys", "help"]);
            assert_eq!(top(sub(alone, &["keys"])), top(sub(&whole, &["keys"])));
            let create = |c| format!("{:#?}", sub(c, &["keys", "create"]));
            assert_eq!(create(alone), create(&whole));
        }
        let all = |c| format!("{:#?}", sub(c, &["keys"]));
        assert_eq!(all(&keys), all(&whole));
        assert_eq!(names(sub(&create, &["keys"])), ["create", "help"]);
        // The comparison compares something: `keys create` and a global option are in it.
        assert!(all(&keys).contains("\"create\"") && all(&keys).contains("\"delivery-timeout\""));
    }

    /// [`branch`] knows every global option, and whether it takes a value.
    #[test]
    fn the_global_options_are_all_known() {
        let root = Cli::command();
        let mut with_value = Vec::new();
        let mut flags = Vec::new();
        for a in root.get_arguments().filter(|a| a.is_global_set()) {
            assert_eq!(
                a.get_short(),
                None,
                "{}: branch reads long options only",
                a.get_id()
            );
            let name = format!("--{}", a.get_long().unwrap());
            if a.get_action().takes_values() {
                with_value.push(name);
            } else {
                flags.push(name);
            }
        }
        assert_eq!(with_value, GLOBAL_WITH_VALUE);
        assert_eq!(flags, GLOBAL_FLAGS);
    }

    fn args(line: &[&str]) -> Vec<OsString> {
        std::iter::once("keyhook")
            .chain(line.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn a_command_line_is_known_by_its_first_words() {
        for (line, expected) in [
            (&["keys", "create", "--name", "k"][..], Branch::KeysCreate),
            (
                &["--db", "x.db", "--json", "key", "create"],
                Branch::KeysCreate,
            ),
            (
                &["keys", "--db=x.db", "--user", "u", "create"],
                Branch::KeysCreate,
            ),
            (&["key", "list"], Branch::Keys),
            (&["keys"], Branch::Keys),
            (&["keys", "--help", "create"], Branch::Keys),
            (&["keys", "creat"], Branch::Keys),
            (
                &["--db=x.db", "--user", "keys", "--color", "never", "key"],
                Branch::Keys,
            ),
            (
                &[
                    "--allow-private-targets",
                    "--delivery-timeout",
                    "-5s",
                    "keys",
                ],
                Branch::Keys,
            ),
            (&[], Branch::Whole),
            (&["webhooks", "create"], Branch::Whole),
            (&["--db", "keys", "create"], Branch::Whole),
            (&["--db"], Branch::Whole),
            (&["--help", "keys"], Branch::Whole),
            (&["-V", "keys"], Branch::Whole),
            (&["--", "keys"], Branch::Whole),
            (&["--jsn", "keys"], Branch::Whole),
            (&["--json=true", "keys"], Branch::Whole),
            (&["help", "keys"], Branch::Whole),
            (&["keyss"], Branch::Whole),
        ] {
            assert_eq!(branch(&args(line)), expected, "{line:?}");
        }
    }

    /// The same command lines give the same commands, and the same errors and help, word
    /// for word, from the branch of `keys` or `keys create` as from the whole tree.
    #[test]
    fn keys_command_lines_parse_as_with_the_whole_tree() {
        let lines: [&[&str]; 17] = [
            &["keys", "create", "--name", "k", "--quiet"],
            &[
                "--db",
                "/tmp/x.db",
                "--user",
                "u",
                "--json",
                "key",
                "create",
                "--name",
                "k",
            ],
            &[
                "keys",
                "create",
                "--name",
                "k",
                "--expires-in",
                "30d",
                "--permission",
                "readonly",
            ],
            &[
                "keys",
                "--db",
                "/tmp/x.db",
                "create",
                "--json",
                "--name",
                "k",
            ],
            &["keys", "rotate", "key_1", "--grace", "-1s"],
            &["keys", "list", "--all-users", "--color", "never"],
            &["keys", "create"],
            &["keys", "create", "--name"],
            &["keys", "create", "--name", "k", "extra"],
            &["keys", "create", "--nme", "k"],
            &["keys", "creat"],
            &["keys"],
            &["keys", "--help"],
            &["keys", "create", "--help"],
            &["keys", "create", "-V"],
            &["--color", "sometimes", "keys", "list"],
            &[
                "--delivery-timeout",
                "soon",
                "keys",
                "create",
                "--name",
                "k",
            ],
        ];
        let show = |r: Result<Cli, clap::Error>| match r {
            Ok(cli) => format!("{cli:?}"),
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        };
        let mut creates = 0;
        for line in lines {
            let fast = match branch(&args(line)) {
                Branch::Keys => parse_keys::<keys::KeysCommand>(args(line), |k| k),
                Branch::KeysCreate => {
                    creates += 1;
                    parse_keys::<keys::CreateOnly>(args(line), keys::CreateOnly::into)
                }
                Branch::Whole => panic!("{line:?} is a keys command line"),
            };
            assert_eq!(show(fast), show(parse_whole(args(line))), "{line:?}");
        }
        assert!(creates >= 8, "{creates}");
    }
}
