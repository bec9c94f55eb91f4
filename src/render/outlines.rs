//! `--text-mode outlines`: every glyph drawn as geometry, so the picture depends on no font in
//! the viewer.
//!
//! Each distinct glyph (face, glyph id, font size) is written once in `<defs>`: an outline as a
//! `<path>`, a COLR (v0) colour glyph as a `<g>` of one path per layer filled with its palette
//! colour, a bitmap colour glyph (CBDT/sbix PNG, as in Noto Color Emoji) as an `<image>` with a
//! `data:` URI. Every drawn cluster then places its glyphs with `<use href="#id" x y>` at its
//! grid position (the origin on the baseline), inside one `<g fill>` per colour. Glyph ids are
//! `A`, `B`, … `Z`, `BA`, … in order of first use, so the output is deterministic.
//!
//! For the rasteriser ([`Outlines::new`] with `ink`), plain outlines are kept as [`Ink`] data
//! instead, which `raster::png_scene` draws from cached coverage masks.
//!
//! Geometry follows the same transforms resvg applies to text (usvg's `outline_transform` and
//! `cbdt_transform`), so an outlines picture rasterises like the text picture. Coordinates are
//! px rounded to hundredths; path data is relative, each step computed from the rounded
//! absolute points so rounding never accumulates.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use base64::Engine as _;

use crate::term::Rgb;

use super::fonts::{FaceId, Fonts, Shaped};
use super::svg::push_num;

/// One glyph at one size: the unit of deduplication.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct GlyphKey {
    face: FaceId,
    glyph: u16,
    /// Font size in hundredths of a px.
    size: u32,
}

/// A glyph's definition, once written.
#[derive(Debug, Clone)]
enum Def {
    /// No ink (spaces, empty outlines): nothing is placed.
    Empty,
    /// A plain outline defined in `<defs>`: its id.
    Path(String),
    /// A plain outline kept as data for the rasteriser (see [`Outlines::new`]).
    Ink(Arc<Outline>),
    /// A colour glyph (COLR layers or a bitmap) defined in `<defs>`: its id.
    Colour(String),
}

/// A glyph outline in px at its font size, origin on the baseline, y down.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    /// The drawing commands, absolute.
    pub ops: Vec<PathOp>,
}

/// One command of an [`Outline`], absolute px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PathOp {
    /// Starts a contour at (x, y).
    Move(f32, f32),
    /// A line to (x, y).
    Line(f32, f32),
    /// A quadratic curve: control point, end point.
    Quad(f32, f32, f32, f32),
    /// A cubic curve: two control points, end point.
    Cubic(f32, f32, f32, f32, f32, f32),
    /// Closes the contour.
    Close,
}

/// A plain outline placed for the rasteriser: its origin (px, canvas coordinates) and colour.
#[derive(Debug, Clone)]
pub struct Ink {
    /// The outline (shared by every placement of the same glyph at the same size).
    pub outline: Arc<Outline>,
    /// Origin, px.
    pub x: f32,
    /// Baseline, px.
    pub y: f32,
    /// Opaque fill.
    pub fill: Rgb,
}

/// The glyph definitions and their placements for one picture.
#[derive(Default)]
pub struct Outlines {
    /// Keep plain outlines as [`Ink`] for the rasteriser instead of writing them.
    ink_mode: bool,
    /// Definitions in order of first use.
    defs: String,
    /// Number of ids handed out.
    next_id: usize,
    /// Each glyph's definition.
    ids: HashMap<GlyphKey, Def>,
    /// Per fill colour: the `<use>` elements.
    uses: BTreeMap<Rgb, String>,
    /// Ink mode: the plain outlines placed, in order.
    ink: Vec<Ink>,
    /// Put before every glyph id (see `Painter::with_prefix`).
    prefix: String,
}

