//! Secrets at rest (CONTRACT §15): webhook secrets, Ed25519 private keys and static header
//! values are stored sealed with XChaCha20-Poly1305 under a key kept outside the database
//! (`KEYHOOK_SECRETS_KEY`, else `$XDG_CONFIG_HOME/keyhook/secrets.key`). The database keeps
//! the key's fingerprint ([`SecretsKey::fingerprint`]) in `secrets_key`, so a keyhook holding
//! another key (or none) refuses plainly instead of signing with garbage.
//!
//! A sealed cell is `khs1:` + base64(24-byte random nonce ‖ ciphertext ‖ tag). The associated
//! data is `keyhook/webhooks/{id}/{column}`: a ciphertext moved to another webhook or another
//! column does not open.
//!
//! The process holds one key ([`install`]), chosen by the front end when it opens the
//! database (`keyhook-cli`'s `secrets_key.rs`); the backends seal and open cells through
//! [`seal_cell`] and [`open_cell`]. Before any database was opened (the library's own tests)
//! nothing is sealed and only plaintext opens.

use std::sync::{Arc, OnceLock, RwLock};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::rngs::OsRng;
use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::store::{StoreError, StoreResult};

/// What starts a sealed cell; anything else is plaintext (a row from before encryption).
pub const SEALED_PREFIX: &str = "khs1:";
const NONCE_LEN: usize = 24;

/// The columns of `webhooks` that hold secrets (sealed): the HMAC secret and the previous one,
/// the Ed25519 private key and the previous one, and the static headers (a JSON object).
pub const SECRET_COLUMNS: &[&str] = &[
    "secret",
    "previous_secret",
    "signing_key",
    "previous_signing_key",
    "headers",
];

/// A 32-byte key. Never printed: its `Debug` shows the fingerprint only.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretsKey([u8; 32]);

impl std::fmt::Debug for SecretsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretsKey({})", self.fingerprint())
    }
}

impl SecretsKey {
    pub fn generate() -> SecretsKey {
        let mut k = [0u8; 32];
        OsRng.fill_bytes(&mut k);
        SecretsKey(k)
    }

    pub fn from_bytes(bytes: [u8; 32]) -> SecretsKey {
        SecretsKey(bytes)
    }

    /// Standard base64 of exactly 32 bytes (surrounding whitespace ignored: a key file ends
    /// with a newline). The error never quotes the value.
    pub fn from_base64(s: &str) -> Result<SecretsKey, String> {
        let bytes = STANDARD
            .decode(s.trim())
            .map_err(|_| "is not base64".to_string())?;
        let key: [u8; 32] = bytes
            .try_into()
            .map_err(|b: Vec<u8>| format!("holds {} bytes, not 32", b.len()))?;
        Ok(SecretsKey(key))
    }

    pub fn to_base64(&self) -> String {
        STANDARD.encode(self.0)
    }

    /// What the database keeps to know its key: `sha256:` + the first 16 bytes (hex) of
    /// SHA-256 over a label and the key. It says which key, and nothing of the key.
    pub fn fingerprint(&self) -> String {
        let digest = Sha256::new()
            .chain_update(b"keyhook secrets key fingerprint\0")
            .chain_update(self.0)
            .finalize();
        format!("sha256:{}", hex::encode(&digest[..16]))
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new((&self.0).into())
    }

    /// `plaintext` sealed for `column` of the webhook `row`.
    pub fn seal(&self, row: &str, column: &str, plaintext: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        OsRng.fill_bytes(&mut nonce);
        let aad = associated_data(row, column);
        let ct = self
            .cipher()
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: plaintext.as_bytes(),
                    aad: aad.as_bytes(),
                },
            )
            .expect("XChaCha20-Poly1305 seals any message that fits in memory");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&ct);
        format!("{SEALED_PREFIX}{}", STANDARD.encode(out))
    }

    /// The plaintext of a sealed cell; `None` when it was sealed with another key, for
    /// another row or column, or was altered.
    pub fn open(&self, row: &str, column: &str, sealed: &str) -> Option<String> {
        let raw = STANDARD.decode(sealed.strip_prefix(SEALED_PREFIX)?).ok()?;
        if raw.len() < NONCE_LEN {
            return None;
        }
        let (nonce, ct) = raw.split_at(NONCE_LEN);
        let aad = associated_data(row, column);
        let pt = self
            .cipher()
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: ct,
                    aad: aad.as_bytes(),
                },
            )
            .ok()?;
        String::from_utf8(pt).ok()
    }
}

fn associated_data(row: &str, column: &str) -> String {
    format!("keyhook/webhooks/{row}/{column}")
}

pub fn is_sealed(s: &str) -> bool {
    s.starts_with(SEALED_PREFIX)
}

