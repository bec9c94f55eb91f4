//! The `session` suite against a real host (started on demand in a private runtime directory)
//! driving real programs: the cases SC-03…SC-12 and SC-15 of shared/cases/sessions.md, bash,
//! vim and less, and every error code this suite can produce.

mod common;

use std::time::{Duration, Instant};

use serde_json::Value;

use common::session::Host;

/// The key probe of the cases: prints every byte it receives as two hex digits on a line.
const PROBE: &str = "stty raw -echo opost; exec od -An -tx1 -w1 -v";

/// Starts vim without a vimrc on `notes.txt` in a `width`×`height` session; its id.
fn start_vim(h: &Host, width: &str, height: &str) -> String {
    h.start(&[
        "--width",
        width,
        "--height",
        height,
        "--",
        "vim",
        "-u",
        "NONE",
        "-N",
        "notes.txt",
    ])
}

/// The hex bytes the probe has shown, in order.
fn probe_bytes(h: &Host, id: &str) -> Vec<String> {
    h.text(id).split_whitespace().map(str::to_string).collect()
}

/// Waits until the probe has shown `n` bytes.
fn probe_wait(h: &Host, id: &str, n: usize) -> Vec<String> {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let b = probe_bytes(h, id);
        if b.len() >= n || Instant::now() > end {
            return b;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn probe(h: &Host, setup: &str) -> String {
    // Tall enough that no byte scrolls out of the viewport.
    let id = h.start(&[
        "--height",
        "200",
        "--",
        "sh",
        "-c",
        &format!("{setup}{PROBE}"),
    ]);
    // The probe is ready once od runs (the terminal is in raw mode).
    std::thread::sleep(Duration::from_millis(300));
    id
}

fn sent(h: &Host, setup: &str, keys: &[&str]) -> Vec<String> {
    let id = probe(h, setup);
    let mut args = vec!["send", id.as_str()];
    for k in keys {
        args.push("--keys");
        args.push(k);
    }
    h.ok(&args);
    probe_wait(h, &id, 1);
    // Give any further bytes time to arrive, so extra bytes would show.
    std::thread::sleep(Duration::from_millis(200));
    let all = probe_bytes(h, &id);
    h.ok(&["stop", &id]);
    all
}

fn hex(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

#[test]
fn start_reply_and_list_and_structured_read() {
    let h = Host::new();
    let v = h.ok(&[
        "start",
        "--width",
        "40",
        "--height",
        "5",
        "--",
        "sh",
        "-c",
        "printf 'hi \\033[31mred\\033[0m'; sleep 30",
    ]);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "schemaVersion",
            "sessionId",
            "state",
            "processId",
            "width",
            "height"
        ]
    );
    let id = v["sessionId"].as_str().unwrap();
    assert!(
        id.starts_with("s_")
            && id.len() == 34
            && id[2..]
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
    assert_eq!(
        (
            v["state"].as_str(),
            v["width"].as_u64(),
            v["height"].as_u64()
        ),
        (Some("running"), Some(40), Some(5))
    );
    h.wait(id, "red");
    let list = h.ok(&["list"]);
    let s = &list["sessions"][0];
    assert_eq!(s["sessionId"], id);
    for k in [
        "sessionId",
        "state",
        "processId",
        "exitCode",
        "width",
        "height",
        "updatedAt",
    ] {
        assert!(s.get(k).is_some(), "list entry has {k}");
    }
    let r = h.ok(&["read", id, "--structured"]);
    for k in [
        "schemaVersion",
        "sessionId",
        "state",
        "processId",
        "exitCode",
        "version",
        "screen",
    ] {
        assert!(r.get(k).is_some(), "read has {k}");
    }
    let screen = &r["screen"];
    assert_eq!(screen["text"], "hi red");
    assert_eq!(screen["scope"], "viewport");
    assert_eq!(
        (
            screen["cursorRow"].as_u64(),
            screen["cursorColumn"].as_u64()
        ),
        (Some(0), Some(6))
    );
    let st = &screen["structured"];
    assert_eq!(st["cells"].as_array().unwrap().len(), 40 * 5);
    let red = &st["cells"][3];
    assert_eq!(red["text"], "r");
    assert_eq!(red["foreground"], "palette:1");
    for k in [
        "text",
        "foreground",
        "background",
        "underlineColor",
        "hyperlink",
        "bold",
        "italic",
        "underline",
        "reversed",
        "faint",
        "hidden",
        "strikethrough",
        "overline",
        "blink",
        "isWide",
        "isWideContinuation",
    ] {
        assert!(red.get(k).is_some(), "cell has {k}");
    }
}

#[test]
fn sc03_paste_is_bracketed_only_when_asked() {
    let h = Host::new();
    let id = probe(&h, "printf '\\033[?2004h'; ");
    let v = h.ok(&["send", &id, "--paste", "a\nb", "--keys", "Enter"]);
    assert_eq!(v["bracketedPaste"], true);
    let got = probe_wait(&h, &id, 16);
    assert_eq!(got, hex("1b 5b 32 30 30 7e 61 0a 62 1b 5b 32 30 31 7e 0d"));
    let id = probe(&h, "");
    let v = h.ok(&["send", &id, "--paste", "a\nb"]);
    assert_eq!(v["bracketedPaste"], false);
    assert_eq!(probe_wait(&h, &id, 3), hex("61 0a 62"));
}

#[test]
fn sc04_shift_tab_keeps_its_shift() {
    let h = Host::new();
    assert_eq!(sent(&h, "", &["Shift+Tab", "Tab"]), hex("1b 5b 5a 09"));
}

#[test]
fn sc05_cursor_keys_follow_decckm() {
    let h = Host::new();
    assert_eq!(
        sent(&h, "printf '\\033[?1h'; ", &["Up", "Home"]),
        hex("1b 4f 41 1b 4f 48")
    );
    assert_eq!(
        sent(&h, "printf '\\033[?1l'; ", &["Up", "Home"]),
        hex("1b 5b 41 1b 5b 48")
    );
    let id = probe(&h, "printf '\\033[?1h'; ");
    assert_eq!(
        h.ok(&["read", &id])["screen"]["modes"]["applicationCursor"],
        true
    );
}

#[test]
fn sc06_keypad_follows_deckpam() {
    let h = Host::new();
    assert_eq!(
        sent(&h, "printf '\\033='; ", &["KP5", "KPEnter", "KPAdd"]),
        hex("1b 4f 75 1b 4f 4d 1b 4f 6b")
    );
    assert_eq!(
        sent(&h, "printf '\\033>'; ", &["KP5", "KPEnter", "KPAdd"]),
        hex("35 0d 2b")
    );
}

#[test]
fn key_probe_covers_the_table() {
    let h = Host::new();
    let cases: &[(&str, &str)] = &[
        ("Enter", "0d"),
        ("Tab", "09"),
        ("Escape", "1b"),
        ("Backspace", "7f"),
        ("Insert", "1b 5b 32 7e"),
        ("Delete", "1b 5b 33 7e"),
        ("PageUp", "1b 5b 35 7e"),
        ("PageDown", "1b 5b 36 7e"),
        ("F1", "1b 4f 50"),
        ("F5", "1b 5b 31 35 7e"),
        ("F12", "1b 5b 32 34 7e"),
        ("Ctrl+C", "03"),
        ("Alt+x", "1b 78"),
        ("Shift+Up", "1b 5b 31 3b 32 41"),
        ("Ctrl+Alt+Left", "1b 5b 31 3b 37 44"),
        ("Meta+Home", "1b 5b 31 3b 33 48"),
        ("é", "c3 a9"),
    ];
    let keys: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let expected: Vec<String> = cases.iter().flat_map(|c| hex(c.1)).collect();
    let id = probe(&h, "");
    let mut args = vec!["send", id.as_str()];
    for k in &keys {
        args.push("--keys");
        args.push(k);
    }
    args.extend(["--text", "\\r", "--raw-hex", "0d"]);
    h.ok(&args);
    let mut expected = expected;
    expected.extend(hex("5c 72 0d"));
    assert_eq!(probe_wait(&h, &id, expected.len()), expected);
}

#[test]
fn sc07_terminal_queries_are_answered() {
    let h = Host::new();
    std::fs::write(
        h.dir.path().join("q.sh"),
        concat!(
            "IFS=';[' read -rs -d R -p $'\\e[6n' _ ROW COL; echo \"POS=$ROW,$COL\"\n",
            "read -rs -d c -p $'\\e[c' DA; echo DA=ok \"DA1=${DA#*[}\"\n",
            "read -rs -d u -p $'\\e[?u' KB; echo \"KB=${KB#*[}\"\n",
            "read -rs -d '\\' -p $'\\e[>q' XT; echo \"XT=${XT:4:-1}\"\n",
            // The OSC 7501 answer must arrive before the DA1 answer asked right after it.
            "read -rs -d c -p $'\\e]7501;?\\e\\\\\\e[c' ST; case \"$ST\" in *7501\\;1*62*) echo ORDER=ok;; *) echo ORDER=bad;; esac\n",
            "sleep 5\n",
        ),
    )
    .unwrap();
    let id = h.start(&["--", "bash", "q.sh"]);
    let start = Instant::now();
    h.ok(&["wait", &id, "--text", "DA=ok", "--timeout", "10s"]);
    // SC-07 asks for 1 s; unanswered queries would block bash's `read` for good, so any prompt
    // answer passes, with room for a loaded CI machine.
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    h.ok(&["wait", &id, "--text", "ORDER=", "--timeout", "10s"]);
    assert_eq!(
        h.text(&id),
        format!(
            "POS=1,1\nDA=ok DA1=?62;22\nKB=?0\nXT=console2svg {}\nORDER=ok",
            env!("CARGO_PKG_VERSION")
        )
    );
}

#[test]
fn sc08_alternate_screen_is_left_cleanly() {
    let h = Host::new();
    let id = h.start(&["--", "sh", "-c", "echo BEFORE; printf '\\033[?1049h\\033[2J\\033[HALT'; sleep 1; printf '\\033[?1049l'; echo AFTER; sleep 5"]);
    h.wait(&id, "ALT");
    let r = h.ok(&["read", &id]);
    assert_eq!(r["screen"]["text"], "ALT");
    assert_eq!(r["screen"]["isAlternateScreen"], true);
    h.wait(&id, "AFTER");
    let r = h.ok(&["read", &id]);
    assert_eq!(r["screen"]["text"], "BEFORE\nAFTER");
    assert_eq!(r["screen"]["isAlternateScreen"], false);
}

#[test]
fn sc09_wide_characters_read_back_without_spaces() {
    let h = Host::new();
    let id = h.start(&[
        "--",
        "sh",
        "-c",
        "printf '\\344\\270\\255\\346\\226\\207|\\n'; sleep 5",
    ]);
    h.wait(&id, "|");
    let r = h.ok(&["read", &id, "--structured"]);
    assert_eq!(r["screen"]["text"], "中文|");
    let cells = &r["screen"]["structured"]["cells"];
    assert_eq!(
        (cells[0]["text"].as_str(), cells[0]["isWide"].as_bool()),
        (Some("中"), Some(true))
    );
    assert_eq!(cells[1]["isWideContinuation"], true);
    assert_eq!(
        (cells[2]["text"].as_str(), cells[2]["isWide"].as_bool()),
        (Some("文"), Some(true))
    );
    assert_eq!(cells[3]["isWideContinuation"], true);
    assert_eq!(cells[4]["text"], "|");
    let id = h.start(&[
        "--width",
        "5",
        "--",
        "sh",
        "-c",
        "printf 'abcd\\344\\270\\255'; sleep 5",
    ]);
    h.wait(&id, "中");
    assert_eq!(h.text(&id), "abcd\n中");
}

#[test]
fn sc10_wait_since_and_line_ignore_old_output_and_the_echo() {
    let h = Host::new();
    let id = h.start(&["--", "bash", "--norc", "-i"]);
    h.wait(&id, "bash-");
    for _ in 0..2 {
        let sent_at = Instant::now();
        let v = h.ok(&[
            "send",
            &id,
            "--text",
            "sleep 1; echo DONE",
            "--keys",
            "Enter",
        ]);
        let version = v["version"].as_u64().unwrap().to_string();
        let w = h.ok(&[
            "wait",
            &id,
            "--text",
            "DONE",
            "--line",
            "--since",
            &version,
            "--timeout",
            "5s",
        ]);
        assert_eq!(w["result"], "matched");
        assert!(
            sent_at.elapsed() >= Duration::from_secs(1),
            "matched only after the command ran"
        );
    }
    // Without --line/--since, wait keeps its meaning: the text is on screen now.
    let start = Instant::now();
    h.ok(&["wait", &id, "--text", "DONE", "--timeout", "5s"]);
    assert!(start.elapsed() < Duration::from_millis(900));
}

#[test]
fn wait_absent_stable_for_timeout_and_session_end() {
    let h = Host::new();
    let id = h.start(&[
        "--",
        "sh",
        "-c",
        "echo Working; sleep 1; clear; echo idle; sleep 30",
    ]);
    let start = Instant::now();
    let w = h.ok(&[
        "wait",
        &id,
        "--text",
        "Working",
        "--until",
        "absent",
        "--stable-for",
        "300ms",
        "--timeout",
        "5s",
    ]);
    assert_eq!(
        (w["result"].as_str(), w["until"].as_str()),
        (Some("matched"), Some("absent"))
    );
    assert!(
        start.elapsed() >= Duration::from_millis(1200),
        "absent only after it was seen and stayed gone 300 ms"
    );
    let (w, code) = h.run(&["wait", &id, "--text", "never", "--timeout", "300ms"]);
    assert_eq!(code, 1);
    assert_eq!(
        (
            w["result"].as_str(),
            w["timedOut"].as_bool(),
            w["status"].as_str()
        ),
        (Some("timeout"), Some(true), Some("error"))
    );
    assert_eq!(w["error"]["code"], "wait_timeout");
    assert!(w["screen"]["text"].as_str().unwrap().contains("idle"));
    let id = h.start(&["--", "sh", "-c", "sleep 0.5; exit 4"]);
    let (w, code) = h.run(&["wait", &id, "--text", "never", "--timeout", "5s"]);
    assert_eq!(
        (code, w["result"].as_str(), w["exitCode"].as_i64()),
        (1, Some("session-ended"), Some(4))
    );
    let (w, code) = h.run(&["wait", &id, "--text", "", "--timeout", "1s"]);
    assert_eq!(
        (code, w["error"]["code"].as_str()),
        (1, Some("invalid_condition"))
    );
}

#[test]
fn sc11_resize_reaches_the_program() {
    let h = Host::new();
    let id = h.start(&[
        "--width",
        "80",
        "--height",
        "24",
        "--",
        "sh",
        "-c",
        "trap 'echo WINCH $(stty size)' WINCH; while :; do sleep 0.1; done",
    ]);
    std::thread::sleep(Duration::from_millis(300));
    let v = h.ok(&["resize", &id, "--width", "100", "--height", "30"]);
    assert!(v["version"].as_u64().is_some());
    let start = Instant::now();
    h.ok(&["wait", &id, "--text", "WINCH 30 100", "--timeout", "10s"]);
    // SC-11 asks for 500 ms; the bound here leaves room for a loaded CI machine (the tests run
    // in parallel) while still failing when the signal never comes.
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    let r = h.ok(&["read", &id]);
    assert_eq!(
        (
            r["screen"]["width"].as_u64(),
            r["screen"]["height"].as_u64()
        ),
        (Some(100), Some(30))
    );
    let id = h.start(&["--", "bash", "--norc", "-i"]);
    h.ok(&["resize", &id, "--width", "33", "--height", "7"]);
    h.ok(&[
        "send",
        &id,
        "--text",
        "tput cols; tput lines",
        "--keys",
        "Enter",
    ]);
    h.ok(&["wait", &id, "--text", "33", "--line", "--timeout", "5s"]);
    h.ok(&["wait", &id, "--text", "7", "--line", "--timeout", "5s"]);
}

fn leftovers(pattern: &str) -> String {
    let out = std::process::Command::new("pgrep")
        .args(["-f", pattern])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn sc12_stop_ends_every_process_group() {
    let h = Host::new();
    let a = h.start(&[
        "--",
        "bash",
        "-c",
        "sleep 1000777 & (trap '' TERM HUP; sleep 1001777) & wait",
    ]);
    let b = h.start(&["--", "bash", "--norc", "-i"]);
    h.wait(&b, "bash-");
    h.ok(&["send", &b, "--text", "sleep 1002777 &", "--keys", "Enter"]);
    h.ok(&["send", &b, "--text", "sleep 1003777", "--keys", "Enter"]);
    std::thread::sleep(Duration::from_millis(500));
    assert!(!leftovers("sleep 100[0-3]777").is_empty(), "the sleeps run");
    let start = Instant::now();
    let v = h.ok(&["stop", &a]);
    assert_eq!(v["state"], "stopped");
    assert!(
        v.get("exitCode").is_some() && v.get("signal").is_some(),
        "{v}"
    );
    h.ok(&["stop", &b]);
    assert!(start.elapsed() < Duration::from_secs(8));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(leftovers("sleep 100[0-3]777"), "", "no descendants left");
    let zombies = std::process::Command::new("sh")
        .arg("-c")
        .arg("ps -eo stat,args | grep '^Z' | grep 'sleep 100' || true")
        .output()
        .unwrap();
    assert!(
        zombies.stdout.is_empty(),
        "zombies: {}",
        String::from_utf8_lossy(&zombies.stdout)
    );
    let (v, code) = h.run(&["read", &a]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("session_not_found")),
        "stop deletes the session"
    );
}

#[test]
fn sc15_large_input_arrives_whole_and_in_order_under_output() {
    let h = Host::new();
    let got = h.dir.path().join("got");
    let ready = h.dir.path().join("ready");
    let script = format!(
        "stty raw -echo; touch {}; (while :; do echo noise; done) & exec cat > {}",
        ready.display(),
        got.display()
    );
    let id = h.start(&["--", "sh", "-c", &script]);
    let end = Instant::now() + Duration::from_secs(10);
    while !ready.exists() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    // 1 MiB of base64-like text in 16 chunks of 64 KiB, then a short tail.
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let payload: String = (0..1024 * 1024)
        .map(|i| alphabet[(i * 7 + i / 64) % 64] as char)
        .collect();
    let mut args: Vec<String> = vec!["send".into(), id.clone()];
    for chunk in payload.as_bytes().chunks(64 * 1024) {
        args.push("--text".into());
        args.push(String::from_utf8(chunk.to_vec()).unwrap());
    }
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    h.ok(&args_ref);
    h.ok(&["send", &id, "--text", "0123456789"]);
    let want = payload.len() + 10;
    let end = Instant::now() + Duration::from_secs(20);
    while std::fs::metadata(&got)
        .map(|m| m.len() as usize)
        .unwrap_or(0)
        < want
        && Instant::now() < end
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    h.ok(&["stop", &id]);
    let data = std::fs::read(&got).unwrap();
    assert_eq!(data.len(), want);
    assert!(
        data[..payload.len()] == *payload.as_bytes() && &data[payload.len()..] == b"0123456789",
        "byte-identical"
    );
}

#[test]
fn vim_and_less_are_driven_through_the_session() {
    let h = Host::new();
    let id = start_vim(&h, "60", "12");
    h.wait(&id, "notes.txt");
    h.ok(&[
        "send",
        &id,
        "--text",
        "iHello from an agent",
        "--keys",
        "Escape",
    ]);
    h.wait(&id, "Hello from an agent");
    let r = h.ok(&["read", &id]);
    assert_eq!(r["screen"]["isAlternateScreen"], true);
    h.ok(&["resize", &id, "--width", "80", "--height", "20"]);
    h.ok(&["send", &id, "--text", ":wq", "--keys", "Enter"]);
    let (w, code) = h.run(&["wait", &id, "--text", "never-shown", "--timeout", "5s"]);
    assert_eq!(
        (code, w["result"].as_str(), w["exitCode"].as_i64()),
        (1, Some("session-ended"), Some(0))
    );
    let end = Instant::now() + Duration::from_secs(5);
    while !h.dir.path().join("notes.txt").exists() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        std::fs::read_to_string(h.dir.path().join("notes.txt")).unwrap(),
        "Hello from an agent\n"
    );
    let list = h.ok(&["list", "--all"]);
    let s = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(
        (s["state"].as_str(), s["exitCode"].as_i64()),
        (Some("exited"), Some(0))
    );
    assert!(s["expiresAt"].as_str().is_some(), "retained with expiresAt");
    assert!(
        h.ok(&["list"])["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["sessionId"] != id.as_str()),
        "list without --all shows running ones"
    );
    let (v, code) = h.run(&["send", &id, "--text", "x"]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("session_exited"))
    );
    let (v, code) = h.run(&["resize", &id, "--width", "10", "--height", "5"]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("session_exited"))
    );
    assert!(
        h.text(&id).contains("Hello from an agent") || h.ok(&["read", &id])["state"] == "exited"
    );

    let lines: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    std::fs::write(h.dir.path().join("long.txt"), lines).unwrap();
    let id = h.start(&["--width", "40", "--height", "10", "--", "less", "long.txt"]);
    h.wait(&id, "line 9");
    h.ok(&["send", &id, "--keys", "PageDown"]);
    h.wait(&id, "line 18");
    h.ok(&["send", &id, "--keys", "End"]);
    h.wait(&id, "line 200");
    h.ok(&["send", &id, "--text", "q"]);
    let (w, _) = h.run(&["wait", &id, "--text", "never-shown", "--timeout", "5s"]);
    assert_eq!(
        (w["result"].as_str(), w["exitCode"].as_i64()),
        (Some("session-ended"), Some(0)),
        "less quit"
    );
}

