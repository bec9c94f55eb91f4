//! Events the host pushes to subscribers: session summaries as they change, sessions that
//! close, and focus moves. This is what `termio sessions watch` and `termio attach` stand on:
//! the host observes its sessions (every [`MONITOR_TICK`]) and writes one NDJSON line per
//! change to each subscribed connection, so clients never poll.
//!
//! Event lines ([`Event`]; camelCase, like the rest of the host protocol):
//! - `{"event": "session", "sessionId": …, "summary": {…}, "snapshot": true?}`: a session's
//!   summary ([`Summary`]) changed, or (with `snapshot`) the roster sent on subscribing.
//! - `{"event": "closed", "sessionId": …, "summary": {…}}`: the session left the registry
//!   (stopped, closed, or its retention ran out); `summary` is the last one seen.
//! - `{"event": "focus", "scope": …, "sessionId": …, "snapshot": true?}`: the focused session
//!   of a scope (a termio project) changed.
//! - `{"event": "stalled", "sessionId": …, "summary": {…}, "evidence": "working 42m, …"}`:
//!   an extension's stall alarm (termio's) fired for a working session. The summary (and the
//!   session's status) is unchanged by it.
//!
//! The attach stream's lines are [`Frame`]s. Focus is per scope: a string the client chooses
//! (termio uses the project directory). Extensions ([`super::extension`]) add their part to
//! every summary and may add events at each tick.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustix::net::RecvFlags;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::extension::{Extension, Fresh};
use super::protocol::Launch;
use super::session::{Session, Sessions, State};
use crate::term::Screen;

/// How often the host re-reads its sessions' summaries for changes.
pub const MONITOR_TICK: Duration = Duration::from_millis(100);

/// The summary of a session that subscribers see: the host state, size in cells, exit code,
/// title (OSC 0/2), then each extension's part under its name (termio: `termio`, its list
/// entry plus the session's project). Any change of any field is an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The session's state.
    pub state: State,
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// The program's exit code, once it has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The title the program set (OSC 0/2), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The extensions' parts, by extension name.
    #[serde(flatten)]
    pub parts: Map<String, Value>,
}

impl Summary {
    /// The host's part of `session`'s summary now (no extension parts). Takes the session's
    /// lock briefly.
    fn of(session: &Session) -> Summary {
        let g = session.lock();
        Summary {
            state: g.state,
            width: g.emulator.cols(),
            height: g.emulator.rows(),
            exit_code: g.exit.as_ref().map(|e| e.code),
            title: g.emulator.title().map(str::to_string),
            parts: Map::new(),
        }
    }

    /// The part of extension `name`, read as `T`; `None` when there is none or it does not
    /// fit.
    pub fn part<T: serde::de::DeserializeOwned>(&self, name: &str) -> Option<T> {
        T::deserialize(self.parts.get(name)?).ok()
    }
}

/// One line of a subscription's stream (after its acknowledgement).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "event",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// A session's summary changed, or (`snapshot`) it is part of the roster.
    Session {
        /// The host session id.
        session_id: String,
        /// Its summary now.
        summary: Summary,
        /// Part of the roster sent on subscribing.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        snapshot: bool,
    },
    /// The session left the registry.
    Closed {
        /// The host session id.
        session_id: String,
        /// The last summary published (or taken) for it.
        summary: Summary,
    },
    /// The focused session of `scope` changed.
    Focus {
        /// The scope (termio: a project directory).
        scope: String,
        /// The focused session.
        session_id: String,
        /// Part of the roster sent on subscribing.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        snapshot: bool,
    },
    /// An extension's stall alarm fired for a working session.
    Stalled {
        /// The host session id.
        session_id: String,
        /// Its summary at the tick the alarm fired.
        summary: Option<Summary>,
        /// The alarm's reasoning (`working 42m, no repo change, transcript +3 lines`).
        evidence: String,
    },
}

impl Event {
    /// The session the event is about (the focused one for `focus`).
    pub fn session_id(&self) -> &str {
        match self {
            Event::Session { session_id, .. }
            | Event::Closed { session_id, .. }
            | Event::Focus { session_id, .. }
            | Event::Stalled { session_id, .. } => session_id,
        }
    }

