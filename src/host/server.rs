//! The host daemon: a Unix socket server over the session registry.
//!
//! One request per connection. Each connection has its own thread that reads the request
//! (within a deadline), then hands it to the one worker thread that owns the registry; the
//! worker applies requests one at a time in acceptance order (session spec: "The host accepts
//! one IPC request at a time"). Whatever would hold the worker (a wait poll of up to 100 ms,
//! stopping processes, serialising a large screen) is handed back to the connection thread, so
//! a slow or stalled client, or many concurrent waits, never hold up anyone else.
//! Exited sessions are retained 24 h, then forgotten (later calls get `session_expired`).
//! The host exits after a while with no sessions at all.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use super::events::{self, Hub, MONITOR_TICK};
use super::journal::Entry;
use super::paths;
use super::protocol::{ErrorCode, HostError, Request, MAX_REQUEST_BYTES};
use super::session::{Poll, Session, State, CAPTURE_QUIET, CAPTURE_SETTLE_MAX};
use crate::term::{keys, Cell, Color, Screen, Underline};

/// Longest a single request may hold the host for a `wait` poll.
pub const POLL_BUDGET: Duration = Duration::from_millis(100);

/// Grace between SIGTERM and SIGKILL on `stop`.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// A waiter no client has polled for this long belongs to a client that went away.
const STALE_WAITER: Duration = Duration::from_secs(30);

/// How long a connection may take to send its whole request line.
const READ_DEADLINE: Duration = Duration::from_secs(2);

/// How long writing a reply may take before the client is given up on.
const WRITE_DEADLINE: Duration = Duration::from_secs(5);

/// Most characters of screen text in a reply (contract: 200 000).
pub const MAX_TEXT_CHARS: usize = 200_000;

/// Idle time after which a host with no sessions exits: `$CONSOLE2SVG_HOST_IDLE_SECS`, else 300 s.
fn idle_limit() -> Duration {
    let secs = std::env::var("CONSOLE2SVG_HOST_IDLE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    Duration::from_secs(secs)
}

/// The registry and everything the request loop needs.
struct Host {
    sessions: HashMap<String, Arc<Session>>,
    /// Watches the sessions and pushes their changes to subscribers.
    hub: Arc<Hub>,
    /// Ids whose retention ran out.
    expired: HashSet<String>,
    idle_since: Option<Instant>,
}

/// Runs the host until it has been idle long enough. Binds the socket, replacing a stale one
/// left by a dead host; exits at once when another live host owns it.
///
/// Errors: a message when the runtime directory or the socket cannot be set up.
pub fn run() -> Result<(), String> {
    let dir = paths::ensure_runtime_dir()?;
    let socket = dir.join("host.sock");
    if socket.exists() {
        if UnixStream::connect(&socket).is_ok() {
            return Ok(()); // Another host is serving.
        }
        let _ = std::fs::remove_file(&socket);
    }
    let listener = UnixListener::bind(&socket)
        .map_err(|e| format!("cannot bind {}: {e}", socket.display()))?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| format!("cannot restrict {}: {e}", socket.display()))?;
    // Heal the installed `termio` agent skill while session control is on; never fatal.
    crate::termio::skill::reassert_at_host_start();
    let (jobs, inbox) = mpsc::channel::<Job>();
    let idle = idle_limit();
    let worker_socket = socket.clone();
    std::thread::Builder::new()
        .name("host-worker".into())
        .spawn(move || {
            worker(inbox, idle);
            // Idle: stop accepting and leave.
            let _ = std::fs::remove_file(&worker_socket);
            std::process::exit(0);
        })
        .map_err(|e| e.to_string())?;
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let to_worker = jobs.clone();
        // A connection that cannot get a thread is dropped; its client sees host_unavailable.
        let _ = std::thread::Builder::new()
            .name("host-conn".into())
            .spawn(move || connection(stream, to_worker));
    }
    Ok(())
}

/// Work the worker hands back to a connection thread, so it never waits itself.
type Later = Box<dyn FnOnce() -> Result<Value, HostError> + Send>;

/// What the worker makes of a request.
enum Outcome {
    /// The reply.
    Now(Value),
    /// The reply, computed by the connection thread.
    Later(Later),
    /// The connection becomes a stream served by this function (subscriptions, attach).
    Stream(Box<dyn FnOnce(UnixStream) + Send>),
}

