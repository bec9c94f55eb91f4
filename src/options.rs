//! Appearance and terminal options as data: what `capture`'s flags, a config file, a scenario
//! document and a scenario's capture step can set, how the layers stack, and how they resolve
//! into a [`render::Appearance`].
//!
//! Keys are kebab-case (shared/spec/console2svg-contract.md, "Scenario documents" and "Config
//! file"); every key is optional, a later layer wins key by key, arrays replace.
//! Config tiers: `~/.config/console2svg/config.yaml`, then `./console2svg.config.yaml`, then
//! `-C <path>`; command-line flags override all.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::render::{
    self, chrome, layout::Spacing, theme, Appearance, Background, OutputSize, TextMode,
};
use crate::term::Rgb;

mod compat;
pub mod themes;

macro_rules! overlay_fields {
    ($base:expr, $top:expr, $($f:ident),*) => { $( if $top.$f.is_some() { $base.$f = $top.$f.clone(); } )* };
}

/// Terminal size options.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TerminalOptions {
    /// Columns, 1–500.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u16>,
    /// Rows, 1–500.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u16>,
    /// Rows of scrollback kept above the screen, 0–[`crate::term::MAX_SCROLLBACK`]
    /// (`--scrollback` of `capture` and `session start`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrollback: Option<u32>,
}

/// Appearance options (the `capture` flags as data). Written as our flat keys; `font`,
/// `size` and `header` also take the original's maps (`font: {family, size}`,
/// `size: {width, height}`, `header: {text, with-command, prompt}`), read into the flat keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", try_from = "compat::AppearanceInput")]
pub struct AppearanceOptions {
    /// Theme ids or theme files, later wins (`-t`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<Vec<String>>,
    /// Window style or frame file (`-d`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// `#rgb`/`#rrggbb`, a CSS colour name, `rgb()`/`hsl()` (`--forecolor`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forecolor: Option<String>,
    /// `#rgb`/`#rrggbb`, a CSS colour name, `rgb()`/`hsl()` (`--backcolor`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backcolor: Option<String>,
    /// One colour, two colours, or an image file (`--background`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<Vec<String>>,
    /// 0–1 (`--opacity`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opacity: Option<f32>,
    /// px (`--padding`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub padding: Option<f32>,
    /// px (`--margin`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin: Option<f32>,
    /// px (`--pc-padding`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pc_padding: Option<f32>,
    /// CSS font stack (`--font`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub font: Option<String>,
    /// px (`--fontsize`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fontsize: Option<f32>,
    /// Row height as a multiple of the font's natural height, 1–2 (`--line-height`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_height: Option<f32>,
    /// `W`, `WxH`, `Wx*`, `*xH` (`--size`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// Header row with the prompt and the command (`-c`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub with_command: Option<bool>,
    /// Header text (`--header`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// Header prompt (`--prompt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Draw the cursor (`--no-cursor` sets false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<bool>,
    /// `--bold-is-bright`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bold_is_bright: Option<bool>,
    /// Embed font subsets (`--no-embed-font` sets false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed_font: Option<bool>,
    /// `text` or `outlines` (`--text-mode`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_mode: Option<TextMode>,
}

/// The `options:` block of a config file or scenario document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Options {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal: Option<TerminalOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub appearance: Option<AppearanceOptions>,
    /// `render:` (masking), as in the original's config document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub render: Option<RenderOptions>,
    /// `capture:` (crop, mode, image, video), as in the original's config document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture: Option<CaptureOptions>,
    /// `environment:` (the colour variables and CI variables of the child), as in the
    /// original's config document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentOptions>,
    /// `interactive:` of the original's config document: read and checked, no effect here
    /// (`interactive` passes the terminal's input, mouse included, through as it comes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interactive: Option<InteractiveOptions>,
    /// `live-server:` of the original's config document: `host` is where `live-server`
    /// listens when no address is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_server: Option<LiveServerOptions>,
    /// `converter:` of the original's config document: read and checked, no effect here
    /// (raster output is always drawn by the built-in resvg).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub converter: Option<ConverterOptions>,
}

/// `environment:` (shared/spec/console2svg-contract.md, "Config document").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct EnvironmentOptions {
    /// `overwrite` (default) sets TERM=xterm-256color, COLORTERM=truecolor, FORCE_COLOR=3;
    /// `preserve` leaves them as they are (`--no-colorenv`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<ColorPolicy>,
    /// `strip` (default) removes CI and TF_BUILD; `preserve` keeps them (`--no-delete-envs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci: Option<CiPolicy>,
}

/// `environment.color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ColorPolicy {
    /// Set the colour variables.
    Overwrite,
    /// Leave them as they are.
    Preserve,
}

/// `environment.ci`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CiPolicy {
    /// Remove CI and TF_BUILD.
    Strip,
    /// Keep them.
    Preserve,
}

