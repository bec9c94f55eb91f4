//! Recordings and animation (issue "Recordings and animation"), through the real binary:
//! `--save-cast` and `cast`/`--in` (asciicast v2 out, v2 and v3 in, checked against the real
//! asciinema client), animated SVG (its static state in resvg, its animation in headless
//! Chromium as an `<img>`), GIF and MP4/WebM, stills of one moment, and bad input.
//!
//! External programs: `asciinema` (PyPI; `.ci/run` installs it into a venv under `target/`,
//! found through `$ASCIINEMA`, that venv, or `PATH`), `ffmpeg`/`ffprobe` and `chromium`
//! (Debian packages). A missing one fails the test under `CI=true`, and is reported as
//! skipped elsewhere.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use common::*;

/// The Done-when command of the issue.
const STEPS: &str = "for i in 1 2 3; do echo step $i; sleep 0.3; done";

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `program` found, or `None` with a note (a failure under CI).
fn tool(candidates: Vec<PathBuf>, program: &str, install: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    });
    let found = candidates.into_iter().find(|p| p.is_file()).or(on_path);
    if found.is_none() {
        assert!(
            !in_ci(),
            "`{program}` not found: {install} (.ci/run installs it)"
        );
        eprintln!("SKIPPED: `{program}` not found ({install})");
    }
    found
}

fn asciinema() -> Option<PathBuf> {
    let mut c: Vec<PathBuf> = std::env::var_os("ASCIINEMA")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        c.push(PathBuf::from(t).join("asciinema-venv/bin/asciinema"));
    }
    c.push(repo().join("target/asciinema-venv/bin/asciinema"));
    tool(
        c,
        "asciinema",
        "pip install asciinema into target/asciinema-venv",
    )
}

fn ffprobe() -> Option<PathBuf> {
    tool(Vec::new(), "ffprobe", "apt-get install ffmpeg")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A v2 cast: 20×3, "one" at 0, "two" at 1 s, "three" at 2 s.
const CAST: &str = "{\"version\":2,\"width\":20,\"height\":3}\n[0.0,\"o\",\"one\\r\\n\"]\n[1.0,\"o\",\"two\\r\\n\"]\n[2.0,\"o\",\"three\"]\n";

fn run_ok(dir: &Path, args: &[&str]) -> String {
    let out = console2svg().current_dir(dir).args(args).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn done_when_the_animation_shows_step_3_in_resvg() {
    let dir = tempdir();
    let d = dir.path();
    run_ok(
        d,
        &[
            "-v",
            "-o",
            "demo.svg",
            "--save-cast",
            "demo.cast",
            "--",
            "sh",
            "-c",
            STEPS,
        ],
    );
    let svg = read(d, "demo.svg");
    assert!(svg.contains("@keyframes film"), "animated");
    // The static state is the last frame: what a still of the end of the recording draws.
    run_ok(d, &["cast", "demo.cast", "-o", "end.svg"]);
    run_ok(d, &["cast", "demo.cast", "--frame", "0", "-o", "first.svg"]);
    let animated = raster(&svg, 1.0);
    let end = raster(&read(d, "end.svg"), 1.0);
    let first = raster(&read(d, "first.svg"), 1.0);
    assert_eq!(
        raster_diff(&animated, &end, 8).0,
        0,
        "static state = step 3"
    );
    assert!(
        raster_diff(&animated, &first, 8).0 > 0,
        "not the first frame"
    );
    let end_svg = read(d, "end.svg");
    assert!(
        svg_text(&end_svg).contains("step") && svg_text(&end_svg).contains('3'),
        "{end_svg}"
    );
    // Same recording, same bytes.
    run_ok(d, &["cast", "demo.cast", "-v", "-o", "a.svg"]);
    run_ok(d, &["cast", "demo.cast", "-v", "-o", "b.svg"]);
    assert_eq!(read(d, "a.svg"), read(d, "b.svg"));
}

/// A Chromium headless screenshot of `url` after `ms` of virtual time.
fn chromium_shot(url: &str, ms: u32, out: &Path, reduced_motion: bool) -> Vec<u8> {
    let profile = tempdir();
    let mut cmd = StdCommand::new("chromium");
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--no-first-run",
        "--window-size=900,200",
    ])
    .arg(format!("--virtual-time-budget={ms}"))
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .arg(format!("--screenshot={}", out.display()));
    if reduced_motion {
        cmd.arg("--force-prefers-reduced-motion");
    }
    let status = cmd
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("chromium runs");
    assert!(status.success(), "chromium failed on {url}");
    std::fs::read(out).unwrap()
}

