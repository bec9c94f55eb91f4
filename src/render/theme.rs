//! Themes: colour palettes and full themes (palette + window frame + spacing), loaded from the
//! JSON data files in `themes/` (compiled in) or from a user's theme file.
//! Facts: `shared/spec/themes.md` §1.
//! STUB: the theme helper replaces this file.

use crate::term::Rgb;

/// A theme as written in a theme file: every field optional, so themes stack
/// (`-t a -t b`: fields `b` sets win).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThemeSpec {
    pub id: Option<String>,
    pub foreground: Option<Rgb>,
    pub background: Option<Rgb>,
    pub ansi: Option<[Rgb; 16]>,
    pub desktop: Option<[Rgb; 2]>,
    pub window: Option<String>,
    pub margin: Option<f32>,
    pub padding: Option<f32>,
    pub opacity: Option<f32>,
    pub pc_padding: Option<f32>,
    pub font_family: Option<String>,
    pub font_size: Option<f32>,
}

/// A fully resolved theme: defaults (`dark`) overlaid with each spec in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub foreground: Rgb,
    pub background: Rgb,
    pub ansi: [Rgb; 16],
    pub desktop: [Rgb; 2],
    pub window: Option<String>,
    pub margin: Option<f32>,
    pub padding: Option<f32>,
    pub opacity: Option<f32>,
    pub pc_padding: Option<f32>,
    pub font_family: Option<String>,
    pub font_size: Option<f32>,
}

/// Error loading a theme.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("unknown theme '{0}'")]
    Unknown(String),
}

/// Ids of the built-in themes.
pub fn builtin_ids() -> Vec<&'static str> {
    vec!["dark"]
}

/// A built-in theme id, or a path to a theme JSON file.
pub fn load(arg: &str) -> Result<ThemeSpec, ThemeError> {
    Err(ThemeError::Unknown(arg.into()))
}

/// Overlays `specs` in order on the `dark` defaults.
pub fn resolve(_specs: &[ThemeSpec]) -> Theme {
    let h = |s| Rgb::parse_hex(s).unwrap();
    Theme {
        foreground: h("#d4d4d4"),
        background: h("#1e1e1e"),
        ansi: [
            "#1e1e1e", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
            "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
        ]
        .map(h),
        desktop: [h("#1a1d2e"), h("#252840")],
        window: None,
        margin: None,
        padding: None,
        opacity: None,
        pc_padding: None,
        font_family: None,
        font_size: None,
    }
}

/// Output formats of [`format_list`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    Table,
    Markdown,
    Json,
}

/// The built-in themes as a table, Markdown or JSON.
pub fn format_list(_format: ListFormat) -> String {
    String::new()
}
