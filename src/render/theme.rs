//! Themes: colour palettes and full themes (palette + window frame + spacing), loaded from the
//! JSON data files in `themes/` (compiled in) or from a user's theme file.
//! Facts: `shared/spec/themes.md` §1 (palettes) and §2 (cyberpunk full themes).
//!
//! # Theme files
//!
//! One JSON object, camelCase keys, unknown keys are an error. In a user file every key is
//! optional; the built-in files set at least `id`, `description`, `foreground`, `background` and
//! `ansi` (and `desktop`, except `cyberpunk`, which upstream gives none).
//!
//! | key | value |
//! |---|---|
//! | `id` | theme id |
//! | `description` | one line for listings |
//! | `foreground`, `background` | colours, `#rgb` or `#rrggbb` |
//! | `ansi` | 16 colours: indices 0–7 normal, 8–15 bright |
//! | `desktop` | 2 colours: the desktop gradient (top-left → bottom-right) |
//! | `window` | frame name or frame file path (see [`crate::render::chrome`]); makes it a "full" theme |
//! | `margin`, `padding`, `pcPadding` | px, ≥ 0 |
//! | `opacity` | 0..=1 |
//! | `fontFamily` | CSS font family |
//! | `fontSize` | px, 1–500 |
//!
//! Themes stack: `-t a -t b` resolves `dark`, then `a`, then `b`; each key a later theme sets
//! wins, arrays are replaced whole.
//!
//! Other programs' theme files (iTerm2, Windows Terminal, alacritty, kitty, Ghostty, the
//! original's `theme.json`) are read by [`formats`]; where `-t` finds them (installed ids,
//! window styles as themes, paths) is `crate::options::themes`.

use std::path::Path;

use serde::{Deserialize, Serialize};

pub mod formats;

use crate::term::Rgb;

/// A theme as written in a theme file: every field optional, so themes stack
/// (`-t a -t b`: fields `b` sets win).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThemeSpec {
    /// Theme id.
    pub id: Option<String>,
    /// One-line description.
    pub description: Option<String>,
    /// Default text colour.
    pub foreground: Option<Rgb>,
    /// Terminal background colour.
    pub background: Option<Rgb>,
    /// ANSI colours 0–15.
    pub ansi: Option<[Rgb; 16]>,
    /// Desktop gradient, top-left → bottom-right (themes.md §2).
    pub desktop: Option<[Rgb; 2]>,
    /// Window frame name or frame file path.
    pub window: Option<String>,
    /// Px between the frame's insets and the terminal background rect.
    pub margin: Option<f32>,
    /// Px between the terminal background edge and the text grid.
    pub padding: Option<f32>,
    /// Opacity (0..=1) of the frame, terminal background and header row.
    pub opacity: Option<f32>,
    /// Desktop padding of `-pc` frames, px.
    pub pc_padding: Option<f32>,
    /// CSS font family of the terminal text.
    pub font_family: Option<String>,
    /// Font size, px.
    pub font_size: Option<f32>,
    /// The desktop (`-pc`) variant of an original `theme.json` (its `appearance.pc`): the window
    /// is drawn on a desktop even when its frame file is not one. Not a key of our files.
    pub pc: Option<bool>,
}

/// A fully resolved theme: defaults (`dark`) overlaid with each spec in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// Default text colour.
    pub foreground: Rgb,
    /// Terminal background colour.
    pub background: Rgb,
    /// ANSI colours 0–15.
    pub ansi: [Rgb; 16],
    /// Desktop gradient, top-left → bottom-right.
    pub desktop: [Rgb; 2],
    /// Window frame the theme asks for (`None`: the CLI default).
    pub window: Option<String>,
    /// Margin, px (`None`: the CLI default).
    pub margin: Option<f32>,
    /// Padding, px (`None`: the CLI default).
    pub padding: Option<f32>,
    /// Opacity 0..=1 (`None`: 1).
    pub opacity: Option<f32>,
    /// Desktop padding, px (`None`: the frame's).
    pub pc_padding: Option<f32>,
    /// CSS font family (`None`: the default stack).
    pub font_family: Option<String>,
    /// Font size, px (`None`: 14).
    pub font_size: Option<f32>,
    /// Draw the window on a desktop (an original theme's `pc` variant; see [`ThemeSpec::pc`]).
    pub pc: bool,
}

