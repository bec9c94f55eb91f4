//! The emulator's guards around alacritty_terminal's limits: the handler the parser drives
//! ([`Guarded`], alacritty's `Term` with what it cannot take filtered out) and the grid fix-up
//! before a resize ([`narrow_wide_chars`]).
//!
//! The limits found in alacritty_terminal 0.26 (its `Term::input` and `Grid::resize`), and
//! how each is held:
//!
//! - A double-width character written into a 1-column terminal indexes past the row (a panic
//!   in `Term::input`): it is written as U+FFFD REPLACEMENT CHARACTER, one cell
//!   ([`WIDE_IN_ONE_COLUMN`]).
//! - Reflowing a grid that holds a double-width character to 1 column never ends (the
//!   character is moved to the next row, which is again too narrow, for ever, allocating all
//!   the while in `Grid::shrink_columns`): before a grid becomes 1 column wide, every
//!   double-width character in it (viewport and scrollback, primary and alternate screen)
//!   becomes U+FFFD and its spacer cell a blank.
//! - Reflowing to fewer columns splits each row one piece at a time, and every piece keeps
//!   the capacity of the row it was cut from: a 500-column row reflowed to 1 column holds
//!   ~125 000 cells of capacity (3 MB), so a full 500 × 500 screen with its scrollback went to
//!   tens of GB. A width shrinking to less than half is reached in halving steps
//!   ([`shrink_steps`]), which keeps the capacity within a few times the content.
//! - Sizes are clamped to 1–[`MAX_SIZE`] cells: a 0 size indexes an empty row, and an
//!   unbounded one allocates without limit.
//!
//! The guard is also where the grapheme width policy ([`super::cluster`], DEC private mode
//! 2027) is applied, since alacritty decides widths per code point: a character that joins the
//! cluster before the cursor is added to that cell, and a cluster that becomes two cells wide
//! is written again as a double-width character ([`Guarded::join`]), so that wrapping at the
//! margin, insert mode and the scrollback's guards treat it as any double-width character.
//!
//! Everything else was checked by feeding random output (wide, combining and emoji text, every
//! cursor, erase, scroll-region, tab, insert, origin, wrap, alternate-screen and reset
//! sequence, with counts up to 65 535) and resizes at every size from 1 × 1 to 12 × 12 (and
//! larger by sampling); see the emulator's tests.

use std::ops::Range;

use alacritty_terminal::event::{Event, EventListener};
use alacritty_terminal::grid::{Dimensions, Grid, GridCell};
use alacritty_terminal::index::{Column, Line, Point};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::{
    Attr, CharsetIndex, ClearMode, CursorShape, CursorStyle, Handler, Hyperlink, KeyboardModes,
    KeyboardModesApplyBehavior, LineClearMode, Mode, ModifyOtherKeys, NamedMode, NamedPrivateMode,
    PrivateMode, ScpCharPath, ScpUpdateMode, StandardCharset, TabulationClearMode,
};
use unicode_width::UnicodeWidthChar;

use super::cluster;
use super::dec::{self, DecState, DECLRMM, PROTECTED};
use super::modes::{ALTBUF, ALTBUF_CLEARED, KAM, MORE_FIX, SRM};
use super::scrollback::Scrollback;

/// What a double-width character becomes where it cannot fit (a 1-column terminal): U+FFFD
/// REPLACEMENT CHARACTER, one cell wide.
pub const WIDE_IN_ONE_COLUMN: char = '\u{fffd}';

/// DEC private mode 66, DECNKM: the numeric keypad in application mode (as DECKPAM).
const DECNKM: u16 = 66;

/// xterm's private mode 45, reverse wraparound.
const REVERSE_WRAP: u16 = 45;

/// xterm's private mode 1045, extended reverse wraparound (taken as mode 45 here).
const REVERSE_WRAP_EXTENDED: u16 = 1045;

/// xterm's private mode 1048: set saves the cursor (as DECSC), reset restores it.
const SAVE_CURSOR: u16 = 1048;

/// The largest terminal the emulator makes, in columns and in rows (the contract's 1–500).
pub const MAX_SIZE: usize = 500;

/// A double-width character written in place of a cluster that becomes two cells wide, so
/// that alacritty places it (wrapping, spacers, the scrollback's guards) as any double-width
/// character; the cluster's own characters replace it in the cell right after.
const WIDE_STAND_IN: char = '\u{3000}';

/// The handler the parser drives: alacritty's `Term`, with the input it cannot take replaced,
/// and the rows about to scroll off the top of the primary screen kept in the [`Scrollback`]
/// (alacritty keeps no history of its own here: see [`super::scrollback`]).
pub(super) struct Guarded<'a, T> {
    pub term: &'a mut Term<T>,
    pub scrollback: &'a mut Scrollback,
    /// The scroll region (DECSTBM) as alacritty keeps it (which it does not expose): viewport
    /// lines `start..end`, reset to the whole screen by a resize, a reset and DECCOLM.
    pub region: &'a mut Range<i32>,
    /// DEC private mode 2027, as the program set it.
    pub width: &'a mut WidthPolicy,
    /// Where answers to queries alacritty does not know go, in order with its own.
    pub listener: &'a T,
    /// The DEC functions done in our layer ([`super::dec`]): margins, protection.
    pub dec: &'a mut DecState,
}

/// The width policy in effect: DEC private mode 2027 (see [`cluster`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct WidthPolicy {
    /// Clusters take the cells of [`cluster`]'s policy (mode 2027 set); else every code point
    /// takes its own `wcwidth` cells.
    pub graphemes: bool,
    /// What a reset (RIS) sets the mode to.
    pub default: bool,
}

/// How the cursor's row leaves the screen when it is among the rows scrolling off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CursorRow {
    /// As it is.
    AsIs,
    /// Wrapped: the wrap of the next character is what scrolls it off.
    Wrapped,
    /// Wrapped, its last cell becoming the spacer a double-width character leaves when it
    /// does not fit the last column.
    WrappedAfterSpacer,
}