impl Outlines {
    /// Glyphs defined once and placed with `<use>` (`ink` false), or, for rasterising, plain
    /// outlines kept as [`Ink`] data that the rasteriser draws itself (`ink` true: thousands of
    /// small paths cost resvg far more to parse and fill than a cache of glyph masks); colour
    /// glyphs still go through `<defs>` and `<use>`.
    pub fn new(ink: bool) -> Outlines {
        Outlines {
            ink_mode: ink,
            ..Outlines::default()
        }
    }

    /// Puts `prefix` before every glyph id defined from now on.
    pub fn set_prefix(&mut self, prefix: &str) {
        self.prefix = prefix.to_string();
    }

    /// Places the glyphs of `shaped` at font size `font_px` (px) with the cluster's origin at
    /// (`x`, `baseline`) (px), filled with `fill` (COLR layers with a palette colour and bitmap
    /// glyphs keep their own colours).
    pub fn place(
        &mut self,
        fonts: &Fonts,
        shaped: &Shaped,
        font_px: f32,
        x: f32,
        baseline: f32,
        fill: Rgb,
    ) {
        let size = (font_px * 100.0).round() as u32;
        for g in &shaped.glyphs {
            let key = GlyphKey {
                face: shaped.face,
                glyph: g.id,
                size,
            };
            let def = match self.ids.get(&key) {
                Some(def) => def.clone(),
                None => {
                    let def = self.define(fonts, key);
                    self.ids.insert(key, def.clone());
                    def
                }
            };
            let gx = x + g.x * font_px;
            let gy = baseline - g.y * font_px;
            let id = match def {
                Def::Empty => continue,
                Def::Ink(outline) => {
                    self.ink.push(Ink {
                        outline,
                        x: gx,
                        y: gy,
                        fill,
                    });
                    continue;
                }
                Def::Path(id) | Def::Colour(id) => id,
            };
            let out = self.uses.entry(fill).or_default();
            out.push_str("<use href=\"#");
            out.push_str(&id);
            out.push('"');
            for (name, v) in [("x", gx), ("y", gy)] {
                if (v * 100.0).round() != 0.0 {
                    out.push(' ');
                    out.push_str(name);
                    out.push_str("=\"");
                    push_num(out, v);
                    out.push('"');
                }
            }
            out.push_str("/>");
        }
    }

    /// Writes the definition of `key` (in ink mode, only colour glyphs are written).
    fn define(&mut self, fonts: &Fonts, key: GlyphKey) -> Def {
        let font_px = key.size as f32 / 100.0;
        let ink_mode = self.ink_mode;
        let glyph = fonts
            .with_face_data(key.face, |data, index| {
                let face = ttf_parser::Face::parse(data, index).ok()?;
                glyph_art(&face, ttf_parser::GlyphId(key.glyph), font_px, ink_mode)
            })
            .flatten();
        let Some(glyph) = glyph else {
            return Def::Empty;
        };
        if let Art::Ink(outline) = glyph {
            return Def::Ink(Arc::new(outline));
        }
        let id = format!("{}{}", self.prefix, glyph_id_name(self.next_id));
        self.next_id += 1;
        match glyph {
            Art::Path(d) => {
                self.defs.push_str("<path id=\"");
                self.defs.push_str(&id);
                self.defs.push_str("\" d=\"");
                self.defs.push_str(&d);
                self.defs.push_str("\"/>");
                Def::Path(id)
            }
            Art::Element(tag, rest) => {
                self.defs.push('<');
                self.defs.push_str(tag);
                self.defs.push_str(" id=\"");
                self.defs.push_str(&id);
                self.defs.push('"');
                self.defs.push_str(&rest);
                Def::Colour(id)
            }
            Art::Ink(_) => unreachable!("returned above"),
        }
    }

    /// Appends `<defs>` with the glyph definitions, then one `<g fill>` of `<use>`s per colour
    /// (colours in `Rgb` order). Nothing when no glyph was placed this way.
    pub fn finish(&self, out: &mut String) {
        if self.uses.is_empty() {
            return;
        }
        out.push_str("<defs>");
        out.push_str(&self.defs);
        out.push_str("</defs>");
        for (rgb, uses) in &self.uses {
            out.push_str("<g fill=\"");
            out.push_str(&rgb.to_hex());
            out.push_str("\">");
            out.push_str(uses);
            out.push_str("</g>");
        }
    }

