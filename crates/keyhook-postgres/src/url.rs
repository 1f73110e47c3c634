//! The `--db` URL: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?PARAMS]` (or `postgresql://`).
//!
//! The driver (`postgres::Config`) parses it, after keyhook takes out the two parameters it
//! handles itself: `sslmode` (the driver knows only `disable`, `prefer` and `require`) and
//! `sslrootcert` (unknown to the driver). The URL is split the way the driver splits it:
//! the credentials end at the first `@`, so a password may hold `/`, `?` or `:` as they are.
//!
//! A host that starts with `/` (percent-encoded in the host part, `%2Frun%2Fpostgresql`, or
//! as it is in a `host=` parameter, `postgres://USER@/DB?host=/run/postgresql`) is the
//! directory of the server's Unix socket, as for libpq: on the server's own machine it skips
//! the TCP stack. PostgreSQL has no TLS there, so `sslmode` other than `disable`/`prefer` is
//! refused with it.
//!
//! No message made here contains the password, and [`Target::describe`] is the URL with it
//! masked (`user:***@`).

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use keyhook_core::Error;

/// How the connection is protected, from the URL's `sslmode`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tls {
    /// Plain TCP: no `sslmode`, or `disable`, or `prefer` (which keyhook does not try).
    Off,
    /// `require`: encrypted, the server's certificate not verified (as libpq does without a
    /// root certificate): safe from eavesdroppers, not from an active man in the middle.
    Require,
    /// `verify-ca`: the certificate must chain to `sslrootcert`; its name is not checked.
    VerifyCa(PathBuf),
    /// `verify-full`: chain to `sslrootcert`, and the name (or IP address) must match the host.
    VerifyFull(PathBuf),
}

/// A parsed `--db` URL.
#[derive(Debug, Clone)]
pub struct Target {
    /// The connection settings, as the asynchronous driver under `postgres` takes them (the
    /// pipeline's); [`Target::blocking_config`] gives them to `postgres` itself.
    pub config: tokio_postgres::Config,
    pub tls: Tls,
    described: String,
}

/// How long a new connection may take before the server counts as unreachable, unless the
/// URL says (`connect_timeout`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long what keyhook sent may stay unacknowledged before the connection counts as lost,
/// unless the URL says (`tcp_user_timeout`): a server whose machine went away is noticed
/// then, not after the system's retransmissions (a quarter of an hour). A slow query does not
/// trip it: the server's machine acknowledges the bytes at once.
pub const TCP_USER_TIMEOUT: Duration = Duration::from_secs(30);

/// How keyhook names itself to the server (`pg_stat_activity.application_name`) unless the
/// URL says.
pub const APPLICATION_NAME: &str = "keyhook";

/// The schemes of a PostgreSQL URL, in lowercase; a URL's scheme is matched ignoring case.
pub const SCHEMES: [&str; 2] = ["postgres", "postgresql"];

/// `url` read as a PostgreSQL URL: `None` when its scheme is none of [`SCHEMES`]; else the
/// URL with its scheme in lowercase once its shape passes [`check`], or why it does not (no
/// message names the password). The one decision of what a PostgreSQL URL is: `--db`'s
/// parser asks it (through the binary, which picks the backend) and so does [`Target`].
pub fn normalize(url: &str) -> Option<Result<String, String>> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if !SCHEMES.contains(&scheme.as_str()) {
        return None;
    }
    Some(check(rest).map(|()| format!("{scheme}://{rest}")))
}

fn invalid(message: impl Into<String>) -> Error {
    Error::validation("--db", message)
}

impl FromStr for Target {
    type Err = Error;

