//! One live session inside the host: a program in a PTY, the emulator fed by its output, the
//! input writer, and the waiters evaluated on every screen change.
//!
//! Threads per session: a reader (PTY → channel), a pump (channel → emulator; answers queries;
//! force-ends synchronized-output frames; bumps the version; evaluates waiters), a writer (input
//! steps and query answers → PTY, each step one write) and a reaper (waits for the exit).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};

// parking_lot's mutex is eventually fair: a flooding session's pump re-locking in a loop
// cannot starve a request waiting for the same lock.
use parking_lot::{Condvar, Mutex as FairMutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use portable_pty::MasterPty;

use super::journal::{Entry, Journal};
use super::protocol::{Condition, ErrorCode, HostError, Until};
use crate::pty::{self, Exit, SpawnSpec};
use crate::term::keys::{self, Step};
use crate::term::{Emulator, Screen};

/// How long an exited session stays readable: 24 h (contract), or
/// `$CONSOLE2SVG_RETENTION_SECS` (for tests).
pub fn retention() -> Duration {
    let secs = std::env::var("CONSOLE2SVG_RETENTION_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24 * 3600);
    Duration::from_secs(secs)
}

/// How long the screen must be still before a capture takes it (see [`Session::settle`]).
pub const CAPTURE_QUIET: Duration = Duration::from_millis(100);

/// The longest a capture waits for the screen to be still.
pub const CAPTURE_SETTLE_MAX: Duration = Duration::from_secs(2);

/// After the program exits, how long its last output may take to come out of the PTY before
/// the session is declared ended anyway (background children can hold the PTY open).
const EXIT_DRAIN: Duration = Duration::from_millis(200);

/// Output chunks queued between the PTY reader and the parser; when full the reader stops
/// reading, so a program that writes faster than the host parses is slowed down instead of
/// filling the host's memory.
const PUMP_QUEUE: usize = 16;

/// Most output bytes parsed under one lock before a new version is published (≈ 10 ms of
/// parsing), so a read never waits long behind a flood.
const BATCH_BYTES: usize = 1 << 20;

/// Lifecycle states (contract: `starting`, `running`, `exited`, `stopped`, `unavailable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Running,
    Exited,
    Stopped,
    Unavailable,
}

impl State {
    /// The state's JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Exited => "exited",
            State::Stopped => "stopped",
            State::Unavailable => "unavailable",
        }
    }
}

/// A registered `wait` (evaluated on every screen change and on every poll).
#[derive(Debug)]
struct Waiter {
    condition: Condition,
    matcher: Matcher,
    /// The client's timeout, for the journal.
    timeout_ms: Option<u64>,
    seen_present: bool,
    true_since: Option<Instant>,
    matched: bool,
    /// When a client last asked about it; waiters nobody polls any more are dropped.
    last_poll: Instant,
}

/// A compiled wait pattern: literal text or a regular expression.
#[derive(Debug)]
enum Matcher {
    Literal(String),
    Regex(regex::Regex),
}

impl Matcher {
    /// Compiles `c`'s pattern; with `line` a regex must match a whole row.
    ///
    /// Errors: `invalid_condition` for an empty text or an invalid regular expression.
    fn new(c: &Condition) -> Result<Matcher, HostError> {
        if c.text.is_empty() {
            return Err(HostError::new(
                ErrorCode::InvalidCondition,
                "the text to wait for must not be empty",
            ));
        }
        if !c.regex {
            return Ok(Matcher::Literal(c.text.clone()));
        }
        let pattern = if c.line {
            format!("^(?:{})$", c.text)
        } else {
            c.text.clone()
        };
        regex::Regex::new(&pattern)
            .map(Matcher::Regex)
            .map_err(|e| {
                HostError::new(
                    ErrorCode::InvalidCondition,
                    format!("invalid regular expression: {e}"),
                )
            })
    }

    /// Whether one row matches (a whole row with `line`).
    fn row(&self, row: &str, line: bool) -> bool {
        match self {
            Matcher::Literal(t) if line => row == t,
            Matcher::Literal(t) => row.contains(t.as_str()),
            Matcher::Regex(re) => re.is_match(row),
        }
    }

