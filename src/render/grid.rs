//! Painting the grid: merged cell backgrounds, box-drawing geometry, text with an x of its own
//! per glyph (see the `render` module doc for why), decorations (underline styles,
//! strikethrough), OSC 8 links and the cursor.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::term::{Cell, CursorShape, Rgb, Screen, Underline};

use super::colors::Palette;
use super::fonts::{FaceId, FaceStyle, Fonts};
use super::geometry;
use super::layout::Layout;
use super::outlines::{Ink, Outlines};
use super::svg::{push_attr, push_num, push_text};
use super::{css_escape, Appearance, TextMode};

/// Text-layer units per cell width. The grid's text is drawn in a group scaled so that a cell
/// is this many units wide: every column's x is then a small integer (`6`, `12`, … `1194`)
/// rather than px with a decimal (`8.4`, `16.8`, … `1679.6`), which matters when every glyph
/// carries its own x. With the bundled face's 0.6 em advance the text's font size is then
/// 10 units.
const TEXT_UNITS_PER_CELL: f32 = 6.0;

/// How a run of text looks, apart from its position.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct TextStyle {
    fill: Rgb,
    face: FaceStyle,
    /// The fallback family that covers the text, when it is not the bundled face.
    family: Option<String>,
    /// Font size in hundredths of a px when a wide glyph must shrink to fit its two cells.
    size: Option<u32>,
}

/// One cluster to draw.
struct Glyph {
    row: usize,
    /// Left of the glyph, px: its column's x (a wide glyph narrower than its cells is centred).
    x: f32,
    text: String,
    style: TextStyle,
    link: Option<String>,
}

/// Decoration kinds, drawn as geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Deco {
    /// Filled rectangles: single and double underline, strikethrough.
    Solid,
    Curly,
    Dotted,
    Dashed,
}

/// One cell's decoration, px: from `x`, `w` wide, at `y` (a rectangle's top, a line's or a
/// wave's axis); `h` is a rectangle's height or a wave's amplitude (0 for a line).
#[derive(Debug, Clone, Copy, PartialEq)]
struct DecoSeg {
    x: f32,
    y: f32,
    w: f32,
    h: f32,
}

impl DecoSeg {
    fn new(x: f32, y: f32, w: f32, h: f32) -> DecoSeg {
        DecoSeg { x, y, w, h }
    }

    /// `sorted` (by y, then x) with the segments that continue one another on one line joined.
    fn merged(sorted: &[DecoSeg]) -> Vec<DecoSeg> {
        let mut out: Vec<DecoSeg> = Vec::new();
        for s in sorted {
            match out.last_mut() {
                Some(p) if p.y == s.y && p.h == s.h && (p.x + p.w - s.x).abs() < 0.01 => {
                    p.w = s.x + s.w - p.x;
                }
                _ => out.push(*s),
            }
        }
        out
    }
}

/// Path data of geometric glyphs of one colour. A rectangle that continues the last one to
/// the right (same top and bottom) is merged into it: a run of `─` is one rectangle.
#[derive(Debug, Default)]
struct Shapes {
    d: String,
    /// The last subpath of `d` when it is a rectangle: where it starts in `d`, and its
    /// x0, y0, x1, y1.
    last_rect: Option<(usize, [f32; 4])>,
}

impl Shapes {
    /// Appends the path data `d` (subpaths `M…Z` as `geometry::draw` writes them).
    fn push(&mut self, d: &str) {
        let mut rest = d;
        while !rest.is_empty() {
            let end = rest[1..].find('M').map_or(rest.len(), |i| i + 1);
            let (sub, tail) = rest.split_at(end);
            rest = tail;
            let Some(r) = parse_rect(sub) else {
                self.d.push_str(sub);
                self.last_rect = None;
                continue;
            };
            match self.last_rect {
                Some((at, p)) if p[1] == r[1] && p[3] == r[3] && (p[2] - r[0]).abs() < 0.01 => {
                    let merged = [p[0], p[1], r[2], p[3]];
                    self.d.truncate(at);
                    push_rect_abs(&mut self.d, merged);
                    self.last_rect = Some((at, merged));
                }
                _ => {
                    let at = self.d.len();
                    self.d.push_str(sub);
                    self.last_rect = Some((at, r));
                }
            }
        }
    }
}

