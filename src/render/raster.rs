//! PNG (and JPEG, WebP) output: the SVG rasterised in-process with resvg, using the bundled faces and the
//! system's fonts (for CJK and emoji fallback), so no external tool is needed. resvg ignores
//! `@font-face`; it finds the same faces by family name in this font database.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use resvg::tiny_skia;
use resvg::usvg::{self, fontdb};

use super::fonts::bundled_faces;
use super::outlines::{Outline, PathOp};
use super::RasterScene;
use crate::term::Rgb;

/// Largest PNG side, px (keeps a mistaken `--scale` from allocating gigabytes).
pub const MAX_SIDE: u32 = 16_384;

fn font_db() -> Arc<fontdb::Database> {
    static DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = fontdb::Database::new();
        for (_, bytes) in bundled_faces() {
            db.load_font_source(fontdb::Source::Binary(Arc::new(bytes)));
        }
        db.load_system_fonts();
        db.set_monospace_family(super::fonts::BUNDLED_FAMILY);
        Arc::new(db)
    })
    .clone()
}

/// Rasterises `svg` at `scale` (1 = one pixel per SVG px) and encodes it as PNG. Fonts (the
/// bundled faces and the system's) are loaded only when `svg` has a `<text>` element.
///
/// Errors: a message when the SVG cannot be parsed, the scale is not a finite number from
/// 0.1 to 10, or the image would be larger than [`MAX_SIDE`] on a side.
pub fn png(svg: &str, scale: f32) -> Result<Vec<u8>, String> {
    let pixmap = draw_svg(svg, scale)?;
    encode(&pixmap).map_err(|e| format!("cannot encode the PNG: {e}"))
}

/// Rasterises a [`RasterScene`] at `scale` and encodes it as PNG: its `below` SVG, then its
/// glyph outlines (each distinct glyph and sub-pixel offset rasterised once with tiny-skia's
/// anti-aliasing and composited source-over wherever it is placed), then its `above` SVG.
/// Looks like the [`super::render_svg`] picture rasterised by resvg.
///
/// Errors: as [`png()`].
pub fn png_scene(scene: &RasterScene, scale: f32) -> Result<Vec<u8>, String> {
    let pixmap = pixmap_scene(scene, scale)?;
    encode(&pixmap).map_err(|e| format!("cannot encode the PNG: {e}"))
}

/// Rasterises a [`RasterScene`] like [`png_scene`] and encodes it as a baseline JPEG of
/// quality 90 (ITU-T T.81, JFIF). JPEG has no alpha: transparent pixels (a transparent window,
/// rounded corners) are composited over white.
///
/// Errors: as [`png()`].
pub fn jpeg_scene(scene: &RasterScene, scale: f32) -> Result<Vec<u8>, String> {
    let (rgba, w, h) = rgba_scene(scene, scale)?;
    let mut rgb = Vec::with_capacity((w * h * 3) as usize);
    for p in rgba.chunks_exact(4) {
        let a = p[3] as u32;
        for &c in &p[..3] {
            rgb.push(((c as u32 * a + 255 * (255 - a) + 127) / 255) as u8);
        }
    }
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
        .encode(&rgb, w, h, image::ExtendedColorType::Rgb8)
        .map_err(|e| format!("cannot encode the JPEG: {e}"))?;
    Ok(out)
}

/// Rasterises a [`RasterScene`] like [`png_scene`] and encodes it as a lossless WebP
/// (VP8L), alpha kept: the same pixels as the PNG.
///
/// Errors: as [`png()`].
pub fn webp_scene(scene: &RasterScene, scale: f32) -> Result<Vec<u8>, String> {
    let (rgba, w, h) = rgba_scene(scene, scale)?;
    let mut out = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut out)
        .encode(&rgba, w, h, image::ExtendedColorType::Rgba8)
        .map_err(|e| format!("cannot encode the WebP: {e}"))?;
    Ok(out)
}

/// A [`RasterScene`] drawn at `scale` as straight (not premultiplied) RGBA bytes, with its
/// width and height in px: what [`png_scene`] encodes, for video frames.
///
/// Errors: as [`png()`].
pub fn rgba_scene(scene: &RasterScene, scale: f32) -> Result<(Vec<u8>, u32, u32), String> {
    let pixmap = pixmap_scene(scene, scale)?;
    let (w, h) = (pixmap.width(), pixmap.height());
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    for p in pixmap.pixels() {
        let c = p.demultiply();
        out.extend_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
    }
    Ok((out, w, h))
}