    /// Whether the screen text (rows joined by `\n`) matches.
    fn text(&self, text: &str) -> bool {
        match self {
            Matcher::Literal(t) => text.contains(t.as_str()),
            Matcher::Regex(re) => re.is_match(text),
        }
    }
}

/// The first version at which each viewport row's current text appeared (for `--since`).
/// Rows are matched by content across changes, so scrolling keeps a row's version.
#[derive(Debug, Default)]
struct RowVersions {
    rows: Vec<(String, u64)>,
}

impl RowVersions {
    fn update(&mut self, texts: Vec<String>, version: u64) {
        let mut old: HashMap<String, std::collections::VecDeque<u64>> = HashMap::new();
        for (t, v) in self.rows.drain(..) {
            old.entry(t).or_default().push_back(v);
        }
        self.rows = texts
            .into_iter()
            .map(|t| {
                let v = old
                    .get_mut(&t)
                    .and_then(|q| q.pop_front())
                    .unwrap_or(version);
                (t, v)
            })
            .collect();
    }
}

/// State shared between the host's request thread and the session's threads.
pub struct Shared {
    pub emulator: Emulator,
    pub version: u64,
    pub state: State,
    pub exit: Option<Exit>,
    pub updated_at: SystemTime,
    pub expires_at: Option<SystemTime>,
    rows: RowVersions,
    waiters: HashMap<u64, Waiter>,
    next_waiter: u64,
}

impl Shared {
    fn bump(&mut self) {
        self.version += 1;
        self.updated_at = SystemTime::now();
        let texts = (0..self.emulator.rows())
            .map(|r| self.emulator.row_text(r))
            .collect();
        self.rows.update(texts, self.version);
        self.evaluate_waiters(Instant::now());
    }

    /// Whether a waiter's pattern is on screen now, by its condition's rules (`--line`,
    /// `--since`).
    /// `screen` is the screen text as `read` shows it (trailing empty rows dropped, so `$`
    /// anchors work), built once per evaluation for all waiters.
    fn present(&self, w: &Waiter, screen: &str) -> bool {
        let c = &w.condition;
        let eligible = |v: u64| c.since.is_none_or(|s| v > s);
        if c.line || c.since.is_some() {
            return self
                .rows
                .rows
                .iter()
                .any(|(t, v)| eligible(*v) && w.matcher.row(t, c.line));
        }
        w.matcher.text(screen)
    }

    fn evaluate_waiters(&mut self, now: Instant) {
        let ids: Vec<u64> = self
            .waiters
            .iter()
            .filter(|(_, w)| !w.matched)
            .map(|(id, _)| *id)
            .collect();
        if ids.is_empty() {
            return;
        }
        let rows: Vec<&str> = self.rows.rows.iter().map(|(t, _)| t.as_str()).collect();
        let joined = rows.join("\n");
        let screen = joined.trim_end_matches('\n');
        for id in ids {
            let present = self.present(&self.waiters[&id], screen);
            let w = self.waiters.get_mut(&id).expect("waiter");
            let holds = match w.condition.until {
                Until::Present => present,
                Until::Absent => {
                    w.seen_present |= present;
                    w.seen_present && !present
                }
            };
            if holds {
                let since = *w.true_since.get_or_insert(now);
                if now.duration_since(since) >= Duration::from_millis(w.condition.stable_for_ms) {
                    w.matched = true;
                }
            } else {
                w.true_since = None;
            }
        }
    }

    /// The condition of waiter `id`, if it exists.
    pub fn condition_of(&self, id: u64) -> Option<Condition> {
        self.waiters.get(&id).map(|w| w.condition.clone())
    }

    /// When a waiter that holds now would be satisfied by time alone (its `stable-for`).
    fn stable_deadline(&self, id: u64) -> Option<Instant> {
        let w = self.waiters.get(&id)?;
        w.true_since
            .map(|t| t + Duration::from_millis(w.condition.stable_for_ms))
    }
}

/// Messages to the pump thread.
enum PumpMsg {
    Output(Vec<u8>),
    Eof,
    Exited(Exit),
}