    fn from_str(url: &str) -> Result<Target, Error> {
        // The shape first (the rules `--db` checks), then the driver's reading of the rest.
        let Some(normalized) = normalize(url) else {
            return Err(invalid(
                "not a PostgreSQL URL: expected postgres://USER[:PASSWORD]@HOST[:PORT]/DB",
            ));
        };
        let url = normalized.map_err(invalid)?;
        let url = url.as_str();
        let scheme = url.find("://").map_or(0, |i| i + 3);
        let rest = &url[scheme..];
        // As the driver reads it: credentials up to the first '@', then the host up to '/'
        // or '?', the database name up to '?', then the parameters.
        let (creds, after) = split_credentials(rest).map_err(invalid)?;
        let (location, query) = match after.find('?') {
            Some(i) => (&after[..i], Some(&after[i + 1..])),
            None => (after, None),
        };
        let mut sslmode = None;
        let mut sslrootcert = None;
        let mut kept = Vec::new();
        for param in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let Some((key, value)) = param.split_once('=') else {
                return Err(invalid(
                    "a URL parameter has no value: write them as NAME=VALUE",
                ));
            };
            // Names are %-decoded too, as the driver decodes them: `ssl%6Dode` is `sslmode`.
            let key = decode(key)?;
            match key.as_str() {
                "sslmode" => sslmode = Some(decode(value)?),
                "sslrootcert" => sslrootcert = Some(decode(value)?),
                _ => kept.push(param),
            }
        }
        let tls = match (sslmode.as_deref(), sslrootcert) {
            (None | Some("disable") | Some("prefer") | Some("allow"), _) => Tls::Off,
            (Some("require"), _) => Tls::Require,
            (Some("verify-ca"), Some(root)) => Tls::VerifyCa(PathBuf::from(root)),
            (Some("verify-full"), Some(root)) => Tls::VerifyFull(PathBuf::from(root)),
            (Some(mode @ ("verify-ca" | "verify-full")), None) => {
                return Err(invalid(format!(
                    "sslmode={mode} needs sslrootcert=PATH, the CA certificate (PEM) to verify \
                     the server against"
                )))
            }
            (Some(_), _) => {
                return Err(invalid(
                    "sslmode must be disable, prefer, require, verify-ca or verify-full",
                ))
            }
        };
        let mut for_driver = format!("{}{}", &url[..scheme], &rest[..rest.len() - after.len()]);
        for_driver.push_str(location);
        if !kept.is_empty() {
            for_driver.push('?');
            for_driver.push_str(&kept.join("&"));
        }
        let mut config = tokio_postgres::Config::from_str(&for_driver).map_err(|e| {
            // The driver's parse errors name an option or a position, not a value; an option
            // named like the password (a typo) is not repeated either.
            let why = std::error::Error::source(&e)
                .map(|s| s.to_string())
                .unwrap_or_else(|| e.to_string());
            let password = creds.and_then(|c| c.split_once(':')).map(|(_, p)| p);
            let secret = |p: &str| {
                !p.is_empty() && (why.contains(p) || decode(p).is_ok_and(|d| why.contains(&d)))
            };
            if password.is_some_and(secret) {
                return invalid("not a valid PostgreSQL URL");
            }
            invalid(format!("not a valid PostgreSQL URL: {why}"))
        })?;
        if config.get_hosts().is_empty() && config.get_hostaddrs().is_empty() {
            return Err(invalid("the URL names no host: postgres://USER@HOST/DB"));
        }
        let socket = config
            .get_hosts()
            .iter()
            .any(|h| matches!(h, postgres::config::Host::Unix(_)));
        if socket && tls != Tls::Off {
            return Err(invalid(
                "PostgreSQL speaks no TLS over a Unix socket (a host that is a directory): \
                 drop sslmode, or name a TCP host",
            ));
        }
        // keyhook speaks TLS itself (the connector in `tls.rs`), as `sslmode` asked.
        config.ssl_mode(match tls {
            Tls::Off => postgres::config::SslMode::Disable,
            _ => postgres::config::SslMode::Require,
        });
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(TCP_USER_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name(APPLICATION_NAME);
        }
        Ok(Target {
            config,
            tls,
            described: keyhook_core::redact::url(url).into_owned(),
        })
    }
}