impl EnvironmentOptions {
    /// `top` over `self`, key by key.
    pub fn overlay(&self, top: &EnvironmentOptions) -> EnvironmentOptions {
        let mut out = self.clone();
        overlay_fields!(out, top, color, ci);
        out
    }

    /// Whether the child gets the colour variables: `--no-colorenv` (`flag_off`) or
    /// `color: preserve` turn them off.
    pub fn color_env(&self, flag_off: bool) -> bool {
        !flag_off && self.color != Some(ColorPolicy::Preserve)
    }

    /// Whether CI and TF_BUILD are removed: `--no-delete-envs` (`flag_off`) or
    /// `ci: preserve` keep them.
    pub fn delete_ci_env(&self, flag_off: bool) -> bool {
        !flag_off && self.ci != Some(CiPolicy::Preserve)
    }
}

/// `interactive:` of the original (its `--mouse`); no effect here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct InteractiveOptions {
    /// Mouse reporting in the original's interactive mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mouse: Option<bool>,
}

/// `live-server:` of the original.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LiveServerOptions {
    /// `host:port` (or `:port`, loopback) `live-server` listens on without an address given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// `converter:` of the original; no effect here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ConverterOptions {
    /// Which program the original rasterises SVG with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub svg_converter: Option<SvgConverter>,
}

/// `converter.svg-converter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SvgConverter {
    /// The original's choice: bundled resvg, then ffmpeg, then rsvg-convert.
    Auto,
    /// ffmpeg.
    Ffmpeg,
    /// librsvg.
    Rsvg,
    /// The rsvg-convert program.
    RsvgConvert,
    /// resvg.
    Resvg,
}

// ---- Still-picture options: masking (and crop), applied to a screen before rendering. ----

/// The `render:` section (shared/spec/console2svg-contract.md, "Config document").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RenderOptions {
    /// `render.masking`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masking: Option<MaskingOptions>,
    /// `render.adjust` of the original (how its SVG text fits the cell grid): read and
    /// checked, no effect here (text is always laid out on the cell grid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjust: Option<Adjust>,
}

/// `render.adjust`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Adjust {
    /// Letter spacing only.
    #[serde(rename = "spacing")]
    Spacing,
    /// Letter spacing and glyph widths.
    #[serde(rename = "spacingAndGlyphs")]
    SpacingAndGlyphs,
}

/// `render.masking` (`--mask-auto`, `--mask`, `--mask-rules`); see [`crate::mask`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct MaskingOptions {
    /// The built-in rules (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto: Option<bool>,
    /// `--mask` patterns: regexes, or `literal:TEXT`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strings: Option<Vec<String>>,
    /// gitleaks-format TOML rule files (`--mask-rules`), relative to the working directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<String>>,
}

impl MaskingOptions {
    /// `top` over `self`, key by key; arrays replace.
    pub fn overlay(&self, top: &MaskingOptions) -> MaskingOptions {
        let mut out = self.clone();
        overlay_fields!(out, top, auto, strings, rules);
        out
    }

    /// The masker these options describe: auto rules unless `auto: false`, the patterns,
    /// then the rules files in order.
    ///
    /// Errors: an invalid pattern or rule (naming the rule id and the regex), an unreadable
    /// or invalid rules file (naming the file).
    pub fn masker(&self) -> Result<crate::mask::Masker, String> {
        let strings = self.strings.clone().unwrap_or_default();
        let mut m = crate::mask::Masker::new(self.auto.unwrap_or(true), &strings)
            .map_err(|e| e.to_string())?;
        for file in self.rules.iter().flatten() {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("cannot read mask rules {file}: {e}"))?;
            m.extend(crate::mask::rules::gitleaks_rules(&text, file).map_err(|e| e.to_string())?);
        }
        Ok(m)
    }
}

impl RenderOptions {
    /// `top` over `self`, key by key.
    pub fn overlay(&self, top: &RenderOptions) -> RenderOptions {
        RenderOptions {
            masking: overlay_opt(&self.masking, &top.masking, MaskingOptions::overlay),
            adjust: top.adjust.or(self.adjust),
        }
    }
}

/// The `capture:` section (shared/spec/console2svg-contract.md, "Config document").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct CaptureOptions {
    /// `capture.crop`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crop: Option<CropOptions>,
    /// `capture.mode`: `image` (the final screen) or `video` (the whole run; `-m`, `-v`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<CaptureMode>,
    /// `capture.image`: a still of one moment (`--frame`, `--time T`), at most one key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageOptions>,
    /// `capture.video`: the animation's controls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub video: Option<VideoOptions>,
}

/// `capture.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureMode {
    /// The final screen.
    Image,
    /// An animation of the whole run.
    Video,
}

/// `capture.image`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ImageOptions {
    /// A still of frame N, 0-based (`--frame`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<usize>,
    /// A still of the screen at this moment, seconds (`--time T`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
}

