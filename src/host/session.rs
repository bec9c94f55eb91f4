//! One live session inside the host: a program in a PTY, the emulator fed by its output, the
//! input writer, and the waiters evaluated on every screen change.
//!
//! A session has no threads of its own: the host's I/O loop ([`super::io`]) reads its PTY into
//! the emulator through the one pump ([`crate::pty::pump`]: query answers, synchronized-output
//! deadlines, the drain after the exit), bumps the version, evaluates waiters, writes pending
//! input when the PTY has room (each input step one write) and reaps the program.

use std::collections::{HashMap, HashSet, VecDeque};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

// parking_lot's mutex is eventually fair: a flooding session's pump re-locking in a loop
// cannot starve a request waiting for the same lock.
use parking_lot::{Condvar, Mutex as FairMutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use portable_pty::MasterPty;

use super::journal::{Entry, Journal};
use super::protocol::{Condition, ErrorCode, HostError, SessionId, Until};
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

/// Rows of scrollback a session keeps unless its `start` asks otherwise (`--scrollback`, the
/// config's `terminal.scrollback`): tmux's default. Up to [`crate::term::MAX_SCROLLBACK`].
pub const DEFAULT_SCROLLBACK: usize = 2_000;

/// How long the screen must be still before a capture takes it (see [`Session::settle`]).
pub const CAPTURE_QUIET: Duration = Duration::from_millis(100);

/// The longest a capture waits for the screen to be still.
pub const CAPTURE_SETTLE_MAX: Duration = Duration::from_secs(2);

/// Lifecycle states (contract: `starting`, `running`, `exited`, `stopped`, `unavailable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
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
/// Rows are matched by content across changes, so scrolling keeps a row's version. A row is
/// kept as a hash of its text (the texts themselves are the emulator's).
#[derive(Debug, Default)]
struct RowVersions {
    rows: Vec<(u64, u64)>,
}

/// The hash [`RowVersions`] keeps of a row's text.
fn row_hash(text: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(text)
}

impl RowVersions {
    fn update(&mut self, texts: &[String], version: u64) {
        let mut old: HashMap<u64, std::collections::VecDeque<u64>> = HashMap::new();
        for (t, v) in self.rows.drain(..) {
            old.entry(t).or_default().push_back(v);
        }
        self.rows = texts
            .iter()
            .map(|t| {
                let h = row_hash(t);
                let v = old
                    .get_mut(&h)
                    .and_then(|q| q.pop_front())
                    .unwrap_or(version);
                (h, v)
            })
            .collect();
    }
}

/// State shared between the host's request threads and the I/O loop.
pub struct Shared {
    pub emulator: Emulator,
    pub version: u64,
    pub state: State,
    pub exit: Option<Exit>,
    pub updated_at: SystemTime,
    /// When the screen last changed or input was last queued: [`Session::settle`] counts its
    /// quiet from here.
    pub active_at: Instant,
    pub expires_at: Option<SystemTime>,
    rows: RowVersions,
    waiters: HashMap<u64, Waiter>,
    next_waiter: u64,
    /// Why the session's terminal emulator failed (it panicked), once it has: the session is
    /// then `unavailable` and serves no more screens (see [`Shared::fail`]).
    failure: Option<String>,
    /// The session's output with its timing, for `session export` to a `.cast` path, when it
    /// was started with `record` (`session start --record`).
    pub cast: Option<CastLog>,
}

/// Most output bytes a session keeps for its cast (`session export x.cast`).
pub const MAX_CAST_BYTES: usize = 4 * 1024 * 1024;

/// A session's output and resizes with their times, up to [`MAX_CAST_BYTES`] of output
/// (input is never kept: it may hold what was typed at a password prompt).
#[derive(Debug)]
pub struct CastLog {
    start: Instant,
    recording: crate::recording::Recording,
    bytes: usize,
    /// More output came than is kept: the cast is incomplete and is not exported.
    pub overflowed: bool,
}

impl CastLog {
    fn new(cols: u16, rows: u16) -> CastLog {
        let unix = SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs());
        CastLog {
            start: Instant::now(),
            recording: crate::recording::Recording::new(cols, rows, unix),
            bytes: 0,
            overflowed: false,
        }
    }

    /// Output `bytes` read at `at`.
    pub fn output(&mut self, at: Instant, bytes: &[u8]) {
        if self.overflowed || self.bytes + bytes.len() > MAX_CAST_BYTES {
            self.overflowed = true;
            return;
        }
        self.bytes += bytes.len();
        self.recording.push(
            at.saturating_duration_since(self.start),
            crate::recording::EventKind::Output(bytes.to_vec()),
        );
    }

    /// A resize to `cols` × `rows` at `at`.
    pub fn resize(&mut self, at: Instant, cols: u16, rows: u16) {
        self.recording.push(
            at.saturating_duration_since(self.start),
            crate::recording::EventKind::Resize { cols, rows },
        );
    }

    /// The recording as an asciicast v2 document.
    ///
    /// Errors: the output passed [`MAX_CAST_BYTES`].
    pub fn to_cast(&self) -> Result<String, String> {
        if self.overflowed {
            return Err(format!(
                "the session wrote more than {} MiB: its cast was not kept in full",
                MAX_CAST_BYTES / (1024 * 1024)
            ));
        }
        Ok(crate::recording::asciicast::write_v2(&self.recording))
    }
}

