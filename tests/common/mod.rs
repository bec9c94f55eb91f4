//! Shared helpers for the integration tests: run the real `console2svg` binary, parse the SVG
//! it wrote, rasterise it with resvg (bundled fonts plus the system's fallback fonts).
#![allow(dead_code)]

pub mod session;
pub mod termio;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use assert_cmd::Command;
use resvg::tiny_skia;
use resvg::usvg::{self, fontdb};

/// Default layout of a capture without a frame: padding 8 px, cells 8.4 × 18 px, baseline 14.
pub const PAD: f32 = 8.0;
pub const CELL_W: f32 = 8.4;
pub const CELL_H: f32 = 18.0;
pub const BASELINE: f32 = 14.0;

/// Left x of column `col` in a default capture.
pub fn col_x(col: usize) -> f32 {
    PAD + col as f32 * CELL_W
}

/// Top y of row `row` in a default capture.
pub fn row_y(row: usize) -> f32 {
    PAD + row as f32 * CELL_H
}

/// The binary under test.
pub fn console2svg() -> Command {
    Command::cargo_bin("console2svg").expect("binary built")
}

/// A scratch directory.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

/// Result of capturing one `printf` line (a rendering case).
pub struct Case {
    pub svg: String,
    pub json: serde_json::Value,
    pub dir: tempfile::TempDir,
}

/// Captures `bash case.sh` where case.sh holds `line`, with extra capture `args`.
pub fn capture_script(line: &str, args: &[&str]) -> Case {
    let dir = tempdir();
    std::fs::write(dir.path().join("case.sh"), format!("{line}\n")).unwrap();
    let out = dir.path().join("out.svg");
    let assert = console2svg()
        .current_dir(dir.path())
        .arg("capture")
        .arg("--json")
        .arg("-o")
        .arg(&out)
        .args(args)
        .args(["--", "bash", "case.sh"])
        .assert()
        .success();
    let json: serde_json::Value =
        serde_json::from_slice(&assert.get_output().stdout).expect("JSON reply");
    let svg = std::fs::read_to_string(&out).expect("svg written");
    Case { svg, json, dir }
}

/// One drawn glyph: its text (a cluster), x, and baseline y, as the SVG positions it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedGlyph {
    pub text: String,
    pub x: f32,
    pub y: f32,
    /// `href` of an enclosing `<a>`, if any.
    pub href: Option<String>,
    /// Effective fill (attribute or class), if set on the tspan/text.
    pub fill: Option<String>,
    pub bold: bool,
}

fn attr_list(v: Option<&str>) -> Vec<f32> {
    v.map(|s| {
        s.split([' ', ','])
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect()
    })
    .unwrap_or_default()
}

