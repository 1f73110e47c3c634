//! Questions to a person at a terminal. Without one, nothing is asked and nothing is assumed.

use std::io::{self, IsTerminal, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use keyhook_core::error::Error;

/// Asks `question` on a terminal unless `yes`; refuses at once when there is no terminal.
pub fn confirm(question: &str, yes: bool) -> anyhow::Result<()> {
    if yes {
        return Ok(());
    }
    if !(io::stdin().is_terminal() && io::stderr().is_terminal()) {
        return Err(Error::validation(
            "--yes",
            "not a terminal: pass --yes to confirm this destructive command",
        )
        .into());
    }
    let confirmed = dialoguer::Confirm::new()
        .with_prompt(keyhook_core::redact::keys(question))
        .default(false)
        .interact()?;
    if confirmed {
        Ok(())
    } else {
        Err(anyhow::anyhow!("cancelled; nothing was changed"))
    }
}

/// The longest secret read from standard input; a key is 67 bytes.
const MAX_SECRET_BYTES: u64 = 4096;

/// Reads a secret from standard input (hidden prompt on a terminal), without the trailing
/// newline. Secrets never come from argv, where `ps` and shell history would show them.
pub fn read_secret(what: &str) -> anyhow::Result<String> {
    let secret = if io::stdin().is_terminal() {
        // Echo off before the prompt is shown: the prompt sets it off itself only after
        // printing, and a key pasted in between would be echoed on the screen.
        let _quiet = NoEcho::on_stdin();
        dialoguer::Password::new().with_prompt(what).interact()?
    } else {
        let mut buf = Vec::new();
        io::stdin()
            .lock()
            .take(MAX_SECRET_BYTES + 1)
            .read_to_end(&mut buf)?;
        if buf.len() as u64 > MAX_SECRET_BYTES {
            return Err(Error::Unauthorized(format!(
                "standard input is longer than {MAX_SECRET_BYTES} bytes; expected one {what}"
            ))
            .into());
        }
        String::from_utf8(buf).map_err(|_| {
            Error::Unauthorized(format!("the {what} on standard input is not UTF-8"))
        })?
    };
    let secret = secret.trim().to_string();
    if secret.is_empty() {
        return Err(
            Error::validation("stdin", format!("expected the {what} on standard input")).into(),
        );
    }
    Ok(secret)
}

/// The echo of the terminal on standard input, off until dropped, then as it was.
struct NoEcho(Option<libc::termios>);

impl NoEcho {
    fn on_stdin() -> NoEcho {
        // SAFETY: `termios` is plain data that tcgetattr fills; fd 0 is the process's own.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(libc::STDIN_FILENO, &mut t) } != 0 {
            return NoEcho(None);
        }
        let saved = t;
        t.c_lflag &= !libc::ECHO;
        // SAFETY: a termios read from the same descriptor, one flag changed.
        if unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &t) } != 0 {
            return NoEcho(None);
        }
        NoEcho(Some(saved))
    }
}

impl Drop for NoEcho {
    fn drop(&mut self) {
        if let Some(saved) = &self.0 {
            // SAFETY: the settings read from this descriptor before.
            unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, saved) };
        }
    }
}

/// A spinner on stderr while something slow runs; only on a terminal, and never in `--json`
/// mode. It stops and erases itself when dropped.
pub struct Spinner {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    pub fn start(message: &str, enabled: bool) -> Spinner {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = (enabled && io::stderr().is_terminal()).then(|| {
            let (stop, message) = (
                Arc::clone(&stop),
                keyhook_core::redact::display(message).into_owned(),
            );
            thread::spawn(move || {
                let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
                let mut stderr = io::stderr();
                for frame in frames.iter().cycle() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let _ = write!(stderr, "\r{frame} {message}");
                    let _ = stderr.flush();
                    thread::sleep(Duration::from_millis(80));
                }
                // Blank the line out without escape sequences a dumb terminal would show.
                let blank = " ".repeat(message.chars().count() + 2);
                let _ = write!(stderr, "\r{blank}\r");
                let _ = stderr.flush();
            })
        });
        Spinner { stop, thread }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
