//! The DEC and xterm control functions alacritty_terminal lacks, done in our layer on its grid:
//! soft reset (DECSTR), selective erase (DECSCA, DECSED, DECSEL, DECSERA), the rectangular
//! area operations (DECFRA, DECERA, DECCRA), column insert and delete (DECIC, DECDC), left
//! and right margins (DECLRMM, DECSLRM) and the DEC status reports (DECDSR, DECXCPR).
//!
//! The rules are xterm's (its "ctlseqs" document, XTerm Control Sequences) and DEC STD 070
//! (the VT420/VT510 programmer references) where xterm follows them; a deliberate
//! difference is named where it is made. The sequences reach this module from
//! [`super::sniff`] (alacritty's parser ignores them) in stream order.

use std::ops::Range;

use alacritty_terminal::event::{Event, EventListener};
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::{
    Attr, CharsetIndex, Handler, NamedMode, NamedPrivateMode, PrivateMode, StandardCharset,
};

use super::guard::Guarded;
use super::modes::{KeptGrid, KeptModes, KAM};
use super::sniff::Control;

/// The cell flag of a character written while DECSCA protection is on (a bit alacritty's
/// `Flags` leaves unused: its erases clear it with the rest of the cell, and its writes copy
/// it from the cursor's template like any attribute).
pub(super) const PROTECTED: Flags = Flags::from_bits_retain(0x8000);

/// DEC private mode 69, DECLRMM: left and right margins may be set (DECSLRM).
pub(super) const DECLRMM: u16 = 69;

/// The state of the DEC functions done here, kept beside alacritty's terminal.
#[derive(Debug, Clone, Default)]
pub(super) struct DecState {
    /// DECLRMM (`CSI ? 69 h`): `CSI Pl ; Pr s` sets the margins instead of saving the cursor.
    pub lrmm: bool,
    /// The left and right margins (0-based columns, `start..end`) set by DECSLRM, when not the
    /// whole width; they only act while DECLRMM is set.
    pub margins: Option<Range<usize>>,
    /// The parameters of a `CSI … s` the parser is about to dispatch (DECSLRM when DECLRMM is
    /// set, else SCOSC: see [`Guarded::save_cursor_position`]).
    pub pending_slrm: Option<Vec<u16>>,
    /// The conformance level DECSCL selected (1–5: VT100 to VT525), `None` until a program
    /// selects one (see [`super::modes`]).
    pub level: Option<u8>,
    /// The modes kept in our layer, only reported and saved or acted on here
    /// ([`super::modes`]).
    pub kept: KeptModes,
    /// The DEC private modes XTSAVE saved, with whether each was set.
    pub saved_modes: Vec<(u16, bool)>,
    /// The alternate screen's contents as mode 47 left it, for its next visit.
    pub alt_kept: KeptGrid,
    /// DECSACE (`CSI Ps * x`): the extent DECCARA and DECRARA would change, as set (0 or 1
    /// a stream of characters, 2 a rectangle); reported by DECRQSS.
    pub attribute_extent: u16,
    /// The protection in effect is ISO's (SPA/EPA: ED, EL and ECH spare protected
    /// characters too), else DEC's (DECSCA: only DECSED, DECSEL and DECSERA spare them, as
    /// they always do: xterm's choice for compatibility, where DEC STD 070 has them ignore ISO
    /// protection; DECSERA does ignore it). xterm keeps one protection flag per cell and this
    /// one mode.
    pub iso: bool,
    /// Reverse wraparound (xterm's private modes 45 and 1045): with autowrap, BS and CUB at
    /// the left edge go on at the right edge of the row above.
    pub reverse_wrap: bool,
    /// Whether origin mode was set when the cursor was saved (DECSC saves it, DECRC
    /// restores it: DEC STD 070).
    pub saved_origin: bool,
}

impl DecState {
    /// The left and right margins in effect, `start..end`, on a screen `cols` wide.
    pub fn horizontal(&self, cols: usize) -> Range<usize> {
        match &self.margins {
            Some(m) if self.lrmm => m.start.min(cols)..m.end.min(cols),
            _ => 0..cols,
        }
    }
}

/// A rectangle of cells, 0-based lines and columns, `top..bottom` × `left..right`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rect {
    top: usize,
    left: usize,
    bottom: usize,
    right: usize,
}

