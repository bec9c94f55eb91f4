//! Animated SVG: the frames of a recording in one document, drawn by the same painter as a
//! still (grid exactness, themes, window styles, fonts and text modes hold in every frame).
//!
//! # Shape
//!
//! - The window (canvas, frame, terminal background, header row) is drawn once.
//! - Every distinct row (its cells, the cursor when it is on it, the palette) is painted once,
//!   at the first grid row, into `<defs>` as `<g id="rN">`; the classes and glyph ids of each
//!   row's painting carry the row's prefix, so they never clash.
//! - Frame *i* is a `<g>` of `<use href="#rN" y="…">` (blank rows are left out), placed at
//!   `x = i × canvas width` on a horizontal film strip. The strip is clipped to the terminal
//!   area and moved with one CSS `@keyframes` rule: one keyframe per frame,
//!   `transform: translateX(-i × width px)`, with `steps(1, end)` timing so each frame shows
//!   unchanged until the next one's time (discrete timing).
//!
//! # Why CSS keyframes, not SMIL
//!
//! Both animate in Chromium and Firefox, as a document and inside an `<img>` (an image's own
//! CSS animations and SMIL run; its scripts do not); tests/recording.rs checks the CSS film in
//! headless Chromium and Firefox ESR, as an `<img>` and inline. CSS wins on two counts: one rule for the
//! whole film instead of one `<animate>` per frame, and `prefers-reduced-motion` can stop it
//! (`@media (prefers-reduced-motion: reduce)` sets `animation: none`), which SMIL cannot.
//!
//! # The static state
//!
//! The strip's `transform` attribute shows the *static frame*: what viewers without animation
//! (resvg, rsvg-convert, a browser asked for reduced motion) draw. Callers pass the last
//! meaningful frame (see `recording::frames`: a final blank screen is never one).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::fonts::{FaceId, Fonts};
use super::svg::push_num;
use super::{document, grid, setup, shell, Appearance, Parts};
use crate::term::{Cell, Cursor, Rgb, Screen};

/// How the animation plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Length of one play, ms (the last frame is held until then).
    pub duration_ms: u64,
    /// Play again from the start for ever; otherwise stop on the last frame.
    pub looped: bool,
    /// Index of the frame viewers without animation show.
    pub static_frame: usize,
}

/// One frame, shown from `time_ms`: a `width`-column viewport whose rows are indices into
/// the table of distinct rows given to [`render_animated_svg`] (each row there is stored once
/// however many frames show it).
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    pub time_ms: u64,
    /// Columns.
    pub width: usize,
    /// The rows, top to bottom, as indices into the row table.
    pub rows: &'a [u32],
    pub cursor: Cursor,
    /// Palette entries changed by OSC 4 (index, colour).
    pub palette_overrides: &'a [(u8, Rgb)],
}

/// A row as drawn: its index in the row table, the cursor (column and shape, when on the
/// row), the palette changes.
type RowKey<'a> = (u32, Option<(usize, u8)>, &'a [(u8, Rgb)]);