/// Error loading a theme. Every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    /// Not a built-in id and not a path.
    #[error("unknown theme '{id}' (valid: {valid}; or a path to a theme file)")]
    Unknown {
        /// What was asked for.
        id: String,
        /// Comma-separated built-in ids.
        valid: String,
    },
    /// The file is in no format [`formats::detect`] knows.
    #[error("theme file '{path}': unknown format (expected {})", formats::KNOWN)]
    UnknownFormat {
        /// The path given.
        path: String,
    },
    /// The file could not be read.
    #[error("cannot read theme file '{path}': {source}")]
    Read {
        /// The path given.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not valid theme JSON.
    #[error("invalid theme file '{path}': {source}")]
    Json {
        /// The path given (or `built-in <id>`).
        path: String,
        /// Serde's message, with line and column.
        source: serde_json::Error,
    },
    /// A colour value does not parse.
    #[error(
        "invalid theme file '{path}': {key} = '{value}' is not a colour (expected #rgb or #rrggbb)"
    )]
    Color {
        /// The path given (or `built-in <id>`).
        path: String,
        /// The key, e.g. `foreground` or `ansi[3]`.
        key: String,
        /// The value found.
        value: String,
    },
    /// A value is out of range or an array has the wrong length.
    #[error("invalid theme file '{path}': {key} {msg}")]
    Value {
        /// The path given (or `built-in <id>`).
        path: String,
        /// The key.
        key: String,
        /// What is wrong.
        msg: String,
    },
}

/// A theme file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawTheme {
    id: Option<String>,
    description: Option<String>,
    foreground: Option<String>,
    background: Option<String>,
    ansi: Option<Vec<String>>,
    desktop: Option<Vec<String>>,
    window: Option<String>,
    margin: Option<f32>,
    padding: Option<f32>,
    opacity: Option<f32>,
    pc_padding: Option<f32>,
    font_family: Option<String>,
    font_size: Option<f32>,
}

const BUILTINS: [(&str, &str); 15] = [
    ("dark", include_str!("../../themes/dark.json")),
    ("light", include_str!("../../themes/light.json")),
    ("github-dark", include_str!("../../themes/github-dark.json")),
    (
        "github-light",
        include_str!("../../themes/github-light.json"),
    ),
    ("dracula", include_str!("../../themes/dracula.json")),
    (
        "gruvbox-dark",
        include_str!("../../themes/gruvbox-dark.json"),
    ),
    (
        "gruvbox-light",
        include_str!("../../themes/gruvbox-light.json"),
    ),
    ("one-light", include_str!("../../themes/one-light.json")),
    ("nord", include_str!("../../themes/nord.json")),
    (
        "solarized-dark",
        include_str!("../../themes/solarized-dark.json"),
    ),
    (
        "solarized-light",
        include_str!("../../themes/solarized-light.json"),
    ),
    ("tokyo-night", include_str!("../../themes/tokyo-night.json")),
    ("matrix", include_str!("../../themes/matrix.json")),
    ("cyberpunk", include_str!("../../themes/cyberpunk.json")),
    (
        "cyberpunk-pc",
        include_str!("../../themes/cyberpunk-pc.json"),
    ),
];

/// Ids of the built-in themes: the 13 palettes, then the 2 full themes (themes.md §1).
pub fn builtin_ids() -> Vec<&'static str> {
    BUILTINS.iter().map(|(id, _)| *id).collect()
}

fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.ends_with(".json") || Path::new(arg).exists()
}

/// A built-in theme id (these win over a file of the same name), or a path to a theme JSON
/// file (format in the module doc).
pub fn load(arg: &str) -> Result<ThemeSpec, ThemeError> {
    if let Some((id, text)) = BUILTINS.iter().find(|(id, _)| *id == arg) {
        return parse(text, &format!("built-in {id}"));
    }
    if !looks_like_path(arg) {
        return Err(ThemeError::Unknown {
            id: arg.to_string(),
            valid: builtin_ids().join(", "),
        });
    }
    let text = std::fs::read_to_string(arg).map_err(|source| ThemeError::Read {
        path: arg.to_string(),
        source,
    })?;
    parse(&text, arg)
}

