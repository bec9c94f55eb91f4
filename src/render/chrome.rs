//! Window frames ("chrome"): `none`, `transparent`, `macos`, `windows`, `macos-pc`, `windows-pc`,
//! `cyberpunk`, `cyberpunk-pc`, and frames from a user's JSON file. Facts: `shared/spec/themes.md`
//! §2 (geometry table and the per-frame part tables).
//!
//! # Frame files
//!
//! Every frame is data: the built-ins are `themes/frames/<name>.json` (compiled in) and a user may
//! pass a path to a file in the same format to `-d`. All keys are camelCase, unknown keys are an
//! error, and every key is optional:
//!
//! | key | meaning |
//! |---|---|
//! | `name` | frame name (default: file stem) |
//! | `description` | one line for listings (default: "") |
//! | `base` | name of a built-in frame whose keys are the defaults for this file (the `-pc` variants use it to share their base's drawing) |
//! | `insets` | `{"top","right","bottom","left"}` px between the window's outer box and the terminal area (default: 0 each) |
//! | `clientCornerRadius` | corner radius of the terminal background rect, px (default: 0) |
//! | `pc` | desktop variant: desktop padding around the window and a gradient desktop (default: false) |
//! | `pcPadding` | desktop padding on every side, px (default: 20; forced to 0 when `pc` is false) |
//! | `shadowOffset` | extra px reserved right and bottom (default: 6; forced to 0 when `pc` is false) |
//! | `terminalFill` | `"palette"`, `"transparent"` or a colour `"#rrggbb"` (default: "palette") |
//! | `desktop` | two colours, the desktop gradient this frame prefers over the theme's (default: none) |
//! | `elements` | list of drawing elements, painted in order (default: none) |
//!
//! Colours are `#rgb` or `#rrggbb`. A **coordinate** (any position or size of an element) is a
//! JSON number, in px from the window's left edge (x) or top edge (y), or a string `"W"`, `"H"`,
//! `"W±n"`, `"H±n"`: the window's width / height plus or minus `n`. So `"W-120"` is 120 px left of
//! the right edge and `"H-1"` is 1 px above the bottom edge. Element origin is the window's outer
//! box, so `draw` adds the window position itself.
//!
//! Each element is an object with exactly one key naming its kind:
//!
//! - `{"rect": {"x","y","w","h", "rx"?, paint…}}`
//! - `{"circle": {"cx","cy","r", paint…}}`
//! - `{"line": {"x1","y1","x2","y2", "stroke", "strokeWidth"?, "strokeLinecap"?, "opacity"?}}`
//! - `{"polyline": {"points": [[x, y], …], paint…}}`
//! - `{"path": {"d": ["M", 8, 35, "V", 11, …], paint…}}`: SVG path data as a list; a one-letter
//!   string is a command (`MLHVCSQTAZ`, either case), anything else is a coordinate (so a lone
//!   `"H"` is always the command: write `"H+0"` for the full height). Absolute commands' x and y
//!   arguments are moved by the window position; relative ones and arc radii/flags are not.
//! - `{"text": {"x","y","text","fill", "fontFamily"?, "fontSize"?, "fontWeight"?, "anchor"?, "opacity"?}}`
//!   (`y` is the baseline; `anchor` is `start`, `middle` or `end`).
//!
//! Paint keys: `fill` (absent = no fill), `stroke` (absent = no stroke), `strokeWidth` (default: 1),
//! `strokeLinejoin` (`miter`/`round`/`bevel`), `strokeLinecap` (`butt`/`round`/`square`),
//! `opacity` (default: 1). Example (the macOS title bar):
//!
//! ```json
//! { "rect": { "x": 1, "y": 1, "w": "W-2", "h": 27, "rx": 9, "fill": "#2c2c2c" } }
//! ```
//!
//! No drop shadows are drawn (the newest upstream draws none); `shadowOffset` only reserves space.
//!
//! # The original's `chrome.json`
//!
//! A file with any of the original console2svg's keys (`paddingTop`, `svgTemplate`,
//! `isDesktop`, …; shared/spec/console2svg-contract.md, "Window chrome") is read as one:
//! `paddingTop/Right/Bottom/Left` are the insets, `isDesktop` is `pc`, `desktopPadding` (default
//! 20) and `shadowOffset` (default 6) apply to desktops only, `desktopGradientFrom/To` is
//! `desktop`, `themeBackgroundOverride` is `terminalFill` (`transparent` or a colour), and
//! `clientCornerRadius` as above. `svgTemplate` names a file beside `chrome.json` (it must stay
//! in that directory; inline markup is refused) holding SVG elements with placeholders
//! `{winX} {winY} {winW} {winH} {winRight} {winBottom} {totalW} {totalH}` (px, each with an
//! optional `+n`/`-n`) and `{bg}` (the terminal background). It is checked when loaded: only
//! those placeholders, well-formed once filled, no `<script>`, `<foreignObject>` or `on…`
//! attributes. `desktopSvgTemplate` is read over (the desktop is our gradient).

use std::path::Path;

use serde::{Deserialize, Deserializer};

use crate::render::svg::{push_attr, push_num, push_text};
use crate::term::Rgb;

/// Space a frame takes on each side of the terminal area, in px (themes.md §2 geometry table).
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Insets {
    /// Title bar height, px.
    pub top: f32,
    /// Right border, px.
    pub right: f32,
    /// Bottom border, px.
    pub bottom: f32,
    /// Left border, px.
    pub left: f32,
}

impl Insets {
    /// `left + right`, px.
    pub fn horizontal(&self) -> f32 {
        self.left + self.right
    }

    /// `top + bottom`, px.
    pub fn vertical(&self) -> f32 {
        self.top + self.bottom
    }
}

/// What fills the terminal area under a frame.
#[derive(Debug, Clone, PartialEq)]
pub enum TerminalFill {
    /// The palette's background.
    Palette,
    /// A fixed colour (a frame file's `terminalFill`, the original's `themeBackgroundOverride`).
    Color(Rgb),
    /// Nothing: whatever is under the SVG shows through.
    Transparent,
}

/// A window frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Built-in name, the file's `name`, or the file stem.
    pub name: String,
    /// One-line description (may be empty).
    pub description: String,
    /// Px between the outer window box and the terminal area.
    pub insets: Insets,
    /// Corner radius of the terminal background rect, px.
    pub client_corner_radius: f32,
    /// Desktop (`-pc`) variant: desktop padding around the window and a gradient desktop.
    pub pc: bool,
    /// Desktop padding on every side, px (pc only; 0 otherwise).
    pub pc_padding: f32,
    /// Extra px reserved right and bottom (pc only; 0 otherwise). Nothing is drawn there.
    pub shadow_offset: f32,
    /// Padding the frame asks for (`transparent`: 0), px; `--padding` and a theme's padding win.
    pub padding: Option<f32>,
    /// What fills the terminal area.
    pub terminal_fill: TerminalFill,
    /// Desktop gradient the frame prefers (else the theme's).
    pub desktop: Option<[Rgb; 2]>,
    /// Drawing elements, painted in order by [`draw`].
    pub elements: Vec<Element>,
    /// SVG markup with placeholders, from the original's `chrome.json` `svgTemplate` asset
    /// (see [`load`]); painted after `elements` by [`draw_template`].
    pub template: Option<String>,
}

