//! Fonts: the bundled JetBrains Mono faces, the fallback chain through system fonts, cell
//! metrics, and the `@font-face` subsets embedded in the SVG.
//! STUB: the fonts helper replaces this file.

use std::collections::{BTreeMap, BTreeSet};

/// One of the four bundled faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaceStyle {
    Regular,
    Bold,
    Italic,
    BoldItalic,
}

impl FaceStyle {
    /// The face for a cell's bold and italic flags.
    pub fn of(bold: bool, italic: bool) -> FaceStyle {
        match (bold, italic) {
            (false, false) => FaceStyle::Regular,
            (true, false) => FaceStyle::Bold,
            (false, true) => FaceStyle::Italic,
            (true, true) => FaceStyle::BoldItalic,
        }
    }
}

/// Vertical and horizontal metrics of the bundled regular face, in em.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// Advance of `0`.
    pub advance: f32,
    pub ascender: f32,
    /// Positive distance below the baseline.
    pub descender: f32,
    pub line_gap: f32,
}

/// The face chosen for a cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// Real family name of the face that covers the cluster.
    pub family: String,
    /// True when that face is a bundled one.
    pub bundled: bool,
    /// Advance of the shaped cluster, em.
    pub advance: f32,
    /// False when no face covers it (a replacement box is shown).
    pub found: bool,
}

/// Family name of the bundled faces.
pub const BUNDLED_FAMILY: &str = "JetBrains Mono";

/// The bundled font files: (style, bytes).
pub fn bundled_faces() -> [(FaceStyle, &'static [u8]); 4] {
    [
        (FaceStyle::Regular, include_bytes!("../../fonts/JetBrainsMono-Regular.ttf")),
        (FaceStyle::Bold, include_bytes!("../../fonts/JetBrainsMono-Bold.ttf")),
        (FaceStyle::Italic, include_bytes!("../../fonts/JetBrainsMono-Italic.ttf")),
        (FaceStyle::BoldItalic, include_bytes!("../../fonts/JetBrainsMono-BoldItalic.ttf")),
    ]
}

/// Font database with the fallback chain.
pub struct Fonts {}

impl Fonts {
    /// Bundled faces only; system fonts are loaded on the first cluster they do not cover.
    pub fn new() -> Fonts {
        Fonts {}
    }

    /// Metrics of the bundled regular face.
    pub fn metrics(&self) -> Metrics {
        Metrics { advance: 0.6, ascender: 1.02, descender: 0.3, line_gap: 0.0 }
    }

    /// Picks the face for `cluster` in `style` and measures it.
    pub fn resolve(&self, _cluster: &str, _style: FaceStyle) -> Resolved {
        Resolved { family: BUNDLED_FAMILY.into(), bundled: true, advance: 0.6, found: true }
    }

    /// `@font-face` rules embedding subsets of the bundled faces with the given characters.
    pub fn embed_css(&self, _used: &BTreeMap<FaceStyle, BTreeSet<char>>) -> String {
        String::new()
    }
}

impl Default for Fonts {
    fn default() -> Fonts {
        Fonts::new()
    }
}
