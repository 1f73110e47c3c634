use std::io::{IsTerminal, Write};

use clap::{Args, Subcommand};

use super::{output, prompt, secret_out, Context};
use keyhook_core::auth::{self, Access};
use keyhook_core::error::Error;
use keyhook_core::forward::{self, ProfileTemplate};
use keyhook_core::model::{ApiKey, Permission};
use keyhook_core::rate::RateLimit;
use keyhook_core::service::input::Problems;
use keyhook_core::service::keys::{self, Expiry, KeyName, NewKey, ProfileIds};
use keyhook_core::service::Publish;
use keyhook_core::time::{parse_duration, parse_duration_or_zero, Timestamp};

/// [`KeysCommand::Create`] alone, as [`KeysCommand`] has it: the `keys` commands of a
/// `keys create` command line (`crate::parse`; the test
/// `the_keys_command_alone_is_the_whole_trees` holds it to [`KeysCommand::Create`]).
#[derive(Debug, Subcommand)]
pub(crate) enum CreateOnly {
    /// Create a key and print it; the plaintext is shown this once and never stored
    #[command(
        after_help = "Examples:\n  keyhook keys create --name deploy --expires-in 90d\n  KEY=$(keyhook keys create --name ci --permission readonly --quiet)"
    )]
    Create(CreateArgs),
}

impl From<CreateOnly> for KeysCommand {
    fn from(CreateOnly::Create(args): CreateOnly) -> KeysCommand {
        KeysCommand::Create(args)
    }
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Create a key and print it; the plaintext is shown this once and never stored
    #[command(
        after_help = "Examples:\n  keyhook keys create --name deploy --expires-in 90d\n  KEY=$(keyhook keys create --name ci --permission readonly --quiet)"
    )]
    Create(CreateArgs),
    /// List the user's keys (never the plaintext)
    #[command(
        after_help = "Examples:\n  keyhook keys list\n  keyhook --json keys list --all-users"
    )]
    List {
        /// List the keys of every user
        #[arg(long)]
        all_users: bool,
    },
    /// Show one key
    #[command(after_help = "Example:\n  keyhook keys show kp_3f1c9a2b")]
    Show {
        /// Key id or its 11-character prefix (kp_ + 8 hex)
        id: String,
    },
    /// Delete a key; requests made with it are refused from then on
    #[command(after_help = "Example:\n  keyhook keys delete kp_3f1c9a2b --yes")]
    Delete {
        /// Key id or its 11-character prefix
        id: String,
        /// Do not ask for confirmation (required without a terminal)
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Replace a key with a new one of the same name, permission and scope
    #[command(
        after_help = "Example (cron):\n  (umask 077; keyhook keys rotate kp_3f1c9a2b --grace 1h --quiet > new-key)"
    )]
    Rotate {
        /// Key id or its 11-character prefix
        id: String,
        /// Keep the old key working this long (e.g. 1h, 7d) instead of deleting it at once
        /// (0s: it expires now and stays listed until deleted or pruned)
        #[arg(long, value_name = "DUR", value_parser = parse_duration_or_zero)]
        grace: Option<i64>,
        /// Print only the new plaintext key
        #[arg(long, short = 'q')]
        quiet: bool,
    },
    /// Delete the user's keys that expired more than DUR ago (default 30 days)
    #[command(after_help = "Example (cron):\n  keyhook keys prune --expired-for 30d --yes")]
    Prune {
        /// How long ago a key must have expired to be deleted (e.g. 7d, 12h; 0s: every
        /// expired key)
        #[arg(long, value_name = "DUR", value_parser = age, default_value = "30d")]
        expired_for: Age,
        /// Do not ask for confirmation (required without a terminal)
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Find keys in files, directories or standard input; exit 4 if an active one is found
    #[command(
        after_help = "Exit status: 0 no active key found (or all revoked), 4 an active key found and not revoked, 2 usage.\n\nExamples:\n  git log -p | keyhook keys scan -\n  keyhook keys scan logs/ ci-output.txt --revoke --yes\n  keyhook --json keys scan build.log"
    )]
    Scan(super::scan::ScanArgs),
    /// Check a key read from standard input: exit 0 if it may be used, 4 if not
    #[command(
        after_help = "Examples:\n  keyhook keys verify --method POST --profile prof_1 < key.txt\n  keyhook keys verify --method POST --uri '/posts?profileId=brand-b' < key.txt"
    )]
    Verify {
        /// The HTTP method the key would be used for
        #[arg(long, default_value = "GET", value_parser = method)]
        method: RequestMethod,
        /// A profile the key would touch
        #[arg(long, value_name = "ID", value_parser = profile_id)]
        profile: Option<String>,
        /// The URI (path and query) of a request to the guarded service, decided as
        /// /api/v1/auth decides it (docs/guarding.md)
        #[arg(long, value_name = "URI")]
        uri: Option<String>,
        /// Where --uri names a profile, as serve --auth-profile (repeat for several)
        #[arg(long = "auth-profile", value_name = "TEMPLATE", requires = "uri",
              value_parser = ProfileTemplate::parse)]
        auth_profiles: Vec<ProfileTemplate>,
    },
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// A label for the key (1 to 100 characters)
    #[arg(long, short = 'n')]
    name: String,
    /// What the key may do
    #[arg(long, value_parser = ["readwrite", "readonly"], default_value = "readwrite")]
    permission: String,
    /// Limit the key to this profile (repeat for several); without it the key has full access
    #[arg(long = "profile", value_name = "ID")]
    profiles: Vec<String>,
    /// Expiry time, RFC 3339 with an offset (2030-01-01T00:00:00Z)
    #[arg(long, value_name = "TS", conflicts_with = "expires_in")]
    expires_at: Option<String>,
    /// Expiry as a duration from now (90m, 12h, 30d, 2w)
    #[arg(long, value_name = "DUR", value_parser = duration_ms)]
    expires_in: Option<i64>,
    /// This key's own rate limit (N/s or N/min, burst N), instead of serve --rate-limit's
    #[arg(long, value_name = "RATE")]
    rate_limit: Option<String>,
    /// How many requests the key may make; then it is refused (403 KEY_EXHAUSTED)
    #[arg(long, value_name = "N")]
    max_uses: Option<String>,
    /// Print only the plaintext key
    #[arg(long, short = 'q')]
    quiet: bool,
}

