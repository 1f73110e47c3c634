//! A throwaway PostgreSQL for keyhook's tests (a dev-dependency only, never a runtime one).
//!
//! - Debian's binaries (`/usr/lib/postgresql/*/bin`), installed with apt-get when missing
//!   (once per machine: a lock file serialises the test processes that find them missing).
//! - One cluster per test process, started on first use ([`cluster`]); a test that stops its
//!   server gets a cluster of its own ([`Cluster::private`], [`Cluster::private_tls`]).
//! - One database per test ([`database`], [`Cluster::database`]), dropped with its handle; its
//!   URL carries the superuser's password: `postgres://keyhook:PASSWORD@127.0.0.1:PORT/DB`.
//!
//! Without PostgreSQL (and no way to install it) [`cluster`], [`database`] and the private
//! clusters print why and return `None`, and the caller skips. Under `CI=true` they panic
//! instead: a missing PostgreSQL fails CI, it is never a silent skip.
//!
//! Every cluster lives in a temporary directory of its own, and a watchdog (`sh`) waits for
//! the end of a pipe that this process holds. However the process ends (returning, a panic,
//! SIGKILL), the pipe closes, and the watchdog stops the server (`pg_ctl stop -m immediate`)
//! and removes the directory. A private cluster's handle does the same when it drops.

use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::io::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

mod suite;
pub use suite::{on_postgres, run_again_on_postgres, BACKEND_VAR};

/// The superuser of every cluster, and the user in every URL.
pub const USER: &str = "keyhook";

/// Restricts the ports clusters listen on to a range, `FIRST-LAST` (e.g. `55500-55599`);
/// without it the system picks a free loopback port.
pub const PORTS_VAR: &str = "KEYHOOK_TESTPG_PORTS";

/// A PostgreSQL server in a temporary directory, listening on 127.0.0.1 only.
pub struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    password: String,
    /// The OS user that runs the server when this process is root (`postgres`).
    owner: Option<Owner>,
    /// The CA certificate that signed the server's, for a cluster with `ssl=on`.
    ca: Option<PathBuf>,
    shared: bool,
    watchdog: Mutex<Option<Watchdog>>,
}

#[derive(Clone, Copy)]
struct Owner {
    uid: u32,
    gid: u32,
}

/// The `sh` that tears the cluster down when `pipe` closes.
struct Watchdog {
    child: Child,
    pipe: ChildStdin,
}

/// Why there is no cluster.
#[derive(Debug, Clone)]
enum Unavailable {
    /// No PostgreSQL and no way to install it: a skip, or a failure under `CI=true`.
    Missing(String),
    /// PostgreSQL is there but the cluster could not be made: always a failure.
    Broken(String),
}

static SHARED: OnceLock<Result<Cluster, Unavailable>> = OnceLock::new();

/// This process's cluster, started on first use; `None` (reason printed) when PostgreSQL is
/// missing and cannot be installed, outside CI.
pub fn cluster() -> Option<&'static Cluster> {
    let made = SHARED.get_or_init(|| Cluster::create(false, true));
    available(made.as_ref().map_err(Clone::clone), ci())
}

/// Whether PostgreSQL's binaries are here (installed now if need be), without starting a
/// cluster; `false` with the reason printed, or a panic under `CI=true`, when they are not.
pub fn installed() -> bool {
    let found = postgres_bin().map_err(Unavailable::Missing);
    available(found, ci()).is_some()
}

/// A new database on this process's cluster (see [`cluster`]).
pub fn database() -> Option<Database<'static>> {
    cluster().map(Cluster::database)
}

/// Whether `CI` says this is a CI run (`CI=true`, as CI services set it).
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// `Some` for a cluster; for a missing PostgreSQL, `None` with the reason printed, or a panic
/// in CI; a panic for a broken one.
fn available<T>(made: Result<T, Unavailable>, ci: bool) -> Option<T> {
    match made {
        Ok(c) => Some(c),
        Err(Unavailable::Missing(why)) if ci => {
            panic!("PostgreSQL is required when CI=true, and {why}")
        }
        Err(Unavailable::Missing(why)) => {
            eprintln!("skipped: the PostgreSQL tests need PostgreSQL, and {why}");
            None
        }
        Err(Unavailable::Broken(why)) => panic!("could not start a PostgreSQL cluster: {why}"),
    }
}

impl Cluster {
    /// A cluster of this test's own, for tests that stop and start the server; it is torn
    /// down when the handle drops.
    pub fn private() -> Option<Cluster> {
        available(Cluster::create(false, false), ci())
    }

