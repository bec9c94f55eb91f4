//! The host daemon: a Unix socket server over the session registry.
//!
//! One request per connection, served by the request loop ([`super::serve`]: one thread for
//! every client connection, requests applied one at a time in connection-acceptance order).
//! Whatever would hold the loop (a wait poll of up to 100 ms, stopping processes, serialising
//! a large screen) is an [`Outcome::Later`], finished by a reply thread, so a slow or stalled
//! client, or many concurrent waits, never hold up anyone else.
//!
//! The router ([`Host::route`]) only routes: one method per request kind, each returning a
//! typed reply ([`super::reply`]). Exited sessions are retained 24 h, then forgotten (later
//! calls get `session_expired`). Sessions of a host that died are recovered as `unavailable`
//! ([`super::recovery`]). The host exits after a while with no sessions at all.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::events::{self, Hub, MONITOR_TICK};
use super::extension::{Context, Extension};
use super::journal::Entry;
use super::paths;
use super::protocol::{Condition, ErrorCode, HostError, Launch, Request, SessionId};
use super::recovery::{self, Ledger, Lost, Record};
use super::reply::{self, ScreenDoc, SCHEMA};
use super::serve::{self, Outcome, Registry};
use super::session::{
    retention, Poll, Session, Sessions, State, CAPTURE_QUIET, CAPTURE_SETTLE_MAX,
    DEFAULT_INPUT_GAP, MAX_INPUT_GAP,
};
use crate::term::keys;

/// Longest a single request may hold the host for a `wait` poll.
pub const POLL_BUDGET: Duration = Duration::from_millis(100);

/// Grace between SIGTERM and SIGKILL on `stop`.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// The largest screen (columns × rows) a `read` serialises on the request loop.
const INLINE_CELLS: usize = 20_000;

/// A waiter no client has polled for this long belongs to a client that went away.
const STALE_WAITER: Duration = Duration::from_secs(30);

/// How often retention and stale waiters are swept (each sweep looks at every session).
const SWEEP_EVERY: Duration = Duration::from_millis(250);

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
    sessions: Sessions,
    /// Sessions of a host that died, listed as `unavailable` until they expire.
    lost: HashMap<String, Lost>,
    /// The crash-recovery records of `sessions`.
    ledger: Ledger,
    /// The runtime directory (journals, records).
    runtime: PathBuf,
    /// Watches the sessions and pushes their changes to subscribers.
    hub: Arc<Hub>,
    /// Ids whose retention ran out.
    expired: HashSet<SessionId>,
    /// How long the host stays with no sessions before it exits.
    idle: Duration,
    idle_since: Option<Instant>,
    last_sweep: Instant,
}

/// Runs the host with `extensions` installed until it has been idle long enough. Binds the
/// socket, replacing a stale one left by a dead host (whose sessions are recovered as
/// `unavailable`); exits at once when another live host owns it.
///
/// Errors: a message when the runtime directory or the socket cannot be set up.
pub fn run(extensions: Vec<Arc<dyn Extension>>) -> Result<(), String> {
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
    // This host owns the directory now: what a dead one left is recovered or swept.
    let recovered = recovery::recover(&dir, SystemTime::now(), retention());
    for e in &extensions {
        e.host_started();
    }
    let mut host = Host {
        sessions: HashMap::new(),
        lost: recovered
            .lost
            .into_iter()
            .map(|l| (l.record.session_id.clone(), l))
            .collect(),
        ledger: Ledger::new(recovery::records_dir(&dir)),
        runtime: dir,
        hub: Arc::new(Hub::new(extensions)),
        expired: HashSet::new(),
        idle: idle_limit(),
        idle_since: Some(Instant::now()),
        last_sweep: Instant::now(),
    };
    let monitor = host.hub.clone();
    // The monitor: publishes summary changes to subscribers. It lives as long as the host.
    let _ = std::thread::Builder::new()
        .name("host-monitor".into())
        .spawn(move || loop {
            std::thread::sleep(MONITOR_TICK);
            monitor.tick();
        });
    host.after_request();
    let served = serve::serve(&listener, &mut host);
    // Idle (or the loop failed): stop accepting and leave.
    let _ = std::fs::remove_file(&socket);
    served
}

