//! The real nginx and Caddy in front of a small loopback API, with the configurations that
//! docs/guarding.md prints (read from it; only the addresses are replaced by ephemeral loopback
//! ones), asking a real `keyhook serve` (CONTRACT §13). The proxies are Debian's packages,
//! installed with apt-get when missing (as tests/support/test-postgres installs PostgreSQL);
//! without them, and no way to install them, the tests skip, and fail under `CI=true`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::Value;

use crate::common::{ci, is_root, poll_until, Env};
use crate::server::{read_response, RawResp, Server, PATIENCE};

/// One request as the API behind the proxy read it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The API behind the proxy: answers every request 200 `posts` (an `OPTIONS`: 204 with CORS
/// headers) and records it. One request per connection.
struct Upstream {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Upstream {
    fn start() -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let log = Arc::clone(&log);
                thread::spawn(move || serve_one(conn, &log));
            }
        });
        Upstream { port, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve_one(conn: TcpStream, log: &Mutex<Vec<Seen>>) {
    conn.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut r = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if r.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).unwrap_or(0) == 0 || h.trim_end().is_empty() {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    let _ = r.read_exact(&mut body);
    let options = method == "OPTIONS";
    log.lock().unwrap().push(Seen {
        method,
        target,
        headers,
    });
    let answer: &[u8] = if options {
        b"HTTP/1.1 204 No Content\r\nAccess-Control-Allow-Origin: *\r\nAccess-Control-Allow-Headers: Authorization\r\nConnection: close\r\n\r\n"
    } else {
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nposts"
    };
    let mut w = conn;
    let _ = w.write_all(answer);
}

/// The first ```` ```lang ```` block of docs/guarding.md.
fn block(lang: &str) -> String {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guarding.md"))
            .unwrap();
    let start = page
        .find(&format!("```{lang}\n"))
        .unwrap_or_else(|| panic!("docs/guarding.md has no {lang} block"));
    let rest = &page[start + lang.len() + 4..];
    rest[..rest.find("\n```").unwrap()].to_string()
}

/// A free loopback port (bound, then let go: the proxy binds it next).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The proxy's binary, installed with apt-get (package `package`) when missing and this is
/// root; None (a skip) without it outside CI, a panic under CI.
fn binary(name: &str, package: &str) -> Option<PathBuf> {
    let find = || {
        ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]
            .iter()
            .map(|d| Path::new(d).join(name))
            .find(|p| p.is_file())
    };
    if let Some(p) = find() {
        return Some(p);
    }
    let why = if !is_root() {
        format!("{name} is not installed, and only root can apt-get install {package}")
    } else {
        eprintln!("proxies: installing {package} with apt-get (once per machine)");
        // Debian starts the packages' services when it installs them: policy-rc.d's 101 keeps
        // them from listening anywhere. One apt-get at a time (flock), on the lock the
        // PostgreSQL harness takes for its own install: the tests start both at once on a
        // fresh machine, and two apt-gets would fail on dpkg's lock. The others wait, then
        // find the binary.
        let lock = std::env::temp_dir().join("test-postgres-apt.lock");
        let ok = Command::new("flock")
            .arg(&lock)
            .args([
                "sh",
                "-c",
                &format!(
                    "set -e; [ -x /usr/sbin/{name} ] || [ -x /usr/bin/{name} ] && exit 0; \
                     export DEBIAN_FRONTEND=noninteractive; \
                     [ -e /usr/sbin/policy-rc.d ] || {{ printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made=1; }}; \
                     apt-get update -q; apt-get install -y -q {package}; \
                     [ -z \"${{made:-}}\" ] || rm -f /usr/sbin/policy-rc.d"
                ),
            ])
            .status()
            .is_ok_and(|s| s.success());
        match find() {
            Some(p) => return Some(p),
            None if ok => format!("apt-get installed {package} but there is no {name}"),
            None => format!("apt-get install {package} failed"),
        }
    };
    if ci() {
        panic!("{name} is required when CI=true: {why}");
    }
    eprintln!("skipped: {why}");
    None
}

