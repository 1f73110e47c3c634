//! A running `keyhook serve` for integration tests: the real binary on an ephemeral loopback
//! port, its stderr (the access log) collected as it is written, an HTTP client for
//! well-formed requests and raw sockets for everything else. Dropping a [`Server`] sends it
//! SIGTERM and waits for it. Nothing here talks to any address but 127.0.0.1.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{poll, poll_until, scrubbed, sorted_keys, str_of, Env};

/// How long a test waits for the server to start, answer, log or stop before it fails.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// The keys collection, `/api/v1/api-keys`.
pub const KEYS: &str = "/api/v1/api-keys";

/// `POST /api/v1/api-keys` with `framing` headers, then `body` as sent (a raw request for the
/// HTTP layer's tests).
pub fn create_with(key: &str, framing: &str, body: &str) -> Vec<u8> {
    format!(
        "POST {KEYS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\n{framing}\r\n{body}"
    )
    .into_bytes()
}

/// Checks the status, the media type and the exact error envelope of `r`; returns `error`.
pub fn assert_error(r: &Resp, status: u16, code: &str) -> Value {
    assert_eq!(r.status, status, "{r:?}");
    assert_eq!(r.header("Content-Type"), Some("application/json"), "{r:?}");
    let v = r.json();
    assert_eq!(sorted_keys(&v), ["error"], "{r:?}");
    let err = &v["error"];
    assert_eq!(sorted_keys(err), ["code", "details", "message"], "{r:?}");
    assert_eq!(err["code"], code, "{r:?}");
    assert!(!str_of(err, "message").is_empty(), "{r:?}");
    for d in err["details"].as_array().expect("details is an array") {
        assert_eq!(sorted_keys(d), ["field", "message"], "{r:?}");
        assert!(!str_of(d, "field").is_empty() && !str_of(d, "message").is_empty());
    }
    err.clone()
}

pub struct Server {
    child: Child,
    pub port: u16,
    log: Arc<Mutex<String>>,
    reader: Option<thread::JoinHandle<()>>,
    agent: ureq::Agent,
}

/// An HTTP response, whatever its status.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON; fails the test if it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("response body is not JSON ({e}): {self:?}"))
    }

    /// The `code` of an error envelope; empty if the body has none.
    pub fn error_code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    /// `data` of a success envelope, after checking that the envelope has nothing else.
    pub fn data(&self) -> Value {
        let v = self.json();
        let keys: Vec<&String> = v.as_object().expect("an object").keys().collect();
        assert_eq!(keys, ["data"], "success envelope of {self:?}");
        v["data"].clone()
    }
}

/// A response read off a raw socket.
#[derive(Debug)]
pub struct RawResp {
    pub status: u16,
    /// Status line and headers, as sent.
    pub head: String,
    pub body: Vec<u8>,
}

impl RawResp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("response body is not JSON ({e}): {self:?}"))
    }
}

/// The binary with the environment of `common::bare_cmd` (no `KEYHOOK_*`, `NO_COLOR`, XDG).
fn keyhook() -> Command {
    scrubbed(Command::new(assert_cmd::cargo::cargo_bin("keyhook")))
}

impl Server {
    /// `keyhook --db <env's db> serve --bind 127.0.0.1:0`.
    pub fn start(env: &Env) -> Server {
        Server::start_with(env, &[])
    }

    /// [`Server::start`] with more `serve` arguments (`--threads N`).
    pub fn start_with(env: &Env, args: &[&str]) -> Server {
        Server::spawn(keyhook(), env, args)
    }

    /// [`Server::start_with`] with the open-file limit (`ulimit -n`) of the process set to
    /// `limit`, through `sh`, which then `exec`s the binary (so the pid is the server's).
    pub fn start_with_fd_limit(env: &Env, limit: u32, args: &[&str]) -> Server {
        let mut sh = scrubbed(Command::new("sh"));
        sh.arg("-c")
            .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
            .arg(assert_cmd::cargo::cargo_bin("keyhook"));
        Server::spawn(sh, env, args)
    }

