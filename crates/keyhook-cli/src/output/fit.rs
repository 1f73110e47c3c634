//! Fitting a table to the screen: how each cell may give way, and the column widths.

/// How a cell gives way when its table is wider than the screen. Nothing is ever broken
/// mid-word: a URL or an id split over two lines can no longer be copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    /// Never narrowed: ids, prefixes and secrets are copied into other commands.
    Whole,
    /// Wrapped at spaces; a single word longer than the column is cut with `…`.
    Wrap,
    /// Cut with `…` (URLs; `--json` shows them whole).
    Cut,
    /// Shortened to no fewer than this many characters, without `…`: a webhook id, whose
    /// unique prefix every command takes in its place.
    Prefix(usize),
}

/// One cell: its text, how it may be narrowed, and its color (`Some(true)` green,
/// `Some(false)` red; only with color on).
pub(super) struct Text {
    pub(super) text: String,
    pub(super) fit: Fit,
    pub(super) good: Option<bool>,
    /// The text with its own colors, shown instead of `text` when color is on (a `Whole`
    /// cell, measured by `text`).
    pub(super) styled: Option<String>,
}

pub(super) fn whole(text: impl Into<String>) -> Text {
    Text {
        text: text.into(),
        fit: Fit::Whole,
        good: None,
        styled: None,
    }
}

pub(super) fn wrap(text: impl Into<String>) -> Text {
    Text {
        text: text.into(),
        fit: Fit::Wrap,
        good: None,
        styled: None,
    }
}

pub(super) fn cut(text: impl Into<String>) -> Text {
    Text {
        text: text.into(),
        fit: Fit::Cut,
        good: None,
        styled: None,
    }
}

