//! `termio sessions watch`: the supervisor's stream of status changes (termio-sessions.md,
//! "Supervising with watch"). The host pushes every change of a session's summary
//! ([`crate::host::events`]); this module keeps the caller's project, turns summaries into
//! watch lines, filters them by state and adds the heartbeat.
//!
//! Line shape (`--json`): `{"schema_version": 1, "link", "status", "title", "cwd"?,
//! "snapshot"?, "prompt"? (on needs-you), "transcript"? and "cursor_end"? (on done),
//! "evidence"? (on stalled: termio's stall alarm on the host, [`super::stall`])}`;
//! `{"heartbeat": true}` after [`heartbeat_interval`] of silence. Exit codes: 0 after Ctrl-C,
//! 2 when the host closed the stream.

use std::collections::HashMap;
use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::host::client::{self, StreamEnd};
use crate::host::protocol::{HostError, Request};

/// The statuses a watch can filter on (`--state`). `stalled` is a watch-plane signal only.
pub const STATES: &[&str] = &["working", "idle", "done", "needs-you", "stalled"];

/// The live-event filter when `--state` is not given: the two states a supervisor acts on.
pub const DEFAULT_STATES: &[&str] = &["done", "needs-you"];

/// Longest a `done` line waits for its turn to settle (the transcript catching up, SC-14)
/// before it is printed without `cursor_end`; the host settles a turn well before this.
pub const SETTLE_GRACE: Duration = Duration::from_secs(15);

/// Silence after which `--json` mode writes `{"heartbeat": true}`: 30 s, or
/// `TERMIO_WATCH_HEARTBEAT_MS` (for tests).
pub fn heartbeat_interval() -> Duration {
    std::env::var("TERMIO_WATCH_HEARTBEAT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(30))
}

/// What to watch and how to print it.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// The caller's project directory: only its sessions are shown.
    pub project: String,
    /// Live events to show (statuses from [`STATES`]).
    pub states: Vec<String>,
    /// Print the roster first (one line per session, marked `snapshot`).
    pub snapshot: bool,
    /// NDJSON lines instead of readable ones.
    pub json: bool,
}

/// Parses a `--state` list (`working,idle,done,needs-you,stalled`, comma separated).
///
/// Errors: a message naming the unknown state (the CLI reports it as `bad_request`).
pub fn parse_states(list: &str) -> Result<Vec<String>, String> {
    let mut states = Vec::new();
    for s in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if !STATES.contains(&s) {
            return Err(format!(
                "unknown state {s:?}; expected some of {}",
                STATES.join(",")
            ));
        }
        states.push(s.to_string());
    }
    if states.is_empty() {
        return Err("--state needs at least one state".into());
    }
    Ok(states)
}

/// The watch line for a session entry (the termio list entry inside a host summary).
pub fn line(entry: &Value, snapshot: bool) -> Value {
    let mut v = json!({
        "schema_version": 1,
        "link": entry["link"],
        "status": entry["status"],
        "title": entry["title"],
    });
    let mut copy = |key: &str| {
        if let Some(x) = entry.get(key).filter(|x| !x.is_null()) {
            v[key] = x.clone();
        }
    };
    copy("cwd");
    match entry["status"].as_str() {
        Some("needs-you") => copy("prompt"),
        Some("done") => {
            copy("transcript");
            copy("cursor_end");
        }
        _ => {}
    }
    if snapshot {
        v["snapshot"] = json!(true);
    }
    v
}

fn readable(line: &Value) -> String {
    let tag = if line["snapshot"] == true {
        "now "
    } else {
        "    "
    };
    let mut s = format!(
        "{tag}{:<10} {}  {}",
        line["status"].as_str().unwrap_or("?"),
        line["title"].as_str().unwrap_or(""),
        line["link"].as_str().unwrap_or("")
    );
    if let Some(p) = line["prompt"].as_str() {
        s.push_str(&format!("\n      asks: {p}"));
    }
    if let Some(e) = line["evidence"].as_str() {
        s.push_str(&format!("\n      evidence: {e}"));
    }
    if let (Some(t), Some(c)) = (line["transcript"].as_str(), line["cursor_end"].as_u64()) {
        s.push_str(&format!("\n      transcript: {t} (to line {c})"));
    }
    s
}

/// The termio entry of a host event, when it belongs to `project`.
fn entry_of<'a>(event: &'a Value, project: &str) -> Option<&'a Value> {
    let entry = event["summary"].get("termio")?;
    (entry["project"].as_str() == Some(project)).then_some(entry)
}

