//! Every option that takes a value reads the next word as that value, even when it starts
//! with `-` (as POSIX `getopt` does): a negative value is refused by the option's own rule,
//! naming the option, instead of clap's "unexpected argument '-1' found", which names none.
//! The walk covers every option of `Cli::command()`, so options added later are covered too.

use clap::error::ErrorKind;
use clap::CommandFactory;
use keyhook::cli::{runtime_command, Cli};

use crate::common::{str_of, Env};

/// A value-taking option of a command: the command's path and the option's id and flag.
struct ValueOption {
    path: Vec<String>,
    id: String,
    flag: String,
    /// The option is one of the root's (global): the command line needs a subcommand after it.
    global: bool,
}

fn value_options() -> Vec<ValueOption> {
    let root = Cli::command();
    let mut out = Vec::new();
    for path in crate::help::command_paths() {
        for a in find(&root, &path).get_arguments() {
            if a.is_positional() || !a.get_action().takes_values() {
                continue;
            }
            let flag = match (a.get_long(), a.get_short()) {
                (Some(l), _) => format!("--{l}"),
                (None, Some(s)) => format!("-{s}"),
                (None, None) => continue,
            };
            out.push(ValueOption {
                path: path.clone(),
                id: a.get_id().to_string(),
                flag,
                global: path.is_empty(),
            });
        }
    }
    out
}

/// The command at `path` of a command.
fn find<'a>(root: &'a clap::Command, path: &[String]) -> &'a clap::Command {
    path.iter().fold(root, |c, name| {
        c.find_subcommand(name)
            .expect("a path walked from the root")
    })
}

/// `argv` for `--flag VALUE` on the command at `path`, with its required positionals given
/// (the first of their possible values, or `x`).
fn argv(root: &clap::Command, o: &ValueOption, value: &str) -> Vec<String> {
    let mut argv = vec!["keyhook".to_string()];
    let (path, rest): (Vec<String>, Vec<String>) = if o.global {
        (vec![], vec!["keys".into(), "list".into()])
    } else {
        (o.path.clone(), vec![])
    };
    argv.extend(path.iter().cloned());
    let cmd = find(root, &path);
    for p in cmd.get_positionals().filter(|p| p.is_required_set()) {
        let v = p
            .get_possible_values()
            .first()
            .map_or("x".to_string(), |v| v.get_name().to_string());
        argv.push(v);
    }
    argv.push(o.flag.clone());
    argv.push(value.to_string());
    argv.extend(rest);
    argv
}

/// The raw value the option got, in the matches of the command at `path`.
fn raw_value(m: &clap::ArgMatches, path: &[String], id: &str) -> Option<String> {
    let mut m = m;
    for name in path {
        m = m.subcommand_matches(name)?;
    }
    let mut values = m.get_raw(id)?;
    values.next().map(|v| v.to_string_lossy().into_owned())
}

#[test]
fn every_option_reads_a_leading_hyphen_as_its_value_and_names_itself_refusing_it() {
    let root = runtime_command();
    let options = value_options();
    assert!(options.len() > 30, "{} options found", options.len());
    let mut wrong = Vec::new();
    for o in &options {
        for value in ["-1", "-1s", "-x"] {
            let argv = argv(&root, o, value);
            let shown = argv[1..].join(" ");
            match runtime_command().try_get_matches_from(&argv) {
                Ok(m) => {
                    let path = if o.global { &[][..] } else { &o.path[..] };
                    let got = raw_value(&m, path, &o.id);
                    if got.as_deref() != Some(value) {
                        wrong.push(format!("{shown}: {} got {got:?}", o.flag));
                    }
                }
                Err(e) => {
                    let text = e.to_string();
                    let named = text.contains(&format!("'{} ", o.flag))
                        || text.contains(&format!("'{}'", o.flag));
                    let ok = match e.kind() {
                        ErrorKind::ValueValidation | ErrorKind::InvalidValue => named,
                        // The value was read; another required option is missing.
                        ErrorKind::MissingRequiredArgument => !text.contains(value),
                        _ => false,
                    };
                    if !ok {
                        wrong.push(format!("{shown}: {:?}: {text}", e.kind()));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The examples of the report, on the real binary: exit 2, the flag named, nothing done.
#[test]
fn negative_values_are_refused_naming_the_flag() {
    let env = Env::new();
    let w = env.create_webhook("http://127.0.0.1:9/hook", "post.published");
    let id = str_of(&w, "id");
    let k = env.create_key("k", &[]);
    let key_id = str_of(&k, "id");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["webhooks", "rotate-secret", id, "--grace", "-1s"],
            "--grace",
        ),
        (vec!["prune", "--older-than", "-1s"], "--older-than"),
        (vec!["audit", "--limit", "-1"], "--limit"),
        (vec!["audit", "--since", "-1d"], "--since"),
        (vec!["keys", "rotate", key_id, "--grace", "-1h"], "--grace"),
        (
            vec!["keys", "create", "--name", "n", "--expires-in", "-1d"],
            "--expires-in",
        ),
        (
            vec!["keys", "prune", "--expired-for", "-1d", "--yes"],
            "--expired-for",
        ),
        (vec!["webhooks", "replay", id, "--since", "-1h"], "--since"),
        (vec!["serve", "--threads", "-1"], "--threads"),
        (
            vec!["deliver", "--once", "--delivery-workers", "-1"],
            "--delivery-workers",
        ),
        (
            vec!["--delivery-timeout", "-1s", "webhooks", "list"],
            "--delivery-timeout",
        ),
    ];
    for (args, flag) in cases {
        let r = env.run(&args);
        r.assert_error(2);
        assert!(r.stderr.contains(flag), "{args:?}: {}", r.stderr);
        assert!(
            !r.stderr.contains("unexpected argument"),
            "{args:?}: {}",
            r.stderr
        );
    }
    // Nothing was done: one key, the webhook's secret unchanged.
    let (_, keys) = env.json(&["keys", "list"]);
    assert_eq!(keys["data"].as_array().unwrap().len(), 1, "{keys}");
    let (_, shown) = env.json(&["webhooks", "show", id]);
    assert_eq!(shown["data"]["secret"], w["secret"]);
}