/// Width of `s` on the screen, in characters.
pub(super) fn width(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// The narrowest a column that may give way is made (unless its content is narrower), so
/// that a cut cell still shows something.
const MIN_COLUMN: usize = 6;
/// Words up to this long (ids: 36 characters) are kept whole while other columns can give way.
const MAX_WORD: usize = 40;
/// Ids are shortened only if the other columns would be narrower than this.
const COMFORTABLE: usize = 24;

// Why not comfy-table's own `ContentArrangement::Dynamic` with `ColumnConstraint`s and
// `set_width` (comfy-table 7.2, evaluated against the table snapshots in tests/cli, which must
// stay byte-identical): it cannot say what the `Fit`s say, so it does not replace this.
// - Its wrapping splits a word longer than the column mid-word (`split_long_word`), onto the
//   next line: an id or URL broken over two lines can no longer be copied. Here a word is
//   never broken: it is cut with `…` (`Wrap`, `Cut`) or kept whole (`Whole`).
// - Its only truncation is per row (`Row::max_height` with the table's
//   `set_truncation_indicator`): every cell of the row cut at the same line count. A URL cut
//   to one line beside an events cell wrapped over three is not expressible.
// - `Prefix(n)` (a webhook id shortened to its unique prefix, without `…`) has no
//   counterpart: an `UpperBoundary` would wrap the rest of the id onto further lines.
// - Its column widths are one pass over constraints; the order here (comfortable widths,
//   then ids shortened, then each column's longest word, then anything) decides which column
//   gives way first, which the snapshots pin down. `LowerBoundary`s would approximate the
//   last stage only.
// So the table is drawn with `ContentArrangement::Disabled` (no second wrapping) after the
// cells are fitted here; comfy-table still draws the borders and reads the terminal width.
/// Column content widths that fit `total` characters (borders and padding included, as
/// UTF8_FULL_CONDENSED draws them: 3 per column and 1). The widest column that may give way is
/// narrowed first, by stages: while every column keeps a comfortable width; then with ids
/// shortened to their prefixes; then down to each column's longest word; then as far as it
/// takes. `None` when the table fits as it is.
pub(super) fn fit_widths(total: usize, header: &[&str], rows: &[Vec<Text>]) -> Option<Vec<usize>> {
    let n = rows
        .iter()
        .map(Vec::len)
        .chain([header.len()])
        .max()
        .unwrap_or(0);
    let mut natural = vec![0; n];
    // Per column: the least width keeping ids whole, with ids shortened, and keeping words.
    let mut whole_ids = vec![0; n];
    let mut short_ids = vec![0; n];
    let mut words = vec![0; n];
    for (i, h) in header.iter().enumerate() {
        natural[i] = width(h);
        // A header wraps between its words (`LAST USED`).
        let word = h.split(' ').map(width).max().unwrap_or(0);
        whole_ids[i] = word.max(MIN_COLUMN);
        short_ids[i] = whole_ids[i];
        words[i] = whole_ids[i];
    }
    for row in rows {
        for (i, c) in row.iter().enumerate() {
            let w = width(&c.text);
            natural[i] = natural[i].max(w);
            let (full, short, word) = match c.fit {
                Fit::Whole => (w, w, w),
                Fit::Prefix(min) => (w, min, min),
                Fit::Wrap => {
                    let word = c.text.split_whitespace().map(width).max().unwrap_or(0);
                    (0, 0, word.min(MAX_WORD))
                }
                Fit::Cut => (0, 0, 0),
            };
            whole_ids[i] = whole_ids[i].max(full);
            short_ids[i] = short_ids[i].max(short);
            words[i] = words[i].max(word);
        }
    }
    let budget = total.saturating_sub(3 * n + 1);
    if natural.iter().sum::<usize>() <= budget {
        return None;
    }
    let cap =
        |v: &[usize]| -> Vec<usize> { v.iter().zip(&natural).map(|(&l, &n)| l.min(n)).collect() };
    let comfortable = |v: &[usize]| -> Vec<usize> {
        v.iter()
            .zip(&natural)
            .map(|(&l, &n)| l.max(COMFORTABLE.min(n)))
            .collect()
    };
    // Shortened ids are as short as they may be at once: a few more characters help no one.
    let short = |v: Vec<usize>| -> Vec<usize> {
        (0..n)
            .map(|i| {
                if short_ids[i] < whole_ids[i] {
                    short_ids[i].min(natural[i])
                } else {
                    v[i]
                }
            })
            .collect()
    };
    let whole_words: Vec<usize> = whole_ids
        .iter()
        .zip(&words)
        .map(|(&a, &b)| a.max(b))
        .collect();
    let stages = [
        comfortable(&whole_words),
        short(comfortable(&whole_words)),
        short(cap(&whole_words)),
        cap(&short_ids),
    ];
    let mut widths = natural.clone();
    for least in &stages {
        // Each stage starts afresh, with ids as short as the stage makes them.
        for i in 0..n {
            widths[i] = if short_ids[i] < whole_ids[i] {
                natural[i].min(least[i])
            } else {
                natural[i]
            };
        }
        // The widest column narrowed by one until the table fits or none may give way.
        while widths.iter().sum::<usize>() > budget {
            let widest = (0..n)
                .filter(|&i| widths[i] > least[i])
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)));
            match widest {
                Some(i) => widths[i] -= 1,
                None => break,
            }
        }
        if widths.iter().sum::<usize>() <= budget {
            break;
        }
    }
    // Wrapped at spaces, a column may use less than it was given: what is left goes to the
    // columns still narrowed (an id only if it then fits whole).
    let used = |i: usize, w: usize| {
        rows.iter()
            .filter_map(|r| r.get(i))
            .map(|c| width(&fit_text(&c.text, w, c.fit)))
            .chain(header.get(i).map(|h| width(&fit_text(h, w, Fit::Wrap))))
            .max()
            .unwrap_or(0)
    };
    for (i, w) in widths.iter_mut().enumerate() {
        *w = used(i, *w);
    }
    // First to the columns that then cut no word, those that need least first.
    let slack = |widths: &[usize]| budget.saturating_sub(widths.iter().sum::<usize>());
    let need =
        |widths: &[usize], i: usize| whole_words[i].min(natural[i]).saturating_sub(widths[i]);
    let mut uncut: Vec<usize> = (0..n).filter(|&i| need(&widths, i) > 0).collect();
    uncut.sort_by_key(|&i| need(&widths, i));
    for i in uncut {
        if need(&widths, i) <= slack(&widths) {
            widths[i] += need(&widths, i);
        }
    }
    let cut_first = (0..n).filter(|&i| {
        rows.iter()
            .any(|r| r.get(i).is_some_and(|c| c.fit == Fit::Cut))
    });
    let order: Vec<usize> = cut_first.chain(0..n).collect();
    for i in order {
        let slack = budget.saturating_sub(widths.iter().sum::<usize>());
        let missing = natural[i].saturating_sub(widths[i]);
        if missing == 0 || (short_ids[i] < whole_ids[i] && missing > slack) {
            continue;
        }
        widths[i] += missing.min(slack);
    }
    Some(widths)
}