/// `capture.video`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct VideoOptions {
    /// Most frames a second, 1–120 (`--fps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fps: Option<u32>,
    /// Play for ever (default true; `--no-loop` sets false).
    #[serde(rename = "loop", skip_serializing_if = "Option::is_none")]
    pub looped: Option<bool>,
    /// Keep this span of the recording, seconds (`--time START-END`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeSpan>,
    /// The original's frame timing (`--timing`): read and checked, no effect here (frames
    /// keep the times the output arrived at).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// The original's output coalescing (`--coalesce-ms`, `auto` or ms): read and checked,
    /// no effect here (frames are capped by `fps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coalesce: Option<Coalesce>,
    /// The original's fade-out at the end, seconds (`--fadeout`): read and checked, no
    /// effect here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fadeout: Option<f64>,
}

/// `capture.video.time`: a span of the recording, seconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TimeSpan {
    /// From this moment (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<f64>,
    /// To this moment (default: the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<f64>,
}

/// `capture.video.timing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Timing {
    /// Frame times from the output's order, the same on every run.
    Deterministic,
    /// Frame times as the output arrived.
    Realtime,
}

/// `capture.video.coalesce`: `auto` or a number of milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coalesce {
    /// `auto`.
    Auto,
    /// Milliseconds.
    Ms(u64),
}

impl Serialize for Coalesce {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Coalesce::Auto => s.serialize_str("auto"),
            Coalesce::Ms(ms) => s.serialize_u64(*ms),
        }
    }
}

impl<'de> Deserialize<'de> for Coalesce {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Coalesce, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Coalesce;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`auto` or a number of milliseconds")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Coalesce, E> {
                match v {
                    "auto" => Ok(Coalesce::Auto),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Coalesce, E> {
                Ok(Coalesce::Ms(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Coalesce, E> {
                u64::try_from(v)
                    .map(Coalesce::Ms)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Coalesce {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Coalesce".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`auto` or a number of milliseconds.",
            "anyOf": [{"const": "auto"}, {"type": "integer", "minimum": 0}]
        })
    }
}

impl ImageOptions {
    /// `top` over `self`, key by key.
    pub fn overlay(&self, top: &ImageOptions) -> ImageOptions {
        let mut out = self.clone();
        overlay_fields!(out, top, frame, time);
        out
    }
}

impl VideoOptions {
    /// `top` over `self`, key by key (`time` as a whole).
    pub fn overlay(&self, top: &VideoOptions) -> VideoOptions {
        let mut out = self.clone();
        overlay_fields!(out, top, fps, looped, time, timing, coalesce, fadeout);
        out
    }
}

/// `capture.crop`: the `--crop-*` strings (see [`crate::crop`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct CropOptions {
    /// `--crop-top`: `Npx`, `Nch`, px, `TEXT[:N]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top: Option<String>,
    /// `--crop-right`: `Npx`, `Nch`, px.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub right: Option<String>,
    /// `--crop-bottom`: `Npx`, `Nch`, px, `TEXT[:N]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bottom: Option<String>,
    /// `--crop-left`: `Npx`, `Nch`, px.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left: Option<String>,
}

impl CropOptions {
    /// `top` over `self`, edge by edge.
    pub fn overlay(&self, top: &CropOptions) -> CropOptions {
        let mut out = self.clone();
        overlay_fields!(out, top, top, right, bottom, left);
        out
    }

    /// The parsed crop.
    ///
    /// Errors: the option and what is wrong with its value (`crop-top: '10em': unknown crop
    /// unit 'em' …`).
    pub fn parse(&self) -> Result<crate::crop::Crop, String> {
        use crate::crop::{parse_edge, parse_side};
        let edge = |name: &str, v: &Option<String>| {
            v.as_deref()
                .map(|s| parse_edge(s).map_err(|e| format!("crop-{name}: {e}")))
                .transpose()
        };
        let side = |name: &str, v: &Option<String>| {
            v.as_deref()
                .map(|s| parse_side(s).map_err(|e| format!("crop-{name}: {e}")))
                .transpose()
        };
        Ok(crate::crop::Crop {
            top: edge("top", &self.top)?,
            bottom: edge("bottom", &self.bottom)?,
            left: side("left", &self.left)?,
            right: side("right", &self.right)?,
        })
    }
}

impl CaptureOptions {
    /// `top` over `self`, key by key.
    pub fn overlay(&self, top: &CaptureOptions) -> CaptureOptions {
        CaptureOptions {
            crop: overlay_opt(&self.crop, &top.crop, CropOptions::overlay),
            mode: top.mode.or(self.mode),
            image: overlay_opt(&self.image, &top.image, ImageOptions::overlay),
            video: overlay_opt(&self.video, &top.video, VideoOptions::overlay),
        }
    }
}

/// Masking and crop, resolved: what every still path (capture, `session capture`/`inspect`,
/// scenario captures) applies to a screen before rendering.
#[derive(Debug, Clone, Default)]
pub struct Still {
    /// The masking rules (`render.masking`).
    pub masker: crate::mask::Masker,
    /// The crop (`capture.crop`).
    pub crop: crate::crop::Crop,
}

impl Still {
    /// `appearance` with its header row (`-c`'s `$ command`, `--header`) masked like the
    /// screen: a command line can hold a secret too.
    pub fn mask_header(&self, mut appearance: Appearance) -> Appearance {
        if let Some(h) = &appearance.header {
            appearance.header = Some(self.masker.mask_text(h));
        }
        appearance
    }

    /// `screen` prepared for rendering: the crop window is found in `rows` (the rows that
    /// would be drawn) on the plain text, the whole screen is masked (so a secret wrapped
    /// across the edge of `rows` is still found), then cut to the window. Pixel crops use
    /// `appearance`'s cell size.
    ///
    /// Errors: as [`crate::crop::Crop::window`].
    pub fn apply(
        &self,
        mut screen: crate::term::Screen,
        rows: std::ops::Range<usize>,
        appearance: &Appearance,
        fonts: &render::fonts::Fonts,
    ) -> Result<crate::term::Screen, String> {
        let cell = render::layout::CellMetrics::new(
            &fonts.metrics(),
            appearance.font_size,
            appearance.line_height,
        );
        let window = self.crop.window(&screen, rows, cell.width, cell.height)?;
        self.masker.mask_screen(&mut screen);
        Ok(window.apply(screen))
    }

    /// An animation's frames prepared for rendering: every frame masked, all of them cut to
    /// one crop window, found on the last frame (the picture a still would show), so the
    /// animation's frame never moves. Frames are rebuilt (their rows interned again) only when
    /// there is something to mask or crop.
    ///
    /// Errors: as [`crate::crop::Crop::window`], on the last frame.
    pub fn apply_frames(
        &self,
        frames: &mut crate::recording::Frames,
        appearance: &Appearance,
        fonts: &render::fonts::Fonts,
    ) -> Result<(), String> {
        let Some(last) = frames.list.last() else {
            return Ok(());
        };
        if self.masker.is_empty() && self.crop.is_none() {
            return Ok(());
        }
        let last = frames.screen(last);
        let cell = render::layout::CellMetrics::new(
            &fonts.metrics(),
            appearance.font_size,
            appearance.line_height,
        );
        let window = self
            .crop
            .window(&last, 0..last.rows.len(), cell.width, cell.height)?;
        let mut out = crate::recording::Frames::default();
        for f in &frames.list {
            let mut screen = frames.screen(f);
            self.masker.mask_screen(&mut screen);
            let frame = out.frame(f.time, window.apply(screen));
            out.list.push(frame);
        }
        *frames = out;
        Ok(())
    }
}

/// Two optional sections stacked: both set → `merge`, else whichever is set.
fn overlay_opt<T: Clone>(a: &Option<T>, b: &Option<T>, merge: fn(&T, &T) -> T) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(merge(a, b)),
        (a, b) => b.clone().or_else(|| a.clone()),
    }
}

