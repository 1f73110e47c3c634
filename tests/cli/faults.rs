//! Faults: `kill -9` of `serve` and of `deliver` at
//! random points under load, a read-only and a full filesystem, eight writer processes at
//! once, and key expiry exactly at the boundary.
//!
//! The random points come from a small PRNG seeded from the clock; every test prints its seed,
//! and `FAULTS_SEED=<seed>` repeats a run. The filesystem tests need root: they mount a
//! read-only bind mount or a tiny tmpfs in a private mount namespace (`unshare -m`, the host's
//! mounts are never touched) and run keyhook in it with `nsenter`. Not root: they say so and
//! pass. Nothing here talks to any address but 127.0.0.1.

use keyhook_core::service::Publish;
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::common::{self, database_bytes, is_root, poll, poll_until, scrubbed, std_cmd, Env, Run};
use crate::receiver::Receiver;
use crate::server::{Server, PATIENCE};

// ---------------------------------------------------------------------------------------------
// Helpers

/// splitmix64: small, good enough to pick kill points, and repeatable from its seed.
struct Rng(u64);

impl Rng {
    /// Seeded from `FAULTS_SEED` or the clock; prints the seed so that a failure can be rerun.
    fn seeded(test: &str) -> Rng {
        let seed = std::env::var("FAULTS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
                now.as_nanos() as u64
            });
        eprintln!("{test}: seed {seed} (FAULTS_SEED={seed} repeats this run)");
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A delay of `lo..=hi` milliseconds.
    fn millis(&mut self, lo: u64, hi: u64) -> Duration {
        Duration::from_millis(lo + self.below(hi - lo + 1))
    }

    /// Lets the processes under test run on for `lo..=hi` milliseconds, so that what comes
    /// next (a kill) lands at a random point of their work; returns how long.
    fn pause(&mut self, lo: u64, hi: u64) -> Duration {
        let delay = self.millis(lo, hi);
        thread::sleep(delay);
        delay
    }
}

/// An HTTP client that reports a dead server as `Err` instead of failing the test.
fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(PATIENCE)
        .redirects(0)
        .build()
}

/// `method url` with the bearer `key` and an optional JSON body: (status, JSON body; a body
/// that is not JSON comes as a JSON string), or Err when the connection failed (the server was
/// killed).
fn http(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    key: &str,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let rq = agent
        .request(method, url)
        .set("Authorization", &format!("Bearer {key}"));
    let result = match body {
        Some(b) => rq
            .set("Content-Type", "application/json")
            .send_string(&b.to_string()),
        None => rq.call(),
    };
    let resp = match result {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => return Err(e.to_string()),
    };
    let status = resp.status();
    let text = resp.into_string().map_err(|e| e.to_string())?;
    Ok((
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    ))
}

/// Asserts that `v` is an error envelope with `code` and returns its message.
fn error_code(v: &Value, code: &str) -> String {
    let keys: Vec<&String> = v.as_object().expect("an object").keys().collect();
    assert_eq!(keys, ["error"], "error envelope {v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["details"].is_array(), "{v}");
    v["error"]["message"]
        .as_str()
        .expect("a message")
        .to_string()
}

fn open_db(path: &Path) -> rusqlite::Connection {
    let c =
        rusqlite::Connection::open(path).unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    c.busy_timeout(Duration::from_secs(10)).unwrap();
    c
}

/// `PRAGMA integrity_check` says `ok` and `PRAGMA foreign_key_check` finds nothing.
fn assert_intact(c: &rusqlite::Connection) {
    let rows: Vec<String> = c
        .prepare("PRAGMA integrity_check")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows, ["ok"], "integrity_check");
    let dangling: i64 = c
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(dangling, 0, "rows whose foreign key points nowhere");
}

/// The stored keys with their owners, for [`assert_keys_whole`].
const KEYS_AND_OWNERS: &str = "SELECT k.id, k.key_hash, k.key_prefix, k.name, k.created_at, u.id
     FROM api_keys k LEFT JOIN users u ON u.id = k.user_id";

/// The database is intact: on SQLite, [`assert_intact`]; PostgreSQL checks its pages and
/// foreign keys itself.
fn assert_intact_db(env: &Env) {
    if !env.skip_unless_sqlite("PRAGMA integrity_check and foreign_key_check are SQLite's") {
        assert_intact(&open_db(&env.db()));
    }
}