    /// The plain outlines placed in ink mode, in order (empty otherwise).
    pub fn take_ink(&mut self) -> Vec<Ink> {
        std::mem::take(&mut self.ink)
    }
}

/// Ids of glyph definitions: the renderer's short names (see [`super::grid::class_name`]).
fn glyph_id_name(n: usize) -> String {
    super::grid::class_name(n)
}

/// How a glyph is drawn.
enum Art {
    /// An outline: relative path data from the origin.
    Path(String),
    /// A colour glyph: the element's tag and everything after it (attributes, content and end),
    /// with no id yet: `("g", "><path …/></g>")`, `("image", " x=… href=…/>")`.
    Element(&'static str, String),
    /// An outline as data (ink mode).
    Ink(Outline),
}

/// Glyph `glyph` of `face` at `font_px` px with its origin at (0, 0), y down. Tried in resvg's
/// order: a COLR colour glyph, a PNG bitmap glyph, the outline. `None` when it has no ink.
fn glyph_art(
    face: &ttf_parser::Face<'_>,
    glyph: ttf_parser::GlyphId,
    font_px: f32,
    ink: bool,
) -> Option<Art> {
    let scale = font_px / f32::from(face.units_per_em().max(1));
    if face.is_color_glyph(glyph) {
        if let Some(layers) = colr_layers(face, glyph, scale) {
            return Some(Art::Element("g", format!(">{layers}</g>")));
        }
    }
    if let Some(img) = face.glyph_raster_image(glyph, u16::MAX) {
        if img.format == ttf_parser::RasterImageFormat::PNG && img.pixels_per_em > 0 {
            // usvg's cbdt_transform: the image's bottom-left corner at (x, y) pixels of the
            // strike from the origin, scaled by font size / strike ppem.
            let s = font_px / f32::from(img.pixels_per_em);
            let mut e = String::from(" x=\"");
            push_num(&mut e, f32::from(img.x) * s);
            e.push_str("\" y=\"");
            push_num(&mut e, -(f32::from(img.y) + f32::from(img.height)) * s);
            e.push_str("\" width=\"");
            push_num(&mut e, f32::from(img.width) * s);
            e.push_str("\" height=\"");
            push_num(&mut e, f32::from(img.height) * s);
            e.push_str("\" href=\"data:image/png;base64,");
            base64::engine::general_purpose::STANDARD.encode_string(img.data, &mut e);
            e.push_str("\"/>");
            return Some(Art::Element("image", e));
        }
    }
    if ink {
        let mut ops = OpsWriter {
            scale,
            ops: Vec::new(),
        };
        face.outline_glyph(glyph, &mut ops)?;
        return (!ops.ops.is_empty()).then_some(Art::Ink(Outline { ops: ops.ops }));
    }
    outline_d(face, glyph, scale).map(Art::Path)
}

/// Records an outline as [`PathOp`]s in px, y down.
struct OpsWriter {
    scale: f32,
    ops: Vec<PathOp>,
}

impl ttf_parser::OutlineBuilder for OpsWriter {
    fn move_to(&mut self, x: f32, y: f32) {
        let s = self.scale;
        self.ops.push(PathOp::Move(x * s, -y * s));
    }
    fn line_to(&mut self, x: f32, y: f32) {
        let s = self.scale;
        self.ops.push(PathOp::Line(x * s, -y * s));
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let s = self.scale;
        self.ops.push(PathOp::Quad(x1 * s, -y1 * s, x * s, -y * s));
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let s = self.scale;
        self.ops.push(PathOp::Cubic(
            x1 * s,
            -y1 * s,
            x2 * s,
            -y2 * s,
            x * s,
            -y * s,
        ));
    }
    fn close(&mut self) {
        self.ops.push(PathOp::Close);
    }
}

/// Relative path data of a glyph's outline in px (y down), `None` when it has no contours.
fn outline_d(
    face: &ttf_parser::Face<'_>,
    glyph: ttf_parser::GlyphId,
    scale: f32,
) -> Option<String> {
    let mut w = PathWriter::new(scale);
    face.outline_glyph(glyph, &mut w)?;
    (!w.d.is_empty()).then_some(w.d)
}

/// Sentinel foreground handed to ttf-parser: layers painted with it use the text colour.
const FOREGROUND: ttf_parser::RgbaColor = ttf_parser::RgbaColor {
    red: 1,
    green: 2,
    blue: 3,
    alpha: 0,
};

/// The layers of a COLR glyph, one `<path>` each, palette 0. Layers in the text colour inherit
/// the `<use>`'s fill; gradients (COLR v1) are drawn in the text colour (a documented
/// simplification); clips, transforms and blend modes of COLR v1 are ignored.
fn colr_layers(
    face: &ttf_parser::Face<'_>,
    glyph: ttf_parser::GlyphId,
    scale: f32,
) -> Option<String> {
    struct Layers<'f, 'a> {
        face: &'f ttf_parser::Face<'a>,
        scale: f32,
        current: Option<String>,
        out: String,
    }
    impl<'a> ttf_parser::colr::Painter<'a> for Layers<'_, 'a> {
        fn outline_glyph(&mut self, glyph: ttf_parser::GlyphId) {
            self.current = outline_d(self.face, glyph, self.scale);
        }
        fn paint(&mut self, paint: ttf_parser::colr::Paint<'a>) {
            let Some(d) = self.current.take() else {
                return;
            };
            self.out.push_str("<path");
            if let ttf_parser::colr::Paint::Solid(c) = paint {
                if c != FOREGROUND {
                    self.out.push_str(" fill=\"");
                    self.out
                        .push_str(&Rgb::new(c.red, c.green, c.blue).to_hex());
                    self.out.push('"');
                    if c.alpha < 255 {
                        self.out.push_str(" fill-opacity=\"");
                        push_num(&mut self.out, f32::from(c.alpha) / 255.0);
                        self.out.push('"');
                    }
                }
            }
            self.out.push_str(" d=\"");
            self.out.push_str(&d);
            self.out.push_str("\"/>");
        }
        fn push_clip(&mut self) {}
        fn push_clip_box(&mut self, _: ttf_parser::colr::ClipBox) {}
        fn pop_clip(&mut self) {}
        fn push_layer(&mut self, _: ttf_parser::colr::CompositeMode) {}
        fn pop_layer(&mut self) {}
        fn push_transform(&mut self, _: ttf_parser::Transform) {}
        fn pop_transform(&mut self) {}
    }
    let mut layers = Layers {
        face,
        scale,
        current: None,
        out: String::new(),
    };
    face.paint_color_glyph(glyph, 0, FOREGROUND, &mut layers)?;
    (!layers.out.is_empty()).then_some(layers.out)
}

/// Writes compact relative path data (hundredths of a px) from font-unit outlines.
struct PathWriter {
    scale: f32,
    d: String,
    /// Current point and subpath start, hundredths of a px.
    at: (i32, i32),
    start: (i32, i32),
    /// Last command letter written (repeated letters are implied).
    last: u8,
}

impl PathWriter {
    fn new(scale: f32) -> PathWriter {
        PathWriter {
            scale,
            d: String::new(),
            at: (0, 0),
            start: (0, 0),
            last: 0,
        }
    }

