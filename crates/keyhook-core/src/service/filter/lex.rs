//! CEL's lexical grammar (cel-spec langdef, "Syntax"): numbers, strings and bytes in every
//! quote form with CEL's escapes, identifiers, keywords and punctuation. No recursion.

/// One token and the character offset where it starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Int(i64),
    /// A decimal or hex integer beyond `i64::MAX` (only valid right after a unary minus:
    /// `-9223372036854775808`).
    BigInt(u64),
    Uint(u64),
    Double(f64),
    Str(String),
    Bytes(Vec<u8>),
    Ident(String),
    /// A word CEL reserves: a field name after `.` (`data.loop`), never an identifier.
    Reserved(String),
    /// A backquoted field name (`` data.`content-type` ``), only valid after a `.`.
    QuotedIdent(String),
    True,
    False,
    Null,
    In,
    /// One of `( ) [ ] { } . , : ? ! - + * / % == != < <= > >= && ||`.
    Punct(&'static str),
}

pub type Spanned = (Tok, usize);

/// Words CEL reserves: refused as identifiers.
const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

const PUNCT: &[&str] = &[
    "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", "{", "}", ".", ",", ":", "?", "!", "-",
    "+", "*", "/", "%", "<", ">",
];

pub fn lex(src: &str) -> Result<Vec<Spanned>, String> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c') {
            i += 1;
            continue;
        }
        if c == '/' && s.get(i + 1) == Some(&'/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        if c.is_ascii_digit() || (c == '.' && s.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let (tok, next) = number(&s, i)?;
            out.push((tok, start));
            i = next;
            continue;
        }
        if c == '_' || c.is_ascii_alphabetic() {
            let mut j = i;
            while j < s.len() && (s[j] == '_' || s[j].is_ascii_alphanumeric()) {
                j += 1;
            }
            let word: String = s[i..j].iter().collect();
            // String and bytes prefixes: r, b, rb, br (any case) right before a quote.
            let lower = word.to_ascii_lowercase();
            if matches!(lower.as_str(), "r" | "b" | "rb" | "br")
                && j < s.len()
                && (s[j] == '"' || s[j] == '\'')
            {
                let raw = lower.contains('r');
                let bytes = lower.contains('b');
                let (tok, next) = quoted(&s, j, raw, bytes)?;
                out.push((tok, start));
                i = next;
                continue;
            }
            let tok = match word.as_str() {
                "true" => Tok::True,
                "false" => Tok::False,
                "null" => Tok::Null,
                "in" => Tok::In,
                w if RESERVED.contains(&w) => Tok::Reserved(word),
                _ => Tok::Ident(word),
            };
            out.push((tok, start));
            i = j;
            continue;
        }
        if c == '`' {
            let end = s[i + 1..]
                .iter()
                .position(|&c| c == '`' || c == '\n')
                .filter(|&n| n > 0 && s[i + 1 + n] == '`')
                .ok_or_else(|| format!("unterminated or empty backquoted name at {start}"))?;
            out.push((
                Tok::QuotedIdent(s[i + 1..i + 1 + end].iter().collect()),
                start,
            ));
            i += end + 2;
            continue;
        }
        if c == '"' || c == '\'' {
            let (tok, next) = quoted(&s, i, false, false)?;
            out.push((tok, start));
            i = next;
            continue;
        }
        let Some(p) = PUNCT.iter().find(|p| {
            let mut k = i;
            p.chars().all(|pc| {
                let ok = s.get(k) == Some(&pc);
                k += 1;
                ok
            })
        }) else {
            return Err(format!("unexpected character {c:?} at {start}"));
        };
        out.push((Tok::Punct(p), start));
        i += p.len();
    }
    Ok(out)
}

fn number(s: &[char], mut i: usize) -> Result<(Tok, usize), String> {
    let start = i;
    let digits = |i: &mut usize, hex: bool| {
        let from = *i;
        while *i < s.len()
            && (if hex {
                s[*i].is_ascii_hexdigit()
            } else {
                s[*i].is_ascii_digit()
            })
        {
            *i += 1;
        }
        *i - from
    };
    if s[i] == '0' && matches!(s.get(i + 1), Some('x' | 'X')) {
        i += 2;
        let from = i;
        if digits(&mut i, true) == 0 {
            return Err(format!("hex literal without digits at {start}"));
        }
        let text: String = s[from..i].iter().collect();
        let v = u64::from_str_radix(&text, 16)
            .map_err(|_| format!("integer literal out of range at {start}"))?;
        return int_suffix(s, i, v, start);
    }
    let mut float = false;
    digits(&mut i, false);
    if s.get(i) == Some(&'.') && s.get(i + 1).is_some_and(|d| d.is_ascii_digit()) {
        float = true;
        i += 1;
        digits(&mut i, false);
    }
    if matches!(s.get(i), Some('e' | 'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some('+' | '-')) {
            j += 1;
        }
        if s.get(j).is_some_and(|d| d.is_ascii_digit()) {
            float = true;
            i = j;
            digits(&mut i, false);
        } else {
            return Err(format!("malformed exponent at {start}"));
        }
    }
    let text: String = s[start..i].iter().collect();
    if float {
        let v: f64 = text
            .parse()
            .map_err(|_| format!("malformed number at {start}"))?;
        return Ok((Tok::Double(v), i));
    }
    if text.len() > 1 && text.starts_with('0') {
        return Err(format!("integer literal with a leading zero at {start}"));
    }
    let v: u64 = text
        .parse()
        .map_err(|_| format!("integer literal out of range at {start}"))?;
    int_suffix(s, i, v, start)
}

