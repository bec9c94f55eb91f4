//! Theme and window files users already have (shared/spec/console2svg-contract.md, "Theme
//! file" and "Window chrome"): the original's `theme.json` + `chrome.json` + `window.svg`, and
//! the common terminal theme formats, load with `-t FILE` and colour the picture; `theme
//! install`/`list`/`remove` round-trip in a private data directory; `-t <window>` layers a
//! frame over a palette; `-d windows` keeps the theme's background; `--forecolor`/`--backcolor`
//! take CSS colours. Bad theme files are one line naming the file and the key, exit 1, nothing
//! written.
//!
//! The fixtures in `tests/fixtures/themes/` are written for these tests from each format's
//! documentation. All of them hold the same colours: ANSI red (1) `#c01020`, bright green (10)
//! `#40ff30`, foreground `#e0e0d0`, background `#102030`.

mod common;

use std::path::{Path, PathBuf};

use common::*;

const RED: &str = "#c01020";
const BRIGHT_GREEN: &str = "#40ff30";
const FG: &str = "#e0e0d0";
const BG: &str = "#102030";

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/themes").join(name)
}

/// `capture` of a red `R`, a bright green `G` and a default-coloured `d`, with `args`, in a
/// directory with a private data home; returns the SVG.
fn picture(home: &Path, args: &[&str]) -> String {
    let out = home.join("out.svg");
    console2svg()
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .args(args)
        .arg("-o")
        .arg(&out)
        .args(["--", "printf", r"\033[31mR\033[92mG\033[0md"])
        .assert()
        .success();
    std::fs::read_to_string(out).unwrap()
}

fn fill_of(svg: &str, text: &str) -> String {
    glyphs(svg)
        .into_iter()
        .find(|g| g.text == text)
        .unwrap_or_else(|| panic!("no glyph {text}"))
        .fill
        .unwrap_or_default()
}

/// The terminal background: the `.bg` rule's fill.
fn background(svg: &str) -> String {
    let at = svg.find(".bg{fill:").expect("a .bg rule") + ".bg{fill:".len();
    svg[at..at + 7].to_string()
}

/// The default text colour: the `text{…fill:…}` rule's fill.
fn foreground(svg: &str) -> String {
    let rule = &svg[svg.find("}text{").expect("a text rule")..];
    let at = rule.find(";fill:").expect("a fill") + ";fill:".len();
    rule[at..at + 7].to_string()
}

fn assert_palette(svg: &str, what: &str) {
    assert_eq!(fill_of(svg, "R"), RED, "{what}: ANSI 1");
    assert_eq!(fill_of(svg, "G"), BRIGHT_GREEN, "{what}: ANSI 10");
    assert_eq!(foreground(svg), FG, "{what}: foreground");
    assert_eq!(background(svg), BG, "{what}: background");
}

#[test]
fn each_terminal_theme_format_colours_the_picture() {
    let dir = tempdir();
    for file in [
        "test.itermcolors",
        "test-scheme.json",
        "test.toml",
        "test.conf",
        "test-ghostty",
    ] {
        let svg = picture(dir.path(), &["-t", fixture(file).to_str().unwrap()]);
        assert_palette(&svg, file);
    }
}