    /// [`Server::start_with`] with `vars` set in the server's environment (`KEYHOOK_LOG`).
    pub fn start_with_env(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> Server {
        let mut program = keyhook();
        program.envs(vars.iter().copied());
        Server::spawn(program, env, args)
    }

    /// Runs `program` (the binary, or something that `exec`s it with the arguments that
    /// follow) with `--db <env's db> serve --bind 127.0.0.1:0` and `args`.
    fn spawn(program: Command, env: &Env, args: &[&str]) -> Server {
        let names_its_database = |first: &str| match env.pg() {
            None => first.contains(&format!("(database {})", env.db().display())),
            // The URL, without its password.
            Some(pg) => {
                first.contains("(database postgres://") && !first.contains(pg.cluster().password())
            }
        };
        Server::spawn_on(
            program,
            &env.db_arg(),
            env.clock_file(),
            names_its_database,
            args,
        )
    }

    /// `keyhook --db <url> serve --bind 127.0.0.1:0 ARGS` on the PostgreSQL database `url`
    /// (not an [`Env`]'s), for several instances on one database; `password` is the URL's,
    /// which the first line must not show.
    /// With `clock`, the server runs on that test clock file (`KEYHOOK_TEST_CLOCK_FILE`).
    pub fn start_on_url(
        url: &str,
        password: &str,
        clock: Option<&std::path::Path>,
        args: &[&str],
    ) -> Server {
        let names_its_database =
            |first: &str| first.contains("(database postgres://") && !first.contains(password);
        Server::spawn_on(keyhook(), url.as_ref(), clock, names_its_database, args)
    }

    fn spawn_on(
        mut program: Command,
        db: &std::ffi::OsStr,
        clock: Option<&std::path::Path>,
        names_its_database: impl Fn(&str) -> bool,
        args: &[&str],
    ) -> Server {
        if let Some(file) = clock {
            program.env(crate::common::TEST_CLOCK_FILE, file);
        }
        let mut child = program
            .arg("--db")
            .arg(db)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn keyhook serve");
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (first_tx, first_rx) = mpsc::channel();
        let reader = {
            let log = Arc::clone(&log);
            thread::spawn(move || {
                let mut r = BufReader::new(stderr);
                let mut line = Vec::new();
                loop {
                    line.clear();
                    match r.read_until(b'\n', &mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    let text = String::from_utf8_lossy(&line);
                    log.lock().unwrap().push_str(&text);
                    let _ = first_tx.send(text.into_owned());
                }
            })
        };
        let first = match first_rx.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(_) => {
                let _ = child.kill();
                panic!("keyhook serve printed nothing on stderr");
            }
        };
        // With `serve --log-format json`, the same message is the line's "message".
        let first = match serde_json::from_str::<Value>(&first) {
            Ok(Value::Object(o)) => o["message"].as_str().unwrap_or_default().to_string(),
            _ => first,
        };
        let port = first
            .strip_prefix("keyhook: listening on http://127.0.0.1:")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|p| p.parse::<u16>().ok());
        let Some(port) = port else {
            let _ = child.kill();
            panic!("unexpected first stderr line of keyhook serve: {first:?}");
        };
        if !names_its_database(&first) {
            let _ = child.kill();
            panic!("the first line does not name the database: {first:?}");
        }
        let agent = ureq::AgentBuilder::new()
            .timeout(PATIENCE)
            .redirects(0)
            .build();
        Server {
            child,
            port,
            log,
            reader: Some(reader),
            agent,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's thread count (`Threads:` in /proc/PID/status).
    pub fn threads(&self) -> usize {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("read /proc/PID/status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .and_then(|n| n.trim().parse().ok())
            .expect("a Threads: line")
    }

    /// The names of the server's threads (/proc/PID/task/*/comm), sorted.
    pub fn thread_names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(format!("/proc/{}/task", self.pid()))
            .expect("read /proc/PID/task")
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .map(|n| n.trim_end().to_string())
            .collect();
        names.sort();
        names
    }

    /// Waits until the outbox worker beside the API has started: its `senders` sending
    /// threads (`deliver-N`, `--delivery-workers`) run, which it starts after opening its
    /// database connections and its pruner. `keyhook serve` starts the worker in the
    /// background, so a count of the server's threads or descriptors taken as a baseline
    /// before this may miss the worker's, however long the test waited for a steady count.
    pub fn wait_for_worker(&self, senders: usize) {
        let started = poll_until(PATIENCE, || {
            let names = self.thread_names();
            names.iter().filter(|n| n.starts_with("deliver-")).count() == senders
        });
        assert!(
            started,
            "the outbox worker did not start {senders} senders within {PATIENCE:?}: {:?}",
            self.thread_names()
        );
    }

    /// How many file descriptors the server has open (entries of /proc/PID/fd).
    pub fn open_fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .expect("read /proc/PID/fd")
            .count()
    }

    /// What each of the server's descriptors names (a file, `socket:[…]`, …), sorted: for a
    /// message when too many are open.
    pub fn open_fd_names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .expect("read /proc/PID/fd")
            .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
            .map(|t| t.display().to_string())
            .collect();
        names.sort();
        names
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Sends a request with `headers` and, if given, `body`; any status is returned.
    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> Resp {
        let mut rq = self.agent.request(method, &self.url(path));
        for (k, v) in headers {
            rq = rq.set(k, v);
        }
        let result = match body {
            Some(b) => rq.send_bytes(b),
            None => rq.call(),
        };
        let resp = match result {
            Ok(r) | Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        let status = resp.status();
        let headers = resp
            .headers_names()
            .into_iter()
            .flat_map(|name| {
                resp.all(&name)
                    .into_iter()
                    .map(|v| (name.clone(), v.to_string()))
                    .collect::<Vec<_>>()
            })
            .collect();
        let body = resp.into_string().expect("read the response body");
        Resp {
            status,
            headers,
            body,
        }
    }

    /// `method path` with `Authorization: Bearer <key>` if a key is given.
    pub fn call(&self, method: &str, path: &str, key: Option<&str>) -> Resp {
        let auth = key.map(|k| format!("Bearer {k}"));
        let headers: Vec<(&str, &str)> = auth
            .as_deref()
            .map(|a| vec![("Authorization", a)])
            .unwrap_or_default();
        self.send(method, path, &headers, None)
    }

    pub fn get(&self, path: &str, key: &str) -> Resp {
        self.call("GET", path, Some(key))
    }

    pub fn delete(&self, path: &str, key: &str) -> Resp {
        self.call("DELETE", path, Some(key))
    }

    /// POST of `body` as `application/json` with the key (if any).
    pub fn post(&self, path: &str, key: Option<&str>, content_type: &str, body: &[u8]) -> Resp {
        let auth = key.map(|k| format!("Bearer {k}"));
        let mut headers = vec![("Content-Type", content_type)];
        if let Some(a) = auth.as_deref() {
            headers.push(("Authorization", a));
        }
        self.send("POST", path, &headers, Some(body))
    }

    pub fn post_json(&self, path: &str, key: &str, body: &Value) -> Resp {
        self.send_json("POST", path, key, body)
    }

    /// `method path` with `body` as `application/json` and `Authorization: Bearer <key>`.
    pub fn send_json(&self, method: &str, path: &str, key: &str, body: &Value) -> Resp {
        let auth = format!("Bearer {key}");
        self.send(
            method,
            path,
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
            ],
            Some(body.to_string().as_bytes()),
        )
    }

    /// A raw connection to the server, with read and write timeouts of [`PATIENCE`].
    pub fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to keyhook serve");
        s.set_read_timeout(Some(PATIENCE)).unwrap();
        s.set_write_timeout(Some(PATIENCE)).unwrap();
        s
    }