/// `Mx0 y0Hx1Vy1Hx0Z` (a rectangle as `geometry` writes it) as [x0, y0, x1, y1].
fn parse_rect(sub: &str) -> Option<[f32; 4]> {
    let body = sub.strip_prefix('M')?.strip_suffix('Z')?;
    let (start, rest) = body.split_once('H')?;
    let (x0, y0) = start.split_once(' ')?;
    let (x1, rest) = rest.split_once('V')?;
    let (y1, back) = rest.split_once('H')?;
    if back != x0 {
        return None;
    }
    Some([
        x0.parse().ok()?,
        y0.parse().ok()?,
        x1.parse().ok()?,
        y1.parse().ok()?,
    ])
}

fn push_rect_abs(d: &mut String, r: [f32; 4]) {
    d.push('M');
    push_num(d, r[0]);
    d.push(' ');
    push_num(d, r[1]);
    d.push('H');
    push_num(d, r[2]);
    d.push('V');
    push_num(d, r[3]);
    d.push('H');
    push_num(d, r[0]);
    d.push('Z');
}

/// The drawing of a screen's grid.
pub struct Painted {
    /// SVG elements of the grid.
    pub svg: String,
    /// CSS of the text classes the elements use.
    pub classes: String,
    /// Characters drawn per face (for embedded subsets).
    pub used: BTreeMap<FaceId, BTreeSet<char>>,
    /// Plain glyph outlines left to the rasteriser (only when painting for it in outlines
    /// mode); they go over `svg` and under `above`.
    pub ink: Vec<Ink>,
    /// SVG elements over the ink (decorations, cursor); empty when there is no ink.
    pub above: String,
}

/// Accumulates the drawing of a screen.
pub struct Painter<'a> {
    layout: &'a Layout,
    palette: &'a Palette,
    fonts: &'a Fonts,
    appearance: &'a Appearance,
    /// Per background colour: (drawn row, first col, end col) runs.
    backgrounds: BTreeMap<Rgb, Vec<(usize, usize, usize)>>,
    /// Per (colour, alpha %): path data of geometric glyphs.
    shapes: BTreeMap<(Rgb, u8), Shapes>,
    decorations: BTreeMap<(Rgb, Deco), Vec<DecoSeg>>,
    /// Cursor overlays (non-block shapes): colour and path data.
    cursor: Option<(Rgb, String)>,
    /// Masked cells (`Cell::masked`): (drawn row, first col, end col) runs.
    masked: Vec<(usize, usize, usize)>,
    glyphs: Vec<Glyph>,
    used: BTreeMap<FaceId, BTreeSet<char>>,
    header_row: Option<String>,
    /// Glyphs as geometry (`--text-mode outlines`); `None` in text mode.
    outlines: Option<Outlines>,
    /// Write the text elements (visible in text mode, invisible over the outlines).
    text_layer: bool,
    /// Put before every class and id this painter makes (several painters in one document).
    prefix: String,
}

impl<'a> Painter<'a> {
    /// A painter for `appearance.text_mode`. `text_layer` false is for rasterising: in
    /// outlines mode the invisible text layer (which draws nothing) is left out and outlines
    /// are merged into one path per row and colour (see [`Outlines::new`]); text mode always writes
    /// the text.
    pub fn new(
        layout: &'a Layout,
        palette: &'a Palette,
        fonts: &'a Fonts,
        appearance: &'a Appearance,
        text_layer: bool,
    ) -> Self {
        let outlines =
            (appearance.text_mode == TextMode::Outlines).then(|| Outlines::new(!text_layer));
        Painter {
            layout,
            palette,
            fonts,
            appearance,
            backgrounds: BTreeMap::new(),
            shapes: BTreeMap::new(),
            decorations: BTreeMap::new(),
            cursor: None,
            masked: Vec::new(),
            glyphs: Vec::new(),
            used: BTreeMap::new(),
            header_row: None,
            text_layer: text_layer || outlines.is_none(),
            outlines,
            prefix: String::new(),
        }
    }

    /// The same painter with `prefix` before every class and glyph id it makes, so that the
    /// drawings of several painters can share one document (an animation's rows). `prefix`
    /// is lowercase ASCII letters and digits: names stay apart from the uppercase ones.
    pub fn with_prefix(mut self, prefix: &str) -> Self {
        self.prefix = prefix.to_string();
        if let Some(o) = &mut self.outlines {
            o.set_prefix(prefix);
        }
        self
    }

