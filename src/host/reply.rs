//! The host's replies, typed: one struct per reply document of the session contract
//! (shared/spec/console2svg-contract.md, "session: ids, states, JSON"), serialised by serde in
//! the contract's key order, so the JSON on the wire is what clients have always read
//! (`tests/wire.rs` holds it byte for byte).
//!
//! Every document starts with `schemaVersion` ([`SCHEMA`]); optional parts are left out when
//! absent (`expiresAt`, `bracketedPaste`, a wait's `screen` and `waiter`), while values that
//! may be unknown are `null` (`exitCode`, `title`).

use serde::ser::Serializer;
use serde::Serialize;

use super::session::State;
use crate::term::{Cell, Color, Screen, Underline};

/// The contract's `schemaVersion`.
pub const SCHEMA: u32 = 1;

/// Most characters of screen text in a reply (contract: 200 000).
pub const MAX_TEXT_CHARS: usize = 200_000;

/// A reply document serialised for the wire (one line, without its newline).
///
/// Errors: none in practice (every reply type serialises); a failure becomes an `io_error`
/// envelope rather than a panic in the host.
pub fn to_line<T: Serialize>(reply: &T) -> String {
    serde_json::to_string(reply).unwrap_or_else(|e| {
        super::protocol::HostError::new(
            super::protocol::ErrorCode::IoError,
            format!("cannot serialise the reply: {e}"),
        )
        .envelope()
        .to_string()
    })
}

/// `ping`: the host's pid.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pong {
    pub schema_version: u32,
    pub pid: u32,
}

/// `start`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Started<'a> {
    pub schema_version: u32,
    pub session_id: &'a str,
    pub state: State,
    pub process_id: u32,
    pub width: u16,
    pub height: u16,
}

/// `list [--all]`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub schema_version: u32,
    pub sessions: Vec<ListEntry>,
}

/// One session of `list`: `updatedAt` and `expiresAt` are RFC 3339 UTC with milliseconds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListEntry {
    pub session_id: String,
    pub state: State,
    pub process_id: u32,
    pub exit_code: Option<i32>,
    pub width: usize,
    pub height: usize,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// `read [--structured]`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Read<'a> {
    pub schema_version: u32,
    pub session_id: &'a str,
    pub state: State,
    pub process_id: u32,
    pub exit_code: Option<i32>,
    pub version: u64,
    pub screen: ScreenDoc<'a>,
}

/// A wait's reply: `result` is `matched`, `session-ended`, or `pending` while a poll has not
/// decided (the client turns a timeout into `timeout`). Pending polls leave out `screen`; the
/// first poll carries its `waiter` id.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Waited<'a> {
    pub schema_version: u32,
    /// `completed` (matched or pending) or `error`.
    pub status: &'static str,
    pub session_id: &'a str,
    pub state: State,
    pub process_id: u32,
    pub exit_code: Option<i32>,
    pub version: u64,
    pub result: &'static str,
    pub until: &'static str,
    pub text: &'a str,
    pub matched: bool,
    pub timed_out: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<ScreenDoc<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiter: Option<u64>,
}

/// `send`: `version` is the screen version before the input could have had an effect (for
/// `wait --since`); `bracketedPaste` only when the send had a paste step.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent<'a> {
    pub schema_version: u32,
    pub session_id: &'a str,
    pub state: State,
    pub exit_code: Option<i32>,
    pub version: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bracketed_paste: Option<bool>,
}

/// `resize`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resized<'a> {
    pub schema_version: u32,
    pub session_id: &'a str,
    pub state: State,
    pub exit_code: Option<i32>,
    pub version: u64,
    pub width: u16,
    pub height: u16,
}

/// `stop <id>`: how the program ended (exit code, or the signal's name).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stopped<'a> {
    pub schema_version: u32,
    pub session_id: &'a str,
    pub state: State,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
}

/// `stop --all`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoppedAll<'a> {
    pub schema_version: u32,
    pub stopped: Vec<&'a str>,
    pub failed: Vec<StopFailure>,
}

/// A session `stop --all` could not stop.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StopFailure {
    pub session_id: String,
    pub code: super::protocol::ErrorCode,
    pub message: String,
}

/// `snapshot`: the whole [`Screen`], for rendering by the client.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot<'a> {
    pub schema_version: u32,
    pub session_id: &'a str,
    pub state: State,
    pub version: u64,
    pub screen: &'a Screen,
}

/// `record` and a wait's end without a waiter: the session the request was about.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ack<'a> {
    pub schema_version: u32,
    pub session_id: &'a str,
}

/// `cast`: the session's output as an asciicast v2 document, for `session export x.cast`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CastDoc<'a> {
    pub schema_version: u32,
    pub session_id: &'a str,
    /// The asciicast v2 document.
    pub cast: &'a str,
}