/// Animated GIF, written frame by frame: each frame gets its own palette, exact when the
/// frame has at most 256 colours (else NeuQuant's), with a delay in hundredths of a second.
///
/// After the first, a frame holds only the rectangle of pixels that changed, drawn over the
/// previous picture (disposal "keep"), with the pixels in it that did not change transparent,
/// so a line redrawn on a still screen costs that line. Pixels that are transparent in the
/// picture itself (a window's rounded corners) must be the same in every frame, as they are
/// for frames of one size.
pub struct GifWriter {
    encoder: gif::Encoder<Vec<u8>>,
    width: u16,
    height: u16,
    /// The previous frame's pixels (alpha made all or nothing).
    previous: Option<Vec<u8>>,
}

impl GifWriter {
    /// A GIF of `width` × `height` px that plays once (`looped` false) or for ever.
    ///
    /// Errors: a side over 65535 px, or the encoder's error.
    pub fn new(width: u32, height: u32, looped: bool) -> Result<GifWriter, String> {
        let side = |v: u32| {
            u16::try_from(v).map_err(|_| format!("a GIF side is at most 65535 px, got {v}"))
        };
        let (width, height) = (side(width)?, side(height)?);
        let mut encoder = gif::Encoder::new(Vec::new(), width, height, &[])
            .map_err(|e| format!("cannot encode the GIF: {e}"))?;
        if looped {
            encoder
                .set_repeat(gif::Repeat::Infinite)
                .map_err(|e| format!("cannot encode the GIF: {e}"))?;
        }
        Ok(GifWriter {
            encoder,
            width,
            height,
            previous: None,
        })
    }

    /// Adds a frame of straight RGBA bytes (see [`rgba_scene`]) shown for `delay_cs`
    /// hundredths of a second.
    ///
    /// Errors: a frame of another size, or the encoder's error.
    pub fn frame(&mut self, mut rgba: Vec<u8>, delay_cs: u16) -> Result<(), String> {
        if rgba.len() != self.width as usize * self.height as usize * 4 {
            return Err("every GIF frame must have the size of the first".into());
        }
        for pix in rgba.chunks_exact_mut(4) {
            if pix[3] != 0 {
                pix[3] = 0xFF;
            }
        }
        let mut frame = match &self.previous {
            None => indexed_frame(self.width, self.height, &mut rgba.clone()),
            Some(previous) => delta_frame(self.width, previous, &rgba),
        };
        frame.delay = delay_cs;
        frame.dispose = gif::DisposalMethod::Keep;
        self.previous = Some(rgba);
        self.encoder
            .write_frame(&frame)
            .map_err(|e| format!("cannot encode the GIF: {e}"))
    }

    /// The GIF file's bytes.
    ///
    /// Errors: the encoder's error.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        self.encoder
            .into_inner()
            .map_err(|e| format!("cannot encode the GIF: {e}"))
    }
}

/// The GIF frame that turns `previous` into `rgba` (straight RGBA rows of `width` px, alpha
/// all or nothing): the bounding rectangle of the changed pixels, the unchanged ones in it
/// transparent (a 1×1 transparent frame when nothing changed, to carry the delay).
fn delta_frame(width: u16, previous: &[u8], rgba: &[u8]) -> gif::Frame<'static> {
    let w = width as usize;
    let changed = |i: usize| previous[i * 4..i * 4 + 4] != rgba[i * 4..i * 4 + 4];
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for i in (0..rgba.len() / 4).filter(|&i| changed(i)) {
        let (x, y) = (i % w, i / w);
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
    }
    if x0 == usize::MAX {
        return gif::Frame {
            width: 1,
            height: 1,
            buffer: std::borrow::Cow::Owned(vec![0]),
            palette: Some(vec![0, 0, 0]),
            transparent: Some(0),
            ..gif::Frame::default()
        };
    }
    let mut part = Vec::with_capacity((x1 - x0) * (y1 - y0) * 4);
    for y in y0..y1 {
        for x in x0..x1 {
            let i = y * w + x;
            if changed(i) {
                part.extend_from_slice(&rgba[i * 4..i * 4 + 4]);
            } else {
                part.extend_from_slice(&[0, 0, 0, 0]);
            }
        }
    }
    let mut frame = indexed_frame((x1 - x0) as u16, (y1 - y0) as u16, &mut part);
    frame.left = x0 as u16;
    frame.top = y0 as u16;
    frame
}

