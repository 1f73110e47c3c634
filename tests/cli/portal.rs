//! The developer portal (CONTRACT §14): links minted by `portal link` and
//! `POST /api/v1/portal-links`, opened once into a session, the pages under `/portal` acting
//! through the same services as `/api/v1` (as `portal:<link id>`), and the portal's security:
//! CSRF, headers, cookies, read-only links, scope isolation, lifetimes, private targets and
//! escaping. The real binary and a real `serve`, on both backends.

use std::io::{Read, Write};
use std::net::TcpListener;

use serde_json::{json, Value};

use crate::common::{str_of, Env};
use crate::receiver::Receiver;
use crate::server::{Resp, Server};

const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;

/// `keyhook --json --user USER ARGS`: (exit code, stdout JSON).
fn as_user(env: &Env, user: &str, args: &[&str]) -> (i32, Value) {
    env.json(&[&["--user", user], args].concat())
}

/// A link minted by the operator for `user` with `extra` flags: (id, url, token).
fn mint(env: &Env, server: &Server, user: &str, extra: &[&str]) -> (String, String, String) {
    let public = server.url("");
    let mut args = vec!["portal", "link", "--public-url", &public];
    args.extend_from_slice(extra);
    let (code, v) = as_user(env, user, &args);
    assert_eq!(code, 0, "portal link: {v}");
    let url = str_of(&v["data"], "url").to_string();
    let token = url.rsplit_once('#').expect("a fragment").1.to_string();
    (str_of(&v["data"], "id").to_string(), url, token)
}

/// A browser of the portal: its session cookie and the CSRF token of its pages.
struct Browser<'a> {
    server: &'a Server,
    cookie: String,
    csrf: String,
}

fn form_body(fields: &[(&str, &str)]) -> Vec<u8> {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in fields {
        s.append_pair(k, v);
    }
    s.finish().into_bytes()
}

/// POSTs the paste form with `token`.
fn exchange(server: &Server, token: &str) -> Resp {
    server.send(
        "POST",
        "/portal/session",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        Some(&form_body(&[("token", token)])),
    )
}

/// The session cookie's value in a `Set-Cookie`.
fn cookie_value(r: &Resp) -> String {
    let c = r.header("Set-Cookie").expect("a Set-Cookie");
    c.split(';')
        .next()
        .unwrap()
        .strip_prefix("keyhook_portal=")
        .expect("the portal's cookie")
        .to_string()
}

fn csrf_of(html: &str) -> String {
    let at = html
        .find("name=\"csrf\" value=\"")
        .expect("a form with a CSRF token");
    html[at + 19..at + 19 + 64].to_string()
}

impl<'a> Browser<'a> {
    /// Opens the link whose token is `token` and reads the first page.
    fn open(server: &'a Server, token: &str) -> Browser<'a> {
        let r = exchange(server, token);
        assert_eq!(r.status, 303, "{r:?}");
        assert_eq!(r.header("Location"), Some("/portal/keys"));
        let cookie = cookie_value(&r);
        let mut b = Browser {
            server,
            cookie,
            csrf: String::new(),
        };
        let page = b.get("/portal/keys");
        assert_eq!(page.status, 200, "{}", page.body);
        b.csrf = csrf_of(&page.body);
        b
    }

    fn get(&self, path: &str) -> Resp {
        let cookie = format!("keyhook_portal={}", self.cookie);
        self.server.send("GET", path, &[("Cookie", &cookie)], None)
    }

    /// POSTs a form with the session's CSRF token.
    fn post(&self, path: &str, fields: &[(&str, &str)]) -> Resp {
        let mut all = vec![("csrf", self.csrf.as_str())];
        all.extend_from_slice(fields);
        self.post_raw(path, &all)
    }

    fn post_raw(&self, path: &str, fields: &[(&str, &str)]) -> Resp {
        let cookie = format!("keyhook_portal={}", self.cookie);
        self.server.send(
            "POST",
            path,
            &[
                ("Cookie", &cookie),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            Some(&form_body(fields)),
        )
    }
}

/// The text between `start` and the next `<` after it.
fn text_after<'a>(html: &'a str, start: &str) -> Option<&'a str> {
    let at = html.find(start)? + start.len();
    html[at..].split('<').next()
}

fn keys_of(env: &Env, user: &str) -> Vec<Value> {
    let (code, v) = as_user(env, user, &["keys", "list"]);
    assert_eq!(code, 0, "{v}");
    v["data"].as_array().cloned().unwrap_or_default()
}

fn assert_portal_headers(r: &Resp, ancestors: &str) {
    let csp = r.header("Content-Security-Policy").expect("a CSP");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(csp.contains("style-src 'self'"), "{csp}");
    assert!(
        csp.contains(&format!("frame-ancestors {ancestors}")),
        "{csp}"
    );
    assert_eq!(r.header("X-Content-Type-Options"), Some("nosniff"));
    assert_eq!(r.header("Referrer-Policy"), Some("no-referrer"));
    assert_eq!(r.header("Cache-Control"), Some("no-store"));
}

#[test]
fn a_link_opens_once_into_a_strict_httponly_session_with_the_security_headers() {
    let env = Env::new();
    let server = Server::start(&env);
    let (_, url, token) = mint(&env, &server, "acme", &[]);
    assert_eq!(url, format!("{}/portal#{token}", server.url("")));
    assert!(token.starts_with("kpl_") && token.len() == 68, "{token}");

    // The landing page (the fragment never reaches the server) offers the paste form.
    let landing = server.send("GET", "/portal", &[], None);
    assert_eq!(landing.status, 200);
    assert_portal_headers(&landing, "'none'");
    assert!(landing.body.contains("action=\"/portal/session\""));
    assert!(landing
        .body
        .contains("<script src=\"/portal/static/portal.js\""));
    assert!(!landing.body.contains("<script>"), "no inline script");

    let r = exchange(&server, &token);
    assert_eq!(r.status, 303);
    assert_portal_headers(&r, "'none'");
    let cookie = r.header("Set-Cookie").unwrap();
    for part in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/portal",
        "Max-Age=28800",
    ] {
        assert!(cookie.contains(part), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "no Secure over http: {cookie}");

    // Once: a second opening is refused with a page saying so.
    let again = exchange(&server, &token);
    assert_eq!(again.status, 410);
    assert!(
        again.body.contains("This link was already used"),
        "{}",
        again.body
    );
    assert!(again.body.contains("ask for a new link"));
    // The whole link pasted works like its token (and is refused the same way).
    assert_eq!(exchange(&server, &url).status, 410);
    let unknown = exchange(&server, &format!("kpl_{}", "0".repeat(64)));
    assert_eq!(unknown.status, 404);
    assert!(unknown.body.contains("This link is not valid"));
    let junk = exchange(&server, "<script>alert(1)</script>");
    assert_eq!(junk.status, 404);
    assert!(!junk.body.contains("<script>alert"));

    // The session's pages, with the same headers; the static files too.
    let b = Browser::open(&server, &mint(&env, &server, "acme", &[]).2);
    for path in ["/portal/keys", "/portal/webhooks", "/portal/events"] {
        let p = b.get(path);
        assert_eq!(p.status, 200, "{path}");
        assert_portal_headers(&p, "'none'");
        assert!(p.header("Content-Type").unwrap().starts_with("text/html"));
    }
    let js = server.send("GET", "/portal/static/portal.js", &[], None);
    assert_eq!(js.status, 200);
    assert!(js
        .header("Content-Type")
        .unwrap()
        .starts_with("text/javascript"));
    assert_eq!(js.header("X-Content-Type-Options"), Some("nosniff"));
    let css = server.send("GET", "/portal/static/portal.css", &[], None);
    assert!(css.header("Content-Type").unwrap().starts_with("text/css"));
    // Without a session: the page that says it ended.
    let none = server.send("GET", "/portal/keys", &[], None);
    assert_eq!(none.status, 401);
    assert!(none.body.contains("Your session has ended"));
    // Signing out ends it.
    let out = b.post("/portal/signout", &[]);
    assert_eq!(out.status, 200);
    assert!(out.header("Set-Cookie").unwrap().contains("Max-Age=0"));
    assert_eq!(b.get("/portal/keys").status, 401);
}

