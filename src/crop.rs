//! Cropping a screen to the part that matters (`--crop-top`, `--crop-bottom`, `--crop-left`,
//! `--crop-right`, config `capture.crop`).
//!
//! Syntax (shared/spec/console2svg-contract.md, "Crop syntax"):
//! - `<n>px` pixels, `<n>ch` cells (rows for top/bottom, columns for left/right), a bare number
//!   is px; a negative number is 0.
//! - Top and bottom also take a text pattern: `TEXT` (the first row holding TEXT) or `TEXT:N`,
//!   where the **last** `:` separates an integer row offset (`"Options::-2"` is the pattern
//!   `Options:` offset −2). A `text:` prefix forces a pattern (`text:10px`).
//!
//! Semantics: crops work on whole cells, so the grid stays exact and the window frame is drawn
//! around the cropped area. Pixel values are rounded to the nearest whole cell (cell width for
//! columns, cell height for rows). A pattern's row, moved by its offset, is the edge row and is
//! kept: `--crop-top 'TEXT:1'` keeps from the row after TEXT's row, `--crop-bottom 'TEXT:-2'`
//! keeps up to two rows above it. The bottom pattern is searched from the first row the top crop
//! keeps. Rows are matched one by one on their text (wide-character continuation cells
//! contribute nothing).

use std::ops::Range;

use crate::term::{Cell, Screen};

/// One length: pixels or cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Length {
    /// px, ≥ 0; rounded to whole cells when applied.
    Px(f32),
    /// Cells (rows or columns).
    Cells(usize),
}

/// A top or bottom edge.
#[derive(Debug, Clone, PartialEq)]
pub enum Edge {
    /// Remove this much from the edge.
    Length(Length),
    /// The first row holding `pattern`, moved by `offset` rows, is the edge row (kept).
    Text { pattern: String, offset: i64 },
}

/// The four edges of a crop; `None` leaves that side alone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Crop {
    /// `--crop-top`.
    pub top: Option<Edge>,
    /// `--crop-bottom`.
    pub bottom: Option<Edge>,
    /// `--crop-left`.
    pub left: Option<Length>,
    /// `--crop-right`.
    pub right: Option<Length>,
}

/// The part of a screen a crop keeps: row and column ranges, in cells of the screen given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Rows kept (indices into the screen's rows).
    pub rows: Range<usize>,
    /// Columns kept.
    pub cols: Range<usize>,
}

/// Parses a length: `Npx`, `Nch` or a bare number (px); negative values are 0.
/// `None` when `s` is not a number with one of these units; `Some(Err)` for a number with an
/// unknown unit (`10em`).
fn parse_length(s: &str) -> Option<Result<Length, String>> {
    let t = s.trim();
    let split = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().ok().filter(|v: &f64| v.is_finite())?;
    let value = value.max(0.0);
    match unit {
        "" | "px" => Some(Ok(Length::Px(value as f32))),
        "ch" => {
            if value.fract() != 0.0 {
                Some(Err(format!(
                    "'{s}': a length in ch must be a whole number of cells"
                )))
            } else {
                Some(Ok(Length::Cells(value as usize)))
            }
        }
        u if u.chars().all(|c| c.is_ascii_alphabetic()) => Some(Err(format!(
            "'{s}': unknown crop unit '{u}' (px or ch; prefix text: to crop at a text)"
        ))),
        _ => None,
    }
}

/// Parses a `--crop-top`/`--crop-bottom` value (see the module docs).
///
/// Errors: an empty value or pattern, a number with an unknown unit.
pub fn parse_edge(s: &str) -> Result<Edge, String> {
    let text = match s.strip_prefix("text:") {
        Some(rest) => rest,
        None => {
            if let Some(length) = parse_length(s) {
                return length.map(Edge::Length);
            }
            s
        }
    };
    let (pattern, offset) = match text.rsplit_once(':') {
        Some((p, n)) if !p.is_empty() && n.trim().parse::<i64>().is_ok() => {
            (p, n.trim().parse::<i64>().unwrap_or(0))
        }
        _ => (text, 0),
    };
    if pattern.is_empty() {
        return Err(format!("'{s}': the text pattern is empty"));
    }
    Ok(Edge::Text {
        pattern: pattern.to_string(),
        offset,
    })
}

/// Parses a `--crop-left`/`--crop-right` value: `Npx`, `Nch` or a bare number (px).
///
/// Errors: anything else.
pub fn parse_side(s: &str) -> Result<Length, String> {
    parse_length(s).unwrap_or_else(|| {
        Err(format!(
            "'{s}' is not a length (Npx, Nch or a number of px)"
        ))
    })
}