/// Every stored key is whole: a 64-hex hash, a `kp_` + 8 hex prefix, a name, a creation
/// time, an owner. `rows` are those of [`KEYS_AND_OWNERS`] (NULL read as ""). Returns
/// id -> (hash, prefix).
fn assert_keys_whole(rows: Vec<Vec<String>>) -> HashMap<String, (String, String)> {
    let hash_re = regex::Regex::new("^[0-9a-f]{64}$").unwrap();
    let prefix_re = regex::Regex::new("^kp_[0-9a-f]{8}$").unwrap();
    let mut out = HashMap::new();
    for row in rows {
        let row_text = format!("{row:?}");
        let [id, hash, prefix, name, created, owner] = <[String; 6]>::try_from(row).unwrap();
        assert!(!id.is_empty(), "{row_text}");
        assert!(hash_re.is_match(&hash), "{row_text}");
        assert!(prefix_re.is_match(&prefix), "{row_text}");
        assert!(!name.is_empty(), "{row_text}");
        assert!(created.parse::<i64>().is_ok_and(|t| t > 0), "{row_text}");
        assert!(!owner.is_empty(), "key without a user: {row_text}");
        out.insert(id, (hash, prefix));
    }
    out
}

/// Asserts that every key in `acked` (id, plaintext) is stored whole, under its own hash.
fn assert_keys_stored(stored: &HashMap<String, (String, String)>, acked: &[(String, String)]) {
    for (id, plaintext) in acked {
        let (hash, prefix) = stored
            .get(id)
            .unwrap_or_else(|| panic!("key {id} was acknowledged but is not stored"));
        assert_eq!(
            *hash,
            keyhook::auth::hash_key(plaintext),
            "hash of key {id}"
        );
        assert_eq!(prefix, &plaintext[..11], "prefix of key {id}");
    }
}

fn exit_status(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => format!("{status:?}"),
    }
}

/// Waits for `child` for at most [`PATIENCE`]; kills it and fails the test if it runs on.
fn wait_bounded(child: &mut Child, what: &str) -> ExitStatus {
    if let Some(s) = poll(PATIENCE, || child.try_wait().expect("wait")) {
        return s;
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("{what} did not exit within {PATIENCE:?}");
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.to_string_lossy().replace('\'', r"'\''"))
}

/// A private mount namespace (`unshare -m`) in which a setup script has run, kept alive by a
/// `sleep` that is killed on drop; commands run in it through `nsenter`.
struct Namespace {
    keeper: Child,
}