#[test]
fn an_original_theme_with_its_chrome_and_template_gives_its_picture() {
    let dir = tempdir();
    // The directory and its theme.json load the same.
    for arg in [
        fixture("original-neon"),
        fixture("original-neon/theme.json"),
    ] {
        let svg = picture(dir.path(), &["-t", arg.to_str().unwrap()]);
        assert_palette(&svg, "original theme.json");
        // chrome.json: insets 30/2/2/2, corner 4; the variant's padding 6. 100 columns of
        // 8.4 px: 2 + 6 + 840 + 6 + 2 = 856 px wide.
        assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="856""#));
        assert!(
            svg.contains(r#"<rect class="bg" x="2" y="30" width="852""#),
            "{svg}"
        );
        assert!(svg.contains(r#"rx="4"/>"#));
        // window.svg, its placeholders filled: {winW-1}, {winRight-12}, {bg}.
        assert!(
            svg.contains(r##"<rect x="0.5" y="0.5" width="855" height="61" fill="#7a1f5c" stroke="#e040a0"/>"##),
            "{svg}"
        );
        assert!(svg.contains(r##"<circle cx="844" cy="15" r="6" fill="#102030"/>"##));
    }
    // Drawn by resvg: the template's body in the title strip, the circle filled with the
    // terminal background, the terminal area in the palette's background.
    let svg = picture(
        dir.path(),
        &["-t", fixture("original-neon").to_str().unwrap()],
    );
    let p = raster(&svg, 1.0);
    for (x, y, want, what) in [
        (100, 12, "#7a1f5c", "title strip (the template's rect)"),
        (844, 15, BG, "the template's {bg} circle"),
        (800, 50, BG, "terminal area"),
    ] {
        let got = pixel(&p, x, y);
        assert!(
            distance(got, rgb(want)) <= 2,
            "{what} at {x},{y}: {got:?}, want {want}"
        );
    }
    // -d takes the original's chrome.json by itself: its template, {bg} from the palette.
    let chrome = fixture("original-neon/chrome.json");
    let svg = picture(dir.path(), &["-t", "nord", "-d", chrome.to_str().unwrap()]);
    assert!(svg.contains(r##"fill="#7a1f5c""##), "{svg}");
    assert!(
        svg.contains(r##"r="6" fill="#101420"/>"##),
        "{{bg}} is nord's background"
    );
}

#[test]
fn a_window_theme_layers_over_a_palette_and_windows_keeps_the_background() {
    let dir = tempdir();
    // -t nord -t macos: nord's colours in the macOS frame, either order.
    for args in [["-t", "nord", "-t", "macos"], ["-t", "macos", "-t", "nord"]] {
        let svg = picture(dir.path(), &args);
        assert_eq!(background(&svg), "#101420", "{args:?}");
        assert_eq!(fill_of(&svg, "R"), "#bf616a", "{args:?}");
        assert!(svg.contains("#ff5f57"), "{args:?}: the macOS close button");
    }
    // -d windows keeps the theme's background; only the tab is #0c0c0c.
    let svg = picture(dir.path(), &["-t", "nord", "-d", "windows"]);
    assert_eq!(background(&svg), "#101420");
    let svg = picture(dir.path(), &["-d", "windows"]);
    assert_eq!(background(&svg), "#1e1e1e", "the default dark background");
    assert!(svg.contains(r##"fill="#0c0c0c""##), "the tab");
    // A theme file layered under a window theme.
    let svg = picture(
        dir.path(),
        &["-t", fixture("test.conf").to_str().unwrap(), "-t", "macos"],
    );
    assert_palette(&svg, "kitty + macos");
    assert!(svg.contains("#ff5f57"));
}

#[test]
fn forecolor_and_backcolor_take_css_colours() {
    let dir = tempdir();
    for (fore, back, want_fg, want_bg) in [
        ("tomato", "rgb(0, 0, 64)", "#ff6347", "#000040"),
        ("RebeccaPurple", "hsl(0, 0%, 100%)", "#663399", "#ffffff"),
        ("#abc", "navy", "#aabbcc", "#000080"),
    ] {
        let svg = picture(dir.path(), &["--forecolor", fore, "--backcolor", back]);
        assert_eq!(foreground(&svg), want_fg, "{fore}");
        assert_eq!(background(&svg), want_bg, "{back}");
    }
    let out = console2svg()
        .current_dir(dir.path())
        .args(["--forecolor", "reddish", "-o", "never.svg", "--", "true"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'reddish'"));
    assert!(!dir.path().join("never.svg").exists());
}

fn theme_cmd(home: &Path, args: &[&str]) -> std::process::Output {
    console2svg()
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .arg("theme")
        .args(args)
        .output()
        .unwrap()
}

fn listing(home: &Path) -> serde_json::Value {
    let out = theme_cmd(home, &["list", "--format", "json"]);
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

fn installed_ids(home: &Path) -> Vec<String> {
    listing(home)["themes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["source"] == "installed")
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn install_list_and_remove_round_trip() {
    let dir = tempdir();
    let home = dir.path();
    assert!(installed_ids(home).is_empty());

    // A kitty file under an id of our choosing, a Windows Terminal scheme under its name, an
    // original theme directory under its id (with its pc variant).
    let out = theme_cmd(
        home,
        &[
            "install",
            fixture("test.conf").to_str().unwrap(),
            "--id",
            "my-kitty",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("installed theme 'my-kitty' (kitty) at ")
    );
    let out = theme_cmd(
        home,
        &["install", fixture("test-scheme.json").to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = theme_cmd(
        home,
        &["install", fixture("original-neon").to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(home
        .join("data/console2svg/themes/test-neon/window.svg")
        .is_file());
    // An original theme's pc variant is listed by its own id after the theme.
    assert_eq!(
        installed_ids(home),
        ["my-kitty", "test-neon", "test-neon-pc", "test-scheme"]
    );
    let rows = listing(home);
    let neon = rows["themes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "test-neon")
        .unwrap()
        .clone();
    assert_eq!(neon["kind"], "full");
    assert_eq!(neon["background"], BG);
    let table = String::from_utf8(theme_cmd(home, &["list"]).stdout).unwrap();
    assert!(table.contains("\nmy-kitty "), "{table}");

    // -t ID finds each one, wherever the command runs.
    for id in ["my-kitty", "test-scheme", "test-neon", "test-neon-pc"] {
        let svg = picture(home, &["-t", id]);
        assert_palette(&svg, id);
    }
    let svg = picture(home, &["-t", "test-neon"]);
    assert!(
        svg.contains("#7a1f5c"),
        "the installed theme's window template"
    );
    // The pc variant: the window (its padding the default 8: the variant sets none) on a
    // desktop of its pcPadding, 12 px each side: 2 + 8 + 840 + 8 + 2 + 2 × 12 = 884.
    let svg = picture(home, &["-t", "test-neon-pc"]);
    assert!(
        svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="884""#),
        "{}",
        &svg[..120]
    );
    assert!(
        svg.contains(r#"<rect x="12.5" y="12.5" width="859""#),
        "the window at 12,12"
    );

    // Installing again: refused without --force, replaced with it.
    let src = fixture("test.conf");
    let out = theme_cmd(
        home,
        &["install", src.to_str().unwrap(), "--id", "my-kitty"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already installed"));
    let out = theme_cmd(
        home,
        &[
            "install",
            src.to_str().unwrap(),
            "--id",
            "my-kitty",
            "--force",
        ],
    );
    assert!(out.status.success());
    // A built-in id is refused.
    let out = theme_cmd(home, &["install", src.to_str().unwrap(), "--id", "nord"]);
    assert_eq!(out.status.code(), Some(1));

    // Remove: gone from the list and from -t.
    for id in ["my-kitty", "test-scheme", "test-neon"] {
        let out = theme_cmd(home, &["remove", id]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(installed_ids(home).is_empty());
    let out = theme_cmd(home, &["remove", "my-kitty"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no installed theme 'my-kitty'"));
    let out = theme_cmd(home, &["remove", "nord"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("built-in"));
    let out = console2svg()
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .args(["-t", "my-kitty", "-o"])
        .arg(home.join("never.svg"))
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!home.join("never.svg").exists());
}

#[test]
fn bad_theme_files_are_one_line_naming_the_file_and_key() {
    let dir = tempdir();
    let d = dir.path();
    let fifteen: String = (0..15).map(|i| format!("color{i} #101010\n")).collect();
    for (name, text, said) in [
        ("t.ini", "[colors]\n", "unknown format"),
        ("partial.conf", fifteen.as_str(), "color15 is missing"),
        ("bad.conf", "foreground #zzzzzz\n", "foreground = '#zzzzzz'"),
        (
            "alacritty.toml",
            "[colors.primary]\nbackground = 12\n",
            "colors.primary.background",
        ),
        (
            "scheme.json",
            r##"{"name": "x", "purple": "#12", "brightWhite": "#fff"}"##,
            "purple = '#12'",
        ),
        ("ghostty", "palette = 3=nope\n", "palette = 3 = 'nope'"),
        (
            "broken.itermcolors",
            "<?xml version=\"1.0\"?><plist><dict><key>Ansi 0 Color</key></dict>",
            "plist",
        ),
        (
            "original.json",
            r##"{"schemaVersion": 2, "id": "x", "name": "X"}"##,
            "schemaVersion must be 1",
        ),
        (
            "original-palette.json",
            r##"{"schemaVersion": 1, "id": "x", "name": "X", "terminal": {"foreground": "#fff", "background": "#000", "ansiPalette": ["#000"]}}"##,
            "terminal.ansiPalette must list 16 colours",
        ),
        (
            "original-key.json",
            r##"{"schemaVersion": 1, "id": "x", "name": "X", "colour": 1}"##,
            "unknown field `colour`",
        ),
        (
            "original-window.json",
            r##"{"schemaVersion": 1, "id": "x", "name": "X", "appearance": {"normal": {"id": "x", "window": "../chrome.json"}}}"##,
            "appearance.normal.window",
        ),
        (
            "original-opacity.json",
            r##"{"schemaVersion": 1, "id": "x", "name": "X", "appearance": {"normal": {"id": "x", "opacity": 2}}}"##,
            "appearance.normal.opacity must be between 0 and 1",
        ),
    ] {
        std::fs::write(d.join(name), text).unwrap();
        let out = console2svg()
            .current_dir(d)
            .env("HOME", d)
            .env("XDG_DATA_HOME", d.join("data"))
            .args(["-t", name, "-o", "never.svg", "--", "touch", "ran"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        assert!(err.contains(name), "{name}: {err}");
        assert!(err.contains(said), "{name}: {err}");
        assert!(!d.join("never.svg").exists() && !d.join("ran").exists());
        // theme install refuses it too, and writes nothing.
        let out = theme_cmd(d, &["install", d.join(name).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(!d.join("data/console2svg/themes").exists() || installed_ids(d).is_empty());
    }
    // A chrome.json template that is not well-formed SVG, or scripts.
    let theme = d.join("tpl");
    std::fs::create_dir_all(&theme).unwrap();
    std::fs::write(
        theme.join("theme.json"),
        r#"{"schemaVersion": 1, "id": "tpl", "name": "T", "appearance": {"normal": {"id": "tpl", "window": "chrome.json"}}}"#,
    )
    .unwrap();
    std::fs::write(
        theme.join("chrome.json"),
        r#"{"paddingTop": 10, "svgTemplate": "window.svg"}"#,
    )
    .unwrap();
    for (svg, said) in [
        ("<rect x=\"{winX}\"", "not well-formed SVG"),
        ("<script>alert(1)</script>", "<script> is not allowed"),
        ("<rect onload=\"x()\"/>", "'onload'"),
        ("<rect x=\"{winZ}\"/>", "unknown placeholder '{winZ}'"),
    ] {
        std::fs::write(theme.join("window.svg"), svg).unwrap();
        let out = console2svg()
            .current_dir(d)
            .args(["-t", "tpl", "-o", "never.svg", "--", "true"])
            .env("HOME", d)
            .env("XDG_DATA_HOME", d.join("data"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{svg}: {err}");
        assert!(
            err.contains("chrome.json") && err.contains(said),
            "{svg}: {err}"
        );
        assert!(!d.join("never.svg").exists());
    }
    // Inline markup instead of a file name.
    std::fs::write(
        theme.join("chrome.json"),
        r#"{"paddingTop": 10, "svgTemplate": "<rect/>"}"#,
    )
    .unwrap();
    let out = console2svg()
        .current_dir(d)
        .args(["-t", "tpl", "-o", "never.svg", "--", "true"])
        .env("HOME", d)
        .env("XDG_DATA_HOME", d.join("data"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("chrome.json") && err.contains("inline markup"),
        "{err}"
    );
}

#[test]
fn a_device_or_an_endless_file_is_refused_before_it_is_read() {
    let dir = tempdir();
    let d = dir.path();
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.conf")).unwrap();
    for name in ["zero.conf", "/dev/zero"] {
        let out = console2svg()
            .current_dir(d)
            .env("HOME", d)
            .env("XDG_DATA_HOME", d.join("data"))
            .args(["-t", name, "-o", "never.svg", "--", "touch", "ran"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        assert!(err.contains("not a regular file"), "{name}: {err}");
        assert!(!d.join("never.svg").exists() && !d.join("ran").exists());
    }
}
