//! `console2svg capture` driving real programs in real PTYs: ls, vim, a program that needs its
//! terminal queries answered, the environment policy, pipe mode, the legacy root form, and
//! every error path with its exit code.

mod common;

use std::time::{Duration, Instant};

use common::*;
use predicates::str::contains;

/// Runs `capture --json -o <tmp>/out.svg <args>` and returns (reply, svg).
fn run(dir: &std::path::Path, args: &[&str]) -> (serde_json::Value, String) {
    let out = dir.join("out.svg");
    let assert = console2svg()
        .current_dir(dir)
        .arg("capture")
        .arg("--json")
        .arg("-o")
        .arg(&out)
        .args(args)
        .assert()
        .success();
    let json = serde_json::from_slice(&assert.get_output().stdout).expect("JSON reply");
    (json, std::fs::read_to_string(out).unwrap())
}

fn text(json: &serde_json::Value) -> String {
    json["screen"]["text"].as_str().unwrap().to_string()
}

#[test]
fn json_reply_matches_the_contract() {
    let dir = tempdir();
    let (json, _) = run(dir.path(), &["--", "sh", "-c", "echo hi; exit 3"]);
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "schemaVersion",
            "status",
            "exitCode",
            "durationMs",
            "screen",
            "artifact",
            "frames"
        ]
    );
    assert_eq!(json["schemaVersion"], 1);
    assert_eq!(json["status"], "completed");
    assert_eq!(json["exitCode"], 3);
    assert_eq!(json["screen"]["width"], 100);
    assert_eq!(json["screen"]["text"], "hi");
    assert_eq!(json["screen"]["truncated"], false);
    assert_eq!(json["artifact"]["format"], "svg");
    let path = json["artifact"]["path"].as_str().unwrap();
    assert!(std::path::Path::new(path).is_absolute() && path.ends_with("out.svg"));
    assert_eq!(json["frames"], serde_json::json!([]));
}

#[test]
fn ls_colours_come_through() {
    let dir = tempdir();
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    std::fs::write(dir.path().join("plain.txt"), "x").unwrap();
    let out = dir.path().join("ls.svg");
    console2svg()
        .current_dir(dir.path())
        .env_remove("LS_COLORS")
        .args(["-o", "ls.svg", "--", "ls", "--color=always"])
        .assert()
        .success();
    let svg = std::fs::read_to_string(out).unwrap();
    let row: Vec<PlacedGlyph> = row_glyphs(&svg, 0);
    let a = row.iter().find(|g| g.text == "a").unwrap();
    assert_eq!(
        a.fill.as_deref(),
        Some("#2472c8"),
        "directory in palette blue"
    );
    assert!(a.bold, "directory in bold");
    let p = row.iter().find(|g| g.text == "p").unwrap();
    assert_eq!(p.fill, None, "plain file in the default colour");
}

#[test]
fn vim_on_the_alternate_screen_with_timeout() {
    let dir = tempdir();
    std::fs::write(dir.path().join("demo.txt"), "hello from vim\n").unwrap();
    let start = Instant::now();
    let (json, svg) = run(
        dir.path(),
        &[
            "--timeout",
            "2",
            "-w",
            "60",
            "-h",
            "10",
            "--",
            "vim",
            "-u",
            "NONE",
            "-N",
            "demo.txt",
        ],
    );
    assert!(start.elapsed() < Duration::from_secs(6), "timeout honoured");
    assert_eq!(json["status"], "partial");
    assert_eq!(json["exitCode"], serde_json::Value::Null);
    let t = text(&json);
    assert!(t.starts_with("hello from vim\n~"), "{t}");
    assert!(t.contains("demo.txt"), "status line: {t}");
    assert_eq!(
        json["screen"]["height"], 10,
        "-h gives exactly that many rows"
    );
    assert!(
        svg.contains("viewBox=\"0 0 520 196\""),
        "60×10 cells plus padding"
    );
}

