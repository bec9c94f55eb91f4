//! `console2svg status`: what this installation can do here — version, fonts (bundled, system,
//! and the faces the fallback chain picks for CJK, emoji and symbols), renderers, themes and
//! window styles, and the environment variables that change colour output.

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
        out.push_str(&format!(
            "windows: {}\n\nenvironment\n",
            self.windows.join(", ")
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
