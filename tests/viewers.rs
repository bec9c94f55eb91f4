//! The viewer matrix of the issue "Rendering that looks the same in every viewer".
//!
//! Every rendering case of shared/cases/rendering.md (the inputs of tests/rendering_cases.rs)
//! and every window style (`-d`) is captured by the real binary in each text mode, then
//! rasterised at 1× by four viewers: resvg (the bundled fonts loaded, as tests/common does),
//! Chromium headless with the SVG loaded as a document (in an `<iframe>`, which draws exactly
//! what opening the SVG as the page itself draws: checked on [`DIRECT_SAMPLES`]), Chromium
//! headless with the SVG inside an `<img>`, and rsvg-convert; and by rsvg-convert once more
//! with only a proportional font. Chromium takes one screenshot per batch page of SVGs (a
//! second each on this 2-core machine, so not one per SVG). The checks:
//!
//! - In every viewer, glyph ink stays inside its cells: a grid cell that holds no glyph and that
//!   the glyph-free SVG paints uniformly keeps exactly that paint, bar a 1 px anti-aliasing
//!   margin at its edges; and every glyph puts ink into its own cells.
//! - Chromium (which honours the embedded `@font-face` subsets) agrees with resvg, over the whole
//!   image and over the glyph ink; as an `<img>` and as the page itself it draws exactly what it
//!   draws as a document in an `<iframe>`.
//! - Text mode, rsvg-convert (librsvg 2.54) cannot agree on glyph shapes: it ignores
//!   `@font-face`, so it draws the stack's next monospace font the system has (DejaVu Sans Mono
//!   on Debian). It reads only the first value of an `x` list, which is why every glyph carries
//!   an `x` of its own: its glyphs stay in their columns whatever font it uses. Asserted:
//!   outside the glyph cells it agrees with resvg; CJK glyphs (a system font in every viewer)
//!   agree; the embedded font's glyphs agree with resvg drawing the SVG without `@font-face`,
//!   and not with resvg proper. Emoji (drawn from a monochrome font) and Nerd Fonts icons (no
//!   icon font unless installed): reported only.
//! - rsvg-convert whose only font is a proportional one (a fontconfig with one font dir, DejaVu
//!   Sans): every case of the matrix draws as resvg draws it with that font alone (resvg
//!   honours every `x`), glyph ink included, so every glyph is in its column; without
//!   per-glyph positions 70 % of the glyph ink is far off (the control). Runs of glyphs
//!   narrower than a cell in that font keep their ink in their own cells.
//! - Fallback faces (one-cell symbols shrunk to their cell, CJK, icons from the bundled icon
//!   face) keep their ink in their cells in every viewer: their per-glyph `font-family` and
//!   `font-size` win over the stylesheet's defaults in Chromium too.
//! - Other modes (outlines): every viewer, rsvg-convert included, agrees with resvg.
//! - The embedded font subsets pass the OpenType Sanitizer (`ots-sanitize`, the check browsers
//!   run on web fonts), and Chromium draws with them: with the `@font-face` rules its glyphs agree
//!   with resvg's, without them they do not.
//! - Frame labels (the cyberpunk frames' "SYS://NEON-TERMINAL") name the generic `monospace`,
//!   which each viewer resolves to a font of its own: left out of the agreement and reported.
//!
//! The external viewers run with a fontconfig setup that hides any installed JetBrains Mono, so
//! they see what a reader's machine without the font sees (and the results do not depend on
//! whether this machine has it). A viewer binary that is missing fails the tests: .ci/run
//! installs them (Debian 12: chromium, librsvg2-bin, opentype-sanitizer), and the fallback
//! monospace in all four styles (fonts-dejavu-core, fonts-dejavu-extra: without the oblique
//! faces librsvg slants the regular one and resvg does not, and the rsvg-convert check fails).
//!
//! Agreement is measured per pixel on images composited over white: two pixels are *far apart*
//! when a colour channel differs by more than [`FAR`]; two rasters agree when the far-apart
//! pixels are at most a small fraction of the pixels compared.

mod common;

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use base64::Engine as _;
use common::*;
use resvg::tiny_skia;
use unicode_width::UnicodeWidthStr;

/// The text modes under test (the capture's `--text-mode`; "text" is the default and passes
/// no flag). Once `--text-mode outlines` exists, enable it by changing this line to
/// `const MODES: &[&str] = &["text", "outlines"];`
const MODES: &[&str] = &["text", "outlines"];

/// A channel difference above this means two pixels are far apart (a quarter of the range:
/// more than anti-aliasing or hinting moves an edge pixel on average).
const FAR: u8 = 64;

/// A pixel whose channels differ from the glyph-free raster by more than this is glyph ink.
const INK: u8 = 24;

/// Two rasters agree when at most this fraction of all their pixels is far apart ...
const WHOLE_MAX_FAR: f64 = 0.003;

/// ... and at most this fraction of the glyph ink (the pixels that are ink in either).
const GLYPH_INK_MAX_FAR: f64 = 0.15;

/// Two rasterisers drawing the same font the same way (rsvg-convert against resvg imitating it;
/// measured: 0 far-apart pixels in every case).
const SAME_DRAWING_MAX_FAR: f64 = 0.01;

/// Glyphs drawn in another font: at least this fraction of their ink is far apart.
const OTHER_FONT_MIN_FAR: f64 = 0.10;

/// A viewer draws with the font it is closest to, by this factor.
const OTHER_FONT_RATIO: f64 = 2.0;

/// A pixel of an empty cell whose channels are off its reference by more than this is ink.
const SPILL: u8 = 32;

/// Width of the anti-aliasing margin inside each cell edge, px at 1×.
const AA_MARGIN: f32 = 1.0;

/// Parallel Chromium processes.
const CHROMIUM_WORKERS: usize = 2;

/// The SVGs also opened as the page itself, which must look exactly as they do in an
/// `<iframe>` (Chromium starts in about a second, so not every SVG is opened on its own).
const DIRECT_SAMPLES: &[&str] = &["font_styles", "rc02_box_with_emoji", "window_macos-pc"];

// ---------------------------------------------------------------------------------------------
// Inputs

/// One capture: the rendering case's `printf` line (run by bash in the PTY) and its options.
struct Input {
    name: String,
    line: &'static str,
    args: Vec<&'static str>,
    cols: usize,
}

fn input(name: &str, line: &'static str, args: &[&'static str]) -> Input {
    let cols = args
        .iter()
        .position(|a| *a == "-w")
        .map(|i| args[i + 1].parse().unwrap())
        .unwrap_or(100);
    Input {
        name: name.to_string(),
        line,
        args: args.to_vec(),
        cols,
    }
}

/// The window styles of tests/windows.rs, plus the cyberpunk frames.
const WINDOW_STYLES: &[&str] = &[
    "none",
    "transparent",
    "macos",
    "windows",
    "macos-pc",
    "windows-pc",
    "cyberpunk",
    "cyberpunk-pc",
];

/// The window-style input of tests/windows.rs (with the header row on).
const WINDOW_LINE: &str = r"printf 'hello \e[32mworld\e[0m\n\e[44;97m box \e[0m ┌─┐\n'";