#[test]
fn links_and_sessions_expire_on_the_clock() {
    let env = Env::with_clock();
    let server = Server::start(&env);
    let (_, _, short) = mint(&env, &server, "acme", &["--ttl", "1m"]);
    let (_, _, long) = mint(&env, &server, "acme", &[]);
    env.advance_clock(2 * MINUTE);
    let r = exchange(&server, &short);
    assert_eq!(r.status, 410);
    assert!(r.body.contains("This link has expired"), "{}", r.body);
    // The default lifetime is 15 minutes.
    let b = Browser::open(&server, &long);
    env.advance_clock(8 * HOUR - MINUTE);
    assert_eq!(b.get("/portal/keys").status, 200);
    env.advance_clock(2 * MINUTE);
    let ended = b.get("/portal/keys");
    assert_eq!(ended.status, 401);
    assert!(ended.body.contains("Your session has ended"));
    let (_, _, late) = mint(&env, &server, "acme", &[]);
    env.advance_clock(15 * MINUTE + 1000);
    assert_eq!(exchange(&server, &late).status, 410);
    // Out of bounds: refused.
    let bad = env
        .cmd()
        .args(["portal", "link", "--ttl", "25h"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn revoking_ends_links_and_sessions_and_all_asks_first() {
    let env = Env::new();
    let server = Server::start(&env);
    let (id, _, token) = mint(&env, &server, "acme", &[]);
    let b = Browser::open(&server, &token);
    let (unopened, _, waiting) = mint(&env, &server, "acme", &[]);
    let (_, list) = as_user(&env, "acme", &["portal", "list"]);
    assert_eq!(list["data"]["links"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["data"]["links"][0]["id"], unopened.as_str());
    assert_eq!(
        list["data"]["sessions"].as_array().unwrap().len(),
        1,
        "{list}"
    );
    assert_eq!(list["data"]["sessions"][0]["linkId"], id.as_str());

    let r = env
        .cmd()
        .args(["--user", "acme", "portal", "revoke", &id])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(0), "{r:?}");
    assert_eq!(b.get("/portal/keys").status, 401);
    // --all needs --yes without a terminal, and says so.
    let r = env
        .cmd()
        .args(["--user", "acme", "portal", "revoke", "--all"])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("--yes"));
    assert_eq!(exchange(&server, &waiting).status, 303, "still live");
    let (_, _, third) = mint(&env, &server, "acme", &[]);
    let r = env
        .cmd()
        .args(["--user", "acme", "portal", "revoke", "--all", "--yes"])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(0));
    let gone = exchange(&server, &third);
    assert_eq!(gone.status, 410);
    assert!(gone.body.contains("This link was revoked"), "{}", gone.body);
    let (_, list) = as_user(&env, "acme", &["portal", "list"]);
    assert_eq!(list["data"], json!({"links": [], "sessions": []}));
    // Another user's link is not found; an unknown one neither.
    let (other, _, _) = mint(&env, &server, "other", &[]);
    let r = env
        .cmd()
        .args(["--user", "acme", "portal", "revoke", &other])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(3));
}

