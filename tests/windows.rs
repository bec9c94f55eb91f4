//! Window styles and themes: canvas geometry from shared/spec/themes.md and golden SVGs.

mod common;

use common::*;

fn capture(args: &[&str]) -> (String, f32, f32) {
    let dir = tempdir();
    let out = dir.path().join("w.svg");
    console2svg()
        .current_dir(dir.path())
        .args(["capture", "-o"])
        .arg(&out)
        .args(args)
        .args([
            "--",
            "printf",
            r"hello \033[32mworld\033[0m\n\033[44;97m box \033[0m ┌─┐\n",
        ])
        .assert()
        .success();
    let svg = std::fs::read_to_string(&out).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let root = doc.root_element();
    let w = root.attribute("width").unwrap().parse().unwrap();
    let h = root.attribute("height").unwrap().parse().unwrap();
    (svg, w, h)
}

/// The worked sizes of themes.md §3: a 40×4 grid with the header row, padding 8.
#[test]
fn window_metrics_match_the_worked_sizes() {
    let grid = ["-w", "40", "-h", "4", "-c", "--no-cursor"];
    let with = |style: &str| {
        let mut a = grid.to_vec();
        a.extend(["-d", style]);
        let (_, w, h) = capture(&a);
        (w, h)
    };
    assert_eq!(with("macos"), (354.0, 135.0));
    assert_eq!(with("macos-pc"), (394.0, 175.0));
    assert_eq!(with("windows-pc"), (400.0, 188.0));
    assert_eq!(with("windows"), (354.0, 142.0));
    assert_eq!(with("none"), (352.0, 106.0));
    assert_eq!(
        with("transparent"),
        (336.0, 90.0),
        "transparent has no padding"
    );
}

/// themes.md §2: the cyberpunk docs render (100 columns, 7 rows + header, font 14).
#[test]
fn cyberpunk_matches_the_docs_render() {
    let (svg, w, h) = capture(&[
        "-t",
        "cyberpunk",
        "-w",
        "100",
        "-h",
        "7",
        "-c",
        "--no-cursor",
    ]);
    assert_eq!((w, h), (882.0, 217.0));
    assert!(svg.contains("SYS://NEON-TERMINAL"));
    // The label is drawn in its own pink, not the grid's foreground (a `text{fill}` CSS rule
    // outranks presentation attributes): most of its ink in the title bar is #ff65b1.
    let p = raster(&svg, 1.0);
    let pink = rgb("#ff65b1");
    let (mut ink, mut pinkish) = (0, 0);
    for y in 12..26 {
        for x in 44..180 {
            let px = pixel(&p, x, y);
            if px[0] > 120 || px[1] > 120 || px[2] > 120 {
                ink += 1;
                if distance(px, pink) < 60 {
                    pinkish += 1;
                }
            }
        }
    }
    assert!(ink > 50, "the label has ink ({ink} px)");
    assert!(pinkish * 2 > ink, "{pinkish} of {ink} label px are pink");
    assert!(
        svg.contains("<g opacity=\"0.85\">"),
        "theme opacity wraps the frame"
    );
    // The pc docs render has one more row: window 882×235 at (30,30) on a 952×305 canvas.
    let (_, w, h) = capture(&[
        "-t",
        "cyberpunk-pc",
        "-w",
        "100",
        "-h",
        "8",
        "-c",
        "--no-cursor",
    ]);
    assert_eq!((w, h), (952.0, 305.0));
}

#[test]
fn macos_frame_draws_traffic_lights_and_a_rounded_terminal() {
    let (svg, _, _) = capture(&["-d", "macos", "-w", "40", "-h", "4", "--no-cursor"]);
    for (cx, fill) in [(14, "#ff5f57"), (30, "#febc2e"), (46, "#28c840")] {
        assert!(
            svg.contains(&format!("cx=\"{cx}\" cy=\"14\" r=\"5\" fill=\"{fill}\"")),
            "{fill} light at {cx}: {svg}"
        );
    }
    let p = raster(&svg, 1.0);
    // The terminal area (dark palette background) starts below the 28 px title bar.
    assert!(distance(pixel(&p, 100, 40), rgb("#1e1e1e")) <= 2);
    assert!(
        distance(pixel(&p, 100, 10), rgb("#2c2c2c")) <= 2,
        "title bar"
    );
}

#[test]
fn every_window_style_has_a_golden_svg() {
    for style in [
        "none",
        "transparent",
        "macos",
        "windows",
        "macos-pc",
        "windows-pc",
    ] {
        let (svg, _, _) = capture(&["-d", style, "-w", "40", "-h", "3", "-c", "--no-cursor"]);
        raster(&svg, 1.0);
        assert_golden(&format!("window_{style}"), &svg);
    }
}

#[test]
fn themes_have_golden_svgs_and_their_palette() {
    for (theme, bg, green) in [
        ("dracula", "#282a36", "#50fa7b"),
        ("solarized-light", "#fdf6e3", "#859900"),
        ("nord", "#101420", "#a3be8c"),
        ("cyberpunk", "#090b1a", "#55f7bd"),
    ] {
        let (svg, _, _) = capture(&["-t", theme, "-w", "40", "-h", "3", "--no-cursor"]);
        assert!(
            svg.contains(&format!(".bg{{fill:{bg}}}")),
            "{theme} background"
        );
        assert!(svg.contains(green), "{theme} green");
        assert_golden(&format!("theme_{theme}"), &svg);
    }
}