impl Namespace {
    /// None, with the reason printed, when this process is not root.
    fn start(test: &str, setup: &str) -> Option<Namespace> {
        if !is_root() {
            eprintln!("{test}: skipped: mounting a filesystem in a mount namespace needs root");
            return None;
        }
        let mut keeper = Command::new("unshare")
            .args(["--mount", "--propagation", "private", "sh", "-c"])
            .arg(format!("{setup} && echo ready && exec sleep 600"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run unshare (util-linux)");
        let stdout = keeper.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        match rx.recv_timeout(PATIENCE) {
            Ok(line) if line.trim() == "ready" => Some(Namespace { keeper }),
            _ => {
                let _ = keeper.kill();
                let out = keeper.wait_with_output().unwrap();
                panic!(
                    "{test}: cannot set up the mount namespace ({setup}): {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }

    /// `nsenter -t <keeper> -m -- program`, with the environment of `common::std_cmd`.
    fn cmd(&self, program: impl AsRef<OsStr>) -> Command {
        let mut c = scrubbed(Command::new("nsenter"));
        c.arg("-t")
            .arg(self.keeper.id().to_string())
            .args(["-m", "--"])
            .arg(program);
        c
    }

    /// `keyhook --db DB ARGS` in the namespace.
    fn keyhook(&self, db: &Path, args: &[&str]) -> Command {
        let mut c = self.cmd(assert_cmd::cargo::cargo_bin("keyhook"));
        c.arg("--db").arg(db).args(args);
        c
    }

    fn run(&self, db: &Path, args: &[&str]) -> Run {
        run_std(self.keyhook(db, args).stdin(Stdio::null()))
    }

    fn sh(&self, script: &str) -> Run {
        run_std(self.cmd("sh").arg("-c").arg(script))
    }

    /// The bytes of `path` as the namespace sees it (None if it does not exist).
    fn read(&self, path: &Path) -> Option<Vec<u8>> {
        let out = self
            .cmd("cat")
            .arg(path)
            .stderr(Stdio::null())
            .output()
            .expect("run cat");
        out.status.success().then_some(out.stdout)
    }

    /// Copies the database at `db` (and its WAL) out of the namespace into `to`, to check it
    /// with rusqlite here. Call it while no process has the database open.
    fn copy_db_out(&self, db: &Path, to: &Path) {
        let main = self.read(db).expect("the database file");
        std::fs::write(to, main).unwrap();
        let mut wal_from = db.as_os_str().to_owned();
        wal_from.push("-wal");
        let mut wal_to = to.as_os_str().to_owned();
        wal_to.push("-wal");
        if let Some(wal) = self.read(Path::new(&wal_from)) {
            std::fs::write(PathBuf::from(wal_to), wal).unwrap();
        }
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = self.keeper.kill();
        let _ = self.keeper.wait();
    }
}

fn run_std(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("run");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A `keyhook serve` started from any command (in a namespace, say): its port and its stderr.
struct Served {
    child: Child,
    port: u16,
    log: Arc<Mutex<String>>,
    /// The thread reading the server's stderr into `log`; done once the server has ended.
    reader: Option<thread::JoinHandle<()>>,
}

impl Served {
    /// Spawns `cmd` (a `keyhook ... serve --bind 127.0.0.1:0`) and waits for its address.
    fn start(mut cmd: Command) -> Served {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn keyhook serve");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let reader = {
            let log = Arc::clone(&log);
            thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    log.lock().unwrap().push_str(&format!("{line}\n"));
                    let _ = tx.send(line);
                }
            })
        };
        let first = rx.recv_timeout(PATIENCE).unwrap_or_default();
        let port = first
            .strip_prefix("keyhook: listening on http://127.0.0.1:")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|p| p.parse().ok());
        let Some(port) = port else {
            let _ = child.kill();
            let _ = child.wait();
            let _ = reader.join();
            panic!(
                "keyhook serve did not start: {first:?}\n{}",
                log.lock().unwrap()
            );
        };
        Served {
            child,
            port,
            log,
            reader: Some(reader),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// SIGTERM, then waits: the server must stop cleanly. Returns its stderr.
    fn stop(mut self) -> String {
        let sent = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("run kill");
        assert!(sent.success());
        let status = wait_bounded(&mut self.child, "keyhook serve after SIGTERM");
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        let log = self.log.lock().unwrap().clone();
        assert!(status.success(), "serve: {}:\n{log}", exit_status(status));
        assert!(!log.contains("panicked"), "{log}");
        log
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// kill -9

const ROUNDS: usize = 5;
const CLIENTS: usize = 4;

/// What the load clients were told was done.
#[derive(Default)]
struct Acked {
    /// (id, plaintext) of keys answered 201.
    keys: Vec<(String, String)>,
    webhooks: Vec<String>,
    /// (event id, deliveries queued) of events answered 202.
    events: Vec<(String, i64)>,
    /// Anything but 201, 202, and 409 for the eleventh webhook.
    unexpected: Vec<String>,
}

/// One load client: creates keys (mostly), webhooks and events until the server goes away.
fn hammer(port: u16, key: &str, hook_url: &str, seed: u64, acked: &Mutex<Acked>, ok: &AtomicUsize) {
    let agent = agent();
    let mut rng = Rng(seed);
    let url = |p: &str| format!("http://127.0.0.1:{port}/api/v1/{p}");
    for n in 0.. {
        let pick = rng.below(10);
        let (path, body) = match pick {
            0..=5 => ("api-keys", json!({"name": format!("load-{seed:x}-{n}")})),
            6 => (
                "webhooks",
                json!({"url": format!("{hook_url}?{seed:x}-{n}"), "events": ["post.published"]}),
            ),
            _ => (
                "events",
                json!({"event": "post.published", "data": {"n": n}}),
            ),
        };
        let (status, v) = match http(&agent, "POST", &url(path), key, Some(&body)) {
            Ok(r) => r,
            // The server was killed (or the connection broke with it).
            Err(_) => return,
        };
        let mut a = acked.lock().unwrap();
        let text = |field: &str| v["data"][field].as_str().map(str::to_string);
        match (path, status) {
            ("api-keys", 201) => match (text("id"), text("key")) {
                (Some(id), Some(key)) => a.keys.push((id, key)),
                _ => a.unexpected.push(format!("POST {path} -> {status} {v}")),
            },
            ("webhooks", 201) => match text("id") {
                Some(id) => a.webhooks.push(id),
                None => a.unexpected.push(format!("POST {path} -> {status} {v}")),
            },
            ("webhooks", 409) if v["error"]["code"] == "WEBHOOK_LIMIT_REACHED" => {}
            ("events", 202) => match (text("id"), v["data"]["deliveries"].as_i64()) {
                (Some(id), Some(n)) => a.events.push((id, n)),
                _ => a.unexpected.push(format!("POST {path} -> {status} {v}")),
            },
            _ => a.unexpected.push(format!("POST {path} -> {status} {v}")),
        }
        ok.fetch_add(1, Ordering::SeqCst);
    }
}

/// After a crash: the file is intact, every acknowledged key, webhook and event is there,
/// whole, and every acknowledged event has all its deliveries.
fn assert_survived(env: &Env, acked: &Acked) {
    assert_intact_db(env);
    let stored = assert_keys_whole(env.sql(KEYS_AND_OWNERS));
    assert_keys_stored(&stored, &acked.keys);
    for id in &acked.webhooks {
        let n = env.sql_i64(&format!("SELECT count(*) FROM webhooks WHERE id = '{id}'"));
        assert_eq!(n, 1, "webhook {id} was acknowledged but is not stored");
    }
    for (id, queued) in &acked.events {
        let events = env.sql_i64(&format!("SELECT count(*) FROM events WHERE id = '{id}'"));
        let deliveries = env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE event_id = '{id}'"
        ));
        assert_eq!(events, 1, "event {id} was accepted but is not stored");
        assert!(*queued >= 1, "event {id} reached no webhook");
        assert_eq!(deliveries, *queued, "deliveries of event {id}");
    }
}

#[test]
fn kill_9_of_serve_under_load_loses_no_acknowledged_write() {
    let mut rng = Rng::seeded("kill_9_of_serve");
    let env = Env::new();
    let receiver = Receiver::start();
    let hook_url = receiver.url("/ok");
    // One webhook from the start, so that every event has a delivery to queue.
    env.create_webhook(&hook_url, "post.published");
    let key = env.create_key("load", &[])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let acked = Mutex::new(Acked::default());
    let mut unacked_total = 0;
    for round in 1..=ROUNDS {
        let mut server = Server::start_with(&env, &["--allow-private-targets", "--threads", "4"]);
        let port = server.port;
        let ok = AtomicUsize::new(0);
        let before = acked.lock().unwrap().keys.len();
        thread::scope(|s| {
            let clients: Vec<_> = (0..CLIENTS)
                .map(|_| {
                    let seed = rng.next();
                    let (acked, ok, key, hook_url) = (&acked, &ok, &key, &hook_url);
                    s.spawn(move || hammer(port, key, hook_url, seed, acked, ok))
                })
                .collect();
            // Let the load build up, then kill at a random point of it.
            assert!(
                poll_until(PATIENCE, || ok.load(Ordering::SeqCst) >= 20),
                "round {round}: no load got through:\n{}",
                server.log()
            );
            let delay = rng.pause(0, 400);
            server.signal("KILL");
            let (status, _, log) = server.wait();
            assert_eq!(status.signal(), Some(9), "round {round}: {status:?}\n{log}");
            for c in clients {
                c.join().expect("a load client panicked");
            }
            eprintln!(
                "round {round}: killed {delay:?} into the load after {} answers",
                ok.load(Ordering::SeqCst)
            );
        });
        let a = acked.lock().unwrap();
        assert!(a.unexpected.is_empty(), "{:#?}", a.unexpected);
        assert!(a.keys.len() > before, "round {round} created no key");
        assert_survived(&env, &a);
        let stored = env.count_rows("api_keys");
        // Keys committed but not acknowledged (the answer was lost in the kill) are whole too.
        unacked_total = stored - 1 - a.keys.len() as i64;
        assert!(unacked_total >= 0);
    }
    let a = acked.lock().unwrap();
    eprintln!(
        "{} keys, {} webhooks, {} events acknowledged; {unacked_total} keys committed unacknowledged",
        a.keys.len(),
        a.webhooks.len(),
        a.events.len()
    );
    assert!(!a.events.is_empty(), "no event was emitted under load");
}

#[test]
fn kill_9_of_deliver_loses_no_delivery() {
    const EVENTS: usize = 200;
    let mut rng = Rng::seeded("kill_9_of_deliver");
    let env = Env::new();
    let receiver = Receiver::start();
    // Each delivery takes a little while, so that a kill finds some in flight.
    receiver.set_delay(Duration::from_millis(20));
    let (code, v) = env.json(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        &receiver.url("/delay"),
        "--event",
        "post.published",
    ]);
    assert_eq!(code, 0, "{v}");
    // The events go in through the library (the same `emit` as the CLI and HTTP), which is
    // quicker than 200 processes.
    let mut ids = HashSet::new();
    if !env.is_sqlite() {
        // No library backend for PostgreSQL here: through the CLI.
        for n in 0..EVENTS {
            let data = format!(r#"{{"n": {n}}}"#);
            let (code, v) = env.json(&["events", "emit", "post.published", "--data", &data]);
            assert_eq!((code, &v["data"]["deliveries"]), (0, &json!(1)), "{v}");
            ids.insert(v["data"]["id"].as_str().unwrap().to_string());
        }
    } else {
        use keyhook::service::{events, Actor};
        let store = keyhook::sqlite::SqliteStore::open(&env.db()).unwrap();
        // The webhook's secret is sealed at rest: routing opens it with the key the command
        // above used (this process has the same environment, so the same key file).
        keyhook::cli::secrets_key::prepare(&store).unwrap();
        let actor = Actor::operator("default").unwrap();
        for n in 0..EVENTS {
            let input = events::NewEvent {
                event: events::EventName::new("post.published").ok(),
                data: json!({"n": n}).as_object().cloned(),
                ..Default::default()
            };
            let e = events::emit(&store, &actor, input, keyhook::time::Timestamp::now()).unwrap();
            assert_eq!(e.deliveries, 1);
            ids.insert(e.id);
        }
    }
    for round in 1..=4 {
        let mut child = std_cmd()
            .arg("--db")
            .arg(env.db_arg())
            .args([
                "--allow-private-targets",
                "deliver",
                "--delivery-workers",
                "8",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn keyhook deliver");
        // Wait until this worker is sending (unless an earlier one left nothing claimable),
        // then kill it at a random point.
        let seen = receiver.requests().len();
        poll_until(Duration::from_secs(3), || receiver.requests().len() > seen);
        let delay = rng.pause(0, 300);
        child.kill().expect("kill -9 deliver");
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "round {round}: {status:?}");
        assert_intact_db(&env);
        let counts = env.sql("SELECT state, count(*) FROM deliveries GROUP BY state");
        eprintln!(
            "round {round}: killed {delay:?} after the first send; {} requests so far; {counts:?}",
            receiver.requests().len()
        );
    }
    // The killed workers' leases would keep their deliveries up to 10 s more before another
    // worker may claim them (tests/cli/leases.rs checks that wait). End them by hand, as
    // time would.
    env.sql("UPDATE deliveries SET lease_until = 0 WHERE state = 'pending'");
    let r = env.run(&[
        "--allow-private-targets",
        "deliver",
        "--once",
        "--delivery-workers",
        "8",
    ]);
    assert_eq!(r.code, 0, "deliver --once: {r:#?}");

    let requests = receiver.requests();
    let received: HashSet<String> = requests
        .iter()
        .map(|r| r.header("webhook-id").to_string())
        .collect();
    let lost: Vec<&String> = ids.difference(&received).collect();
    assert!(lost.is_empty(), "events never delivered: {lost:?}");
    assert_intact_db(&env);
    let delivered = env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'delivered'");
    let other = env.sql_i64("SELECT count(*) FROM deliveries WHERE state <> 'delivered'");
    assert_eq!(
        (delivered, other),
        (EVENTS as i64, 0),
        "deliveries by state"
    );
    // A delivery settles in the same transaction as the attempt that settled it.
    // TRUE is 1 to SQLite and a boolean to PostgreSQL.
    let unlogged = env.sql_i64(
        "SELECT count(*) FROM deliveries d WHERE NOT EXISTS (
             SELECT 1 FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.delivered = TRUE)",
    );
    assert_eq!(unlogged, 0, "delivered without a logged successful attempt");
    eprintln!(
        "{} requests for {EVENTS} events ({} sent again after a kill)",
        requests.len(),
        requests.len() - EVENTS
    );
}

/// The same for a webhook with `--rate` (CONTRACT §15): its tokens are taken in the claim's
/// transaction, so a worker killed after its claim leaves deliveries leased with their tokens
/// spent; once the leases lapse they are claimed again with new tokens, and nothing is lost or
/// left pending. The test clock refills the bucket (10 a second); `deliver --once` stops when
/// the bucket holds the rest back, so the last runs go on while any is pending.
#[test]
fn kill_9_of_deliver_loses_nothing_of_a_rate_limited_webhook() {
    const EVENTS: usize = 40;
    let mut rng = Rng::seeded("kill_9_of_deliver_rated");
    let env = Env::with_clock();
    let receiver = Receiver::start();
    receiver.set_delay(Duration::from_millis(20));
    let w = env.create_webhook_with(
        &receiver.url("/delay"),
        "post.published",
        &["--rate", "10/s"],
    );
    let id = w["id"].as_str().unwrap().to_string();
    let mut ids = HashSet::new();
    for n in 0..EVENTS {
        let data = format!(r#"{{"n": {n}}}"#);
        let (code, v) = env.json(&["events", "emit", "post.published", "--data", &data]);
        assert_eq!((code, &v["data"]["deliveries"]), (0, &json!(1)), "{v}");
        ids.insert(v["data"]["id"].as_str().unwrap().to_string());
    }
    for round in 1..=3 {
        env.advance_clock(1_000);
        let seen = receiver.requests().len();
        let child = common::clocked_worker(&env, &[], &["--delivery-workers", "4"]);
        poll_until(Duration::from_secs(3), || receiver.requests().len() > seen);
        let delay = rng.pause(0, 100);
        common::kill(child);
        assert_intact_db(&env);
        eprintln!("round {round}: killed {delay:?} after the first send");
    }
    let pending = || {
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE webhook_id = '{id}' AND state = 'pending'"
        ))
    };
    for _ in 0..20 {
        if pending() == 0 {
            break;
        }
        // The killed workers' leases end as time would end them, and the bucket refills.
        env.sql("UPDATE deliveries SET lease_until = 0 WHERE state = 'pending'");
        env.advance_clock(2_000);
        let r = env.run(&[
            "--allow-private-targets",
            "deliver",
            "--once",
            "--delivery-workers",
            "4",
        ]);
        assert_eq!(r.code, 0, "deliver --once: {r:#?}");
    }
    assert_eq!(pending(), 0, "deliveries left pending");
    let received: HashSet<String> = receiver
        .requests()
        .iter()
        .map(|r| r.header("webhook-id").to_string())
        .collect();
    let lost: Vec<&String> = ids.difference(&received).collect();
    assert!(lost.is_empty(), "events never delivered: {lost:?}");
    assert_intact_db(&env);
    let delivered = env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'delivered'");
    assert_eq!(delivered, EVENTS as i64, "deliveries delivered");
    let unlogged = env.sql_i64(
        "SELECT count(*) FROM deliveries d WHERE NOT EXISTS (
             SELECT 1 FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.delivered = TRUE)",
    );
    assert_eq!(unlogged, 0, "delivered without a logged successful attempt");
}

// ---------------------------------------------------------------------------------------------
// Read-only and full filesystems

#[test]
fn a_read_only_filesystem_keeps_reads_and_refuses_writes_clearly() {
    let env = Env::new();
    if env.skip_unless_sqlite("a read-only filesystem under the SQLite file") {
        return;
    }
    let dir = env.dir.path().to_path_buf();
    let db = env.db();
    let key = env.create_key("reader", &[])["key"]
        .as_str()
        .unwrap()
        .to_string();
    env.create_key("second", &[]);
    let before = database_bytes(&db);
    let setup = format!(
        "mount --bind {d} {d} && mount -o remount,ro,bind {d}",
        d = quote(&dir)
    );
    let Some(ns) = Namespace::start("read_only_filesystem", &setup) else {
        return;
    };
    // The setup took: not even root can write there.
    let probe = ns.sh(&format!("touch {}", quote(&dir.join("probe"))));
    assert_ne!(probe.code, 0, "the bind mount is writable: {probe:?}");

    let list = ns.run(&db, &["--json", "keys", "list"]);
    assert_eq!(
        list.code, 0,
        "keys list on a read-only filesystem: {list:#?}"
    );
    assert_eq!(
        list.json()["data"].as_array().map(Vec::len),
        Some(2),
        "{list:?}"
    );
    let show = ns.run(&db, &["keys", "list"]);
    assert_eq!(show.code, 0, "{show:#?}");
    assert!(show.stdout.contains("reader"), "{show:?}");

    let create = ns.run(&db, &["keys", "create", "--name", "new"]);
    create.assert_error(1);
    assert!(create.stderr.contains("read-only"), "{create:?}");
    assert!(
        !create.stderr.to_lowercase().contains("internal"),
        "{create:?}"
    );
    assert_eq!(create.stdout, "");
    let create = ns.run(&db, &["--json", "keys", "create", "--name", "new"]);
    create.assert_error(1);
    let message = error_code(&create.json(), "SERVICE_UNAVAILABLE");
    assert!(message.contains("read-only"), "{message}");

    let served = Served::start(ns.keyhook(&db, &["serve", "--bind", "127.0.0.1:0"]));
    let agent = agent();
    let keys_url = served.url("/api/v1/api-keys");
    let (status, v) = http(&agent, "GET", &keys_url, &key, None).unwrap();
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["data"].as_array().map(Vec::len), Some(2), "{v}");
    let (status, v) = http(&agent, "POST", &keys_url, &key, Some(&json!({"name": "x"}))).unwrap();
    assert_eq!(status, 503, "{v}");
    let message = error_code(&v, "SERVICE_UNAVAILABLE");
    assert!(message.contains("read-only"), "{message}");
    let (status, v) = http(&agent, "GET", &keys_url, &key, None).unwrap();
    assert_eq!(status, 200, "reads go on after a refused write: {v}");
    let log = served.stop();
    assert!(log.contains("POST /api/v1/api-keys 503"), "{log}");
    drop(ns);

    assert!(
        database_bytes(&db) == before,
        "the database files changed on a read-only filesystem"
    );
    let c = open_db(&db);
    assert_intact(&c);
}

/// Creates keys with the CLI in `ns` until one fails; returns (id, plaintext) of those created
/// and the failed run.
fn create_until_full(ns: &Namespace, db: &Path, tag: &str) -> (Vec<(String, String)>, Run) {
    let mut created = Vec::new();
    for n in 0..2_000 {
        let name = format!("{tag}-{n}");
        let r = ns.run(db, &["--json", "keys", "create", "--name", &name]);
        if r.code != 0 {
            return (created, r);
        }
        let data = &r.json()["data"];
        created.push((
            data["id"].as_str().unwrap().to_string(),
            data["key"].as_str().unwrap().to_string(),
        ));
    }
    panic!("2000 keys fit on a tmpfs of 600k");
}

#[test]
fn a_full_disk_fails_writes_clearly_and_keeps_the_database_whole() {
    let env = Env::new();
    if env.skip_unless_sqlite("a full disk under the SQLite file") {
        return;
    }
    let dir = env.dir.path().to_path_buf();
    let db = env.db();
    let setup = format!("mount -t tmpfs -o size=600k keyhook-full {}", quote(&dir));
    let Some(ns) = Namespace::start("full_disk", &setup) else {
        return;
    };
    let first = ns.run(&db, &["--json", "keys", "create", "--name", "first"]);
    assert_eq!(first.code, 0, "{first:#?}");
    let key = first.json()["data"]["key"].as_str().unwrap().to_string();
    // Fill the filesystem, then leave 80k: room for the WAL index, a WAL and a few dozen keys.
    let filler = dir.join("filler");
    let fill = ns.sh(&format!(
        "dd if=/dev/zero of={f} bs=4k 2>/dev/null; truncate -s -80K {f}",
        f = quote(&filler)
    ));
    assert_eq!(fill.code, 0, "{fill:#?}");

    let (mut created, failed) = create_until_full(&ns, &db, "cli");
    assert!(!created.is_empty(), "not one key fit: {failed:#?}");
    failed.assert_error(1);
    assert!(
        failed.stderr.contains("database or disk is full"),
        "{failed:?}"
    );
    error_code(&failed.json(), "SERVICE_UNAVAILABLE");
    // Still full: the next write fails the same way, and reading still works. (The failed
    // process's exit can free a little: SQLite checkpoints and removes the WAL when its last
    // connection closes. The rest of the disk is taken first, so that this write meets a
    // disk that is full whatever the exit freed.)
    let rest = dir.join("rest");
    let fill = ns.sh(&format!(
        "cat /dev/zero > {} 2>/dev/null; true",
        quote(&rest)
    ));
    assert_eq!(fill.code, 0, "{fill:#?}");
    let again = ns.run(&db, &["keys", "create", "--name", "again"]);
    again.assert_error(1);
    // With no byte left SQLite may fail before the write, growing its shared-memory index
    // (an I/O error) rather than at it (full).
    assert!(
        again.stderr.contains("full") || again.stderr.contains("disk I/O error"),
        "{again:?}"
    );
    assert!(!again.stdout.contains("kp_"), "no key shown: {again:?}");
    let freed = ns.sh(&format!("rm {}", quote(&rest)));
    assert_eq!(freed.code, 0, "{freed:#?}");
    let list = ns.run(&db, &["--json", "keys", "list"]);
    assert_eq!(list.code, 0, "keys list on a full disk: {list:#?}");
    assert_eq!(
        list.json()["data"].as_array().map(Vec::len),
        Some(created.len() + 1)
    );
    eprintln!("{} keys fit before the disk was full", created.len());

    // Over HTTP, with a little room again.
    let fill = ns.sh(&format!("truncate -s -64K {}", quote(&filler)));
    assert_eq!(fill.code, 0, "{fill:#?}");
    let served = Served::start(ns.keyhook(&db, &["serve", "--bind", "127.0.0.1:0"]));
    let agent = agent();
    let keys_url = served.url("/api/v1/api-keys");
    let mut refused = None;
    for n in 0..2_000 {
        let body = json!({"name": format!("http-{n}")});
        let (status, v) = http(&agent, "POST", &keys_url, &key, Some(&body)).unwrap();
        if status != 201 {
            refused = Some((status, v));
            break;
        }
        let data = &v["data"];
        created.push((
            data["id"].as_str().unwrap().to_string(),
            data["key"].as_str().unwrap().to_string(),
        ));
    }
    let (status, v) = refused.expect("2000 keys fit on a tmpfs of 600k");
    assert_eq!(status, 503, "{v}");
    let message = error_code(&v, "SERVICE_UNAVAILABLE");
    assert!(message.contains("full"), "{message}");
    for _ in 0..3 {
        let (status, v) = http(&agent, "GET", &keys_url, &key, None).unwrap();
        assert_eq!(status, 200, "reads on a full disk: {v}");
        assert_eq!(v["data"].as_array().map(Vec::len), Some(created.len() + 1));
    }
    let (status, v) = http(&agent, "POST", &keys_url, &key, Some(&json!({"name": "x"}))).unwrap();
    assert_eq!(status, 503, "{v}");
    let log = served.stop();
    assert!(log.contains("POST /api/v1/api-keys 503"), "{log}");

    let copy = tempfile::tempdir().unwrap();
    let copied = copy.path().join("copy.db");
    ns.copy_db_out(&db, &copied);
    drop(ns);
    let c = open_db(&copied);
    assert_intact(&c);
    let stored = assert_keys_whole(common::sqlite_rows(&c, KEYS_AND_OWNERS));
    assert_keys_stored(&stored, &created);
    assert_eq!(stored.len(), created.len() + 1, "keys stored");
}

// ---------------------------------------------------------------------------------------------
// Concurrency and time

#[test]
fn eight_writer_processes_at_once_all_succeed() {
    let env = Env::new();
    let go = env.dir.path().join("go");
    // Every process says it is ready (a file named by its pid) and waits for the same file, so
    // that all start within a few milliseconds, on a database that does not exist yet.
    let ready = env.dir.path().join("ready");
    std::fs::create_dir(&ready).unwrap();
    let gate = format!(
        ": > {}/$$; while [ ! -e {} ]; do sleep 0.005; done; exec \"$0\" \"$@\"",
        quote(&ready),
        quote(&go)
    );
    let bin = assert_cmd::cargo::cargo_bin("keyhook");
    let spawn = |args: &[String]| {
        scrubbed(Command::new("sh"))
            .arg("-c")
            .arg(&gate)
            .arg(&bin)
            .arg("--db")
            .arg(env.db_arg())
            .arg("--json")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn sh")
    };
    let mut children = Vec::new();
    for i in 0..8 {
        let name = format!("writer-{i}");
        let key = ["keys", "create", "--name", &name].map(String::from);
        children.push(("key", spawn(&key)));
        let url = format!("http://127.0.0.1:9/hook-{i}");
        let user = format!("user-{i}");
        let hook = [
            "--allow-private-targets",
            "--user",
            &user,
            "webhooks",
            "create",
            "--url",
            &url,
            "--event",
            "post.published",
        ]
        .map(String::from);
        children.push(("webhook", spawn(&hook)));
    }
    assert!(!env.db_exists());
    let waiting = || std::fs::read_dir(&ready).unwrap().count();
    assert!(
        poll_until(PATIENCE, || waiting() == children.len()),
        "{} of {} processes at the gate",
        waiting(),
        children.len()
    );
    let started = Instant::now();
    std::fs::write(&go, b"").unwrap();
    let mut keys = HashSet::new();
    let mut hooks = HashSet::new();
    for (what, child) in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{what} create: {}: {stderr}",
            exit_status(out.status)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let id = v["data"]["id"].as_str().unwrap().to_string();
        if what == "key" {
            keys.insert(id);
        } else {
            hooks.insert(id);
        }
    }
    eprintln!("16 writers done in {:?}", started.elapsed());
    assert_eq!((keys.len(), hooks.len()), (8, 8));
    assert_intact_db(&env);
    let stored = assert_keys_whole(env.sql(KEYS_AND_OWNERS));
    assert_eq!(stored.keys().cloned().collect::<HashSet<_>>(), keys);
    let stored_hooks: HashSet<String> = env
        .sql("SELECT id FROM webhooks")
        .into_iter()
        .map(|mut r| r.remove(0))
        .collect();
    assert_eq!(stored_hooks, hooks);
    let owners = env.sql_i64("SELECT count(DISTINCT user_id) FROM webhooks");
    assert_eq!(owners, 8);
}

