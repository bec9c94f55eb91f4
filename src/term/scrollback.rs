//! The emulator's scrollback, kept compactly: the rows that scroll off the top of the primary
//! screen become logical lines of text and style runs, laid out again at the terminal's width
//! whenever they are read.
//!
//! Why: alacritty_terminal keeps its scrollback as rows of 24-byte cells, every row as wide as
//! the terminal (a 100-column row is 2.4 KB whatever it holds), and it allocates that history
//! 1 000 rows at a time (2.4 MB at 100 columns) the moment one row scrolls off. A log line
//! here costs its text plus a few bytes per style change (about 0.1–0.2 KB for a typical
//! line), and nothing is allocated before a row scrolls off.
//!
//! The layout rule is alacritty's: rows are filled greedily, a double-width character that
//! does not fit the last column moves to the next row and leaves a spacer cell, and a row that
//! continues on the next one is marked `WRAPLINE`. Laid out at the width the rows were written
//! at, the rows are the ones alacritty kept (same characters, styles and wrap flags); at another
//! width, lines are re-wrapped as alacritty's reflow would. Damaged double-width pairs (half of
//! one erased) are normalised when a row is stored, keeping every row as wide as the screen: a
//! character whose spacer was erased keeps both of its cells, a spacer whose character was
//! erased is a blank, and a spacer takes its character's style.
//! In a 1-column layout a double-width character is U+FFFD ([`super::WIDE_IN_ONE_COLUMN`])
//! followed by a blank, as on the screen; the character itself is kept for wider layouts.
//!
//! A cluster whose cells the grapheme policy decided ([`super::cluster`]: a VS16 emoji, a ZWJ
//! sequence, a flag, each two cells where its code points alone say otherwise) is stored as a
//! run of its own ([`GRAPHEME_WIDE`], [`GRAPHEME_NARROW`]) that knows its length: read back,
//! it is the same characters in the cells it had on the screen.

use std::collections::VecDeque;

use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor};
use unicode_width::UnicodeWidthChar;

use super::guard::WIDE_IN_ONE_COLUMN;

/// Flags that are layout, not style: the layout recomputes them.
const LAYOUT_FLAGS: Flags = Flags::WRAPLINE
    .union(Flags::WIDE_CHAR)
    .union(Flags::WIDE_CHAR_SPACER)
    .union(Flags::LEADING_WIDE_CHAR_SPACER);

/// In a run's style (where layout flags are otherwise never kept): the run is one cluster of
/// the grapheme policy, two cells wide, its length in bytes the style's character.
const GRAPHEME_WIDE: Flags = Flags::WIDE_CHAR;

/// In a run's style: the run is one cluster of the grapheme policy, one cell wide, its length
/// in bytes the style's character.
const GRAPHEME_NARROW: Flags = Flags::WIDE_CHAR_SPACER;

/// The two kinds of grapheme runs.
const GRAPHEME: Flags = GRAPHEME_WIDE.union(GRAPHEME_NARROW);

/// A run of clusters with one style.
#[derive(Debug, Clone)]
struct Run {
    /// Clusters in the run.
    clusters: u32,
    /// The style: a blank cell with the run's colours, flags, underline colour and hyperlink.
    /// `LEADING_WIDE_CHAR_SPACER` marks a run of spacer markers (see [`Line`]).
    style: Cell,
}

/// One logical line: the clusters of one or more rows joined at their wrap points.
///
/// `text` holds each cluster's characters in order (the cell's character, then its zero-width
/// characters); a cluster is one cell, or two for a double-width character (its spacer cell is
/// implied). A cluster in a run whose style has `LEADING_WIDE_CHAR_SPACER` is a spacer marker
/// (a space in `text`): the styled cell a double-width character left at the end of a row when
/// it moved to the next one; laid out, it shows only where that happens again.
#[derive(Debug, Clone, Default)]
struct Line {
    text: String,
    runs: Vec<Run>,
    /// The first cluster still kept: rows dropped from the front of the line (the oldest rows
    /// beyond the limit) are skipped, and compacted away once they are most of it.
    head: Pos,
    /// Rows at the scrollback's current width (cached).
    rows: usize,
}

/// A cluster's position in a [`Line`]: its run, its index in the run, its byte in the text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Pos {
    run: usize,
    in_run: u32,
    byte: usize,
}

/// One cluster of a line, as the layout sees it.
struct Cluster<'a> {
    chars: &'a str,
    /// Cells: 1 or 2.
    width: usize,
    style: &'a Cell,
    marker: bool,
}

/// The width of a cluster whose base character is `c`: 2 for a double-width character.
fn cluster_width(c: char) -> usize {
    if c.width() == Some(2) {
        2
    } else {
        1
    }
}

/// The clusters of a line from a position on, each with the position after it.
struct Clusters<'a> {
    line: &'a Line,
    pos: Pos,
}

