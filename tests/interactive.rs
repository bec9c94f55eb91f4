//! `capture --replay-save`, `replay` and `interactive`: our binary runs in a session's PTY
//! (a real terminal: raw mode, keys, output shown), and the test is the user typing into it
//! with `session send`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::session::Host;

const C2S: &str = env!("CARGO_BIN_EXE_console2svg");

/// Waits (≤ 15 s) until `f` holds.
fn until(what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(15);
    while !f() {
        assert!(Instant::now() < end, "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The text a written SVG draws, one string (glyph elements joined).
fn drawn(path: &Path) -> String {
    let svg = std::fs::read_to_string(path).unwrap();
    common::svg_text(&svg).split('\n').collect()
}

fn wait_text(h: &Host, id: &str, text: &str) {
    let v = h.ok(&["wait", id, "--text", text, "--timeout", "15s"]);
    assert_eq!(v["matched"], true, "{text:?} never showed: {v}");
}

fn wait_exit(h: &Host, id: &str) {
    until("the session's program exits", || {
        h.ok(&["list", "--all"])["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["sessionId"] == id && s["state"] != "running")
    });
}

/// A capture with `--replay-save`, typed by the test, then `replay` of the saved keys: the
/// same screen, keys and history recall (an arrow key) included.
#[test]
fn replay_reproduces_an_interactive_capture() {
    let h = Host::new();
    let dir = h.dir.path();
    let id = h.start(&[
        "--width",
        "100",
        "--height",
        "30",
        "--",
        C2S,
        "capture",
        "--replay-save",
        "keys.json",
        "-o",
        "typed.svg",
        "-w",
        "60",
        "-h",
        "10",
        "--",
        "bash",
        "--norc",
        "--noprofile",
    ]);
    wait_text(&h, &id, "bash-");
    // Keys replay at their times: leave bash a margin to start when replayed on a busy machine
    // (typed before its prompt, the kernel would echo them ahead of it).
    std::thread::sleep(Duration::from_secs(1));
    h.ok(&[
        "send",
        &id,
        "--text",
        "echo typed-$((6*7))",
        "--keys",
        "Enter",
    ]);
    wait_text(&h, &id, "typed-42");
    h.ok(&["send", &id, "--keys", "Up"]);
    until("the recalled line shows", || {
        h.text(&id).matches("echo typed-$((6*7))").count() == 2
    });
    h.ok(&["send", &id, "--keys", "Enter"]);
    until("the recalled line ran", || {
        h.text(&id).matches("typed-42").count() == 2
    });
    // Typed while bash still runs the command, `exit` would be echoed by the kernel ahead of
    // its output, in one run and not in the other: a margin, as for the start.
    std::thread::sleep(Duration::from_millis(500));
    h.ok(&["send", &id, "--text", "exit", "--keys", "Enter"]);
    wait_exit(&h, &id);

    let keys: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("keys.json")).unwrap()).unwrap();
    assert_eq!(keys["version"], "1");
    let replay = keys["replay"].as_array().unwrap();
    assert!(replay[0]["time"].as_f64().unwrap() > 0.0, "{keys}");
    let names: Vec<&str> = replay.iter().map(|e| e["key"].as_str().unwrap()).collect();
    assert!(names.contains(&"ArrowUp"), "{names:?}");
    assert_eq!(
        names.iter().filter(|n| **n == "Enter").count(),
        3,
        "{names:?}"
    );
    let typed = drawn(&dir.join("typed.svg"));
    assert_eq!(typed.matches("typed-42").count(), 2, "{typed}");

    let out = h
        .cmd()
        .args([
            "replay",
            "keys.json",
            "-o",
            "replayed.svg",
            "-w",
            "60",
            "-h",
            "10",
        ])
        .args(["--", "bash", "--norc", "--noprofile"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(drawn(&dir.join("replayed.svg")), typed);
}

/// `interactive`: F10 writes a still of the screen, F9 twice an animation of what happened in
/// between; neither key reaches the program; the terminal's mode is restored at the end.
#[test]
fn interactive_hotkeys_write_a_still_and_an_animation() {
    let h = Host::new();
    let dir = h.dir.path();
    let pics = dir.join("pics");
    std::fs::create_dir(&pics).unwrap();
    let id = h.start(&[
        "--width",
        "80",
        "--height",
        "20",
        "--",
        "bash",
        "--norc",
        "--noprofile",
        "-c",
        &format!("{C2S} interactive --out-dir pics -- bash --norc --noprofile; stty -a; sleep 30"),
    ]);
    wait_text(&h, &id, "bash-");
    h.ok(&[
        "send",
        &id,
        "--text",
        "echo still-$((1+1))",
        "--keys",
        "Enter",
    ]);
    wait_text(&h, &id, "still-2");
    h.ok(&["send", &id, "--keys", "F10"]);
    let still = pics.join("still-1.svg");
    until("still-1.svg is written", || still.exists());
    assert!(drawn(&still).contains("still-2"), "{}", drawn(&still));

    h.ok(&["send", &id, "--keys", "F9"]);
    h.ok(&[
        "send",
        &id,
        "--text",
        "echo anim-$((2+2))",
        "--keys",
        "Enter",
    ]);
    wait_text(&h, &id, "anim-4");
    h.ok(&["send", &id, "--keys", "F9"]);
    let animation = pics.join("animation-1.svg");
    until("animation-1.svg is written", || animation.exists());
    let svg = std::fs::read_to_string(&animation).unwrap();
    assert!(svg.contains("@keyframes film"), "an animated SVG");
    assert!(common::svg_text(&svg)
        .split('\n')
        .collect::<String>()
        .contains("anim-4"));

    h.ok(&["send", &id, "--text", "exit", "--keys", "Enter"]);
    wait_text(&h, &id, "icanon");
    let screen = h.text(&id);
    assert!(
        !screen.contains("-icanon") && !screen.contains("-echo "),
        "{screen}"
    );
    assert!(
        !screen.contains("21~") && !screen.contains("20~"),
        "{screen}"
    );
}

/// `--replay-save` needs a command to type into, and a terminal to type in.
#[test]
fn replay_save_needs_a_command_and_a_terminal() {
    let h = Host::new();
    for (args, says) in [
        (
            &["capture", "--replay-save", "k.json"][..],
            "--replay-save records the keys typed into a command",
        ),
        (
            &["capture", "--replay-save", "k.json", "--", "true"][..],
            "it needs a terminal on stdin",
        ),
    ] {
        let out = h.cmd().args(args).write_stdin("").output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!h.dir.path().join("k.json").exists());
        assert!(!h.dir.path().join("output.svg").exists());
    }
}

/// A bad replay file: one line naming it, exit 1, no picture.
#[test]
fn a_bad_replay_file_is_one_line_and_writes_nothing() {
    let h = Host::new();
    let dir = h.dir.path();
    std::fs::write(
        dir.join("bad.json"),
        r#"{"version":"1","replay":[{"time":0,"key":"Nope"}]}"#,
    )
    .unwrap();
    for (file, says) in [
        (
            "bad.json",
            "bad replay file bad.json: event 1: no key 'Nope'",
        ),
        ("missing.json", "cannot read the replay file missing.json"),
    ] {
        let out = h
            .cmd()
            .args(["replay", file, "-o", "out.svg", "--", "true"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!dir.join("out.svg").exists());
    }
}

/// SIGTERM to `interactive` ends the program it runs and restores the terminal's mode.
#[test]
fn a_signal_restores_the_terminal() {
    let h = Host::new();
    let marker = format!("pics-{}", std::process::id());
    std::fs::create_dir(h.dir.path().join(&marker)).unwrap();
    let id = h.start(&[
        "--width",
        "80",
        "--height",
        "20",
        "--",
        "bash",
        "--norc",
        "--noprofile",
        "-c",
        &format!(
            "{C2S} interactive --out-dir {marker} -- sleep 60; echo status=$?; stty -a; sleep 30"
        ),
    ]);
    let ours = |p: &u32| {
        std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.starts_with(C2S.as_bytes()))
    };
    let parent = |p: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let interactive = || -> Option<u32> {
        common::session::processes_with(&format!("interactive --out-dir {marker}"))
            .into_iter()
            .find(ours)
    };
    let program = |pid: u32| -> Option<u32> {
        common::session::processes_with("sleep 60")
            .into_iter()
            .find(|p| parent(*p) == Some(pid))
    };
    until("interactive runs its program", || {
        interactive().and_then(program).is_some()
    });
    let pid = interactive().unwrap();
    let child = program(pid).unwrap();
    // Its signal handlers are set up right after the program starts.
    std::thread::sleep(Duration::from_millis(300));
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    wait_text(&h, &id, "icanon");
    let screen = h.text(&id);
    assert!(screen.contains("status=0"), "ended cleanly: {screen}");
    assert!(
        !screen.contains("-icanon") && !screen.contains("-echo "),
        "{screen}"
    );
    until("its program has ended", || {
        !common::session::is_running(child)
    });
}