impl Registry for Host {
    fn route(&mut self, request: Request) -> Result<Outcome, HostError> {
        Host::route(self, request)
    }

    fn applied(&mut self) {
        if self.sessions.is_empty() {
            // Being asked counts as activity: the idle clock restarts.
            self.idle_since = Some(Instant::now());
        }
        self.after_request();
    }

    fn tick(&mut self, now: Instant) -> Option<Duration> {
        if now.duration_since(self.last_sweep) >= SWEEP_EVERY {
            self.sweep();
        }
        if self
            .idle_since
            .is_some_and(|t| now.duration_since(t) >= self.idle)
        {
            return None;
        }
        Some(SWEEP_EVERY)
    }
}

impl Host {
    /// After every request: subscribers and crash-recovery records follow the registry, and
    /// the idle clock runs only while there is nothing to serve. Takes no session's lock.
    fn after_request(&mut self) {
        // Every change of the registry (by any request or by retention) reaches subscribers.
        self.hub.sync(&self.sessions);
        let sessions = &self.sessions;
        self.ledger.retain(|id| sessions.contains_key(id));
        let new: Vec<Arc<Session>> = sessions
            .values()
            .filter(|s| !self.ledger.has(&s.id))
            .cloned()
            .collect();
        for s in new {
            let record = record_of(&s, s.launch.width, s.launch.height);
            if let Err(e) = self.ledger.write(&record) {
                eprintln!("console2svg host: cannot keep {}'s record: {e}", s.id);
            }
        }
        if self.sessions.is_empty() && self.hub.subscribers() == 0 {
            self.idle_since.get_or_insert_with(Instant::now);
        } else {
            self.idle_since = None;
        }
    }