impl<T: EventListener> Guarded<'_, T> {
    /// The primary screen is shown (only its rows go to the scrollback).
    pub(super) fn primary(&self) -> bool {
        !self.term.mode().contains(TermMode::ALT_SCREEN)
    }

    /// A line feed at the cursor now scrolls the top row into the scrollback (alacritty's
    /// `linefeed`: the cursor is on the last line of a scroll region that starts at the top).
    fn feed_scrolls(&self) -> bool {
        self.primary()
            && self.region.start == 0
            && self.term.grid().cursor.point.line.0 + 1 == self.region.end
    }

    /// The scroll region's height.
    fn region_height(&self) -> usize {
        (self.region.end - self.region.start).max(0) as usize
    }

    /// Stores the top `n` rows of the screen in the scrollback, as they are about to scroll
    /// off; the cursor's row as `cursor_row` says.
    fn keep_top(&mut self, n: usize, cursor_row: CursorRow) {
        keep_top(self.term, self.scrollback, n, cursor_row);
    }

    /// The rows `ED 2` scrolls into the scrollback: those down to the last one with content
    /// (alacritty's `clear_viewport`); on an empty screen one row, when the scrollback is empty.
    fn cleared_rows(&self) -> usize {
        let grid = self.term.grid();
        (0..grid.screen_lines())
            .rev()
            .find(|&line| grid[Line(line as i32)][..].iter().any(|c| !c.is_empty()))
            .map_or(usize::from(self.scrollback.rows() == 0), |line| line + 1)
    }

    /// [`Handler::input`] for anything but printable ASCII: a character that joins the
    /// cluster before the cursor under the grapheme policy ([`Guarded::join`]), else written
    /// with every guard ([`Guarded::write`]).
    #[inline(never)]
    fn input_guarded(&mut self, c: char) {
        if self.width.graphemes && !c.is_ascii() && self.join(c) {
            return;
        }
        match self.dec.margins.clone() {
            Some(m) if self.term.grid().cursor.point.column.0 < m.end => {
                self.write_in_margins(c, m)
            }
            _ => self.write(c),
        }
    }

    /// Writes `c` with left and right margins acting and the cursor left of the right
    /// margin (xterm): the line wraps at the right margin to the left margin of the next row
    /// (scrolling only the text between the margins at the scroll region's bottom), and
    /// insert mode moves only the cells up to the right margin.
    fn write_in_margins(&mut self, c: char, m: Range<usize>) {
        let line_wrap = self.term.mode().contains(TermMode::LINE_WRAP);
        if self.term.grid().cursor.input_needs_wrap {
            if line_wrap {
                self.margin_feed(m.clone());
                self.term.grid_mut().cursor.point.column = Column(m.start);
            }
            self.term.grid_mut().cursor.input_needs_wrap = false;
        }
        let width = c.width().unwrap_or(1).max(1);
        let insert = self.term.mode().contains(TermMode::INSERT);
        if insert {
            let point = self.term.grid().cursor.point;
            let line = point.line.0.max(0) as usize;
            dec::shift_row(self.term, line, point.column.0..m.end, width, true);
            Handler::unset_mode(&mut *self.term, Mode::Named(NamedMode::Insert));
        }
        self.write(c);
        if insert {
            Handler::set_mode(&mut *self.term, Mode::Named(NamedMode::Insert));
        }
        let cursor = &mut self.term.grid_mut().cursor;
        if cursor.point.column.0 >= m.end {
            cursor.point.column = Column(m.end - 1);
            cursor.input_needs_wrap = true;
        }
    }

    /// [`Handler::input`] with every guard: a double-width character in one column, a spacer
    /// cleared in the scrollback's newest row, a wrap that scrolls the top row off.
    fn write(&mut self, c: char) {
        let width = if (' '..='~').contains(&c) {
            Some(1)
        } else {
            c.width()
        };
        let (c, width) = if self.term.columns() < 2 && width == Some(2) {
            (WIDE_IN_ONE_COLUMN, Some(1))
        } else {
            (c, width)
        };
        if let Some(w @ 1..) = width {
            let cursor = &self.term.grid().cursor;
            let line_wrap = self.term.mode().contains(TermMode::LINE_WRAP);
            let point = cursor.point;
            if !(cursor.input_needs_wrap && line_wrap) && point.line.0 == 0 && self.primary() {
                // Writing over half of a double-width character in the first two columns of
                // the top row, alacritty clears the spacer a wrap left at the end of the row
                // above: the newest row of the scrollback.
                let row = &self.term.grid()[point.line];
                let written = point.column.0..(point.column.0 + w).min(2);
                let half = Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER;
                if written
                    .into_iter()
                    .any(|c| row[Column(c)].flags.intersects(half))
                {
                    self.scrollback.unmark_last();
                }
            }
            let cursor = &self.term.grid().cursor;
            let at_end = cursor.point.column.0 + 1 >= self.term.columns();
            let wraps = cursor.input_needs_wrap || (w == 2 && at_end);
            if wraps && line_wrap && self.feed_scrolls() {
                let how = if cursor.input_needs_wrap {
                    CursorRow::Wrapped
                } else {
                    CursorRow::WrappedAfterSpacer
                };
                self.keep_top(1, how);
            }
        }
        if self.term.mode().contains(TermMode::INSERT) && width.is_some_and(|w| w > 0) {
            return self.insert_wide_safely(c, width.unwrap_or(1));
        }
        Handler::input(&mut *self.term, c)
    }

    /// [`Handler::input`] in insert mode (IRM) on a row holding double-width characters:
    /// alacritty rotates the row right and writes over the cells that come round from its
    /// end, so a double-width character pushed against the right edge keeps its first half
    /// without its spacer (found by the fuzz tests), and a spacer that comes round clears the
    /// character before the cursor. Here the cells from the end are blanked before the write,
    /// and a pair the shift split is erased whole, as xterm does. Rows without double-width
    /// characters take alacritty's path unchanged; after a wrap (the wrap pending) the row
    /// written is repaired (a pair pushed against its edge erased whole).
    #[inline(never)]
    fn insert_wide_safely(&mut self, c: char, width: usize) {
        let cols = self.term.columns();
        let point = self.term.grid().cursor.point;
        let half = Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER;
        let row = &self.term.grid()[point.line];
        let wide =
            (point.column.0.saturating_sub(1)..cols).any(|c| row[Column(c)].flags.intersects(half));
        if self.term.grid().cursor.input_needs_wrap {
            // alacritty wraps, then inserts on the next row, where a pair may be pushed
            // against the edge: repaired there (split, it is erased whole).
            Handler::input(&mut *self.term, c);
            return repair_wide_pairs(self.term);
        }
        if !wide {
            return Handler::input(&mut *self.term, c);
        }
        if point.column.0 + width >= cols {
            Handler::input(&mut *self.term, c);
            return repair_row(self.term, point.line);
        }
        let line = point.line.0.max(0) as usize;
        dec::shift_row(self.term, line, point.column.0..cols, width, true);
        let insert = Mode::Named(NamedMode::Insert);
        Handler::unset_mode(&mut *self.term, insert);
        Handler::input(&mut *self.term, c);
        Handler::set_mode(&mut *self.term, insert);
        repair_row(self.term, point.line);
    }

    /// The cell holding the cluster before the cursor, where alacritty puts a zero-width
    /// character (the cell left of the cursor, or under it when a wrap is pending; the
    /// double-width character when that is its spacer). `None` at the start of a row, and for
    /// a blank cell or a spacer a wrap left.
    fn cluster_before_cursor(&self) -> Option<Point> {
        let grid = self.term.grid();
        let cursor = &grid.cursor;
        let mut col = cursor.point.column.0;
        if !cursor.input_needs_wrap {
            col = col.checked_sub(1)?;
        }
        let row = &grid[cursor.point.line];
        if row[Column(col)].flags.contains(Flags::WIDE_CHAR_SPACER) {
            col = col.checked_sub(1)?;
        }
        let cell = &row[Column(col)];
        let blank = (cell.c == ' ' || cell.c == '\0') && cell.zerowidth().is_none();
        if blank || cell.flags.contains(Flags::LEADING_WIDE_CHAR_SPACER) {
            return None;
        }
        Some(Point::new(cursor.point.line, Column(col)))
    }

    /// Under the grapheme policy ([`cluster`]): adds `c` to the cluster before the cursor when
    /// it belongs there (a variation selector, a skin-tone modifier, a pictograph after a
    /// ZWJ, a second regional indicator), making the cluster 2 or 1 cells wide when its
    /// width changes. Returns whether `c` was taken; anything else is written as usual.
    fn join(&mut self, c: char) -> bool {
        let width = c.width();
        let selector = cluster::rewidens(c);
        if width.is_none() || width == Some(0) && !selector {
            return false;
        }
        let Some(at) = self.cluster_before_cursor() else {
            return false;
        };
        let cell = &self.term.grid()[at.line][at.column];
        let joined = cell.zerowidth().unwrap_or(&[]);
        if !selector && !cluster::joins(cell.c, joined, c) {
            return false;
        }
        let mut text = String::with_capacity(4 * (joined.len() + 2));
        text.push(cell.c);
        text.extend(joined);
        text.push(c);
        let wide = cell.flags.contains(Flags::WIDE_CHAR);
        self.term.grid_mut()[at.line][at.column].push_zerowidth(c);
        match (cluster::width(&text), wide) {
            (2, false) => self.widen(at),
            (1, true) => self.narrow(at),
            _ => {}
        }
        true
    }

    /// Makes the one-cell cluster at `at`, just before the cursor, two cells wide: it is
    /// written again as a double-width character in its style, so alacritty places it (on the
    /// next row, leaving a spacer, when it no longer fits the row; nowhere when wrapping is
    /// off or the terminal is one column wide: it stays one cell). In insert mode the cells
    /// after it move right by one.
    fn widen(&mut self, at: Point) {
        let cols = self.term.columns();
        let at_margin = at.column.0 + 1 >= cols;
        if cols < 2 || at_margin && !self.term.mode().contains(TermMode::LINE_WRAP) {
            return;
        }
        let old = self.term.grid()[at.line][at.column].clone();
        let insert = self.term.mode().contains(TermMode::INSERT);
        if insert && !at_margin {
            // Room for its second cell: the cursor is on the cell after it.
            self.insert_blank(1);
        }
        let insert_mode = Mode::Named(NamedMode::Insert);
        if insert {
            Handler::unset_mode(&mut *self.term, insert_mode);
        }
        let mut style = Cell {
            c: ' ',
            fg: old.fg,
            bg: old.bg,
            flags: old.flags
                - (Flags::WIDE_CHAR
                    | Flags::WIDE_CHAR_SPACER
                    | Flags::LEADING_WIDE_CHAR_SPACER
                    | Flags::WRAPLINE),
            extra: None,
        };
        if old.extra.is_some() {
            style.set_underline_color(old.underline_color());
            style.set_hyperlink(old.hyperlink());
        }
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point = at;
        cursor.input_needs_wrap = false;
        let template = std::mem::replace(&mut cursor.template, style);
        self.write(WIDE_STAND_IN);
        let grid = self.term.grid_mut();
        grid.cursor.template = template;
        let cursor = &grid.cursor;
        // alacritty leaves the cursor after the spacer, or on it with a wrap pending.
        let back = if cursor.input_needs_wrap { 1 } else { 2 };
        let (line, col) = (
            cursor.point.line,
            cursor.point.column.0.saturating_sub(back),
        );
        let cell = &mut grid[line][Column(col)];
        if cell.c == WIDE_STAND_IN && cell.flags.contains(Flags::WIDE_CHAR) {
            cell.c = old.c;
            cell.extra = old.extra;
        }
        if insert {
            Handler::set_mode(&mut *self.term, insert_mode);
        }
    }

    /// Makes the two-cell cluster at `at` (its spacer under or just before the cursor) one
    /// cell wide: its spacer becomes a blank in its style, and the cursor comes back one cell.
    fn narrow(&mut self, at: Point) {
        let cols = self.term.columns();
        let grid = self.term.grid_mut();
        grid[at.line][at.column].flags.remove(Flags::WIDE_CHAR);
        let next = at.column + 1;
        if next.0 >= cols {
            return;
        }
        let spacer = &mut grid[at.line][next];
        if spacer.flags.contains(Flags::WIDE_CHAR_SPACER) {
            spacer.flags.remove(Flags::WIDE_CHAR_SPACER);
            spacer.c = ' ';
            spacer.extra = None;
        }
        let cursor = &mut grid.cursor;
        cursor.point.column = next;
        cursor.input_needs_wrap = false;
    }

    /// After a tab from column `before`: a tab that started left of the right margin stops
    /// at it (xterm, DEC; no wrap).
    fn tab_stops_at_margin(&mut self, before: usize) {
        if let Some(m) = self.dec.margins.clone() {
            let cursor = &mut self.term.grid_mut().cursor;
            if before < m.end && cursor.point.column.0 >= m.end {
                cursor.point.column = Column(m.end - 1);
            }
        }
    }

    /// The cursor's row, 0-based.
    fn cursor_line(&self) -> usize {
        self.term.grid().cursor.point.line.0.max(0) as usize
    }

    /// Whether BS and CUB wrap back to the row above: reverse wraparound with autowrap.
    fn reverse_wraps(&self) -> bool {
        self.dec.reverse_wrap && self.term.mode().contains(TermMode::LINE_WRAP)
    }

    /// In origin mode, puts the cursor in column `col` counted from the left margin and kept
    /// inside the margins; else in column `col` of the screen.
    fn origin_column(&mut self, col: usize) {
        let cols = self.term.columns();
        let m = if self.term.mode().contains(TermMode::ORIGIN) {
            self.dec.horizontal(cols)
        } else {
            0..cols
        };
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point.column = Column(m.start.saturating_add(col).min(m.end - 1));
    }

    /// IL (`insert`) or DL of `n` lines at the cursor with left and right margins: the text
    /// between the margins from the cursor's row to the scroll region's bottom moves, when
    /// the cursor is inside the region and the margins; the cursor goes to the left margin.
    fn margin_lines(&mut self, n: usize, insert: bool) {
        let Some(m) = self.dec.margins.clone() else {
            return;
        };
        let point = self.term.grid().cursor.point;
        if !self.region.contains(&point.line.0) || !m.contains(&point.column.0) {
            return;
        }
        let rows = point.line.0 as usize..self.region.end as usize;
        self.scroll_rect(rows, m.clone(), n, !insert);
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point.column = Column(m.start);
        cursor.input_needs_wrap = false;
    }

    /// ICH (`insert`) or DCH of `n` cells at the cursor with left and right margins: only the
    /// cells up to the right margin move, when the cursor is between the margins.
    fn margin_chars(&mut self, n: usize, insert: bool) {
        let Some(m) = self.dec.margins.clone() else {
            return;
        };
        let point = self.term.grid().cursor.point;
        if !m.contains(&point.column.0) {
            return;
        }
        let line = point.line.0.max(0) as usize;
        dec::shift_row(self.term, line, point.column.0..m.end, n, insert);
        repair_wide_pairs(self.term);
    }
}

