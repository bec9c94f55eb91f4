//! `console2svg status`: what this installation can do here — version, fonts (bundled, system,
//! and the faces the fallback chain picks for CJK, emoji and symbols), renderers, themes and
//! window styles, the terminal's width policy and synchronized-output limit, the
//! environment variables that change colour output; and, as the original's report has them,
//! the application and platform, the rasterisers actually probed (resvg in-process by a real
//! conversion, `rsvg-convert` by a real conversion, `ffmpeg` by its version), the optional
//! tools (`git`, `tmux`) and the output formats with what makes each.
//! [`Status::to_text`] and [`Status::to_markdown`] print it; `--format json` serialises it.

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
    /// This program.
    pub application: Application,
    /// Where it runs.
    pub platform: Platform,
    /// The rasterisers, each probed by running it: resvg, rsvg-convert, ffmpeg.
    pub renderer_probes: Vec<Probe>,
    /// Optional tools some commands use: git (`batch`), tmux (`tmux capture`).
    pub tools: Vec<Probe>,
    /// Every output format, whether it can be written here and what writes it.
    pub formats: Vec<FormatReport>,
}

/// The application section.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Application {
    pub name: &'static str,
    pub version: &'static str,
    /// The running executable, when the OS says.
    pub executable: Option<String>,
}

/// The platform section (Rust's `std::env::consts`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Platform {
    /// `linux`, `macos`, …
    pub os: &'static str,
    /// `unix` or `windows`.
    pub family: &'static str,
    /// `x86_64`, `aarch64`, …
    pub arch: &'static str,
    /// The kernel release (`uname -r`), when known.
    pub kernel: Option<String>,
}

/// One probed program (or the in-process renderer).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    pub name: &'static str,
    /// It ran and did what was asked (a conversion for renderers, a version for tools).
    pub available: bool,
    /// The first line of its version, or `in-process`.
    pub version: Option<String>,
    /// Where it was found on `PATH` (`None` in-process or not found).
    pub path: Option<String>,
}

/// One output format.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FormatReport {
    /// The extension (`svg`, `png`, `jpg`, `webp`, `gif`, `mp4`, `webm`, `cast`).
    pub format: &'static str,
    pub available: bool,
    /// What writes it: `in-process` or `ffmpeg`.
    pub via: &'static str,
    /// `still`, `animation` or `recording`.
    pub kind: &'static str,
}

/// `name` on `PATH`.
fn which(name: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Runs `name args…` with `stdin`; its stdout when it exits 0.
fn run(path: &std::path::Path, args: &[&str], stdin: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut input = child.stdin.take()?;
    let _ = input.write_all(stdin);
    drop(input);
    let out = child.wait_with_output().ok()?;
    out.status.success().then_some(out.stdout)
}

fn first_line(bytes: &[u8]) -> Option<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        // ffmpeg's line goes on with its copyright.
        .map(|l| l.split(" Copyright").next().unwrap_or(l).to_string())
}

/// The SVG every rasteriser is asked to convert.
const PROBE_SVG: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"><rect width=\"4\" height=\"4\" fill=\"#c00\"/></svg>";

/// A program probed with `args`: available when it runs and `check` accepts its stdout.
fn probe(name: &'static str, args: &[&str], stdin: &[u8], check: fn(&[u8]) -> bool) -> Probe {
    let path = which(name);
    let out = path.as_deref().and_then(|p| run(p, args, stdin));
    let available = out.as_deref().is_some_and(check);
    // A probe that asked for the version already has it.
    let version = if args == [version_flag(name)] {
        out.as_deref().and_then(first_line)
    } else {
        path.as_deref()
            .and_then(|p| run(p, &[version_flag(name)], b""))
            .and_then(|v| first_line(&v))
    };
    Probe {
        name,
        available,
        version,
        path: path.map(|p| p.to_string_lossy().into_owned()),
    }
}

fn version_flag(name: &str) -> &'static str {
    match name {
        "tmux" => "-V",
        "ffmpeg" => "-version",
        _ => "--version",
    }
}

/// Probes the rasterisers and the optional tools.
fn probes() -> (Vec<Probe>, Vec<Probe>) {
    let is_png = |b: &[u8]| b.starts_with(b"\x89PNG");
    let resvg = Probe {
        name: "resvg",
        available: crate::render::raster::png(PROBE_SVG, 1.0).is_ok_and(|b| is_png(&b)),
        version: Some("in-process".into()),
        path: None,
    };
    // The programs run at the same time: the report waits for the slowest, not the sum.
    std::thread::scope(|s| {
        let rsvg = s.spawn(|| probe("rsvg-convert", &["-f", "png"], PROBE_SVG.as_bytes(), is_png));
        let ffmpeg = s.spawn(|| probe("ffmpeg", &["-version"], b"", |b| b.starts_with(b"ffmpeg")));
        let git = s.spawn(|| probe("git", &["--version"], b"", |b| b.starts_with(b"git")));
        let tmux = s.spawn(|| probe("tmux", &["-V"], b"", |b| b.starts_with(b"tmux")));
        let join = |h: std::thread::ScopedJoinHandle<'_, Probe>| {
            h.join().expect("a probe thread does not panic")
        };
        let renderers = vec![resvg, join(rsvg), join(ffmpeg)];
        let tools = vec![join(git), join(tmux)];
        (renderers, tools)
    })
}