/// Parses theme JSON `text`; `origin` names it in error messages.
pub(crate) fn parse(text: &str, origin: &str) -> Result<ThemeSpec, ThemeError> {
    let raw: RawTheme = serde_json::from_str(text).map_err(|source| ThemeError::Json {
        path: origin.to_string(),
        source,
    })?;
    let color = |key: &str, v: &str| {
        Rgb::parse_hex(v)
            .filter(|_| v.starts_with('#'))
            .ok_or_else(|| ThemeError::Color {
                path: origin.to_string(),
                key: key.to_string(),
                value: v.to_string(),
            })
    };
    let value = |key: &str, msg: String| ThemeError::Value {
        path: origin.to_string(),
        key: key.to_string(),
        msg,
    };
    let list = |key: &str, v: &[String], n: usize| -> Result<Vec<Rgb>, ThemeError> {
        if v.len() != n {
            return Err(value(
                key,
                format!("must list {n} colours, got {}", v.len()),
            ));
        }
        v.iter()
            .enumerate()
            .map(|(i, s)| color(&format!("{key}[{i}]"), s))
            .collect()
    };
    // The same ranges as the command-line options (--padding & co.: 0–10000 px).
    let nonneg = |key: &str, v: Option<f32>| match v {
        Some(x) if !(x.is_finite() && (0.0..=10_000.0).contains(&x)) => Err(value(
            key,
            format!("must be a number of px from 0 to 10000, got {x}"),
        )),
        _ => Ok(v),
    };
    let opacity = match raw.opacity {
        Some(o) if !(0.0..=1.0).contains(&o) => {
            return Err(value(
                "opacity",
                format!("must be between 0 and 1, got {o}"),
            ))
        }
        o => o,
    };
    let font_size = match raw.font_size {
        Some(s) if !(s.is_finite() && (1.0..=500.0).contains(&s)) => {
            return Err(value(
                "fontSize",
                format!("must be from 1 to 500 px, got {s}"),
            ))
        }
        s => s,
    };
    let ansi = match &raw.ansi {
        Some(v) => Some(<[Rgb; 16]>::try_from(list("ansi", v, 16)?).expect("length checked")),
        None => None,
    };
    let desktop = match &raw.desktop {
        Some(v) => Some(<[Rgb; 2]>::try_from(list("desktop", v, 2)?).expect("length checked")),
        None => None,
    };
    if let Some(w) = &raw.window {
        if w.trim().is_empty() {
            return Err(value("window", "must not be empty".into()));
        }
    }
    Ok(ThemeSpec {
        id: raw.id,
        description: raw.description,
        foreground: raw
            .foreground
            .as_deref()
            .map(|v| color("foreground", v))
            .transpose()?,
        background: raw
            .background
            .as_deref()
            .map(|v| color("background", v))
            .transpose()?,
        ansi,
        desktop,
        window: raw.window,
        margin: nonneg("margin", raw.margin)?,
        padding: nonneg("padding", raw.padding)?,
        opacity,
        pc_padding: nonneg("pcPadding", raw.pc_padding)?,
        font_family: raw.font_family,
        font_size,
        pc: None,
    })
}

/// Overlays `specs` in order on the `dark` defaults (themes.md §1, §3): each field a later spec
/// sets wins; arrays are replaced whole.
pub fn resolve(specs: &[ThemeSpec]) -> Theme {
    let dark = load("dark").expect("built-in dark theme is valid");
    let mut t = Theme {
        foreground: dark.foreground.expect("dark sets foreground"),
        background: dark.background.expect("dark sets background"),
        ansi: dark.ansi.expect("dark sets ansi"),
        desktop: dark.desktop.expect("dark sets desktop"),
        window: None,
        margin: None,
        padding: None,
        opacity: None,
        pc_padding: None,
        font_family: None,
        font_size: None,
        pc: false,
    };
    for s in specs {
        if let Some(v) = s.foreground {
            t.foreground = v;
        }
        if let Some(v) = s.background {
            t.background = v;
        }
        if let Some(v) = s.ansi {
            t.ansi = v;
        }
        if let Some(v) = s.desktop {
            t.desktop = v;
        }
        if s.window.is_some() {
            t.window.clone_from(&s.window);
        }
        t.margin = s.margin.or(t.margin);
        t.padding = s.padding.or(t.padding);
        t.opacity = s.opacity.or(t.opacity);
        t.pc_padding = s.pc_padding.or(t.pc_padding);
        if s.font_family.is_some() {
            t.font_family.clone_from(&s.font_family);
        }
        t.font_size = s.font_size.or(t.font_size);
        t.pc = s.pc.unwrap_or(t.pc);
    }
    t
}