fn duration_ms(s: &str) -> Result<i64, String> {
    parse_duration(s)
}

/// A duration as given (`30d`) and in milliseconds.
#[derive(Debug, Clone)]
pub struct Age {
    ms: i64,
    text: String,
}

fn age(s: &str) -> Result<Age, String> {
    Ok(Age {
        ms: parse_duration_or_zero(s)?,
        text: s.trim().to_string(),
    })
}

/// A profile id as the key rules take one: visible text only (`service::input::visible`), so
/// that what is echoed back is what the operator typed.
fn profile_id(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        return Err("a profile id must not be empty".into());
    }
    keyhook_core::service::input::visible(s).map(|()| s.to_string())
}

/// `--method`: the method of the request the key would make, and the access it needs, as
/// /api/v1/auth decides it ([`forward::access_of`]: GET, HEAD and OPTIONS read, any other
/// method writes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestMethod {
    name: String,
    access: Access,
}

/// The spec's methods, whose letter case the command line forgives (`--method post` is POST).
const KNOWN_METHODS: [&str; 7] = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];

/// Any method the check accepts ([`forward::is_method`]); one of [`KNOWN_METHODS`] in any
/// letter case, any other as written (methods are case-sensitive, so `propfind` is not
/// PROPFIND, and both write).
fn method(s: &str) -> Result<RequestMethod, String> {
    let name = match KNOWN_METHODS.iter().find(|m| m.eq_ignore_ascii_case(s)) {
        Some(m) => m.to_string(),
        None if forward::is_method(s) => s.to_string(),
        None => {
            return Err(
                "expected an HTTP method (GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE, or \
                 another token of at most 32 characters)"
                    .to_string(),
            )
        }
    };
    let access = forward::access_of(&name);
    Ok(RequestMethod { name, access })
}

