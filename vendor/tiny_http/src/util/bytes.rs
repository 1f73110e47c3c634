//! keyhook patch l: the byte classes of a request head, each a table lookup, and the search
//! for a line's end. A head's bytes were each tested against lists (`tchar`, a host's
//! characters) with `contains`, and each line was searched for its end one byte at a time:
//! a fifth of the instructions the layer spent on a request.

// The classes a byte of a request head may be in: bits of `CLASSES`.

/// A `tchar` (RFC 9110 section 5.6.2).
const TCHAR: u8 = 1;
/// A character of a host: unreserved and sub-delims (RFC 3986 section 3.2.2; `%` is checked
/// apart, with its two hex digits).
const HOST: u8 = 2;
/// A byte a header value keeps as it is: HTAB, SP and visible ASCII (RFC 9110 section 5.5).
const VALUE: u8 = 4;

/// The classes of each byte, made at compile time.
static CLASSES: [u8; 256] = classes();

const fn classes() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let alnum = c.is_ascii_alphanumeric();
        let mut class = 0;
        if alnum || is_in(c, b"!#$%&'*+-.^_`|~") {
            class |= TCHAR;
        }
        if alnum || is_in(c, b"-._~!$&'()*+,;=") {
            class |= HOST;
        }
        if c == b'\t' || (c >= 0x20 && c <= 0x7e) {
            class |= VALUE;
        }
        table[b] = class;
        b += 1;
    }
    table
}

const fn is_in(c: u8, set: &[u8]) -> bool {
    let mut i = 0;
    while i < set.len() {
        if set[i] == c {
            return true;
        }
        i += 1;
    }
    false
}

/// A `tchar` of RFC 9110 section 5.6.2 (field names, methods, codings).
pub(crate) fn is_tchar(b: u8) -> bool {
    CLASSES[usize::from(b)] & TCHAR != 0
}

/// A character a host may have besides `%XX` (see `client::is_valid_host`).
pub(crate) fn is_host_char(b: u8) -> bool {
    CLASSES[usize::from(b)] & HOST != 0
}

/// HTAB, SP or visible ASCII: a byte a header value (or a chunk extension) keeps as it is.
pub(crate) fn is_value_byte(b: u8) -> bool {
    CLASSES[usize::from(b)] & VALUE != 0
}

/// Where the first LF or CR of `buf` is: a line's end, or the start of one.
pub(crate) fn line_end(buf: &[u8]) -> Option<usize> {
    memchr::memchr2(b'\n', b'\r', buf)
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn the_tables_are_the_lists_of_the_rfcs() {
        for b in 0..=255u8 {
            assert_eq!(
                is_tchar(b),
                b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b),
                "tchar {b:#04x}"
            );
            assert_eq!(
                is_host_char(b),
                b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&b),
                "host {b:#04x}"
            );
            assert_eq!(
                is_value_byte(b),
                b == b'\t' || (0x20..=0x7e).contains(&b),
                "value {b:#04x}"
            );
        }
    }

    #[test]
    fn a_line_ends_at_its_first_lf_or_cr_wherever_it_is() {
        // Every length up to past two SIMD widths, with the end at every place, after bytes
        // that share a bit pattern with CR or LF (0x8A, 0x8D, 0x0B, 0x0C, HTAB).
        let fillers = [b'a', 0x8a, 0x8d, 0x0b, 0x0c, b'\t', 0xff, 0x00];
        for len in 0..80 {
            for filler in fillers {
                let mut buf = vec![filler; len];
                assert_eq!(line_end(&buf), None, "len {len} filler {filler:#04x}");
                for at in 0..len {
                    for end in [b'\n', b'\r'] {
                        buf[at] = end;
                        assert_eq!(line_end(&buf), Some(at), "len {len} at {at}");
                        // a later end does not change where the first one is
                        if at + 1 < len {
                            buf[len - 1] = b'\n';
                            assert_eq!(line_end(&buf), Some(at), "len {len} at {at}");
                            buf[len - 1] = filler;
                        }
                        buf[at] = filler;
                    }
                }
            }
        }
    }
}
