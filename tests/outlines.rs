//! `--text-mode outlines` (glyphs as geometry that needs no font in the viewer, with an
//! invisible text layer for selection), font fallback embedded in text mode, and PNG output
//! drawn from outlines: the issue "Rendering that looks the same in every viewer".

mod common;

use common::*;

/// Cases that exercise every kind of glyph: ASCII with attributes, CJK, emoji, box drawing.
/// (No text-presentation-by-default emoji such as `❤️`: resvg's own text fallback draws those
/// from another face than the one our chain picks, so text mode is not the reference there.)
const CASES: [(&str, &str); 4] = [
    (
        "ascii_attributes",
        r"printf 'plain \e[1mbold\e[0m \e[3mitalic\e[0m \e[1;3mboth\e[0m \e[4;31munder\e[0m \e[9;32mstrike\e[0m \e[2mdim\e[0m \e[7minv\e[0m\n\e[38;5;208mgy{}|@#$%%&*()_+-=~\e[0m\n'",
    ),
    (
        "cjk",
        r"printf '你好世界 end\nこんにちは \e[1m한국어\e[0m\n'",
    ),
    ("emoji", r"printf '🚀 ok ☕ tea\n🔮🔮 ⭕ ✅\n'"),
    (
        "box_drawing",
        r"printf '╭──┬──╮\n│ab│cd│\n╰──┴──╯\n▀▄█▌▐░▒▓\n'",
    ),
];

/// Pixels allowed to differ by more than [`TOL`] (of the 2× raster): anti-aliasing of
/// outlines rounded to 0.01 px differs from resvg's own text by at most ~46 levels here.
const TOL: u8 = 64;

#[test]
fn outlines_need_no_font_and_rasterise_like_text() {
    for (name, line) in CASES {
        let text = capture_script(line, &[]);
        let outlines = capture_script(line, &["--text-mode", "outlines"]);
        assert!(
            !outlines.svg.contains("@font-face"),
            "{name}: no fonts embedded"
        );
        let reference = raster(&text.svg, 2.0);
        let fontless = raster_without_fonts(&outlines.svg, 2.0);
        let (over, max) = raster_diff(&reference, &fontless, TOL);
        assert!(
            over <= 4,
            "{name}: {over} pixels differ by more than {TOL} (max {max})"
        );
        // The comparison can fail: text mode without fonts loses its glyphs.
        let (lost, _) = raster_diff(&reference, &raster_without_fonts(&text.svg, 2.0), TOL);
        assert!(
            lost > 100,
            "{name}: text mode without fonts differs ({lost})"
        );
    }
}

fn doc(svg: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(svg).expect("well-formed SVG")
}

#[test]
fn each_glyph_is_defined_once_and_placed_with_use() {
    let case = capture_script(
        r"printf 'lll \e[1ml\e[0m lll\n\e[31ml\e[0m\n'",
        &["--text-mode", "outlines", "--no-cursor"],
    );
    let d = doc(&case.svg);
    let defs: Vec<_> = d
        .descendants()
        .filter(|n| n.parent().is_some_and(|p| p.has_tag_name("defs")))
        .collect();
    let ids: Vec<&str> = defs.iter().map(|n| n.attribute("id").unwrap()).collect();
    assert_eq!(ids, ["A", "B"], "regular l and bold l, once each");
    assert!(defs.iter().all(|n| n.has_tag_name("path")));
    assert_ne!(defs[0].attribute("d"), defs[1].attribute("d"));
    let uses: Vec<_> = d.descendants().filter(|n| n.has_tag_name("use")).collect();
    assert_eq!(uses.len(), 8);
    let place = |n: &roxmltree::Node| {
        (
            n.attribute("href").unwrap().to_string(),
            n.attribute("x").unwrap().parse::<f32>().unwrap(),
            n.attribute("y").unwrap().parse::<f32>().unwrap(),
            n.parent().unwrap().attribute("fill").unwrap().to_string(),
        )
    };
    let mut placed: Vec<_> = uses.iter().map(place).collect();
    placed.sort_by(|a, b| (a.2, a.1).partial_cmp(&(b.2, b.1)).unwrap());
    let cols: Vec<(usize, &str)> = placed
        .iter()
        .map(|(href, x, _, _)| (col_of(*x).round() as usize, href.as_str()))
        .collect();
    assert_eq!(
        cols,
        [
            (0, "#A"),
            (1, "#A"),
            (2, "#A"),
            (4, "#B"),
            (6, "#A"),
            (7, "#A"),
            (8, "#A"),
            (0, "#A")
        ]
    );
    for (i, (_, x, y, _)) in placed.iter().enumerate() {
        let row = usize::from(i == 7);
        assert!(
            (y - (row_y(row) + BASELINE)).abs() < 0.01,
            "baseline of {i}"
        );
        assert!(
            (x - col_x(col_of(*x).round() as usize)).abs() < 0.01,
            "x of {i}"
        );
    }
    // One <g fill> per colour: the default foreground and red.
    let fills: Vec<&str> = d
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.children().any(|c| c.has_tag_name("use")))
        .map(|n| n.attribute("fill").unwrap())
        .collect();
    assert_eq!(fills.len(), 2, "{fills:?}");
    assert_eq!(placed[7].3, "#cd3131", "row 1 is red");
}

