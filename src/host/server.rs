//! The host daemon: a Unix socket server over the session registry.
//!
//! One request per connection, handled one at a time in acceptance order (session spec:
//! "The host accepts one IPC request at a time"); a `wait` is split into polls of at most
//! 100 ms so no request holds the host longer. Exited sessions are retained 24 h, then
//! forgotten (later calls get `session_expired`). The host exits after a while with no
//! sessions at all.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use super::journal::Entry;
use super::paths;
use super::protocol::{ErrorCode, HostError, Request, MAX_REQUEST_BYTES};
use super::session::{Poll, Session, State};
use crate::pty::SpawnSpec;
use crate::term::{keys, Cell, Color, Screen, Underline};

/// Longest a single request may hold the host for a `wait` poll.
pub const POLL_BUDGET: Duration = Duration::from_millis(100);

/// Grace between SIGTERM and SIGKILL on `stop`.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// A waiter no client has polled for this long belongs to a client that went away.
const STALE_WAITER: Duration = Duration::from_secs(30);

/// How long a connection may take to send its request line.
const READ_DEADLINE: Duration = Duration::from_secs(2);

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
    sessions: HashMap<String, Session>,
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
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let mut host = Host {
        sessions: HashMap::new(),
        expired: HashSet::new(),
        idle_since: Some(Instant::now()),
    };
    let idle = idle_limit();
    loop {
        match listener.accept() {
            Ok((stream, _)) => host.serve(stream),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                wait_readable(&listener, Duration::from_millis(500));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
        host.sweep();
        if host.idle_since.is_some_and(|t| t.elapsed() >= idle) {
            remove_if_ours(&socket);
            return Ok(());
        }
    }
}

fn wait_readable(listener: &UnixListener, timeout: Duration) {
    use rustix::event::{poll, PollFd, PollFlags};
    let mut fds = [PollFd::new(listener, PollFlags::IN)];
    let ts = rustix::event::Timespec {
        tv_sec: timeout.as_secs() as i64,
        tv_nsec: timeout.subsec_nanos() as i64,
    };
    let _ = poll(&mut fds, Some(&ts));
}

fn remove_if_ours(socket: &PathBuf) {
    let _ = std::fs::remove_file(socket);
}