impl Shared {
    /// Publishes a change: a new version, row versions and waiters re-evaluated.
    pub(super) fn bump(&mut self) {
        self.version += 1;
        self.updated_at = SystemTime::now();
        self.active_at = Instant::now();
        let texts = self.row_texts();
        self.rows.update(&texts, self.version);
        self.evaluate_waiters(&texts, Instant::now());
    }

    /// Whether a waiter's pattern is on screen now, by its condition's rules (`--line`,
    /// `--since`).
    /// `screen` is the screen text as `read` shows it (trailing empty rows dropped, so `$`
    /// anchors work), built once per evaluation for all waiters.
    /// `texts` are the viewport's rows (as [`Emulator::row_text`] gives them).
    fn present(&self, w: &Waiter, texts: &[String], screen: &str) -> bool {
        let c = &w.condition;
        let eligible = |v: u64| c.since.is_none_or(|s| v > s);
        if c.line || c.since.is_some() {
            return texts
                .iter()
                .zip(&self.rows.rows)
                .any(|(t, (_, v))| eligible(*v) && w.matcher.row(t, c.line));
        }
        w.matcher.text(screen)
    }

    /// The viewport's rows as text.
    fn row_texts(&self) -> Vec<String> {
        (0..self.emulator.rows())
            .map(|r| self.emulator.row_text(r))
            .collect()
    }