/// A GIF frame of `rgba` (straight RGBA, `width` × `height`): byte for byte what
/// `gif::Frame::from_rgba_speed(width, height, rgba, 10)` makes, sooner on a terminal's
/// pictures. The gif crate looks every pixel up in a `BTreeSet` and a `BTreeMap` (over half
/// of a GIF's encoding time); a terminal frame has few colours in long runs, so here a pixel
/// equal to the one before it costs a comparison and the rest a hash look-up. Like gif's:
/// alpha is made all or nothing, every transparent pixel takes the first one's value, and a
/// frame of at most 256 colours gets the exact palette sorted by (r, g, b, a); more colours go
/// to gif's NeuQuant path (the alpha pass is idempotent, so it sees the same pixels).
fn indexed_frame(width: u16, height: u16, rgba: &mut [u8]) -> gif::Frame<'static> {
    let mut transparent: Option<[u8; 4]> = None;
    for pix in rgba.chunks_exact_mut(4) {
        if pix[3] != 0 {
            pix[3] = 0xFF;
            continue;
        }
        match transparent {
            Some(t) => pix.copy_from_slice(&t),
            None => transparent = Some([pix[0], pix[1], pix[2], pix[3]]),
        }
    }
    // Colours as big-endian u32s: their order is the (r, g, b, a) tuples' order.
    let colour = |pix: &[u8]| u32::from_be_bytes([pix[0], pix[1], pix[2], pix[3]]);
    let mut index: HashMap<u32, u8> = HashMap::new();
    let mut last = None;
    for pix in rgba.chunks_exact(4) {
        let c = colour(pix);
        if last != Some(c) {
            last = Some(c);
            index.entry(c).or_insert(0);
            if index.len() > 256 {
                return gif::Frame::from_rgba_speed(width, height, rgba, 10);
            }
        }
    }
    let mut sorted: Vec<u32> = index.keys().copied().collect();
    sorted.sort_unstable();
    let mut palette = Vec::with_capacity(sorted.len() * 3);
    for (i, c) in sorted.iter().enumerate() {
        index.insert(*c, i as u8);
        palette.extend_from_slice(&c.to_be_bytes()[..3]);
    }
    let mut buffer = Vec::with_capacity(rgba.len() / 4);
    let mut last = (u32::MAX, 0u8);
    for pix in rgba.chunks_exact(4) {
        let c = colour(pix);
        if c != last.0 || buffer.is_empty() {
            last = (c, index[&c]);
        }
        buffer.push(last.1);
    }
    gif::Frame {
        width,
        height,
        buffer: std::borrow::Cow::Owned(buffer),
        palette: Some(palette),
        transparent: transparent.map(|t| index[&u32::from_be_bytes(t)]),
        ..gif::Frame::default()
    }
}

/// A [`RasterScene`] drawn at `scale` (premultiplied pixmap).
fn pixmap_scene(scene: &RasterScene, scale: f32) -> Result<tiny_skia::Pixmap, String> {
    let mut pixmap = draw_svg(&scene.below, scale)?;
    let k = scale * scene.zoom;
    let mut masks: HashMap<(*const Outline, i32, i32), Option<GlyphMask>> = HashMap::new();
    for ink in &scene.ink {
        let (ox, oy) = (ink.x * k, ink.y * k);
        let (ix, iy) = (ox.floor(), oy.floor());
        // Sub-pixel phase in hundredths of a device px (moves a glyph by at most 0.005 px).
        let phase = (
            ((ox - ix) * 100.0).round() as i32,
            ((oy - iy) * 100.0).round() as i32,
        );
        let mask = masks
            .entry((Arc::as_ptr(&ink.outline), phase.0, phase.1))
            .or_insert_with(|| {
                GlyphMask::new(
                    &ink.outline,
                    k,
                    phase.0 as f32 / 100.0,
                    phase.1 as f32 / 100.0,
                )
            });
        if let Some(mask) = mask {
            mask.blend(&mut pixmap, ix as i32, iy as i32, ink.fill);
        }
    }
    if let Some(above) = &scene.above {
        let top = draw_svg(above, scale)?;
        pixmap.draw_pixmap(
            0,
            0,
            top.as_ref(),
            &tiny_skia::PixmapPaint::default(),
            tiny_skia::Transform::identity(),
            None,
        );
    }
    Ok(pixmap)
}