/// `journal`: the session's journal entries, for `session export`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalDoc<'a> {
    pub schema_version: u32,
    pub session_id: &'a str,
    pub entries: &'a [super::journal::Entry],
}

/// The contract's `screen` object for a viewport snapshot: text (rows right-trimmed, trailing
/// empty rows dropped, at most [`MAX_TEXT_CHARS`]), cursor (zero-based row and column), modes,
/// and with `structured` the row-major cells.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenDoc<'a> {
    pub width: usize,
    pub height: usize,
    pub text: String,
    pub truncated: bool,
    pub cursor_row: usize,
    pub cursor_column: usize,
    pub cursor_visible: bool,
    pub is_alternate_screen: bool,
    pub scrollback_rows: usize,
    pub scope: &'static str,
    pub title: Option<&'a str>,
    pub modes: ModesDoc,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Structured<'a>>,
}

impl<'a> ScreenDoc<'a> {
    /// The `screen` object of `screen`, with `scrollback_rows` rows of scrollback above it.
    pub fn of(screen: &'a Screen, scrollback_rows: usize, structured: bool) -> ScreenDoc<'a> {
        let mut text = screen.text();
        let truncated = match text.char_indices().nth(MAX_TEXT_CHARS) {
            Some((cut, _)) => {
                text.truncate(cut);
                true
            }
            None => false,
        };
        let m = screen.modes;
        ScreenDoc {
            width: screen.width,
            height: screen.height,
            text,
            truncated,
            cursor_row: screen.cursor.row,
            cursor_column: screen.cursor.col,
            cursor_visible: screen.cursor.visible,
            is_alternate_screen: m.alternate_screen,
            scrollback_rows,
            scope: "viewport",
            title: screen.title.as_deref(),
            modes: ModesDoc {
                alternate_screen: m.alternate_screen,
                application_cursor: m.application_cursor,
                application_keypad: m.application_keypad,
                bracketed_paste: m.bracketed_paste,
                mouse_reporting: m.mouse_reporting,
                synchronized_output: m.synchronized_output,
                kitty_keyboard_flags: m.kitty_keyboard_flags,
                grapheme_clusters: m.grapheme_clusters,
                forced_sync_ends: m.forced_sync_ends,
            },
            structured: structured.then_some(Structured {
                schema_version: SCHEMA,
                width: screen.width,
                height: screen.height,
                cursor_row: screen.cursor.row,
                cursor_column: screen.cursor.col,
                cursor_visible: screen.cursor.visible,
                is_alternate_screen: m.alternate_screen,
                cells: Cells(screen),
            }),
        }
    }
}

/// The terminal modes a screen reports.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModesDoc {
    pub alternate_screen: bool,
    pub application_cursor: bool,
    pub application_keypad: bool,
    pub bracketed_paste: bool,
    pub mouse_reporting: bool,
    pub synchronized_output: bool,
    /// The kitty keyboard protocol flags the program pushed (`CSI > flags u`; 0: legacy keys).
    /// Bits 1 (disambiguate) and 8 (all keys as escape codes) change what `send --keys`
    /// writes, and let it send keys the legacy encoding lacks (`Shift+Enter`, `Ctrl+Enter`…).
    pub kitty_keyboard_flags: u8,
    /// DEC private mode 2027: emoji clusters (VS16, ZWJ sequences, flags) take 2 cells as in
    /// modern terminals; false when the program reset it (every code point its `wcwidth`).
    pub grapheme_clusters: bool,
    /// Synchronized-output frames the host ended by force so far (left open past 1 s, or open
    /// when the output ended); such a frame was shown as far as it had come.
    pub forced_sync_ends: u64,
}

/// The versioned structured snapshot (`read --structured`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Structured<'a> {
    pub schema_version: u32,
    pub width: usize,
    pub height: usize,
    pub cursor_row: usize,
    pub cursor_column: usize,
    pub cursor_visible: bool,
    pub is_alternate_screen: bool,
    pub cells: Cells<'a>,
}

/// A screen's cells, row-major. A 500×500 screen is 250 000 cells (about 75 MB of JSON), so
/// they are written by hand into one buffer: each cell's text, then the rest of its document,
/// which is serialised once per run of cells with the same style and copied for the others.
#[derive(Debug)]
pub struct Cells<'a>(&'a Screen);

impl Serialize for Cells<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let json = String::from_utf8(cells_json(self.0)).map_err(S::Error::custom)?;
        let raw = serde_json::value::RawValue::from_string(json).map_err(S::Error::custom)?;
        raw.serialize(s)
    }
}

/// How many styles [`cells_json`] keeps serialised.
const STYLES_KEPT: usize = 32;

