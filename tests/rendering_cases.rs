//! The rendering cases RC-01 … RC-16 of shared/cases/rendering.md, each captured through the
//! real binary from a real PTY running bash, checked on the grid, in the SVG, and in resvg's
//! raster, and kept as a reviewed golden SVG in snapshots/.

mod common;

use common::*;
use console2svg::term::{Emulator, Screen};

/// The grid a case produces: the case's bytes (from bash's printf) through the emulator, with
/// the PTY's newline translation (onlcr).
fn grid(line: &str) -> Screen {
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(line)
        .output()
        .unwrap();
    let mut bytes = Vec::new();
    for &b in &out.stdout {
        if b == b'\n' {
            bytes.push(b'\r');
        }
        bytes.push(b);
    }
    let mut e = Emulator::new(100, 24);
    e.advance(&bytes);
    e.snapshot()
}

const DEFAULT_BG: &str = "#1e1e1e";

/// True when no pixel in the vertical band at SVG x `x` (±`half` px) of row `row` is ink.
fn band_is_clear(p: &resvg::tiny_skia::Pixmap, zoom: f32, x: f32, half: f32, row: usize) -> bool {
    ink_bbox(
        p,
        zoom,
        (x - half, row_y(row), x + half, row_y(row) + CELL_H),
        rgb(DEFAULT_BG),
        24,
    )
    .is_none()
}

#[test]
fn rc01_cjk_run_keeps_two_cells_per_ideograph() {
    let line = r"printf '中文测试|\nabcdefgh|\n'";
    let g = grid(line);
    for (i, ch) in ["中", "文", "测", "试"].iter().enumerate() {
        assert_eq!(g.rows[0][2 * i].text, *ch);
        assert_eq!(g.rows[0][2 * i].width, 2);
        assert_eq!(
            g.rows[0][2 * i + 1].width,
            0,
            "continuation cell after {ch}"
        );
    }
    assert_eq!(g.rows[0][8].text, "|");
    let case = capture_script(line, &[]);
    assert_eq!(case.json["screen"]["text"], "中文测试|\nabcdefgh|");
    assert_col(&case.svg, 0, "|", 8);
    assert_col(&case.svg, 1, "|", 8);
    let p = raster(&case.svg, 4.0);
    for i in 0..4 {
        let slot = (col_x(2 * i), row_y(0), col_x(2 * i + 2), row_y(1));
        assert!(
            ink_bbox(&p, 4.0, slot, rgb(DEFAULT_BG), 24).is_some(),
            "ideograph {i} drawn"
        );
        // No ink crosses a slot boundary: each glyph stays in its own two cells.
        assert!(
            band_is_clear(&p, 4.0, col_x(2 * i + 2), 0.25, 0),
            "ink crosses col {}",
            2 * i + 2
        );
    }
    assert_golden("rc01_cjk_run", &case.svg);
}

#[test]
fn rc02_box_border_keeps_its_column_on_emoji_rows() {
    let line = r"printf '╭────────╮\n│☕ tea  │\n│🔮 orb  │\n╰────────╯\n'";
    let g = grid(line);
    for r in 0..4 {
        let cols: usize = g.rows[r].iter().map(|c| c.width as usize).sum::<usize>();
        assert_eq!(cols, 100);
        let last = g.rows[r].iter().rposition(|c| c.text != " ").unwrap();
        assert_eq!(last, 9, "row {r} ends at col 9");
    }
    assert_eq!((g.rows[1][1].text.as_str(), g.rows[1][1].width), ("☕", 2));
    assert_eq!((g.rows[2][1].text.as_str(), g.rows[2][1].width), ("🔮", 2));
    let case = capture_script(line, &[]);
    assert_col(&case.svg, 1, "t", 4);
    assert_col(&case.svg, 2, "o", 4);
    let p = raster(&case.svg, 4.0);
    // The right bar at col 9 is one unbroken vertical line from row 0's centre to row 3's.
    // (The rounded corners curve away from the centre, so check from the rows' edges.)
    let x = ((col_x(9) + CELL_W / 2.0) * 4.0) as u32;
    for y in ((row_y(1) - 2.0) * 4.0) as u32..((row_y(3) + 2.0) * 4.0) as u32 {
        assert!(
            distance(pixel(&p, x, y), rgb(DEFAULT_BG)) > 100,
            "gap in the right border at y={y}"
        );
    }
    for row in [1, 2] {
        let bbox = ink_bbox(
            &p,
            4.0,
            (col_x(1) - 2.0, row_y(row), col_x(3) + 2.0, row_y(row + 1)),
            rgb(DEFAULT_BG),
            24,
        )
        .expect("emoji drawn");
        assert!(
            bbox.0 as f32 >= col_x(1) * 4.0 - 1.0 && bbox.2 as f32 <= col_x(3) * 4.0 + 1.0,
            "emoji within cols 1–2: {bbox:?}"
        );
    }
    assert_golden("rc02_box_with_emoji", &case.svg);
}