#[test]
fn done_when_the_animation_plays_in_chromium_as_an_img() {
    if tool(Vec::new(), "chromium", "apt-get install chromium").is_none() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    run_ok(d, &["-v", "-o", "demo.svg", "--", "sh", "-c", STEPS]);
    let page = write(
        d,
        "page.html",
        "<html><body style=\"margin:0;background:#fff\"><img src=\"demo.svg\"></body></html>",
    );
    let url = format!("file://{}", page.display());
    // Virtual time only roughly follows the budget: take several and ask for two that differ.
    let shots: Vec<Vec<u8>> = [50, 400, 800, 1200]
        .iter()
        .map(|&ms| chromium_shot(&url, ms, &d.join(format!("shot{ms}.png")), false))
        .collect();
    assert!(
        shots.iter().any(|s| s != &shots[0]),
        "screenshots at different times differ"
    );
    // Under reduced motion the static state (the last frame: three lines) shows from the start.
    // Compared by ink, not against the 50 ms shot: on a loaded machine the image may not have
    // been drawn yet that early (a blank page), in either shot.
    let first = shots
        .iter()
        .map(|s| ink(s))
        .filter(|&n| n > 0)
        .min()
        .expect("the image shows in some screenshot");
    let still = chromium_shot(&url, 400, &d.join("reduced.png"), true);
    assert!(
        ink(&still) > first,
        "reduced motion shows the last frame, not the first ({} vs {first} dark pixels)",
        ink(&still)
    );
    let later = chromium_shot(&url, 1200, &d.join("reduced2.png"), true);
    assert_eq!(still, later, "and does not move");
}

/// Pixels of a PNG screenshot that are neither the white page nor the terminal's background
/// (its most common other colour): the text's ink. 0 for a blank page.
fn ink(png_bytes: &[u8]) -> usize {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|px| &px[..3])
        .collect();
    let white: &[u8] = &[255, 255, 255];
    let mut counts = std::collections::HashMap::new();
    for px in pixels.iter().filter(|px| **px != white) {
        *counts.entry(*px).or_insert(0usize) += 1;
    }
    let Some((background, _)) = counts.iter().max_by_key(|(_, n)| **n) else {
        return 0;
    };
    pixels
        .iter()
        .filter(|px| **px != white && *px != background)
        .count()
}