impl TerminalOptions {
    /// `top` over `self`: every key `top` sets wins.
    pub fn overlay(&self, top: &TerminalOptions) -> TerminalOptions {
        let mut out = self.clone();
        overlay_fields!(out, top, width, height, scrollback);
        out
    }
}

impl AppearanceOptions {
    /// `top` over `self`: every key `top` sets wins; arrays replace.
    pub fn overlay(&self, top: &AppearanceOptions) -> AppearanceOptions {
        let mut out = self.clone();
        overlay_fields!(
            out,
            top,
            theme,
            window,
            forecolor,
            backcolor,
            background,
            opacity,
            padding,
            margin,
            pc_padding,
            font,
            fontsize,
            line_height,
            size,
            with_command,
            header,
            prompt,
            cursor,
            bold_is_bright,
            embed_font,
            text_mode
        );
        out
    }

    /// The [`Appearance`] these options describe; `command` fills the `with-command` header.
    ///
    /// Errors: one line naming the option and the bad value (unknown theme or frame, bad
    /// colour, size or range, unreadable or non-image background file).
    pub fn resolve(&self, command: Option<&[String]>) -> Result<Appearance, String> {
        let themes = self.theme.clone().unwrap_or_default();
        let mut specs = Vec::new();
        for t in &themes {
            specs.extend(self::themes::load(t).map_err(|e| format!("theme: {e}"))?);
        }
        let theme = theme::resolve(&specs);
        let window = self
            .window
            .clone()
            .or_else(|| theme.window.clone())
            .unwrap_or_else(|| "none".into());
        let mut frame = chrome::load(&window).map_err(|e| format!("window: {e}"))?;
        if theme.pc && !frame.pc {
            // An original theme's pc variant puts its window on a desktop (its pcPadding, else
            // the frame default of 20 px; no shadow space, as the newest original reserves none).
            frame.pc = true;
            frame.pc_padding = 20.0;
            frame.shadow_offset = 0.0;
        }
        let color = |key: &str, v: &Option<String>| -> Result<Option<Rgb>, String> {
            v.as_deref()
                .map(|c| {
                    render::parse_css(c).ok_or_else(|| {
                        format!("{key}: '{c}' is not a colour (#rgb, #rrggbb, a CSS name such as tomato, rgb() or hsl(); opaque)")
                    })
                })
                .transpose()
        };
        let range = |key: &str, v: Option<f32>, lo: f32, hi: f32| -> Result<Option<f32>, String> {
            match v {
                Some(x) if !(x.is_finite() && (lo..=hi).contains(&x)) => {
                    Err(format!("{key}: {x} is not in {lo}..={hi}"))
                }
                other => Ok(other),
            }
        };
        let header = match (&self.header, self.with_command.unwrap_or(false), command) {
            (Some(h), _, _) => Some(h.clone()),
            (None, true, Some(cmd)) if !cmd.is_empty() => {
                let prompt = self.prompt.clone().unwrap_or_else(|| {
                    if rustix::process::geteuid().is_root() {
                        "#".into()
                    } else {
                        "$".into()
                    }
                });
                Some(format!("{prompt} {}", shell_join(cmd)))
            }
            _ => None,
        };
        let defaults = Appearance::default();
        Ok(Appearance {
            foreground: color("forecolor", &self.forecolor)?,
            background_color: color("backcolor", &self.backcolor)?,
            canvas: background(self.background.as_deref().unwrap_or(&[]))?,
            opacity: range("opacity", self.opacity, 0.0, 1.0)?
                .or(theme.opacity)
                .unwrap_or(1.0),
            spacing: Spacing {
                padding: range("padding", self.padding, 0.0, 10_000.0)?
                    .or(theme.padding)
                    .or(frame.padding)
                    .unwrap_or(defaults.spacing.padding),
                margin: range("margin", self.margin, 0.0, 10_000.0)?
                    .or(theme.margin)
                    .unwrap_or(defaults.spacing.margin),
                pc_padding: range("pc-padding", self.pc_padding, 0.0, 10_000.0)?
                    .or(theme.pc_padding)
                    .unwrap_or(frame.pc_padding),
            },
            font_family: self.font.clone().or_else(|| theme.font_family.clone()),
            font_size: range("fontsize", self.fontsize, 1.0, 500.0)?
                .or(theme.font_size)
                .unwrap_or(defaults.font_size),
            line_height: range("line-height", self.line_height, 1.0, 2.0)?
                .unwrap_or(defaults.line_height),
            header,
            cursor: self.cursor.unwrap_or(true),
            bold_is_bright: self.bold_is_bright.unwrap_or(false),
            embed_fonts: self.embed_font.unwrap_or(true),
            size: self.size.as_deref().map(parse_size).transpose()?,
            text_mode: self.text_mode.unwrap_or_default(),
            frame,
            theme,
        })
    }
}