/// Replaces the grid of the alternate screen, while the primary screen is shown, with a blank
/// one of `cols` × `rows`: the alternate screen is cleared whenever it is entered, so its grid
/// only matters while it is shown. The emulator keeps it 1 × 1 (24 bytes) the rest of the time
/// instead of a second screen's cells (57.6 KB at 100 × 24), and makes it the screen's size
/// when `CSI ? 1049 h` enters it. The primary screen's saved cursor is kept (the swap that
/// reaches the alternate grid would drop it).
pub(super) fn set_alternate<T: EventListener>(term: &mut Term<T>, cols: usize, rows: usize) {
    debug_assert!(!term.mode().contains(TermMode::ALT_SCREEN));
    let saved = term.grid().saved_cursor.clone();
    term.swap_alt();
    *term.grid_mut() = Grid::new(rows, cols, 0);
    term.swap_alt();
    term.grid_mut().saved_cursor = saved;
}

/// [`Guarded::keep_top`] on a terminal and its scrollback.
pub(super) fn keep_top<T>(
    term: &Term<T>,
    scrollback: &mut Scrollback,
    n: usize,
    cursor_row: CursorRow,
) {
    let grid = term.grid();
    let cursor = &grid.cursor;
    for line in 0..n.min(grid.screen_lines()) {
        let cells = &grid[Line(line as i32)][..];
        let wrapped = cells
            .last()
            .is_some_and(|c| c.flags.contains(Flags::WRAPLINE));
        match cursor_row {
            _ if cursor.point.line.0 != line as i32 => scrollback.push_row(cells, wrapped),
            CursorRow::AsIs => scrollback.push_row(cells, wrapped),
            CursorRow::Wrapped => scrollback.push_row(cells, true),
            CursorRow::WrappedAfterSpacer => {
                // As alacritty's `write_at_cursor` leaves it: the last cell the spacer, and a
                // double-width character whose spacer that cell was cleared.
                let mut row = cells.to_vec();
                let n = row.len();
                let half = Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER;
                if n >= 2 && row[n - 1].flags.intersects(half) {
                    row[n - 2].clear_wide();
                }
                let mut spacer = cursor.template.clone();
                spacer.c = ' ';
                spacer.flags.insert(Flags::LEADING_WIDE_CHAR_SPACER);
                row[n - 1] = spacer;
                scrollback.push_row(&row, true);
            }
        }
    }
}

