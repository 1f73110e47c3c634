//! Shell completions and manual pages, rendered from `Cli::command()`. The committed files in
//! `completions/` and `man/` are these renderings; a test keeps them in step.

use std::fmt::Write as _;
use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;

use super::Cli;

/// Every shell `completions` supports, with the file name its script is committed under.
pub const SHELLS: &[(Shell, &str)] = &[
    (Shell::Bash, "keyhook.bash"),
    (Shell::Zsh, "_keyhook"),
    (Shell::Fish, "keyhook.fish"),
    (Shell::Elvish, "keyhook.elv"),
    (Shell::PowerShell, "_keyhook.ps1"),
];

pub fn completions(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut completion_command(), "keyhook", &mut out);
    let mut script = String::from_utf8_lossy(&out).into_owned();
    if shell == Shell::Fish {
        script = fish_option_values(&script);
        script.push_str(&fish_positionals(&completion_command()));
    }
    event_names_from_the_catalog(shell, &script).into_bytes()
}

/// The one value an event name argument lists (`events::EventNameArg`): each script puts in
/// its place a call that reads the catalog of the database the shell's keyhook uses
/// (`KEYHOOK_DB`, else the default file), so the names offered are the operator's, not a
/// list compiled into the script.
pub const EVENT_NAMES_MARK: &str = "__keyhook_event_names__";

/// The command that prints the catalog's names, one a line; nothing when there is no
/// database.
const EVENT_NAMES_COMMAND: &str = "keyhook event-types list --names 2>/dev/null";

/// `script` with [`EVENT_NAMES_MARK`] replaced by `shell`'s way of completing the output of
/// [`EVENT_NAMES_COMMAND`]. elvish and PowerShell complete no values from clap's lists, so
/// they hold no mark.
fn event_names_from_the_catalog(shell: Shell, script: &str) -> String {
    match shell {
        Shell::Bash => script.replace(EVENT_NAMES_MARK, &format!("$({EVENT_NAMES_COMMAND})")),
        Shell::Zsh => script.replace(
            &format!("({EVENT_NAMES_MARK})"),
            &format!("{{compadd -- ${{(f)\"$({EVENT_NAMES_COMMAND})\"}}}}"),
        ),
        Shell::Fish => script
            .replace(
                &format!("\"{EVENT_NAMES_MARK}\\t''\""),
                &format!("\"({EVENT_NAMES_COMMAND})\""),
            )
            .replace(
                &format!("\"{EVENT_NAMES_MARK}\""),
                &format!("\"({EVENT_NAMES_COMMAND})\""),
            ),
        _ => script.to_string(),
    }
}

/// `Cli::command()` as the completion scripts see it: a value that is neither a path (an
/// argument that takes one says so with a path `value_hint`) nor one of a list (`--color`,
/// an event name) is completed as nothing rather than as a file name: durations, ids, URLs,
/// JSON, rates. Applied to every argument, so that one added later is covered too.
pub fn completion_command() -> clap::Command {
    fn hint(cmd: clap::Command) -> clap::Command {
        let names: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        let mut cmd = cmd.mut_args(|a| {
            // Before `build`, what an argument takes is its action's to say.
            let takes_value = a.get_action().takes_values();
            let listed = !a.get_possible_values().is_empty();
            if takes_value && !listed && a.get_value_hint() == clap::ValueHint::Unknown {
                a.value_hint(clap::ValueHint::Other)
            } else {
                a
            }
        });
        for name in names {
            cmd = cmd.mut_subcommand(name, hint);
        }
        cmd
    }
    let mut cmd = hint(Cli::command());
    cmd.build();
    cmd
}