/// The process's key, as the front end found it for the database it opened.
#[derive(Debug, Clone)]
enum State {
    /// No database opened through the front end (a library's own tests): nothing is sealed.
    Unset,
    Ready(Arc<SecretsKey>),
    /// The database needs a key this process does not have: why, and what to do.
    Refused(String),
}

static STATE: RwLock<State> = RwLock::new(State::Unset);

/// The keys the front end could hold now besides the installed one ([`on_reload`]).
static RELOAD: OnceLock<fn() -> Vec<SecretsKey>> = OnceLock::new();

/// How a running process finds the key again when the database's changed under it (another
/// process ran `keyhook db rekey`): the front end reads the key file (and a rotation's
/// pending one) again; a key given in the environment cannot change, so it gives none.
pub fn on_reload(keys: fn() -> Vec<SecretsKey>) {
    let _ = RELOAD.set(keys);
}

fn reloaded() -> Vec<SecretsKey> {
    RELOAD.get().map(|f| f()).unwrap_or_default()
}

fn state() -> State {
    STATE.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn set_state(s: State) {
    *STATE.write().unwrap_or_else(|e| e.into_inner()) = s;
}

/// From now on cells are sealed and opened with `key`.
pub fn install(key: Arc<SecretsKey>) {
    set_state(State::Ready(key));
}

/// From now on every seal and every open of a sealed cell fails with `why` (which names the
/// fix): the database's key is not this process's.
pub fn refuse(why: impl Into<String>) {
    set_state(State::Refused(why.into()));
}

/// The installed key, or why there is none.
pub fn current() -> Result<Option<Arc<SecretsKey>>, String> {
    match state() {
        State::Unset => Ok(None),
        State::Ready(k) => Ok(Some(k)),
        State::Refused(why) => Err(why),
    }
}

/// Fails with the refusal's message when the process holds no usable key for its database
/// (`serve` and `deliver` check this before they start: they would deliver nothing).
pub fn require() -> Result<(), String> {
    current().map(|_| ())
}

fn refused(why: String) -> StoreError {
    StoreError::Unavailable(why)
}

/// The process takes `key`, found where the front end looks for it again (the key file,
/// after a rekey, or once an operator put the database's key there), and says so in its
/// log: a process that refused signs and delivers again without a restart.
fn found_again(key: SecretsKey) {
    tracing::warn!(
        target: "keyhook::secrets",
        "the secrets key {} in the key file opens the database's webhook secrets: keyhook \
         signs and delivers with it from now on",
        key.fingerprint()
    );
    install(Arc::new(key));
}

/// Says in the log, once per process, that this process's key no longer opens the database's
/// secrets: a running instance answers 503 and delivers nothing from then on, and the
/// operator who reads its log learns why without a request to look at. Names fingerprints,
/// never a key.
fn log_key_mismatch(why: &str) {
    static LOGGED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !LOGGED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        tracing::error!(target: "keyhook::secrets", "{why}");
    }
}

/// `plaintext` as `column` of webhook `row` stores it: sealed with the process's key.
pub fn seal_cell(row: &str, column: &str, plaintext: &str) -> StoreResult<String> {
    match current().map_err(refused)? {
        Some(k) => Ok(k.seal(row, column, plaintext)),
        None => Ok(plaintext.to_string()),
    }
}

/// [`seal_cell`] of an optional value.
pub fn seal_opt(row: &str, column: &str, plaintext: Option<&str>) -> StoreResult<Option<String>> {
    plaintext.map(|p| seal_cell(row, column, p)).transpose()
}

/// The plaintext of a stored cell. A plaintext cell (a row not encrypted yet) is its own
/// value; a sealed one needs the key it was sealed with. The error never quotes the cell.
pub fn open_cell(row: &str, column: &str, stored: &str) -> StoreResult<String> {
    if !is_sealed(stored) {
        return Ok(stored.to_string());
    }
    let installed = match current() {
        Ok(k) => k,
        // Refused: the key file may hold the database's key by now.
        Err(why) => {
            return reloaded()
                .into_iter()
                .find_map(|k| Some((k.open(row, column, stored)?, k)))
                .map(|(plain, k)| {
                    found_again(k);
                    plain
                })
                .ok_or_else(|| refused(why))
        }
    };
    match installed {
        Some(k) => {
            if let Some(plain) = k.open(row, column, stored) {
                return Ok(plain);
            }
            // Re-keyed by another process since this one found its key: the key file holds
            // the new key now (or, between a rekey's commit and its rename, the pending file).
            for new in reloaded().into_iter().filter(|n| *n != *k) {
                if let Some(plain) = new.open(row, column, stored) {
                    found_again(new);
                    return Ok(plain);
                }
            }
            let why = format!(
                "webhook {row}'s {column} does not open with this keyhook's secrets key \
                 ({}): the database was re-keyed (`keyhook db rekey`) or altered; restart \
                 keyhook with the database's key (KEYHOOK_SECRETS_KEY or the key file)",
                k.fingerprint()
            );
            log_key_mismatch(&why);
            Err(StoreError::Unavailable(why))
        }
        None => Err(StoreError::Unavailable(
            "the database's webhook secrets are encrypted and no secrets key is loaded".into(),
        )),
    }
}