#[test]
fn the_http_api_mints_and_revokes_links_never_broader_nor_longer_lived_than_its_key() {
    let env = Env::with_clock();
    let server = Server::start(&env);
    let key = env.create_key(
        "rw",
        &["--profile", "a", "--profile", "b", "--expires-in", "1h"],
    );
    let k = str_of(&key, "key");
    let r = server.post_json(
        "/api/v1/portal-links",
        k,
        &json!({"fullAccess": false, "profileIds": ["a"], "ttlSeconds": 600}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.header("Cache-Control"), Some("no-store"));
    let d = r.data();
    assert_eq!(
        crate::common::sorted_keys(&d),
        [
            "expiresAt",
            "fullAccess",
            "id",
            "profileIds",
            "readOnly",
            "url"
        ]
    );
    assert_eq!(d["fullAccess"], false);
    assert_eq!(d["profileIds"], json!(["a"]));
    assert!(str_of(&d, "url").starts_with(&format!("{}/portal#kpl_", server.url(""))));
    // No scope given: the key's own.
    let own = server.post_json("/api/v1/portal-links", k, &json!({}));
    assert_eq!(own.status, 201, "{}", own.body);
    // No body at all is `{}`, as the document says (requestBody not required).
    let bare = server.call("POST", "/api/v1/portal-links", Some(k));
    assert_eq!(bare.status, 201, "{}", bare.body);
    assert_eq!(bare.data()["profileIds"], own.data()["profileIds"]);
    assert_eq!(own.data()["profileIds"], json!(["a", "b"]));
    // Broader than the key: 403 naming the field.
    let r = server.post_json(
        "/api/v1/portal-links",
        k,
        &json!({"profileIds": ["c"], "fullAccess": false}),
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(r.json()["error"]["details"][0]["field"], "profileIds");
    let r = server.post_json("/api/v1/portal-links", k, &json!({"fullAccess": true}));
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(r.json()["error"]["details"][0]["field"], "fullAccess");
    // Longer-lived than the key: 403 on ttlSeconds.
    env.advance_clock(55 * MINUTE);
    let r = server.post_json("/api/v1/portal-links", k, &json!({}));
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(r.json()["error"]["details"][0]["field"], "ttlSeconds");
    // Bad input: 400 with one detail per problem.
    let r = server.post_json(
        "/api/v1/portal-links",
        k,
        &json!({"ttlSeconds": 0, "color": 1}),
    );
    assert_eq!(r.status, 400);
    let body = r.json();
    let fields: Vec<&str> = body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert!(
        fields.contains(&"ttlSeconds") && fields.contains(&"color"),
        "{fields:?}"
    );
    // A readonly key may not mint.
    let ro = env.create_key("ro", &["--permission", "readonly"]);
    let r = server.post_json("/api/v1/portal-links", str_of(&ro, "key"), &json!({}));
    assert_eq!(r.status, 403);
    // DELETE: 204, then the link is revoked; unknown or another user's: 404.
    let id = str_of(&d, "id");
    let r = server.delete(&format!("/api/v1/portal-links/{id}"), k);
    assert_eq!(r.status, 204, "{}", r.body);
    let token = str_of(&d, "url").rsplit_once('#').unwrap().1.to_string();
    assert_eq!(exchange(&server, &token).status, 410);
    assert_eq!(server.delete("/api/v1/portal-links/pl_nope", k).status, 404);
    let (theirs, _, _) = mint(&env, &server, "other", &[]);
    assert_eq!(
        server
            .delete(&format!("/api/v1/portal-links/{theirs}"), k)
            .status,
        404
    );
    assert_eq!(
        server.call("GET", "/api/v1/portal-links", Some(k)).status,
        405
    );
}

#[test]
fn a_session_ends_when_the_minting_key_is_deleted_or_expires_and_its_keys_never_outlive_it() {
    let env = Env::with_clock();
    let server = Server::start(&env);
    let key = env.create_key("minter", &["--expires-in", "2h"]);
    let k = str_of(&key, "key");
    let mint_http = || {
        let r = server.post_json("/api/v1/portal-links", k, &json!({}));
        assert_eq!(r.status, 201, "{}", r.body);
        str_of(&r.data(), "url")
            .rsplit_once('#')
            .unwrap()
            .1
            .to_string()
    };
    let b = Browser::open(&server, &mint_http());
    // A key made there with "never": it expires with the minting key.
    let made = b.post(
        "/portal/keys",
        &[
            ("name", "made"),
            ("permission", "readwrite"),
            ("expires", ""),
        ],
    );
    assert_eq!(made.status, 201, "{}", made.body);
    let made_key = keys_of(&env, "default")
        .into_iter()
        .find(|k| k["name"] == "made")
        .unwrap();
    assert_eq!(made_key["expiresAt"], key["expiresAt"]);
    // Asked to outlive it: refused, the error next to the field.
    let long = b.post(
        "/portal/keys",
        &[
            ("name", "long"),
            ("permission", "readwrite"),
            ("expires", "7d"),
        ],
    );
    assert_eq!(long.status, 403, "{}", long.body);
    assert!(
        long.body.contains("id=\"expiresAt-error\""),
        "{}",
        long.body
    );
    assert!(!keys_of(&env, "default").iter().any(|k| k["name"] == "long"));
    // The minting key expires: the session ends.
    env.advance_clock(2 * HOUR + MINUTE);
    assert_eq!(b.get("/portal/keys").status, 401);

    // Deleted: the session ends at once, and its unopened links are refused.
    let key2 = env.create_key("minter2", &[]);
    let k2 = str_of(&key2, "key");
    let r = server.post_json("/api/v1/portal-links", k2, &json!({}));
    let t1 = str_of(&r.data(), "url")
        .rsplit_once('#')
        .unwrap()
        .1
        .to_string();
    let r = server.post_json("/api/v1/portal-links", k2, &json!({}));
    let t2 = str_of(&r.data(), "url")
        .rsplit_once('#')
        .unwrap()
        .1
        .to_string();
    let b2 = Browser::open(&server, &t1);
    let (code, _) = as_user(
        &env,
        "default",
        &["keys", "delete", str_of(&key2, "id"), "--yes"],
    );
    assert_eq!(code, 0);
    assert_eq!(b2.get("/portal/keys").status, 401);
    let r = exchange(&server, &t2);
    assert_eq!(r.status, 410);
    assert!(r.body.contains("This link was revoked"));
}

#[test]
fn a_read_only_link_shows_everything_and_changes_nothing() {
    let env = Env::new();
    let server = Server::start(&env);
    env.create_key("existing", &[]);
    let w = env.create_webhook("http://127.0.0.1:9/x", "post.published");
    let wid = str_of(&w, "id");
    let (_, _, token) = mint(&env, &server, "default", &["--read-only"]);
    let b = Browser::open(&server, &token);
    let keys = b.get("/portal/keys");
    assert!(keys.body.contains("existing"));
    assert!(keys.body.contains("read-only"));
    for absent in ["Create key", ">Revoke<"] {
        assert!(!keys.body.contains(absent), "{absent}");
    }
    let page = b.get(&format!("/portal/webhooks/{wid}"));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<h2 id=\"deliveries\">Deliveries</h2>"));
    for absent in [
        "Send test",
        "Rotate secret",
        ">Save<",
        ">Replay<",
        "Create webhook",
    ] {
        assert!(!page.body.contains(absent), "{absent}");
    }
    // POSTs with a valid CSRF token are refused, and nothing changes.
    let r = b.post(
        "/portal/keys",
        &[("name", "sneaky"), ("permission", "readwrite")],
    );
    assert_eq!(r.status, 403);
    assert!(r.body.contains("read-only"));
    assert_eq!(
        b.post(&format!("/portal/webhooks/{wid}/delete"), &[])
            .status,
        403
    );
    assert_eq!(
        b.post(&format!("/portal/webhooks/{wid}/disable"), &[])
            .status,
        403
    );
    assert_eq!(keys_of(&env, "default").len(), 1);
    let (_, v) = as_user(&env, "default", &["webhooks", "show", wid]);
    assert_eq!(v["data"]["isActive"], true);
}