    /// Decides the waiters on the viewport's rows `texts` at `now`.
    fn evaluate_waiters(&mut self, texts: &[String], now: Instant) {
        let ids: Vec<u64> = self
            .waiters
            .iter()
            .filter(|(_, w)| !w.matched)
            .map(|(id, _)| *id)
            .collect();
        if ids.is_empty() {
            return;
        }
        let joined = texts.join("\n");
        let screen = joined.trim_end_matches('\n');
        for id in ids {
            let present = self.present(&self.waiters[&id], texts, screen);
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

    /// The program's output is complete: the session has ended by itself (`exited`), unless
    /// it had already ended otherwise.
    pub(super) fn end(&mut self) {
        if self.state == State::Running {
            self.state = State::Exited;
            self.expires_at = Some(SystemTime::now() + retention());
        }
        self.bump();
    }

    /// Ends the session after its terminal emulator failed with `message` (a panic caught by
    /// the I/O loop or by [`Session::resize`]): the emulator is replaced by a blank one of the
    /// same size (the failed one is never touched again), a running session becomes
    /// `unavailable` (retained like an exited one), and later requests on it get
    /// `session_error` (see [`Session::usable`]). Its program is ended by the caller.
    pub(super) fn fail(&mut self, message: String) {
        let (cols, rows) = (self.emulator.cols(), self.emulator.rows());
        let scrollback = self.emulator.scrollback_limit();
        self.emulator = Emulator::with_scrollback(cols, rows, scrollback);
        if self.state == State::Running {
            self.state = State::Unavailable;
            self.expires_at = Some(SystemTime::now() + retention());
        }
        self.failure = Some(message);
        self.bump();
    }

    /// Why the session's terminal emulator failed, if it did.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
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

/// Most input bytes a session holds for a program that does not read them; past it a `send`
/// fails with `invalid_operation` and writes nothing of its request (issue: input piles up).
pub const MAX_PENDING_INPUT: usize = 4 * 1024 * 1024;

/// The quiet gap `send` leaves after a paste or a lone Escape when more input of the same
/// request follows ([`keys::wants_quiet_gap`]), unless the request names its own. Sized from
/// the agents termio drives: Codex drops a Return that comes within 120 ms of pasted input and
/// its termio definition waits 200 ms (`quiet_ms`); Claude Code's paste debounce is shorter;
/// programs with an Escape timeout (vim's `ttimeoutlen` 100 ms, Ink, crossterm) read ESC and
/// what follows within it as Alt+<key>.
pub const DEFAULT_INPUT_GAP: Duration = Duration::from_millis(200);

/// The longest quiet gap a request may ask for.
pub const MAX_INPUT_GAP: Duration = Duration::from_secs(10);

/// One write of input and the quiet gap to keep after it before the next write.
#[derive(Debug, Default)]
pub(super) struct Chunk {
    bytes: Vec<u8>,
    gap: Duration,
    /// The terminal's answer to a query: not held back by a quiet gap.
    answer: bool,
}

/// Input waiting for room in the PTY or for a quiet gap to pass: whole writes in order (each
/// input step is one write).
#[derive(Debug, Default)]
struct Pending {
    chunks: VecDeque<Chunk>,
    /// Bytes of the first chunk already written.
    written: usize,
    /// Bytes in all chunks, less `written`.
    bytes: usize,
    /// Nothing more is written before this instant: the quiet gap after a written chunk that
    /// asked for one. The I/O loop writes on when it passes ([`Core::input_due`]).
    hold: Option<Instant>,
}

/// What a session shares with the I/O loop ([`super::io`]): the screen state, its change
/// signal, the non-blocking PTY master and the input waiting for it.
pub(super) struct Core {
    state: FairMutex<Shared>,
    /// Notified on every change of `state`.
    pub(super) changed: Condvar,
    /// A non-blocking duplicate of the PTY master.
    pub(super) fd: OwnedFd,
    /// The session's slot in the I/O loop.
    pub(super) slot: usize,
    input: Mutex<Pending>,
}

impl Drop for Core {
    /// The session's screen and scrollback are freed, then the heap is trimmed (glibc keeps
    /// freed pages otherwise, so a host that served many sessions would keep their memory
    /// until it exits): at most every [`TRIM_INTERVAL`], as `stop --all` and the I/O loop
    /// trim once when the last session is gone.
    fn drop(&mut self) {
        self.state.get_mut().emulator = Emulator::with_scrollback(1, 1, 0);
        static LAST_TRIM: Mutex<Option<Instant>> = Mutex::new(None);
        let Ok(mut last) = LAST_TRIM.try_lock() else {
            return;
        };
        if last.is_none_or(|t| t.elapsed() >= TRIM_INTERVAL) {
            super::io::trim_heap();
            *last = Some(Instant::now());
        }
    }
}

/// The shortest time between two heap trims after sessions end (see `Core`'s `Drop`).
const TRIM_INTERVAL: Duration = Duration::from_millis(250);

impl Core {
    /// Locks the screen state.
    pub(super) fn lock(&self) -> MutexGuard<'_, Shared> {
        self.state.lock()
    }

    /// Queues whole writes and writes what the PTY takes now; the rest is written by the I/O
    /// loop when the PTY has room and any quiet gap has passed. A request that would leave
    /// more than [`MAX_PENDING_INPUT`] bytes pending is refused whole.
    ///
    /// Errors: the number of bytes already pending, when refused.
    pub(super) fn queue(&self, chunks: Vec<Chunk>) -> Result<(), usize> {
        let mut p = self.input.lock().unwrap_or_else(|e| e.into_inner());
        let adding: usize = chunks.iter().map(|c| c.bytes.len()).sum();
        if p.bytes + adding > MAX_PENDING_INPUT {
            return Err(p.bytes);
        }
        let was_empty = p.chunks.is_empty();
        p.bytes += adding;
        p.chunks
            .extend(chunks.into_iter().filter(|c| !c.bytes.is_empty()));
        if was_empty {
            self.write_pending(&mut p);
        }
        Ok(())
    }

    /// Queues the terminal's answers to the program's queries (not bounded). They go out in
    /// order with pending input, except during a quiet gap: a terminal answers while the user
    /// pauses, so they are written then, ahead of the input the gap holds back (which is never
    /// half-written during a gap).
    pub(super) fn answer(&self, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        let mut p = self.input.lock().unwrap_or_else(|e| e.into_inner());
        let was_empty = p.chunks.is_empty();
        p.bytes += bytes.len();
        let chunk = Chunk {
            bytes,
            gap: Duration::ZERO,
            answer: true,
        };
        if p.hold.is_some() {
            // After the answers already waiting at the front (one may be half-written).
            let at = p.chunks.iter().take_while(|c| c.answer).count();
            p.chunks.insert(at, chunk);
            self.write_pending(&mut p);
        } else {
            p.chunks.push_back(chunk);
            if was_empty {
                self.write_pending(&mut p);
            }
        }
    }

    /// How long until every queued write is out and any quiet gap after the last one has
    /// passed: `None` when that is so now; else the time left in the gap, or a short poll
    /// interval while writes are pending.
    fn input_unsettled(&self) -> Option<Duration> {
        let p = self.input.lock().unwrap_or_else(|e| e.into_inner());
        let left = p
            .hold
            .map(|t| t.saturating_duration_since(Instant::now()))
            .filter(|d| !d.is_zero());
        match (p.chunks.is_empty(), left) {
            (true, None) => None,
            (true, Some(d)) => Some(d),
            (false, _) => Some(Duration::from_millis(5)),
        }
    }

    /// When the I/O loop must write on: the end of a quiet gap that holds back pending input.
    pub(super) fn input_due(&self) -> Option<Instant> {
        let p = self.input.lock().unwrap_or_else(|e| e.into_inner());
        p.hold.filter(|_| !p.chunks.is_empty())
    }

    /// Writes pending input while the PTY takes it (called by the I/O loop on write
    /// readiness).
    pub(super) fn flush(&self) {
        let mut p = self.input.lock().unwrap_or_else(|e| e.into_inner());
        self.write_pending(&mut p);
    }

    fn write_pending(&self, p: &mut Pending) {
        while let Some(chunk) = p.chunks.front() {
            if let Some(until) = p.hold.filter(|_| !chunk.answer) {
                if Instant::now() < until {
                    // The loop comes back when the gap has passed (it asks `input_due`).
                    super::io::io().want_write(self, false);
                    super::io::io().wake();
                    return;
                }
                p.hold = None;
            }
            match rustix::io::write(&self.fd, &chunk.bytes[p.written..]) {
                Ok(n) => {
                    p.written += n;
                    p.bytes -= n;
                    if p.written == chunk.bytes.len() {
                        if !chunk.gap.is_zero() {
                            p.hold = Some(Instant::now() + chunk.gap);
                        }
                        p.chunks.pop_front();
                        p.written = 0;
                    }
                }
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::AGAIN) => {
                    super::io::io().want_write(self, true);
                    return;
                }
                Err(_) => {
                    // The PTY is gone: what is pending can never be written.
                    *p = Pending::default();
                    let mut g = self.lock();
                    if g.state == State::Running && g.exit.is_none() {
                        g.state = State::Unavailable;
                        g.bump();
                    }
                    drop(g);
                    self.changed.notify_all();
                    break;
                }
            }
        }
        super::io::io().want_write(self, false);
    }
}

/// A session.
pub struct Session {
    pub id: SessionId,
    pub pid: u32,
    /// How the program was started (argv, cwd, size at the start); also the journal's first
    /// entry and the crash-recovery record's source.
    pub launch: super::protocol::Launch,
    /// When the session started.
    pub started_at: SystemTime,
    core: Arc<Core>,
    journal: Mutex<Journal>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    _writer: Mutex<Box<dyn std::io::Write + Send>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        super::io::io().remove(self.core.slot);
    }
}