    /// A connection from the loopback address `source` (say 127.0.0.2), for the limits that
    /// count per client address.
    pub fn connect_from(&self, source: std::net::Ipv4Addr) -> TcpStream {
        use socket2::{Domain, Socket, Type};
        let socket = Socket::new(Domain::IPV4, Type::STREAM, None).expect("a socket");
        socket
            .bind(&std::net::SocketAddr::from((source, 0)).into())
            .expect("bind the loopback source address");
        socket
            .connect(&std::net::SocketAddr::from(([127, 0, 0, 1], self.port)).into())
            .expect("connect to keyhook serve");
        let s: TcpStream = socket.into();
        s.set_read_timeout(Some(PATIENCE)).unwrap();
        s.set_write_timeout(Some(PATIENCE)).unwrap();
        s
    }

    /// Waits until the server has read everything sent on `client` so far: the kernel holds
    /// no unread byte on the server's end of that connection (its `rx_queue` in
    /// `/proc/net/tcp`). What a test waits for before it acts on a request the server is in
    /// the middle of (a signal, the rest of a body), instead of sleeping.
    pub fn wait_until_read(&self, client: &TcpStream) {
        let mine = client.local_addr().expect("the client's address").port();
        let unread = || -> Option<u64> {
            let table = std::fs::read_to_string("/proc/net/tcp").expect("read /proc/net/tcp");
            table.lines().skip(1).find_map(|line| {
                // sl local_address rem_address st tx_queue:rx_queue ...
                let f: Vec<&str> = line.split_whitespace().collect();
                let port = |a: &str| u16::from_str_radix(a.rsplit(':').next()?, 16).ok();
                if port(f.get(1)?)? != self.port || port(f.get(2)?)? != mine {
                    return None;
                }
                u64::from_str_radix(f.get(4)?.split(':').nth(1)?, 16).ok()
            })
        };
        assert!(
            poll_until(PATIENCE, || unread() == Some(0)),
            "the server did not read what port {mine} sent within {PATIENCE:?} \
             ({:?} bytes unread):\n{}",
            unread(),
            self.log()
        );
    }