    /// A `session` event (not part of the roster).
    fn session(id: &str, summary: Summary) -> Event {
        Event::Session {
            session_id: id.to_string(),
            summary,
            snapshot: false,
        }
    }
}

/// One line of an attach stream (after its acknowledgement).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "event",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Frame {
    /// The session's viewport changed.
    Screen {
        /// The screen version shown.
        version: u64,
        /// The session's state.
        state: State,
        /// The viewport.
        screen: Box<Screen>,
    },
    /// The session's program has ended; the stream ends.
    Ended {
        /// The session's state.
        state: State,
        /// The program's exit code, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
    },
}

/// The acknowledgement of a `subscribe` request: `{"schemaVersion": 1, "subscribed": true}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscribed {
    /// Always 1.
    pub schema_version: u32,
    /// Always true.
    pub subscribed: bool,
}

/// The acknowledgement of an `attach` request:
/// `{"schemaVersion": 1, "attached": true, "sessionId": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attached {
    /// Always 1.
    pub schema_version: u32,
    /// Always true.
    pub attached: bool,
    /// The session attached to.
    pub session_id: String,
}

/// One session's summary at one tick, with the marks of its extension parts (in the order
/// of the hub's extensions).
struct Taken {
    id: String,
    session: Arc<Session>,
    summary: Summary,
    marks: Vec<u64>,
}

/// A session as the monitor knows it.
struct Watched {
    session: Arc<Session>,
    /// The summary last published (`None` before the first tick).
    last: Option<Summary>,
}

#[derive(Default)]
struct Inner {
    sessions: BTreeMap<String, Watched>,
    subscribers: Vec<Sender<Event>>,
    /// Focused session id per scope.
    focus: BTreeMap<String, String>,
    /// Subscriptions not yet dropped.
    live: usize,
}

/// The host's event hub: the sessions it watches, the subscribers it writes to, the focus
/// per scope, and the installed extensions it consults for summaries and notifies. Shared
/// between the request loop (which adds and removes sessions), the monitor thread and the
/// stream threads of subscribers.
#[derive(Default)]
pub struct Hub {
    inner: Mutex<Inner>,
    extensions: Vec<Arc<dyn Extension>>,
}

