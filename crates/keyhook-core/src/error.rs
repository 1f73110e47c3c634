//! The one domain error. Every front end maps it: the CLI to an exit code, the HTTP layer to a
//! status and an error object. The two mappings sit side by side so they cannot drift apart.

use std::borrow::Cow;

use serde::Serialize;

/// One problem with one input field, named as in the request (`name`, `events[1]`, `body`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// `details` with key-shaped strings in fields and messages redacted (`crate::redact`);
/// borrowed when there are none.
pub fn redact_details(details: &[FieldError]) -> Cow<'_, [FieldError]> {
    use crate::redact::has_secret;
    if !details
        .iter()
        .any(|d| has_secret(&d.field) || has_secret(&d.message))
    {
        return Cow::Borrowed(details);
    }
    Cow::Owned(
        details
            .iter()
            .map(|d| FieldError {
                field: crate::redact::keys(&d.field).into_owned(),
                message: crate::redact::keys(&d.message).into_owned(),
            })
            .collect(),
    )
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}", validation_summary(.0))]
    Validation(Vec<FieldError>),
    #[error("{0}")]
    Unauthorized(String),
    #[error("API key has expired")]
    Expired,
    #[error("{0}")]
    Forbidden(String),
    /// A 403 that names the request fields behind it (`expiresAt` of a key that would outlive
    /// the key creating it).
    #[error("{message}")]
    ForbiddenFields {
        message: String,
        details: Vec<FieldError>,
    },
    /// The key has used up its `--max-uses`: 403 `KEY_EXHAUSTED`.
    #[error("API key has no uses left")]
    Exhausted,
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    LimitReached(String),
    /// The operation needs an active webhook (a replay): 409 `WEBHOOK_DISABLED`.
    #[error("{0}")]
    WebhookDisabled(String),
    /// The change would break what refers to it (an event type still subscribed to, or still
    /// with a delivery pending; a built-in one): 409 `CONFLICT`.
    #[error("{0}")]
    Conflict(String),
    /// Too many of the caller's requests of one kind are running at once; try again shortly.
    #[error("{0}")]
    RateLimited(String),
    /// The database is there but cannot take writes now (read-only file, full disk, locked past
    /// the busy timeout). Not the client's fault, and worth retrying later.
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Storage(String),
    /// A command that needs an existing database was pointed at a path with none (the CLI's
    /// read-only commands never create one).
    #[error("{0}")]
    NoDatabase(String),
    #[error("{0}")]
    Io(String),
}

fn validation_summary(details: &[FieldError]) -> String {
    match details {
        [] => "invalid input".to_string(),
        [one] => format!("invalid {}: {}", one.field, one.message),
        [first, rest @ ..] => format!(
            "invalid {}: {} (and {} more problem{})",
            first.field,
            first.message,
            rest.len(),
            if rest.len() == 1 { "" } else { "s" }
        ),
    }
}

