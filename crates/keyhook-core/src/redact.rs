//! Redaction of secret-shaped strings. Every sink that prints a message or a log line (the
//! CLI's error printer and notes, the HTTP error object, the access log, the server's own log
//! lines) passes its text through [`keys`], so a plaintext key or a webhook secret that a user
//! put where it does not belong (an id argument, a URL path, a JSON field name) is never
//! repeated whole. Lines for a terminal or a log file go out through [`to_stderr`], which also
//! escapes control characters and never fails.

use std::borrow::Cow;
use std::io::Write;

/// Characters of a key shown in place of the whole: `kp_` and 8 hex digits.
pub const SHOWN: usize = 11;

/// Hex digits of a plaintext key after `kp_`.
const KEY_HEX: usize = 64;

/// Hex digits of a bare hex run shown in place of the whole.
const HEX_SHOWN: usize = 8;

/// A webhook secret's key without its `whsec_`: 32 bytes, 43 base64 characters and a `=`.
/// What is shown of it.
const B64_MIN: usize = 43;
const B64_SHOWN: usize = 4;

/// A webhook secret's prefix, and the fewest base64 characters after it that make a
/// secret-shaped token (a secret has 44).
const SECRET_PREFIX: &[u8] = b"whsec_";
const SECRET_MIN: usize = 32;

/// The fewest bytes any token takes, none encoded: a secret-shaped one.
const MIN_LEN: usize = 6 + SECRET_MIN;

/// How deep percent-encodings are unwrapped while matching (`%6b` is one level, `%256b` two).
const MAX_NESTING: u8 = 3;

/// `s` with every secret-shaped token replaced by what may be shown of it and `…`:
///
/// - a key-shaped token, `kp_` followed by at least 64 hex digits (a longer hex run is one
///   token), letters in any case, becomes its first [`SHOWN`] characters;
/// - a bare run of at least 64 hex digits (a key's payload without its `kp_`, or glued to other
///   text) becomes its first 8 digits;
/// - a secret-shaped token, `whsec_` followed by at least 32 base64 characters, becomes
///   `whsec_`, with nothing of the secret;
/// - 43 base64 characters and a `=` (also `%3D`), the shape of a webhook secret's key without
///   its `whsec_` (32 bytes), become their first 4 characters.
///
/// Each character may also be percent-encoded (`%6bp_`, `kp%5F…`, `%256b` for `%6b`), as a URL
/// path carries them; what is shown is decoded. Borrows `s`, allocating nothing, when there is
/// nothing to redact.
pub fn keys(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // A bare secret key is found from its `=`, looking back: it may be the tail of a
        // longer run (`/webhooks/<key>=`).
        if let Some((start, end)) = b64_key_ending_at(b, i).filter(|&(start, _)| start >= copied) {
            let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
            o.push_str(&s[copied..start]);
            o.push_str(&s[start..start + B64_SHOWN]);
            o.push('…');
            copied = end;
            i = end;
            continue;
        }
        // The other tokens take at least MIN_LEN bytes (more when encoded): none starts later.
        if i + MIN_LEN > b.len() {
            i += 1;
            continue;
        }
        // A hex run is tried where it starts, so a long one is scanned once, not from each
        // of its digits.
        let run_start = i == 0 || !b[i - 1].is_ascii_hexdigit();
        let found = match c {
            b'k' | b'K' => key_at(b, i),
            b'w' | b'W' => secret_at(b, i),
            b'%' => key_at(b, i)
                .or_else(|| secret_at(b, i))
                .or_else(|| run_start.then(|| hex_at(b, i)).flatten()),
            _ if run_start && c.is_ascii_hexdigit() => hex_at(b, i),
            _ => None,
        };
        if let Some((end, shown)) = found {
            let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
            // `i` and `end` sit on ASCII bytes, so both are char boundaries.
            o.push_str(&s[copied..i]);
            o.extend(
                shown
                    .iter()
                    .take_while(|&&c| c != 0)
                    .map(|&c| char::from(c)),
            );
            o.push('…');
            copied = end;
            i = end;
            continue;
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

/// A line as it may go to a terminal or a log file: secret-shaped tokens redacted ([`keys`]),
/// and control characters other than a newline and a tab (an escape sequence that would
/// recolour or rewrite the operator's screen, a carriage return that would hide what came
/// before it) and the bidi controls shown as `\u{..}`.
pub fn display(s: &str) -> Cow<'_, str> {
    let redacted = keys(s);
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !redacted.chars().any(unsafe_char) {
        return redacted;
    }
    let mut o = String::with_capacity(redacted.len() + 8);
    for c in redacted.chars() {
        if unsafe_char(c) {
            o.push_str(&c.escape_unicode().to_string());
        } else {
            o.push(c);
        }
    }
    Cow::Owned(o)
}

/// Writes `line` and a newline to standard error through [`display`]. A standard error that
/// cannot be written (closed, a full disk, a reader that went away) loses the line and nothing
/// else: no panic, no abort, and a server goes on serving.
pub fn to_stderr(line: &str) {
    let shown = display(line);
    let mut err = std::io::stderr().lock();
    let _ = err
        .write_all(shown.as_bytes())
        .and_then(|()| err.write_all(b"\n"));
}

/// [`keys`] for an owned string: `s` itself when there is nothing to redact.
pub fn owned(s: String) -> String {
    match keys(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(o) => o,
    }
}

/// Whether `s` holds a secret-shaped token of any kind (see [`keys`]).
pub fn has_secret(s: &str) -> bool {
    matches!(keys(s), Cow::Owned(_))
}

/// Whether `s` holds a key-shaped token (`kp_` and 64 hex digits, also percent-encoded).
pub fn has_key(s: &str) -> bool {
    let b = s.as_bytes();
    (0..b.len()).any(|i| matches!(b[i], b'k' | b'K' | b'%') && key_at(b, i).is_some())
}

fn is_b64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/'
}

