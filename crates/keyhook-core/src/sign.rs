//! Standard Webhooks signing (<https://www.standardwebhooks.com/>).
//!
//! A secret is `whsec_` followed by the base64 of the key bytes. A signature is
//! `v1,` + base64(HMAC-SHA256(key, "{msg_id}.{timestamp}." ++ body)), sent in the
//! `webhook-signature` header next to `webhook-id` and `webhook-timestamp`.
//!
//! Ed25519 (`v1a`, CONTRACT §15): a private key is `whsk_` + the base64 of its 32-byte seed
//! (RFC 8032), its public key `whpk_` + the base64 of the 32 raw public key bytes; the
//! signature is `v1a,` + base64(Ed25519(seed, "{msg_id}.{timestamp}." ++ body)). [`sign`]
//! picks the scheme by the key's prefix.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::rngs::OsRng;
use rand::RngCore;
use sha2::Sha256;

use crate::error::Error;

pub const SECRET_PREFIX: &str = "whsec_";
/// An Ed25519 private key's prefix (Standard Webhooks).
pub const SIGNING_KEY_PREFIX: &str = "whsk_";
/// An Ed25519 public key's prefix (Standard Webhooks).
pub const PUBLIC_KEY_PREFIX: &str = "whpk_";
/// What a public key looks like: [`PUBLIC_KEY_PREFIX`] and the padded base64 of 32 bytes.
pub const PUBLIC_KEY_PATTERN: &str = "^whpk_[A-Za-z0-9+/]{43}=$";
/// What a secret looks like (for the OpenAPI document): [`SECRET_PREFIX`] and standard base64,
/// padded or not, as [`sign`] takes it.
pub const SECRET_PATTERN: &str = "^whsec_[A-Za-z0-9+/]+={0,2}$";

/// Number of random key bytes in a generated secret.
const SECRET_BYTES: usize = 32;

/// Standard base64 that accepts the key with or without its trailing `=` padding, as the
/// reference verifier libraries do.
const SECRET_DECODER: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A fresh secret: `whsec_` + standard base64 (with padding) of 32 bytes from the OS.
pub fn generate_secret() -> String {
    let mut key = [0u8; SECRET_BYTES];
    OsRng.fill_bytes(&mut key);
    format!("{SECRET_PREFIX}{}", STANDARD.encode(key))
}

/// A fresh Ed25519 key pair: the private key (`whsk_...`, kept sealed, never shown) and its
/// public key (`whpk_...`).
pub fn generate_signing_key() -> (String, String) {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    let key = ed25519_dalek::SigningKey::from_bytes(&seed);
    (
        format!("{SIGNING_KEY_PREFIX}{}", STANDARD.encode(seed)),
        format!(
            "{PUBLIC_KEY_PREFIX}{}",
            STANDARD.encode(key.verifying_key().as_bytes())
        ),
    )
}

/// The 32-byte seed of a `whsk_` private key.
fn seed_of(private: &str) -> Result<[u8; 32], Error> {
    let malformed = || Error::Storage("webhook signing key is malformed".into());
    let encoded = private
        .strip_prefix(SIGNING_KEY_PREFIX)
        .ok_or_else(malformed)?;
    SECRET_DECODER
        .decode(encoded)
        .map_err(|_| malformed())?
        .try_into()
        .map_err(|_| malformed())
}

fn ed25519_key(private: &str) -> Result<ed25519_dalek::SigningKey, Error> {
    Ok(ed25519_dalek::SigningKey::from_bytes(&seed_of(private)?))
}

/// The `whpk_` public key of a `whsk_` private key.
pub fn public_key_of(private: &str) -> Result<String, Error> {
    let key = ed25519_key(private)?;
    Ok(format!(
        "{PUBLIC_KEY_PREFIX}{}",
        STANDARD.encode(key.verifying_key().as_bytes())
    ))
}

/// How many expanded Ed25519 keys each thread keeps ([`expanded`]).
const KEPT_KEYS: usize = 16;

