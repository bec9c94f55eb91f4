//! An idle screen, kept compactly: the grid of the screen being shown, frozen into text and
//! style runs while the program writes nothing, and thawed back cell for cell on the next
//! change.
//!
//! Why: alacritty's grid holds every cell as 24 bytes whatever it shows (57.6 KB at 100 × 24),
//! and a host keeps hundreds of sessions whose screens change rarely. Frozen, a screen costs its
//! text plus one style per run of equally styled cells (a typical row of text: one or two runs),
//! about 2–4 KB at 100 × 24.
//!
//! The round trip is exact: every cell of the thawed grid equals the frozen one (character,
//! colours, flags, and the shared extra of zero-width characters, underline colour and
//! hyperlink), and so do the cursor and the saved cursor. Cells after a row's last non-blank
//! cell are `Cell::default()` on both sides.

use alacritty_terminal::grid::{Cursor, Dimensions, Grid};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::Cell;

/// How many of the latest styles a new run looks for its own among.
const RECENT_STYLES: usize = 32;

/// A run of cells of one style: `cells` cells, each the grid's style `style` with its own
/// character.
#[derive(Debug, Clone, Copy)]
struct Run {
    cells: u32,
    /// The index of the cells' colours, flags and extra in [`FrozenGrid::styles`].
    style: u32,
}

/// A grid frozen by [`FrozenGrid::freeze`].
#[derive(Debug, Clone)]
pub(super) struct FrozenGrid {
    cols: usize,
    lines: usize,
    /// Every stored cell's character, row after row.
    text: String,
    runs: Vec<Run>,
    /// The styles the runs use, each once (a cell whose character is unused).
    styles: Vec<Cell>,
    /// Per row: the end of its characters in `text` (bytes) and of its runs in `runs`.
    row_ends: Vec<(u32, u32)>,
    cursor: Cursor<Cell>,
    saved_cursor: Cursor<Cell>,
}

/// Whether two cells look alike but for their characters.
fn same_style(a: &Cell, b: &Cell) -> bool {
    a.fg == b.fg && a.bg == b.bg && a.flags == b.flags && a.extra == b.extra
}

impl FrozenGrid {
    /// Freezes `grid`'s viewport (its history must be empty: the emulator keeps its scrollback
    /// itself), its cursor and its saved cursor.
    pub(super) fn freeze(grid: &Grid<Cell>) -> FrozenGrid {
        debug_assert_eq!(grid.history_size(), 0);
        let (cols, lines) = (grid.columns(), grid.screen_lines());
        let blank = Cell::default();
        let mut text = String::new();
        let mut runs: Vec<Run> = Vec::new();
        let mut styles: Vec<Cell> = Vec::new();
        let mut row_ends = Vec::with_capacity(lines);
        for line in 0..lines {
            let row = &grid[Line(line as i32)];
            let len = (0..cols)
                .rev()
                .find(|&c| row[Column(c)] != blank)
                .map_or(0, |c| c + 1);
            let first_run = runs.len();
            for c in 0..len {
                let cell = &row[Column(c)];
                text.push(cell.c);
                let in_row = runs.len() > first_run;
                match runs.last_mut() {
                    Some(run) if in_row && same_style(&styles[run.style as usize], cell) => {
                        run.cells += 1
                    }
                    _ => {
                        // Few styles on a screen: the last ones are looked through (a screen
                        // of thousands of colours keeps some twice rather than search them all).
                        let recent = styles.len().saturating_sub(RECENT_STYLES);
                        let found = styles[recent..].iter().rposition(|s| same_style(s, cell));
                        let style = match found {
                            Some(i) => recent + i,
                            None => {
                                styles.push(cell.clone());
                                styles.len() - 1
                            }
                        };
                        runs.push(Run {
                            cells: 1,
                            style: style as u32,
                        })
                    }
                }
            }
            row_ends.push((text.len() as u32, runs.len() as u32));
        }
        text.shrink_to_fit();
        runs.shrink_to_fit();
        styles.shrink_to_fit();
        FrozenGrid {
            cols,
            lines,
            text,
            runs,
            styles,
            row_ends,
            cursor: grid.cursor.clone(),
            saved_cursor: grid.saved_cursor.clone(),
        }
    }

