//! PNG output: the SVG rasterised in-process with resvg, using the bundled faces and the
//! system's fonts (for CJK and emoji fallback), so no external tool is needed. resvg ignores
//! `@font-face`; it finds the same faces by family name in this font database.

use std::sync::{Arc, OnceLock};

use resvg::tiny_skia;
use resvg::usvg::{self, fontdb};

use super::fonts::bundled_faces;

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
    if !(scale.is_finite() && (0.1..=10.0).contains(&scale)) {
        return Err(format!("scale {scale} is not from 0.1 to 10"));
    }
    // Glyphs come as outlines (`render_svg_for_raster`): only text labels of a window frame
    // need fonts, and scanning the system's fonts costs more than drawing the picture.
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
    let mut pixmap =
        tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("cannot allocate the image")?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| format!("cannot encode the PNG: {e}"))
}
