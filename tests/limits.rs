//! Issue 19 item 1: no size, input or resize crashes or hangs the host. The reproducers of the
//! issue as regression tests (a double-width character in a 1-column terminal, in pipe mode,
//! in a session, and by a resize), and the isolation of one session's emulator failure (by the
//! host's test hooks, now that no known input makes the emulator fail).

mod common;

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

/// A private host for one test (its own runtime directory); stops every session on drop.
struct Host {
    dir: tempfile::TempDir,
    env: Vec<(&'static str, &'static str)>,
}

impl Host {
    fn new(env: &[(&'static str, &'static str)]) -> Host {
        Host {
            dir: common::tempdir(),
            env: env.to_vec(),
        }
    }

    fn cmd(&self) -> assert_cmd::Command {
        let mut c = common::console2svg();
        c.env("CONSOLE2SVG_RUNTIME_DIR", self.dir.path().join("rt"))
            .env("CONSOLE2SVG_HOST_IDLE_SECS", "3")
            .current_dir(self.dir.path());
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    /// Runs `session <args>`; returns the JSON document and the exit code.
    fn run(&self, args: &[&str]) -> (Value, i32) {
        let out = self.cmd().arg("session").args(args).output().unwrap();
        let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "JSON from session {args:?}: {e}: {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        (v, out.status.code().unwrap())
    }

    fn ok(&self, args: &[&str]) -> Value {
        let (v, code) = self.run(args);
        assert_eq!(code, 0, "session {args:?} failed: {v}");
        v
    }

    /// Runs and requires the error envelope with `code`; returns its message.
    fn err(&self, args: &[&str], code: &str) -> String {
        let (v, exit) = self.run(args);
        assert_eq!(exit, 1, "session {args:?} should fail: {v}");
        assert_eq!(v["error"]["code"], code, "session {args:?}: {v}");
        v["error"]["message"].as_str().unwrap().to_string()
    }

    fn start(&self, args: &[&str]) -> String {
        let mut a = vec!["start"];
        a.extend_from_slice(args);
        self.ok(&a)["sessionId"].as_str().unwrap().to_string()
    }

    fn wait(&self, id: &str, text: &str) -> Value {
        self.ok(&["wait", id, "--text", text, "--timeout", "10s"])
    }

    /// The session's entry in `list --all`.
    fn entry(&self, id: &str) -> Value {
        self.ok(&["list", "--all"])["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["sessionId"] == id)
            .cloned()
            .unwrap_or(Value::Null)
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self
            .cmd()
            .args(["session", "stop", "--all", "--yes"])
            .output();
    }
}

/// Pipe mode with `-w 1`: the capture of the reproducer.
fn pipe_capture(input: &str, args: &[&str]) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_console2svg"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn pipe_mode_at_width_one_renders_cjk_and_emoji() {
    for input in ["中\n", "😀x\n", "中文 👩\u{200d}💻 e\u{301}\n"] {
        let out = pipe_capture(input, &["-w", "1", "--stdout"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{input:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let svg = String::from_utf8(out.stdout).unwrap();
        assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{svg}");
        // A double-width character cannot fit one column: it is the replacement character.
        assert!(svg.contains('\u{fffd}'), "{input:?}: {svg}");
    }
    let out = pipe_capture("中文\n", &["-w", "1", "--json", "-o", "/dev/null"]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["screen"]["width"], 1, "{v}");
}

#[test]
fn capture_at_width_one_of_a_command_printing_wide_characters_ends() {
    let dir = common::tempdir();
    let out = common::console2svg()
        .current_dir(dir.path())
        .args(["capture", "-w", "1", "--json", "-o", "out.svg", "--"])
        .args(["printf", "中文😀ok"])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["screen"]["text"], "\u{fffd}\n\u{fffd}\n\u{fffd}\no\nk",
        "{v}"
    );
}

/// The reproducer: a session at width 1 printing CJK killed its pump and stayed
/// `running` for ever.
#[test]
fn a_session_at_width_one_with_cjk_stays_alive_and_readable() {
    let h = Host::new(&[]);
    let id = h.start(&[
        "--width",
        "1",
        "--height",
        "6",
        "--",
        "sh",
        "-c",
        "printf '中文'; echo; echo OK; sleep 600",
    ]);
    let v = h.wait(&id, "K");
    assert_eq!(v["state"], "running", "{v}");
    let read = h.ok(&["read", &id, "--structured"]);
    assert_eq!(read["screen"]["text"], "\u{fffd}\n\u{fffd}\nO\nK", "{read}");
    assert_eq!(read["state"], "running");
    h.ok(&["send", &id, "--text", "x"]);
    assert_eq!(h.entry(&id)["state"], "running");
}

/// The reproducer: `resize --width 1` with a wide character on screen sent the host
/// into an endless reflow, and every client got `host_unavailable`.
#[test]
fn resizing_to_width_one_with_wide_characters_answers_and_the_host_goes_on() {
    let h = Host::new(&[]);
    let other = h.start(&["--", "sh", "-c", "echo OTHER; sleep 600"]);
    let id = h.start(&[
        "--width",
        "20",
        "--height",
        "5",
        "--",
        "sh",
        "-c",
        "printf '中文字 emoji 😀'; sleep 600",
    ]);
    h.wait(&id, "中文字 emoji 😀");
    let started = Instant::now();
    let v = h.ok(&["resize", &id, "--width", "1", "--height", "5"]);
    assert_eq!(v["width"], 1, "{v}");
    let read = h.ok(&["read", &id]);
    assert_eq!(read["screen"]["width"], 1, "{read}");
    h.ok(&["resize", &id, "--width", "20", "--height", "5"]);
    h.ok(&["resize", &id, "--width", "1", "--height", "1"]);
    h.ok(&["resize", &id, "--width", "500", "--height", "500"]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the resizes took {:?}",
        started.elapsed()
    );
    assert_eq!(h.entry(&id)["state"], "running");
    assert_eq!(h.entry(&other)["state"], "running");
    h.wait(&other, "OTHER");
}

/// One session's emulator failing (here: the host's test hook, on output) ends that session
/// only: it becomes `unavailable`, its program ends, later requests on it get `session_error`
/// saying so, and the host and the other sessions go on.
#[test]
fn an_emulator_failure_on_output_ends_only_its_session() {
    let h = Host::new(&[("CONSOLE2SVG_TEST_PANIC_ON", "EMULATOR-FAULT-7f3a")]);
    let other = h.start(&["--", "sh", "-c", "while read l; do echo \"got $l\"; done"]);
    // The trigger appears only in the output (two pieces in the script), after a `send`.
    let victim = h.start(&[
        "--",
        "sh",
        "-c",
        "echo READY; read x; printf '%s%s\\n' EMULATOR-FAULT- 7f3a; sleep 600",
    ]);
    h.wait(&victim, "READY");
    let pid = h.entry(&victim)["processId"].as_u64().unwrap();
    h.ok(&["send", &victim, "--text", "go", "--keys", "Enter"]);
    assert_isolated(&h, &victim, pid, &other);
}

/// The same for a failure inside a resize (the host's test hook, on resize): the request gets
/// `session_error`, and the host's worker is not held.
#[test]
fn an_emulator_failure_in_a_resize_ends_only_its_session() {
    let h = Host::new(&[("CONSOLE2SVG_TEST_PANIC_ON_RESIZE", "RESIZE-FAULT")]);
    let other = h.start(&["--", "sh", "-c", "while read l; do echo \"got $l\"; done"]);
    let victim = h.start(&["--", "sh", "-c", "echo RESIZE-FAULT; sleep 600"]);
    h.wait(&victim, "RESIZE-FAULT");
    let pid = h.entry(&victim)["processId"].as_u64().unwrap();
    let message = h.err(
        &["resize", &victim, "--width", "40", "--height", "10"],
        "session_error",
    );
    assert!(message.contains("terminal emulator"), "{message}");
    assert_isolated(&h, &victim, pid, &other);
}

fn assert_isolated(h: &Host, victim: &str, pid: u64, other: &str) {
    let end = Instant::now() + Duration::from_secs(10);
    while h.entry(victim)["state"] != "unavailable" {
        assert!(Instant::now() < end, "not unavailable: {}", h.entry(victim));
        std::thread::sleep(Duration::from_millis(50));
    }
    for args in [
        vec!["read", victim],
        vec!["send", victim, "--text", "x"],
        vec!["resize", victim, "--width", "10", "--height", "5"],
        vec!["wait", victim, "--text", "x", "--timeout", "1s"],
    ] {
        let message = h.err(&args, "session_error");
        assert!(
            message.contains("terminal emulator") && message.contains(victim),
            "{args:?}: {message}"
        );
    }
    // Its program is ended (its process group gets SIGTERM and SIGHUP, SIGKILL after 2 s).
    let end = Instant::now() + Duration::from_secs(10);
    while common::session::is_running(pid as u32) {
        assert!(
            Instant::now() < end,
            "the program of a failed session lives on"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The host and the other session go on.
    h.ok(&["send", other, "--text", "hello", "--keys", "Enter"]);
    h.wait(other, "got hello");
    let list = h.ok(&["list"]);
    assert!(
        list["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["sessionId"] == other && s["state"] == "running"),
        "{list}"
    );
    let fresh = h.start(&["--", "sh", "-c", "echo FRESH; sleep 600"]);
    h.wait(&fresh, "FRESH");
    // A failed session is still stopped (deleted) like any other.
    h.ok(&["stop", victim]);
    h.err(&["read", victim], "session_not_found");
}