fn formats(ffmpeg: bool) -> Vec<FormatReport> {
    let f = |format, available, via, kind| FormatReport {
        format,
        available,
        via,
        kind,
    };
    vec![
        f("svg", true, "in-process", "still"),
        f("png", true, "in-process", "still"),
        f("jpg", true, "in-process", "still"),
        f("webp", true, "in-process", "still"),
        f("gif", true, "in-process", "animation"),
        f("mp4", ffmpeg, "ffmpeg", "animation"),
        f("webm", ffmpeg, "ffmpeg", "animation"),
        f("cast", true, "in-process", "recording"),
    ]
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
    let (renderers, tools) = probes();
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
        renderers: vec!["svg", "png", "jpg", "webp"],
        themes: theme::builtin_ids(),
        windows: chrome::builtin_names(),
        environment: COLOR_ENV
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
            .collect(),
        video: VideoReport::gather(),
        terminal: TerminalReport::gather(),
        application: Application {
            name: "console2svg",
            version: env!("CARGO_PKG_VERSION"),
            executable: std::env::current_exe()
                .ok()
                .map(|p| p.to_string_lossy().into_owned()),
        },
        platform: Platform {
            os: std::env::consts::OS,
            family: std::env::consts::FAMILY,
            arch: std::env::consts::ARCH,
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .ok()
                .map(|s| s.trim().to_string()),
        },
        formats: formats(renderers.iter().any(|p| p.name == "ffmpeg" && p.available)),
        renderer_probes: renderers,
        tools,
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
        let a = &self.application;
        let p = &self.platform;
        out.push_str(&format!(
            "\napplication\n  {} {}{}\n\nplatform\n  {} ({}, {}){}\n\nrenderers probed\n",
            a.name,
            a.version,
            a.executable
                .as_ref()
                .map(|e| format!("  {e}"))
                .unwrap_or_default(),
            p.os,
            p.family,
            p.arch,
            p.kernel
                .as_ref()
                .map(|k| format!(", kernel {k}"))
                .unwrap_or_default(),
        ));
        let line = |p: &Probe| {
            format!(
                "  {:<13} {:<4} {}\n",
                p.name,
                if p.available { "yes" } else { "no" },
                p.version.as_deref().unwrap_or("not found")
            )
        };
        self.renderer_probes
            .iter()
            .for_each(|p| out.push_str(&line(p)));
        out.push_str("\noptional tools\n");
        self.tools.iter().for_each(|p| out.push_str(&line(p)));
        out.push_str("\noutput formats\n");
        for f in &self.formats {
            out.push_str(&format!(
                "  {:<5} {:<4} {:<10} {}\n",
                f.format,
                if f.available { "yes" } else { "no" },
                f.via,
                f.kind
            ));
        }
        out
    }

    /// The report as Markdown: one `##` section each (application, platform, renderers,
    /// optional tools, output formats, fonts, themes, terminal, environment), tables where
    /// the section is a list.
    pub fn to_markdown(&self) -> String {
        let yes = |b: bool| if b { "yes" } else { "no" };
        let a = &self.application;
        let p = &self.platform;
        let mut out = format!(
            "# console2svg status\n\n## Application\n\n| name | version | executable |\n|---|---|---|\n| {} | {} | {} |\n",
            a.name,
            a.version,
            a.executable.as_deref().unwrap_or("")
        );
        out.push_str(&format!(
            "\n## Platform\n\n| os | family | arch | kernel |\n|---|---|---|---|\n| {} | {} | {} | {} |\n",
            p.os,
            p.family,
            p.arch,
            p.kernel.as_deref().unwrap_or("")
        ));
        let probes = |title: &str, list: &[Probe]| {
            let mut s = format!(
                "\n## {title}\n\n| name | available | version | path |\n|---|---|---|---|\n"
            );
            for p in list {
                s.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    p.name,
                    yes(p.available),
                    p.version.as_deref().unwrap_or(""),
                    p.path.as_deref().unwrap_or("")
                ));
            }
            s
        };
        out.push_str(&probes("Renderers", &self.renderer_probes));
        out.push_str(&probes("Optional tools", &self.tools));
        out.push_str(
            "\n## Output formats\n\n| format | available | via | kind |\n|---|---|---|---|\n",
        );
        for f in &self.formats {
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                f.format,
                yes(f.available),
                f.via,
                f.kind
            ));
        }
        out.push_str(&format!(
            "\n## Fonts\n\nBundled: {} (4 styles); {} system families.\n\n| script | sample | face |\n|---|---|---|\n",
            self.fonts.bundled,
            self.fonts.system.len()
        ));
        for f in &self.fonts.fallback {
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                f.script,
                f.sample,
                f.family.as_deref().unwrap_or("none (replacement box)")
            ));
        }
        out.push_str(&format!(
            "\n## Themes\n\n{}\n\nWindows: {}\n",
            self.themes.join(", "),
            self.windows.join(", ")
        ));
        let t = &self.terminal;
        out.push_str(&format!(
            "\n## Terminal\n\n| width mode | grapheme clusters | sync timeout (ms) |\n|---|---|---|\n| {} | {} | {} |\n",
            t.width_mode,
            yes(t.grapheme_clusters),
            t.sync_timeout_ms
        ));
        out.push_str("\n## Environment\n\n");
        if self.environment.is_empty() {
            out.push_str("None of the colour variables is set.\n");
        } else {
            out.push_str("| variable | value |\n|---|---|\n");
            for (k, v) in &self.environment {
                out.push_str(&format!("| {k} | `{}` |\n", v.replace('|', "\\|")));
            }
        }
        out
    }
}
