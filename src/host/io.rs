//! The sessions' I/O loop: every session's PTY master and exit notifier are served by one
//! thread over a readiness poller (epoll), so the thread count does not grow with sessions.
//!
//! Per readiness event the loop reads what one session's PTY holds, at most [`READ_CHUNK`]
//! bytes, and parses them under that session's lock (a few hundred microseconds), so a
//! flooding session shares the loop fairly and a request never waits long for a session's
//! lock. During a flood the pump holds output back and parses it in batches
//! ([`Pump::offer`]), which lets the emulator skip what scrolls out unseen. A session quiet
//! for [`HIBERNATE_AFTER`] has its emulator hibernate. Pending input is written when the PTY
//! has room ([`Core::flush`]) and any quiet gap between writes has passed
//! ([`Core::input_due`]); a program's exit arrives on its pidfd. Timers (synchronized-output
//! deadlines, the drain after an exit) come from each session's [`Pump`].
//!
//! Each session's parsing runs under `catch_unwind`: should a session's emulator panic, only
//! that session ends ([`super::session::Shared::fail`]: `unavailable`, later requests get
//! `session_error`, its program is ended); the loop, the host and the other sessions go on.
//! The session lock is parking_lot's, which a panic does not poison.

use std::collections::{HashMap, HashSet};
use std::os::fd::{AsFd, OwnedFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use polling::{Event, Events, PollMode, Poller};
use portable_pty::Child;

use super::session::Core;
use crate::pty::pump::{self, Pump, READ_CHUNK};
use crate::pty::{self as ptys, Exit};

/// How often the exit of a program without a pidfd is polled.
const EXIT_POLL: Duration = Duration::from_millis(20);

/// How long a session's screen stays unchanged (no output, no input) before its emulator
/// hibernates ([`crate::term::Emulator::hibernate`]: the shown screen kept as text and style
/// runs, about 2–4 KB instead of 57.6 KB of cells at 100 × 24). The next output thaws it.
pub const HIBERNATE_AFTER: Duration = Duration::from_secs(1);

/// Least time between two heap trims after hibernations (a trim walks the heap).
const TRIM_EVERY: Duration = Duration::from_secs(1);

/// Grace between SIGTERM and SIGKILL for the program of a session whose emulator failed.
const FAILED_GRACE: Duration = Duration::from_secs(2);

/// Test hook (for tests only): with `CONSOLE2SVG_TEST_PANIC_ON=<text>` in the host's
/// environment, parsing a session's output that contains `<text>` panics.
pub const TEST_PANIC_ENV: &str = "CONSOLE2SVG_TEST_PANIC_ON";

/// Test hook (for tests only): with `CONSOLE2SVG_TEST_PANIC_ON_RESIZE=<text>` in the host's
/// environment, resizing a session whose screen shows `<text>` panics.
pub const TEST_PANIC_RESIZE_ENV: &str = "CONSOLE2SVG_TEST_PANIC_ON_RESIZE";

/// The test hooks' texts, read once when the host starts its I/O loop: the integration tests
/// prove with them that a failing emulator ends only its own session, now that no known input
/// makes it fail. Unset (always, outside tests): no effect.
fn test_hooks() -> &'static (Option<String>, Option<String>) {
    static HOOKS: OnceLock<(Option<String>, Option<String>)> = OnceLock::new();
    HOOKS.get_or_init(|| {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        (var(TEST_PANIC_ENV), var(TEST_PANIC_RESIZE_ENV))
    })
}

/// The test hook on the output path (see [`TEST_PANIC_ENV`]).
fn test_panic_on_output(bytes: &[u8]) {
    if let Some(text) = &test_hooks().0 {
        if memchr::memmem::find(bytes, text.as_bytes()).is_some() {
            panic!("test hook: the output contains ${TEST_PANIC_ENV}");
        }
    }
}