#[test]
fn rc03_cjk_and_kana_drawn_from_a_fallback_font() {
    let line = r"printf '你好世界 end\nこんにちは end\n'";
    let case = capture_script(line, &[]);
    assert_col(&case.svg, 0, "e", 9);
    assert_col(&case.svg, 1, "e", 11);
    assert!(
        case.svg.contains("WenQuanYi"),
        "a CJK-capable fallback face is named"
    );
    let p = raster(&case.svg, 4.0);
    for (row, n) in [(0, 4), (1, 5)] {
        for i in 0..n {
            let slot = (col_x(2 * i), row_y(row), col_x(2 * i + 2), row_y(row + 1));
            let bbox = ink_bbox(&p, 4.0, slot, rgb(DEFAULT_BG), 24);
            assert!(bbox.is_some(), "row {row} glyph {i} is drawn");
            assert!(
                band_is_clear(&p, 4.0, col_x(2 * i + 2), 0.25, row),
                "row {row}: glyph {i} leaves its cells"
            );
        }
    }
    assert_golden("rc03_cjk_fallback", &case.svg);
}

#[test]
fn rc04_emoji_are_two_cells_and_drawn() {
    let line = r"printf 'A⭕B\nA✅B\nA🚀B\n'";
    let g = grid(line);
    for r in 0..3 {
        assert_eq!(g.rows[r][1].width, 2, "row {r}");
        assert_eq!(g.rows[r][3].text, "B");
    }
    let case = capture_script(line, &[]);
    let p = raster(&case.svg, 4.0);
    for (row, emoji) in ["⭕", "✅", "🚀"].iter().enumerate() {
        assert_col(&case.svg, row, "B", 3);
        let without = capture_script(&line.replace(emoji, "  "), &[]);
        let bbox = diff_bbox(&p, &raster(&without.svg, 4.0), 4.0, 24)
            .unwrap_or_else(|| panic!("{emoji} drawn"));
        assert!(
            bbox.0 >= col_x(1) - 0.5 && bbox.2 <= col_x(3) + 0.5,
            "{emoji} within cols 1–2: {bbox:?}"
        );
        assert!(
            bbox.1 >= row_y(row) - 0.5 && bbox.3 <= row_y(row + 1) + 0.5,
            "{emoji} within row {row}: {bbox:?}"
        );
        assert!(bbox.2 - bbox.0 > CELL_W, "{emoji} is drawn wide: {bbox:?}");
    }
    assert_golden("rc04_emoji", &case.svg);
}

/// RC-05 at a font size: no background pixel along any line or junction.
fn box_lines_are_continuous(font_size: f32) -> String {
    let line = r"printf '┌──┬──┐\n│  │  │\n├──┼──┤\n└──┴──┘\n'";
    let fs = font_size.to_string();
    let case = capture_script(line, &["--fontsize", &fs, "--no-cursor"]);
    let cw = 0.6 * font_size;
    let ch = (1.32 * font_size).round();
    for zoom in [1.0, 4.0, 8.0] {
        let p = raster(&case.svg, zoom);
        let cx = |c: usize| ((PAD + c as f32 * cw + cw / 2.0) * zoom).floor() as u32;
        let cy = |r: usize| ((PAD + r as f32 * ch + ch / 2.0) * zoom).floor() as u32;
        // Across each line, the strongest pixel within ±1 px of its centre: never background
        // (a line may straddle two pixel rows at 1×, each about half covered).
        let z = zoom as u32;
        let across = |xs: std::ops::RangeInclusive<u32>, ys: std::ops::RangeInclusive<u32>| {
            xs.flat_map(|x| ys.clone().map(move |y| (x, y)))
                .map(|(x, y)| distance(pixel(&p, x, y), rgb(DEFAULT_BG)))
                .max()
                .unwrap()
        };
        for r in [0, 2, 3] {
            for x in cx(0)..=cx(6) {
                let ink = across(x..=x, cy(r) - z..=cy(r) + z);
                assert!(
                    ink > 80,
                    "fs {font_size} zoom {zoom}: gap in row {r} at x={x} ({ink})"
                );
            }
        }
        for c in [0, 3, 6] {
            for y in cy(0)..=cy(3) {
                let ink = across(cx(c) - z..=cx(c) + z, y..=y);
                assert!(
                    ink > 80,
                    "fs {font_size} zoom {zoom}: gap in col {c} at y={y} ({ink})"
                );
            }
        }
    }
    case.svg
}