/// Every capture of the matrix: RC-01 … RC-16 with the inputs of tests/rendering_cases.rs, the
/// four font styles, and every window style.
fn inputs() -> Vec<Input> {
    let mut v = vec![
        input("rc01_cjk_run", r"printf '中文测试|\nabcdefgh|\n'", &[]),
        input(
            "rc02_box_with_emoji",
            r"printf '╭────────╮\n│☕ tea  │\n│🔮 orb  │\n╰────────╯\n'",
            &[],
        ),
        input(
            "rc03_cjk_fallback",
            r"printf '你好世界 end\nこんにちは end\n'",
            &[],
        ),
        input("rc04_emoji", r"printf 'A⭕B\nA✅B\nA🚀B\n'", &[]),
        input(
            "rc05_box_drawing",
            r"printf '┌──┬──┐\n│  │  │\n├──┼──┤\n└──┴──┘\n'",
            &["--no-cursor"],
        ),
        input(
            "rc06_blocks",
            r"printf '\e[31m████\e[0m\n\e[31m████\e[0m\n\e[34;41m▄▄▄▄\e[0m\n'",
            &["--no-cursor"],
        ),
        input(
            "rc07_bold",
            r"printf 'normal \e[1mbold\e[22m normal\n'",
            &[],
        ),
        input(
            "rc08_backgrounds_dim",
            r"printf '\e[41m red \e[42m green \e[0m \e[2mdim\e[22m\n'",
            &["--no-cursor"],
        ),
        input(
            "rc09_bold_not_bright",
            r"printf '\e[32mgreen \e[1mbold-green\e[0m \e[92mbright-green\e[0m \e[1;38;5;2mX\e[0m\n'",
            &[],
        ),
        input(
            "rc10_extended_colours",
            r"printf '\e[38;2;68;68;68mA\e[0m \e[38:2::255:0:0mB\e[0m \e[38;5;208mC\e[0m \e[48;5;21m D \e[0m \e[48:2::0:128:0m E \e[0m\n'",
            &["--no-cursor"],
        ),
        input(
            "rc11_spaces",
            r"printf '   indented\n\e[90m│\e[39m     1\e[90m│\e[39m\n'",
            &[],
        ),
        input(
            "rc12_rainbow",
            r"for c in $(seq 0 199); do printf '\e[38;5;%dmX' $((c%216+16)); done; printf '\e[0m\n'",
            &["--no-cursor"],
        ),
        input(
            "rc13_underlines",
            r"printf '\e[4:3m\e[58:2::255:0:0mcurly-red\e[0m \e[4:2mdouble\e[0m \e[4:4mdotted\e[0m \e[4:5mdashed\e[0m \e[9mstrike\e[0m \e[4;9mboth\e[0m \e[4;58;2;0;0;255mu\e[59mv\e[0m\n'",
            &["--no-cursor"],
        ),
        input(
            "rc14_links",
            r"printf '\e]8;;https://example.com\e\\link\e]8;;\e\\ \e]8;;javascript:alert(1)\e\\bad\e]8;;\e\\\n'",
            &[],
        ),
        input("rc15_cursor_block", r"printf 'user@host:~$ '", &[]),
        input(
            "rc15_cursor_bar",
            r"printf '\e[5 q'; printf 'user@host:~$ '",
            &[],
        ),
        input(
            "rc15_cursor_hidden",
            r"printf '\e[?25l'; printf 'user@host:~$ '",
            &[],
        ),
        input(
            "rc16_erase_eol",
            r"printf '\e[44mblue to EOL\e[K\e[0m\nplain   \n'",
            &["--no-cursor"],
        ),
        // Fallback faces: one-cell symbols wider than a cell in their face (shrunk to fit; the
        // last row's each with a style of its own, 1.4 em wide in DejaVu Sans), a CJK
        // ideograph, and Nerd Fonts icons from the bundled icon face.
        input(
            "fallback_glyphs",
            "printf 'a\u{2714}b\u{263a}c\u{2605}d\u{4e2d}|\\n\u{f07b} \u{e718}x\u{f0001}y end\\np\u{22d8}q\u{27f9}r\\n'",
            &["--no-cursor"],
        ),
        input(
            "font_styles",
            r"printf 'regular \e[1mbold\e[0m \e[3mitalic\e[0m \e[1;3mbold-italic\e[0m\n'",
            &["--no-cursor"],
        ),
    ];
    for style in WINDOW_STYLES {
        let mut i = input(
            &format!("window_{style}"),
            WINDOW_LINE,
            &["-w", "40", "-h", "3", "-c", "--no-cursor", "-d"],
        );
        i.args.push(style);
        v.push(i);
    }
    v
}

/// The capture options that select `mode`.
fn mode_args(mode: &str) -> Vec<&str> {
    if mode == "text" {
        vec![]
    } else {
        vec!["--text-mode", mode]
    }
}

// ---------------------------------------------------------------------------------------------
// Images

/// An opaque RGB image: a raster composited over white.
#[derive(Clone)]
struct Image {
    w: u32,
    h: u32,
    px: Vec<[u8; 3]>,
}

impl Image {
    /// Composites a (premultiplied) pixmap over white.
    fn over_white(p: &tiny_skia::Pixmap) -> Image {
        let px = p
            .pixels()
            .iter()
            .map(|c| {
                let white = 255 - c.alpha();
                [c.red() + white, c.green() + white, c.blue() + white]
            })
            .collect();
        Image {
            w: p.width(),
            h: p.height(),
            px,
        }
    }

    fn load_png(path: &Path) -> Image {
        let p = tiny_skia::Pixmap::load_png(path)
            .unwrap_or_else(|e| panic!("{} is not a PNG: {e}", path.display()));
        Image::over_white(&p)
    }

    fn at(&self, x: u32, y: u32) -> [u8; 3] {
        self.px[(y * self.w + x) as usize]
    }

    /// The `w`×`h` region at (`x`, `y`).
    fn crop(&self, x: u32, y: u32, w: u32, h: u32) -> Image {
        assert!(x + w <= self.w && y + h <= self.h, "crop inside the image");
        let px = (y..y + h)
            .flat_map(|yy| (x..x + w).map(move |xx| (xx, yy)))
            .map(|(xx, yy)| self.at(xx, yy))
            .collect();
        Image { w, h, px }
    }

    fn save_png(&self, path: &Path) {
        let mut p = tiny_skia::Pixmap::new(self.w, self.h).unwrap();
        for (dst, src) in p.pixels_mut().iter_mut().zip(&self.px) {
            *dst = tiny_skia::ColorU8::from_rgba(src[0], src[1], src[2], 255).premultiply();
        }
        p.save_png(path).unwrap();
    }
}

