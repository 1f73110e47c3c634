#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// Which database the suite runs on (`test_postgres::BACKEND_VAR`): `postgres` gives every
/// [`Env`] a database of its own on the test process's PostgreSQL cluster; unset, a SQLite
/// file. Plain `cargo test` runs the suite both ways
/// (`backends::the_suite_passes_on_postgresql`).
pub use test_postgres::{ci, is_root, on_postgres, BACKEND_VAR};

/// [`Env::skip_unless_sqlite`], for a test without an [`Env`].
pub fn skip_unless_sqlite(why: &str) -> bool {
    let skip = on_postgres();
    if skip {
        eprintln!("skipped on PostgreSQL: {why}");
    }
    skip
}

/// A temporary home for one test: its own database (a file, or a PostgreSQL database with
/// [`BACKEND_VAR`]) and environment.
pub struct Env {
    pub dir: TempDir,
    /// The test clock's file, with [`Env::with_clock`].
    clock: Option<PathBuf>,
    /// The database on PostgreSQL; `None` on SQLite.
    pg: Option<test_postgres::Database<'static>>,
}

/// The debug-build-only variable naming the test clock's file (`keyhook::config::clock`).
pub const TEST_CLOCK_FILE: &str = "KEYHOOK_TEST_CLOCK_FILE";

impl Env {
    pub fn new() -> Env {
        let pg = on_postgres().then(|| {
            test_postgres::database()
                .unwrap_or_else(|| panic!("{BACKEND_VAR}=postgres without PostgreSQL"))
        });
        Env {
            dir: tempfile::tempdir().expect("temp dir"),
            clock: None,
            pg,
        }
    }

    /// Whether this Env's database is a SQLite file.
    pub fn is_sqlite(&self) -> bool {
        self.pg.is_none()
    }

    /// For a test (or part of one) about the SQLite file itself: on PostgreSQL prints why it
    /// is skipped and returns true. `if env.skip_unless_sqlite("...") { return; }`
    pub fn skip_unless_sqlite(&self, why: &str) -> bool {
        skip_unless_sqlite(why)
    }