/// `args` as a POSIX shell command line: arguments with characters outside
/// `[A-Za-z0-9_@%+=:,./-]` are single-quoted (`'` becomes `'\''`).
pub fn shell_join<S: AsRef<str>>(args: &[S]) -> String {
    let quote = |a: &str| {
        let plain = !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
        if plain {
            a.to_string()
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    };
    args.iter()
        .map(|a| quote(a.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses `--size`: `W`, `WxH`, `Wx*` or `*xH`, in px (1–100000).
pub fn parse_size(s: &str) -> Result<OutputSize, String> {
    let bad = || format!("size: '{s}' is not a size (W, WxH, Wx* or *xH, in px)");
    let px = |v: &str| {
        v.parse::<f32>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 1.0 && *v <= 100_000.0)
    };
    match s.split_once(['x', 'X']) {
        None => px(s).map(OutputSize::Width).ok_or_else(bad),
        Some(("*", h)) => px(h).map(OutputSize::Height).ok_or_else(bad),
        Some((w, "*")) => px(w).map(OutputSize::Width).ok_or_else(bad),
        Some((w, h)) => Ok(OutputSize::Box(
            px(w).ok_or_else(bad)?,
            px(h).ok_or_else(bad)?,
        )),
    }
}

/// `--background`: one colour, two colours (or `c1:c2`) for a gradient, or an image file.
fn background(values: &[String]) -> Result<Option<Background>, String> {
    let check = |c: &str| -> Result<String, String> {
        if render::is_css_color(c) {
            Ok(c.trim().to_string())
        } else {
            Err(format!(
                "background: '{c}' is not a CSS colour or an image file"
            ))
        }
    };
    Ok(match values {
        [] => None,
        [one] if Path::new(one).is_file() => {
            Some(Background::Image(image_data_uri(Path::new(one))?))
        }
        [one] => match one.split_once(':') {
            Some((a, b)) => Some(Background::Gradient(check(a)?, check(b)?)),
            None => Some(Background::Color(check(one)?)),
        },
        [a, b] => Some(Background::Gradient(check(a)?, check(b)?)),
        _ => return Err("background takes one or two values".into()),
    })
}

fn image_data_uri(path: &Path) -> Result<String, String> {
    use base64::Engine;
    let mime = match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("svg") => "image/svg+xml",
        _ => {
            return Err(format!(
                "{}: background images must be .png, .jpg, .gif, .webp or .svg",
                path.display()
            ))
        }
    };
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let looks_right = match mime {
        "image/png" => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => bytes.starts_with(&[0xff, 0xd8, 0xff]),
        "image/gif" => bytes.starts_with(b"GIF8"),
        "image/webp" => bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP",
        _ => String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).contains("<svg"),
    };
    if !looks_right {
        return Err(format!("{}: not a {mime} image", path.display()));
    }
    Ok(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}

/// A config file: `$version: 1`, `options:`, and optionally `$schema` (where an editor finds
/// the JSON Schema for completion; not read here).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "console2svg config file")]
pub struct ConfigFile {
    /// The document's JSON Schema (for editors; `--cw-generate-json-schema DIR` writes it).
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// The format version: 1 (may be left out; a document without it is read as version 1).
    #[serde(rename = "$version", default)]
    #[schemars(range(min = 1, max = 1))]
    pub version: Option<u32>,
    /// The options, as a scenario document's `options:`.
    #[serde(default)]
    pub options: Options,
}

/// The JSON Schema (draft 2020-12) of a config file ([`ConfigFile`]), generated from the types
/// that read it.
pub fn config_schema() -> serde_json::Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<ConfigFile>();
    serde_json::to_value(schema).unwrap_or_default()
}

/// The config tiers that exist, in order: `~/.config/console2svg/config.yaml`,
/// `./console2svg.config.yaml`, then `explicit` (`-C`, which must exist).
pub fn config_paths(explicit: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let p = PathBuf::from(home).join(".config/console2svg/config.yaml");
        if p.is_file() {
            out.push(p);
        }
    }
    let local = PathBuf::from("console2svg.config.yaml");
    if local.is_file() {
        out.push(local);
    }
    if let Some(p) = explicit {
        out.push(p.to_path_buf());
    }
    out
}