impl Crop {
    /// True when no edge is set.
    pub fn is_none(&self) -> bool {
        *self == Crop::default()
    }

    /// The window this crop keeps of `rows` (a range of `screen`'s rows: the part that would
    /// be drawn), with cells `cell_w` × `cell_h` px for pixel lengths.
    ///
    /// Errors (one line, naming the option): a pattern no row holds, an offset that moves the
    /// edge off the rows, a crop that leaves no row or no column.
    pub fn window(
        &self,
        screen: &Screen,
        rows: Range<usize>,
        cell_w: f32,
        cell_h: f32,
    ) -> Result<Window, String> {
        let cells = |l: Length, size: f32| match l {
            Length::Cells(n) => n,
            Length::Px(px) => (px / size).round() as usize,
        };
        let find = |name: &str, pattern: &str, offset: i64, from: usize| -> Result<usize, String> {
            let at = (from..rows.end)
                .find(|&r| screen.row_text(r).contains(pattern))
                .ok_or_else(|| format!("{name}: no row holds the text '{pattern}'"))?;
            let moved = at as i64 + offset;
            if moved < rows.start as i64 || moved >= rows.end as i64 {
                return Err(format!(
                    "{name}: '{pattern}' is on row {} and the offset {offset} moves the edge off the screen (rows 1–{})",
                    at - rows.start + 1,
                    rows.len()
                ));
            }
            Ok(moved as usize)
        };
        let first = match &self.top {
            None => rows.start,
            Some(Edge::Length(l)) => rows.start + cells(*l, cell_h),
            Some(Edge::Text { pattern, offset }) => find("crop-top", pattern, *offset, rows.start)?,
        };
        let end = match &self.bottom {
            None => rows.end,
            Some(Edge::Length(l)) => rows.end.saturating_sub(cells(*l, cell_h)),
            Some(Edge::Text { pattern, offset }) => {
                find("crop-bottom", pattern, *offset, first.min(rows.end))? + 1
            }
        };
        if first >= end {
            return Err(format!(
                "the crop leaves no rows (top keeps from row {}, bottom keeps up to row {} of {})",
                first.saturating_sub(rows.start) + 1,
                end.saturating_sub(rows.start),
                rows.len()
            ));
        }
        let left = self.left.map_or(0, |l| cells(l, cell_w));
        let right = screen
            .width
            .saturating_sub(self.right.map_or(0, |l| cells(l, cell_w)));
        if left >= right {
            return Err(format!(
                "the crop leaves no columns (left {left}, right {} of {})",
                screen.width - right,
                screen.width
            ));
        }
        Ok(Window {
            rows: first..end,
            cols: left..right,
        })
    }
}