/// An idle session's emulator hibernates after a second without output or input (its screen
/// kept as text and style runs). Read while asleep, it is the screen it was; driven and
/// resized afterwards, on the primary and on the alternate screen, it acts as if it never slept.
#[test]
fn an_idle_session_reads_and_acts_the_same_after_hibernating() {
    let h = Host::new();
    let id = h.start(&[
        "--width",
        "40",
        "--height",
        "8",
        "--",
        "sh",
        "-c",
        "printf '\\033[1;31mred\\033[0m \\344\\270\\255 e\\314\\201 \\033[44mblue\\033[0m\\n\\033[7mready\\033[0m> '; exec cat",
    ]);
    h.wait(&id, "ready>");
    let awake = h.ok(&["read", &id, "--structured"]);
    std::thread::sleep(Duration::from_millis(1600));
    let asleep = h.ok(&["read", &id, "--structured"]);
    assert_eq!(asleep["screen"], awake["screen"], "read while hibernating");
    assert_eq!(
        (
            awake["screen"]["cursorRow"].as_u64(),
            awake["screen"]["cursorColumn"].as_u64()
        ),
        (Some(1), Some(7)),
        "after the prompt"
    );
    h.ok(&["send", &id, "--text", "typed", "--keys", "Enter"]);
    h.wait(&id, "typed");
    let after = h.text(&id);
    assert_eq!(
        after.lines().take(3).collect::<Vec<_>>(),
        ["red 中 e\u{301} blue", "ready> typed", "typed"],
        "the prompt's row goes on where the cursor was"
    );

    let id = start_vim(&h, "40", "8");
    h.wait(&id, "notes.txt");
    h.ok(&["send", &id, "--text", "ifirst line", "--keys", "Escape"]);
    h.wait(&id, "first line");
    // Vim has left insert mode (its mode line is cleared) before the screen is taken.
    h.ok(&[
        "wait",
        &id,
        "--text",
        "INSERT",
        "--until",
        "absent",
        "--timeout",
        "10s",
    ]);
    let awake = h.ok(&["read", &id, "--structured"]);
    std::thread::sleep(Duration::from_millis(1600));
    let asleep = h.ok(&["read", &id, "--structured"]);
    assert_eq!(
        asleep["screen"], awake["screen"],
        "alternate screen, asleep"
    );
    assert_eq!(asleep["screen"]["isAlternateScreen"], true);
    h.ok(&["resize", &id, "--width", "30", "--height", "6"]);
    h.ok(&["send", &id, "--text", "A and more", "--keys", "Escape"]);
    h.wait(&id, "first line and more");
    let r = h.ok(&["read", &id]);
    assert_eq!(
        (
            r["screen"]["width"].as_u64(),
            r["screen"]["height"].as_u64()
        ),
        (Some(30), Some(6))
    );
    h.ok(&["send", &id, "--text", ":q!", "--keys", "Enter"]);
    let (w, _) = h.run(&["wait", &id, "--text", "never-shown", "--timeout", "5s"]);
    assert_eq!(w["result"], "session-ended", "vim quit");
}