    /// A font-unit point in hundredths of a px, y flipped.
    fn point(&self, x: f32, y: f32) -> (i32, i32) {
        (
            (x * self.scale * 100.0).round() as i32,
            (-y * self.scale * 100.0).round() as i32,
        )
    }

    /// Writes command letter `c` unless it repeats the last one (SVG repeats it implicitly).
    fn command(&mut self, c: u8) {
        if c != self.last || c == b'm' {
            self.d.push(c as char);
            self.last = c;
        }
    }

    /// Writes `v` hundredths of a px: no trailing zeros, no leading zero (`.5`, `-.25`), and a
    /// space before it only where the previous number would otherwise run on.
    fn num(&mut self, v: i32) {
        if v >= 0 && self.d.ends_with(|c: char| c.is_ascii_digit() || c == '.') {
            self.d.push(' ');
        }
        if v < 0 {
            self.d.push('-');
        }
        let a = v.unsigned_abs();
        let (int, frac) = (a / 100, a % 100);
        if int != 0 || frac == 0 {
            self.d.push_str(&int.to_string());
        }
        if frac != 0 {
            self.d.push('.');
            if frac % 10 == 0 {
                self.d.push(char::from(b'0' + (frac / 10) as u8));
            } else {
                self.d.push(char::from(b'0' + (frac / 10) as u8));
                self.d.push(char::from(b'0' + (frac % 10) as u8));
            }
        }
    }