impl<'a> Iterator for Clusters<'a> {
    type Item = (Cluster<'a>, Pos);

    fn next(&mut self) -> Option<Self::Item> {
        let line = self.line;
        let mut run = line.runs.get(self.pos.run)?;
        while self.pos.in_run >= run.clusters {
            self.pos.run += 1;
            self.pos.in_run = 0;
            run = line.runs.get(self.pos.run)?;
        }
        let rest = &line.text[self.pos.byte..];
        let bytes = rest.as_bytes();
        let grapheme = run.style.flags & GRAPHEME;
        let (end, width) = if !grapheme.is_empty() {
            let width = if grapheme == GRAPHEME_WIDE { 2 } else { 1 };
            ((run.style.c as usize).clamp(1, rest.len()), width)
        } else if bytes.first()?.is_ascii() && bytes.get(1).is_none_or(u8::is_ascii) {
            // The common case: one ASCII character (never zero-width) after another.
            (1, 1)
        } else {
            let mut chars = rest.char_indices();
            let (_, base) = chars.next()?;
            let end = chars
                .find(|(_, c)| c.is_ascii() || c.width() != Some(0))
                .map_or(rest.len(), |(i, _)| i);
            (end, cluster_width(base))
        };
        self.pos.byte += end;
        self.pos.in_run += 1;
        let cluster = Cluster {
            chars: &rest[..end],
            width,
            style: &run.style,
            marker: run.style.flags.contains(Flags::LEADING_WIDE_CHAR_SPACER),
        };
        Some((cluster, self.pos))
    }
}

impl Line {
    /// The line's clusters, in order.
    fn clusters(&self) -> Clusters<'_> {
        Clusters {
            line: self,
            pos: self.head,
        }
    }

    /// Appends the clusters of `row` (runs merging at the seam).
    fn append(&mut self, row: &RowBuf) {
        self.text.push_str(row.text());
        let mut runs = row.runs.iter();
        if let (Some(last), Some(first)) = (self.runs.last_mut(), row.runs.first()) {
            if same_style(&last.style, &first.style) {
                last.clusters += first.clusters;
                runs.next();
            }
        }
        self.runs.extend(runs.cloned());
    }

    /// Where the line's layout at `cols` columns ends.
    fn fill(&self, cols: usize) -> Fill {
        let mut fill = Fill::default();
        for (cluster, _) in self.clusters() {
            if cluster.marker {
                fill.place_marker(cols);
            } else {
                fill.place(cluster.width, cols);
            }
        }
        fill
    }

    /// Drops the clusters of the first `rows` rows at `cols` columns (a double-width character
    /// straddling the last of them in a 1-column layout goes too); returns the rows dropped.
    fn drop_rows(&mut self, rows: usize, cols: usize) -> usize {
        let mut fill = Fill::default();
        let mut head = None;
        let mut at = self.head;
        for (cluster, after) in self.clusters() {
            if cluster.marker {
                fill.place_marker(cols);
            } else {
                let before = fill.rows;
                let placed = fill.place(cluster.width, cols);
                let start = if placed == Placed::InRow {
                    before.max(1)
                } else {
                    before + 1
                };
                if start > rows {
                    head = Some((at, start - 1));
                    break;
                }
            }
            at = after;
        }
        let dropped = match head {
            Some((pos, dropped)) => {
                self.head = pos;
                dropped
            }
            None => {
                // Nothing starts after them: the line is left empty (one empty row).
                self.head = at;
                self.rows.saturating_sub(1)
            }
        };
        self.rows -= dropped;
        self.compact();
        dropped
    }

    /// Removes the dropped clusters once they are most of the text.
    fn compact(&mut self) {
        if self.head.byte < 4096 || self.head.byte * 2 < self.text.len() {
            return;
        }
        let head = std::mem::take(&mut self.head);
        self.text.drain(..head.byte);
        self.runs.drain(..head.run);
        if let Some(first) = self.runs.first_mut() {
            first.clusters -= head.in_run;
        }
    }
}

/// The clusters of one row being stored (reused from row to row).
#[derive(Debug, Clone, Default)]
struct RowBuf {
    /// The clusters' characters, UTF-8 (bytes, so that ASCII text is copied without encoding).
    text: Vec<u8>,
    runs: Vec<Run>,
}

impl RowBuf {
    fn clear(&mut self) {
        self.text.clear();
        self.runs.clear();
    }

    /// Appends the cluster `c` + `zerowidth` in the style of `cell` (its layout flags aside,
    /// `marker` added).
    #[inline]
    fn push(&mut self, c: char, zerowidth: &[char], cell: &Cell, marker: Flags) {
        self.push_char(c);
        for &z in zerowidth {
            self.push_char(z);
        }
        match self.runs.last_mut() {
            // The common case, decided without building a style: plain colours and flags.
            Some(run)
                if run.style.extra.is_none()
                    && cell.extra.is_none()
                    && run.style.fg == cell.fg
                    && run.style.bg == cell.bg
                    && run.style.flags == (cell.flags - LAYOUT_FLAGS) | marker =>
            {
                run.clusters += 1
            }
            _ => self.push_run(cell, marker),
        }
    }

    /// Appends `c`'s UTF-8 bytes to the text.
    #[inline]
    fn push_char(&mut self, c: char) {
        self.text
            .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }

    /// The text, UTF-8 by construction.
    fn text(&self) -> &str {
        std::str::from_utf8(&self.text).expect("characters encoded as UTF-8")
    }