/// The test hook on the resize path (see [`TEST_PANIC_RESIZE_ENV`]).
pub(super) fn test_panic_on_resize(emulator: &crate::term::Emulator) {
    if let Some(text) = &test_hooks().1 {
        if (0..emulator.rows()).any(|r| emulator.row_text(r).contains(text.as_str())) {
            panic!("test hook: the screen shows ${TEST_PANIC_RESIZE_ENV}");
        }
    }
}

/// The message of a caught emulator panic, for [`super::session::Shared::fail`].
pub(super) fn emulator_failure(panic: Box<dyn std::any::Any + Send>) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    format!("internal error: {what}")
}

/// Ends the program of a session whose emulator failed: SIGTERM and SIGHUP to its process
/// groups now, SIGKILL after [`FAILED_GRACE`] (on a thread of its own: the caller never waits).
/// The I/O loop reaps the exit as usual.
pub(super) fn end_failed(pid: u32) {
    let sids = HashSet::from([pid]);
    crate::pty::group::begin_end(&sids);
    let _ = std::thread::Builder::new()
        .name("host-end".into())
        .spawn(move || crate::pty::group::finish_end(&sids, Instant::now() + FAILED_GRACE));
}

/// The loop's handle: its poller and the queue of sessions to take on.
pub(super) struct Io {
    poller: Poller,
    inbox: Mutex<Vec<Command>>,
    next: AtomicUsize,
}

enum Command {
    Add(Box<Entry>),
    Remove(usize),
}

/// What the loop keeps per session.
struct Entry {
    core: Arc<Core>,
    child: Box<dyn Child + Send + Sync>,
    exit_fd: Option<OwnedFd>,
    pump: Pump,
    /// Output complete (and the session marked ended).
    finished: bool,
    /// When the pump or the exit poll needs the loop next.
    due: Option<Instant>,
    /// When the emulator may hibernate ([`HIBERNATE_AFTER`] after the last output), unless
    /// it is hibernating (or ended) already.
    hibernate_at: Option<Instant>,
}

/// The process-wide loop, started on first use.
pub(super) fn io() -> &'static Io {
    static IO: OnceLock<&'static Io> = OnceLock::new();
    IO.get_or_init(|| {
        test_hooks();
        fix_mmap_threshold();
        let io: &'static Io = Box::leak(Box::new(Io {
            poller: Poller::new().expect("an epoll instance"),
            inbox: Mutex::new(Vec::new()),
            next: AtomicUsize::new(1),
        }));
        std::thread::Builder::new()
            .name("host-io".into())
            .spawn(move || run(io))
            .expect("the I/O thread");
        io
    })
}