/// Every glyph the SVG draws as text, in document order, with its position.
///
/// SVG character positioning, as far as our output uses it: each character takes its x from
/// the innermost element (`<tspan>` or `<text>`) whose `x` list has an entry for it; a
/// character with no x of its own continues the glyph before it (the rest of a cluster of
/// several code points). Fill and boldness come from the innermost element that sets them (a
/// `fill`/`font-weight` attribute, a `style` attribute or a class of the `<style>` rules).
pub fn glyphs(svg: &str) -> Vec<PlacedGlyph> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    let css: String = doc
        .descendants()
        .filter(|n| n.has_tag_name("style"))
        .filter_map(|n| n.text())
        .collect();
    let class_decl = |class: &str| -> String {
        let key = format!(".{class}{{");
        css.find(&key)
            .map(|i| css[i + key.len()..].split('}').next().unwrap().to_string())
            .unwrap_or_default()
    };
    let decl_of = |n: roxmltree::Node| -> String {
        let mut d = n.attribute("class").map(class_decl).unwrap_or_default();
        if let Some(style) = n.attribute("style") {
            d.push(';');
            d.push_str(style);
        }
        d
    };
    let mut out: Vec<PlacedGlyph> = Vec::new();
    for text in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let href = text
            .ancestors()
            .find(|a| a.has_tag_name("a"))
            .and_then(|a| a.attribute("href"))
            .map(str::to_string);
        // The text layer's `translate(x y)scale(s)` groups, innermost first.
        let (mut dx, mut dy, mut k) = (0.0f32, 0.0f32, 1.0f32);
        for g in text.ancestors().filter(|a| a.has_tag_name("g")) {
            if let Some(t) = g.attribute("transform") {
                let (tx, ty, s) = parse_transform(t);
                (dx, dy, k) = (tx + s * dx, ty + s * dy, s * k);
            }
        }
        let y = dy
            + k * text
                .attribute("y")
                .map(|v| v.parse::<f32>().unwrap())
                .unwrap();
        // Characters seen so far in each element of this <text>, by node id.
        let mut seen: std::collections::HashMap<roxmltree::NodeId, usize> = Default::default();
        let first = out.len();
        for node in text.descendants().filter(|d| d.is_text()) {
            let elements: Vec<roxmltree::Node> = node
                .ancestors()
                .skip(1)
                .take_while(|a| *a != text)
                .chain(std::iter::once(text))
                .filter(|a| a.has_tag_name("tspan") || a.has_tag_name("text"))
                .collect();
            let fill = elements.iter().find_map(|e| {
                e.attribute("fill").map(str::to_string).or_else(|| {
                    decl_of(*e)
                        .split(';')
                        .find_map(|d| d.strip_prefix("fill:"))
                        .map(str::to_string)
                })
            });
            let bold = elements
                .iter()
                .find_map(|e| {
                    e.attribute("font-weight").map(|w| w == "700").or_else(|| {
                        decl_of(*e)
                            .split(';')
                            .find_map(|d| d.strip_prefix("font-weight:"))
                            .map(|w| w == "700")
                    })
                })
                .unwrap_or(false);
            for c in node.text().unwrap().chars() {
                let mut x = None;
                for e in &elements {
                    let index = seen.entry(e.id()).or_insert(0);
                    if x.is_none() {
                        x = attr_list(e.attribute("x")).get(*index).copied();
                    }
                    *index += 1;
                }
                match x {
                    Some(x) => out.push(PlacedGlyph {
                        text: c.to_string(),
                        x: dx + k * x,
                        y,
                        href: href.clone(),
                        fill: fill.clone(),
                        bold,
                    }),
                    None => {
                        assert!(out.len() > first, "a character with no x in <text y={y}>");
                        out.last_mut().unwrap().text.push(c);
                    }
                }
            }
        }
    }
    out
}

/// The text an SVG draws: the characters of each `<text>` element in document order (one line
/// per element). What a search of the picture's text finds, where the SVG source, with an
/// element per glyph, holds no word in one piece.
pub fn svg_text(svg: &str) -> String {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|t| {
            t.descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `translate(x[ y])` followed by an optional `scale(s)` (what the renderer writes on groups):
/// (x, y, s).
fn parse_transform(t: &str) -> (f32, f32, f32) {
    let args = |name: &str| -> Vec<f32> {
        t.find(&format!("{name}("))
            .map(|i| {
                let rest = &t[i + name.len() + 1..];
                rest[..rest.find(')').unwrap()]
                    .split([' ', ','])
                    .filter(|v| !v.is_empty())
                    .map(|v| v.parse().unwrap())
                    .collect()
            })
            .unwrap_or_default()
    };
    let tr = args("translate");
    let s = args("scale");
    (
        tr.first().copied().unwrap_or(0.0),
        tr.get(1).copied().unwrap_or(0.0),
        s.first().copied().unwrap_or(1.0),
    )
}

/// The glyphs of drawn row `row` (by baseline), left to right.
pub fn row_glyphs(svg: &str, row: usize) -> Vec<PlacedGlyph> {
    let y = row_y(row) + BASELINE;
    let mut g: Vec<PlacedGlyph> = glyphs(svg)
        .into_iter()
        .filter(|g| (g.y - y).abs() < 0.01)
        .collect();
    g.sort_by(|a, b| a.x.partial_cmp(&b.x).unwrap());
    g
}

/// The x of the first glyph whose text is `text` on row `row`.
pub fn x_of(svg: &str, row: usize, text: &str) -> f32 {
    row_glyphs(svg, row)
        .into_iter()
        .find(|g| g.text == text)
        .unwrap_or_else(|| panic!("no glyph {text:?} on row {row}"))
        .x
}

/// Asserts that the first glyph `text` on row `row` starts at column `col`.
#[track_caller]
pub fn assert_col(svg: &str, row: usize, text: &str, col: usize) {
    let x = x_of(svg, row, text);
    assert!(
        (x - col_x(col)).abs() < 0.01,
        "{text:?} on row {row} at x={x}, expected col {col} (x={})",
        col_x(col)
    );
}

/// The column a narrow glyph's x stands for.
pub fn col_of(x: f32) -> f32 {
    (x - PAD) / CELL_W
}

/// The repository root (for bundled fonts and snapshots).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn font_db() -> Arc<fontdb::Database> {
    static DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = fontdb::Database::new();
        for entry in std::fs::read_dir(repo().join("fonts")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ttf") {
                db.load_font_file(&path).unwrap();
            }
        }
        db.load_system_fonts();
        db.set_monospace_family("JetBrains Mono");
        Arc::new(db)
    })
    .clone()
}