/// What a coordinate is measured from (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// A plain number: px from the window's left / top edge.
    Origin,
    /// `"W±n"`: the window width plus the offset.
    Width,
    /// `"H±n"`: the window height plus the offset.
    Height,
}

/// A coordinate or size of a frame element, px, relative to the window's outer box.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "CoordRaw")]
pub struct Coord {
    /// What the offset is added to.
    pub anchor: Anchor,
    /// Offset, px.
    pub offset: f32,
}

impl Coord {
    /// The value for a window of size `w` × `h` px (relative to the window origin).
    pub fn resolve(self, w: f32, h: f32) -> f32 {
        self.offset
            + match self.anchor {
                Anchor::Origin => 0.0,
                Anchor::Width => w,
                Anchor::Height => h,
            }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum CoordRaw {
    Num(f32),
    Str(String),
}

impl TryFrom<CoordRaw> for Coord {
    type Error = String;
    fn try_from(raw: CoordRaw) -> Result<Coord, String> {
        match raw {
            CoordRaw::Num(v) if v.is_finite() => Ok(Coord { anchor: Anchor::Origin, offset: v }),
            CoordRaw::Num(v) => Err(format!("invalid coordinate {v}")),
            CoordRaw::Str(s) => parse_coord(&s).ok_or_else(|| {
                format!("invalid coordinate '{s}' (expected a number, \"W\", \"H\", \"W-n\" or \"H+n\")")
            }),
        }
    }
}

fn parse_coord(s: &str) -> Option<Coord> {
    let t = s.trim();
    let (anchor, rest) = match t.as_bytes().first()? {
        b'W' => (Anchor::Width, &t[1..]),
        b'H' => (Anchor::Height, &t[1..]),
        _ => (Anchor::Origin, t),
    };
    let rest = rest.trim();
    let offset = if rest.is_empty() && anchor != Anchor::Origin {
        0.0
    } else {
        if anchor != Anchor::Origin && !rest.starts_with(['+', '-']) {
            return None;
        }
        let r = rest.strip_prefix('+').unwrap_or(rest);
        let v: f32 = r.replace(' ', "").parse().ok()?;
        if !v.is_finite() {
            return None;
        }
        v
    };
    Some(Coord { anchor, offset })
}

/// `stroke-linejoin` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineJoin {
    /// `miter` (SVG default).
    Miter,
    /// `round`.
    Round,
    /// `bevel`.
    Bevel,
}

/// `stroke-linecap` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineCap {
    /// `butt` (SVG default).
    Butt,
    /// `round`.
    Round,
    /// `square`.
    Square,
}

/// `text-anchor` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextAnchor {
    /// `start` (SVG default).
    Start,
    /// `middle`.
    Middle,
    /// `end`.
    End,
}

/// Fill and stroke of a shape. Absent fill or stroke means none.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Paint {
    /// Fill colour; `None` = no fill.
    #[serde(default, deserialize_with = "opt_color")]
    pub fill: Option<Rgb>,
    /// Stroke colour; `None` = no stroke.
    #[serde(default, deserialize_with = "opt_color")]
    pub stroke: Option<Rgb>,
    /// Stroke width, px (default 1).
    pub stroke_width: Option<f32>,
    /// Stroke line join.
    pub stroke_linejoin: Option<LineJoin>,
    /// Stroke line cap.
    pub stroke_linecap: Option<LineCap>,
    /// Element opacity 0..=1 (default 1).
    pub opacity: Option<f32>,
}

/// A rectangle (optionally rounded).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RectEl {
    /// Left edge.
    pub x: Coord,
    /// Top edge.
    pub y: Coord,
    /// Width.
    pub w: Coord,
    /// Height.
    pub h: Coord,
    /// Corner radius, px.
    pub rx: Option<f32>,
    /// Fill and stroke.
    #[serde(flatten)]
    pub paint: Paint,
}

/// A circle.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CircleEl {
    /// Centre x.
    pub cx: Coord,
    /// Centre y.
    pub cy: Coord,
    /// Radius, px.
    pub r: f32,
    /// Fill and stroke.
    #[serde(flatten)]
    pub paint: Paint,
}

/// A straight line (stroke only).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineEl {
    /// Start x.
    pub x1: Coord,
    /// Start y.
    pub y1: Coord,
    /// End x.
    pub x2: Coord,
    /// End y.
    pub y2: Coord,
    /// Stroke (a fill is ignored).
    #[serde(flatten)]
    pub paint: Paint,
}

/// An open polyline through `points`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolylineEl {
    /// `[x, y]` pairs.
    pub points: Vec<[Coord; 2]>,
    /// Fill and stroke.
    #[serde(flatten)]
    pub paint: Paint,
}

/// One token of [`PathEl::d`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PathTok {
    /// A command letter (`MLHVCSQTAZ`, either case).
    Cmd(char),
    /// An argument.
    Arg(Coord),
}

/// An SVG path whose data is a list of commands and coordinates (see the module doc).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathEl {
    /// Commands and arguments.
    #[serde(deserialize_with = "path_data")]
    pub d: Vec<PathTok>,
    /// Fill and stroke.
    #[serde(flatten)]
    pub paint: Paint,
}

/// A text label (drawn with its own font, not the terminal font).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TextEl {
    /// Anchor x.
    pub x: Coord,
    /// Baseline y.
    pub y: Coord,
    /// The label.
    pub text: String,
    /// Text colour.
    #[serde(deserialize_with = "color")]
    pub fill: Rgb,
    /// CSS font family.
    pub font_family: Option<String>,
    /// Font size, px.
    pub font_size: Option<f32>,
    /// CSS font weight (`bold`, `600`…).
    pub font_weight: Option<String>,
    /// Horizontal anchoring.
    pub anchor: Option<TextAnchor>,
    /// Opacity 0..=1.
    pub opacity: Option<f32>,
}

/// One drawing element of a frame.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Element {
    /// `{"rect": …}`
    Rect(RectEl),
    /// `{"circle": …}`
    Circle(CircleEl),
    /// `{"line": …}`
    Line(LineEl),
    /// `{"polyline": …}`
    Polyline(PolylineEl),
    /// `{"path": …}`
    Path(PathEl),
    /// `{"text": …}`
    Text(TextEl),
}