    /// The command header in row 0, default colours.
    pub fn header(&mut self, text: &str) {
        self.header_row = Some(text.to_string());
        let mut col = 0;
        for ch in text.chars() {
            let cell = Cell {
                text: ch.to_string(),
                ..Cell::default()
            };
            let width = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
            if width == 0 {
                continue;
            }
            if col + width > self.layout.cols {
                break;
            }
            let cell = Cell {
                width: width as u8,
                ..cell
            };
            self.cell(0, col, &cell, false);
            col += width;
        }
    }

    /// Every row of `screen`, drawn from row `first_row` of the layout on.
    pub fn screen(&mut self, screen: &Screen, first_row: usize) {
        let cursor = &screen.cursor;
        let draw_cursor =
            self.appearance.cursor && cursor.visible && cursor.row < screen.rows.len();
        for (r, row) in screen.rows.iter().enumerate() {
            let drawn = first_row + r;
            let mut bg_run: Option<(Rgb, usize, usize)> = None;
            for (c, cell) in row.iter().enumerate() {
                let at_cursor = draw_cursor
                    && r == cursor.row
                    && (c == cursor.col || (cell.width == 0 && c == cursor.col + 1));
                let block = at_cursor && cursor.shape == CursorShape::Block;
                let (_, bg) = self.palette.cell_colors(cell, cell.inverse != block);
                // Background runs, merged along the row.
                match (&mut bg_run, bg) {
                    (Some((rgb, _, end)), Some(b)) if *rgb == b && *end == c => *end = c + 1,
                    (run, b) => {
                        if let Some((rgb, start, end)) = run.take() {
                            self.backgrounds
                                .entry(rgb)
                                .or_default()
                                .push((drawn, start, end));
                        }
                        *run = b.map(|b| (b, c, c + 1));
                    }
                }
                if cell.width != 0 {
                    self.cell(drawn, c, cell, block);
                }
                if cell.masked {
                    match self.masked.last_mut() {
                        Some((row, _, end)) if *row == drawn && *end == c => *end = c + 1,
                        _ => self.masked.push((drawn, c, c + 1)),
                    }
                }
                if at_cursor && !block && cell.width != 0 {
                    self.cursor_overlay(drawn, c, cell, cursor.shape);
                }
            }
            if let Some((rgb, start, end)) = bg_run {
                self.backgrounds
                    .entry(rgb)
                    .or_default()
                    .push((drawn, start, end));
            }
        }
    }

    fn cursor_overlay(&mut self, row: usize, col: usize, cell: &Cell, shape: CursorShape) {
        let (fg, _) = self.palette.cell_colors(cell, cell.inverse);
        let cm = self.layout.cell;
        let x = self.layout.col_x(col);
        let y = self.layout.row_y(row);
        let w = cm.width * cell.width.max(1) as f32;
        let t = (cm.font_size / 7.0).max(1.0);
        let mut d = String::new();
        match shape {
            CursorShape::Bar => rect_path(&mut d, x, y, t, cm.height),
            CursorShape::Underline => rect_path(&mut d, x, y + cm.height - t, w, t),
            CursorShape::HollowBlock | CursorShape::Block => {
                rect_path(&mut d, x, y, w, t);
                rect_path(&mut d, x, y + cm.height - t, w, t);
                rect_path(&mut d, x, y + t, t, cm.height - 2.0 * t);
                rect_path(&mut d, x + w - t, y + t, t, cm.height - 2.0 * t);
            }
        }
        self.cursor = Some((fg, d));
    }