#[test]
fn error_codes_from_real_triggers() {
    let h = Host::new();
    let code_of = |args: &[&str]| {
        let (v, code) = h.run(args);
        assert_eq!(code, 1, "{args:?}: {v}");
        assert_eq!(v["status"], "error");
        v["error"]["code"].as_str().unwrap().to_string()
    };
    assert_eq!(
        code_of(&["read", "s_00000000000000000000000000000000"]),
        "session_not_found"
    );
    assert_eq!(
        code_of(&["start", "--", "no-such-program-xyz"]),
        "session_not_started"
    );
    assert_eq!(
        code_of(&["start", "--cwd", "/no/such/dir", "--", "true"]),
        "session_not_started"
    );
    let id = h.start(&["--", "sh", "-c", "sleep 30"]);
    assert_eq!(
        code_of(&["send", &id, "--keys", "Ctrl+Ctrl+A"]),
        "unsupported_key"
    );
    assert_eq!(
        code_of(&["send", &id, "--keys", "Hyper+Q"]),
        "unsupported_key"
    );
    assert_eq!(
        code_of(&["send", &id, "--raw-hex", "abc"]),
        "invalid_request"
    );
    assert_eq!(code_of(&["send", &id, "--raw-hex", ""]), "invalid_request");
    assert_eq!(code_of(&["send", &id]), "invalid_request");
    assert_eq!(
        code_of(&["wait", &id, "--text", "x", "--timeout", "100ms"]),
        "wait_timeout"
    );
    assert_eq!(code_of(&["stop", "--all"]), "invalid_request");
    // A bad key in a compound send means nothing is sent at all.
    let probe_id = probe(&h, "");
    assert_eq!(
        code_of(&["send", &probe_id, "--text", "abc", "--keys", "NoSuchKey"]),
        "unsupported_key"
    );
    h.ok(&["send", &probe_id, "--text", "z"]);
    assert_eq!(
        probe_wait(&h, &probe_id, 1),
        hex("7a"),
        "only the later, valid send arrived"
    );
    let v = h.ok(&["stop", "--all", "--yes"]);
    assert_eq!(v["stopped"].as_array().unwrap().len(), 2);
    assert_eq!(v["failed"], serde_json::json!([]));
}