/// Largest channel difference of two pixels.
fn delta(a: [u8; 3], b: [u8; 3]) -> u8 {
    (0..3).map(|i| a[i].abs_diff(b[i])).max().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Geometry from the SVG

/// The character grid of a capture, as the SVG places it.
#[derive(Clone, Copy, Debug)]
struct Grid {
    x: f32,
    y: f32,
    cols: usize,
    rows: usize,
}

impl Grid {
    /// The terminal area is the `.bg` rectangle (the whole canvas when there is none, as with
    /// `-d transparent`); the cells sit centred in it, with equal padding on every side.
    fn of(svg: &str, cols: usize) -> Grid {
        let doc = roxmltree::Document::parse(svg).unwrap();
        let root = doc.root_element();
        let num = |n: roxmltree::Node, a: &str, default: f32| {
            n.attribute(a)
                .map_or(default, |v| v.parse::<f32>().unwrap())
        };
        let (w, h) = (num(root, "width", 0.0), num(root, "height", 0.0));
        let area = doc
            .descendants()
            .find(|n| n.has_tag_name("rect") && n.attribute("class") == Some("bg"))
            .map_or((0.0, 0.0, w, h), |r| {
                (
                    num(r, "x", 0.0),
                    num(r, "y", 0.0),
                    num(r, "width", 0.0),
                    num(r, "height", 0.0),
                )
            });
        let pad = (area.2 - cols as f32 * CELL_W) / 2.0;
        let rows = ((area.3 - 2.0 * pad) / CELL_H).round() as usize;
        assert!(
            (rows as f32 * CELL_H + 2.0 * pad - area.3).abs() < 0.01,
            "the terminal area {area:?} holds whole rows"
        );
        Grid {
            x: area.0 + pad,
            y: area.1 + pad,
            cols,
            rows,
        }
    }

    /// The rectangle of `width` cells from (`row`, `col`), in SVG px.
    fn rect(&self, row: usize, col: usize, width: usize) -> (f32, f32, f32, f32) {
        let x0 = self.x + col as f32 * CELL_W;
        let y0 = self.y + row as f32 * CELL_H;
        (x0, y0, x0 + width as f32 * CELL_W, y0 + CELL_H)
    }
}

/// The pixels (at 1×) lying wholly inside `rect` shrunk by `inset` on every side.
fn pixels_in(rect: (f32, f32, f32, f32), inset: f32) -> impl Iterator<Item = (u32, u32)> {
    let (x0, y0) = ((rect.0 + inset).ceil(), (rect.1 + inset).ceil());
    let (x1, y1) = ((rect.2 - inset).floor(), (rect.3 - inset).floor());
    let (x0, y0, x1, y1) = (
        x0.max(0.0) as u32,
        y0.max(0.0) as u32,
        x1.max(0.0) as u32,
        y1.max(0.0) as u32,
    );
    (y0..y1).flat_map(move |y| (x0..x1).map(move |x| (x, y)))
}

/// A glyph the SVG draws in the grid: its text and the cells it owns.
#[derive(Clone, Debug)]
struct GlyphCells {
    text: String,
    row: usize,
    col: usize,
    width: usize,
}

/// Every glyph the SVG places on the grid, with its cells; glyphs outside the grid (a frame's
/// own label) are returned apart, as text and baseline position.
fn glyph_cells(svg: &str, grid: &Grid) -> (Vec<GlyphCells>, Vec<PlacedGlyph>) {
    let mut inside = Vec::new();
    let mut outside = Vec::new();
    for g in glyphs(svg) {
        let col = ((g.x - grid.x) / CELL_W + 0.01).floor();
        let row = ((g.y - BASELINE - grid.y) / CELL_H).round();
        let on_baseline = (grid.y + row * CELL_H + BASELINE - g.y).abs() < 0.01;
        if !on_baseline || col < 0.0 || row < 0.0 {
            outside.push(g);
            continue;
        }
        let (row, col) = (row as usize, col as usize);
        if row >= grid.rows || col >= grid.cols {
            outside.push(g);
            continue;
        }
        let width = g.text.width().clamp(1, 2);
        inside.push(GlyphCells {
            text: g.text,
            row,
            col,
            width,
        });
    }
    (inside, outside)
}

/// The SVG without its glyphs: every `<text>` and every `<use>` (glyph outlines) removed.
fn strip_glyphs(svg: &str) -> String {
    let text = regex::Regex::new(r"(?s)<text\b.*?</text>").unwrap();
    let uses = regex::Regex::new(r"(?s)<use\b[^>]*?(/>|>.*?</use>)").unwrap();
    uses.replace_all(&text.replace_all(svg, ""), "")
        .into_owned()
}

/// The SVG without its `@font-face` rules: viewers fall back to the font stack's other faces.
fn strip_font_faces(svg: &str) -> String {
    regex::Regex::new(r"@font-face\{[^}]*\}")
        .unwrap()
        .replace_all(svg, "")
        .into_owned()
}

/// The SVG as rsvg-convert (librsvg 2.54) draws its text: without `@font-face`, so with the
/// next monospace font of the SVG's font stack that the system has (the embedded family is
/// renamed out of the stacks, since resvg here has the bundled fonts), and with only the first
/// value of each `x` list (a no-op for our SVGs, where every glyph has an `x` of its own).
fn as_rsvg_convert_draws_text(svg: &str) -> String {
    let renamed = strip_font_faces(svg).replace("\"JetBrains Mono\"", "\"Not JetBrains Mono\"");
    regex::Regex::new(r#"(<t(?:ext|span)\b[^>]*? x=")([^" ]+)[^"]*""#)
        .unwrap()
        .replace_all(&renamed, "$1$2\"")
        .into_owned()
}

/// The embedded fonts: each `@font-face` data URI, decoded.
fn embedded_fonts(svg: &str) -> Vec<(String, Vec<u8>)> {
    let re = regex::Regex::new(
        r"@font-face\{([^}]*?)src:url\(data:font/[a-z0-9]+;base64,([A-Za-z0-9+/=]+)\)",
    )
    .unwrap();
    re.captures_iter(svg)
        .map(|c| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&c[2])
                .expect("the data URI is base64");
            (c[1].to_string(), bytes)
        })
        .collect()
}

/// The root `width` and `height` of an SVG, in px.
fn svg_size(svg: &str) -> (u32, u32) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let root = doc.root_element();
    let n = |a: &str| root.attribute(a).unwrap().parse::<f32>().unwrap();
    let (w, h) = (n("width"), n("height"));
    assert!(w.fract() == 0.0 && h.fract() == 0.0, "whole-pixel canvas");
    (w as u32, h as u32)
}

// ---------------------------------------------------------------------------------------------
// Viewers

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Viewer {
    Resvg,
    ChromiumDocument,
    ChromiumImg,
    RsvgConvert,
    /// Chromium with the SVG opened as the page itself (for [`DIRECT_SAMPLES`] only).
    ChromiumPage,
}

impl Viewer {
    fn name(self) -> &'static str {
        match self {
            Viewer::Resvg => "resvg",
            Viewer::ChromiumDocument => "chromium-doc",
            Viewer::ChromiumImg => "chromium-img",
            Viewer::RsvgConvert => "rsvg-convert",
            Viewer::ChromiumPage => "chromium-page",
        }
    }
}

/// Fails with a clear message when an external program the tests need is not installed.
fn require(program: &str, package: &str) {
    let found = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()));
    assert!(
        found,
        "`{program}` not found on PATH: the viewer tests need Debian's `{package}` package \
         (apt-get install chromium librsvg2-bin opentype-sanitizer; .ci/run installs them)"
    );
}

fn require_viewers() {
    require("chromium", "chromium");
    require("rsvg-convert", "librsvg2-bin");
    require("ots-sanitize", "opentype-sanitizer");
}

/// A fontconfig file that is the system's setup without JetBrains Mono.
fn write_fontconfig(dir: &Path) -> PathBuf {
    let path = dir.join("fonts.conf");
    std::fs::write(
        &path,
        r#"<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont><pattern>
    <patelt name="family"><string>JetBrains Mono</string></patelt>
  </pattern></rejectfont></selectfont>
</fontconfig>
"#,
    )
    .unwrap();
    path
}

/// Runs `cmd` to completion within `limit`; panics with its output when it fails.
fn run(mut cmd: Command, what: &str, limit: Duration) -> std::process::Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => {
            let out = out.unwrap();
            assert!(
                out.status.success(),
                "{what}: {}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            out
        }
        Err(_) => {
            let _ = Command::new("kill")
                .arg("-KILL")
                .arg(id.to_string())
                .status();
            panic!("{what}: no result after {limit:?}");
        }
    }
}

