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

use serde::{Deserialize, Serialize};

use super::reply::{SessionEntry, Status};
use super::wire::{SummaryPart, OP};
use crate::host::client::{self, StreamEnd};
use crate::host::events::{Event, Summary};
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

/// One line of `watch --json` for a session: its link, status (or `stalled`) and title, and
/// what the status calls for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// Always 1.
    pub schema_version: u32,
    /// The session's link.
    pub link: String,
    /// The session's status (see [`Status`]), or `stalled` for a stall alarm.
    pub status: String,
    /// Its title.
    pub title: String,
    /// The shell's current directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// `needs-you`: the question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// `done`: the agent's transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// `done`: the transcript's line count when the turn settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_end: Option<u64>,
    /// Part of the roster printed first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub snapshot: bool,
    /// `stalled`: the stall alarm's reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// `{"heartbeat": true}`, written after [`heartbeat_interval`] of silence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heartbeat {
    /// Always true.
    pub heartbeat: bool,
}

/// The watch line for a session entry: `prompt` only on `needs-you`, `transcript` and
/// `cursor_end` only on `done`.
pub fn line(entry: &SessionEntry, snapshot: bool) -> Line {
    let needs_you = entry.status == Status::NeedsYou;
    let done = entry.status == Status::Done;
    Line {
        schema_version: 1,
        link: entry.link.clone(),
        status: entry.status.as_str().to_string(),
        title: entry.title.clone(),
        cwd: entry.cwd.clone(),
        prompt: entry.prompt.clone().filter(|_| needs_you),
        transcript: entry.transcript.clone().filter(|_| done),
        cursor_end: entry.cursor_end.filter(|_| done),
        snapshot,
        evidence: None,
    }
}

/// The stall alarm's line for a session entry: status `stalled` and the evidence.
pub fn stalled_line(entry: &SessionEntry, evidence: String) -> Line {
    Line {
        status: "stalled".into(),
        prompt: None,
        transcript: None,
        cursor_end: None,
        evidence: Some(evidence),
        ..line(entry, false)
    }
}

fn readable(line: &Line) -> String {
    let tag = if line.snapshot { "now " } else { "    " };
    let mut s = format!("{tag}{:<10} {}  {}", line.status, line.title, line.link);
    if let Some(p) = &line.prompt {
        s.push_str(&format!("\n      asks: {p}"));
    }
    if let Some(e) = &line.evidence {
        s.push_str(&format!("\n      evidence: {e}"));
    }
    if let (Some(t), Some(c)) = (&line.transcript, line.cursor_end) {
        s.push_str(&format!("\n      transcript: {t} (to line {c})"));
    }
    s
}

/// termio's part of a host summary, when the session belongs to `project`.
fn part_of(summary: &Summary, project: &str) -> Option<SummaryPart> {
    let part: SummaryPart = summary.part(OP)?;
    (part.project == project).then_some(part)
}

/// The watch as a model: host events in, watch lines out, for one project and a state filter.
/// Shared by `termio sessions watch` ([`run`]) and the MCP server's watch resource; the time is
/// an argument, so it is tested without a clock.
#[derive(Debug)]
pub struct Watcher {
    project: String,
    states: Vec<String>,
    snapshot: bool,
    /// Status last seen per host session id.
    statuses: HashMap<String, Status>,
    /// `done` entries held until their turn settles, so they carry this turn's `cursor_end`,
    /// with when they were first held.
    held: HashMap<String, (SessionEntry, Instant)>,
}

impl Watcher {
    /// A watch of `project`'s sessions showing live changes to `states` (from [`STATES`]),
    /// and the roster lines of the subscription's start when `snapshot`.
    pub fn new(project: String, states: Vec<String>, snapshot: bool) -> Watcher {
        Watcher {
            project,
            states,
            snapshot,
            statuses: HashMap::new(),
            held: HashMap::new(),
        }
    }

    fn shows(&self, status: &str) -> bool {
        self.states.iter().any(|s| s == status)
    }