/// A Firefox (ESR) headless screenshot of `url` once it has loaded; `reduced_motion` sets
/// the profile's `ui.prefersReducedMotion`.
fn firefox_shot(url: &str, out: &Path, reduced_motion: bool) -> Vec<u8> {
    let profile = tempdir();
    if reduced_motion {
        write(
            profile.path(),
            "user.js",
            "user_pref(\"ui.prefersReducedMotion\", 1);\n",
        );
    }
    let status = StdCommand::new("firefox-esr")
        .args(["--headless", "--no-remote", "--window-size=900,200"])
        .arg("--profile")
        .arg(profile.path())
        .arg("--screenshot")
        .arg(out)
        .arg(url)
        .env("HOME", profile.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("firefox runs");
    assert!(status.success(), "firefox failed on {url}");
    std::fs::read(out).unwrap()
}

/// The CSS keyframes animate in Firefox too: as an `<img>` the page loads on the first frame
/// (under reduced motion, on the last); inline, the animation seeked through the page's
/// script shows different frames at different times.
#[test]
fn done_when_the_animation_plays_in_firefox_as_an_img_and_inline() {
    if tool(Vec::new(), "firefox-esr", "apt-get install firefox-esr").is_none() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    run_ok(d, &["-v", "-o", "demo.svg", "--", "sh", "-c", STEPS]);
    let img = write(
        d,
        "img.html",
        "<html><body style=\"margin:0;background:#fff\"><img src=\"demo.svg\"></body></html>",
    );
    let url = format!("file://{}", img.display());
    let moving = firefox_shot(&url, &d.join("img.png"), false);
    let still = firefox_shot(&url, &d.join("img-reduced.png"), true);
    assert_ne!(
        moving, still,
        "as an <img> it starts on the first frame, not the static last one"
    );
    let svg = read(d, "demo.svg");
    let at = |ms: u32| {
        let page = write(
            d,
            &format!("inline{ms}.html"),
            &format!(
                "<html><body style=\"margin:0;background:#fff\">{svg}<script>document.getAnimations().forEach(a => {{ a.pause(); a.currentTime = {ms}; }});</script></body></html>"
            ),
        );
        firefox_shot(
            &format!("file://{}", page.display()),
            &d.join(format!("inline{ms}.png")),
            false,
        )
    };
    let (early, late) = (at(50), at(1500));
    assert_ne!(early, late, "frames at 50 ms and 1.5 s differ");
    assert_eq!(late, still, "the end of the animation is its static state");
}

#[test]
fn save_cast_plays_byte_for_byte_in_asciinema_and_round_trips() {
    let dir = tempdir();
    let d = dir.path();
    let script =
        "printf 'h\\303\\251llo\\n'; sleep 0.2; printf '\\033[31mred\\033[0m \\342\\234\\223\\n'";
    run_ok(
        d,
        &[
            "--save-cast",
            "x.cast",
            "-o",
            "direct.svg",
            "--",
            "sh",
            "-c",
            script,
        ],
    );
    let cast = read(d, "x.cast");
    let header: serde_json::Value = serde_json::from_str(cast.lines().next().unwrap()).unwrap();
    assert_eq!(header["version"], 2);
    assert_eq!(header["width"], 100);
    assert_eq!(header["height"], 24);
    assert!(header["timestamp"].as_u64().unwrap() > 1_600_000_000);
    for line in cast.lines().skip(1) {
        let ev: (f64, String, String) = serde_json::from_str(line).unwrap();
        assert_eq!(ev.1, "o");
    }
    // `cast` renders what the capture saw.
    run_ok(d, &["cast", "x.cast", "-o", "replay.svg"]);
    assert_eq!(read(d, "direct.svg"), read(d, "replay.svg"));
    run_ok(d, &["capture", "--in", "x.cast", "-o", "replay2.svg"]);
    assert_eq!(read(d, "direct.svg"), read(d, "replay2.svg"));
    let Some(asciinema) = asciinema() else { return };
    let out = StdCommand::new(asciinema)
        .arg("cat")
        .arg(d.join("x.cast"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        out.stdout,
        "héllo\r\n\x1b[31mred\x1b[0m ✓\r\n".as_bytes(),
        "asciinema cat gives the program's output byte for byte"
    );
}

#[test]
fn asciicast_v3_is_read() {
    let dir = tempdir();
    let d = dir.path();
    write(
        d,
        "v3.cast",
        "{\"version\":3,\"term\":{\"cols\":30,\"rows\":4,\"type\":\"xterm-256color\"}}\n# comment\n[0.1,\"o\",\"alpha\\r\\n\"]\n[0.5,\"r\",\"40x4\"]\n[0.5,\"o\",\"beta\"]\n[0.1,\"x\",\"0\"]\n",
    );
    run_ok(d, &["cast", "v3.cast", "-o", "v3.svg", "-h", "4"]);
    let svg = read(d, "v3.svg");
    assert!(svg_text(&svg).contains("alpha") && svg_text(&svg).contains("beta"));
    assert_eq!(row_glyphs(&svg, 1).len(), 4, "beta on the second row");
    // The resize made it 40 columns wide.
    let width: f32 = svg
        .split("width=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((width - (2.0 * PAD + 40.0 * CELL_W)).abs() < 0.5, "{width}");
}

#[test]
fn timing_options_shape_the_animation() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "c.cast", CAST);
    run_ok(d, &["cast", "c.cast", "-v", "-o", "a.svg"]);
    assert!(read(d, "a.svg").contains("animation:film 3000ms steps(1,end) infinite"));
    run_ok(
        d,
        &[
            "cast",
            "c.cast",
            "-v",
            "--no-loop",
            "--sleep",
            "0.5",
            "--speed",
            "2",
            "-o",
            "b.svg",
        ],
    );
    assert!(read(d, "b.svg").contains("animation:film 1500ms steps(1,end) 1 forwards"));
    run_ok(
        d,
        &[
            "cast",
            "c.cast",
            "-v",
            "--idle-time-limit",
            "0.25",
            "--sleep",
            "0",
            "-o",
            "c.svg",
        ],
    );
    assert!(read(d, "c.svg").contains("animation:film 500ms"));
    // --time START-END: the state before START is the first frame.
    run_ok(
        d,
        &[
            "cast", "c.cast", "-v", "--time", "1.5-2.5", "--sleep", "0", "-o", "t.svg",
        ],
    );
    let t = read(d, "t.svg");
    assert!(
        t.contains("animation:film 500ms"),
        "{}",
        &t[t.find("#film").unwrap()..]
    );
    assert!(!t.contains(">one<") || t.contains(">two<"));
    // Stills of one moment, and the saved frames agree with them.
    run_ok(
        d,
        &[
            "cast",
            "c.cast",
            "--frame",
            "1",
            "-o",
            "f1.svg",
            "--save-frames",
            "frames",
        ],
    );
    assert_eq!(read(d, "f1.svg"), read(d, "frames/frame-0001.svg"));
    assert!(d.join("frames/frame-0002.svg").is_file());
    assert!(!d.join("frames/frame-0003.svg").exists());
    run_ok(d, &["cast", "c.cast", "--time", "1.2", "-o", "t1.svg"]);
    let t1 = read(d, "t1.svg");
    let t1 = svg_text(&t1);
    assert!(t1.contains("two") && !t1.contains("three"));
}

#[test]
fn the_static_frame_is_not_a_blank_screen_after_the_alternate_screen() {
    let dir = tempdir();
    let d = dir.path();
    write(
        d,
        "alt.cast",
        "{\"version\":2,\"width\":20,\"height\":3}\n[0.5,\"o\",\"\\u001b[?1049h\\u001b[Hhello tui\"]\n[1.5,\"o\",\"\\u001b[?1049l\"]\n",
    );
    run_ok(d, &["cast", "alt.cast", "-v", "-h", "3", "-o", "a.svg"]);
    run_ok(
        d,
        &[
            "cast", "alt.cast", "--time", "1", "-h", "3", "-o", "tui.svg",
        ],
    );
    let animated = raster(&read(d, "a.svg"), 1.0);
    let tui = raster(&read(d, "tui.svg"), 1.0);
    assert_eq!(
        raster_diff(&animated, &tui, 8).0,
        0,
        "static state shows the TUI"
    );
}

#[test]
fn gif_frames_match_the_png_stills_exactly() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "c.cast", CAST);
    let json = run_ok(d, &["cast", "c.cast", "-o", "a.gif", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["artifact"]["format"], "gif");
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    assert_eq!(frames[1]["timeMs"], 1000);
    assert!(Path::new(frames[2]["path"].as_str().unwrap()).is_file());
    run_ok(d, &["cast", "c.cast", "--frame", "2", "-o", "last.png"]);
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts
        .read_info(std::fs::File::open(d.join("a.gif")).unwrap())
        .unwrap();
    let mut count = 0;
    let mut delays = Vec::new();
    // Later frames are the changed rectangle drawn over the picture so far (disposal keep),
    // its unchanged pixels transparent: compose them as a viewer does.
    let (w, h) = (dec.width() as usize, dec.height() as usize);
    let mut last = vec![0u8; w * h * 4];
    let mut sizes = Vec::new();
    while let Some(f) = dec.read_next_frame().unwrap() {
        count += 1;
        assert_eq!(f.dispose, gif::DisposalMethod::Keep);
        sizes.push((f.width as usize) * (f.height as usize));
        for (i, pix) in f.buffer.chunks_exact(4).enumerate() {
            let (x, y) = (
                f.left as usize + i % f.width as usize,
                f.top as usize + i / f.width as usize,
            );
            if count == 1 || pix[3] != 0 {
                last[(y * w + x) * 4..(y * w + x) * 4 + 4].copy_from_slice(pix);
            }
        }
        delays.push(f.delay);
    }
    assert!(
        sizes[1] < w * h && sizes[2] < w * h,
        "later frames hold what changed: {sizes:?} of {}",
        w * h
    );
    assert_eq!(count, 3);
    assert_eq!(
        delays,
        [100, 100, 100],
        "1 s each, the last held by --sleep"
    );
    let png = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(d.join("last.png")).unwrap(),
    ));
    let mut reader = png.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let rgba: Vec<u8> = match info.color_type {
        png::ColorType::Rgba => buf[..info.buffer_size()].to_vec(),
        png::ColorType::Rgb => buf[..info.buffer_size()]
            .chunks(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    assert_eq!(rgba, last, "exact palette: same pixels as the PNG");
    // Deterministic.
    run_ok(d, &["cast", "c.cast", "-o", "b.gif"]);
    assert_eq!(
        std::fs::read(d.join("a.gif")).unwrap(),
        std::fs::read(d.join("b.gif")).unwrap()
    );
}

#[test]
fn mp4_and_webm_open_in_ffprobe() {
    let Some(ffprobe) = ffprobe() else { return };
    let dir = tempdir();
    let d = dir.path();
    write(d, "c.cast", CAST);
    for (name, codec) in [("a.mp4", "h264"), ("a.webm", "vp9")] {
        run_ok(d, &["cast", "c.cast", "-o", name]);
        let out = StdCommand::new(&ffprobe)
            .args([
                "-v",
                "error",
                "-show_entries",
                "stream=codec_name,width,height",
                "-of",
                "csv=p=0",
            ])
            .arg(d.join(name))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with(codec), "{name}: {text}");
        let dims: Vec<u32> = text
            .trim()
            .split(',')
            .skip(1)
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(dims[0] % 2, 0, "even width for yuv420p");
        assert!(dims[1] > 0);
    }
}