fn parse_color(s: &str) -> Result<Rgb, String> {
    Rgb::parse_hex(s)
        .filter(|_| s.starts_with('#'))
        .ok_or_else(|| format!("invalid colour '{s}' (expected #rgb or #rrggbb)"))
}

fn color<'de, D: Deserializer<'de>>(d: D) -> Result<Rgb, D::Error> {
    let s = String::deserialize(d)?;
    parse_color(&s).map_err(serde::de::Error::custom)
}

fn opt_color<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Rgb>, D::Error> {
    color(d).map(Some)
}

fn color_pair<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[Rgb; 2]>, D::Error> {
    let v = <[String; 2]>::deserialize(d)?;
    let a = parse_color(&v[0]).map_err(serde::de::Error::custom)?;
    let b = parse_color(&v[1]).map_err(serde::de::Error::custom)?;
    Ok(Some([a, b]))
}

/// Axis of each argument of a path command: X and Y move with the window, N does not.
#[derive(Clone, Copy)]
enum Ax {
    X,
    Y,
    N,
}

fn path_args(cmd: char) -> Option<&'static [Ax]> {
    use Ax::*;
    Some(match cmd.to_ascii_uppercase() {
        'M' | 'L' | 'T' => &[X, Y],
        'H' => &[X],
        'V' => &[Y],
        'C' => &[X, Y, X, Y, X, Y],
        'S' | 'Q' => &[X, Y, X, Y],
        'A' => &[N, N, N, N, N, X, Y],
        'Z' => &[],
        _ => return None,
    })
}

fn path_data<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathTok>, D::Error> {
    use serde::de::Error;
    let raw = Vec::<CoordRaw>::deserialize(d)?;
    let mut out = Vec::with_capacity(raw.len());
    for r in raw {
        match r {
            CoordRaw::Str(s) if s.len() == 1 && s.as_bytes()[0].is_ascii_alphabetic() => {
                let c = s.as_bytes()[0] as char;
                if path_args(c).is_none() {
                    return Err(D::Error::custom(format!("unknown path command '{c}'")));
                }
                out.push(PathTok::Cmd(c));
            }
            r => out.push(PathTok::Arg(Coord::try_from(r).map_err(D::Error::custom)?)),
        }
    }
    // Argument counts must fit the commands.
    let mut i = 0;
    if !out.is_empty() && !matches!(out[0], PathTok::Cmd(_)) {
        return Err(D::Error::custom("path data must start with a command"));
    }
    while i < out.len() {
        let PathTok::Cmd(c) = out[i] else {
            unreachable!()
        };
        let n = out[i + 1..]
            .iter()
            .take_while(|t| matches!(t, PathTok::Arg(_)))
            .count();
        let k = path_args(c).map_or(0, |a| a.len());
        let ok = if k == 0 { n == 0 } else { n > 0 && n % k == 0 };
        if !ok {
            return Err(D::Error::custom(format!(
                "path command '{c}' has {n} arguments (expected {})",
                if k == 0 {
                    "none".to_string()
                } else {
                    format!("a multiple of {k}")
                }
            )));
        }
        i += n + 1;
    }
    Ok(out)
}

#[derive(Debug, Clone, PartialEq)]
enum FillRaw {
    Palette,
    Transparent,
    Color(Rgb),
}

impl<'de> Deserialize<'de> for FillRaw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FillRaw, D::Error> {
        let s = String::deserialize(d)?;
        match s.as_str() {
            "palette" => Ok(FillRaw::Palette),
            "transparent" => Ok(FillRaw::Transparent),
            _ => parse_color(&s).map(FillRaw::Color).map_err(|_| {
                serde::de::Error::custom(format!(
                    "invalid terminalFill '{s}' (expected \"palette\", \"transparent\" or #rrggbb)"
                ))
            }),
        }
    }
}

/// A frame file as written: every key optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawFrame {
    name: Option<String>,
    description: Option<String>,
    base: Option<String>,
    insets: Option<Insets>,
    client_corner_radius: Option<f32>,
    pc: Option<bool>,
    pc_padding: Option<f32>,
    shadow_offset: Option<f32>,
    padding: Option<f32>,
    terminal_fill: Option<FillRaw>,
    #[serde(default, deserialize_with = "color_pair")]
    desktop: Option<[Rgb; 2]>,
    elements: Option<Vec<Element>>,
}

impl RawFrame {
    /// `self` over `base`: every key `self` sets wins.
    fn over(self, base: RawFrame) -> RawFrame {
        RawFrame {
            name: self.name.or(base.name),
            description: self.description.or(base.description),
            base: None,
            insets: self.insets.or(base.insets),
            client_corner_radius: self.client_corner_radius.or(base.client_corner_radius),
            pc: self.pc.or(base.pc),
            pc_padding: self.pc_padding.or(base.pc_padding),
            shadow_offset: self.shadow_offset.or(base.shadow_offset),
            padding: self.padding.or(base.padding),
            terminal_fill: self.terminal_fill.or(base.terminal_fill),
            desktop: self.desktop.or(base.desktop),
            elements: self.elements.or(base.elements),
        }
    }
}

/// Error loading a frame. Every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// Not a built-in name and not a path.
    #[error("unknown window style '{name}' (valid: {valid}; or a path to a frame JSON file)")]
    Unknown {
        /// What was asked for.
        name: String,
        /// Comma-separated built-in names.
        valid: String,
    },
    /// The file could not be read.
    #[error("cannot read frame file '{path}': {source}")]
    Read {
        /// The path given.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not valid frame JSON.
    #[error("invalid frame file '{path}': {source}")]
    Json {
        /// The path given (or `built-in <name>`).
        path: String,
        /// Serde's message, with line and column.
        source: serde_json::Error,
    },
    /// The JSON parsed but a value is out of range or a `base` is unknown.
    #[error("invalid frame file '{path}': {msg}")]
    Invalid {
        /// The path given (or `built-in <name>`).
        path: String,
        /// What is wrong.
        msg: String,
    },
}

const BUILTINS: [(&str, &str); 8] = [
    ("none", include_str!("../../themes/frames/none.json")),
    (
        "transparent",
        include_str!("../../themes/frames/transparent.json"),
    ),
    ("macos", include_str!("../../themes/frames/macos.json")),
    ("windows", include_str!("../../themes/frames/windows.json")),
    (
        "macos-pc",
        include_str!("../../themes/frames/macos-pc.json"),
    ),
    (
        "windows-pc",
        include_str!("../../themes/frames/windows-pc.json"),
    ),
    (
        "cyberpunk",
        include_str!("../../themes/frames/cyberpunk.json"),
    ),
    (
        "cyberpunk-pc",
        include_str!("../../themes/frames/cyberpunk-pc.json"),
    ),
];