/// The host's registry: its live sessions by id.
pub type Sessions = HashMap<SessionId, Arc<Session>>;

/// How a poll of a waiter ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    Matched,
    Pending,
    SessionEnded,
}

impl Session {
    /// Starts `spec` in a PTY and its threads; with `record`, its output is kept with its
    /// timing from the first byte ([`Shared::cast`]).
    ///
    /// Errors: `session_not_started` when the program cannot be started.
    /// The journal is mirrored to `<journal_dir>/<id>.jsonl` when a directory is given.
    pub fn start(
        spec: &SpawnSpec,
        journal_dir: Option<&std::path::Path>,
        record: bool,
    ) -> Result<Session, HostError> {
        Session::start_with(spec, journal_dir, SessionId::generate(), record)
    }

    /// [`Session::start`] with a given id (from [`SessionId::generate`]): for callers that must know the
    /// id before the program starts (an extension puts it in the session's environment).
    ///
    /// Errors: as [`Session::start`].
    pub fn start_with(
        spec: &SpawnSpec,
        journal_dir: Option<&std::path::Path>,
        id: SessionId,
        record: bool,
    ) -> Result<Session, HostError> {
        let (process, reader, writer) = pty::spawn(spec)
            .map_err(|e| HostError::new(ErrorCode::SessionNotStarted, e.to_string()))?;
        // The I/O loop reads and writes the master itself. The writer is kept: dropping it
        // types newline + EOF (portable-pty's end-of-input), so it goes with the session.
        drop(reader);
        let (master, child, pid) = process.into_parts();
        let io_err = |e: std::io::Error| HostError::new(ErrorCode::SessionError, e.to_string());
        let raw = master
            .as_raw_fd()
            .ok_or_else(|| HostError::new(ErrorCode::SessionError, "the PTY has no descriptor"))?;
        // SAFETY: `master` keeps `raw` open during the call.
        let fd = pty::pump::nonblocking_dup(unsafe { std::os::fd::BorrowedFd::borrow_raw(raw) })
            .map_err(io_err)?;
        let io = super::io::io();
        let core = Arc::new(Core {
            state: FairMutex::new(Shared {
                emulator: Emulator::with_scrollback(
                    spec.cols as usize,
                    spec.rows as usize,
                    DEFAULT_SCROLLBACK,
                ),
                version: 1,
                state: State::Running,
                exit: None,
                updated_at: SystemTime::now(),
                active_at: Instant::now(),
                expires_at: None,
                rows: RowVersions::default(),
                waiters: HashMap::new(),
                next_waiter: 1,
                failure: None,
                cast: record.then(|| CastLog::new(spec.cols, spec.rows)),
            }),
            changed: Condvar::new(),
            fd,
            slot: io.slot(),
            input: Mutex::new(Pending::default()),
        });
        io.add(core.clone(), child, pid).map_err(io_err)?;
        let launch = super::protocol::Launch::of(spec);
        let mut journal = Journal::new(journal_dir.map(|d| d.join(format!("{id}.jsonl"))));
        journal.record(Entry::Launch(launch.clone()));
        Ok(Session {
            id,
            pid,
            launch,
            started_at: SystemTime::now(),
            core,
            journal: Mutex::new(journal),
            _writer: Mutex::new(writer),
            master: Mutex::new(master),
        })
    }