/// Forwards each listed handler call to the `Term` unchanged.
macro_rules! forward {
    ($( fn $name:ident(&mut self $(, $arg:ident : $ty:ty)*); )*) => {
        $(
            #[inline]
            fn $name(&mut self $(, $arg: $ty)*) {
                Handler::$name(&mut *self.term $(, $arg)*)
            }
        )*
    };
}

impl<T: EventListener> Handler for Guarded<'_, T> {
    /// ICH (`CSI Ps @`), then the cursor's row repaired ([`repair_wide_pairs`]). Between
    /// left and right margins only the cells up to the right margin move (nothing when the
    /// cursor is outside them).
    fn insert_blank(&mut self, count: usize) {
        if self.dec.margins.is_some() {
            return self.margin_chars(count, true);
        }
        Handler::insert_blank(&mut *self.term, count);
        repair_wide_pairs(self.term);
    }

    /// ECH (`CSI Ps X`), then the cursor's row repaired ([`repair_wide_pairs`]); ISO
    /// protected characters are spared.
    fn erase_chars(&mut self, count: usize) {
        let line = self.cursor_line();
        self.sparing_protected(line..line + 1, |g| {
            Handler::erase_chars(&mut *g.term, count)
        });
        repair_wide_pairs(self.term);
    }

    /// EL (`CSI Ps K`); ISO protected characters are spared.
    fn clear_line(&mut self, mode: LineClearMode) {
        let line = self.cursor_line();
        self.sparing_protected(line..line + 1, |g| Handler::clear_line(&mut *g.term, mode));
    }

    /// DCH (`CSI Ps P`), then the cursor's row repaired ([`repair_wide_pairs`]); with left
    /// and right margins as ICH.
    fn delete_chars(&mut self, count: usize) {
        if self.dec.margins.is_some() {
            return self.margin_chars(count, false);
        }
        Handler::delete_chars(&mut *self.term, count);
        repair_wide_pairs(self.term);
    }

    #[inline]
    fn input(&mut self, c: char) {
        let cursor = &self.term.grid().cursor;
        if (' '..='~').contains(&c)
            && !cursor.input_needs_wrap
            && cursor.point.line.0 != 0
            && self.dec.margins.is_none()
            && !self.term.mode().contains(TermMode::INSERT)
        {
            // The common case, kept small enough to inline: one printable ASCII character
            // written below the top row without wrapping, which touches no stored row.
            return Handler::input(&mut *self.term, c);
        }
        self.input_guarded(c)
    }

    /// DA1 (`CSI c`) and DA2 (`CSI > c`): by the conformance level a program selected
    /// ([`Guarded::identify`]), else by alacritty (the emulator gives DA1 its VT220 answer).
    fn identify_terminal(&mut self, intermediate: Option<char>) {
        if !self.identify(intermediate) {
            Handler::identify_terminal(&mut *self.term, intermediate)
        }
    }

    /// HT. Right after a character written in the last column (the wrap pending) the cursor
    /// stays there, the wrap still pending (xterm; alacritty would wrap), unless xterm's mode
    /// 41 (the "more(1) fix") is set with autowrap: then the cursor goes down a line (scrolling
    /// at the region's bottom) to the first column and on to the first tab stop.
    #[inline]
    fn put_tab(&mut self, count: u16) {
        if self.term.grid().cursor.input_needs_wrap {
            if !(self.dec.kept.private(MORE_FIX) && self.term.mode().contains(TermMode::LINE_WRAP))
            {
                return;
            }
            self.term.grid_mut().cursor.input_needs_wrap = false;
            self.linefeed();
            self.term.grid_mut().cursor.point.column = Column(0);
        }
        if self.dec.margins.is_some() {
            let before = self.term.grid().cursor.point.column.0;
            Handler::put_tab(&mut *self.term, count);
            return self.tab_stops_at_margin(before);
        }
        Handler::put_tab(&mut *self.term, count)
    }

    #[inline]
    fn linefeed(&mut self) {
        if let Some(m) = self.dec.margins.clone() {
            self.margin_feed(m);
            if self.term.mode().contains(TermMode::LINE_FEED_NEW_LINE) {
                self.carriage_return();
            }
            return;
        }
        if self.feed_scrolls() {
            self.keep_top(1, CursorRow::AsIs);
        }
        Handler::linefeed(&mut *self.term);
        if self.term.mode().contains(TermMode::LINE_FEED_NEW_LINE) {
            // LNM: a line feed is a new line (alacritty applies it only to its `newline`).
            self.carriage_return();
        }
    }

    #[inline]
    fn newline(&mut self) {
        if self.dec.margins.is_some() {
            return self.linefeed();
        }
        if self.feed_scrolls() {
            self.keep_top(1, CursorRow::AsIs);
        }
        Handler::newline(&mut *self.term)
    }

    fn scroll_up(&mut self, lines: usize) {
        if let Some(m) = self.dec.margins.clone() {
            let rows = self.region.start.max(0) as usize..self.region.end.max(0) as usize;
            return self.scroll_rect(rows, m, lines, true);
        }
        if self.primary() && self.region.start == 0 {
            self.keep_top(lines.min(self.region_height()), CursorRow::AsIs);
        }
        Handler::scroll_up(&mut *self.term, lines)
    }

    fn delete_lines(&mut self, lines: usize) {
        if self.dec.margins.is_some() {
            return self.margin_lines(lines, false);
        }
        let origin = self.term.grid().cursor.point.line.0;
        let lines = lines.min(
            self.term
                .screen_lines()
                .saturating_sub(origin.max(0) as usize),
        );
        if lines > 0 && origin == 0 && self.region.contains(&origin) && self.primary() {
            self.keep_top(lines.min(self.region_height()), CursorRow::AsIs);
        }
        Handler::delete_lines(&mut *self.term, lines)
    }

    fn clear_screen(&mut self, mode: ClearMode) {
        match mode {
            ClearMode::All if self.primary() => {
                let rows = self.cleared_rows();
                self.keep_top(rows, CursorRow::AsIs);
            }
            ClearMode::Saved if self.primary() => self.scrollback.clear(),
            _ => {}
        }
        let rows = self.term.screen_lines();
        let above = matches!(mode, ClearMode::Above);
        self.sparing_protected(0..rows, |g| {
            Handler::clear_screen(&mut *g.term, mode);
            if above && g.term.grid().cursor.point.line.0 == 1 {
                // alacritty clears the rows above the cursor only from the third row down
                // (`cursor.line > 1`): on the second row, the first is erased here.
                let bg = g.term.grid().cursor.template.bg;
                for cell in &mut g.term.grid_mut()[Line(0)][..] {
                    *cell = Cell {
                        bg,
                        ..Cell::default()
                    };
                }
            }
        })
    }

    fn reset_state(&mut self) {
        let alternate = !self.primary();
        Handler::reset_state(&mut *self.term);
        if alternate {
            // Back on the primary screen: the alternate one goes until it is entered again.
            set_alternate(self.term, 1, 1);
        }
        self.scrollback.clear();
        *self.region = 0..self.term.screen_lines() as i32;
        self.width.graphemes = self.width.default;
        *self.dec = DecState::default();
    }

    /// SCOSC (`CSI s`, `ESC 7` is DECSC), or DECSLRM when this is a `CSI Pl ; Pr s` while
    /// DECLRMM is set (xterm): the margins become columns `Pl..=Pr` (1-based; 0 or absent
    /// the screen's edge; ignored unless `Pl < Pr`), and the cursor goes home.
    fn save_cursor_position(&mut self) {
        match self.dec.pending_slrm.take() {
            Some(params) if self.dec.lrmm => {
                let cols = self.term.columns();
                let at = |i: usize, default: usize| match params.get(i) {
                    Some(&v) if v != 0 => (v as usize).min(cols),
                    _ => default,
                };
                let (left, right) = (at(0, 1), at(1, cols));
                if left < right {
                    self.dec.margins = (left > 1 || right < cols).then_some(left - 1..right);
                    Handler::goto(&mut *self.term, 0, 0);
                    self.home_in_margins();
                }
            }
            _ => {
                self.dec.saved_origin = self.term.mode().contains(TermMode::ORIGIN);
                Handler::save_cursor_position(&mut *self.term)
            }
        }
    }

    /// DECRC (`ESC 8`) and SCORC (`CSI u`): the saved cursor, and origin mode as it was
    /// when the cursor was saved (DEC STD 070; alacritty does not save the mode).
    fn restore_cursor_position(&mut self) {
        let origin = PrivateMode::Named(NamedPrivateMode::Origin);
        if self.dec.saved_origin {
            Handler::set_private_mode(&mut *self.term, origin);
        } else {
            Handler::unset_private_mode(&mut *self.term, origin);
        }
        Handler::restore_cursor_position(&mut *self.term)
    }

    /// DECALN (`ESC # 8`): the screen filled with `E`, and (xterm, DEC STD 070) the scroll
    /// region and the left and right margins reset, the cursor home.
    fn decaln(&mut self) {
        Handler::decaln(&mut *self.term);
        self.dec.margins = None;
        *self.region = 0..self.term.screen_lines() as i32;
        Handler::set_scrolling_region(&mut *self.term, 1, None);
        Handler::goto(&mut *self.term, 0, 0);
    }

    /// CHT (`CSI Pn I`): as HT, `count` times.
    fn move_forward_tabs(&mut self, count: u16) {
        let before = self.term.grid().cursor.point.column.0;
        Handler::move_forward_tabs(&mut *self.term, count);
        self.tab_stops_at_margin(before);
    }

    /// SGR, keeping DECSCA's protection in the cursor's template (SGR 0 does not end it).
    fn terminal_attribute(&mut self, attr: Attr) {
        let protect = self.term.grid().cursor.template.flags.contains(PROTECTED);
        Handler::terminal_attribute(&mut *self.term, attr);
        if protect {
            self.term.grid_mut().cursor.template.flags.insert(PROTECTED);
        }
    }

    /// DECRQM for an ANSI mode: IRM and LNM by alacritty; the modes ECMA-48 defines that a
    /// VT terminal keeps permanently reset (GATM 1, SRTM 5, VEM 7, HEM 10, PUM 11, FEAM 13,
    /// FETM 14, MATM 15, TTM 16, SATM 17, TSM 18, EBM 19) answer 4 ("permanently reset");
    /// any other 0 ("not recognised").
    fn report_mode(&mut self, mode: Mode) {
        let raw = mode.raw();
        if self.level() < 3 {
            // DECRQM is a VT320 function (xterm).
            return;
        }
        if let Some(state) = self.ansi_mode_state(raw) {
            self.reply(format!("\x1b[{raw};{}$y", state as u8));
        } else if matches!(raw, 1 | 5 | 7 | 10 | 11 | 13..=19) {
            let reply = format!("\x1b[{raw};4$y");
            self.listener.send_event(Event::PtyWrite(reply));
        } else {
            Handler::report_mode(&mut *self.term, mode)
        }
    }

    fn set_scrolling_region(&mut self, top: usize, bottom: Option<usize>) {
        // alacritty's rule (it keeps the region to itself).
        let lines = self.term.screen_lines();
        let end = bottom.unwrap_or(lines);
        if top < end {
            let lines = lines as i32;
            *self.region = (top as i32 - 1).min(lines)..(end as i32).min(lines);
        }
        Handler::set_scrolling_region(&mut *self.term, top, bottom)
    }

    /// SM (`CSI Pm h`): KAM and SRM kept here ([`super::modes`]), the rest by alacritty.
    fn set_mode(&mut self, mode: Mode) {
        if let Mode::Unknown(m @ (KAM | SRM)) = mode {
            self.dec.kept.set_ansi(m, true);
        }
        Handler::set_mode(&mut *self.term, mode)
    }

    /// RM (`CSI Pm l`): as [`Guarded::set_mode`].
    fn unset_mode(&mut self, mode: Mode) {
        if let Mode::Unknown(m @ (KAM | SRM)) = mode {
            self.dec.kept.set_ansi(m, false);
        }
        Handler::unset_mode(&mut *self.term, mode)
    }

    /// DECSET (`CSI ? Pm h`): the modes kept in our layer ([`super::modes`]), the alternate
    /// screens of modes 47 and 1047, DECLRMM (from level 4), the rest by alacritty.
    fn set_private_mode(&mut self, mode: PrivateMode) {
        if self.keep_private(mode.raw(), true) {
            return;
        }
        match mode {
            PrivateMode::Unknown(ALTBUF | ALTBUF_CLEARED) => return self.enter_alternate(),
            PrivateMode::Unknown(DECLRMM) if self.level() < 4 => {}
            PrivateMode::Unknown(DECLRMM) => self.dec.lrmm = true,
            PrivateMode::Unknown(DECNKM) => Handler::set_keypad_application_mode(&mut *self.term),
            PrivateMode::Unknown(REVERSE_WRAP | REVERSE_WRAP_EXTENDED) => {
                self.dec.reverse_wrap = true
            }
            PrivateMode::Unknown(SAVE_CURSOR) => {
                self.dec.saved_origin = self.term.mode().contains(TermMode::ORIGIN);
                Handler::save_cursor_position(&mut *self.term)
            }
            PrivateMode::Named(NamedPrivateMode::Origin) => {
                Handler::set_private_mode(&mut *self.term, mode);
                return self.home_in_margins();
            }
            _ => {}
        }
        if mode == PrivateMode::Unknown(cluster::MODE) {
            self.width.graphemes = true;
        }
        if mode == PrivateMode::Named(NamedPrivateMode::SwapScreenAndSetRestoreCursor)
            && self.primary()
        {
            // The alternate screen is allocated when it is entered (see [`set_alternate`]).
            let (cols, rows) = (self.term.columns(), self.term.screen_lines());
            set_alternate(self.term, cols, rows);
        }
        Handler::set_private_mode(&mut *self.term, mode)
    }

    /// DECRST (`CSI ? Pm l`): as [`Guarded::set_private_mode`].
    fn unset_private_mode(&mut self, mode: PrivateMode) {
        if self.keep_private(mode.raw(), false) {
            return;
        }
        match mode {
            PrivateMode::Unknown(ALTBUF) => return self.leave_alternate(true),
            PrivateMode::Unknown(ALTBUF_CLEARED) => return self.leave_alternate(false),
            PrivateMode::Unknown(DECLRMM) if self.level() < 4 => {}
            PrivateMode::Unknown(DECLRMM) => {
                self.dec.lrmm = false;
                self.dec.margins = None;
            }
            PrivateMode::Unknown(DECNKM) => Handler::unset_keypad_application_mode(&mut *self.term),
            PrivateMode::Unknown(SAVE_CURSOR) => self.restore_cursor_position(),
            PrivateMode::Unknown(REVERSE_WRAP | REVERSE_WRAP_EXTENDED) => {
                self.dec.reverse_wrap = false
            }
            _ => {}
        }
        if mode == PrivateMode::Unknown(cluster::MODE) {
            self.width.graphemes = false;
        }
        let alternate = !self.primary();
        Handler::unset_private_mode(&mut *self.term, mode);
        if alternate && self.primary() {
            set_alternate(self.term, 1, 1);
        }
    }

    /// DECRQM for a private mode, as [`Guarded::report_private`] answers it (2026 is
    /// answered where it is found in the stream, before a synchronized frame's bytes are held
    /// back: see `sniff`).
    fn report_private_mode(&mut self, mode: PrivateMode) {
        self.report_private(mode.raw());
    }

    /// CUP and HVP: in origin mode relative to the scroll region's top and the left margin,
    /// and kept inside them (alacritty keeps the rows; the columns are ours).
    fn goto(&mut self, line: i32, col: usize) {
        Handler::goto(&mut *self.term, line, col);
        self.origin_column(col);
    }

    /// VPA (`CSI Pn d`): the row, the column kept.
    fn goto_line(&mut self, line: i32) {
        let col = self.term.grid().cursor.point.column;
        Handler::goto(&mut *self.term, line, 0);
        self.term.grid_mut().cursor.point.column = col;
    }

    /// CHA and HPA: the column, in origin mode relative to the left margin.
    fn goto_col(&mut self, col: usize) {
        let line = self.term.grid().cursor.point.line;
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.input_needs_wrap = false;
        cursor.point.line = line;
        self.origin_column(col);
    }

    /// CUU (`CSI Pn A`): up `lines` rows, stopping at the scroll region's top when the cursor
    /// starts inside it (else at the screen's top). Origin mode does not move it further.
    fn move_up(&mut self, lines: usize) {
        let line = self.term.grid().cursor.point.line.0;
        let top = if line >= self.region.start {
            self.region.start
        } else {
            0
        };
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point.line = Line((line - lines.min(i32::MAX as usize) as i32).max(top));
        cursor.input_needs_wrap = false;
    }

    /// CUD and VPR (`CSI Pn B`, `CSI Pn e`): down `lines` rows, stopping at the scroll
    /// region's bottom when the cursor starts inside it (else at the screen's bottom).
    fn move_down(&mut self, lines: usize) {
        let line = self.term.grid().cursor.point.line.0;
        let bottom = if line < self.region.end {
            self.region.end - 1
        } else {
            self.term.screen_lines() as i32 - 1
        };
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point.line = Line(
            line.saturating_add(lines.min(i32::MAX as usize) as i32)
                .min(bottom),
        );
        cursor.input_needs_wrap = false;
    }

    /// CNL (`CSI Pn E`): CUD, then CR.
    fn move_down_and_cr(&mut self, lines: usize) {
        self.move_down(lines);
        self.carriage_return();
    }

    /// CPL (`CSI Pn F`): CUU, then CR.
    fn move_up_and_cr(&mut self, lines: usize) {
        self.move_up(lines);
        self.carriage_return();
    }

    /// CUF and HPR: right `cols` columns, stopping at the right margin when the cursor
    /// starts left of it (else at the screen's edge).
    fn move_forward(&mut self, cols: usize) {
        let last = self.term.columns() - 1;
        let col = self.term.grid().cursor.point.column.0.min(last);
        let stop = match &self.dec.margins {
            Some(m) if col < m.end => m.end - 1,
            _ => last,
        };
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point.column = Column(col.saturating_add(cols).min(stop));
        cursor.input_needs_wrap = false;
    }

    /// CUB (`CSI Pn D`): left `cols` columns, stopping at the left margin when the cursor
    /// starts right of it (else at the screen's edge); with reverse wraparound and autowrap,
    /// `cols` backspaces.
    fn move_backward(&mut self, cols: usize) {
        if self.reverse_wraps() {
            let most = self.term.columns() * self.term.screen_lines();
            for _ in 0..cols.min(most) {
                self.backspace();
            }
            return;
        }
        let last = self.term.columns() - 1;
        let col = self.term.grid().cursor.point.column.0.min(last);
        let stop = match &self.dec.margins {
            Some(m) if col >= m.start => m.start,
            _ => 0,
        };
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point.column = Column(col.saturating_sub(cols).max(stop));
        cursor.input_needs_wrap = false;
    }

    /// BS: one column left, not past the left margin (when the cursor is at it) nor the
    /// screen's edge. With reverse wraparound (modes 45, 1045) and autowrap, as xterm before
    /// patch 383 does it: a pending wrap is only cancelled, and at the left edge the cursor
    /// goes to the right margin of the row above (from the scroll region's top to its
    /// bottom, from the screen's top to its bottom).
    fn backspace(&mut self) {
        if !self.reverse_wraps() {
            return self.move_backward(1);
        }
        let (rows, cols) = (self.term.screen_lines() as i32, self.term.columns());
        let cursor = &self.term.grid().cursor;
        if cursor.input_needs_wrap {
            self.term.grid_mut().cursor.input_needs_wrap = false;
            return;
        }
        let (line, col) = (cursor.point.line.0, cursor.point.column.0.min(cols - 1));
        let (left, right) = match &self.dec.margins {
            Some(m) if col >= m.start => (m.start, m.end - 1),
            Some(m) => (0, m.end - 1),
            None => (0, cols - 1),
        };
        let cursor = &mut self.term.grid_mut().cursor;
        if col > left {
            cursor.point.column = Column(col - 1);
            return;
        }
        cursor.point.line = Line(if line == self.region.start {
            self.region.end - 1
        } else if line == 0 {
            rows - 1
        } else {
            line - 1
        });
        cursor.point.column = Column(right);
    }

    /// CR: to the left margin, or to the first column when the cursor is left of the left
    /// margin outside origin mode.
    fn carriage_return(&mut self) {
        let col = self.term.grid().cursor.point.column.0;
        let to = match &self.dec.margins {
            Some(m) if col >= m.start || self.term.mode().contains(TermMode::ORIGIN) => m.start,
            _ => 0,
        };
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point.column = Column(to);
        cursor.input_needs_wrap = false;
    }

    /// DSR: CPR (6) in origin mode relative to the origin (xterm, DEC STD 070); the rest by
    /// alacritty.
    fn device_status(&mut self, arg: usize) {
        if arg == 6 {
            let p = self.term.grid().cursor.point;
            let (dy, dx) = self.origin();
            let col = p.column.0.min(self.term.columns() - 1);
            let row = (p.line.0.max(0) as usize + 1).saturating_sub(dy).max(1);
            let reply = format!("\x1b[{row};{}R", (col + 1).saturating_sub(dx).max(1));
            self.listener.send_event(Event::PtyWrite(reply));
        } else {
            Handler::device_status(&mut *self.term, arg)
        }
    }

    /// SD (`CSI Pn T`): with left and right margins only the text between them moves.
    fn scroll_down(&mut self, lines: usize) {
        if let Some(m) = self.dec.margins.clone() {
            let rows = self.region.start.max(0) as usize..self.region.end.max(0) as usize;
            return self.scroll_rect(rows, m, lines, false);
        }
        Handler::scroll_down(&mut *self.term, lines)
    }

    /// IL (`CSI Pn L`): with left and right margins only the text between them moves.
    fn insert_blank_lines(&mut self, lines: usize) {
        if self.dec.margins.is_some() {
            return self.margin_lines(lines, true);
        }
        Handler::insert_blank_lines(&mut *self.term, lines)
    }

    /// RI (`ESC M`): with left and right margins only the text between them scrolls.
    fn reverse_index(&mut self) {
        if let Some(m) = self.dec.margins.clone() {
            return self.margin_reverse_feed(m);
        }
        Handler::reverse_index(&mut *self.term)
    }

    forward! {
        fn set_title(&mut self, title: Option<String>);
        fn set_cursor_style(&mut self, style: Option<CursorStyle>);
        fn set_cursor_shape(&mut self, shape: CursorShape);
        fn bell(&mut self);
        fn substitute(&mut self);
        fn set_horizontal_tabstop(&mut self);
        fn move_backward_tabs(&mut self, count: u16);
        fn clear_tabs(&mut self, mode: TabulationClearMode);
        fn set_tabs(&mut self, interval: u16);
        fn set_keypad_application_mode(&mut self);
        fn unset_keypad_application_mode(&mut self);
        fn set_active_charset(&mut self, index: CharsetIndex);
        fn configure_charset(&mut self, index: CharsetIndex, charset: StandardCharset);
        fn clipboard_store(&mut self, clipboard: u8, base64: &[u8]);
        fn clipboard_load(&mut self, clipboard: u8, terminator: &str);
        fn text_area_size_pixels(&mut self);
        fn text_area_size_chars(&mut self);
        fn set_hyperlink(&mut self, link: Option<Hyperlink>);
        fn report_keyboard_mode(&mut self);
        fn push_keyboard_mode(&mut self, mode: KeyboardModes);
        fn pop_keyboard_modes(&mut self, to_pop: u16);
        fn set_keyboard_mode(&mut self, mode: KeyboardModes, behavior: KeyboardModesApplyBehavior);
        fn set_modify_other_keys(&mut self, mode: ModifyOtherKeys);
        fn report_modify_other_keys(&mut self);
        fn set_scp(&mut self, char_path: ScpCharPath, update_mode: ScpUpdateMode);
    }
    // `set_mouse_cursor_icon` is left to the trait's default: alacritty ignores it too.
    // `set_color`, `dynamic_color_sequence` and `reset_color` too: the emulator answers the
    // colour controls itself, with X11's colour specs (see `super::colours`).
    // `push_title` and `pop_title` too: the emulator keeps the title stack (with the icon
    // label, which alacritty does not know), from the sequence's parameters.
}

