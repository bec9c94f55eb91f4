//! Frames → an animation file: animated SVG ([`render::animation`]), GIF
//! ([`render::raster::GifWriter`]), MP4/WebM ([`super::ffmpeg`]). Shared by `capture`/`cast`
//! and scenario `record` blocks.

use super::{ffmpeg, Frame};
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
/// static state of an animated SVG.
///
/// Errors: a still format (PNG), ffmpeg missing or failing, a frame too large to rasterise.
pub fn encode(
    frames: &[Frame],
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
                .iter()
                .map(|f| animation::Frame {
                    time_ms: f.time.as_millis() as u64,
                    screen: &f.screen,
                })
                .collect();
            let timing = animation::Timing {
                duration_ms: e.duration_ms.max(1),
                looped: e.looped,
                static_frame: frames.len() - 1,
            };
            Ok(animation::render_animated_svg(&list, timing, appearance, fonts).into_bytes())
        }
        Format::Gif => gif(frames, e, appearance, fonts),
        Format::Mp4 | Format::Webm => video(frames, format, e, appearance, fonts),
        Format::Png => Err(
            "PNG is a still format: use .svg, .gif, .mp4 or .webm for an animation, or --frame N / --time T for a still".into(),
        ),
    }
}

/// Every frame padded to the widest frame and cut (or padded) to one row count: the viewport
/// with `full_height`, else the rows any frame draws on (at least one).
pub fn normalise(frames: &mut [Frame], full_height: bool) {
    let width = frames.iter().map(|f| f.screen.width).max().unwrap_or(1);
    let rows = if full_height {
        frames
            .iter()
            .map(|f| f.screen.rows.len())
            .max()
            .unwrap_or(1)
    } else {
        frames
            .iter()
            .map(|f| {
                let content = f.screen.last_content_row().map_or(0, |r| r + 1);
                let cursor = if f.screen.cursor.visible {
                    f.screen.cursor.row + 1
                } else {
                    0
                };
                content.max(cursor)
            })
            .max()
            .unwrap_or(1)
            .max(1)
    };
    for f in frames {
        let s = &mut f.screen;
        for row in &mut s.rows {
            row.resize(width, Cell::default());
        }
        s.rows.resize(rows, vec![Cell::default(); width]);
        if s.cursor.row >= rows {
            s.cursor.visible = false;
            s.cursor.row = 0;
        }
        s.width = width;
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

fn gif(
    frames: &[Frame],
    e: &Encoding,
    appearance: &Appearance,
    fonts: &Fonts,
) -> Result<Vec<u8>, String> {
    let delays = steps(frames, e.duration_ms, 10.0);
    let mut writer: Option<render::raster::GifWriter> = None;
    for (f, cs) in frames.iter().zip(delays) {
        let scene = render::render_for_raster(&f.screen, appearance, fonts);
        let (rgba, w, h) = render::raster::rgba_scene(&scene, e.scale)?;
        let gif = match &mut writer {
            Some(g) => g,
            None => writer.insert(render::raster::GifWriter::new(w, h, e.looped)?),
        };
        gif.frame(rgba, cs.clamp(2, u16::MAX as u64) as u16)?;
    }
    writer.ok_or("no frames")?.finish()
}

fn video(
    frames: &[Frame],
    format: Format,
    e: &Encoding,
    appearance: &Appearance,
    fonts: &Fonts,
) -> Result<Vec<u8>, String> {
    if ffmpeg::find().is_none() {
        return Err(ffmpeg::missing());
    }
    let fps = e.fps;
    let counts = steps(frames, e.duration_ms, 1000.0 / fps as f64);
    let first = render::render_for_raster(&frames[0].screen, appearance, fonts);
    let (_, w, h) = render::raster::rgba_scene(&first, e.scale)?;
    let mut iter = frames.iter().zip(counts).map(|(f, n)| {
        let scene = render::render_for_raster(&f.screen, appearance, fonts);
        render::raster::rgba_scene(&scene, e.scale).map(|(rgba, _, _)| (rgba, n.max(1) as u32))
    });
    let container = if format == Format::Mp4 {
        ffmpeg::Container::Mp4
    } else {
        ffmpeg::Container::Webm
    };
    ffmpeg::encode(container, w, h, fps, &mut iter)
}
