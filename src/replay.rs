//! Replay files: the keystrokes typed during an interactive capture, with their times, in the
//! original's replay v1 JSON (shared/spec/console2svg-contract.md, "Replay file v1"):
//!
//! ```json
//! {"version": "1", "appVersion": "0.1.0", "createdAt": "2026-12-03T09:00:00.000Z",
//!  "totalDuration": 2.5,
//!  "replay": [{"time": 0.4, "key": "l", "modifiers": [], "type": "keydown"},
//!             {"tick": 0.1, "key": "Enter", "modifiers": [], "type": "keydown"}]}
//! ```
//!
//! The first event has an absolute `time` (seconds from the start), later ones a `tick` (seconds
//! after the previous one); `time` wins when both are given. `type` is `keydown` (the default:
//! `key` is a key name, `Enter`, `Tab`, `ArrowUp`…, `F1`–`F12` or one character, with
//! `modifiers` among `shift`, `alt`, `ctrl`, `meta`) or `raw` (`key` is sent as UTF-8 verbatim).
//!
//! [`decode_input`] turns the bytes a terminal sends for typed keys into these events; a
//! keydown's bytes are made at replay time from the program's modes ([`Typed::bytes`]), so an
//! arrow key follows the program's cursor-key mode as it did when typed.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::term::{keys, Modes};

/// A replay file, as read and written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayFile {
    /// Always `"1"`.
    pub version: String,
    /// The version of the program that wrote it.
    #[serde(default)]
    pub app_version: String,
    /// When it was written (RFC 3339).
    #[serde(default)]
    pub created_at: String,
    /// Seconds from the start to the end of the capture.
    #[serde(default)]
    pub total_duration: f64,
    /// The events in order.
    pub replay: Vec<FileEvent>,
}

/// One event as the file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEvent {
    /// Seconds from the start (the first event; wins over `tick`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    /// Seconds after the previous event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick: Option<f64>,
    /// A key name, or the text of a `raw` event.
    pub key: String,
    /// `shift`, `alt`, `ctrl`, `meta`.
    #[serde(default)]
    pub modifiers: Vec<String>,
    /// `keydown` (default) or `raw`.
    #[serde(default = "keydown", rename = "type")]
    pub kind: String,
}

fn keydown() -> String {
    "keydown".into()
}

/// One input at its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// From the start of the program.
    pub at: Duration,
    /// What is typed.
    pub input: Typed,
}

/// What one event types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// A key: its name in the replay file's terms (`Enter`, `ArrowUp`, `a`…) and modifiers
    /// (`shift`, `alt`, `ctrl`, `meta`).
    Key {
        /// The key name.
        name: String,
        /// Its modifiers, lower case.
        modifiers: Vec<String>,
    },
    /// Text sent verbatim.
    Raw(String),
}

/// The replay file's key names and ours ([`keys::parse_key`]) where they differ.
const NAMES: &[(&str, &str)] = &[
    ("ArrowUp", "Up"),
    ("ArrowDown", "Down"),
    ("ArrowLeft", "Left"),
    ("ArrowRight", "Right"),
    ("Esc", "Escape"),
    ("Del", "Delete"),
    (" ", "Space"),
];

impl Typed {
    /// Our key name for a key event (`Ctrl+Up` for ArrowUp with ctrl); `None` for raw text.
    ///
    /// Errors: an unknown modifier or key name (the message names it).
    pub fn key_name(&self) -> Result<Option<String>, String> {
        let Typed::Key { name, modifiers } = self else {
            return Ok(None);
        };
        let base = NAMES
            .iter()
            .find(|(theirs, _)| theirs.eq_ignore_ascii_case(name))
            .map_or(name.as_str(), |(_, ours)| ours);
        let mut full = String::new();
        for m in modifiers {
            let ours = match m.to_ascii_lowercase().as_str() {
                "shift" => "Shift",
                "alt" | "meta" => "Alt",
                "ctrl" | "control" => "Ctrl",
                _ => return Err(format!("unknown modifier '{m}' (shift, alt, ctrl, meta)")),
            };
            if !full.contains(ours) {
                full.push_str(ours);
                full.push('+');
            }
        }
        full.push_str(base);
        keys::parse_key(&full).map_err(|_| {
            let with = if modifiers.is_empty() {
                String::new()
            } else {
                format!(" with {}", modifiers.join("+"))
            };
            format!(
                "no key '{name}'{with} (key names: Enter, Tab, Escape, Backspace, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, Insert, Delete, PageUp, PageDown, F1–F12, or one character)"
            )
        })?;
        Ok(Some(full))
    }

