//! The owned, serde-able snapshot of a terminal: the one boundary type between the emulator and
//! everything that reads a screen (the renderer, JSON replies).
//!
//! Shapes: a [`Screen`] is `rows.len()` rows of exactly `width` [`Cell`]s. Row 0 is the oldest row
//! included (the first scrollback row when the snapshot includes scrollback, else the top of the
//! viewport). Coordinates are in cells, 0-based.

use serde::{Deserialize, Serialize};

/// A 24-bit colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Rgb {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl Rgb {
    /// Builds a colour from its three channels.
    pub const fn new(r: u8, g: u8, b: u8) -> Rgb {
        Rgb { r, g, b }
    }

    /// Parses `#rgb` or `#rrggbb` (the leading `#` is optional). Returns `None` for anything else.
    pub fn parse_hex(s: &str) -> Option<Rgb> {
        let h = s.strip_prefix('#').unwrap_or(s);
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let v = |a: usize, b: usize| u8::from_str_radix(&h[a..b], 16).ok();
        match h.len() {
            6 => Some(Rgb::new(v(0, 2)?, v(2, 4)?, v(4, 6)?)),
            3 => Some(Rgb::new(v(0, 1)? * 17, v(1, 2)? * 17, v(2, 3)? * 17)),
            _ => None,
        }
    }

    /// `#rrggbb`, lowercase.
    pub fn to_hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }
}

/// A cell colour as the program set it; the theme resolves it to [`Rgb`] at render time.
///
/// SGR 30–37/40–47 give `Named(0..=7)`, SGR 90–97/100–107 give `Named(8..=15)`,
/// `38;5;n` gives `Indexed(n)`, `38;2;r;g;b` (and the colon form `38:2::r:g:b`) gives `Rgb`.
/// `Named` and `Indexed` differ only in that bold-is-bright applies to `Named` colours alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "value")]
pub enum Color {
    /// The default foreground or background (SGR 39 / 49).
    #[default]
    Default,
    /// One of the 16 theme colours, set by SGR 30–37, 40–47, 90–97, 100–107.
    Named(u8),
    /// A palette index 0–255 set by `38;5;n`/`48;5;n` (xterm 256-colour palette; 0–15 come from
    /// the theme).
    Indexed(u8),
    /// A direct 24-bit colour.
    Rgb(Rgb),
}

/// Underline style, from SGR 4 / 4:n / 21 (ECMA-48 and the kitty/VTE `4:n` extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Underline {
    #[default]
    None,
    Single,
    Double,
    Curly,
    Dotted,
    Dashed,
}

/// Cursor shape, from DECSCUSR (`CSI Ps SP q`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CursorShape {
    #[default]
    Block,
    Underline,
    Bar,
    HollowBlock,
}

/// An OSC 8 hyperlink. The id is kept only when the program gave one explicitly.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Link {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// One grid cell.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cell {
    /// The grapheme cluster: base character plus zero-width characters. `" "` for a blank cell,
    /// `""` for the continuation cell after a wide character.
    pub text: String,
    pub fg: Color,
    pub bg: Color,
    pub bold: bool,
    pub dim: bool,
    pub italic: bool,
    pub underline: Underline,
    /// SGR 58; `None` means "the text colour" (SGR 59).
    pub underline_color: Option<Color>,
    pub strikethrough: bool,
    pub inverse: bool,
    pub hidden: bool,
    pub link: Option<Link>,
    /// Columns this cell covers: 1, 2 (a wide character) or 0 (the continuation of one).
    pub width: u8,
    /// The cell's text was replaced by `*` because it held a secret (see `mask`); the
    /// renderer draws the masked overlay over it. Not serialised when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub masked: bool,
}

impl Default for Cell {
    fn default() -> Cell {
        Cell {
            text: " ".into(),
            fg: Color::Default,
            bg: Color::Default,
            bold: false,
            dim: false,
            italic: false,
            underline: Underline::None,
            underline_color: None,
            strikethrough: false,
            inverse: false,
            hidden: false,
            link: None,
            width: 1,
            masked: false,
        }
    }
}

impl Cell {
    /// True for a blank cell with default colours and no decoration: nothing needs drawing.
    pub fn is_blank(&self) -> bool {
        (self.text == " " || self.text.is_empty())
            && self.bg == Color::Default
            && !self.inverse
            && self.underline == Underline::None
            && !self.strikethrough
    }
}

