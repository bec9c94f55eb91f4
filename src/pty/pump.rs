//! The one pump: the rules every consumer of a program's PTY output follows, whoever owns the
//! emulator (a one-shot [`crate::capture`] or a host session).
//!
//! - Output is parsed by the [`Emulator`]; its answers to queries (DSR, DA, DECRQM, OSC
//!   4/10/11, `CSI 18 t`) are handed back for writing to the PTY, in order.
//! - An open synchronized-output frame (`CSI ?2026h`) is force-ended at its deadline, so output
//!   after an unterminated frame still shows (DESIGN: "the pump must call `stop_sync()`").
//! - After the program exits, its output is complete at end-of-file of the PTY, or after
//!   [`EXIT_DRAIN`] at the latest: background children can hold the PTY open for ever.
//!
//! The pump is a state machine that takes the time as an argument; the owner does the I/O and
//! decides where screens go (a local emulator, or one under a session's lock).
//! [`run_blocking`] is the owner for a single program: poll the PTY and the program's exit.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

use super::Exit;
use crate::term::Emulator;

/// After the program exits, how long its last output may take to come out of the PTY before
/// its output counts as complete anyway (background children can hold the PTY open).
pub const EXIT_DRAIN: Duration = Duration::from_millis(200);

/// Most bytes read from a PTY at once (and so parsed under one lock by a host session).
pub const READ_CHUNK: usize = 64 * 1024;

/// The pump's state for one program.
#[derive(Debug, Default)]
pub struct Pump {
    exit: Option<Exit>,
    exited_at: Option<Instant>,
    eof: bool,
}

/// What [`Pump::tick`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    /// A synchronized frame was force-ended: the screen changed.
    pub screen_changed: bool,
    /// The program's output became complete at this tick (see [`Pump::finished`]).
    pub finished: bool,
}

impl Pump {
    /// A pump for a program that has just started.
    pub fn new() -> Pump {
        Pump::default()
    }

    /// Parses `bytes` of output and returns the emulator's answers to the queries in them
    /// (empty when none), to be written to the PTY.
    pub fn output(&mut self, emulator: &mut Emulator, bytes: &[u8]) -> Vec<u8> {
        emulator.advance(bytes);
        emulator.take_replies()
    }

    /// The PTY reported end-of-file (or `EIO`: every slave descriptor is closed).
    pub fn end_of_output(&mut self) {
        self.eof = true;
    }

    /// Whether end-of-file has been seen.
    pub fn at_eof(&self) -> bool {
        self.eof
    }

    /// The program exited at `now`.
    pub fn exited(&mut self, exit: Exit, now: Instant) {
        if self.exit.is_none() {
            self.exit = Some(exit);
            self.exited_at = Some(now);
        }
    }

    /// How the program ended, once it has.
    pub fn exit(&self) -> Option<&Exit> {
        self.exit.as_ref()
    }

    /// Whether the program's output is complete: it exited, and its PTY reached end-of-file
    /// or [`EXIT_DRAIN`] passed since the exit.
    pub fn finished(&self, now: Instant) -> bool {
        self.exit.is_some() && (self.eof || self.exited_at.is_some_and(|t| now >= t + EXIT_DRAIN))
    }