/// A session.
pub struct Session {
    pub id: String,
    pub pid: u32,
    shared: Arc<(FairMutex<Shared>, Condvar)>,
    journal: Mutex<Journal>,
    writer: Sender<Vec<u8>>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    /// What termio knows about the session (launch, project, status tracking): see
    /// [`super::termio`].
    pub termio: super::termio::Meta,
}

/// How a poll of a waiter ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    Matched,
    Pending,
    SessionEnded,
}

fn lock(shared: &(FairMutex<Shared>, Condvar)) -> MutexGuard<'_, Shared> {
    shared.0.lock()
}

/// A fresh session id: `s_` + 32 lowercase hex digits from the OS's random source.
pub fn new_id() -> String {
    let mut bytes = [0u8; 16];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = f.read_exact(&mut bytes);
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("s_{hex}")
}

impl Session {
    /// Starts `spec` in a PTY and its threads.
    ///
    /// Errors: `session_not_started` when the program cannot be started.
    /// The journal is mirrored to `<journal_dir>/<id>.jsonl` when a directory is given.
    pub fn start(
        spec: &SpawnSpec,
        journal_dir: Option<&std::path::Path>,
    ) -> Result<Session, HostError> {
        let termio = super::termio::Meta::of(spec, None);
        Session::start_with(spec, journal_dir, new_id(), termio)
    }

    /// [`Session::start`] with a given id (from [`new_id`]) and termio metadata: for callers
    /// that must know the id before the program starts (termio puts it in the environment).
    ///
    /// Errors: as [`Session::start`].
    pub fn start_with(
        spec: &SpawnSpec,
        journal_dir: Option<&std::path::Path>,
        id: String,
        termio: super::termio::Meta,
    ) -> Result<Session, HostError> {
        let (process, reader, writer) = pty::spawn(spec)
            .map_err(|e| HostError::new(ErrorCode::SessionNotStarted, e.to_string()))?;
        let (master, mut child, pid) = process.into_parts();
        let shared = Arc::new((
            FairMutex::new(Shared {
                emulator: Emulator::new(spec.cols as usize, spec.rows as usize),
                version: 1,
                state: State::Running,
                exit: None,
                updated_at: SystemTime::now(),
                expires_at: None,
                rows: RowVersions::default(),
                waiters: HashMap::new(),
                next_waiter: 1,
            }),
            Condvar::new(),
        ));
        let (pump_tx, pump_rx) = mpsc::sync_channel::<PumpMsg>(PUMP_QUEUE);
        let (write_tx, write_rx) = mpsc::channel::<Vec<u8>>();

        let tx = pump_tx.clone();
        std::thread::Builder::new()
            .name("session-reader".into())
            .spawn(move || read_loop(reader, tx))
            .map_err(|e| HostError::new(ErrorCode::SessionError, e.to_string()))?;
        std::thread::Builder::new()
            .name("session-reaper".into())
            .spawn(move || {
                let exit = match child.wait() {
                    Ok(status) => pty::exit_of(&status),
                    Err(_) => Exit {
                        code: 1,
                        signal: None,
                    },
                };
                let _ = pump_tx.send(PumpMsg::Exited(exit));
            })
            .map_err(|e| HostError::new(ErrorCode::SessionError, e.to_string()))?;
        let pump_shared = shared.clone();
        let replies = write_tx.clone();
        std::thread::Builder::new()
            .name("session-pump".into())
            .spawn(move || pump_loop(pump_rx, pump_shared, replies))
            .map_err(|e| HostError::new(ErrorCode::SessionError, e.to_string()))?;
        let writer_shared = shared.clone();
        std::thread::Builder::new()
            .name("session-writer".into())
            .spawn(move || write_loop(writer, write_rx, writer_shared))
            .map_err(|e| HostError::new(ErrorCode::SessionError, e.to_string()))?;
        let mut journal = Journal::new(journal_dir.map(|d| d.join(format!("{id}.jsonl"))));
        journal.record(Entry::Launch(super::protocol::Launch::of(spec)));
        Ok(Session {
            id,
            pid,
            shared,
            journal: Mutex::new(journal),
            writer: write_tx,
            master: Mutex::new(master),
            termio,
        })
    }