    /// Writes the relative step from the current point to `p` and moves there.
    fn step(&mut self, p: (i32, i32)) {
        let (dx, dy) = (p.0 - self.at.0, p.1 - self.at.1);
        self.num(dx);
        self.num(dy);
        self.at = p;
    }
}

impl ttf_parser::OutlineBuilder for PathWriter {
    fn move_to(&mut self, x: f32, y: f32) {
        let p = self.point(x, y);
        self.command(b'm');
        self.step(p);
        self.start = p;
    }

    fn line_to(&mut self, x: f32, y: f32) {
        let p = self.point(x, y);
        if p == self.at {
            return;
        }
        if p.1 == self.at.1 {
            self.command(b'h');
            self.num(p.0 - self.at.0);
            self.at = p;
        } else if p.0 == self.at.0 {
            self.command(b'v');
            self.num(p.1 - self.at.1);
            self.at = p;
        } else {
            self.command(b'l');
            self.step(p);
        }
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let (c, p) = (self.point(x1, y1), self.point(x, y));
        self.command(b'q');
        let at = self.at;
        self.num(c.0 - at.0);
        self.num(c.1 - at.1);
        self.step(p);
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let (c1, c2, p) = (self.point(x1, y1), self.point(x2, y2), self.point(x, y));
        self.command(b'c');
        let at = self.at;
        for c in [c1, c2] {
            self.num(c.0 - at.0);
            self.num(c.1 - at.1);
        }
        self.step(p);
    }