#[test]
fn invisible_text_layer_keeps_positions_and_links() {
    let line =
        r"printf 'ab 中文 \e]8;;https://example.com\e\\link\e]8;;\e\\ 🚀\n\e[1;32mok\e[0m\n'";
    let text = capture_script(line, &[]);
    let outlines = capture_script(line, &["--text-mode", "outlines"]);
    let key = |g: &PlacedGlyph| (g.text.clone(), g.x, g.y, g.href.clone());
    let a: Vec<_> = glyphs(&text.svg).iter().map(key).collect();
    let b: Vec<_> = glyphs(&outlines.svg).iter().map(key).collect();
    assert_eq!(a, b, "same characters at the same positions, same links");
    assert!(b
        .iter()
        .any(|g| g.3.as_deref() == Some("https://example.com")));
    let d = doc(&outlines.svg);
    for t in d.descendants().filter(|n| n.has_tag_name("text")) {
        assert!(
            t.ancestors()
                .any(|a| a.has_tag_name("g") && a.attribute("fill-opacity") == Some("0")),
            "text is invisible"
        );
    }
    // The layer is last, over the glyphs, so that it is what a pointer selects.
    let last = d.root_element().last_element_child().unwrap();
    assert_eq!(last.attribute("fill-opacity"), Some("0"));
    // Invisible text needs no colour or weight: no per-style classes or attributes.
    assert!(!outlines.svg.contains("font-weight"));
    assert!(outlines.svg.len() < text.svg.len() * 3, "size discipline");
}

#[test]
fn emoji_bitmaps_are_embedded_once_each() {
    let case = capture_script(
        r"printf '🔮🔮🔮 🚀\n'",
        &["--text-mode", "outlines", "--no-cursor"],
    );
    let d = doc(&case.svg);
    let images: Vec<_> = d
        .descendants()
        .filter(|n| n.has_tag_name("image"))
        .collect();
    assert_eq!(images.len(), 2, "one PNG per distinct emoji");
    for img in &images {
        assert!(img
            .attribute("href")
            .unwrap()
            .starts_with("data:image/png;base64,iVBORw0KGgo"));
        assert!(img.parent().unwrap().has_tag_name("defs"));
        // Scaled to fit its two cells.
        let w: f32 = img.attribute("width").unwrap().parse().unwrap();
        assert!(w <= 2.0 * CELL_W + 0.1 && w > CELL_W, "width {w}");
    }
    assert_eq!(d.descendants().filter(|n| n.has_tag_name("use")).count(), 4);
}