/// Reads one config file: YAML (`.yaml`, `.yml`, or no extension) or JSON (`.json`). An empty
/// document (or one with only `$schema` and `$version`) is no settings.
///
/// Errors: `invalid config <path>: <key path>: <what>`, one line: an unknown format by its
/// extension, unreadable, not YAML/JSON, an unknown key (named with its path, in JSON too),
/// `$version` not 1, nested and flat forms of one key both set, a value out of range or a
/// theme, window, colour, size or crop that does not load (see [`check_options`]).
pub fn read_config(path: &Path) -> Result<Options, String> {
    let options = parse_config(path)?;
    check_options(&options).map_err(|e| format!("invalid config {}: {e}", path.display()))?;
    Ok(options)
}

/// [`read_config`] without [`check_options`]: the file's syntax, keys and types only, so
/// nothing it names (a theme file, a background image) is read.
///
/// Errors: as [`read_config`], less the value checks.
pub fn parse_config(path: &Path) -> Result<Options, String> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let invalid = |msg: String| format!("invalid config {}: {msg}", path.display());
    let json = match ext.as_deref() {
        None | Some("yaml" | "yml") => false,
        Some("json") => true,
        Some(other) => {
            return Err(invalid(format!(
                "unknown format '.{other}' (a config file is YAML, .yaml or .yml, or JSON, .json)"
            )))
        }
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
    let file: Option<ConfigFile> = if json {
        if text.trim().is_empty() {
            Ok(None)
        } else {
            // serde_json names no key path by itself: track it.
            let de = &mut serde_json::Deserializer::from_str(&text);
            serde_path_to_error::deserialize(de).map(Some).map_err(|e| {
                let at = e.path().to_string();
                let inner = e.into_inner();
                if at == "." {
                    inner.to_string()
                } else {
                    format!("{at}: {inner}")
                }
            })
        }
    } else {
        serde_yaml_ng::from_str(&text).map_err(|e| e.to_string())
    }
    .map_err(invalid)?;
    let file = file.unwrap_or_default();
    if let Some(v) = file.version.filter(|v| *v != 1) {
        return Err(invalid(format!("$version must be 1, got {v}")));
    }
    let image = file.options.capture.as_ref().and_then(|c| c.image.as_ref());
    if image.is_some_and(|i| i.frame.is_some() && i.time.is_some()) {
        return Err(invalid(
            "capture.image: give frame or time, not both".into(),
        ));
    }
    Ok(file.options)
}

