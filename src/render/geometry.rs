//! Box drawing (U+2500–U+257F), block elements and shades (U+2580–U+259F) and Powerline
//! separators (U+E0B0–U+E0B3) drawn as geometry that tiles with no gap.
//! STUB: the geometry helper replaces this file.

/// True when `c` is drawn by [`draw`] instead of a font glyph.
pub fn covers(_c: char) -> bool {
    false
}

/// Emits the shapes of `c` in the cell at (`x`, `y`) of size `w` × `h` px as SVG path data,
/// each with its fill alpha in percent (100 = opaque; shades use 25/50/75).
pub fn draw(_c: char, _x: f32, _y: f32, _w: f32, _h: f32, _emit: &mut dyn FnMut(u8, &str)) {}