impl Io {
    /// A fresh slot number for a session's descriptors.
    pub(super) fn slot(&self) -> usize {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Takes on a started session: its master (already non-blocking, in `core`) and its
    /// program. Registration happens here, on the caller's thread, so input queued right
    /// after the start can ask for write readiness at once.
    ///
    /// Errors: the poller's, when the descriptor cannot be registered.
    pub(super) fn add(
        &self,
        core: Arc<Core>,
        child: Box<dyn Child + Send + Sync>,
        pid: u32,
    ) -> std::io::Result<()> {
        let slot = core.slot;
        // SAFETY: the descriptor is deleted from the poller before it is closed (the entry,
        // which keeps `core` alive, is dropped only after `forget`).
        unsafe {
            self.poller
                .add_with_mode(&core.fd, Event::readable(slot * 2), PollMode::Level)?
        };
        let exit_fd = pump::exit_notifier(pid);
        if let Some(fd) = &exit_fd {
            // SAFETY: as above; the pidfd lives in the entry.
            if unsafe { self.poller.add(fd, Event::readable(slot * 2 + 1)) }.is_err() {
                // Without it the exit is polled.
            }
        }
        let due = exit_fd.is_none().then(|| Instant::now() + EXIT_POLL);
        self.send(Command::Add(Box::new(Entry {
            core,
            child,
            exit_fd,
            pump: Pump::new(),
            finished: false,
            due,
            hibernate_at: Some(Instant::now() + HIBERNATE_AFTER),
        })));
        Ok(())
    }

    /// Drops a session the host no longer keeps (its descriptors are closed by the loop).
    pub(super) fn remove(&self, slot: usize) {
        self.send(Command::Remove(slot));
    }

    /// Asks for write readiness of `core`'s PTY (pending input is left), or stops asking.
    pub(super) fn want_write(&self, core: &Core, on: bool) {
        let ev = if on {
            Event::all(core.slot * 2)
        } else {
            Event::readable(core.slot * 2)
        };
        // Fails only for a descriptor the loop already let go (end of output): nothing to do.
        let _ = self.poller.modify_with_mode(&core.fd, ev, PollMode::Level);
    }

    /// Wakes the loop so that it looks again at when it is next due (a quiet gap began).
    pub(super) fn wake(&self) {
        let _ = self.poller.notify();
    }

    fn send(&self, c: Command) {
        self.inbox.lock().unwrap_or_else(|e| e.into_inner()).push(c);
        let _ = self.poller.notify();
    }
}

fn run(io: &'static Io) {
    let mut table: HashMap<usize, Entry> = HashMap::new();
    let mut events = Events::new();
    let mut buf = vec![0u8; READ_CHUNK];
    let mut last_trim: Option<Instant> = None;
    // A trim put off by TRIM_EVERY, due then.
    let mut trim_at: Option<Instant> = None;
    loop {
        let now = Instant::now();
        let timeout = table
            .values()
            .flat_map(|e| [e.due, e.core.input_due(), e.hibernate_at])
            .chain([trim_at])
            .flatten()
            .min()
            .map(|d| d.saturating_duration_since(now));
        events.clear();
        let _ = io.poller.wait(&mut events, timeout);
        let mut released = false;
        let had_sessions = !table.is_empty();
        let commands = std::mem::take(&mut *io.inbox.lock().unwrap_or_else(|e| e.into_inner()));
        for c in commands {
            match c {
                Command::Add(e) => {
                    table.insert(e.core.slot, *e);
                }
                Command::Remove(slot) => {
                    if let Some(e) = table.remove(&slot) {
                        forget(io, &e);
                    }
                    released = true;
                }
            }
        }
        for ev in events.iter() {
            let Some(e) = table.get_mut(&(ev.key / 2)) else {
                continue;
            };
            if ev.key % 2 == 1 {
                e.reap(io);
            } else {
                if ev.readable {
                    e.read(io, &mut buf);
                }
                if ev.writable {
                    e.core.flush();
                }
            }
        }
        let now = Instant::now();
        let mut hibernated = false;
        for e in table.values_mut() {
            if e.hibernate_at.is_some_and(|d| d <= now) {
                hibernated |= e.hibernate(now);
            }
            if e.core.input_due().is_some_and(|d| d <= now) {
                // A quiet gap has passed: the input it held back goes out.
                e.core.flush();
            }
            if e.due.is_some_and(|d| d <= now) {
                if e.exit_fd.is_none() {
                    e.reap(io);
                }
                e.tick(io, now);
            }
        }
        table.retain(|_, e| {
            let done = e.finished && e.pump.at_eof();
            if done {
                forget(io, e);
            }
            !done
        });
        if (had_sessions || released) && table.is_empty() {
            // Memory the ended sessions used goes back to the system.
            trim_heap();
        } else if hibernated || trim_at.is_some_and(|t| t <= now) {
            // So do the grids of the screens that went to sleep, at most every TRIM_EVERY.
            match last_trim {
                Some(t) if now.duration_since(t) < TRIM_EVERY => trim_at = Some(t + TRIM_EVERY),
                _ => {
                    trim_heap();
                    last_trim = Some(now);
                    trim_at = None;
                }
            }
        }
    }
}

/// Deletes an entry's descriptors from the poller (before they are closed).
fn forget(io: &Io, e: &Entry) {
    let _ = io.poller.delete(&e.core.fd);
    if let Some(fd) = &e.exit_fd {
        let _ = io.poller.delete(fd);
    }
}

impl Entry {
    /// Hibernates the session's emulator if its screen has been quiet for [`HIBERNATE_AFTER`]
    /// (input or a change since moves the time on); returns whether it did.
    fn hibernate(&mut self, now: Instant) -> bool {
        let mut g = self.core.lock();
        let quiet_until = g.active_at + HIBERNATE_AFTER;
        if self.finished || g.failure().is_some() {
            self.hibernate_at = None;
            false
        } else if quiet_until > now {
            self.hibernate_at = Some(quiet_until);
            false
        } else {
            g.emulator.hibernate();
            self.hibernate_at = None;
            true
        }
    }

