//! Theme files other terminals write, read into a [`ThemeSpec`] (colours only): iTerm2
//! `.itermcolors` (a property list), Windows Terminal colour schemes (JSON), alacritty (TOML),
//! kitty (`.conf`) and Ghostty themes (`key = value` lines), plus the original console2svg's
//! `theme.json` (`schemaVersion: 1`). Pure: text in, spec out; the caller reads the file.
//!
//! Each format names the 16 ANSI colours its own way; a file that gives some of them must give
//! all 16 (the error names the first one missing). Keys a format has beyond the palette, the
//! foreground and the background (cursor, selection, tab bar colours…) are read over.
//!
//! | format | where the colours are (the format's documentation) |
//! |---|---|
//! | iTerm2 | `Ansi 0 Color` … `Ansi 15 Color`, `Foreground Color`, `Background Color`: dicts of `Red/Green/Blue Component` reals 0–1 (a `Color Space` is read as sRGB) |
//! | Windows Terminal | `black red green yellow blue purple cyan white`, the same with `bright` (`brightBlack` …), `foreground`, `background`: `#rrggbb` |
//! | alacritty | `[colors.primary] foreground background`, `[colors.normal]` and `[colors.bright]` `black red green yellow blue magenta cyan white`: `#rrggbb` or `0xrrggbb` |
//! | kitty | `foreground`, `background`, `color0` … `color15`, one `key value` a line, `#` comments |
//! | Ghostty | `foreground = `, `background = `, `palette = N=#rrggbb` (N 0–15), one a line, `#` comments; colours with or without `#`, or a colour name |
//! | original `theme.json` | `terminal: {foreground, background, ansiPalette[16]}`, `appearance.normal`/`.pc` variants (see [`parse_original`]) |

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{ThemeError, ThemeSpec};
use crate::term::Rgb;

/// A theme file's format, found by [`detect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// This program's theme JSON (module doc of [`super`]).
    Ours,
    /// The original console2svg's `theme.json` (`schemaVersion: 1`).
    Original,
    /// A Windows Terminal colour scheme object.
    WindowsTerminal,
    /// iTerm2 `.itermcolors`.
    ITerm2,
    /// alacritty TOML.
    Alacritty,
    /// kitty `.conf`.
    Kitty,
    /// A Ghostty theme.
    Ghostty,
}

impl Format {
    /// A short name for messages and listings (`itermcolors`, `windows-terminal`…).
    pub fn name(self) -> &'static str {
        match self {
            Format::Ours => "console2svg",
            Format::Original => "console2svg-original",
            Format::WindowsTerminal => "windows-terminal",
            Format::ITerm2 => "itermcolors",
            Format::Alacritty => "alacritty",
            Format::Kitty => "kitty",
            Format::Ghostty => "ghostty",
        }
    }
}

/// The formats [`detect`] knows, for the "unknown format" message.
pub const KNOWN: &str = "a theme JSON file (ours, the original's theme.json or a Windows \
    Terminal scheme), an iTerm2 .itermcolors, an alacritty .toml, a kitty .conf or a Ghostty theme";

/// The format of a file named `name` holding `bytes`: by extension (`.itermcolors`, `.toml`,
/// `.conf`, `.json`; another extension is none), else by content (a plist, a JSON object,
/// alacritty's `[colors…]` tables, `key = value` or kitty's `colorN value` lines). `None`: none
/// of them.
pub fn detect(name: &str, bytes: &[u8]) -> Option<Format> {
    let bytes = without_bom(bytes);
    let ext = std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let text = std::str::from_utf8(bytes).ok();
    let head = text.map(str::trim_start).unwrap_or("");
    match ext.as_deref() {
        Some("itermcolors") => return Some(Format::ITerm2),
        Some("plist") => return Some(Format::ITerm2),
        Some("toml") => return Some(Format::Alacritty),
        // kitty's `name value` lines, unless every line is Ghostty's `key = value`.
        Some("conf") if ghostty_lines(head) => return Some(Format::Ghostty),
        Some("conf") => return Some(Format::Kitty),
        Some("json") => return Some(json_kind(head)),
        // Ghostty themes have no extension; any other one is no theme format.
        Some(_) => return None,
        None => {}
    }
    if bytes.starts_with(b"bplist") || head.starts_with("<?xml") || head.starts_with("<plist") {
        return Some(Format::ITerm2);
    }
    if head.starts_with('{') {
        return Some(json_kind(head));
    }
    let lines: Vec<&str> = head
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    if lines.is_empty() {
        return None;
    }
    if lines.iter().any(|l| l.starts_with("[colors")) {
        return Some(Format::Alacritty);
    }
    if ghostty_lines(head) {
        return Some(Format::Ghostty);
    }
    let kitty = |l: &&str| {
        l.split_once(char::is_whitespace)
            .is_some_and(|(k, _)| is_key(k))
    };
    if lines.iter().all(kitty)
        && lines
            .iter()
            .any(|l| l.starts_with("color") || l.starts_with("foreground"))
    {
        return Some(Format::Kitty);
    }
    None
}

