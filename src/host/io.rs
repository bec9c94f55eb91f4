//! The sessions' I/O loop: every session's PTY master and exit notifier are served by one
//! thread over a readiness poller (epoll), so the thread count does not grow with sessions.
//!
//! Per readiness event the loop reads at most [`READ_CHUNK`] bytes of one session and parses
//! them under that session's lock (a few hundred microseconds), so a flooding session shares
//! the loop fairly and a request never waits long for a session's lock. Pending input is
//! written when the PTY has room ([`Core::flush`]); a program's exit arrives on its pidfd.
//! Timers (synchronized-output deadlines, the drain after an exit) come from each session's
//! [`Pump`].

use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
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
}

/// The process-wide loop, started on first use.
pub(super) fn io() -> &'static Io {
    static IO: OnceLock<&'static Io> = OnceLock::new();
    IO.get_or_init(|| {
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

    fn send(&self, c: Command) {
        self.inbox.lock().unwrap_or_else(|e| e.into_inner()).push(c);
        let _ = self.poller.notify();
    }
}

fn run(io: &'static Io) {
    let mut table: HashMap<usize, Entry> = HashMap::new();
    let mut events = Events::new();
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        let now = Instant::now();
        let timeout = table
            .values()
            .filter_map(|e| e.due)
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
        for e in table.values_mut() {
            if e.due.is_some_and(|d| d <= now) {
                if e.exit_fd.is_none() {
                    e.reap(io);
                }
                e.tick(now);
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
    /// One read of the session's output, parsed under its lock.
    fn read(&mut self, io: &Io, buf: &mut [u8]) {
        match pump::read_some(self.core.fd.as_fd(), buf) {
            Ok(None) => {}
            Ok(Some(0)) | Err(_) => {
                self.pump.end_of_output();
                let _ = io.poller.delete(&self.core.fd);
                self.tick(Instant::now());
            }
            Ok(Some(n)) => {
                let answers = {
                    let mut g = self.core.lock();
                    let answers = self.pump.output(&mut g.emulator, &buf[..n]);
                    g.bump();
                    self.due = next_due(
                        &self.pump,
                        &g.emulator,
                        self.exit_fd.is_none(),
                        self.finished,
                    );
                    answers
                };
                self.core.changed.notify_all();
                if !answers.is_empty() {
                    // Query answers go out in order with any pending input.
                    let _ = self.core.queue(vec![answers], false);
                }
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
        self.tick(now);
    }

    /// Runs the pump's timers; marks the session ended once its output is complete.
    fn tick(&mut self, now: Instant) {
        let mut g = self.core.lock();
        let t = self.pump.tick(&mut g.emulator, now, self.finished);
        if t.finished {
            self.finished = true;
            g.end();
        } else if t.screen_changed {
            g.bump();
        }
        self.due = next_due(
            &self.pump,
            &g.emulator,
            self.exit_fd.is_none(),
            self.finished,
        );
        drop(g);
        self.core.changed.notify_all();
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
