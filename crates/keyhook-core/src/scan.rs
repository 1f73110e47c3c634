//! Finding keyhook keys in a stream of text (`keys scan`): plain or percent-encoded
//! ([`redact::whole_key_at`]), in bounded memory however long the input or any of its lines.

use std::io::{self, Read};

use crate::key_shape::KEY_LEN;
use crate::redact::{self, MAX_UNIT_BYTES};

/// Bytes read at a time: few enough that what `read` copies is still in the CPU's cache
/// when it is searched.
const CHUNK: usize = 128 << 10;
/// The most bytes a key and the character after it take, percent-encoded: a candidate that
/// starts closer than this to the end of what was read waits for the next read, with the
/// bytes after it carried over.
const LOOKAHEAD: usize = MAX_UNIT_BYTES * (KEY_LEN + 1);
/// Reads go to a page-aligned place (the kernel copies to it twice as fast), after room for
/// the bytes carried over.
const PAGE: usize = 4096;
const CARRY: usize = LOOKAHEAD.div_ceil(PAGE) * PAGE;
/// How much of a file's start [`looks_binary`] is given (git's choice).
pub const SNIFF_BYTES: usize = 8000;

/// Whether a file whose first bytes are `head` is binary: a NUL among them, as git and grep
/// decide.
pub fn looks_binary(head: &[u8]) -> bool {
    memchr::memchr(0, head).is_some()
}

