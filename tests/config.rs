//! Config files written for the original (its config document v1, shared/spec/
//! console2svg-contract.md, "Config document"): they load and give the pictures the same
//! settings give as flags; our flat keys keep working; unknown keys, clashing keys and unknown
//! formats are refused naming the file; `--cw-generate-json-schema` writes schemas that the
//! documents validate against.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use predicates::str::contains;

/// A config for the original, from its documented v1 schema: every group it lists.
const ORIGINAL_V1: &str = r##"$schema: ./schemas/console2svg.config.schema.json
$version: 1
options:
  terminal: {width: 40, height: 6}
  environment: {color: overwrite, ci: strip}
  interactive: {mouse: false}
  live-server: {host: ":8080"}
  capture:
    mode: image
    crop: {top: "1ch"}
    video: {fps: 10, loop: false, time: {start: 0, end: 2}, timing: deterministic, coalesce: auto, fadeout: 0.5}
  render:
    masking: {auto: true, strings: ["hunter2"]}
    adjust: spacingAndGlyphs
  converter: {svg-converter: resvg}
  appearance:
    font: {family: "DejaVu Sans Mono", size: 16}
    size: {width: 800}
    theme: [nord]
    window: macos
    padding: 4
    margin: 2
    pc-padding: 10
    opacity: 0.9
    forecolor: "#eeeeee"
    backcolor: "#101010"
    background: ["#000000", "#333333"]
    header: {with-command: true, prompt: "%"}
"##;

/// The same settings as our flat keys.
const FLAT: &str = r##"$version: 1
options:
  terminal: {width: 40, height: 6}
  capture: {crop: {top: "1ch"}}
  render: {masking: {strings: ["hunter2"]}}
  appearance:
    font: "DejaVu Sans Mono"
    fontsize: 16
    size: "800"
    theme: [nord]
    window: macos
    padding: 4
    margin: 2
    pc-padding: 10
    opacity: 0.9
    forecolor: "#eeeeee"
    backcolor: "#101010"
    background: ["#000000", "#333333"]
    with-command: true
    prompt: "%"
"##;

/// The same settings as flags.
const FLAGS: &[&str] = &[
    "-w",
    "40",
    "-h",
    "6",
    "--crop-top",
    "1ch",
    "--mask",
    "hunter2",
    "--font",
    "DejaVu Sans Mono",
    "--fontsize",
    "16",
    "--size",
    "800",
    "-t",
    "nord",
    "-d",
    "macos",
    "--padding",
    "4",
    "--margin",
    "2",
    "--pc-padding",
    "10",
    "--opacity",
    "0.9",
    "--forecolor",
    "#eeeeee",
    "--backcolor",
    "#101010",
    "--background",
    "#000000",
    "#333333",
    "-c",
    "--prompt",
    "%",
];

const COMMAND: &[&str] = &[
    "--",
    "printf",
    r"top\nthe password is hunter2\n\033[1;32mgreen\033[0m",
];

/// Runs console2svg in `dir` with no home config, `-o out` put before the command (after
/// `cast FILE`); returns the written file's bytes.
fn picture(dir: &Path, args: &[&str], out: &str) -> Vec<u8> {
    let mut args = args.to_vec();
    let at = if args.first() == Some(&"cast") { 2 } else { 0 };
    args.splice(at..at, ["-o", out]);
    console2svg()
        .current_dir(dir)
        .env("HOME", dir.join("no-home"))
        .args(&args)
        .assert()
        .success();
    std::fs::read(dir.join(out)).unwrap()
}

