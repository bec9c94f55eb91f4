//! `session send` against a real keyboard reader in a PTY (tests/fixture/key_reader.py): keys
//! encoded the kitty keyboard protocol's way while the program has pushed its flags and the
//! legacy way after the pop, keys the legacy encoding refuses, and the quiet gaps after a
//! paste and after a bare Escape, measured by the reader.

mod common;

use std::time::{Duration, Instant};

use common::session::Host;

/// One read of the reader: milliseconds since its previous read, and the bytes as hex.
#[derive(Debug, Clone, PartialEq)]
struct Read {
    after_ms: u64,
    hex: String,
}

/// Starts the reader with `args` and waits for its first `FLAGS` line (the terminal's answer
/// to `CSI ? u`), which must say `flags`.
fn reader(h: &Host, args: &[&str], flags: u8) -> String {
    let script = common::repo().join("tests/fixture/key_reader.py");
    let script = script.to_str().unwrap();
    let mut start = vec!["--width", "200", "--height", "100", "--", "python3", script];
    start.extend_from_slice(args);
    let id = h.start(&start);
    h.wait(&id, &format!("FLAGS {flags}"));
    id
}

/// The reads the reader has shown, in order.
fn reads(h: &Host, id: &str) -> Vec<Read> {
    h.text(id)
        .lines()
        .filter_map(|l| {
            let (ms, hex) = l.trim().strip_prefix('+')?.split_once(' ')?;
            Some(Read {
                after_ms: ms.parse().ok()?,
                hex: hex.to_string(),
            })
        })
        .collect()
}

