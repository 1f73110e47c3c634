//! TLS against a cluster that accepts nothing else (`ssl=on`, `hostssl` only), with a
//! throwaway CA the harness made: `sslmode=require` encrypts without checking the
//! certificate; `verify-full` checks it against `sslrootcert` and the host's name;
//! `verify-ca` checks the chain only.

use std::path::Path;
use std::process::Command;

use keyhook_core::store::Backend;
use keyhook_core::Error;
use keyhook_postgres::PgBackend;
use test_postgres::Cluster;

/// `url` with `?sslmode=require` (the harness's TLS URL) replaced by `query`.
fn with_query(url: &str, query: &str) -> String {
    let base = url.split_once('?').map_or(url, |(base, _)| base);
    format!("{base}?{query}")
}

/// Connects and reports whether the server sees this connection encrypted.
fn encrypted(cluster: &Cluster, db: &str, url: &str) -> Result<bool, Error> {
    let backend = PgBackend::new(url, 1, true)?;
    let _held = backend.connect()?;
    let seen = cluster
        .sql(
            db,
            &format!(
                "SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                 WHERE a.datname = '{db}' AND a.application_name = 'keyhook'"
            ),
        )
        .unwrap();
    Ok(seen.trim() == "t")
}

/// A CA certificate that signed nothing of the server's.
fn other_ca(dir: &Path) -> std::path::PathBuf {
    let (key, cert) = (dir.join("other.key"), dir.join("other.crt"));
    let out = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=not the cluster's CA"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    cert
}

fn failure(url: &str) -> String {
    let e = match PgBackend::new(url, 1, true).and_then(|b| b.connect().map(drop)) {
        Ok(()) => panic!("connected, with {:?}", url.split_once('?').map(|(_, q)| q)),
        Err(e) => e,
    };
    assert_eq!(e.exit_code(), 1, "{e:?}");
    e.to_string()
}

#[test]
fn sslmode_picks_how_the_server_is_trusted() {
    let Some(cluster) = Cluster::private_tls() else {
        return;
    };
    let db = cluster.database();
    let url = db.url();
    let ca = cluster
        .ca_cert()
        .expect("a TLS cluster has a CA")
        .to_owned();
    let ca = ca.display();
    let password = cluster.password().to_string();

    // require: encrypted, whatever the certificate.
    assert!(url.ends_with("?sslmode=require"), "{url}");
    assert!(encrypted(&cluster, db.name(), &url).unwrap());

    // verify-full against the CA that signed the certificate (which names 127.0.0.1).
    let full = with_query(&url, &format!("sslmode=verify-full&sslrootcert={ca}"));
    assert!(encrypted(&cluster, db.name(), &full).unwrap());

    // verify-full against another CA: refused, saying why, without the password.
    let scratch = tempfile::tempdir().unwrap();
    let other = other_ca(scratch.path());
    let m = failure(&with_query(
        &url,
        &format!("sslmode=verify-full&sslrootcert={}", other.display()),
    ));
    assert!(m.contains("TLS handshake"), "{m}");
    assert!(m.contains("certificate"), "{m}");
    assert!(!m.contains(&password), "{m}");
    let m = failure(&with_query(
        &url,
        &format!("sslmode=verify-ca&sslrootcert={}", other.display()),
    ));
    assert!(m.contains("certificate"), "{m}");

    // A host name the certificate does not carry (the connection itself still goes to
    // 127.0.0.1, through hostaddr): verify-full refuses, verify-ca accepts.
    let misnamed = url
        .replace("@127.0.0.1:", "@db.example.invalid:")
        .split_once('?')
        .unwrap()
        .0
        .to_string();
    let m = failure(&format!(
        "{misnamed}?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert={ca}"
    ));
    assert!(m.contains("certificate"), "{m}");
    let ca_only = format!("{misnamed}?hostaddr=127.0.0.1&sslmode=verify-ca&sslrootcert={ca}");
    assert!(encrypted(&cluster, db.name(), &ca_only).unwrap());

    // Without TLS the server refuses (it has no plaintext entry); keyhook never falls back.
    for query in ["sslmode=disable", "sslmode=prefer"] {
        let m = failure(&with_query(&url, query));
        assert!(m.contains("refused the login"), "{m}");
        assert!(!m.contains(&password), "{m}");
    }
    let m = failure(url.split_once('?').unwrap().0);
    assert!(m.contains("no encryption"), "{m}");
}

/// A root certificate that cannot be used is the URL's fault: exit 2, naming the file.
#[test]
fn an_unusable_sslrootcert_is_a_validation_error() {
    let scratch = tempfile::tempdir().unwrap();
    let missing = scratch.path().join("missing.pem");
    let empty = scratch.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    for path in [&missing, &empty] {
        let url = format!(
            "postgres://kh:Sup3rS3cret@127.0.0.1:1/d?sslmode=verify-full&sslrootcert={}",
            path.display()
        );
        let e = PgBackend::new(&url, 1, true).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{e:?}");
        let m = e.to_string();
        assert!(m.contains(&path.display().to_string()), "{m}");
        assert!(!m.contains("Sup3rS3cret"), "{m}");
    }
}