#[test]
fn an_original_config_gives_the_picture_its_settings_give_as_flags() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::write(d.join("v1.yaml"), ORIGINAL_V1).unwrap();
    std::fs::write(d.join("flat.yaml"), FLAT).unwrap();
    fn cmd<'a>(first: &[&'a str]) -> Vec<&'a str> {
        [first, COMMAND].concat()
    }
    let by_flags = picture(d, &cmd(FLAGS), "flags.svg");
    let by_v1 = picture(d, &cmd(&["-C", "v1.yaml"]), "v1.svg");
    let by_flat = picture(d, &cmd(&["-C", "flat.yaml"]), "flat.svg");
    assert!(by_v1 == by_flags, "the original's config = the flags");
    assert!(by_flat == by_flags, "our flat keys = the flags");
    let svg = String::from_utf8(by_v1).unwrap();
    assert!(!svg.contains("hunter2"), "masked");
    assert!(svg.contains("width=\"800\""), "size.width");
    assert!(svg.contains("#ff5f57"), "macos window");
    assert!(svg.contains("DejaVu Sans Mono"), "font.family");
    assert!(svg.contains(">%<"), "header prompt");
    // The same file as ./console2svg.config.yaml, and as JSON.
    std::fs::write(d.join("console2svg.config.yaml"), ORIGINAL_V1).unwrap();
    assert!(picture(d, COMMAND, "local.svg") == by_flags);
    std::fs::remove_file(d.join("console2svg.config.yaml")).unwrap();
    let json: serde_json::Value = serde_yaml_ng::from_str(ORIGINAL_V1).unwrap();
    std::fs::write(d.join("v1.json"), json.to_string()).unwrap();
    assert!(picture(d, &cmd(&["-C", "v1.json"]), "json.svg") == by_flags);
    // Flags still win over the file.
    let over = picture(d, &cmd(&["-C", "v1.yaml", "-t", "light"]), "over.svg");
    let light = picture(d, &cmd(&[FLAGS, &["-t", "light"]].concat()), "light.svg");
    assert!(over == light, "flags over the config");
}

/// A recording with three moments (deterministic input for the animation keys).
const CAST: &str = "{\"version\":2,\"width\":20,\"height\":3}\n\
                    [0.0,\"o\",\"one\\r\\n\"]\n[1.0,\"o\",\"two\\r\\n\"]\n[2.5,\"o\",\"three\"]\n";

#[test]
fn an_original_configs_capture_mode_and_video_keys_shape_the_animation() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::write(d.join("c.cast"), CAST).unwrap();
    std::fs::write(
        d.join("video.yaml"),
        "$version: 1\noptions:\n  capture:\n    mode: video\n    video: {fps: 10, loop: false, time: {start: 0.5, end: 2}}\n",
    )
    .unwrap();
    let by_v1 = picture(d, &["cast", "c.cast", "-C", "video.yaml"], "v.svg");
    let by_flags = picture(
        d,
        &[
            "cast",
            "c.cast",
            "-v",
            "--fps",
            "10",
            "--no-loop",
            "--time",
            "0.5-2",
        ],
        "f.svg",
    );
    assert!(
        by_v1 == by_flags,
        "mode/fps/loop/time = -v --fps --no-loop --time"
    );
    let text = svg_text(&String::from_utf8(by_v1).unwrap());
    assert!(
        text.contains("two") && !text.contains("three"),
        "trimmed at 2 s: {text}"
    );
    // A flag wins over the file: --fps 5 changes the picture back to the flags' one.
    let fps5 = picture(
        d,
        &["cast", "c.cast", "-C", "video.yaml", "--fps", "5"],
        "5.svg",
    );
    let fps5_flags = picture(
        d,
        &[
            "cast",
            "c.cast",
            "-v",
            "--fps",
            "5",
            "--no-loop",
            "--time",
            "0.5-2",
        ],
        "5f.svg",
    );
    assert!(fps5 == fps5_flags);
    // capture.image: a still of one moment; video.time does not apply to a still.
    std::fs::write(
        d.join("image.yaml"),
        "$version: 1\noptions:\n  capture:\n    image: {time: 1.2}\n    video: {time: {start: 0, end: 0.5}}\n",
    )
    .unwrap();
    let at = picture(d, &["cast", "c.cast", "-C", "image.yaml"], "at.svg");
    assert!(at == picture(d, &["cast", "c.cast", "--time", "1.2"], "atf.svg"));
    let at = svg_text(&String::from_utf8(at).unwrap());
    assert!(at.contains("two") && !at.contains("three"), "{at}");
    // A value from the file that does not fit is named by its key.
    for (options, said) in [
        (
            "{capture: {image: {frame: 99}}}",
            "config capture.image.frame: --frame 99",
        ),
        (
            "{capture: {mode: video, video: {fps: 500}}}",
            "config capture.video.fps: --fps",
        ),
    ] {
        std::fs::write(
            d.join("bad.yaml"),
            format!("$version: 1\noptions: {options}\n"),
        )
        .unwrap();
        console2svg()
            .current_dir(d)
            .env("HOME", d.join("no-home"))
            .args(["cast", "c.cast", "-C", "bad.yaml", "-o", "bad.svg"])
            .assert()
            .code(1)
            .stderr(contains(said));
        assert!(!d.join("bad.svg").exists());
    }
}