/// Calls `found(line, key)` for every key in `input`, in order, with the line (from 1) it
/// starts on. Holds one buffer of about 140 KiB whatever the input: a single line of 10 GiB
/// streams through it like any other. Stops at the first error of `found` or of reading.
///
/// Where a key may start is found with two vectorised searches, not byte by byte: a plain
/// `kp_`, and each `%`. A key with any of `k`, `p`, `_` percent-encoded has a `%` among its
/// first three characters, so it starts at that `%`, one byte before it (after a raw `k`)
/// or two (after a raw `kp`); a key whose `kp_` is plain is found by the first search, however
/// its hex digits are written. Each candidate is then decoded ([`redact::whole_key_at`]).
pub fn scan<E: From<io::Error>>(
    mut input: impl Read,
    mut found: impl FnMut(u64, &str) -> Result<(), E>,
) -> Result<(), E> {
    let plain = memchr::memmem::Finder::new(b"kp_");
    let mut storage = vec![0u8; PAGE + CARRY + CHUNK];
    let aligned = storage.as_ptr().align_offset(PAGE).min(PAGE);
    let buf = &mut storage[aligned..aligned + CARRY + CHUNK];
    let mut starts: Vec<usize> = Vec::new();
    // What was read and not yet consumed is `buf[start..end]`; reads go to `buf[end..]`.
    let (mut start, mut end) = (CARRY, CARRY);
    let mut line = 1u64;
    let mut eof = false;
    let newlines = |b: &[u8]| memchr::memchr_iter(b'\n', b).count() as u64;
    loop {
        while !eof && end < buf.len() {
            match input.read(&mut buf[end..]) {
                Ok(0) => eof = true,
                Ok(n) => end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        let b = &buf[start..end];
        let len = b.len();
        // Candidates before `limit` have all the bytes they need.
        let limit = if eof { len } else { len - LOOKAHEAD };
        starts.clear();
        starts.extend(plain.find_iter(&b[..limit]));
        for j in memchr::memchr_iter(b'%', b) {
            if j >= 2 && j - 2 < limit && &b[j - 2..j] == b"kp" {
                starts.push(j - 2);
            }
            if j >= 1 && j - 1 < limit && b[j - 1] == b'k' {
                starts.push(j - 1);
            }
            // An encoded `k`: `%6b`, or an escape nested in one (`%256b`, `%%36%62`).
            let encoded_k = match b.get(j + 1..(j + 3).min(len)) {
                Some([b'6', c]) => c | 0x20 == b'b',
                Some([b'2', b'5']) => true,
                Some([b'%', ..]) => true,
                _ => false,
            };
            if j < limit && encoded_k {
                starts.push(j);
            }
        }
        starts.sort_unstable();
        let (mut at, mut counted) = (0, 0);
        for &i in &starts {
            if i < at {
                continue;
            }
            if let Some((stop, key)) = redact::whole_key_at(b, i) {
                line += newlines(&b[counted..i]);
                counted = i;
                found(line, std::str::from_utf8(&key).expect("a key is ASCII"))?;
                at = stop;
            }
        }
        let consumed = at.max(limit);
        line += newlines(&b[counted..consumed]);
        if eof {
            return Ok(());
        }
        // At most LOOKAHEAD bytes are left: they go right before the next read's place.
        let left = len - consumed;
        buf.copy_within(start + consumed..end, CARRY - left);
        (start, end) = (CARRY - left, CARRY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::generate_key;

    fn found(input: &[u8]) -> Vec<(u64, String)> {
        let mut out = Vec::new();
        scan::<io::Error>(input, |line, key| {
            out.push((line, key.to_string()));
            Ok(())
        })
        .unwrap();
        out
    }

    /// A reader that hands out its bytes a few at a time, as a pipe may.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn keys_are_found_plain_and_percent_encoded_with_their_lines() {
        let (a, b, c) = (generate_key(), generate_key(), generate_key());
        let encoded: String = c.bytes().map(|x| format!("%{x:02X}")).collect();
        let text = format!(
            "first line\nKEY={a} and again \"{a}\"\n\nGET /x?token=kp%5F{}&y=1\n{encoded}\n",
            &b[3..]
        );
        assert_eq!(
            found(text.as_bytes()),
            [(2, a.clone()), (2, a), (4, b), (5, c)]
        );
    }

    /// `s` percent-encoded once more, as a URL encoder would: `%` always, and `_` (which
    /// some encode); or, with `every`, every character.
    fn encode(s: &str, every: bool) -> String {
        s.bytes()
            .map(|c| match c {
                b'%' | b'_' => format!("%{c:02X}"),
                _ if every => format!("%{c:02X}"),
                _ => char::from(c).to_string(),
            })
            .collect()
    }

    /// A key encoded up to three times is found, whichever of its characters each level
    /// encodes (`kp%25255F...` is three levels of `kp%5F...`); four levels are not decoded
    /// (docs/keys.md).
    #[test]
    fn keys_encoded_up_to_three_levels_are_found_and_four_are_not() {
        let k = generate_key();
        for every in [false, true] {
            let mut text = k.clone();
            for level in 0..=4 {
                let line = format!("GET /x?token={text}&y=1\n");
                let want = if level <= 3 {
                    vec![(1, k.clone())]
                } else {
                    vec![]
                };
                assert_eq!(found(line.as_bytes()), want, "level {level}: {text}");
                // Also when the encoded key is cut by the reads.
                let mut out = Vec::new();
                scan::<io::Error>(Trickle(line.as_bytes(), 5), |l, key| {
                    out.push((l, key.to_string()));
                    Ok(())
                })
                .unwrap();
                assert_eq!(out, want, "level {level} in pieces");
                text = encode(&text, every);
            }
        }
        let three = format!("kp%25255F{}", &k[3..]);
        assert_eq!(found(three.as_bytes()), [(1, k.clone())]);
        // Mixed levels in one key.
        let mixed = format!(
            "%256Bp%25255F{}%25{:02X}{}",
            &k[3..30],
            k.as_bytes()[30],
            &k[31..]
        );
        assert_eq!(found(mixed.as_bytes()), [(1, k)]);
    }

    #[test]
    fn longer_runs_uppercase_and_short_keys_are_not_keys() {
        let k = generate_key();
        for text in [
            format!("{k}0"),
            format!("{k}A"),
            k.to_uppercase(),
            k[..66].to_string(),
            format!("kq_{}", &k[3..]),
        ] {
            assert_eq!(found(text.as_bytes()), [], "{text}");
        }
        assert_eq!(found(format!("x{k}.").as_bytes()), [(1, k)]);
    }

    #[test]
    fn a_key_across_reads_and_buffers_is_found_on_its_line() {
        let k = generate_key();
        let encoded: String = k.bytes().map(|x| format!("%25{x:02x}")).collect();
        // Put keys around every buffer boundary: before, across and after.
        let mut text = Vec::new();
        let mut want = Vec::new();
        let mut line = 1;
        for round in 0..3 {
            while text.len() < (round + 1) * CHUNK - 200 {
                text.extend_from_slice(b"some log text, no key here\n");
                line += 1;
            }
            for _ in 0..20 {
                text.extend_from_slice(k.as_bytes());
                want.push((line, k.clone()));
                text.extend_from_slice(b" ");
                text.extend_from_slice(encoded.as_bytes());
                want.push((line, k.clone()));
                text.extend_from_slice(b"\n");
                line += 1;
            }
        }
        assert_eq!(found(&text), want);
        let mut out = Vec::new();
        scan::<io::Error>(Trickle(&text, 7), |l, key| {
            out.push((l, key.to_string()));
            Ok(())
        })
        .unwrap();
        assert_eq!(out, want);
    }

    #[test]
    fn a_line_longer_than_the_buffer_streams_through() {
        let k = generate_key();
        let mut text = vec![b'x'; 3 * CHUNK + 17];
        text.extend_from_slice(k.as_bytes());
        text.extend(std::iter::repeat_n(b'y', CHUNK));
        text.extend_from_slice(b"\n");
        text.extend_from_slice(k.as_bytes());
        assert_eq!(found(&text), [(1, k.clone()), (2, k)]);
    }

    #[test]
    fn a_nul_in_the_head_is_binary() {
        assert!(looks_binary(b"ELF\0\x01"));
        assert!(!looks_binary("plain text, é".as_bytes()));
    }
}