    /// The grid as it was frozen.
    pub(super) fn thaw(&self) -> Grid<Cell> {
        let mut grid = Grid::new(self.lines, self.cols, 0);
        for line in 0..self.lines {
            let row = &mut grid[Line(line as i32)];
            self.each_cell(line, |col, cell| row[Column(col)] = cell);
        }
        grid.cursor = self.cursor.clone();
        grid.saved_cursor = self.saved_cursor.clone();
        grid
    }

    /// Viewport row `line`'s cells, as frozen (`cols` of them).
    pub(super) fn row(&self, line: usize) -> Vec<Cell> {
        let mut cells = vec![Cell::default(); self.cols];
        self.each_cell(line, |col, cell| cells[col] = cell);
        cells
    }

    /// Calls `f` with the column and cell of each stored cell of row `line` (the cells after
    /// them are blank).
    fn each_cell(&self, line: usize, mut f: impl FnMut(usize, Cell)) {
        let (text_from, run_from) = match line {
            0 => (0, 0),
            _ => self.row_ends[line - 1],
        };
        let (text_end, run_end) = self.row_ends[line];
        let mut chars = self.text[text_from as usize..text_end as usize].chars();
        let mut col = 0;
        for run in &self.runs[run_from as usize..run_end as usize] {
            let style = &self.styles[run.style as usize];
            for _ in 0..run.cells {
                let mut cell = style.clone();
                cell.c = chars.next().unwrap_or(' ');
                f(col, cell);
                col += 1;
            }
        }
    }

    /// Columns of the frozen grid.
    pub(super) fn cols(&self) -> usize {
        self.cols
    }

    /// Viewport rows of the frozen grid.
    pub(super) fn lines(&self) -> usize {
        self.lines
    }

    /// The frozen grid's cursor.
    pub(super) fn cursor(&self) -> &Cursor<Cell> {
        &self.cursor
    }

    /// Heap bytes the frozen grid holds (its text, runs and row table; shared extras aside).
    #[cfg(test)]
    fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.runs.capacity() * std::mem::size_of::<Run>()
            + self.styles.capacity() * std::mem::size_of::<Cell>()
            + self.row_ends.capacity() * std::mem::size_of::<(u32, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Emulator;

    /// Every cell, the cursor and the saved cursor of `a` and `b` are equal.
    fn assert_same(a: &Grid<Cell>, b: &Grid<Cell>) {
        assert_eq!(
            (a.columns(), a.screen_lines()),
            (b.columns(), b.screen_lines())
        );
        for line in 0..a.screen_lines() as i32 {
            for col in 0..a.columns() {
                assert_eq!(
                    a[Line(line)][Column(col)],
                    b[Line(line)][Column(col)],
                    "cell {line},{col}"
                );
            }
        }
        assert_eq!(a.cursor.point, b.cursor.point);
        assert_eq!(a.cursor.template, b.cursor.template);
        assert_eq!(a.cursor.charsets, b.cursor.charsets);
        assert_eq!(a.cursor.input_needs_wrap, b.cursor.input_needs_wrap);
        assert_eq!(a.saved_cursor.point, b.saved_cursor.point);
        assert_eq!(a.saved_cursor.template, b.saved_cursor.template);
    }

    #[test]
    fn a_screen_of_every_kind_of_cell_thaws_as_it_was() {
        let mut e = Emulator::new(20, 6);
        e.advance(
            "plain \x1b[1;31mred\x1b[0m \x1b[48;5;22mbg\x1b[0m 中文 e\u{301} \
             \x1b]8;;https://x\x07link\x1b]8;;\x07 \x1b[4:3;58:2::1:2:3mcurl\x1b[0m\r\n\
             \x1b[44m\x1b[K\x1b[0m\x1b[3;5H\x1b7\x1b[38;2;1;2;3m\x1b(0qq\x1b[6;20Hz"
                .as_bytes(),
        );
        let grid = e.term_grid().clone();
        let frozen = FrozenGrid::freeze(&grid);
        assert_same(&grid, &frozen.thaw());
        assert!(frozen.heap_bytes() < 1024, "{} bytes", frozen.heap_bytes());
    }

    #[test]
    fn a_blank_screen_holds_almost_nothing() {
        let e = Emulator::new(100, 24);
        let frozen = FrozenGrid::freeze(e.term_grid());
        assert_same(e.term_grid(), &frozen.thaw());
        assert!(
            frozen.heap_bytes() <= 24 * 8,
            "{} bytes",
            frozen.heap_bytes()
        );
    }
}