/// The cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// Row index into [`Screen::rows`].
    pub row: usize,
    /// Column, 0-based.
    pub col: usize,
    /// DECTCEM (`CSI ?25 h/l`).
    pub visible: bool,
    pub shape: CursorShape,
}

/// Terminal modes that change how input must be encoded or how the screen is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Modes {
    /// The alternate screen is shown (DEC private modes 1049, 1047 or 47).
    pub alternate_screen: bool,
    /// DECCKM, DEC private mode 1: cursor keys send `ESC O x`.
    pub application_cursor: bool,
    /// DECKPAM (`ESC =`): keypad sends application sequences.
    pub application_keypad: bool,
    /// DEC private mode 2004.
    pub bracketed_paste: bool,
    /// Any of DEC private modes 1000/1002/1003.
    pub mouse_reporting: bool,
    /// DEC private mode 2026 was active when the snapshot was taken (the snapshot shows the last
    /// complete frame).
    pub synchronized_output: bool,
    /// Kitty keyboard protocol flags pushed by the program (`CSI > flags u`): 1 disambiguate
    /// escape codes, 8 report all keys as escape codes (the two that change what a key sends;
    /// see `keys`). 0 for legacy encoding.
    #[serde(default)]
    pub kitty_keyboard_flags: u8,
    /// DEC private mode 2027: grapheme clusters take the cells modern terminals give them
    /// (a VS16 emoji, a ZWJ sequence, a flag: 2 cells; see `term::cluster`); false when
    /// every code point takes its own `wcwidth` cells.
    #[serde(default)]
    pub grapheme_clusters: bool,
    /// How many synchronized-output frames (mode 2026) were ended by force so far: left open
    /// past the timeout (`term::SYNC_TIMEOUT`, 1 s), or open when the output ended.
    #[serde(default)]
    pub forced_sync_ends: u64,
    /// DECSCNM, DEC private mode 5: the screen is shown in reverse video (the default
    /// foreground and background colours swapped, as xterm shows it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reverse_video: bool,
}

/// An owned snapshot of a terminal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Screen {
    /// Columns.
    pub width: usize,
    /// Viewport rows (the terminal's height), whatever `rows.len()` is.
    pub height: usize,
    /// The rows, oldest first; each has exactly `width` cells.
    pub rows: Vec<Vec<Cell>>,
    /// How many of `rows` come from scrollback (they precede the viewport rows).
    pub scrollback_rows: usize,
    pub cursor: Cursor,
    pub modes: Modes,
    /// Window title from OSC 0/2, if the program set one.
    pub title: Option<String>,
    /// Palette entries the program changed with OSC 4 (index, colour); they win over the theme.
    pub palette_overrides: Vec<(u8, Rgb)>,
    /// Indices into `rows` of the rows that soft-wrap: the line goes on in the next row (the
    /// emulator's wrap flag on the row's last cell). Ascending; not serialised when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wrapped: Vec<usize>,
}

impl Screen {
    /// A blank screen of `width` × `height` cells with the cursor at the origin.
    pub fn blank(width: usize, height: usize) -> Screen {
        Screen {
            width,
            height,
            rows: vec![vec![Cell::default(); width]; height],
            scrollback_rows: 0,
            cursor: Cursor {
                row: 0,
                col: 0,
                visible: true,
                shape: CursorShape::Block,
            },
            modes: Modes::default(),
            title: None,
            palette_overrides: Vec::new(),
            wrapped: Vec::new(),
        }
    }

    /// One row as text: clusters in order, continuation cells contribute nothing, right-trimmed.
    pub fn row_text(&self, row: usize) -> String {
        let mut s: String = self.rows[row].iter().map(|c| c.text.as_str()).collect();
        s.truncate(s.trim_end().len());
        s
    }

    /// All rows as text joined by `\n`, each right-trimmed, trailing empty rows dropped.
    pub fn text(&self) -> String {
        let mut lines: Vec<String> = (0..self.rows.len()).map(|r| self.row_text(r)).collect();
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        lines.join("\n")
    }

