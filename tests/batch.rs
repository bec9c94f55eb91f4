//! `batch markdown` and `batch restore` on small docs trees in temporary directories (issue
//! 13): markers regenerate and re-link their pictures, a second run is a no-op (assets
//! byte-identical, Markdown mtimes untouched), failing markers name file:line while the others
//! run, scenario markers, dry runs, placeholders, manifests and restoring from them.

mod common;

use std::path::Path;
use std::time::SystemTime;

use common::*;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

/// Runs `batch <args>` in `root`; returns (exit code, stdout, stderr).
fn batch(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = console2svg()
        .current_dir(root)
        .arg("batch")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::symlink_metadata(p).unwrap().modified().unwrap()
}

/// Every file under `dir` with its bytes and mtime (links: their target).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p);
            } else {
                let bytes = if meta.file_type().is_symlink() {
                    std::fs::read_link(&p)
                        .unwrap()
                        .to_string_lossy()
                        .as_bytes()
                        .to_vec()
                } else {
                    std::fs::read(&p).unwrap()
                };
                out.push((p.display().to_string(), bytes, mtime(&p)));
            }
        }
    }
    out.sort();
    out
}

const INTRO: &str = "# Intro\n\n```bash\necho hello from the block\n```\n\n<!-- c2s:: -w 40 -->\n\nText.\n\n<!-- c2s:: -w 40 --crop-top 'two:1' -- printf 'one\\ntwo\\nthree\\n' -->\n![old](nowhere.svg)\n\n```md\n<!-- c2s:: -- echo ignored -->\n```\n";