    /// Waits until the server refuses new connections: it has seen its stop signal and
    /// closed its listener (it may still be finishing the requests in flight).
    pub fn wait_until_refusing(&self) {
        assert!(
            poll_until(PATIENCE, || TcpStream::connect(("127.0.0.1", self.port))
                .is_err()),
            "keyhook serve still accepts connections {PATIENCE:?} after a stop:\n{}",
            self.log()
        );
    }

    /// Writes `bytes` on a new connection and reads one response (None if the server closed
    /// the connection without answering).
    pub fn raw(&self, bytes: &[u8]) -> Option<RawResp> {
        let mut s = self.connect();
        // The server may answer and close before it has read everything.
        let _ = s.write_all(bytes);
        read_response(&mut s)
    }

    /// Everything the server wrote on stderr so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// The access-log lines so far: every stderr line but the `keyhook: ` messages.
    pub fn access_lines(&self) -> Vec<String> {
        self.log()
            .lines()
            .filter(|l| !l.starts_with("keyhook: "))
            .map(str::to_string)
            .collect()
    }

    /// Waits until the access log has at least `n` lines and returns them.
    pub fn wait_for_access_lines(&self, n: usize) -> Vec<String> {
        let lines = poll(PATIENCE, || {
            let lines = self.access_lines();
            (lines.len() >= n).then_some(lines)
        });
        lines.unwrap_or_else(|| {
            panic!(
                "expected {n} access-log lines, got {}:\n{}",
                self.access_lines().len(),
                self.log()
            )
        })
    }

    /// Waits until the server's stderr holds `needle` and returns all of it: a line the
    /// server wrote reaches this test through a reader thread, a moment after the response
    /// that followed it.
    pub fn wait_for_log(&self, needle: &str) -> String {
        poll(PATIENCE, || {
            let log = self.log();
            log.contains(needle).then_some(log)
        })
        .unwrap_or_else(|| panic!("no {needle:?} in the server's log:\n{}", self.log()))
    }

    /// Sends `signal` (`TERM`, `INT`) to the server.
    pub fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -{signal} {} failed", self.pid());
    }

    /// Waits for the process to exit; returns its status, how long that took, and its whole
    /// stderr.
    pub fn wait(&mut self) -> (ExitStatus, Duration, String) {
        let started = Instant::now();
        let exited = poll(PATIENCE, || {
            self.child.try_wait().expect("wait for keyhook serve")
        });
        let Some(status) = exited else {
            let _ = self.child.kill();
            let _ = self.child.wait();
            panic!(
                "keyhook serve did not exit within {PATIENCE:?}:\n{}",
                self.log()
            );
        };
        let took = started.elapsed();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        (status, took, self.log())
    }

    /// [`Server::signal`], then [`Server::wait`].
    pub fn stop_with(&mut self, signal: &str) -> (ExitStatus, Duration, String) {
        self.signal(signal);
        self.wait()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(self.pid().to_string())
                .status();
            poll_until(PATIENCE, || !matches!(self.child.try_wait(), Ok(None)));
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Reads one response: the head, then `Content-Length` bytes of body (a response without
/// `Content-Length` is returned with what is left unread). None if the connection closed or
/// timed out before a complete head.
pub fn read_response(s: &mut TcpStream) -> Option<RawResp> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let mut r = RawResp {
        status,
        head,
        body: buf[head_end..].to_vec(),
    };
    if let Some(len) = r
        .header("Content-Length")
        .and_then(|l| l.parse::<usize>().ok())
    {
        while r.body.len() < len {
            match s.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => r.body.extend_from_slice(&chunk[..n]),
            }
        }
    }
    Some(r)
}

/// Reads until the server closes the connection and splits what came into responses, each
/// framed by its `Content-Length` (for pipelined requests).
pub fn read_all_responses(s: &mut TcpStream) -> Vec<RawResp> {
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let mut out = Vec::new();
    let mut rest = &buf[..];
    while let Some(head_end) = rest.windows(4).position(|w| w == b"\r\n\r\n") {
        let head = String::from_utf8_lossy(&rest[..head_end + 4]).into_owned();
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {head:?}"));
        let mut r = RawResp {
            status,
            head,
            body: Vec::new(),
        };
        let len = r
            .header("Content-Length")
            .and_then(|l| l.parse::<usize>().ok())
            .unwrap_or(0);
        let body_end = (head_end + 4 + len).min(rest.len());
        r.body = rest[head_end + 4..body_end].to_vec();
        rest = &rest[body_end..];
        out.push(r);
    }
    out
}

/// An HTTP/1.1 request as bytes, with `Host` and `Connection: close` and, when a body is
/// given, its `Content-Length`.
pub fn raw_request(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() {
        out.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}
