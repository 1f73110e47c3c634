//! The harness against a real PostgreSQL: skipped (reason printed) without one, except under
//! `CI=true`.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use test_postgres::{cluster, database, Cluster};

/// `select` over TCP with `url` (what keyhook connects with), or psql's error.
fn over_tcp(cluster: &Cluster, url: &str, select: &str) -> Result<String, String> {
    let out = cluster
        .psql()
        .args(["-q", "-A", "-t", "-d", url, "-c", select])
        .output()
        .unwrap();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn each_test_gets_its_own_database_dropped_with_its_handle() {
    let (Some(a), Some(b)) = (database(), database()) else {
        return;
    };
    assert_ne!(a.name(), b.name());
    a.sql("CREATE TABLE t (x int)");
    let tables = "SELECT count(*) FROM pg_tables WHERE tablename = 't'";
    assert_eq!(a.sql(tables).trim(), "1");
    assert_eq!(b.sql(tables).trim(), "0");
    let name = a.name().to_string();
    let exists = format!("SELECT count(*) FROM pg_database WHERE datname = '{name}'");
    let cluster = a.cluster();
    assert_eq!(cluster.sql("postgres", &exists).unwrap().trim(), "1");
    drop(a);
    assert_eq!(cluster.sql("postgres", &exists).unwrap().trim(), "0");
}

#[test]
fn a_url_reaches_the_database_over_loopback_with_its_password_only() {
    let Some(db) = database() else { return };
    let cluster = db.cluster();
    let url = db.url();
    let want = format!(
        "postgres://keyhook:{}@127.0.0.1:{}/{}",
        cluster.password(),
        cluster.port(),
        db.name()
    );
    assert_eq!(url, want);
    let select = "SELECT inet_server_addr(), current_database(), ssl \
                  FROM pg_stat_ssl WHERE pid = pg_backend_pid()";
    assert_eq!(
        over_tcp(cluster, &url, select).unwrap(),
        format!("127.0.0.1|{}|f", db.name())
    );
    let wrong = url.replace(cluster.password(), "not-the-password");
    let refused = over_tcp(cluster, &wrong, "SELECT 1").unwrap_err();
    assert!(
        refused.contains("password authentication failed"),
        "{refused}"
    );
}

#[test]
fn the_cluster_allows_connections_for_parallel_tests() {
    let Some(db) = database() else { return };
    assert_eq!(db.sql("SHOW max_connections").trim(), "300");
    assert_eq!(db.sql("SHOW listen_addresses").trim(), "127.0.0.1");
}

#[test]
#[should_panic(expected = "takes Cluster::private()")]
fn the_shared_cluster_cannot_be_stopped() {
    let Some(c) = cluster() else {
        panic!("skipped: takes Cluster::private()");
    };
    c.stop();
}

#[test]
fn a_private_cluster_stops_and_starts_on_the_same_port() {
    let Some(c) = Cluster::private() else { return };
    let db = c.database();
    let url = db.url();
    assert_eq!(over_tcp(&c, &url, "SELECT 1").unwrap(), "1");
    c.stop();
    let down = over_tcp(&c, &url, "SELECT 1").unwrap_err();
    assert!(down.contains("Connection refused"), "{down}");
    c.start();
    assert_eq!(over_tcp(&c, &url, "SELECT 1").unwrap(), "1");
}

#[test]
fn a_tls_cluster_refuses_plaintext_and_its_ca_verifies_it() {
    let Some(c) = Cluster::private_tls() else {
        return;
    };
    let db = c.database();
    let url = db.url();
    assert!(url.ends_with("?sslmode=require"), "{url}");
    let ssl = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";
    assert_eq!(over_tcp(&c, &url, ssl).unwrap(), "t");
    let plain = url.replace("sslmode=require", "sslmode=disable");
    let refused = over_tcp(&c, &plain, ssl).unwrap_err();
    assert!(refused.contains("no encryption"), "{refused}");
    let ca = c.ca_cert().expect("a CA certificate").display().to_string();
    for host in ["127.0.0.1", "localhost"] {
        let verified = url.replace("127.0.0.1", host).replace(
            "sslmode=require",
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        );
        assert_eq!(over_tcp(&c, &verified, ssl).unwrap(), "t", "{host}");
    }
}

/// The postmaster's pid, from `postmaster.pid`.
fn postmaster_pid(c: &Cluster) -> u32 {
    let pidfile = std::fs::read_to_string(c.dir().join("data/postmaster.pid")).unwrap();
    pidfile.lines().next().unwrap().trim().parse().unwrap()
}

/// Whether `pid` is gone (or a zombie nobody has reaped yet).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .unwrap()
            .trim_start()
            .starts_with('Z'),
        Err(_) => true,
    }
}