impl Hub {
    /// A hub consulting `extensions`.
    pub fn new(extensions: Vec<Arc<dyn Extension>>) -> Hub {
        Hub {
            inner: Mutex::default(),
            extensions,
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The installed extension named `name` (a request's op).
    pub fn extension(&self, name: &str) -> Option<Arc<dyn Extension>> {
        self.extensions.iter().find(|e| e.name() == name).cloned()
    }

    /// Tells the extensions that the host's `start` request started `session` from `launch`.
    pub fn session_started(&self, session: &Arc<Session>, launch: &Launch) {
        for e in &self.extensions {
            e.session_started(session, launch);
        }
    }

    /// The summaries of `sessions` now, each with its extension parts and their marks.
    /// Takes each session's lock briefly; never call it while holding one.
    fn summaries(&self, sessions: &[Arc<Session>]) -> Vec<(Summary, Vec<u64>)> {
        let mut out: Vec<(Summary, Vec<u64>)> = sessions
            .iter()
            .map(|s| (Summary::of(s), Vec::new()))
            .collect();
        for e in &self.extensions {
            let parts = e.parts(sessions);
            for ((summary, marks), part) in out.iter_mut().zip(parts) {
                match part {
                    Some(p) => {
                        summary.parts.insert(e.name().to_string(), p.value);
                        marks.push(p.mark);
                    }
                    None => marks.push(0),
                }
            }
        }
        out
    }

    /// The summary of `session` now (see [`Summary`]). Takes the session's lock briefly;
    /// never call it while holding [`Session::lock`].
    pub fn summary(&self, session: &Arc<Session>) -> Summary {
        self.summaries(std::slice::from_ref(session))
            .pop()
            .map(|s| s.0)
            .expect("one summary per session")
    }

    /// Makes the watched sessions those of the host's registry: sessions new to it are
    /// watched (the next tick publishes their first summary), sessions gone from it are
    /// published as `closed` with their last summary, their focus is dropped and the
    /// extensions are told. The host calls this after every request and retention sweep.
    pub fn sync(&self, sessions: &Sessions) {
        let mut inner = self.inner();
        let gone: Vec<String> = inner
            .sessions
            .keys()
            .filter(|id| !sessions.contains_key(id.as_str()))
            .cloned()
            .collect();
        for id in gone {
            let Some(w) = inner.sessions.remove(&id) else {
                continue;
            };
            let last = w.last.unwrap_or_else(|| self.summary(&w.session));
            inner.focus.retain(|_, f| *f != id);
            publish(
                &mut inner,
                Event::Closed {
                    session_id: id.clone(),
                    summary: last,
                },
            );
            for e in &self.extensions {
                e.session_closed(&id);
            }
        }
        // Called after every request: only sessions new to the hub cost an allocation.
        for (id, session) in sessions {
            if !inner.sessions.contains_key(id.as_str()) {
                inner.sessions.insert(
                    id.to_string(),
                    Watched {
                        session: session.clone(),
                        last: None,
                    },
                );
            }
        }
    }

    /// The watched sessions and their summaries now (computed outside the hub's lock: each
    /// takes its session's lock briefly).
    fn take(&self) -> Vec<Taken> {
        let (ids, sessions): (Vec<String>, Vec<Arc<Session>>) = self
            .inner()
            .sessions
            .iter()
            .map(|(id, w)| (id.clone(), w.session.clone()))
            .unzip();
        let summaries = self.summaries(&sessions);
        ids.into_iter()
            .zip(sessions)
            .zip(summaries)
            .map(|((id, session), (summary, marks))| Taken {
                id,
                session,
                summary,
                marks,
            })
            .collect()
    }

    /// Re-reads every session's summary and publishes the ones that changed, after the
    /// extensions' alarms and, per session, the summaries it passed through since the last
    /// tick. Summaries are computed outside the hub's lock (each takes its session's lock
    /// briefly), and so is the extensions' tick.
    pub fn tick(&self) {
        let taken = self.take();
        let mut alarms = Vec::new();
        let mut missed: HashMap<String, Vec<Summary>> = HashMap::new();
        for (i, e) in self.extensions.iter().enumerate() {
            let fresh: Vec<Fresh<'_>> = taken
                .iter()
                .map(|t| Fresh {
                    id: &t.id,
                    session: &t.session,
                    summary: &t.summary,
                    mark: t.marks[i],
                })
                .collect();
            let tick = e.tick(&fresh);
            alarms.extend(tick.alarms);
            for (id, past) in tick.missed {
                missed.entry(id).or_default().extend(past);
            }
        }
        let mut inner = self.inner();
        for event in alarms {
            publish(&mut inner, event);
        }
        for t in taken {
            let Some(w) = inner.sessions.get_mut(&t.id) else {
                continue; // Removed meanwhile; `sync` published it.
            };
            let past = missed.remove(&t.id).unwrap_or_default();
            // After a missed summary the summary now follows even when it equals the last.
            let changed = w.last.as_ref() != Some(&t.summary) || !past.is_empty();
            w.last = Some(t.summary.clone());
            for summary in past {
                publish(&mut inner, Event::session(&t.id, summary));
            }
            if changed {
                publish(&mut inner, Event::session(&t.id, t.summary));
            }
        }
    }

    /// Sets the focused session of `scope` and publishes the move (also when it is the same
    /// session: a client asking for focus wants the front ends to show it).
    pub fn focus(&self, scope: &str, id: &str) {
        let mut inner = self.inner();
        inner.focus.insert(scope.to_string(), id.to_string());
        publish(
            &mut inner,
            Event::Focus {
                scope: scope.to_string(),
                session_id: id.to_string(),
                snapshot: false,
            },
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
        let summaries: HashMap<String, Summary> =
            self.take().into_iter().map(|t| (t.id, t.summary)).collect();
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
                inner_publish(&mut inner.subscribers, Event::session(id, now.clone()));
            }
            roster.push(Event::Session {
                session_id: id.clone(),
                summary: now,
                snapshot: true,
            });
        }
        for (scope, id) in &inner.focus {
            roster.push(Event::Focus {
                scope: scope.clone(),
                session_id: id.clone(),
                snapshot: true,
            });
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
    pub roster: Vec<Event>,
    /// Every event after the roster.
    pub events: Receiver<Event>,
    hub: Arc<Hub>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut inner = self.hub.inner();
        inner.live = inner.live.saturating_sub(1);
    }
}

fn publish(inner: &mut Inner, event: Event) {
    inner_publish(&mut inner.subscribers, event);
}

fn inner_publish(subscribers: &mut Vec<Sender<Event>>, event: Event) {
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

fn write_line<T: Serialize>(stream: &mut UnixStream, value: &T) -> std::io::Result<()> {
    let mut line = serde_json::to_string(value).map_err(std::io::Error::other)?;
    line.push('\n');
    stream.write_all(line.as_bytes())
}

/// Serves a `subscribe` request on its connection until the client goes away: the
/// acknowledgement ([`Subscribed`]), the roster, then every event.
pub fn serve_subscription(mut stream: UnixStream, subscription: Subscription) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let ack = Subscribed {
        schema_version: 1,
        subscribed: true,
    };
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

/// Serves an `attach` request: the acknowledgement ([`Attached`]), then a [`Frame::Screen`]
/// (the viewport) each time the screen changes (at most one frame per [`FRAME_INTERVAL`]),
/// and [`Frame::Ended`] when the session's program has ended. Returns when the client goes
/// away or the session ends.
pub fn serve_attach(mut stream: UnixStream, session: Arc<Session>) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let ack = Attached {
        schema_version: 1,
        attached: true,
        session_id: session.id.to_string(),
    };
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
            let (version, frame) = {
                let g = session.lock();
                let frame = Frame::Screen {
                    version: g.version,
                    state: g.state,
                    screen: Box::new(g.emulator.snapshot()),
                };
                (g.version, frame)
            };
            if write_line(&mut stream, &frame).is_err() {
                return;
            }
            seen = version;
            last_frame = Some(Instant::now());
        }
        if state != State::Running {
            let end = {
                let g = session.lock();
                Frame::Ended {
                    state: g.state,
                    exit_code: g.exit.as_ref().map(|e| e.code),
                }
            };
            let _ = write_line(&mut stream, &end);
            return;
        }
        if version == seen && peer_closed(&stream) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn summary() -> Summary {
        let mut parts = Map::new();
        parts.insert("termio".into(), json!({"status": "working"}));
        Summary {
            state: State::Exited,
            width: 80,
            height: 24,
            exit_code: Some(3),
            title: None,
            parts,
        }
    }

    #[test]
    fn events_keep_their_wire_shape() {
        let cases = [
            (
                Event::Session {
                    session_id: "s_1".into(),
                    summary: summary(),
                    snapshot: true,
                },
                r#"{"event":"session","sessionId":"s_1","summary":{"state":"exited","width":80,"height":24,"exitCode":3,"termio":{"status":"working"}},"snapshot":true}"#,
            ),
            (
                Event::Closed {
                    session_id: "s_1".into(),
                    summary: summary(),
                },
                r#"{"event":"closed","sessionId":"s_1","summary":{"state":"exited","width":80,"height":24,"exitCode":3,"termio":{"status":"working"}}}"#,
            ),
            (
                Event::Focus {
                    scope: "/p".into(),
                    session_id: "s_1".into(),
                    snapshot: false,
                },
                r#"{"event":"focus","scope":"/p","sessionId":"s_1"}"#,
            ),
            (
                Event::Stalled {
                    session_id: "s_1".into(),
                    summary: None,
                    evidence: "working 42m".into(),
                },
                r#"{"event":"stalled","sessionId":"s_1","summary":null,"evidence":"working 42m"}"#,
            ),
        ];
        for (event, line) in cases {
            assert_eq!(serde_json::to_string(&event).unwrap(), line);
            assert_eq!(serde_json::from_str::<Event>(line).unwrap(), event);
        }
        let ended = Frame::Ended {
            state: State::Exited,
            exit_code: None,
        };
        assert_eq!(
            serde_json::to_string(&ended).unwrap(),
            r#"{"event":"ended","state":"exited"}"#
        );
        let ack = Attached {
            schema_version: 1,
            attached: true,
            session_id: "s_1".into(),
        };
        assert_eq!(
            serde_json::to_string(&ack).unwrap(),
            r#"{"schemaVersion":1,"attached":true,"sessionId":"s_1"}"#
        );
    }
}