    /// The PostgreSQL database, when the suite runs on PostgreSQL.
    pub fn pg(&self) -> Option<&test_postgres::Database<'static>> {
        self.pg.as_ref()
    }

    /// What `--db` names: the SQLite file's path, or the PostgreSQL database's URL.
    pub fn db_arg(&self) -> OsString {
        match &self.pg {
            Some(pg) => pg.url().into(),
            None => self.dir.path().join("keyhook.db").into(),
        }
    }

    /// Whether keyhook has made its database: the file exists, or the PostgreSQL database
    /// (which the harness makes empty) has tables.
    pub fn db_exists(&self) -> bool {
        match &self.pg {
            Some(pg) => {
                pg.sql(
                    "SELECT count(*) FROM information_schema.tables \
                     WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
                )
                .trim()
                    != "0"
            }
            None => self.db().exists(),
        }
    }

    /// Runs one SQL statement on either backend and returns its rows, each value as text
    /// (NULL as "", the way psql prints it). For reads and pokes the two schemas share: the
    /// same tables and columns, values written into the statement, no placeholders; booleans
    /// differ (SQLite 0/1, PostgreSQL t/f).
    pub fn sql(&self, statement: &str) -> Vec<Vec<String>> {
        if let Some(pg) = &self.pg {
            return pg
                .sql(statement)
                .lines()
                .map(|l| l.split('|').map(String::from).collect())
                .collect();
        }
        let c = rusqlite::Connection::open(self.db()).expect("open the database");
        c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
        sqlite_rows(&c, statement)
    }

    /// The one integer a query returns (`SELECT count(*) ...`), on either backend.
    pub fn sql_i64(&self, select: &str) -> i64 {
        let rows = self.sql(select);
        let value = rows.first().and_then(|r| r.first()).expect(select);
        value
            .parse()
            .unwrap_or_else(|_| panic!("{select}: {value:?}"))
    }

    /// Everything the database stores, to search for what must not be there: the bytes of
    /// the SQLite file (and its WAL), or every row of every table as PostgreSQL's text.
    pub fn stored_bytes(&self) -> Vec<u8> {
        let Some(pg) = &self.pg else {
            return database_bytes(&self.db());
        };
        let tables = pg.sql(
            "SELECT table_name FROM information_schema.tables \
             WHERE table_schema = current_schema()",
        );
        let mut all = String::new();
        for table in tables.lines() {
            all.push_str(&pg.sql(&format!("SELECT t::text FROM \"{table}\" t")));
        }
        all.into_bytes()
    }

    /// The number of rows of `table`, on either backend.
    pub fn count_rows(&self, table: &str) -> i64 {
        self.sql_i64(&format!("SELECT count(*) FROM {table}"))
    }

    /// An [`Env`] whose commands ([`Env::cmd`] and what uses it) and servers
    /// (`Server::start...`) run on a test clock (`KEYHOOK_TEST_CLOCK_FILE`, debug builds only)
    /// that stands at the time of this call until [`Env::advance_clock`] moves it: expiry and
    /// grace are tested by moving the clock, not by sleeping.
    pub fn with_clock() -> Env {
        let mut env = Env::new();
        env.clock = Some(env.dir.path().join("clock"));
        env.set_clock(chrono::Utc::now().timestamp_millis());
        env
    }

    /// The test clock's file, if this Env has one.
    pub fn clock_file(&self) -> Option<&Path> {
        self.clock.as_deref()
    }

    /// The time on the test clock, in milliseconds since the epoch.
    pub fn clock_ms(&self) -> i64 {
        let file = self.clock_file().expect("an Env::with_clock");
        std::fs::read_to_string(file)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    /// Sets the test clock to `ms` since the epoch, for every command from now on.
    pub fn set_clock(&self, ms: i64) {
        let file = self.clock_file().expect("an Env::with_clock");
        // Replaced whole, so that a reader never sees half a number.
        let next = file.with_extension("next");
        std::fs::write(&next, ms.to_string()).unwrap();
        std::fs::rename(&next, file).unwrap();
    }

    /// Moves the test clock on by `ms`.
    pub fn advance_clock(&self, ms: i64) {
        self.set_clock(self.clock_ms() + ms);
    }

    /// The SQLite file. On PostgreSQL there is none, and this panics: a test that needs the
    /// file starts with [`Env::skip_unless_sqlite`]; one that runs keyhook uses
    /// [`Env::db_arg`].
    pub fn db(&self) -> PathBuf {
        assert!(
            self.pg.is_none(),
            "Env::db is the SQLite file: on PostgreSQL use Env::db_arg, or skip_unless_sqlite"
        );
        self.dir.path().join("keyhook.db")
    }

    /// `keyhook --db <the database>` with a clean environment.
    pub fn cmd(&self) -> Command {
        let mut c = bare_cmd();
        c.arg("--db").arg(self.db_arg());
        if let Some(file) = self.clock_file() {
            c.env(TEST_CLOCK_FILE, file);
        }
        c
    }

    /// Runs `args` with `--json` and returns (exit code, parsed stdout).
    pub fn json(&self, args: &[&str]) -> (i32, Value) {
        let out = self.cmd().arg("--json").args(args).output().expect("run");
        let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code().unwrap_or(-1), v)
    }

    /// Creates a key with `extra` flags and returns its `data` object (with `key`).
    pub fn create_key(&self, name: &str, extra: &[&str]) -> Value {
        let mut args = vec!["keys", "create", "--name", name];
        args.extend_from_slice(extra);
        let (code, v) = self.json(&args);
        assert_eq!(code, 0, "keys create failed: {v}");
        v["data"].clone()
    }

    /// Creates a webhook at `url` (loopback allowed) for `event` and returns its `data`
    /// object (with `secret`).
    pub fn create_webhook(&self, url: &str, event: &str) -> Value {
        self.create_webhook_with(url, event, &[])
    }

    /// [`Env::create_webhook`] with `extra` flags (`--profile ID`).
    pub fn create_webhook_with(&self, url: &str, event: &str, extra: &[&str]) -> Value {
        let mut args = vec![
            "--allow-private-targets",
            "webhooks",
            "create",
            "--url",
            url,
            "--event",
            event,
        ];
        args.extend_from_slice(extra);
        let (code, v) = self.json(&args);
        assert_eq!(code, 0, "webhooks create failed: {v}");
        v["data"].clone()
    }
}

/// `keyhook --json --allow-private-targets ARGS` (the receivers are on loopback): (exit code,
/// stdout JSON).
pub fn kh(env: &Env, args: &[&str]) -> (i32, Value) {
    env.json(&[&["--allow-private-targets"], args].concat())
}

/// `keyhook --json events emit ARGS` (the event's name, then `--data`, `--user`...); fails
/// the test unless it exits 0, and returns the accepted event (`data`: `id`, `deliveries`).
pub fn emit(env: &Env, args: &[&str]) -> Value {
    let (code, v) = env.json(&[&["events", "emit"], args].concat());
    assert_eq!(code, 0, "events emit {args:?}: {v}");
    v["data"].clone()
}

