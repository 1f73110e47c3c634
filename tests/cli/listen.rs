//! `keyhook listen` and `webhooks deliveries --follow` (CONTRACT §11): the listener's
//! ephemeral webhook, delivered by it alone, forwarded to a loopback receiver with valid
//! Standard Webhooks signatures (checked by the `standardwebhooks` crate), retried, removed
//! when the listener stops or stops beating.

use std::io::{BufRead, BufReader};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::Value;

use crate::common::{attempts, emit, id_of, poll, poll_until, std_cmd, Env, TEST_CLOCK_FILE};
use crate::receiver::verifies;
use crate::receiver::Receiver;
use crate::server::{Server, PATIENCE};

/// A running `keyhook listen` (or another long-running command): its stdout lines and stderr
/// collected as they come.
struct Running {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<String>>,
}

/// A running `keyhook listen`, with the webhook id and secret it printed on stderr.
struct Listener {
    run: Running,
    id: String,
    secret: String,
}

fn collect(r: impl std::io::Read + Send + 'static, into: impl Fn(String) + Send + 'static) {
    thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            into(line);
        }
    });
}

impl Running {
    /// `keyhook --db <env's> ARGS` on the env's clock, stdout and stderr collected.
    fn start(env: &Env, args: &[&str]) -> Running {
        Running::spawn(env, args, true)
    }

    /// As [`Running::start`]; without `collect_stdout`, stdout's pipe is left in `child`.
    fn spawn(env: &Env, args: &[&str], collect_stdout: bool) -> Running {
        let mut cmd = std_cmd();
        cmd.arg("--db").arg(env.db_arg());
        if let Some(file) = env.clock_file() {
            cmd.env(TEST_CLOCK_FILE, file);
        }
        let mut child = cmd
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn keyhook");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(String::new()));
        if collect_stdout {
            let l = Arc::clone(&lines);
            collect(child.stdout.take().unwrap(), move |line| {
                l.lock().unwrap().push(line)
            });
        }
        let e = Arc::clone(&stderr);
        collect(child.stderr.take().unwrap(), move |line| {
            let mut e = e.lock().unwrap();
            e.push_str(&line);
            e.push('\n');
        });
        Running {
            child,
            lines,
            stderr,
        }
    }