fn int_suffix(s: &[char], i: usize, v: u64, start: usize) -> Result<(Tok, usize), String> {
    let (tok, next) = if matches!(s.get(i), Some('u' | 'U')) {
        (Tok::Uint(v), i + 1)
    } else if let Ok(v) = i64::try_from(v) {
        (Tok::Int(v), i)
    } else {
        (Tok::BigInt(v), i)
    };
    if s.get(next)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    {
        return Err(format!("malformed number at {start}"));
    }
    Ok((tok, next))
}

/// A string or bytes literal starting at the quote `s[i]`.
fn quoted(s: &[char], i: usize, raw: bool, bytes: bool) -> Result<(Tok, usize), String> {
    let q = s[i];
    let triple = s.get(i + 1) == Some(&q) && s.get(i + 2) == Some(&q);
    let mut j = if triple { i + 3 } else { i + 1 };
    // Code points for a string; for bytes, \x and octal escapes are bytes, the rest UTF-8.
    let mut out: Vec<u8> = Vec::new();
    let push_char = |out: &mut Vec<u8>, c: char| {
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    };
    loop {
        let Some(&c) = s.get(j) else {
            return Err(format!("unterminated string literal at {i}"));
        };
        if triple {
            if c == q && s.get(j + 1) == Some(&q) && s.get(j + 2) == Some(&q) {
                j += 3;
                break;
            }
        } else if c == q {
            j += 1;
            break;
        } else if c == '\n' || c == '\r' {
            return Err(format!(
                "newline in a string literal at {i} (use a triple-quoted string)"
            ));
        }
        if c == '\\' && !raw {
            let e = *s
                .get(j + 1)
                .ok_or_else(|| format!("unterminated string literal at {i}"))?;
            j += 2;
            match e {
                'a' => out.push(7),
                'b' => out.push(8),
                'f' => out.push(12),
                'n' => out.push(b'\n'),
                'r' => out.push(b'\r'),
                't' => out.push(b'\t'),
                'v' => out.push(11),
                '\\' | '\'' | '"' | '`' | '?' => out.push(e as u8),
                'x' | 'X' | 'u' | 'U' => {
                    let n = match e {
                        'x' | 'X' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = s.get(j..j + n).unwrap_or(&[]).iter().collect();
                    let v = (hex.len() == n && hex.chars().all(|c| c.is_ascii_hexdigit()))
                        .then(|| u32::from_str_radix(&hex, 16).ok())
                        .flatten()
                        .ok_or_else(|| format!("malformed escape at {j}"))?;
                    j += n;
                    if bytes && n == 2 {
                        out.push(v as u8);
                    } else {
                        if bytes && n > 2 {
                            return Err(format!("\\{e} escape in a bytes literal at {j}"));
                        }
                        let c = char::from_u32(v)
                            .ok_or_else(|| format!("invalid code point in an escape at {j}"))?;
                        push_char(&mut out, c);
                    }
                }
                '0'..='3' => {
                    let oct: String = s.get(j - 1..j + 2).unwrap_or(&[]).iter().collect();
                    let v = (oct.len() == 3 && oct.chars().all(|c| ('0'..='7').contains(&c)))
                        .then(|| u32::from_str_radix(&oct, 8).ok())
                        .flatten()
                        .ok_or_else(|| format!("malformed octal escape at {j}"))?;
                    j += 2;
                    if bytes {
                        out.push(v as u8);
                    } else {
                        push_char(&mut out, char::from_u32(v).unwrap_or('\u{fffd}'));
                    }
                }
                _ => return Err(format!("unknown escape \\{e} at {}", j - 2)),
            }
            continue;
        }
        push_char(&mut out, c);
        j += 1;
    }
    if bytes {
        return Ok((Tok::Bytes(out), j));
    }
    let text = String::from_utf8(out).map_err(|_| format!("invalid string literal at {i}"))?;
    Ok((Tok::Str(text), j))
}