/// A new key named `name` made with the CLI (`extra`: more `keys create` flags): (its
/// plaintext, its `data`).
pub fn new_key(env: &Env, name: &str, extra: &[&str]) -> (String, Value) {
    let data = env.create_key(name, extra);
    (str_of(&data, "key").to_string(), data)
}

/// The plaintext of a new readwrite, full-access key of `user` made with the CLI (`extra`:
/// more `keys create` flags).
pub fn key_of(env: &Env, user: &str, extra: &[&str]) -> String {
    new_key(env, "k", &[&["--user", user], extra].concat()).0
}

/// The `id` of a created record (`data` of a create).
pub fn id_of(data: &Value) -> String {
    str_of(data, "id").to_string()
}

/// The sorted `field`s of an error's details.
pub fn detail_fields(err: &Value) -> Vec<String> {
    let mut f: Vec<String> = err["details"]
        .as_array()
        .unwrap_or_else(|| panic!("no details in {err}"))
        .iter()
        .map(|d| str_of(d, "field").to_string())
        .collect();
    f.sort();
    f
}

/// `keyhook --allow-private-targets GLOBAL deliver EXTRA` on `env`'s database.
fn deliver_command(env: &Env, global: &[&str], extra: &[&str]) -> std::process::Command {
    let mut c = std_cmd();
    c.arg("--db").arg(env.db_arg());
    c.arg("--allow-private-targets")
        .args(global)
        .arg("deliver")
        .args(extra)
        .stdin(std::process::Stdio::null());
    c
}

/// `keyhook --allow-private-targets deliver EXTRA` in the background, with `envs` set and its
/// output piped.
pub fn spawn_deliver(env: &Env, envs: &[(&str, &str)], extra: &[&str]) -> std::process::Child {
    use std::process::Stdio;
    let mut c = deliver_command(env, &[], extra);
    for (k, v) in envs {
        c.env(k, v);
    }
    c.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn keyhook deliver")
}

/// A `deliver` worker (`keyhook --allow-private-targets GLOBAL deliver EXTRA`) on `env`'s
/// database and test clock, until killed ([`kill`]); its output is discarded, so that its log
/// lines never fill a pipe nobody reads.
pub fn clocked_worker(env: &Env, global: &[&str], extra: &[&str]) -> std::process::Child {
    use std::process::Stdio;
    deliver_command(env, global, extra)
        .env(
            TEST_CLOCK_FILE,
            env.clock_file().expect("an Env::with_clock"),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn keyhook deliver")
}

/// Kills a worker with SIGKILL; it must not have ended any other way than by itself with
/// success.
pub fn kill(mut child: std::process::Child) {
    use std::os::unix::process::ExitStatusExt;
    let _ = child.kill();
    let status = child.wait().unwrap();
    assert!(status.signal() == Some(9) || status.success(), "{status:?}");
}

/// `webhooks show ID`'s `data`; fails the test unless it exits 0.
pub fn show_webhook(env: &Env, id: &str) -> Value {
    let (code, v) = env.json(&["webhooks", "show", id]);
    assert_eq!(code, 0, "webhooks show {id}: {v}");
    v["data"].clone()
}

/// The attempt log of `webhooks deliveries ID`, newest first.
pub fn attempts(env: &Env, id: &str) -> Vec<Value> {
    let (code, v) = env.json(&["webhooks", "deliveries", id]);
    assert_eq!(code, 0, "webhooks deliveries {id}: {v}");
    v["data"].as_array().expect("a list").clone()
}

/// The plaintext of a new admin key named `admin` of `env`'s user, made with the CLI.
pub fn admin_key(env: &Env) -> String {
    str_of(&env.create_key("admin", &[]), "key").to_string()
}

/// The rows of `statement` on a SQLite connection, each value as text, the way
/// [`Env::sql`] returns them.
pub fn sqlite_rows(c: &rusqlite::Connection, statement: &str) -> Vec<Vec<String>> {
    use rusqlite::types::ValueRef;
    let mut stmt = c.prepare(statement).expect(statement);
    let n = stmt.column_count();
    let mut rows = stmt.query([]).expect(statement);
    let mut out = Vec::new();
    while let Some(row) = rows.next().expect(statement) {
        let text = |i| match row.get_ref(i).unwrap() {
            ValueRef::Null => String::new(),
            ValueRef::Integer(v) => v.to_string(),
            ValueRef::Real(v) => v.to_string(),
            ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        };
        out.push((0..n).map(text).collect());
    }
    out
}

/// The binary with `KEYHOOK_*`, `NO_COLOR` and the XDG variables removed.
pub fn bare_cmd() -> Command {
    let mut c = Command::cargo_bin("keyhook").expect("binary");
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("KEYHOOK_") || k == "NO_COLOR" || k.starts_with("XDG_") {
            c.env_remove(&k);
        }
    }
    c
}