    /// Locks the shared state.
    pub fn lock(&self) -> MutexGuard<'_, Shared> {
        lock(&self.shared)
    }

    /// Queues validated input steps, each encoded against the application's current modes
    /// (DECCKM, DECKPAM, bracketed paste) and written in order, one write per step.
    ///
    /// Errors: `session_exited` when the program has ended.
    pub fn send(&self, steps: Vec<Step>) -> Result<(), HostError> {
        if self.lock().state != State::Running {
            return Err(HostError::new(
                ErrorCode::SessionExited,
                format!("session {} has exited", self.id),
            ));
        }
        for step in steps {
            // Encoded against the modes of the output parsed so far (the request's "now").
            let bytes = {
                let g = self.lock();
                keys::encode_step(&step, &g.emulator.modes())
            };
            self.writer.send(bytes).map_err(|_| {
                HostError::new(
                    ErrorCode::SessionExited,
                    format!("session {} has exited", self.id),
                )
            })?;
        }
        Ok(())
    }

    /// Resizes the grid, then the PTY (the kernel signals SIGWINCH), under the lock so that
    /// output written after the signal is parsed at the new size.
    ///
    /// Errors: `session_exited`; `io_error` when the PTY refuses the size.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<u64, HostError> {
        let mut g = self.lock();
        if g.state != State::Running {
            return Err(HostError::new(
                ErrorCode::SessionExited,
                format!("session {} has exited", self.id),
            ));
        }
        g.emulator.resize(cols as usize, rows as usize);
        self.master
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .resize(portable_pty::PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| {
                HostError::new(ErrorCode::IoError, format!("cannot resize the PTY: {e}"))
            })?;
        g.bump();
        self.shared.1.notify_all();
        Ok(g.version)
    }

    /// Registers a waiter and evaluates it once.
    ///
    /// Errors: `invalid_condition` for an empty text or a bad regular expression.
    pub fn add_waiter(
        &self,
        condition: Condition,
        timeout_ms: Option<u64>,
    ) -> Result<u64, HostError> {
        let matcher = Matcher::new(&condition)?;
        let mut g = self.lock();
        let id = g.next_waiter;
        g.next_waiter += 1;
        g.waiters.insert(
            id,
            Waiter {
                condition,
                matcher,
                timeout_ms,
                seen_present: false,
                true_since: None,
                matched: false,
                last_poll: Instant::now(),
            },
        );
        g.evaluate_waiters(Instant::now());
        Ok(id)
    }

    /// Waits at most `budget` for waiter `id` to be satisfied or the session to end.
    pub fn poll_waiter(&self, id: u64, budget: Duration) -> Result<Poll, HostError> {
        let end = Instant::now() + budget;
        let mut g = self.lock();
        loop {
            let now = Instant::now();
            g.evaluate_waiters(now);
            let Some(w) = g.waiters.get_mut(&id) else {
                return Err(HostError::new(
                    ErrorCode::InvalidRequest,
                    format!("no waiter {id}"),
                ));
            };
            w.last_poll = now;
            if w.matched {
                return Ok(Poll::Matched);
            }
            if g.state != State::Running {
                return Ok(Poll::SessionEnded);
            }
            if now >= end {
                return Ok(Poll::Pending);
            }
            let until = g.stable_deadline(id).map_or(end, |d| d.min(end));
            self.shared.1.wait_for(
                &mut g,
                until
                    .saturating_duration_since(now)
                    .max(Duration::from_millis(1)),
            );
        }
    }

    /// Drops waiter `id` and journals the wait with how it ended.
    pub fn finish_waiter(&self, id: u64) {
        let removed = self.lock().waiters.remove(&id);
        if let Some(w) = removed {
            self.record(Entry::Wait {
                condition: w.condition,
                timeout_ms: w.timeout_ms,
                matched: w.matched,
            });
        }
    }

    /// Appends to the session's journal.
    pub fn record(&self, entry: Entry) {
        self.journal
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .record(entry);
    }

    /// A copy of the journal's entries.
    pub fn journal(&self) -> Vec<Entry> {
        self.journal
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entries()
            .to_vec()
    }

    /// Deletes the journal's file (when the session is deleted).
    pub fn remove_journal(&self) {
        self.journal
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove_file();
    }

    /// Drops waiters no client has polled for `max_age` (their client went away).
    pub fn drop_stale_waiters(&self, max_age: Duration) {
        let now = Instant::now();
        self.lock()
            .waiters
            .retain(|_, w| now.duration_since(w.last_poll) < max_age);
    }

    /// Ends the program: SIGTERM and SIGHUP to every process group of the session, up to
    /// `grace` for all of them to go, then SIGKILL. Returns the program's exit.
    pub fn kill(&self, grace: Duration) -> Option<Exit> {
        self.begin_kill();
        self.finish_kill(Instant::now() + grace)
    }

    /// First half of [`Session::kill`]: SIGTERM, SIGHUP and SIGCONT to every process group of
    /// the session. Lets a caller stopping many sessions signal them all before waiting.
    pub fn begin_kill(&self) {
        pty::signal_session(self.pid, rustix::process::Signal::TERM);
        pty::signal_session(self.pid, rustix::process::Signal::HUP);
        pty::signal_session(self.pid, rustix::process::Signal::CONT);
    }

    /// Second half of [`Session::kill`]: waits until `deadline` for the session's processes to
    /// go, SIGKILLs what is left, and returns the program's exit once the reaper has it.
    pub fn finish_kill(&self, deadline: Instant) -> Option<Exit> {
        while Instant::now() < deadline && !pty::session_members(self.pid).is_empty() {
            std::thread::sleep(Duration::from_millis(10));
        }
        for _ in 0..100 {
            if pty::signal_session(self.pid, rustix::process::Signal::KILL) == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // The reaper records the leader's exit.
        let mut g = self.lock();
        let until = Instant::now() + Duration::from_secs(2);
        while g.exit.is_none() && Instant::now() < until {
            self.shared.1.wait_for(&mut g, Duration::from_millis(20));
        }
        g.exit.clone()
    }

    /// Waits until the screen has not changed for `quiet` (at most `max` in all), so a capture
    /// never catches a program between the parts of one redraw (text drawn, cursor not yet
    /// moved). Returns at once for a session that has ended.
    pub fn settle(&self, quiet: Duration, max: Duration) {
        let end = Instant::now() + max;
        let mut g = self.lock();
        let mut seen = (g.version, Instant::now());
        while g.state == State::Running {
            let now = Instant::now();
            if now >= end || now.duration_since(seen.1) >= quiet {
                return;
            }
            let until = (seen.1 + quiet).min(end);
            self.shared
                .1
                .wait_for(&mut g, until.saturating_duration_since(now));
            if g.version != seen.0 {
                seen = (g.version, Instant::now());
            }
        }
    }

    /// Blocks until the screen version differs from `seen`, the session has ended, or
    /// `timeout` passes; returns the version and state then.
    pub fn wait_for_change(&self, seen: u64, timeout: Duration) -> (u64, State) {
        let end = Instant::now() + timeout;
        let mut g = self.lock();
        while g.version == seen && g.state == State::Running {
            let now = Instant::now();
            if now >= end {
                break;
            }
            self.shared.1.wait_for(&mut g, end - now);
        }
        (g.version, g.state)
    }

    /// The viewport snapshot and the scrollback row count.
    pub fn snapshot(&self) -> (Screen, usize, u64) {
        let g = self.lock();
        (g.emulator.snapshot(), g.emulator.history_size(), g.version)
    }
}