    /// A cluster of this test's own with `ssl=on`: a server certificate for `127.0.0.1` and
    /// `localhost` signed by a throwaway CA ([`Cluster::ca_cert`]). It refuses connections
    /// without TLS, so a connection that works is encrypted; its URLs say `sslmode=require`.
    pub fn private_tls() -> Option<Cluster> {
        available(Cluster::create(true, false), ci())
    }

    /// The port the server listens on, at 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The superuser's password, which every URL carries (tests check it is never printed).
    pub fn password(&self) -> &str {
        &self.password
    }

    /// The temporary directory that holds the cluster (data, socket, log, certificates).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The CA certificate (PEM) of a [`Cluster::private_tls`], for `sslrootcert` and
    /// `sslmode=verify-full`.
    pub fn ca_cert(&self) -> Option<&Path> {
        self.ca.as_deref()
    }

    /// The server's log file.
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    /// `postgres://keyhook:PASSWORD@127.0.0.1:PORT/DB`, with `?sslmode=require` on a TLS
    /// cluster.
    pub fn url(&self, db: &str) -> String {
        let tls = if self.ca.is_some() {
            "?sslmode=require"
        } else {
            ""
        };
        format!(
            "postgres://{USER}:{}@127.0.0.1:{}/{db}{tls}",
            self.password, self.port
        )
    }