#[test]
fn a_key_expires_exactly_at_expires_at() {
    use keyhook::service::{keys, Actor};
    use keyhook::time::Timestamp;

    let env = Env::new();
    // The boundary, through the library on a SQLite store.
    if !env.skip_unless_sqlite("authenticate() on a SqliteStore the test opens") {
        let store = keyhook::sqlite::SqliteStore::open(&env.db()).unwrap();
        let now = Timestamp::now();
        let expires = Timestamp(now.millis() + 60_000);
        let input = keys::NewKey {
            name: keys::KeyName::new("boundary").ok(),
            expires_at: keys::Expiry::new(expires, now).ok(),
            ..Default::default()
        };
        let k = keys::create(
            &store,
            &Actor::operator("default").unwrap(),
            input,
            now,
            Publish::AfterCommit,
        )
        .unwrap();
        assert_eq!(k.expires_at, Some(expires));
        let token = k.key.clone().unwrap();
        let at = |ms: i64| keyhook::auth::authenticate(&store, &token, Timestamp(ms));
        let exp = expires.millis();
        for ms in [now.millis(), exp - 1_000, exp - 1] {
            let got = at(ms).unwrap_or_else(|e| panic!("at expiresAt{:+} ms: {e}", ms - exp));
            assert_eq!(got.id, k.id);
        }
        for ms in [exp, exp + 1, exp + 1_000, exp + 86_400_000] {
            match at(ms) {
                Err(e @ keyhook::Error::Expired) => {
                    assert_eq!(e.to_string(), "API key has expired");
                }
                other => panic!("at expiresAt{:+} ms: {other:?}", ms - exp),
            }
        }
        drop(store);
    }

    // End to end, on the binary's test clock: `keys verify` accepts the key until its
    // expiresAt and refuses it from then on.
    let env = Env::with_clock();
    let data = env.create_key("e2e", &["--expires-in", "2s"]);
    let exp = common::millis(data["expiresAt"].as_str().unwrap());
    assert_eq!(exp, env.clock_ms() + 2_000);
    let token = data["key"].as_str().unwrap();
    for at in [exp - 2_000, exp - 1_000, exp - 1] {
        env.set_clock(at);
        let r = env.verify(token, &["--json"]);
        assert_eq!(r.code, 0, "at expiresAt{:+} ms: {r:#?}", at - exp);
    }
    for at in [exp, exp + 1, exp + 1_000] {
        env.set_clock(at);
        let r = env.verify(token, &["--json"]);
        r.assert_error(4);
        let message = error_code(&r.json(), "API_KEY_EXPIRED");
        assert_eq!(
            message,
            "API key has expired",
            "at expiresAt{:+} ms",
            at - exp
        );
    }
}