    /// One read of the session's output, parsed under its lock (and `catch_unwind`).
    fn read(&mut self, io: &Io, buf: &mut [u8]) {
        // What the PTY holds now, up to the whole buffer: the kernel hands a PTY's output over
        // at most 4 KiB a read, and one lock, parse and poll per 4 KiB would cost a flood more
        // than reading it.
        let mut n = 0;
        let mut ended = false;
        let mut empty = false;
        while n < buf.len() {
            match pump::read_some(self.core.fd.as_fd(), &mut buf[n..]) {
                Ok(None) => {
                    empty = true;
                    break;
                }
                Ok(Some(0)) | Err(_) => {
                    ended = true;
                    break;
                }
                Ok(Some(k)) => n += k,
            }
        }
        if n > 0 {
            self.parse(io, &buf[..n], empty);
        }
        if ended {
            self.pump.end_of_output();
            let _ = io.poller.delete(&self.core.fd);
            self.tick(io, Instant::now());
        }
    }

    /// Parses output just read (or holds it back during a flood) and answers its queries.
    /// `empty`: the read that followed found the PTY empty ([`Pump::found_empty`]).
    fn parse(&mut self, io: &Io, bytes: &[u8], empty: bool) {
        self.hibernate_at = Some(Instant::now() + HIBERNATE_AFTER);
        let parsed = self.guarded(
            |pump, g| {
                test_panic_on_output(bytes);
                let now = Instant::now();
                if let Some(cast) = &mut g.cast {
                    cast.output(now, bytes);
                }
                // Held back during a flood: parsed by a later read or tick.
                let answers = pump.offer(&mut g.emulator, bytes, now);
                if empty {
                    // Counted from after the parse: its time is no pause in the output.
                    pump.found_empty(Instant::now());
                }
                let answers = answers?;
                g.bump();
                Some(answers)
            },
            // Output held back changed nothing a waiter could see: no wake-up per read.
            |parsed| !matches!(parsed, Some(None)),
        );
        match parsed {
            Some(None) => {}
            Some(Some(answers)) if !answers.is_empty() => {
                // In order with pending input, or at once during a quiet gap.
                self.core.answer(answers);
            }
            Some(Some(_)) => {}
            None => self.stop_after_failure(io),
        }
    }

    /// Runs `f` on the pump and the session's state under its lock, catching a panic of the
    /// emulator: then the session fails ([`super::session::Shared::fail`]) and `None` comes
    /// back. Also `None`, without running `f`, for a session that failed before (a resize's
    /// panic). Notifies the session's waiters either way, unless `notify` says the outcome
    /// changed nothing.
    fn guarded<R>(
        &mut self,
        f: impl FnOnce(&mut Pump, &mut super::session::Shared) -> R,
        notify: impl FnOnce(&Option<R>) -> bool,
    ) -> Option<R> {
        let mut g = self.core.lock();
        let out = if g.failure().is_some() {
            None
        } else {
            let pump = &mut self.pump;
            match catch_unwind(AssertUnwindSafe(|| f(pump, &mut g))) {
                Ok(r) => Some(r),
                Err(panic) => {
                    g.fail(emulator_failure(panic));
                    None
                }
            }
        };
        self.due = next_due(
            &self.pump,
            &g.emulator,
            self.exit_fd.is_none(),
            self.finished,
        );
        drop(g);
        if notify(&out) {
            self.core.changed.notify_all();
        }
        out
    }