fn read_loop(mut reader: Box<dyn Read + Send>, tx: SyncSender<PumpMsg>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => {
                let _ = tx.send(PumpMsg::Eof);
                return;
            }
            Ok(n) => {
                if tx.send(PumpMsg::Output(buf[..n].to_vec())).is_err() {
                    return;
                }
            }
        }
    }
}

fn pump_loop(
    rx: Receiver<PumpMsg>,
    shared: Arc<(FairMutex<Shared>, Condvar)>,
    replies: Sender<Vec<u8>>,
) {
    let mut eof = false;
    // Set when the program has exited but its last output may still be in the PTY: the
    // session is declared ended only after end-of-file or this deadline, so a wait never sees
    // "ended" before the final screen.
    let mut exit_drain: Option<Instant> = None;
    let mut pending: Option<PumpMsg> = None;
    loop {
        // (The deadline is read in its own statement: a guard in a match scrutinee would stay
        // locked while we block on the channel.)
        let sync = lock(&shared).emulator.sync_deadline();
        let deadline = match (sync, exit_drain) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let msg = match pending.take() {
            Some(m) => Ok(m),
            None => match deadline {
                Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            },
        };
        let mut g = lock(&shared);
        match msg {
            Ok(PumpMsg::Output(bytes)) => {
                // Parse everything already queued (up to BATCH_BYTES) before publishing a new
                // version: under heavy output the per-version work (row texts, waiters,
                // wake-ups) happens once per batch, not once per read.
                let mut batch = bytes.len();
                g.emulator.advance(&bytes);
                while batch < BATCH_BYTES {
                    match rx.try_recv() {
                        Ok(PumpMsg::Output(more)) => {
                            batch += more.len();
                            g.emulator.advance(&more);
                        }
                        Ok(other) => {
                            pending = Some(other);
                            break;
                        }
                        Err(_) => break,
                    }
                }
                let answer = g.emulator.take_replies();
                if !answer.is_empty() {
                    let _ = replies.send(answer);
                }
                g.bump();
            }
            Ok(PumpMsg::Eof) => eof = true,
            Ok(PumpMsg::Exited(exit)) => {
                g.exit = Some(exit);
                exit_drain = Some(Instant::now() + EXIT_DRAIN);
            }
            Err(RecvTimeoutError::Timeout) => {
                if g.emulator
                    .sync_deadline()
                    .is_some_and(|d| d <= Instant::now())
                {
                    g.emulator.expire_sync();
                    g.bump();
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let drained = eof || exit_drain.is_some_and(|d| Instant::now() >= d);
        if g.exit.is_some() && drained && g.state == State::Running {
            if g.emulator.sync_deadline().is_some() {
                g.emulator.expire_sync();
            }
            g.state = State::Exited;
            g.expires_at = Some(SystemTime::now() + retention());
            g.bump();
            exit_drain = None;
        }
        shared.1.notify_all();
        if eof && g.exit.is_some() {
            return;
        }
    }
}

fn write_loop(
    mut writer: Box<dyn Write + Send>,
    rx: Receiver<Vec<u8>>,
    shared: Arc<(FairMutex<Shared>, Condvar)>,
) {
    for bytes in rx {
        if writer
            .write_all(&bytes)
            .and_then(|_| writer.flush())
            .is_err()
        {
            let mut g = lock(&shared);
            if g.state == State::Running && g.exit.is_none() {
                g.state = State::Unavailable;
                g.bump();
                shared.1.notify_all();
            }
        }
    }
}

impl Session {
    /// The PTY's foreground process group (`tcgetpgrp` on the master), if it can be read.
    /// Cheap: one ioctl.
    pub fn foreground_group(&self) -> Option<i32> {
        self.master
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .process_group_leader()
    }

    /// Blocks until `done` holds for the shared state (checked now and on every change) or
    /// `deadline` passes; returns whether it held.
    pub fn wait_until(&self, deadline: Instant, mut done: impl FnMut(&Shared) -> bool) -> bool {
        let mut g = self.lock();
        loop {
            if done(&g) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            self.shared.1.wait_for(&mut g, deadline - now);
        }
    }

    /// Marks the session stopped (before it is removed from the registry).
    pub fn mark_stopped(&self) {
        let mut g = self.lock();
        g.state = State::Stopped;
        g.bump();
        self.shared.1.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_versions_follow_content_through_scrolling() {
        let mut rv = RowVersions::default();
        rv.update(vec!["$ run".into(), "DONE".into(), "$".into()], 1);
        rv.update(vec!["DONE".into(), "$ run".into(), "DONE".into()], 5);
        assert_eq!(
            rv.rows[0],
            ("DONE".into(), 1),
            "the old DONE keeps its version"
        );
        assert_eq!(rv.rows[1], ("$ run".into(), 1));
        assert_eq!(rv.rows[2], ("DONE".into(), 5), "a second DONE is new");
    }
}