#[test]
fn mp4_without_ffmpeg_names_the_package() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "c.cast", CAST);
    let out = console2svg()
        .current_dir(d)
        .env("PATH", "/nonexistent")
        .args(["cast", "c.cast", "-o", "a.mp4"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("apt-get install ffmpeg"), "{err}");
    assert!(!d.join("a.mp4").exists());
}

#[test]
fn status_reports_video_outputs() {
    let out = console2svg().args(["status", "--json"]).assert().success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["video"]["svg"], true);
    assert_eq!(v["video"]["gif"], true);
    assert_eq!(v["video"]["mp4"], v["video"]["ffmpeg"].is_string());
}

#[test]
fn bad_input_is_one_line_a_failure_and_writes_nothing() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "c.cast", CAST);
    write(
        d,
        "broken.cast",
        "{\"version\":2,\"width\":20,\"height\":3}\n[0.1,\"o\",\"a\"]\n[0.2,\"o\"\n",
    );
    write(
        d,
        "backwards.cast",
        "{\"version\":2,\"width\":20,\"height\":3}\n[0.5,\"o\",\"a\"]\n[0.2,\"o\",\"b\"]\n",
    );
    write(
        d,
        "negative.cast",
        "{\"version\":3,\"term\":{\"cols\":20,\"rows\":3}}\n[-0.5,\"o\",\"a\"]\n",
    );
    let cases: &[(&[&str], &str)] = &[
        (&["cast", "broken.cast", "-o", "out.svg"], "line 3"),
        (&["cast", "backwards.cast", "-o", "out.svg"], "line 3"),
        (&["cast", "negative.cast", "-o", "out.svg"], "line 2"),
        (
            &["cast", "c.cast", "-v", "--time", "5-6", "-o", "out.svg"],
            "--time",
        ),
        (
            &["cast", "c.cast", "--frame", "3", "-o", "out.svg"],
            "--frame 3",
        ),
        (
            &["cast", "c.cast", "-v", "--fps", "0", "-o", "out.svg"],
            "--fps",
        ),
        (&["cast", "c.cast", "-v", "-o", "out.bmp"], ".bmp"),
        (
            &["cast", "c.cast", "--time", "0-1", "-o", "out.svg"],
            "trims an animation",
        ),
        (&["cast", "missing.cast", "-o", "out.svg"], "missing.cast"),
    ];
    for (args, needle) in cases {
        let out = console2svg().current_dir(d).args(*args).assert().failure();
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: one line: {err}"
        );
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(
            !d.join("out.svg").exists() && !d.join("out.bmp").exists(),
            "{args:?}"
        );
    }
}

