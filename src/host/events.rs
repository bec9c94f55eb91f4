//! Events the host pushes to subscribers: session summaries as they change, sessions that
//! close, and focus moves. This is what `termio sessions watch` and `termio attach` stand on:
//! the host observes its sessions (every [`MONITOR_TICK`]) and writes one NDJSON line per
//! change to each subscribed connection, so clients never poll.
//!
//! Event lines (camelCase, like the rest of the host protocol):
//! - `{"event": "session", "sessionId": …, "summary": {…}, "snapshot": true?}`: a session's
//!   summary ([`summary`]) changed, or (with `snapshot`) the roster sent on subscribing.
//! - `{"event": "closed", "sessionId": …, "summary": {…}}`: the session left the registry
//!   (stopped, closed, or its retention ran out); `summary` is the last one seen.
//! - `{"event": "focus", "scope": …, "sessionId": …, "snapshot": true?}`: the focused session
//!   of a scope (a termio project) changed.
//! - `{"event": "stalled", "sessionId": …, "summary": {…}, "evidence": "working 42m, …"}`:
//!   the stall alarm ([`super::stall`]) fired for a working session. The summary (and the
//!   session's status) is unchanged by it.
//!
//! Focus is per scope: a string the client chooses (termio uses the project directory).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustix::net::RecvFlags;
use serde_json::{json, Value};

use super::session::{Session, State};
use super::stall::{self, Detector, Sample, StallConfig};
use super::termio;
use crate::termio::project::Registry;

/// One session at one tick: its id, its summary, and the agent status sequence the summary
/// reflects.
type Fresh = (String, Value, u64);

/// How often the host re-reads its sessions' summaries for changes.
pub const MONITOR_TICK: Duration = Duration::from_millis(100);

/// A session as the monitor knows it.
struct Watched {
    session: Arc<Session>,
    /// The summary last published (`None` before the first tick).
    last: Option<Value>,
    /// The agent status sequence last looked at (see `agent_status::Slot::asked_since`).
    asked_seq: u64,
}

#[derive(Default)]
struct Inner {
    sessions: BTreeMap<String, Watched>,
    subscribers: Vec<Sender<Value>>,
    /// Focused session id per scope.
    focus: BTreeMap<String, String>,
    /// Subscriptions not yet dropped.
    live: usize,
}

/// The host's event hub: the sessions it watches, the subscribers it writes to, and the focus
/// per scope. Shared between the worker (which adds and removes sessions), the monitor thread
/// and the connection threads of subscribers.
#[derive(Default)]
pub struct Hub {
    inner: Mutex<Inner>,
    /// The stall detector and when its config was read; only the monitor thread
    /// ([`Hub::tick`]) uses it.
    stall: Mutex<Option<(Detector, Instant)>>,
}

/// The summary of a session that subscribers see: the host state, size in cells, exit code,
/// title (OSC 0/2) and `termio`: the termio list entry ([`super::termio::list_entry`]) plus
/// the session's `project` (its directory under `registry`) and, for an agent whose turn has
/// not settled yet (its transcript catching up), `settling: true`. Any change of any field is an
/// event. Also returns the agent status sequence the summary reflects (0 for plain terminals).
///
/// Takes the session's lock briefly; never call it while holding [`Session::lock`].
pub fn summary(session: &Session, registry: &Registry) -> (Value, u64) {
    let mut v = {
        let g = session.lock();
        let mut v = json!({
            "state": g.state.as_str(),
            "width": g.emulator.cols(),
            "height": g.emulator.rows(),
        });
        if let Some(exit) = &g.exit {
            v["exitCode"] = json!(exit.code);
        }
        if let Some(title) = g.emulator.title() {
            v["title"] = json!(title);
        }
        v
    };
    // One view of the agent for the whole summary, so its parts (and `seq`) agree.
    let view = session.termio.agent.view();
    let mut entry =
        serde_json::to_value(termio::entry_with(session, view.as_ref())).unwrap_or(Value::Null);
    entry["project"] = json!(termio::project_of(session, registry).to_string_lossy());
    if view.as_ref().is_some_and(|v| v.settling) {
        entry["settling"] = json!(true);
    }
    v["termio"] = entry;
    (v, view.map_or(0, |v| v.seq))
}