    /// A new, empty database, dropped when the handle drops.
    pub fn database(&self) -> Database<'_> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "keyhook_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        if let Err(e) = self.sql("postgres", &format!("CREATE DATABASE {name}")) {
            panic!("CREATE DATABASE {name}: {e}");
        }
        Database {
            cluster: self,
            name,
        }
    }

    /// Runs `sql` in database `db` as the superuser (psql over the cluster's unix socket) and
    /// returns what it printed: rows one a line, columns separated by `|`.
    pub fn sql(&self, db: &str, sql: &str) -> Result<String, String> {
        let mut c = self.psql();
        c.args(["-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h"])
            .arg(&self.dir)
            .args([
                "-p",
                &self.port.to_string(),
                "-U",
                USER,
                "-d",
                db,
                "-c",
                sql,
            ]);
        run(&mut c, "psql")
    }

    /// The cluster's `psql`, without the caller's `PG*` variables and with `-X` (no psqlrc).
    pub fn psql(&self) -> Command {
        let mut c = Command::new(self.bin.join("psql"));
        without_pg_env(&mut c);
        c.arg("-X");
        c
    }

    /// Stops the server at once, like a crash (`pg_ctl stop -m immediate`). Only on a cluster
    /// of a test's own: others share [`cluster`].
    pub fn stop(&self) {
        self.assert_private("stop");
        self.pg_ctl(&["stop", "-m", "immediate", "-w"])
            .unwrap_or_else(|e| panic!("pg_ctl stop: {e}"));
    }

    /// Starts the server again on the same port, after [`Cluster::stop`].
    pub fn start(&self) {
        self.assert_private("start");
        self.start_server()
            .unwrap_or_else(|e| panic!("pg_ctl start: {e}"));
    }

    fn assert_private(&self, what: &str) {
        assert!(
            !self.shared,
            "{what} the shared cluster: a test that stops the server takes Cluster::private()"
        );
    }

    fn create(tls: bool, shared: bool) -> Result<Cluster, Unavailable> {
        let bin = postgres_bin().map_err(Unavailable::Missing)?;
        let owner = if is_root() {
            Some(owner("postgres").ok_or_else(|| {
                Unavailable::Missing(
                    "the tests run as root and there is no `postgres` user to run it as".into(),
                )
            })?)
        } else {
            None
        };
        let broken = Unavailable::Broken;
        // Short, so that the socket's path stays within the 107 bytes a unix socket allows.
        let dir = tempfile::Builder::new()
            .prefix("keyhook-pg-")
            .tempdir()
            .map_err(|e| broken(format!("temporary directory: {e}")))?
            .keep();
        let mut cluster = Cluster {
            bin,
            dir,
            port: 0,
            password: random_hex(16),
            owner,
            ca: None,
            shared,
            watchdog: Mutex::new(None),
        };
        // From here on, dropping `cluster` (on an error too) tears down what exists.
        cluster.chown(&cluster.dir).map_err(broken)?;
        cluster.watch().map_err(broken)?;
        cluster.init(tls).map_err(broken)?;
        let mut tries = 0;
        loop {
            cluster.port = free_port().map_err(broken)?;
            match cluster.start_server() {
                Ok(()) => return Ok(cluster),
                // Another process took the port between the check and the start.
                Err(_) if tries < 5 && cluster.log().contains("could not bind") => tries += 1,
                Err(e) => return Err(broken(e)),
            }
        }
    }

    /// initdb, the settings, pg_hba.conf and, with `tls`, the certificates.
    fn init(&mut self, tls: bool) -> Result<(), String> {
        let data = self.dir.join("data");
        let pwfile = self.dir.join("pwfile");
        fs::write(&pwfile, &self.password).map_err(|e| format!("pwfile: {e}"))?;
        self.chown(&pwfile)?;
        let mut initdb = self.as_owner(&self.bin.join("initdb"));
        initdb
            .arg("-D")
            .arg(&data)
            .args(["-U", USER, "-E", "UTF8", "--no-locale", "--no-sync"])
            .arg(format!("--pwfile={}", pwfile.display()));
        run(&mut initdb, "initdb")?;
        let _ = fs::remove_file(&pwfile);
        let mut conf = format!(
            "\n# test-postgres\n\
             listen_addresses = '127.0.0.1'\n\
             unix_socket_directories = '{}'\n\
             max_connections = 300\n\
             shared_buffers = 32MB\n\
             fsync = off\n\
             synchronous_commit = off\n\
             full_page_writes = off\n",
            self.dir.display()
        );
        let mut hba = String::from("local all all trust\n");
        if tls {
            self.certificates()?;
            conf.push_str(&format!(
                "ssl = on\nssl_cert_file = '{0}/server.crt'\nssl_key_file = '{0}/server.key'\n",
                self.dir.display()
            ));
            // No `host` line: a connection without TLS matches nothing and is refused. SCRAM,
            // as a production server asks for it.
            hba.push_str("hostssl all all 127.0.0.1/32 scram-sha-256\n");
        } else {
            // The password is checked, but sent as it is (over loopback): a SCRAM exchange
            // costs a debug build's client about 0.2 s of CPU (PBKDF2, 4096 rounds,
            // unoptimised), and `serve` opens dozens of connections.
            hba.push_str("host all all 127.0.0.1/32 password\n");
        }
        let append = |name: &str, text: &str, replace: bool| {
            let path = data.join(name);
            let mut all = if replace {
                String::new()
            } else {
                fs::read_to_string(&path).map_err(|e| format!("{name}: {e}"))?
            };
            all.push_str(text);
            fs::write(&path, all).map_err(|e| format!("{name}: {e}"))
        };
        append("postgresql.conf", &conf, false)?;
        append("pg_hba.conf", &hba, true)
    }

    /// A CA and a server certificate it signs, for 127.0.0.1 and localhost, made with the
    /// openssl CLI, which is there wherever Debian's PostgreSQL is (postgresql-common depends
    /// on ssl-cert, which depends on openssl).
    fn certificates(&mut self) -> Result<(), String> {
        let openssl = |args: &[&str]| {
            let mut c = self.as_owner(Path::new("openssl"));
            c.args(args);
            run(&mut c, "openssl")
        };
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
        openssl(
            &[
                &["req", "-x509", "-nodes", "-days", "2"],
                &ec[..],
                &[
                    "-subj",
                    "/CN=test-postgres CA",
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.crt",
                ],
            ]
            .concat(),
        )?;
        openssl(
            &[
                &["req", "-nodes"],
                &ec[..],
                &[
                    "-subj",
                    "/CN=localhost",
                    "-keyout",
                    "server.key",
                    "-out",
                    "server.csr",
                ],
            ]
            .concat(),
        )?;
        let ext = self.dir.join("server.ext");
        fs::write(
            &ext,
            "basicConstraints = CA:FALSE\n\
             keyUsage = digitalSignature, keyEncipherment\n\
             extendedKeyUsage = serverAuth\n\
             subjectAltName = IP:127.0.0.1, DNS:localhost\n",
        )
        .map_err(|e| format!("server.ext: {e}"))?;
        self.chown(&ext)?;
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "server.ext",
            "-out",
            "server.crt",
        ])?;
        // The server refuses a key others can read.
        fs::set_permissions(
            self.dir.join("server.key"),
            fs::Permissions::from_mode(0o600),
        )
        .map_err(|e| format!("server.key: {e}"))?;
        self.ca = Some(self.dir.join("ca.crt"));
        Ok(())
    }

    fn start_server(&self) -> Result<(), String> {
        let log = self.dir.join("log");
        let log = log.to_str().ok_or("temporary directory is not UTF-8")?;
        self.pg_ctl(&[
            "start",
            "-w",
            "-t",
            "60",
            "-l",
            log,
            "-o",
            &format!("-p {}", self.port),
        ])
        .map(drop)
        .map_err(|e| format!("{e}\n{}", self.log()))
    }

    fn pg_ctl(&self, args: &[&str]) -> Result<String, String> {
        let mut c = self.as_owner(&self.bin.join("pg_ctl"));
        c.arg("-D").arg(self.dir.join("data")).args(args);
        run(&mut c, "pg_ctl")
    }

    /// The watchdog: waits for this process's end of its standard input to close, then
    /// stops the server and removes the directory. In a process group of its own and deaf
    /// to the terminal's signals, so that Ctrl-C on `cargo test` does not skip it.
    fn watch(&self) -> Result<(), String> {
        let mut c = self.as_owner(Path::new("sh"));
        c.args([
            "-c",
            "trap '' INT TERM HUP QUIT; read _; \
             \"$KEYHOOK_TESTPG_PG_CTL\" stop -D \"$KEYHOOK_TESTPG_DIR/data\" -m immediate -w; \
             rm -rf \"$KEYHOOK_TESTPG_DIR\"",
        ])
        .env("KEYHOOK_TESTPG_PG_CTL", self.bin.join("pg_ctl"))
        .env("KEYHOOK_TESTPG_DIR", &self.dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
        let mut child = c.spawn().map_err(|e| format!("watchdog: {e}"))?;
        let pipe = child.stdin.take().expect("piped stdin");
        *self.watchdog.lock().unwrap() = Some(Watchdog { child, pipe });
        Ok(())
    }

    /// `program` run as the cluster's owner, in its directory, without `PG*` variables.
    fn as_owner(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.current_dir(&self.dir);
        without_pg_env(&mut c);
        if let Some(o) = self.owner {
            c.uid(o.uid).gid(o.gid).env("HOME", &self.dir);
        }
        c
    }

    fn chown(&self, path: &Path) -> Result<(), String> {
        match self.owner {
            Some(o) => std::os::unix::fs::chown(path, Some(o.uid), Some(o.gid))
                .map_err(|e| format!("chown {}: {e}", path.display())),
            None => Ok(()),
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let watchdog = self.watchdog.get_mut().map(Option::take);
        if let Ok(Some(Watchdog { mut child, pipe })) = watchdog {
            drop(pipe);
            let _ = child.wait();
        }
    }
}

/// A database of one test, dropped (`WITH (FORCE)`, so open connections do not keep it) when
/// the handle drops.
pub struct Database<'c> {
    cluster: &'c Cluster,
    name: String,
}

