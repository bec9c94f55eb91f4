//! Where everything goes: canvas size, window box, terminal rect, text grid origin, cell size.
//! Facts: shared/spec/themes.md §2 ("How a frame is placed") and §3 (font, size and metrics).

use super::chrome::Frame;
use super::fonts::Metrics;

/// Cell metrics in px for a font size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellMetrics {
    /// Cell width: the advance of `0` (0.6 em for JetBrains Mono: 8.4 px at 14 px).
    pub width: f32,
    /// Cell height: ascender + descender + line gap, times the line height, rounded to whole
    /// px (18 px at 14 px and line height 1).
    pub height: f32,
    /// Baseline below the row top: the ascender, rounded to whole px (14 px at 14 px), plus
    /// half the height the line height adds (the glyphs stay centred in taller rows).
    pub baseline: f32,
    /// The font size in px.
    pub font_size: f32,
}

impl CellMetrics {
    /// Metrics for `font_size` px from the bundled face's em metrics, rows `line_height` times
    /// the font's natural height (`--line-height`, 1–2; 1 is the font's own).
    pub fn new(m: &Metrics, font_size: f32, line_height: f32) -> CellMetrics {
        let natural = ((m.ascender + m.descender + m.line_gap) * font_size)
            .round()
            .max(1.0);
        let height = ((m.ascender + m.descender + m.line_gap) * font_size * line_height)
            .round()
            .max(natural);
        CellMetrics {
            width: m.advance * font_size,
            height,
            baseline: (m.ascender * font_size).round() + ((height - natural) / 2.0).floor(),
            font_size,
        }
    }
}

/// Everything's position, px, in canvas coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    pub canvas_width: f32,
    pub canvas_height: f32,
    /// The window's outer box (the frame's box; for `none` the margin box).
    pub window: Rect,
    /// The terminal background rect (inside insets and margin).
    pub terminal: Rect,
    /// Top-left of the grid's row 0 (the header row, when there is one).
    pub grid_x: f32,
    pub grid_y: f32,
    pub cell: CellMetrics,
    /// Rows drawn including the header row.
    pub rows: usize,
    pub cols: usize,
}

/// A rectangle in px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

/// Spacing options, px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spacing {
    /// Between the terminal rect's edge and the text grid.
    pub padding: f32,
    /// Between the frame's insets and the terminal rect (outside the rect for `none`).
    pub margin: f32,
    /// Desktop padding of `-pc` frames.
    pub pc_padding: f32,
}

impl Layout {
    /// Lays out `cols` × `rows` cells (`rows` includes a header row) in `frame`.
    pub fn new(
        frame: &Frame,
        spacing: Spacing,
        cell: CellMetrics,
        cols: usize,
        rows: usize,
    ) -> Layout {
        let ins = frame.insets;
        let term_w = cols as f32 * cell.width + 2.0 * spacing.padding;
        let term_h = rows as f32 * cell.height + 2.0 * spacing.padding;
        let win_w = ins.left + ins.right + 2.0 * spacing.margin + term_w;
        let win_h = ins.top + ins.bottom + 2.0 * spacing.margin + term_h;
        let (off, extra) = if frame.pc {
            (spacing.pc_padding, frame.shadow_offset)
        } else {
            (0.0, 0.0)
        };
        let terminal = Rect {
            x: off + ins.left + spacing.margin,
            y: off + ins.top + spacing.margin,
            w: term_w,
            h: term_h,
        };
        Layout {
            canvas_width: win_w + 2.0 * off + extra,
            canvas_height: win_h + 2.0 * off + extra,
            window: Rect {
                x: off,
                y: off,
                w: win_w,
                h: win_h,
            },
            terminal,
            grid_x: terminal.x + spacing.padding,
            grid_y: terminal.y + spacing.padding,
            cell,
            rows,
            cols,
        }
    }

    /// Left x of column `col`.
    pub fn col_x(&self, col: usize) -> f32 {
        self.grid_x + col as f32 * self.cell.width
    }

    /// Top y of drawn row `row` (0 = the header row when there is one).
    pub fn row_y(&self, row: usize) -> f32 {
        self.grid_y + row as f32 * self.cell.height
    }
}