#[test]
fn every_post_needs_the_sessions_csrf_token() {
    let env = Env::new();
    let server = Server::start(&env);
    let b = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    let other = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    assert_ne!(b.csrf, other.csrf, "bound to the session");
    for fields in [
        vec![("name", "x")],
        vec![("csrf", ""), ("name", "x")],
        vec![("csrf", "0000"), ("name", "x")],
        vec![("csrf", other.csrf.as_str()), ("name", "x")],
    ] {
        let r = b.post_raw("/portal/keys", &fields);
        assert_eq!(r.status, 403, "{fields:?}");
        assert!(r.body.contains("security token"));
    }
    // A form of another site is refused whatever it carries.
    let cookie = format!("keyhook_portal={}", b.cookie);
    let body = form_body(&[("csrf", &b.csrf), ("name", "x")]);
    let r = server.send(
        "POST",
        "/portal/keys",
        &[
            ("Cookie", &cookie),
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Sec-Fetch-Site", "cross-site"),
        ],
        Some(&body),
    );
    assert_eq!(r.status, 403);
    assert!(keys_of(&env, "default").is_empty());
    // With the token: made.
    let r = b.post(
        "/portal/keys",
        &[("name", "x"), ("permission", "readwrite")],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(keys_of(&env, "default").len(), 1);
}

#[test]
fn a_session_never_reads_or_changes_another_users_or_scopes_things() {
    let env = Env::new();
    let server = Server::start(&env);
    let (code, v) = as_user(&env, "other", &["keys", "create", "--name", "their-key"]);
    assert_eq!(code, 0, "{v}");
    let their_key = str_of(&v["data"], "id").to_string();
    // Another user's things: not listed, not found, not changed.
    let (code, w) = as_user(
        &env,
        "other",
        &[
            "--allow-private-targets",
            "webhooks",
            "create",
            "--url",
            "http://127.0.0.1:9/o",
            "--event",
            "post.published",
        ],
    );
    assert_eq!(code, 0, "{w}");
    let their_hook = str_of(&w["data"], "id").to_string();
    let b = Browser::open(&server, &mint(&env, &server, "acme", &[]).2);
    assert!(!b.get("/portal/keys").body.contains("their-key"));
    assert!(!b.get("/portal/webhooks").body.contains("127.0.0.1:9/o"));
    assert_eq!(b.get(&format!("/portal/webhooks/{their_hook}")).status, 404);
    assert_eq!(
        b.get(&format!("/portal/webhooks/{their_hook}/deliveries.json"))
            .status,
        404
    );
    assert_eq!(
        b.post(&format!("/portal/webhooks/{their_hook}/delete"), &[])
            .status,
        404
    );
    assert_eq!(
        b.post(&format!("/portal/keys/{their_key}/revoke"), &[])
            .status,
        404
    );
    assert_eq!(keys_of(&env, "other").len(), 1);

    // A link scoped to profile a: a webhook of the whole user or of profile b is not its.
    let (code, wb) = as_user(
        &env,
        "acme",
        &[
            "--allow-private-targets",
            "webhooks",
            "create",
            "--url",
            "http://127.0.0.1:9/b",
            "--event",
            "post.published",
            "--profile",
            "b",
        ],
    );
    assert_eq!(code, 0, "{wb}");
    let hook_b = str_of(&wb["data"], "id").to_string();
    let (code, wa) = as_user(
        &env,
        "acme",
        &[
            "--allow-private-targets",
            "webhooks",
            "create",
            "--url",
            "http://127.0.0.1:9/a",
            "--event",
            "post.published",
            "--profile",
            "a",
        ],
    );
    assert_eq!(code, 0, "{wa}");
    let (code, kb) = as_user(
        &env,
        "acme",
        &["keys", "create", "--name", "key-b", "--profile", "b"],
    );
    assert_eq!(code, 0, "{kb}");
    let scoped = Browser::open(&server, &mint(&env, &server, "acme", &["--profile", "a"]).2);
    let list = scoped.get("/portal/webhooks").body;
    assert!(
        list.contains("127.0.0.1:9/a") && !list.contains("127.0.0.1:9/b"),
        "{list}"
    );
    assert_eq!(
        scoped.get(&format!("/portal/webhooks/{hook_b}")).status,
        404
    );
    // Keys broader than the link cannot be revoked (no revoking up).
    let r = scoped.post(
        &format!("/portal/keys/{}/revoke", str_of(&kb["data"], "id")),
        &[],
    );
    assert_eq!(r.status, 403, "{}", r.body);
    // A key made there is within the link's scope: its own when none is chosen.
    let r = scoped.post(
        "/portal/keys",
        &[("name", "in-a"), ("permission", "readonly")],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let made = keys_of(&env, "acme")
        .into_iter()
        .find(|k| k["name"] == "in-a")
        .unwrap();
    assert_eq!(made["fullAccess"], false);
    assert_eq!(made["profileIds"], json!(["a"]));
    let r = scoped.post(
        "/portal/keys",
        &[
            ("name", "in-b"),
            ("permission", "readwrite"),
            ("profile", "b"),
        ],
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(!keys_of(&env, "acme").iter().any(|k| k["name"] == "in-b"));
}

#[test]
fn tokens_are_stored_hashed_and_changes_are_audited_as_the_link() {
    let env = Env::new();
    let server = Server::start(&env);
    let (id, _, token) = mint(&env, &server, "default", &[]);
    let b = Browser::open(&server, &token);
    let r = b.post(
        "/portal/keys",
        &[("name", "audited"), ("permission", "readwrite")],
    );
    assert_eq!(r.status, 201);
    let hashes = env.sql("SELECT token_hash FROM portal_links");
    let sha = |s: &str| {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(s.as_bytes()))
    };
    assert!(hashes.iter().any(|row| row[0] == sha(&token)), "{hashes:?}");
    let sessions = env.sql("SELECT token_hash FROM portal_sessions");
    assert_eq!(sessions, vec![vec![sha(&b.cookie)]]);
    if env.is_sqlite() {
        let bytes = env.stored_bytes();
        for secret in [&token, &b.cookie] {
            let found = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
            assert!(!found, "a token is in the database file");
        }
    }
    let (_, audit) = as_user(&env, "default", &["audit"]);
    let entries = audit["data"].as_array().unwrap();
    let created = entries
        .iter()
        .find(|e| e["action"] == "key.created")
        .unwrap();
    assert_eq!(created["actor"], format!("portal:{id}"));
    assert_eq!(created["via"], "portal");
    assert!(entries
        .iter()
        .any(|e| e["action"] == "portal_link.created" && e["target"] == id.as_str()));
}

#[test]
fn the_portal_never_points_a_webhook_at_a_private_address_unless_told() {
    let env = Env::new();
    // --allow-private-targets does not reach the portal.
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let b = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    for url in [
        "http://127.0.0.1:9/x",
        "http://10.1.2.3/x",
        "http://[::1]/x",
        "http://localhost:9/x",
        "http://169.254.169.254/latest",
    ] {
        let r = b.post(
            "/portal/webhooks",
            &[("url", url), ("events", "post.published")],
        );
        assert_eq!(r.status, 400, "{url}: {}", r.body);
        assert!(r.body.contains("id=\"url-error\""), "{url}");
    }
    let (_, v) = as_user(&env, "default", &["webhooks", "list"]);
    assert_eq!(v["data"], json!([]));
    // An existing webhook is not moved to one either.
    let w = env.create_webhook("http://127.0.0.1:9/x", "post.published");
    let r = b.post(
        &format!("/portal/webhooks/{}", str_of(&w, "id")),
        &[
            ("url", "http://192.168.1.1/x"),
            ("events", "post.published"),
        ],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    drop(server);
    let server = Server::start_with(
        &env,
        &["--allow-private-targets", "--portal-allow-private-targets"],
    );
    let b = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    let r = b.post(
        "/portal/webhooks",
        &[
            ("url", "http://127.0.0.1:9/ok"),
            ("events", "post.published"),
        ],
    );
    assert_eq!(r.status, 201, "{}", r.body);
}

#[test]
fn embedding_needs_https_and_makes_a_partitioned_cross_site_cookie() {
    let env = Env::new();
    let refused = env
        .cmd()
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--portal-embed-origin",
            "https://app.example.com",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let refused = env
        .cmd()
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--public-url",
            "https://keys.example.com",
            "--portal-embed-origin",
            "http://app.example.com",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let server = Server::start_with(
        &env,
        &[
            "--public-url",
            "https://keys.example.com",
            "--portal-embed-origin",
            "https://app.example.com",
            "--portal-embed-origin",
            "https://b.example.com:8443",
        ],
    );
    let r = server.post_json(
        "/api/v1/portal-links",
        str_of(&env.create_key("k", &[]), "key"),
        &json!({}),
    );
    assert!(str_of(&r.data(), "url").starts_with("https://keys.example.com/portal#kpl_"));
    let token = str_of(&r.data(), "url")
        .rsplit_once('#')
        .unwrap()
        .1
        .to_string();
    let r = exchange(&server, &token);
    assert_eq!(r.status, 303);
    assert_portal_headers(&r, "https://app.example.com https://b.example.com:8443");
    assert!(r.header("X-Frame-Options").is_none());
    let cookie = r.header("Set-Cookie").unwrap();
    for part in [
        "HttpOnly",
        "SameSite=None",
        "Secure",
        "Partitioned",
        "Path=/portal",
    ] {
        assert!(cookie.contains(part), "{cookie}");
    }
    // https without embedding: Strict and Secure.
    drop(server);
    let server = Server::start_with(&env, &["--public-url", "https://keys.example.com"]);
    let r = exchange(&server, &mint(&env, &server, "default", &[]).2);
    let cookie = r.header("Set-Cookie").unwrap();
    assert!(
        cookie.contains("SameSite=Strict") && cookie.contains("Secure"),
        "{cookie}"
    );
    assert!(r.header("X-Frame-Options").is_some());
}

/// A loopback endpoint that answers every request with `status` and `body`, once per
/// connection, until the test ends.
fn hostile_endpoint(status: u16, body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 65536];
            let _ = s.set_read_timeout(Some(std::time::Duration::from_millis(500)));
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 {status} Hostile\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}/hook")
}

#[test]
fn every_user_supplied_string_is_escaped_in_the_html() {
    let env = Env::new();
    let server = Server::start_with(
        &env,
        &["--allow-private-targets", "--portal-allow-private-targets"],
    );
    let xss = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    // An event type of the operator's with hostile text in each part.
    let dir = env.dir.path();
    std::fs::write(dir.join("ex.json"), json!({"title": xss}).to_string()).unwrap();
    std::fs::write(
        dir.join("schema.json"),
        json!({"type": "object", "description": xss}).to_string(),
    )
    .unwrap();
    let r = env
        .cmd()
        .args(["event-types", "add", "post.hostile", "--description", xss])
        .arg("--schema")
        .arg(dir.join("schema.json"))
        .arg("--example")
        .arg(dir.join("ex.json"))
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(0), "{r:?}");
    let endpoint = hostile_endpoint(
        500,
        "<script>alert(3)</script>\"'><img src=x onerror=alert(4)>",
    );
    let url = format!("{endpoint}?q='\"onmouseover=alert(5)");
    let b = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    let key = b.post(
        "/portal/keys",
        &[("name", xss), ("permission", "readwrite")],
    );
    assert_eq!(key.status, 201, "{}", key.body);
    let filter = format!("data.title == \"{}\"", "<script>alert(6)</script>");
    let made = b.post(
        "/portal/webhooks",
        &[
            ("url", &url),
            ("events", "post.hostile"),
            ("filter", &filter),
        ],
    );
    // A URL the rules refuse comes back in the form, escaped, with the error by its field.
    let page = if made.status == 201 {
        made
    } else {
        assert_eq!(made.status, 400, "{}", made.body);
        assert!(made.body.contains("id=\"url-error\""));
        let ok = b.post(
            "/portal/webhooks",
            &[
                ("url", &endpoint),
                ("events", "post.hostile"),
                ("filter", &filter),
            ],
        );
        assert_eq!(ok.status, 201, "{}", ok.body);
        ok
    };
    let id = page
        .body
        .split("/portal/webhooks/")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap()
        .to_string();
    let tested = b.post(&format!("/portal/webhooks/{id}/test"), &[]);
    assert_eq!(tested.status, 200, "{}", tested.body);
    // A refused form with hostile values: echoed escaped.
    let refused = b.post(
        "/portal/webhooks",
        &[("url", xss), ("events", xss), ("filter", xss)],
    );
    assert_eq!(refused.status, 400);
    let tried = b.post(
        "/portal/webhooks",
        &[
            ("url", &endpoint),
            ("events", "post.hostile"),
            ("filter", &filter),
            ("intent", "try"),
            ("try_event", "post.hostile"),
        ],
    );
    assert_eq!(tried.status, 200, "{}", tried.body);
    assert!(
        tried.body.contains("holds"),
        "the filter was tried: {}",
        tried.body
    );
    let pages = [
        b.get("/portal/keys").body,
        b.get("/portal/webhooks").body,
        b.get(&format!("/portal/webhooks/{id}")).body,
        b.get(&format!("/portal/webhooks/{id}/deliveries.html"))
            .body,
        b.get("/portal/events").body,
        refused.body,
        tried.body,
        key.body,
    ];
    for (i, html) in pages.iter().enumerate() {
        for raw in [
            "<script>alert",
            "<img src=x",
            "onerror=alert",
            "\"onmouseover",
        ] {
            // `onerror=alert` may appear only inside escaped text (after `&lt;img src=x `).
            let hits = html.matches(raw).count();
            let escaped = match raw {
                "onerror=alert" => html.matches("&lt;img src=x onerror=alert").count(),
                _ => 0,
            };
            assert_eq!(hits, escaped, "page {i} has {raw} unescaped:\n{html}");
        }
    }
    let all = pages.concat();
    assert!(
        all.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the key's name, escaped"
    );
    assert!(
        all.contains("&lt;script&gt;alert(3)&lt;/script&gt;"),
        "the response excerpt, escaped"
    );
    assert!(
        all.contains("&lt;script&gt;alert(6)&lt;/script&gt;"),
        "the filter, escaped"
    );
    // Only our own script tag, in every page.
    for html in [&pages[0], &pages[1], &pages[2], &pages[4]] {
        assert_eq!(html.matches("<script").count(), 1, "{html}");
    }
}