/// An anti-aliased coverage mask of one glyph at one sub-pixel phase.
struct GlyphMask {
    mask: tiny_skia::Mask,
    /// Offset of the mask's top-left from the placement's whole-pixel origin.
    dx: i32,
    dy: i32,
}

impl GlyphMask {
    /// `outline` scaled by `k` with its origin at (`fx`, `fy`) within a pixel; `None` when it
    /// covers nothing.
    fn new(outline: &Outline, k: f32, fx: f32, fy: f32) -> Option<GlyphMask> {
        let mut pb = tiny_skia::PathBuilder::new();
        for op in &outline.ops {
            match *op {
                PathOp::Move(x, y) => pb.move_to(x, y),
                PathOp::Line(x, y) => pb.line_to(x, y),
                PathOp::Quad(x1, y1, x, y) => pb.quad_to(x1, y1, x, y),
                PathOp::Cubic(x1, y1, x2, y2, x, y) => pb.cubic_to(x1, y1, x2, y2, x, y),
                PathOp::Close => pb.close(),
            }
        }
        let path = pb.finish()?;
        let b = path.bounds();
        let dx = (b.left() * k + fx).floor() as i32 - 1;
        let dy = (b.top() * k + fy).floor() as i32 - 1;
        let w = (b.right() * k + fx).ceil() as i32 + 1 - dx;
        let h = (b.bottom() * k + fy).ceil() as i32 + 1 - dy;
        let mut mask = tiny_skia::Mask::new(w.max(1) as u32, h.max(1) as u32)?;
        let transform =
            tiny_skia::Transform::from_row(k, 0.0, 0.0, k, fx - dx as f32, fy - dy as f32);
        mask.fill_path(&path, tiny_skia::FillRule::Winding, true, transform);
        Some(GlyphMask { mask, dx, dy })
    }

    /// Composites `fill` through the mask source-over onto `pixmap` (premultiplied RGBA) with
    /// the placement's whole-pixel origin at (`x`, `y`); parts outside the pixmap are skipped.
    fn blend(&self, pixmap: &mut tiny_skia::Pixmap, x: i32, y: i32, fill: Rgb) {
        let (pw, ph) = (pixmap.width() as i32, pixmap.height() as i32);
        let (mw, mh) = (self.mask.width() as i32, self.mask.height() as i32);
        let (x0, y0) = (x + self.dx, y + self.dy);
        let coverage = self.mask.data();
        let pixels = pixmap.data_mut();
        let src = [fill.r, fill.g, fill.b, 255u8];
        for my in 0..mh {
            let py = y0 + my;
            if py < 0 || py >= ph {
                continue;
            }
            for mx in 0..mw {
                let px = x0 + mx;
                if px < 0 || px >= pw {
                    continue;
                }
                let a = u32::from(coverage[(my * mw + mx) as usize]);
                if a == 0 {
                    continue;
                }
                let at = ((py * pw + px) * 4) as usize;
                for (c, &s) in pixels[at..at + 4].iter_mut().zip(&src) {
                    *c = ((u32::from(s) * a + u32::from(*c) * (255 - a) + 127) / 255) as u8;
                }
            }
        }
    }
}

/// Parses `svg` and draws it at `scale`, with fonts only when it has `<text>`.
fn draw_svg(svg: &str, scale: f32) -> Result<tiny_skia::Pixmap, String> {
    if !(scale.is_finite() && (0.1..=10.0).contains(&scale)) {
        return Err(format!("scale {scale} is not from 0.1 to 10"));
    }
    // Glyphs come as outlines: only text labels of a window frame need fonts, and scanning
    // the system's fonts costs more than drawing the picture.
    let opts = usvg::Options {
        fontdb: if svg.contains("<text") {
            font_db()
        } else {
            Arc::new(fontdb::Database::new())
        },
        ..usvg::Options::default()
    };
    let tree =
        usvg::Tree::from_str(svg, &opts).map_err(|e| format!("cannot rasterise the SVG: {e}"))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(scale)
        .ok_or("the image has no size")?;
    if size.width() > MAX_SIDE || size.height() > MAX_SIDE {
        return Err(format!(
            "a {}×{} px image is larger than {MAX_SIDE} px on a side; lower --scale or --size",
            size.width(),
            size.height()
        ));
    }
    draw(&tree, size, scale).ok_or_else(|| "cannot allocate the image".to_string())
}