/// A scenario `record` block: typed characters, sleeps, and a hidden span.
const DEMO: &str = r#"$version: 1
options: {terminal: {width: 30, height: 4}}
scenario:
  launch: {executable: cat}
  execute:
    - type: record
      args: {output: demo.svg, sleep: 500ms}
      steps:
        - {type: type, text: "hi", delay: 100ms}
        - {type: sleep, duration: 200ms}
        - {type: hide}
        - {type: send, inputs: [{keys: Enter}]}
        - {type: wait, args: {regex: 'hi\nhi', timeout: 10s}}
        - {type: show}
        - {type: sleep, duration: 300ms}
    - {type: send, inputs: [{keys: Ctrl+D}]}
"#;

fn scenario_run(dir: &Path, extra: &[&str]) -> (serde_json::Value, bool) {
    let out = console2svg()
        .current_dir(dir)
        .args(["scenario", "run", "demo.yaml"])
        .args(extra)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (v, out.status.success())
}

#[test]
fn a_scenario_record_block_replays_to_identical_bytes_and_check_compares_it() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "demo.yaml", DEMO);
    let (v, ok) = scenario_run(d, &[]);
    assert!(ok, "{v}");
    let first = read(d, "demo.svg");
    // The document's clock: 0, "h" at 100 ms, "hi" at 200 ms, the hidden Enter's echo shown at
    // 400 ms, held 300 ms + 500 ms.
    assert!(
        first.contains("animation:film 1200ms"),
        "{}",
        &first[first.find("@keyframes").unwrap()..][..300]
    );
    assert!(first.contains("8.3333%") && first.contains("16.6667%") && first.contains("33.3333%"));
    let (v, ok) = scenario_run(d, &["--check"]);
    assert!(ok, "--check passes on a replay: {v}");
    assert_eq!(v["differences"], serde_json::json!([]), "{v}");
    // A second run writes the same bytes.
    std::fs::remove_file(d.join("demo.svg")).unwrap();
    let (v, ok) = scenario_run(d, &[]);
    assert!(ok, "{v}");
    assert_eq!(read(d, "demo.svg"), first, "replays are byte-identical");
    // --check notices a changed animation and writes nothing.
    std::fs::write(d.join("demo.svg"), first.replace("1200ms", "1300ms")).unwrap();
    let (v, ok) = scenario_run(d, &["--check"]);
    assert!(!ok, "{v}");
    assert!(v.to_string().contains("demo.svg"), "{v}");
    assert!(read(d, "demo.svg").contains("1300ms"));
}