    fn close(&mut self) {
        self.command(b'z');
        self.at = self.start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_numbers_are_compact_and_separated() {
        let mut w = PathWriter::new(1.0);
        for v in [150, 50, -25, 0, 1200, -100] {
            w.num(v);
        }
        assert_eq!(w.d, "1.5 .5-.25 0 12-1");
    }

    #[test]
    fn relative_steps_do_not_accumulate_rounding() {
        use ttf_parser::OutlineBuilder;
        // 0.333 px steps: each rounded absolute point is exact to a hundredth.
        let mut w = PathWriter::new(0.333);
        w.move_to(0.0, 0.0);
        for i in 1..=30 {
            w.line_to(i as f32, 0.0);
        }
        w.close();
        let steps: Vec<i32> =
            w.d.trim_start_matches("m0 0h")
                .trim_end_matches('z')
                .split(' ')
                .map(|t| (t.parse::<f32>().unwrap() * 100.0).round() as i32)
                .collect();
        assert_eq!(steps.len(), 30);
        assert_eq!(
            steps.iter().sum::<i32>(),
            (30.0f32 * 0.333 * 100.0).round() as i32
        );
    }

    /// `font` with `extra` tables added (directory rewritten in tag order; checksums left 0,
    /// which ttf-parser does not check).
    fn with_tables(font: &[u8], extra: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let be16 = |at: usize| usize::from(u16::from_be_bytes([font[at], font[at + 1]]));
        let be32 = |at: usize| u32::from_be_bytes(font[at..at + 4].try_into().unwrap()) as usize;
        let mut tables: BTreeMap<[u8; 4], Vec<u8>> = BTreeMap::new();
        for i in 0..be16(4) {
            let rec = 12 + 16 * i;
            let (offset, len) = (be32(rec + 8), be32(rec + 12));
            tables.insert(
                font[rec..rec + 4].try_into().unwrap(),
                font[offset..offset + len].to_vec(),
            );
        }
        for (tag, data) in extra {
            tables.insert(**tag, data.clone());
        }
        let mut out = font[..12].to_vec();
        out[4..6].copy_from_slice(&(tables.len() as u16).to_be_bytes());
        let mut offset = 12 + 16 * tables.len();
        for (tag, data) in &tables {
            out.extend_from_slice(tag);
            out.extend_from_slice(&[0; 4]);
            out.extend_from_slice(&(offset as u32).to_be_bytes());
            out.extend_from_slice(&(data.len() as u32).to_be_bytes());
            offset += data.len().next_multiple_of(4);
        }
        for data in tables.values() {
            out.extend_from_slice(data);
            out.resize(out.len().next_multiple_of(4), 0);
        }
        out
    }

    #[test]
    fn colr_layers_keep_palette_colours_and_the_text_colour() {
        let bundled = crate::render::fonts::bundled_faces()[0].1;
        let plain = ttf_parser::Face::parse(bundled, 0).unwrap();
        let gid = |c: char| plain.glyph_index(c).unwrap().0;
        let (base, under, over) = (gid('A'), gid('O'), gid('x'));
        let mut colr = Vec::new();
        for v in [0u16, 1] {
            colr.extend_from_slice(&v.to_be_bytes()); // version 0, one base glyph
        }
        colr.extend_from_slice(&14u32.to_be_bytes()); // base glyph records
        colr.extend_from_slice(&20u32.to_be_bytes()); // layer records
        for v in [2u16, base, 0, 2, under, 0, over, 0xFFFF] {
            colr.extend_from_slice(&v.to_be_bytes()); // 2 layers; O in palette 0, x in text colour
        }
        let mut cpal = Vec::new();
        for v in [0u16, 1, 1, 1] {
            cpal.extend_from_slice(&v.to_be_bytes()); // version 0, 1 entry, 1 palette, 1 colour
        }
        cpal.extend_from_slice(&14u32.to_be_bytes());
        cpal.extend_from_slice(&0u16.to_be_bytes());
        cpal.extend_from_slice(&[0x00, 0x00, 0xFF, 0x80]); // BGRA: red, half transparent
        let font = with_tables(bundled, &[(b"COLR", colr), (b"CPAL", cpal)]);
        let face = ttf_parser::Face::parse(&font, 0).unwrap();
        assert!(face.is_color_glyph(ttf_parser::GlyphId(base)));
        let scale = 14.0 / f32::from(face.units_per_em());
        let d = |g: u16| outline_d(&face, ttf_parser::GlyphId(g), scale).unwrap();
        for ink in [false, true] {
            let Some(Art::Element(tag, rest)) =
                glyph_art(&face, ttf_parser::GlyphId(base), 14.0, ink)
            else {
                panic!("a colour glyph is an element");
            };
            assert_eq!(tag, "g");
            assert_eq!(
                rest,
                format!(
                    "><path fill=\"#ff0000\" fill-opacity=\"0.5\" d=\"{}\"/><path d=\"{}\"/></g>",
                    d(under),
                    d(over)
                )
            );
        }
        // A glyph without colour layers is a plain outline.
        assert!(matches!(
            glyph_art(&face, ttf_parser::GlyphId(under), 14.0, false),
            Some(Art::Path(p)) if p == d(under)
        ));
    }

    #[test]
    fn glyph_ids_are_short_and_unique() {
        assert_eq!(glyph_id_name(0), "A");
        assert_eq!(glyph_id_name(26), "BA");
        let ids: std::collections::BTreeSet<String> = (0..2000).map(glyph_id_name).collect();
        assert_eq!(ids.len(), 2000);
    }
}
