#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// A temporary home for one test: its own database file and environment.
pub struct Env {
    pub dir: TempDir,
    /// The test clock's file, with [`Env::with_clock`].
    clock: Option<PathBuf>,
}

/// The debug-build-only variable naming the test clock's file (`keyhook::config::clock`).
pub const TEST_CLOCK_FILE: &str = "KEYHOOK_TEST_CLOCK_FILE";

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("temp dir"),
            clock: None,
        }
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

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("keyhook.db")
    }

    /// `keyhook --db <temp>/keyhook.db` with a clean environment.
    pub fn cmd(&self) -> Command {
        let mut c = bare_cmd();
        c.arg("--db").arg(self.db());
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
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("keyhook"));
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("KEYHOOK_") || k == "NO_COLOR" || k.starts_with("XDG_") {
            c.env_remove(&k);
        }
    }
    c
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
    use std::io::{Read, Write};
    use std::process::Stdio;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

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
        quote(&env.db().to_string_lossy())
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
    while !shows(prompt) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Keep the terminal's input open until keyhook is done: `script` lingers for two seconds
    // after an end of input that comes while its command still runs. The prompt is printed
    // just before the terminal is set up, so input sent in between can be lost: type again
    // if nothing happens.
    let mut stdin = child.stdin.take().unwrap();
    let mut typed_at = None::<Instant>;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        if typed_at.is_none_or(|t| t.elapsed() > Duration::from_millis(1_000)) {
            // The command may have ended in the meantime; its exit status tells.
            let _ = stdin.write_all(input.as_bytes());
            typed_at = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(5));
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