/// The frames as one animated SVG, drawn from `table`, the distinct rows the frames index.
/// Every frame must have the width and row count of the first (the caller pads them), and
/// every row it uses `width` cells; `frames` is not empty and its times start at 0 and
/// increase; `timing.static_frame` is an index into `frames`.
pub fn render_animated_svg(
    table: &[Vec<Cell>],
    frames: &[Frame<'_>],
    timing: Timing,
    appearance: &Appearance,
    fonts: &Fonts,
) -> String {
    let first = &frames[0];
    let header_rows = usize::from(appearance.header.is_some());
    let (layout, palette) = setup(
        first.width,
        first.rows.len(),
        frames[timing.static_frame].palette_overrides,
        appearance,
        fonts,
    );
    let mut body = shell(appearance, &layout);
    let mut css = String::new();
    let mut used: BTreeMap<FaceId, BTreeSet<char>> = BTreeMap::new();
    let merge = |used: &mut BTreeMap<FaceId, BTreeSet<char>>, p: &mut grid::Painted| {
        for (face, chars) in std::mem::take(&mut p.used) {
            used.entry(face).or_default().extend(chars);
        }
    };
    if let Some(header) = &appearance.header {
        let mut p = grid::Painter::new(&layout, &palette, fonts, appearance, true).with_prefix("h");
        p.header(header);
        let mut painted = p.finish();
        body.push_str(&painted.svg);
        css.push_str(&painted.classes);
        merge(&mut used, &mut painted);
    }

    // Distinct rows, painted once each, numbered in order of first use.
    let mut defs = String::new();
    let mut ids: HashMap<RowKey<'_>, usize> = HashMap::new();
    let mut blank: Vec<Option<bool>> = vec![None; table.len()];
    let mut film = String::new();
    let width = layout.canvas_width;
    for (i, f) in frames.iter().enumerate() {
        film.push_str("<g transform=\"translate(");
        push_num(&mut film, i as f32 * width);
        film.push_str(" 0)\">");
        for (r, &row) in f.rows.iter().enumerate() {
            let cells = &table[row as usize];
            let cursor = (appearance.cursor && f.cursor.visible && f.cursor.row == r)
                .then_some((f.cursor.col, f.cursor.shape));
            if cursor.is_none()
                && *blank[row as usize].get_or_insert_with(|| cells.iter().all(Cell::is_blank))
            {
                continue;
            }
            let key = (row, cursor.map(|(c, s)| (c, s as u8)), f.palette_overrides);
            let count = ids.len();
            let id = *ids.entry(key).or_insert_with(|| {
                let prefix = format!("r{count}");
                let row_palette = appearance.palette(f.palette_overrides);
                let mut p = grid::Painter::new(&layout, &row_palette, fonts, appearance, true)
                    .with_prefix(&prefix);
                let mut one = Screen::blank(f.width, 1);
                one.rows[0] = cells.clone();
                one.palette_overrides = f.palette_overrides.to_vec();
                one.cursor.visible = cursor.is_some();
                if let Some((col, shape)) = cursor {
                    one.cursor.col = col;
                    one.cursor.shape = shape;
                }
                p.screen(&one, header_rows);
                let mut painted = p.finish();
                defs.push_str("<g id=\"");
                defs.push_str(&prefix);
                defs.push_str("\">");
                defs.push_str(&painted.svg);
                defs.push_str("</g>");
                css.push_str(&painted.classes);
                merge(&mut used, &mut painted);
                count
            });
            film.push_str("<use href=\"#r");
            film.push_str(&id.to_string());
            film.push('"');
            if r > 0 {
                film.push_str(" y=\"");
                push_num(&mut film, r as f32 * layout.cell.height);
                film.push('"');
            }
            film.push_str("/>");
        }
        film.push_str("</g>");
    }

    css.push_str(&keyframes(frames, timing, width));
    let t = layout.terminal;
    let mut grid_svg = String::with_capacity(defs.len() + film.len() + 256);
    grid_svg.push_str("<defs><clipPath id=\"screen\"><rect x=\"");
    push_num(&mut grid_svg, t.x);
    grid_svg.push_str("\" y=\"");
    push_num(&mut grid_svg, t.y);
    grid_svg.push_str("\" width=\"");
    push_num(&mut grid_svg, t.w);
    grid_svg.push_str("\" height=\"");
    push_num(&mut grid_svg, t.h);
    grid_svg.push_str("\"/></clipPath>");
    grid_svg.push_str(&defs);
    grid_svg.push_str("</defs><g clip-path=\"url(#screen)\"><g id=\"film\" transform=\"translate(");
    push_num(&mut grid_svg, -(timing.static_frame as f32) * width);
    grid_svg.push_str(" 0)\">");
    grid_svg.push_str(&film);
    grid_svg.push_str("</g></g>");
    document(
        appearance,
        fonts,
        Parts {
            layout: &layout,
            palette: &palette,
            shell: &body,
            grid: &grid_svg,
            css: &css,
            used,
        },
    )
    .0
}

/// The film's CSS: the `@keyframes` (one step a frame), the animation, and its stop under
/// reduced motion.
fn keyframes(frames: &[Frame<'_>], timing: Timing, width: f32) -> String {
    let total = timing.duration_ms.max(1) as f64;
    let mut css = String::from("@keyframes film{");
    let mut last_pct = String::new();
    let mut steps: Vec<(String, usize)> = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let pct = if i == 0 {
            "0".to_string()
        } else {
            let p = (f.time_ms as f64 / total * 100.0).min(100.0);
            trim_num(format!("{p:.4}"))
        };
        // Frames closer than the precision: the later one wins.
        if pct == last_pct {
            steps.pop();
        }
        last_pct = pct.clone();
        steps.push((pct, i));
    }
    if last_pct != "100" {
        let last = frames.len() - 1;
        steps.push(("100".into(), last));
    }
    for (pct, i) in steps {
        css.push_str(&pct);
        css.push_str("%{transform:translateX(");
        push_num(&mut css, -(i as f32) * width);
        css.push_str("px)}");
    }
    css.push_str("}#film{animation:film ");
    css.push_str(&timing.duration_ms.max(1).to_string());
    css.push_str("ms steps(1,end) ");
    css.push_str(if timing.looped {
        "infinite"
    } else {
        "1 forwards"
    });
    css.push_str("}@media (prefers-reduced-motion:reduce){#film{animation:none}}");
    css
}

/// `12.5000` → `12.5`, `3.0000` → `3`.
fn trim_num(s: String) -> String {
    if !s.contains('.') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Emulator;

    fn screen(text: &str) -> Screen {
        let mut e = Emulator::new(10, 3);
        e.advance(text.as_bytes());
        e.snapshot()
    }

    /// The distinct rows of `screens` and each screen's rows as indices into them.
    fn intern(screens: &[&Screen]) -> (Vec<Vec<Cell>>, Vec<Vec<u32>>) {
        let mut table: Vec<Vec<Cell>> = Vec::new();
        let ids = screens
            .iter()
            .map(|s| {
                s.rows
                    .iter()
                    .map(|r| match table.iter().position(|t| t == r) {
                        Some(i) => i as u32,
                        None => {
                            table.push(r.clone());
                            table.len() as u32 - 1
                        }
                    })
                    .collect()
            })
            .collect();
        (table, ids)
    }

    #[test]
    fn rows_are_defined_once_and_the_static_frame_is_the_attribute() {
        let a = screen("one\r\ntwo");
        let b = screen("one\r\ntwo\r\nthree");
        let (table, ids) = intern(&[&a, &b]);
        let frame = |s: &Screen, i: usize, time_ms: u64| Frame {
            time_ms,
            width: s.width,
            rows: &ids[i],
            cursor: s.cursor,
            palette_overrides: &[],
        };
        let frames = [frame(&a, 0, 0), frame(&b, 1, 500)];
        let timing = Timing {
            duration_ms: 1500,
            looped: true,
            static_frame: 1,
        };
        let svg = render_animated_svg(
            &table,
            &frames,
            timing,
            &Appearance::default(),
            &Fonts::new(),
        );
        let defs = &svg[svg.find("<defs><clipPath").unwrap()..];
        // The rows' text, tags left out (each glyph is an element of its own).
        let text: String = defs
            .split('<')
            .filter_map(|part| part.split_once('>').map(|(_, t)| t))
            .collect();
        assert_eq!(text.matches("one").count(), 1, "{text}");
        // "two" has the cursor after it in the first frame only: two rows.
        assert_eq!(text.matches("two").count(), 2, "{text}");
        assert_eq!(
            defs.matches("<use href=\"#r0\"").count(),
            2,
            "row 0 used by both"
        );
        assert!(svg.contains("@keyframes film{0%{transform:translateX(0px)}33.3333%"));
        assert!(svg.contains("animation:film 1500ms steps(1,end) infinite"));
        assert!(svg.contains("prefers-reduced-motion"));
        let w = svg
            .split("id=\"film\" transform=\"translate(")
            .nth(1)
            .unwrap();
        assert!(w.starts_with('-'), "static frame 1 shown: {w}");
        let again = render_animated_svg(
            &table,
            &frames,
            timing,
            &Appearance::default(),
            &Fonts::new(),
        );
        assert_eq!(svg, again, "deterministic");
    }
}