    fn cell(&mut self, row: usize, col: usize, cell: &Cell, block_cursor: bool) {
        let (fg, _) = self.palette.cell_colors(cell, cell.inverse != block_cursor);
        let cm = self.layout.cell;
        let x = self.layout.col_x(col);
        let y = self.layout.row_y(row);
        let w = cm.width * cell.width.max(1) as f32;
        if cell.hidden {
            return;
        }
        self.decorate(cell, fg, x, y, w);
        let text = cell.text.as_str();
        if text.is_empty() || text == " " {
            return;
        }
        let mut chars = text.chars();
        let first = chars.next().unwrap_or(' ');
        let single = chars.next().is_none();
        if single && geometry::covers(first) {
            let shapes = &mut self.shapes;
            geometry::draw(first, x, y, w, cm.height, &mut |alpha, d| {
                shapes.entry((fg, alpha)).or_default().push(d)
            });
            return;
        }
        let face = FaceStyle::of(cell.bold, cell.italic);
        let (family, advance, face_id) = if single && (' '..='~').contains(&first) {
            (None, 0.0, FaceId::Bundled(face))
        } else {
            let r = self.fonts.resolve(text, face);
            (
                if r.bundled { None } else { Some(r.family) },
                r.advance * cm.font_size,
                r.face,
            )
        };
        self.used.entry(face_id).or_default().extend(text.chars());
        // Wide glyphs are centred in their cells; a glyph wider than its cells (an emoji the
        // emulator gave one cell, say) shrinks to fit.
        let mut gx = x;
        let mut size = None;
        if advance > 0.0 && (cell.width == 2 || advance > w) {
            if advance > w {
                size = Some((cm.font_size * w / advance * 100.0).floor() as u32);
            } else {
                gx = x + (w - advance) / 2.0;
            }
        }
        let link = cell
            .link
            .as_ref()
            .map(|l| l.uri.clone())
            .filter(|u| is_safe_link(u));
        if let Some(outlines) = &mut self.outlines {
            let shaped = self.fonts.shape(text, face);
            let font_px = size.map_or(cm.font_size, |s| s as f32 / 100.0);
            outlines.place(self.fonts, &shaped, font_px, gx, y + cm.baseline, fg);
            if !self.text_layer {
                return;
            }
        }
        self.glyphs.push(Glyph {
            row,
            x: gx,
            text: text.to_string(),
            // The invisible layer over outlines needs positions, not looks: one style.
            style: if self.outlines.is_some() {
                TextStyle {
                    fill: self.palette.foreground,
                    face: FaceStyle::Regular,
                    family: None,
                    size,
                }
            } else {
                TextStyle {
                    fill: fg,
                    face,
                    family,
                    size,
                }
            },
            link,
        });
    }

    fn decorate(&mut self, cell: &Cell, fg: Rgb, x: f32, y: f32, w: f32) {
        let cm = self.layout.cell;
        let t = (cm.font_size / 14.0).max(1.0);
        let under_y = y + cm.baseline + (cm.font_size * 0.12).round();
        if cell.underline != Underline::None {
            let color = cell
                .underline_color
                .map(|c| self.palette.fg(c, false))
                .unwrap_or(fg);
            let amp = (cm.font_size * 0.1).max(1.0);
            let mut add = |kind: Deco, seg: DecoSeg| {
                self.decorations.entry((color, kind)).or_default().push(seg)
            };
            match cell.underline {
                Underline::Single => add(Deco::Solid, DecoSeg::new(x, under_y, w, t)),
                Underline::Double => {
                    add(Deco::Solid, DecoSeg::new(x, under_y - t, w, t));
                    add(Deco::Solid, DecoSeg::new(x, under_y + t, w, t));
                }
                Underline::Curly => add(Deco::Curly, DecoSeg::new(x, under_y, w, amp)),
                Underline::Dotted => add(Deco::Dotted, DecoSeg::new(x, under_y + t / 2.0, w, 0.0)),
                Underline::Dashed => add(Deco::Dashed, DecoSeg::new(x, under_y + t / 2.0, w, 0.0)),
                Underline::None => unreachable!(),
            }
        }
        if cell.strikethrough {
            let sy = y + cm.baseline - (cm.font_size * 0.3).round();
            self.decorations
                .entry((fg, Deco::Solid))
                .or_default()
                .push(DecoSeg::new(x, sy, w, t));
        }
    }