/// Whether every line of `text` (blank lines and `#` comments aside, at least one) is
/// Ghostty's `key = value`.
fn ghostty_lines(text: &str) -> bool {
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .peekable();
    lines.peek().is_some()
        && lines.all(|l| l.split_once('=').is_some_and(|(k, _)| is_key(k.trim())))
}

/// `bytes` without a leading UTF-8 byte-order mark (files saved on Windows often have one).
fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

fn is_key(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn json_kind(text: &str) -> Format {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(m)) if m.contains_key("schemaVersion") => Format::Original,
        Ok(serde_json::Value::Object(m))
            if m.contains_key("brightWhite") || m.contains_key("purple") =>
        {
            Format::WindowsTerminal
        }
        _ => Format::Ours,
    }
}

/// A colour as the foreign formats write it: `#rgb`, `#rrggbb`, `0xrrggbb`, bare `rrggbb`, or a
/// CSS/X11 colour name (`rgb()` too); alpha, if any, is dropped.
pub fn parse_color(v: &str) -> Option<Rgb> {
    let v = v.trim().trim_matches('"');
    if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        return Rgb::parse_hex(&format!("#{hex}")).filter(|_| hex.len() == 6);
    }
    if v.len() == 6 && v.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Rgb::parse_hex(&format!("#{v}"));
    }
    if v.starts_with('#') {
        return Rgb::parse_hex(v);
    }
    crate::render::colors::parse_css(v)
}

/// Collects a format's colours by key, then checks the palette is whole.
struct Collect<'a> {
    origin: &'a str,
    fg: Option<Rgb>,
    bg: Option<Rgb>,
    ansi: [Option<Rgb>; 16],
}

impl<'a> Collect<'a> {
    fn new(origin: &'a str) -> Self {
        Collect {
            origin,
            fg: None,
            bg: None,
            ansi: [None; 16],
        }
    }

    fn bad(&self, key: &str, value: &str) -> ThemeError {
        ThemeError::Color {
            path: self.origin.to_string(),
            key: key.to_string(),
            value: value.to_string(),
        }
    }

    fn color(&self, key: &str, value: &str) -> Result<Rgb, ThemeError> {
        parse_color(value).ok_or_else(|| self.bad(key, value))
    }

    /// `names[i]` is how the format names ANSI colour `i` (for the "missing" message).
    fn finish(self, names: impl Fn(usize) -> String) -> Result<ThemeSpec, ThemeError> {
        let given = self.ansi.iter().filter(|c| c.is_some()).count();
        let ansi = match given {
            0 => None,
            16 => Some(self.ansi.map(|c| c.expect("all 16 given"))),
            _ => {
                let i = self
                    .ansi
                    .iter()
                    .position(Option::is_none)
                    .expect("one missing");
                return Err(ThemeError::Value {
                    path: self.origin.to_string(),
                    key: names(i),
                    msg: format!("is missing (the file gives {given} of the 16 ANSI colours)"),
                });
            }
        };
        if ansi.is_none() && self.fg.is_none() && self.bg.is_none() {
            return Err(ThemeError::Value {
                path: self.origin.to_string(),
                key: "colours".into(),
                msg: "not found (no foreground, background or ANSI colour in the file)".into(),
            });
        }
        Ok(ThemeSpec {
            foreground: self.fg,
            background: self.bg,
            ansi,
            ..ThemeSpec::default()
        })
    }
}

const NAMES: [&str; 8] = [
    "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
];

