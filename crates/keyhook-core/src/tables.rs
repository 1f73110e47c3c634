//! What `db copy` moves: every table of the schema, described once so each backend can read
//! and write it generically, in batches ordered by a key column. The copy itself (source to
//! target, batch by batch) lives in `service::copy`; the backends implement
//! [`CopyQueries`](crate::store::CopyQueries).

/// One value of a copied row. Booleans travel as `Int` 0 or 1 and timestamps as `Int`
/// milliseconds, as SQLite keeps them; a backend with other column types converts per
/// [`Kind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
}

/// A column's kind, for a backend that stores it natively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A 64-bit integer (ids of attempts, counts, milliseconds since the epoch).
    Int,
    /// A boolean, as `Cell::Int` 0 or 1.
    Bool,
    Text,
    Bytes,
}

/// A table as `db copy` sees it.
#[derive(Debug)]
pub struct Table {
    pub name: &'static str,
    /// A unique column whose order pages through the table: a batch is the rows after the
    /// previous batch's last value of it.
    pub order_by: &'static str,
    /// Every column, with nullable ones as `Cell::Null` where empty.
    pub columns: &'static [(&'static str, Kind)],
}

impl Table {
    /// The column names, comma-separated, in [`Table::columns`] order: a `SELECT` list.
    pub fn column_list(&self) -> String {
        self.columns
            .iter()
            .map(|(c, _)| *c)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether every new database starts with rows of this table ([`SEEDED`]): a copy
    /// replaces them with the source's instead of refusing a target that holds them.
    pub fn is_seeded(&self) -> bool {
        SEEDED.contains(&self.name)
    }

    /// The position of [`Table::order_by`] in [`Table::columns`].
    pub fn order_index(&self) -> usize {
        self.columns
            .iter()
            .position(|(c, _)| *c == self.order_by)
            .expect("order_by is one of the columns")
    }
}

use Kind::{Bool, Bytes, Int, Text};

/// The tables a new database is not empty of: the migrations seed the event catalog's
/// built-in types.
pub const SEEDED: &[&str] = &["event_types"];

/// Every table, parents before children, so a target with foreign keys accepts each batch.
pub const TABLES: &[Table] = &[
    Table {
        name: "users",
        order_by: "id",
        columns: &[("id", Text), ("created_at", Int)],
    },
    Table {
        name: "api_keys",
        order_by: "key_hash",
        columns: &[
            ("key_hash", Text),
            ("id", Text),
            ("user_id", Text),
            ("name", Text),
            ("key_prefix", Text),
            ("permission", Text),
            ("full_access", Bool),
            ("profile_ids", Text),
            ("last_used_at", Int),
            ("expires_at", Int),
            ("created_at", Int),
            ("checksummed", Bool),
            ("rate_limit", Text),
            ("budget_id", Text),
        ],
    },
    Table {
        name: "key_budgets",
        order_by: "id",
        columns: &[("id", Text), ("remaining_uses", Int)],
    },
    Table {
        name: "webhooks",
        order_by: "id",
        columns: &[
            ("id", Text),
            ("user_id", Text),
            ("url", Text),
            ("events", Text),
            ("secret", Text),
            ("is_active", Bool),
            ("fail_count", Int),
            ("created_at", Int),
            ("updated_at", Int),
            // secrets+delivery rules
            ("previous_secret", Text),
            ("previous_secret_expires_at", Int),
            ("disabled_reason", Text),
            // profile scope
            ("full_access", Bool),
            ("profile_ids", Text),
            // payload filters
            ("filter", Text),
            // the developer's loop
            ("ephemeral", Bool),
            ("heartbeat_at", Int),
            // delivery control
            ("retry_schedule", Text),
            ("timeout_ms", Int),
            ("held_until", Int),
            ("rate", Text),
            // signatures and secrets at rest (the secret cells travel sealed)
            ("signing", Text),
            ("public_key", Text),
            ("signing_key", Text),
            ("previous_signing_key", Text),
            ("headers", Text),
            // ordered delivery
            ("ordered", Bool),
        ],
    },
    Table {
        name: "webhook_rates",
        order_by: "webhook_id",
        columns: &[
            ("webhook_id", Text),
            ("millitokens", Int),
            ("at", Int),
            ("next_at", Int),
        ],
    },
    Table {
        // The fingerprint of the key the copied secret cells are sealed with.
        name: "secrets_key",
        order_by: "id",
        columns: &[("id", Int), ("fingerprint", Text)],
    },
    Table {
        name: "events",
        order_by: "id",
        columns: &[
            ("id", Text),
            ("user_id", Text),
            ("event", Text),
            ("payload", Bytes),
            ("created_at", Int),
            // profile scope
            ("profile_id", Text),
        ],
    },
    Table {
        name: "deliveries",
        order_by: "id",
        columns: &[
            ("id", Text),
            ("event_id", Text),
            ("webhook_id", Text),
            ("state", Text),
            ("attempts", Int),
            ("next_attempt_at", Int),
            ("lease_until", Int),
            ("created_at", Int),
            ("updated_at", Int),
        ],
    },
    Table {
        name: "delivery_attempts",
        order_by: "id",
        columns: &[
            ("id", Int),
            ("webhook_id", Text),
            ("delivery_id", Text),
            ("event_id", Text),
            ("event", Text),
            ("attempt", Int),
            ("attempted_at", Int),
            ("delivered", Bool),
            ("status_code", Int),
            ("status_text", Text),
            ("duration_ms", Int),
            ("response_excerpt", Text),
            ("skipped", Text),
        ],
    },
    // replay+idempotency
    Table {
        name: "idempotency_keys",
        order_by: "event_id",
        columns: &[
            ("user_id", Text),
            ("key", Text),
            ("event_id", Text),
            ("event", Text),
            ("deliveries", Int),
            ("created_at", Int),
            // profile scope: '' for user-wide events
            ("profile_id", Text),
        ],
    },
    // idempotent webhook requests (service::idempotency)
    Table {
        name: "idempotent_requests",
        order_by: "id",
        columns: &[
            ("id", Text),
            ("user_id", Text),
            ("route", Text),
            ("target", Text),
            ("key", Text),
            ("fingerprint", Text),
            ("response", Text),
            ("created_at", Int),
        ],
    },
    // audit log
    Table {
        name: "audit_log",
        order_by: "id",
        columns: &[
            ("id", Int),
            ("user_id", Text),
            ("at", Int),
            ("actor", Text),
            ("via", Text),
            ("action", Text),
            ("target", Text),
            ("details", Text),
            // profile scope
            ("full_access", Bool),
            ("profile_ids", Text),
        ],
    },
    // event catalog: the operator's event types (seeded with the built-ins)
    Table {
        name: "event_types",
        order_by: "name",
        columns: &[
            ("name", Text),
            ("description", Text),
            ("schema", Text),
            ("example", Text),
            ("profile", Text),
            ("deprecated", Bool),
            ("created_at", Int),
            ("updated_at", Int),
        ],
    },
    // the developer portal: links and their sessions, by the SHA-256 of their tokens (a
    // moved database keeps its open sessions: they are rows like any other).
    Table {
        name: "portal_links",
        order_by: "id",
        columns: &[
            ("id", Text),
            ("user_id", Text),
            ("token_hash", Text),
            ("full_access", Bool),
            ("profile_ids", Text),
            ("read_only", Bool),
            ("minted_by_key", Text),
            ("minted_by", Text),
            ("created_at", Int),
            ("expires_at", Int),
            ("used_at", Int),
            ("revoked_at", Int),
        ],
    },
    Table {
        name: "portal_sessions",
        order_by: "id",
        columns: &[
            ("id", Text),
            ("link_id", Text),
            ("token_hash", Text),
            ("created_at", Int),
            ("expires_at", Int),
        ],
    },
];
