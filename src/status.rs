//! `console2svg status`: what this installation can do here — version, fonts (bundled, system,
//! and the faces the fallback chain picks for CJK, emoji and symbols), renderers, themes and
//! window styles, the terminal's width policy and synchronized-output limit, and the
//! environment variables that change colour output.

use serde::Serialize;

use crate::render::fonts::{FaceStyle, Fonts, BUNDLED_FAMILY};
use crate::render::{chrome, theme};

/// Environment variables that change how programs (and the capture environment) colour output.
pub const COLOR_ENV: &[&str] = &[
    "TERM",
    "COLORTERM",
    "FORCE_COLOR",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "CI",
    "TF_BUILD",
];

/// The report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub schema_version: u32,
    pub version: &'static str,
    pub fonts: FontsReport,
    /// Output formats available (all in-process).
    pub renderers: Vec<&'static str>,
    pub themes: Vec<&'static str>,
    pub windows: Vec<&'static str>,
    /// The variables of [`COLOR_ENV`] that are set, with their values.
    pub environment: std::collections::BTreeMap<String, String>,
    /// Animation outputs and whether each is available here.
    pub video: VideoReport,
    /// How the emulator lays out clusters and holds synchronized frames.
    pub terminal: TerminalReport,
}

/// The emulator's policies a program can see: widths and synchronized output.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalReport {
    /// The DEC private mode that selects the width policy (2027).
    pub width_mode: u16,
    /// Whether the mode is set when a program starts (emoji clusters 2 cells: VS16, ZWJ
    /// sequences, flags, skin tones); a program resets it with `CSI ? 2027 l` for
    /// per-code-point `wcwidth`.
    pub grapheme_clusters: bool,
    /// How long a synchronized-output frame (mode 2026) is held before it is ended by force,
    /// in milliseconds.
    pub sync_timeout_ms: u64,
}

impl TerminalReport {
    /// The emulator's defaults.
    pub fn gather() -> TerminalReport {
        TerminalReport {
            width_mode: crate::term::cluster::MODE,
            grapheme_clusters: crate::term::Emulator::new(1, 1).grapheme_clusters(),
            sync_timeout_ms: crate::term::SYNC_TIMEOUT.as_millis() as u64,
        }
    }
}

/// Animation outputs: animated SVG, GIF and asciicast are in-process; MP4 and WebM need
/// `ffmpeg` on `PATH`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VideoReport {
    pub svg: bool,
    pub gif: bool,
    pub cast: bool,
    pub mp4: bool,
    pub webm: bool,
    /// The ffmpeg found, or `None`.
    pub ffmpeg: Option<String>,
}

impl VideoReport {
    /// Looks for ffmpeg on `PATH`.
    pub fn gather() -> VideoReport {
        let ffmpeg = crate::recording::ffmpeg::find().map(|p| p.to_string_lossy().into_owned());
        VideoReport {
            svg: true,
            gif: true,
            cast: true,
            mp4: ffmpeg.is_some(),
            webm: ffmpeg.is_some(),
            ffmpeg,
        }
    }
}

/// Fonts seen by the renderer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FontsReport {
    /// The bundled family (compiled in, four styles).
    pub bundled: &'static str,
    /// System font families found.
    pub system: Vec<String>,
    /// The face the fallback chain picks for a sample of each script, or `None` when no face
    /// covers it (a replacement box is drawn).
    pub fallback: Vec<Fallback>,
}

/// One fallback sample.
#[derive(Debug, Serialize)]
pub struct Fallback {
    pub script: &'static str,
    pub sample: &'static str,
    pub family: Option<String>,
}

/// Gathers the report (scans the system's fonts).
pub fn gather() -> Status {
    let fonts = Fonts::new();
    let fallback = [
        ("latin", "A"),
        ("cjk", "中"),
        ("kana", "あ"),
        ("hangul", "한"),
        ("emoji", "🚀"),
        ("symbols", "⌘"),
        ("icons", "\u{f07b}"),
    ]
    .into_iter()
    .map(|(script, sample)| {
        let r = fonts.resolve(sample, FaceStyle::Regular);
        Fallback {
            script,
            sample,
            family: r.found.then_some(r.family),
        }
    })
    .collect();
    Status {
        schema_version: 1,
        version: env!("CARGO_PKG_VERSION"),
        fonts: FontsReport {
            bundled: BUNDLED_FAMILY,
            system: fonts.system_families(),
            fallback,
        },
        renderers: vec!["svg", "png"],
        themes: theme::builtin_ids(),
        windows: chrome::builtin_names(),
        environment: COLOR_ENV
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
            .collect(),
        video: VideoReport::gather(),
        terminal: TerminalReport::gather(),
    }
}

impl Status {
    /// The report as readable text.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "console2svg {}\n\nfonts\n  bundled: {} (4 styles)\n",
            self.version, self.fonts.bundled
        );
        out.push_str(&format!("  system: {} families\n", self.fonts.system.len()));
        for f in &self.fonts.fallback {
            let family = f.family.as_deref().unwrap_or("none (replacement box)");
            out.push_str(&format!("  {:<8} {}  → {family}\n", f.script, f.sample));
        }
        out.push_str(&format!("\nrenderers: {}\n", self.renderers.join(", ")));
        let v = &self.video;
        out.push_str(&format!(
            "video: svg, gif, cast{}\n",
            match &v.ffmpeg {
                Some(p) => format!(", mp4, webm (ffmpeg: {p})"),
                None => "; mp4, webm need ffmpeg (apt-get install ffmpeg)".into(),
            }
        ));
        out.push_str(&format!("themes: {}\n", self.themes.join(", ")));
        out.push_str(&format!("windows: {}\n", self.windows.join(", ")));
        let t = &self.terminal;
        let widths = if t.grapheme_clusters {
            "grapheme clusters (a VS16 emoji, a ZWJ sequence, a flag: 2 cells)"
        } else {
            "one wcwidth per code point"
        };
        out.push_str(&format!(
            "\nterminal\n  widths: {widths}; mode {} ({}), CSI ? {} l for wcwidth\n  \
             synchronized output: mode 2026, a frame held at most {} ms\n\nenvironment\n",
            t.width_mode,
            if t.grapheme_clusters { "set" } else { "reset" },
            t.width_mode,
            t.sync_timeout_ms
        ));
        if self.environment.is_empty() {
            out.push_str("  (none of the colour variables is set)\n");
        }
        for (k, v) in &self.environment {
            out.push_str(&format!("  {k}={v}\n"));
        }
        out
    }
}