impl Host {
    /// Reads one request, answers it, closes the connection. A client that vanishes loses
    /// only its own reply.
    fn serve(&mut self, stream: UnixStream) {
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_read_timeout(Some(READ_DEADLINE));
        // The request is read before the peer is judged, so a refused client still gets its
        // reply instead of a broken pipe.
        let request = read_request(&stream);
        let reply = match check_peer(&stream).and(request) {
            Err(e) => e.envelope(),
            Ok(request) => match self.handle(request) {
                Ok(v) => v,
                Err(e) => e.envelope(),
            },
        };
        if self.sessions.is_empty() {
            // Being asked counts as activity: the idle clock restarts.
            self.idle_since = Some(Instant::now());
        }
        let mut stream = stream;
        let mut line = reply.to_string();
        line.push('\n');
        let _ = stream.write_all(line.as_bytes());
    }

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
                s.kill(Duration::ZERO);
                s.remove_journal();
            }
            self.expired.insert(id);
        }
        for s in self.sessions.values() {
            s.drop_stale_waiters(STALE_WAITER);
        }
        if self.sessions.is_empty() {
            self.idle_since.get_or_insert_with(Instant::now);
        } else {
            self.idle_since = None;
        }
    }

    fn session(&self, id: &str) -> Result<&Session, HostError> {
        self.sessions.get(id).ok_or_else(|| {
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

    fn handle(&mut self, request: Request) -> Result<Value, HostError> {
        match request {
            Request::Ping => Ok(json!({"schemaVersion": 1, "pid": std::process::id()})),
            Request::Start {
                argv,
                cwd,
                width,
                height,
                color_env,
                delete_ci_env,
            } => {
                if !(1..=500).contains(&width) || !(1..=500).contains(&height) {
                    return Err(HostError::new(
                        ErrorCode::InvalidRequest,
                        "width and height must be 1–500",
                    ));
                }
                if argv.is_empty() {
                    return Err(HostError::new(
                        ErrorCode::InvalidRequest,
                        "no command given",
                    ));
                }
                let spec = SpawnSpec {
                    argv: argv.into_iter().map(Into::into).collect(),
                    cwd: cwd.into(),
                    cols: width,
                    rows: height,
                    color_env,
                    delete_ci_env,
                };
                let journals = paths::runtime_dir().join("journals");
                let journal_dir = paths::ensure_private_dir(&journals).ok();
                let session = Session::start(&spec, journal_dir.as_deref())?;
                let reply = json!({
                    "schemaVersion": 1,
                    "sessionId": session.id,
                    "state": "running",
                    "processId": session.pid,
                    "width": width,
                    "height": height,
                });
                self.sessions.insert(session.id.clone(), session);
                self.idle_since = None;
                Ok(reply)
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
                Ok(
                    json!({"schemaVersion": 1, "sessions": rows.into_iter().map(|r| r.1).collect::<Vec<_>>()}),
                )
            }
            Request::Read { id, structured } => {
                let s = self.session(&id)?;
                s.record(Entry::Read);
                let g = s.lock();
                let screen = g.emulator.snapshot();
                Ok(json!({
                    "schemaVersion": 1,
                    "sessionId": s.id,
                    "state": g.state.as_str(),
                    "processId": s.pid,
                    "exitCode": g.exit.as_ref().map(|e| e.code),
                    "version": g.version,
                    "screen": screen_json(&screen, g.emulator.history_size(), structured),
                }))
            }
            Request::WaitStart {
                id,
                condition,
                timeout_ms,
            } => {
                let s = self.session(&id)?;
                let waiter = s.add_waiter(condition.clone(), timeout_ms)?;
                let mut reply = self.poll(&id, waiter, &condition, Duration::ZERO)?;
                reply["waiter"] = json!(waiter);
                Ok(reply)
            }
            Request::WaitPoll { id, waiter } => {
                let condition =
                    self.session(&id)?
                        .lock()
                        .condition_of(waiter)
                        .ok_or_else(|| {
                            HostError::new(
                                ErrorCode::InvalidRequest,
                                format!("no waiter {waiter} on {id}"),
                            )
                        })?;
                self.poll(&id, waiter, &condition, POLL_BUDGET)
            }
            Request::WaitEnd { id, waiter } => {
                if let Ok(s) = self.session(&id) {
                    s.finish_waiter(waiter);
                }
                Ok(json!({"schemaVersion": 1}))
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
                let s = self.session(&id)?;
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
                Ok(reply)
            }
            Request::Resize { id, width, height } => {
                if !(1..=500).contains(&width) || !(1..=500).contains(&height) {
                    return Err(HostError::new(
                        ErrorCode::InvalidRequest,
                        "width and height must be 1–500",
                    ));
                }
                let s = self.session(&id)?;
                let version = s.resize(width, height)?;
                s.record(Entry::Resize { width, height });
                let g = s.lock();
                Ok(json!({
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
                self.session(&id)?;
                let reply = self.stop(&id);
                self.sweep();
                Ok(reply)
            }
            Request::StopAll => {
                let mut ids: Vec<String> = self.sessions.keys().cloned().collect();
                ids.sort();
                let stopped: Vec<String> = ids
                    .iter()
                    .map(|id| {
                        self.stop(id);
                        id.clone()
                    })
                    .collect();
                self.sweep();
                Ok(json!({"schemaVersion": 1, "stopped": stopped, "failed": []}))
            }
            Request::Snapshot { id } => {
                let s = self.session(&id)?;
                let g = s.lock();
                Ok(json!({
                    "schemaVersion": 1,
                    "sessionId": s.id,
                    "state": g.state.as_str(),
                    "version": g.version,
                    "screen": g.emulator.snapshot(),
                }))
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
                Ok(json!({"schemaVersion": 1, "sessionId": s.id}))
            }
            Request::Journal { id } => {
                let s = self.session(&id)?;
                Ok(json!({"schemaVersion": 1, "sessionId": s.id, "entries": s.journal()}))
            }
        }
    }

    /// Ends a session's processes and deletes it; the reply states how the program ended.
    fn stop(&mut self, id: &str) -> Value {
        let Some(session) = self.sessions.remove(id) else {
            return json!({"schemaVersion": 1, "sessionId": id, "state": "stopped", "exitCode": null});
        };
        // Also after the program exited: background children may still hold the terminal.
        let exit = session.kill(STOP_GRACE);
        session.mark_stopped();
        session.remove_journal();
        json!({
            "schemaVersion": 1,
            "sessionId": id,
            "state": "stopped",
            "exitCode": exit.as_ref().map(|e| e.code),
            "signal": exit.as_ref().and_then(|e| e.signal.clone()),
        })
    }

    /// One wait poll: the contract's `wait` reply with `result` "pending" while undecided.
    fn poll(
        &self,
        id: &str,
        waiter: u64,
        condition: &super::protocol::Condition,
        budget: Duration,
    ) -> Result<Value, HostError> {
        let s = self.session(id)?;
        let outcome = s.poll_waiter(waiter, budget)?;
        if outcome != Poll::Pending {
            // Decided: journal it; the waiter must not cost anything any more.
            s.finish_waiter(waiter);
        }
        let g = s.lock();
        let screen = g.emulator.snapshot();
        let (result, matched) = match outcome {
            Poll::Matched => ("matched", true),
            Poll::Pending => ("pending", false),
            Poll::SessionEnded => ("session-ended", false),
        };
        Ok(json!({
            "schemaVersion": 1,
            "status": if matched || result == "pending" { "completed" } else { "error" },
            "sessionId": s.id,
            "state": g.state.as_str(),
            "processId": s.pid,
            "exitCode": g.exit.as_ref().map(|e| e.code),
            "version": g.version,
            "result": result,
            "until": condition.until.as_str(),
            "text": condition.text,
            "matched": matched,
            "timedOut": false,
            "screen": screen_json(&screen, g.emulator.history_size(), false),
        }))
    }
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

fn read_request(stream: &UnixStream) -> Result<Request, HostError> {
    let mut reader = BufReader::new(stream.take(MAX_REQUEST_BYTES as u64 + 1));
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line).map_err(|e| {
        HostError::new(
            ErrorCode::InvalidRequest,
            format!("cannot read the request: {e}"),
        )
    })?;
    if line.len() > MAX_REQUEST_BYTES {
        return Err(HostError::new(
            ErrorCode::InvalidRequest,
            format!("request larger than {MAX_REQUEST_BYTES} bytes"),
        ));
    }
    serde_json::from_slice(&line)
        .map_err(|e| HostError::new(ErrorCode::InvalidRequest, format!("malformed request: {e}")))
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