    /// The drawing of the grid (see [`Painted`]).
    pub fn finish(mut self) -> Painted {
        let mut out = String::new();
        self.write_backgrounds(&mut out);
        for ((rgb, alpha), Shapes { d, .. }) in &self.shapes {
            out.push_str("<path fill=\"");
            out.push_str(&rgb.to_hex());
            if *alpha < 100 {
                out.push_str("\" fill-opacity=\"");
                push_num(&mut out, *alpha as f32 / 100.0);
            }
            out.push_str("\" d=\"");
            out.push_str(d);
            out.push_str("\"/>");
        }
        let mut classes = String::new();
        let mut ink = Vec::new();
        match &mut self.outlines {
            Some(outlines) => {
                outlines.finish(&mut out);
                ink = outlines.take_ink();
            }
            None => classes = self.write_text(&mut out),
        }
        // Ink is drawn by the rasteriser between the two parts.
        let mut above = String::new();
        let top = if ink.is_empty() { &mut out } else { &mut above };
        self.write_decorations(top);
        self.write_masked(top);
        if let Some((rgb, d)) = &self.cursor {
            top.push_str("<path fill=\"");
            top.push_str(&rgb.to_hex());
            top.push_str("\" d=\"");
            top.push_str(d);
            top.push_str("\"/>");
        }
        if self.outlines.is_some() && !self.glyphs.is_empty() {
            // Over everything, so that selection, search and links work as in text mode.
            out.push_str("<g fill-opacity=\"0\">");
            classes = self.write_text(&mut out);
            out.push_str("</g>");
        }
        Painted {
            svg: out,
            classes,
            used: self.used,
            ink,
            above,
        }
    }

    /// One path per background colour; runs with the same columns on consecutive rows merge
    /// into one rectangle. A thin stroke of the same colour hides anti-aliasing seams.
    fn write_backgrounds(&self, out: &mut String) {
        let cm = self.layout.cell;
        for (rgb, runs) in &self.backgrounds {
            // (start, end) → (first row, last row) of the open rectangle.
            let mut rects: Vec<(usize, usize, usize, usize)> = Vec::new();
            let mut open: HashMap<(usize, usize), usize> = HashMap::new();
            for &(row, start, end) in runs {
                match open.get(&(start, end)) {
                    Some(&i) if rects[i].3 + 1 == row => rects[i].3 = row,
                    _ => {
                        open.insert((start, end), rects.len());
                        rects.push((start, end, row, row));
                    }
                }
            }
            out.push_str("<path fill=\"");
            out.push_str(&rgb.to_hex());
            out.push_str("\" stroke=\"");
            out.push_str(&rgb.to_hex());
            out.push_str("\" stroke-width=\".5\" d=\"");
            for (start, end, r0, r1) in rects {
                rect_path(
                    out,
                    self.layout.col_x(start),
                    self.layout.row_y(r0),
                    (end - start) as f32 * cm.width,
                    (r1 - r0 + 1) as f32 * cm.height,
                );
            }
            out.push_str("\"/>");
        }
    }

    /// The masked overlay: diagonal stripes in the foreground colour over every masked run,
    /// so a reader sees that something was hidden (the cells themselves hold `*`).
    fn write_masked(&self, out: &mut String) {
        if self.masked.is_empty() {
            return;
        }
        let cm = self.layout.cell;
        let gap = (cm.font_size / 3.5).max(2.0);
        out.push_str("<defs><pattern id=\"c2s-masked\" patternUnits=\"userSpaceOnUse\" width=\"");
        push_num(out, gap);
        out.push_str("\" height=\"");
        push_num(out, gap);
        out.push_str("\" patternTransform=\"rotate(45)\"><rect width=\"");
        push_num(out, gap / 2.0);
        out.push_str("\" height=\"");
        push_num(out, gap);
        out.push_str("\" fill=\"");
        out.push_str(&self.palette.foreground.to_hex());
        out.push_str("\" fill-opacity=\".35\"/></pattern></defs><path class=\"c2s-masked\" fill=\"url(#c2s-masked)\" d=\"");
        for &(row, start, end) in &self.masked {
            rect_path(
                out,
                self.layout.col_x(start),
                self.layout.row_y(row),
                (end - start) as f32 * cm.width,
                cm.height,
            );
        }
        out.push_str("\"/>");
    }