/// Reads a file of `format` (from `origin`, named in errors). [`Format::Ours`] goes through the
/// theme module's own JSON reader, [`Format::Original`] through [`parse_original`] (its
/// `normal` variant); the others are read here.
///
/// Errors: one line naming `origin` and the key: the file does not parse as its format, a
/// colour does not parse, the palette is partial, no colour at all.
pub fn parse(format: Format, bytes: &[u8], origin: &str) -> Result<ThemeSpec, ThemeError> {
    let bytes = without_bom(bytes);
    let text = || {
        std::str::from_utf8(bytes).map_err(|_| ThemeError::Value {
            path: origin.to_string(),
            key: "file".into(),
            msg: "is not UTF-8 text".into(),
        })
    };
    match format {
        Format::Ours => super::parse(text()?, origin),
        Format::Original => parse_original(text()?, origin).map(|o| o.normal),
        Format::WindowsTerminal => windows_terminal(text()?, origin),
        Format::ITerm2 => iterm2(bytes, origin),
        Format::Alacritty => alacritty(text()?, origin),
        Format::Kitty => kitty(text()?, origin),
        Format::Ghostty => ghostty(text()?, origin),
    }
}

fn windows_terminal(text: &str, origin: &str) -> Result<ThemeSpec, ThemeError> {
    let map: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(text).map_err(|source| ThemeError::Json {
            path: origin.to_string(),
            source,
        })?;
    let wt = |i: usize| {
        let n = if NAMES[i % 8] == "magenta" {
            "purple"
        } else {
            NAMES[i % 8]
        };
        if i < 8 {
            n.to_string()
        } else {
            format!("bright{}{}", n[..1].to_ascii_uppercase(), &n[1..])
        }
    };
    let mut c = Collect::new(origin);
    let get = |c: &Collect, key: &str| -> Result<Option<Rgb>, ThemeError> {
        match map.get(key) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) => c.color(key, s).map(Some),
            Some(other) => Err(c.bad(key, &other.to_string())),
        }
    };
    c.fg = get(&c, "foreground")?;
    c.bg = get(&c, "background")?;
    for i in 0..16 {
        c.ansi[i] = get(&c, &wt(i))?;
    }
    let mut spec = c.finish(wt)?;
    spec.id = map.get("name").and_then(|v| v.as_str()).map(str::to_string);
    spec.description = spec
        .id
        .as_ref()
        .map(|n| format!("{n} (Windows Terminal scheme)"));
    Ok(spec)
}

fn iterm2(bytes: &[u8], origin: &str) -> Result<ThemeSpec, ThemeError> {
    let bad = |msg: String| ThemeError::Value {
        path: origin.to_string(),
        key: "plist".into(),
        msg,
    };
    let value = plist::Value::from_reader(std::io::Cursor::new(bytes))
        .map_err(|e| bad(format!("does not parse: {e}")))?;
    let dict = value
        .as_dictionary()
        .ok_or_else(|| bad("is not a dictionary of colours".into()))?;
    let mut c = Collect::new(origin);
    let get = |c: &Collect, key: &str| -> Result<Option<Rgb>, ThemeError> {
        let Some(v) = dict.get(key) else {
            return Ok(None);
        };
        let d = v
            .as_dictionary()
            .ok_or_else(|| c.bad(key, "not a colour dictionary"))?;
        let mut rgb = [0u8; 3];
        for (slot, part) in
            rgb.iter_mut()
                .zip(["Red Component", "Green Component", "Blue Component"])
        {
            let x = d
                .get(part)
                .and_then(|v| {
                    v.as_real()
                        .or_else(|| v.as_signed_integer().map(|i| i as f64))
                })
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| c.bad(&format!("{key}.{part}"), "missing or not a number 0–1"))?;
            *slot = (x * 255.0).round() as u8;
        }
        Ok(Some(Rgb::new(rgb[0], rgb[1], rgb[2])))
    };
    c.fg = get(&c, "Foreground Color")?;
    c.bg = get(&c, "Background Color")?;
    for i in 0..16 {
        c.ansi[i] = get(&c, &format!("Ansi {i} Color"))?;
    }
    c.finish(|i| format!("Ansi {i} Color"))
}