thread_local! {
    /// The keys this thread signed with last: expanding a seed costs a scalar multiplication,
    /// as much as the signature itself, and a worker signs for the same webhooks again and
    /// again. Only the expanded keys are kept (zeroed when dropped), found by their seed.
    static EXPANDED: std::cell::RefCell<Vec<ed25519_dalek::SigningKey>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// `private`'s expanded key, from this thread's few last ones when it is there.
fn expanded(private: &str) -> Result<ed25519_dalek::SigningKey, Error> {
    let seed = seed_of(private)?;
    EXPANDED.with(|kept| {
        let mut kept = kept.borrow_mut();
        if let Some(k) = kept.iter().find(|k| k.as_bytes() == &seed) {
            return Ok(k.clone());
        }
        let key = ed25519_dalek::SigningKey::from_bytes(&seed);
        if kept.len() == KEPT_KEYS {
            kept.remove(0);
        }
        kept.push(key.clone());
        Ok(key)
    })
}

/// `v1a,` + the base64 Ed25519 signature of `{msg_id}.{timestamp}.` ++ `body`.
pub fn sign_v1a(private: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> Result<String, Error> {
    use ed25519_dalek::Signer;
    let key = expanded(private)?;
    let mut msg = Vec::with_capacity(msg_id.len() + 24 + body.len());
    msg.extend_from_slice(format!("{msg_id}.{timestamp}.").as_bytes());
    msg.extend_from_slice(body);
    Ok(format!(
        "v1a,{}",
        STANDARD.encode(key.sign(&msg).to_bytes())
    ))
}

/// The `webhook-signature` entry for one message signed with `secret`: `v1,...` for a
/// `whsec_` secret, `v1a,...` for a `whsk_` private key.
///
/// The error never quotes the secret: it ends up in logs and API responses.
pub fn sign(secret: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> Result<String, Error> {
    if secret.starts_with(SIGNING_KEY_PREFIX) {
        return sign_v1a(secret, msg_id, timestamp, body);
    }
    let malformed = || Error::Storage("webhook secret is malformed".into());
    let encoded = secret.strip_prefix(SECRET_PREFIX).ok_or_else(malformed)?;
    let key = SECRET_DECODER.decode(encoded).map_err(|_| malformed())?;
    if key.is_empty() {
        return Err(malformed());
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).map_err(|_| malformed())?;
    mac.update(format!("{msg_id}.{timestamp}.").as_bytes());
    mac.update(body);
    Ok(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// The `webhook-signature` header value for a message signed with each of `secrets`, in
/// order, space-separated: during a secret's rotation the new secret first, then the old one
/// (the Standard Webhooks rotation rule), so a receiver holding either verifies it.
pub fn sign_all(
    secrets: &[&str],
    msg_id: &str,
    timestamp: i64,
    body: &[u8],
) -> Result<String, Error> {
    let signatures = secrets
        .iter()
        .map(|s| sign(s, msg_id, timestamp, body))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(signatures.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest;

    /// HMAC-SHA256 written out from RFC 2104 on top of the bare hash, so the tests do not
    /// trust the `hmac` crate wiring of the code under test.
    fn reference_hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
        let mut block = [0u8; 64];
        if key.len() > 64 {
            block[..32].copy_from_slice(&Sha256::digest(key));
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        let ipad: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
        let opad: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
        let inner = Sha256::new()
            .chain_update(&ipad)
            .chain_update(msg)
            .finalize();
        Sha256::new()
            .chain_update(&opad)
            .chain_update(inner)
            .finalize()
            .into()
    }

    /// The signature a Standard Webhooks verifier expects, computed independently of `sign`.
    fn reference_signature(secret: &str, msg_id: &str, ts: i64, body: &[u8]) -> String {
        let key = STANDARD
            .decode(secret.strip_prefix("whsec_").expect("whsec_ prefix"))
            .expect("base64 secret");
        let mut msg = format!("{msg_id}.{ts}.").into_bytes();
        msg.extend_from_slice(body);
        format!("v1,{}", STANDARD.encode(reference_hmac_sha256(&key, &msg)))
    }

    #[test]
    fn published_test_vector() {
        let sig = sign(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        )
        .unwrap();
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn reference_hmac_matches_rfc4231_case_2() {
        let mac = reference_hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            hex::encode(mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn generated_secret_round_trip() {
        let secret = generate_secret();
        assert!(secret.starts_with(SECRET_PREFIX));
        let key = STANDARD.decode(&secret[SECRET_PREFIX.len()..]).unwrap();
        assert_eq!(key.len(), 32);
        assert_ne!(generate_secret(), secret, "secrets must be random");

        let body = br#"{"id":"evt_1","event":"post.published"}"#;
        let sig = sign(&secret, "evt_1", 1_700_000_000, body).unwrap();
        assert_eq!(
            sig,
            reference_signature(&secret, "evt_1", 1_700_000_000, body)
        );
        // Any change to id, timestamp or body changes the signature.
        assert_ne!(sig, sign(&secret, "evt_2", 1_700_000_000, body).unwrap());
        assert_ne!(sig, sign(&secret, "evt_1", 1_700_000_001, body).unwrap());
        assert_ne!(sig, sign(&secret, "evt_1", 1_700_000_000, b"{}").unwrap());
    }

    /// Every secret `sign` takes matches [`SECRET_PATTERN`], and so does every new one.
    #[test]
    fn secrets_match_their_pattern() {
        let re = regex::Regex::new(SECRET_PATTERN).unwrap();
        for _ in 0..100 {
            let secret = generate_secret();
            assert!(re.is_match(&secret), "{secret}");
            assert!(re.is_match(secret.trim_end_matches('=')), "{secret}");
        }
        for bad in [
            "whsec_",
            "whsec_not base64!!",
            "WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        ] {
            assert!(
                sign(bad, "m", 1, b"{}").is_err() && !re.is_match(bad),
                "{bad}"
            );
        }
    }

    #[test]
    fn rotation_signs_with_each_secret_new_first() {
        let (new, old) = (generate_secret(), generate_secret());
        let header = sign_all(&[&new, &old], "m", 7, b"{}").unwrap();
        let want = format!(
            "{} {}",
            reference_signature(&new, "m", 7, b"{}"),
            reference_signature(&old, "m", 7, b"{}")
        );
        assert_eq!(header, want);
        assert_eq!(
            sign_all(&[&new], "m", 7, b"{}").unwrap(),
            reference_signature(&new, "m", 7, b"{}")
        );
        assert!(sign_all(&[&new, "whsec_"], "m", 7, b"{}").is_err());
    }

    /// RFC 8032 section 7.1, TESTs 1-3 and the 1023-byte TEST 1024: secret key (seed),
    /// public key, message, signature (hex).
    const RFC8032: &[(&str, &str, &str, &str)] = &[
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        ),
        (
            "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
            "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
        ),
    ];

    #[test]
    fn rfc8032_test_vectors() {
        for (seed, public, msg, sig) in RFC8032 {
            let seed: [u8; 32] = hex::decode(seed).unwrap().try_into().unwrap();
            let private = format!("whsk_{}", STANDARD.encode(seed));
            let want_public = format!("whpk_{}", STANDARD.encode(hex::decode(public).unwrap()));
            assert_eq!(public_key_of(&private).unwrap(), want_public);
            let msg = hex::decode(msg).unwrap();
            // The signed content is "{id}.{ts}." ++ body: an empty id and timestamp cannot
            // be given, so the vector's message goes through the key directly.
            let key = ed25519_key(&private).unwrap();
            use ed25519_dalek::Signer;
            assert_eq!(hex::encode(key.sign(&msg).to_bytes()), *sig);
        }
    }

    #[test]
    fn v1a_signs_the_standard_webhooks_content_and_verifies_with_the_public_key() {
        use ed25519_dalek::{Signature, Verifier, VerifyingKey};
        let (private, public) = generate_signing_key();
        assert!(regex::Regex::new(PUBLIC_KEY_PATTERN)
            .unwrap()
            .is_match(&public));
        assert_eq!(public_key_of(&private).unwrap(), public);
        let body = br#"{"id":"evt_1"}"#;
        let header = sign(&private, "evt_1", 1_700_000_000, body).unwrap();
        let sig = header.strip_prefix("v1a,").unwrap();
        let sig = Signature::from_slice(&STANDARD.decode(sig).unwrap()).unwrap();
        let pk: [u8; 32] = STANDARD.decode(&public[5..]).unwrap().try_into().unwrap();
        let pk = VerifyingKey::from_bytes(&pk).unwrap();
        pk.verify(br#"evt_1.1700000000.{"id":"evt_1"}"#, &sig)
            .unwrap();
        assert!(pk
            .verify(br#"evt_1.1700000001.{"id":"evt_1"}"#, &sig)
            .is_err());
        // Both schemes in one header, in the order given.
        let secret = generate_secret();
        let both = sign_all(&[&secret, &private], "evt_1", 1_700_000_000, body).unwrap();
        assert_eq!(
            both,
            format!(
                "{} {header}",
                sign(&secret, "evt_1", 1_700_000_000, body).unwrap()
            )
        );
        for bad in ["whsk_", "whsk_AAAA", "whsk_not base64"] {
            let err = sign(bad, "m", 1, b"{}").unwrap_err();
            assert_eq!(err.to_string(), "webhook signing key is malformed");
        }
    }

    #[test]
    fn unpadded_secret_is_accepted() {
        let secret = generate_secret();
        let unpadded = secret.trim_end_matches('=');
        assert_ne!(secret, unpadded);
        assert_eq!(
            sign(&secret, "m", 1, b"x").unwrap(),
            sign(unpadded, "m", 1, b"x").unwrap()
        );
    }

    #[test]
    fn malformed_secrets_are_refused_without_echoing_them() {
        for bad in [
            "",
            "whsec_",
            "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "whsec_not base64!!",
            "WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        ] {
            let err = sign(bad, "m", 1, b"{}").unwrap_err();
            assert!(matches!(err, Error::Storage(_)), "{bad:?}: {err:?}");
            assert_eq!(err.to_string(), "webhook secret is malformed");
        }
    }
}
