//! Redaction of secret-shaped strings. Every sink that prints a message or a log line (the
//! CLI's error printer and notes, the HTTP error object, the access log, the server's own log
//! lines) passes its text through [`keys`], so a plaintext key or a webhook secret that a user
//! put where it does not belong (an id argument, a URL path, a JSON field name), or the
//! password of a database URL, is never repeated whole. Lines for a terminal or a log file go
//! out through [`to_stderr`], which also escapes control characters and never fails.

use std::borrow::Cow;
use std::io::Write;

use crate::key_shape::{KEY_LEN, KEY_PREFIX, KEY_PREFIX_LEN};

/// Characters of a key shown in place of the whole: `kp_` and 8 hex digits.
pub const SHOWN: usize = KEY_PREFIX_LEN;

/// Hex digits of a plaintext key after `kp_`.
const KEY_HEX: usize = KEY_LEN - KEY_PREFIX.len();

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
/// path carries them; what is shown is decoded.
///
/// Credentials go first ([`credentials`]): the password of a URL (`postgres://user:***@host`)
/// and the value of a `password=` parameter (`?password=***`, also `sslpassword=`). Borrows
/// `s`, allocating nothing, when there is nothing to redact.
pub fn keys(s: &str) -> Cow<'_, str> {
    if inert(s) {
        return Cow::Borrowed(s);
    }
    keys_scanned(s)
}

/// [`keys`] without the shortcut of [`inert`].
fn keys_scanned(s: &str) -> Cow<'_, str> {
    match credentials(s, false) {
        Cow::Borrowed(_) => tokens(s),
        Cow::Owned(masked) => Cow::Owned(owned_tokens(masked)),
    }
}

/// [`keys`] for a value that is one URL as a whole, such as the `--db` a user gave: its
/// password is masked even if it holds spaces or quotes, which end a URL in running text.
pub fn url(value: &str) -> Cow<'_, str> {
    match credentials(value, true) {
        Cow::Borrowed(_) => tokens(value),
        Cow::Owned(masked) => Cow::Owned(owned_tokens(masked)),
    }
}

/// What is shown in place of a password.
pub const MASK: &str = "***";

/// `s` with the credentials in it replaced by [`MASK`]:
///
/// - in a URL (`scheme://`), what lies between the first `:` after `//` and the last `@` after
///   that: the password of `scheme://user:password@host`, however it is encoded (a `@`, `/` or
///   `:` in it, raw or percent-encoded, is masked with it; a `:` and `@` further on, in a path,
///   mask more than the password, never less). A URL in running text ends at whitespace or a
///   control character; with `whole`, `s` is one URL and ends only where `s` does.
/// - the value of every `password=` parameter (any case, so `sslpassword=` too): up to the
///   next `&`, or whitespace unless `whole`; a value in single quotes (libpq's `key='a b'`)
///   up to its closing quote.
///
/// The characters of `://`, `:`, `@` and `password=` may be percent-encoded, as in a URL
/// carried in another URL's path or query.
fn credentials(s: &str, whole: bool) -> Cow<'_, str> {
    let b = s.as_bytes();
    // No credential without one of these (raw or encoded). A fold, not `any`: it compiles to
    // a vectorised pass, the whole cost for the common line.
    let candidate = b.iter().fold(0u8, |f, &c| {
        f | u8::from(c == b'@') | u8::from(c == b'=') | u8::from(c == b'%')
    });
    if candidate == 0 {
        return Cow::Borrowed(s);
    }
    let ends_text = |c: u8| !whole && (c.is_ascii_whitespace() || c.is_ascii_control());
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while let Some(skip) = b[i.min(b.len())..]
        .iter()
        .position(|&c| matches!(c, b':' | b'%' | b'p' | b'P'))
    {
        i += skip;
        let c = b[i];
        // A URL's password.
        if let Some(after) = matches!(c, b':' | b'%')
            .then(|| url_authority_at(b, i))
            .flatten()
        {
            let end = (after..b.len())
                .find(|&j| ends_text(b[j]))
                .unwrap_or(b.len());
            let (mut colon, mut at) = (None, None);
            let mut j = after;
            while j < end {
                let (c, next) = unit(b, j, MAX_NESTING).expect("j is inside b");
                match c {
                    b':' if colon.is_none() => colon = Some(next),
                    b'@' if colon.is_some() => at = Some(j),
                    _ => {}
                }
                j = next.min(end);
            }
            i = match (colon, at) {
                (Some(c), Some(a)) if c < a => {
                    spans.push((c, a));
                    a
                }
                _ => after,
            };
            continue;
        }
        // A `password=` parameter.
        if let Some(value) = matches!(c, b'p' | b'P' | b'%')
            .then(|| password_value_at(b, i))
            .flatten()
        {
            let end = if b.get(value) == Some(&b'\'') {
                // Quoted: up to the closing quote that no backslash escapes (the quotes stay).
                let mut j = value + 1;
                while j < b.len() && b[j] != b'\'' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let close = j.min(b.len());
                if close > value + 1 {
                    spans.push((value + 1, close));
                }
                close
            } else {
                let end = (value..b.len())
                    .find(|&j| b[j] == b'&' || ends_text(b[j]))
                    .unwrap_or(b.len());
                if end > value {
                    spans.push((value, end));
                }
                end
            };
            i = end.max(i + 1);
            continue;
        }
        i += 1;
    }

    if spans.is_empty() {
        return Cow::Borrowed(s);
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    for (start, end) in spans {
        if end <= copied {
            continue;
        }
        let start = start.max(copied);
        // Spans start after, and end at, ASCII bytes or the end: char boundaries, unless an
        // escape byte range cut a character, which `floor` guards against.
        let (start, end) = (floor(s, start), ceil(s, end));
        out.push_str(&s[copied..start]);
        out.push_str(MASK);
        copied = end;
    }
    out.push_str(&s[copied..]);
    Cow::Owned(out)
}

