//! `console2svg tmux capture` against a real tmux server started by each test (a private
//! socket, `tmux -L <unique> -f /dev/null`, killed when the test ends, pass or fail): a vim
//! pane renders exactly as `session capture` of the same vim at the same size; history rows;
//! and every bad input is one line naming it, a non-zero exit, nothing written.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::session::Host;

/// A private tmux server, killed on drop; its socket lives in a private `TMUX_TMPDIR`.
struct Tmux {
    socket: String,
    tmpdir: tempfile::TempDir,
}

impl Tmux {
    /// Starts a server (status line off, so a pane is the whole window) with one session
    /// `t` of `cols` × `rows` running `command` (a shell command line) in `cwd`.
    fn start(cols: u16, rows: u16, cwd: &Path, command: &str) -> Tmux {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let socket = format!(
            "c2s-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let t = Tmux {
            socket,
            tmpdir: common::tempdir(),
        };
        let (c, r) = (cols.to_string(), rows.to_string());
        let cwd = cwd.to_str().unwrap();
        t.run(&[
            "start-server",
            ";",
            "set-option",
            "-g",
            "status",
            "off",
            ";",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &c,
            "-y",
            &r,
            "-c",
            cwd,
            command,
        ]);
        t
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .env("TMUX_TMPDIR", self.tmpdir.path())
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane's plain text.
    fn text(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// Waits (≤ 10 s) until the pane shows `needle` and then stays the same for 500 ms.
    fn wait_stable(&self, needle: &str) {
        let end = Instant::now() + Duration::from_secs(10);
        let mut last = String::new();
        let mut since = Instant::now();
        loop {
            let now =
                self.text() + &self.run(&["display", "-p", "-t", "t", "#{cursor_x},#{cursor_y}"]);
            if now != last {
                last = now;
                since = Instant::now();
            } else if last.contains(needle) && since.elapsed() >= Duration::from_millis(500) {
                return;
            }
            assert!(
                Instant::now() < end,
                "the pane never settled on {needle:?}: {last}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `console2svg tmux capture -L <socket> <args>`.
    fn capture(&self, dir: &Path, args: &[&str]) -> std::process::Output {
        common::console2svg()
            .env("TMUX_TMPDIR", self.tmpdir.path())
            .args(["tmux", "capture", "-L", &self.socket])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .env("TMUX_TMPDIR", self.tmpdir.path())
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

const SOURCE: &str =
    "fn main() {\n    // 世界 wide and 🚀\n    let x = \"str\";\n    println!(\"{}\", x);\n}\n";

/// vim with no user config, a dark background, syntax colours and line numbers (`-n`: no swap
/// file, so two vims can open the same file).
const VIM: &[&str] = &[
    "vim",
    "-n",
    "-u",
    "NONE",
    "-i",
    "NONE",
    "-N",
    "-c",
    "set bg=dark",
    "-c",
    "syntax on",
    "-c",
    "set number",
    "f.rs",
];

fn shell_line(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_vim_pane_renders_exactly_like_a_session_capture_of_the_same_vim() {
    let h = Host::new();
    let dir = h.dir.path();
    std::fs::write(dir.join("f.rs"), SOURCE).unwrap();

    let tmux = Tmux::start(60, 12, dir, &shell_line(VIM));
    tmux.wait_stable("~");
    // The cursor somewhere else than the top left: two rows down, one word on.
    tmux.run(&["send-keys", "-t", "t", "j", "j", "w"]);
    tmux.wait_stable("~");

    let mut start = vec!["--width", "60", "--height", "12", "--"];
    start.extend_from_slice(VIM);
    let id = h.start(&start);
    h.ok(&[
        "wait",
        &id,
        "--text",
        "~",
        "--stable-for",
        "500ms",
        "--timeout",
        "10s",
    ]);
    h.ok(&["send", &id, "--text", "jjw"]);
    h.ok(&[
        "wait",
        &id,
        "--text",
        "~",
        "--stable-for",
        "500ms",
        "--timeout",
        "10s",
    ]);
    let session = h.ok(&["read", &id]);
    h.ok(&[
        "capture",
        &id,
        "-o",
        "session.svg",
        "-d",
        "macos",
        "-t",
        "nord",
    ]);

    let out = tmux.capture(
        dir,
        &[
            "--target", "t", "-o", "tmux.svg", "-d", "macos", "-t", "nord", "--json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reply["status"], "completed");
    assert_eq!(reply["screen"]["width"], 60);
    assert_eq!(reply["screen"]["height"], 12);
    assert_eq!(
        reply["screen"]["text"], session["screen"]["text"],
        "the same text, row for row"
    );
    assert_eq!(session["screen"]["cursorRow"], 2);

    let ours = std::fs::read_to_string(dir.join("tmux.svg")).unwrap();
    let theirs = std::fs::read_to_string(dir.join("session.svg")).unwrap();
    let text = common::svg_text(&ours);
    assert!(text.contains("println!") && text.contains("世界"), "{text}");
    assert!(
        ours.contains("#ebcb8b"),
        "vim's yellow line numbers, in nord's palette"
    );
    // Same cells, colours, attributes, wide characters and cursor: the same bytes.
    assert!(
        ours == theirs,
        "tmux capture and session capture differ:\n{}",
        first_difference(&ours, &theirs)
    );

    // PNG too: the same pixels.
    let out = tmux.capture(dir, &["--target", "t", "-o", "tmux.png"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    h.ok(&["capture", &id, "-o", "session.png"]);
    assert!(
        std::fs::read(dir.join("tmux.png")).unwrap()
            == std::fs::read(dir.join("session.png")).unwrap(),
        "the PNGs differ"
    );
}

fn first_difference(a: &str, b: &str) -> String {
    let at = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(200);
    format!(
        "tmux:    …{}…\nsession: …{}…",
        &a[from..(at + 200).min(a.len())],
        &b[from..(at + 200).min(b.len())]
    )
}

#[test]
fn history_rows_come_above_the_screen() {
    let dir = common::tempdir();
    let tmux = Tmux::start(20, 10, dir.path(), "seq 1 40; exec sleep 60");
    tmux.wait_stable("40");

    let json = |args: &[&str]| -> serde_json::Value {
        let out = tmux.capture(dir.path(), args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let screen = json(&["--target", "t", "-o", "a.svg", "--json"]);
    assert_eq!(screen["screen"]["height"], 10);
    assert!(screen["screen"]["text"]
        .as_str()
        .unwrap()
        .starts_with("32\n33\n"));

    let some = json(&["--target", "t", "-o", "b.svg", "--json", "--history", "5"]);
    assert_eq!(some["screen"]["height"], 15);
    assert!(some["screen"]["text"]
        .as_str()
        .unwrap()
        .starts_with("27\n28\n"));

    let all = json(&["--target", "t", "-o", "c.svg", "--json", "--history"]);
    let text = all["screen"]["text"].as_str().unwrap();
    assert!(
        text.starts_with("1\n2\n3\n") && text.contains("\n40"),
        "{text}"
    );
    assert_eq!(
        common::svg_text(&std::fs::read_to_string(dir.path().join("c.svg")).unwrap())
            .lines()
            .next(),
        Some("1")
    );
}

/// One line on stderr naming `needle`, a non-zero exit, and no output file.
fn assert_refused(out: &std::process::Output, dir: &Path, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{needle:?} in {err}");
    assert!(!dir.join("x.svg").exists(), "nothing written");
}

#[test]
fn bad_input_is_one_line_naming_it_and_nothing_is_written() {
    let dir = common::tempdir();
    let d = dir.path();
    let tmux = Tmux::start(20, 5, d, "exec sleep 60");
    tmux.wait_stable("");

    let out = tmux.capture(d, &["--target", "nosuch", "-o", "x.svg"]);
    assert_refused(&out, d, "no tmux pane 'nosuch'");
    let out = tmux.capture(d, &["--target", "%99", "-o", "x.svg"]);
    assert_refused(&out, d, "'%99'");
    let out = tmux.capture(d, &["--target", "t:7", "-o", "x.svg"]);
    assert_refused(&out, d, "'t:7'");
    // No --target and no terminal to ask on (stdin is not a terminal here).
    let out = tmux.capture(d, &["-o", "x.svg"]);
    assert_refused(&out, d, "--target");
    for bad in ["0", "-3", "100001", "lots"] {
        let out = tmux.capture(d, &["--target", "t", "--history", bad, "-o", "x.svg"]);
        assert_refused(&out, d, "--history");
    }
    let out = tmux.capture(d, &["--target", "", "-o", "x.svg"]);
    assert_refused(&out, d, "--target");
    let out = tmux.capture(d, &["--target", "t", "--scale", "20", "-o", "x.svg"]);
    assert_refused(&out, d, "--scale");
    let out = tmux.capture(d, &["--target", "t", "--line-height", "3", "-o", "x.svg"]);
    assert_refused(&out, d, "--line-height");
    let out = tmux.capture(d, &["--target", "t", "-o", "x.mp4"]);
    assert_refused(&out, d, "mp4");
    assert!(!d.join("x.mp4").exists());

    // A server that is not running.
    let out = common::console2svg()
        .env("TMUX_TMPDIR", tmux.tmpdir.path())
        .args([
            "tmux",
            "capture",
            "-L",
            "c2s-test-no-such-server",
            "--target",
            "t",
            "-o",
            "x.svg",
        ])
        .current_dir(d)
        .output()
        .unwrap();
    assert_refused(&out, d, "no tmux server");
}