/// Extra window height for Chromium screenshots, cropped off afterwards: with a window only as
/// tall as the SVG (88 px for RC-05), Chromium 156 headless screenshots come out blank or with
/// only some raster tiles drawn, every time; 100 px more and they are whole.
const SLACK: u32 = 200;

/// A Chromium headless screenshot of `url` in a `w`×`h` window at device scale 1.
fn chromium_screenshot(url: &str, w: u32, h: u32, out: &Path, fontconfig: &Path) -> Image {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("chromium");
    cmd.env("FONTCONFIG_FILE", fontconfig)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--no-first-run",
        ])
        .arg(format!("--window-size={w},{}", h + SLACK))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", out.display()))
        .arg(url);
    run(cmd, &format!("chromium {url}"), Duration::from_secs(120));
    let img = Image::load_png(out);
    assert_eq!(
        (img.w, img.h),
        (w, h + SLACK),
        "chromium screenshot size of {url}"
    );
    img.crop(0, 0, w, h)
}

/// rsvg-convert's raster of the SVG file at `svg` (1×, white background).
fn rsvg_convert(svg: &Path, out: &Path, fontconfig: &Path) -> Image {
    let mut cmd = Command::new("rsvg-convert");
    cmd.env("FONTCONFIG_FILE", fontconfig)
        .args(["--background-color", "white", "-o"])
        .arg(out)
        .arg(svg);
    run(cmd, "rsvg-convert", Duration::from_secs(60));
    Image::load_png(out)
}

/// The `file://` URL of a local path.
fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

// ---------------------------------------------------------------------------------------------
// The matrix: every input in every mode through every viewer

/// One SVG with its rasters.
struct Rendered {
    name: String,
    mode: &'static str,
    svg: String,
    grid: Option<Grid>,
    glyphs: Vec<GlyphCells>,
    /// Glyphs outside the grid (frame labels).
    chrome_text: Vec<PlacedGlyph>,
    /// resvg's raster of the SVG with its glyphs removed: what each cell shows under its glyph.
    reference: Image,
    /// resvg's raster of [`as_rsvg_convert_draws_text`].
    fallback: Image,
    views: Vec<(Viewer, Image)>,
    /// rsvg-convert whose only font is DejaVu Sans ([`write_font_poor_fontconfig`]), and resvg
    /// drawing the SVG without `@font-face` with DejaVu Sans only (it places every glyph at
    /// its `x`).
    font_poor: (Image, Image),
}

impl Rendered {
    fn view(&self, v: Viewer) -> &Image {
        self.try_view(v)
            .unwrap_or_else(|| panic!("{}: no {} raster", self.label(), v.name()))
    }

    fn try_view(&self, v: Viewer) -> Option<&Image> {
        self.views.iter().find(|(w, _)| *w == v).map(|(_, img)| img)
    }

    /// The label used in messages and file names.
    fn label(&self) -> String {
        format!("{}[{}]", self.name, self.mode)
    }
}

/// An SVG to put through the viewers.
struct Job {
    name: String,
    mode: &'static str,
    svg: String,
    cols: Option<usize>,
    file: PathBuf,
    size: (u32, u32),
}

struct Matrix {
    rendered: Vec<Rendered>,
}

fn matrix() -> &'static Matrix {
    static M: OnceLock<Matrix> = OnceLock::new();
    M.get_or_init(build_matrix)
}

fn build_matrix() -> Matrix {
    let start = Instant::now();
    require_viewers();
    let work = tempdir();
    let fontconfig = write_fontconfig(work.path());
    let font_poor = write_font_poor_fontconfig(work.path());
    let mut jobs = Vec::new();
    for &mode in MODES {
        for i in inputs() {
            let mut args = i.args.clone();
            args.extend(mode_args(mode));
            let case = capture_script(i.line, &args);
            jobs.push((i.name.clone(), mode, case.svg, Some(i.cols)));
        }
    }
    // Chromium without the embedded fonts, for the check that it draws with them.
    let styles = jobs
        .iter()
        .find(|j| j.0 == "font_styles" && j.1 == "text")
        .map(|j| strip_font_faces(&j.2));
    if let Some(svg) = styles {
        jobs.push(("font_styles_without_font_face".into(), "text", svg, None));
    }
    let jobs: Vec<Job> = jobs
        .into_iter()
        .enumerate()
        .map(|(k, (name, mode, svg, cols))| {
            let file = work.path().join(format!("{k:02}-{name}-{mode}.svg"));
            std::fs::write(&file, &svg).unwrap();
            let size = svg_size(&svg);
            Job {
                name,
                mode,
                svg,
                cols,
                file,
                size,
            }
        })
        .collect();

    let captured = start.elapsed();
    // Chromium: every SVG as an <img> and as an <iframe> document on batch pages, and the
    // sample SVGs opened as pages themselves; the screenshots in parallel.
    let pages = batch_pages(&jobs, work.path());
    let samples: Vec<usize> = (0..jobs.len())
        .filter(|&k| DIRECT_SAMPLES.contains(&jobs[k].name.as_str()))
        .collect();
    let shots: Vec<(PathBuf, (u32, u32))> = pages
        .iter()
        .map(|p| (p.html.clone(), p.size))
        .chain(
            samples
                .iter()
                .map(|&k| (jobs[k].file.clone(), jobs[k].size)),
        )
        .collect();
    let images: Vec<Mutex<Option<Image>>> = shots.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..CHROMIUM_WORKERS {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some((file, (w, h))) = shots.get(k) else {
                    break;
                };
                let png = file.with_extension("chromium.png");
                let img = chromium_screenshot(&file_url(file), *w, *h, &png, &fontconfig);
                *images[k].lock().unwrap() = Some(img);
            });
        }
    });
    let mut images: Vec<Image> = images
        .into_iter()
        .map(|m| m.into_inner().unwrap().expect("every screenshot taken"))
        .collect();
    let mut direct: Vec<Option<Image>> = vec![None; jobs.len()];
    for (&k, img) in samples.iter().zip(images.split_off(pages.len())) {
        direct[k] = Some(img);
    }
    let screenshots = start.elapsed() - captured;

    let rendered: Vec<Rendered> = jobs
        .iter()
        .enumerate()
        .map(|(k, j)| {
            let (p, top) = pages
                .iter()
                .enumerate()
                .find_map(|(p, page)| {
                    page.tops
                        .iter()
                        .find(|(job, _)| *job == k)
                        .map(|(_, top)| (p, *top))
                })
                .unwrap();
            let (w, h) = j.size;
            let in_img = images[p].crop(0, top, w, h);
            let in_frame = images[p].crop(pages[p].frames_x, top, w, h);
            let rsvg = rsvg_convert(&j.file, &j.file.with_extension("rsvg.png"), &fontconfig);
            let resvg = Image::over_white(&raster(&j.svg, 1.0));
            let reference = Image::over_white(&raster(&strip_glyphs(&j.svg), 1.0));
            let fallback = Image::over_white(&raster(&as_rsvg_convert_draws_text(&j.svg), 1.0));
            let poor = rsvg_convert(&j.file, &j.file.with_extension("poor.png"), &font_poor);
            let poor_reference =
                Image::over_white(&raster_with(&strip_font_faces(&j.svg), 1.0, font_poor_db()));
            let grid = j.cols.map(|c| Grid::of(&j.svg, c));
            let (glyphs, chrome_text) = grid
                .as_ref()
                .map(|g| glyph_cells(&j.svg, g))
                .unwrap_or_default();
            for img in [&rsvg, &reference, &fallback] {
                assert_eq!((img.w, img.h), (resvg.w, resvg.h), "{} raster size", j.name);
            }
            let mut views = vec![
                (Viewer::Resvg, resvg),
                (Viewer::ChromiumDocument, in_frame),
                (Viewer::ChromiumImg, in_img),
                (Viewer::RsvgConvert, rsvg),
            ];
            if let Some(page) = direct[k].take() {
                views.push((Viewer::ChromiumPage, page));
            }
            Rendered {
                name: j.name.clone(),
                mode: j.mode,
                svg: j.svg.clone(),
                grid,
                glyphs,
                chrome_text,
                reference,
                fallback,
                views,
                font_poor: (poor, poor_reference),
            }
        })
        .collect();
    eprintln!(
        "{} SVGs: captured in {:.1} s, Chromium screenshots {:.1} s, the other viewers {:.1} s",
        rendered.len(),
        captured.as_secs_f64(),
        screenshots.as_secs_f64(),
        (start.elapsed() - captured - screenshots).as_secs_f64()
    );
    Matrix { rendered }
}