/// Checks the fingerprint the database records now (read with
/// [`crate::store::SecretQueries::lock_secrets_fingerprint`] in the transaction that is about
/// to seal) against the installed key, so that nothing is sealed with a key the database no
/// longer has. When another process re-keyed the database meanwhile, the new key is taken if
/// the front end can find it again ([`on_reload`]: the key file); otherwise this process
/// refuses from now on (every seal and open fails, `serve` answers 503 to what needs a secret
/// and delivers nothing) until it is restarted with the database's key.
pub fn check_recorded(recorded: Option<&str>) -> StoreResult<()> {
    let Some(fp) = recorded else {
        return Ok(());
    };
    match state() {
        State::Unset => Ok(()),
        State::Refused(why) => match reloaded().into_iter().find(|n| n.fingerprint() == fp) {
            Some(k) => {
                found_again(k);
                Ok(())
            }
            None => Err(StoreError::Unavailable(why)),
        },
        State::Ready(k) if k.fingerprint() == fp => Ok(()),
        State::Ready(k) => {
            if let Some(new) = reloaded().into_iter().find(|n| n.fingerprint() == fp) {
                found_again(new);
                return Ok(());
            }
            let why = format!(
                "the database's webhook secrets were re-keyed to the secrets key {fp} \
                 (`keyhook db rekey`) while this keyhook ran with {}: restart it with the \
                 database's key (KEYHOOK_SECRETS_KEY or the key file); nothing is signed or \
                 delivered until then",
                k.fingerprint()
            );
            log_key_mismatch(&why);
            refuse(why.clone());
            Err(StoreError::Unavailable(why))
        }
    }
}

/// [`open_cell`] of an optional value.
pub fn open_opt(row: &str, column: &str, stored: Option<&str>) -> StoreResult<Option<String>> {
    stored.map(|s| open_cell(row, column, s)).transpose()
}

/// The webhook `w` as read from its row, with its stored secret cells opened: `w.secret` is
/// read sealed and opened in place; `signing_key` and `headers` are the stored cells of
/// those columns.
pub fn open_webhook(
    w: &mut crate::model::Webhook,
    signing_key: Option<&str>,
    headers: Option<&str>,
) -> StoreResult<()> {
    w.secret = open_cell(&w.id, "secret", &w.secret)?;
    w.private.signing_key = open_opt(&w.id, "signing_key", signing_key)?;
    w.private.headers = match open_opt(&w.id, "headers", headers)? {
        Some(json) => headers_from_json(&json)?,
        None => Vec::new(),
    };
    w.header_names = w.private.headers.iter().map(|(n, _)| n.clone()).collect();
    Ok(())
}

/// A webhook's secret cells as its row stores them.
pub struct SealedWebhook {
    pub secret: String,
    pub signing_key: Option<String>,
    pub headers: Option<String>,
}

/// The sealed cells of `w` for an insert or an update.
pub fn seal_webhook(w: &crate::model::Webhook) -> StoreResult<SealedWebhook> {
    Ok(SealedWebhook {
        secret: seal_cell(&w.id, "secret", &w.secret)?,
        signing_key: seal_opt(&w.id, "signing_key", w.private.signing_key.as_deref())?,
        headers: if w.private.headers.is_empty() {
            None
        } else {
            Some(seal_cell(
                &w.id,
                "headers",
                &headers_to_json(&w.private.headers),
            )?)
        },
    })
}

/// The stored cells a delivery is signed with, opened, in [`crate::store::Signing::secrets`]'
/// order for `mode` (the stored `signing` column), and the headers.
pub struct SigningCells<'a> {
    pub id: &'a str,
    pub mode: &'a str,
    pub secret: &'a str,
    pub previous_secret: Option<&'a str>,
    pub signing_key: Option<&'a str>,
    pub previous_signing_key: Option<&'a str>,
    pub headers: Option<&'a str>,
}

pub type Opened = (Vec<String>, Vec<(String, String)>);