#[test]
fn host_survives_garbage_and_replaces_a_stale_socket() {
    use std::io::{Read, Write};
    let h = Host::new();
    let id = h.start(&["--", "sh", "-c", "echo alive; sleep 30"]);
    let socket = h.dir.path().join("rt/host.sock");
    let meta = std::fs::metadata(&socket).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
        0o600
    );
    let dir_meta = std::fs::metadata(h.dir.path().join("rt")).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&dir_meta.permissions()) & 0o777,
        0o700
    );
    for garbage in [&b"not json\n"[..], b"{\"op\":\"nope\"}\n", b"\n"] {
        let mut s = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        s.write_all(garbage).unwrap();
        let mut reply = String::new();
        s.read_to_string(&mut reply).unwrap();
        let v: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(v["error"]["code"], "invalid_request");
    }
    // A client that connects and vanishes mid-request.
    drop(std::os::unix::net::UnixStream::connect(&socket).unwrap());
    let mut s = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    s.write_all(b"{\"op\":\"re").unwrap();
    drop(s);
    h.wait(&id, "alive");
    // An oversized request is refused and the host stays up.
    let mut s = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let _ = s.write_all(&vec![b'x'; 17 * 1024 * 1024]);
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    assert!(reply.contains("invalid_request"), "{reply}");
    h.wait(&id, "alive");
    // Kill the host: the next call starts a fresh one instead of hanging.
    let host_pid = h.host_pid();
    std::process::Command::new("kill")
        .args(["-9", &host_pid.to_string()])
        .status()
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert!(socket.exists(), "a stale socket is left behind");
    let start = Instant::now();
    let (v, code) = h.run(&["read", &id]);
    assert!(start.elapsed() < Duration::from_secs(6), "never hangs");
    assert_eq!(code, 1);
    // The successor knows the dead host's session: unavailable (crash recovery).
    assert_eq!(v["error"]["code"], "session_error", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unavailable"),
        "{v}"
    );
    h.start(&["--", "true"]);
}

#[test]
fn sc01_input_sent_before_the_shell_is_ready_runs_once() {
    let h = Host::new();
    let zdot = h.dir.path().join("zdot");
    std::fs::create_dir(&zdot).unwrap();
    std::fs::write(zdot.join(".zshrc"), "sleep 1\n").unwrap();
    let zdotdir = format!("ZDOTDIR={}", zdot.display());
    let id = h.start(&["--", "env", &zdotdir, "zsh", "-i"]);
    h.ok(&[
        "send",
        &id,
        "--text",
        "echo READY-$((6*7))",
        "--keys",
        "Enter",
    ]);
    h.ok(&[
        "wait",
        &id,
        "--text",
        "READY-42",
        "--line",
        "--timeout",
        "5s",
    ]);
    std::thread::sleep(Duration::from_millis(300));
    let text = h.text(&id);
    assert_eq!(
        text.lines().filter(|l| l.trim() == "READY-42").count(),
        1,
        "{text}"
    );
}

fn kill(sig: &str, pid: i32) {
    std::process::Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
}