    /// Appends `cells`, ASCII characters in one plain style (see [`is_plain`]), one cluster
    /// each.
    #[inline]
    fn push_plain(&mut self, cells: &[Cell]) {
        let Some(first) = cells.first() else {
            return;
        };
        // ASCII (see [`is_plain`]): one byte a character.
        self.text.extend(cells.iter().map(|c| c.c as u8));
        let count = cells.len() as u32;
        match self.runs.last_mut() {
            Some(run) if has_style(&run.style, first, Flags::empty()) => run.clusters += count,
            _ => self.runs.push(Run {
                clusters: count,
                // `style_of`, for a cell without extras.
                style: Cell {
                    c: ' ',
                    fg: first.fg,
                    bg: first.bg,
                    flags: first.flags - LAYOUT_FLAGS,
                    extra: None,
                },
            }),
        }
    }

    /// Appends the cluster `c` + `zerowidth` of the grapheme policy as a run of its own of
    /// `kind` ([`GRAPHEME_WIDE`] or [`GRAPHEME_NARROW`]) in the style of `cell`.
    #[cold]
    fn push_grapheme(&mut self, c: char, zerowidth: &[char], cell: &Cell, kind: Flags) {
        let start = self.text.len();
        self.push_char(c);
        for &z in zerowidth {
            self.push_char(z);
        }
        let mut style = style_of(cell);
        style.flags.insert(kind);
        // Lengths up to 55 295 bytes are characters below the surrogates; a longer cluster
        // (a pile of combining marks) is cut there.
        let len = (self.text.len() - start).min(0xd7ff);
        self.text.truncate(start + len);
        while std::str::from_utf8(&self.text[start..]).is_err() {
            self.text.pop();
        }
        style.c = char::from_u32((self.text.len() - start) as u32).unwrap_or(' ');
        self.runs.push(Run { clusters: 1, style });
    }

    #[cold]
    fn push_run(&mut self, cell: &Cell, marker: Flags) {
        match self.runs.last_mut() {
            Some(run) if has_style(&run.style, cell, marker) => run.clusters += 1,
            _ => {
                let mut style = style_of(cell);
                style.flags.insert(marker);
                self.runs.push(Run { clusters: 1, style });
            }
        }
    }
}

/// A cell that is one ASCII character (not NUL) in one cell, with no underline colour,
/// hyperlink or zero-width characters, and not a spacer.
#[inline]
fn is_plain(cell: &Cell) -> bool {
    cell.c.is_ascii()
        && cell.c != '\0'
        && cell.extra.is_none()
        && !cell
            .flags
            .intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER)
}

/// Whether `b` is a plain cell (see [`is_plain`]) in the style of the plain cell `a`, its
/// flags included (cells whose flags differ in layout flags only go to separate stretches,
/// which [`RowBuf::push_plain`] merges).
#[inline]
fn same_plain(a: &Cell, b: &Cell) -> bool {
    // `a` is plain and has the same flags: `b` is no spacer either.
    a.flags == b.flags
        && a.fg == b.fg
        && a.bg == b.bg
        && b.extra.is_none()
        && (1..0x80).contains(&(b.c as u32))
}

/// Whether `cell` (its layout flags aside, `marker` added) has the style `style`.
#[inline]
fn has_style(style: &Cell, cell: &Cell, marker: Flags) -> bool {
    style.fg == cell.fg
        && style.bg == cell.bg
        && style.flags == (cell.flags - LAYOUT_FLAGS) | marker
        && (style.extra.is_none() && cell.extra.is_none()
            || style.underline_color() == cell.underline_color()
                && style.hyperlink() == cell.hyperlink())
}

/// Where a layout stands: rows started, and the column reached in the last one.
#[derive(Debug, Clone, Copy, Default)]
struct Fill {
    rows: usize,
    col: usize,
}

/// How [`Fill::place`] placed a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placed {
    /// In the current row.
    InRow,
    /// At the start of a new row; the row before continues on it.
    NextRow,
    /// At the start of a new row, leaving a spacer cell in the last column of the row before
    /// (a double-width character that did not fit there).
    NextRowAfterSpacer,
}

impl Fill {
    /// Places a cluster `width` cells wide at `cols` columns (alacritty's rule: greedy). In one
    /// column a double-width character takes two rows: U+FFFD, then a blank (see
    /// [`super::guard`]); what is returned is where the first went.
    fn place(&mut self, width: usize, cols: usize) -> Placed {
        if cols == 1 && width == 2 {
            let placed = self.place(1, 1);
            self.place(1, 1);
            return placed;
        }
        let mut placed = Placed::InRow;
        if self.rows == 0 {
            self.rows = 1;
        } else if self.col + width > cols {
            placed = if width == 2 && self.col + 1 == cols {
                Placed::NextRowAfterSpacer
            } else {
                Placed::NextRow
            };
            self.rows += 1;
            self.col = 0;
        }
        self.col += width;
        placed
    }