#[test]
fn png_is_drawn_from_outlines_and_looks_like_the_text_picture() {
    let framed: [&str; 4] = ["-d", "macos", "-c", "--opacity=0.9"];
    for (name, line) in CASES {
        for (scale, extra) in [
            (1.0f32, &[][..]),
            (2.0, &framed[..]),
            (1.0, &["--size", "500"][..]),
        ] {
            let text = capture_script(line, extra);
            let dir = tempdir();
            std::fs::write(dir.path().join("case.sh"), format!("{line}\n")).unwrap();
            console2svg()
                .current_dir(dir.path())
                .args(["capture", "-o", "out.png", "--scale", &scale.to_string()])
                .args(extra)
                .args(["--", "bash", "case.sh"])
                .assert()
                .success();
            let png =
                resvg::tiny_skia::Pixmap::load_png(dir.path().join("out.png")).expect("a PNG");
            let reference = raster(&text.svg, scale);
            let (over, max) = raster_diff(&reference, &png, TOL);
            assert!(
                over <= 8,
                "{name} at {scale}: {over} pixels differ by more than {TOL} (max {max})"
            );
            // And the comparison can fail: the same capture without its glyphs differs.
            let (blank, _) = raster_diff(&reference, &raster_without_fonts(&text.svg, scale), TOL);
            assert!(blank > 20, "{name}: glyphs matter ({blank})");
        }
    }
}