#[test]
fn a_stuck_host_gives_host_unavailable_within_the_reply_bound() {
    let h = Host::new();
    h.start(&["--", "sleep", "30"]);
    let pid = h.host_pid();
    kill("-STOP", pid);
    let start = Instant::now();
    let (v, code) = h.run(&["list"]);
    let took = start.elapsed();
    kill("-CONT", pid);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("host_unavailable"))
    );
    assert!(
        took >= Duration::from_secs(4) && took < Duration::from_secs(8),
        "bounded at about 5 s: {took:?}"
    );
}

#[test]
fn ctrl_c_cancels_a_wait() {
    let h = Host::new();
    let id = h.start(&["--", "sleep", "30"]);
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("console2svg"))
        .env("CONSOLE2SVG_RUNTIME_DIR", h.rt())
        .args(["session", "wait", &id, "--text", "never"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Long enough for the wait to be registered, even on a loaded machine.
    std::thread::sleep(Duration::from_millis(1500));
    kill("-INT", child.id() as i32);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "ended by its own handler, not by the signal"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "cancelled");
    assert_eq!(
        v["result"], "cancelled",
        "the wait reply, with its screen: {v}"
    );
}

#[test]
fn exited_sessions_expire_after_retention_and_the_host_exits_when_idle() {
    let h = Host::with_env(&[
        ("CONSOLE2SVG_RETENTION_SECS", "1"),
        ("CONSOLE2SVG_HOST_IDLE_SECS", "2"),
    ]);
    let id = h.start(&["--", "sh", "-c", "echo bye"]);
    let (w, _) = h.run(&["wait", &id, "--text", "never", "--timeout", "5s"]);
    assert_eq!(w["result"], "session-ended");
    assert_eq!(h.text(&id), "bye", "readable after it exited");
    let pid = h.host_pid();
    std::thread::sleep(Duration::from_millis(2500));
    let (v, code) = h.run(&["read", &id]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("session_expired"))
    );
    // With nothing left the host exits and removes its socket.
    let end = Instant::now() + Duration::from_secs(8);
    while common::session::is_running(pid as u32) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        !common::session::is_running(pid as u32),
        "host {pid} still running"
    );
    assert!(!h.rt().join("host.sock").exists());
}

#[test]
fn another_user_gets_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    if !rustix_is_root() {
        eprintln!("needs root to act as another user");
        return;
    }
    let h = Host::new();
    h.start(&["--", "sleep", "30"]);
    // Open the way to the socket for user nobody; the host must still refuse it.
    for p in [h.dir.path().to_path_buf(), h.rt()] {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o711)).unwrap();
    }
    std::fs::set_permissions(
        h.rt().join("host.sock"),
        std::fs::Permissions::from_mode(0o666),
    )
    .unwrap();
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("console2svg"))
        .args(["session", "list"])
        .env("CONSOLE2SVG_RUNTIME_DIR", h.rt())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        (out.status.code(), v["error"]["code"].as_str()),
        (Some(1), Some("permission_denied"))
    );
}

fn rustix_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .map(|s| {
            s.lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

#[test]
fn a_flooding_session_does_not_starve_another() {
    let h = Host::new();
    let flood = h.start(&["--", "sh", "-c", "yes 'flood flood flood'"]);
    let quiet = h.start(&["--", "sh", "-c", "echo quiet; sleep 30"]);
    h.wait(&quiet, "quiet");
    for _ in 0..20 {
        assert_eq!(h.text(&quiet), "quiet");
    }
    assert!(h.text(&flood).contains("flood flood flood"));
}

/// Output faster than the emulator parses it (an erase on every line: nothing can be
/// fast-forwarded) is throttled, never lost or reordered: the program waits in its write while
/// the I/O loop parses what it read, and the host answers meanwhile.
#[test]
fn an_unskippable_flood_ends_whole_and_the_host_answers_during_it() {
    let h = Host::new();
    let lines = r#"awk 'BEGIN { for (i = 1; i <= 200000; i++) printf "%d\033[K\n", i }'"#;
    let script = format!("{lines}; echo END; sleep 30");
    let id = h.start(&["--width", "40", "--height", "5", "--", "sh", "-c", &script]);
    for _ in 0..5 {
        let asked = Instant::now();
        h.ok(&["read", &id]);
        assert!(
            asked.elapsed() < Duration::from_secs(2),
            "{:?}",
            asked.elapsed()
        );
    }
    h.ok(&["wait", &id, "--text", "END", "--timeout", "60s"]);
    assert_eq!(h.text(&id), "199998\n199999\n200000\nEND");
}

#[test]
fn stop_after_exit_still_ends_background_children() {
    let h = Host::new();
    let id = h.start(&[
        "--",
        "sh",
        "-c",
        "(trap '' HUP; sleep 1004777) & sleep 0.3; echo started",
    ]);
    let (w, _) = h.run(&["wait", &id, "--text", "never", "--timeout", "5s"]);
    assert_eq!(w["result"], "session-ended");
    assert!(
        !leftovers("sleep 1004777").is_empty(),
        "the child outlived its parent"
    );
    let v = h.ok(&["stop", &id]);
    assert_eq!(v["exitCode"], 0, "the program's own exit is reported");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(leftovers("sleep 1004777"), "");
}

#[test]
fn capture_inspect_and_export() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = common::tempdir();
    let h = Host::with_env(&[]);
    let id = h.start(&[
        "--width",
        "40",
        "--height",
        "6",
        "--",
        "sh",
        "-c",
        "printf 'hello \\033[32mgreen\\033[0m\\n'; sleep 30",
    ]);
    h.wait(&id, "green");
    h.ok(&["read", &id]);
    let (_, code) = h.run(&["wait", &id, "--text", "never", "--timeout", "200ms"]);
    assert_eq!(code, 1);
    let v = h.ok(&[
        "capture", &id, "-o", "shot.svg", "-d", "macos", "-t", "nord",
    ]);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["schemaVersion", "sessionId", "state", "artifact"]);
    let path = v["artifact"]["path"].as_str().unwrap();
    assert!(std::path::Path::new(path).is_absolute() && path.ends_with("shot.svg"));
    assert_eq!(v["artifact"]["format"], "svg");
    let svg = std::fs::read_to_string(path).unwrap();
    assert!(
        svg.contains("#ff5f57") && svg.contains(".bg{fill:#101420}"),
        "macos frame, nord theme"
    );
    let drawn: String = common::glyphs(&svg)
        .iter()
        .map(|g| g.text.clone())
        .collect();
    assert_eq!(drawn, "hellogreen", "the session's screen is what is drawn");

    let v = h.ok(&["capture", &id, "-o", "shot.png", "--scale", "2"]);
    assert_eq!(v["artifact"]["format"], "png");
    let png = std::fs::read(v["artifact"]["path"].as_str().unwrap()).unwrap();
    assert!(png.starts_with(b"\x89PNG"));

    // inspect: a private file in a private, unpredictable directory; old ones are swept.
    let inspect = |h: &Host| {
        let out = h
            .cmd()
            .env("TMPDIR", tmp.path())
            .args(["session", "inspect", &id, "-t", "dracula"])
            .output()
            .unwrap();
        assert!(out.status.success());
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let root = tmp
        .path()
        .join(format!("console2svg-inspect-{}", unsafe_uid()));
    std::fs::create_dir_all(root.join("inspect-old")).unwrap();
    std::fs::write(root.join("inspect-old/inspect.svg"), "old").unwrap();
    std::process::Command::new("touch")
        .args(["-d", "2 days ago"])
        .arg(root.join("inspect-old"))
        .status()
        .unwrap();
    std::fs::create_dir_all(root.join("inspect-recent")).unwrap();
    let v = inspect(&h);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["schemaVersion", "sessionId", "state", "path", "format"]
    );
    let file = std::path::PathBuf::from(v["path"].as_str().unwrap());
    assert!(file.starts_with(&root) && file.file_name().unwrap() == "inspect.svg");
    let dir = file.parent().unwrap();
    assert!(
        dir.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("inspect-")
            && dir.file_name().unwrap().len() == 8 + 32
    );
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&root), mode(dir), mode(&file)), (0o700, 0o700, 0o600));
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains(".bg{fill:#282a36}"));
    assert!(
        !root.join("inspect-old").exists(),
        "entries older than 24 h are swept"
    );
    assert!(root.join("inspect-recent").exists(), "newer ones stay");
    let second = inspect(&h);
    assert_ne!(
        second["path"], v["path"],
        "every inspection gets its own directory"
    );

    // export: actions and matched waits; reads, inspections and the failed wait are left out.
    let v = h.ok(&["export", &id, "-o", "scenario"]);
    assert!(
        v["path"].as_str().unwrap().ends_with("scenario.yaml"),
        ".yaml appended"
    );
    assert_eq!(v["entries"], 3, "the matched wait and the two captures");
    let doc: serde_json::Value = {
        let yaml = std::fs::read_to_string(v["path"].as_str().unwrap()).unwrap();
        let d: console2svg::scenario::Document = serde_yaml_ng::from_str(&yaml).unwrap();
        serde_json::to_value(d).unwrap()
    };
    assert_eq!(doc["$version"], 1);
    assert_eq!(doc["scenario"]["launch"]["executable"], "sh");
    let kinds: Vec<&str> = doc["scenario"]["execute"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["wait", "capture", "capture"]);
    assert_eq!(doc["scenario"]["execute"][2]["args"]["output"], "shot.png");
    assert_eq!(doc["scenario"]["execute"][2]["args"]["scale"], 2.0);
    assert_eq!(doc["scenario"]["execute"][1]["args"]["output"], "shot.svg");
    assert_eq!(
        doc["scenario"]["execute"][1]["options"]["appearance"]["theme"],
        serde_json::json!(["nord"])
    );
    let v = h.ok(&["export", &id, "-o", "scenario.json"]);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(v["path"].as_str().unwrap()).unwrap())
            .unwrap();
    assert_eq!(json["scenario"]["execute"].as_array().unwrap().len(), 3);

    // A retained exited session can still be captured and exported.
    let done = h.start(&["--", "sh", "-c", "echo finished"]);
    let (w, _) = h.run(&["wait", &done, "--text", "never", "--timeout", "5s"]);
    assert_eq!(w["result"], "session-ended");
    let v = h.ok(&["capture", &done, "-o", "done.svg"]);
    assert_eq!(v["state"], "exited");
    h.ok(&["export", &done, "-o", "done.yaml"]);
    let (v, code) = h.run(&["capture", &done, "-o", "x.gif"]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("invalid_request"))
    );
    // An unknown extension gets the same message: what a capture writes, nothing else.
    let (v, code) = h.run(&["capture", &done, "-o", "x.bogus"]);
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(code, 1, "{v}");
    assert!(
        message.contains("(.svg, .png, .jpg or .webp), not .bogus") && !message.contains(".mp4"),
        "{v}"
    );
}