    /// When [`Pump::tick`] must run next: the open synchronized frame's deadline, or the end
    /// of the drain after an exit (`None`: nothing is due).
    pub fn deadline(&self, emulator: &Emulator) -> Option<Instant> {
        let drain = match (self.exited_at, self.eof) {
            (Some(t), false) => Some(t + EXIT_DRAIN),
            _ => None,
        };
        match (emulator.sync_deadline(), drain) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Does what is due at `now`: force-ends an expired synchronized frame; once the output is
    /// complete, ends any frame still open (the final screen is never half drawn).
    /// `was_finished` is [`Pump::finished`] as the owner last saw it.
    pub fn tick(&mut self, emulator: &mut Emulator, now: Instant, was_finished: bool) -> Tick {
        let mut screen_changed = false;
        if emulator.sync_deadline().is_some_and(|d| d <= now) {
            emulator.expire_sync();
            screen_changed = true;
        }
        let finished = !was_finished && self.finished(now);
        if finished && emulator.sync_deadline().is_some() {
            emulator.expire_sync();
            screen_changed = true;
        }
        Tick {
            screen_changed,
            finished,
        }
    }
}

/// Reads what the PTY master `fd` (non-blocking) holds, at most [`READ_CHUNK`] bytes into
/// `buf`. `Ok(None)` when nothing is there now; `Ok(Some(0))` at end-of-file (Linux reports a
/// master whose slaves are all closed as `EIO`, which counts as end-of-file).
pub fn read_some(fd: BorrowedFd<'_>, buf: &mut [u8]) -> std::io::Result<Option<usize>> {
    loop {
        return match rustix::io::read(fd, &mut *buf) {
            Ok(n) => Ok(Some(n)),
            Err(rustix::io::Errno::INTR) => continue,
            Err(rustix::io::Errno::AGAIN) => Ok(None),
            Err(rustix::io::Errno::IO) => Ok(Some(0)),
            Err(e) => Err(e.into()),
        };
    }
}

/// A non-blocking duplicate of a PTY master's descriptor, close-on-exec.
///
/// Errors: the `dup`/`fcntl` failure.
pub fn nonblocking_dup(fd: BorrowedFd<'_>) -> std::io::Result<OwnedFd> {
    let dup = rustix::io::fcntl_dupfd_cloexec(fd, 0)?;
    let flags = rustix::fs::fcntl_getfl(&dup)?;
    rustix::fs::fcntl_setfl(&dup, flags | rustix::fs::OFlags::NONBLOCK)?;
    Ok(dup)
}

/// A descriptor that becomes readable when process `pid` exits (`pidfd_open`, Linux 5.3), or
/// `None` where the kernel has none.
pub fn exit_notifier(pid: u32) -> Option<OwnedFd> {
    let pid = rustix::process::Pid::from_raw(pid as i32)?;
    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
}

impl super::PtyProcess {
    /// The PTY master's descriptor, valid while the process is (for [`nonblocking_dup`]).
    pub fn master_fd(&self) -> Option<BorrowedFd<'_>> {
        // SAFETY: `self.master` owns the descriptor and outlives the borrow.
        self.master
            .as_raw_fd()
            .map(|raw| unsafe { BorrowedFd::borrow_raw(raw) })
    }
}

/// What sees each chunk of output as it is read, with the time it was read (a recording).
pub type Tap<'a> = &'a mut dyn FnMut(Instant, &[u8]);

/// How [`run_blocking`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The program exited and its output is complete.
    Finished,
    /// The PTY reached end-of-file before the program was seen to exit.
    EndOfOutput,
    /// `deadline` passed first.
    TimedOut,
}

/// Runs the pump for one program on this thread until its output is complete, its PTY closes,
/// or `deadline`: reads the PTY master `fd`, writes query answers back to it, and asks
/// `try_exit` for the program's exit (woken by a pidfd where there is one, else polling every
/// 10 ms). Returns how it ended; the pump holds the exit.
///
/// `tap`, when given, sees every chunk of output as it is read, with the time it was read
/// (a capture's recording); without it the still-picture path reads no clock per chunk.
pub fn run_blocking(
    pump: &mut Pump,
    emulator: &mut Emulator,
    fd: BorrowedFd<'_>,
    pid: u32,
    mut try_exit: impl FnMut() -> Option<Exit>,
    deadline: Option<Instant>,
    mut tap: Option<Tap<'_>>,
) -> Ended {
    use rustix::event::{poll, PollFd, PollFlags};
    let notifier = exit_notifier(pid);
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        let now = Instant::now();
        if pump.exit().is_none() {
            if let Some(e) = try_exit() {
                pump.exited(e, now);
            }
        }
        pump.tick(emulator, now, false);
        if pump.finished(now) {
            return Ended::Finished;
        }
        if pump.at_eof() {
            return Ended::EndOfOutput;
        }
        if deadline.is_some_and(|d| now >= d) {
            return Ended::TimedOut;
        }
        let mut until = [pump.deadline(emulator), deadline]
            .into_iter()
            .flatten()
            .min();
        if notifier.is_none() || pump.exit().is_some() {
            let poll_exit = now + Duration::from_millis(10);
            until = Some(until.map_or(poll_exit, |u| u.min(poll_exit)));
        }
        let timeout = until.map(|u| {
            let left = u.saturating_duration_since(now);
            rustix::event::Timespec {
                tv_sec: left.as_secs() as i64,
                tv_nsec: left.subsec_nanos() as i64,
            }
        });
        let mut fds = vec![PollFd::new(&fd, PollFlags::IN)];
        if let (Some(n), None) = (&notifier, pump.exit()) {
            fds.push(PollFd::new(n, PollFlags::IN));
        }
        let _ = poll(&mut fds, timeout.as_ref());
        drain(pump, emulator, fd, &mut buf, &mut tap);
    }
}