/// `s` cut to `max` characters, the last of them `…`.
pub(super) fn cut_to(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `s` made to fit `max` characters a line, as `fit` allows.
pub(super) fn fit_text(s: &str, max: usize, fit: Fit) -> String {
    let mut lines = Vec::new();
    for line in s.lines() {
        match fit {
            Fit::Whole => lines.push(line.to_string()),
            Fit::Cut => lines.push(cut_to(line, max)),
            Fit::Prefix(min) => lines.push(line.chars().take(max.max(min)).collect()),
            Fit::Wrap if line.chars().count() <= max => lines.push(line.to_string()),
            Fit::Wrap => {
                let mut current = String::new();
                for word in line.split(' ').filter(|w| !w.is_empty()) {
                    let word = cut_to(word, max);
                    let len = current.chars().count();
                    if len > 0 && len + 1 + word.chars().count() > max {
                        lines.push(std::mem::take(&mut current));
                    }
                    if !current.is_empty() {
                        current.push(' ');
                    }
                    current.push_str(&word);
                }
                lines.push(current);
            }
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_wrapped_between_words_and_cut_with_an_ellipsis() {
        assert_eq!(
            fit_text("post.published, post.failed", 16, Fit::Wrap),
            "post.published,\npost.failed"
        );
        assert_eq!(fit_text("a  b", 10, Fit::Wrap), "a  b", "fits: as it is");
        assert_eq!(
            fit_text("https://example.com/a/b", 10, Fit::Cut),
            "https://e…"
        );
        assert_eq!(fit_text("short", 10, Fit::Cut), "short");
        assert_eq!(
            fit_text("averyveryverylongword x", 8, Fit::Wrap),
            "averyve…\nx"
        );
        assert_eq!(
            fit_text("5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c", 4, Fit::Prefix(8)),
            "5b8f0c4e"
        );
        assert_eq!(fit_text("kp_12345678", 3, Fit::Whole), "kp_12345678");
    }

    #[test]
    fn widths_fit_the_screen_and_keep_whole_cells_whole() {
        let row = |url: &str| {
            vec![
                Text {
                    fit: Fit::Prefix(8),
                    ..whole("5b8f0c4e-2d3a-4f7e-9c1b-6a2d8e4f1a3c")
                },
                cut(url),
                wrap("post.published, post.failed, account.connected"),
                whole("yes"),
            ]
        };
        let header = ["ID", "URL", "EVENTS", "ACTIVE"];
        let rows = vec![row(&format!("https://example.com/{}", "x".repeat(80)))];
        assert!(fit_widths(400, &header, &rows).is_none(), "fits as it is");
        for total in [60, 80, 100, 120, 160] {
            let w = fit_widths(total, &header, &rows).unwrap();
            assert!(w.iter().sum::<usize>() + 3 * 4 < total, "{total}: {w:?}");
            assert!(
                w[0] == 8 || w[0] == 36,
                "{total}: an id whole or a prefix: {w:?}"
            );
            assert!(
                w[2] >= "account.connected".len(),
                "{total}: words whole: {w:?}"
            );
            assert_eq!(w[3], "ACTIVE".len());
        }
        assert_eq!(
            fit_widths(160, &header, &rows).unwrap()[0],
            36,
            "room for the id"
        );
        assert_eq!(
            fit_widths(80, &header, &rows).unwrap()[0],
            8,
            "no room for the id"
        );
    }
}