    /// Places `n` clusters one cell wide: [`Fill::place`]`(1, cols)` `n` times.
    fn place_ones(&mut self, n: usize, cols: usize) {
        if n == 0 {
            return;
        }
        if self.rows == 0 {
            self.rows = 1;
        }
        let end = self.col + n;
        if end <= cols {
            self.col = end;
        } else {
            // The cells beyond the row fill whole rows, the last one up to `col`.
            let over = end - cols;
            let more = over.div_ceil(cols);
            self.rows += more;
            self.col = over - (more - 1) * cols;
        }
    }

    /// Places a spacer marker: it takes the last column of a row (which then ends), and
    /// nothing anywhere else (the line was re-wrapped at another width). Returns whether it
    /// took a cell.
    fn place_marker(&mut self, cols: usize) -> bool {
        let takes = self.rows > 0 && self.col + 1 == cols;
        if takes {
            self.col += 1;
        }
        takes
    }

    /// Rows of the line laid out so far (an empty line is one empty row).
    fn total(&self) -> usize {
        self.rows.max(1)
    }
}

/// Whether two style cells are the same style (a grapheme run is a style of its own).
fn same_style(a: &Cell, b: &Cell) -> bool {
    !(a.flags | b.flags).intersects(GRAPHEME)
        && a.fg == b.fg
        && a.bg == b.bg
        && a.flags == b.flags
        && (a.extra.is_none() && b.extra.is_none()
            || a.underline_color() == b.underline_color() && a.hyperlink() == b.hyperlink())
}

/// The style of `cell`: a blank cell with its colours, flags (layout flags removed),
/// underline colour and hyperlink.
fn style_of(cell: &Cell) -> Cell {
    let mut style = Cell {
        c: ' ',
        fg: cell.fg,
        bg: cell.bg,
        flags: cell.flags - LAYOUT_FLAGS,
        extra: None,
    };
    if cell.extra.is_some() {
        style.set_underline_color(cell.underline_color());
        style.set_hyperlink(cell.hyperlink());
    }
    style
}

/// The kind of run a cell's cluster goes to when the grapheme policy decided its cells:
/// [`GRAPHEME_WIDE`] for a double-width cell (its spacer following: `spacer`) whose base
/// character alone is not double-width or that joined characters of their own width,
/// [`GRAPHEME_NARROW`] for a one-cell cluster whose base character is double-width (VS15).
/// `None` for every other cell (the ordinary rule reads it back the same).
fn grapheme_kind(cell: &Cell, spacer: bool) -> Option<Flags> {
    let flagged = cell.flags.contains(Flags::WIDE_CHAR);
    let base = cell.c.width().unwrap_or(1);
    let joined = cell
        .zerowidth()
        .is_some_and(|z| z.iter().any(|c| c.width() != Some(0)));
    match (flagged, spacer, base) {
        (true, true, 2) if !joined => None,
        (true, true, _) => Some(GRAPHEME_WIDE),
        // A double-width cell with no room for its second cell (the ordinary rule makes it
        // U+FFFD).
        (true, false, _) => None,
        (false, _, 0 | 1) if !joined => None,
        (false, _, _) => Some(GRAPHEME_NARROW),
    }
}

/// A cell with nothing in it: a space in the default style. (A character erased as half of
/// a damaged double-width pair keeps an empty extra: nothing is in it either.)
fn is_blank(cell: &Cell) -> bool {
    cell.c == ' '
        && cell.flags.is_empty()
        && (cell.extra.is_none()
            || cell.zerowidth().is_none_or(<[char]>::is_empty)
                && cell.underline_color().is_none()
                && cell.hyperlink().is_none())
        && cell.fg == Color::Named(NamedColor::Foreground)
        && cell.bg == Color::Named(NamedColor::Background)
}

/// The compact scrollback: logical lines, oldest first, at most `limit` rows at the current
/// width (the oldest rows go first, as in alacritty).
#[derive(Debug, Clone)]
pub(super) struct Scrollback {
    lines: VecDeque<Line>,
    /// The last line continues on the next row stored (its last row was wrapped).
    open: bool,
    /// Most rows kept.
    limit: usize,
    /// The width the rows are laid out at.
    cols: usize,
    /// Rows of all lines at `cols` (cached).
    rows: usize,
    /// Where the last line's layout ends at `cols` (rows keep being appended to an open line).
    tail: Fill,
    /// The buffer rows are gathered in before they are stored.
    scratch: RowBuf,
    /// Rows at the front of the first line already beyond the limit: counted as gone, and
    /// dropped from the line only when it is laid out anew (so a flood trims in O(1) a row).
    skip: usize,
}

impl Scrollback {
    /// An empty scrollback of at most `limit` rows at `cols` columns.
    pub(super) fn new(limit: usize, cols: usize) -> Scrollback {
        Scrollback {
            lines: VecDeque::new(),
            open: false,
            limit,
            cols: cols.max(1),
            rows: 0,
            tail: Fill::default(),
            scratch: RowBuf::default(),
            skip: 0,
        }
    }

    /// Rows at the current width.
    pub(super) fn rows(&self) -> usize {
        self.rows - self.skip
    }

    /// Most rows kept.
    pub(super) fn limit(&self) -> usize {
        self.limit
    }