    /// One path per decoration colour and kind. The cells' segments are merged where they
    /// touch on one line: a run of underlined cells is one rectangle (or one line, or one
    /// subpath of waves, one period per cell), not one per cell.
    fn write_decorations(&self, out: &mut String) {
        let t = (self.layout.cell.font_size / 14.0).max(1.0);
        for ((rgb, kind), segs) in &self.decorations {
            out.push_str("<path ");
            match kind {
                Deco::Solid => {
                    out.push_str("fill=\"");
                    out.push_str(&rgb.to_hex());
                }
                _ => {
                    out.push_str("fill=\"none\" stroke=\"");
                    out.push_str(&rgb.to_hex());
                    out.push_str("\" stroke-width=\"");
                    push_num(out, t);
                    match kind {
                        Deco::Dotted => {
                            out.push_str("\" stroke-dasharray=\"");
                            push_num(out, t);
                        }
                        Deco::Dashed => {
                            out.push_str("\" stroke-dasharray=\"");
                            push_num(out, 3.0 * t);
                            out.push(' ');
                            push_num(out, 2.0 * t);
                        }
                        _ => {}
                    }
                }
            }
            out.push_str("\" d=\"");
            let mut segs = segs.clone();
            segs.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
            match kind {
                Deco::Curly => {
                    let mut end: Option<(f32, f32)> = None;
                    for s in &segs {
                        let continues =
                            end.is_some_and(|(ex, ey)| ey == s.y && (ex - s.x).abs() < 0.01);
                        if !continues {
                            out.push('M');
                            push_num(out, s.x);
                            out.push(' ');
                            push_num(out, s.y);
                        }
                        // One wave period: up then down, smooth quadratic curves.
                        let half = s.w / 2.0;
                        out.push('q');
                        push_num(out, half / 2.0);
                        out.push(' ');
                        push_num(out, -s.h);
                        out.push(' ');
                        push_num(out, half);
                        out.push_str(" 0t");
                        push_num(out, half);
                        out.push_str(" 0");
                        end = Some((s.x + s.w, s.y));
                    }
                }
                _ => {
                    for s in DecoSeg::merged(&segs) {
                        if *kind == Deco::Solid {
                            rect_path(out, s.x, s.y, s.w, s.h);
                        } else {
                            out.push('M');
                            push_num(out, s.x);
                            out.push(' ');
                            push_num(out, s.y);
                            out.push('h');
                            push_num(out, s.w);
                        }
                    }
                }
            }
            out.push_str("\"/>");
        }
    }