    /// Locks the shared state.
    pub fn lock(&self) -> MutexGuard<'_, Shared> {
        self.core.lock()
    }

    /// Queues validated input steps, each encoded against the application's current modes
    /// (DECCKM, DECKPAM, bracketed paste, kitty keyboard flags) and written in order, one write
    /// per step, as one action: no other input comes between them. After a paste or a lone
    /// Escape followed by more of these steps, the next write waits until `gap` has passed
    /// since that write ended ([`keys::wants_quiet_gap`]; zero for none).
    ///
    /// Errors: `unsupported_key` for a key the program's modes cannot encode (a kitty-only key
    /// in the legacy encoding); `session_exited` when the program has ended;
    /// `invalid_operation` when the program has not read [`MAX_PENDING_INPUT`] bytes of
    /// earlier input. Nothing of the request is written then.
    pub fn send(&self, steps: Vec<Step>, gap: Duration) -> Result<(), HostError> {
        self.send_then_quiet(steps, gap, Duration::ZERO)
    }

    /// [`Session::send`], then a quiet gap of `quiet_after` after the last step, before any
    /// later input (the submitting Return of a typed prompt, which the caller sends next).
    ///
    /// Errors: as [`Session::send`].
    pub fn send_then_quiet(
        &self,
        steps: Vec<Step>,
        gap: Duration,
        quiet_after: Duration,
    ) -> Result<(), HostError> {
        let chunks: Vec<Chunk> = {
            let mut g = self.lock();
            if g.state != State::Running {
                return Err(HostError::new(
                    ErrorCode::SessionExited,
                    format!("session {} has exited", self.id),
                ));
            }
            // Encoded against the modes of the output parsed so far (the request's "now").
            let modes = g.emulator.modes();
            let writes = keys::encode_steps(&steps, &modes)
                .map_err(|e| HostError::new(ErrorCode::UnsupportedKey, e.to_string()))?;
            // A capture right after this send waits for the program's answer to settle.
            g.active_at = Instant::now();
            let last = writes.len().saturating_sub(1);
            steps
                .iter()
                .zip(writes)
                .enumerate()
                .map(|(i, (step, bytes))| Chunk {
                    gap: if i == last {
                        quiet_after
                    } else if keys::wants_quiet_gap(step, &bytes) {
                        gap
                    } else {
                        Duration::ZERO
                    },
                    bytes,
                    answer: false,
                })
                .collect()
        };
        self.core.queue(chunks).map_err(|pending| {
            HostError::new(
                ErrorCode::InvalidOperation,
                format!(
                    "session {} is not reading its input: {pending} bytes are still pending \
                     (at most {MAX_PENDING_INPUT} may be); nothing was sent",
                    self.id
                ),
            )
        })
    }

    /// Waits until the input queued so far is written and the quiet gap after it (see
    /// [`Session::send_then_quiet`]) has passed, at most `limit` (a program that reads no
    /// input keeps its input pending). Returns whether it settled.
    pub fn wait_input_settled(&self, limit: Duration) -> bool {
        let end = Instant::now() + limit;
        while let Some(wait) = self.core.input_unsettled() {
            let now = Instant::now();
            if now >= end {
                return false;
            }
            std::thread::sleep(wait.min(end - now));
        }
        true
    }

    /// Resizes the grid, then the PTY (the kernel signals SIGWINCH), under the lock so that
    /// output written after the signal is parsed at the new size. The emulator's resize is
    /// bounded (see [`crate::term::Emulator::resize`]); should it panic all the same, only this
    /// session ends (see [`Shared::fail`]).
    ///
    /// Errors: `session_error` when the emulator failed (now or before); `session_exited`;
    /// `io_error` when the PTY refuses the size.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<u64, HostError> {
        let mut g = self.lock();
        self.usable_in(&g)?;
        if g.state != State::Running {
            return Err(HostError::new(
                ErrorCode::SessionExited,
                format!("session {} has exited", self.id),
            ));
        }
        let resized = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            super::io::test_panic_on_resize(&g.emulator);
            g.emulator.resize(cols as usize, rows as usize);
        }));
        if let Some(cast) = &mut g.cast {
            cast.resize(Instant::now(), cols, rows);
        }
        if let Err(panic) = resized {
            g.fail(super::io::emulator_failure(panic));
            drop(g);
            self.core.changed.notify_all();
            super::io::end_failed(self.pid);
            return Err(self.usable().expect_err("the session has just failed"));
        }
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
        self.core.changed.notify_all();
        Ok(g.version)
    }

    /// Whether the session can serve screens and input.
    ///
    /// Errors: `session_error`, saying the terminal emulator failed, once it has (see
    /// [`Shared::fail`]).
    pub fn usable(&self) -> Result<(), HostError> {
        self.usable_in(&self.lock())
    }

    fn usable_in(&self, g: &Shared) -> Result<(), HostError> {
        match g.failure() {
            None => Ok(()),
            Some(why) => Err(HostError::new(
                ErrorCode::SessionError,
                format!(
                    "the terminal emulator of session {} failed ({why}); the session has ended",
                    self.id
                ),
            )),
        }
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
        let texts = g.row_texts();
        g.evaluate_waiters(&texts, Instant::now());
        Ok(id)
    }

    /// Waits at most `budget` for waiter `id` to be satisfied or the session to end.
    pub fn poll_waiter(&self, id: u64, budget: Duration) -> Result<Poll, HostError> {
        let end = Instant::now() + budget;
        let mut g = self.lock();
        loop {
            let now = Instant::now();
            let texts = g.row_texts();
            g.evaluate_waiters(&texts, now);
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
            self.core.changed.wait_for(
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
        pty::group::begin_end(&HashSet::from([self.pid]));
    }

    /// Second half of [`Session::kill`]: waits until `deadline` for the session's processes to
    /// go, SIGKILLs what is left, and returns the program's exit once the I/O loop has it.
    pub fn finish_kill(&self, deadline: Instant) -> Option<Exit> {
        pty::group::finish_end(&HashSet::from([self.pid]), deadline);
        self.await_exit()
    }

    /// Ends many sessions with one shared grace period `grace`: signals all of them, waits
    /// for all (one `/proc` scan per 10 ms for all of them), SIGKILLs what is left. Returns
    /// once no process of theirs runs any more, without waiting for the I/O loop to reap them
    /// ([`Session::await_exit`] does).
    pub fn end_many(sessions: &[Arc<Session>], grace: Duration) {
        let sids: HashSet<u32> = sessions.iter().map(|s| s.pid).collect();
        pty::group::begin_end(&sids);
        pty::group::finish_end(&sids, Instant::now() + grace);
    }

    /// The program's exit once the I/O loop has reaped it (at most 2 s after its processes
    /// are gone).
    pub fn await_exit(&self) -> Option<Exit> {
        let mut g = self.lock();
        let until = Instant::now() + Duration::from_secs(2);
        while g.exit.is_none() && Instant::now() < until {
            self.core
                .changed
                .wait_for(&mut g, Duration::from_millis(20));
        }
        g.exit.clone()
    }

    /// Waits until the screen has not changed, and no input was sent, for `quiet` (at most
    /// `max` in all), so a capture never catches a program between the parts of one redraw
    /// (text drawn, cursor not yet moved). A screen quiet for long enough already returns at
    /// once, as does a session that has ended.
    pub fn settle(&self, quiet: Duration, max: Duration) {
        let end = Instant::now() + max;
        let mut g = self.lock();
        let mut seen = (g.version, g.active_at);
        while g.state == State::Running {
            let now = Instant::now();
            if now >= end || now.duration_since(seen.1) >= quiet {
                return;
            }
            let until = (seen.1 + quiet).min(end);
            self.core
                .changed
                .wait_for(&mut g, until.saturating_duration_since(now));
            if g.version != seen.0 {
                seen = (g.version, g.active_at);
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
            self.core.changed.wait_for(&mut g, end - now);
        }
        (g.version, g.state)
    }

    /// The viewport snapshot and the scrollback row count.
    pub fn snapshot(&self) -> (Screen, usize, u64) {
        let g = self.lock();
        (g.emulator.snapshot(), g.emulator.history_size(), g.version)
    }
}

impl Session {
    /// Whether the program is at a hidden prompt: the PTY's line discipline in canonical mode
    /// (`ICANON`) with `ECHO` off, read now with `tcgetattr` on the master. That is the state
    /// getpass(3), sudo, ssh, `read -s` and `stty -echo` set for a password; full-screen
    /// programs (vim, less) also turn `ECHO` off but leave canonical mode and echo what they
    /// show themselves, so they are not hidden prompts. Input a program masks on its own
    /// (a TUI's password field) cannot be told apart. Cheap: one ioctl.
    pub fn hidden_prompt(&self) -> bool {
        use rustix::termios::LocalModes;
        rustix::termios::tcgetattr(&self.core.fd).is_ok_and(|t| {
            t.local_modes.contains(LocalModes::ICANON) && !t.local_modes.contains(LocalModes::ECHO)
        })
    }

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
            self.core.changed.wait_for(&mut g, deadline - now);
        }
    }

    /// Marks the session stopped (before it is removed from the registry).
    pub fn mark_stopped(&self) {
        let mut g = self.lock();
        g.state = State::Stopped;
        g.bump();
        self.core.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_versions_follow_content_through_scrolling() {
        let mut rv = RowVersions::default();
        let texts = |t: [&str; 3]| t.map(String::from);
        rv.update(&texts(["$ run", "DONE", "$"]), 1);
        rv.update(&texts(["DONE", "$ run", "DONE"]), 5);
        assert_eq!(
            rv.rows[0],
            (row_hash("DONE"), 1),
            "the old DONE keeps its version"
        );
        assert_eq!(rv.rows[1], (row_hash("$ run"), 1));
        assert_eq!(rv.rows[2], (row_hash("DONE"), 5), "a second DONE is new");
    }
}