    /// Waits until at least `n` lines are on stdout; returns them all.
    fn wait_lines(&self, n: usize) -> Vec<String> {
        let ok = poll_until(PATIENCE, || self.lines.lock().unwrap().len() >= n);
        let lines = self.lines.lock().unwrap().clone();
        assert!(
            ok,
            "expected {n} lines, got {lines:#?}\nstderr: {}",
            self.stderr()
        );
        lines
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn signal(&self, signal: &str) {
        let sent = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("run kill");
        assert!(sent.success());
    }

    /// Waits for the process to exit.
    fn wait(&mut self) -> ExitStatus {
        let status = poll(PATIENCE, || self.child.try_wait().unwrap());
        status.unwrap_or_else(|| panic!("did not exit; stderr: {}", self.stderr()))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Listener {
    /// `keyhook listen ARGS` (private targets not allowed: the listener allows its own).
    fn start(env: &Env, args: &[&str]) -> Listener {
        Listener::spawn(env, args, true)
    }

    fn spawn(env: &Env, args: &[&str], collect_stdout: bool) -> Listener {
        let run = Running::spawn(env, &[&["listen"], args].concat(), collect_stdout);
        let found = poll(PATIENCE, || {
            let err = run.stderr();
            let field = |name: &str| {
                err.lines()
                    .find_map(|l| l.strip_prefix(name).map(str::to_string))
            };
            Some((field("webhook ")?, field("secret ")?))
        });
        let Some((id, secret)) = found else {
            panic!("listen printed no webhook and secret: {}", run.stderr());
        };
        assert!(secret.starts_with("whsec_"), "{secret}");
        // The id and secret are printed before the webhook's commit (a secret that cannot be
        // shown makes no webhook): the listener is ready once the webhook is there. A test
        // that went on at once could emit an event before it, or kill the listener before
        // its commit (`killed` then found no webhook left behind).
        assert!(
            poll_until(PATIENCE, || webhook_count(env, &id) == 1),
            "listen printed webhook {id} but never committed it: {}",
            run.stderr()
        );
        Listener { run, id, secret }
    }

    /// A listener started, then killed with SIGKILL: its webhook is left behind.
    fn killed(env: &Env) -> Listener {
        let mut l = Listener::start(env, &[]);
        l.run.signal("KILL");
        l.run.wait();
        l
    }

    fn json_lines(&self, n: usize) -> Vec<Value> {
        self.run
            .wait_lines(n)
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }
}

fn webhook_count(env: &Env, id: &str) -> i64 {
    env.sql_i64(&format!("SELECT count(*) FROM webhooks WHERE id = '{id}'"))
}

/// Deliveries arrive at `{event}`'s path with the headers and body a receiver verifies with
/// the secret printed on stderr (an independent verifier), and the `--json` lines say what
/// the attempts were, as `webhooks deliveries` records them.
#[test]
fn forwarded_deliveries_are_signed_and_go_to_the_events_path() {
    let env = Env::new();
    let rx = Receiver::start();
    let l = Listener::start(
        &env,
        &[
            "--json",
            "--forward-to",
            &format!("{}/{{event}}", rx.url("/ok")),
            "--event",
            "post.published",
            "--event",
            "post.deleted",
        ],
    );
    let first = id_of(&emit(&env, &["post.published", "--data", r#"{"n":1}"#]));
    let second = id_of(&emit(&env, &["post.deleted", "--profile", "p1"]));
    let got = rx.wait_for(2, PATIENCE);
    let mut by_event: Vec<(String, String)> = got
        .iter()
        .map(|r| {
            (
                r.json()["id"].as_str().unwrap().to_string(),
                r.path().to_string(),
            )
        })
        .collect();
    by_event.sort();
    let mut want = vec![
        (first.clone(), "/ok/post.published".to_string()),
        (second.clone(), "/ok/post.deleted".to_string()),
    ];
    want.sort();
    assert_eq!(by_event, want);
    for r in &got {
        assert!(verifies(&l.secret, r), "{r:?}");
        assert_eq!(r.header("webhook-id"), r.json()["id"].as_str().unwrap());
    }
    let lines = l.json_lines(2);
    let mut recorded = attempts(&env, &l.id);
    recorded.reverse();
    assert_eq!(recorded.len(), 2, "{recorded:#?}");
    for line in &lines {
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            [
                "at",
                "durationMs",
                "error",
                "event",
                "eventId",
                "headers",
                "payload",
                "profileId",
                "status"
            ]
        );
        let a = recorded
            .iter()
            .find(|a| a["eventId"] == line["eventId"])
            .unwrap_or_else(|| panic!("no attempt for {line}"));
        assert_eq!(line["event"], a["event"]);
        assert_eq!(line["profileId"], a["profileId"]);
        assert_eq!(line["status"], a["statusCode"]);
        assert_eq!(line["durationMs"], a["durationMs"]);
        assert_eq!(line["error"], Value::Null);
        assert_eq!(line["payload"]["id"], line["eventId"]);
        let sent = got
            .iter()
            .find(|r| r.header("webhook-id") == line["eventId"].as_str().unwrap())
            .unwrap();
        assert_eq!(line["payload"], sent.json());
        for h in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            assert_eq!(line["headers"][h], sent.header(h), "{h}");
        }
    }
    let p1 = lines
        .iter()
        .find(|l| l["eventId"] == second.as_str())
        .unwrap();
    assert_eq!(p1["profileId"], "p1");
}

/// A 500 from the target is the delivery's answer: retried on the normal schedule (5 s on the
/// test clock), one line per attempt; a 410 disables the webhook; `webhooks replay` resends.
#[test]
fn the_targets_answer_is_the_deliverys_answer() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    rx.set_status(500);
    let l = Listener::start(&env, &["--forward-to", &rx.url("/switch")]);
    let event = id_of(&emit(&env, &["post.published"]));
    rx.wait_for(1, PATIENCE);
    let lines = l.run.wait_lines(1);
    assert!(lines[0].contains(&event), "{lines:?}");
    assert!(lines[0].contains("500 Internal Server Error"), "{lines:?}");
    rx.set_status(200);
    env.advance_clock(4_000);
    emit(&env, &["profile.created"]);
    rx.wait_for(2, PATIENCE);
    l.run.wait_lines(2);
    assert_eq!(rx.requests_to("/switch").len(), 2, "not retried before 5 s");
    env.advance_clock(2_000);
    let got = rx.wait_for(3, PATIENCE);
    assert_eq!(got[2].json()["id"], event.as_str(), "the retry");
    let lines = l.run.wait_lines(3);
    assert!(
        lines[2].contains(&event) && lines[2].contains("200 OK"),
        "{lines:?}"
    );
    let mut recorded = attempts(&env, &l.id);
    recorded.reverse();
    let of_event: Vec<(i64, u64)> = recorded
        .iter()
        .filter(|a| a["eventId"] == event.as_str())
        .map(|a| {
            (
                a["attempt"].as_i64().unwrap(),
                a["statusCode"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(of_event, [(1, 500), (2, 200)]);

    // Replay sends it again, through the listener.
    let (code, v) = env.json(&["webhooks", "replay", &l.id, "--event", &event]);
    assert_eq!((code, &v["data"]["queued"]), (0, &Value::from(1)), "{v}");
    let got = rx.wait_for(4, PATIENCE);
    assert_eq!(got[3].json()["id"], event.as_str());
    l.run.wait_lines(4);

    // 410 Gone disables it, as any webhook.
    rx.set_status(410);
    emit(&env, &["post.published"]);
    rx.wait_for(5, PATIENCE);
    let active = poll(PATIENCE, || {
        let (_, v) = env.json(&["webhooks", "show", &l.id]);
        (v["data"]["isActive"] == false).then_some(())
    });
    assert!(active.is_some(), "a 410 disables the listener's webhook");
}

/// `serve` and `deliver` never send an ephemeral webhook's deliveries (two `serve` processes
/// on PostgreSQL): while the listener is stopped (SIGSTOP) they deliver every other webhook's
/// and leave its deliveries untouched; once it goes on (SIGCONT), it sends them itself.
#[test]
fn serve_and_deliver_never_send_an_ephemeral_webhooks_deliveries() {
    let env = Env::new();
    let rx = Receiver::start();
    let normal = env.create_webhook(&rx.url("/ok?normal"), "post.published");
    let l = Listener::start(&env, &["--forward-to", &rx.url("/ok?listen")]);
    l.run.signal("STOP");
    let servers: Vec<Server> = (0..if env.is_sqlite() { 1 } else { 2 })
        .map(|_| Server::start_with(&env, &["--allow-private-targets"]))
        .collect();
    for _ in 0..5 {
        emit(&env, &["post.published"]);
    }
    rx.wait_for(5, PATIENCE);
    env.deliver_once();
    // Every normal delivery is done: what the servers would have claimed, they have.
    let done = poll_until(PATIENCE, || {
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE webhook_id = '{}' AND state = 'delivered'",
            normal["id"].as_str().unwrap()
        )) == 5
    });
    assert!(done);
    env.deliver_once();
    assert_eq!(rx.requests_to("/ok?listen").len(), 0);
    assert_eq!(
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE webhook_id = '{}' AND state = 'pending' \
             AND attempts = 0 AND lease_until IS NULL",
            l.id
        )),
        5
    );
    l.run.signal("CONT");
    rx.wait_for(10, PATIENCE);
    assert_eq!(rx.requests_to("/ok?listen").len(), 5);
    assert_eq!(rx.requests_to("/ok?normal").len(), 5);
    l.run.wait_lines(5);
    drop(servers);
}

/// SIGTERM and SIGINT stop the listener (exit 0) and delete its webhook, which until then is
/// listed with `ephemeral: true` (others `false`) and marked in the table.
#[test]
fn a_stopped_listener_deletes_its_webhook() {
    let env = Env::new();
    let rx = Receiver::start();
    env.create_webhook(&rx.url("/ok"), "post.published");
    for signal in ["TERM", "INT"] {
        let mut l = Listener::start(&env, &[]);
        let (code, v) = env.json(&["webhooks", "list"]);
        assert_eq!(code, 0);
        let flags: Vec<(bool, bool)> = v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| (w["id"] == l.id.as_str(), w["ephemeral"].as_bool().unwrap()))
            .collect();
        assert_eq!(flags, [(false, false), (true, true)], "{v}");
        let table = env.run(&["webhooks", "list"]).stdout;
        assert!(table.contains("(listen) http://127.0.0.1:"), "{table}");
        // Its URL is the listener's: no other may be set (the listener sends unguarded).
        let moved = env.run(&[
            "webhooks",
            "update",
            &l.id,
            "--url",
            "https://example.com/x",
        ]);
        assert_eq!(moved.code, 2, "{moved:#?}");
        assert!(moved
            .stderr
            .contains("--url: an ephemeral webhook's URL is its listener's"));
        let (_, v) = env.json(&["webhooks", "update", &l.id, "--event", "post.deleted"]);
        assert_eq!(
            v["data"]["events"],
            serde_json::json!(["post.deleted"]),
            "{v}"
        );
        let (_, v) = env.json(&["webhooks", "update", &l.id, "--event", "post.published"]);
        assert_eq!(v["data"]["ephemeral"], true, "{v}");
        // Its own receiver checks the signatures.
        emit(&env, &["post.published"]);
        let lines = l.run.wait_lines(1);
        assert!(
            lines[0].contains("200 OK") && lines[0].ends_with("signature verified"),
            "{lines:?}"
        );
        l.run.signal(signal);
        assert!(l.run.wait().success(), "{signal}: {}", l.run.stderr());
        assert_eq!(webhook_count(&env, &l.id), 0, "{signal}");
        assert!(l
            .run
            .stderr()
            .contains(&format!("Deleted webhook {}.", l.id)));
    }
}

/// A listener whose standard output is closed (its reader gone) stops and deletes its
/// webhook, without anything to print.
#[test]
fn a_listener_whose_stdout_closes_stops() {
    let env = Env::new();
    let mut l = Listener::spawn(&env, &[], false);
    assert_eq!(webhook_count(&env, &l.id), 1);
    drop(l.run.child.stdout.take());
    assert!(l.run.wait().success(), "{}", l.run.stderr());
    assert_eq!(webhook_count(&env, &l.id), 0);
}

/// SIGKILL leaves the webhook; a worker removes it, with its pending deliveries, once the
/// test clock is past 60 s after its last heartbeat (not at 60 s), and says so in the audit
/// log.
#[test]
fn a_killed_listeners_webhook_is_removed_a_minute_after_its_last_heartbeat() {
    let env = Env::with_clock();
    let l = Listener::killed(&env);
    emit(&env, &["post.published"]);
    env.advance_clock(60_000);
    env.deliver_once();
    assert_eq!(
        webhook_count(&env, &l.id),
        1,
        "a heartbeat 60 s old is alive"
    );
    assert_eq!(
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE webhook_id = '{}' AND state = 'pending'",
            l.id
        )),
        1,
        "not sent by deliver"
    );
    env.advance_clock(1);
    env.deliver_once();
    assert_eq!(webhook_count(&env, &l.id), 0);
    assert_eq!(
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE webhook_id = '{}'",
            l.id
        )),
        0
    );
    let (_, v) = env.json(&["audit"]);
    let removed = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["target"] == l.id.as_str() && e["action"] == "webhook.deleted")
        .cloned()
        .unwrap_or_else(|| panic!("no webhook.deleted entry: {v}"));
    assert_eq!(
        (removed["actor"].as_str(), removed["via"].as_str()),
        (Some("system"), Some("worker"))
    );
}