/// A running proxy, stopped when dropped.
struct Proxy {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Proxy {
    /// SIGTERM first, not SIGKILL: nginx's master stops its workers on TERM, and killed it
    /// leaves them running, orphans that outlive the test run. SIGKILL only if it has not
    /// exited by then.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let child = &mut self.child;
        if !poll_until(PATIENCE, || matches!(child.try_wait(), Ok(Some(_)))) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl Proxy {
    /// Starts `command` (the proxy `name`, configured in `dir` to listen on `port`) and waits
    /// until it listens; its standard error (and `dir`'s error.log) is read only if it exits
    /// first.
    fn start(name: &str, command: &mut Command, port: u16, dir: tempfile::TempDir) -> Proxy {
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut proxy = Proxy {
            child,
            port,
            _dir: dir,
        };
        let up = poll_until(PATIENCE, || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
                || proxy.child.try_wait().ok().flatten().is_some()
        });
        assert!(up, "{name} did not listen within {PATIENCE:?}");
        if let Some(status) = proxy.child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut e) = proxy.child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            let log =
                std::fs::read_to_string(proxy._dir.path().join("error.log")).unwrap_or_default();
            panic!("{name} exited ({status}): {err}{log}");
        }
        proxy
    }

    /// Sends raw `head` lines (CRLF added) to the proxy, with `Connection: close`.
    fn request(&self, head: &[&str]) -> RawResp {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(PATIENCE)).unwrap();
        let mut text = head.join("\r\n");
        text.push_str(&format!(
            "\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        ));
        s.write_all(text.as_bytes()).unwrap();
        read_response(&mut s).expect("an answer from the proxy")
    }
}

/// The addresses of a configuration replaced: keyhook's and the API's by the test's, the
/// proxy's listening one by a free loopback port.
fn addressed(conf: &str, keyhook: u16, api: u16, listen: (&str, String)) -> String {
    assert!(conf.contains("127.0.0.1:8787") && conf.contains("127.0.0.1:8080"));
    assert!(conf.contains(listen.0), "{conf}");
    conf.replace("127.0.0.1:8787", &format!("127.0.0.1:{keyhook}"))
        .replace("127.0.0.1:8080", &format!("127.0.0.1:{api}"))
        .replace(listen.0, &listen.1)
}

fn nginx(keyhook: u16, api: u16) -> Option<Proxy> {
    let bin = binary("nginx", "nginx")?;
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let site = addressed(
        &block("nginx"),
        keyhook,
        api,
        ("listen 80;", format!("listen 127.0.0.1:{port};")),
    );
    let d = dir.path().display();
    // As root, the workers run as the user nginx is built for, and must reach the temp dir.
    let user = if is_root() { "user root;" } else { "" };
    let conf = format!(
        "{user}\ndaemon off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n access_log off;\n client_body_temp_path {d}/body;\n proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi;\n uwsgi_temp_path {d}/uwsgi;\n scgi_temp_path {d}/scgi;\n\
         {site}\n}}\n"
    );
    std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
    let mut command = Command::new(bin);
    command
        .arg("-p")
        .arg(dir.path())
        .arg("-e")
        .arg(dir.path().join("error.log"))
        .arg("-c")
        .arg(dir.path().join("nginx.conf"));
    Some(Proxy::start("nginx", &mut command, port, dir))
}

fn caddy(keyhook: u16, api: u16) -> Option<Proxy> {
    let bin = binary("caddy", "caddy")?;
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let site = addressed(
        &block("caddyfile"),
        keyhook,
        api,
        (":80 {", format!("http://127.0.0.1:{port} {{")),
    );
    // No admin endpoint, no certificates: loopback only.
    let conf = format!("{{\n\tadmin off\n\tauto_https off\n}}\n\n{site}\n");
    let file = dir.path().join("Caddyfile");
    std::fs::write(&file, conf).unwrap();
    let mut command = Command::new(bin);
    command
        .args(["run", "--adapter", "caddyfile", "--config"])
        .arg(&file)
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path());
    Some(Proxy::start("caddy", &mut command, port, dir))
}