    /// The bytes typed, for a program in `modes`.
    ///
    /// Errors: a key name or modifier that is unknown, or a key only the kitty keyboard
    /// protocol encodes while the program has not enabled it.
    pub fn bytes(&self, modes: &Modes) -> Result<Vec<u8>, String> {
        match (self, self.key_name()?) {
            (Typed::Raw(text), _) => Ok(text.as_bytes().to_vec()),
            (_, Some(name)) => {
                let key = keys::parse_key(&name).map_err(|e| e.to_string())?;
                keys::encode_key(&key, modes).map_err(|e| e.to_string())
            }
            (_, None) => Ok(Vec::new()),
        }
    }
}

/// Parses a replay file's text into events with absolute times, checking every key.
///
/// Errors: one line saying what is wrong (not JSON, not version 1, a negative or missing
/// time, an unknown type, key name or modifier, which event).
pub fn parse(text: &str) -> Result<Vec<Event>, String> {
    let file: ReplayFile =
        serde_json::from_str(text).map_err(|e| format!("not a replay v1 JSON document: {e}"))?;
    if file.version != "1" {
        return Err(format!(
            "version {:?} is not supported (only \"1\")",
            file.version
        ));
    }
    let mut at = Duration::ZERO;
    let mut events = Vec::with_capacity(file.replay.len());
    for (i, e) in file.replay.into_iter().enumerate() {
        let n = i + 1;
        let seconds = |v: f64, what: &str| {
            if v.is_finite() && (0.0..=1e7).contains(&v) {
                Ok(Duration::from_secs_f64(v))
            } else {
                Err(format!(
                    "event {n}: {what} {v} is not a number of seconds ≥ 0"
                ))
            }
        };
        at = match (e.time, e.tick) {
            (Some(t), _) => seconds(t, "time")?,
            (None, Some(t)) => at + seconds(t, "tick")?,
            (None, None) => at,
        };
        let input = match e.kind.as_str() {
            "keydown" => Typed::Key {
                name: e.key,
                modifiers: e.modifiers,
            },
            "raw" => Typed::Raw(e.key),
            other => return Err(format!("event {n}: type {other:?} is not keydown or raw")),
        };
        input.key_name().map_err(|m| format!("event {n}: {m}"))?;
        events.push(Event { at, input });
    }
    Ok(events)
}

/// The replay file of `events`, `total` long, written by this version at `created_at`.
pub fn write(events: &[Event], total: Duration, created_at: &str) -> String {
    let mut last = Duration::ZERO;
    let replay = events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let (time, tick) = if i == 0 {
                (Some(seconds(e.at)), None)
            } else {
                (None, Some(seconds(e.at.saturating_sub(last))))
            };
            last = e.at;
            let (key, modifiers, kind) = match &e.input {
                Typed::Key { name, modifiers } => (name.clone(), modifiers.clone(), keydown()),
                Typed::Raw(text) => (text.clone(), Vec::new(), "raw".into()),
            };
            FileEvent {
                time,
                tick,
                key,
                modifiers,
                kind,
            }
        })
        .collect();
    let file = ReplayFile {
        version: "1".into(),
        app_version: env!("CARGO_PKG_VERSION").into(),
        created_at: created_at.into(),
        total_duration: seconds(total),
        replay,
    };
    let mut text = serde_json::to_string_pretty(&file).expect("a replay file serialises");
    text.push('\n');
    text
}

/// Seconds, rounded to the millisecond.
fn seconds(d: Duration) -> f64 {
    (d.as_millis() as f64) / 1000.0
}