    /// Keeps at most `limit` rows from now on (dropping the oldest now if there are more).
    pub(super) fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
        self.trim();
    }

    /// Forgets every row (`CSI 3 J`, a reset).
    pub(super) fn clear(&mut self) {
        self.lines = VecDeque::new();
        self.open = false;
        self.rows = 0;
        self.skip = 0;
        self.tail = Fill::default();
    }

    /// Drops the rows [`Scrollback::skip`] counts as gone from the first line.
    fn settle(&mut self) {
        let skip = std::mem::take(&mut self.skip);
        if skip == 0 {
            return;
        }
        let last = self.lines.len() == 1;
        let cols = self.cols;
        let Some(front) = self.lines.front_mut() else {
            return;
        };
        let dropped = front.drop_rows(skip, cols);
        self.rows -= dropped;
        if last {
            self.refresh_tail();
        }
    }

    /// Lays the lines out at `cols` columns from now on (a width change), keeping at most the
    /// limit.
    pub(super) fn set_width(&mut self, cols: usize) {
        self.settle();
        self.cols = cols.max(1);
        let cols = self.cols;
        for line in self.lines.iter_mut() {
            line.rows = line.fill(cols).total();
        }
        self.rows = self.lines.iter().map(|l| l.rows).sum();
        self.refresh_tail();
        self.trim();
    }

    /// Stores a row that scrolled off the top of the screen, `cells` as wide as the terminal.
    /// `wrapped`: the row continues on the next row (its last cell's `WRAPLINE`, or the wrap
    /// that is scrolling it off).
    pub(super) fn push_row(&mut self, cells: &[Cell], wrapped: bool) {
        if self.limit == 0 {
            return;
        }
        let cols = self.cols;
        let (mut fill, before) = if self.open {
            (self.tail, self.tail.total())
        } else {
            (Fill::default(), 0)
        };
        // The row's clusters are gathered here, then stored in one allocation of the right size.
        let mut row = std::mem::take(&mut self.scratch);
        row.clear();
        let blank = Cell::default();
        let n = cells.len();
        // Blank cells after the content are left out, unless the row continues on the next.
        let end = if wrapped {
            n
        } else {
            cells
                .iter()
                .rposition(|c| !is_blank(c))
                .map_or(0, |i| i + 1)
        };
        let cells = &cells[..end];
        row.text.reserve(end);
        let special = Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER;
        let mut i = 0;
        while i < end {
            let cell = &cells[i];
            if is_plain(cell) {
                // The common case: a stretch of ASCII characters, one cell each, in one plain
                // style (no underline colour, hyperlink or zero-width characters): compared
                // field by field, its text pushed in one go.
                let start = i;
                i += 1;
                while i < end && same_plain(cell, &cells[i]) {
                    i += 1;
                }
                row.push_plain(&cells[start..i]);
                fill.place_ones(i - start, cols);
                continue;
            }
            i += 1;
            let flags = cell.flags;
            if cell.c.is_ascii() && cell.c != '\0' && !flags.intersects(special | Flags::WIDE_CHAR)
            {
                // One ASCII character, one cell, in a style with extras (a keycap, `1️⃣`, is
                // an ASCII character made two cells wide by the grapheme policy).
                row.push(
                    cell.c,
                    cell.zerowidth().unwrap_or(&[]),
                    cell,
                    Flags::empty(),
                );
                fill.place(1, cols);
                continue;
            }
            // A spacer left by a double-width character that moved to the next row: only at
            // the row's end (elsewhere, moved there by an edit, it is a blank).
            if flags.contains(Flags::LEADING_WIDE_CHAR_SPACER) && i == n {
                row.push(' ', &[], cell, Flags::LEADING_WIDE_CHAR_SPACER);
                fill.place_marker(cols);
                continue;
            }
            // A spacer without its character (erased) is a blank in its style; NUL a space.
            let mut c = if flags.intersects(special) || cell.c == '\0' {
                ' '
            } else {
                cell.c
            };
            if let Some(kind) = grapheme_kind(cell, i < n) {
                // A cluster the grapheme policy made: its own kind of run, its width kept.
                if kind == GRAPHEME_WIDE {
                    i += 1;
                }
                row.push_grapheme(c, cell.zerowidth().unwrap_or(&[]), cell, kind);
                fill.place(if kind == GRAPHEME_WIDE { 2 } else { 1 }, cols);
                continue;
            }
            let mut width = 1;
            if !c.is_ascii() {
                match c.width() {
                    Some(2) if flags.contains(Flags::WIDE_CHAR) && i < n => {
                        // Its second cell is its spacer (or, when the pair was damaged,
                        // whatever is there: the character keeps both of its cells).
                        width = 2;
                        i += 1;
                    }
                    // A double-width character in one cell cannot be laid out again: U+FFFD.
                    Some(2) => c = WIDE_IN_ONE_COLUMN,
                    // Zero-width characters only ever follow a cluster's base character.
                    Some(0) => c = ' ',
                    _ => {}
                }
            }
            row.push(c, cell.zerowidth().unwrap_or(&[]), cell, Flags::empty());
            fill.place(width, cols);
        }
        if !wrapped && self.open && fill.total() == before {
            // An empty row ending a wrapped line is still a row: one blank keeps it.
            row.push(' ', &[], &blank, Flags::empty());
            fill.place(1, cols);
        }
        if self.open {
            let line = self.lines.back_mut().expect("an open line");
            line.append(&row);
            if !wrapped {
                line.text.shrink_to_fit();
                line.runs.shrink_to_fit();
            }
        } else {
            self.lines.push_back(Line {
                text: row.text().into(),
                runs: row.runs.clone(),
                ..Line::default()
            });
        }
        self.scratch = row;
        let line = self.lines.back_mut().expect("the line just stored");
        line.rows = fill.total();
        self.open = wrapped;
        self.tail = fill;
        self.rows += fill.total() - before;
        self.trim();
    }

    /// Turns the spacer marker ending the newest row, if there is one, into a plain blank in
    /// its style (alacritty clears that flag when the character it stood for is overwritten).
    pub(super) fn unmark_last(&mut self) {
        if !self.open {
            return;
        }
        let Some(line) = self.lines.back_mut() else {
            return;
        };
        let Some(run) = line.runs.last_mut() else {
            return;
        };
        if !run.style.flags.contains(Flags::LEADING_WIDE_CHAR_SPACER) {
            return;
        }
        let mut style = run.style.clone();
        style.flags.remove(Flags::LEADING_WIDE_CHAR_SPACER);
        if run.clusters == 1 {
            run.style = style;
        } else {
            run.clusters -= 1;
            line.runs.push(Run { clusters: 1, style });
        }
    }

    /// Takes the newest `n` rows (fewer if there are not as many), oldest first, as cells at
    /// the current width: rows going back onto a screen that grew taller.
    pub(super) fn pop_rows(&mut self, n: usize) -> Vec<Vec<Cell>> {
        self.settle();
        let mut out = Vec::new();
        while out.len() < n {
            let Some(line) = self.lines.pop_back() else {
                break;
            };
            let open = std::mem::take(&mut self.open);
            let mut rows = self.lay_out(&line, open);
            self.rows -= rows.len();
            let want = n - out.len();
            if rows.len() > want {
                // The rest of the line stays, as an open line (it continues on the screen).
                let taken = rows.split_off(rows.len() - want);
                self.refresh_tail();
                for row in &rows {
                    self.push_row(row, true);
                }
                rows = taken;
            }
            out.extend(rows.into_iter().rev());
        }
        self.refresh_tail();
        out.reverse();
        out
    }

    /// Takes the newest whole lines, oldest first, as cells at the current width: the rows
    /// that take part in a reflow with the screen to `new_cols` columns. Enough lines to make
    /// `min_rows` rows at `new_cols` besides the line running onto the screen, when there are as
    /// many (what alacritty may pull down onto a screen whose lines got shorter), but no more
    /// than `max_rows` rows at the current width (a longer line is split).
    pub(super) fn pop_lines(
        &mut self,
        min_rows: usize,
        new_cols: usize,
        max_rows: usize,
    ) -> Vec<Vec<Cell>> {
        self.settle();
        let (mut n, mut reflowed) = (0, 0);
        let last = self.lines.len().saturating_sub(1);
        for (i, line) in self.lines.iter().enumerate().rev() {
            if reflowed >= min_rows {
                break;
            }
            let rows = line.fill(self.cols).total();
            if n + rows > max_rows {
                if n == 0 {
                    n = max_rows;
                }
                break;
            }
            n += rows;
            if !(self.open && i == last) {
                reflowed += line.fill(new_cols.max(1)).total();
            }
        }
        self.pop_rows(n)
    }

    /// Every row, oldest first, as cells at the current width.
    pub(super) fn for_each_row(&self, mut f: impl FnMut(&[Cell])) {
        let last = self.lines.len().saturating_sub(1);
        for (i, line) in self.lines.iter().enumerate() {
            let skip = if i == 0 { self.skip } else { 0 };
            for row in self.lay_out(line, self.open && i == last).iter().skip(skip) {
                f(row);
            }
        }
    }

    /// Recomputes where the last line's layout ends.
    fn refresh_tail(&mut self) {
        self.tail = self
            .lines
            .back()
            .map_or(Fill::default(), |l| l.fill(self.cols));
    }

    /// `line` laid out at the current width as rows of cells (`open`: its last row is marked
    /// wrapped, as it continues on the screen).
    fn lay_out(&self, line: &Line, open: bool) -> Vec<Vec<Cell>> {
        let cols = self.cols;
        let default = Cell::default();
        let mut rows: Vec<Vec<Cell>> = vec![Vec::with_capacity(cols)];
        let mut fill = Fill::default();
        for (cluster, _) in line.clusters() {
            if cluster.marker {
                if fill.place_marker(cols) {
                    rows.last_mut().expect("a row").push(cluster.style.clone());
                }
                continue;
            }
            let placed = fill.place(cluster.width, cols);
            if placed != Placed::InRow {
                let row = rows.last_mut().expect("a row");
                if placed == Placed::NextRowAfterSpacer {
                    let mut spacer = default.clone();
                    spacer.flags.insert(Flags::LEADING_WIDE_CHAR_SPACER);
                    row.push(spacer);
                }
                finish_row(row, cols, true);
                rows.push(Vec::with_capacity(cols));
            }
            let row = rows.last_mut().expect("a row");
            let mut chars = cluster.chars.chars();
            let mut style = cluster.style.clone();
            style.flags.remove(GRAPHEME);
            style.c = ' ';
            let mut cell = style.clone();
            cell.c = chars.next().unwrap_or(' ');
            for zw in chars {
                cell.push_zerowidth(zw);
            }
            if cluster.width == 2 && cols > 1 {
                cell.flags.insert(Flags::WIDE_CHAR);
                let mut spacer = style;
                spacer.flags.insert(Flags::WIDE_CHAR_SPACER);
                row.push(cell);
                row.push(spacer);
            } else if cluster.width == 2 {
                // One column: U+FFFD, and its spacer as a blank on the next row.
                cell.c = WIDE_IN_ONE_COLUMN;
                row.push(cell);
                finish_row(row, cols, true);
                rows.push(vec![style]);
            } else {
                row.push(cell);
            }
        }
        let last = rows.last_mut().expect("a row");
        finish_row(last, cols, open);
        rows
    }

    /// Drops the oldest rows beyond the limit (the oldest line's first rows when only part of
    /// it must go). Costs the rows dropped, not the lines kept.
    fn trim(&mut self) {
        while self.rows - self.skip > self.limit {
            let excess = self.rows - self.skip - self.limit;
            let Some(front) = self.lines.front() else {
                (self.rows, self.skip) = (0, 0);
                break;
            };
            if front.rows - self.skip <= excess {
                self.rows -= front.rows;
                self.skip = 0;
                self.lines.pop_front();
                if self.lines.is_empty() {
                    self.open = false;
                    self.tail = Fill::default();
                }
            } else {
                self.skip += excess;
            }
        }
        if self.skip >= self.limit.max(64) {
            // One endless line (output without line breaks): its dropped rows go for good once
            // they are as many as the rows kept, so the line costs at most twice the limit.
            self.settle();
        }
    }
}