/// Rasterises `svg` at `zoom` with resvg.
pub fn raster(svg: &str, zoom: f32) -> tiny_skia::Pixmap {
    raster_with(svg, zoom, font_db())
}

/// Rasterises `svg` at `zoom` with resvg and an EMPTY font database: text draws nothing, so
/// whatever shows comes from the SVG's own geometry.
pub fn raster_without_fonts(svg: &str, zoom: f32) -> tiny_skia::Pixmap {
    raster_with(svg, zoom, Arc::new(fontdb::Database::new()))
}

/// Rasterises `svg` at `zoom` with resvg and the fonts of `fontdb` only.
pub fn raster_with(svg: &str, zoom: f32, fontdb: Arc<fontdb::Database>) -> tiny_skia::Pixmap {
    let opts = usvg::Options {
        fontdb,
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &opts).expect("resvg parses the SVG");
    let size = tree.size().to_int_size().scale_by(zoom).unwrap();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(zoom, zoom),
        &mut pixmap.as_mut(),
    );
    pixmap
}

/// RGBA of pixel (x, y).
pub fn pixel(p: &tiny_skia::Pixmap, x: u32, y: u32) -> [u8; 4] {
    let c = p.pixel(x, y).unwrap().demultiply();
    [c.red(), c.green(), c.blue(), c.alpha()]
}

/// The pixel 1 px inside the top-left corner of cell (`row`, `col`) of a default capture
/// rasterised at `zoom`: the cell's background, away from glyph ink and anti-aliased edges.
pub fn cell_background(p: &tiny_skia::Pixmap, zoom: f32, row: usize, col: usize) -> [u8; 4] {
    pixel(
        p,
        ((col_x(col) + 1.0) * zoom) as u32,
        ((row_y(row) + 1.0) * zoom) as u32,
    )
}