fn error_of(r: &RawResp) -> Value {
    let v = r.json();
    assert!(v["error"]["code"].is_string(), "{r:?}");
    v["error"].clone()
}

/// Every case through `proxy`, whose API is `api`.
fn exercise(name: &str, env: &Env, proxy: &Proxy, api: &Upstream) {
    let scoped = env.create_key("brand-a", &["--profile", "brand-a"]);
    let key = scoped["key"].as_str().unwrap();
    let bearer = format!("Authorization: Bearer {key}");
    let user = scoped["userId"].as_str().unwrap();

    // Allowed: the API's answer, with who is calling; the client's forged headers never
    // reach the API.
    let before = api.seen().len();
    let r = proxy.request(&[
        "POST /profiles/brand-a/posts?draft=1 HTTP/1.1",
        &bearer,
        "X-Keyhook-User: admin",
        "X_Keyhook_User: admin",
        "X-Keyhook-Profiles: *",
        "Content-Length: 0",
    ]);
    assert_eq!(r.status, 200, "{name}: {r:?}");
    assert_eq!(r.body, b"posts", "{name}");
    let seen = api.seen();
    assert_eq!(seen.len(), before + 1, "{name}: {seen:?}");
    let got = seen.last().unwrap();
    assert_eq!(got.method, "POST", "{name}");
    assert_eq!(got.target, "/profiles/brand-a/posts?draft=1", "{name}");
    assert_eq!(got.header("X-Keyhook-User"), Some(user), "{name}: {got:?}");
    assert_eq!(got.header("X-Keyhook-Profiles"), Some("brand-a"), "{name}");
    assert_eq!(
        got.header("X-Keyhook-Permission"),
        Some("readwrite"),
        "{name}"
    );
    assert_eq!(
        got.header("X-Keyhook-Key-Id"),
        scoped["id"].as_str(),
        "{name}"
    );
    assert_eq!(
        got.header("X-Keyhook-Key-Prefix"),
        Some(&key[..11]),
        "{name}"
    );
    let forged = |h: &Seen| {
        h.headers
            .iter()
            .any(|(k, v)| v == "admin" || k.to_ascii_lowercase().starts_with("x_keyhook"))
    };
    assert!(
        !forged(got),
        "{name}: a forged header reached the API: {got:?}"
    );

    // Each refusal reaches the client with its body and headers; the API sees nothing.
    let before = api.seen().len();
    let r = proxy.request(&["GET /profiles/brand-a/posts HTTP/1.1"]);
    assert_eq!(r.status, 401, "{name}: {r:?}");
    assert_eq!(error_of(&r)["code"], "UNAUTHORIZED", "{name}");
    assert_eq!(
        r.header("WWW-Authenticate"),
        Some("Bearer realm=\"keyhook\""),
        "{name}"
    );
    let mut typo = key.to_string();
    typo.replace_range(20..21, if &key[20..21] == "0" { "1" } else { "0" });
    let r = proxy.request(&[
        "GET /profiles/brand-a/posts HTTP/1.1",
        &format!("Authorization: Bearer {typo}"),
    ]);
    assert_eq!(r.status, 401, "{name}: {r:?}");
    assert_eq!(
        error_of(&r)["message"],
        "API key checksum mismatch",
        "{name}"
    );
    let r = proxy.request(&[
        "POST /profiles/brand-b/posts HTTP/1.1",
        &bearer,
        "Content-Length: 0",
    ]);
    assert_eq!(r.status, 403, "{name}: {r:?}");
    let e = error_of(&r);
    assert_eq!(e["code"], "FORBIDDEN", "{name}");
    assert_eq!(e["details"][0]["field"], "profileId", "{name}: {e}");
    let readonly = env.create_key("ro", &["--permission", "readonly"]);
    let r = proxy.request(&[
        "DELETE /posts/1 HTTP/1.1",
        &format!(
            "Authorization: Bearer {}",
            readonly["key"].as_str().unwrap()
        ),
    ]);
    assert_eq!(r.status, 403, "{name}: {r:?}");
    assert_eq!(
        error_of(&r)["message"],
        "readonly key cannot DELETE",
        "{name}"
    );
    // A client's own description of the request never passes for another profile.
    let r = proxy.request(&[
        "POST /profiles/brand-b/posts HTTP/1.1",
        &bearer,
        "X-Original-URI: /profiles/brand-a/posts",
        "X-Forwarded-Uri: /profiles/brand-a/posts",
        "X-Original-Method: GET",
        "X-Forwarded-Method: GET",
        "Content-Length: 0",
    ]);
    assert!(matches!(r.status, 400 | 403), "{name}: {r:?}");
    error_of(&r);
    // A dot segment never passes as brand-a.
    let r = proxy.request(&["GET /profiles/brand-a/../brand-b/posts HTTP/1.1", &bearer]);
    assert_ne!(r.status, 200, "{name}: {r:?}");
    // 429 with Retry-After.
    let limited = env.create_key("limited", &["--rate-limit", "1/min"]);
    let lim = format!("Authorization: Bearer {}", limited["key"].as_str().unwrap());
    assert_eq!(
        proxy.request(&["GET /posts HTTP/1.1", &lim]).status,
        200,
        "{name}"
    );
    let after_allowed = api.seen().len();
    let r = proxy.request(&["GET /posts HTTP/1.1", &lim]);
    assert_eq!(r.status, 429, "{name}: {r:?}");
    assert_eq!(error_of(&r)["code"], "RATE_LIMITED", "{name}");
    assert!(
        r.header("Retry-After")
            .is_some_and(|s| s.parse::<u64>().unwrap() >= 1),
        "{name}: {r:?}"
    );
    assert_eq!(
        api.seen().len(),
        after_allowed,
        "{name}: a refusal reached the API"
    );
    assert_eq!(
        api.seen().len(),
        before + 1,
        "{name}: only the allowed GET reached it"
    );

    // CORS preflight goes to the API unchecked.
    let r = proxy.request(&[
        "OPTIONS /profiles/brand-a/posts HTTP/1.1",
        "Origin: http://app.localhost",
        "Access-Control-Request-Method: POST",
    ]);
    assert_eq!(r.status, 204, "{name}: {r:?}");
    assert_eq!(r.header("Access-Control-Allow-Origin"), Some("*"), "{name}");
    let got = api.seen().last().unwrap().clone();
    assert_eq!(got.method, "OPTIONS", "{name}");
    assert!(got.header("X-Keyhook-User").is_none(), "{name}: {got:?}");
}

fn keyhook(env: &Env) -> Server {
    Server::start_with(
        env,
        &[
            "--auth-profile",
            "/profiles/{profile}/",
            "--trusted-proxy",
            "127.0.0.1/32",
        ],
    )
}

#[test]
fn nginx_guards_the_api_with_the_documented_configuration() {
    let env = Env::new();
    let server = keyhook(&env);
    let api = Upstream::start();
    let Some(proxy) = nginx(server.port, api.port) else {
        return;
    };
    exercise("nginx", &env, &proxy, &api);
}

#[test]
fn caddy_guards_the_api_with_the_documented_configuration() {
    let env = Env::new();
    let server = keyhook(&env);
    let api = Upstream::start();
    let Some(proxy) = caddy(server.port, api.port) else {
        return;
    };
    exercise("caddy", &env, &proxy, &api);
}