/// Blanks the halves of double-width characters that ICH, DCH or ECH split on the cursor's
/// row: a wide character whose spacer cell was moved off or erased, and a spacer cell whose
/// character was. alacritty_terminal shifts and erases cells one by one, so the half of a pair
/// that the edit touched goes and the other half stays, which leaves the grid with a wide cell
/// that has no continuation cell (found by the fuzz tests). xterm erases the whole character
/// when an edit touches either half; so does this, keeping the cell's colours.
fn repair_wide_pairs<T: EventListener>(term: &mut Term<T>) {
    let line = term.grid().cursor.point.line;
    repair_row(term, line);
}

/// [`repair_wide_pairs`] on row `line`.
pub(super) fn repair_row<T>(term: &mut Term<T>, line: Line) {
    let cols = term.columns();
    let row = &mut term.grid_mut()[line];
    for c in 0..cols {
        let flags = row[Column(c)].flags;
        let broken = if flags.contains(Flags::WIDE_CHAR) {
            c + 1 >= cols || !row[Column(c + 1)].flags.contains(Flags::WIDE_CHAR_SPACER)
        } else if flags.contains(Flags::WIDE_CHAR_SPACER) {
            c == 0 || !row[Column(c - 1)].flags.contains(Flags::WIDE_CHAR)
        } else {
            false
        };
        if broken {
            let cell = &mut row[Column(c)];
            // A blank: no character, no combining marks, no wide flags; colours kept.
            cell.clear_wide();
            cell.flags.remove(Flags::WIDE_CHAR_SPACER);
        }
    }
}

/// The intermediate widths a resize from `from` to `to` columns goes through: halving while
/// the target is less than half the width (empty when it is not).
pub(super) fn shrink_steps(from: usize, to: usize) -> Vec<usize> {
    let mut steps = Vec::new();
    let mut width = from;
    while to < width / 2 {
        width /= 2;
        steps.push(width);
    }
    steps
}

/// Makes every double-width character of `grid` one cell wide (U+FFFD, its spacer a blank),
/// so that reflowing it to 1 column ends.
pub(super) fn narrow_grid(grid: &mut Grid<Cell>) {
    let cols = grid.columns();
    let top = -(grid.history_size() as i32);
    for line in top..grid.screen_lines() as i32 {
        let row = &mut grid[Line(line)];
        for col in 0..cols {
            let cell = &mut row[Column(col)];
            if cell.flags.contains(Flags::WIDE_CHAR) {
                cell.flags.remove(Flags::WIDE_CHAR);
                cell.c = WIDE_IN_ONE_COLUMN;
            } else if cell
                .flags
                .intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER)
            {
                cell.flags
                    .remove(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER);
                cell.c = ' ';
            }
        }
    }
}