pub fn run(ctx: &Context, cmd: KeysCommand) -> anyhow::Result<()> {
    let now = ctx.clock.now();
    match cmd {
        KeysCommand::Create(args) => {
            let actor = ctx.actor()?;
            let input = new_key(&args, now);
            let store = ctx.keys_store(true)?;
            let mut publish =
                |key: &ApiKey| publish_new_key(ctx, key, args.quiet, now, "no key was created");
            let publish = Publish::BeforeCommit(&mut publish);
            keys::create(&store, &actor, input, now, publish)?;
            if !args.quiet {
                ctx.out.note(
                    "Store this key now: keyhook keeps only its hash and cannot show it again.",
                );
            }
            Ok(())
        }
        KeysCommand::List { all_users } => {
            let actor = ctx.actor()?;
            let list = keys::list(&ctx.keys_store(false)?, &actor, all_users)?;
            if list.is_empty() {
                ctx.out.note(&format!("No API keys for user {}.", ctx.user));
            }
            ctx.out.data(&*list, |w| {
                if list.is_empty() {
                    return Ok(());
                }
                writeln!(w, "{}", ctx.out.key_list(&list, now, all_users))
            })
        }
        KeysCommand::Show { id } => {
            let key = keys::get(&ctx.keys_store(false)?, &ctx.actor()?, &id)?;
            ctx.out
                .data(&key, |w| writeln!(w, "{}", ctx.out.key_detail(&key, now)))
        }
        KeysCommand::Delete { id, yes } => {
            let actor = ctx.actor()?;
            // It acts on keys that exist: a missing database is an error, not created.
            let store = ctx.keys_store(false)?;
            // Look the key up first, so a typo fails before the question.
            let key = keys::get(&store, &actor, &id)?;
            prompt::confirm(
                &format!("Delete API key {} ({})?", key.key_prefix, key.name),
                yes,
            )?;
            let key = keys::delete(&store, &actor, &key.id, ctx.clock.now())?;
            // DELETE answers 204 with an empty body, so --json prints nothing.
            ctx.out.note(&format!(
                "Deleted API key {} ({}).",
                key.key_prefix, key.name
            ));
            Ok(())
        }
        KeysCommand::Rotate { id, grace, quiet } => {
            let actor = ctx.actor()?;
            // It acts on keys that exist: a missing database is an error, not created.
            let store = ctx.keys_store(false)?;
            let old = keys::get(&store, &actor, &id)?;
            let mut publish = |key: &ApiKey| {
                publish_new_key(ctx, key, quiet, now, "no new key; the old key is unchanged")
            };
            let publish = Publish::BeforeCommit(&mut publish);
            keys::rotate(&store, &actor, &id, grace, now, publish)?;
            // Only after the commit: until then nothing was rotated.
            if !quiet {
                ctx.out.note(&match grace {
                    Some(_) => {
                        // As the rotation set it, never later than the key would have ended.
                        let until = keys::get(&store, &actor, &old.id)
                            .ok()
                            .and_then(|k| k.expires_at);
                        format!(
                            "Rotated {id}: the old key keeps working until {}.",
                            output::when(until)
                        )
                    }
                    None => format!("Rotated {id}: the old key was deleted."),
                });
                ctx.out.note(
                    "Store this key now: keyhook keeps only its hash and cannot show it again.",
                );
            }
            Ok(())
        }
        KeysCommand::Prune { expired_for, yes } => {
            let actor = ctx.actor()?;
            // It acts on keys that exist: a missing database is an error, not created.
            let store = ctx.keys_store(false)?;
            let Age {
                ms: expired_for,
                text: ago,
            } = expired_for;
            let due = keys::prunable(&store, &actor, expired_for, now)?;
            // Nothing to ask about at a terminal; without one, --yes is needed all the same,
            // so a script that lacks it fails every time, not only on nights with work.
            let nothing_to_ask = due.is_empty() && std::io::stdin().is_terminal();
            prompt::confirm(
                &format!(
                    "Delete {} of user {} that expired more than {ago} ago?",
                    count_keys(due.len()),
                    ctx.user
                ),
                yes || nothing_to_ask,
            )?;
            let deleted = keys::prune(&store, &actor, expired_for, now)?.len();
            let data = serde_json::json!({ "deleted": deleted });
            ctx.out.data(&data, |w| {
                writeln!(
                    w,
                    "Deleted {} that expired more than {ago} ago.",
                    count_keys(deleted)
                )
            })
        }
        KeysCommand::Scan(args) => super::scan::run(ctx, args),
        KeysCommand::Verify {
            method,
            profile,
            uri,
            auth_profiles,
        } => {
            // The URI is read before the prompt too: a bad one fails without asking for a key.
            let target = uri
                .as_deref()
                .map(|u| {
                    let mut t = forward::target(u, &auth_profiles, "--uri")?;
                    t.profiles
                        .extend(profile.clone().map(std::borrow::Cow::Owned));
                    Ok::<_, Error>(t)
                })
                .transpose()?;
            // Before the prompt: a missing database fails without asking for a key.
            let store = ctx.keys_store(false)?;
            let token = prompt::read_secret("API key")?;
            // Checking a key is not a use of it: lastUsedAt stays as it is.
            let key = auth::authenticate(&store, &token, now)?;
            match &target {
                // The decision of /api/v1/auth (keyhook_core::forward).
                Some(t) => forward::decide(&key, &method.name, t)?,
                None => auth::may(&key, method.access, &method.name, profile.as_deref())?,
            }
            // The profile and URI are echoed from argv: a key pasted there is shown as its
            // prefix.
            let target = match (&uri, profile) {
                (Some(u), _) => format!(" {}", keyhook_core::redact::keys(u)),
                (None, Some(p)) => format!(" on profile {}", keyhook_core::redact::keys(&p)),
                (None, None) => String::new(),
            };
            ctx.out.data(&key, |w| {
                writeln!(
                    w,
                    "ok: key {} ({}) of user {} may {}{target}",
                    key.key_prefix, key.name, key.user_id, method.name
                )
            })
        }
    }
}