#[test]
fn terminal_queries_are_answered() {
    let dir = tempdir();
    // Echo off first: a reply that arrives before `read -s` runs would otherwise be echoed.
    let script = r#"stty -echo; printf '\033[6n'; IFS= read -rs -d R -t 5 pos
printf '\033[c'; IFS= read -rs -d c -t 5 da
printf '\033]11;?\007'; IFS= read -rs -d $'\a' -t 5 bg
printf '\033[18t'; IFS= read -rs -d t -t 5 size
echo "pos=${pos#*[} da=${da#*[} bg=${bg#*;} size=${size#*[}""#;
    std::fs::write(dir.path().join("q.sh"), script).unwrap();
    let start = Instant::now();
    let (json, _) = run(
        dir.path(),
        &["-w", "80", "-h", "5", "-t", "dracula", "--", "bash", "q.sh"],
    );
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "no query waited for its timeout"
    );
    assert_eq!(
        text(&json),
        "pos=1;1 da=?62;22 bg=rgb:2828/2a2a/3636 size=8;5;80"
    );
}

#[test]
fn environment_policy_and_cwd() {
    let dir = tempdir();
    let cmd = r#"echo "T=$TERM C=$COLORTERM F=$FORCE_COLOR CI=${CI-unset} TF=${TF_BUILD-unset} $COLUMNS/$LINES"; pwd"#;
    let out = dir.path().join("out.svg");
    let reply = |extra: &[&str]| {
        let a = console2svg()
            .current_dir(dir.path())
            .env("CI", "true")
            .env("TF_BUILD", "True")
            .env_remove("COLORTERM")
            .env_remove("FORCE_COLOR")
            .args(["--json", "-o"])
            .arg(&out)
            .args(["-w", "70"])
            .args(extra)
            .args(["--", "sh", "-c", cmd])
            .assert()
            .success();
        text(&serde_json::from_slice(&a.get_output().stdout).unwrap())
    };
    let cwd = dir.path().canonicalize().unwrap();
    assert_eq!(
        reply(&[]),
        format!(
            "T=xterm-256color C=truecolor F=3 CI=unset TF=unset 70/24\n{}",
            cwd.display()
        )
    );
    let kept = reply(&["--no-colorenv", "--no-delete-envs"]);
    assert!(
        kept.starts_with("T=") && kept.contains(" C= F= CI=true TF=True 70/24"),
        "{kept}"
    );
}

#[test]
fn process_group_is_gone_after_a_timeout() {
    let dir = tempdir();
    let (json, _) = run(
        dir.path(),
        &[
            "--timeout",
            "1",
            "--",
            "sh",
            "-c",
            "sleep 987654 & sleep 987655",
        ],
    );
    assert_eq!(json["status"], "partial");
    std::thread::sleep(Duration::from_millis(300));
    let left = std::process::Command::new("pgrep")
        .args(["-f", "sleep 98765[45]"])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "orphans left: {}",
        String::from_utf8_lossy(&left.stdout)
    );
}

#[test]
fn image_grows_to_the_content_with_scrollback() {
    let dir = tempdir();
    let (json, _) = run(dir.path(), &["--no-cursor", "--", "seq", "1", "30"]);
    assert_eq!(json["screen"]["height"], 30);
    assert!(text(&json).starts_with("1\n2\n3\n"), "scrollback kept");
    let (json, _) = run(dir.path(), &["--", "seq", "1", "30"]);
    assert_eq!(
        json["screen"]["height"], 31,
        "the cursor's row counts while the cursor shows"
    );
    let (json, _) = run(dir.path(), &["-h", "5", "--", "seq", "1", "30"]);
    assert_eq!(json["screen"]["height"], 5);
    assert_eq!(text(&json), "27\n28\n29\n30");
}

#[test]
fn pipe_mode_reads_terminal_output_from_stdin() {
    let dir = tempdir();
    let a = console2svg()
        .current_dir(dir.path())
        .args(["--stdout", "--no-cursor"])
        .write_stdin("\x1b[1;31mred\x1b[0m 中文 ┌─┐\nsecond\n")
        .assert()
        .success();
    let svg = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let r = row_glyphs(&svg, 0);
    assert_eq!(r[0].fill.as_deref(), Some("#cd3131"));
    assert!(r[0].bold);
    assert_col(&svg, 1, "s", 0);
    raster(&svg, 1.0);
}