/// The `cells` array of `screen` as JSON bytes (each cell `{"text":…}` followed by its
/// [`CellTail`]'s fields, as serde writes them; `tests/wire.rs` holds them).
fn cells_json(screen: &Screen) -> Vec<u8> {
    let count: usize = screen.rows.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(count * 320 + 2);
    out.push(b'[');
    // The styles seen last and their serialised tails (`,"foreground":…}`), the newest last:
    // a screen mostly repeats a few styles, and a tail is serialised once per style while it
    // stays among the last few.
    let mut seen: Vec<(CellTail, Vec<u8>)> = Vec::new();
    for (i, c) in screen.rows.iter().flatten().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"text":"#);
        // Writing into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut out, &c.text);
        let tail = CellTail::of(c);
        let hit = match seen.last() {
            Some((t, _)) if *t == tail => Some(seen.len() - 1),
            _ => seen.iter().rposition(|(t, _)| *t == tail),
        };
        let at = match hit {
            Some(at) => at,
            None => {
                let mut bytes = serde_json::to_vec(&tail).unwrap_or_default();
                // `{"foreground":…}` → `,"foreground":…}`
                if let Some(first) = bytes.first_mut() {
                    *first = b',';
                }
                if seen.len() == STYLES_KEPT {
                    seen.remove(0);
                }
                seen.push((tail, bytes));
                seen.len() - 1
            }
        };
        out.extend_from_slice(&seen[at].1);
    }
    out.push(b']');
    out
}

/// One structured cell but its text (contract field order). Colours are `null` (default),
/// `"palette:N"` (0–255) or `"#rrggbb"`; `underlineStyle` is `null` or the style's lowercase
/// name.
#[derive(Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct CellTail<'a> {
    foreground: ColorDoc,
    background: ColorDoc,
    underline_color: ColorDoc,
    hyperlink: Option<&'a str>,
    bold: bool,
    italic: bool,
    underline: bool,
    underline_style: Option<&'static str>,
    reversed: bool,
    faint: bool,
    hidden: bool,
    strikethrough: bool,
    overline: bool,
    blink: bool,
    is_wide: bool,
    is_wide_continuation: bool,
}

impl<'a> CellTail<'a> {
    fn of(c: &'a Cell) -> CellTail<'a> {
        CellTail {
            foreground: ColorDoc(Some(c.fg)),
            background: ColorDoc(Some(c.bg)),
            underline_color: ColorDoc(c.underline_color),
            hyperlink: c.link.as_ref().map(|l| l.uri.as_str()),
            bold: c.bold,
            italic: c.italic,
            underline: c.underline != Underline::None,
            underline_style: underline_style(c.underline),
            reversed: c.inverse,
            faint: c.dim,
            hidden: c.hidden,
            strikethrough: c.strikethrough,
            overline: false,
            blink: false,
            is_wide: c.width == 2,
            is_wide_continuation: c.width == 0,
        }
    }
}

/// The lowercase name of an underline style (`single`, `double`, `curly`, `dotted`,
/// `dashed`), `None` for no underline.
fn underline_style(u: Underline) -> Option<&'static str> {
    match u {
        Underline::None => None,
        Underline::Single => Some("single"),
        Underline::Double => Some("double"),
        Underline::Curly => Some("curly"),
        Underline::Dotted => Some("dotted"),
        Underline::Dashed => Some("dashed"),
    }
}

/// A cell colour as the structured snapshot writes it (`None` and the default colour are
/// `null`).
#[derive(Debug, PartialEq)]
struct ColorDoc(Option<Color>);

impl Serialize for ColorDoc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None | Some(Color::Default) => s.serialize_none(),
            Some(Color::Named(i) | Color::Indexed(i)) => {
                s.collect_str(&format_args!("palette:{i}"))
            }
            Some(Color::Rgb(rgb)) => s.serialize_str(&rgb.to_hex()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// More styles than are kept serialised, each used again after the others: the bytes are
    /// those of every cell serialised on its own.
    #[test]
    fn cells_json_is_each_cell_serialised_whatever_the_styles() {
        let mut e = crate::term::Emulator::new(20, 6);
        let mut bytes = Vec::new();
        for round in 0..2 {
            for i in 0..(STYLES_KEPT + 8) {
                bytes.extend_from_slice(format!("\x1b[38;5;{i}m{}", round).as_bytes());
            }
        }
        e.advance(&bytes);
        let screen = e.snapshot();
        let mut expected = String::from("[");
        for (i, c) in screen.rows.iter().flatten().enumerate() {
            if i > 0 {
                expected.push(',');
            }
            let tail = serde_json::to_string(&CellTail::of(c)).unwrap();
            expected += &format!(
                "{{\"text\":{},{}",
                serde_json::to_string(&c.text).unwrap(),
                &tail[1..]
            );
        }
        expected.push(']');
        assert_eq!(String::from_utf8(cells_json(&screen)).unwrap(), expected);
    }
}