/// The events in `bytes`, typed at `at` into a terminal: each key a keydown (printable
/// characters, Enter, Tab, Backspace, Escape, arrows, Home/End, Insert/Delete, PageUp/PageDown,
/// F1–F12, Ctrl+letter, Alt+character), anything else raw. The terminal's own reports that
/// arrive on the same input (cursor position, device attributes, mode reports, colour
/// answers, focus in/out) are left out: a program replayed gets its answers from the
/// emulator.
pub fn decode_input(bytes: &[u8], at: Duration) -> Vec<Event> {
    let mut out = Vec::new();
    let key = |name: &str, mods: &[&str]| Typed::Key {
        name: name.to_string(),
        modifiers: mods.iter().map(|m| m.to_string()).collect(),
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let (typed, used) = match rest[0] {
            b'\r' | b'\n' => (Some(key("Enter", &[])), 1),
            b'\t' => (Some(key("Tab", &[])), 1),
            0x7f | 0x08 => (Some(key("Backspace", &[])), 1),
            0x1b => escape(rest),
            c @ 0x01..=0x1a => {
                let letter = ((c - 1 + b'a') as char).to_string();
                (Some(key(&letter, &["ctrl"])), 1)
            }
            _ => match std::str::from_utf8(&rest[..utf8_len(rest[0]).min(rest.len())]) {
                Ok(s) => (
                    s.chars()
                        .next()
                        .filter(|c| !c.is_control())
                        .map(|c| key(&c.to_string(), &[])),
                    s.len(),
                ),
                Err(_) => (
                    Some(Typed::Raw(String::from_utf8_lossy(&rest[..1]).into())),
                    1,
                ),
            },
        };
        let used = used.max(1);
        match typed {
            Some(input) => out.push(Event { at, input }),
            None if rest[0] != 0x1b && rest[0] < 0x20 => out.push(Event {
                at,
                input: Typed::Raw(String::from_utf8_lossy(&rest[..used]).into()),
            }),
            None => {}
        }
        i += used;
    }
    out
}