#[test]
fn legacy_root_form_and_shell_command_line() {
    let dir = tempdir();
    let a = console2svg()
        .current_dir(dir.path())
        .args(["--json", "-w", "50", "-o", "x.svg", "echo hi | tr a-z A-Z"])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert_eq!(text(&json), "HI");
    assert_eq!(json["screen"]["width"], 50);
    console2svg()
        .current_dir(dir.path())
        .args(["-c", "-o", "y.svg", "--", "echo", "two words"])
        .assert()
        .success()
        .stdout(contains("wrote y.svg"));
    assert!(dir.path().join("y.svg").is_file());
}

#[test]
fn errors_are_one_line_with_a_nonzero_exit_and_leave_nothing_behind() {
    let dir = tempdir();
    let out = dir.path().join("keep.svg");
    std::fs::write(&out, "OLD").unwrap();
    let fail = |args: &[&str], code: i32, msg: &str| {
        let a = console2svg()
            .current_dir(dir.path())
            .args(args)
            .assert()
            .code(code)
            .stderr(contains(msg));
        let stderr = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        if code == 1 {
            assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
            assert!(stderr.starts_with("console2svg: error: "), "{stderr}");
        }
    };
    fail(
        &["-o", "keep.svg", "-t", "no-such-theme", "--", "true"],
        1,
        "unknown theme",
    );
    fail(
        &["-o", "keep.svg", "-d", "no-such-frame", "--", "true"],
        1,
        "no-such-frame",
    );
    fail(
        &["-o", "keep.svg", "--", "no-such-program-xyz", "arg"],
        1,
        "cannot start 'no-such-program-xyz'",
    );
    fail(
        &["-o", "keep.bmp", "--", "true"],
        1,
        "unsupported output format '.bmp'",
    );
    fail(
        &["-o", "no/such/dir/x.svg", "--", "true"],
        1,
        "cannot write no/such/dir/x.svg",
    );
    fail(
        &["--stdout", "--json", "--", "true"],
        2,
        "cannot be used with",
    );
    fail(
        &["--stdout", "-o", "keep.svg", "--", "true"],
        2,
        "cannot be used with",
    );
    fail(
        &["--timeout", "1e300", "--", "true"],
        2,
        "at most 10000000 seconds",
    );
    fail(
        &["-o", "keep.svg", "--", "no-such-program-xyz"],
        1,
        "cannot start 'no-such-program-xyz': command not found",
    );
    fail(
        &["-o", "keep.svg", "--", "/tmp"],
        1,
        "not an executable file",
    );
    fail(&["--forecolor", "reddish", "--", "true"], 2, "not a colour");
    fail(&["-w", "0", "--", "true"], 2, "0 is not in 1..=500");
    fail(&["-h", "501", "--", "true"], 2, "501 is not in 1..=500");
    fail(&["--timeout", "-1", "--", "true"], 2, "");
    fail(&["--size", "axb", "--", "true"], 2, "not a size");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "OLD",
        "a failed capture leaves the old file"
    );
    assert!(!dir.path().join("keep.bmp").exists());
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["keep.svg"], "no temporary files left");
}

#[test]
fn theme_list_in_three_formats() {
    let table = console2svg().args(["theme", "list"]).assert().success();
    let table = String::from_utf8_lossy(&table.get_output().stdout).to_string();
    let ids = [
        "dark",
        "light",
        "github-dark",
        "github-light",
        "dracula",
        "gruvbox-dark",
        "gruvbox-light",
        "one-light",
        "nord",
        "solarized-dark",
        "solarized-light",
        "tokyo-night",
        "matrix",
        "cyberpunk",
        "cyberpunk-pc",
    ];
    for id in ids {
        assert!(table.contains(id), "{id} listed");
    }
    let md = console2svg()
        .args(["theme", "list", "--format", "markdown"])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&md.get_output().stdout).starts_with('|'));
    let json = console2svg()
        .args(["theme", "list", "--format", "json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    let got: Vec<&str> = v["themes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, ids);
    assert_eq!(v["themes"][0]["background"], "#1e1e1e");
}