/// A request on its way to the worker, with where its outcome goes.
struct Job {
    request: Result<Request, HostError>,
    reply: Sender<Result<Outcome, HostError>>,
}

/// One connection: read the request (deadline [`READ_DEADLINE`] for all of it), check the
/// peer, queue it for the worker, then finish any deferred work and write the reply (deadline
/// [`WRITE_DEADLINE`]). A client that stalls or vanishes costs only this thread.
fn connection(stream: UnixStream, jobs: Sender<Job>) {
    // The request is read before the peer is judged, so a refused client still gets its reply
    // instead of a broken pipe.
    let request = read_request(&stream).and_then(|r| check_peer(&stream).map(|_| r));
    let (tx, rx) = mpsc::channel();
    if jobs.send(Job { request, reply: tx }).is_err() {
        return;
    }
    let reply = match rx.recv() {
        Ok(Ok(Outcome::Stream(serve))) => return serve(stream),
        Ok(Ok(Outcome::Now(v))) => v,
        Ok(Ok(Outcome::Later(work))) => work().unwrap_or_else(|e| e.envelope()),
        Ok(Err(e)) => e.envelope(),
        Err(_) => {
            HostError::new(ErrorCode::HostUnavailable, "the host is shutting down").envelope()
        }
    };
    let mut stream = stream;
    let _ = stream.set_write_timeout(Some(WRITE_DEADLINE));
    let mut line = reply.to_string();
    line.push('\n');
    let _ = stream.write_all(line.as_bytes());
}