/// An HTML page holding each SVG twice, stacked at whole-pixel offsets: as an `<img>` (left
/// column) and as a document in an `<iframe>` (right column, from x = `frames_x`).
struct BatchPage {
    html: PathBuf,
    size: (u32, u32),
    frames_x: u32,
    /// (job index, top offset in px)
    tops: Vec<(usize, u32)>,
}

/// Batch pages, each at most about 4000 px tall, white, with no margins or borders.
fn batch_pages(jobs: &[Job], dir: &Path) -> Vec<BatchPage> {
    const GAP: u32 = 10;
    let frames_x = jobs.iter().map(|j| j.size.0).max().unwrap_or(0) + GAP;
    let mut pages: Vec<BatchPage> = Vec::new();
    for (k, j) in jobs.iter().enumerate() {
        let fits = pages.last().is_some_and(|p| p.size.1 + j.size.1 <= 4000);
        if !fits {
            let html = dir.join(format!("page{}.html", pages.len()));
            pages.push(BatchPage {
                html,
                size: (2 * frames_x, 0),
                frames_x,
                tops: vec![],
            });
        }
        let p = pages.last_mut().unwrap();
        p.tops.push((k, p.size.1));
        p.size.1 += j.size.1 + GAP;
    }
    for p in &pages {
        let mut html = String::from(
            "<!doctype html><html><head><meta charset=\"utf-8\"><style>\
             html,body{margin:0;padding:0;background:#fff;overflow:hidden}\
             img,iframe{position:absolute;display:block;border:0;margin:0;padding:0}\
             </style></head><body>\n",
        );
        for (k, top) in &p.tops {
            let j = &jobs[*k];
            let (name, (w, h)) = (j.file.file_name().unwrap().to_str().unwrap(), j.size);
            let _ = writeln!(
                html,
                "<img src=\"{name}\" width=\"{w}\" height=\"{h}\" style=\"left:0;top:{top}px\">\
                 <iframe src=\"{name}\" width=\"{w}\" height=\"{h}\" scrolling=\"no\" \
                 style=\"left:{}px;top:{top}px\"></iframe>",
                p.frames_x
            );
        }
        html.push_str("</body></html>\n");
        std::fs::write(&p.html, html).unwrap();
    }
    pages
}

// ---------------------------------------------------------------------------------------------
// Measures

/// How far apart two rasters are over a set of pixels.
#[derive(Clone, Copy, Debug, Default)]
struct Agreement {
    /// Pixels with a channel more than [`FAR`] apart.
    far: usize,
    /// Pixels compared.
    of: usize,
    /// Largest channel difference.
    max: u8,
}

impl Agreement {
    fn fraction(&self) -> f64 {
        if self.of == 0 {
            0.0
        } else {
            self.far as f64 / self.of as f64
        }
    }
}

impl std::fmt::Display for Agreement {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{:.3}% far ({} of {} px, max Δ {})",
            self.fraction() * 100.0,
            self.far,
            self.of,
            self.max
        )
    }
}

/// `a` against `b` over `pixels`.
fn agreement(a: &Image, b: &Image, pixels: impl Iterator<Item = (u32, u32)>) -> Agreement {
    let mut m = Agreement::default();
    for (x, y) in pixels {
        let d = delta(a.at(x, y), b.at(x, y));
        m.of += 1;
        m.max = m.max.max(d);
        if d > FAR {
            m.far += 1;
        }
    }
    m
}

/// `a` against `b` over the glyph ink among `pixels`: the pixels where either differs from the
/// glyph-free `reference` by more than [`INK`].
fn ink_agreement(
    a: &Image,
    b: &Image,
    reference: &Image,
    pixels: impl Iterator<Item = (u32, u32)>,
) -> Agreement {
    agreement(
        a,
        b,
        pixels.filter(|&(x, y)| {
            let r = reference.at(x, y);
            delta(a.at(x, y), r) > INK || delta(b.at(x, y), r) > INK
        }),
    )
}

fn all_pixels(img: &Image) -> impl Iterator<Item = (u32, u32)> + '_ {
    (0..img.h).flat_map(move |y| (0..img.w).map(move |x| (x, y)))
}

/// The pixels of the cells of the glyphs `keep` selects, grown by the anti-aliasing margin.
fn glyph_pixels(r: &Rendered, keep: impl Fn(&GlyphCells) -> bool) -> HashSet<(u32, u32)> {
    let Some(grid) = &r.grid else {
        return HashSet::new();
    };
    r.glyphs
        .iter()
        .filter(|g| keep(g))
        .flat_map(|g| pixels_in(grid.rect(g.row, g.col, g.width), -AA_MARGIN))
        .collect()
}

/// The pixels around the frame's own labels (text outside the grid): a generous box from each
/// label's x to one font size per character on, from one font size above its baseline to a
/// third of one below.
fn label_pixels(r: &Rendered) -> HashSet<(u32, u32)> {
    let doc = roxmltree::Document::parse(&r.svg).unwrap();
    let mut out = HashSet::new();
    for g in &r.chrome_text {
        let size = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .find(|n| n.attribute("y").and_then(|v| v.parse::<f32>().ok()) == Some(g.y))
            .and_then(|n| n.attribute("font-size"))
            .map_or(14.0, |v| v.parse().unwrap());
        let len = g.text.chars().count() as f32;
        let rect = (
            g.x - 2.0,
            g.y - size - 2.0,
            g.x + len * size + 2.0,
            g.y + size / 3.0 + 2.0,
        );
        out.extend(pixels_in(rect, 0.0));
    }
    out
}

/// Glyphs drawn with the embedded font (the other glyphs, CJK and emoji, come from system
/// fallback fonts in every viewer).
fn from_embedded_font(g: &GlyphCells) -> bool {
    g.text.is_ascii()
}

/// Emoji (colour fonts): rsvg-convert draws them in monochrome.
fn is_emoji(g: &GlyphCells) -> bool {
    g.text
        .chars()
        .any(|c| matches!(c as u32, 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0x1F000..=0x1FAFF))
}

/// Nerd Fonts icons (private use): drawn from the bundled icon face, which rsvg-convert (no
/// `@font-face`) does not have unless it is installed.
fn is_icon(g: &GlyphCells) -> bool {
    g.text
        .chars()
        .any(|c| matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF))
}