fn alacritty(text: &str, origin: &str) -> Result<ThemeSpec, ThemeError> {
    let doc: toml::Table = toml::from_str(text).map_err(|e| ThemeError::Value {
        path: origin.to_string(),
        key: "toml".into(),
        msg: format!("does not parse: {}", e.message()),
    })?;
    let colors = doc.get("colors").and_then(|v| v.as_table());
    let mut c = Collect::new(origin);
    let get = |c: &Collect, group: &str, key: &str| -> Result<Option<Rgb>, ThemeError> {
        let Some(v) = colors
            .and_then(|t| t.get(group))
            .and_then(|g| g.as_table())
            .and_then(|g| g.get(key))
        else {
            return Ok(None);
        };
        let full = format!("colors.{group}.{key}");
        match v.as_str() {
            Some(s) => c.color(&full, s).map(Some),
            None => Err(c.bad(&full, &format!("{v:?}"))),
        }
    };
    c.fg = get(&c, "primary", "foreground")?;
    c.bg = get(&c, "primary", "background")?;
    for i in 0..16 {
        let group = if i < 8 { "normal" } else { "bright" };
        c.ansi[i] = get(&c, group, NAMES[i % 8])?;
    }
    c.finish(|i| {
        format!(
            "colors.{}.{}",
            if i < 8 { "normal" } else { "bright" },
            NAMES[i % 8]
        )
    })
}

/// `key value` (kitty) or `key = value` (Ghostty) lines, `#` comments; (line number, key, value).
fn lines(text: &str, sep_eq: bool) -> impl Iterator<Item = (usize, &str, &str)> {
    text.lines().enumerate().filter_map(move |(n, l)| {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            return None;
        }
        let (k, v) = if sep_eq {
            l.split_once('=')?
        } else {
            l.split_once(char::is_whitespace)?
        };
        Some((n + 1, k.trim(), v.trim()))
    })
}

fn kitty(text: &str, origin: &str) -> Result<ThemeSpec, ThemeError> {
    let mut c = Collect::new(origin);
    for (_, k, v) in lines(text, false) {
        match k {
            "foreground" => c.fg = Some(c.color(k, v)?),
            "background" => c.bg = Some(c.color(k, v)?),
            _ => {
                if let Some(i) = k
                    .strip_prefix("color")
                    .and_then(|n| n.parse::<usize>().ok())
                {
                    if i < 16 {
                        c.ansi[i] = Some(c.color(k, v)?);
                    }
                }
            }
        }
    }
    c.finish(|i| format!("color{i}"))
}

fn ghostty(text: &str, origin: &str) -> Result<ThemeSpec, ThemeError> {
    let mut c = Collect::new(origin);
    for (_, k, v) in lines(text, true) {
        match k {
            "foreground" => c.fg = Some(c.color(k, v)?),
            "background" => c.bg = Some(c.color(k, v)?),
            "palette" => {
                let (n, col) = v.split_once('=').ok_or_else(|| c.bad(k, v))?;
                let i: usize = n.trim().parse().map_err(|_| c.bad(k, v))?;
                let key = format!("palette = {i}");
                let rgb = c.color(&key, col)?;
                if i < 16 {
                    c.ansi[i] = Some(rgb);
                }
            }
            _ => {}
        }
    }
    c.finish(|i| format!("palette = {i}"))
}

/// The original's `theme.json` as read: what [`parse_original`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct OriginalTheme {
    /// `id`.
    pub id: String,
    /// `$include` ids, in order (inherited first, later wins).
    pub includes: Vec<String>,
    /// The `normal` variant over the terminal colours; its `window` is as written (a built-in
    /// name or an asset path relative to the theme's directory).
    pub normal: ThemeSpec,
    /// The `pc` variant's id and spec, if any.
    pub pc: Option<(String, ThemeSpec)>,
    /// `preview` and every variant's `window` that is an asset path (not a built-in name), as
    /// written: a loader resolves the window inside the theme's directory (the preview image
    /// is not read).
    pub assets: Vec<String>,
}