/// `bytes` typed into a terminal without the terminal's own reports (see [`decode_input`]):
/// what reaches the program when the emulator answers its queries.
pub fn without_reports(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0x1b {
            let (typed, used) = escape(&bytes[i..]);
            if typed.is_some() {
                out.extend_from_slice(&bytes[i..i + used]);
            }
            i += used;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// The length of the UTF-8 sequence a lead byte starts.
fn utf8_len(b: u8) -> usize {
    match b {
        0xf0..=0xf7 => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// An escape sequence at the start of `s` (which starts with ESC): the key it is (`None`:
/// a terminal report, left out) and its length.
fn escape(s: &[u8]) -> (Option<Typed>, usize) {
    let key = |name: &str, mods: &[&str]| {
        Some(Typed::Key {
            name: name.to_string(),
            modifiers: mods.iter().map(|m| m.to_string()).collect(),
        })
    };
    let raw = |n: usize| Some(Typed::Raw(String::from_utf8_lossy(&s[..n]).into()));
    match s.get(1) {
        None => (key("Escape", &[]), 1),
        Some(b'[') => {
            // CSI: parameters, intermediates, a final byte 0x40–0x7e.
            let Some(end) = s[2..].iter().position(|b| (0x40..=0x7e).contains(b)) else {
                return (raw(s.len()), s.len());
            };
            let n = 2 + end + 1;
            let params = &s[2..n - 1];
            let name = match (params, s[n - 1]) {
                (b"", b'A') => "ArrowUp",
                (b"", b'B') => "ArrowDown",
                (b"", b'C') => "ArrowRight",
                (b"", b'D') => "ArrowLeft",
                (b"", b'H') | (b"1", b'~') | (b"7", b'~') => "Home",
                (b"", b'F') | (b"4", b'~') | (b"8", b'~') => "End",
                (b"2", b'~') => "Insert",
                (b"3", b'~') => "Delete",
                (b"5", b'~') => "PageUp",
                (b"6", b'~') => "PageDown",
                (b"15", b'~') => "F5",
                (b"17", b'~') => "F6",
                (b"18", b'~') => "F7",
                (b"19", b'~') => "F8",
                (b"20", b'~') => "F9",
                (b"21", b'~') => "F10",
                (b"23", b'~') => "F11",
                (b"24", b'~') => "F12",
                (b"", b'Z') => return (key("Tab", &["shift"]), n),
                // Reports: cursor position, device attributes, DECRQM, window ops, focus.
                (_, b'R' | b'c' | b'y' | b't' | b'n' | b'I' | b'O') => return (None, n),
                _ => return (raw(n), n),
            };
            (key(name, &[]), n)
        }
        Some(b'O') => match s.get(2) {
            Some(&c) => {
                let name = match c {
                    b'A' => "ArrowUp",
                    b'B' => "ArrowDown",
                    b'C' => "ArrowRight",
                    b'D' => "ArrowLeft",
                    b'H' => "Home",
                    b'F' => "End",
                    b'P' => "F1",
                    b'Q' => "F2",
                    b'R' => "F3",
                    b'S' => "F4",
                    _ => return (raw(3), 3),
                };
                (key(name, &[]), 3)
            }
            None => (key("O", &["alt"]), 2),
        },
        // OSC, DCS, APC: a report, up to BEL or ST.
        Some(b']' | b'P' | b'_') => {
            let end = (2..s.len())
                .find(|&i| s[i] == 0x07 || (s[i] == 0x1b && s.get(i + 1) == Some(&b'\\')))
                .map_or(s.len(), |i| if s[i] == 0x07 { i + 1 } else { i + 2 });
            (None, end)
        }
        Some(&c) if (0x20..0x7f).contains(&c) => (key(&(c as char).to_string(), &["alt"]), 2),
        Some(0x1b) => (key("Escape", &[]), 1),
        Some(_) => (raw(2), 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| match &e.input {
                Typed::Key { name, modifiers } if modifiers.is_empty() => name.clone(),
                Typed::Key { name, modifiers } => format!("{}+{name}", modifiers.join("+")),
                Typed::Raw(t) => format!("raw:{t:?}"),
            })
            .collect()
    }

    #[test]
    fn typed_bytes_become_key_names() {
        let e = decode_input(
            b"ls\r\x1b[A\x1bOB\x03\x7f\t\x1b[21~\x1bx\x1b",
            Duration::ZERO,
        );
        assert_eq!(
            names(&e),
            [
                "l",
                "s",
                "Enter",
                "ArrowUp",
                "ArrowDown",
                "ctrl+c",
                "Backspace",
                "Tab",
                "F10",
                "alt+x",
                "Escape"
            ]
        );
        assert_eq!(
            names(&decode_input("é€".as_bytes(), Duration::ZERO)),
            ["é", "€"]
        );
    }

    #[test]
    fn terminal_reports_are_left_out() {
        let e = decode_input(
            b"a\x1b[12;5R\x1b[?62;22c\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[Ib",
            Duration::ZERO,
        );
        assert_eq!(names(&e), ["a", "b"]);
        assert_eq!(
            without_reports(b"a\x1b[12;5R\x1b[Ab\x1b]11;x\x07"),
            b"a\x1b[Ab"
        );
    }

    #[test]
    fn a_file_round_trips_with_time_then_ticks() {
        let at = |ms| Duration::from_millis(ms);
        let mut events = decode_input(b"l", at(400));
        events.extend(decode_input(b"\r", at(650)));
        let text = write(&events, at(1000), "2026-12-03T09:00:00.000Z");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["version"], "1");
        assert_eq!(v["replay"][0]["time"], 0.4);
        assert_eq!(v["replay"][1]["tick"], 0.25);
        assert!(v["replay"][1].get("time").is_none());
        assert_eq!(v["replay"][1]["key"], "Enter");
        assert_eq!(parse(&text).unwrap(), events);
    }

    #[test]
    fn keys_are_encoded_with_the_programs_modes() {
        let up = Typed::Key {
            name: "ArrowUp".into(),
            modifiers: vec![],
        };
        assert_eq!(up.bytes(&Modes::default()).unwrap(), b"\x1b[A");
        let app = Modes {
            application_cursor: true,
            ..Modes::default()
        };
        assert_eq!(up.bytes(&app).unwrap(), b"\x1bOA");
        let ctrl_c = Typed::Key {
            name: "c".into(),
            modifiers: vec!["ctrl".into()],
        };
        assert_eq!(ctrl_c.bytes(&Modes::default()).unwrap(), b"\x03");
        assert_eq!(Typed::Raw("\x1b[Z".into()).bytes(&app).unwrap(), b"\x1b[Z");
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        assert!(parse("nope")
            .unwrap_err()
            .starts_with("not a replay v1 JSON document"));
        assert_eq!(
            parse(r#"{"version":"2","replay":[]}"#).unwrap_err(),
            "version \"2\" is not supported (only \"1\")"
        );
        let e = parse(r#"{"version":"1","replay":[{"time":0,"key":"Nonesuch"}]}"#).unwrap_err();
        assert!(
            e.starts_with("event 1: no key 'Nonesuch' (key names: Enter,"),
            "{e}"
        );
        let e = parse(r#"{"version":"1","replay":[{"time":-1,"key":"a"}]}"#).unwrap_err();
        assert_eq!(e, "event 1: time -1 is not a number of seconds ≥ 0");
        let e =
            parse(r#"{"version":"1","replay":[{"tick":1,"key":"a","type":"up"}]}"#).unwrap_err();
        assert_eq!(e, "event 1: type \"up\" is not keydown or raw");
    }
}