#[test]
fn rc05_box_drawing_has_no_breaks_at_any_size() {
    let svg = box_lines_are_continuous(14.0);
    for fs in [11.0, 17.0, 23.0] {
        box_lines_are_continuous(fs);
    }
    assert!(
        glyphs(&svg).is_empty(),
        "box drawing is geometry, not font glyphs"
    );
    assert_golden("rc05_box_drawing", &svg);
}

#[test]
fn rc06_blocks_tile_without_seams_and_halves_split_at_half() {
    let line = r"printf '\e[31m████\e[0m\n\e[31m████\e[0m\n\e[34;41m▄▄▄▄\e[0m\n'";
    let case = capture_script(line, &["--no-cursor"]);
    let red = rgb("#cd3131");
    let blue = rgb("#2472c8");
    for zoom in [1.0f32, 4.0, 8.0] {
        let p = raster(&case.svg, zoom);
        let (x0, x1) = (
            (col_x(0) * zoom).ceil() as u32,
            (col_x(4) * zoom).floor() as u32,
        );
        for y in (row_y(0) * zoom).ceil() as u32..(row_y(2) * zoom).floor() as u32 {
            for x in x0..x1 {
                assert!(
                    distance(pixel(&p, x, y), red) <= 2,
                    "zoom {zoom}: seam at ({x},{y}): {:?}",
                    pixel(&p, x, y)
                );
            }
        }
        let half = (row_y(2) + CELL_H / 2.0) * zoom;
        for x in x0..x1 {
            assert!(
                distance(pixel(&p, x, half as u32 - 1), red) <= 2,
                "zoom {zoom}: upper half red at x={x}"
            );
            assert!(
                distance(pixel(&p, x, half as u32 + 1), blue) <= 2,
                "zoom {zoom}: lower half blue at x={x}"
            );
        }
    }
    assert_golden("rc06_blocks", &case.svg);
}

#[test]
fn rc07_bold_is_drawn_bold() {
    let case = capture_script(r"printf 'normal \e[1mbold\e[22m normal\n'", &[]);
    let row = row_glyphs(&case.svg, 0);
    let at = |col: usize| {
        row.iter()
            .find(|g| (g.x - col_x(col)).abs() < 0.01)
            .unwrap()
    };
    for col in 7..=10 {
        assert!(at(col).bold, "col {col} bold");
    }
    assert_eq!(at(12).text, "n");
    assert!(!at(12).bold && !at(0).bold);
    // The bold face is embedded for browsers.
    assert!(
        case.svg.contains("font-weight:700;font-style:normal"),
        "bold face embedded"
    );
    assert_golden("rc07_bold", &case.svg);
}

#[test]
fn rc08_backgrounds_cover_exact_cells_and_dim_is_blended() {
    let case = capture_script(
        r"printf '\e[41m red \e[42m green \e[0m \e[2mdim\e[22m\n'",
        &["--no-cursor"],
    );
    let p = raster(&case.svg, 4.0);
    let probe = |col: usize| cell_background(&p, 4.0, 0, col);
    for col in 0..=4 {
        assert!(distance(probe(col), rgb("#cd3131")) <= 2, "col {col} red");
    }
    for col in 5..=11 {
        assert!(distance(probe(col), rgb("#0dbc79")) <= 2, "col {col} green");
    }
    assert!(distance(probe(12), rgb(DEFAULT_BG)) <= 2, "col 12 default");
    // Exact boundary between red and green at col 5.
    let y = ((row_y(0) + 1.0) * 4.0) as u32;
    let bx = col_x(5) * 4.0;
    assert!(distance(pixel(&p, bx as u32 - 2, y), rgb("#cd3131")) <= 2);
    assert!(distance(pixel(&p, bx as u32 + 2, y), rgb("#0dbc79")) <= 2);
    // The green region ends exactly at col 12.
    assert!(distance(pixel(&p, (col_x(12) * 4.0) as u32 + 2, y), rgb(DEFAULT_BG)) <= 2);
    // "dim": #d4d4d4 blended 45 % towards #1e1e1e.
    let d = row_glyphs(&case.svg, 0)
        .into_iter()
        .find(|g| g.text == "d" && (g.x - col_x(13)).abs() < 0.01)
        .unwrap();
    assert_eq!(d.fill.as_deref(), Some("#828282"));
    assert_golden("rc08_backgrounds_dim", &case.svg);
}