fn unsafe_uid() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap()
}

#[test]
fn regex_waits_and_invalid_patterns() {
    let h = Host::new();
    let id = h.start(&["--", "sh", "-c", "echo 'build 42 ok'; sleep 30"]);
    h.ok(&["wait", &id, "--regex", "build [0-9]+ ok", "--timeout", "5s"]);
    h.ok(&[
        "wait",
        &id,
        "--regex",
        "build \\d+ ok",
        "--line",
        "--timeout",
        "5s",
    ]);
    let (v, code) = h.run(&[
        "wait",
        &id,
        "--regex",
        "build \\d+",
        "--line",
        "--timeout",
        "300ms",
    ]);
    assert_eq!(
        (code, v["result"].as_str()),
        (1, Some("timeout")),
        "--line anchors a regex to the whole row"
    );
    let (v, code) = h.run(&["wait", &id, "--regex", "([", "--timeout", "1s"]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("invalid_condition"))
    );
}

#[test]
fn the_journal_is_private_and_removed_with_the_session() {
    use std::os::unix::fs::PermissionsExt;
    let h = Host::new();
    let id = h.start(&["--", "sh", "-c", "echo hi; sleep 30"]);
    h.wait(&id, "hi");
    h.ok(&["send", &id, "--text", "x"]);
    let file = h.rt().join("journals").join(format!("{id}.jsonl"));
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["launch", "wait", "send"]);
    assert_eq!(
        lines[0]["argv"],
        serde_json::json!(["sh", "-c", "echo hi; sleep 30"])
    );
    assert_eq!(lines[1]["matched"], true);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        std::fs::metadata(file.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o700
    );
    h.ok(&["stop", &id]);
    assert!(!file.exists(), "removed with the session");
}

#[test]
fn a_regex_can_anchor_at_the_end_of_the_screen_text() {
    let h = Host::new();
    let id = h.start(&["--", "sh", "-c", "printf 'READY>'; sleep 30"]);
    h.ok(&["wait", &id, "--regex", "READY>$", "--timeout", "5s"]);
}

#[test]
fn slow_clients_and_many_waits_do_not_hold_up_others() {
    use std::io::Write;
    let h = Host::new();
    let id = h.start(&[
        "--width",
        "200",
        "--height",
        "60",
        "--",
        "sh",
        "-c",
        "yes 'fill the screen with text'",
    ]);
    h.wait(&id, "fill the screen");
    let socket = h.rt().join("host.sock");
    // A client that trickles half a request and stalls, and one that never reads its (large) reply.
    let mut trickle = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    trickle.write_all(b"{\"op\":\"li").unwrap();
    let mut deaf = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    deaf.write_all(format!("{{\"op\":\"read\",\"id\":\"{id}\",\"structured\":true}}\n").as_bytes())
        .unwrap();
    // Forty concurrent waits that will time out.
    let waits: Vec<std::process::Child> = (0..40)
        .map(|_| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("console2svg"))
                .env("CONSOLE2SVG_RUNTIME_DIR", h.rt())
                .args([
                    "session",
                    "wait",
                    &id,
                    "--text",
                    "never-there",
                    "--timeout",
                    "3s",
                ])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // Every call below is answered within the client's 5 s bound (else it fails with
    // host_unavailable), however busy the stalled clients and the forty waits keep the host.
    let quiet = h.start(&["--", "sh", "-c", "echo quiet; sleep 30"]);
    h.wait(&quiet, "quiet");
    assert_eq!(h.text(&quiet), "quiet");
    assert!(h.ok(&["list"])["sessions"].as_array().unwrap().len() >= 2);
    for w in waits {
        let out = w.wait_with_output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["error"]["code"], "wait_timeout", "{v}");
    }
    drop(trickle);
    drop(deaf);
}