impl SigningCells<'_> {
    pub fn open(&self) -> StoreResult<Opened> {
        let mode = crate::model::SigningMode::parse(self.mode).map_err(|_| {
            StoreError::Broken(format!("webhook {} has an unknown signing mode", self.id))
        })?;
        let mut secrets = Vec::with_capacity(2);
        if mode.hmac() {
            secrets.push(open_cell(self.id, "secret", self.secret)?);
            secrets.extend(open_opt(self.id, "previous_secret", self.previous_secret)?);
        }
        if mode.ed25519() {
            let key = open_opt(self.id, "signing_key", self.signing_key)?.ok_or_else(|| {
                StoreError::Broken(format!(
                    "webhook {} signs with Ed25519 but has no key",
                    self.id
                ))
            })?;
            secrets.push(key);
            secrets.extend(open_opt(
                self.id,
                "previous_signing_key",
                self.previous_signing_key,
            )?);
        }
        let headers = match open_opt(self.id, "headers", self.headers)? {
            Some(json) => headers_from_json(&json)?,
            None => Vec::new(),
        };
        Ok((secrets, headers))
    }
}

/// Headers as stored (before sealing): a JSON array of `[name, value]` pairs.
pub fn headers_to_json(headers: &[(String, String)]) -> String {
    serde_json::to_string(headers).expect("pairs of strings serialize")
}

pub fn headers_from_json(json: &str) -> StoreResult<Vec<(String, String)>> {
    serde_json::from_str(json)
        .map_err(|_| StoreError::Broken("a webhook's stored headers are not readable".into()))
}

/// One stored secret cell, as [`crate::store::SecretQueries::secret_cells`] reads it.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretCell {
    pub row: String,
    pub column: &'static str,
    pub value: String,
}

impl std::fmt::Debug for SecretCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretCell({}/{})", self.row, self.column)
    }
}

/// Re-seals every cell with `to` in the caller's transaction: plaintext cells are sealed,
/// sealed ones are opened with `from` first (they must open; with `from` None, with `to`),
/// and the fingerprint becomes `to`'s. Returns how many cells were written. Used by the first open of a database with a
/// key (`from` None: every cell is plaintext) and by `db rekey`.
pub fn reseal_all(
    c: &(impl crate::store::SecretQueries + ?Sized),
    from: Option<&SecretsKey>,
    to: &SecretsKey,
) -> StoreResult<usize> {
    let cells = c.secret_cells()?;
    let mut n = 0;
    for cell in &cells {
        let plain = if is_sealed(&cell.value) {
            // A database that records no key holds only cells sealed with `to` (its record
            // deleted by hand, say), or none.
            let from = from.unwrap_or(to);
            from.open(&cell.row, cell.column, &cell.value)
                .ok_or_else(|| {
                    StoreError::Broken(format!(
                        "webhook {}'s {} does not open with the database's key {}",
                        cell.row,
                        cell.column,
                        from.fingerprint()
                    ))
                })?
        } else {
            cell.value.clone()
        };
        c.set_secret_cell(
            &cell.row,
            cell.column,
            &to.seal(&cell.row, cell.column, &plain),
        )?;
        n += 1;
    }
    c.set_secrets_fingerprint(&to.fingerprint())?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_cells_open_only_for_their_row_column_and_key() {
        let k = SecretsKey::generate();
        let sealed = k.seal("w1", "secret", "whsec_abc");
        assert!(is_sealed(&sealed));
        assert!(!sealed.contains("whsec_abc"));
        assert_eq!(
            k.open("w1", "secret", &sealed).as_deref(),
            Some("whsec_abc")
        );
        assert_eq!(k.open("w2", "secret", &sealed), None, "another row");
        assert_eq!(k.open("w1", "headers", &sealed), None, "another column");
        assert_eq!(SecretsKey::generate().open("w1", "secret", &sealed), None);
        // Any flipped byte is refused.
        let mut raw = STANDARD.decode(&sealed[SEALED_PREFIX.len()..]).unwrap();
        let last = raw.len() - 1;
        raw[last] ^= 1;
        let tampered = format!("{SEALED_PREFIX}{}", STANDARD.encode(raw));
        assert_eq!(k.open("w1", "secret", &tampered), None);
        // Two seals of one value differ (random nonces).
        assert_ne!(k.seal("w1", "secret", "x"), k.seal("w1", "secret", "x"));
    }

    #[test]
    fn keys_parse_from_base64_of_32_bytes_and_have_stable_fingerprints() {
        let k = SecretsKey::generate();
        let again = SecretsKey::from_base64(&format!("{}\n", k.to_base64())).unwrap();
        assert_eq!(k, again);
        assert_eq!(k.fingerprint(), again.fingerprint());
        assert_ne!(k.fingerprint(), SecretsKey::generate().fingerprint());
        assert!(!k.fingerprint().contains(&hex::encode(k.0)[..8]));
        assert!(SecretsKey::from_base64("not base64!").is_err());
        let short = STANDARD.encode([1u8; 16]);
        assert_eq!(
            SecretsKey::from_base64(&short).unwrap_err(),
            "holds 16 bytes, not 32"
        );
        assert!(!format!("{k:?}").contains(&k.to_base64()));
    }
}