#[test]
fn webhooks_are_managed_end_to_end_from_the_portal() {
    let env = Env::new();
    let server = Server::start_with(
        &env,
        &["--allow-private-targets", "--portal-allow-private-targets"],
    );
    let receiver = Receiver::start();
    let b = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    let empty = b.get("/portal/webhooks");
    assert!(empty
        .body
        .contains("No webhooks yet: create one to receive post.published"));
    assert!(empty.body.contains(">Create webhook<"));
    // Missing fields: errors next to them, nothing made.
    let r = b.post("/portal/webhooks", &[("url", "")]);
    assert_eq!(r.status, 400);
    assert!(
        r.body.contains("id=\"url-error\"") && r.body.contains("id=\"events-error\""),
        "{}",
        r.body
    );
    let url = receiver.url("/ok");
    let r = b.post(
        "/portal/webhooks",
        &[("url", &url), ("events", "post.published")],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let secret = text_after(&r.body, "<code id=\"new-secret\">")
        .unwrap()
        .to_string();
    assert!(secret.starts_with("whsec_"), "{secret}");
    let (_, list) = as_user(&env, "default", &["webhooks", "list"]);
    let w = &list["data"][0];
    let id = str_of(w, "id").to_string();
    assert_eq!(w["secret"], secret.as_str());
    let base = format!("/portal/webhooks/{id}");
    // Send test: the receiver gets a ping; the page shows the attempt.
    let t = b.post(&format!("{base}/test"), &[]);
    assert_eq!(t.status, 200, "{}", t.body);
    assert!(t.body.contains("Test delivered: 200"), "{}", t.body);
    assert_eq!(receiver.requests().len(), 1);
    let attempts: Value =
        serde_json::from_str(&b.get(&format!("{base}/deliveries.json")).body).unwrap();
    assert_eq!(attempts["data"][0]["event"], "webhook.test");
    // Edit: events picked from the catalog, a filter; saved.
    let r = b.post(
        &base,
        &[
            ("url", &url),
            ("events", "post.published"),
            ("events", "post.failed"),
            ("filter", "data.n > 1.0"),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let (_, v) = as_user(&env, "default", &["webhooks", "show", &id]);
    assert_eq!(
        v["data"]["events"],
        json!(["post.published", "post.failed"])
    );
    assert_eq!(v["data"]["filter"], "data.n > 1.0");
    // A bad filter: refused next to its field.
    let r = b.post(
        &base,
        &[
            ("url", &url),
            ("events", "post.published"),
            ("filter", "data.n +"),
        ],
    );
    assert_eq!(r.status, 400);
    assert!(r.body.contains("id=\"filter-error\""));
    // Disable, enable.
    assert_eq!(b.post(&format!("{base}/disable"), &[]).status, 200);
    let (_, v) = as_user(&env, "default", &["webhooks", "show", &id]);
    assert_eq!(v["data"]["isActive"], false);
    assert_eq!(b.post(&format!("{base}/enable"), &[]).status, 200);
    // Replay: an event delivered, then replayed by its id.
    let (code, _) = as_user(
        &env,
        "default",
        &["events", "emit", "post.published", "--data", "{\"n\": 2}"],
    );
    assert_eq!(code, 0);
    env.deliver_once();
    let attempts: Value =
        serde_json::from_str(&b.get(&format!("{base}/deliveries.json")).body).unwrap();
    let evt = attempts["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["event"] == "post.published")
        .map(|a| str_of(a, "eventId").to_string())
        .expect("the event's attempt");
    let r = b.post(&format!("{base}/replay"), &[("event_id", &evt)]);
    assert_eq!(r.status, 202, "{}", r.body);
    assert!(r.body.contains("1 delivery queued again."), "{}", r.body);
    let r = b.post(
        &format!("{base}/replay"),
        &[("failed_only", "1"), ("since", "24h")],
    );
    assert_eq!(r.status, 202, "{}", r.body);
    // Rotate with grace: the new secret shown once.
    let r = b.post(&format!("{base}/rotate-secret"), &[("grace", "3600")]);
    assert_eq!(r.status, 200, "{}", r.body);
    let rotated = text_after(&r.body, "<code id=\"new-secret\">").unwrap();
    assert!(rotated.starts_with("whsec_") && rotated != secret);
    // Delete.
    let r = b.post(&format!("{base}/delete"), &[]);
    assert_eq!(r.status, 200);
    assert!(r.body.contains("No webhooks yet"));
    let (_, v) = as_user(&env, "default", &["audit"]);
    let actions: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["via"] == "portal")
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    for a in [
        "webhook.created",
        "webhook.updated",
        "webhook.disabled",
        "webhook.enabled",
        "webhook.replayed",
        "webhook.secret_rotated",
        "webhook.deleted",
    ] {
        assert!(actions.contains(&a), "{a} in {actions:?}");
    }
}

#[test]
fn keys_are_listed_created_once_and_revoked_from_the_portal() {
    let env = Env::new();
    let server = Server::start(&env);
    let b = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    let empty = b.get("/portal/keys");
    assert!(empty.body.contains("<h1>API keys</h1>"));
    assert!(empty.body.contains("No API keys yet"));
    let r = b.post("/portal/keys", &[("name", ""), ("permission", "admin")]);
    assert_eq!(r.status, 400);
    assert!(r.body.contains("id=\"name-error\"") && r.body.contains("id=\"permission-error\""));
    let r = b.post(
        "/portal/keys",
        &[
            ("name", "ci"),
            ("permission", "readwrite"),
            ("expires", "30d"),
        ],
    );
    assert_eq!(r.status, 201);
    let plain = text_after(&r.body, "<code id=\"new-key\">")
        .unwrap()
        .to_string();
    assert!(crate::common::is_key(&plain), "{plain}");
    assert!(r.body.contains("data-copy=\"new-key\""));
    // The key works against /api/v1, and is shown once.
    assert_eq!(server.get("/api/v1/api-keys", &plain).status, 200);
    let again = b.get("/portal/keys");
    assert!(!again.body.contains(&plain));
    assert!(again.body.contains(&plain[..11]));
    assert!(again.body.contains("<time datetime="));
    let id = str_of(&keys_of(&env, "default")[0], "id").to_string();
    let r = b.post(&format!("/portal/keys/{id}/revoke"), &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(server.get("/api/v1/api-keys", &plain).status, 401);
    assert!(keys_of(&env, "default").is_empty());
}

#[test]
fn a_session_opened_on_one_instance_works_and_ends_on_another() {
    let env = Env::new();
    let a = Server::start(&env);
    let b = Server::start(&env);
    let (id, _, token) = mint(&env, &a, "default", &[]);
    let on_a = Browser::open(&a, &token);
    // The same cookie and CSRF token on the other instance: nothing lives in one process.
    let on_b = Browser {
        server: &b,
        cookie: on_a.cookie.clone(),
        csrf: on_a.csrf.clone(),
    };
    assert_eq!(on_b.get("/portal/keys").status, 200);
    let r = on_b.post(
        "/portal/keys",
        &[("name", "from-b"), ("permission", "readwrite")],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    // Opened on A: used on B too.
    assert_eq!(exchange(&b, &token).status, 410);
    // Revoked through A's API: B refuses the session at once.
    let key = env.create_key("ops", &[]);
    assert_eq!(
        a.delete(&format!("/api/v1/portal-links/{id}"), str_of(&key, "key"))
            .status,
        204
    );
    assert_eq!(on_b.get("/portal/keys").status, 401);
}

#[test]
fn portal_pages_are_counted_under_their_templates_never_their_ids() {
    use crate::ops_http::{requests, sample, scrape};
    let env = Env::new();
    let server = Server::start_with(
        &env,
        &["--allow-private-targets", "--portal-allow-private-targets"],
    );
    let receiver = Receiver::start();
    let before = scrape(&server);
    let b = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    let made = b.post(
        "/portal/keys",
        &[("name", "counted"), ("permission", "readwrite")],
    );
    assert_eq!(made.status, 201, "{}", made.body);
    let key = str_of(&keys_of(&env, "default")[0], "id").to_string();
    assert_eq!(
        b.post(&format!("/portal/keys/{key}/revoke"), &[]).status,
        200
    );
    let url = receiver.url("/ok");
    let made = b.post(
        "/portal/webhooks",
        &[("url", &url), ("events", "post.published")],
    );
    assert_eq!(made.status, 201, "{}", made.body);
    let (_, list) = as_user(&env, "default", &["webhooks", "list"]);
    let id = str_of(&list["data"][0], "id").to_string();
    let base = format!("/portal/webhooks/{id}");
    let mut want: Vec<(&str, u16)> = vec![
        ("/portal/keys", 200),
        ("/portal/keys", 201),
        ("/portal/keys/{id}/revoke", 200),
        ("/portal/webhooks", 201),
    ];
    for (path, template) in [
        ("/portal/", "/portal"),
        ("/portal/static/portal.css", "/portal/static/portal.css"),
        ("/portal/static/portal.js", "/portal/static/portal.js"),
        ("/portal/webhooks", "/portal/webhooks"),
        (base.as_str(), "/portal/webhooks/{id}"),
        (
            &format!("{base}/deliveries.json"),
            "/portal/webhooks/{id}/deliveries.json",
        ),
        (
            &format!("{base}/deliveries.html"),
            "/portal/webhooks/{id}/deliveries.html",
        ),
        ("/portal/events", "/portal/events"),
    ] {
        // A GET with the session; `/portal/` then redirects to the keys.
        let r = b.get(path);
        let status = if template == "/portal" { 303 } else { 200 };
        assert_eq!(r.status, status, "{path}: {}", r.body);
        if status == 200 {
            want.push((template, 200));
        }
    }
    for (action, fields, status) in [
        ("disable", vec![], 200),
        ("enable", vec![], 200),
        ("test", vec![], 200),
        ("replay", vec![("failed_only", "1"), ("since", "24h")], 202),
        ("rotate-secret", vec![("grace", "60")], 200),
        ("delete", vec![], 200),
    ] {
        let r = b.post(&format!("{base}/{action}"), &fields);
        assert_eq!(r.status, status, "{action}: {}", r.body);
        want.push((
            match action {
                "disable" => "/portal/webhooks/{id}/disable",
                "enable" => "/portal/webhooks/{id}/enable",
                "test" => "/portal/webhooks/{id}/test",
                "replay" => "/portal/webhooks/{id}/replay",
                "rotate-secret" => "/portal/webhooks/{id}/rotate-secret",
                _ => "/portal/webhooks/{id}/delete",
            },
            status,
        ));
    }
    assert_eq!(receiver.requests().len(), 1);
    // Without a session: the landing page, a paste refused, a page that needs a session.
    assert_eq!(server.send("GET", "/portal", &[], None).status, 200);
    want.push(("/portal", 200));
    assert_eq!(exchange(&server, "not-a-token").status, 404);
    want.push(("/portal/session", 404));
    assert_eq!(server.send("GET", "/portal/events", &[], None).status, 401);
    want.push(("/portal/events", 401));
    // Paths the portal does not answer: `unmatched`, whatever their segments.
    for i in 0..20 {
        assert_eq!(b.get(&format!("/portal/zz{i}")).status, 404);
        assert_eq!(b.post(&format!("{base}/zz{i}"), &[]).status, 404);
    }
    assert_eq!(b.post("/portal/signout", &[]).status, 200);
    want.push(("/portal/signout", 200));
    let m = scrape(&server);
    for (template, status) in &want {
        let name = requests(template, *status);
        let n = want.iter().filter(|w| w == &&(*template, *status)).count() as f64;
        assert_eq!(sample(&m, &name) - sample(&before, &name), n, "{name}");
    }
    assert_eq!(
        sample(&m, &requests("unmatched", 404)) - sample(&before, &requests("unmatched", 404)),
        40.0
    );
    let labels: Vec<&String> = m.keys().filter(|k| k.contains("/portal")).collect();
    assert!(!labels.is_empty());
    for l in &labels {
        assert!(
            !l.contains(&id) && !l.contains(&key) && !l.contains("zz"),
            "{l}"
        );
    }
    // The series are the same before and after: fixed by the templates, not by the requests.
    let series = |m: &std::collections::BTreeMap<String, f64>| {
        m.keys()
            .filter(|k| k.starts_with("keyhook_http_requests_total"))
            .count()
    };
    assert_eq!(series(&m), series(&before));
}

/// Retention (`prune`, and the worker of `serve`/`deliver` with `--retention`) deletes the
/// links and sessions that ended the retention ago: a session at its 8 hours, a link opened,
/// revoked or expired, once it has no session left. A live session, and the link that opened
/// it, stay however short the retention.
#[test]
fn retention_prunes_links_and_sessions_that_ended_never_live_ones() {
    const DAY: i64 = 24 * HOUR;
    let env = Env::with_clock();
    let server = Server::start(&env);
    let links = "SELECT count(*) FROM portal_links";
    let sessions = "SELECT count(*) FROM portal_sessions";
    let ids = || -> Vec<String> {
        let mut v: Vec<String> = env
            .sql("SELECT id FROM portal_links")
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        v.sort();
        v
    };
    let prune = |older: &str| {
        let (code, v) = env.json(&["prune", "--older-than", older]);
        assert_eq!(code, 0, "{v}");
    };
    // Opened (its session ends 8 hours on), revoked, never opened (expires in 15 minutes).
    let (opened, _, token) = mint(&env, &server, "acme", &[]);
    let b = Browser::open(&server, &token);
    let (revoked, _, _) = mint(&env, &server, "acme", &[]);
    let (code, v) = as_user(&env, "acme", &["portal", "revoke", &revoked]);
    assert_eq!(code, 0, "{v}");
    let (expired, _, _) = mint(&env, &server, "acme", &[]);
    env.advance_clock(DAY);
    // A day on, a fresh link; nothing has ended two days ago yet.
    let (fresh, _, _) = mint(&env, &server, "acme", &[]);
    prune("2d");
    assert_eq!((env.sql_i64(links), env.sql_i64(sessions)), (4, 1));
    // Two more days: the session (ended at 8 hours) and the three links that ended on the
    // first day go; the fresh link, expired a day later, is within the retention.
    env.advance_clock(2 * DAY);
    prune("2d");
    assert_eq!(env.sql_i64(sessions), 0);
    assert_eq!(ids(), vec![fresh.clone()]);
    for gone in [&opened, &revoked, &expired] {
        assert!(!ids().contains(gone));
    }
    assert_eq!(b.get("/portal/keys").status, 401);
    // A live session is never pruned, nor the link that opened it, however short the
    // retention: the link was opened an hour ago, its session has 7 hours to go.
    let (live, _, token) = mint(&env, &server, "acme", &[]);
    let b = Browser::open(&server, &token);
    env.advance_clock(HOUR);
    prune("1s");
    assert_eq!(
        ids(),
        vec![live.clone()],
        "the fresh link expired an hour ago"
    );
    assert_eq!(env.sql_i64(sessions), 1);
    assert_eq!(b.get("/portal/keys").status, 200);
    drop(server);
    // Serve's worker prunes them by itself with its --retention.
    env.advance_clock(2 * DAY);
    let _server = Server::start_with(&env, &["--retention", "1d"]);
    assert!(
        crate::common::poll_until(std::time::Duration::from_secs(20), || {
            env.sql_i64(links) == 0
        }),
        "the worker did not prune the ended link"
    );
    assert_eq!(env.sql_i64(sessions), 0);
}

/// The portal's "Try filter" and `webhooks filter-test` are one core function
/// (`event_types::try_filter`): the same verdict on the type's example, and the same
/// refusals (the schema's, an unknown type, a type without an example), each by its field.
#[test]
fn try_filter_answers_as_webhooks_filter_test_does() {
    let env = Env::new();
    let server = Server::start(&env);
    let dir = env.dir.path();
    std::fs::write(
        dir.join("schema.json"),
        json!({"type": "object", "properties": {"title": {"type": "string"}}}).to_string(),
    )
    .unwrap();
    std::fs::write(dir.join("ex.json"), json!({"title": "Hi"}).to_string()).unwrap();
    let add = |name: &str, with_example: bool| {
        let mut cmd = env.cmd();
        cmd.args(["event-types", "add", name, "--schema"])
            .arg(dir.join("schema.json"));
        if with_example {
            cmd.arg("--example").arg(dir.join("ex.json"));
        }
        let r = cmd.output().unwrap();
        assert_eq!(r.status.code(), Some(0), "{r:?}");
    };
    add("post.updated", true);
    add("post.bare", false);
    let b = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    let portal = |filter: &str, event: &str| {
        b.post(
            "/portal/webhooks",
            &[
                ("url", "https://example.com/hook"),
                ("events", "post.updated"),
                ("filter", filter),
                ("intent", "try"),
                ("try_event", event),
            ],
        )
    };
    let cli = |filter: &str, event: &str| {
        env.json(&["webhooks", "filter-test", filter, "--event", event])
    };
    // Verdicts.
    for (filter, verdict, said) in [
        (r#"data.title == "Hi""#, true, "lets"),
        (r#"data.title == "No""#, false, "holds"),
    ] {
        let (code, v) = cli(filter, "post.updated");
        assert_eq!(
            (code, &v["data"]["result"]),
            (i32::from(!verdict), &json!(verdict))
        );
        let r = portal(filter, "post.updated");
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(r
            .body
            .contains(&format!("The filter {said} <code>post.updated</code>")));
    }
    // Refusals: the schema's (the same message), an unknown type, no example.
    let error_of = |html: &str, field: &str| {
        text_after(html, &format!("id=\"{field}-error\""))
            .map(|s| {
                s.trim_start_matches(|c| c != '>')
                    .trim_start_matches('>')
                    .to_string()
            })
            .unwrap_or_else(|| panic!("no {field} error in {html}"))
    };
    for (filter, event, cli_field, portal_field) in [
        (r#"data.titel == "Hi""#, "post.updated", "EXPR", "filter"),
        ("data.title == 5.0", "post.updated", "EXPR", "filter"),
        (r#"data.title == "Hi""#, "post.nope", "--event", "event"),
        (r#"data.title == "Hi""#, "post.bare", "data", "filter"),
    ] {
        let (code, v) = cli(filter, event);
        assert_eq!(code, 2, "{v}");
        assert_eq!(v["error"]["details"][0]["field"], cli_field, "{v}");
        let r = portal(filter, event);
        assert_eq!(r.status, 400, "{filter} {event}: {}", r.body);
        let said = error_of(&r.body, portal_field);
        if cli_field == "EXPR" {
            let message = str_of(&v["error"]["details"][0], "message");
            assert_eq!(
                said,
                message
                    .replace('&', "&amp;")
                    .replace('"', "&quot;")
                    .replace('<', "&lt;")
            );
        }
    }
}

/// An ordered webhook's page says it delivers in order, and its deliveries say which one
/// holds the queue and how many wait behind it (as `webhooks deliveries` and the API do).
#[test]
fn an_ordered_webhooks_page_shows_which_delivery_holds_the_queue() {
    let env = Env::with_clock();
    let receiver = Receiver::start();
    receiver.set_status(500);
    let w = env.create_webhook_with(
        &receiver.url("/switch"),
        "post.published",
        &["--ordered", "--retry-schedule", "1s,1s"],
    );
    let id = str_of(&w, "id").to_string();
    for n in 0..3 {
        let data = format!("{{\"n\": {n}}}");
        let (code, v) = as_user(
            &env,
            "default",
            &["events", "emit", "post.published", "--data", &data],
        );
        assert_eq!(code, 0, "{v}");
    }
    env.deliver_once();
    assert_eq!(receiver.requests().len(), 1, "the head only");
    let server = Server::start(&env);
    let b = Browser::open(&server, &mint(&env, &server, "default", &[]).2);
    let page = b.get(&format!("/portal/webhooks/{id}"));
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("<dt>Order</dt>"), "{}", page.body);
    let table = b.get(&format!("/portal/webhooks/{id}/deliveries.html"));
    assert_eq!(table.status, 200, "{}", table.body);
    assert_eq!(
        table.body.matches("holds the queue").count(),
        1,
        "{}",
        table.body
    );
    assert!(
        table
            .body
            .contains("holds the queue</span> 2 waiting behind it"),
        "{}",
        table.body
    );
    // An unordered webhook's page has no such fact.
    let plain = env.create_webhook(&receiver.url("/plain"), "post.published");
    let page = b.get(&format!("/portal/webhooks/{}", str_of(&plain, "id")));
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(!page.body.contains("<dt>Order</dt>"), "{}", page.body);
}