    /// Whether a `done` line is held for its turn to settle (poll [`Watcher::overdue`] often).
    pub fn holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// The held `done` lines whose [`SETTLE_GRACE`] ran out by `now`, without `cursor_end`.
    pub fn overdue(&mut self, now: Instant) -> Vec<Line> {
        let due: Vec<String> = self
            .held
            .iter()
            .filter(|(_, (_, since))| now.duration_since(*since) >= SETTLE_GRACE)
            .map(|(id, _)| id.clone())
            .collect();
        due.into_iter()
            .filter_map(|id| self.held.remove(&id))
            .map(|(entry, _)| Line {
                cursor_end: None,
                ..line(&entry, false)
            })
            .collect()
    }

    /// The lines one host event (seen at `now`) makes due: a status change of a session of
    /// the project that the filter shows, a settled `done`, a roster line, a stall alarm.
    pub fn event(&mut self, event: Event, now: Instant) -> Vec<Line> {
        let mut out = Vec::new();
        match event {
            Event::Session {
                session_id: id,
                summary,
                snapshot,
            } => {
                let Some(part) = part_of(&summary, &self.project) else {
                    return out;
                };
                let entry = part.entry;
                let status = entry.status;
                let changed = self.statuses.get(&id) != Some(&status);
                self.statuses.insert(id.clone(), status);
                if snapshot {
                    if self.snapshot {
                        out.push(line(&entry, true));
                    }
                } else if status == Status::Done && (changed || self.held.contains_key(&id)) {
                    if !self.shows(status.as_str()) {
                        return out;
                    }
                    if part.settling {
                        let since = self.held.get(&id).map_or(now, |h| h.1);
                        self.held.insert(id, (entry, since));
                    } else {
                        self.held.remove(&id);
                        out.push(line(&entry, false));
                    }
                } else if changed {
                    // Left `done` before settling: that turn's line is dropped.
                    self.held.remove(&id);
                    if self.shows(status.as_str()) {
                        out.push(line(&entry, false));
                    }
                }
            }
            Event::Closed { session_id: id, .. } => {
                self.statuses.remove(&id);
                if let Some((entry, _)) = self.held.remove(&id) {
                    out.push(line(&entry, false));
                }
            }
            Event::Stalled {
                summary: Some(summary),
                evidence,
                ..
            } if self.shows("stalled") => {
                if let Some(part) = part_of(&summary, &self.project) {
                    out.push(stalled_line(&part.entry, evidence));
                }
            }
            _ => {}
        }
        out
    }
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
    let mut watcher = Watcher::new(
        options.project.clone(),
        options.states.clone(),
        options.snapshot,
    );
    let emit = |line: Line, out: &mut dyn Write, last: &mut Instant| {
        let text = if options.json {
            serde_json::to_string(&line).expect("watch lines serialise")
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
        for l in watcher.overdue(Instant::now()) {
            emit(l, out, &mut last_output);
        }
        let wait = if options.json {
            heartbeat
                .saturating_sub(last_output.elapsed())
                .max(Duration::from_millis(10))
        } else {
            Duration::from_secs(1)
        };
        let wait = if watcher.holding() {
            wait.min(Duration::from_millis(500))
        } else {
            wait
        };
        match stream.next(wait) {
            Ok(value) => {
                // Events of kinds this client does not know are skipped.
                let Ok(event) = serde_json::from_value::<Event>(value) else {
                    continue;
                };
                for l in watcher.event(event, Instant::now()) {
                    emit(l, out, &mut last_output);
                }
            }
            Err(StreamEnd::Quiet) => {
                if client::interrupted() {
                    return Ok(0);
                }
                if options.json && last_output.elapsed() >= heartbeat {
                    let beat = serde_json::to_string(&Heartbeat { heartbeat: true })
                        .expect("heartbeats serialise");
                    let _ = writeln!(out, "{beat}");
                    let _ = out.flush();
                    last_output = Instant::now();
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
        let entry = SessionEntry {
            link: "termio://session/x".into(),
            id: "x".into(),
            title: "t".into(),
            agent: "claude".into(),
            status: Status::Done,
            description: "claude".into(),
            transcript: Some("/t.jsonl".into()),
            cwd: None,
            reason: None,
            since: None,
            prompt: Some("Allow?".into()),
            cursor_end: Some(42),
        };
        assert_eq!(
            serde_json::to_string(&line(&entry, false)).unwrap(),
            r#"{"schema_version":1,"link":"termio://session/x","status":"done","title":"t","transcript":"/t.jsonl","cursor_end":42}"#
        );
        let asking = SessionEntry {
            status: Status::NeedsYou,
            ..entry.clone()
        };
        assert_eq!(
            serde_json::to_string(&line(&asking, true)).unwrap(),
            r#"{"schema_version":1,"link":"termio://session/x","status":"needs-you","title":"t","prompt":"Allow?","snapshot":true}"#
        );
        let working = SessionEntry {
            status: Status::Working,
            cwd: Some("/p".into()),
            ..entry
        };
        assert_eq!(
            serde_json::to_string(&stalled_line(&working, "working 42m".into())).unwrap(),
            r#"{"schema_version":1,"link":"termio://session/x","status":"stalled","title":"t","cwd":"/p","evidence":"working 42m"}"#
        );
    }

    fn event(project: &str, status: Status, settling: bool, snapshot: bool) -> Event {
        let entry = SessionEntry {
            link: "termio://session/s1".into(),
            id: "s1".into(),
            title: "agent".into(),
            agent: "claude".into(),
            status,
            description: "claude".into(),
            transcript: Some("/t.jsonl".into()),
            cwd: None,
            reason: None,
            since: None,
            prompt: Some("Trust this folder?".into()),
            cursor_end: Some(7),
        };
        let part = SummaryPart {
            entry,
            project: project.into(),
            settling,
        };
        let mut parts = serde_json::Map::new();
        parts.insert(OP.into(), serde_json::to_value(part).unwrap());
        Event::Session {
            session_id: "s1".into(),
            summary: Summary {
                state: crate::host::session::State::Running,
                width: 80,
                height: 24,
                exit_code: None,
                title: None,
                parts,
            },
            snapshot,
        }
    }

    fn statuses(lines: &[Line]) -> Vec<&str> {
        lines.iter().map(|l| l.status.as_str()).collect()
    }

    /// The watch model: the roster, changes only, the state filter, other projects left out,
    /// and a `done` held until its turn settles or its grace runs out.
    #[test]
    fn the_watcher_turns_host_events_into_lines() {
        let t0 = Instant::now();
        let mut w = Watcher::new("/p".into(), vec!["done".into(), "needs-you".into()], true);
        assert_eq!(
            statuses(&w.event(event("/p", Status::Working, false, true), t0)),
            ["working"],
            "roster"
        );
        assert!(w
            .event(event("/p", Status::Working, false, false), t0)
            .is_empty());
        assert!(w
            .event(event("/other", Status::NeedsYou, false, false), t0)
            .is_empty());
        let asks = w.event(event("/p", Status::NeedsYou, false, false), t0);
        assert_eq!(asks[0].prompt.as_deref(), Some("Trust this folder?"));
        assert!(
            w.event(event("/p", Status::Working, false, false), t0)
                .is_empty(),
            "filtered"
        );
        // A settling done is held; the settled one is the line.
        assert!(w
            .event(event("/p", Status::Done, true, false), t0)
            .is_empty());
        assert!(w.holding());
        let done = w.event(event("/p", Status::Done, false, false), t0);
        assert_eq!(
            (statuses(&done), done[0].cursor_end),
            (vec!["done"], Some(7))
        );
        assert!(!w.holding());
        // One that never settles comes out after the grace, without cursor_end.
        w.event(event("/p", Status::Working, false, false), t0);
        assert!(w
            .event(event("/p", Status::Done, true, false), t0)
            .is_empty());
        assert!(w.overdue(t0 + SETTLE_GRACE / 2).is_empty());
        let late = w.overdue(t0 + SETTLE_GRACE);
        assert_eq!((statuses(&late), late[0].cursor_end), (vec!["done"], None));
    }
}