/// Whether a built-in theme is only colours or also picks a window frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ThemeKind {
    /// Colours only.
    Palette,
    /// Colours plus a window frame and spacing.
    Full,
}

impl ThemeKind {
    /// `"palette"` or `"full"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ThemeKind::Palette => "palette",
            ThemeKind::Full => "full",
        }
    }
}

/// One row of the theme listing.
#[derive(Debug, Clone, PartialEq)]
pub struct ThemeInfo {
    /// Theme id.
    pub id: String,
    /// Built in, or installed by `theme install`.
    pub installed: bool,
    /// Palette or full theme.
    pub kind: ThemeKind,
    /// One-line description.
    pub description: String,
    /// Default text colour.
    pub foreground: Rgb,
    /// Terminal background colour.
    pub background: Rgb,
}

/// The built-in themes in [`builtin_ids`] order.
pub fn list() -> Vec<ThemeInfo> {
    BUILTINS
        .iter()
        .map(|(id, text)| {
            let s = parse(text, id).expect("built-in themes are valid");
            ThemeInfo {
                id: id.to_string(),
                installed: false,
                kind: if s.window.is_some() {
                    ThemeKind::Full
                } else {
                    ThemeKind::Palette
                },
                description: s.description.unwrap_or_default(),
                foreground: s.foreground.expect("built-ins set foreground"),
                background: s.background.expect("built-ins set background"),
            }
        })
        .collect()
}

/// Output format of [`format_list`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    /// Aligned plain-text columns with a header row.
    Table,
    /// A GitHub-flavoured Markdown table.
    Markdown,
    /// `{"schemaVersion":1,"themes":[{"id","kind","description","foreground","background"}]}`.
    Json,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonList {
    schema_version: u32,
    themes: Vec<JsonTheme>,
}

#[derive(Serialize)]
struct JsonTheme {
    id: String,
    kind: ThemeKind,
    source: &'static str,
    description: String,
    foreground: String,
    background: String,
}

/// The listing row of an installed theme `id` from its resolved `specs` (`-t id`).
pub fn installed_info(id: &str, specs: &[ThemeSpec]) -> ThemeInfo {
    let t = resolve(specs);
    let described = specs.iter().rev().find_map(|s| s.description.clone());
    ThemeInfo {
        id: id.to_string(),
        installed: true,
        kind: if t.window.is_some() {
            ThemeKind::Full
        } else {
            ThemeKind::Palette
        },
        description: described.unwrap_or_default(),
        foreground: t.foreground,
        background: t.background,
    }
}