    /// Retention (exited sessions and lost ones) and waiters whose client went away.
    fn sweep(&mut self) {
        self.last_sweep = Instant::now();
        let now = SystemTime::now();
        let gone: Vec<SessionId> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.lock().expires_at.is_some_and(|t| t <= now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in gone {
            if let Some(s) = self.sessions.remove(id.as_str()) {
                let record = self.ledger.release(&id);
                // Its program exited; what it left running in the background goes with it.
                std::thread::spawn(move || {
                    s.kill(Duration::ZERO);
                    s.remove_journal();
                    drop(record);
                });
            }
            self.expired.insert(id);
        }
        let lost: Vec<String> = self
            .lost
            .iter()
            .filter(|(_, l)| l.expires_at() <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for id in lost {
            self.lost.remove(&id);
            recovery::forget(&self.runtime, &id);
            self.expired.insert(id.into());
        }
        for s in self.sessions.values() {
            s.drop_stale_waiters(STALE_WAITER);
        }
        self.after_request();
    }

    /// The live session `id`.
    ///
    /// Errors: `session_expired` after its retention; `session_error` when it was lost with a
    /// dead host ([`Lost::error`]); `session_not_found` otherwise.
    fn session(&self, id: &str) -> Result<Arc<Session>, HostError> {
        if let Some(s) = self.sessions.get(id) {
            return Ok(s.clone());
        }
        if let Some(lost) = self.lost.get(id) {
            return Err(lost.error());
        }
        Err(if self.expired.contains(id) {
            HostError::new(
                ErrorCode::SessionExpired,
                format!("session {id} has expired"),
            )
        } else {
            HostError::new(ErrorCode::SessionNotFound, format!("no session {id}"))
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

    /// Applies one request: routes it to the method of its kind.
    fn route(&mut self, request: Request) -> Result<Outcome, HostError> {
        match request {
            Request::Ping => Outcome::now(&reply::Pong {
                schema_version: SCHEMA,
                pid: std::process::id(),
            }),
            Request::Start(launch) => self.start(launch),
            Request::List { all } => self.list(all),
            Request::Read { id, structured } => self.read(&id, structured),
            Request::WaitStart {
                id,
                condition,
                timeout_ms,
            } => self.wait_start(&id, condition, timeout_ms),
            Request::WaitPoll { id, waiter } => self.wait_poll(&id, waiter),
            Request::WaitEnd { id, waiter } => self.wait_end(&id, waiter),
            Request::Send { id, inputs, gap_ms } => self.send(&id, inputs, gap_ms),
            Request::Resize { id, width, height } => self.resize(&id, width, height),
            Request::Stop { id } => self.stop(&id),
            Request::StopAll => self.stop_all(),
            Request::Snapshot { id } => self.snapshot(&id),
            Request::Record { id, entry } => self.record(&id, *entry),
            Request::Journal { id } => self.journal(&id),
            Request::Cast { id } => self.cast(&id),
            Request::Extension(r) => self.extension(r),
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

    /// A request of an installed extension (e.g. termio's `{"op":"termio",…}`), handed to it
    /// with the registry; its reply is computed on a reply thread.
    ///
    /// Errors: `invalid_request` for an op no extension serves.
    fn extension(&mut self, r: super::protocol::ExtensionRequest) -> Result<Outcome, HostError> {
        let Some(extension) = self.hub.extension(&r.op) else {
            return Err(HostError::new(
                ErrorCode::InvalidRequest,
                format!("unknown op {:?}", r.op),
            ));
        };
        let host = Context {
            sessions: &mut self.sessions,
            hub: &self.hub,
        };
        let deferred = extension.handle(r, host);
        Ok(Outcome::Later(Box::new(move || {
            deferred().map(|v| v.to_string())
        })))
    }

    /// `start`: spawns the program in a PTY.
    ///
    /// Errors: `invalid_request` for a size outside 1–500, a scrollback over
    /// [`crate::term::MAX_SCROLLBACK`] rows or no command;
    /// `session_not_started` when the program cannot be started.
    fn start(&mut self, launch: Launch) -> Result<Outcome, HostError> {
        check_size(launch.width, launch.height)?;
        if launch
            .scrollback
            .is_some_and(|n| n > crate::term::MAX_SCROLLBACK)
        {
            return Err(HostError::new(
                ErrorCode::InvalidRequest,
                format!("scrollback must be 0–{} rows", crate::term::MAX_SCROLLBACK),
            ));
        }
        if launch.argv.is_empty() {
            return Err(HostError::new(
                ErrorCode::InvalidRequest,
                "no command given",
            ));
        }
        let spec = launch.spawn_spec();
        let journals = self.runtime.join("journals");
        let journal_dir = paths::ensure_private_dir(&journals).ok();
        let session = Arc::new(Session::start(
            &spec,
            journal_dir.as_deref(),
            launch.record,
        )?);
        if let Some(rows) = launch.scrollback {
            session.lock().emulator.set_scrollback(rows);
        }
        let reply = Outcome::now(&reply::Started {
            schema_version: SCHEMA,
            session_id: &session.id,
            state: State::Running,
            process_id: session.pid,
            width: launch.width,
            height: launch.height,
        });
        self.sessions.insert(session.id.clone(), session.clone());
        self.hub.session_started(&session, &launch);
        self.idle_since = None;
        reply
    }

    /// `list [--all]`: live sessions (with `all`, retained and lost ones too), oldest change
    /// first.
    fn list(&self, all: bool) -> Result<Outcome, HostError> {
        let mut rows: Vec<(SystemTime, reply::ListEntry)> = Vec::new();
        for s in self.sessions.values() {
            let g = s.lock();
            if !all && g.state != State::Running {
                continue;
            }
            rows.push((
                g.updated_at,
                reply::ListEntry {
                    session_id: s.id.to_string(),
                    state: g.state,
                    process_id: s.pid,
                    exit_code: g.exit.as_ref().map(|e| e.code),
                    width: g.emulator.cols(),
                    height: g.emulator.rows(),
                    updated_at: timestamp(g.updated_at),
                    expires_at: g.expires_at.map(timestamp),
                },
            ));
        }
        if all {
            for l in self.lost.values() {
                let r = &l.record;
                rows.push((
                    l.lost_at(),
                    reply::ListEntry {
                        session_id: r.session_id.clone(),
                        state: State::Unavailable,
                        process_id: r.process_id,
                        exit_code: None,
                        width: r.width.into(),
                        height: r.height.into(),
                        updated_at: timestamp(l.lost_at()),
                        expires_at: Some(timestamp(l.expires_at())),
                    },
                ));
            }
        }
        rows.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| a.1.session_id.cmp(&b.1.session_id))
        });
        Outcome::now(&reply::Listed {
            schema_version: SCHEMA,
            sessions: rows.into_iter().map(|r| r.1).collect(),
        })
    }

    /// `read [--structured]`: the screen. A screen of at most [`INLINE_CELLS`] cells is
    /// serialised on the loop (tens of microseconds: a hand-off to a reply thread would cost
    /// more); a larger one on a reply thread.
    fn read(&self, id: &str, structured: bool) -> Result<Outcome, HostError> {
        let s = self.live(id)?;
        s.record(Entry::Read);
        let cells = {
            let g = s.lock();
            g.emulator.cols() * g.emulator.rows()
        };
        let work = move || {
            // Snapshot under the lock; serialise (possibly megabytes) after it.
            let (state, exit, version, screen, history) = {
                let g = s.lock();
                let screen = g.emulator.snapshot();
                (
                    g.state,
                    g.exit.clone(),
                    g.version,
                    screen,
                    g.emulator.history_size(),
                )
            };
            Ok(reply::to_line(&reply::Read {
                schema_version: SCHEMA,
                session_id: &s.id,
                state,
                process_id: s.pid,
                exit_code: exit.as_ref().map(|e| e.code),
                version,
                screen: ScreenDoc::of(&screen, history, structured),
            }))
        };
        if cells <= INLINE_CELLS {
            work().map(Outcome::Now)
        } else {
            later_line(work)
        }
    }

    /// `wait` (first call): registers a waiter and polls it once.
    fn wait_start(
        &self,
        id: &str,
        condition: Condition,
        timeout_ms: Option<u64>,
    ) -> Result<Outcome, HostError> {
        let s = self.live(id)?;
        later_line(move || {
            let waiter = s.add_waiter(condition.clone(), timeout_ms)?;
            poll(&s, waiter, &condition, Duration::ZERO, Some(waiter))
        })
    }

    /// `wait` (later calls): one poll of at most [`POLL_BUDGET`].
    fn wait_poll(&self, id: &str, waiter: u64) -> Result<Outcome, HostError> {
        let s = self.live(id)?;
        let id = id.to_string();
        // Everything that takes the session's lock happens on a reply thread.
        later_line(move || {
            let condition = s.lock().condition_of(waiter).ok_or_else(|| {
                HostError::new(
                    ErrorCode::InvalidRequest,
                    format!("no waiter {waiter} on {id}"),
                )
            })?;
            poll(&s, waiter, &condition, POLL_BUDGET, None)
        })
    }

    /// The client gave up a wait (timeout, Ctrl+C): journal it, and reply with the screen as
    /// it is now, for the client's final reply.
    fn wait_end(&self, id: &str, waiter: u64) -> Result<Outcome, HostError> {
        let s = self.session(id)?;
        later_line(move || {
            let condition = s.lock().condition_of(waiter);
            s.finish_waiter(waiter);
            match condition {
                Some(c) => Ok(wait_reply(&s, &c, "pending", true, None)),
                None => Ok(reply::to_line(&reply::Ack {
                    schema_version: SCHEMA,
                    session_id: &s.id,
                })),
            }
        })
    }

    /// `send`: validates every step first, then queues them as one action, with a quiet gap
    /// of `gap_ms` (default [`DEFAULT_INPUT_GAP`]) after a paste or a lone Escape that more
    /// input follows.
    ///
    /// Errors: `unsupported_key`, `invalid_request` for bad steps or a gap over
    /// [`MAX_INPUT_GAP`]; the session's (see [`Session::send`]).
    fn send(
        &self,
        id: &str,
        inputs: Vec<keys::Input>,
        gap_ms: Option<u64>,
    ) -> Result<Outcome, HostError> {
        let gap = gap_ms.map_or(DEFAULT_INPUT_GAP, Duration::from_millis);
        if gap > MAX_INPUT_GAP {
            return Err(HostError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "the gap after a paste or Escape is at most {} ms, not {} ms",
                    MAX_INPUT_GAP.as_millis(),
                    gap.as_millis()
                ),
            ));
        }
        let steps = keys::validate(&inputs).map_err(|e| {
            let code = if e.code() == "unsupported_key" {
                ErrorCode::UnsupportedKey
            } else {
                ErrorCode::InvalidRequest
            };
            HostError::new(code, e.to_string())
        })?;
        let s = self.live(id)?;
        let paste = steps.iter().any(|st| matches!(st, keys::Step::Paste(_)));
        // The version before any of this input can have an effect, so that
        // `wait --since <version>` sees even the fastest echo.
        let (bracketed, version) = {
            let g = s.lock();
            (g.emulator.modes().bracketed_paste, g.version)
        };
        // Read before the input is written: the program may leave the prompt at once.
        let hidden = s.hidden_prompt();
        s.send(steps, gap)?;
        s.record(Entry::send(inputs, hidden).with_gap(gap_ms));
        let g = s.lock();
        Outcome::now(&reply::Sent {
            schema_version: SCHEMA,
            session_id: &s.id,
            state: g.state,
            exit_code: g.exit.as_ref().map(|e| e.code),
            version,
            bracketed_paste: paste.then_some(bracketed),
        })
    }

    /// `resize`: grid, then PTY (SIGWINCH); the crash-recovery record follows.
    ///
    /// Errors: `invalid_request` for a size outside 1–500; the session's (see
    /// [`Session::resize`]).
    fn resize(&mut self, id: &str, width: u16, height: u16) -> Result<Outcome, HostError> {
        check_size(width, height)?;
        let s = self.live(id)?;
        let version = s.resize(width, height)?;
        s.record(Entry::Resize { width, height });
        let _ = self.ledger.resize(&record_of(&s, width, height));
        let g = s.lock();
        Outcome::now(&reply::Resized {
            schema_version: SCHEMA,
            session_id: &s.id,
            state: g.state,
            exit_code: g.exit.as_ref().map(|e| e.code),
            version,
            width,
            height,
        })
    }

    /// `stop <id>`: deleted from the registry now (later requests no longer find it), its
    /// processes ended on a reply thread. A lost session is deleted with its record and journal.
    fn stop(&mut self, id: &str) -> Result<Outcome, HostError> {
        if let Some(lost) = self.lost.remove(id) {
            recovery::forget(&self.runtime, id);
            return Outcome::now(&lost_stopped(&lost));
        }
        let s = self.session(id)?;
        self.sessions.remove(id);
        let record = self.ledger.release(id);
        later_line(move || {
            s.begin_kill();
            let reply = stop_reply(&s, Instant::now() + STOP_GRACE);
            drop(record);
            Ok(reply)
        })
    }

    /// `stop --all`: every session at once with one shared grace period; lost sessions are
    /// deleted too.
    fn stop_all(&mut self) -> Result<Outcome, HostError> {
        let mut all: Vec<Arc<Session>> = self.sessions.drain().map(|(_, s)| s).collect();
        let records: Vec<recovery::Release> =
            all.iter().map(|s| self.ledger.release(&s.id)).collect();
        let mut lost: Vec<String> = self.lost.drain().map(|(id, _)| id).collect();
        for id in &lost {
            recovery::forget(&self.runtime, id);
        }
        later_line(move || {
            Session::end_many(&all, STOP_GRACE);
            for s in &all {
                retire(s);
            }
            drop(records);
            let mut stopped: Vec<String> = all.iter().map(|s| s.id.to_string()).collect();
            stopped.append(&mut lost);
            stopped.sort();
            // Every process has ended; the I/O loop reaps them (the kernel's part of that is
            // about 1 ms a process on a busy machine), and their screens and scrollback go
            // back to the system after it, while the reply goes out now.
            let _ = std::thread::Builder::new()
                .name("host-reap".into())
                .spawn(move || {
                    for s in &all {
                        s.await_exit();
                    }
                    all.clear();
                    super::io::trim_heap();
                });
            Ok(reply::to_line(&reply::StoppedAll {
                schema_version: SCHEMA,
                stopped: stopped.iter().map(String::as_str).collect(),
                failed: Vec::new(),
            }))
        })
    }

    /// `snapshot`: the whole screen once it has settled, for rendering by the client.
    fn snapshot(&self, id: &str) -> Result<Outcome, HostError> {
        let s = self.live(id)?;
        later_line(move || {
            s.settle(CAPTURE_QUIET, CAPTURE_SETTLE_MAX);
            let (state, version, screen) = {
                let g = s.lock();
                (g.state, g.version, g.emulator.snapshot())
            };
            Ok(reply::to_line(&reply::Snapshot {
                schema_version: SCHEMA,
                session_id: &s.id,
                state,
                version,
                screen: &screen,
            }))
        })
    }

    /// `record`: a client-side step (a capture written, an inspection) for the journal.
    ///
    /// Errors: `invalid_request` for any other entry.
    fn record(&self, id: &str, entry: Entry) -> Result<Outcome, HostError> {
        let s = self.session(id)?;
        if !matches!(entry, Entry::Capture { .. } | Entry::Inspect) {
            return Err(HostError::new(
                ErrorCode::InvalidRequest,
                "only captures and inspections are recorded by clients",
            ));
        }
        s.record(entry);
        Outcome::now(&reply::Ack {
            schema_version: SCHEMA,
            session_id: &s.id,
        })
    }

    /// `cast` (for `session export x.cast`): the session's output kept in memory.
    fn cast(&self, id: &str) -> Result<Outcome, HostError> {
        let s = self.session(id)?;
        // Up to megabytes of output: written out on a reply thread.
        later_line(move || {
            let cast = s
                .lock()
                .cast
                .as_ref()
                .ok_or_else(|| {
                    HostError::new(
                        ErrorCode::InvalidRequest,
                        format!(
                            "session {} keeps no recording: start it with `session start --record` to export a cast",
                            s.id
                        ),
                    )
                })?
                .to_cast()
                .map_err(|m| HostError::new(ErrorCode::SessionError, m))?;
            Ok(reply::to_line(&reply::CastDoc {
                schema_version: SCHEMA,
                session_id: &s.id,
                cast: &cast,
            }))
        })
    }

    /// `journal` (for `session export`): from memory, or for a lost session from its file.
    fn journal(&self, id: &str) -> Result<Outcome, HostError> {
        if self.lost.contains_key(id) {
            let entries = recovery::read_journal(&self.runtime, id)?;
            return Outcome::now(&reply::JournalDoc {
                schema_version: SCHEMA,
                session_id: id,
                entries: &entries,
            });
        }
        let s = self.session(id)?;
        Outcome::now(&reply::JournalDoc {
            schema_version: SCHEMA,
            session_id: &s.id,
            entries: &s.journal(),
        })
    }
}

/// A reply line computed later, as an [`Outcome`].
fn later_line(
    work: impl FnOnce() -> Result<String, HostError> + Send + 'static,
) -> Result<Outcome, HostError> {
    Ok(Outcome::Later(Box::new(work)))
}

/// Errors: `invalid_request` unless both are 1–500 (contract: `--width`/`--height` 1–500).
fn check_size(width: u16, height: u16) -> Result<(), HostError> {
    if (1..=500).contains(&width) && (1..=500).contains(&height) {
        Ok(())
    } else {
        Err(HostError::new(
            ErrorCode::InvalidRequest,
            "width and height must be 1–500",
        ))
    }
}

/// A session's crash-recovery record at size `width`×`height`.
fn record_of(s: &Session, width: u16, height: u16) -> Record {
    Record {
        session_id: s.id.to_string(),
        process_id: s.pid,
        start_ticks: recovery::start_ticks(s.pid),
        host_pid: std::process::id(),
        argv: s.launch.argv.clone(),
        cwd: s.launch.cwd.clone(),
        width,
        height,
        started_at_ms: recovery::to_ms(s.started_at),
        lost_at_ms: None,
        expires_at_ms: None,
    }
}

/// The `stop` reply of a lost session (its processes were ended when it was found lost).
fn lost_stopped(lost: &Lost) -> reply::Stopped<'_> {
    reply::Stopped {
        schema_version: SCHEMA,
        session_id: &lost.record.session_id,
        state: State::Stopped,
        exit_code: None,
        signal: None,
    }
}

/// Ends a session's processes (already signalled by [`Session::begin_kill`]) by `deadline`,
/// deletes its data; returns the `stop` reply line, which states how the program ended. Also
/// after the program exited: background children may still hold the terminal.
pub fn stop_reply(session: &Session, deadline: Instant) -> String {
    let exit = session.finish_kill(deadline);
    finish_stop(session, exit)
}

/// Marks a session whose processes have ended as stopped and removes its journal.
fn retire(session: &Session) {
    session.mark_stopped();
    session.remove_journal();
}

/// [`retire`]s a session whose processes have ended; returns the `stop` reply line.
fn finish_stop(session: &Session, exit: Option<crate::pty::Exit>) -> String {
    retire(session);
    reply::to_line(&reply::Stopped {
        schema_version: SCHEMA,
        session_id: &session.id,
        state: State::Stopped,
        exit_code: exit.as_ref().map(|e| e.code),
        signal: exit.as_ref().and_then(|e| e.signal.clone()),
    })
}

/// One wait poll (at most `budget`): the contract's `wait` reply line, with `result`
/// "pending" while undecided. Pending replies leave out the screen (the client only shows the
/// last one); the first poll names its `waiter`.
fn poll(
    s: &Session,
    waiter: u64,
    condition: &Condition,
    budget: Duration,
    first: Option<u64>,
) -> Result<String, HostError> {
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
    Ok(wait_reply(
        s,
        condition,
        result,
        outcome != Poll::Pending,
        first,
    ))
}

/// The contract's `wait` reply line for `result`, with the current screen when `with_screen`.
fn wait_reply(
    s: &Session,
    condition: &Condition,
    result: &'static str,
    with_screen: bool,
    waiter: Option<u64>,
) -> String {
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
    reply::to_line(&reply::Waited {
        schema_version: SCHEMA,
        status: if matched || result == "pending" {
            "completed"
        } else {
            "error"
        },
        session_id: &s.id,
        state,
        process_id: s.pid,
        exit_code: exit.as_ref().map(|e| e.code),
        version,
        result,
        until: condition.until.as_str(),
        text: &condition.text,
        matched,
        timed_out: false,
        screen: screen
            .as_ref()
            .map(|screen| ScreenDoc::of(screen, history, false)),
        waiter,
    })
}

/// RFC 3339 UTC with milliseconds, e.g. `2026-11-30T15:04:05.123Z`.
pub fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}