/// A running `serve` removes it too, on the same clock.
#[test]
fn serve_removes_a_stale_listener() {
    let env = Env::with_clock();
    let l = Listener::killed(&env);
    let _server = Server::start(&env);
    env.advance_clock(61_000);
    assert!(poll_until(PATIENCE, || webhook_count(&env, &l.id) == 0));
}

/// At the ten-webhook limit `listen` fails as `webhooks create` does: the same 409 message
/// and exit status; a `--filter` that does not parse is refused on its flag (exit 2).
#[test]
fn listen_at_the_webhook_limit_is_refused_like_create() {
    let env = Env::new();
    for i in 0..10 {
        env.create_webhook(&format!("http://127.0.0.1:9/{i}"), "post.published");
    }
    let create = env.run(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        "http://127.0.0.1:9/x",
        "--event",
        "post.published",
    ]);
    let listen = env.run(&["listen"]);
    assert_ne!(create.code, 0);
    assert_eq!(listen.code, create.code, "{listen:#?}");
    assert!(
        create.stderr.contains("webhook limit reached"),
        "{create:#?}"
    );
    assert_eq!(listen.stderr, create.stderr);
    let (code, v) = env.json(&["listen"]);
    assert_eq!(code, create.code);
    assert_eq!(v["error"]["code"], "WEBHOOK_LIMIT_REACHED", "{v}");
    assert_eq!(env.sql_i64("SELECT count(*) FROM webhooks"), 10);

    // A filter that is no CEL is named by its flag, before the limit is looked at.
    let filter = env.run(&["listen", "--filter", "data.n >"]);
    assert_eq!(filter.code, 2, "{filter:#?}");
    assert!(
        filter
            .stderr
            .starts_with("keyhook: --filter: is not a valid CEL expression"),
        "{filter:#?}"
    );
    // A --forward-to that is no URL is named by its flag.
    let bad = env.run(&["listen", "--forward-to", "localhost:3000/{event}"]);
    assert_eq!(bad.code, 2, "{bad:#?}");
    assert!(
        bad.stderr.starts_with("keyhook: --forward-to: "),
        "{bad:#?}"
    );
    assert_eq!(env.sql_i64("SELECT count(*) FROM webhooks"), 10);
}