/// Waits up to 20 s for the server `pid` to end and `dir` to be removed.
fn assert_torn_down(dir: &Path, pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while (dir.exists() || !gone(pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(gone(pid), "postgres {pid} still runs");
    assert!(!dir.exists(), "{} is still there", dir.display());
}

const CHILD: &str = "KEYHOOK_TESTPG_CHILD";

#[test]
#[ignore = "run in a child process by the teardown tests"]
fn child_starts_the_shared_cluster_and_ends() {
    let how = std::env::var(CHILD).expect("run by a teardown test");
    let c = cluster().expect("PostgreSQL");
    let _db = c.database();
    println!("CLUSTER {} {}", c.dir().display(), postmaster_pid(c));
    match how.as_str() {
        // A signal this process sends itself ends it before `kill` returns (Linux starts a
        // fatal signal's group exit as it sends it); the parent checks how the child ended.
        "kill" => {
            unsafe { libc::kill(std::process::id() as libc::pid_t, libc::SIGKILL) };
            unreachable!("SIGKILL did not end the process");
        }
        "panic" => panic!("a test failed"),
        // Ctrl-C: SIGINT to the whole foreground process group, which does not ignore it.
        "interrupt" => {
            unsafe {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::kill(-(std::process::id() as libc::pid_t), libc::SIGINT);
            }
            unreachable!("SIGINT did not end the process");
        }
        _ => {}
    }
}

/// Runs [`child_starts_the_shared_cluster_and_ends`] in a child test process that ends `how`,
/// and returns the cluster it started.
fn cluster_of_a_child(how: &str) -> (PathBuf, u32) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "child_starts_the_shared_cluster_and_ends",
            "--nocapture",
        ])
        .env(CHILD, how)
        // A process group of its own, as a terminal's foreground job.
        .process_group(0)
        .output()
        .unwrap();
    let signal = match how {
        "kill" => Some(libc::SIGKILL),
        "interrupt" => Some(libc::SIGINT),
        _ => None,
    };
    assert_eq!(out.status.signal(), signal, "{how}: {:?}", out.status);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("CLUSTER "))
        .unwrap_or_else(|| {
            panic!(
                "no cluster in {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let (dir, pid) = line.rsplit_once(' ').unwrap();
    (PathBuf::from(dir), pid.parse().unwrap())
}

#[test]
fn the_cluster_is_torn_down_when_its_process_ends_however_it_ends() {
    if cluster().is_none() {
        return;
    }
    for how in ["return", "panic", "interrupt", "kill"] {
        let (dir, pid) = cluster_of_a_child(how);
        assert_torn_down(&dir, pid);
    }
}

#[test]
fn a_private_cluster_is_torn_down_when_its_handle_drops() {
    let Some(c) = Cluster::private() else { return };
    let (dir, pid) = (c.dir().to_path_buf(), postmaster_pid(&c));
    assert!(dir.exists() && !gone(pid));
    drop(c);
    assert!(gone(pid), "postgres {pid} still runs");
    assert!(!dir.exists(), "{} is still there", dir.display());
}