/// If `://` (any character of it percent-encoded) starts at `i`, where it ends.
fn url_authority_at(b: &[u8], i: usize) -> Option<usize> {
    if !matches!(b[i], b':' | b'%') {
        return None;
    }
    let mut at = i;
    for want in [b':', b'/', b'/'] {
        let (c, next) = unit(b, at, MAX_NESTING)?;
        if c != want {
            return None;
        }
        at = next;
    }
    Some(at)
}

/// If `password=` (any case, any character percent-encoded) starts at `i`, where its value
/// starts.
fn password_value_at(b: &[u8], i: usize) -> Option<usize> {
    let mut at = i;
    for want in *b"password=" {
        let (c, next) = unit(b, at, MAX_NESTING)?;
        if c.to_ascii_lowercase() != want {
            return None;
        }
        at = next;
    }
    Some(at)
}

/// `i`, or the start of the character it falls in.
fn floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `i`, or the end of the character it falls in.
fn ceil(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Whether a byte stops [`inert`] at once: a control or non-ASCII byte, or what an encoded
/// token (`%`) or a credential (`@`, `=`, `%`) needs. Arithmetic, so that a pass vectorises.
fn stops(b: u8) -> bool {
    (b.wrapping_sub(b' ') > b'~' - b' ') | (b == b'%') | (b == b'=') | (b == b'@')
}

/// Whether a byte may be part of a raw token. Every token is a run of these at least
/// [`MIN_LEN`] long: `kp_` and 64 hex digits, a bare hex run, `whsec_` and 32 or more of
/// `[A-Za-z0-9+/=_-]`, 43 base64 characters and `=` (which [`stops`] anyway).
fn in_run(b: u8) -> bool {
    ((b | 0x20).wrapping_sub(b'a') < 26)
        | (b.wrapping_sub(b'0') < 10)
        | (b == b'+')
        | (b == b'/')
        | (b == b'-')
        | (b == b'_')
}

/// Bytes of the blocks [`inert`] looks at first. A run of `2 * BLOCK - 1` bytes or more holds
/// a whole block aligned to the string's start.
const BLOCK: usize = 16;
const _: () = assert!(2 * BLOCK - 1 <= MIN_LEN);

/// Whether `s` is printable ASCII in which [`keys`] finds nothing to redact and [`display`]
/// nothing to escape: no byte that [`stops`] (without `%`, `=` and `@` there is no credential
/// and no encoded token), and no run of [`MIN_LEN`] bytes that a raw token could be made of.
/// Two passes that vectorise tell it for the common log line (an access line, a request's
/// path): no byte stops, and no aligned block of [`BLOCK`] bytes is all run bytes (so no run
/// reaches `2 * BLOCK - 1`); only a line with such a block has its runs measured. False means
/// only "look". Public for sinks that escape more than [`display`] (a line break): an inert
/// string holds none.
pub fn inert(s: &str) -> bool {
    let b = s.as_bytes();
    if b.iter().fold(false, |any, &c| any | stops(c)) {
        return false;
    }
    let whole_block = |block: &[u8]| block.iter().fold(true, |all, &c| all & in_run(c));
    if !b.chunks_exact(BLOCK).any(whole_block) {
        return true;
    }
    let mut run = 0;
    for &c in b {
        run = if in_run(c) { run + 1 } else { 0 };
        if run >= MIN_LEN {
            return false;
        }
    }
    true
}

/// [`tokens`] for an owned string: `s` itself when there is nothing to redact.
fn owned_tokens(s: String) -> String {
    match tokens(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(o) => o,
    }
}

/// The secret-shaped tokens of [`keys`], without credentials.
fn tokens(s: &str) -> Cow<'_, str> {
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
    if inert(s) {
        return Cow::Borrowed(s);
    }
    display_scanned(s)
}