/// The key that `keys create` asks for, in the service's types. A refused value that the API
/// also takes is named as the API names it, so that `--json` prints the API's error, and the
/// line on stderr names its flag (`output::flag_name`); `--expires-in`, which only the CLI
/// takes, is named by its flag in both, as clap names it.
fn new_key(args: &CreateArgs, now: Timestamp) -> NewKey {
    let mut p = Problems::default();
    NewKey {
        name: p.take("name", KeyName::new(&args.name)),
        permission: p.take("permission", Permission::parse(&args.permission)),
        full_access: Some(args.profiles.is_empty()),
        profile_ids: p.take_list("profileIds", ProfileIds::new(args.profiles.clone())),
        expires_at: match (&args.expires_at, args.expires_in) {
            (Some(at), _) => p.take("expiresAt", Expiry::parse(at, now)),
            (None, Some(ms)) => p.take("--expires-in", Expiry::new(now.add_millis(ms), now)),
            (None, None) => None,
        },
        rate_limit: args
            .rate_limit
            .as_ref()
            .and_then(|r| p.take("rateLimit", RateLimit::parse(r))),
        remaining_uses: args
            .max_uses
            .as_ref()
            .and_then(|n| p.take("remainingUses", uses(n))),
        problems: p,
    }
}

/// `--max-uses`: digits only, then the rule of `remainingUses` (`keys::max_uses`).
fn uses(s: &str) -> Result<i64, String> {
    let n = match s.parse::<i64>() {
        Ok(n) if s.bytes().all(|b| b.is_ascii_digit()) => n,
        _ if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => i64::MAX,
        _ => i64::MIN,
    };
    keys::max_uses(n)
}

fn count_keys(n: usize) -> String {
    format!("{n} key{}", if n == 1 { "" } else { "s" })
}

/// Writes and flushes the output that carries a new key, inside the transaction that stores
/// it (`secret_out::publish`): a failed write (a closed pipe, a full disk) or a standard output
/// that is /dev/null rolls the change back and exits 1.
fn publish_new_key(
    ctx: &Context,
    key: &keyhook_core::model::ApiKey,
    quiet: bool,
    now: Timestamp,
    unchanged: &str,
) -> Result<(), Error> {
    secret_out::publish("key", unchanged, || write_new_key(ctx, key, quiet, now))
}