impl Window {
    /// `screen` cut to this window. A wide character cut in half at either side becomes a
    /// blank cell; a cursor outside the window is hidden.
    pub fn apply(&self, screen: Screen) -> Screen {
        let mut s = screen.into_rows(self.rows.start, self.rows.end);
        if self.cols == (0..s.width) {
            return s;
        }
        let (first, end) = (self.cols.start, self.cols.end.min(s.width));
        for row in &mut s.rows {
            row.truncate(end);
            row.drain(..first);
            if row.first().is_some_and(|c| c.width == 0) {
                row[0] = Cell {
                    text: " ".into(),
                    width: 1,
                    ..row[0].clone()
                };
            }
            if let Some(last) = row.last_mut() {
                if last.width == 2 {
                    last.text = " ".into();
                    last.width = 1;
                }
            }
        }
        if s.cursor.col < first || s.cursor.col >= end {
            s.cursor.visible = false;
            s.cursor.col = 0;
        } else {
            s.cursor.col -= first;
        }
        s.width = end - first;
        // Cut rows no longer continue one another.
        s.wrapped.clear();
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Emulator;

    fn screen(cols: usize, rows: usize, text: &str) -> Screen {
        let mut e = Emulator::new(cols, rows);
        e.advance(text.replace('\n', "\r\n").as_bytes());
        e.snapshot()
    }

    fn text(s: &str) -> Edge {
        parse_edge(s).unwrap()
    }

    #[test]
    fn lengths_and_units() {
        assert_eq!(parse_edge("10px"), Ok(Edge::Length(Length::Px(10.0))));
        assert_eq!(parse_edge("3ch"), Ok(Edge::Length(Length::Cells(3))));
        assert_eq!(parse_edge("12"), Ok(Edge::Length(Length::Px(12.0))));
        assert_eq!(parse_edge("-5px"), Ok(Edge::Length(Length::Px(0.0))));
        assert_eq!(parse_side("2ch"), Ok(Length::Cells(2)));
        assert_eq!(parse_side("8.4"), Ok(Length::Px(8.4)));
        assert!(parse_edge("10em")
            .unwrap_err()
            .contains("unknown crop unit 'em'"));
        assert!(parse_side("10em")
            .unwrap_err()
            .contains("unknown crop unit"));
        assert!(parse_side("Host").unwrap_err().contains("is not a length"));
        assert!(parse_edge("1.5ch").unwrap_err().contains("whole number"));
    }

    #[test]
    fn text_patterns_split_at_the_last_colon() {
        let t = |p: &str, o: i64| Edge::Text {
            pattern: p.into(),
            offset: o,
        };
        assert_eq!(text("Host"), t("Host", 0));
        assert_eq!(text("Host:1"), t("Host", 1));
        assert_eq!(
            text(".NET runtimes installed:-2"),
            t(".NET runtimes installed", -2)
        );
        assert_eq!(text("Options::-2"), t("Options:", -2));
        assert_eq!(text("a:b"), t("a:b", 0));
        assert_eq!(text("Options:"), t("Options:", 0));
        assert_eq!(text("text:10px"), t("10px", 0));
        assert_eq!(text("text:42:3"), t("42", 3));
        assert!(parse_edge("text:").is_err());
        // Nothing before the last colon: the whole value is the pattern.
        assert_eq!(text(":3"), t(":3", 0));
    }

    #[test]
    fn text_edges_keep_the_edge_row() {
        let s = screen(20, 6, "zero\none\nHost\nthree\nfour\nfive");
        let crop = Crop {
            top: Some(text("Host:1")),
            bottom: Some(text("five:-1")),
            ..Crop::default()
        };
        let w = crop.window(&s, 0..6, 8.4, 18.0).unwrap();
        assert_eq!(w.rows, 3..5);
        let out = w.apply(s.clone());
        assert_eq!(out.text(), "three\nfour");
        let w = Crop {
            top: Some(text("Host")),
            ..Crop::default()
        }
        .window(&s, 0..6, 8.4, 18.0)
        .unwrap();
        assert_eq!(w.rows, 2..6);
    }

    #[test]
    fn pixel_and_cell_lengths() {
        let s = screen(20, 6, "a\nb\nc\nd\ne\nf");
        let crop = Crop {
            top: Some(Edge::Length(Length::Px(36.0))),
            bottom: Some(Edge::Length(Length::Cells(1))),
            left: Some(Length::Cells(0)),
            right: Some(Length::Px(8.4 * 10.0)),
        };
        let w = crop.window(&s, 0..6, 8.4, 18.0).unwrap();
        assert_eq!(
            w,
            Window {
                rows: 2..5,
                cols: 0..10
            }
        );
        let out = w.apply(s);
        assert_eq!(out.width, 10);
        assert!(out.rows.iter().all(|r| r.len() == 10));
        assert_eq!(out.text(), "c\nd\ne");
    }

    #[test]
    fn bad_crops_are_errors() {
        let s = screen(20, 4, "a\nb\nc\nd");
        let at = |c: Crop| c.window(&s, 0..4, 8.4, 18.0).unwrap_err();
        let e = at(Crop {
            top: Some(text("nowhere")),
            ..Crop::default()
        });
        assert_eq!(e, "crop-top: no row holds the text 'nowhere'");
        let e = at(Crop {
            top: Some(text("b:-5")),
            ..Crop::default()
        });
        assert!(e.contains("moves the edge off the screen"), "{e}");
        let e = at(Crop {
            top: Some(text("c")),
            bottom: Some(text("a")),
            ..Crop::default()
        });
        assert!(e.contains("no row holds"), "{e}");
        let e = at(Crop {
            top: Some(Edge::Length(Length::Cells(9))),
            ..Crop::default()
        });
        assert!(e.contains("leaves no rows"), "{e}");
        let e = at(Crop {
            left: Some(Length::Cells(15)),
            right: Some(Length::Cells(5)),
            ..Crop::default()
        });
        assert!(e.contains("leaves no columns"), "{e}");
    }

    #[test]
    fn wide_characters_cut_in_half_become_blank() {
        let s = screen(10, 1, "a日本");
        let w = Crop {
            left: Some(Length::Cells(2)),
            right: Some(Length::Cells(5)),
            ..Crop::default()
        }
        .window(&s, 0..1, 8.4, 18.0)
        .unwrap();
        let out = w.apply(s);
        assert_eq!(out.width, 3);
        assert_eq!(out.rows[0][0].text, " ");
        assert_eq!(out.rows[0][0].width, 1);
        assert_eq!(out.rows[0][1].text, "本");
    }
}