#[test]
fn session_export_writes_the_sessions_cast() {
    let dir = tempdir();
    let d = dir.path();
    let rt = d.join("rt");
    let session = |args: &[&str]| -> serde_json::Value {
        let out = console2svg()
            .env("CONSOLE2SVG_RUNTIME_DIR", &rt)
            .env("CONSOLE2SVG_HOST_IDLE_SECS", "3")
            .current_dir(d)
            .arg("session")
            .args(args)
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
    };
    // Without --record a session keeps no recording: exporting a cast is refused.
    let plain = session(&["start", "--", "sh", "-c", "echo plain; sleep 30"]);
    let plain = plain["sessionId"].as_str().unwrap().to_string();
    let refused = session(&["export", &plain, "-o", "p.cast"]);
    assert_eq!(refused["error"]["code"], "invalid_request", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--record"),
        "{refused}"
    );
    assert!(!d.join("p.cast").exists());
    session(&["stop", &plain]);
    let started = session(&[
        "start",
        "--record",
        "--",
        "sh",
        "-c",
        "printf 'one\\n'; sleep 0.2; printf '\\033[32mtwo\\033[0m\\n'; echo token=ghp_Zq8pLm3Xv7Rt2Ws9Yk4Nb6Hc1Jd5Fg0Ae8Ux hunter2; sleep 30",
    ]);
    let id = started["sessionId"].as_str().unwrap().to_string();
    let waited = session(&["wait", &id, "--text", "hunter2", "--timeout", "10s"]);
    assert_eq!(waited["matched"], true, "{waited}");
    session(&["resize", &id, "--width", "40", "--height", "6"]);
    // Secrets are masked as in a capture: the auto rules, and --mask.
    let exported = session(&["export", &id, "-o", "s.cast", "--mask", "hunter2"]);
    let cast = read(d, "s.cast");
    assert!(
        !cast.contains("ghp_Zq8pLm3Xv7Rt2Ws9Yk4Nb6Hc1Jd5Fg0Ae8Ux") && !cast.contains("hunter2"),
        "{cast}"
    );
    let exported_plain = session(&["export", &id, "-o", "raw.cast", "--mask-auto", "false"]);
    assert_eq!(exported_plain["format"], "cast", "{exported_plain}");
    assert!(read(d, "raw.cast").contains("ghp_Zq8pLm3Xv7Rt2Ws9Yk4Nb6Hc1Jd5Fg0Ae8Ux"));
    session(&["stop", &id]);
    assert_eq!(exported["format"], "cast", "{exported}");
    let cast = read(d, "s.cast");
    let lines: Vec<&str> = cast.lines().collect();
    assert!(lines[0].starts_with("{\"version\":2,\"width\":100,\"height\":24,"));
    assert!(cast.contains("\"r\", \"40x6\""), "{cast}");
    // It renders like any cast: the final screen has both lines, 40 columns wide.
    run_ok(d, &["cast", "s.cast", "-o", "s.svg"]);
    let svg = read(d, "s.svg");
    assert!(
        svg_text(&svg).contains("one") && svg_text(&svg).contains("two"),
        "{svg}"
    );
    if let Some(asciinema) = asciinema() {
        let out = StdCommand::new(asciinema)
            .arg("cat")
            .arg(d.join("s.cast"))
            .output()
            .unwrap();
        let played = String::from_utf8_lossy(&out.stdout);
        assert!(
            played.starts_with("one\r\n\x1b[32mtwo\x1b[0m\r\ntoken=")
                && !played.contains("hunter2"),
            "{played:?}"
        );
    }
}