impl Hub {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes the watched sessions those of the host's registry: sessions new to it are
    /// watched (the next tick publishes their first summary), sessions gone from it are
    /// published as `closed` with their last summary and their focus is dropped. The host
    /// calls this after every request and retention sweep.
    pub fn sync(&self, sessions: &HashMap<String, Arc<Session>>) {
        let mut inner = self.inner();
        let gone: Vec<String> = inner
            .sessions
            .keys()
            .filter(|id| !sessions.contains_key(*id))
            .cloned()
            .collect();
        if !gone.is_empty() {
            let registry = Registry::load().unwrap_or_default();
            for id in gone {
                let Some(w) = inner.sessions.remove(&id) else {
                    continue;
                };
                let last = w.last.unwrap_or_else(|| summary(&w.session, &registry).0);
                inner.focus.retain(|_, f| *f != id);
                publish(
                    &mut inner,
                    json!({"event": "closed", "sessionId": id, "summary": last}),
                );
            }
        }
        for (id, session) in sessions {
            inner.sessions.entry(id.clone()).or_insert_with(|| Watched {
                session: session.clone(),
                last: None,
                asked_seq: 0,
            });
        }
    }

    /// The watched sessions and their summaries now (computed outside the hub's lock: each
    /// takes its session's lock briefly), each with the agent status sequence it reflects.
    fn summaries(&self) -> (Vec<Arc<Session>>, Vec<Fresh>) {
        let sessions: Vec<Arc<Session>> = self
            .inner()
            .sessions
            .values()
            .map(|w| w.session.clone())
            .collect();
        let registry = Registry::load().unwrap_or_default();
        let fresh = sessions
            .iter()
            .map(|s| {
                let (summary, seq) = summary(s, &registry);
                (s.id.clone(), summary, seq)
            })
            .collect();
        (sessions, fresh)
    }

    /// Re-reads every session's summary and publishes the ones that changed. Summaries are
    /// computed outside the hub's lock (each takes its session's lock briefly).
    pub fn tick(&self) {
        let (sessions, fresh) = self.summaries();
        let stalled = self.detect_stalls(&sessions, &fresh);
        let mut inner = self.inner();
        for (id, evidence) in stalled {
            let summary = fresh
                .iter()
                .find(|(i, ..)| *i == id)
                .map(|(_, v, _)| v.clone());
            publish(
                &mut inner,
                json!({"event": "stalled", "sessionId": id, "summary": summary, "evidence": evidence}),
            );
        }
        for (id, now, seq) in fresh {
            let Some(w) = inner.sessions.get_mut(&id) else {
                continue; // Removed meanwhile; `remove` published it.
            };
            // Questions asked and answered between two ticks: published as the `needs-you`
            // summaries they were, before the summary now (a supervisor must see every one).
            // Only changes up to `seq` (the one the summary reflects), so they precede it;
            // later ones are the next tick's.
            let (_, asked) = w.session.termio.agent.asked_since(w.asked_seq);
            w.asked_seq = w.asked_seq.max(seq);
            let asking_now = now["termio"]["status"] == "needs-you";
            let missed: Vec<Value> = asked
                .into_iter()
                .filter(|(s, _)| *s <= seq && !(asking_now && *s == seq))
                .map(|(_, question)| {
                    let mut past = now.clone();
                    past["termio"]["status"] = json!("needs-you");
                    if let Some(q) = question {
                        past["termio"]["prompt"] = json!(q);
                    }
                    json!({"event": "session", "sessionId": id, "summary": past})
                })
                .collect();
            // After a missed question the summary now follows even when it equals the last.
            let changed = w.last.as_ref() != Some(&now) || !missed.is_empty();
            w.last = Some(now.clone());
            for event in missed {
                publish(&mut inner, event);
            }
            if changed {
                publish(
                    &mut inner,
                    json!({"event": "session", "sessionId": id, "summary": now}),
                );
            }
        }
    }