#[test]
fn completions_and_help() {
    console2svg()
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(contains("console2svg"));
    console2svg()
        .args(["completions", "zsh"])
        .assert()
        .success()
        .stdout(contains("#compdef console2svg"));
    // The original's spellings: `completions script|generate SHELL`, and pwsh for PowerShell.
    let bash = console2svg()
        .args(["completions", "bash"])
        .output()
        .unwrap()
        .stdout;
    for args in [
        ["completions", "script", "bash"],
        ["completions", "generate", "bash"],
    ] {
        let out = console2svg().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        assert_eq!(out.stdout, bash, "{args:?}");
    }
    // The host's own `__host` is no verb to offer, in any shell.
    for shell in ["bash", "zsh", "fish", "elvish", "pwsh"] {
        let out = console2svg().args(["completions", shell]).output().unwrap();
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains("live-server"), "{shell}");
        assert!(!script.contains("__host"), "{shell}");
    }
    let pwsh = console2svg()
        .args(["completions", "pwsh"])
        .output()
        .unwrap();
    assert!(pwsh.status.success());
    assert!(String::from_utf8_lossy(&pwsh.stdout).contains("Register-ArgumentCompleter"));
    assert_eq!(
        console2svg()
            .args(["completions", "script", "PowerShell"])
            .output()
            .unwrap()
            .stdout,
        pwsh.stdout
    );
    for (args, named) in [
        (vec!["completions", "tcsh"], "'tcsh' is not a shell"),
        (
            vec!["completions", "make", "bash"],
            "'make' is not script or generate",
        ),
    ] {
        let out = console2svg().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(named), "{err}");
        assert!(out.stdout.is_empty());
    }
    console2svg()
        .arg("--help")
        .assert()
        .success()
        .stdout(contains("capture"));
    console2svg()
        .args(["capture", "--help"])
        .assert()
        .success()
        .stdout(contains("--height"));
}

#[test]
fn same_input_gives_the_same_bytes() {
    let dir = tempdir();
    let (_, a) = run(
        dir.path(),
        &[
            "-d",
            "macos",
            "--",
            "printf",
            r"\033[1;35mstable\033[0m 中 ┼\n",
        ],
    );
    let (_, b) = run(
        dir.path(),
        &[
            "-d",
            "macos",
            "--",
            "printf",
            r"\033[1;35mstable\033[0m 中 ┼\n",
        ],
    );
    assert_eq!(a, b);
}

#[test]
fn config_files_stack_and_flags_win() {
    let dir = tempdir();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".config/console2svg")).unwrap();
    std::fs::write(
        home.join(".config/console2svg/config.yaml"),
        "$version: 1\noptions: {terminal: {width: 30}, appearance: {theme: [dracula], window: macos}}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("console2svg.config.yaml"),
        "$version: 1\noptions: {appearance: {theme: [nord]}}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("extra.yaml"),
        "$version: 1\noptions: {terminal: {width: 40}}\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        let a = console2svg()
            .current_dir(dir.path())
            .env("HOME", &home)
            .args(args)
            .args(["--json", "-o", "c.svg", "--", "echo", "hi"])
            .assert()
            .success();
        let json: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
        (
            json["screen"]["width"].as_u64().unwrap(),
            std::fs::read_to_string(dir.path().join("c.svg")).unwrap(),
        )
    };
    let (w, svg) = run(&[]);
    assert_eq!(w, 30, "home config width");
    assert!(
        svg.contains(".bg{fill:#101420}"),
        "./console2svg.config.yaml's theme replaces the home one"
    );
    assert!(svg.contains("#ff5f57"), "window from the home config");
    let (w, _) = run(&["-C", "extra.yaml"]);
    assert_eq!(w, 40, "-C over both");
    let (w, svg) = run(&["-C", "extra.yaml", "-w", "50", "-t", "light", "-d", "none"]);
    assert_eq!(w, 50, "flags over every file");
    assert!(svg.contains(".bg{fill:#ffffff}") && !svg.contains("#ff5f57"));
    std::fs::write(
        dir.path().join("bad.yaml"),
        "$version: 1\noptions: {appearance: {colour: red}}\n",
    )
    .unwrap();
    console2svg()
        .current_dir(dir.path())
        .env("HOME", &home)
        .args(["-C", "bad.yaml", "--", "true"])
        .assert()
        .code(1)
        .stderr(contains("invalid config bad.yaml"));
}