#[test]
fn rc09_bold_is_not_bright_unless_asked() {
    let line =
        r"printf '\e[32mgreen \e[1mbold-green\e[0m \e[92mbright-green\e[0m \e[1;38;5;2mX\e[0m\n'";
    let fill_at = |svg: &str, col: usize| {
        let g = row_glyphs(svg, 0)
            .into_iter()
            .find(|g| (g.x - col_x(col)).abs() < 0.01)
            .unwrap();
        (g.fill.clone().unwrap_or_default(), g.bold)
    };
    let case = capture_script(line, &[]);
    assert_eq!(fill_at(&case.svg, 0), ("#0dbc79".into(), false));
    assert_eq!(fill_at(&case.svg, 6), ("#0dbc79".into(), true));
    assert_eq!(fill_at(&case.svg, 17), ("#23d18b".into(), false));
    assert_eq!(fill_at(&case.svg, 30), ("#0dbc79".into(), true));
    let bright = capture_script(line, &["--bold-is-bright"]);
    assert_eq!(fill_at(&bright.svg, 0), ("#0dbc79".into(), false));
    assert_eq!(fill_at(&bright.svg, 6), ("#23d18b".into(), true));
    assert_eq!(
        fill_at(&bright.svg, 30),
        ("#0dbc79".into(), true),
        "38;5;n never brightens"
    );
    assert_golden("rc09_bold_not_bright", &case.svg);
}

#[test]
fn rc10_extended_colours_and_colon_forms() {
    let line = r"printf '\e[38;2;68;68;68mA\e[0m \e[38:2::255:0:0mB\e[0m \e[38;5;208mC\e[0m \e[48;5;21m D \e[0m \e[48:2::0:128:0m E \e[0m\n'";
    let case = capture_script(line, &["--no-cursor"]);
    assert_eq!(case.json["exitCode"], 0);
    assert_eq!(case.json["screen"]["text"], "A B C  D   E");
    let row = row_glyphs(&case.svg, 0);
    let visible: Vec<(String, f32)> = row.iter().map(|g| (g.text.clone(), col_of(g.x))).collect();
    let expect: Vec<(String, f32)> = [("A", 0.0), ("B", 2.0), ("C", 4.0), ("D", 7.0), ("E", 11.0)]
        .iter()
        .map(|(t, c)| (t.to_string(), *c))
        .collect();
    assert_eq!(visible.len(), 5);
    for ((t, c), (et, ec)) in visible.iter().zip(&expect) {
        assert_eq!(t, et);
        assert!((c - ec).abs() < 0.001, "{t} at col {c}, expected {ec}");
    }
    assert_eq!(row[0].fill.as_deref(), Some("#444444"));
    assert_eq!(row[1].fill.as_deref(), Some("#ff0000"));
    assert_eq!(row[2].fill.as_deref(), Some("#ff8700"));
    let p = raster(&case.svg, 4.0);
    let probe = |col: usize| cell_background(&p, 4.0, 0, col);
    for col in 6..=8 {
        assert!(distance(probe(col), rgb("#0000ff")) <= 2, "col {col} blue");
    }
    for col in 10..=12 {
        assert!(distance(probe(col), rgb("#008000")) <= 2, "col {col} green");
    }
    assert!(distance(probe(9), rgb(DEFAULT_BG)) <= 2);
    assert_golden("rc10_extended_colours", &case.svg);
}