impl<'c> Database<'c> {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `postgres://keyhook:PASSWORD@127.0.0.1:PORT/NAME`.
    pub fn url(&self) -> String {
        self.cluster.url(&self.name)
    }

    pub fn cluster(&self) -> &'c Cluster {
        self.cluster
    }

    /// Runs `sql` in this database (see [`Cluster::sql`]); panics with psql's error.
    pub fn sql(&self, sql: &str) -> String {
        self.cluster
            .sql(&self.name, sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
}

impl Drop for Database<'_> {
    fn drop(&mut self) {
        // Nothing to drop on a stopped cluster; it goes with its directory.
        let _ = self.cluster.sql(
            "postgres",
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}

/// The newest `/usr/lib/postgresql/VERSION/bin` with initdb, pg_ctl and psql in it, installing
/// the `postgresql` package when there is none (once per process).
fn postgres_bin() -> Result<PathBuf, String> {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BIN.get_or_init(|| match find_bin(Path::new(DEBIAN_ROOT)) {
        Some(bin) => Ok(bin),
        None => {
            install()?;
            find_bin(Path::new(DEBIAN_ROOT)).ok_or_else(|| {
                format!("apt-get installed postgresql but {DEBIAN_ROOT}/*/bin has no initdb")
            })
        }
    })
    .clone()
}

const DEBIAN_ROOT: &str = "/usr/lib/postgresql";

fn find_bin(root: &Path) -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = fs::read_dir(root)
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            ["initdb", "pg_ctl", "psql"]
                .iter()
                .all(|p| bin.join(p).is_file())
                .then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

/// `apt-get install postgresql`, by one test process at a time (the others wait on the lock,
/// then find the binaries). Debian's package would create and start a cluster of its own on
/// port 5432: `create_main_cluster = false` (set between postgresql-common and postgresql,
/// the way the official Docker image does) keeps it from doing so.
fn install() -> Result<(), String> {
    let lock_path = std::env::temp_dir().join("test-postgres-apt.lock");
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("{} cannot be opened: {e}", lock_path.display()))?;
    // SAFETY: flock on a descriptor this function owns; released when `lock` closes.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(format!("{} cannot be locked", lock_path.display()));
    }
    if find_bin(Path::new(DEBIAN_ROOT)).is_some() {
        return Ok(());
    }
    if !is_root() {
        return Err(format!(
            "{DEBIAN_ROOT}/*/bin has no initdb, and only root can `apt-get install postgresql`"
        ));
    }
    if find_in_path("apt-get").is_none() {
        return Err(format!(
            "{DEBIAN_ROOT}/*/bin has no initdb, and there is no apt-get to install it"
        ));
    }
    eprintln!("test-postgres: installing PostgreSQL with apt-get (once per machine)");
    let mut c = Command::new("sh");
    c.args([
        "-c",
        "set -e; export DEBIAN_FRONTEND=noninteractive; apt-get update -q; \
         apt-get install -y -q postgresql-common; \
         sed -ri 's/^#? *create_main_cluster *=.*$/create_main_cluster = false/' \
           /etc/postgresql-common/createcluster.conf; \
         apt-get install -y -q postgresql",
    ]);
    run(&mut c, "apt-get install postgresql")
        .map(drop)
        .map_err(|e| format!("`apt-get install postgresql` failed: {e}"))
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Whether this process runs as root (its effective user id).
pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn owner(name: &str) -> Option<Owner> {
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: getpwnam returns null or a pointer to a static record, read at once. Tests call
    // it once per cluster.
    unsafe {
        let pw = libc::getpwnam(name.as_ptr());
        (!pw.is_null()).then(|| Owner {
            uid: (*pw).pw_uid,
            gid: (*pw).pw_gid,
        })
    }
}

/// A loopback port nothing listens on: in the range of `KEYHOOK_TESTPG_PORTS`, or any.
fn free_port() -> Result<u16, String> {
    let Ok(range) = std::env::var(PORTS_VAR) else {
        return TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| format!("no free loopback port: {e}"));
    };
    let parsed = range
        .split_once('-')
        .and_then(|(a, b)| Some((a.trim().parse::<u16>().ok()?, b.trim().parse::<u16>().ok()?)))
        .filter(|(a, b)| a <= b);
    let (first, last) = parsed.ok_or_else(|| format!("{PORTS_VAR}={range:?} is not FIRST-LAST"))?;
    let count = u32::from(last - first) + 1;
    // Start at a random place so that parallel test processes rarely try the same port.
    let start = u32::from_str_radix(&random_hex(4), 16).unwrap_or(0) % count;
    (0..count)
        .map(|i| first + ((start + i) % count) as u16)
        .find(|&p| TcpListener::bind(("127.0.0.1", p)).is_ok())
        .ok_or_else(|| format!("no free loopback port in {PORTS_VAR}={range}"))
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .expect("read /dev/urandom");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

fn without_pg_env(c: &mut Command) {
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("PG") {
            c.env_remove(k);
        }
    }
}