impl Target {
    /// The settings for the blocking driver (`postgres`: the pool's connections and the
    /// first one), made from [`Target::config`] when a connection is made.
    pub fn blocking_config(&self) -> postgres::Config {
        postgres::Config::from(self.config.clone())
    }

    /// The URL as given with its password masked the one way keyhook masks it everywhere
    /// (`redact::url`: `postgres://user:***@host/db`, `password=***`).
    pub fn describe(&self) -> &str {
        &self.described
    }
}

/// A URL parameter's name or value, percent-decoded ([`percent_escapes`]).
fn decode(s: &str) -> Result<String, Error> {
    let bytes =
        percent_escapes(s).map_err(|()| invalid("a URL parameter has a broken %-escape"))?;
    String::from_utf8(bytes).map_err(|_| invalid("a URL parameter is not UTF-8"))
}

/// The credentials and what follows them, split where the driver splits them: at the first
/// `@`. Another `@` before the parameters would have part of the password read as the host
/// (and quoted in the driver's messages): refused, quoting neither.
fn split_credentials(rest: &str) -> std::result::Result<(Option<&str>, &str), String> {
    let (credentials, after) = match rest.split_once('@') {
        Some((c, r)) => (Some(c), r),
        None => (None, rest),
    };
    let location = after.split_once('?').map_or(after, |(l, _)| l);
    if location.contains('@') {
        return Err("a '@' in the user name or password must be written %40".into());
    }
    Ok((credentials, after))
}

/// What rust-postgres and libpq read from `postgres://[user[:password]@][host[:port][,...]]
/// [/dbname][?key=value&...]`, checked for shape: the server checks the rest (names,
/// options). `rest` is what follows `://`. No message names the password. The one parser of
/// the URL's shape, through [`normalize`].
pub fn check(rest: &str) -> std::result::Result<(), String> {
    if let Some(c) = rest.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "a database URL must not contain {}",
            if c == ' ' {
                "spaces"
            } else {
                "whitespace or control characters"
            }
        ));
    }
    // As rust-postgres reads it: the credentials end at the first `@`, the hosts at the path
    // or the query, the database name at the query.
    let (credentials, rest) = split_credentials(rest)?;
    let host_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (hosts, rest) = rest.split_at(host_end);
    let (dbname, query) = match rest.strip_prefix('/') {
        Some(r) => r.split_once('?').map_or((r, None), |(d, q)| (d, Some(q))),
        None => ("", rest.strip_prefix('?')),
    };
    if let Some(c) = credentials {
        let user = c.split(':').next().unwrap_or_default();
        decoded(user, "the user name")?;
        if let Some((_, password)) = c.split_once(':') {
            // Named without its value.
            percent_escapes(password).map_err(|()| {
                "the password has a '%' that is not followed by two hex digits".to_string()
            })?;
        }
    }
    if !hosts.is_empty() {
        for chunk in hosts.split(',') {
            let (host, port) = if let Some(bracketed) = chunk.strip_prefix('[') {
                let (host, after) = bracketed
                    .split_once(']')
                    .ok_or_else(|| format!("the host '{chunk}' has no closing ']'"))?;
                match after {
                    "" => (host, None),
                    _ => (
                        host,
                        Some(after.strip_prefix(':').ok_or_else(|| {
                            format!("the host '{chunk}' has '{after}' after its ']'")
                        })?),
                    ),
                }
            } else {
                chunk
                    .split_once(':')
                    .map_or((chunk, None), |(h, p)| (h, Some(p)))
            };
            if host.is_empty() && hosts.contains(',') {
                return Err("a list of hosts must not have an empty one".into());
            }
            decoded(host, "the host")?;
            if let Some(port) = port.filter(|p| !p.is_empty()) {
                if !port.bytes().all(|c| c.is_ascii_digit())
                    || !port.parse::<u16>().is_ok_and(|p| p >= 1)
                {
                    return Err(format!("the port '{port}' is not a number from 1 to 65535"));
                }
            }
        }
    }
    decoded(dbname, "the database name")?;
    for param in query.into_iter().flat_map(|q| q.split('&')) {
        let Some((key, value)) = param.split_once('=') else {
            // Not quoted: it may be a password that lost its `password=`.
            return Err("a parameter has no value (parameters are key=value)".into());
        };
        let key = decoded(key, "a parameter name")?;
        if key.is_empty() {
            return Err("a parameter has no name (parameters are key=value)".into());
        }
        if key.to_ascii_lowercase().ends_with("password") {
            percent_escapes(value).map_err(|()| {
                format!("the {key} parameter has a '%' that is not followed by two hex digits")
            })?;
        } else {
            decoded(value, &format!("the {key} parameter"))?;
        }
    }
    Ok(())
}

