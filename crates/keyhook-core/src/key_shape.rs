//! The shape of a plaintext API key, on its own so that what only needs to recognise a key
//! (`redact`, `scan`) does not depend on `auth`, which checks keys against the store.

pub const KEY_PREFIX: &str = "kp_";
/// `kp_` + 64 lowercase hex characters.
pub const KEY_LEN: usize = 67;
/// `kp_` + the first 8 hex characters: the only part of a key shown after creation.
pub const KEY_PREFIX_LEN: usize = 11;
/// `auth::is_well_formed` as a regular expression (for the OpenAPI document; a test checks that
/// the two agree).
pub const KEY_PATTERN: &str = "^kp_[0-9a-f]{64}$";
/// The shape of an `auth::key_prefix` of a well-formed key.
pub const KEY_PREFIX_PATTERN: &str = "^kp_[0-9a-f]{8}$";
/// The part of a key its checksum covers: `kp_` and 56 random hex digits (224 bits).
pub const KEY_CHECKED_LEN: usize = 59;
