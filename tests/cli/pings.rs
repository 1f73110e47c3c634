//! Test pings in `serve` (POST /webhooks/{id}/test): no database connection is held while a
//! ping waits for its endpoint, so pings to an endpoint that never answers cannot starve
//! other users; each user may have at most 4 running at once (429 `RATE_LIMITED` beyond);
//! the attempt is still logged and counted. The endpoints are loopback sockets that accept
//! and never answer, or closed loopback ports.

use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::json;

use crate::common::{str_of, Env};
use crate::server::{Resp, Server, PATIENCE};

/// The per-user bound on test pings running at once, as documented.
const PINGS_PER_USER: usize = 4;

/// A webhook endpoint that accepts every connection and never answers, until
/// [`Silent::release`] closes what it holds.
struct Silent {
    port: u16,
    held: Arc<Mutex<Vec<TcpStream>>>,
    accepted: Arc<AtomicUsize>,
}

impl Silent {
    fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the silent endpoint");
        let port = listener.local_addr().unwrap().port();
        let held = Arc::new(Mutex::new(Vec::new()));
        let accepted = Arc::new(AtomicUsize::new(0));
        let (h, a) = (Arc::clone(&held), Arc::clone(&accepted));
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                h.lock().unwrap().push(stream);
                a.fetch_add(1, Ordering::SeqCst);
            }
        });
        Silent {
            port,
            held,
            accepted,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook", self.port)
    }

    /// Waits until `n` connections have been accepted in all; fails the test after
    /// [`PATIENCE`].
    fn wait_for_connections(&self, n: usize) {
        assert!(
            crate::common::poll_until(PATIENCE, || self.accepted.load(Ordering::SeqCst) >= n),
            "expected {n} connections at the silent endpoint, got {}",
            self.accepted.load(Ordering::SeqCst)
        );
    }

    /// Closes every connection held so far: the pings waiting on them end at once.
    fn release(&self) {
        for s in self.held.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

/// A user with a readwrite key; returns the key.
fn user(env: &Env, name: &str) -> String {
    str_of(&env.create_key(name, &["--user", name]), "key").to_string()
}

/// Creates a webhook for `url` with `key`; returns its id.
fn webhook(server: &Server, key: &str, url: &str) -> String {
    let r = server.post_json(
        "/api/v1/webhooks",
        key,
        &json!({"url": url, "events": ["post.published"]}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    str_of(&r.data(), "id").to_string()
}

fn ping(server: &Server, key: &str, id: &str) -> Resp {
    server.call("POST", &format!("/api/v1/webhooks/{id}/test"), Some(key))
}

/// `serve --threads 2`, deliveries allowed to loopback, and a delivery timeout far beyond
/// the test's patience: a ping to the silent endpoint ends only when the test releases it.
fn serve(env: &Env) -> Server {
    Server::start_with(
        env,
        &[
            "--threads",
            "2",
            "--allow-private-targets",
            "--delivery-timeout",
            "5m",
        ],
    )
}

#[test]
fn hanging_pings_do_not_hold_database_connections_from_other_users() {
    let env = Env::new();
    let silent = Silent::start();
    let server = serve(&env);
    // Four hanging pings, twice the server's two database connections, from two users
    // (each under the per-user bound).
    let pingers: Vec<(String, String)> = ["alice", "bob"]
        .iter()
        .map(|name| {
            let key = user(&env, name);
            let id = webhook(&server, &key, &silent.url());
            (key, id)
        })
        .collect();
    let carol = user(&env, "carol");
    let finished = AtomicUsize::new(0);
    thread::scope(|s| {
        let pings: Vec<_> = pingers
            .iter()
            .flat_map(|p| [p, p])
            .map(|(key, id)| {
                let (server, finished) = (&server, &finished);
                s.spawn(move || {
                    let r = ping(server, key, id);
                    finished.fetch_add(1, Ordering::SeqCst);
                    r
                })
            })
            .collect();
        // Every ping has reached the endpoint and waits for an answer that does not come.
        silent.wait_for_connections(4);
        let listed = server.get("/api/v1/api-keys", &carol);
        assert_eq!(listed.status, 200, "{listed:?}");
        assert_eq!(listed.data().as_array().unwrap().len(), 1);
        let webhooks = server.get("/api/v1/webhooks", &carol);
        assert_eq!(webhooks.status, 200, "{webhooks:?}");
        assert_eq!(
            finished.load(Ordering::SeqCst),
            0,
            "the other user's requests were answered only after a hanging ping had ended"
        );
        silent.release();
        for p in pings {
            let r = p.join().unwrap();
            assert_eq!(r.status, 200, "{r:?}");
            assert_eq!(r.data()["delivered"], false);
        }
    });
    // Each ping was logged and counted once it ended.
    for (key, id) in &pingers {
        let w = server.get(&format!("/api/v1/webhooks/{id}"), key);
        assert_eq!(w.data()["failCount"], 2, "{w:?}");
    }
}

#[test]
fn a_user_has_at_most_four_pings_running_and_their_slots_come_back() {
    let env = Env::new();
    let silent = Silent::start();
    let server = serve(&env);
    let alice = user(&env, "alice");
    let bob = user(&env, "bob");
    let hook = webhook(&server, &alice, &silent.url());
    let bobs = webhook(&server, &bob, &silent.url());
    thread::scope(|s| {
        let running: Vec<_> = (0..PINGS_PER_USER)
            .map(|_| s.spawn(|| ping(&server, &alice, &hook)))
            .collect();
        silent.wait_for_connections(PINGS_PER_USER);
        // One more of alice's, on any of her webhooks: refused at once, in the envelope.
        for _ in 0..2 {
            let over = ping(&server, &alice, &hook);
            assert_eq!(over.status, 429, "{over:?}");
            assert_eq!(over.header("Retry-After"), Some("1"), "{over:?}");
            let e = &over.json()["error"];
            assert_eq!(e["code"], "RATE_LIMITED", "{over:?}");
            assert_eq!(e["details"], json!([]));
            let message = e["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("at most {PINGS_PER_USER}")),
                "{message}"
            );
        }
        // Another user is not limited by alice's pings.
        let bobs_ping = s.spawn(|| ping(&server, &bob, &bobs));
        silent.wait_for_connections(PINGS_PER_USER + 1);
        silent.release();
        for p in running.into_iter().chain([bobs_ping]) {
            let r = p.join().unwrap();
            assert_eq!(r.status, 200, "{r:?}");
        }
    });
    // Every slot came back: alice can have four running again.
    thread::scope(|s| {
        let again: Vec<_> = (0..PINGS_PER_USER)
            .map(|_| s.spawn(|| ping(&server, &alice, &hook)))
            .collect();
        silent.wait_for_connections(2 * PINGS_PER_USER + 1);
        silent.release();
        for p in again {
            let r = p.join().unwrap();
            assert_eq!(r.status, 200, "{r:?}");
        }
    });
    // The refused pings were not sent and not logged: 4 + 4 attempts.
    let log = server.get(&format!("/api/v1/webhooks/{hook}/deliveries"), &alice);
    assert_eq!(log.data().as_array().unwrap().len(), 2 * PINGS_PER_USER);
    // The limit is in the OpenAPI document.
    let doc = server.call("GET", "/api/v1/openapi.json", None).json();
    let documented = &doc["paths"]["/webhooks/{id}/test"]["post"]["responses"]["429"];
    assert_eq!(documented["$ref"], "#/components/responses/RateLimited");
    let described = doc["components"]["responses"]["RateLimited"]["description"]
        .as_str()
        .unwrap();
    assert!(described.contains("RATE_LIMITED"), "{described}");
}

#[test]
fn a_ping_is_still_logged_and_counted_toward_fail_count() {
    let env = Env::new();
    let server = serve(&env);
    let key = user(&env, "alice");
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let id = webhook(&server, &key, &format!("http://{closed}/hook"));
    for n in 1..=2 {
        let r = ping(&server, &key, &id);
        assert_eq!(r.status, 200, "{r:?}");
        let result = r.data();
        assert_eq!(result["delivered"], false);
        assert_eq!(result["statusCode"], 0);
        let w = server.get(&format!("/api/v1/webhooks/{id}"), &key);
        assert_eq!(w.data()["failCount"], n, "{w:?}");
    }
    let log = server
        .get(&format!("/api/v1/webhooks/{id}/deliveries"), &key)
        .data();
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 2);
    for a in log {
        assert_eq!(a["event"], "webhook.test");
        assert_eq!(a["delivered"], false);
    }
}

#[test]
fn a_webhook_deleted_while_its_ping_waits_gets_the_result_not_an_error() {
    let env = Env::new();
    let silent = Silent::start();
    let server = serve(&env);
    let key = user(&env, "alice");
    let id = webhook(&server, &key, &silent.url());
    thread::scope(|s| {
        let pinging = s.spawn(|| ping(&server, &key, &id));
        silent.wait_for_connections(1);
        let deleted = server.delete(&format!("/api/v1/webhooks/{id}"), &key);
        assert_eq!(deleted.status, 204, "{deleted:?}");
        silent.release();
        let r = pinging.join().unwrap();
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(r.data()["delivered"], false);
    });
    let gone = server.get(&format!("/api/v1/webhooks/{id}"), &key);
    assert_eq!(gone.status, 404);
    assert!(!server.log().contains("internal error"), "{}", server.log());
}