/// `s` percent-decoded, which must give UTF-8; `what` names `s` in the error.
fn decoded(s: &str, what: &str) -> std::result::Result<String, String> {
    let bytes = percent_escapes(s)
        .map_err(|()| format!("{what} has a '%' that is not followed by two hex digits"))?;
    String::from_utf8(bytes).map_err(|_| format!("{what} is not UTF-8 once percent-decoded"))
}

/// `s` percent-decoded, if every `%` in it starts an escape (`%` and two hex digits).
fn percent_escapes(s: &str) -> std::result::Result<Vec<u8>, ()> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or(())?;
            out.push(byte);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cr%40t-pw";

    fn message(url: &str) -> String {
        match url.parse::<Target>() {
            Ok(t) => panic!("{url} parsed as {}", t.describe()),
            Err(e) => {
                assert_eq!(e.exit_code(), 2, "{e}");
                assert_eq!(e.details()[0].field, "--db");
                e.to_string()
            }
        }
    }

    /// A socket directory, in the host part (percent-encoded) or in `host=`, is a Unix
    /// socket host; TLS is refused there, with the reason.
    #[test]
    fn a_host_that_is_a_directory_is_the_servers_unix_socket() {
        use postgres::config::Host;
        let unix = |url: &str| -> Vec<Host> {
            let t: Target = url.parse().unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(t.tls, Tls::Off);
            t.config.get_hosts().to_vec()
        };
        let dir = Host::Unix(PathBuf::from("/run/postgresql"));
        assert_eq!(
            unix("postgres://kh@%2Frun%2Fpostgresql:5433/keys"),
            std::slice::from_ref(&dir)
        );
        assert_eq!(
            unix("postgres://kh@/keys?host=/run/postgresql"),
            std::slice::from_ref(&dir)
        );
        assert_eq!(
            unix("postgresql://kh:pw@/keys?host=%2Frun%2Fpostgresql&sslmode=disable"),
            [dir]
        );
        for mode in ["require", "verify-full&sslrootcert=/ca.pem"] {
            let m = message(&format!(
                "postgres://kh:{SECRET}@%2Frun%2Fpostgresql/keys?sslmode={mode}"
            ));
            assert!(m.contains("no TLS over a Unix socket"), "{m}");
            assert!(!m.contains("s3cr"), "{m}");
        }
    }

    #[test]
    fn parses_the_parts_and_describes_with_the_password_masked() {
        let t: Target = format!("postgres://kh:{SECRET}@db.example:6543/keys?application_name=x")
            .parse()
            .unwrap();
        assert_eq!(t.config.get_user(), Some("kh"));
        assert_eq!(t.config.get_password(), Some(&b"s3cr@t-pw"[..]));
        assert_eq!(t.config.get_dbname(), Some("keys"));
        assert_eq!(t.config.get_ports(), &[6543]);
        assert_eq!(t.tls, Tls::Off);
        assert_eq!(
            t.describe(),
            "postgres://kh:***@db.example:6543/keys?application_name=x"
        );
        assert_eq!(t.config.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        assert_eq!(t.config.get_tcp_user_timeout(), Some(&TCP_USER_TIMEOUT));
        let t: Target = "postgres://u@h/d?connect_timeout=7&tcp_user_timeout=9"
            .parse()
            .unwrap();
        assert_eq!(
            t.config.get_connect_timeout(),
            Some(&Duration::from_secs(7))
        );
        assert_eq!(
            t.config.get_tcp_user_timeout(),
            Some(&Duration::from_secs(9))
        );

        // A password given as a parameter is masked too; characters the driver accepts in
        // a password as they are ('/', '?', ':') stay in the credentials.
        let t: Target = "postgresql://kh@h/d?password=hunter2&sslmode=require"
            .parse()
            .unwrap();
        assert_eq!(t.config.get_password(), Some(&b"hunter2"[..]));
        assert_eq!(
            t.describe(),
            "postgresql://kh@h/d?password=***&sslmode=require"
        );
        assert_eq!(t.tls, Tls::Require);
        let t: Target = "postgres://kh@h/d?pass%77ord=hunter2".parse().unwrap();
        assert_eq!(t.config.get_password(), Some(&b"hunter2"[..]));
        assert_eq!(t.describe(), "postgres://kh@h/d?pass%77ord=***");
        let t: Target = "postgres://kh:a/b?c:d@h:1/db".parse().unwrap();
        assert_eq!(t.config.get_password(), Some(&b"a/b?c:d"[..]));
        assert_eq!(t.config.get_dbname(), Some("db"));
        assert_eq!(t.describe(), "postgres://kh:***@h:1/db");
        // The same masking as every other message and log line.
        let url = format!("postgres://kh:{SECRET}@h/d?sslmode=require");
        let t: Target = url.parse().unwrap();
        assert_eq!(t.describe(), keyhook_core::redact::url(&url));
    }

    #[test]
    fn the_cli_and_a_target_refuse_a_url_by_the_one_shape_check() {
        // `--db` (its parser calls `normalize`) and `Target` read the same rules: the
        // `@` rule (a second one before the parameters), the percent-decoder, the port.
        for rest in [
            "u:SE@CRET@h/db",
            "u@h/d@b",
            "u:SE%zzCRET@h/db",
            "u%:SECRET@h/db",
            "u:SECRET@h:0/db",
            "u:SE CRET@h/db",
            "h/db?password=SE%CRET",
        ] {
            let shape = check(rest).expect_err(rest);
            let target = message(&format!("postgres://{rest}"));
            assert!(target.contains(&shape), "{rest}: {target:?} / {shape:?}");
            assert!(!target.contains("CRET"), "{rest}: {target}");
        }
        assert!(check("u:SE@CRET@h/db").unwrap_err().contains("%40"));
        assert_eq!(check("u:p%40ss@h:5432/db?sslmode=require"), Ok(()));
    }

    #[test]
    fn a_postgres_url_is_kept_with_its_scheme_in_lowercase() {
        for (url, kept) in [
            ("postgres://h/db", "postgres://h/db"),
            ("postgresql://u:pw@h:5432/db", "postgresql://u:pw@h:5432/db"),
            ("PostgreSQL://u@h/db", "postgresql://u@h/db"),
            ("postgres://", "postgres://"),
            (
                "postgres:///db?host=%2Fvar%2Frun%2Fpostgresql",
                "postgres:///db?host=%2Fvar%2Frun%2Fpostgresql",
            ),
            (
                "postgres://u:p%40ss%20w@[::1]:5433,h2:/db?sslmode=require&password=x",
                "",
            ),
            ("postgres://u:it's/odd?@h/db", ""),
            ("postgres://h:/db?application_name=", ""),
        ] {
            let kept = if kept.is_empty() { url } else { kept };
            assert_eq!(normalize(url), Some(Ok(kept.into())), "{url}");
        }
        for other in [
            "mysql://root:SECRET@h/db",
            "sqlite:///tmp/x.db",
            "postgres:/x",
        ] {
            assert_eq!(normalize(other), None, "{other}");
        }
    }

    #[test]
    fn a_malformed_url_is_refused_without_its_password() {
        for (url, problem) in [
            ("postgres://u:SE CRET@h/db", "must not contain spaces"),
            ("postgres://u:SECRET\t@h/db", "whitespace or control"),
            ("postgres://u:SECRET@h:99999/db", "the port '99999'"),
            ("postgres://u:SECRET@h:0/db", "the port '0'"),
            ("postgres://u:SECRET@h:+5/db", "the port '+5'"),
            ("postgres://u:SECRET@h:x/db", "the port 'x'"),
            ("postgres://u:SECRET@[::1/db", "no closing ']'"),
            ("postgres://u:SECRET@[::1]x/db", "after its ']'"),
            ("postgres://u:SECRET@h1,,h2/db", "an empty one"),
            ("postgres://u:SECRET@h/db?sslmode", "has no value"),
            ("postgres://h/db?passwordSECRET", "has no value"),
            ("postgres://u:SECRET@h/db?=x", "has no name"),
            ("postgres://u:SE%zzCRET@h/db", "the password has a '%'"),
            ("postgres://u%:SECRET@h/db", "the user name has a '%'"),
            ("postgres://u:SECRET@h/d%ffb", "database name is not UTF-8"),
            (
                "postgres://h/db?password=SE%CRET",
                "password parameter has a '%'",
            ),
            ("postgres://u:SE@CRET@h/db", "must be written %40"),
        ] {
            let e = normalize(url).expect(url).expect_err(url);
            assert!(e.contains(problem), "{url}: {e}");
            assert!(!e.contains("SECRET") && !e.contains("CRET"), "{url}: {e}");
        }
    }

    #[test]
    fn sslmode_picks_the_connector() {
        let tls = |q: &str| {
            format!("postgres://u@h/d?{q}")
                .parse::<Target>()
                .unwrap()
                .tls
        };
        assert_eq!(tls("sslmode=disable"), Tls::Off);
        assert_eq!(tls("ssl%6Dode=require"), Tls::Require);
        assert_eq!(tls("sslmode=prefer"), Tls::Off);
        assert_eq!(tls("sslmode=require&sslrootcert=/x"), Tls::Require);
        assert_eq!(
            tls("sslmode=verify-full&sslrootcert=%2Fca.pem"),
            Tls::VerifyFull("/ca.pem".into())
        );
        assert_eq!(
            tls("sslrootcert=/ca.pem&sslmode=verify-ca"),
            Tls::VerifyCa("/ca.pem".into())
        );
        let t: Target = "postgres://u@h/d?sslmode=verify-full&sslrootcert=/ca.pem"
            .parse()
            .unwrap();
        assert_eq!(t.config.get_ssl_mode(), postgres::config::SslMode::Require);
        assert!(message("postgres://u@h/d?sslmode=verify-full").contains("sslrootcert"));
        assert!(message("postgres://u@h/d?sslmode=sometimes").contains("sslmode must be"));
    }

    #[test]
    fn malformed_urls_are_validation_errors_without_the_password() {
        for url in [
            format!("postgres://u:{SECRET}@h:notaport/d"),
            format!("postgres://u:{SECRET}@h/d?bogus=1"),
            format!("postgres://u:{SECRET}@h/d?sslmode"),
            format!("postgres://u:{SECRET}@/d"),
            format!("postgres://u:{SECRET}@h@x/d"),
            format!("postgres://u:{SECRET}@h/d?connect_timeout=soon"),
            format!("postgres://u:{SECRET}@h/d?{SECRET}=1"),
            "postgres://u:s3cr@h/d?s3cr=1".to_string(),
            format!("mysql://u:{SECRET}@h/d"),
        ] {
            let m = message(&url);
            for part in ["s3cr", "t-pw"] {
                assert!(!m.contains(part), "{url}: {m}");
            }
        }
        assert!(message("postgres://u@h/d?bogus=1").contains("unknown option `bogus`"));
        assert!(message("postgres://u@/d").contains("no host"));
    }
}