/// Names of the built-in frames, in listing order (themes.md §2).
pub fn builtin_names() -> Vec<&'static str> {
    BUILTINS.iter().map(|(n, _)| *n).collect()
}

fn valid_names() -> String {
    builtin_names().join(", ")
}

/// Parses `text` (from `origin`) and resolves its `base` chain (built-ins only).
fn parse_raw(text: &str, origin: &str, depth: u32) -> Result<RawFrame, FrameError> {
    let raw: RawFrame = serde_json::from_str(text).map_err(|source| FrameError::Json {
        path: origin.to_string(),
        source,
    })?;
    let Some(base) = raw.base.clone() else {
        return Ok(raw);
    };
    let invalid = |msg: String| FrameError::Invalid {
        path: origin.to_string(),
        msg,
    };
    if depth > 4 {
        return Err(invalid(format!("base chain too deep at '{base}'")));
    }
    let Some((_, btext)) = BUILTINS.iter().find(|(n, _)| *n == base) else {
        return Err(invalid(format!(
            "unknown base frame '{base}' (valid: {})",
            valid_names()
        )));
    };
    let b = parse_raw(btext, &format!("built-in {base}"), depth + 1)?;
    Ok(raw.over(b))
}

fn finish(raw: RawFrame, origin: &str, default_name: &str) -> Result<Frame, FrameError> {
    let invalid = |msg: String| FrameError::Invalid {
        path: origin.to_string(),
        msg,
    };
    let insets = raw.insets.unwrap_or_default();
    let pc = raw.pc.unwrap_or(false);
    let nonneg = |key: &str, v: f32| {
        if v.is_finite() && (0.0..=10_000.0).contains(&v) {
            Ok(v)
        } else {
            Err(invalid(format!(
                "{key} must be a number of px from 0 to 10000, got {v}"
            )))
        }
    };
    nonneg("insets.top", insets.top)?;
    nonneg("insets.right", insets.right)?;
    nonneg("insets.bottom", insets.bottom)?;
    nonneg("insets.left", insets.left)?;
    let client_corner_radius = nonneg(
        "clientCornerRadius",
        raw.client_corner_radius.unwrap_or(0.0),
    )?;
    let pc_padding = nonneg("pcPadding", raw.pc_padding.unwrap_or(20.0))?;
    let shadow_offset = nonneg("shadowOffset", raw.shadow_offset.unwrap_or(6.0))?;
    let padding = raw.padding.map(|p| nonneg("padding", p)).transpose()?;
    let elements = raw.elements.unwrap_or_default();
    for (i, e) in elements.iter().enumerate() {
        check_element(e).map_err(|m| invalid(format!("elements[{i}]: {m}")))?;
    }
    Ok(Frame {
        name: raw.name.unwrap_or_else(|| default_name.to_string()),
        description: raw.description.unwrap_or_default(),
        insets,
        client_corner_radius,
        pc,
        pc_padding: if pc { pc_padding } else { 0.0 },
        shadow_offset: if pc { shadow_offset } else { 0.0 },
        padding,
        terminal_fill: match raw.terminal_fill.unwrap_or(FillRaw::Palette) {
            FillRaw::Palette => TerminalFill::Palette,
            FillRaw::Transparent => TerminalFill::Transparent,
            FillRaw::Color(c) => TerminalFill::Color(c),
        },
        desktop: raw.desktop,
        elements,
        template: None,
    })
}

fn check_paint(p: &Paint) -> Result<(), String> {
    if let Some(w) = p.stroke_width {
        if !(w.is_finite() && w >= 0.0) {
            return Err(format!("strokeWidth must be non-negative, got {w}"));
        }
    }
    check_opacity(p.opacity)
}

fn check_opacity(o: Option<f32>) -> Result<(), String> {
    match o {
        Some(o) if !(0.0..=1.0).contains(&o) => Err(format!("opacity must be in 0..=1, got {o}")),
        _ => Ok(()),
    }
}

fn check_element(e: &Element) -> Result<(), String> {
    match e {
        Element::Rect(r) => {
            if let Some(rx) = r.rx {
                if !(rx.is_finite() && rx >= 0.0) {
                    return Err(format!("rx must be non-negative, got {rx}"));
                }
            }
            check_paint(&r.paint)
        }
        Element::Circle(c) => {
            if !(c.r.is_finite() && c.r >= 0.0) {
                return Err(format!("r must be non-negative, got {}", c.r));
            }
            check_paint(&c.paint)
        }
        Element::Line(l) => check_paint(&l.paint),
        Element::Polyline(p) => check_paint(&p.paint),
        Element::Path(p) => check_paint(&p.paint),
        Element::Text(t) => {
            if let Some(s) = t.font_size {
                if !(s.is_finite() && s > 0.0) {
                    return Err(format!("fontSize must be > 0, got {s}"));
                }
            }
            check_opacity(t.opacity)
        }
    }
}

fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.ends_with(".json") || Path::new(arg).exists()
}

/// A built-in frame name (see [`builtin_names`]; these win over a file of the same name), or a
/// path to a frame JSON file (format in the module doc).
pub fn load(arg: &str) -> Result<Frame, FrameError> {
    if let Some((name, text)) = BUILTINS.iter().find(|(n, _)| *n == arg) {
        let origin = format!("built-in {name}");
        return finish(parse_raw(text, &origin, 0)?, &origin, name);
    }
    if !looks_like_path(arg) {
        return Err(FrameError::Unknown {
            name: arg.to_string(),
            valid: valid_names(),
        });
    }
    let text = std::fs::read_to_string(arg).map_err(|source| FrameError::Read {
        path: arg.to_string(),
        source,
    })?;
    let stem = Path::new(arg)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(arg);
    if is_original(&text) {
        return original(&text, Path::new(arg), stem);
    }
    finish(parse_raw(&text, arg, 0)?, arg, stem)
}

/// Keys only the original's `chrome.json` has.
const ORIGINAL_KEYS: [&str; 8] = [
    "paddingTop",
    "paddingRight",
    "paddingBottom",
    "paddingLeft",
    "isDesktop",
    "svgTemplate",
    "themeBackgroundOverride",
    "desktopPadding",
];

fn is_original(text: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(m)) => ORIGINAL_KEYS.iter().any(|k| m.contains_key(*k)),
        _ => false,
    }
}

/// The original console2svg's `chrome.json` as written (shared/spec/console2svg-contract.md,
/// "Window chrome").
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawOriginal {
    padding_top: Option<f32>,
    padding_right: Option<f32>,
    padding_bottom: Option<f32>,
    padding_left: Option<f32>,
    is_desktop: Option<bool>,
    desktop_padding: Option<f32>,
    shadow_offset: Option<f32>,
    desktop_gradient_from: Option<String>,
    desktop_gradient_to: Option<String>,
    theme_background_override: Option<String>,
    client_corner_radius: Option<f32>,
    svg_template: Option<String>,
    desktop_svg_template: Option<String>,
}