/// The built-in themes, then `installed` (see [`installed_info`]), as text ending with a
/// newline (print it with `print!`). JSON rows carry `"source": "built-in"` or
/// `"installed"`; the text formats mark installed rows' descriptions `(installed)`.
pub fn format_list(format: ListFormat, installed: &[ThemeInfo]) -> String {
    let mut rows = list();
    rows.extend(installed.iter().cloned().map(|mut r| {
        if format != ListFormat::Json {
            r.description = format!("(installed) {}", r.description)
                .trim_end()
                .to_string();
        }
        r
    }));
    match format {
        ListFormat::Json => {
            let j = JsonList {
                schema_version: 1,
                themes: rows
                    .into_iter()
                    .map(|r| JsonTheme {
                        id: r.id,
                        kind: r.kind,
                        source: if r.installed { "installed" } else { "built-in" },
                        description: r.description,
                        foreground: r.foreground.to_hex(),
                        background: r.background.to_hex(),
                    })
                    .collect(),
            };
            let mut s = serde_json::to_string(&j).expect("serializable");
            s.push('\n');
            s
        }
        ListFormat::Markdown => {
            let mut s = String::from(
                "| id | kind | foreground | background | description |\n|---|---|---|---|---|\n",
            );
            for r in rows {
                s.push_str(&format!(
                    "| `{}` | {} | `{}` | `{}` | {} |\n",
                    r.id,
                    r.kind.as_str(),
                    r.foreground.to_hex(),
                    r.background.to_hex(),
                    r.description.replace('|', "\\|")
                ));
            }
            s
        }
        ListFormat::Table => {
            let idw = rows.iter().map(|r| r.id.len()).max().unwrap_or(0).max(2);
            let mut s = format!(
                "{:idw$}  {:7}  {:10}  {:10}  DESCRIPTION\n",
                "ID", "KIND", "FOREGROUND", "BACKGROUND"
            );
            for r in rows {
                s.push_str(&format!(
                    "{:idw$}  {:7}  {:10}  {:10}  {}\n",
                    r.id,
                    r.kind.as_str(),
                    r.foreground.to_hex(),
                    r.background.to_hex(),
                    r.description
                ));
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn hex(s: &str) -> Rgb {
        Rgb::parse_hex(s).unwrap()
    }

    /// themes.md §1: id, foreground, background, ansi[1], ansi[15], desktop.
    /// (id, foreground, background, ansi[1], ansi[15], desktop)
    type Row = (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        Option<[&'static str; 2]>,
    );

    const TABLE: [Row; 15] = [
        (
            "dark",
            "#d4d4d4",
            "#1e1e1e",
            "#cd3131",
            "#ffffff",
            Some(["#1a1d2e", "#252840"]),
        ),
        (
            "light",
            "#1e1e1e",
            "#ffffff",
            "#cd3131",
            "#a5a5a5",
            Some(["#dce5f2", "#f6f8fc"]),
        ),
        (
            "github-dark",
            "#c9d1d9",
            "#0d1117",
            "#ff7b72",
            "#f0f6fc",
            Some(["#0d1117", "#161b22"]),
        ),
        (
            "github-light",
            "#24292f",
            "#ffffff",
            "#cf222e",
            "#8c959f",
            Some(["#d0d7de", "#f6f8fa"]),
        ),
        (
            "dracula",
            "#f8f8f2",
            "#282a36",
            "#ff5555",
            "#ffffff",
            Some(["#21222c", "#44475a"]),
        ),
        (
            "gruvbox-dark",
            "#ebdbb2",
            "#282828",
            "#cc241d",
            "#ebdbb2",
            Some(["#1d2021", "#3c3836"]),
        ),
        (
            "gruvbox-light",
            "#3c3836",
            "#fbf1c7",
            "#cc241d",
            "#3c3836",
            Some(["#ebdbb2", "#fbf1c7"]),
        ),
        (
            "one-light",
            "#383a42",
            "#fafafa",
            "#e45649",
            "#ffffff",
            Some(["#dfe4ea", "#fafafa"]),
        ),
        (
            "nord",
            "#d8dee9",
            "#101420",
            "#bf616a",
            "#eceff4",
            Some(["#2e3440", "#3b4252"]),
        ),
        (
            "solarized-dark",
            "#839496",
            "#002b36",
            "#dc322f",
            "#fdf6e3",
            Some(["#002b36", "#073642"]),
        ),
        (
            "solarized-light",
            "#657b83",
            "#fdf6e3",
            "#dc322f",
            "#fdf6e3",
            Some(["#eee8d5", "#fdf6e3"]),
        ),
        (
            "tokyo-night",
            "#c0caf5",
            "#1a1b26",
            "#f7768e",
            "#c0caf5",
            Some(["#16161e", "#1f2335"]),
        ),
        (
            "matrix",
            "#00ff41",
            "#000000",
            "#00aa00",
            "#e6ffe6",
            Some(["#001a08", "#003d14"]),
        ),
        (
            "cyberpunk",
            "#d8f9ff",
            "#090b1a",
            "#ff3c9e",
            "#ffffff",
            None,
        ),
        (
            "cyberpunk-pc",
            "#d8f9ff",
            "#090b1a",
            "#ff3c9e",
            "#ffffff",
            Some(["#09051a", "#17104a"]),
        ),
    ];

    #[test]
    fn every_builtin_has_themes_md_colours() {
        assert_eq!(builtin_ids(), TABLE.map(|r| r.0).to_vec());
        for (id, fg, bg, a1, a15, desk) in TABLE {
            let t = load(id).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(t.id.as_deref(), Some(id));
            assert!(
                t.description.as_deref().is_some_and(|d| !d.is_empty()),
                "{id}"
            );
            assert_eq!(t.foreground, Some(hex(fg)), "{id} fg");
            assert_eq!(t.background, Some(hex(bg)), "{id} bg");
            let ansi = t.ansi.unwrap_or_else(|| panic!("{id} ansi"));
            assert_eq!(ansi[1], hex(a1), "{id} ansi[1]");
            assert_eq!(ansi[15], hex(a15), "{id} ansi[15]");
            assert_eq!(t.desktop, desk.map(|d| d.map(hex)), "{id} desktop");
        }
        // Full dark and solarized palettes, end to end.
        let dark = load("dark").unwrap().ansi.unwrap().map(|c| c.to_hex());
        assert_eq!(
            dark.join(" "),
            "#1e1e1e #cd3131 #0dbc79 #e5e510 #2472c8 #bc3fbc #11a8cd #e5e5e5 \
             #666666 #f14c4c #23d18b #f5f543 #3b8eea #d670d6 #29b8db #ffffff"
        );
        assert_eq!(
            load("solarized-dark").unwrap().ansi,
            load("solarized-light").unwrap().ansi
        );
    }

    #[test]
    fn full_themes_set_frame_and_spacing() {
        for id in ["cyberpunk", "cyberpunk-pc"] {
            let t = load(id).unwrap();
            assert_eq!(t.window.as_deref(), Some(id));
            assert_eq!(
                (t.margin, t.padding, t.opacity),
                (Some(3.0), Some(11.0), Some(0.85))
            );
            // The frame it names exists.
            crate::render::chrome::load(id).unwrap();
        }
        assert_eq!(load("cyberpunk").unwrap().pc_padding, None);
        assert_eq!(load("cyberpunk-pc").unwrap().pc_padding, Some(30.0));
        for id in &builtin_ids()[..13] {
            let t = load(id).unwrap();
            assert_eq!(t.window, None, "{id}");
            assert_eq!(
                (t.margin, t.padding, t.opacity, t.font_size),
                (None, None, None, None)
            );
        }
    }

    #[test]
    fn resolve_defaults_to_dark_and_later_wins() {
        let d = resolve(&[]);
        assert_eq!(d.foreground, hex("#d4d4d4"));
        assert_eq!(d.background, hex("#1e1e1e"));
        assert_eq!(d.desktop, [hex("#1a1d2e"), hex("#252840")]);
        assert_eq!(d.window, None);

        let t = resolve(&[load("cyberpunk").unwrap(), load("nord").unwrap()]);
        assert_eq!(t.background, hex("#101420")); // nord wins
        assert_eq!(t.ansi[14], hex("#8fbcbb"));
        assert_eq!(t.window.as_deref(), Some("cyberpunk")); // nord sets no window
        assert_eq!(t.padding, Some(11.0));
        assert_eq!(t.desktop, [hex("#2e3440"), hex("#3b4252")]);

        let t = resolve(&[load("nord").unwrap(), load("cyberpunk").unwrap()]);
        assert_eq!(t.background, hex("#090b1a"));
        assert_eq!(t.desktop, [hex("#2e3440"), hex("#3b4252")]); // cyberpunk sets none

        let fg_only = ThemeSpec {
            foreground: Some(hex("#123456")),
            ..Default::default()
        };
        let t = resolve(&[load("light").unwrap(), fg_only]);
        assert_eq!(t.foreground, hex("#123456"));
        assert_eq!(t.background, hex("#ffffff"));
    }

    fn temp(json: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
        f.write_all(json.as_bytes()).unwrap();
        f
    }

    #[test]
    fn theme_file_loads() {
        let f = temp(
            r##"{"background": "#fff", "ansi": ["#000","#100","#200","#300","#400","#500","#600","#700","#800","#900","#a00","#b00","#c00","#d00","#e00","#f00"], "window": "macos", "fontSize": 16, "fontFamily": "Fira Code", "opacity": 0.5}"##,
        );
        let s = load(f.path().to_str().unwrap()).unwrap();
        assert_eq!(s.id, None);
        assert_eq!(s.foreground, None);
        assert_eq!(s.background, Some(hex("#ffffff")));
        assert_eq!(s.ansi.unwrap()[15], hex("#ff0000"));
        let t = resolve(&[load("dracula").unwrap(), s]);
        assert_eq!(t.foreground, hex("#f8f8f2"));
        assert_eq!(t.background, hex("#ffffff"));
        assert_eq!(t.window.as_deref(), Some("macos"));
        assert_eq!(t.font_family.as_deref(), Some("Fira Code"));
        assert_eq!((t.font_size, t.opacity), (Some(16.0), Some(0.5)));
    }

    fn err_of(json: &str) -> (ThemeError, String, String) {
        let f = temp(json);
        let p = f.path().to_str().unwrap().to_string();
        let e = load(&p).unwrap_err();
        let m = e.to_string();
        assert!(!m.contains('\n'), "{m}");
        (e, m, p)
    }

    #[test]
    fn errors_are_clear_one_liners() {
        let e = load("drakula").unwrap_err();
        assert!(matches!(e, ThemeError::Unknown { .. }));
        let m = e.to_string();
        assert!(
            m.starts_with("unknown theme 'drakula' (valid: dark, light, github-dark,"),
            "{m}"
        );
        assert!(m.contains("cyberpunk-pc") && !m.contains('\n'), "{m}");

        let e = load("./no/such/theme.json").unwrap_err();
        assert!(matches!(e, ThemeError::Read { .. }));
        assert!(e
            .to_string()
            .starts_with("cannot read theme file './no/such/theme.json': "));

        let (e, m, p) = err_of(r##"{"foreground": "#fff",}"##);
        assert!(matches!(e, ThemeError::Json { .. }));
        assert!(
            m.starts_with(&format!("invalid theme file '{p}': ")) && m.contains("line 1"),
            "{m}"
        );

        let (_, m, _) = err_of(r##"{"forground": "#fff"}"##);
        assert!(m.contains("unknown field `forground`"), "{m}");

        let (e, m, p) = err_of(r#"{"background": "blue"}"#);
        assert!(matches!(e, ThemeError::Color { .. }));
        assert_eq!(
            m,
            format!("invalid theme file '{p}': background = 'blue' is not a colour (expected #rgb or #rrggbb)")
        );
        let (_, m, _) = err_of(r##"{"desktop": ["#000", "#12345"]}"##);
        assert!(m.contains("desktop[1] = '#12345'"), "{m}");
        let (e, m, _) = err_of(r##"{"ansi": ["#000"]}"##);
        assert!(matches!(e, ThemeError::Value { .. }));
        assert!(m.contains("ansi must list 16 colours, got 1"), "{m}");
        let (_, m, _) = err_of(r#"{"opacity": 1.5}"#);
        assert!(
            m.contains("opacity must be between 0 and 1, got 1.5"),
            "{m}"
        );
        let (_, m, _) = err_of(r#"{"padding": -2}"#);
        assert!(
            m.contains("padding must be a number of px from 0 to 10000, got -2"),
            "{m}"
        );
        let (_, m, _) = err_of(r#"{"fontSize": 0}"#);
        assert!(
            m.contains("fontSize must be from 1 to 500 px, got 0"),
            "{m}"
        );
    }

    #[test]
    fn listing_formats() {
        let l = list();
        assert_eq!(l.len(), 15);
        assert_eq!(l[0].id, "dark");
        assert_eq!(l[0].kind, ThemeKind::Palette);
        assert_eq!(l[14].kind, ThemeKind::Full);

        let j = format_list(ListFormat::Json, &[]);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["schemaVersion"], 1);
        assert_eq!(v["themes"].as_array().unwrap().len(), 15);
        assert_eq!(v["themes"][8]["id"], "nord");
        assert_eq!(v["themes"][8]["background"], "#101420");
        assert_eq!(v["themes"][13]["kind"], "full");
        assert!(j.starts_with(
            r#"{"schemaVersion":1,"themes":[{"id":"dark","kind":"palette","source":"built-in","description":"#
        ));

        let md = format_list(ListFormat::Markdown, &[]);
        assert_eq!(md.lines().count(), 17);
        assert!(
            md.contains("| `dracula` | palette | `#f8f8f2` | `#282a36` |"),
            "{md}"
        );

        let t = format_list(ListFormat::Table, &[]);
        assert_eq!(t.lines().count(), 16);
        assert!(
            t.starts_with("ID               KIND     FOREGROUND  BACKGROUND  DESCRIPTION\n"),
            "{t}"
        );
        assert!(
            t.contains("\ncyberpunk-pc     full     #d8f9ff     #090b1a     "),
            "{t}"
        );
    }
}
