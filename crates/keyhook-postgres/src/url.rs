//! The `--db` URL: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?PARAMS]` (or `postgresql://`).
//!
//! The driver (`postgres::Config`) parses it, after keyhook takes out the two parameters it
//! handles itself: `sslmode` (the driver knows only `disable`, `prefer` and `require`) and
//! `sslrootcert` (unknown to the driver). The URL is split the way the driver splits it:
//! the credentials end at the first `@`, so a password may hold `/`, `?` or `:` as they are.
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
    pub config: postgres::Config,
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

/// Whether `s` is a PostgreSQL URL (the scheme `--db` recognises).
pub fn is_postgres_url(s: &str) -> bool {
    scheme_len(s).is_some()
}

fn scheme_len(s: &str) -> Option<usize> {
    ["postgres://", "postgresql://"]
        .iter()
        .find(|p| s.starts_with(**p))
        .map(|p| p.len())
}

fn invalid(message: impl Into<String>) -> Error {
    Error::validation("--db", message)
}

impl FromStr for Target {
    type Err = Error;

    fn from_str(url: &str) -> Result<Target, Error> {
        let Some(scheme) = scheme_len(url) else {
            return Err(invalid(
                "not a PostgreSQL URL: expected postgres://USER[:PASSWORD]@HOST[:PORT]/DB",
            ));
        };
        let rest = &url[scheme..];
        // As the driver reads it: credentials up to the first '@', then the host up to '/'
        // or '?', the database name up to '?', then the parameters.
        let (creds, after) = match rest.find('@') {
            Some(i) => (Some(&rest[..i]), &rest[i + 1..]),
            None => (None, rest),
        };
        let (location, query) = match after.find('?') {
            Some(i) => (&after[..i], Some(&after[i + 1..])),
            None => (after, None),
        };
        if location.contains('@') {
            // The driver would take what follows the first '@' as the host, and show part of
            // the password as one in its errors.
            return Err(invalid(
                "the URL has more than one '@': write an '@' in the user name or password as %40",
            ));
        }
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
        let mut config = postgres::Config::from_str(&for_driver).map_err(|e| {
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
            config.application_name("keyhook");
        }
        Ok(Target {
            config,
            tls,
            described: keyhook_core::redact::url(url).into_owned(),
        })
    }
}

impl Target {
    /// The URL as given with its password masked the one way keyhook masks it everywhere
    /// (`redact::url`: `postgres://user:***@host/db`, `password=***`).
    pub fn describe(&self) -> &str {
        &self.described
    }
}

fn decode(s: &str) -> Result<String, Error> {
    let mut out = Vec::with_capacity(s.len());
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| invalid("a URL parameter has a broken %-escape"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| invalid("a URL parameter is not UTF-8"))
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