/// clap_complete's fish script completes no positional argument, so fish offers file names
/// for each (`events emit <TAB>`, `keys show <TAB>`). Added: for a command whose positionals
/// take no path, no file names, and the values of a positional that lists them (an event
/// name, a shell).
fn fish_positionals(root: &clap::Command) -> String {
    fn walk(cmd: &clap::Command, path: &[&str], out: &mut String) {
        let positionals: Vec<&clap::Arg> = cmd.get_positionals().collect();
        if !path.is_empty() && !positionals.is_empty() {
            let paths = positionals.iter().any(|a| {
                matches!(
                    a.get_value_hint(),
                    clap::ValueHint::AnyPath | clap::ValueHint::FilePath | clap::ValueHint::DirPath
                )
            });
            let condition = match path {
                [one] => format!("__fish_keyhook_using_subcommand {one}"),
                [one, two] => format!(
                    "__fish_keyhook_using_subcommand {one}; and __fish_seen_subcommand_from {two}"
                ),
                _ => String::new(),
            };
            if !paths && !condition.is_empty() {
                let values: Vec<String> = positionals
                    .iter()
                    .flat_map(|a| a.get_possible_values())
                    .map(|v| v.get_name().to_string())
                    .collect();
                let _ = write!(out, "complete -c keyhook -n \"{condition}\" -f");
                if !values.is_empty() {
                    let _ = write!(out, " -a \"{}\"", values.join(" "));
                }
                out.push('\n');
            }
        }
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut deeper = path.to_vec();
            deeper.push(sub.get_name());
            walk(sub, &deeper, out);
        }
    }
    let mut out = String::new();
    walk(root, &[], &mut out);
    out
}

/// clap_complete's fish script decides whether a command has been given yet with `argparse`
/// over the words so far, which fails while the last of them is a global option still
/// waiting for its value (`keyhook --color <TAB>`): the option's own completion then does
/// not apply and fish offers file names. Patched so that such a trailing option is left out
/// of that decision.
fn fish_option_values(script: &str) -> String {
    const FROM: &str =
        "    argparse -s (__fish_keyhook_global_optspecs) -- $cmd 2>/dev/null\n    or return\n";
    const TO: &str = "    argparse -s (__fish_keyhook_global_optspecs) -- $cmd 2>/dev/null\n    or begin\n        # The last word is an option still waiting for its value (keyhook --color <TAB>).\n        set -e cmd[-1]\n        argparse -s (__fish_keyhook_global_optspecs) -- $cmd 2>/dev/null\n    end\n    or return\n";
    assert!(
        script.contains(FROM),
        "clap_complete's fish script changed: look at fish_option_values again"
    );
    script.replacen(FROM, TO, 1)
}

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    (
        "1",
        "Runtime failure: I/O, database or network (also webhooks test when not delivered).",
    ),
    ("2", "Usage or validation error."),
    ("3", "Not found."),
    ("4", "Authentication or permission refused (keys verify)."),
    ("5", "Limit reached (a user's eleventh webhook)."),
];

const FILES: &[(&str, &str)] = &[(
    "$XDG_DATA_HOME/keyhook/keyhook.db",
    "The database (default ~/.local/share/keyhook/keyhook.db when XDG_DATA_HOME is unset), \
     created with mode 0600 in directories created with mode 0700, with its -wal and -shm \
     files beside it, by the first command that creates something; the others exit 1 when \
     it is missing. It holds SHA-256 hashes of keys, never keys.",
)];

/// Escapes text for roff: backslashes, and a leading dot or quote that would start a request.
fn roff_text(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    match s.chars().next() {
        Some('.') | Some('\'') => format!("\\&{s}"),
        _ => s,
    }
}

fn section(out: &mut Vec<u8>, title: &str, items: &[(&str, &str)]) {
    let _ = writeln!(out, ".SH \"{title}\"");
    for (tag, text) in items {
        let _ = writeln!(out, ".TP\n\\fB{}\\fR\n{}", roff_text(tag), roff_text(text));
    }
}

