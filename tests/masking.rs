//! Secret masking end to end (issue 13, "Done when"): a real capture of secrets renders with
//! none of them anywhere in the SVG, PNG or `--json` bytes; `session capture`/`inspect` and
//! scenario captures mask too; `--mask`, `--mask-auto false`, `--mask-rules` and `mask test`.

mod common;

use common::session::Host;
use common::*;

const GHP: &str = "ghp_Zq8pLm3Xv7Rt2Ws9Yk4Nb6Hc1Jd5Fg0Ae8Ux";
const AWS: &str = "AKIAQ3EGRZ7XKPLM4T2B";
const PASSWORD: &str = "pw-Hunter42";
const USER: &str = "mallory";
const HOME_USER: &str = "alice";

/// The shell line that prints every secret: a token, an AWS key id, a `user:pw@` URL and a home
/// directory.
fn secrets_line() -> String {
    format!("echo \"token {GHP} key {AWS} url https://{USER}:{PASSWORD}@example.com/x dir /home/{HOME_USER}/src\"")
}

/// Every plaintext secret, and the parts of it that must not appear either.
fn secrets() -> Vec<&'static str> {
    vec![GHP, &GHP[4..], AWS, PASSWORD, USER, "/home/alice"]
}

fn assert_clean(what: &str, bytes: &[u8]) {
    for s in secrets() {
        assert!(
            !bytes.windows(s.len()).any(|w| w == s.as_bytes()),
            "{what} holds the secret {s:?}"
        );
    }
}

#[test]
fn capture_masks_secrets_in_svg_png_and_json() {
    let dir = tempdir();
    let line = secrets_line();
    for (out, args) in [
        ("a.svg", vec![]),
        ("b.svg", vec!["--text-mode", "outlines"]),
        ("c.png", vec![]),
    ] {
        let a = console2svg()
            .current_dir(dir.path())
            .args(["capture", "--json", "-w", "60", "-o", out])
            .args(&args)
            .args(["--", "sh", "-c", &line])
            .assert()
            .success();
        let stdout = a.get_output().stdout.clone();
        assert_clean(&format!("{out}'s --json reply"), &stdout);
        let bytes = std::fs::read(dir.path().join(out)).unwrap();
        assert_clean(out, &bytes);
        let json: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
        let text = json["screen"]["text"].as_str().unwrap();
        // Masked, not dropped: what is not secret stays, the cell count is kept.
        assert!(text.contains("token ****"), "{text}");
        assert!(
            text.contains("https://*******:***********@example.com"),
            "{text}"
        );
        assert!(text.contains("/home/*****/src"), "{text}");
        if out.ends_with(".svg") {
            let svg = String::from_utf8(bytes).unwrap();
            assert!(svg.contains("c2s-masked"), "the masked overlay is drawn");
        }
    }
    // The -c header shows the command line: masked too.
    let a = console2svg()
        .current_dir(dir.path())
        .args([
            "capture", "--stdout", "-c", "-w", "200", "--", "sh", "-c", &line,
        ])
        .assert()
        .success();
    assert_clean("the -c header", &a.get_output().stdout);
    let a = console2svg()
        .current_dir(dir.path())
        .args([
            "capture",
            "--stdout",
            "-c",
            "-w",
            "200",
            "--mask-auto",
            "false",
        ])
        .args(["--", "sh", "-c", &line])
        .assert()
        .success();
    let plain = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(
        svg_text(&plain).matches(GHP).count() >= 2,
        "header and screen hold it unmasked"
    );
    // --stdout too.
    let a = console2svg()
        .current_dir(dir.path())
        .args(["capture", "--stdout", "-w", "60", "--", "sh", "-c", &line])
        .assert()
        .success();
    assert_clean("--stdout", &a.get_output().stdout);
}