#[test]
fn png_output_in_process() {
    let dir = tempdir();
    let line = r"\033[41m    \033[0m hi";
    let png_at = |args: &[&str]| {
        console2svg()
            .current_dir(dir.path())
            .args(args)
            .args(["--no-cursor", "-w", "20", "--", "printf", line])
            .assert()
            .success();
    };
    png_at(&["-o", "a.png"]);
    png_at(&["-o", "b.png", "--scale", "2"]);
    png_at(&["-o", "c.svg"]);
    let svg = std::fs::read_to_string(dir.path().join("c.svg")).unwrap();
    let decode = |name: &str| {
        let bytes = std::fs::read(dir.path().join(name)).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{name} is a PNG");
        resvg::tiny_skia::Pixmap::decode_png(&bytes).unwrap()
    };
    let (a, b) = (decode("a.png"), decode("b.png"));
    // 20 columns × 8.4 px + 2 × 8 px padding, one row of 18 px + padding.
    assert_eq!((a.width(), a.height()), (184, 34));
    assert_eq!((b.width(), b.height()), (368, 68), "--scale 2");
    // The red cells are red, and the PNG agrees with resvg's rendering of the SVG.
    assert!(distance(pixel(&a, 12, 10), rgb("#cd3131")) <= 2);
    // PNG glyphs are drawn from their outlines (no text layout): within anti-aliasing
    // rounding of resvg's text, and the text does show.
    let reference = raster(&svg, 1.0);
    let (over, max) = raster_diff(&a, &reference, 64);
    assert_eq!(over, 0, "same picture (largest channel difference {max})");
    assert!(max <= 64);
    let (blank, _) = raster_diff(&reference, &raster_without_fonts(&svg, 1.0), 64);
    assert!(blank > 10, "the glyphs are in the comparison");
    let out = console2svg()
        .args([
            "--format", "png", "--stdout", "-w", "10", "--", "printf", "x",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stdout.starts_with(b"\x89PNG"),
        "--format png --stdout"
    );
    console2svg()
        .args(["-o", "x.png", "--scale", "20", "--", "true"])
        .current_dir(dir.path())
        .assert()
        .code(2)
        .stderr(contains("not a scale"));
}

#[test]
fn status_reports_fonts_renderers_and_environment() {
    let out = console2svg()
        .args(["status", "--json"])
        .env("FORCE_COLOR", "2")
        .env_remove("NO_COLOR")
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "schemaVersion",
            "version",
            "fonts",
            "renderers",
            "themes",
            "windows",
            "environment",
            "video",
            "terminal",
            "application",
            "platform",
            "rendererProbes",
            "tools",
            "formats"
        ]
    );
    assert_eq!(v["terminal"]["widthMode"], 2027);
    assert_eq!(v["terminal"]["graphemeClusters"], true);
    assert_eq!(v["terminal"]["syncTimeoutMs"], 1000);
    assert_eq!(v["fonts"]["bundled"], "JetBrains Mono");
    let family = |script: &str| {
        v["fonts"]["fallback"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["script"] == script)
            .unwrap()["family"]
            .clone()
    };
    assert_eq!(family("latin"), "JetBrains Mono");
    assert!(
        family("cjk").as_str().unwrap().starts_with("WenQuanYi"),
        "CJK from a system font"
    );
    assert_eq!(family("emoji"), "Noto Color Emoji");
    assert_eq!(
        v["renderers"],
        serde_json::json!(["svg", "png", "jpg", "webp"])
    );
    assert_eq!(v["themes"].as_array().unwrap().len(), 15);
    assert_eq!(v["environment"]["FORCE_COLOR"], "2");
    assert!(v["environment"].get("NO_COLOR").is_none());
    console2svg()
        .arg("status")
        .assert()
        .success()
        .stdout(contains("cjk      中  → WenQuanYi"));
}

