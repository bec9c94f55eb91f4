//! Small helpers for writing SVG text by hand: number formatting and XML escaping.
//!
//! We write SVG ourselves (no indentation, no inserted newlines) because a newline inside
//! `<text>` becomes a visible space under `xml:space="preserve"` (see DESIGN.md, "SVG writing").

use std::fmt::Write;

/// Formats a coordinate in px with at most two decimals and no trailing zeros:
/// `8.4`, `16.8`, `14`, `-0.5`. Negative zero prints as `0`.
pub fn num(v: f32) -> String {
    let mut s = String::new();
    push_num(&mut s, v);
    s
}

/// Appends [`num`]`(v)` to `out` without allocating.
pub fn push_num(out: &mut String, v: f32) {
    let r = (v as f64 * 100.0).round() as i64;
    if r == 0 {
        out.push('0');
        return;
    }
    if r < 0 {
        out.push('-');
    }
    let a = r.unsigned_abs();
    let (int, frac) = (a / 100, a % 100);
    let _ = write!(out, "{int}");
    if frac != 0 {
        if frac % 10 == 0 {
            let _ = write!(out, ".{}", frac / 10);
        } else {
            let _ = write!(out, ".{frac:02}");
        }
    }
}

/// True for characters XML 1.0 allows in a document (`Char` production): TAB, LF, CR,
/// U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF. Everything else is dropped from cell text.
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Appends `s` escaped for element content (`&`, `<`, `>`), dropping XML-invalid characters.
pub fn push_text(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if is_xml_char(c) => out.push(c),
            _ => {}
        }
    }
}

/// Appends `s` escaped for a double-quoted attribute value, dropping XML-invalid characters.
pub fn push_attr(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            c if is_xml_char(c) => out.push(c),
            _ => {}
        }
    }
}

/// `s` escaped for an attribute value (see [`push_attr`]).
pub fn attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_attr(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(8.4), "8.4");
        assert_eq!(num(16.8), "16.8");
        assert_eq!(num(14.0), "14");
        assert_eq!(num(18.48), "18.48");
        assert_eq!(num(-0.5), "-0.5");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(0.05), "0.05");
    }

    #[test]
    fn escaping_drops_invalid_chars() {
        let mut s = String::new();
        push_text(&mut s, "a<b&\u{1}c\u{FFFE}");
        assert_eq!(s, "a&lt;b&amp;c");
        assert_eq!(attr("x\"y"), "x&quot;y");
    }
}