/// [`display`] without the shortcut of [`inert`].
fn display_scanned(s: &str) -> Cow<'_, str> {
    let redacted = keys_scanned(s);
    // Printable ASCII, tabs and line breaks hold nothing to escape: one pass over the bytes
    // (which vectorises) instead of decoding characters, for the common line.
    let plain = |b: &u8| (b' '..=b'~').contains(b) || *b == b'\n' || *b == b'\t';
    if redacted.as_bytes().iter().all(plain) {
        return redacted;
    }
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
    // Back from the `=`, B64_MIN characters, raw or percent-encoded (`%2B`, `%2F`, as a URL
    // path carries a secret's `+` and `/`).
    let mut start = i;
    for _ in 0..B64_MIN {
        let escaped = start >= 3
            && b[start - 3] == b'%'
            && hex_value(b[start - 2])
                .zip(hex_value(b[start - 1]))
                .is_some_and(|(h, l)| is_b64(h << 4 | l));
        start = match start {
            _ if escaped => start - 3,
            1.. if is_b64(b[start - 1]) => start - 1,
            _ => return None,
        };
    }
    Some((start, i + pad))
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

/// The most bytes one character of a key takes percent-encoded to [`MAX_NESTING`] levels
/// ([`unit`]: each level reads at most three characters of the level below, `%` and two
/// digits: 3^3).
pub const MAX_UNIT_BYTES: usize = 27;

/// The keyhook key starting at `i`, any character of it percent-encoded as [`keys`] finds
/// them: once decoded, exactly `kp_` and 64 lowercase hex digits, not followed by another hex
/// digit (a longer run is no key). Where it ends, and the key. `keys scan` looks for these;
/// it takes at most [`MAX_UNIT_BYTES`] times 68 bytes from `i` to decide.
pub fn whole_key_at(b: &[u8], i: usize) -> Option<(usize, [u8; KEY_LEN])> {
    let mut key = [0u8; KEY_LEN];
    let mut at = i;
    for (n, slot) in key.iter_mut().enumerate() {
        let (c, next) = unit(b, at, MAX_NESTING)?;
        let ok = match n {
            0 => c == b'k',
            1 => c == b'p',
            2 => c == b'_',
            _ => matches!(c, b'0'..=b'9' | b'a'..=b'f'),
        };
        if !ok {
            return None;
        }
        *slot = c;
        at = next;
    }
    if unit(b, at, MAX_NESTING).is_some_and(|(c, _)| c.is_ascii_hexdigit()) {
        return None;
    }
    Some((at, key))
}