#[test]
fn the_environment_group_keeps_or_sets_the_childs_variables() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::write(
        d.join("keep.yaml"),
        "$version: 1\noptions: {environment: {color: preserve, ci: preserve}}\n",
    )
    .unwrap();
    let screen = |args: &[&str]| {
        let out = console2svg()
            .current_dir(d)
            .env("HOME", d.join("no-home"))
            .env("CI", "yes")
            .env("COLORTERM", "kept")
            .args(args)
            .args([
                "--json",
                "-o",
                "e.svg",
                "--",
                "sh",
                "-c",
                "echo \"[$COLORTERM][$CI]\"",
            ])
            .assert()
            .success();
        let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        v["screen"]["text"].as_str().unwrap().to_string()
    };
    assert_eq!(screen(&[]), "[truecolor][]");
    assert_eq!(screen(&["-C", "keep.yaml"]), "[kept][yes]");
    assert_eq!(
        screen(&["--no-colorenv", "--no-delete-envs"]),
        "[kept][yes]"
    );

    // A scenario's launch too (its own colorenv/delete-envs would win).
    std::fs::write(
        d.join("env.yaml"),
        "$version: 1\noptions: {environment: {ci: preserve}}\nscenario:\n  launch: {executable: sh, args: [-c, 'echo \"[$CI]\"; sleep 5']}\n  execute:\n    - {type: wait, args: {text: '[yes]', timeout: 10s}}\n",
    )
    .unwrap();
    let out = console2svg()
        .current_dir(d)
        .env("HOME", d.join("no-home"))
        .env("CI", "yes")
        .args(["scenario", "run", "env.yaml"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // session start reads it too.
    let h = common::session::Host::new();
    std::fs::write(
        h.dir.path().join("console2svg.config.yaml"),
        "$version: 1\noptions: {environment: {ci: preserve}}\n",
    )
    .unwrap();
    let out = h
        .cmd()
        .env("CI", "yes")
        .args([
            "session",
            "start",
            "--",
            "sh",
            "-c",
            "echo \"[$CI]\"; sleep 30",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = v["sessionId"].as_str().unwrap().to_string();
    h.wait(&id, "[yes]");
    h.ok(&["stop", &id]);
}

#[test]
fn bad_config_files_are_refused_naming_the_file_and_key() {
    let dir = tempdir();
    let d = dir.path();
    for (name, text, said) in [
        (
            "nested.yaml",
            "$version: 1\noptions: {appearance: {font: {family: x, colour: red}}}\n",
            "colour",
        ),
        (
            "header.yaml",
            "$version: 1\noptions: {appearance: {header: {txt: hi}}}\n",
            "txt",
        ),
        (
            "group.yaml",
            "$version: 1\noptions: {environment: {colour: preserve}}\n",
            "colour",
        ),
        (
            "value.yaml",
            "$version: 1\noptions: {environment: {ci: remove}}\n",
            "remove",
        ),
        (
            "both.yaml",
            "$version: 1\noptions: {appearance: {fontsize: 12, font: {size: 14}}}\n",
            "fontsize and font.size are both set",
        ),
        (
            "image.yaml",
            "$version: 1\noptions: {capture: {image: {frame: 1, time: 2}}}\n",
            "frame or time",
        ),
        (
            "coalesce.yaml",
            "$version: 1\noptions: {capture: {video: {coalesce: soon}}}\n",
            "expected `auto` or a number of milliseconds",
        ),
        (
            "theme.yaml",
            "$version: 1\noptions: {appearance: {theme: [nord, drakula]}}\n",
            "options.appearance.theme: unknown theme 'drakula'",
        ),
        (
            "window.yaml",
            "$version: 1\noptions: {appearance: {window: macoss}}\n",
            "options.appearance.window: unknown window style 'macoss'",
        ),
        (
            "opacity.yaml",
            "$version: 1\noptions: {appearance: {opacity: 3}}\n",
            "options.appearance.opacity: 3 is not in 0..=1",
        ),
        (
            "colour.yaml",
            "$version: 1\noptions: {appearance: {forecolor: reddish}}\n",
            "options.appearance.forecolor: 'reddish'",
        ),
        (
            "width.yaml",
            "$version: 1\noptions: {terminal: {width: 0}}\n",
            "options.terminal.width: 0 is not in 1..=500",
        ),
        (
            "crop.yaml",
            "$version: 1\noptions: {capture: {crop: {left: 3em}}}\n",
            "options.capture.crop.left",
        ),
        (
            "unknown.json",
            r#"{"$version": 1, "options": {"appearance": {"fnt": "x"}}}"#,
            "options.appearance.fnt: unknown field `fnt`",
        ),
        (
            "range.json",
            r#"{"options": {"appearance": {"padding": -1}}}"#,
            "options.appearance.padding: -1 is not in 0..=10000",
        ),
        ("c.toml", "[options]\n", "unknown format '.toml'"),
        ("c.ini", "$version: 1\n", "unknown format '.ini'"),
    ] {
        std::fs::write(d.join(name), text).unwrap();
        let out = console2svg()
            .current_dir(d)
            .env("HOME", d.join("no-home"))
            .args(["-C", name, "-o", "never.svg", "--", "touch", "ran"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        assert!(err.contains(name), "{name}: {err}");
        assert!(err.contains(said), "{name}: {err}");
        assert!(!d.join("never.svg").exists() && !d.join("ran").exists());
    }
    // session verbs: the envelope.
    let h = common::session::Host::new();
    std::fs::write(h.dir.path().join("c.toml"), "x").unwrap();
    let out = h
        .cmd()
        .args(["-C", "c.toml", "session", "start", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "invalid_request");
}

/// The Python with `jsonschema` (the MCP test's venv), as tests/mcp.rs finds it.
fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CONSOLE2SVG_MCP_PYTHON").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        repo().join(target)
    };
    [target, repo().join("target")]
        .into_iter()
        .map(|t| t.join("mcp-venv/bin/python"))
        .find(|p| p.is_file())
}

/// The contract's scenario example, with `$schema`.
const SCENARIO: &str = r#"$schema: ./schemas/console2svg.scenario.schema.json
$version: 1
options: {terminal: {width: 100, height: 24}, appearance: {theme: [nord], window: macos}}
scenario:
  working-dir: {path: ".", temporary: false}
  prepare:  [{type: command, command: "true"}]
  launch:   {executable: vim, args: [demo.txt], options: {terminal: {width: 80, height: 24}}}
  execute:
    - {type: wait, args: {text: "~", until: present, stable-for: 1s, timeout: 30}}
    - {type: send, inputs: [{text: "iHello"}, {keys: Escape}, {paste: "x"}, {raw-hex: "1B"}, {secret: PW, as: paste}]}
    - {type: resize, args: {width: 120, height: 36}}
    - {type: capture, args: {output: out.svg}, options: {appearance: {theme: [dracula], font: {family: x}}}}
    - {type: command, command: "test -f hello.log"}
  verify:   [{type: command, command: "true"}]
  teardown: [{type: command, command: "true"}]
"#;

#[test]
fn generated_json_schemas_accept_the_documents_and_refuse_unknown_keys() {
    let dir = tempdir();
    let d = dir.path();
    console2svg()
        .current_dir(d)
        .args(["--cw-generate-json-schema", "schemas"])
        .assert()
        .success()
        .stdout(contains("console2svg.config.schema.json"));
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("schemas").join(name)).unwrap())
            .unwrap()
    };
    let config = read("console2svg.config.schema.json");
    let scenario = read("console2svg.scenario.schema.json");
    // Every group of the original's v1 document is described.
    let props = |def: &str| -> Vec<String> {
        config["$defs"][def]["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{def} in the schema"))
            .keys()
            .cloned()
            .collect()
    };
    for (def, keys) in [
        (
            "Options",
            &[
                "terminal",
                "environment",
                "interactive",
                "live-server",
                "capture",
                "render",
                "converter",
                "appearance",
            ][..],
        ),
        ("CaptureOptions", &["mode", "crop", "image", "video"]),
        (
            "VideoOptions",
            &["fps", "loop", "time", "timing", "coalesce", "fadeout"],
        ),
        ("FontSpec", &["family", "size"]),
        ("HeaderSpec", &["text", "with-command", "prompt"]),
    ] {
        let have = props(def);
        for k in keys {
            assert!(have.iter().any(|h| h == k), "{def}.{k} in {have:?}");
        }
    }
    assert!(config["properties"]["$schema"].is_object());
    assert!(scenario["properties"]["$schema"].is_object());

    // The documents validate with a real JSON Schema validator.
    let Some(python) = python() else {
        let how = "make it with: python3 -m venv target/mcp-venv && \
                   target/mcp-venv/bin/pip install mcp==2.3.0 jsonschema";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("no Python with jsonschema: {how}");
        }
        eprintln!("skipped the validator half: no Python with jsonschema; {how}");
        return;
    };
    let as_json = |yaml: &str| serde_yaml_ng::from_str::<serde_json::Value>(yaml).unwrap();
    let cases = [
        ("console2svg.config.schema.json", as_json(ORIGINAL_V1), true),
        ("console2svg.config.schema.json", as_json(FLAT), true),
        ("console2svg.scenario.schema.json", as_json(SCENARIO), true),
        (
            "console2svg.config.schema.json",
            as_json("$version: 1\noptions: {appearance: {font: {colour: x}}}"),
            false,
        ),
        (
            "console2svg.config.schema.json",
            as_json("$version: 1\noptions: {environment: {ci: remove}}"),
            false,
        ),
        (
            "console2svg.scenario.schema.json",
            as_json("$version: 1\nscenario: {launch: {executable: x}, execute: [{type: jump}]}"),
            false,
        ),
    ];
    for (i, (schema, doc, valid)) in cases.iter().enumerate() {
        let path = d.join(format!("doc{i}.json"));
        std::fs::write(&path, doc.to_string()).unwrap();
        let out = std::process::Command::new(&python)
            .current_dir(d)
            .args([
                "-c",
                "import json, sys, jsonschema\n\
                 s = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))\n\
                 jsonschema.Draft202012Validator.check_schema(s)\n\
                 errs = list(jsonschema.Draft202012Validator(s).iter_errors(d))\n\
                 print('\\n'.join(e.message for e in errs)); sys.exit(1 if errs else 0)",
            ])
            .arg(Path::new("schemas").join(schema))
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(
            out.status.success(),
            *valid,
            "case {i} against {schema}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The README's config example (section "Config files") is a working config.
#[test]
fn the_readmes_config_example_loads_and_captures() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme.split("## Config files").nth(1).expect("the section");
    let yaml = section
        .split("```yaml\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("a yaml block");
    let dir = tempdir();
    let d = dir.path();
    std::fs::write(d.join("console2svg.config.yaml"), yaml).unwrap();
    let out = console2svg()
        .current_dir(d)
        .env("HOME", d.join("no-home"))
        .args(["--json", "-o", "r.svg", "--", "sh", "-c"])
        .arg("for i in 1 2 3 4; do echo line $i; sleep 0.05; done; echo hunter2")
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["screen"]["width"], 100, "terminal.width");
    let svg = std::fs::read_to_string(d.join("r.svg")).unwrap();
    assert!(svg.contains("#ff5f57"), "window: macos");
    assert!(svg.contains("JetBrains Mono"), "font.family");
    assert!(!svg.contains("hunter2"), "render.masking.strings");
}

/// An empty config, or one with only `$schema`/`$version`, is no settings (YAML and JSON).
#[test]
fn an_empty_config_is_no_settings() {
    let dir = tempdir();
    let d = dir.path();
    for (name, text) in [
        ("empty.yaml", ""),
        (
            "schema.yaml",
            "$schema: ./schemas/console2svg.config.schema.json\n",
        ),
        ("version.yml", "$version: 1\n"),
        ("empty.json", ""),
        ("object.json", "{}"),
        ("both.json", r#"{"$schema": "x.json", "$version": 1}"#),
    ] {
        std::fs::write(d.join(name), text).unwrap();
        let out = console2svg()
            .current_dir(d)
            .env("HOME", d.join("no-home"))
            .args(["-C", name, "--json", "-o", "e.svg", "--", "echo", "hi"])
            .assert()
            .success();
        let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(v["screen"]["width"], 100, "{name}: the default width");
    }
}