/// Checks the values of a config file's `options` that its types do not hold: the terminal
/// size (1–500 cells) and scrollback (0–[`crate::term::MAX_SCROLLBACK`]), the crop strings, and
/// every appearance key (themes and window styles load, colours parse, numbers in range), so a
/// bad value is refused naming the file that holds it.
///
/// Errors: `options.<section>.<key>: <what>` (`options.appearance.theme: unknown theme …`).
pub fn check_options(options: &Options) -> Result<(), String> {
    let t = options.terminal();
    for (key, v) in [("width", t.width), ("height", t.height)] {
        if let Some(n) = v.filter(|n| !(1..=500).contains(n)) {
            return Err(format!("options.terminal.{key}: {n} is not in 1..=500"));
        }
    }
    if let Some(n) = t
        .scrollback
        .filter(|n| *n as usize > crate::term::MAX_SCROLLBACK)
    {
        return Err(format!(
            "options.terminal.scrollback: {n} is not in 0..={}",
            crate::term::MAX_SCROLLBACK
        ));
    }
    if let Some(crop) = options.capture.as_ref().and_then(|c| c.crop.as_ref()) {
        crop.parse()
            .map_err(|e| format!("options.capture.crop.{}", e.trim_start_matches("crop-")))?;
    }
    options
        .appearance()
        .resolve(None)
        .map_err(|e| format!("options.appearance.{e}"))?;
    Ok(())
}

/// The stacked config tiers (see [`config_paths`]).
///
/// Errors: the first file that cannot be read (see [`read_config`]).
pub fn load_config(explicit: Option<&Path>) -> Result<Options, String> {
    let mut out = Options::default();
    for path in config_paths(explicit) {
        out = out.overlay(&read_config(&path)?);
    }
    Ok(out)
}

impl Options {
    /// `top` over `self`, section by section, key by key.
    pub fn overlay(&self, top: &Options) -> Options {
        let terminal = match (&self.terminal, &top.terminal) {
            (Some(a), Some(b)) => Some(a.overlay(b)),
            (a, b) => b.clone().or_else(|| a.clone()),
        };
        let appearance = match (&self.appearance, &top.appearance) {
            (Some(a), Some(b)) => Some(a.overlay(b)),
            (a, b) => b.clone().or_else(|| a.clone()),
        };
        Options {
            terminal,
            appearance,
            render: overlay_opt(&self.render, &top.render, RenderOptions::overlay),
            capture: overlay_opt(&self.capture, &top.capture, CaptureOptions::overlay),
            environment: overlay_opt(
                &self.environment,
                &top.environment,
                EnvironmentOptions::overlay,
            ),
            interactive: top.interactive.clone().or_else(|| self.interactive.clone()),
            live_server: top.live_server.clone().or_else(|| self.live_server.clone()),
            converter: top.converter.clone().or_else(|| self.converter.clone()),
        }
    }

    /// Masking and crop (see [`Still`]).
    ///
    /// Errors: as [`MaskingOptions::masker`] and [`CropOptions::parse`].
    pub fn still(&self) -> Result<Still, String> {
        let crop = self
            .capture
            .as_ref()
            .and_then(|c| c.crop.clone())
            .unwrap_or_default();
        Ok(Still {
            masker: self.masking().masker()?,
            crop: crop.parse()?,
        })
    }

    /// The masking options (empty when absent: auto rules on).
    pub fn masking(&self) -> MaskingOptions {
        self.render
            .as_ref()
            .and_then(|r| r.masking.clone())
            .unwrap_or_default()
    }

    /// The appearance section (empty when absent).
    pub fn appearance(&self) -> AppearanceOptions {
        self.appearance.clone().unwrap_or_default()
    }

