//! Questions to a person at a terminal. Without one, nothing is asked and nothing is assumed.

use std::io::{self, IsTerminal, Read};

use crate::error::Error;

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
        .with_prompt(question)
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