/// A `=` (or `%3D`) at `i` closing [`B64_MIN`] base64 characters: where they start, and
/// where the padding ends.
fn b64_key_ending_at(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let pad = match b[i] {
        b'=' => 1,
        b'%' if b
            .get(i + 1..i + 3)
            .is_some_and(|h| h.eq_ignore_ascii_case(b"3D")) =>
        {
            3
        }
        _ => return None,
    };
    let start = i.checked_sub(B64_MIN)?;
    b[start..i]
        .iter()
        .all(|&c| is_b64(c))
        .then_some((start, i + pad))
}

/// The secret-shaped token starting at `i`: where it ends (`whsec_` is all that is shown).
fn secret_at(b: &[u8], i: usize) -> Option<(usize, [u8; SHOWN])> {
    let mut shown = [0u8; SHOWN];
    let mut at = i;
    for (n, &want) in SECRET_PREFIX.iter().enumerate() {
        let (c, next) = unit(b, at, MAX_NESTING)?;
        if c.to_ascii_lowercase() != want {
            return None;
        }
        shown[n] = c;
        at = next;
    }
    let mut len = 0;
    while let Some((c, next)) = unit(b, at, MAX_NESTING) {
        if !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_')) {
            break;
        }
        len += 1;
        at = next;
    }
    (len >= SECRET_MIN).then_some((at, shown))
}

/// The bare hex run of at least 64 digits starting at `i`: where it ends and its first 8
/// digits.
fn hex_at(b: &[u8], i: usize) -> Option<(usize, [u8; SHOWN])> {
    let mut shown = [0u8; SHOWN];
    let mut at = i;
    let mut hex = 0;
    while let Some((c, next)) = unit(b, at, MAX_NESTING) {
        if !c.is_ascii_hexdigit() {
            break;
        }
        if hex < HEX_SHOWN {
            shown[hex] = c;
        }
        hex += 1;
        at = next;
    }
    (hex >= KEY_HEX).then_some((at, shown))
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
    fn a_bare_payload_and_a_webhook_secret_are_redacted_too() {
        assert_eq!(keys(&format!("id {HEX} x")), "id 01234567… x");
        assert_eq!(keys(&format!("kp-{HEX}")), "kp-01234567…");
        assert_eq!(keys(&format!("{}_{HEX}", key())), "kp_01234567…_01234567…");
        assert_eq!(keys(&format!("/x/%30%31{}", &HEX[2..])), "/x/01234567…");
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwmore+/abc=";
        assert_eq!(
            keys(&format!("no webhook {secret:?}")),
            "no webhook \"whsec_…\""
        );
        assert_eq!(
            keys("/webhooks/whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La%2BSw%3D"),
            "/webhooks/whsec_…"
        );
        // Without its prefix, a secret is a long base64 run.
        let bare = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8+/Tw=";
        assert_eq!(
            keys(&format!("no webhook {bare:?}")),
            "no webhook \"MfKQ…\""
        );
        assert_eq!(
            keys(&format!("/webhooks/{bare}/test")),
            "/webhooks/MfKQ…/test"
        );
        assert_eq!(
            keys("/x/MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8+/Tw%3D"),
            "/x/MfKQ…"
        );
        // A long word or path is not a secret without its `=`.
        let long = format!("/api/v1/{}/x", "a".repeat(60));
        assert!(matches!(keys(&long), Cow::Borrowed(_)), "{long}");
        assert!(
            !has_key(bare) && has_secret(bare) && !has_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La")
        );
        // Shorter runs are ordinary text.
        let short = format!("{} whsec_short {}", &HEX[..63], "a".repeat(31));
        assert!(matches!(keys(&short), Cow::Borrowed(_)), "{short}");
    }

    #[test]
    fn display_escapes_control_characters_and_keeps_lines() {
        assert_eq!(display("a\u{1b}[31mred\rb"), "a\\u{1b}[31mred\\u{d}b");
        assert_eq!(display("a\u{202e}b"), "a\\u{202e}b");
        assert!(matches!(display("two\nlines\tand tab é"), Cow::Borrowed(_)));
        assert_eq!(display(&format!("\u{7}{}", key())), "\\u{7}kp_01234567…");
    }

    #[test]
    fn multibyte_text_around_a_key_survives() {
        let s = format!("é{}日本", key());
        assert_eq!(keys(&s), "ékp_01234567…日本");
    }
}