    /// Text elements; returns the CSS of the classes they use.
    ///
    /// Structure (see the module doc for why): one `<text y>` per row (or per link run within
    /// it); inside it, every glyph has an x of its own, so each viewer places it at its column
    /// whatever font it draws with: a `<tspan x>` per glyph, except that an element's own x
    /// places its first character, so the `<text>` carries the x of a plain first glyph, and
    /// the styling `<tspan>` that consecutive glyphs of one style share carries the first one's
    /// (a lone styled glyph is a `<tspan x>` with its style). A style used by more
    /// than one element is a class, a one-off one presentation attributes on its `<tspan>`
    /// (see [`Painter::style_attrs`]): both beat the stylesheet's `text{…}` defaults in every
    /// viewer, which presentation attributes on a `<text>` would not.
    fn write_text(&self, out: &mut String) -> String {
        let default = TextStyle {
            fill: self.palette.foreground,
            face: FaceStyle::Regular,
            family: None,
            size: None,
        };
        // Segments: consecutive glyphs of one row, link and style.
        let starts_segment = |i: usize| {
            i == 0 || {
                let (p, g) = (&self.glyphs[i - 1], &self.glyphs[i]);
                p.style != g.style || p.row != g.row || p.link != g.link
            }
        };
        let mut uses: BTreeMap<&TextStyle, usize> = BTreeMap::new();
        let mut order: Vec<&TextStyle> = Vec::new();
        for (i, g) in self.glyphs.iter().enumerate() {
            if starts_segment(i) && g.style != default {
                let n = uses.entry(&g.style).or_insert(0);
                if *n == 0 {
                    order.push(&g.style);
                }
                *n += 1;
            }
        }
        let mut names: HashMap<&TextStyle, String> = HashMap::new();
        let mut css = String::new();
        for style in order {
            if uses[style] > 1 {
                let name = format!("{}{}", self.prefix, class_name(names.len()));
                css.push('.');
                css.push_str(&name);
                css.push('{');
                css.push_str(&self.style_css(style));
                css.push('}');
                names.insert(style, name);
            }
        }
        let style_attrs = |out: &mut String, style: &TextStyle| {
            if *style == default {
                return;
            }
            if let Some(name) = names.get(style) {
                out.push_str(" class=\"");
                out.push_str(name);
                out.push('"');
            } else {
                self.style_attrs(out, style);
            }
        };
        let x_of = |g: &Glyph| (g.x - self.layout.grid_x) / self.text_scale();
        let glyph = |out: &mut String, g: &Glyph, style: Option<&TextStyle>| {
            out.push_str("<tspan x=\"");
            push_num(out, x_of(g));
            out.push('"');
            if let Some(style) = style {
                style_attrs(out, style);
            }
            out.push('>');
            push_text(out, &g.text);
            out.push_str("</tspan>");
        };

        if self.glyphs.is_empty() {
            return css;
        }
        // The text layer: origin at the grid's top-left, scaled (see TEXT_UNITS_PER_CELL).
        let (gx, gy) = (self.layout.grid_x, self.layout.grid_y);
        let scale = self.text_scale();
        css.push('.');
        css.push_str(&self.prefix);
        css.push_str("T text{font-size:");
        push_num(&mut css, self.layout.cell.font_size / scale);
        css.push_str("px}");
        out.push_str("<g class=\"");
        out.push_str(&self.prefix);
        out.push_str("T\" transform=\"translate(");
        push_num(out, gx);
        out.push(' ');
        push_num(out, gy);
        out.push_str(")scale(");
        push_num(out, scale);
        out.push_str(")\">");
        let mut i = 0;
        while i < self.glyphs.len() {
            let g = &self.glyphs[i];
            let mut j = i + 1;
            while j < self.glyphs.len()
                && self.glyphs[j].row == g.row
                && self.glyphs[j].link == g.link
            {
                j += 1;
            }
            self.open_link(out, &g.link);
            out.push_str("<text y=\"");
            // Four decimals: a row's baseline in text-layer units is rarely round (18 px rows
            // at 1.4 px a unit), and two would put it up to 0.007 px off its row.
            let y = (self.layout.row_y(g.row) + self.layout.cell.baseline - gy) / scale;
            let y = format!("{:.4}", (y * 10_000.0).round() / 10_000.0);
            out.push_str(y.trim_end_matches('0').trim_end_matches('.'));
            out.push('"');
            let run = &self.glyphs[i..j];
            // An element's own x places its first character: the first glyph of the row (when
            // plain) or of a styled segment needs no <tspan> of its own.
            let mut k = 0;
            if run[0].style == default {
                out.push_str(" x=\"");
                push_num(out, x_of(&run[0]));
                out.push_str("\">");
                push_text(out, &run[0].text);
                k = 1;
            } else {
                out.push('>');
            }
            while k < run.len() {
                let mut e = k + 1;
                while e < run.len() && run[e].style == run[k].style {
                    e += 1;
                }
                let style = &run[k].style;
                if *style == default || e == k + 1 {
                    for r in &run[k..e] {
                        glyph(out, r, Some(style));
                    }
                } else {
                    out.push_str("<tspan x=\"");
                    push_num(out, x_of(&run[k]));
                    out.push('"');
                    style_attrs(out, style);
                    out.push('>');
                    push_text(out, &run[k].text);
                    for r in &run[k + 1..e] {
                        glyph(out, r, None);
                    }
                    out.push_str("</tspan>");
                }
                k = e;
            }
            out.push_str("</text>");
            close_link(out, &g.link);
            i = j;
        }
        out.push_str("</g>");
        css
    }

    /// px per text-layer unit (see [`TEXT_UNITS_PER_CELL`]), rounded as the SVG writes it
    /// (two decimals), so that positions divided by it land where they belong.
    fn text_scale(&self) -> f32 {
        ((self.layout.cell.width / TEXT_UNITS_PER_CELL * 100.0).round() / 100.0).max(0.01)
    }

    fn family_stack(&self, family: &str) -> String {
        format!(
            "\"{}\",{}",
            css_escape(family).replace('"', ""),
            self.appearance.font_stack()
        )
    }

    fn style_css(&self, s: &TextStyle) -> String {
        let mut css = String::new();
        if s.fill != self.palette.foreground {
            css.push_str("fill:");
            css.push_str(&s.fill.to_hex());
            css.push(';');
        }
        if matches!(s.face, FaceStyle::Bold | FaceStyle::BoldItalic) {
            css.push_str("font-weight:700;");
        }
        if matches!(s.face, FaceStyle::Italic | FaceStyle::BoldItalic) {
            css.push_str("font-style:italic;");
        }
        if let Some(f) = &s.family {
            css.push_str("font-family:");
            css.push_str(&self.family_stack(f));
            css.push(';');
        }
        if let Some(size) = s.size {
            css.push_str("font-size:");
            push_num(&mut css, size as f32 / 100.0 / self.text_scale());
            css.push_str("px;");
        }
        css.pop();
        css
    }