/// Waits (≤ 10 s) until the reads after the first `skip` hold `n` bytes; returns those later
/// reads.
fn reads_holding(h: &Host, id: &str, skip: usize, n: usize) -> Vec<Read> {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let later: Vec<Read> = reads(h, id).into_iter().skip(skip).collect();
        let bytes: usize = later.iter().map(|r| r.hex.len() / 2).sum();
        if bytes >= n || Instant::now() > end {
            return later;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `args` and returns the bytes the reader saw for them, joined (as hex).
fn send_and_read(h: &Host, id: &str, args: &[&str], expect_len: usize) -> String {
    let before = reads(h, id).len();
    let mut send = vec!["send", id];
    send.extend_from_slice(args);
    h.ok(&send);
    reads_holding(h, id, before, expect_len);
    // Further bytes, had any been sent, would show by now.
    std::thread::sleep(Duration::from_millis(150));
    let later: Vec<Read> = reads(h, id).into_iter().skip(before).collect();
    assert!(!later.is_empty());
    later.iter().map(|r| r.hex.as_str()).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn kitty_keys_while_flags_are_pushed_and_legacy_after_the_pop() {
    let h = Host::new();
    let id = reader(&h, &["--kitty", "1"], 1);
    let modes = &h.ok(&["read", &id])["screen"]["modes"];
    assert_eq!(modes["kittyKeyboardFlags"], 1, "{modes}");

    let cases: &[(&str, &[u8])] = &[
        ("Shift+Enter", b"\x1b[13;2u"),
        ("Ctrl+Enter", b"\x1b[13;5u"),
        ("Alt+Enter", b"\x1b[13;3u"),
        ("Shift+Tab", b"\x1b[9;2u"),
        ("Ctrl+Backspace", b"\x1b[127;5u"),
        ("Shift+Escape", b"\x1b[27;2u"),
        ("Escape", b"\x1b[27u"),
        ("Ctrl+Shift+a", b"\x1b[97;6u"),
        ("Ctrl+c", b"\x1b[99;5u"),
        ("Enter", b"\r"),
        ("a", b"a"),
        ("Up", b"\x1b[A"),
    ];
    let mut args = Vec::new();
    let mut want = Vec::new();
    for (name, bytes) in cases {
        args.extend(["--keys", *name]);
        want.extend_from_slice(bytes);
    }
    assert_eq!(send_and_read(&h, &id, &args, want.len()), hex(&want));

    // The program pops its flags: the terminal answers 0 and keys are legacy again.
    let before = reads(&h, &id).len();
    h.ok(&["send", &id, "--text", "pop"]);
    h.wait(&id, "FLAGS 0");
    assert_eq!(reads(&h, &id).len(), before, "the pop is no key read");
    let modes = &h.ok(&["read", &id])["screen"]["modes"];
    assert_eq!(modes["kittyKeyboardFlags"], 0, "{modes}");
    let legacy = send_and_read(
        &h,
        &id,
        &[
            "--keys",
            "Alt+Enter",
            "--keys",
            "Shift+Tab",
            "--keys",
            "Ctrl+c",
            "--keys",
            "Tab",
        ],
        6,
    );
    assert_eq!(legacy, hex(b"\x1b\r\x1b[Z\x03\t"));
}

/// Flag 8 (all keys as escape codes) also turns plain Enter, Tab and Backspace into `CSI u`.
#[test]
fn all_keys_as_escape_codes() {
    let h = Host::new();
    let id = reader(&h, &["--kitty", "9"], 9);
    let want = b"\x1b[13u\x1b[9u\x1b[127u\x1b[13;2u\x1b[13;5~";
    let args = [
        "--keys",
        "Enter",
        "--keys",
        "Tab",
        "--keys",
        "Backspace",
        "--keys",
        "Shift+Enter",
        "--keys",
        "Ctrl+F3",
    ];
    assert_eq!(send_and_read(&h, &id, &args, want.len()), hex(want));
}

#[test]
fn a_key_the_legacy_encoding_lacks_is_refused_and_nothing_is_sent() {
    let h = Host::new();
    let id = reader(&h, &[], 0);
    for key in [
        "Shift+Enter",
        "Ctrl+Enter",
        "Ctrl+Shift+a",
        "Ctrl+1",
        "Shift+Escape",
    ] {
        let v = h.fails(
            &["send", &id, "--text", "abc", "--keys", key, "--keys", "Tab"],
            "unsupported_key",
        );
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("kitty keyboard protocol"), "{message}");
    }
    // Names no encoding has stay refused whatever the modes.
    h.fails(&["send", &id, "--keys", "Shift+1"], "unsupported_key");
    // None of the refused requests wrote anything: the next bytes are this send's.
    assert_eq!(send_and_read(&h, &id, &["--keys", "Tab"], 1), "09");
}

#[test]
fn paste_then_enter_leaves_a_quiet_gap() {
    let h = Host::new();
    let id = reader(&h, &["--bracketed-paste"], 0);
    let paste = hex(b"\x1b[200~line1\nline2\x1b[201~");
    for (gap, at_least) in [(None, 100), (Some("400ms"), 300)] {
        let before = reads(&h, &id).len();
        let mut send = vec!["send", &id, "--paste", "line1\nline2", "--keys", "Enter"];
        if let Some(g) = gap {
            send.extend(["--gap", g]);
        }
        let v = h.ok(&send);
        assert_eq!(v["bracketedPaste"], true);
        let later = reads_holding(&h, &id, before, paste.len() / 2 + 1);
        let joined: String = later.iter().map(|r| r.hex.as_str()).collect();
        assert_eq!(joined, format!("{paste}0d"), "{later:?}");
        let enter = later.last().unwrap();
        assert_eq!(
            enter.hex, "0d",
            "the Return is a read of its own: {later:?}"
        );
        assert!(
            enter.after_ms >= at_least,
            "the Return came {} ms after the paste (gap {gap:?}): {later:?}",
            enter.after_ms
        );
    }
    // Without a gap the same bytes go out, in order.
    let joined = send_and_read(
        &h,
        &id,
        &["--paste", "line1\nline2", "--keys", "Enter", "--gap", "0"],
        paste.len() / 2 + 1,
    );
    assert_eq!(joined, format!("{paste}0d"));
    h.fails(
        &[
            "send", &id, "--paste", "x", "--keys", "Enter", "--gap", "11s",
        ],
        "invalid_request",
    );
    // A send's own gap is journaled: the exported scenario repeats it; the default is not
    // written.
    let v = h.ok(&["export", &id, "-o", "keys.yaml"]);
    let exported = std::fs::read_to_string(v["path"].as_str().unwrap()).unwrap();
    let gaps: Vec<&str> = exported
        .lines()
        .filter_map(|l| l.trim().strip_prefix("gap: "))
        .collect();
    assert_eq!(gaps, ["400ms", "0ms"], "{exported}");
}

/// The terminal answers a query the program makes during the gap at once, ahead of the
/// input the gap holds back, as a terminal answers while its user pauses.
#[test]
fn queries_during_a_gap_are_answered_at_once() {
    let h = Host::new();
    let id = reader(&h, &["--bracketed-paste", "--query-after-paste"], 0);
    h.ok(&[
        "send", &id, "--paste", "p", "--keys", "Enter", "--gap", "1s",
    ]);
    h.wait(&id, " 0d");
    let text = h.text(&id);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let paste = hex(b"\x1b[200~p\x1b[201~");
    let at = lines
        .iter()
        .position(|l| l.ends_with(&paste))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(lines[at + 1], "FLAGS 0", "{text}");
    assert!(lines[at + 2].ends_with(" 0d"), "{text}");
}

#[test]
fn escape_then_text_leaves_a_quiet_gap() {
    let h = Host::new();
    let id = reader(&h, &[], 0);
    let before = reads(&h, &id).len();
    h.ok(&["send", &id, "--keys", "Escape", "--text", "ihello"]);
    let later = reads_holding(&h, &id, before, 7);
    let joined: String = later.iter().map(|r| r.hex.as_str()).collect();
    assert_eq!(joined, hex(b"\x1bihello"), "{later:?}");
    assert_eq!(later[0].hex, "1b", "Escape is a read of its own: {later:?}");
    assert!(
        later[1].after_ms >= 100,
        "the text came {} ms after Escape: {later:?}",
        later[1].after_ms
    );
    // Escape last in a send needs no gap; Escape with Alt is no lone ESC.
    assert_eq!(
        send_and_read(&h, &id, &["--keys", "Alt+Escape", "--keys", "Escape"], 3),
        "1b1b1b"
    );
}