#[test]
fn later_theme_wins_and_colour_overrides_apply() {
    let (svg, _, _) = capture(&["-t", "cyberpunk", "-t", "dracula", "-w", "40", "-h", "3"]);
    assert!(
        svg.contains(".bg{fill:#282a36}"),
        "dracula's palette over cyberpunk"
    );
    assert!(
        svg.contains("SYS://NEON-TERMINAL"),
        "cyberpunk's frame stays"
    );
    let (svg, _, _) = capture(&[
        "--forecolor",
        "#112233",
        "--backcolor",
        "#fafafa",
        "-w",
        "40",
        "-h",
        "3",
    ]);
    assert!(svg.contains("fill:#112233") && svg.contains(".bg{fill:#fafafa}"));
}

#[test]
fn canvas_background_opacity_padding_and_size() {
    let (svg, w, h) = capture(&[
        "--background",
        "#ff0000",
        "#0000ff",
        "--margin",
        "10",
        "--padding",
        "4",
        "-w",
        "10",
        "-h",
        "2",
    ]);
    assert!(svg.contains("linearGradient") && svg.contains("#ff0000") && svg.contains("#0000ff"));
    assert_eq!((w, h), (10.0 * 8.4 + 8.0 + 20.0, 36.0 + 8.0 + 20.0));
    let (svg, _, _) = capture(&["--opacity", "0.5", "-w", "10", "-h", "2"]);
    assert!(svg.contains("<g opacity=\"0.5\">"));
    let (svg, w, h) = capture(&["--size", "200", "-w", "10", "-h", "2"]);
    assert_eq!(w, 200.0);
    assert!((h - 200.0 * 52.0 / 100.0).abs() < 0.01, "{h}");
    assert!(svg.contains("viewBox=\"0 0 100 52\""));
    let dir = tempdir();
    // A 1×1 PNG as the canvas image, inlined as a data URI.
    let png = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0,
        0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0d, 0x49, 0x44,
        0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0, 5, 0, 1, 0xff, 0x89, 0x99,
        0x3d, 0x1d, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    let img = dir.path().join("bg.png");
    std::fs::write(&img, png).unwrap();
    let (svg, _, _) = capture(&["--background", img.to_str().unwrap(), "-w", "10", "-h", "2"]);
    assert!(svg.contains("href=\"data:image/png;base64,iVBORw0KGgo"));
}

#[test]
fn header_row_shows_prompt_and_command() {
    let (svg, _, h) = capture(&["-c", "--prompt", ">", "-w", "60", "-h", "2", "--no-cursor"]);
    assert_eq!(h, 3.0 * 18.0 + 16.0);
    let row0: String = row_glyphs(&svg, 0).iter().map(|g| g.text.clone()).collect();
    assert!(row0.starts_with(">printf"), "{row0}");
    let (svg, _, _) = capture(&["--header", "custom title", "-w", "60", "-h", "2"]);
    let row0: String = row_glyphs(&svg, 0).iter().map(|g| g.text.clone()).collect();
    assert_eq!(row0, "customtitle");
    assert_col(&svg, 0, "i", 8);
}

#[test]
fn user_theme_and_frame_files() {
    let dir = tempdir();
    let theme = dir.path().join("mine.json");
    std::fs::write(
        &theme,
        r##"{"background": "#102030", "foreground": "#e0e0e0", "padding": 2}"##,
    )
    .unwrap();
    let frame = dir.path().join("frame.json");
    std::fs::write(
        &frame,
        r##"{"insets": {"top": 10, "right": 2, "bottom": 2, "left": 2}, "elements": [{"rect": {"x": 0, "y": 0, "w": "W", "h": 10, "fill": "#ff00ff"}}]}"##,
    )
    .unwrap();
    let (svg, w, h) = capture(&[
        "-t",
        theme.to_str().unwrap(),
        "-d",
        frame.to_str().unwrap(),
        "-w",
        "10",
        "-h",
        "2",
        "--no-cursor",
    ]);
    assert!(svg.contains(".bg{fill:#102030}") && svg.contains("fill:#e0e0e0"));
    assert!(svg.contains("fill=\"#ff00ff\""));
    assert_eq!((w, h), (84.0 + 4.0 + 4.0, 36.0 + 4.0 + 12.0));
    std::fs::write(&theme, r##"{"background": "blue"}"##).unwrap();
    console2svg()
        .args(["-t", theme.to_str().unwrap(), "--", "true"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("background"));
}

#[test]
fn font_options() {
    let (svg, _, _) = capture(&[
        "--font",
        "Fira Code, monospace",
        "--fontsize",
        "20",
        "-w",
        "10",
        "-h",
        "2",
    ]);
    assert!(svg.contains("font-family:Fira Code, monospace;font-size:20px"));
    assert!(
        !svg.contains("@font-face"),
        "the bundled face is not embedded when the stack does not use it"
    );
    let (svg, _, _) = capture(&["--no-embed-font", "-w", "10", "-h", "2"]);
    assert!(!svg.contains("@font-face"));
    let (svg, _, _) = capture(&["-w", "10", "-h", "2"]);
    assert!(svg.contains("@font-face{font-family:\"JetBrains Mono\";font-weight:400;font-style:normal;src:url(data:font/ttf;base64,"));
}