    /// A one-off style as presentation attributes. Only ever on a `<tspan>`: the stylesheet's
    /// `text{…}` rule selects `<text>` elements, where it would beat presentation attributes
    /// (Chromium, Firefox); a `<tspan>` only inherits it, and its own attributes win.
    fn style_attrs(&self, out: &mut String, s: &TextStyle) {
        if s.fill != self.palette.foreground {
            out.push_str(" fill=\"");
            out.push_str(&s.fill.to_hex());
            out.push('"');
        }
        if matches!(s.face, FaceStyle::Bold | FaceStyle::BoldItalic) {
            out.push_str(" font-weight=\"700\"");
        }
        if matches!(s.face, FaceStyle::Italic | FaceStyle::BoldItalic) {
            out.push_str(" font-style=\"italic\"");
        }
        if let Some(f) = &s.family {
            out.push_str(" font-family=\"");
            push_attr(out, &self.family_stack(f));
            out.push('"');
        }
        if let Some(size) = s.size {
            out.push_str(" font-size=\"");
            push_num(out, size as f32 / 100.0 / self.text_scale());
            out.push('"');
        }
    }

    fn open_link(&self, out: &mut String, link: &Option<String>) {
        if let Some(uri) = link {
            out.push_str("<a href=\"");
            push_attr(out, uri);
            out.push_str("\">");
        }
    }
}

fn close_link(out: &mut String, link: &Option<String>) {
    if link.is_some() {
        out.push_str("</a>");
    }
}

/// Only these OSC 8 link schemes become live links (RC-14).
fn is_safe_link(uri: &str) -> bool {
    let lower = uri.to_ascii_lowercase();
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|s| lower.starts_with(s))
}

/// Short class and id names: A, B, … Z, BA, BB, … (uppercase, so they never clash with
/// lowercase names such as `bg` or `desk`).
pub(super) fn class_name(mut n: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'A' + (n % 26) as u8);
        n /= 26;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// Appends a closed rectangle subpath `M x y h w v h h -w z`.
fn rect_path(d: &mut String, x: f32, y: f32, w: f32, h: f32) {
    d.push('M');
    push_num(d, x);
    d.push(' ');
    push_num(d, y);
    d.push('h');
    push_num(d, w);
    d.push('v');
    push_num(d, h);
    d.push('h');
    push_num(d, -w);
    d.push('z');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_are_short_and_unique() {
        assert_eq!(class_name(0), "A");
        assert_eq!(class_name(25), "Z");
        assert_eq!(class_name(26), "BA");
        let names: BTreeSet<String> = (0..1000).map(class_name).collect();
        assert_eq!(names.len(), 1000);
    }

    #[test]
    fn touching_rectangles_of_one_colour_merge() {
        let mut s = Shapes::default();
        s.push("M0 8.48H8.4V9.52H0Z");
        s.push("M8.4 8.48H16.8V9.52H8.4Z");
        s.push("M16.8 8.48H25.2V9.52H16.8ZM20 0H21V18H20Z");
        s.push("M30 8.48H31V9.52H30Z");
        assert_eq!(
            s.d,
            "M0 8.48H25.2V9.52H0ZM20 0H21V18H20ZM30 8.48H31V9.52H30Z"
        );
        let mut t = Shapes::default();
        t.push("M0 0H8.4V18H0Z");
        t.push("M8.4 1H16.8V18H8.4Z");
        t.push("M0 0L4 4Z");
        t.push("M4 0H5V1H4Z");
        assert_eq!(t.d, "M0 0H8.4V18H0ZM8.4 1H16.8V18H8.4ZM0 0L4 4ZM4 0H5V1H4Z");
    }

    #[test]
    fn only_safe_schemes_link() {
        assert!(is_safe_link("https://example.com"));
        assert!(is_safe_link("MAILTO:a@b"));
        assert!(!is_safe_link("javascript:alert(1)"));
        assert!(!is_safe_link("file:///etc/passwd"));
    }
}