/// Rows per band below which the picture is drawn in one piece.
const MIN_BAND: u32 = 128;

/// Draws `tree` at `scale` into a `size` pixmap, in horizontal bands on up to four threads
/// (each band is the same picture shifted up by a whole number of pixels, so the pixels match
/// a single pass). `None` when the image cannot be allocated.
fn draw(tree: &usvg::Tree, size: tiny_skia::IntSize, scale: f32) -> Option<tiny_skia::Pixmap> {
    let (w, h) = (size.width(), size.height());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4)) as u32;
    let bands = threads.min(h / MIN_BAND).max(1);
    let transform = tiny_skia::Transform::from_scale(scale, scale);
    if bands == 1 {
        let mut pixmap = tiny_skia::Pixmap::new(w, h)?;
        resvg::render(tree, transform, &mut pixmap.as_mut());
        return Some(pixmap);
    }
    let band_h = h.div_ceil(bands);
    let parts: Vec<Option<tiny_skia::Pixmap>> = std::thread::scope(|scope| {
        let jobs: Vec<_> = (0..bands)
            .map(|i| {
                let y0 = i * band_h;
                let rows = band_h.min(h - y0);
                scope.spawn(move || {
                    let mut band = tiny_skia::Pixmap::new(w, rows)?;
                    let shifted = transform.post_translate(0.0, -(y0 as f32));
                    resvg::render(tree, shifted, &mut band.as_mut());
                    Some(band)
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().ok().flatten()).collect()
    });
    let mut data = Vec::with_capacity(w as usize * h as usize * 4);
    for part in parts {
        data.extend_from_slice(part?.data());
    }
    tiny_skia::Pixmap::from_vec(data, size)
}

/// PNG of `pixmap`: RGB when every pixel is opaque, else RGBA (straight alpha), compressed
/// with the `png` crate's `Fast` level (fdeflate; several times faster than the default level
/// tiny-skia uses, for files a little larger). The pixels are the same either way.
fn encode(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let opaque = pixmap.pixels().iter().all(|p| p.alpha() == 255);
    let mut data = Vec::with_capacity(pixmap.pixels().len() * if opaque { 3 } else { 4 });
    for p in pixmap.pixels() {
        if opaque {
            data.extend_from_slice(&[p.red(), p.green(), p.blue()]);
        } else {
            let c = p.demultiply();
            data.extend_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(if opaque {
        png::ColorType::Rgb
    } else {
        png::ColorType::Rgba
    });
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&data)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_as_gifs(width: u16, height: u16, rgba: &[u8]) {
        let ours = indexed_frame(width, height, &mut rgba.to_vec());
        let theirs = gif::Frame::from_rgba_speed(width, height, &mut rgba.to_vec(), 10);
        assert_eq!(ours.buffer, theirs.buffer);
        assert_eq!(ours.palette, theirs.palette);
        assert_eq!(ours.transparent, theirs.transparent);
        assert_eq!((ours.width, ours.height), (theirs.width, theirs.height));
    }

    #[test]
    fn gif_frames_match_the_gif_crates() {
        // Few colours in runs, half-transparent and transparent pixels of differing colours.
        let (w, h) = (40u16, 10u16);
        let mut rgba = Vec::new();
        for i in 0..w as usize * h as usize {
            let px: [u8; 4] = match i % 37 {
                0..=9 => [30, 30, 30, 255],
                10..=19 => [200, 10, 10, 255],
                20 => [1, 2, 3, 0],
                21 => [9, 9, 9, 0],
                22 => [50, 60, 70, 128],
                _ => [(i / 37 % 5) as u8 * 40, 200, 0, 255],
            };
            rgba.extend_from_slice(&px);
        }
        same_as_gifs(w, h, &rgba);
        // Over 256 colours: NeuQuant's palette.
        let (w, h) = (64u16, 64u16);
        let rgba: Vec<u8> = (0..w as usize * h as usize)
            .flat_map(|i| {
                [
                    (i % 64 * 4) as u8,
                    (i / 64 * 4) as u8,
                    (i % 7 * 30) as u8,
                    255,
                ]
            })
            .collect();
        same_as_gifs(w, h, &rgba);
    }
}