/// The worker: owns the registry and applies requests one at a time, in the order their
/// request lines are complete (a client slow to send its request does not hold up the ones
/// behind it); sweeps retention and stale waiters; returns when the host has been idle for
/// `idle`.
fn worker(inbox: Receiver<Job>, idle: Duration) {
    let hub = Arc::new(Hub::default());
    let monitor = hub.clone();
    // The monitor: publishes summary changes to subscribers. It lives as long as the host.
    let _ = std::thread::Builder::new()
        .name("host-monitor".into())
        .spawn(move || loop {
            std::thread::sleep(MONITOR_TICK);
            monitor.tick();
        });
    let mut host = Host {
        sessions: HashMap::new(),
        hub,
        expired: HashSet::new(),
        idle_since: Some(Instant::now()),
    };
    loop {
        match inbox.recv_timeout(Duration::from_millis(500)) {
            Ok(job) => {
                let outcome = job.request.and_then(|r| host.handle(r));
                if host.sessions.is_empty() {
                    // Being asked counts as activity: the idle clock restarts.
                    host.idle_since = Some(Instant::now());
                }
                let _ = job.reply.send(outcome);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        host.sweep();
        if host.idle_since.is_some_and(|t| t.elapsed() >= idle) {
            return;
        }
    }
}

impl Host {
    fn sweep(&mut self) {
        let now = SystemTime::now();
        let gone: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.lock().expires_at.is_some_and(|t| t <= now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in gone {
            if let Some(s) = self.sessions.remove(&id) {
                // Its program exited; what it left running in the background goes with it.
                std::thread::spawn(move || {
                    s.kill(Duration::ZERO);
                    s.remove_journal();
                });
            }
            self.expired.insert(id);
        }
        for s in self.sessions.values() {
            s.drop_stale_waiters(STALE_WAITER);
        }
        // Every change of the registry (by any request or by retention) reaches subscribers.
        self.hub.sync(&self.sessions);
        if self.sessions.is_empty() && self.hub.subscribers() == 0 {
            self.idle_since.get_or_insert_with(Instant::now);
        } else {
            self.idle_since = None;
        }
    }

    fn session(&self, id: &str) -> Result<Arc<Session>, HostError> {
        self.sessions.get(id).cloned().ok_or_else(|| {
            if self.expired.contains(id) {
                HostError::new(
                    ErrorCode::SessionExpired,
                    format!("session {id} has expired"),
                )
            } else {
                HostError::new(ErrorCode::SessionNotFound, format!("no session {id}"))
            }
        })
    }

    /// A session that can still serve screens and input.
    ///
    /// Errors: as [`Host::session`]; `session_error` when its terminal emulator failed
    /// ([`Session::usable`]).
    fn live(&self, id: &str) -> Result<Arc<Session>, HostError> {
        let s = self.session(id)?;
        s.usable()?;
        Ok(s)
    }

    /// Applies one request. Anything slow (waiting, stopping, serialising a screen) comes
    /// back as [`Outcome::Later`] for the connection's own thread.
    fn handle(&mut self, request: Request) -> Result<Outcome, HostError> {
        let now = |v: Value| Ok(Outcome::Now(v));
        match request {
            Request::Ping => now(json!({"schemaVersion": 1, "pid": std::process::id()})),
            Request::Start(launch) => {
                if !(1..=500).contains(&launch.width) || !(1..=500).contains(&launch.height) {
                    return Err(HostError::new(
                        ErrorCode::InvalidRequest,
                        "width and height must be 1–500",
                    ));
                }
                if launch.argv.is_empty() {
                    return Err(HostError::new(
                        ErrorCode::InvalidRequest,
                        "no command given",
                    ));
                }
                let spec = launch.spawn_spec();
                let journals = paths::runtime_dir().join("journals");
                let journal_dir = paths::ensure_private_dir(&journals).ok();
                let session = Session::start(&spec, journal_dir.as_deref())?;
                let reply = json!({
                    "schemaVersion": 1,
                    "sessionId": session.id,
                    "state": "running",
                    "processId": session.pid,
                    "width": launch.width,
                    "height": launch.height,
                });
                let session = Arc::new(session);
                self.sessions.insert(session.id.clone(), session);
                self.idle_since = None;
                now(reply)
            }
            Request::List { all } => {
                let mut rows: Vec<(SystemTime, Value)> = Vec::new();
                for s in self.sessions.values() {
                    let g = s.lock();
                    if !all && g.state != State::Running {
                        continue;
                    }
                    let mut v = json!({
                        "sessionId": s.id,
                        "state": g.state.as_str(),
                        "processId": s.pid,
                        "exitCode": g.exit.as_ref().map(|e| e.code),
                        "width": g.emulator.cols(),
                        "height": g.emulator.rows(),
                        "updatedAt": timestamp(g.updated_at),
                    });
                    if let Some(t) = g.expires_at {
                        v["expiresAt"] = json!(timestamp(t));
                    }
                    rows.push((g.updated_at, v));
                }
                rows.sort_by(|a, b| {
                    a.0.cmp(&b.0)
                        .then_with(|| a.1["sessionId"].as_str().cmp(&b.1["sessionId"].as_str()))
                });
                now(
                    json!({"schemaVersion": 1, "sessions": rows.into_iter().map(|r| r.1).collect::<Vec<_>>()}),
                )
            }
            Request::Read { id, structured } => {
                let s = self.live(&id)?;
                s.record(Entry::Read);
                Ok(Outcome::Later(Box::new(move || {
                    // Snapshot under the lock; serialise (possibly megabytes) after it.
                    let (state, exit, version, screen, history) = {
                        let g = s.lock();
                        (
                            g.state,
                            g.exit.clone(),
                            g.version,
                            g.emulator.snapshot(),
                            g.emulator.history_size(),
                        )
                    };
                    Ok(json!({
                        "schemaVersion": 1,
                        "sessionId": s.id,
                        "state": state.as_str(),
                        "processId": s.pid,
                        "exitCode": exit.as_ref().map(|e| e.code),
                        "version": version,
                        "screen": screen_json(&screen, history, structured),
                    }))
                })))
            }
            Request::WaitStart {
                id,
                condition,
                timeout_ms,
            } => {
                let s = self.live(&id)?;
                Ok(Outcome::Later(Box::new(move || {
                    let waiter = s.add_waiter(condition.clone(), timeout_ms)?;
                    let mut reply = poll(&s, waiter, &condition, Duration::ZERO)?;
                    reply["waiter"] = json!(waiter);
                    Ok(reply)
                })))
            }
            Request::WaitPoll { id, waiter } => {
                let s = self.live(&id)?;
                // Everything that takes the session's lock happens off the worker.
                Ok(Outcome::Later(Box::new(move || {
                    let condition = s.lock().condition_of(waiter).ok_or_else(|| {
                        HostError::new(
                            ErrorCode::InvalidRequest,
                            format!("no waiter {waiter} on {id}"),
                        )
                    })?;
                    poll(&s, waiter, &condition, POLL_BUDGET)
                })))
            }
            Request::WaitEnd { id, waiter } => {
                // The client gave up (timeout, Ctrl+C): journal the wait, and reply with the
                // screen as it is now, for the client's final reply.
                let s = self.session(&id)?;
                Ok(Outcome::Later(Box::new(move || {
                    let condition = s.lock().condition_of(waiter);
                    s.finish_waiter(waiter);
                    match condition {
                        Some(c) => wait_reply(&s, &c, "pending", true),
                        None => Ok(json!({"schemaVersion": 1, "sessionId": s.id})),
                    }
                })))
            }
            Request::Send { id, inputs } => {
                let steps = keys::validate(&inputs).map_err(|e| {
                    let code = if e.code() == "unsupported_key" {
                        ErrorCode::UnsupportedKey
                    } else {
                        ErrorCode::InvalidRequest
                    };
                    HostError::new(code, e.to_string())
                })?;
                let s = self.live(&id)?;
                let paste = steps.iter().any(|st| matches!(st, keys::Step::Paste(_)));
                // The version before any of this input can have an effect, so that
                // `wait --since <version>` sees even the fastest echo.
                let (bracketed, version) = {
                    let g = s.lock();
                    (g.emulator.modes().bracketed_paste, g.version)
                };
                s.send(steps)?;
                s.record(Entry::Send { inputs });
                let g = s.lock();
                let mut reply = json!({
                    "schemaVersion": 1,
                    "sessionId": s.id,
                    "state": g.state.as_str(),
                    "exitCode": g.exit.as_ref().map(|e| e.code),
                    "version": version,
                });
                if paste {
                    reply["bracketedPaste"] = json!(bracketed);
                }
                now(reply)
            }
            Request::Resize { id, width, height } => {
                if !(1..=500).contains(&width) || !(1..=500).contains(&height) {
                    return Err(HostError::new(
                        ErrorCode::InvalidRequest,
                        "width and height must be 1–500",
                    ));
                }
                let s = self.live(&id)?;
                let version = s.resize(width, height)?;
                s.record(Entry::Resize { width, height });
                let g = s.lock();
                now(json!({
                    "schemaVersion": 1,
                    "sessionId": s.id,
                    "state": g.state.as_str(),
                    "exitCode": g.exit.as_ref().map(|e| e.code),
                    "version": version,
                    "width": width,
                    "height": height,
                }))
            }
            Request::Stop { id } => {
                let s = self.session(&id)?;
                // Deleted now: later requests no longer find it while its processes end.
                self.sessions.remove(&id);
                self.sweep();
                Ok(Outcome::Later(Box::new(move || {
                    s.begin_kill();
                    Ok(stop_reply(&s, Instant::now() + STOP_GRACE))
                })))
            }
            Request::StopAll => {
                let mut all: Vec<Arc<Session>> = self.sessions.drain().map(|(_, s)| s).collect();
                all.sort_by(|a, b| a.id.cmp(&b.id));
                self.sweep();
                Ok(Outcome::Later(Box::new(move || {
                    // All at once, with one shared grace period.
                    let exits = Session::kill_many(&all, STOP_GRACE);
                    let stopped: Vec<&str> = all
                        .iter()
                        .zip(exits)
                        .map(|(s, exit)| {
                            finish_stop(s, exit);
                            s.id.as_str()
                        })
                        .collect();
                    let reply = json!({"schemaVersion": 1, "stopped": stopped, "failed": []});
                    // Their screens and scrollback go back to the system now, not at exit.
                    drop(all);
                    super::io::trim_heap();
                    Ok(reply)
                })))
            }
            Request::Snapshot { id } => {
                let s = self.live(&id)?;
                Ok(Outcome::Later(Box::new(move || {
                    s.settle(CAPTURE_QUIET, CAPTURE_SETTLE_MAX);
                    let (state, version, screen) = {
                        let g = s.lock();
                        (g.state, g.version, g.emulator.snapshot())
                    };
                    Ok(json!({
                        "schemaVersion": 1,
                        "sessionId": s.id,
                        "state": state.as_str(),
                        "version": version,
                        "screen": screen,
                    }))
                })))
            }
            Request::Record { id, entry } => {
                let s = self.session(&id)?;
                if !matches!(*entry, Entry::Capture { .. } | Entry::Inspect) {
                    return Err(HostError::new(
                        ErrorCode::InvalidRequest,
                        "only captures and inspections are recorded by clients",
                    ));
                }
                s.record(*entry);
                now(json!({"schemaVersion": 1, "sessionId": s.id}))
            }
            Request::Journal { id } => {
                let s = self.session(&id)?;
                now(json!({"schemaVersion": 1, "sessionId": s.id, "entries": s.journal()}))
            }
            Request::Termio(r) => Ok(Outcome::Later(super::termio::handle(
                &mut self.sessions,
                &self.hub,
                r,
            ))),
            Request::Subscribe => {
                let subscription = self.hub.subscribe();
                Ok(Outcome::Stream(Box::new(move |stream| {
                    events::serve_subscription(stream, subscription)
                })))
            }
            Request::Attach { id } => {
                let s = self.live(&id)?;
                Ok(Outcome::Stream(Box::new(move |stream| {
                    events::serve_attach(stream, s)
                })))
            }
        }
    }
}

/// Ends a session's processes (already signalled by [`Session::begin_kill`]) by `deadline`,
/// deletes its data; the reply states how the program ended. Also after the program exited:
/// background children may still hold the terminal.
pub(super) fn stop_reply(session: &Session, deadline: Instant) -> Value {
    let exit = session.finish_kill(deadline);
    finish_stop(session, exit)
}

/// Marks a session whose processes have ended stopped and deletes its data; the `stop` reply
/// states how the program ended.
fn finish_stop(session: &Session, exit: Option<crate::pty::Exit>) -> Value {
    session.mark_stopped();
    session.remove_journal();
    json!({
        "schemaVersion": 1,
        "sessionId": session.id,
        "state": "stopped",
        "exitCode": exit.as_ref().map(|e| e.code),
        "signal": exit.as_ref().and_then(|e| e.signal.clone()),
    })
}

/// One wait poll (at most `budget`): the contract's `wait` reply, with `result` "pending"
/// while undecided. Pending replies leave out the screen (the client only shows the last one).
fn poll(
    s: &Session,
    waiter: u64,
    condition: &super::protocol::Condition,
    budget: Duration,
) -> Result<Value, HostError> {
    let outcome = s.poll_waiter(waiter, budget)?;
    if outcome != Poll::Pending {
        // Decided: journal it; the waiter must not cost anything any more.
        s.finish_waiter(waiter);
    }
    let result = match outcome {
        Poll::Matched => "matched",
        Poll::Pending => "pending",
        Poll::SessionEnded => "session-ended",
    };
    wait_reply(s, condition, result, outcome != Poll::Pending)
}

/// The contract's `wait` reply for `result`, with the current screen when `with_screen`.
fn wait_reply(
    s: &Session,
    condition: &super::protocol::Condition,
    result: &str,
    with_screen: bool,
) -> Result<Value, HostError> {
    let (state, exit, version, screen, history) = {
        let g = s.lock();
        let screen = with_screen.then(|| g.emulator.snapshot());
        (
            g.state,
            g.exit.clone(),
            g.version,
            screen,
            g.emulator.history_size(),
        )
    };
    let matched = result == "matched";
    let mut reply = json!({
        "schemaVersion": 1,
        "status": if matched || result == "pending" { "completed" } else { "error" },
        "sessionId": s.id,
        "state": state.as_str(),
        "processId": s.pid,
        "exitCode": exit.as_ref().map(|e| e.code),
        "version": version,
        "result": result,
        "until": condition.until.as_str(),
        "text": condition.text,
        "matched": matched,
        "timedOut": false,
    });
    if let Some(screen) = screen {
        reply["screen"] = screen_json(&screen, history, false);
    }
    Ok(reply)
}

fn check_peer(stream: &UnixStream) -> Result<(), HostError> {
    match rustix::net::sockopt::socket_peercred(stream) {
        Ok(cred) if cred.uid == rustix::process::getuid() => Ok(()),
        Ok(_) => Err(HostError::new(
            ErrorCode::PermissionDenied,
            "the host serves only its own user",
        )),
        Err(e) => Err(HostError::new(
            ErrorCode::PermissionDenied,
            format!("cannot check the peer: {e}"),
        )),
    }
}

/// Reads one request line within [`READ_DEADLINE`] for the whole line (a client trickling
/// bytes cannot keep its thread forever) and at most [`MAX_REQUEST_BYTES`].
fn read_request(stream: &UnixStream) -> Result<Request, HostError> {
    let bad = |m: String| HostError::new(ErrorCode::InvalidRequest, m);
    let deadline = Instant::now() + READ_DEADLINE;
    let mut reader = stream;
    let mut line = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(bad(format!(
                "the request did not arrive within {} s",
                READ_DEADLINE.as_secs()
            )));
        }
        let _ = stream.set_read_timeout(Some(left));
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                line.extend_from_slice(&buf[..n]);
                if line.len() > MAX_REQUEST_BYTES {
                    return Err(bad(format!(
                        "request larger than {MAX_REQUEST_BYTES} bytes"
                    )));
                }
                if let Some(end) = line.iter().position(|&b| b == b'\n') {
                    line.truncate(end);
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(bad(format!("cannot read the request: {e}"))),
        }
    }
    serde_json::from_slice(&line).map_err(|e| bad(format!("malformed request: {e}")))
}

/// RFC 3339 UTC with milliseconds, e.g. `2026-11-30T15:04:05.123Z`.
pub fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

/// The contract's `screen` object for a viewport snapshot.
pub fn screen_json(screen: &Screen, scrollback_rows: usize, structured: bool) -> Value {
    let mut text = screen.text();
    let truncated = text.chars().count() > MAX_TEXT_CHARS;
    if truncated {
        text = text.chars().take(MAX_TEXT_CHARS).collect();
    }
    let m = screen.modes;
    let mut v = json!({
        "width": screen.width,
        "height": screen.height,
        "text": text,
        "truncated": truncated,
        "cursorRow": screen.cursor.row,
        "cursorColumn": screen.cursor.col,
        "cursorVisible": screen.cursor.visible,
        "isAlternateScreen": m.alternate_screen,
        "scrollbackRows": scrollback_rows,
        "scope": "viewport",
        "title": screen.title,
        "modes": {
            "alternateScreen": m.alternate_screen,
            "applicationCursor": m.application_cursor,
            "applicationKeypad": m.application_keypad,
            "bracketedPaste": m.bracketed_paste,
            "mouseReporting": m.mouse_reporting,
            "synchronizedOutput": m.synchronized_output,
        },
    });
    if structured {
        let cells: Vec<Value> = screen.rows.iter().flatten().map(cell_json).collect();
        v["structured"] = json!({
            "schemaVersion": 1,
            "width": screen.width,
            "height": screen.height,
            "cursorRow": screen.cursor.row,
            "cursorColumn": screen.cursor.col,
            "cursorVisible": screen.cursor.visible,
            "isAlternateScreen": m.alternate_screen,
            "cells": cells,
        });
    }
    v
}

/// A colour in structured cells: `null` (default), `"palette:N"` (0–255) or `"#rrggbb"`.
fn color_json(c: Color) -> Value {
    match c {
        Color::Default => Value::Null,
        Color::Named(i) | Color::Indexed(i) => json!(format!("palette:{i}")),
        Color::Rgb(rgb) => json!(rgb.to_hex()),
    }
}

fn cell_json(c: &Cell) -> Value {
    json!({
        "text": c.text,
        "foreground": color_json(c.fg),
        "background": color_json(c.bg),
        "underlineColor": c.underline_color.map(color_json).unwrap_or(Value::Null),
        "hyperlink": c.link.as_ref().map(|l| l.uri.clone()),
        "bold": c.bold,
        "italic": c.italic,
        "underline": c.underline != Underline::None,
        "underlineStyle": match c.underline {
            Underline::None => Value::Null,
            u => json!(format!("{u:?}").to_lowercase()),
        },
        "reversed": c.inverse,
        "faint": c.dim,
        "hidden": c.hidden,
        "strikethrough": c.strikethrough,
        "overline": false,
        "blink": false,
        "isWide": c.width == 2,
        "isWideContinuation": c.width == 0,
    })
}