/// A `record` block writing `.cast`: its frames painted back as terminal output, on the
/// document's clock. It replays to identical bytes, plays in asciinema, and its last picture is
/// the block's last frame.
#[test]
fn a_scenario_record_block_writes_a_cast_of_its_frames() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "demo.yaml", DEMO);
    let (v, ok) = scenario_run(d, &[]);
    assert!(ok, "{v}");
    write(d, "demo.yaml", &DEMO.replace("demo.svg", "demo.cast"));
    let (v, ok) = scenario_run(d, &[]);
    assert!(ok, "{v}");
    let cast = read(d, "demo.cast");
    let header: serde_json::Value = serde_json::from_str(cast.lines().next().unwrap()).unwrap();
    assert_eq!(
        (header["width"].as_u64(), header["height"].as_u64()),
        (Some(30), Some(4))
    );
    assert!(header.get("timestamp").is_none(), "deterministic: {header}");
    let times: Vec<f64> = cast
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<(f64, String, String)>(l).unwrap().0)
        .collect();
    // Frames at 0, 100, 200 and 400 ms; the hold ends at 1.2 s.
    assert_eq!(times, [0.0, 0.1, 0.2, 0.4, 1.2], "{cast}");
    std::fs::remove_file(d.join("demo.cast")).unwrap();
    let (v, ok) = scenario_run(d, &[]);
    assert!(ok, "{v}");
    assert_eq!(read(d, "demo.cast"), cast, "replays are byte-identical");
    let (v, ok) = scenario_run(d, &["--check"]);
    assert!(ok && v["differences"] == serde_json::json!([]), "{v}");
    // The cast's last picture is the block's last frame.
    run_ok(d, &["cast", "demo.cast", "-o", "end.svg"]);
    let end = read(d, "end.svg");
    assert!(svg_text(&end).matches("hi").count() == 2, "{end}");
    if let Some(asciinema) = asciinema() {
        let out = StdCommand::new(asciinema)
            .arg("cat")
            .arg(d.join("demo.cast"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("hi"));
    }
}

/// A secret that a soft wrap splits over two rows is masked in every frame of an animation and
/// in a still of one moment, as it is in a still of the end (frames keep the wrap marks).
#[test]
fn a_wrapped_secret_is_masked_in_every_frame() {
    let dir = tempdir();
    let d = dir.path();
    let script = "printf 'password: hunter2supersecretvalue\\r\\n'; sleep 0.3; printf next";
    run_ok(
        d,
        &["-w", "20", "-v", "-o", "v.svg", "--", "sh", "-c", script],
    );
    let text = svg_text(&read(d, "v.svg"));
    assert!(
        !text.contains("hunter2") && !text.contains("secretvalue"),
        "{text}"
    );
    write(
        d,
        "w.cast",
        "{\"version\":2,\"width\":20,\"height\":4}\n[0.0,\"o\",\"password: hunter2supersecretvalue\\r\\n\"]\n[1.0,\"o\",\"next\"]\n",
    );
    run_ok(
        d,
        &[
            "cast",
            "w.cast",
            "--mask-auto",
            "false",
            "--time",
            "0.5",
            "-o",
            "raw.svg",
        ],
    );
    assert!(
        svg_text(&read(d, "raw.svg")).contains("secretvalue"),
        "the control shows it"
    );
    run_ok(d, &["cast", "w.cast", "--time", "0.5", "-o", "t.svg"]);
    let text = svg_text(&read(d, "t.svg"));
    assert!(
        !text.contains("hunter2") && !text.contains("secretvalue"),
        "{text}"
    );
}