/// `webhooks deliveries ID --follow` prints the attempts so far, then each new one as it is
/// recorded (one JSON object per line), and exits 0 on SIGINT.
#[test]
fn follow_streams_new_attempts_until_sigint() {
    let env = Env::new();
    let rx = Receiver::start();
    let w = env.create_webhook(&rx.url("/ok"), "post.published");
    let id = w["id"].as_str().unwrap();
    let before = id_of(&emit(&env, &["post.published"]));
    env.deliver_once();
    let mut f = Running::start(&env, &["--json", "webhooks", "deliveries", id, "--follow"]);
    let lines = f.wait_lines(1);
    let first: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(first["eventId"], before.as_str());
    let after = id_of(&emit(&env, &["post.published"]));
    env.deliver_once();
    let lines = f.wait_lines(2);
    let second: Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(second["eventId"], after.as_str());
    assert_eq!(second["delivered"], true);
    assert!(second["id"].as_i64() > first["id"].as_i64());
    f.signal("INT");
    assert_eq!(f.wait().code(), Some(0), "{}", f.stderr());
    assert_eq!(f.lines.lock().unwrap().len(), 2, "each attempt once");
}

/// `--follow` shows a skip too: an event the webhook's filter could not judge (here a stored
/// filter that no longer compiles) is a line saying `skipped` and the filter's error.
#[test]
fn follow_shows_an_event_skipped_for_a_filter_error() {
    let env = Env::new();
    let w = env.create_webhook_with(
        "http://127.0.0.1:9/a",
        "post.published",
        &["--filter", "true"],
    );
    let id = w["id"].as_str().unwrap();
    env.sql(&format!(
        "UPDATE webhooks SET filter = 'data.n ==' WHERE id = '{id}'"
    ));
    let mut f = Running::start(&env, &["webhooks", "deliveries", id, "--follow"]);
    let skipped = id_of(&emit(&env, &["post.published"]));
    let lines = f.wait_lines(1);
    assert!(lines[0].contains(&skipped), "{lines:?}");
    assert!(
        lines[0].contains("skipped  filter error: the stored filter no longer compiles"),
        "{lines:?}"
    );
    f.signal("INT");
    assert_eq!(f.wait().code(), Some(0), "{}", f.stderr());
}

