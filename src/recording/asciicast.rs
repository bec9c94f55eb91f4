//! asciicast files (the asciinema recording format), read in versions 2 and 3, written in
//! version 2.
//!
//! Both are newline-delimited JSON: a header object on the first line, then one event a line,
//! `[time, code, data]`. Codes: `"o"` output, `"i"` input, `"m"` marker, `"r"` resize (data
//! `"COLSxROWS"`), and in v3 `"x"` exit (ignored here).
//!
//! - v2 (docs.asciinema.org, "asciicast v2"): header `{"version": 2, "width", "height",
//!   "timestamp"?, …}`; `time` is seconds since the start.
//! - v3 ("asciicast v3"): header `{"version": 3, "term": {"cols", "rows", …}, "timestamp"?, …}`;
//!   `time` is the interval since the previous event; lines starting with `#` are comments.
//!
//! Times must be non-negative and (v2) never decrease; anything else is an error naming the line.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{EventKind, Recording};

/// Why a cast does not parse: `Display` is one line, `line N: …` (1-based).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

#[derive(Deserialize)]
struct Header {
    version: u32,
    width: Option<u16>,
    height: Option<u16>,
    term: Option<TermInfo>,
    timestamp: Option<f64>,
}

#[derive(Deserialize)]
struct TermInfo {
    cols: u16,
    rows: u16,
}

/// The v2 header we write.
#[derive(Serialize)]
struct HeaderV2<'a> {
    version: u32,
    width: u16,
    height: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<u64>,
    env: Env<'a>,
}

#[derive(Serialize)]
struct Env<'a> {
    #[serde(rename = "TERM")]
    term: &'a str,
}

/// Largest terminal a cast may declare (as `capture -w/-h`).
const MAX_SIDE: u16 = 500;

/// Parses an asciicast v2 or v3 document.
///
/// Errors: [`ParseError`] naming the first bad line: a header that is not a v2/v3 object with
/// a size in 1–500, an event that is not `[number, string, string]`, a negative time, a v2
/// time before the previous one, a resize that is not `COLSxROWS`.
pub fn parse(text: &str) -> Result<Recording, ParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let err = |line: usize, message: String| ParseError { line, message };
    let (hl, head) = lines
        .find(|(_, l)| !l.trim().is_empty())
        .ok_or_else(|| err(1, "empty file: no asciicast header".into()))?;
    let header: Header = serde_json::from_str(head)
        .map_err(|e| err(hl, format!("not an asciicast header object: {e}")))?;
    let (cols, rows) = match (header.version, &header.term) {
        (2, _) => (header.width, header.height),
        (3, Some(t)) => (Some(t.cols), Some(t.rows)),
        (3, None) => (None, None),
        (v, _) => {
            return Err(err(
                hl,
                format!("asciicast version {v} is not supported (2 or 3)"),
            ))
        }
    };
    let size_ok = |v: Option<u16>| v.filter(|n| (1..=MAX_SIDE).contains(n));
    let (Some(cols), Some(rows)) = (size_ok(cols), size_ok(rows)) else {
        return Err(err(
            hl,
            "the header needs a terminal size of 1-500 columns and rows".into(),
        ));
    };
    let timestamp = header
        .timestamp
        .filter(|t| t.is_finite() && *t >= 0.0)
        .map(|t| t as u64);
    let relative = header.version == 3;
    let mut rec = Recording::new(cols, rows, timestamp);
    let mut now = 0f64;
    for (n, line) in lines {
        if line.trim().is_empty() || (relative && line.starts_with('#')) {
            continue;
        }
        let (time, code, data): (f64, String, String) = serde_json::from_str(line)
            .map_err(|e| err(n, format!("not an event [time, code, data]: {e}")))?;
        if !time.is_finite() || time < 0.0 {
            return Err(err(n, format!("negative or invalid time {time}")));
        }
        let t = if relative { now + time } else { time };
        if t > MAX_TIME_S {
            return Err(err(
                n,
                format!("time {t} s is past the longest recording read ({MAX_TIME_S} s)"),
            ));
        }
        if t < now {
            return Err(err(
                n,
                format!("time {t} is before the previous event's ({now})"),
            ));
        }
        now = t;
        let kind = match code.as_str() {
            "o" => EventKind::Output(data.into_bytes()),
            "i" => EventKind::Input(data.into_bytes()),
            "m" => EventKind::Marker(data),
            "r" => {
                let size = data
                    .split_once('x')
                    .and_then(|(c, r)| Some((c.parse::<u16>().ok()?, r.parse::<u16>().ok()?)))
                    .filter(|(c, r)| (1..=MAX_SIDE).contains(c) && (1..=MAX_SIDE).contains(r));
                let Some((cols, rows)) = size else {
                    return Err(err(n, format!("resize '{data}' is not COLSxROWS (1-500)")));
                };
                EventKind::Resize { cols, rows }
            }
            // v3 exit status, and codes added later: nothing to draw.
            _ => continue,
        };
        rec.push(Duration::from_secs_f64(t), kind);
    }
    Ok(rec)
}

/// The latest event time a cast may have, seconds (about 115 days): later times are refused
/// rather than turned into durations that overflow.
const MAX_TIME_S: f64 = 1e7;

