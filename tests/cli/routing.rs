//! Who receives an event (`service::routing`), as the operator sees it: a filter that cannot
//! judge an event skips its webhook with a trace (CONTRACT §10.1), and a database from before
//! the stricter rules keeps its filters and schemas, `serve` naming each one they refuse.
//! Every test runs on SQLite and again on PostgreSQL (tests/cli/backends.rs).

use serde_json::{json, Value};

use crate::common::{poll, str_of, Env};
use crate::server::{Server, PATIENCE};

/// A filter no version of the rules compiles, written straight into the database as an older
/// keyhook might have left one.
const STALE: &str = "data.n ==";

/// Stores `filter` on webhook `id`, past the checks of `webhooks update`.
fn store_filter(env: &Env, id: &str, filter: &str) {
    env.sql(&format!(
        "UPDATE webhooks SET filter = '{}' WHERE id = '{id}'",
        filter.replace('\'', "''")
    ));
}

/// `keyhook_filter_errors_total` on /metrics.
pub fn filter_errors(server: &Server) -> u64 {
    let body = server.call("GET", "/metrics", None).body;
    body.lines()
        .find_map(|l| l.strip_prefix("keyhook_filter_errors_total "))
        .unwrap_or_else(|| panic!("no keyhook_filter_errors_total in {body}"))
        .trim()
        .parse()
        .unwrap()
}

/// An event its webhook's filter cannot judge (a stored filter that no longer compiles) is
/// skipped for that webhook only, and the skip is where the operator looks: an entry of
/// `webhooks deliveries` (table and `--json`) and of GET /webhooks/{id}/deliveries with
/// `skipped` set to the kind of error, `keyhook_filter_errors_total`, and a `keyhook::filter`
/// line naming the webhook and the event (never the data). Nothing is queued for it, so
/// nothing is pending or sent; the other webhook gets the event.
#[test]
fn a_filter_that_cannot_judge_an_event_skips_it_with_a_trace() {
    let env = Env::new();
    let url = "http://127.0.0.1:9/a";
    let broken = env.create_webhook_with(url, "post.published", &["--filter", "true"]);
    let broken = str_of(&broken, "id").to_string();
    let plain = env.create_webhook(url, "post.published");
    let plain = str_of(&plain, "id").to_string();
    store_filter(&env, &broken, STALE);
    let key = env.create_key("admin", &[])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let server = Server::start(&env);
    assert_eq!(filter_errors(&server), 0);

    let secret_value = "private-value-7f3a";
    let r = server.post_json(
        "/api/v1/events",
        &key,
        &json!({"event": "post.published", "data": {"n": secret_value}}),
    );
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(
        r.data()["deliveries"],
        1,
        "only the webhook without a filter"
    );
    let event_id = r.data()["id"].as_str().unwrap().to_string();

    // Nothing queued for the skipped webhook: nothing pending, nothing to send.
    let queued = |id: &str| {
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE webhook_id = '{id}'"
        ))
    };
    assert_eq!((queued(&broken), queued(&plain)), (0, 1));
    let pending = env.sql_i64(&format!(
        "SELECT count(*) FROM deliveries WHERE webhook_id = '{broken}' AND state = 'pending'"
    ));
    assert_eq!(pending, 0);

    // The metric.
    assert_eq!(filter_errors(&server), 1);

    // The deliveries list over HTTP: one entry, the skip.
    let list = server
        .get(&format!("/api/v1/webhooks/{broken}/deliveries"), &key)
        .data();
    let list = list.as_array().expect("a list");
    assert_eq!(list.len(), 1, "{list:?}");
    let skip = &list[0];
    assert_eq!(skip["eventId"], event_id.as_str());
    assert_eq!(skip["event"], "post.published");
    assert_eq!(skip["skipped"], "the stored filter no longer compiles");
    assert_eq!(
        (&skip["attempt"], &skip["delivered"], &skip["deliveryId"]),
        (&json!(0), &json!(false), &Value::Null)
    );
    // An attempt (if the worker has made one yet) says it is no skip.
    let other = server
        .get(&format!("/api/v1/webhooks/{plain}/deliveries"), &key)
        .data();
    for a in other.as_array().unwrap() {
        assert_eq!(a["skipped"], Value::Null, "{a}");
    }

    // The same on the command line, as a table and in JSON.
    let r = env.run(&["webhooks", "deliveries", &broken]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stdout.contains("skipped"), "{}", r.stdout);
    assert!(r.stdout.contains("filter error"), "{}", r.stdout);
    let (code, v) = env.json(&["webhooks", "deliveries", &broken]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v["data"][0]["skipped"],
        "the stored filter no longer compiles"
    );
    // A skip is no attempt: the history line (drawn once a webhook has attempts) has none.
    let r = env.run(&["webhooks", "show", &broken]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(!r.stdout.contains("history"), "{}", r.stdout);

    // The worker's log line (here the request's: the fan-out runs in it), naming the
    // webhook and the event, without the data.
    let line = poll(PATIENCE, || {
        server
            .log()
            .lines()
            .find(|l| l.starts_with("keyhook: filter error: "))
            .map(String::from)
    })
    .unwrap_or_else(|| panic!("no filter line in:\n{}", server.log()));
    assert!(line.contains(&format!("webhook {broken}")), "{line}");
    assert!(line.contains(&event_id), "{line}");
    assert!(line.contains("no longer compiles"), "{line}");
    assert!(!server.log().contains(secret_value), "{}", server.log());

    // A second event: skipped again, counted again (the log line may wait for the next one).
    let r = server.post_json(
        "/api/v1/events",
        &key,
        &json!({"event": "post.published", "data": {}}),
    );
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(filter_errors(&server), 2);
    let list = server
        .get(&format!("/api/v1/webhooks/{broken}/deliveries"), &key)
        .data();
    assert_eq!(list.as_array().unwrap().len(), 2, "{list}");
    assert_eq!(queued(&broken), 0);
}

