//! Standard Webhooks signing (<https://www.standardwebhooks.com/>).
//!
//! A secret is `whsec_` followed by the base64 of the key bytes. A signature is
//! `v1,` + base64(HMAC-SHA256(key, "{msg_id}.{timestamp}." ++ body)), sent in the
//! `webhook-signature` header next to `webhook-id` and `webhook-timestamp`.

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

/// The `webhook-signature` header value for one message.
///
/// The error never quotes the secret: it ends up in logs and API responses.
pub fn sign(secret: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> Result<String, Error> {
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