/// Folds the write-ahead log beside `db` back into the file and removes it, so that the file
/// alone is the whole database. A command leaves none (its connection, the last one, folds it
/// back when it closes), but a server still running, or one stopped by a kill, does: a test
/// that reads, copies or damages the file's own bytes after one calls this first.
pub fn fold_log(db: &Path) {
    let c = rusqlite::Connection::open(db).unwrap();
    let (busy, _, _): (i64, i64, i64) = c
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(
        busy, 0,
        "another connection kept the log from being folded back"
    );
    drop(c);
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    assert!(
        !Path::new(&wal).exists(),
        "the last connection removes the log"
    );
}

/// Every byte of the database and its WAL and shared-memory files.
pub fn database_bytes(db: &Path) -> Vec<u8> {
    let mut all = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        if let Ok(b) = std::fs::read(PathBuf::from(p)) {
            all.extend(b);
        }
    }
    all
}

/// What a finished command left behind.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout parsed as JSON (`Value::Null` if it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or(Value::Null)
    }

    /// Asserts that this run failed with `code` and reported it the keyhook way: every stderr
    /// line starts with `keyhook: `, and nothing panicked.
    pub fn assert_error(&self, code: i32) -> &Run {
        assert_eq!(self.code, code, "exit status of {self:#?}");
        assert_keyhook_error(&self.stderr);
        self
    }
}

/// Runs `cmd` to the end and collects its exit status and output.
pub fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("run keyhook");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A non-empty stderr whose every line is a `keyhook: ` message, without a panic.
pub fn assert_keyhook_error(stderr: &str) {
    assert!(!stderr.trim().is_empty(), "expected an error on stderr");
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    for line in stderr.lines() {
        assert!(
            line.starts_with("keyhook: "),
            "stderr line {line:?} in {stderr:?}"
        );
    }
}

impl Env {
    /// `keyhook --db <temp> ARGS`.
    pub fn run(&self, args: &[&str]) -> Run {
        run(self.cmd().args(args))
    }

    /// `deliver --once` with private targets allowed (the receivers are on loopback); fails
    /// the test unless it exits 0, and returns its standard error (the summary line).
    pub fn deliver_once(&self) -> String {
        self.deliver_once_with(&[]).stderr
    }

    /// `deliver --once` with no retries (each failure gives its delivery up at once) and one
    /// sender, so attempts are made in order; fails the test unless it exits 0.
    pub fn deliver_once_no_retry(&self) -> Run {
        self.deliver_once_with(&["--retry-schedule=", "--delivery-workers", "1"])
    }

    /// `keyhook --allow-private-targets deliver --once EXTRA`; fails the test unless it exits
    /// 0.
    pub fn deliver_once_with(&self, extra: &[&str]) -> Run {
        let r = self.run(&[&["--allow-private-targets", "deliver", "--once"], extra].concat());
        assert_eq!(r.code, 0, "deliver --once: {r:#?}");
        r
    }

    /// `keyhook --db <temp> keys verify ARGS` with `stdin` on standard input.
    pub fn verify(&self, stdin: &str, args: &[&str]) -> Run {
        run(self
            .cmd()
            .args(["keys", "verify"])
            .args(args)
            .write_stdin(stdin.to_string()))
    }

    /// The `data` array of `keys list ARGS --json`.
    pub fn list(&self, args: &[&str]) -> Vec<Value> {
        let (code, v) = self.json(&[&["keys", "list"], args].concat());
        assert_eq!(code, 0, "keys list failed: {v}");
        v["data"].as_array().expect("data is an array").clone()
    }
}

/// A `std::process::Command` of the binary with the environment of [`bare_cmd`], for tests
/// that spawn several processes or wire up pipes themselves.
pub fn std_cmd() -> std::process::Command {
    scrubbed(std::process::Command::new(assert_cmd::cargo::cargo_bin(
        "keyhook",
    )))
}

/// `c` without `KEYHOOK_*`, `NO_COLOR` and `XDG_*` from the caller's environment.
pub fn scrubbed(mut c: std::process::Command) -> std::process::Command {
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("KEYHOOK_") || k == "NO_COLOR" || k.starts_with("XDG_") {
            c.env_remove(&k);
        }
    }
    c
}

/// The repository's root (the root package's directory).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `--json ARGS` on `env`, which must exit 0; its `data`.
pub fn data(env: &Env, args: &[&str]) -> Value {
    let (code, v) = env.json(args);
    assert_eq!(code, 0, "{args:?}: {v}");
    v["data"].clone()
}