    /// Runs the stall detector over this tick's summaries (outside the hub's lock: it may run
    /// `git`); returns `(session id, evidence)` for each alarm that fired.
    fn detect_stalls(&self, sessions: &[Arc<Session>], fresh: &[Fresh]) -> Vec<(String, String)> {
        let mut guard = self.stall.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let (detector, loaded) =
            guard.get_or_insert_with(|| (Detector::new(StallConfig::load()), now));
        if now.duration_since(*loaded) >= stall::RELOAD {
            detector.set_config(StallConfig::load());
            *loaded = now;
        }
        let mut fired = Vec::new();
        for (session, (id, summary, _)) in sessions.iter().zip(fresh) {
            let entry = &summary["termio"];
            let project = PathBuf::from(entry["project"].as_str().unwrap_or("/"));
            let transcript = entry["transcript"].as_str().map(PathBuf::from);
            let sample = Sample {
                status: entry["status"].as_str().unwrap_or(""),
                project: &project,
                transcript: transcript.as_deref(),
                output_lines: session.lock().emulator.line_feeds(),
            };
            if let Some(evidence) = detector.observe(id, &sample, now) {
                fired.push((id.clone(), evidence));
            }
        }
        let live: std::collections::HashSet<&String> = fresh.iter().map(|(id, ..)| id).collect();
        detector.retain(|id| live.contains(&id.to_string()));
        fired
    }

    /// Sets the focused session of `scope` and publishes the move (also when it is the same
    /// session: a client asking for focus wants the front ends to show it).
    pub fn focus(&self, scope: &str, id: &str) {
        let mut inner = self.inner();
        inner.focus.insert(scope.to_string(), id.to_string());
        publish(
            &mut inner,
            json!({"event": "focus", "scope": scope, "sessionId": id}),
        );
    }

    /// The focused session of `scope`, if any.
    pub fn focused(&self, scope: &str) -> Option<String> {
        self.inner().focus.get(scope).cloned()
    }

    /// Subscribes: returns the roster (one `session` event per watched session and one `focus`
    /// event per scope, all marked `snapshot`) and the receiver of every later event. The
    /// subscription counts as activity (the host does not exit idle) until it is dropped.
    pub fn subscribe(self: &Arc<Hub>) -> Subscription {
        let summaries: HashMap<String, Value> = self
            .summaries()
            .1
            .into_iter()
            .map(|(id, v, _)| (id, v))
            .collect();
        let mut guard = self.inner();
        let inner = &mut *guard;
        let (tx, rx) = mpsc::channel();
        let mut roster = Vec::new();
        for (id, w) in inner.sessions.iter_mut() {
            let Some(now) = summaries.get(id).cloned() else {
                continue;
            };
            if w.last.as_ref() != Some(&now) {
                // Other subscribers have not seen this yet: they get it as an event, so the
                // roster and what everyone was told agree.
                w.last = Some(now.clone());
                let event = json!({"event": "session", "sessionId": id, "summary": now});
                inner_publish(&mut inner.subscribers, event);
            }
            roster.push(
                json!({"event": "session", "sessionId": id, "summary": now, "snapshot": true}),
            );
        }
        for (scope, id) in &inner.focus {
            roster
                .push(json!({"event": "focus", "scope": scope, "sessionId": id, "snapshot": true}));
        }
        inner.subscribers.push(tx);
        inner.live += 1;
        Subscription {
            roster,
            events: rx,
            hub: self.clone(),
        }
    }