/// Runs `c` to its end; its stdout, or an error with its stderr.
fn run(c: &mut Command, what: &str) -> Result<String, String> {
    let out = c
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{what}: {}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_postgresql_is_a_skip_outside_ci() {
        let missing = Err::<(), _>(Unavailable::Missing("there is none".into()));
        assert!(available(missing, false).is_none());
    }

    #[test]
    #[should_panic(expected = "PostgreSQL is required when CI=true")]
    fn a_missing_postgresql_fails_ci() {
        let missing = Err::<(), _>(Unavailable::Missing("there is none".into()));
        available(missing, true);
    }

    #[test]
    #[should_panic(expected = "could not start")]
    fn a_broken_postgresql_fails_outside_ci_too() {
        available(Err::<(), _>(Unavailable::Broken("initdb".into())), false);
    }

    #[test]
    fn binaries_are_found_by_version_and_only_whole() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(find_bin(root.path()), None);
        for (v, tools) in [
            ("13", &["initdb", "pg_ctl", "psql"][..]),
            ("15", &["initdb", "pg_ctl", "psql"][..]),
            ("16", &["initdb", "pg_ctl"][..]),
        ] {
            let bin = root.path().join(v).join("bin");
            fs::create_dir_all(&bin).unwrap();
            for t in tools {
                fs::write(bin.join(t), "").unwrap();
            }
        }
        assert_eq!(find_bin(root.path()), Some(root.path().join("15/bin")));
    }
}