impl Error {
    /// Every code [`Error::code`] gives (the OpenAPI document lists them from here).
    pub const CODES: &'static [&'static str] = &[
        "VALIDATION_ERROR",
        "UNAUTHORIZED",
        "API_KEY_EXPIRED",
        "FORBIDDEN",
        "KEY_EXHAUSTED",
        "NOT_FOUND",
        "WEBHOOK_LIMIT_REACHED",
        "WEBHOOK_DISABLED",
        "CONFLICT",
        "RATE_LIMITED",
        "SERVICE_UNAVAILABLE",
        "DATABASE_NOT_FOUND",
        "INTERNAL_ERROR",
    ];

    pub fn validation(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Validation(vec![FieldError::new(field, message)])
    }

    /// Machine-readable code of the HTTP error object.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Validation(_) => "VALIDATION_ERROR",
            Error::Unauthorized(_) => "UNAUTHORIZED",
            Error::Expired => "API_KEY_EXPIRED",
            Error::Forbidden(_) | Error::ForbiddenFields { .. } => "FORBIDDEN",
            Error::Exhausted => "KEY_EXHAUSTED",
            Error::NotFound(_) => "NOT_FOUND",
            Error::LimitReached(_) => "WEBHOOK_LIMIT_REACHED",
            Error::WebhookDisabled(_) => "WEBHOOK_DISABLED",
            Error::Conflict(_) => "CONFLICT",
            Error::RateLimited(_) => "RATE_LIMITED",
            Error::Unavailable(_) => "SERVICE_UNAVAILABLE",
            Error::NoDatabase(_) => "DATABASE_NOT_FOUND",
            Error::Storage(_) | Error::Io(_) => "INTERNAL_ERROR",
        }
    }

    pub fn http_status(&self) -> u16 {
        match self {
            Error::Validation(_) => 400,
            Error::Unauthorized(_) | Error::Expired => 401,
            Error::Forbidden(_) | Error::ForbiddenFields { .. } | Error::Exhausted => 403,
            Error::NotFound(_) => 404,
            Error::LimitReached(_) | Error::WebhookDisabled(_) | Error::Conflict(_) => 409,
            Error::RateLimited(_) => 429,
            Error::Unavailable(_) | Error::NoDatabase(_) => 503,
            Error::Storage(_) | Error::Io(_) => 500,
        }
    }

    /// Exit status of the CLI: 1 runtime, 2 usage or validation, 3 not found, 4 refused, 5 limit.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Validation(_) => 2,
            Error::NotFound(_) => 3,
            Error::Unauthorized(_)
            | Error::Expired
            | Error::Forbidden(_)
            | Error::ForbiddenFields { .. }
            | Error::Exhausted
            | Error::WebhookDisabled(_)
            | Error::Conflict(_) => 4,
            Error::LimitReached(_) | Error::RateLimited(_) => 5,
            Error::Unavailable(_) | Error::Storage(_) | Error::Io(_) => 1,
            Error::NoDatabase(_) => 1,
        }
    }

    pub fn details(&self) -> &[FieldError] {
        match self {
            Error::Validation(d) | Error::ForbiddenFields { details: d, .. } => d,
            _ => &[],
        }
    }

    /// The message an API client may see. Internal failures never expose their cause; a
    /// key-shaped string is shown as its prefix (`crate::redact`).
    pub fn public_message(&self) -> String {
        match self {
            Error::Storage(_) | Error::Io(_) => "internal error".to_string(),
            Error::Validation(d) if d.len() > 1 => "request validation failed".to_string(),
            _ => crate::redact::owned(self.to_string()),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_lists_every_code() {
        let s = String::new;
        let every = [
            Error::Validation(vec![]),
            Error::Unauthorized(s()),
            Error::Expired,
            Error::Forbidden(s()),
            Error::ForbiddenFields {
                message: s(),
                details: vec![],
            },
            Error::Exhausted,
            Error::NotFound(s()),
            Error::LimitReached(s()),
            Error::WebhookDisabled(s()),
            Error::Conflict(s()),
            Error::RateLimited(s()),
            Error::Unavailable(s()),
            Error::Storage(s()),
            Error::NoDatabase(s()),
            Error::Io(s()),
        ];
        // No wildcard: a new variant does not compile until it is listed above.
        for e in &every {
            match e {
                Error::Validation(_)
                | Error::Unauthorized(_)
                | Error::Expired
                | Error::Forbidden(_)
                | Error::ForbiddenFields { .. }
                | Error::Exhausted
                | Error::NotFound(_)
                | Error::LimitReached(_)
                | Error::WebhookDisabled(_)
                | Error::Conflict(_)
                | Error::RateLimited(_)
                | Error::Unavailable(_)
                | Error::Storage(_)
                | Error::NoDatabase(_)
                | Error::Io(_) => {}
            }
        }
        let mut given: Vec<&str> = every.iter().map(Error::code).collect();
        given.sort_unstable();
        given.dedup();
        let mut listed = Error::CODES.to_vec();
        listed.sort_unstable();
        assert_eq!(given, listed);
    }
}