#[test]
fn markdown_regenerates_relinks_and_is_a_no_op_the_second_time() {
    let dir = tempdir();
    let root = dir.path();
    write(root, "docs/intro.md", INTRO);
    write(
        root,
        "docs/guide/use.mdx",
        "{/* c2s:: -w 30 -o guide/fixed.svg -- echo fixed */}\n\n<!-- c2s:: -w 30\nsetup: echo from-setup > s.txt\ncapture: cat s.txt\nteardown: rm s.txt\n-->\n",
    );
    let (code, stdout, stderr) = batch(root, &["markdown", "--manifest", "assets/manifest.json"]);
    assert_eq!(code, 0, "{stdout}{stderr}");

    let intro = read(root, "docs/intro.md");
    assert!(
        intro.contains(
            "<!-- c2s:: -w 40 -->\n![echo hello from the block](../assets/intro-1.svg)\n"
        ),
        "a link is inserted after a marker without one:\n{intro}"
    );
    assert!(
        intro.contains("![old](../assets/intro-2.svg)"),
        "the existing link is retargeted:\n{intro}"
    );
    assert!(!intro.contains("ignored]("), "fenced markers are ignored");
    let use_mdx = read(root, "docs/guide/use.mdx");
    assert!(
        use_mdx.contains("![echo fixed](../../assets/guide/fixed.svg)"),
        "{use_mdx}"
    );
    assert!(
        use_mdx.contains("![cat s.txt](../../assets/guide/use-2.svg)"),
        "{use_mdx}"
    );

    // The pictures: the block's command, the crop, -o as a plain file, setup/teardown.
    let svg1 = read(root, "assets/intro-1.svg");
    let text1 = svg_text(&svg1);
    assert!(text1.contains("hello") && text1.contains("block"));
    let svg2 = read(root, "assets/intro-2.svg");
    let text2 = svg_text(&svg2);
    assert!(text2.contains("three") && !text2.contains("one") && !text2.contains("two"));
    assert!(std::fs::symlink_metadata(root.join("assets/intro-1.svg"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(
        std::fs::symlink_metadata(root.join("assets/guide/fixed.svg"))
            .unwrap()
            .is_file()
    );
    assert!(svg_text(&read(root, "assets/guide/use-2.svg")).contains("from-setup"));
    assert!(!root.join("s.txt").exists(), "teardown ran");
    let manifest: serde_json::Value =
        serde_json::from_str(&read(root, "assets/manifest.json")).unwrap();
    let assets = manifest["assets"].as_array().unwrap();
    assert!(assets.iter().any(|a| a["path"] == "guide/fixed.svg"
        && a["sha256"].as_str().unwrap().len() == 64
        && a["size"].as_u64().unwrap() > 0));

    // Second run: nothing runs, nothing is written.
    let before = (snapshot(&root.join("docs")), snapshot(&root.join("assets")));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let (code, stdout, _) = batch(root, &["markdown", "--manifest", "assets/manifest.json"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("0 written, 4 up to date"), "{stdout}");
    let after = (snapshot(&root.join("docs")), snapshot(&root.join("assets")));
    assert_eq!(before, after, "a re-run rewrote something");

    // A changed marker regenerates only itself.
    std::fs::write(
        root.join("docs/intro.md"),
        read(root, "docs/intro.md").replace("-w 40 -->", "-w 50 -->"),
    )
    .unwrap();
    let (code, stdout, _) = batch(root, &["markdown"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("1 written, 3 up to date"), "{stdout}");

    // A config file shapes every picture: changing it regenerates them all.
    let plain = read(root, "assets/intro-2.svg");
    write(
        root,
        "console2svg.config.yaml",
        "$version: 1\noptions: {appearance: {theme: [nord]}}\n",
    );
    let (code, stdout, _) = batch(root, &["markdown"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("4 written, 0 up to date"), "{stdout}");
    assert_ne!(
        read(root, "assets/intro-2.svg"),
        plain,
        "the nord theme applies"
    );
}

#[test]
fn a_failing_marker_names_file_and_line_and_the_others_run() {
    let dir = tempdir();
    let root = dir.path();
    write(
        root,
        "docs/a.md",
        "<!-- c2s:: -o ../escape.svg -- echo a -->\n\n<!-- c2s:: -- echo good -->\n\n<!-- c2s:: --crop-top nowhere -- echo b -->\n\n<!-- c2s:: -w 20\nsetup: exit 3\ncapture: echo c\n-->\n\n<!-- c2s:: --stdout -- echo d -->\n\n<!-- c2s:: -w 20\nbogus: 1\n-->\n\n<!-- c2s:: -o same.svg -- echo e -->\n<!-- c2s:: -o same.svg -- echo f -->\n<!-- c2s:: -w 20\nsetup: 'true'\nsetup: 'false'\ncapture: echo g\n-->\n",
    );
    let (code, _, stderr) = batch(root, &["markdown"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("docs/a.md:1: -o ../escape.svg: must be relative"),
        "{stderr}"
    );
    assert!(
        stderr.contains("docs/a.md:5: capture failed: ") && stderr.contains("no row holds"),
        "{stderr}"
    );
    assert!(stderr.contains("docs/a.md:7: setup failed"), "{stderr}");
    assert!(
        stderr.contains("docs/a.md:12: --stdout is not allowed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("docs/a.md:14: marker body: unknown field `bogus`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("docs/a.md:19: ") && stderr.contains("is also the picture of docs/a.md:18"),
        "{stderr}"
    );
    assert!(
        stderr.contains("docs/a.md:20: marker body:"),
        "duplicate keys: {stderr}"
    );
    assert!(!root.join("escape.svg").exists());
    let a = read(root, "docs/a.md");
    assert!(
        a.contains("<!-- c2s:: -- echo good -->\n![echo good](../assets/a-2.svg)"),
        "{a}"
    );
    assert!(svg_text(&read(root, "assets/a-2.svg")).contains("good"));
    // Failing markers got no link (the good one and the first same.svg did).
    assert_eq!(a.matches("](").count(), 2, "{a}");
}

#[test]
fn bad_files_are_reported_and_left_alone() {
    let dir = tempdir();
    let root = dir.path();
    write(
        root,
        "docs/dup.md",
        "```sh c2s-id=x\nls\n```\n```sh c2s-id=x\npwd\n```\n<!-- c2s:: -- echo x -->\n",
    );
    std::fs::write(
        root.join("docs/latin1.md"),
        b"caf\xe9 <!-- c2s:: -- echo y -->\n",
    )
    .unwrap();
    write(root, "docs/ok.md", "<!-- c2s:: -- echo ok -->\n");
    let dup_before = read(root, "docs/dup.md");
    let (code, _, stderr) = batch(root, &["markdown"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("docs/dup.md:4: duplicate c2s-id 'x' (first on line 1)"),
        "{stderr}"
    );
    assert!(stderr.contains("docs/latin1.md: not UTF-8"), "{stderr}");
    assert_eq!(read(root, "docs/dup.md"), dup_before);
    assert_eq!(
        std::fs::read(root.join("docs/latin1.md")).unwrap(),
        b"caf\xe9 <!-- c2s:: -- echo y -->\n"
    );
    assert!(read(root, "docs/ok.md").contains("](../assets/ok-1.svg)"));
}

#[test]
fn dry_run_filter_format_placeholder_and_code_references() {
    let dir = tempdir();
    let root = dir.path();
    write(root, "docs/a.md", "<!-- c2s:: -- echo a -->\n");
    write(
        root,
        "docs/sub/b.md",
        "```bash c2s-id=greet\necho hi from code\n```\n\nprose\n\n<!-- c2s:: -w 30\ncapture: '{code:greet}'\n-->\n",
    );
    let (code, stdout, _) = batch(root, &["markdown", "--dry-run"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("would generate") && stdout.contains("would rewrite docs/a.md"),
        "{stdout}"
    );
    assert!(!root.join("assets").exists());
    assert_eq!(read(root, "docs/a.md"), "<!-- c2s:: -- echo a -->\n");

    let (code, stdout, _) = batch(root, &["markdown", "--filter", "sub/**", "--format", "png"]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        read(root, "docs/a.md"),
        "<!-- c2s:: -- echo a -->\n",
        "filtered out"
    );
    assert!(read(root, "docs/sub/b.md").contains("](../../assets/sub/b-1.png)"));
    assert!(std::fs::read(root.join("assets/sub/b-1.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));

    let (code, _, _) = batch(root, &["markdown", "--placeholder", "-o", "ph"]);
    assert_eq!(code, 0);
    let svg = read(root, "ph/a-1.svg");
    assert!(svg_text(&svg).contains("placeholder"), "{svg}");
}

#[test]
fn scenario_markers_regenerate_too() {
    let dir = tempdir();
    let root = dir.path();
    write(
        root,
        "docs/tui.yaml",
        "$version: 1\noptions: {terminal: {width: 30, height: 4}}\nscenario:\n  launch: {executable: sh, args: [-c, 'echo scenario-screen; sleep 30']}\n  execute:\n    - {type: wait, args: {text: scenario-screen}}\n    - {type: capture, args: {output: tui.svg}}\n",
    );
    write(
        root,
        "docs/walk.md",
        "<!-- c2s::\nscenario: tui.yaml\n-->\n",
    );
    let (code, stdout, stderr) = batch(root, &["markdown"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        read(root, "docs/walk.md").contains("](tui.svg)"),
        "{}",
        read(root, "docs/walk.md")
    );
    assert!(svg_text(&read(root, "docs/tui.svg")).contains("scenario-screen"));
    let (_, stdout, _) = batch(root, &["markdown"]);
    assert!(stdout.contains("0 written, 1 up to date"), "{stdout}");
}

#[test]
fn restore_verifies_and_copies_a_manifest() {
    let dir = tempdir();
    let root = dir.path();
    write(
        root,
        "docs/a.md",
        "<!-- c2s:: -- echo a -->\n<!-- c2s:: -o img/b.svg -- echo b -->\n",
    );
    let (code, _, _) = batch(root, &["markdown", "--manifest", "assets/manifest.json"]);
    assert_eq!(code, 0);

    // Restore into a fresh directory: files, links, then a no-op.
    let (code, stdout, stderr) = batch(root, &["restore", "assets/manifest.json", "-o", "out"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(read(root, "out/img/b.svg"), read(root, "assets/img/b.svg"));
    assert_eq!(read(root, "out/a-1.svg"), read(root, "assets/a-1.svg"));
    let (code, stdout, _) = batch(root, &["restore", "assets/manifest.json", "-o", "out"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("0 written"), "{stdout}");

    // A file that differs is kept unless --force; --prune removes what is not listed.
    std::fs::write(root.join("out/img/b.svg"), "changed").unwrap();
    std::fs::write(root.join("out/stale.svg"), "old").unwrap();
    let (code, _, stderr) = batch(root, &["restore", "assets/manifest.json", "-o", "out"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("use --force"), "{stderr}");
    let (code, _, _) = batch(
        root,
        &[
            "restore",
            "assets/manifest.json",
            "-o",
            "out",
            "--force",
            "--prune",
            "--dry-run",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(read(root, "out/img/b.svg"), "changed", "dry run");
    let (code, _, _) = batch(
        root,
        &[
            "restore",
            "assets/manifest.json",
            "-o",
            "out",
            "--force",
            "--prune",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(read(root, "out/img/b.svg"), read(root, "assets/img/b.svg"));
    assert!(!root.join("out/stale.svg").exists());

    // A corrupted source is refused.
    std::fs::write(root.join("assets/img/b.svg"), "tampered").unwrap();
    let (code, _, stderr) = batch(root, &["restore", "assets/manifest.json", "-o", "out2"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("does not match the manifest"), "{stderr}");
    assert!(!root.join("out2/img/b.svg").exists());

    // A manifest with a path climbing out is refused before anything is written.
    write(
        root,
        "evil/manifest.json",
        "{\"schemaVersion\":1,\"assets\":[{\"path\":\"../x.svg\",\"size\":1,\"sha256\":\"00\"}]}",
    );
    let (code, _, stderr) = batch(root, &["restore", "evil/manifest.json", "-o", "out3"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("not a relative path inside"), "{stderr}");
}

/// Markers may ask for animations (`-o x.gif`, `--format gif`, `-v`) like a capture; nothing
/// but the pictures is left in the output tree, and a failing capture's message carries one
/// prefix.
#[test]
fn animation_markers_and_clean_output() {
    let dir = tempdir();
    let root = dir.path();
    write(
        root,
        "docs/a.md",
        "# A\n\n<!-- c2s:: -o x.gif -- echo one -->\n\n<!-- c2s:: -v --format gif -- echo two -->\n\n<!-- c2s:: -o y.svg -v -- echo three -->\n\n<!-- c2s:: -o z.bmp -- echo no -->\n\n<!-- c2s:: -o w.svg --bogus-option -- echo no -->\n",
    );
    let (code, _, err) = batch(root, &["markdown"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("docs/a.md:9: unsupported format 'bmp'"),
        "{err}"
    );
    assert!(err.contains("docs/a.md:11:"), "{err}");
    assert!(
        !err.contains("error: console2svg: error:"),
        "one prefix: {err}"
    );
    for gif in ["assets/x.gif", "assets/a-2.gif"] {
        let bytes = std::fs::read(root.join(gif)).unwrap_or_else(|e| panic!("{gif}: {e}\n{err}"));
        assert!(bytes.starts_with(b"GIF89a"), "{gif}");
    }
    assert!(read(root, "assets/y.svg").contains("@keyframes"));
    let names: Vec<String> = snapshot(&root.join("assets"))
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert!(
        names.iter().all(|n| !n.contains(".frames")),
        "no sampled frames left behind: {names:?}"
    );
}

/// A marker's video is linked as a `<video>` (a Markdown image does not play one), its
/// recording (`-o x.cast`) is written and linked as a plain link; a second run keeps both
/// lines; an old image line before such a marker is replaced.
#[test]
fn video_and_recording_markers_get_the_right_links() {
    let has_ffmpeg = std::process::Command::new("sh")
        .args(["-c", "command -v ffmpeg"])
        .output()
        .unwrap()
        .status
        .success();
    let dir = tempdir();
    let root = dir.path();
    let mut doc = String::from("# Media\n\n<!-- c2s:: -o rec.cast -- echo recorded -->\n\n");
    doc.push_str("<!-- c2s:: -o old.cast -- echo again -->\n![stale](old.svg)\n\n");
    doc.push_str("<!-- c2s:: --format cast -- echo third -->\n\n");
    doc.push_str("<!-- c2s:: -o photo.jpg -- echo jpeg -->\n\n");
    if has_ffmpeg {
        doc.push_str("<!-- c2s:: -o clip.mp4 -- echo moving -->\n![stale](clip.svg)\n\n");
        doc.push_str("<!-- c2s:: -o clip2.webm -- echo webm -->\n\n");
    }
    write(root, "docs/m.md", &doc);
    let (code, out, err) = batch(root, &["markdown"]);
    assert_eq!(code, 0, "{out}{err}");
    let md = read(root, "docs/m.md");
    assert!(
        md.contains("[echo recorded (asciicast)](../assets/rec.cast)\n"),
        "{md}"
    );
    assert!(
        md.contains("[echo again (asciicast)](../assets/old.cast)\n"),
        "{md}"
    );
    assert!(
        !md.contains("old.svg"),
        "the stale image line is replaced: {md}"
    );
    assert!(
        md.contains("[echo third (asciicast)](../assets/m-3.cast)\n"),
        "{md}"
    );
    assert!(md.contains("![echo jpeg](../assets/photo.jpg)\n"), "{md}");
    let cast = read(root, "assets/rec.cast");
    let header: serde_json::Value = serde_json::from_str(cast.lines().next().unwrap()).unwrap();
    assert_eq!(header["version"], 2);
    assert!(cast.contains("recorded"), "{cast}");
    assert!(read(root, "assets/m-3.cast").contains("third"));
    let jpg = std::fs::read(root.join("assets/photo.jpg")).unwrap();
    assert!(jpg.starts_with(&[0xff, 0xd8]), "a JPEG");
    if has_ffmpeg {
        assert!(
            md.contains("<video src=\"../assets/clip.mp4\" title=\"echo moving\" controls muted loop playsinline></video>\n"),
            "{md}"
        );
        assert!(!md.contains("clip.svg"), "{md}");
        assert!(md.contains("<video src=\"../assets/clip2.webm\""), "{md}");
        assert!(!md.contains("![echo moving]"), "never an image: {md}");
    }
    // A second run changes nothing in the Markdown.
    let (code, out, err) = batch(root, &["markdown"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(read(root, "docs/m.md"), md);
}