fn environment(cmd: &clap::Command) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = Vec::new();
    fn walk(cmd: &clap::Command, vars: &mut Vec<(String, String)>) {
        for arg in cmd.get_arguments() {
            if let Some(env) = arg.get_env() {
                let name = env.to_string_lossy().into_owned();
                if !vars.iter().any(|(n, _)| *n == name) {
                    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                    let flag = arg.get_long().unwrap_or(arg.get_id().as_str());
                    vars.push((name, format!("{help} (--{flag})")));
                }
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, vars);
        }
    }
    walk(cmd, &mut vars);
    vars.push((
        "NO_COLOR".into(),
        "When set (to anything), tables are printed without color, as with --color never.".into(),
    ));
    vars.push((
        crate::logging::FILTER_ENV.into(),
        "Which log events are written: a level (error, warn, info, debug, trace, off) or \
         target=level directives separated by commas (default info). See docs/operating.md."
            .into(),
    ));
    vars
}

/// The date of the pages' `.TH` line (shown in their footer): when their content last
/// changed in a way a reader would care about. A fixed date, not the day they were rendered,
/// so that the committed pages are the same on every machine; change it with the pages.
pub const MAN_DATE: &str = "2026-11-25";

/// One page: the standard sections, then EXAMPLES from the command's after-help text.
fn page(cmd: &clap::Command, extra: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let name = cmd.get_display_name().unwrap_or(cmd.get_name());
    // The `.TH` line: title, section, date, source, manual (clap_mangen's default has no
    // date, so its source, `create 0.1.0`, was read as one).
    let man = Man::new(cmd.clone())
        .title(name.to_uppercase())
        .date(MAN_DATE)
        .source(format!("keyhook {}", env!("CARGO_PKG_VERSION")))
        .manual("keyhook manual");
    let mut out = Vec::new();
    let _ = man.render_title(&mut out);
    let _ = man.render_name_section(&mut out);
    let _ = man.render_synopsis_section(&mut out);
    let _ = man.render_description_section(&mut out);
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        let _ = man.render_options_section(&mut out);
    }
    if cmd.has_subcommands() {
        let _ = man.render_subcommands_section(&mut out);
    }
    if let Some(after) = cmd.get_after_help() {
        let _ = writeln!(out, ".SH EXAMPLES\n.nf");
        for line in after
            .to_string()
            .lines()
            .filter(|l| !l.starts_with("Example"))
        {
            let _ = writeln!(out, "{}", roff_text(line));
        }
        let _ = writeln!(out, ".fi");
    }
    extra(&mut out);
    let _ = man.render_version_section(&mut out);
    tidy(&String::from_utf8_lossy(&out)).into_bytes()
}

/// What clap_mangen writes that `mandoc -T lint` warns about, rewritten: a `.br`, a blank
/// line (a paragraph break of its own) and a `.br` between a help text and its list of
/// possible values become one `.sp`, which is what they mean; a blank line anywhere else is
/// a `.sp` too; no line ends in white space.
fn tidy(page: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let lines: Vec<&str> = page.lines().map(str::trim_end).collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i..].starts_with(&[".br", "", ".br"]) {
            out.push(".sp");
            i += 3;
            continue;
        }
        out.push(if lines[i].is_empty() { ".sp" } else { lines[i] });
        i += 1;
    }
    // Paragraph macros side by side: only the first counts.
    out.dedup_by(|b, a| *a == ".sp" && (*b == ".sp" || *b == ".br"));
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// `keyhook.1` and a page per subcommand (`keyhook-keys.1`, `keyhook-keys-create.1`, ...).
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    // `--db`'s default as a variable, not this machine's path: the pages are committed.
    let mut root = super::documented_command().disable_help_subcommand(true);
    root.build();
    let env: Vec<(String, String)> = environment(&root);
    let mut pages = vec![(
        "keyhook.1".to_string(),
        page(&root, |out| {
            section(out, "EXIT STATUS", EXIT_STATUS);
            let env: Vec<(&str, &str)> =
                env.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
            section(out, "ENVIRONMENT", &env);
            section(out, "FILES", FILES);
        }),
    )];
    fn walk(cmd: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = sub.get_display_name().unwrap_or(sub.get_name()).to_string();
            pages.push((format!("{name}.1"), page(sub, |_| {})));
            walk(sub, pages);
        }
    }
    walk(&root, &mut pages);
    pages
}