    /// Keeps the rows from `first` (inclusive) to `end` (exclusive), adjusting the cursor and
    /// the scrollback count; a cursor outside them is marked invisible. Consumes the screen,
    /// so no row is copied.
    pub fn into_rows(mut self, first: usize, end: usize) -> Screen {
        let end = end.clamp(first.min(self.rows.len()), self.rows.len());
        let first = first.min(end);
        if self.cursor.row < first || self.cursor.row >= end {
            self.cursor.visible = false;
            self.cursor.row = 0;
        } else {
            self.cursor.row -= first;
        }
        self.scrollback_rows = self.scrollback_rows.saturating_sub(first).min(end - first);
        self.rows.truncate(end);
        self.rows.drain(..first);
        // A row wraps into a row that is gone: the kept part ends there.
        self.wrapped = self
            .wrapped
            .iter()
            .filter(|&&r| r >= first && r + 1 < end)
            .map(|r| r - first)
            .collect();
        self
    }

    /// True when row `row` soft-wraps into the next row (see [`Screen::wrapped`]).
    pub fn wraps(&self, row: usize) -> bool {
        self.wrapped.binary_search(&row).is_ok()
    }

    /// The viewport only (drops the scrollback rows).
    pub fn into_viewport(self) -> Screen {
        let (first, end) = (self.scrollback_rows, self.rows.len());
        self.into_rows(first, end)
    }

    /// Scrollback and viewport down to the last row with content, or the cursor's row when the
    /// cursor is visible and lower; at least one row. This is how a capture without `-h` grows
    /// the image to the content.
    pub fn into_content(self) -> Screen {
        let rows = self.content_rows();
        self.into_rows(rows.start, rows.end)
    }

    /// The rows [`Screen::into_content`] keeps.
    pub fn content_rows(&self) -> std::ops::Range<usize> {
        let mut end = self.last_content_row().map_or(0, |r| r + 1);
        if self.cursor.visible {
            end = end.max(self.cursor.row + 1);
        }
        0..end.max(1)
    }

    /// The rows [`Screen::into_viewport`] keeps.
    pub fn viewport_rows(&self) -> std::ops::Range<usize> {
        self.scrollback_rows..self.rows.len()
    }

    /// Index of the last row that holds anything visible (text or a non-default background),
    /// or `None` when every row is blank.
    pub fn last_content_row(&self) -> Option<usize> {
        self.rows
            .iter()
            .rposition(|row| row.iter().any(|c| !c.is_blank()))
    }
}

/// The xterm 256-colour palette entry for `index` ≥ 16: the 6×6×6 colour cube (16–231, levels
/// 0, 95, 135, 175, 215, 255) and the 24-step grey ramp (232–255, 8 + 10·n). Entries 0–15 come
/// from the theme; for them this returns xterm's own defaults.
pub fn xterm_256(index: u8) -> Rgb {
    const BASE: [u32; 16] = [
        0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5, 0x7f7f7f,
        0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
    ];
    match index {
        0..=15 => {
            let v = BASE[index as usize];
            Rgb::new((v >> 16) as u8, (v >> 8) as u8, v as u8)
        }
        16..=231 => {
            let i = index - 16;
            let level = |n: u8| if n == 0 { 0 } else { 55 + 40 * n };
            Rgb::new(level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        _ => {
            let v = 8 + 10 * (index - 232);
            Rgb::new(v, v, v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xterm_palette_matches_xterm() {
        assert_eq!(xterm_256(208), Rgb::new(0xff, 0x87, 0x00));
        assert_eq!(xterm_256(21), Rgb::new(0, 0, 0xff));
        assert_eq!(xterm_256(16), Rgb::new(0, 0, 0));
        assert_eq!(xterm_256(231), Rgb::new(255, 255, 255));
        assert_eq!(xterm_256(232), Rgb::new(8, 8, 8));
        assert_eq!(xterm_256(255), Rgb::new(238, 238, 238));
    }

    #[test]
    fn hex_round_trip() {
        assert_eq!(Rgb::parse_hex("#FF8700"), Some(Rgb::new(255, 135, 0)));
        assert_eq!(Rgb::parse_hex("#abc"), Some(Rgb::new(0xaa, 0xbb, 0xcc)));
        assert_eq!(Rgb::parse_hex("#12345"), None);
        assert_eq!(Rgb::parse_hex("red"), None);
        assert_eq!(Rgb::new(1, 2, 255).to_hex(), "#0102ff");
    }
}