    /// The terminal section (empty when absent).
    pub fn terminal(&self) -> TerminalOptions {
        self.terminal.clone().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_layers_win_key_by_key_and_arrays_replace() {
        let base: Options = serde_yaml_ng::from_str(
            "{terminal: {width: 80}, appearance: {theme: [nord, dracula], window: macos}}",
        )
        .unwrap();
        let top: Options =
            serde_yaml_ng::from_str("{terminal: {height: 10}, appearance: {theme: [light]}}")
                .unwrap();
        let m = base.overlay(&top);
        assert_eq!(
            m.terminal(),
            TerminalOptions {
                width: Some(80),
                height: Some(10),
                scrollback: None,
            }
        );
        assert_eq!(m.appearance().theme, Some(vec!["light".to_string()]));
        assert_eq!(m.appearance().window.as_deref(), Some("macos"));
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors() {
        assert!(serde_yaml_ng::from_str::<Options>("{appearance: {colour: red}}").is_err());
        let bad = AppearanceOptions {
            forecolor: Some("reddish".into()),
            ..Default::default()
        };
        assert_eq!(
            bad.resolve(None).unwrap_err(),
            "forecolor: 'reddish' is not a colour (#rgb, #rrggbb, a CSS name such as tomato, rgb() or hsl(); opaque)"
        );
        let bad = AppearanceOptions {
            opacity: Some(2.0),
            ..Default::default()
        };
        assert_eq!(bad.resolve(None).unwrap_err(), "opacity: 2 is not in 0..=1");
    }

    #[test]
    fn text_mode_is_a_key_that_stacks() {
        let base: Options = serde_yaml_ng::from_str("{appearance: {text-mode: outlines}}").unwrap();
        assert_eq!(
            base.appearance().resolve(None).unwrap().text_mode,
            TextMode::Outlines
        );
        let top: Options = serde_yaml_ng::from_str("{appearance: {text-mode: text}}").unwrap();
        assert_eq!(
            base.overlay(&top).appearance().text_mode,
            Some(TextMode::Text)
        );
        assert_eq!(
            AppearanceOptions::default()
                .resolve(None)
                .unwrap()
                .text_mode,
            TextMode::Text
        );
        assert!(serde_yaml_ng::from_str::<Options>("{appearance: {text-mode: paths}}").is_err());
    }

    #[test]
    fn config_files_need_version_one() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.yaml");
        std::fs::write(&p, "$version: 2\noptions: {}\n").unwrap();
        assert!(read_config(&p).unwrap_err().contains("$version must be 1"));
        // Empty, only comments, only `$schema`/`$version`: no settings.
        for empty in [
            "",
            "# nothing yet\n",
            "$schema: ./s.json\n",
            "$version: 1\n",
        ] {
            std::fs::write(&p, empty).unwrap();
            assert_eq!(read_config(&p).unwrap(), Options::default(), "{empty:?}");
        }
        let j = dir.path().join("c.json");
        for empty in ["", "{}", r#"{"$schema": "./s.json", "$version": 1}"#] {
            std::fs::write(&j, empty).unwrap();
            assert_eq!(read_config(&j).unwrap(), Options::default(), "{empty:?}");
        }
        std::fs::write(&p, "$version: 1\noptions: {appearance: {theme: [nord]}}\n").unwrap();
        assert_eq!(
            read_config(&p).unwrap().appearance().theme,
            Some(vec!["nord".to_string()])
        );
    }

    #[test]
    fn the_originals_nested_appearance_reads_as_the_flat_keys() {
        let nested: Options = serde_yaml_ng::from_str(
            "{appearance: {font: {family: Mono, size: 16}, size: {width: 800, height: 600},\
              header: {text: hi, with-command: true, prompt: '%'}}}",
        )
        .unwrap();
        let flat: Options = serde_yaml_ng::from_str(
            "{appearance: {font: Mono, fontsize: 16, size: 800x600, header: hi,\
              with-command: true, prompt: '%'}}",
        )
        .unwrap();
        assert_eq!(nested, flat);
        // Written back, it is the flat form (what `session export` writes).
        let text = serde_yaml_ng::to_string(&nested).unwrap();
        assert!(
            text.contains("fontsize: 16") && text.contains("size: 800x600"),
            "{text}"
        );
        for (size, want) in [
            ("{width: 640}", "640"),
            ("{height: 90}", "*x90"),
            ("1024", "1024"),
        ] {
            let o: Options =
                serde_yaml_ng::from_str(&format!("{{appearance: {{size: {size}}}}}")).unwrap();
            assert_eq!(o.appearance().size.as_deref(), Some(want), "{size}");
        }
        let clash = serde_yaml_ng::from_str::<Options>(
            "{appearance: {prompt: '$', header: {prompt: '%'}}}",
        )
        .unwrap_err()
        .to_string();
        assert!(
            clash.contains("prompt and header.prompt are both set"),
            "{clash}"
        );
    }

    #[test]
    fn the_originals_groups_stack_key_by_key() {
        let base: Options = serde_yaml_ng::from_str(
            "{environment: {color: preserve}, capture: {mode: video, video: {fps: 5, loop: false}}}",
        )
        .unwrap();
        let top: Options =
            serde_yaml_ng::from_str("{environment: {ci: preserve}, capture: {video: {fps: 20}}}")
                .unwrap();
        let m = base.overlay(&top);
        let env = m.environment.clone().unwrap();
        assert!(!env.color_env(false) && !env.delete_ci_env(false));
        assert!(EnvironmentOptions::default().color_env(false));
        assert!(!EnvironmentOptions::default().color_env(true));
        let capture = m.capture.unwrap();
        assert_eq!(capture.mode, Some(CaptureMode::Video));
        let video = capture.video.unwrap();
        assert_eq!((video.fps, video.looped), (Some(20), Some(false)));
    }

    #[test]
    fn shell_join_quotes_what_needs_it() {
        assert_eq!(
            shell_join(&["bash", "-c", "echo \"a  b\""]),
            "bash -c 'echo \"a  b\"'"
        );
        assert_eq!(shell_join(&["it's", ""]), "'it'\\''s' ''");
        assert_eq!(shell_join(&["ls", "-la", "/tmp"]), "ls -la /tmp");
    }
}