/// Parses `#rrggbb`.
pub fn rgb(hex: &str) -> [u8; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// Largest channel difference between a pixel and a colour.
pub fn distance(p: [u8; 4], c: [u8; 3]) -> u8 {
    (0..3).map(|i| p[i].abs_diff(c[i])).max().unwrap()
}

/// Bounding box (x0, y0, x1, y1), in px of the pixmap, of pixels inside the region (given in
/// SVG px, scaled by `zoom`) that differ from `bg` by more than `tol`.
pub fn ink_bbox(
    p: &tiny_skia::Pixmap,
    zoom: f32,
    region: (f32, f32, f32, f32),
    bg: [u8; 3],
    tol: u8,
) -> Option<(u32, u32, u32, u32)> {
    let (x0, y0, x1, y1) = region;
    let px = |v: f32, max: u32| ((v * zoom).round().max(0.0) as u32).min(max);
    let (ax, ay, bx, by) = (
        px(x0, p.width()),
        px(y0, p.height()),
        px(x1, p.width()),
        px(y1, p.height()),
    );
    let mut bbox: Option<(u32, u32, u32, u32)> = None;
    for y in ay..by {
        for x in ax..bx {
            if distance(pixel(p, x, y), bg) > tol {
                bbox = Some(match bbox {
                    None => (x, y, x, y),
                    Some((a, b, c, d)) => (a.min(x), b.min(y), c.max(x), d.max(y)),
                });
            }
        }
    }
    bbox
}

/// Compares `svg` with the reviewed golden file `snapshots/<name>.svg`.
pub fn assert_golden(name: &str, svg: &str) {
    insta::with_settings!({snapshot_path => repo().join("snapshots"), prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_binary_snapshot!(&format!("{name}.svg"), svg.as_bytes().to_vec());
    });
}

/// Path helper for readability.
pub fn path(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

/// How two rasters of the same size differ: (pixels whose largest channel difference, alpha
/// included, exceeds `tol`; that largest difference over the whole image).
pub fn raster_diff(a: &tiny_skia::Pixmap, b: &tiny_skia::Pixmap, tol: u8) -> (usize, u8) {
    assert_eq!((a.width(), a.height()), (b.width(), b.height()));
    let (mut over, mut max) = (0, 0);
    for (p, q) in a.pixels().iter().zip(b.pixels()) {
        let (p, q) = (p.demultiply(), q.demultiply());
        let d = [
            p.red().abs_diff(q.red()),
            p.green().abs_diff(q.green()),
            p.blue().abs_diff(q.blue()),
            p.alpha().abs_diff(q.alpha()),
        ]
        .into_iter()
        .max()
        .unwrap();
        max = max.max(d);
        if d > tol {
            over += 1;
        }
    }
    (over, max)
}

/// Bounding box, in SVG px, of the pixels where two rasters of the same size differ by more
/// than `tol` (what one capture draws that the other does not).
pub fn diff_bbox(
    a: &tiny_skia::Pixmap,
    b: &tiny_skia::Pixmap,
    zoom: f32,
    tol: u8,
) -> Option<(f32, f32, f32, f32)> {
    assert_eq!((a.width(), a.height()), (b.width(), b.height()));
    let mut bbox: Option<(u32, u32, u32, u32)> = None;
    for y in 0..a.height() {
        for x in 0..a.width() {
            let (p, q) = (pixel(a, x, y), pixel(b, x, y));
            if (0..3).any(|i| p[i].abs_diff(q[i]) > tol) {
                bbox = Some(match bbox {
                    None => (x, y, x + 1, y + 1),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1)),
                });
            }
        }
    }
    bbox.map(|(x0, y0, x1, y1)| {
        (
            x0 as f32 / zoom,
            y0 as f32 / zoom,
            x1 as f32 / zoom,
            y1 as f32 / zoom,
        )
    })
}

/// The fixture agent (`tests/fixture/agent.rs`, the `fixture-agent` example), which `cargo test`
/// builds next to the test executables: `<target>/debug/examples/fixture-agent`, found from
/// `current_exe()` = `<target>/debug/deps/<test>-<hash>`. Panics when it is missing or older
/// than its source.
pub fn fixture_agent_path() -> PathBuf {
    let exe = std::env::current_exe().expect("path of the test executable");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test executable lives in <target>/<profile>/deps");
    let path = profile_dir
        .join("examples")
        .join(format!("fixture-agent{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "the fixture agent is not built at {}: run the whole `cargo test` (it builds examples) \
         or `cargo build --example fixture-agent` first",
        path.display()
    );
    // `cargo test --test <name>` does not rebuild examples: refuse a stale one.
    let source = repo().join("tests/fixture/agent.rs");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    assert!(
        modified(&path) >= modified(&source),
        "the fixture agent at {} is older than {}: run the whole `cargo test` (it builds \
         examples) or `cargo build --example fixture-agent` first",
        path.display(),
        source.display()
    );
    path
}

/// The pid of the session host serving `runtime_dir` (`CONSOLE2SVG_RUNTIME_DIR`), from a raw
/// `ping` on its socket; `None` when no host answers.
pub fn host_pid(runtime_dir: &Path) -> Option<i32> {
    use std::io::{Read, Write};
    let mut s = std::os::unix::net::UnixStream::connect(runtime_dir.join("host.sock")).ok()?;
    s.write_all(b"{\"op\":\"ping\"}\n").ok()?;
    let mut reply = String::new();
    s.read_to_string(&mut reply).ok()?;
    let v: serde_json::Value = serde_json::from_str(&reply).ok()?;
    v["pid"].as_i64().map(|p| p as i32)
}

/// The seed of random property cases: under `CI=true` (unless `PROPTEST_RNG_SEED` names one)
/// always [`CI_SEED`], so CI runs the same cases every time and a red run is reproducible and
/// never a coin toss; elsewhere `default` (every run draws new cases).
pub fn proptest_seed(default: proptest::test_runner::RngSeed) -> proptest::test_runner::RngSeed {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if ci && std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        proptest::test_runner::RngSeed::Fixed(CI_SEED)
    } else {
        default
    }
}

/// The seed of random property cases under CI (see [`proptest_seed`]).
pub const CI_SEED: u64 = 2026;