/// The placeholders a template may hold (`{winX}`, `{winRight-120}`…).
const PLACEHOLDERS: [&str; 9] = [
    "winX",
    "winY",
    "winW",
    "winH",
    "winRight",
    "winBottom",
    "totalW",
    "totalH",
    "bg",
];

/// Reads the original's `chrome.json` at `path`: the insets, desktop keys, background override
/// and corner radius map onto a [`Frame`]; `svgTemplate` names a markup file beside it (it must
/// stay inside that directory), checked here: well-formed SVG once its placeholders are filled,
/// only known placeholders, no scripts, event attributes or foreign objects.
fn original(text: &str, path: &Path, stem: &str) -> Result<Frame, FrameError> {
    let origin = path.display().to_string();
    let raw: RawOriginal = serde_json::from_str(text).map_err(|source| FrameError::Json {
        path: origin.clone(),
        source,
    })?;
    let invalid = |msg: String| FrameError::Invalid {
        path: origin.clone(),
        msg,
    };
    let px = |key: &str, v: Option<f32>, default: f32| {
        let v = v.unwrap_or(default);
        if v.is_finite() && (0.0..=10_000.0).contains(&v) {
            Ok(v)
        } else {
            Err(invalid(format!(
                "{key} must be a number of px from 0 to 10000, got {v}"
            )))
        }
    };
    let insets = Insets {
        top: px("paddingTop", raw.padding_top, 0.0)?,
        right: px("paddingRight", raw.padding_right, 0.0)?,
        bottom: px("paddingBottom", raw.padding_bottom, 0.0)?,
        left: px("paddingLeft", raw.padding_left, 0.0)?,
    };
    let pc = raw.is_desktop.unwrap_or(false);
    let color = |key: &str, v: &str| {
        parse_color(v)
            .map_err(|_| invalid(format!("{key} = '{v}' is not a colour (#rgb or #rrggbb)")))
    };
    let desktop = match (&raw.desktop_gradient_from, &raw.desktop_gradient_to) {
        (None, None) => None,
        (a, b) => {
            let a = a.as_deref().or(b.as_deref()).expect("one is set");
            let b = b.as_deref().unwrap_or(a);
            Some([
                color("desktopGradientFrom", a)?,
                color("desktopGradientTo", b)?,
            ])
        }
    };
    let terminal_fill = match raw.theme_background_override.as_deref() {
        None => TerminalFill::Palette,
        Some("transparent") => TerminalFill::Transparent,
        Some(c) => TerminalFill::Color(color("themeBackgroundOverride", c)?),
    };
    let _ = &raw.desktop_svg_template;
    let template = match &raw.svg_template {
        None => None,
        Some(asset) if asset.contains('<') => {
            return Err(invalid(
                "svgTemplate: inline markup is not allowed; name a file beside chrome.json (such as window.svg)".into(),
            ))
        }
        Some(asset) => {
            let markup =
                read_asset(path, asset).map_err(|m| invalid(format!("svgTemplate: {m}")))?;
            check_template(&markup).map_err(|m| invalid(format!("svgTemplate '{asset}': {m}")))?;
            Some(markup)
        }
    };
    Ok(Frame {
        name: stem.to_string(),
        description: String::new(),
        insets,
        client_corner_radius: px("clientCornerRadius", raw.client_corner_radius, 0.0)?,
        pc,
        pc_padding: if pc {
            px("desktopPadding", raw.desktop_padding, 20.0)?
        } else {
            0.0
        },
        shadow_offset: if pc {
            px("shadowOffset", raw.shadow_offset, 6.0)?
        } else {
            0.0
        },
        padding: None,
        terminal_fill,
        desktop,
        elements: Vec::new(),
        template,
    })
}

/// The text of `asset`, a path relative to the directory of `file`, which it must stay inside.
fn read_asset(file: &Path, asset: &str) -> Result<String, String> {
    let root = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    let target = root.join(asset);
    let target = target
        .canonicalize()
        .map_err(|e| format!("cannot read '{asset}': {e}"))?;
    if !target.starts_with(&root) {
        return Err(format!("'{asset}' is outside the theme's directory"));
    }
    std::fs::read_to_string(&target).map_err(|e| format!("cannot read '{asset}': {e}"))
}

/// `template` with every `{name±n}` replaced by `value(name) ± n` (numbers) or the name's text
/// (`{bg}`). Errors: an unknown name or a bad offset.
fn fill_template(template: &str, value: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| "a '{' without its '}'".to_string())?;
        let inner = &rest[open + 1..open + close];
        let (name, offset) = match inner.find(['+', '-']) {
            Some(i) => (&inner[..i], Some(&inner[i..])),
            None => (inner, None),
        };
        let name = name.trim();
        if !PLACEHOLDERS.contains(&name) {
            return Err(format!("unknown placeholder '{{{inner}}}'"));
        }
        let v = value(name).unwrap_or_default();
        match offset {
            None => out.push_str(&v),
            Some(o) => {
                let n: f32 = o
                    .replace(' ', "")
                    .trim_start_matches('+')
                    .parse()
                    .map_err(|_| format!("bad offset in '{{{inner}}}'"))?;
                let base: f32 = v
                    .parse()
                    .map_err(|_| format!("'{{{inner}}}': {name} is not a number"))?;
                push_num(&mut out, base + n);
            }
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(&rest.replace('}', ""));
    Ok(out)
}

fn check_template(markup: &str) -> Result<(), String> {
    let filled = fill_template(markup, &|n| {
        Some(if n == "bg" {
            "#000000".into()
        } else {
            "10".into()
        })
    })?;
    let doc = format!("<svg xmlns=\"http://www.w3.org/2000/svg\">{filled}</svg>");
    let tree = roxmltree::Document::parse(&doc).map_err(|e| format!("not well-formed SVG: {e}"))?;
    for n in tree.descendants().filter(|n| n.is_element()) {
        let tag = n.tag_name().name().to_ascii_lowercase();
        if tag == "script" || tag == "foreignobject" {
            return Err(format!("<{}> is not allowed", n.tag_name().name()));
        }
        if let Some(a) = n
            .attributes()
            .find(|a| a.name().to_ascii_lowercase().starts_with("on"))
        {
            return Err(format!("the event attribute '{}' is not allowed", a.name()));
        }
    }
    Ok(())
}

