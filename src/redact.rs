//! Redaction of key-shaped strings. Every sink that prints a message or a log line (the CLI's
//! error printer and notes, the HTTP error object, the access log, the server's own log lines)
//! passes its text through [`keys`], so a plaintext key that a user put where it does not
//! belong (an id argument, a URL path, a JSON field name) is never repeated whole.

use std::borrow::Cow;

/// Characters of a key shown in place of the whole: `kp_` and 8 hex digits.
pub const SHOWN: usize = 11;

/// Hex digits of a plaintext key after `kp_`.
const KEY_HEX: usize = 64;

/// The fewest bytes a key-shaped token takes: `kp_` and 64 hex digits, none encoded.
const MIN_LEN: usize = 3 + KEY_HEX;

/// How deep percent-encodings are unwrapped while matching (`%6b` is one level, `%256b` two).
const MAX_NESTING: u8 = 3;

/// `s` with every key-shaped token replaced by its first [`SHOWN`] characters and `…`.
///
/// A key-shaped token is `kp_` followed by at least 64 hex digits (a longer hex run is one
/// token); letters in any case. Each of its characters may also be percent-encoded (`%6bp_`,
/// `kp%5F…`, `%256b` for `%6b`), as a URL path carries them; the prefix shown is the decoded
/// one. Borrows `s`, allocating nothing, when there is nothing to redact.
pub fn keys(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    // A token takes at least MIN_LEN bytes (more when encoded): nothing can start later.
    while i + MIN_LEN <= b.len() {
        if matches!(b[i], b'k' | b'K' | b'%') {
            if let Some((end, shown)) = key_at(b, i) {
                let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
                // `i` and `end` sit on ASCII bytes, so both are char boundaries.
                o.push_str(&s[copied..i]);
                o.extend(shown.iter().map(|&c| char::from(c)));
                o.push('…');
                copied = end;
                i = end;
                continue;
            }
        }
        i += 1;
    }
    match out {
        None => Cow::Borrowed(s),
        Some(mut o) => {
            o.push_str(&s[copied..]);
            Cow::Owned(o)
        }
    }
}

/// [`keys`] for an owned string: `s` itself when there is nothing to redact.
pub fn owned(s: String) -> String {
    match keys(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(o) => o,
    }
}

/// Whether `s` holds a key-shaped token.
pub fn has_key(s: &str) -> bool {
    matches!(keys(s), Cow::Owned(_))
}

/// The key-shaped token starting at `i`: where it ends and its first [`SHOWN`] characters.
fn key_at(b: &[u8], i: usize) -> Option<(usize, [u8; SHOWN])> {
    let mut shown = [0u8; SHOWN];
    let mut at = i;
    for (n, want) in [b'k', b'p', b'_'].into_iter().enumerate() {
        let (c, next) = unit(b, at, MAX_NESTING)?;
        if c.to_ascii_lowercase() != want {
            return None;
        }
        shown[n] = c;
        at = next;
    }
    let mut hex = 0;
    while let Some((c, next)) = unit(b, at, MAX_NESTING) {
        if !c.is_ascii_hexdigit() {
            break;
        }
        if 3 + hex < SHOWN {
            shown[3 + hex] = c;
        }
        hex += 1;
        at = next;
    }
    (hex >= KEY_HEX).then_some((at, shown))
}

/// The character at `i`, percent-decoded up to `depth` levels, and where the next one starts.
fn unit(b: &[u8], i: usize, depth: u8) -> Option<(u8, usize)> {
    let c = *b.get(i)?;
    if c != b'%' || depth == 0 {
        return Some((c, i + 1));
    }
    // `%` and two hex digits, each of which may itself be encoded (`%%36%62`).
    let decoded = unit(b, i + 1, depth - 1).and_then(|(h, j)| {
        let (l, k) = unit(b, j, depth - 1)?;
        Some((hex_value(h)? << 4 | hex_value(l)?, k))
    });
    match decoded {
        // `%25` is a `%` that starts an escape of its own: `%256b` is `%6b` is `k`.
        Some((b'%', k)) => {
            let (h, j) = unit(b, k, depth - 1)?;
            let (l, k) = unit(b, j, depth - 1)?;
            Some((hex_value(h)? << 4 | hex_value(l)?, k))
        }
        Some(d) => Some(d),
        None => Some((c, i + 1)),
    }
}

fn hex_value(c: u8) -> Option<u8> {
    char::from(c).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn key() -> String {
        format!("kp_{HEX}")
    }

    #[test]
    fn a_key_becomes_its_prefix_and_an_ellipsis() {
        let msg = format!("no API key with id or prefix {:?}", key());
        assert_eq!(keys(&msg), "no API key with id or prefix \"kp_01234567…\"");
        assert_eq!(keys(&key()), "kp_01234567…");
        let two = format!("{} and {}!", key(), key().to_uppercase());
        assert_eq!(keys(&two), "kp_01234567… and KP_01234567…!");
    }

    #[test]
    fn a_longer_hex_run_is_one_token_and_a_shorter_one_is_no_key() {
        assert_eq!(keys(&format!("x{}ffff y", key())), "xkp_01234567… y");
        let short = format!("kp_{}", &HEX[..63]);
        assert!(matches!(keys(&short), Cow::Borrowed(_)));
        assert_eq!(keys(&format!("kp_{}", HEX.to_uppercase())), "kp_01234567…");
    }

    #[test]
    fn percent_encoded_keys_are_found() {
        for encoded in [
            format!("/api-keys/%6bp_{HEX}"),
            format!("/api-keys/%6Bp%5F{HEX}"),
            format!("/api-keys/kp_%30{}", &HEX[1..]),
            format!("/api-keys/%256bp_{HEX}"),
            format!("/api-keys/%%36%62p_{HEX}"),
            format!("/api-keys/%25%36%62p%255f{HEX}"),
        ] {
            let r = keys(&encoded);
            assert!(!r.contains(&HEX[8..]), "{encoded} -> {r}");
            assert_eq!(r, "/api-keys/kp_01234567…", "{encoded}");
        }
    }

    #[test]
    fn text_without_a_key_is_borrowed_unchanged() {
        for s in [
            "",
            "GET /api/v1/api-keys/kp_0123456 200",
            "%",
            "%%%%%%%%%%%%",
            "%6",
            "kp_",
            "k%",
            "naïve kp_ é 日本 %zz",
        ] {
            assert!(matches!(keys(s), Cow::Borrowed(_)), "{s}");
        }
        assert!(!has_key("kp_"));
        assert!(has_key(&key()));
    }

    #[test]
    fn multibyte_text_around_a_key_survives() {
        let s = format!("é{}日本", key());
        assert_eq!(keys(&s), "ékp_01234567…日本");
    }
}
