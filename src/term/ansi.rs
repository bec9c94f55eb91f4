//! A [`Screen`] painted back into a real terminal as escape sequences: what `termio attach`
//! shows. Colours and attributes are re-emitted as SGR (ECMA-48 §8.3.117; `38;5;n` and
//! `38;2;r;g;b` for xterm 256 and direct colours), rows are positioned with CUP, and the
//! cursor is placed and shown or hidden (DECTCEM) as the session has it.

use std::fmt::Write;

use super::screen::{Cell, Color, CursorShape, Screen, Underline};

/// The SGR parameter list that sets `cell`'s colours and attributes from a reset state.
fn sgr(cell: &Cell) -> String {
    let mut p = String::from("0");
    let flags = [
        (cell.bold, "1"),
        (cell.dim, "2"),
        (cell.italic, "3"),
        (cell.inverse, "7"),
        (cell.hidden, "8"),
        (cell.strikethrough, "9"),
    ];
    for (on, code) in flags {
        if on {
            p.push(';');
            p.push_str(code);
        }
    }
    match cell.underline {
        Underline::None => {}
        Underline::Single => p.push_str(";4"),
        Underline::Double => p.push_str(";4:2"),
        Underline::Curly => p.push_str(";4:3"),
        Underline::Dotted => p.push_str(";4:4"),
        Underline::Dashed => p.push_str(";4:5"),
    }
    color(&mut p, cell.fg, 30, 90, 38);
    color(&mut p, cell.bg, 40, 100, 48);
    p
}

fn color(p: &mut String, c: Color, base: u8, bright: u8, extended: u8) {
    match c {
        Color::Default => {}
        Color::Named(n) if n < 8 => {
            let _ = write!(p, ";{}", base + n);
        }
        Color::Named(n) if n < 16 => {
            let _ = write!(p, ";{}", bright + n - 8);
        }
        Color::Named(n) | Color::Indexed(n) => {
            let _ = write!(p, ";{extended};5;{n}");
        }
        Color::Rgb(rgb) => {
            let _ = write!(p, ";{extended};2;{};{};{}", rgb.r, rgb.g, rgb.b);
        }
    }
}

/// Paints the viewport of `screen` into a terminal region of `rows` × `cols` cells whose
/// top-left corner is at terminal row `top` (0-based), clearing what it covers. When the screen
/// is taller than the region, the rows shown are the top ones scrolled just enough to include
/// the cursor's row (where a shell's prompt or a program's input is); columns beyond `cols`
/// are cut. The cursor is left where the session's cursor is, if that is inside
/// the region, with its DECSCUSR shape; otherwise it is hidden.
pub fn paint(screen: &Screen, top: usize, rows: usize, cols: usize) -> Vec<u8> {
    let mut out = String::from("\x1b[?25l");
    let first = screen.scrollback_rows;
    let viewport = &screen.rows[first.min(screen.rows.len())..];
    let skip = (screen.cursor.row + 1)
        .saturating_sub(rows)
        .min(viewport.len().saturating_sub(rows));
    for r in 0..rows {
        paint_row(
            &mut out,
            top + r,
            viewport.get(skip + r).map_or(&[], Vec::as_slice),
            cols,
        );
    }
    let c = &screen.cursor;
    if c.visible && c.row >= skip && c.row - skip < rows && c.col < cols {
        let _ = write!(
            out,
            "\x1b[{} q\x1b[{};{}H\x1b[?25h",
            cursor_style(c.shape),
            top + c.row - skip + 1,
            c.col + 1
        );
    }
    out.into_bytes()
}

/// Appends to `out` the sequences that draw `row` at terminal row `at` (0-based) from its
/// first column, at most `cols` columns of it (a wide character that would cross is left out),
/// and clear the rest of that line (EL 0, default background); trailing blank cells are left
/// to the clear.
pub fn paint_row(out: &mut String, at: usize, row: &[Cell], cols: usize) {
    let _ = write!(out, "\x1b[{};1H\x1b[0m", at + 1);
    let row = &row[..row.iter().rposition(|c| !c.is_blank()).map_or(0, |i| i + 1)];
    let mut last = String::new();
    let mut col = 0;
    for cell in row {
        if cell.width == 0 {
            continue;
        }
        let w = cell.width as usize;
        if col + w > cols {
            break;
        }
        let s = sgr(cell);
        if s != last {
            let _ = write!(out, "\x1b[{s}m");
            last = s;
        }
        out.push_str(if cell.text.is_empty() {
            " "
        } else {
            &cell.text
        });
        col += w;
    }
    if !row.is_empty() {
        out.push_str("\x1b[0m");
    }
    out.push_str("\x1b[K");
}

/// The DECSCUSR parameter (`CSI Ps SP q`) of a steady cursor of `shape`.
pub fn cursor_style(shape: CursorShape) -> u8 {
    match shape {
        CursorShape::Block | CursorShape::HollowBlock => 2,
        CursorShape::Underline => 4,
        CursorShape::Bar => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Emulator;

    fn screen(input: &str, cols: usize, rows: usize) -> Screen {
        let mut e = Emulator::new(cols, rows);
        e.advance(input.as_bytes());
        e.snapshot()
    }

    /// Painting a screen into a fresh emulator of the region's size reproduces its text and
    /// styles cell for cell.
    #[test]
    fn painting_round_trips_through_an_emulator() {
        let original = screen(
            "plain \x1b[1;31mbold red\x1b[0m \x1b[38;5;200;48;2;1;2;3mx\x1b[0m\r\n\x1b[4;3mu\x1b[0m 漢字",
            20,
            3,
        );
        let painted = screen(
            std::str::from_utf8(&paint(&original, 0, 3, 20)).unwrap(),
            20,
            3,
        );
        for r in 0..3 {
            assert_eq!(painted.row_text(r), original.row_text(r), "row {r}");
            for (a, b) in painted.rows[r].iter().zip(&original.rows[r]) {
                assert_eq!(
                    (a.fg, a.bg, a.bold, a.italic, a.underline, a.width),
                    (b.fg, b.bg, b.bold, b.italic, b.underline, b.width),
                    "row {r} cell {:?}",
                    b.text
                );
            }
        }
        assert_eq!(
            (painted.cursor.row, painted.cursor.col),
            (original.cursor.row, original.cursor.col)
        );
    }

    /// A screen taller than the region shows the rows up to the cursor's, below the region's
    /// top; with the cursor near the top, the top rows.
    #[test]
    fn a_short_region_scrolls_to_the_cursor_row() {
        let original = screen("one\r\ntwo", 10, 5);
        let painted = screen(
            std::str::from_utf8(&paint(&original, 0, 3, 10)).unwrap(),
            10,
            3,
        );
        assert_eq!(painted.row_text(0), "one");
        assert_eq!(painted.row_text(1), "two");
        assert_eq!((painted.cursor.row, painted.cursor.col), (1, 3));
    }

    /// A screen taller than the region with the cursor on its last row shows its bottom rows.
    #[test]
    fn a_short_region_shows_the_bottom_rows() {
        let original = screen("one\r\ntwo\r\nthree", 10, 3);
        let painted = screen(
            std::str::from_utf8(&paint(&original, 1, 2, 10)).unwrap(),
            10,
            3,
        );
        assert_eq!(painted.row_text(0), "");
        assert_eq!(painted.row_text(1), "two");
        assert_eq!(painted.row_text(2), "three");
        assert_eq!((painted.cursor.row, painted.cursor.col), (2, 5));
    }
}