/// Appends the frame's [`Frame::template`] (the original's `svgTemplate`), its placeholders
/// filled for a window at (`x`, `y`) of `w` × `h` px on a `total_w` × `total_h` canvas, `bg`
/// the terminal background (`#rrggbb`). Nothing when the frame has no template.
#[allow(clippy::too_many_arguments)]
pub fn draw_template(
    out: &mut String,
    frame: &Frame,
    (x, y, w, h): (f32, f32, f32, f32),
    total_w: f32,
    total_h: f32,
    bg: &str,
) {
    let Some(t) = &frame.template else {
        return;
    };
    let num = |v: f32| {
        let mut s = String::new();
        push_num(&mut s, v);
        s
    };
    let value = |n: &str| {
        Some(match n {
            "winX" => num(x),
            "winY" => num(y),
            "winW" => num(w),
            "winH" => num(h),
            "winRight" => num(x + w),
            "winBottom" => num(y + h),
            "totalW" => num(total_w),
            "totalH" => num(total_h),
            _ => bg.to_string(),
        })
    };
    // Checked when the frame was loaded.
    if let Ok(s) = fill_template(t, &value) {
        out.push_str(s.trim());
    }
}

fn push_color(out: &mut String, c: Rgb) {
    out.push_str(&c.to_hex());
}

/// Appends ` name="value"` for a number.
fn attr_num(out: &mut String, name: &str, v: f32) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    push_num(out, v);
    out.push('"');
}

/// Appends fill (`none` when absent and `fill_none`), stroke, width, join, cap and opacity.
fn push_paint(out: &mut String, p: &Paint, fill_none: bool) {
    match p.fill {
        Some(c) => {
            out.push_str(" fill=\"");
            push_color(out, c);
            out.push('"');
        }
        None if fill_none => out.push_str(" fill=\"none\""),
        None => {}
    }
    if let Some(c) = p.stroke {
        out.push_str(" stroke=\"");
        push_color(out, c);
        out.push('"');
        if let Some(w) = p.stroke_width.filter(|w| *w != 1.0) {
            attr_num(out, "stroke-width", w);
        }
        match p.stroke_linejoin {
            Some(LineJoin::Round) => out.push_str(" stroke-linejoin=\"round\""),
            Some(LineJoin::Bevel) => out.push_str(" stroke-linejoin=\"bevel\""),
            Some(LineJoin::Miter) | None => {}
        }
        match p.stroke_linecap {
            Some(LineCap::Round) => out.push_str(" stroke-linecap=\"round\""),
            Some(LineCap::Square) => out.push_str(" stroke-linecap=\"square\""),
            Some(LineCap::Butt) | None => {}
        }
    }
    if let Some(o) = p.opacity.filter(|o| *o != 1.0) {
        attr_num(out, "opacity", o);
    }
}

/// Appends the frame's drawing (body, title bar, buttons…) for a window whose outer box is at
/// (`x`, `y`) with size `w` × `h` px. The caller draws the desktop, the terminal background
/// (inside [`Frame::insets`], radius [`Frame::client_corner_radius`]) and the text on top.
/// Output is compact (no whitespace between elements) and deterministic. Facts: themes.md §2.
pub fn draw(out: &mut String, frame: &Frame, x: f32, y: f32, w: f32, h: f32) {
    let px = |c: Coord| x + c.resolve(w, h);
    let py = |c: Coord| y + c.resolve(w, h);
    let sz = |c: Coord| c.resolve(w, h);
    for e in &frame.elements {
        match e {
            Element::Rect(r) => {
                out.push_str("<rect");
                attr_num(out, "x", px(r.x));
                attr_num(out, "y", py(r.y));
                attr_num(out, "width", sz(r.w).max(0.0));
                attr_num(out, "height", sz(r.h).max(0.0));
                if let Some(rx) = r.rx.filter(|rx| *rx != 0.0) {
                    attr_num(out, "rx", rx);
                }
                push_paint(out, &r.paint, true);
                out.push_str("/>");
            }
            Element::Circle(c) => {
                out.push_str("<circle");
                attr_num(out, "cx", px(c.cx));
                attr_num(out, "cy", py(c.cy));
                attr_num(out, "r", c.r);
                push_paint(out, &c.paint, true);
                out.push_str("/>");
            }
            Element::Line(l) => {
                out.push_str("<line");
                attr_num(out, "x1", px(l.x1));
                attr_num(out, "y1", py(l.y1));
                attr_num(out, "x2", px(l.x2));
                attr_num(out, "y2", py(l.y2));
                let p = Paint {
                    fill: None,
                    ..l.paint.clone()
                };
                push_paint(out, &p, false);
                out.push_str("/>");
            }
            Element::Polyline(p) => {
                out.push_str("<polyline points=\"");
                for (i, [a, b]) in p.points.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    push_num(out, px(*a));
                    out.push(',');
                    push_num(out, py(*b));
                }
                out.push('"');
                push_paint(out, &p.paint, true);
                out.push_str("/>");
            }
            Element::Path(p) => {
                out.push_str("<path d=\"");
                push_path(out, &p.d, x, y, w, h);
                out.push('"');
                push_paint(out, &p.paint, true);
                out.push_str("/>");
            }
            Element::Text(t) => {
                // Inline style, not presentation attributes: the grid's `text{…}` CSS rule
                // outranks attributes, and would paint a frame label in the grid's font and
                // foreground colour.
                out.push_str("<text");
                attr_num(out, "x", px(t.x));
                attr_num(out, "y", py(t.y));
                out.push_str(" style=\"fill:");
                push_color(out, t.fill);
                if let Some(f) = &t.font_family {
                    out.push_str(";font-family:");
                    push_attr(out, &super::css_escape(f));
                }
                if let Some(s) = t.font_size {
                    out.push_str(";font-size:");
                    push_num(out, s);
                    out.push_str("px");
                }
                if let Some(wt) = &t.font_weight {
                    out.push_str(";font-weight:");
                    push_attr(out, &super::css_escape(wt));
                }
                out.push('"');
                match t.anchor {
                    Some(TextAnchor::Middle) => out.push_str(" text-anchor=\"middle\""),
                    Some(TextAnchor::End) => out.push_str(" text-anchor=\"end\""),
                    Some(TextAnchor::Start) | None => {}
                }
                if let Some(o) = t.opacity.filter(|o| *o != 1.0) {
                    attr_num(out, "opacity", o);
                }
                out.push('>');
                push_text(out, &t.text);
                out.push_str("</text>");
            }
        }
    }
}