/// One finding of a check.
struct Failure {
    label: String,
    message: String,
}

/// Panics with every failure, after saving the failing cases' SVGs and rasters.
fn report(check: &str, failures: Vec<Failure>, m: &Matrix) {
    if failures.is_empty() {
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("console2svg-viewers-")
        .tempdir()
        .unwrap()
        .keep();
    let labels: HashSet<&str> = failures.iter().map(|f| f.label.as_str()).collect();
    for r in m
        .rendered
        .iter()
        .filter(|r| labels.contains(r.label().as_str()))
    {
        let stem = format!("{}-{}", r.name, r.mode);
        std::fs::write(dir.join(format!("{stem}.svg")), &r.svg).unwrap();
        r.reference
            .save_png(&dir.join(format!("{stem}.resvg-without-glyphs.png")));
        for (v, img) in &r.views {
            img.save_png(&dir.join(format!("{stem}.{}.png", v.name())));
        }
    }
    let mut msg = format!("{check}: {} failure(s)\n", failures.len());
    for f in &failures {
        let _ = writeln!(msg, "  {}: {}", f.label, f.message);
    }
    let _ = writeln!(
        msg,
        "the SVGs and every viewer's raster (and resvg's without glyphs) are saved in {}",
        dir.display()
    );
    panic!("{msg}");
}

/// The matrix's cases (the extra SVGs of the font check have no grid).
fn cases(m: &Matrix) -> impl Iterator<Item = &Rendered> {
    m.rendered.iter().filter(|r| r.grid.is_some())
}

// ---------------------------------------------------------------------------------------------
// Checks

/// In every viewer and mode, glyph ink stays in its own cells, and every glyph is drawn there.
#[test]
fn every_viewer_keeps_glyph_ink_inside_its_cells() {
    let m = matrix();
    let mut failures = Vec::new();
    for r in cases(m) {
        let grid = r.grid.unwrap();
        let owned: HashSet<(usize, usize)> = r
            .glyphs
            .iter()
            .flat_map(|g| (0..g.width).map(move |k| (g.row, g.col + k)))
            .collect();
        // Empty cells: no glyph, and one uniform paint (background, block, cursor) inside the
        // anti-aliasing margin once the glyphs are removed.
        let mut empty = Vec::new();
        for row in 0..grid.rows {
            for col in 0..grid.cols {
                if owned.contains(&(row, col)) {
                    continue;
                }
                let inner: Vec<(u32, u32)> = pixels_in(grid.rect(row, col, 1), AA_MARGIN).collect();
                let first = r.reference.at(inner[0].0, inner[0].1);
                if inner
                    .iter()
                    .all(|&(x, y)| delta(r.reference.at(x, y), first) <= 2)
                {
                    empty.push((row, col, inner));
                }
            }
        }
        for (v, img) in &r.views {
            let mut worst = (0, 0, 0);
            for (row, col, inner) in &empty {
                let d = inner
                    .iter()
                    .map(|&(x, y)| delta(img.at(x, y), r.reference.at(x, y)))
                    .max()
                    .unwrap();
                if d > worst.0 {
                    worst = (d, *row, *col);
                }
            }
            let (d, row, col) = worst;
            eprintln!(
                "cells {:<30} {:<13} {:>4} empty cells, largest Δ {d}",
                r.label(),
                v.name(),
                empty.len()
            );
            if d > SPILL {
                failures.push(Failure {
                    label: r.label(),
                    message: format!(
                        "{}: ink (Δ {d} > {SPILL}) in the empty cell at row {row}, col {col}",
                        v.name()
                    ),
                });
            }
            for g in &r.glyphs {
                let ink = pixels_in(grid.rect(g.row, g.col, g.width), 0.0)
                    .map(|(x, y)| delta(img.at(x, y), r.reference.at(x, y)))
                    .max()
                    .unwrap_or(0);
                if ink <= INK {
                    failures.push(Failure {
                        label: r.label(),
                        message: format!(
                            "{}: glyph {:?} at row {}, col {} draws nothing in its cells (Δ {ink})",
                            v.name(),
                            g.text,
                            g.row,
                            g.col
                        ),
                    });
                }
            }
        }
    }
    report("glyph ink outside its cells", failures, m);
}

/// Chromium, as a page and as an `<img>`, agrees with resvg in every mode: over the whole
/// image, and over the glyph ink alone.
#[test]
fn chromium_agrees_with_resvg() {
    let m = matrix();
    let mut failures = Vec::new();
    for r in cases(m) {
        let resvg = r.view(Viewer::Resvg);
        // Frame labels name the generic `monospace`, which each viewer resolves to a font of
        // its own: compared apart (and only reported).
        let labels = label_pixels(r);
        let glyphs = glyph_pixels(r, |_| true);
        for v in [Viewer::ChromiumDocument, Viewer::ChromiumImg] {
            let img = r.view(v);
            let whole = agreement(
                img,
                resvg,
                all_pixels(resvg).filter(|p| !labels.contains(p)),
            );
            let ink = ink_agreement(img, resvg, &r.reference, glyphs.iter().copied());

            eprintln!(
                "chromium {:<27} {:<13} whole {whole}; glyph ink {ink}",
                r.label(),
                v.name()
            );
            if !labels.is_empty() {
                let l = ink_agreement(img, resvg, &r.reference, labels.iter().copied());
                eprintln!(
                    "chromium {:<27} {:<13} frame label ink (generic monospace) {l}",
                    r.label(),
                    v.name()
                );
            }
            if whole.fraction() > WHOLE_MAX_FAR || ink.fraction() > GLYPH_INK_MAX_FAR {
                failures.push(Failure {
                    label: r.label(),
                    message: format!(
                        "{} against resvg: whole {whole} (tolerance {:.3}%), glyph ink {ink} \
                         (tolerance {:.1}%)",
                        v.name(),
                        WHOLE_MAX_FAR * 100.0,
                        GLYPH_INK_MAX_FAR * 100.0
                    ),
                });
            }
        }
        // One rendering, however the SVG is embedded.
        let doc = r.view(Viewer::ChromiumDocument);
        let mut same = vec![("<img>", r.view(Viewer::ChromiumImg))];
        same.extend(
            r.try_view(Viewer::ChromiumPage)
                .map(|p| ("the page itself", p)),
        );
        for (how, img) in same {
            let a = agreement(img, doc, all_pixels(doc));
            eprintln!(
                "chromium {:<27} as {how} against as an <iframe> document: {a}",
                r.label()
            );
            if a.far > 0 {
                failures.push(Failure {
                    label: r.label(),
                    message: format!("Chromium, the SVG as {how} against as a document: {a}"),
                });
            }
        }
    }
    report("Chromium against resvg", failures, m);
}

/// rsvg-convert ignores `@font-face`: in text mode it draws the glyphs of the embedded font with
/// the next monospace font of the SVG's font stack that the system has. Asserted: outside the
/// glyph cells it agrees with resvg; inside them it agrees with resvg drawing that same fallback
/// font, and is further from resvg with the embedded font. In the other modes it agrees with
/// resvg everywhere.
#[test]
fn rsvg_convert_differs_from_resvg_only_in_text_mode_glyph_shapes() {
    let m = matrix();
    let mut failures = Vec::new();
    let (mut to_embedded, mut to_fallback) = (Agreement::default(), Agreement::default());
    for r in cases(m) {
        let resvg = r.view(Viewer::Resvg);
        let rsvg = r.view(Viewer::RsvgConvert);
        let mut masked = glyph_pixels(r, |_| true);
        masked.extend(label_pixels(r));
        let outside = agreement(
            rsvg,
            resvg,
            all_pixels(resvg).filter(|p| !masked.contains(p)),
        );
        let embedded = glyph_pixels(r, from_embedded_font);
        let others: HashSet<(u32, u32)> =
            glyph_pixels(r, |g| !from_embedded_font(g) && !is_emoji(g) && !is_icon(g))
                .difference(&embedded)
                .copied()
                .collect();
        let icons = glyph_pixels(r, is_icon);
        if !icons.is_empty() {
            let i = ink_agreement(rsvg, resvg, &r.reference, icons.iter().copied());
            eprintln!(
                "rsvg {:<31} Nerd Fonts icons (no icon font in rsvg-convert) {i}",
                r.label()
            );
        }
        let emoji = glyph_pixels(r, is_emoji);
        if !emoji.is_empty() {
            let e = ink_agreement(rsvg, resvg, &r.reference, emoji.iter().copied());
            eprintln!(
                "rsvg {:<31} emoji (monochrome in rsvg-convert) {e}",
                r.label()
            );
        }
        let a = ink_agreement(rsvg, resvg, &r.reference, embedded.iter().copied());
        let b = ink_agreement(rsvg, &r.fallback, &r.reference, embedded.iter().copied());
        let c = ink_agreement(rsvg, resvg, &r.reference, others.iter().copied());
        eprintln!(
            "rsvg {:<31} outside glyph cells {outside}; embedded-font glyph ink against resvg \
             {a}, against resvg drawing it as rsvg-convert does {b}; CJK glyphs {c}",
            r.label()
        );
        let mut fail = |message: String| {
            failures.push(Failure {
                label: r.label(),
                message,
            })
        };
        if outside.fraction() > WHOLE_MAX_FAR {
            fail(format!("outside the glyph cells: {outside}"));
        }
        if c.fraction() > GLYPH_INK_MAX_FAR {
            fail(format!("CJK glyphs (from a system font): {c}"));
        }
        if r.mode == "text" {
            if b.fraction() > SAME_DRAWING_MAX_FAR {
                fail(format!(
                    "the embedded font's glyphs against resvg drawing them as rsvg-convert \
                     does: {b}"
                ));
            }
            for (sum, one) in [(&mut to_embedded, a), (&mut to_fallback, b)] {
                sum.far += one.far;
                sum.of += one.of;
                sum.max = sum.max.max(one.max);
            }
        } else if a.fraction() > GLYPH_INK_MAX_FAR {
            fail(format!("glyph ink against resvg: {a}"));
        }
    }
    eprintln!(
        "rsvg-convert, text mode, embedded-font glyph ink: against resvg {to_embedded}; \
         against resvg drawing them as rsvg-convert does {to_fallback}"
    );
    if to_embedded.of > 0 && to_embedded.fraction() < OTHER_FONT_RATIO * to_fallback.fraction() {
        failures.push(Failure {
            label: "text mode".into(),
            message: format!(
                "rsvg-convert's glyphs are no longer far closer to the fallback font drawn \
                 without per-character x ({to_fallback}) than to resvg ({to_embedded}): if it \
                 honours @font-face and x lists now, text mode agrees in every viewer and this \
                 test should say so"
            ),
        });
    }
    report("rsvg-convert against resvg", failures, m);
}

/// rsvg-convert whose only font is proportional (DejaVu Sans) places every glyph where resvg,
/// which honours every `x`, draws it with that font: over the whole picture bar the frame
/// labels, and over the glyphs it has (not CJK, emoji or icons, which each draws its own way
/// without a font for them).
#[test]
fn rsvg_convert_with_only_a_proportional_font_draws_glyphs_in_their_columns() {
    let m = matrix();
    let mut failures = Vec::new();
    for r in cases(m) {
        let (rsvg, reference) = &r.font_poor;
        let labels = label_pixels(r);
        let others = glyph_pixels(r, |g| !g.text.is_ascii());
        let whole = agreement(
            rsvg,
            reference,
            all_pixels(rsvg).filter(|p| !labels.contains(p) && !others.contains(p)),
        );
        let ascii: HashSet<(u32, u32)> = glyph_pixels(r, |g| g.text.is_ascii())
            .difference(&others)
            .copied()
            .collect();
        let ink = ink_agreement(rsvg, reference, &r.reference, ascii.iter().copied());
        eprintln!("font-poor {:<26} whole {whole}; glyph ink {ink}", r.label());
        if whole.fraction() > WHOLE_MAX_FAR || ink.fraction() > SAME_DRAWING_MAX_FAR {
            failures.push(Failure {
                label: r.label(),
                message: format!(
                    "rsvg-convert with DejaVu Sans only against resvg with it: whole {whole}, \
                     glyph ink {ink}"
                ),
            });
        }
    }
    // The control: without per-glyph positions, the same check sees the drift.
    let work = tempdir();
    let fontconfig = write_font_poor_fontconfig(work.path());
    for name in ["rc12_rainbow", "font_styles"] {
        let r = cases(m)
            .find(|r| r.name == name && r.mode == "text")
            .unwrap();
        let file = work.path().join(format!("{name}.svg"));
        std::fs::write(&file, without_per_glyph_x(&r.svg)).unwrap();
        let rsvg = rsvg_convert(&file, &file.with_extension("png"), &fontconfig);
        let ascii = glyph_pixels(r, |g| g.text.is_ascii());
        let ink = ink_agreement(&rsvg, &r.font_poor.1, &r.reference, ascii.iter().copied());
        eprintln!("font-poor {name}[text] without per-glyph x: glyph ink {ink}");
        assert!(
            ink.fraction() >= OTHER_FONT_MIN_FAR,
            "{name}: without per-glyph x rsvg-convert still agrees ({ink}): the check cannot \
             see drift"
        );
    }
    report("rsvg-convert with only a proportional font", failures, m);
}

/// The embedded subsets pass the OpenType Sanitizer (ots-sanitize, the checker Chromium and
/// Firefox run on every web font), and Chromium draws with them.
#[test]
fn embedded_fonts_pass_the_sanitizer_and_chromium_draws_with_them() {
    let m = matrix();
    let dir = tempdir();
    let mut faces = 0;
    for r in m.rendered.iter().filter(|r| r.mode == "text") {
        for (k, (decl, font)) in embedded_fonts(&r.svg).into_iter().enumerate() {
            let input = dir.path().join(format!("{}-{k}.ttf", r.name));
            std::fs::write(&input, &font).unwrap();
            let mut cmd = Command::new("ots-sanitize");
            cmd.arg(&input).arg(input.with_extension("sanitized.ttf"));
            let out = cmd.output().expect("ots-sanitize runs");
            assert!(
                out.status.success(),
                "{}: the @font-face {{{decl}}} font ({} bytes) fails the OpenType Sanitizer: {}{}",
                r.name,
                font.len(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            faces += 1;
        }
    }
    let styles = m
        .rendered
        .iter()
        .find(|r| r.name == "font_styles" && r.mode == "text")
        .unwrap();
    let decls: Vec<String> = embedded_fonts(&styles.svg)
        .into_iter()
        .map(|(d, _)| d)
        .collect();
    assert_eq!(decls.len(), 4, "four embedded styles: {decls:?}");
    eprintln!("{faces} embedded fonts sanitized");

    // Chromium with the @font-face rules agrees with resvg (which has the bundled fonts);
    // without them (so falling back to the system's monospace) it does not.
    let without = m
        .rendered
        .iter()
        .find(|r| r.name == "font_styles_without_font_face")
        .unwrap();
    let glyphs = glyph_pixels(styles, |_| true);
    let resvg = styles.view(Viewer::Resvg);
    for v in [Viewer::ChromiumDocument, Viewer::ChromiumImg] {
        let with = ink_agreement(
            styles.view(v),
            resvg,
            &styles.reference,
            glyphs.iter().copied(),
        );
        let fallback = ink_agreement(
            without.view(v),
            resvg,
            &styles.reference,
            glyphs.iter().copied(),
        );
        eprintln!(
            "{}: glyph ink with the embedded fonts {with}; with @font-face removed {fallback}",
            v.name()
        );
        assert!(
            with.fraction() <= GLYPH_INK_MAX_FAR,
            "{}: with the embedded fonts {with}",
            v.name()
        );
        assert!(
            fallback.fraction() >= OTHER_FONT_MIN_FAR,
            "{}: with @font-face removed Chromium still agrees with resvg ({fallback}): the \
             check cannot tell whether Chromium uses the embedded fonts",
            v.name()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// rsvg-convert on a machine with one proportional font

/// The four styles of DejaVu Sans (Debian's `fonts-dejavu-core` and `fonts-dejavu-extra`).
fn font_poor_faces() -> Vec<PathBuf> {
    ["", "-Bold", "-Oblique", "-BoldOblique"]
        .iter()
        .map(|s| {
            let p = PathBuf::from(format!(
                "/usr/share/fonts/truetype/dejavu/DejaVuSans{s}.ttf"
            ));
            assert!(
                p.is_file(),
                "{} missing: the viewer tests need Debian's fonts-dejavu-core and -extra",
                p.display()
            );
            p
        })
        .collect()
}

/// resvg's fonts for the drawing rsvg-convert makes with [`write_font_poor_fontconfig`]:
/// DejaVu Sans alone, for every generic family too.
fn font_poor_db() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static DB: OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        for face in font_poor_faces() {
            db.load_font_file(face).unwrap();
        }
        db.set_monospace_family("DejaVu Sans");
        db.set_sans_serif_family("DejaVu Sans");
        db.set_serif_family("DejaVu Sans");
        std::sync::Arc::new(db)
    })
    .clone()
}

/// A fontconfig setup whose only font is DejaVu Sans (four styles), a proportional face: every glyph rsvg-convert draws has that face's own advance, so a glyph
/// stays in its column only if the SVG places it there itself.
fn write_font_poor_fontconfig(dir: &Path) -> PathBuf {
    let fonts = dir.join("fonts");
    std::fs::create_dir_all(&fonts).unwrap();
    for face in font_poor_faces() {
        std::fs::copy(&face, fonts.join(face.file_name().unwrap())).unwrap();
    }
    let path = dir.join("font-poor.conf");
    std::fs::write(
        &path,
        format!(
            r#"<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>{}</dir>
  <cachedir>{}</cachedir>
</fontconfig>
"#,
            fonts.display(),
            dir.join("cache").display()
        ),
    )
    .unwrap();
    path
}

/// Where glyph ink is wrong in `img`: a glyph with no ink in its own cells, or ink in a cell
/// that holds no glyph (beyond the anti-aliasing margin). Each finding as a message.
fn misplaced_ink(svg: &str, cols: usize, img: &Image) -> Vec<String> {
    let grid = Grid::of(svg, cols);
    let (glyphs, _) = glyph_cells(svg, &grid);
    let reference = Image::over_white(&raster(&strip_glyphs(svg), 1.0));
    let owned: HashSet<(usize, usize)> = glyphs
        .iter()
        .flat_map(|g| (0..g.width).map(move |k| (g.row, g.col + k)))
        .collect();
    let mut found = Vec::new();
    for g in &glyphs {
        let ink = pixels_in(grid.rect(g.row, g.col, g.width), 0.0)
            .map(|(x, y)| delta(img.at(x, y), reference.at(x, y)))
            .max()
            .unwrap_or(0);
        if ink <= INK {
            found.push(format!(
                "glyph {:?} at row {}, col {} draws nothing in its cells (Δ {ink})",
                g.text, g.row, g.col
            ));
        }
    }
    for row in 0..grid.rows {
        for col in 0..grid.cols {
            if owned.contains(&(row, col)) {
                continue;
            }
            let d = pixels_in(grid.rect(row, col, 1), AA_MARGIN)
                .map(|(x, y)| delta(img.at(x, y), reference.at(x, y)))
                .max()
                .unwrap_or(0);
            if d > SPILL {
                found.push(format!(
                    "ink (Δ {d}) in the empty cell at row {row}, col {col}"
                ));
            }
        }
    }
    found
}

/// The SVG with only the first x of each `<text>`: what an SVG without per-glyph positions
/// (one x list per row, which librsvg reads only the first value of) draws in rsvg-convert.
fn without_per_glyph_x(svg: &str) -> String {
    let tspan_x = regex::Regex::new(r#"(<tspan\b[^>]*?) x="[^"]*""#).unwrap();
    let text = regex::Regex::new(r#"<text y="([^"]*)"(?: x="[^"]*")?"#).unwrap();
    text.replace_all(&tspan_x.replace_all(svg, "$1"), r#"<text x="0" y="$1""#)
        .into_owned()
}

/// Text mode, rsvg-convert, the only font a proportional one: every glyph is still drawn in
/// its own column. Runs of glyphs narrower than a cell in that font (so that a glyph in its
/// column keeps its ink in its cell), plain and styled; as a control, the same SVGs with the
/// positions of each row's first glyph only put ink in the wrong cells.
#[test]
fn rsvg_convert_keeps_columns_with_only_a_proportional_font() {
    require("rsvg-convert", "librsvg2-bin");
    let work = tempdir();
    let fontconfig = write_font_poor_fontconfig(work.path());
    let lines = [
        r"printf 'iiiiiiiiiiiiiiiiiiii|\n'",
        r"printf 'il!|.:;ftrIj il!|.:;ftrIj\n'",
        r"printf '\e[31mii\e[32mll\e[1mff\e[0mtt\e[4mjj\e[0m:;\n'",
    ];
    for (k, line) in lines.iter().enumerate() {
        let case = capture_script(line, &["--no-cursor"]);
        let file = work.path().join(format!("{k}.svg"));
        std::fs::write(&file, &case.svg).unwrap();
        let img = rsvg_convert(&file, &file.with_extension("png"), &fontconfig);
        let found = misplaced_ink(&case.svg, 100, &img);
        assert!(
            found.is_empty(),
            "{line}: rsvg-convert with one proportional font:\n  {}",
            found.join("\n  ")
        );

        let control = without_per_glyph_x(&case.svg);
        let file = work.path().join(format!("{k}-control.svg"));
        std::fs::write(&file, &control).unwrap();
        let img = rsvg_convert(&file, &file.with_extension("png"), &fontconfig);
        let found = misplaced_ink(&control, 100, &img);
        eprintln!(
            "{line}: {} misplaced glyph(s) or cell(s) without per-glyph x",
            found.len()
        );
        assert!(
            !found.is_empty(),
            "{line}: without per-glyph x rsvg-convert still keeps every glyph in its cell: the \
             check cannot see drift"
        );
    }
}