#[test]
fn a_token_split_by_wrapping_is_masked() {
    let dir = tempdir();
    // 30 columns: the token starts at column 20 and wraps.
    let a = console2svg()
        .current_dir(dir.path())
        .args(["capture", "--json", "-w", "30", "-o", "w.svg", "--"])
        .args(["printf", &format!("%20s{GHP}\\n"), ""])
        .assert()
        .success();
    assert_clean("--json", &a.get_output().stdout);
    let svg = std::fs::read_to_string(dir.path().join("w.svg")).unwrap();
    for part in [&GHP[..10], &GHP[10..]] {
        assert!(!svg_text(&svg).contains(part), "{part} left in the SVG");
    }
}

#[test]
fn links_and_titles_are_masked() {
    let dir = tempdir();
    let script = format!(
        "printf '\\033]2;/home/{HOME_USER}\\007\\033]8;;https://x.test/?k={GHP}\\033\\\\open\\033]8;;\\033\\\\\\n'"
    );
    console2svg()
        .current_dir(dir.path())
        .args(["capture", "-o", "l.svg", "--", "sh", "-c", &script])
        .assert()
        .success();
    let svg = std::fs::read_to_string(dir.path().join("l.svg")).unwrap();
    assert!(
        svg.contains("<a href=") || svg_text(&svg).contains("open"),
        "{svg}"
    );
    assert_clean("l.svg", svg.as_bytes());
}

#[test]
fn mask_options_and_rules_files() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("rules.toml"),
        "[[rules]]\nid = \"acme\"\nregex = '''acme_([0-9]{6})'''\nsecretGroup = 1\nkeywords = [\"acme_\"]\n",
    )
    .unwrap();
    let run = |args: &[&str]| -> String {
        let a = console2svg()
            .current_dir(dir.path())
            .args(["capture", "--json", "-o", "m.svg"])
            .args(args)
            .args(["--", "echo", "/home/alice user42 acme_123456"])
            .assert()
            .success();
        let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
        v["screen"]["text"].as_str().unwrap().to_string()
    };
    assert_eq!(run(&[]), "/home/***** user42 acme_123456");
    assert_eq!(
        run(&["--mask-auto", "false"]),
        "/home/alice user42 acme_123456"
    );
    assert_eq!(
        run(&["--mask-auto", "false", "--mask", "user[0-9]+"]),
        "/home/alice ****** acme_123456"
    );
    assert_eq!(
        run(&["--mask-rules", "rules.toml"]),
        "/home/***** user42 acme_******"
    );
    // A config file can turn auto masking off and add patterns.
    std::fs::write(
        dir.path().join("c.yaml"),
        "$version: 1\noptions:\n  render:\n    masking: {auto: false, strings: ['acme_[0-9]+']}\n",
    )
    .unwrap();
    assert_eq!(run(&["-C", "c.yaml"]), "/home/alice user42 ***********");
}

#[test]
fn bad_patterns_and_rules_are_clear_errors_and_write_nothing() {
    let dir = tempdir();
    console2svg()
        .current_dir(dir.path())
        .args([
            "capture", "-o", "x.svg", "--mask", "a(b", "--", "echo", "hi",
        ])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "mask rule 'mask:a(b': invalid regex 'a(b'",
        ));
    std::fs::write(
        dir.path().join("bad.toml"),
        "[[rules]]\nid = \"broken-rule\"\nregex = '''[a-'''\n",
    )
    .unwrap();
    console2svg()
        .current_dir(dir.path())
        .args([
            "capture",
            "-o",
            "x.svg",
            "--mask-rules",
            "bad.toml",
            "--",
            "echo",
            "hi",
        ])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "mask rule 'broken-rule': invalid regex '[a-'",
        ));
    console2svg()
        .current_dir(dir.path())
        .args([
            "capture",
            "-o",
            "x.svg",
            "--mask-auto",
            "maybe",
            "--",
            "echo",
            "hi",
        ])
        .assert()
        .failure();
    assert!(!dir.path().join("x.svg").exists());
}