    /// After the session's emulator failed: no more reading its PTY, and its program is ended
    /// (the loop still reaps the exit, then lets the session go).
    fn stop_after_failure(&mut self, io: &Io) {
        if self.pump.at_eof() {
            return;
        }
        self.pump.end_of_output();
        let _ = io.poller.delete(&self.core.fd);
        if self.pump.exit().is_none() {
            if let Some(pid) = self.child.process_id() {
                end_failed(pid);
            }
        }
    }

    /// The program's exit, if it has one now (reaps it).
    fn reap(&mut self, io: &Io) {
        if self.pump.exit().is_some() {
            return;
        }
        let exit = match self.child.try_wait() {
            Ok(Some(status)) => ptys::exit_of(&status),
            Ok(None) => return,
            Err(_) => Exit {
                code: 1,
                signal: None,
            },
        };
        if let Some(fd) = self.exit_fd.take() {
            let _ = io.poller.delete(&fd);
        }
        let now = Instant::now();
        self.pump.exited(exit.clone(), now);
        self.core.lock().exit = Some(exit);
        self.core.changed.notify_all();
        self.tick(io, now);
    }

    /// Runs the pump's timers; marks the session ended once its output is complete.
    fn tick(&mut self, io: &Io, now: Instant) {
        let was_finished = self.finished;
        let ticked = self.guarded(
            |pump, g| {
                let t = pump.tick(&mut g.emulator, now, was_finished);
                if t.finished {
                    g.end();
                } else if t.screen_changed {
                    g.bump();
                }
                t
            },
            |_| true,
        );
        let finished = match ticked {
            Some(t) => {
                if !t.answers.is_empty() {
                    self.core.answer(t.answers);
                }
                t.finished
            }
            None => {
                // The emulator failed (now or before): it is left alone, and only the end of
                // the output is still to come.
                self.stop_after_failure(io);
                let finished = !was_finished && self.pump.finished(now);
                if finished {
                    self.core.lock().end();
                }
                finished
            }
        };
        if finished {
            self.finished = true;
            let g = self.core.lock();
            self.due = next_due(&self.pump, &g.emulator, self.exit_fd.is_none(), true);
            drop(g);
            self.core.changed.notify_all();
        }
    }
}

fn next_due(
    pump: &Pump,
    emulator: &crate::term::Emulator,
    poll_exit: bool,
    finished: bool,
) -> Option<Instant> {
    let timer = if finished {
        None
    } else {
        pump.deadline(emulator)
    };
    let exit_poll = (poll_exit && pump.exit().is_none()).then(|| Instant::now() + EXIT_POLL);
    match (timer, exit_poll) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Fixes glibc's mmap threshold at its default (128 KiB), so that the 2 MiB buffer each
/// emulator's parser reserves for synchronized output (`vte`'s, mostly never touched) is always
/// a mapping of its own. Left dynamic, glibc raises the threshold to 2 MiB once one such buffer
/// is freed (the first stopped session), and from then on puts every new one on the heap among
/// the small allocations, where the freed grids of hibernated screens can no longer be given
/// back (measured: 65 KB instead of 7 KB of heap per idle session).
pub(super) fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        const M_MMAP_THRESHOLD: i32 = -3;
        // SAFETY: mallopt only changes the allocator's tuning; called before the I/O thread starts.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        }
    }
}

/// Returns freed heap pages to the system (glibc keeps them otherwise: a host that served
/// many sessions would keep their memory until it exits).
pub(super) fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim only releases free memory; it is thread-safe in glibc.
        unsafe {
            malloc_trim(0);
        }
    }
}