impl<T: EventListener> Guarded<'_, T> {
    /// Acts on a control sequence [`super::sniff`] picked out for the emulator.
    pub(super) fn control(&mut self, c: &Control) {
        match (c.prefix, c.intermediate, c.final_byte) {
            (None, Some(b'!'), b'p') => self.soft_reset(),
            (None, Some(b'"'), b'p') => self.select_level(c.param(0, 0)),
            (Some(b'?'), None, b's') => self.save_modes(&c.params),
            (Some(b'?'), None, b'r') => self.restore_modes(&c.params),
            (None, Some(b'*'), b'x') => {
                if let v @ 0..=2 = c.param(0, 0) {
                    self.dec.attribute_extent = v;
                }
            }
            (None, Some(b'"'), b'q') => {
                // DECSCA: 1 protects what is written from now on; 0 and 2 end it. The
                // protection is an attribute of the cursor (saved and restored with it).
                let flags = &mut self.term.grid_mut().cursor.template.flags;
                flags.set(PROTECTED, c.param(0, 0) == 1);
                self.dec.iso = false;
            }
            (Some(b'?'), None, b'J') => self.selective_erase_display(c.param(0, 0)),
            (Some(b'?'), None, b'K') => self.selective_erase_line(c.param(0, 0)),
            (Some(b'?'), None, b'n') => self.dec_status(c),
            (None, Some(b'$'), b'x') => {
                let fill = c.param(0, 0);
                if let Some(ch) = char::from_u32(fill as u32).filter(|ch| printable(*ch)) {
                    if let Some(r) = self.rect(c.params.get(1..).unwrap_or(&[])) {
                        self.fill_rect(r, ch);
                    }
                }
            }
            (None, Some(b'$'), b'z') => {
                if let Some(r) = self.rect(&c.params) {
                    self.erase_rect(r, false);
                }
            }
            (None, Some(b'$'), b'{') => {
                if let Some(r) = self.rect(&c.params) {
                    self.erase_rect(r, true);
                }
            }
            (None, Some(b'$'), b'v') => self.copy_rect(c),
            (None, Some(b'\''), b'}') => self.insert_columns(c.param(0, 1) as usize),
            (None, Some(b'\''), b'~') => self.delete_columns(c.param(0, 1) as usize),
            _ => {}
        }
    }

    pub(super) fn reply(&self, text: String) {
        self.listener.send_event(Event::PtyWrite(text));
    }

    /// DECSTR (`CSI ! p`, soft terminal reset), as xterm does it: insert mode, origin mode,
    /// the scroll region and the left and right margins, DECSCA protection, the character
    /// sets, the SGR attributes, application cursor keys, reverse wraparound reset; the
    /// cursor shown; the saved cursor back to its default (home). The cursor stays where it
    /// is, and autowrap as it is (xterm keeps its own default; DEC STD 070 resets it).
    pub(super) fn soft_reset(&mut self) {
        let term = &mut *self.term;
        let point = term.grid().cursor.point;
        Handler::unset_mode(
            term,
            alacritty_terminal::vte::ansi::Mode::Named(NamedMode::Insert),
        );
        Handler::unset_private_mode(term, PrivateMode::Named(NamedPrivateMode::Origin));
        Handler::unset_private_mode(term, PrivateMode::Named(NamedPrivateMode::CursorKeys));
        Handler::set_private_mode(term, PrivateMode::Named(NamedPrivateMode::ShowCursor));
        Handler::unset_keypad_application_mode(term);
        Handler::terminal_attribute(term, Attr::Reset);
        for index in [
            CharsetIndex::G0,
            CharsetIndex::G1,
            CharsetIndex::G2,
            CharsetIndex::G3,
        ] {
            Handler::configure_charset(term, index, StandardCharset::Ascii);
        }
        Handler::set_active_charset(term, CharsetIndex::G0);
        Handler::set_scrolling_region(term, 1, None);
        *self.region = 0..term.screen_lines() as i32;
        let grid = term.grid_mut();
        grid.cursor.point = point;
        grid.saved_cursor = Default::default();
        self.dec.lrmm = false;
        self.dec.margins = None;
        self.dec.saved_origin = false;
        self.dec.reverse_wrap = false;
        self.dec.iso = false;
        self.dec.kept.set_ansi(KAM, false);
    }

    /// SPA (`start`, `ESC V`) and EPA (`ESC W`): characters written from SPA to EPA are
    /// protected from ED, EL and ECH (ECMA-48 guarded area, as xterm does it).
    pub(super) fn guarded_area(&mut self, start: bool) {
        let flags = &mut self.term.grid_mut().cursor.template.flags;
        flags.set(PROTECTED, start);
        if start {
            self.dec.iso = true;
        }
    }

    /// Runs an erase (ED, EL, ECH) on `lines` that spares the protected characters when
    /// ISO protection (SPA) is in effect: they are put back after it.
    pub(super) fn sparing_protected(&mut self, lines: Range<usize>, erase: impl FnOnce(&mut Self)) {
        if !self.dec.iso {
            return erase(self);
        }
        let mut kept = Vec::new();
        for line in lines {
            let row = &self.term.grid()[Line(line as i32)];
            for col in 0..self.term.columns() {
                if row[Column(col)].flags.contains(PROTECTED) {
                    kept.push((line, col, row[Column(col)].clone()));
                }
            }
        }
        erase(self);
        let grid = self.term.grid_mut();
        for (line, col, cell) in kept {
            grid[Line(line as i32)][Column(col)] = cell;
        }
    }

    /// After the cursor went home: in origin mode, home is the left margin's column too.
    pub(super) fn home_in_margins(&mut self) {
        let (_, left) = self.origin();
        self.term.grid_mut().cursor.point.column = Column(left);
    }

    /// DECSED (`CSI ? Ps J`): ED that leaves protected characters (DECSCA) as they are.
    fn selective_erase_display(&mut self, mode: u16) {
        let (rows, cols) = (self.term.screen_lines(), self.term.columns());
        let cursor = self.term.grid().cursor.point;
        let (line, col) = (cursor.line.0.max(0) as usize, cursor.column.0.min(cols - 1));
        let whole = |top, bottom| Rect {
            top,
            left: 0,
            bottom,
            right: cols,
        };
        match mode {
            0 => {
                self.selective_erase(Rect {
                    top: line,
                    left: col,
                    bottom: line + 1,
                    right: cols,
                });
                self.selective_erase(whole(line + 1, rows));
            }
            1 => {
                self.selective_erase(whole(0, line));
                self.selective_erase(Rect {
                    top: line,
                    left: 0,
                    bottom: line + 1,
                    right: col + 1,
                });
            }
            2 => self.selective_erase(whole(0, rows)),
            _ => {}
        }
    }

    /// DECSEL (`CSI ? Ps K`): EL that leaves protected characters (DECSCA) as they are.
    fn selective_erase_line(&mut self, mode: u16) {
        let cols = self.term.columns();
        let cursor = self.term.grid().cursor.point;
        let (line, col) = (cursor.line.0.max(0) as usize, cursor.column.0.min(cols - 1));
        let (left, right) = match mode {
            0 => (col, cols),
            1 => (0, col + 1),
            2 => (0, cols),
            _ => return,
        };
        self.selective_erase(Rect {
            top: line,
            left,
            bottom: line + 1,
            right,
        });
    }

    /// Blanks the unprotected cells of `r` (a selective erase keeps the cells' colours and
    /// attributes, as DEC STD 070 says: only the characters go).
    fn selective_erase(&mut self, r: Rect) {
        let grid = self.term.grid_mut();
        for line in r.top..r.bottom {
            let row = &mut grid[Line(line as i32)];
            for col in r.left..r.right {
                let cell = &mut row[Column(col)];
                if !cell.flags.contains(PROTECTED) {
                    erase_char(cell);
                }
            }
        }
        self.repair_rows(r.top..r.bottom);
    }

    /// The rectangle of a DECFRA, DECERA or DECSERA request (`Pt ; Pl ; Pb ; Pr`, 1-based
    /// and inclusive, a missing or 0 parameter the screen's edge), relative to the origin in
    /// origin mode (DECOM), clipped to the screen; `None` when it is empty (top below bottom
    /// or left right of right).
    fn rect(&self, params: &[u16]) -> Option<Rect> {
        let (rows, cols) = (self.term.screen_lines(), self.term.columns());
        let at = |i: usize| params.get(i).copied().filter(|&v| v != 0);
        let (dy, dx) = self.origin();
        let top = at(0).map_or(1, |v| v as usize + dy);
        let left = at(1).map_or(1, |v| v as usize + dx);
        let bottom = at(2).map_or(rows, |v| v as usize + dy).min(rows);
        let right = at(3).map_or(cols, |v| v as usize + dx).min(cols);
        (top <= bottom && left <= right).then(|| Rect {
            top: top - 1,
            left: left - 1,
            bottom,
            right,
        })
    }

    /// The offset of coordinates in origin mode: the scroll region's top row and the left
    /// margin (0, 0 when DECOM is reset).
    pub(super) fn origin(&self) -> (usize, usize) {
        if self.term.mode().contains(TermMode::ORIGIN) {
            let left = self.dec.horizontal(self.term.columns()).start;
            (self.region.start.max(0) as usize, left)
        } else {
            (0, 0)
        }
    }

    /// DECFRA: fills `r` with `ch` in the current SGR attributes.
    fn fill_rect(&mut self, r: Rect, ch: char) {
        let mut cell = self.term.grid().cursor.template.clone();
        cell.c = ch;
        cell.flags
            .remove(Flags::WRAPLINE | Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER);
        let grid = self.term.grid_mut();
        for line in r.top..r.bottom {
            let row = &mut grid[Line(line as i32)];
            for col in r.left..r.right {
                let wrap = row[Column(col)].flags & Flags::WRAPLINE;
                row[Column(col)] = cell.clone();
                row[Column(col)].flags |= wrap;
            }
        }
        self.repair_rows(r.top..r.bottom);
    }

    /// DECERA (every cell of `r` blank, as ED blanks it) or DECSERA (`selective`: the
    /// characters DECSCA did not protect blank, attributes kept; under ISO protection
    /// DECSERA erases as DECERA, as xterm does).
    fn erase_rect(&mut self, r: Rect, selective: bool) {
        if selective && !self.dec.iso {
            return self.selective_erase(r);
        }
        let template = self.term.grid().cursor.template.clone();
        let grid = self.term.grid_mut();
        for line in r.top..r.bottom {
            let row = &mut grid[Line(line as i32)];
            for col in r.left..r.right {
                let wrap = row[Column(col)].flags & Flags::WRAPLINE;
                row[Column(col)] = Cell {
                    bg: template.bg,
                    ..Cell::default()
                };
                row[Column(col)].flags |= wrap;
            }
        }
        self.repair_rows(r.top..r.bottom);
    }

    /// DECCRA (`CSI Pts ; Pls ; Pbs ; Prs ; Pps ; Ptd ; Pld ; Ppd $ v`): copies a rectangle
    /// to another place (one page: the page numbers are ignored), clipped to the screen, as
    /// if through a buffer (overlapping areas copy whole).
    fn copy_rect(&mut self, c: &Control) {
        let Some(src) = self.rect(c.params.get(..4).unwrap_or(&c.params)) else {
            return;
        };
        let (rows, cols) = (self.term.screen_lines(), self.term.columns());
        let (dy, dx) = self.origin();
        let top = c.param(5, 1) as usize + dy - 1;
        let left = c.param(6, 1) as usize + dx - 1;
        if top >= rows || left >= cols {
            return;
        }
        let height = (src.bottom - src.top).min(rows - top);
        let width = (src.right - src.left).min(cols - left);
        let grid = self.term.grid_mut();
        let copied: Vec<Vec<Cell>> = (0..height)
            .map(|y| {
                let row = &grid[Line((src.top + y) as i32)];
                (0..width)
                    .map(|x| row[Column(src.left + x)].clone())
                    .collect()
            })
            .collect();
        for (y, cells) in copied.into_iter().enumerate() {
            let row = &mut grid[Line((top + y) as i32)];
            for (x, mut cell) in cells.into_iter().enumerate() {
                let at = &mut row[Column(left + x)];
                cell.flags.remove(Flags::WRAPLINE);
                cell.flags |= at.flags & Flags::WRAPLINE;
                *at = cell;
            }
        }
        self.repair_rows(top..top + height);
    }

    /// DECIC (`CSI Pn ' }`): inserts `n` blank columns at the cursor's column, in the scroll
    /// region and between the margins; the columns at the right margin go. Nothing when the
    /// cursor is outside them.
    fn insert_columns(&mut self, n: usize) {
        self.shift_columns(n, true);
    }

    /// DECDC (`CSI Pn ' ~`): deletes `n` columns at the cursor's column, in the scroll region
    /// and between the margins; blank columns come in at the right margin.
    fn delete_columns(&mut self, n: usize) {
        self.shift_columns(n, false);
    }

    fn shift_columns(&mut self, n: usize, insert: bool) {
        let cols = self.term.columns();
        let margins = self.dec.horizontal(cols);
        let cursor = self.term.grid().cursor.point;
        let (line, col) = (cursor.line.0, cursor.column.0);
        if !self.region.contains(&line) || !margins.contains(&col) {
            return;
        }
        let lines = self.region.start.max(0) as usize..self.region.end.max(0) as usize;
        for l in lines.clone() {
            shift_row(self.term, l, col..margins.end, n, insert);
        }
        self.repair_rows(lines);
    }

    /// DECDSR (`CSI ? Ps n`), the DEC-format status reports, as xterm (a VT525) answers them
    /// at the level DA reports (the VT220's, `62`, until a program selects one with DECSCL:
    /// see [`super::modes`]): DECXCPR (6, the cursor's position, origin-relative in origin
    /// mode, with the page, 1, from level 3), printer (15: none), user-defined keys (25:
    /// locked), keyboard (26: North American, then from level 3 "ready" and from level 4 the
    /// LK201), locator (53/55: none; 56: no locator),
    /// DECMSR (62: no macro space), DECCKSR (63: memory checksum 0), data integrity (75: no
    /// errors) and multiple sessions (85: not configured).
    fn dec_status(&mut self, c: &Control) {
        let level = self.dec.level.unwrap_or(2);
        let reply = match c.param(0, 0) {
            6 => {
                let p = self.term.grid().cursor.point;
                let (dy, dx) = self.origin();
                let col = p.column.0.min(self.term.columns() - 1);
                let row = (p.line.0.max(0) as usize + 1).saturating_sub(dy).max(1);
                let col = (col + 1).saturating_sub(dx).max(1);
                let page = if level >= 3 { ";1" } else { "" };
                format!("\x1b[?{row};{col}{page}R")
            }
            15 => "\x1b[?13n".into(),
            25 => "\x1b[?21n".into(),
            26 => match level {
                ..=2 => "\x1b[?27;1n".into(),
                3 => "\x1b[?27;1;0n".into(),
                _ => "\x1b[?27;1;0;0n".into(),
            },
            53 | 55 => "\x1b[?50n".into(),
            56 => "\x1b[?57;0n".into(),
            62 => "\x1b[0*{".into(),
            63 => format!("\x1bP{}!~0000\x1b\\", c.param(1, 0)),
            75 => "\x1b[?70n".into(),
            85 => "\x1b[?83n".into(),
            _ => return,
        };
        self.reply(reply);
    }

    /// DECBI (`ESC 6`): the cursor one column left; at the left margin the text between the
    /// margins, in the scroll region, moves right instead (a blank column coming in).
    pub(super) fn back_index(&mut self) {
        let cols = self.term.columns();
        let margins = self.dec.horizontal(cols);
        let point = self.term.grid().cursor.point;
        if point.column.0 == margins.start {
            if self.region.contains(&point.line.0) {
                self.scroll_columns(1, true);
            }
        } else if point.column.0 > 0 {
            let cursor = &mut self.term.grid_mut().cursor;
            cursor.point.column -= 1;
            cursor.input_needs_wrap = false;
        }
    }

    /// DECFI (`ESC 9`): the cursor one column right; at the right margin the text between
    /// the margins, in the scroll region, moves left instead (a blank column coming in).
    pub(super) fn forward_index(&mut self) {
        let cols = self.term.columns();
        let margins = self.dec.horizontal(cols);
        let point = self.term.grid().cursor.point;
        if point.column.0 + 1 == margins.end {
            if self.region.contains(&point.line.0) {
                self.scroll_columns(1, false);
            }
        } else if point.column.0 + 1 < cols {
            let cursor = &mut self.term.grid_mut().cursor;
            cursor.point.column += 1;
            cursor.input_needs_wrap = false;
        }
    }

    /// Moves the text between the margins in the scroll region `n` columns right (`right`)
    /// or left, blanks coming in.
    fn scroll_columns(&mut self, n: usize, right: bool) {
        let margins = self.dec.horizontal(self.term.columns());
        let lines = self.region.start.max(0) as usize..self.region.end.max(0) as usize;
        for l in lines.clone() {
            shift_row(self.term, l, margins.clone(), n, right);
        }
        self.repair_rows(lines);
    }

    /// Moves the cells of `cols` on rows `lines` up (`up`) or down by `n` rows, blank rows
    /// (in the cursor's background) coming in: scrolling inside the left and right margins.
    pub(super) fn scroll_rect(
        &mut self,
        lines: Range<usize>,
        cols: Range<usize>,
        n: usize,
        up: bool,
    ) {
        if lines.is_empty() || cols.is_empty() {
            return;
        }
        let bg = self.term.grid().cursor.template.bg;
        let blank = Cell {
            bg,
            ..Cell::default()
        };
        let n = n.min(lines.len());
        let grid = self.term.grid_mut();
        let order: Vec<usize> = if up {
            lines.clone().collect()
        } else {
            lines.clone().rev().collect()
        };
        for l in order {
            let from = if up {
                (l + n < lines.end).then_some(l + n)
            } else {
                (l >= lines.start + n).then(|| l - n)
            };
            for c in cols.clone() {
                let cell = match from {
                    Some(f) => grid[Line(f as i32)][Column(c)].clone(),
                    None => blank.clone(),
                };
                let at = &mut grid[Line(l as i32)][Column(c)];
                let wrap = at.flags & Flags::WRAPLINE;
                *at = cell;
                at.flags.remove(Flags::WRAPLINE);
                at.flags |= wrap;
            }
        }
        self.repair_rows(lines);
    }

    /// IND, LF, VT, FF (and the line feed of NEL and of a wrap) while left and right margins
    /// act: at the scroll region's bottom, the text between the margins scrolls up when the
    /// cursor is between them (else nothing moves); elsewhere the cursor goes one row down,
    /// stopping at the screen's bottom.
    pub(super) fn margin_feed(&mut self, m: Range<usize>) {
        let point = self.term.grid().cursor.point;
        let (line, rows) = (point.line.0, self.term.screen_lines() as i32);
        if line + 1 == self.region.end {
            if m.contains(&point.column.0) {
                let lines = self.region.start.max(0) as usize..self.region.end as usize;
                self.scroll_rect(lines, m, 1, true);
            }
        } else if line + 1 < rows {
            self.term.grid_mut().cursor.point.line += 1;
        }
    }

    /// RI while left and right margins act: at the scroll region's top, the text between the
    /// margins scrolls down when the cursor is between them; elsewhere one row up.
    pub(super) fn margin_reverse_feed(&mut self, m: Range<usize>) {
        let point = self.term.grid().cursor.point;
        if point.line.0 == self.region.start {
            if m.contains(&point.column.0) {
                let lines = self.region.start.max(0) as usize..self.region.end as usize;
                self.scroll_rect(lines, m, 1, false);
            }
        } else if point.line.0 > 0 {
            self.term.grid_mut().cursor.point.line -= 1;
        }
    }

    /// Blanks the halves of double-width characters the operation split on `lines`.
    fn repair_rows(&mut self, lines: Range<usize>) {
        for line in lines {
            super::guard::repair_row(self.term, Line(line as i32));
        }
    }
}