/// `version`, `author`, `license` and `preview` are read (so their types are checked) and not
/// used: a listing shows the description, else the name.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawOriginal {
    schema_version: u32,
    id: String,
    name: String,
    #[serde(default)]
    #[allow(dead_code)]
    version: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    author: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    license: Option<String>,
    #[serde(default)]
    preview: Option<String>,
    #[serde(rename = "$include", default)]
    include: Vec<RawInclude>,
    #[serde(default)]
    terminal: Option<RawTerminal>,
    #[serde(default)]
    appearance: Option<RawAppearance>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawInclude {
    Id(String),
    Full {
        id: String,
        #[serde(default)]
        source: Option<String>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawTerminal {
    foreground: String,
    background: String,
    #[serde(default)]
    ansi_palette: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAppearance {
    #[serde(default)]
    normal: Option<RawVariant>,
    #[serde(default)]
    pc: Option<RawVariant>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawVariant {
    id: String,
    #[serde(default)]
    window: Option<String>,
    #[serde(default)]
    background: Option<Vec<String>>,
    #[serde(default)]
    pc_padding: Option<f32>,
    #[serde(default)]
    margin: Option<f32>,
    #[serde(default)]
    padding: Option<f32>,
    #[serde(default)]
    opacity: Option<f32>,
    #[serde(default)]
    font: Option<String>,
    #[serde(default)]
    font_size: Option<f32>,
}

/// Reads the original console2svg's `theme.json` (shared/spec/console2svg-contract.md,
/// "Theme file"): `schemaVersion` 1, `id` (no `/ \ :` and not `.`/`..`), `name`, `terminal:
/// {foreground, background, ansiPalette[16]}`, `appearance: {normal, pc}` variants (`id`,
/// `window`, `background[≤2]` = the desktop gradient, `pcPadding`, `margin`, `padding`,
/// `opacity`, `font`, `fontSize`), `$include` (ids; a remote `source` is refused).
///
/// Errors: one line naming `origin` and the key.
pub fn parse_original(text: &str, origin: &str) -> Result<OriginalTheme, ThemeError> {
    let raw: RawOriginal = serde_json::from_str(text).map_err(|source| ThemeError::Json {
        path: origin.to_string(),
        source,
    })?;
    let value = |key: &str, msg: String| ThemeError::Value {
        path: origin.to_string(),
        key: key.to_string(),
        msg,
    };
    if raw.schema_version != 1 {
        return Err(value(
            "schemaVersion",
            format!("must be 1, got {}", raw.schema_version),
        ));
    }
    let valid_id =
        |id: &str| !id.is_empty() && id != "." && id != ".." && !id.contains(['/', '\\', ':']);
    if !valid_id(&raw.id) {
        return Err(value("id", format!("'{}' is not a theme id", raw.id)));
    }
    let description = raw.description.clone().or_else(|| Some(raw.name.clone()));
    let mut includes = Vec::new();
    for (i, inc) in raw.include.into_iter().enumerate() {
        match inc {
            RawInclude::Id(id) | RawInclude::Full { id, source: None } => includes.push(id),
            RawInclude::Full {
                id,
                source: Some(s),
            } => {
                return Err(value(
                    &format!("$include[{i}]"),
                    format!(
                        "'{id}' comes from '{s}': install that theme first (`theme install`), \
                         then include it by id"
                    ),
                ))
            }
        }
    }
    // The colours, checked by our own parser (same messages).
    let mut colours = serde_json::Map::new();
    if let Some(t) = &raw.terminal {
        colours.insert("foreground".into(), t.foreground.clone().into());
        colours.insert("background".into(), t.background.clone().into());
        if let Some(p) = &t.ansi_palette {
            colours.insert("ansi".into(), p.clone().into());
        }
    }
    let base = super::parse(&serde_json::Value::Object(colours).to_string(), origin)
        .map_err(|e| rename_key(e, "ansi", "terminal.ansiPalette"))?;
    let mut assets: Vec<String> = raw.preview.into_iter().collect();
    let builtin_frames = crate::render::chrome::builtin_names();
    let variant = |key: &str, v: RawVariant, assets: &mut Vec<String>| {
        if !valid_id(&v.id) {
            return Err(value(
                &format!("{key}.id"),
                format!("'{}' is not a theme id", v.id),
            ));
        }
        if let Some(w) = &v.window {
            if !builtin_frames.contains(&w.as_str()) {
                assets.push(w.clone());
            }
        }
        let mut m = serde_json::Map::new();
        let mut put = |k: &str, x: Option<serde_json::Value>| {
            if let Some(x) = x {
                m.insert(k.into(), x);
            }
        };
        put("desktop", v.background.clone().map(Into::into));
        put("pcPadding", v.pc_padding.map(Into::into));
        put("margin", v.margin.map(Into::into));
        put("padding", v.padding.map(Into::into));
        put("opacity", v.opacity.map(Into::into));
        put("fontFamily", v.font.clone().map(Into::into));
        put("fontSize", v.font_size.map(Into::into));
        if let Some(bg) = &v.background {
            if bg.len() > 2 {
                return Err(value(
                    &format!("{key}.background"),
                    format!("lists at most 2 colours, got {}", bg.len()),
                ));
            }
            if bg.len() == 1 {
                m.insert("desktop".into(), vec![bg[0].clone(), bg[0].clone()].into());
            }
            if bg.is_empty() {
                m.remove("desktop");
            }
        }
        let s = super::parse(&serde_json::Value::Object(m).to_string(), origin).map_err(|e| {
            let e = rename_key(e, "desktop", &format!("{key}.background"));
            prefix_key(e, key)
        })?;
        Ok::<_, ThemeError>(ThemeSpec {
            id: Some(v.id),
            description: description.clone(),
            window: v.window,
            ..over(base.clone(), s)
        })
    };
    let appearance = raw.appearance.unwrap_or(RawAppearance {
        normal: None,
        pc: None,
    });
    let normal = match appearance.normal {
        Some(v) => variant("appearance.normal", v, &mut assets)?,
        None => ThemeSpec {
            id: Some(raw.id.clone()),
            description: description.clone(),
            ..base.clone()
        },
    };
    let pc = match appearance.pc {
        Some(v) => {
            let mut s = variant("appearance.pc", v, &mut assets)?;
            s.pc = Some(true);
            Some((s.id.clone().expect("variants have ids"), s))
        }
        None => None,
    };
    Ok(OriginalTheme {
        id: raw.id,
        includes,
        normal,
        pc,
        assets,
    })
}

/// `top` over `base`, key by key.
fn over(base: ThemeSpec, top: ThemeSpec) -> ThemeSpec {
    ThemeSpec {
        id: top.id.or(base.id),
        description: top.description.or(base.description),
        foreground: top.foreground.or(base.foreground),
        background: top.background.or(base.background),
        ansi: top.ansi.or(base.ansi),
        desktop: top.desktop.or(base.desktop),
        window: top.window.or(base.window),
        margin: top.margin.or(base.margin),
        padding: top.padding.or(base.padding),
        opacity: top.opacity.or(base.opacity),
        pc_padding: top.pc_padding.or(base.pc_padding),
        font_family: top.font_family.or(base.font_family),
        font_size: top.font_size.or(base.font_size),
        pc: top.pc.or(base.pc),
    }
}

fn map_key(e: ThemeError, f: impl Fn(&str) -> String) -> ThemeError {
    match e {
        ThemeError::Color { path, key, value } => ThemeError::Color {
            path,
            key: f(&key),
            value,
        },
        ThemeError::Value { path, key, msg } => ThemeError::Value {
            path,
            key: f(&key),
            msg,
        },
        other => other,
    }
}

fn rename_key(e: ThemeError, from: &str, to: &str) -> ThemeError {
    map_key(e, |k| match k.strip_prefix(from) {
        Some(rest) => format!("{to}{rest}"),
        None => k.to_string(),
    })
}

fn prefix_key(e: ThemeError, prefix: &str) -> ThemeError {
    map_key(e, |k| {
        if k.starts_with(prefix) {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Rgb {
        Rgb::parse_hex(s).unwrap()
    }

    #[test]
    fn formats_are_found_by_extension_then_by_content() {
        for (name, text, want) in [
            ("a.itermcolors", "", Some(Format::ITerm2)),
            ("a.toml", "", Some(Format::Alacritty)),
            ("a.conf", "", Some(Format::Kitty)),
            ("a.conf", "color1 #ff0000\n", Some(Format::Kitty)),
            ("a.conf", "foreground = #a1b2c3\n", Some(Format::Ghostty)),
            ("a.plist", "", Some(Format::ITerm2)),
            (
                "a.json",
                "\u{feff}{\"brightWhite\": \"#fff\"}",
                Some(Format::WindowsTerminal),
            ),
            ("a.json", r##"{"foreground": "#fff"}"##, Some(Format::Ours)),
            ("a.json", r#"{"schemaVersion": 1}"#, Some(Format::Original)),
            (
                "a.json",
                r##"{"name": "x", "purple": "#fff"}"##,
                Some(Format::WindowsTerminal),
            ),
            (
                "a",
                "<?xml version=\"1.0\"?>\n<plist>",
                Some(Format::ITerm2),
            ),
            (
                "a",
                "[colors.primary]\nbackground = '#000000'\n",
                Some(Format::Alacritty),
            ),
            (
                "a",
                "# c\nbackground = 000000\npalette = 0=#000000\n",
                Some(Format::Ghostty),
            ),
            (
                "a",
                "color0 #000000\nforeground #ffffff\n",
                Some(Format::Kitty),
            ),
            ("a", "", None),
            ("a", "just some words here\n", None),
            ("a.ini", "background = 000000\n", None),
            ("a.yaml", "background: '#000000'\n", None),
        ] {
            assert_eq!(detect(name, text.as_bytes()), want, "{name}: {text:?}");
        }
    }

    #[test]
    fn colours_as_the_formats_write_them() {
        for (v, want) in [
            ("#102030", "#102030"),
            ("102030", "#102030"),
            ("0x102030", "#102030"),
            ("\"#abc\"", "#aabbcc"),
            ("navy", "#000080"),
        ] {
            assert_eq!(parse_color(v), Some(hex(want)), "{v}");
        }
        for bad in ["0x1020", "#12", "nope", ""] {
            assert_eq!(parse_color(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_ghostty_palette_beyond_15_is_read_over_and_a_partial_one_is_named() {
        let mut text = String::from("background = 000000\n");
        for i in 0..16 {
            text.push_str(&format!("palette = {i}=#0000{i:02x}\n"));
        }
        text.push_str("palette = 200=#ffffff\n");
        let s = parse(Format::Ghostty, text.as_bytes(), "g").unwrap();
        assert_eq!(s.ansi.unwrap()[15], hex("#00000f"));
        assert_eq!(s.background, Some(hex("#000000")));
        assert_eq!(s.foreground, None);
        let e = parse(Format::Kitty, b"color3 #000000\n", "k.conf").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid theme file 'k.conf': color0 is missing (the file gives 1 of the 16 ANSI colours)"
        );
        let e = parse(Format::Kitty, b"cursor #000000\n", "k.conf").unwrap_err();
        assert!(e
            .to_string()
            .contains("no foreground, background or ANSI colour"));
    }

    #[test]
    fn the_originals_theme_json_reads_its_variants() {
        let text = r##"{"schemaVersion": 1, "id": "t", "name": "T", "$include": ["nord", {"id": "dark"}],
            "terminal": {"foreground": "#010203", "background": "#040506"},
            "appearance": {"normal": {"id": "t", "window": "macos", "padding": 3, "background": ["#111111"]},
                           "pc": {"id": "t-pc", "window": "chrome.json", "pcPadding": 9}}}"##;
        let o = parse_original(text, "theme.json").unwrap();
        assert_eq!(o.includes, ["nord", "dark"]);
        assert_eq!(o.normal.id.as_deref(), Some("t"));
        assert_eq!(o.normal.foreground, Some(hex("#010203")));
        assert_eq!(o.normal.window.as_deref(), Some("macos"));
        assert_eq!(o.normal.padding, Some(3.0));
        assert_eq!(o.normal.desktop, Some([hex("#111111"), hex("#111111")]));
        let (pc_id, pc) = o.pc.unwrap();
        assert_eq!(pc_id, "t-pc");
        assert_eq!(pc.pc_padding, Some(9.0));
        assert_eq!(pc.background, Some(hex("#040506")));
        assert_eq!(o.assets, ["chrome.json"]);
        for (bad, said) in [
            (
                r#"{"schemaVersion": 1, "id": "a/b", "name": "T"}"#,
                "id 'a/b' is not a theme id",
            ),
            (r#"{"schemaVersion": 1, "id": "t"}"#, "missing field `name`"),
            (
                r#"{"schemaVersion": 1, "id": "t", "name": "T", "$include": [{"id": "x", "source": "o/r"}]}"#,
                "$include[0] 'x' comes from 'o/r'",
            ),
            (
                r##"{"schemaVersion": 1, "id": "t", "name": "T", "appearance": {"normal": {"id": "t", "background": ["#000", "#111", "#222"]}}}"##,
                "appearance.normal.background lists at most 2 colours",
            ),
        ] {
            let e = parse_original(bad, "theme.json").unwrap_err().to_string();
            assert!(e.contains(said), "{e}");
            assert!(e.starts_with("invalid theme file 'theme.json': "), "{e}");
        }
    }
}