#[test]
fn stop_all_gives_stubborn_sessions_one_shared_grace() {
    let h = Host::new();
    for _ in 0..4 {
        h.start(&[
            "--",
            "sh",
            "-c",
            "trap '' TERM HUP; while :; do sleep 1; done",
        ]);
    }
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    let v = h.ok(&["stop", "--all", "--yes"]);
    assert_eq!(v["stopped"].as_array().unwrap().len(), 4);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(h.ok(&["list", "--all"])["sessions"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn a_program_that_exits_at_once_still_shows_its_last_output() {
    let h = Host::new();
    for _ in 0..20 {
        let id = h.start(&["--", "sh", "-c", "echo bye-bye"]);
        let w = h.ok(&["wait", &id, "--text", "bye-bye", "--timeout", "5s"]);
        assert_eq!(w["result"], "matched");
    }
}

#[test]
fn an_export_saved_elsewhere_replays_from_its_own_directory() {
    let h = Host::new();
    let proj = h.dir.path();
    std::fs::write(proj.join("data.txt"), "line from data\n").unwrap();
    std::fs::create_dir_all(proj.join("docs")).unwrap();
    std::fs::create_dir_all(proj.join("scenarios")).unwrap();
    let id = h.start(&[
        "--width",
        "30",
        "--height",
        "4",
        "--",
        "sh",
        "-c",
        "cat data.txt; sleep 30",
    ]);
    h.wait(&id, "line from data");
    h.ok(&["capture", &id, "-o", "docs/a.svg", "--no-cursor"]);
    let original = std::fs::read(proj.join("docs/a.svg")).unwrap();
    let v = h.ok(&["export", &id, "-o", "scenarios/s.yaml"]);
    assert!(v["path"].as_str().unwrap().ends_with("scenarios/s.yaml"));
    let yaml = std::fs::read_to_string(proj.join("scenarios/s.yaml")).unwrap();
    assert!(
        yaml.contains("path: ..") && yaml.contains("output: ../docs/a.svg"),
        "{yaml}"
    );
    // An existing directory is refused, not turned into docs.yaml.
    let (v, code) = h.run(&["export", &id, "-o", "docs"]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("io_error")),
        "{v}"
    );
    assert!(!proj.join("docs.yaml").exists());
    // An extension that is neither a scenario's nor a cast's is refused; nothing is written.
    let (v, code) = h.run(&["export", &id, "-o", "z.bmp"]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("invalid_request")),
        "{v}"
    );
    assert!(!proj.join("z.bmp").exists());
    h.ok(&["stop", &id]);
    std::fs::remove_file(proj.join("docs/a.svg")).unwrap();
    // Replayed from elsewhere: the paths are the document's own.
    let out = h
        .cmd()
        .current_dir("/")
        .args(["scenario", "run"])
        .arg(proj.join("scenarios/s.yaml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(std::fs::read(proj.join("docs/a.svg")).unwrap(), original);
}

/// A session runs in the environment of the client that started it, not the host's: a
/// variable set only for one client reaches only that client's session, and the program is
/// found on the client's `PATH` (issue: reliability, item 3).
#[test]
fn a_session_gets_its_callers_environment_and_path() {
    let h = Host::new();
    // The host starts with the first session, from a client without the variable.
    let plain = h.start(&["--", "sh", "-c", "echo \"[${ONLY_HERE:-unset}]\"; sleep 30"]);
    h.wait(&plain, "[unset]");
    let mut c = h.cmd();
    c.env("ONLY_HERE", "s3cr3t").args([
        "session",
        "start",
        "--",
        "sh",
        "-c",
        "echo \"[${ONLY_HERE:-unset}]\"; sleep 30",
    ]);
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let with = v["sessionId"].as_str().unwrap().to_string();
    h.wait(&with, "[s3cr3t]");
    // A later session from a client without it does not see it either.
    let again = h.start(&["--", "sh", "-c", "echo \"[${ONLY_HERE:-unset}]\"; sleep 30"]);
    h.wait(&again, "[unset]");

    // A program only on the client's PATH.
    let bin = h.dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let tool = bin.join("only-on-my-path");
    std::fs::write(&tool, "#!/bin/sh\necho tool-ran; sleep 30\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = h
        .cmd()
        .env("PATH", &path)
        .args(["session", "start", "--", "only-on-my-path"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success(), "{v}");
    h.wait(v["sessionId"].as_str().unwrap(), "tool-ran");
    // Without it on the PATH the same start is a clear error.
    let (v, code) = h.run(&["start", "--", "only-on-my-path"]);
    assert_eq!(code, 1, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("command not found"),
        "{v}"
    );
}

/// Input a program does not read is bounded: past `MAX_PENDING_INPUT` (4 MiB) pending, a
/// `send` fails with `invalid_operation` and writes nothing of its request; the session and
/// the host go on (issue: reliability, item 6).
#[test]
fn input_a_program_never_reads_is_bounded() {
    let h = Host::new();
    // Raw mode: the line discipline holds input instead of dropping it past its buffer.
    let id = h.start(&[
        "--",
        "sh",
        "-c",
        "stty raw -echo; echo ready; exec sleep 600",
    ]);
    h.wait(&id, "ready");
    // One send of ~1.5 MB (argv bounds one argument to 128 KiB, so several --text).
    let chunk = "x".repeat(100 * 1024);
    let mut args: Vec<&str> = vec!["send", &id];
    for _ in 0..15 {
        args.extend_from_slice(&["--text", &chunk]);
    }
    let mut codes = Vec::new();
    for _ in 0..4 {
        let (v, code) = h.run(&args);
        codes.push((code, v["error"]["code"].as_str().map(str::to_string)));
    }
    assert_eq!(codes[0], (0, None), "the first sends fit: {codes:?}");
    assert_eq!(codes[1], (0, None), "{codes:?}");
    assert_eq!(
        codes[2],
        (1, Some("invalid_operation".to_string())),
        "past 4 MiB pending a send is refused: {codes:?}"
    );
    assert_eq!(codes[3], codes[2], "and stays refused: {codes:?}");
    // What fits under the bound still goes; the session still answers.
    h.ok(&["send", &id, "--text", "y"]);
    assert_eq!(h.ok(&["read", &id])["state"], "running");
    h.ok(&["stop", &id]);
}

/// A 1777 directory like `/tmp` inside `h`'s scratch directory, and a victim's file outside it.
fn sticky_dir_and_victim(h: &Host) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let shared = h.dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = h.dir.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    (shared, victim)
}

/// `session capture -o` and `session export -o` never write through a link planted in a
/// sticky world-writable directory, nor through a link owned by another user: the JSON
/// envelope says `permission_denied` and the link's target is untouched (issue: reliability,
/// item 4; the rule is `output::write_atomic`'s).
#[test]
fn captures_and_exports_never_write_through_a_hostile_link() {
    let h = Host::new();
    let (shared, victim) = sticky_dir_and_victim(&h);
    let id = h.start(&["--", "sh", "-c", "echo hi; sleep 30"]);
    h.wait(&id, "hi");
    for (name, args) in [
        ("shot.svg", vec!["capture", &id, "-o"]),
        ("scenario.yaml", vec!["export", &id, "-o"]),
    ] {
        let link = shared.join(name);
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let mut args = args.clone();
        let link_arg = link.to_str().unwrap();
        args.push(link_arg);
        let (v, code) = h.run(&args);
        assert_eq!(
            (code, v["status"].as_str(), v["error"]["code"].as_str()),
            (1, Some("error"), Some("permission_denied")),
            "{args:?}: {v}"
        );
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("sticky world-writable"),
            "{v}"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }
    // Elsewhere, a link owned by another user is refused too (making one needs root).
    if rustix_is_root() {
        let link = h.dir.path().join("theirs.svg");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        std::os::unix::fs::lchown(&link, Some(54321), Some(54321)).unwrap();
        let (v, code) = h.run(&["capture", &id, "-o", link.to_str().unwrap()]);
        assert_eq!(
            (code, v["error"]["code"].as_str()),
            (1, Some("permission_denied")),
            "{v}"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    } else {
        eprintln!("skipped the other-user link: lchown to another uid needs root");
    }
    // A file of one's own there is written as usual.
    h.ok(&[
        "capture",
        &id,
        "-o",
        shared.join("mine.svg").to_str().unwrap(),
    ]);
    h.ok(&["stop", &id]);
}

/// A host that is alive but never accepts, its backlog full, makes a client answer
/// `host_unavailable` within the 5 s bound instead of hanging in `connect` (issue:
/// reliability, item 5). The stalled "host" is a listening socket with a backlog of 0 at the
/// runtime directory's `host.sock`, filled by connections nobody accepts.
#[test]
fn a_stalled_host_with_a_full_backlog_gives_host_unavailable_in_time() {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketType};
    use std::os::unix::fs::DirBuilderExt;
    let h = Host::new();
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(h.rt())
        .unwrap();
    let addr = SocketAddrUnix::new(h.rt().join("host.sock")).unwrap();
    let socket = || rustix::net::socket(AddressFamily::UNIX, SocketType::STREAM, None).unwrap();
    let stalled = socket();
    rustix::net::bind(&stalled, &addr).unwrap();
    rustix::net::listen(&stalled, 0).unwrap();
    let mut queued = Vec::new();
    loop {
        let fd = socket();
        rustix::io::ioctl_fionbio(&fd, true).unwrap();
        match rustix::net::connect(&fd, &addr) {
            Ok(()) => queued.push(fd),
            Err(rustix::io::Errno::AGAIN) => break,
            Err(e) => panic!("filling the backlog: {e}"),
        }
        assert!(queued.len() < 1000, "the backlog never filled");
    }
    let started = Instant::now();
    let out = h
        .cmd()
        .args(["session", "list"])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let took = started.elapsed();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON after {took:?} (killed by the test's timeout?): {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        (out.status.code(), v["error"]["code"].as_str()),
        (Some(1), Some("host_unavailable")),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("busy or stalled"),
        "{v}"
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
    drop(queued);
    drop(stalled);
}

/// `session read`, `list` and `send` in their plain forms take the client's fast path (no full
/// command tree; the host's reply printed as it came); the same request spelled so that only
/// the full parser takes it (`--` before the id, `--flag=value`) must print the same bytes and
/// exit with the same code (issue: host redesign, item 6).
#[test]
fn the_fast_client_path_answers_like_the_full_parser() {
    let h = Host::new();
    let id = h.start(&["--", "sh", "-c", "echo 'fast and full'; exec sleep 30"]);
    h.wait(&id, "fast and full");
    let same = |fast: &[&str], full: &[&str]| {
        let a = h.cmd().arg("session").args(fast).output().unwrap();
        let b = h.cmd().arg("session").args(full).output().unwrap();
        assert_eq!(
            (a.status.code(), String::from_utf8_lossy(&a.stdout)),
            (b.status.code(), String::from_utf8_lossy(&b.stdout)),
            "{fast:?} vs {full:?}"
        );
        assert_eq!(a.stderr, b.stderr, "{fast:?} vs {full:?}");
        a.status.code()
    };
    assert_eq!(same(&["read", &id], &["read", "--", &id]), Some(0));
    assert_eq!(
        same(
            &["read", &id, "--structured"],
            &["read", "--structured", "--", &id]
        ),
        Some(0)
    );
    assert_eq!(same(&["list"], &["list", "-C", "/dev/null"]), Some(0));
    assert_eq!(
        same(&["list", "--all"], &["list", "--all", "-C", "/dev/null"]),
        Some(0)
    );
    assert_eq!(
        same(&["read", "s_missing"], &["read", "--", "s_missing"]),
        Some(1)
    );
    assert_eq!(
        same(
            &["send", "s_missing", "--text", "x"],
            &["send", "s_missing", "--text=x"]
        ),
        Some(1)
    );
    assert_eq!(
        same(
            &["send", &id, "--keys", "Hyper+Q"],
            &["send", &id, "--keys=Hyper+Q"]
        ),
        Some(1)
    );
    // A send's reply carries the version it was applied at, so compare its shape.
    let (fast, code) = h.run(&["send", &id, "--text", "a", "--keys", "Enter"]);
    let (full, full_code) = h.run(&["send", &id, "--text=a", "--keys=Enter"]);
    assert_eq!((code, full_code), (0, 0));
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&fast), keys(&full));
    h.ok(&["stop", &id]);
}

/// Agents parse stdout: a `session` verb's argument error is the JSON envelope
/// (`invalid_request`, clap's message, exit 1), like every other failure; help is still help.
#[test]
fn argument_errors_are_the_json_envelope() {
    let h = Host::new();
    for args in [
        vec!["read"],
        vec!["send", "s_x", "--text"],
        vec!["list", "--bogus"],
        vec!["bogus"],
        vec!["resize", "s_x", "--width", "wide", "--height", "2"],
    ] {
        let v = h.fails(&args, "invalid_request");
        assert!(!v["error"]["message"].as_str().unwrap().is_empty(), "{v}");
    }
    let help = h
        .cmd()
        .args(["session", "read", "--help"])
        .output()
        .unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage"));
}

/// Issue 19 item 7: `start --scrollback N` bounds the session's scrollback (0 allowed), the
/// config's `terminal.scrollback` is the default, and an out-of-range value is the
/// `invalid_request` envelope with exit 1, for the flag and for the config key alike.
#[test]
fn scrollback_is_bounded_by_start_and_by_the_config() {
    let h = Host::new();
    let scrollback_rows = |id: &str| {
        h.ok(&["read", id])["screen"]["scrollbackRows"]
            .as_u64()
            .unwrap()
    };
    let flood = "seq 1 200; echo done; sleep 30";
    let fifty = h.start(&["--scrollback", "50", "--", "sh", "-c", flood]);
    let none = h.start(&["--scrollback", "0", "--", "sh", "-c", flood]);
    let default = h.start(&["--", "sh", "-c", "seq 1 3000; echo done; sleep 30"]);
    for id in [&fifty, &none, &default] {
        h.wait(id, "done");
    }
    assert_eq!(scrollback_rows(&fifty), 50, "the newest 50 rows are kept");
    assert_eq!(scrollback_rows(&none), 0);
    assert_eq!(scrollback_rows(&default), 2000, "the default is 2000 rows");

    std::fs::write(
        h.dir.path().join("console2svg.config.yaml"),
        "$version: 1\noptions:\n  terminal:\n    scrollback: 7\n",
    )
    .unwrap();
    let configured = h.start(&["--", "sh", "-c", flood]);
    let flag_wins = h.start(&["--scrollback", "20", "--", "sh", "-c", flood]);
    h.wait(&configured, "done");
    h.wait(&flag_wins, "done");
    assert_eq!(scrollback_rows(&configured), 7);
    assert_eq!(scrollback_rows(&flag_wins), 20);

    for bad in [
        "--scrollback=100001",
        "--scrollback=-1",
        "--scrollback=many",
    ] {
        let v = h.fails(&["start", bad, "--", "true"], "invalid_request");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("scrollback"),
            "{v}"
        );
    }
    std::fs::write(
        h.dir.path().join("console2svg.config.yaml"),
        "$version: 1\noptions:\n  terminal:\n    scrollback: 100001\n",
    )
    .unwrap();
    let v = h.fails(&["start", "--", "true"], "invalid_request");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("terminal.scrollback"),
        "{v}"
    );
    let listed = h.ok(&["list"])["sessions"].as_array().unwrap().len();
    assert_eq!(listed, 5, "a refused start starts nothing");
}