/// `2026-11-22T03:47:36.123Z`: RFC 3339, UTC, milliseconds.
pub fn is_api_timestamp(s: &str) -> bool {
    s.len() == 24
        && s.ends_with('Z')
        && s.as_bytes()[19] == b'.'
        && chrono::DateTime::parse_from_rfc3339(s).is_ok()
}

/// Milliseconds since the epoch of an API timestamp.
pub fn millis(s: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s)
        .unwrap_or_else(|e| panic!("{s:?} is not RFC 3339: {e}"))
        .timestamp_millis()
}

/// Compares `want` with the committed file at `path`; on a difference the file is rewritten
/// (so the next run passes) and its name is added to `stale` (so the test fails and a stale
/// file cannot land unnoticed).
pub fn check_generated(path: &Path, want: &[u8], stale: &mut Vec<String>) {
    if std::fs::read(path).ok().as_deref() != Some(want) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, want).unwrap();
        stale.push(path.display().to_string());
    }
}

/// Runs `keyhook --db DB ARGS` on a pseudo-terminal through util-linux `script`, and types
/// `input` once `prompt` is on the screen; `None` when `script` is not installed.
pub fn on_terminal(env: &Env, args: &[&str], prompt: &str, input: &str) -> Option<Run> {
    on_terminal_with(env, &[], args, prompt, input)
}

/// [`on_terminal`] with the environment variables `vars` set too.
pub fn on_terminal_with(
    env: &Env,
    vars: &[(&str, &str)],
    args: &[&str],
    prompt: &str,
    input: &str,
) -> Option<Run> {
    use std::io::{Read, Write};
    use std::process::Stdio;
    use std::sync::{Arc, Mutex};

    let found = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: util-linux `script` is needed to run keyhook on a terminal");
        return None;
    }
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let bin = assert_cmd::cargo::cargo_bin("keyhook");
    let mut line = format!(
        "{} --db {}",
        quote(&bin.to_string_lossy()),
        quote(&env.db_arg().to_string_lossy())
    );
    for a in args {
        line.push(' ');
        line.push_str(&quote(a));
    }
    let mut cmd = std::process::Command::new("script");
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("KEYHOOK_") || k.starts_with("XDG_") {
            cmd.env_remove(&k);
        }
    }
    cmd.envs(vars.iter().copied());
    let mut child = cmd
        .env("TERM", "dumb")
        .args(["-qec", &line, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn script");
    let screen = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let screen = Arc::clone(&screen);
        let mut out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                screen.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    let shows = |what: &str| String::from_utf8_lossy(&screen.lock().unwrap()).contains(what);
    let deadline = Instant::now() + Duration::from_secs(10);
    // Typed-ahead input may be discarded (a password prompt flushes it), so wait for the prompt.
    poll_until(Duration::from_secs(10), || shows(prompt));
    // Keep the terminal's input open until keyhook is done: `script` lingers for two seconds
    // after an end of input that comes while its command still runs. The prompt is printed
    // just before the terminal is set up, so input sent in between can be lost: type again
    // if nothing happens.
    let mut stdin = child.stdin.take().unwrap();
    let mut typed_at = None::<Instant>;
    let ended = poll_until(deadline.saturating_duration_since(Instant::now()), || {
        if child.try_wait().unwrap().is_some() {
            return true;
        }
        if typed_at.is_none_or(|t| t.elapsed() > Duration::from_millis(1_000)) {
            // The command may have ended in the meantime; its exit status tells.
            let _ = stdin.write_all(input.as_bytes());
            typed_at = Some(Instant::now());
        }
        false
    });
    if !ended {
        let _ = child.kill();
    }
    drop(stdin);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let stdout = String::from_utf8_lossy(&screen.lock().unwrap()).into_owned();
    Some(Run {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
    })
}

/// Whether `s` has the shape of a plaintext key: `kp_` and 64 lowercase hex characters.
pub fn is_key(s: &str) -> bool {
    s.len() == 67
        && s.starts_with("kp_")
        && s[3..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The string field `field` of `v`; fails the test if it is missing or not a string.
pub fn str_of<'a>(v: &'a Value, field: &str) -> &'a str {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field} is not a string in {v}"))
}

/// The field names of the object `v`, sorted.
pub fn sorted_keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .cloned()
        .collect();
    k.sort();
    k
}

/// [`poll`]: waits for another process until a look sees what it waits for, with a
/// deadline; [`poll_until`] for a condition. One definition for every test, in
/// keyhook-test-support.
pub use keyhook_test_support::{poll, poll_until};