/// A listener whose webhook is deleted under it (by hand here; by a worker after a pause
/// longer than a minute) stops at its next heartbeat, with exit 3.
#[test]
fn a_listener_whose_webhook_is_deleted_stops_with_exit_3() {
    let env = Env::with_clock();
    let mut l = Listener::start(&env, &[]);
    let r = env.run(&["webhooks", "delete", &l.id, "--yes"]);
    assert_eq!(r.code, 0, "{r:#?}");
    // The next heartbeat is due 10 s on.
    env.advance_clock(10_000);
    assert_eq!(l.run.wait().code(), Some(3), "{}", l.run.stderr());
    assert!(
        l.run.stderr().contains("was deleted while listening"),
        "{}",
        l.run.stderr()
    );
}

/// `--filter` is the listener's webhook's filter: only the events it admits are queued for it
/// (and so forwarded). Without `--event` the listener subscribes to the catalog as it is when
/// it starts: a type the operator added, keyhook's operational ones, not a deprecated one.
#[test]
fn a_listeners_filter_and_default_events_come_from_the_webhook_rules() {
    let env = Env::new();
    for args in [
        &["event-types", "add", "post.updated"][..],
        &["event-types", "add", "post.drafted"],
        &["event-types", "deprecate", "post.drafted"],
    ] {
        let r = env.run(args);
        assert_eq!(r.code, 0, "{r:#?}");
    }
    let rx = Receiver::start();
    let l = Listener::start(
        &env,
        &["--forward-to", &rx.url("/in"), "--filter", "data.n > 1"],
    );
    let (code, w) = env.json(&["webhooks", "show", &l.id]);
    assert_eq!(code, 0, "{w}");
    assert_eq!(w["data"]["filter"], "data.n > 1", "{w}");
    let events: Vec<&str> = w["data"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    for name in [
        "post.updated",
        "post.published",
        "webhook.disabled",
        "delivery.exhausted",
    ] {
        assert!(events.contains(&name), "{name}: {events:?}");
    }
    assert!(!events.contains(&"post.drafted"), "{events:?}");

    let (code, refused) = env.json(&["events", "emit", "post.updated", "--data", r#"{"n":1}"#]);
    assert_eq!(code, 0, "{refused}");
    assert_eq!(refused["data"]["deliveries"], 0, "{refused}");
    let admitted = id_of(&emit(&env, &["post.updated", "--data", r#"{"n":2}"#]));
    let got = rx.wait_for(1, PATIENCE);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].json()["id"], admitted.as_str());
    assert_eq!(got[0].json()["event"], "post.updated");
}