#[test]
fn rc11_spaces_never_position_text() {
    let case = capture_script(
        r"printf '   indented\n\e[90m│\e[39m     1\e[90m│\e[39m\n'",
        &[],
    );
    assert_col(&case.svg, 0, "i", 3);
    assert_col(&case.svg, 1, "1", 6);
    for g in glyphs(&case.svg) {
        assert!(!g.text.contains(' '), "a space was emitted as text: {g:?}");
    }
    // The two bars are geometry at cols 0 and 7.
    let p = raster(&case.svg, 4.0);
    for col in [0, 7] {
        let x = ((col_x(col) + CELL_W / 2.0) * 4.0) as u32;
        assert!(
            distance(
                pixel(&p, x, ((row_y(1) + 9.0) * 4.0) as u32),
                rgb(DEFAULT_BG)
            ) > 40,
            "bar at col {col}"
        );
    }
    assert_golden("rc11_spaces", &case.svg);
}

#[test]
fn rc12_per_character_colour_stays_small() {
    let line =
        r"for c in $(seq 0 199); do printf '\e[38;5;%dmX' $((c%216+16)); done; printf '\e[0m\n'";
    let case = capture_script(line, &["--no-cursor"]);
    let empty = capture_script("printf ''", &["--no-cursor", "-h", "3"]);
    let baseline = capture_script("printf 'X\\n'", &["--no-cursor"]);
    // Same rows as the coloured capture, so the difference is the coloured cells alone.
    let per_cell = (case.svg.len() as f64 - baseline.svg.len() as f64) / 199.0;
    eprintln!(
        "RC-12: coloured {} B, one X {} B, empty {} B, {per_cell:.1} B per extra coloured cell",
        case.svg.len(),
        baseline.svg.len(),
        empty.svg.len()
    );
    assert!(
        per_cell <= 40.0,
        "{per_cell:.1} bytes per coloured cell (budget 40)"
    );
    assert_golden("rc12_rainbow", &case.svg);
}

/// Subpaths `M x y …` of every `<path>` whose attributes contain `needle`: (x, y) starts.
fn path_starts(svg: &str, needle: &str) -> Vec<(f32, f32)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let mut out = Vec::new();
    for n in doc.descendants().filter(|n| n.has_tag_name("path")) {
        let attrs: String = n
            .attributes()
            .map(|a| format!("{}=\"{}\" ", a.name(), a.value()))
            .collect();
        if !attrs.contains(needle) {
            continue;
        }
        for part in n.attribute("d").unwrap().split('M').skip(1) {
            let nums: Vec<f32> = part
                .split(|c: char| c.is_ascii_alphabetic() || c == ' ')
                .filter(|t| !t.is_empty())
                .take(2)
                .map(|t| t.parse().unwrap())
                .collect();
            out.push((nums[0], nums[1]));
        }
    }
    out
}

/// The columns each subpath of every `<path>` whose attributes contain `needle` spans, one
/// entry per (subpath, column): a run of decorated cells is one subpath, a rectangle or line
/// (`M x y h w …`) or a wave of one period per cell (`M x y q a b c 0 t c 0 …`).
fn covered_cols(svg: &str, needle: &str) -> Vec<usize> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let mut out = Vec::new();
    for n in doc.descendants().filter(|n| n.has_tag_name("path")) {
        let attrs: String = n
            .attributes()
            .map(|a| format!("{}=\"{}\" ", a.name(), a.value()))
            .collect();
        if !attrs.contains(needle) {
            continue;
        }
        for part in n.attribute("d").unwrap().split('M').skip(1) {
            let x: f32 = part.split(' ').next().unwrap().parse().unwrap();
            let num_after = |cmd: char| -> Vec<f32> {
                part.split(cmd)
                    .skip(1)
                    .map(|t| {
                        t.split(|c: char| c.is_ascii_alphabetic() || c == ' ')
                            .find(|v| !v.is_empty())
                            .unwrap()
                            .parse()
                            .unwrap()
                    })
                    .collect()
            };
            let width: f32 = if part.contains('q') {
                // Each period: q (half/2) (-amp) half 0 t half 0.
                part.split('q')
                    .skip(1)
                    .map(|t| 2.0 * t.split(' ').nth(2).unwrap().parse::<f32>().unwrap())
                    .sum()
            } else {
                num_after('h')[0]
            };
            let first = col_of(x).round() as usize;
            let cells = (width / CELL_W).round() as usize;
            out.extend(first..first + cells);
        }
    }
    out.sort();
    out
}

fn dedup(mut v: Vec<usize>) -> Vec<usize> {
    v.dedup();
    v
}