/// Writes path data `M8 35V11A5 5 0 0 1 13 6…`, moving absolute commands' x/y by (`x`, `y`).
fn push_path(out: &mut String, d: &[PathTok], x: f32, y: f32, w: f32, h: f32) {
    let mut axes: &[Ax] = &[];
    let mut abs = false;
    let mut k = 0;
    let mut after_cmd = false;
    for t in d {
        match t {
            PathTok::Cmd(c) => {
                out.push(*c);
                axes = path_args(*c).unwrap_or(&[]);
                abs = c.is_ascii_uppercase();
                k = 0;
                after_cmd = true;
            }
            PathTok::Arg(a) => {
                let mut v = a.resolve(w, h);
                if abs && !axes.is_empty() {
                    match axes[k % axes.len()] {
                        Ax::X => v += x,
                        Ax::Y => v += y,
                        Ax::N => {}
                    }
                }
                k += 1;
                if !after_cmd {
                    out.push(' ');
                }
                after_cmd = false;
                push_num(out, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn draw_at(name: &str, x: f32, y: f32, w: f32, h: f32) -> String {
        let f = load(name).unwrap();
        let mut s = String::new();
        draw(&mut s, &f, x, y, w, h);
        s
    }

    #[test]
    fn every_builtin_frame_loads() {
        assert_eq!(
            builtin_names(),
            [
                "none",
                "transparent",
                "macos",
                "windows",
                "macos-pc",
                "windows-pc",
                "cyberpunk",
                "cyberpunk-pc"
            ]
        );
        for n in builtin_names() {
            let f = load(n).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert_eq!(f.name, n);
            assert!(!f.description.is_empty(), "{n}");
            assert_eq!(f.pc, n.ends_with("-pc"), "{n}");
        }
    }

    #[test]
    fn geometry_matches_themes_md() {
        let ins = |t, r, b, l| Insets {
            top: t,
            right: r,
            bottom: b,
            left: l,
        };
        // (name, insets, client r, pc padding, shadow offset)
        let table = [
            ("none", ins(0., 0., 0., 0.), 0., 0., 0.),
            ("transparent", ins(0., 0., 0., 0.), 0., 0., 0.),
            ("macos", ins(28., 1., 1., 1.), 9., 0., 0.),
            ("macos-pc", ins(28., 1., 1., 1.), 9., 20., 0.),
            ("windows", ins(35., 1., 1., 1.), 0., 0., 0.),
            ("windows-pc", ins(35., 1., 1., 1.), 0., 20., 6.),
            ("cyberpunk", ins(38., 7., 7., 7.), 0., 0., 0.),
            ("cyberpunk-pc", ins(38., 7., 7., 7.), 0., 30., 10.),
        ];
        for (n, insets, r, pad, shadow) in table {
            let f = load(n).unwrap();
            assert_eq!(f.insets, insets, "{n}");
            assert_eq!(f.client_corner_radius, r, "{n}");
            assert_eq!(f.pc_padding, pad, "{n}");
            assert_eq!(f.shadow_offset, shadow, "{n}");
        }
        let hex = |s| Rgb::parse_hex(s).unwrap();
        assert_eq!(load("none").unwrap().terminal_fill, TerminalFill::Palette);
        assert_eq!(load("macos").unwrap().terminal_fill, TerminalFill::Palette);
        assert_eq!(
            load("transparent").unwrap().terminal_fill,
            TerminalFill::Transparent
        );
        // `-d windows` keeps the theme's background (the original's newest chrome.json sets
        // no override); only its tab is #0c0c0c.
        assert_eq!(
            load("windows-pc").unwrap().terminal_fill,
            TerminalFill::Palette
        );
        let _ = hex;
        // The cyberpunk theme's own background (#090b1a) fills it, so a later `-t` can change it.
        assert_eq!(
            load("cyberpunk").unwrap().terminal_fill,
            TerminalFill::Palette
        );
        assert_eq!(
            load("cyberpunk-pc").unwrap().desktop,
            Some([hex("#09051a"), hex("#17104a")])
        );
        assert_eq!(load("macos-pc").unwrap().desktop, None);
        // -pc variants share their base's drawing.
        assert_eq!(
            load("macos-pc").unwrap().elements,
            load("macos").unwrap().elements
        );
        assert_eq!(
            load("windows-pc").unwrap().elements,
            load("windows").unwrap().elements
        );
        assert_eq!(
            load("cyberpunk-pc").unwrap().elements,
            load("cyberpunk").unwrap().elements
        );
        assert!(load("none").unwrap().elements.is_empty());
        assert!(load("transparent").unwrap().elements.is_empty());
    }

    #[test]
    fn worked_size_follows_from_macos_insets() {
        // themes.md §3: macos, 40x4 grid, header on, padding 8 -> 354x135.
        let f = load("macos").unwrap();
        let (cw, ch, pad) = (8.4_f32, 18.0_f32, 8.0_f32);
        let w = f.insets.left + pad + 40.0 * cw + pad + f.insets.right;
        let h = f.insets.top + pad + ch + 4.0 * ch + pad + f.insets.bottom;
        assert_eq!((w.round(), h.round()), (354.0, 135.0));
        assert_eq!(f.insets.horizontal(), 2.0);
        assert_eq!(f.insets.vertical(), 29.0);
        let pc = load("macos-pc").unwrap();
        let wpc = w + 2.0 * pc.pc_padding + pc.shadow_offset;
        let hpc = h + 2.0 * pc.pc_padding + pc.shadow_offset;
        assert_eq!((wpc.round(), hpc.round()), (394.0, 175.0));
        let win = load("windows-pc").unwrap();
        let ww = win.insets.horizontal() + 2.0 * pad + 40.0 * cw;
        let wh = win.insets.vertical() + 2.0 * pad + 5.0 * ch;
        let ww = ww + 2.0 * win.pc_padding + win.shadow_offset;
        let wh = wh + 2.0 * win.pc_padding + win.shadow_offset;
        assert_eq!((ww.round(), wh.round()), (400.0, 188.0));
    }

    #[test]
    fn macos_draws_traffic_lights() {
        let s = draw_at("macos", 20.0, 20.0, 354.0, 135.0);
        assert!(
            s.contains(r##"<circle cx="34" cy="34" r="5" fill="#ff5f57"/>"##),
            "{s}"
        );
        assert!(
            s.contains(r##"<circle cx="50" cy="34" r="5" fill="#febc2e"/>"##),
            "{s}"
        );
        assert!(
            s.contains(r##"<circle cx="66" cy="34" r="5" fill="#28c840"/>"##),
            "{s}"
        );
        assert!(s.starts_with(
            r##"<rect x="20.5" y="20.5" width="353" height="134" rx="10" fill="#1f1f1f" stroke="#3a3a3a"/><rect x="21" y="21" width="352" height="27" rx="9" fill="#2c2c2c"/>"##
        ), "{s}");
        assert!(!s.contains('\n'));
        // Same input, same bytes.
        assert_eq!(s, draw_at("macos", 20.0, 20.0, 354.0, 135.0));
        // macos-pc draws the same thing.
        assert_eq!(s, draw_at("macos-pc", 20.0, 20.0, 354.0, 135.0));
    }

    #[test]
    fn windows_glyphs_anchor_to_right_edge() {
        let (x, w) = (20.0, 354.0);
        let r = x + w;
        let s = draw_at("windows", x, 20.0, w, 142.0);
        let close = format!(
            r##"<path d="M{} 34.5L{} 44.5M{} 34.5L{} 44.5" fill="none" stroke="#cccccc" stroke-width="1.3"/>"##,
            r - 28.0,
            r - 18.0,
            r - 18.0,
            r - 28.0
        );
        assert!(s.contains(&close), "{s}");
        let min = format!(
            r##"<line x1="{}" y1="39.5" x2="{}" y2="39.5""##,
            r - 120.0,
            r - 110.0
        );
        assert!(s.contains(&min), "{s}");
        let max = format!(
            r##"<rect x="{}" y="34.5" width="10" height="10" fill="none" stroke="#cccccc" stroke-width="1.2"/>"##,
            r - 74.0
        );
        assert!(s.contains(&max), "{s}");
        // Tab: 8..168, from y 6 to 35, top corners r 5, #0c0c0c.
        assert!(
            s.contains(
                r##"<path d="M28 55V31A5 5 0 0 1 33 26H183A5 5 0 0 1 188 31V55Z" fill="#0c0c0c"/>"##
            ),
            "{s}"
        );
        assert!(s.contains(
            r##"<polyline points="36,35.5 40,39.5 36,43.5" fill="none" stroke="#cccccc" stroke-width="1.2" stroke-linejoin="round"/>"##
        ), "{s}");
    }

    #[test]
    fn cyberpunk_label_and_brackets() {
        let s = draw_at("cyberpunk", 0.0, 0.0, 882.0, 217.0);
        assert!(s.contains(
            r##"<text x="44" y="23" style="fill:#ff65b1;font-family:monospace;font-size:11px;font-weight:bold">SYS://NEON-TERMINAL</text>"##
        ), "{s}");
        assert!(s.contains(r##"<rect x="1" y="1" width="880" height="215" fill="#090b1a" stroke="#27e8ff" stroke-width="1.5"/>"##), "{s}");
        assert!(
            s.contains(
                r##"<rect x="8" y="8" width="866" height="23" fill="#151333" stroke="#ff3c9e"/>"##
            ),
            "{s}"
        );
        assert!(
            s.contains("M814 13h14v12h-14ZM835 13h14v12h-14ZM856 13h14v12h-14Z"),
            "{s}"
        );
        assert!(s.contains("M881 216h-18M881 216v-18"), "{s}");
        assert!(s.contains(r##"stroke="#ff3c9e" stroke-width="3""##), "{s}");
    }

    #[test]
    fn none_and_transparent_draw_nothing() {
        assert_eq!(draw_at("none", 3.0, 3.0, 100.0, 50.0), "");
        assert_eq!(draw_at("transparent", 3.0, 3.0, 100.0, 50.0), "");
    }

    #[test]
    fn user_frame_file_loads_and_extends_base() {
        let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
        write!(
            f,
            r##"{{"base":"macos","pc":true,"terminalFill":"transparent","elements":[{{"text":{{"x":"W-5","y":"H","text":"a<b","fill":"#fff","anchor":"end"}}}}]}}"##
        )
        .unwrap();
        let path = f.path().to_str().unwrap();
        let fr = load(path).unwrap();
        assert_eq!(fr.insets.top, 28.0);
        assert!(fr.pc);
        assert_eq!(fr.pc_padding, 20.0);
        assert_eq!(fr.shadow_offset, 0.0); // from macos
        assert_eq!(fr.terminal_fill, TerminalFill::Transparent);
        let mut s = String::new();
        draw(&mut s, &fr, 0.0, 0.0, 100.0, 40.0);
        assert_eq!(
            s,
            r##"<text x="95" y="40" style="fill:#ffffff" text-anchor="end">a&lt;b</text>"##
        );
    }

    #[test]
    fn errors_are_clear_one_liners() {
        let e = load("mac").unwrap_err();
        assert!(matches!(e, FrameError::Unknown { .. }));
        let m = e.to_string();
        assert!(
            m.contains("'mac'") && m.contains("macos, windows") && !m.contains('\n'),
            "{m}"
        );

        let e = load("/nonexistent/frame.json").unwrap_err();
        assert!(matches!(e, FrameError::Read { .. }));
        assert!(e
            .to_string()
            .starts_with("cannot read frame file '/nonexistent/frame.json': "));

        let bad = |json: &str| {
            let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
            f.write_all(json.as_bytes()).unwrap();
            let e = load(f.path().to_str().unwrap()).unwrap_err();
            let m = e.to_string();
            assert!(!m.contains('\n'), "{m}");
            (e, m)
        };
        let (e, _) = bad("{ not json");
        assert!(matches!(e, FrameError::Json { .. }));
        let (_, m) = bad(r#"{"insetz": {}}"#);
        assert!(m.contains("unknown field `insetz`"), "{m}");
        let (_, m) = bad(r#"{"elements":[{"rect":{"x":"Q-1","y":0,"w":1,"h":1}}]}"#);
        assert!(m.contains("invalid coordinate 'Q-1'"), "{m}");
        let (_, m) = bad(r#"{"elements":[{"circle":{"cx":0,"cy":0,"r":1,"fill":"red"}}]}"#);
        assert!(m.contains("invalid colour 'red'"), "{m}");
        let (_, m) = bad(r#"{"elements":[{"path":{"d":["M",1]}}]}"#);
        assert!(m.contains("path command 'M' has 1 arguments"), "{m}");
        let (_, m) = bad(r##"{"elements":[{"rect":{"x":0,"y":0,"w":1,"h":1,"colour":"#fff"}}]}"##);
        assert!(m.contains("colour"), "{m}");
        let (_, m) = bad(r#"{"elements":[{"star":{}}]}"#);
        assert!(m.contains("unknown variant `star`"), "{m}");
        let (e, m) = bad(r#"{"base":"amiga"}"#);
        assert!(matches!(e, FrameError::Invalid { .. }));
        assert!(m.contains("unknown base frame 'amiga'"), "{m}");
        let (_, m) = bad(r#"{"insets":{"top":-1}}"#);
        assert!(
            m.contains("insets.top must be a number of px from 0 to 10000, got -1"),
            "{m}"
        );
    }

    #[test]
    fn coords_parse() {
        let c = |s: &str| parse_coord(s);
        assert_eq!(c("W-120").unwrap().resolve(300.0, 50.0), 180.0);
        assert_eq!(c("H").unwrap().resolve(300.0, 50.0), 50.0);
        assert_eq!(c("H + 2.5").unwrap().resolve(300.0, 50.0), 52.5);
        assert_eq!(c("12").unwrap().resolve(300.0, 50.0), 12.0);
        assert!(c("W2").is_none());
        assert!(c("X-1").is_none());
        assert!(c("").is_none());
    }
}
