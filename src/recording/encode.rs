//! Frames → an animation file: animated SVG ([`render::animation`]), GIF
//! ([`render::raster::GifWriter`]), MP4/WebM ([`super::ffmpeg`]). Shared by `capture`/`cast`
//! and scenario `record` blocks.

use super::{ffmpeg, Frame, Frames, RowId};
use crate::output::Format;
use crate::render::{self, animation, fonts::Fonts, Appearance};
use crate::term::Cell;

/// How an animation plays and is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Encoding {
    /// One play, ms (the last frame is held until then).
    pub duration_ms: u64,
    /// Loop for ever (else stop on the last frame).
    pub looped: bool,
    /// Frame rate of MP4/WebM (frames are repeated to fill it).
    pub fps: u32,
    /// Pixel scale of raster formats.
    pub scale: f32,
}

/// `frames` (not empty; see [`normalise`]) as an animation in `format`. The last frame is the
/// static state of an animated SVG. The animated SVG is drawn from the distinct rows directly;
/// raster formats draw one frame's screen at a time, so no more than one is ever built.
///
/// Errors: a still format (PNG), ffmpeg missing or failing, a frame too large to rasterise.
pub fn encode(
    frames: &Frames,
    format: Format,
    e: &Encoding,
    appearance: &Appearance,
    fonts: &Fonts,
) -> Result<Vec<u8>, String> {
    if frames.is_empty() {
        return Err("the recording has no frames".into());
    }
    match format {
        Format::Svg => {
            let list: Vec<animation::Frame<'_>> = frames
                .list
                .iter()
                .map(|f| animation::Frame {
                    time_ms: f.time.as_millis() as u64,
                    width: f.width,
                    rows: &f.rows,
                    cursor: f.cursor,
                    palette_overrides: &f.palette_overrides,
                })
                .collect();
            let timing = animation::Timing {
                duration_ms: e.duration_ms.max(1),
                looped: e.looped,
                static_frame: frames.len() - 1,
            };
            let table = frames.rows.table();
            Ok(animation::render_animated_svg(table, &list, timing, appearance, fonts).into_bytes())
        }
        Format::Gif => gif(frames, e, appearance, fonts),
        Format::Mp4 | Format::Webm => video(frames, format, e, appearance, fonts),
        Format::Png | Format::Jpg | Format::Webp => Err(
            "PNG, JPEG and WebP are still formats: use .svg, .gif, .mp4 or .webm for an animation, or --frame N / --time T for a still".into(),
        ),
    }
}

/// Every frame padded to the widest frame and cut (or padded) to one row count: the viewport
/// with `full_height`, else the rows any frame draws on (at least one). The padded rows are
/// interned afresh, so rows stay shared (and rows no frame uses any more are dropped).
pub fn normalise(frames: &mut Frames, full_height: bool) {
    let list = &frames.list;
    let width = list.iter().map(|f| f.width).max().unwrap_or(1);
    let rows = if full_height {
        list.iter().map(|f| f.rows.len()).max().unwrap_or(1)
    } else {
        list.iter()
            .map(|f| {
                let content = frames.last_content_row(f).map_or(0, |r| r + 1);
                let cursor = if f.cursor.visible {
                    f.cursor.row + 1
                } else {
                    0
                };
                content.max(cursor)
            })
            .max()
            .unwrap_or(1)
            .max(1)
    };
    // Each old row is moved (not copied) into the new table the first time a frame uses it.
    let mut old = std::mem::take(&mut frames.rows).into_table();
    let mut moved: Vec<Option<RowId>> = vec![None; old.len()];
    let mut blank: Option<RowId> = None;
    for f in &mut frames.list {
        f.rows.truncate(rows);
        for id in &mut f.rows {
            let was = *id;
            *id = *moved[was as usize].get_or_insert_with(|| {
                let mut cells = std::mem::take(&mut old[was as usize]);
                cells.resize(width, Cell::default());
                frames.rows.intern(cells)
            });
        }
        while f.rows.len() < rows {
            let id = *blank.get_or_insert_with(|| frames.rows.intern(vec![Cell::default(); width]));
            f.rows.push(id);
        }
        if f.cursor.row >= rows {
            f.cursor.visible = false;
            f.cursor.row = 0;
        }
        f.width = width;
    }
}

/// How long each frame shows, in `unit` ms steps, so that the steps add up to the whole.
fn steps(frames: &[Frame], duration_ms: u64, unit_ms: f64) -> Vec<u64> {
    let at = |ms: u64| (ms as f64 / unit_ms).round() as u64;
    (0..frames.len())
        .map(|i| {
            let start = at(frames[i].time.as_millis() as u64);
            let end = frames
                .get(i + 1)
                .map_or(at(duration_ms), |n| at(n.time.as_millis() as u64));
            end.saturating_sub(start)
        })
        .collect()
}

/// The GIF: frames are rasterised here, one at a time, while a second thread turns the
/// previous ones into GIF frames (palette and LZW, the larger share of the work), in order,
/// so the bytes are those of one thread doing both. At most two rasterised frames wait.
fn gif(
    frames: &Frames,
    e: &Encoding,
    appearance: &Appearance,
    fonts: &Fonts,
) -> Result<Vec<u8>, String> {
    let delays = steps(&frames.list, e.duration_ms, 10.0);
    let raster = |f: &Frame| {
        let scene = render::render_for_raster(&frames.screen(f), appearance, fonts);
        render::raster::rgba_scene(&scene, e.scale)
    };
    let mut list = frames.list.iter().zip(delays);
    let Some((first, cs)) = list.next() else {
        return Err("no frames".into());
    };
    let (rgba, w, h) = raster(first)?;
    let mut writer = render::raster::GifWriter::new(w, h, e.looped)?;
    let delay = |cs: u64| cs.clamp(2, u16::MAX as u64) as u16;
    writer.frame(rgba, delay(cs))?;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(Vec<u8>, u16)>(2);
        let encoder = scope.spawn(move || {
            for (rgba, cs) in rx {
                writer.frame(rgba, cs)?;
            }
            writer.finish()
        });
        for (f, cs) in list {
            let (rgba, _, _) = raster(f)?;
            if tx.send((rgba, delay(cs))).is_err() {
                // The encoder stopped on an error: it is the answer.
                break;
            }
        }
        drop(tx);
        encoder
            .join()
            .unwrap_or_else(|_| Err("the GIF encoder panicked".into()))
    })
}

fn video(
    frames: &Frames,
    format: Format,
    e: &Encoding,
    appearance: &Appearance,
    fonts: &Fonts,
) -> Result<Vec<u8>, String> {
    if ffmpeg::find().is_none() {
        return Err(ffmpeg::missing());
    }
    let fps = e.fps;
    let counts = steps(&frames.list, e.duration_ms, 1000.0 / fps as f64);
    let first = render::render_for_raster(&frames.screen(&frames.list[0]), appearance, fonts);
    let (_, w, h) = render::raster::rgba_scene(&first, e.scale)?;
    let mut iter = frames.list.iter().zip(counts).map(|(f, n)| {
        let scene = render::render_for_raster(&frames.screen(f), appearance, fonts);
        render::raster::rgba_scene(&scene, e.scale).map(|(rgba, _, _)| (rgba, n.max(1) as u32))
    });
    let container = if format == Format::Mp4 {
        ffmpeg::Container::Mp4
    } else {
        ffmpeg::Container::Webm
    };
    ffmpeg::encode(container, w, h, fps, &mut iter)
}