#[test]
fn rc13_underline_styles_colours_and_strikethrough() {
    let line = r"printf '\e[4:3m\e[58:2::255:0:0mcurly-red\e[0m \e[4:2mdouble\e[0m \e[4:4mdotted\e[0m \e[4:5mdashed\e[0m \e[9mstrike\e[0m \e[4;9mboth\e[0m \e[4;58;2;0;0;255mu\e[59mv\e[0m\n'";
    let case = capture_script(line, &["--no-cursor"]);
    let svg = &case.svg;
    assert_eq!(
        covered_cols(svg, "stroke=\"#ff0000\""),
        (0..=8).collect::<Vec<_>>(),
        "curly red under 0–8"
    );
    assert_eq!(
        covered_cols(svg, "stroke-dasharray=\"1\""),
        (17..=22).collect::<Vec<_>>()
    );
    assert_eq!(
        covered_cols(svg, "stroke-dasharray=\"3 2\""),
        (24..=29).collect::<Vec<_>>()
    );
    let solid = covered_cols(svg, "fill=\"#d4d4d4\" d=");
    let mut expected: Vec<usize> = (10..=15).chain(31..=36).chain(38..=41).collect();
    expected.push(44);
    assert_eq!(
        dedup(solid.clone()),
        expected,
        "double underline, strike, both, and the default-coloured underline of 'v'"
    );
    // Double underline: two lines under each cell; "both": underline and line-through.
    for col in [10, 38] {
        let n = solid.iter().filter(|c| **c == col).count();
        assert_eq!(n, 2, "two lines under col {col}");
    }
    assert_eq!(
        covered_cols(svg, "fill=\"#0000ff\""),
        vec![43],
        "58;2;r;g;b semicolon form"
    );
    assert_golden("rc13_underlines", svg);
}

#[test]
fn rc14_only_safe_links_become_links() {
    let line = r"printf '\e]8;;https://example.com\e\\link\e]8;;\e\\ \e]8;;javascript:alert(1)\e\\bad\e]8;;\e\\\n'";
    let case = capture_script(line, &[]);
    assert_eq!(case.json["screen"]["text"], "link bad");
    let row = row_glyphs(&case.svg, 0);
    for g in &row {
        let col = col_of(g.x).round() as usize;
        if col <= 3 {
            assert_eq!(g.href.as_deref(), Some("https://example.com"), "{g:?}");
        } else {
            assert_eq!(g.href, None, "{g:?}");
        }
    }
    assert!(!case.svg.contains("javascript"));
    assert!(!case.svg.contains("]8;"));
    assert_golden("rc14_links", &case.svg);
}

#[test]
fn rc15_cursor_shape_and_visibility() {
    let block = capture_script(r"printf 'user@host:~$ '", &[]);
    let cursor_cell = format!("M{}", console2svg::render::svg::num(col_x(13)));
    assert!(block.svg.contains(&format!("fill=\"#d4d4d4\" stroke=\"#d4d4d4\" stroke-width=\".5\" d=\"{cursor_cell} 8h8.4v18h-8.4z\"")), "block cursor as an inverse cell");
    let bar = capture_script(r"printf '\e[5 q'; printf 'user@host:~$ '", &[]);
    assert!(
        bar.svg.contains(&format!(
            "<path fill=\"#d4d4d4\" d=\"{cursor_cell} 8h2v18h-2z\"/>"
        )),
        "a 2 px bar at the left of col 13"
    );
    let hidden = capture_script(r"printf '\e[?25l'; printf 'user@host:~$ '", &[]);
    let off = capture_script(r"printf 'user@host:~$ '", &["--no-cursor"]);
    for svg in [&hidden.svg, &off.svg] {
        assert!(!svg.contains(&cursor_cell), "no cursor drawn");
    }
    let p = raster(&block.svg, 2.0);
    assert!(
        distance(
            pixel(
                &p,
                ((col_x(13) + 4.0) * 2.0) as u32,
                ((row_y(0) + 9.0) * 2.0) as u32
            ),
            rgb("#d4d4d4")
        ) <= 2
    );
    assert_golden("rc15_cursor_block", &block.svg);
    assert_golden("rc15_cursor_bar", &bar.svg);
}