    /// Number of live subscriptions (a host with subscribers is not idle).
    pub fn subscribers(&self) -> usize {
        self.inner().live
    }
}

/// One subscriber's view: the roster at the moment of subscribing, then the event stream.
pub struct Subscription {
    /// Snapshot events, in session-id order, then focus per scope.
    pub roster: Vec<Value>,
    /// Every event after the roster.
    pub events: Receiver<Value>,
    hub: Arc<Hub>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut inner = self.hub.inner();
        inner.live = inner.live.saturating_sub(1);
    }
}

fn publish(inner: &mut Inner, event: Value) {
    inner_publish(&mut inner.subscribers, event);
}

fn inner_publish(subscribers: &mut Vec<Sender<Value>>, event: Value) {
    subscribers.retain(|tx| tx.send(event.clone()).is_ok());
}

/// Longest a stream waits before checking whether its client went away.
const STREAM_CHECK: Duration = Duration::from_secs(1);

/// Least time between two screens sent to an attached client (about 30 frames a second).
pub const FRAME_INTERVAL: Duration = Duration::from_millis(33);

/// True when the peer closed its end (a zero-byte peek); false while it is open.
fn peer_closed(stream: &UnixStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(
        rustix::net::recv(stream, &mut byte, RecvFlags::PEEK | RecvFlags::DONTWAIT),
        Ok((0, _))
    )
}

fn write_line(stream: &mut UnixStream, value: &Value) -> std::io::Result<()> {
    let mut line = value.to_string();
    line.push('\n');
    stream.write_all(line.as_bytes())
}

/// Serves a `subscribe` request on its connection until the client goes away: the
/// acknowledgement `{"schemaVersion": 1, "subscribed": true}`, the roster, then every event.
pub fn serve_subscription(mut stream: UnixStream, subscription: Subscription) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let ack = json!({"schemaVersion": 1, "subscribed": true});
    if write_line(&mut stream, &ack).is_err() {
        return;
    }
    for event in &subscription.roster {
        if write_line(&mut stream, event).is_err() {
            return;
        }
    }
    loop {
        match subscription.events.recv_timeout(STREAM_CHECK) {
            Ok(event) => {
                if write_line(&mut stream, &event).is_err() {
                    return;
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if peer_closed(&stream) {
                    return;
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Serves an `attach` request: the acknowledgement, then `{"event": "screen", "version",
/// "state", "screen": Screen}` (the viewport) each time the screen changes (at most one frame
/// per [`FRAME_INTERVAL`]), and `{"event": "ended", "state", "exitCode"?}` when the session's
/// program has ended. Returns when the client goes away or the session ends.
pub fn serve_attach(mut stream: UnixStream, session: Arc<Session>) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let ack = json!({"schemaVersion": 1, "attached": true, "sessionId": session.id});
    if write_line(&mut stream, &ack).is_err() {
        return;
    }
    let mut seen = 0;
    let mut last_frame: Option<Instant> = None;
    loop {
        let (version, state) = session.wait_for_change(seen, STREAM_CHECK);
        if version != seen {
            if let Some(t) = last_frame {
                std::thread::sleep(FRAME_INTERVAL.saturating_sub(t.elapsed()));
            }
            let (screen, version, state) = {
                let g = session.lock();
                (g.emulator.snapshot(), g.version, g.state)
            };
            let frame = json!({"event": "screen", "version": version, "state": state.as_str(), "screen": screen});
            if write_line(&mut stream, &frame).is_err() {
                return;
            }
            seen = version;
            last_frame = Some(Instant::now());
        }
        if state != State::Running {
            let g = session.lock();
            let mut end = json!({"event": "ended", "state": g.state.as_str()});
            if let Some(exit) = &g.exit {
                end["exitCode"] = json!(exit.code);
            }
            drop(g);
            let _ = write_line(&mut stream, &end);
            return;
        }
        if version == seen && peer_closed(&stream) {
            return;
        }
    }
}