/// The character at `i`, percent-decoded up to `depth` levels, and where the next one starts.
///
/// One level more is one more decoding of what the levels below give: a character of the
/// level below, and if it is a `%` followed by two hex digits of the level below, the escape
/// they make. So `_` is `_`, `%5F`, `%255F` (`%5F` encoded again) or `%25255F` (three times),
/// and each may have its digits encoded too (`%25%35%46`, `%%35%46`); a `%` that starts no
/// escape is itself (`%zz`). Four levels (`%2525255F`) decode to the `%` of the fourth.
fn unit(b: &[u8], i: usize, depth: u8) -> Option<(u8, usize)> {
    let c = *b.get(i)?;
    // A raw character other than `%` is itself at every level: the common case, at once.
    if c != b'%' || depth == 0 {
        return Some((c, i + 1));
    }
    let (c, j) = unit(b, i, depth - 1)?;
    if c != b'%' {
        return Some((c, j));
    }
    let escape = unit(b, j, depth - 1).and_then(|(h, k)| {
        let (l, m) = unit(b, k, depth - 1)?;
        Some((hex_value(h)? << 4 | hex_value(l)?, m))
    });
    Some(escape.unwrap_or((c, j)))
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

    proptest::proptest! {
        /// The shortcut never skips work the scan would do: whatever is inert, scanned,
        /// is left as it is. Strings made of the bytes tokens and credentials are made of,
        /// and of the ones that end them.
        #[test]
        fn what_is_inert_the_scan_leaves_alone(
            s in "([0-9a-fA-F]{1,70}|kp_|whsec_|[g-zG-Z+/_-]{1,40}|[ .:;?]|%3D|%6b|=|@|\\n|\u{1b}|\u{202e}|é){0,12}"
        ) {
            if inert(&s) {
                proptest::prop_assert!(matches!(keys_scanned(&s), Cow::Borrowed(_)), "{:?}", s);
                proptest::prop_assert!(matches!(display_scanned(&s), Cow::Borrowed(_)), "{:?}", s);
            }
        }
    }

    /// The shortest token of each kind, and what makes a credential or an escape, is never
    /// inert; an access line is.
    #[test]
    fn a_token_a_credential_or_a_control_is_never_inert() {
        let shortest = [
            key(),
            HEX.to_string(),
            format!("whsec_{}", "A".repeat(SECRET_MIN)),
            format!("whsec_{}", "-_".repeat(SECRET_MIN / 2)),
            format!("{}=", "B".repeat(B64_MIN)),
        ];
        for token in &shortest {
            let line = format!("GET /x? {token} 404");
            assert!(!inert(&line), "{line}");
            assert_ne!(keys(&line), line, "redacted: {line}");
        }
        assert!(inert(&format!("whsec_{}", "A".repeat(SECRET_MIN - 1))));
        for other in [
            "a@b",
            "password=x",
            "%6b",
            "a\tb",
            "a\nb",
            "\u{1b}[2J",
            "é",
            "\u{7f}",
        ] {
            assert!(!inert(other), "{other:?}");
        }
        assert!(inert("GET /api/v1/api-keys 200 0.1ms kp_0123abcd"));
        // Runs that fill whole blocks are measured: one short of the shortest token, at any
        // offset from the blocks, is inert; one more is not.
        for lead in 0..BLOCK {
            let before = " ".repeat(lead);
            assert!(
                inert(&format!("{before}{} x", "a".repeat(MIN_LEN - 1))),
                "{lead}"
            );
            assert!(
                !inert(&format!("{before}{} x", "a".repeat(MIN_LEN))),
                "{lead}"
            );
        }
        assert!(inert(""));
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
            // Three levels: `kp%5F` encoded twice more.
            format!("/api-keys/kp%25255F{HEX}"),
            format!("/api-keys/%25256Bp%25255f{HEX}"),
            format!("/api-keys/%25%32%35%25%33%36%25%34%32p_{HEX}"),
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
        // Its `+` and `/` percent-encoded, as a client puts it in a path.
        assert_eq!(
            keys("/webhooks/MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8%2B%2fTw%3D 404"),
            "/webhooks/MfKQ… 404"
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
    fn the_password_of_a_url_is_masked() {
        for (given, shown) in [
            ("postgres://user:SECRET@host", "postgres://user:***@host"),
            (
                "postgresql://u:SECRET@db.example:5432/keyhook?sslmode=require",
                "postgresql://u:***@db.example:5432/keyhook?sslmode=require",
            ),
            // Percent-encoded characters, and raw ones that a URL should have encoded.
            ("postgres://u:p%40ss%2Fw%3Ad@h/db", "postgres://u:***@h/db"),
            ("postgres://u:p@ss@h/db", "postgres://u:***@h/db"),
            ("postgres://u:p/ss:w@h/db", "postgres://u:***@h/db"),
            ("postgres://:SECRET@h", "postgres://:***@h"),
            (
                "postgres://u:SECRET@[::1]:5432/db",
                "postgres://u:***@[::1]:5432/db",
            ),
            // Any scheme, in running text, and the `://` itself encoded.
            (
                "cannot connect to mysql://root:SECRET@10.0.0.1/x: refused",
                "cannot connect to mysql://root:***@10.0.0.1/x: refused",
            ),
            (
                "invalid value 'postgres://u:SECRET@h/db' for '--db <PATH>'",
                "invalid value 'postgres://u:***@h/db' for '--db <PATH>'",
            ),
            (
                "GET /x?db=postgres%3A%2F%2Fu%3ASECRET%40h 404",
                "GET /x?db=postgres%3A%2F%2Fu%3A***%40h 404",
            ),
            (
                "a postgres://u:SECRET@h and b postgres://v:SECRET2@h",
                "a postgres://u:***@h and b postgres://v:***@h",
            ),
        ] {
            assert_eq!(keys(given), shown, "{given}");
            assert!(has_secret(given), "{given}");
        }
    }

    #[test]
    fn password_parameters_are_masked() {
        for (given, shown) in [
            (
                "postgres://h/db?user=u&password=SECRET&sslmode=require",
                "postgres://h/db?user=u&password=***&sslmode=require",
            ),
            (
                "postgres://h/db?PassWord=SECRET",
                "postgres://h/db?PassWord=***",
            ),
            ("x?sslpassword=SECRET", "x?sslpassword=***"),
            ("/q%3Fpassword%3DSECRET", "/q%3Fpassword%3D***"),
            (
                "no database at host=h password=SECRET dbname=d",
                "no database at host=h password=*** dbname=d",
            ),
            (
                "host=h password='SE CRET\\' x' dbname=d",
                "host=h password='***' dbname=d",
            ),
        ] {
            assert_eq!(keys(given), shown, "{given}");
        }
    }

    #[test]
    fn text_without_credentials_is_borrowed_unchanged() {
        for s in [
            "keyhook: listening on http://127.0.0.1:8787 (database /var/lib/keyhook.db)",
            "postgres://u@h:5432/db",
            "postgres://h:5432/db?sslmode=require",
            "postgres://u:@h/db",
            "mailto:a@b.example, user:x@y",
            "password=",
            "x=1&password=&y=2",
            "GET /api/v1/webhooks/5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c/deliveries%20x%41",
        ] {
            assert!(matches!(keys(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn a_whole_url_is_masked_through_spaces_and_quotes() {
        // In running text a URL ends at a space: only what follows it is a different word.
        assert_eq!(url("postgres://u:a b@h/db"), "postgres://u:***@h/db");
        assert_eq!(url("postgres://u:it's@h/db"), "postgres://u:***@h/db");
        assert_eq!(
            url("postgres://h/db?password=a b&x=1"),
            "postgres://h/db?password=***&x=1"
        );
        assert_eq!(url("/var/lib/keyhook.db"), "/var/lib/keyhook.db");
        // Keys too, as everywhere.
        let key = key();
        assert_eq!(url(&format!("/tmp/{key}")), "/tmp/kp_01234567…");
        assert_eq!(keys(&format!("postgres://u:{key}@h")), "postgres://u:***@h");
    }

    #[test]
    fn multibyte_text_around_a_key_survives() {
        let s = format!("é{}日本", key());
        assert_eq!(keys(&s), "ékp_01234567…日本");
    }
}