/// A webhook's filter that fails on an event while evaluating (a field the event lacks)
/// skips the same way, on the command line too: `events emit` says how many deliveries it
/// queued, and the skip is in `webhooks deliveries`.
#[test]
fn an_evaluation_error_skips_the_webhook_for_that_event_only() {
    let env = Env::new();
    let w = env.create_webhook_with(
        "http://127.0.0.1:9/a",
        "post.published",
        &["--filter", "data.n > 1.0"],
    );
    let id = str_of(&w, "id");
    let emit = |data: &str| {
        let (code, v) = env.json(&["events", "emit", "post.published", "--data", data]);
        assert_eq!(code, 0, "{v}");
        v["data"]["deliveries"].as_u64().unwrap()
    };
    assert_eq!(emit(r#"{"n": 2.0}"#), 1);
    assert_eq!(emit(r#"{"other": 1}"#), 0);
    let (code, v) = env.json(&["webhooks", "deliveries", id]);
    assert_eq!(code, 0, "{v}");
    let list = v["data"].as_array().unwrap();
    assert_eq!(list.len(), 1, "one skip, no attempt yet: {v}");
    assert!(list[0]["skipped"].is_string(), "{v}");
    assert_eq!(
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE webhook_id = '{id}'"
        )),
        1
    );
}

/// A database from before the stricter rules keeps what they refuse (an upgrade deletes
/// nothing), and `serve` says so once at start: a warning line naming each webhook whose
/// stored filter no longer compiles and each event type whose stored schema the add-time
/// check refuses. A database with none says nothing.
#[test]
fn serve_names_the_filters_and_schemas_an_upgrade_left_behind() {
    let env = Env::new();
    let url = "http://127.0.0.1:9/a";
    let good = env.create_webhook_with(url, "post.published", &["--filter", "true"]);
    let good = str_of(&good, "id").to_string();
    let mut server = Server::start(&env);
    let (_, _, quiet) = server.stop_with("TERM");
    assert!(quiet.contains("keyhook: stopped"), "{quiet}");
    assert!(!quiet.contains("no longer compiles"), "{quiet}");
    assert!(!quiet.contains("would be refused now"), "{quiet}");

    let stale = env.create_webhook_with(url, "post.published", &["--filter", "true"]);
    let stale = str_of(&stale, "id").to_string();
    store_filter(&env, &stale, STALE);
    // A schema past the size limit (64 KiB of JSON), as no `event-types add` takes it.
    let (code, v) = env.json(&["event-types", "add", "shop.order"]);
    assert_eq!(code, 0, "{v}");
    let big = json!({"type": "object", "description": "x".repeat(70_000)}).to_string();
    env.sql(&format!(
        "UPDATE event_types SET schema = '{big}' WHERE name = 'shop.order'"
    ));

    let server = Server::start(&env);
    let wanted = |log: &str| {
        let filters: Vec<String> = log
            .lines()
            .filter(|l| l.contains("its stored filter no longer compiles"))
            .map(String::from)
            .collect();
        let schemas: Vec<String> = log
            .lines()
            .filter(|l| l.contains("its stored schema would be refused now"))
            .map(String::from)
            .collect();
        (filters.len() == 1 && schemas.len() == 1).then_some((filters, schemas))
    };
    let (filters, schemas) = poll(PATIENCE, || wanted(&server.log()))
        .unwrap_or_else(|| panic!("no warnings in:\n{}", server.log()));
    assert!(
        filters[0].contains(&format!("webhook {stale}")),
        "{filters:?}"
    );
    assert!(!filters[0].contains(&good), "{filters:?}");
    assert!(schemas[0].contains("event type shop.order"), "{schemas:?}");
    assert!(schemas[0].contains("at most"), "{schemas:?}");

    // Kept as they were.
    let (code, v) = env.json(&["webhooks", "show", &stale]);
    assert_eq!((code, &v["data"]["filter"]), (0, &json!(STALE)), "{v}");
    let (code, v) = env.json(&["event-types", "show", "shop.order"]);
    assert_eq!(code, 0, "{v}");
    assert!(v["data"]["schema"].is_object(), "{v}");
}