/// Pads a laid-out row to `cols` cells and marks it wrapped.
fn finish_row(row: &mut Vec<Cell>, cols: usize, wrapped: bool) {
    row.resize_with(cols, Cell::default);
    if wrapped {
        if let Some(last) = row.last_mut() {
            last.flags.insert(Flags::WRAPLINE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alacritty_terminal::vte::ansi::Color;

    /// A row of `cols` cells holding `text` (one cell a character, double-width characters
    /// taking two), in the default style unless `fg` is given.
    fn row(text: &str, cols: usize, fg: Option<NamedColor>) -> Vec<Cell> {
        let mut cells = Vec::new();
        for c in text.chars() {
            let mut cell = Cell {
                c,
                ..Cell::default()
            };
            if let Some(fg) = fg {
                cell.fg = Color::Named(fg);
            }
            if c.width() == Some(2) {
                cell.flags.insert(Flags::WIDE_CHAR);
                let mut spacer = cell.clone();
                spacer.c = ' ';
                spacer.flags = Flags::WIDE_CHAR_SPACER;
                cells.push(cell);
                cells.push(spacer);
            } else {
                cells.push(cell);
            }
        }
        cells.resize_with(cols, Cell::default);
        cells
    }

    /// The rows as text, trailing blanks trimmed, `\` ending a wrapped row.
    fn texts(s: &Scrollback) -> Vec<String> {
        let mut out = Vec::new();
        s.for_each_row(|cells| {
            let mut t: String = cells
                .iter()
                .filter(|c| !c.flags.contains(Flags::WIDE_CHAR_SPACER))
                .map(|c| c.c)
                .collect();
            t.truncate(t.trim_end().len());
            if cells
                .last()
                .is_some_and(|c| c.flags.contains(Flags::WRAPLINE))
            {
                t.push('\\');
            }
            out.push(t);
        });
        out
    }

    fn push_text(s: &mut Scrollback, text: &str, wrapped: bool) {
        let mut cells = row(text, s.cols, None);
        if wrapped {
            cells.last_mut().unwrap().flags.insert(Flags::WRAPLINE);
        }
        s.push_row(&cells, wrapped);
    }

    #[test]
    fn placing_one_cell_clusters_at_once_is_placing_them_one_by_one() {
        for cols in 1..8 {
            for start in 0..(2 * cols + 2) {
                for n in 0..(3 * cols + 2) {
                    let mut fill = Fill::default();
                    for _ in 0..start {
                        fill.place(1, cols);
                    }
                    let mut marked = fill;
                    marked.place_marker(cols);
                    for mut from in [fill, marked] {
                        let mut one_by_one = from;
                        for _ in 0..n {
                            one_by_one.place(1, cols);
                        }
                        from.place_ones(n, cols);
                        assert_eq!(
                            (from.rows, from.col),
                            (one_by_one.rows, one_by_one.col),
                            "cols {cols} start {start} n {n}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn keeps_at_most_the_limit_oldest_rows_going_first() {
        let mut s = Scrollback::new(3, 10);
        for i in 0..5 {
            push_text(&mut s, &format!("line {i}"), false);
        }
        assert_eq!(s.rows(), 3);
        assert_eq!(texts(&s), ["line 2", "line 3", "line 4"]);
        s.set_limit(1);
        assert_eq!(texts(&s), ["line 4"]);
    }

    #[test]
    fn a_limit_of_zero_keeps_nothing() {
        let mut s = Scrollback::new(0, 10);
        push_text(&mut s, "gone", false);
        assert_eq!(s.rows(), 0);
        assert!(s.lines.is_empty());
    }

    #[test]
    fn wrapped_rows_are_one_line_re_wrapped_at_a_new_width() {
        let mut s = Scrollback::new(100, 4);
        push_text(&mut s, "abcd", true);
        push_text(&mut s, "efgh", true);
        push_text(&mut s, "ij", false);
        push_text(&mut s, "next", false);
        assert_eq!(s.lines.len(), 2);
        assert_eq!(texts(&s), ["abcd\\", "efgh\\", "ij", "next"]);
        s.set_width(6);
        assert_eq!(texts(&s), ["abcdef\\", "ghij", "next"]);
        s.set_width(20);
        assert_eq!(texts(&s), ["abcdefghij", "next"]);
        s.set_width(3);
        assert_eq!(texts(&s), ["abc\\", "def\\", "ghi\\", "j", "nex\\", "t"]);
        assert_eq!(s.rows(), 6);
    }

    #[test]
    fn a_double_width_character_that_does_not_fit_moves_to_the_next_row() {
        let mut s = Scrollback::new(100, 6);
        push_text(&mut s, "ab中中", false);
        assert_eq!(texts(&s), ["ab中中"]);
        s.set_width(3);
        // "ab" leaves the last column to a spacer; each 中 takes a row of its own after.
        assert_eq!(texts(&s), ["ab\\", "中\\", "中"]);
        s.set_width(1);
        assert_eq!(
            s.rows(),
            6,
            "U+FFFD and a blank for each double-width character"
        );
        assert!(texts(&s).iter().any(|t| t.starts_with(WIDE_IN_ONE_COLUMN)));
        s.set_width(6);
        assert_eq!(texts(&s), ["ab中中"], "the characters themselves are kept");
    }

    #[test]
    fn styles_are_kept_as_runs() {
        let mut s = Scrollback::new(100, 10);
        let mut cells = row("red", 10, Some(NamedColor::Red));
        cells[3..].clone_from_slice(&row("plain", 7, None));
        s.push_row(&cells, false);
        let line = &s.lines[0];
        assert_eq!(line.text, "redplain");
        assert_eq!(line.runs.len(), 2);
        let mut laid = Vec::new();
        s.for_each_row(|cells| laid.push(cells.to_vec()));
        assert_eq!(laid[0][0].fg, Color::Named(NamedColor::Red));
        assert_eq!(laid[0][3].fg, Color::Named(NamedColor::Foreground));
        assert_eq!(laid[0].len(), 10);
    }

    #[test]
    fn pop_rows_takes_the_newest_and_leaves_the_rest_of_a_line_open() {
        let mut s = Scrollback::new(100, 2);
        push_text(&mut s, "ab", true);
        push_text(&mut s, "cd", true);
        push_text(&mut s, "ef", true);
        let back = s.pop_rows(1);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0][0].c, 'e');
        assert!(back[0][1].flags.contains(Flags::WRAPLINE));
        assert_eq!(texts(&s), ["ab\\", "cd\\"]);
        assert!(s.open);
        assert_eq!(s.pop_rows(5).len(), 2);
        assert_eq!(s.rows(), 0);
    }

    #[test]
    fn clear_forgets_everything() {
        let mut s = Scrollback::new(100, 4);
        push_text(&mut s, "abcd", true);
        s.clear();
        assert_eq!(s.rows(), 0);
        assert!(texts(&s).is_empty());
        push_text(&mut s, "new", false);
        assert_eq!(texts(&s), ["new"]);
    }

    /// A flood of log lines costs about its text, not a row of cells a row (alacritty's 24
    /// bytes a cell: 480 KB for these 100 rows at 200 columns).
    #[test]
    fn rows_cost_their_text() {
        let mut s = Scrollback::new(100, 200);
        for i in 0..1000 {
            push_text(&mut s, &format!("log line number {i}"), false);
        }
        assert_eq!(s.rows(), 100);
        let bytes: usize = s
            .lines
            .iter()
            .map(|l| l.text.capacity() + l.runs.capacity() * std::mem::size_of::<Run>())
            .sum();
        assert!(bytes < 100 * 100, "{bytes} bytes for 100 short rows");
    }

    /// Trimming a flood that is one endless wrapped line drops its oldest rows without laying
    /// the line out again for every row.
    #[test]
    fn one_endless_line_is_trimmed_row_by_row() {
        let mut s = Scrollback::new(10, 4);
        for _ in 0..10_000 {
            push_text(&mut s, "abcd", true);
        }
        assert_eq!(s.rows(), 10);
        assert_eq!(texts(&s).len(), 10);
        assert!(
            s.lines[0].text.len() < 10_000,
            "dropped rows are compacted away"
        );
    }
}