#[test]
fn mask_test_names_the_rule() {
    let a = console2svg()
        .args(["mask", "test", "--json", &format!("x {AWS} /Users/bob")])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert_eq!(v["masked"], "x ******************** /Users/***");
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["aws-access-key-id", "home-directory"]);
    console2svg()
        .args(["mask", "test", "nothing to see"])
        .assert()
        .success()
        .stdout("nothing to see\nno rule fires\n");
}

#[test]
fn session_capture_and_inspect_mask() {
    let h = Host::new();
    let id = h.start(&[
        "--width",
        "140",
        "--height",
        "4",
        "--",
        "sh",
        "-c",
        &format!("{}; sleep 30", secrets_line()),
    ]);
    h.wait(&id, "example.com");
    let v = h.ok(&["capture", &id, "-o", "s.svg"]);
    let svg = std::fs::read(v["artifact"]["path"].as_str().unwrap()).unwrap();
    assert_clean("session capture", &svg);
    let v = h.ok(&["inspect", &id]);
    let svg = std::fs::read(v["path"].as_str().unwrap()).unwrap();
    assert_clean("session inspect", &svg);
    // Turned off, the plaintext is there (the screen itself is not changed by masking).
    let v = h.ok(&["capture", &id, "-o", "plain.svg", "--mask-auto", "false"]);
    let svg = std::fs::read_to_string(v["artifact"]["path"].as_str().unwrap()).unwrap();
    assert!(svg_text(&svg).contains(AWS));
    let v = h.fails(
        &["capture", &id, "-o", "bad.svg", "--mask", "("],
        "invalid_request",
    );
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("invalid regex"));
}

#[test]
fn scenario_captures_mask() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("doc.yaml"),
        format!(
            "$version: 1\noptions: {{terminal: {{width: 70, height: 4}}}}\nscenario:\n  launch: {{executable: sh, args: [-c, '{}; sleep 30']}}\n  execute:\n    - {{type: wait, args: {{text: example.com}}}}\n    - {{type: capture, args: {{output: out.svg}}}}\n",
            secrets_line().replace('\'', "''")
        ),
    )
    .unwrap();
    console2svg()
        .current_dir(dir.path())
        .env("CONSOLE2SVG_RUNTIME_DIR", dir.path().join("rt"))
        .args(["scenario", "run", "doc.yaml"])
        .assert()
        .success();
    let svg = std::fs::read(dir.path().join("out.svg")).unwrap();
    assert_clean("scenario capture", &svg);
}

/// Animations, GIFs and saved casts are masked too (issue 13: "animations and `--save-cast`
/// output"), and one crop window holds for every frame.
#[test]
fn animations_gifs_and_casts_mask_and_crop() {
    let dir = tempdir();
    let line = format!(
        "echo first; sleep 0.3; {}; sleep 0.3; echo last",
        secrets_line()
    );
    console2svg()
        .current_dir(dir.path())
        .args([
            "capture",
            "-v",
            "-w",
            "60",
            "-o",
            "a.svg",
            "--save-cast",
            "a.cast",
        ])
        .args(["--crop-top", "first", "--", "sh", "-c", &line])
        .assert()
        .success();
    for f in ["a.svg", "a.cast"] {
        assert_clean(f, &std::fs::read(dir.path().join(f)).unwrap());
    }
    let cast = std::fs::read_to_string(dir.path().join("a.cast")).unwrap();
    assert!(
        cast.contains("token ****") && cast.contains("last"),
        "{cast}"
    );
    // The saved cast renders again, still masked; a GIF of the same run is masked as well.
    console2svg()
        .current_dir(dir.path())
        .args(["cast", "a.cast", "-o", "b.gif"])
        .assert()
        .success();
    assert_clean("b.gif", &std::fs::read(dir.path().join("b.gif")).unwrap());
    // A crop pattern no frame shows is an error, and nothing is written.
    console2svg()
        .current_dir(dir.path())
        .args([
            "capture",
            "-v",
            "-o",
            "c.svg",
            "--crop-top",
            "never-printed",
        ])
        .args(["--", "sh", "-c", "echo hi"])
        .assert()
        .failure();
    assert!(!dir.path().join("c.svg").exists());
}