/// `recording` as an asciicast v2 document (header line, then one event a line).
///
/// Output events are cut only at UTF-8 character boundaries (a character split between two
/// reads goes with the later event), so the concatenated `"o"` data is the output byte for
/// byte; bytes that are not UTF-8 at all become U+FFFD. Times are seconds with 6 decimals.
pub fn write_v2(recording: &Recording) -> String {
    let header = HeaderV2 {
        version: 2,
        width: recording.cols,
        height: recording.rows,
        timestamp: recording.timestamp,
        env: Env {
            term: "xterm-256color",
        },
    };
    let mut out = serde_json::to_string(&header).unwrap_or_default();
    out.push('\n');
    let mut carry: Vec<u8> = Vec::new();
    let line = |out: &mut String, time: Duration, code: &str, data: &str| {
        let us = time.as_micros();
        out.push_str(&format!("[{}.{:06}, ", us / 1_000_000, us % 1_000_000));
        out.push_str(&serde_json::to_string(code).unwrap_or_default());
        out.push_str(", ");
        out.push_str(&serde_json::to_string(data).unwrap_or_default());
        out.push_str("]\n");
    };
    for e in &recording.events {
        match &e.kind {
            EventKind::Output(b) => {
                carry.extend_from_slice(b);
                let cut = utf8_prefix(&carry);
                // An empty event (a hold at the end) is kept; a lone partial character waits.
                if cut == 0 && !b.is_empty() {
                    continue;
                }
                let rest = carry.split_off(cut);
                line(&mut out, e.time, "o", &String::from_utf8_lossy(&carry));
                carry = rest;
            }
            EventKind::Input(b) => line(&mut out, e.time, "i", &String::from_utf8_lossy(b)),
            EventKind::Marker(m) => line(&mut out, e.time, "m", m),
            EventKind::Resize { cols, rows } => {
                line(&mut out, e.time, "r", &format!("{cols}x{rows}"))
            }
        }
    }
    if !carry.is_empty() {
        line(
            &mut out,
            recording.duration(),
            "o",
            &String::from_utf8_lossy(&carry),
        );
    }
    out
}

/// How many bytes of `b` to emit now: all of them, less an incomplete UTF-8 sequence at the
/// end (at most 3 bytes) that the next read may complete.
fn utf8_prefix(b: &[u8]) -> usize {
    for back in 1..=3.min(b.len()) {
        let i = b.len() - back;
        let lead = b[i];
        if lead & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back
        }
        let need = match lead {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if back < need { i } else { b.len() };
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_round_trips_and_keeps_split_characters_whole() {
        let mut r = Recording::new(80, 24, Some(1_700_000_000));
        let e = "é".as_bytes();
        r.push(
            Duration::from_millis(10),
            EventKind::Output(vec![b'a', e[0]]),
        );
        r.push(
            Duration::from_millis(20),
            EventKind::Output(vec![e[1], b'b']),
        );
        r.push(
            Duration::from_millis(30),
            EventKind::Resize { cols: 40, rows: 10 },
        );
        let text = write_v2(&r);
        assert!(
            text.starts_with("{\"version\":2,\"width\":80,\"height\":24,\"timestamp\":1700000000,")
        );
        assert!(text.contains("[0.010000, \"o\", \"a\"]\n[0.020000, \"o\", \"éb\"]\n"));
        assert!(text.contains("[0.030000, \"r\", \"40x10\"]"));
        let back = parse(&text).unwrap();
        assert_eq!(back.output(), "aéb".as_bytes());
        assert_eq!(
            back.events.last().unwrap().kind,
            EventKind::Resize { cols: 40, rows: 10 }
        );
    }

    #[test]
    fn v3_intervals_add_up_and_comments_are_skipped() {
        let text = "{\"version\":3,\"term\":{\"cols\":10,\"rows\":2}}\n# a comment\n[0.5,\"o\",\"a\"]\n[0.25,\"o\",\"b\"]\n[0.1,\"x\",\"0\"]\n";
        let r = parse(text).unwrap();
        assert_eq!((r.cols, r.rows), (10, 2));
        let times: Vec<u128> = r.events.iter().map(|e| e.time.as_millis()).collect();
        assert_eq!(times, [500, 750]);
    }

    #[test]
    fn bad_lines_are_named() {
        let h = "{\"version\":2,\"width\":10,\"height\":2}\n";
        let e = parse(&format!("{h}[0.1,\"o\",\"a\"]\n[0.2,\"o\"\n")).unwrap_err();
        assert_eq!(e.line, 3);
        let e = parse(&format!("{h}[0.5,\"o\",\"a\"]\n[0.2,\"o\",\"b\"]\n")).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("before the previous"), "{e}");
        let e = parse(&format!("{h}[-1,\"o\",\"a\"]\n")).unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse("{\"version\":1}\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1: asciicast version 1 is not supported (2 or 3)"
        );
        assert_eq!(parse("").unwrap_err().line, 1);
        // Times too large for a duration are refused, not a panic (v2 absolute, v3 summed).
        let e = parse(&format!("{h}[1e20,\"o\",\"a\"]\n")).unwrap_err();
        assert!(e.message.contains("longest recording"), "{e}");
        let v3 = "{\"version\":3,\"term\":{\"cols\":10,\"rows\":2}}\n";
        let e = parse(&format!("{v3}[1e300,\"o\",\"a\"]\n[1e300,\"o\",\"b\"]\n")).unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn utf8_prefix_holds_back_only_incomplete_sequences() {
        assert_eq!(utf8_prefix(b"abc"), 3);
        assert_eq!(utf8_prefix(&[b'a', 0xE2, 0x82]), 1);
        assert_eq!(utf8_prefix("a€".as_bytes()), 4);
        assert_eq!(utf8_prefix(&[0xF0]), 0);
    }
}