/// Reads and parses everything the PTY holds now (writing answers back), marking end-of-file;
/// `tap` sees each chunk read.
fn drain(
    pump: &mut Pump,
    emulator: &mut Emulator,
    fd: BorrowedFd<'_>,
    buf: &mut [u8],
    tap: &mut Option<Tap<'_>>,
) {
    loop {
        match read_some(fd, buf) {
            Ok(Some(0)) | Err(_) => {
                pump.end_of_output();
                return;
            }
            Ok(None) => return,
            Ok(Some(n)) => {
                if let Some(tap) = tap {
                    tap(Instant::now(), &buf[..n]);
                }
                let answers = pump.output(emulator, &buf[..n]);
                write_all_blocking(fd, &answers);
            }
        }
    }
}

/// Writes `bytes` to a non-blocking descriptor, waiting for room (at most 1 s in all: query
/// answers are small, and a program that never reads its input must not hang the pump).
pub fn write_all_blocking(fd: BorrowedFd<'_>, mut bytes: &[u8]) {
    let end = Instant::now() + Duration::from_secs(1);
    while !bytes.is_empty() && Instant::now() < end {
        match rustix::io::write(fd, bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::AGAIN) => {
                let mut fds = [rustix::event::PollFd::new(
                    &fd,
                    rustix::event::PollFlags::OUT,
                )];
                let ts = rustix::event::Timespec {
                    tv_sec: 0,
                    tv_nsec: 10_000_000,
                };
                let _ = rustix::event::poll(&mut fds, Some(&ts));
            }
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exit0() -> Exit {
        Exit {
            code: 0,
            signal: None,
        }
    }

    #[test]
    fn output_is_complete_at_eof_after_exit() {
        let mut em = Emulator::new(10, 2);
        let mut p = Pump::new();
        let t0 = Instant::now();
        assert!(p.output(&mut em, b"hi").is_empty());
        p.exited(exit0(), t0);
        assert!(!p.finished(t0), "the drain is still open");
        assert_eq!(p.deadline(&em), Some(t0 + EXIT_DRAIN));
        p.end_of_output();
        assert!(p.finished(t0));
        assert_eq!(p.deadline(&em), None);
    }

    #[test]
    fn output_is_complete_after_the_drain_without_eof() {
        let mut em = Emulator::new(10, 2);
        let mut p = Pump::new();
        let t0 = Instant::now();
        p.exited(exit0(), t0);
        let tick = p.tick(&mut em, t0 + EXIT_DRAIN, false);
        assert!(tick.finished);
        assert!(
            !p.tick(&mut em, t0 + EXIT_DRAIN * 2, true).finished,
            "only once"
        );
    }

    #[test]
    fn an_open_synchronized_frame_ends_at_its_deadline() {
        let mut em = Emulator::new(10, 2);
        let mut p = Pump::new();
        p.output(&mut em, b"\x1b[?2026hframe");
        assert!(!em.row_text(0).contains("frame"), "buffered while open");
        let due = p.deadline(&em).expect("a sync deadline");
        assert!(p.tick(&mut em, due, false).screen_changed);
        assert!(em.row_text(0).contains("frame"));
    }

    #[test]
    fn queries_are_answered_in_order() {
        let mut em = Emulator::new(10, 2);
        let mut p = Pump::new();
        let answers = p.output(&mut em, b"\x1b[6n\x1b[5n");
        assert_eq!(answers, b"\x1b[1;1R\x1b[0n");
    }
}