#[test]
fn text_mode_comes_from_flags_config_and_sessions() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("c.yaml"),
        "$version: 1\noptions: {appearance: {text-mode: outlines}}\n",
    )
    .unwrap();
    let capture = |args: &[&str]| {
        console2svg()
            .current_dir(dir.path())
            .arg("capture")
            .args(args)
            .args(["--stdout", "--", "printf", "hi"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let is_outlines = |svg: &[u8]| String::from_utf8_lossy(svg).contains("<use href=\"#A\"");
    assert!(!is_outlines(&capture(&[])), "text is the default");
    assert!(is_outlines(&capture(&["-C", "c.yaml"])), "config key");
    assert!(
        !is_outlines(&capture(&["-C", "c.yaml", "--text-mode", "text"])),
        "flag wins"
    );
    console2svg()
        .args(["capture", "--text-mode", "paths", "--", "true"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "'paths' is not a text mode (text or outlines)",
        ));

    // session capture takes the flag, and the journal exports it into the scenario.
    let rt = dir.path().join("rt");
    let session = |args: &[&str]| {
        let out = console2svg()
            .env("CONSOLE2SVG_RUNTIME_DIR", &rt)
            .env("CONSOLE2SVG_HOST_IDLE_SECS", "3")
            .current_dir(dir.path())
            .arg("session")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "session {args:?}: {out:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let id = session(&["start", "--", "sh", "-c", "echo ready; sleep 30"])["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    session(&["wait", &id, "--text", "ready", "--timeout", "10s"]);
    session(&["capture", &id, "-o", "s.svg", "--text-mode", "outlines"]);
    assert!(is_outlines(
        &std::fs::read(dir.path().join("s.svg")).unwrap()
    ));
    session(&["export", &id, "-o", "scenario.yaml"]);
    let yaml = std::fs::read_to_string(dir.path().join("scenario.yaml")).unwrap();
    session(&["stop", &id]);
    assert!(yaml.contains("text-mode: outlines"), "{yaml}");
}

#[test]
fn text_mode_embeds_the_fallback_faces_it_uses() {
    use base64::Engine;
    let case = capture_script(r"printf '你好 abc 🚀\n'", &[]);
    let css: String = doc(&case.svg)
        .descendants()
        .filter(|n| n.has_tag_name("style"))
        .filter_map(|n| n.text())
        .collect();
    let rules: Vec<&str> = css.split("@font-face{").skip(1).collect();
    let families: Vec<&str> = rules.iter().map(|r| r.split('"').nth(1).unwrap()).collect();
    assert_eq!(
        families,
        ["JetBrains Mono", "WenQuanYi Micro Hei"],
        "{css:.200}"
    );
    let b64 = rules[1]
        .split("base64,")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let font = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let face = ttf_parser::Face::parse(&font, 0).expect("a valid font");
    for c in ['你', '好'] {
        assert!(face.glyph_index(c).is_some_and(|g| g.0 != 0), "{c} mapped");
    }
    assert!(face.glyph_index('中').is_none(), "only the characters used");
    for table in [b"cmap", b"OS/2", b"glyf", b"hmtx"] {
        assert!(
            face.raw_face()
                .table(ttf_parser::Tag::from_bytes(table))
                .is_some(),
            "browsers need {}",
            String::from_utf8_lossy(table)
        );
    }
    assert!(
        font.len() < 20_000,
        "a subset, not the 5 MB face: {}",
        font.len()
    );
    // The ideographs' style (one run: presentation attributes on their <tspan>) names the
    // family the rule declares, first in its stack.
    let parsed = doc(&case.svg);
    let ideographs = parsed
        .descendants()
        .find(|n| n.has_tag_name("tspan") && n.text() == Some("你"))
        .expect("a <tspan> starting with 你");
    assert!(
        ideographs
            .attribute("font-family")
            .is_some_and(|f| f.starts_with("\"WenQuanYi Micro Hei\",\"JetBrains Mono\"")),
        "{:?}",
        ideographs.attributes().collect::<Vec<_>>()
    );
}

#[test]
fn outlines_golden() {
    let case = capture_script(CASES[0].1, &["--text-mode", "outlines"]);
    assert_golden("outlines_ascii_attributes", &case.svg);
    let case = capture_script(CASES[3].1, &["--text-mode", "outlines"]);
    assert_golden("outlines_box_drawing", &case.svg);
}

/// Nerd Fonts icons, which no installed font covers, come from the bundled icon face: text
/// mode embeds a subset of it holding the icons used and names its family on the icons; a
/// private-use code point outside the icon sets stays a replacement box in the main face.
#[test]
fn nerd_font_icons_come_from_the_bundled_icon_face() {
    use base64::Engine;
    // U+F07B folder (Font Awesome), U+E718 Node.js (Devicons), U+10FFF0 in no font.
    let case = capture_script("printf '\u{f07b} \u{e718} \u{10fff0}\\n'", &["--no-cursor"]);
    let parsed = doc(&case.svg);
    let css: String = parsed
        .descendants()
        .filter(|n| n.has_tag_name("style"))
        .filter_map(|n| n.text())
        .collect();
    let rule = css
        .split("@font-face{")
        .find(|r| r.starts_with("font-family:\"Pure Nerd Font\""))
        .unwrap_or_else(|| panic!("no @font-face for the icon face: {css:.300}"));
    let b64 = rule
        .split("base64,")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let font = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    assert!(font.len() < 10_000, "a subset: {} bytes", font.len());
    let face = ttf_parser::Face::parse(&font, 0).expect("a valid font");
    for c in ['\u{f07b}', '\u{e718}'] {
        assert!(
            face.glyph_index(c).is_some_and(|g| g.0 != 0),
            "{c:?} mapped"
        );
    }
    // The family each glyph is drawn with first: the innermost element (its own or a styling
    // <tspan> around it) that names one, by attribute or class.
    let family = |c: &str| -> String {
        let glyph = parsed
            .descendants()
            .find(|n| n.is_text() && n.text() == Some(c))
            .unwrap_or_else(|| panic!("no glyph {c:?}"));
        glyph
            .ancestors()
            .take_while(|n| !n.has_tag_name("g"))
            .map(|n| own_family(n, &css))
            .find(|f| !f.is_empty())
            .unwrap_or_default()
    };
    fn own_family(n: roxmltree::Node, css: &str) -> String {
        let class = n.attribute("class").map(|k| {
            let key = format!(".{k}{{");
            css[css.find(&key).unwrap() + key.len()..]
                .split('}')
                .next()
                .unwrap()
                .to_string()
        });
        n.attribute("font-family")
            .map(str::to_string)
            .or_else(|| {
                class.and_then(|d| {
                    d.split(';')
                        .find_map(|p| p.strip_prefix("font-family:"))
                        .map(str::to_string)
                })
            })
            .unwrap_or_default()
    }
    for icon in ["\u{f07b}", "\u{e718}"] {
        assert!(
            family(icon).starts_with("\"Pure Nerd Font\""),
            "{icon:?}: {}",
            family(icon)
        );
    }
    assert!(
        !family("\u{10fff0}").contains("Pure Nerd Font"),
        "an uncovered code point is not drawn from the icon face"
    );
}