/// Runs the watch until Ctrl-C (returns 0) or until the host closes the stream (returns 2),
/// writing lines to `out`.
///
/// Errors: the host's error when the subscription cannot be opened (the caller prints it
/// and exits 1).
pub fn run(options: &WatchOptions, out: &mut dyn Write) -> Result<i32, HostError> {
    client::install_interrupt_handler();
    let (_, mut stream) = client::open_stream(&Request::Subscribe)?;
    let heartbeat = heartbeat_interval();
    let mut last_output = Instant::now();
    // Status last seen per host session id.
    let mut statuses: HashMap<String, String> = HashMap::new();
    // `done` lines held until their turn settles, so they carry this turn's `cursor_end`.
    let mut held: HashMap<String, (Value, Instant)> = HashMap::new();
    let emit = |line: Value, out: &mut dyn Write, last: &mut Instant| {
        let text = if options.json {
            line.to_string()
        } else {
            readable(&line)
        };
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
        *last = Instant::now();
    };
    loop {
        if client::interrupted() {
            return Ok(0);
        }
        let overdue: Vec<String> = held
            .iter()
            .filter(|(_, (_, since))| since.elapsed() >= SETTLE_GRACE)
            .map(|(id, _)| id.clone())
            .collect();
        for id in overdue {
            if let Some((entry, _)) = held.remove(&id) {
                let mut l = line(&entry, false);
                if let Some(o) = l.as_object_mut() {
                    o.remove("cursor_end");
                }
                emit(l, out, &mut last_output);
            }
        }
        let wait = if options.json {
            heartbeat
                .saturating_sub(last_output.elapsed())
                .max(Duration::from_millis(10))
        } else {
            Duration::from_secs(1)
        };
        let wait = if held.is_empty() {
            wait
        } else {
            wait.min(Duration::from_millis(500))
        };
        match stream.next(wait) {
            Ok(event) => {
                let Some(id) = event["sessionId"].as_str() else {
                    continue;
                };
                match event["event"].as_str() {
                    Some("session") => {
                        let Some(entry) = entry_of(&event, &options.project) else {
                            continue;
                        };
                        let status = entry["status"].as_str().unwrap_or("").to_string();
                        let snapshot = event["snapshot"] == true;
                        let changed = statuses.get(id) != Some(&status);
                        statuses.insert(id.to_string(), status.clone());
                        let settling = entry["settling"] == true;
                        if snapshot {
                            if options.snapshot {
                                emit(line(entry, true), out, &mut last_output);
                            }
                        } else if status == "done" && (changed || held.contains_key(id)) {
                            if !options.states.contains(&status) {
                                continue;
                            }
                            if settling {
                                let since = held.get(id).map_or_else(Instant::now, |h| h.1);
                                held.insert(id.to_string(), (entry.clone(), since));
                            } else {
                                held.remove(id);
                                emit(line(entry, false), out, &mut last_output);
                            }
                        } else if changed {
                            // Left `done` before settling: that turn's line is dropped.
                            held.remove(id);
                            if options.states.contains(&status) {
                                emit(line(entry, false), out, &mut last_output);
                            }
                        }
                    }
                    Some("closed") => {
                        statuses.remove(id);
                        if let Some((entry, _)) = held.remove(id) {
                            emit(line(&entry, false), out, &mut last_output);
                        }
                    }
                    Some("stalled") if options.states.iter().any(|s| s == "stalled") => {
                        let Some(entry) = entry_of(&event, &options.project) else {
                            continue;
                        };
                        let mut l = line(entry, false);
                        l["status"] = json!("stalled");
                        for key in ["prompt", "transcript", "cursor_end"] {
                            if let Some(o) = l.as_object_mut() {
                                o.remove(key);
                            }
                        }
                        l["evidence"] = event["evidence"].clone();
                        emit(l, out, &mut last_output);
                    }
                    _ => {}
                }
            }
            Err(StreamEnd::Quiet) => {
                if client::interrupted() {
                    return Ok(0);
                }
                if options.json && last_output.elapsed() >= heartbeat {
                    emit(json!({"heartbeat": true}), out, &mut last_output);
                }
            }
            Err(StreamEnd::Closed) => {
                if client::interrupted() {
                    return Ok(0);
                }
                eprintln!("termio: the session host went away; the watch ends (exit code 2)");
                return Ok(2);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_checked() {
        assert_eq!(
            parse_states("done, needs-you").unwrap(),
            ["done", "needs-you"]
        );
        assert!(parse_states("done,finished")
            .unwrap_err()
            .contains("finished"));
        assert!(parse_states(",").is_err());
    }

    #[test]
    fn lines_carry_only_what_their_status_calls_for() {
        let entry = json!({
            "link": "termio://session/x", "status": "done", "title": "t",
            "prompt": "Allow?", "transcript": "/t.jsonl", "cursor_end": 42,
        });
        let v = line(&entry, false);
        assert_eq!(v["transcript"], "/t.jsonl");
        assert_eq!(v["cursor_end"], 42);
        assert!(v.get("prompt").is_none());
        assert!(v.get("snapshot").is_none());
        assert!(v.get("cwd").is_none());
        let mut asking = entry.clone();
        asking["status"] = json!("needs-you");
        let v = line(&asking, true);
        assert_eq!(v["prompt"], "Allow?");
        assert_eq!(v["snapshot"], true);
        assert!(v.get("transcript").is_none());
    }
}