#[test]
fn rc16_erase_to_end_of_line_uses_the_background() {
    let case = capture_script(
        r"printf '\e[44mblue to EOL\e[K\e[0m\nplain   \n'",
        &["--no-cursor"],
    );
    assert!(case.svg.contains("<path fill=\"#2472c8\" stroke=\"#2472c8\" stroke-width=\".5\" d=\"M8 8h840v18h-840z\"/>"), "row 0 blue across all 100 columns");
    let doc = roxmltree::Document::parse(&case.svg).unwrap();
    let root = doc.root_element();
    assert_eq!(
        root.attribute("width"),
        Some("856"),
        "exactly 100 columns plus padding"
    );
    assert_eq!(
        path_starts(&case.svg, "stroke-width=\".5\"").len(),
        1,
        "nothing drawn for trailing blanks"
    );
    assert_col(&case.svg, 1, "p", 0);
    assert_golden("rc16_erase_eol", &case.svg);
}

#[test]
fn text_ink_starts_at_its_columns_x() {
    let case = capture_script(
        r"printf 'H         H         H         \e[1mH\e[0m         \e[3mH\e[0m\n'",
        &["--no-cursor"],
    );
    let p = raster(&case.svg, 4.0);
    for col in [0, 10, 20, 30, 40] {
        let (x0, _, x1, _) = ink_bbox(
            &p,
            4.0,
            (col_x(col) - 3.0, row_y(0), col_x(col + 1) + 3.0, row_y(1)),
            rgb(DEFAULT_BG),
            40,
        )
        .unwrap_or_else(|| panic!("H at col {col} drawn"));
        let (left, right) = (x0 as f32 / 4.0, (x1 + 1) as f32 / 4.0);
        assert!(
            left >= col_x(col) && left <= col_x(col) + 2.0,
            "H at col {col}: ink starts at {left}, column at {}",
            col_x(col)
        );
        assert!(
            right <= col_x(col + 1) + 0.5,
            "H at col {col}: ink ends at {right}"
        );
    }
}

/// Issue 14 item 2: an emoji presentation sequence (VS16), a ZWJ sequence, a flag and a
/// skin-tone emoji are each one cluster of two cells, as modern terminals lay them out (mode
/// 2027): the grid, the SVG's glyph positions and the raster agree; with the mode reset the
/// legacy widths come back.
#[test]
fn rc17_emoji_clusters_are_one_glyph_in_two_cells() {
    let clusters = ["\u{2764}\u{fe0f}", "👨\u{200d}👩\u{200d}👧", "🇺🇸", "👍🏽"];
    let line = format!(
        "printf '{}'",
        clusters.map(|c| format!("A{c}B\\n")).concat()
    );
    let g = grid(&line);
    for (r, cluster) in clusters.iter().enumerate() {
        assert_eq!(
            (g.rows[r][1].text.as_str(), g.rows[r][1].width),
            (*cluster, 2)
        );
        assert_eq!(g.rows[r][2].width, 0, "row {r}: continuation cell");
        assert_eq!(g.rows[r][3].text, "B", "row {r}");
    }
    let case = capture_script(&line, &[]);
    let p = raster(&case.svg, 4.0);
    for (row, cluster) in clusters.iter().enumerate() {
        assert_col(&case.svg, row, "A", 0);
        assert_col(&case.svg, row, "B", 3);
        // One glyph for the whole cluster, placed within its two cells.
        let placed: Vec<_> = row_glyphs(&case.svg, row)
            .into_iter()
            .filter(|g| g.text != "A" && g.text != "B")
            .collect();
        assert_eq!(placed.len(), 1, "row {row}: {placed:?}");
        assert_eq!(placed[0].text, *cluster);
        assert!(
            placed[0].x >= col_x(1) - 0.01 && placed[0].x < col_x(3),
            "row {row}: {cluster:?} at x={}",
            placed[0].x
        );
        let without = capture_script(&line.replace(cluster, "  "), &[]);
        let bbox = diff_bbox(&p, &raster(&without.svg, 4.0), 4.0, 24)
            .unwrap_or_else(|| panic!("{cluster:?} drawn"));
        assert!(
            bbox.0 >= col_x(1) - 0.5 && bbox.2 <= col_x(3) + 0.5,
            "{cluster:?} within cols 1–2: {bbox:?}"
        );
    }
    // Mode 2027 reset: every code point takes its wcwidth (❤ one cell, the flag two).
    let legacy = capture_script("printf '\\033[?2027lA\u{2764}\u{fe0f}B\\nA🇺🇸B\\n'", &[]);
    assert_col(&legacy.svg, 0, "B", 2);
    assert_col(&legacy.svg, 1, "B", 3);
}