fn write_new_key(
    ctx: &Context,
    key: &keyhook_core::model::ApiKey,
    quiet: bool,
    now: Timestamp,
) -> anyhow::Result<()> {
    let plaintext = key
        .key
        .as_deref()
        .ok_or_else(|| Error::Storage("the new key has no plaintext".into()))?;
    if quiet && !ctx.out.is_json() {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{plaintext}")?;
        stdout.flush()?;
    } else {
        ctx.out.data(key, |w| {
            writeln!(w, "{}", ctx.out.key_detail(key, now))?;
            writeln!(w, "{plaintext}")
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::{Cli, Command};
    use keyhook_core::service::Actor;

    fn create_args(flags: &[&str]) -> CreateArgs {
        let argv = ["keyhook", "keys", "create", "--name", "k"];
        let cli = Cli::try_parse_from(argv.iter().chain(flags)).unwrap();
        match cli.command {
            Command::Keys(KeysCommand::Create(args)) => args,
            other => panic!("{other:?}"),
        }
    }

    fn problems(input: NewKey, now: Timestamp) -> Vec<(String, String)> {
        let dir = tempfile::tempdir().unwrap();
        let store = keyhook_sqlite::SqliteStore::open(&dir.path().join("k.db")).unwrap();
        let store: Box<keyhook_core::store::Store> = Box::new(store);
        let actor = Actor::operator("alice").unwrap();
        let e = keys::create(&store, &actor, input, now, Publish::AfterCommit).unwrap_err();
        e.details()
            .iter()
            .map(|d| (d.field.clone(), d.message.clone()))
            .collect()
    }

    #[test]
    fn methods_parse_as_the_check_takes_them() {
        let name = |s: &str| method(s).map(|m| m.name);
        assert_eq!(name("pAtCh").as_deref(), Ok("PATCH"));
        assert_eq!(name("GET").as_deref(), Ok("GET"));
        assert_eq!(name("options").as_deref(), Ok("OPTIONS"));
        assert_eq!(name("PROPFIND").as_deref(), Ok("PROPFIND"));
        assert!(name("").is_err());
        assert!(name("GET POST").is_err());
        assert!(name(&"X".repeat(33)).is_err());
        for (m, access) in [
            ("get", Access::Read),
            ("HEAD", Access::Read),
            ("OPTIONS", Access::Read),
            ("post", Access::Write),
            ("PUT", Access::Write),
            ("patch", Access::Write),
            ("Delete", Access::Write),
            ("PROPFIND", Access::Write),
            ("propfind", Access::Write),
        ] {
            assert_eq!(method(m).unwrap().access, access, "{m}");
        }
    }

    #[test]
    fn expires_in_is_one_duration_from_now() {
        let now = Timestamp(1_800_000_000_000);
        let input = new_key(&create_args(&["--expires-in", "1h30m"]), now);
        assert_eq!(
            input.expires_at.map(Expiry::at),
            Some(now.add_millis(5_400_000))
        );
        let input = new_key(
            &create_args(&["--expires-at", "2030-01-01T02:00:00+02:00"]),
            now,
        );
        assert_eq!(
            input.expires_at.map(|e| e.at().to_rfc3339()).as_deref(),
            Some("2030-01-01T00:00:00.000Z")
        );
    }

    /// A refused `--expires-in` was reported as `--expires-at`: its value travelled as an RFC
    /// 3339 string and came back as the API's `expiresAt`. Near the end of what RFC 3339 can
    /// write (or under a clock set there), a long `--expires-in` is refused, under its name.
    #[test]
    fn a_refused_expires_in_is_reported_as_expires_in() {
        let late = Timestamp::MAX_RFC3339.add_millis(-3_600_000);
        let input = new_key(&create_args(&["--expires-in", "2h"]), late);
        assert_eq!(
            problems(input, late),
            [(
                "--expires-in".to_string(),
                "must be no later than 9999-12-31T23:59:59.999Z".to_string()
            )]
        );
        // --expires-at keeps the API's name in --json; stderr names the flag.
        let input = new_key(&create_args(&["--expires-at", "soon"]), late);
        assert_eq!(problems(input, late)[0].0, "expiresAt");
    }
}
