//! Cropping end to end (issue 13): `--crop-top 'TEXT:1'` crops where it says, on the exact grid
//! and inside the window frame; crops from a config file (`capture.crop`), in `session capture`
//! and in scenario captures; bad crops are clear errors that write nothing.

mod common;

use common::session::Host;
use common::*;

const LINES: &str = "printf 'zero\\none\\nHost:\\n  alpha\\n  beta\\nend\\n'";

fn capture(dir: &std::path::Path, args: &[&str]) -> (serde_json::Value, String) {
    let a = console2svg()
        .current_dir(dir)
        .args(["capture", "--json", "-w", "30", "-o", "c.svg"])
        .args(args)
        .args(["--", "sh", "-c", LINES])
        .assert()
        .success();
    let json = serde_json::from_slice(&a.get_output().stdout).unwrap();
    (json, std::fs::read_to_string(dir.join("c.svg")).unwrap())
}

#[test]
fn crop_top_text_with_offset_keeps_the_rows_after_it() {
    let dir = tempdir();
    let (json, svg) = capture(
        dir.path(),
        &["--crop-top", "Host::1", "--crop-bottom", "end:-1"],
    );
    assert_eq!(json["screen"]["text"], "  alpha\n  beta");
    assert_eq!(json["screen"]["height"], 2);
    // The grid is exact: the first kept row is drawn as row 0, columns where they were.
    assert_col(&svg, 0, "a", 2);
    assert_col(&svg, 1, "b", 2);
    let text = svg_text(&svg);
    assert!(!text.contains("Host") && !text.contains("zero") && !text.contains("end"));

    // TEXT alone keeps the row holding it; `text:` forces a pattern.
    let (json, _) = capture(dir.path(), &["--crop-top", "text:Host:"]);
    assert!(json["screen"]["text"]
        .as_str()
        .unwrap()
        .starts_with("Host:\n  alpha"));
}

#[test]
fn side_crops_and_the_window_frame() {
    let dir = tempdir();
    let (json, svg) = capture(
        dir.path(),
        &[
            "-d",
            "macos",
            "--crop-top",
            "2ch",
            "--crop-left",
            "2ch",
            "--crop-right",
            "84px",
        ],
    );
    assert_eq!(json["screen"]["width"], 18);
    assert!(json["screen"]["text"]
        .as_str()
        .unwrap()
        .starts_with("st:\nalpha\nbeta"));
    // The frame is drawn around the cropped grid: 18 columns plus padding and the sides.
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let width: f32 = doc
        .root_element()
        .attribute("width")
        .unwrap()
        .parse()
        .unwrap();
    let expected = 18.0 * CELL_W + 2.0 * PAD + 2.0;
    assert!((width - expected).abs() < 0.05, "{width} vs {expected}");
    assert!(svg.contains("#ff5f57"), "the macos frame is there");
}

#[test]
fn crop_from_a_config_file_and_flags_over_it() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("c.yaml"),
        "$version: 1\noptions:\n  capture:\n    crop: {top: 'Host:', bottom: '1ch'}\n",
    )
    .unwrap();
    let (json, _) = capture(dir.path(), &["-C", "c.yaml"]);
    assert_eq!(json["screen"]["text"], "Host:\n  alpha\n  beta\nend");
    let (json, _) = capture(dir.path(), &["-C", "c.yaml", "--crop-top", "beta"]);
    assert_eq!(json["screen"]["text"], "  beta\nend");
}

#[test]
fn bad_crops_are_errors_and_write_nothing() {
    let dir = tempdir();
    for (args, message) in [
        (
            vec!["--crop-top", "nowhere"],
            "crop-top: no row holds the text 'nowhere'",
        ),
        (
            vec!["--crop-bottom", "5em"],
            "crop-bottom: '5em': unknown crop unit 'em'",
        ),
        (
            vec!["--crop-left", "Host"],
            "crop-left: 'Host' is not a length",
        ),
        (
            vec!["--crop-top", "zero:-3"],
            "moves the edge off the screen",
        ),
        (vec!["--crop-top", "40ch"], "the crop leaves no rows"),
    ] {
        console2svg()
            .current_dir(dir.path())
            .args(["capture", "-o", "bad.svg"])
            .args(&args)
            .args(["--", "sh", "-c", LINES])
            .assert()
            .failure()
            .stderr(predicates::str::contains(message));
        assert!(!dir.path().join("bad.svg").exists(), "{args:?}");
    }
}

#[test]
fn session_capture_and_scenario_captures_crop() {
    let h = Host::new();
    let id = h.start(&[
        "--width",
        "30",
        "--height",
        "8",
        "--",
        "sh",
        "-c",
        &format!("{LINES}; sleep 30"),
    ]);
    h.wait(&id, "end");
    let v = h.ok(&[
        "capture",
        &id,
        "-o",
        "s.svg",
        "--crop-top",
        "Host::1",
        "--crop-bottom",
        "beta",
    ]);
    let svg = std::fs::read_to_string(v["artifact"]["path"].as_str().unwrap()).unwrap();
    assert_col(&svg, 0, "a", 2);
    assert!(!svg_text(&svg).contains("Host") && !svg_text(&svg).contains("end"));
    // The crop and masking flags are journaled: the exported scenario repeats them.
    let v = h.ok(&["export", &id, "-o", "e.yaml"]);
    let exported = std::fs::read_to_string(v["path"].as_str().unwrap()).unwrap();
    assert!(
        exported.contains("crop:") && exported.contains("top: Host::1"),
        "{exported}"
    );
    h.ok(&["capture", &id, "-o", "m.svg", "--mask-auto", "false"]);
    let v = h.ok(&["export", &id, "-o", "e2.yaml"]);
    let exported = std::fs::read_to_string(v["path"].as_str().unwrap()).unwrap();
    assert!(exported.contains("auto: false"), "{exported}");
    let v = h.fails(
        &["capture", &id, "-o", "t.svg", "--crop-top", "nowhere"],
        "invalid_request",
    );
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no row holds"));

    let dir = tempdir();
    std::fs::write(
        dir.path().join("doc.yaml"),
        format!(
            "$version: 1\noptions: {{terminal: {{width: 30, height: 8}}}}\nscenario:\n  launch: {{executable: sh, args: [-c, \"{}; sleep 30\"]}}\n  execute:\n    - {{type: wait, args: {{text: end}}}}\n    - {{type: capture, args: {{output: out.svg}}, options: {{capture: {{crop: {{top: 'Host::1', bottom: 'beta'}}}}}}}}\n",
            LINES.replace('"', "\\\"")
        ),
    )
    .unwrap();
    console2svg()
        .current_dir(dir.path())
        .env("CONSOLE2SVG_RUNTIME_DIR", dir.path().join("rt"))
        .args(["scenario", "run", "doc.yaml"])
        .assert()
        .success();
    let svg = std::fs::read_to_string(dir.path().join("out.svg")).unwrap();
    assert_col(&svg, 0, "a", 2);
    assert!(!svg_text(&svg).contains("Host"));
}