/// `status --format table|markdown|json`: the original's sections (application, platform,
/// renderers actually probed, optional tools, output formats) in each.
#[test]
fn status_formats_have_the_original_sections() {
    let json = console2svg()
        .args(["status", "--format", "json"])
        .output()
        .unwrap();
    assert!(json.status.success());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["application"]["name"], "console2svg");
    assert_eq!(v["application"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["platform"]["os"], std::env::consts::OS);
    assert_eq!(v["platform"]["arch"], std::env::consts::ARCH);
    let names = |key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names("rendererProbes"), ["resvg", "rsvg-convert", "ffmpeg"]);
    assert_eq!(names("tools"), ["git", "tmux"]);
    let probe = |key: &str, name: &str| {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(probe("rendererProbes", "resvg")["available"], true);
    // Probed for real: available exactly when the program is installed here.
    let installed = |name: &str| {
        std::process::Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            .unwrap()
            .status
            .success()
    };
    for name in ["rsvg-convert", "ffmpeg"] {
        assert_eq!(
            probe("rendererProbes", name)["available"],
            installed(name),
            "{name}"
        );
    }
    for name in ["git", "tmux"] {
        let p = probe("tools", name);
        assert_eq!(p["available"], installed(name), "{name}");
        if installed(name) {
            assert!(p["version"].as_str().unwrap().contains(name), "{p}");
        }
    }
    let formats: Vec<&str> = v["formats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["format"].as_str().unwrap())
        .collect();
    assert_eq!(
        formats,
        ["svg", "png", "jpg", "webp", "gif", "mp4", "webm", "cast"]
    );
    // --json is --format json.
    let again: serde_json::Value = serde_json::from_slice(
        &console2svg()
            .args(["status", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(again["formats"], v["formats"]);

    let md = console2svg()
        .args(["status", "--format", "markdown"])
        .output()
        .unwrap();
    assert!(md.status.success());
    let md = String::from_utf8(md.stdout).unwrap();
    for section in [
        "## Application",
        "## Platform",
        "## Renderers",
        "## Optional tools",
        "## Output formats",
        "| resvg | yes | in-process |",
        "| jpg | yes | in-process | still |",
    ] {
        assert!(md.contains(section), "{section} in {md}");
    }
    let table = console2svg()
        .args(["status", "--format", "table"])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    for section in [
        "application",
        "platform",
        "renderers probed",
        "optional tools",
        "output formats",
        "cjk      中",
    ] {
        assert!(table.contains(section), "{section} in {table}");
    }
    let out = console2svg()
        .args(["status", "--format", "yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format"));
}

/// `capture -o` through a link planted in a sticky world-writable directory (or owned by
/// another user) fails with a clear message and exit 1, and the link's target is untouched
/// (issue: reliability, item 4).
#[test]
fn capture_never_writes_through_a_hostile_link() {
    use predicates::prelude::PredicateBooleanExt;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let link = shared.join("out.svg");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    console2svg()
        .args(["capture", "-o"])
        .arg(&link)
        .args(["--", "echo", "hi"])
        .assert()
        .code(1)
        .stderr(contains("refusing to follow the symbolic link").and(contains("sticky")));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");

    let is_root = rustix::process::geteuid().is_root();
    if is_root {
        let theirs = dir.path().join("theirs.svg");
        std::os::unix::fs::symlink(&victim, &theirs).unwrap();
        std::os::unix::fs::lchown(&theirs, Some(54321), Some(54321)).unwrap();
        console2svg()
            .args(["capture", "-o"])
            .arg(&theirs)
            .args(["--", "echo", "hi"])
            .assert()
            .code(1)
            .stderr(contains("owned by another user (uid 54321)"));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    } else {
        eprintln!("skipped the other-user link: lchown to another uid needs root");
    }

    // A device reached through system links is written to: `-o /dev/stdout` into a pipe.
    let out = console2svg()
        .args(["capture", "-o", "/dev/stdout", "--", "echo", "hi"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
}