/// Whether DECFRA may fill with `ch`: a graphic character of GL or GR (xterm: 32–126,
/// 160–255).
fn printable(ch: char) -> bool {
    matches!(ch as u32, 32..=126 | 160..=255)
}

/// Makes `cell` a blank, keeping its colours and attributes (a selective erase).
fn erase_char(cell: &mut Cell) {
    let keep =
        cell.flags - (Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER);
    let (fg, bg) = (cell.fg, cell.bg);
    *cell = Cell {
        fg,
        bg,
        flags: keep,
        ..Cell::default()
    };
}

/// Shifts the cells of `cols` on `line` right (`insert`) or left by `n`, blanks coming in.
pub(super) fn shift_row<T>(
    term: &mut Term<T>,
    line: usize,
    cols: Range<usize>,
    n: usize,
    insert: bool,
) {
    if cols.is_empty() {
        return;
    }
    let bg = term.grid().cursor.template.bg;
    let row = &mut term.grid_mut()[Line(line as i32)];
    let n = n.min(cols.len());
    let blank = Cell {
        bg,
        ..Cell::default()
    };
    let wrap = row[Column(cols.end - 1)].flags & Flags::WRAPLINE;
    let cells = &mut row[..][cols];
    if insert {
        cells.rotate_right(n);
        for c in &mut cells[..n] {
            *c = blank.clone();
        }
    } else {
        cells.rotate_left(n);
        let len = cells.len();
        for c in &mut cells[len - n..] {
            *c = blank.clone();
        }
    }
    let len = cells.len();
    for c in cells.iter_mut() {
        c.flags.remove(Flags::WRAPLINE);
    }
    cells[len - 1].flags |= wrap;
}
