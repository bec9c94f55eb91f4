//! The one pump: the rules every consumer of a program's PTY output follows, whoever owns the
//! emulator (a one-shot [`crate::capture`] or a host session).
//!
//! - Output is parsed by the [`Emulator`]; its answers to queries (DSR, DA, DECRQM, OSC
//!   4/10/11, `CSI 18 t`) are handed back for writing to the PTY, in order.
//! - An open synchronized-output frame (`CSI ?2026h`) is force-ended at its deadline, so output
//!   after an unterminated frame still shows (DESIGN: "the pump must call `stop_sync()`").
//! - After the program exits, its output is complete at end-of-file of the PTY, or after
//!   [`EXIT_DRAIN`] at the latest: background children can hold the PTY open for ever.
//! - During a flood (at least [`FLOOD_BYTES`] within a [`FLOOD_WINDOW`], and while each
//!   window keeps that rate) output is held back and parsed in batches ([`Pump::offer`]): when
//!   a batch holds [`HOLD_BATCHES`] times the lines the emulator's fast-forward must leave
//!   (`Emulator::fast_forward_keep`), its oldest byte is [`HOLD_MAX_AGE`] old, or the PTY
//!   was found empty and stayed so for [`HOLD_QUIET`] (a program waiting for an answer). The
//!   quiet is counted from a read that found nothing ([`Pump::found_empty`]), not from the
//!   last read: a batch parsed in 50 ms is not 50 ms of quiet. Most of such a
//!   batch is skipped as bound to scroll out unseen (`term::flood`), so reading keeps up with
//!   the program; the screen lags its output by at most [`HOLD_MAX_AGE`] while the flood
//!   lasts. Outside floods output is parsed as it is read.
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

/// Output read within one [`FLOOD_WINDOW`] that makes a flood (5 MB/s): from then on, and
/// through every following window that reads as much, output is held back and parsed in
/// batches.
pub const FLOOD_BYTES: usize = 256 * 1024;

/// The window [`FLOOD_BYTES`] is counted in.
pub const FLOOD_WINDOW: Duration = Duration::from_millis(50);

/// Held-back output is parsed when its oldest byte is this old at the latest (the screen's
/// lag during a flood).
pub const HOLD_MAX_AGE: Duration = Duration::from_millis(100);

/// Held-back output is parsed once the PTY was found empty and no output came for this long:
/// a program waiting for the answer to a query it sent in a flood gets it this soon.
pub const HOLD_QUIET: Duration = Duration::from_millis(10);

/// Held-back output is parsed once it holds this many times the lines the fast-forward must
/// leave: then all but about 1 in this many lines are skipped.
pub const HOLD_BATCHES: usize = 8;

/// Most bytes held back at once: more are parsed at once.
pub const HOLD_MAX_BYTES: usize = 16 * 1024 * 1024;

/// The pump's state for one program.
#[derive(Debug, Default)]
pub struct Pump {
    exit: Option<Exit>,
    exited_at: Option<Instant>,
    eof: bool,
    flood: Flood,
}

/// Flood detection and the output held back during one.
#[derive(Debug, Default)]
struct Flood {
    /// When the current counting window began, and the bytes read in it.
    window: Option<(Instant, usize)>,
    /// Whether output is being held back (a flood is on).
    on: bool,
    held: Vec<u8>,
    /// Line feeds in `held`.
    held_lines: usize,
    /// When the oldest held byte was read.
    held_since: Option<Instant>,
    /// When a read found the PTY empty with nothing read since ([`Pump::found_empty`]).
    empty_since: Option<Instant>,
}

impl Flood {
    /// When the held output must be parsed (`None`: nothing held).
    fn due(&self) -> Option<Instant> {
        let old = self.held_since? + HOLD_MAX_AGE;
        Some(self.empty_since.map_or(old, |t| old.min(t + HOLD_QUIET)))
    }

    /// Whether the PTY has been empty for [`HOLD_QUIET`] at `now`.
    fn quiet(&self, now: Instant) -> bool {
        self.empty_since.is_some_and(|t| now >= t + HOLD_QUIET)
    }

    /// Counts `len` bytes read at `now`; returns whether a flood is on.
    fn count(&mut self, len: usize, now: Instant) -> bool {
        match self.window {
            Some((start, count)) if now < start + FLOOD_WINDOW => {
                self.window = Some((start, count + len));
            }
            Some((start, count)) => {
                // A new window: the flood goes on if the last one (just before) had its rate.
                let adjacent = now < start + FLOOD_WINDOW * 2;
                self.on = adjacent && count >= FLOOD_BYTES;
                self.window = Some((now, len));
            }
            None => self.window = Some((now, len)),
        }
        self.on |= self.window.is_some_and(|(_, count)| count >= FLOOD_BYTES);
        self.on
    }
}

/// What [`Pump::tick`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tick {
    /// A synchronized frame was force-ended, or held-back output was parsed: the screen changed.
    pub screen_changed: bool,
    /// The program's output became complete at this tick (see [`Pump::finished`]).
    pub finished: bool,
    /// The emulator's answers to queries in held-back output parsed at this tick, to be
    /// written to the PTY (empty when none).
    pub answers: Vec<u8>,
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

    /// Takes `bytes` of output read at `now`: parses them (with any held before) and returns
    /// the emulator's answers, or holds them back during a flood and returns `None` (see the
    /// module documentation; [`Pump::deadline`] says when they are due, [`Pump::tick`] parses
    /// them then).
    pub fn offer(
        &mut self,
        emulator: &mut Emulator,
        bytes: &[u8],
        now: Instant,
    ) -> Option<Vec<u8>> {
        let f = &mut self.flood;
        let on = f.count(bytes.len(), now);
        if !on && f.held.is_empty() {
            return Some(self.output(emulator, bytes));
        }
        f.held.extend_from_slice(bytes);
        f.held_lines += memchr::memchr_iter(b'\n', bytes).count();
        f.held_since.get_or_insert(now);
        f.empty_since = None;
        if !on {
            return Some(self.flush(emulator));
        }
        let old = f.held_since.is_some_and(|t| now >= t + HOLD_MAX_AGE);
        let lines = f.held_lines >= emulator.fast_forward_keep() * HOLD_BATCHES;
        if old || lines || f.held.len() >= HOLD_MAX_BYTES {
            return Some(self.flush_lines(emulator, now));
        }
        None
    }

    /// A read at `now` found the PTY empty: held-back output is parsed once it stays so for
    /// [`HOLD_QUIET`] (the owner must call this whenever a read finds nothing, or held output
    /// waits for [`HOLD_MAX_AGE`]).
    pub fn found_empty(&mut self, now: Instant) {
        self.flood.empty_since.get_or_insert(now);
    }

    /// Parses the output held back (if any) and returns the answers.
    pub fn flush(&mut self, emulator: &mut Emulator) -> Vec<u8> {
        let f = &mut self.flood;
        f.held_since = None;
        f.held_lines = 0;
        if f.held.is_empty() {
            return Vec::new();
        }
        let held = std::mem::take(&mut f.held);
        let answers = self.output(emulator, &held);
        // The buffer is kept for the next batch unless it grew large.
        if held.capacity() <= READ_CHUNK * 4 {
            let mut held = held;
            held.clear();
            self.flood.held = held;
        }
        answers
    }

    /// Parses the held output up to its last line feed and keeps the rest held (as read at
    /// `now`): the flood goes on, and the next batch then starts at a line's start, where the
    /// parser is in its ground state and the emulator may skip (`term::flood`).
    fn flush_lines(&mut self, emulator: &mut Emulator, now: Instant) -> Vec<u8> {
        let f = &mut self.flood;
        let Some(last) = memchr::memrchr(b'\n', &f.held) else {
            return self.flush(emulator);
        };
        let tail = f.held.split_off(last + 1);
        let answers = self.flush(emulator);
        if !tail.is_empty() {
            self.flood.held.extend_from_slice(&tail);
            self.flood.held_since = Some(now);
        }
        answers
    }

    /// Whether output is held back now.
    pub fn holding(&self) -> bool {
        !self.flood.held.is_empty()
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

    /// When [`Pump::tick`] must run next: the open synchronized frame's deadline, the end of
    /// the drain after an exit, or when held-back output is due (`None`: nothing is due).
    pub fn deadline(&self, emulator: &Emulator) -> Option<Instant> {
        let drain = match (self.exited_at, self.eof) {
            (Some(t), false) => Some(t + EXIT_DRAIN),
            _ => None,
        };
        [emulator.sync_deadline(), drain, self.flood.due()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Does what is due at `now`: parses held-back output that is due (or all of it once the
    /// program exited or the PTY closed), force-ends an expired synchronized frame; once the
    /// output is complete, ends any frame still open (the final screen is never half drawn).
    /// `was_finished` is [`Pump::finished`] as the owner last saw it.
    pub fn tick(&mut self, emulator: &mut Emulator, now: Instant, was_finished: bool) -> Tick {
        let mut screen_changed = false;
        let mut answers = Vec::new();
        let ended = self.eof || self.exit.is_some();
        if ended && self.holding() {
            answers = self.flush(emulator);
            screen_changed = true;
        } else if self.flood.due().is_some_and(|d| d <= now) {
            answers = if self.flood.on && !self.flood.quiet(now) {
                self.flush_lines(emulator, now)
            } else {
                self.flush(emulator)
            };
            screen_changed = true;
        }
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
            answers,
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
/// (a capture's recording).
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
        let tick = pump.tick(emulator, now, false);
        write_all_blocking(fd, &tick.answers);
        if pump.finished(now) {
            return Ended::Finished;
        }
        if pump.at_eof() {
            return Ended::EndOfOutput;
        }
        if deadline.is_some_and(|d| now >= d) {
            pump.flush(emulator);
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
            Ok(None) => {
                pump.found_empty(Instant::now());
                return;
            }
            Ok(Some(n)) => {
                let now = Instant::now();
                if let Some(tap) = tap {
                    tap(now, &buf[..n]);
                }
                if let Some(answers) = pump.offer(emulator, &buf[..n], now) {
                    write_all_blocking(fd, &answers);
                }
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

    /// A 4 KiB piece of a log: 64 lines.
    fn piece(n: usize) -> Vec<u8> {
        (0..64)
            .flat_map(|i| format!("line {n:05}-{i:02} {}\r\n", "x".repeat(52)).into_bytes())
            .collect()
    }

    #[test]
    fn output_is_parsed_at_once_until_a_flood_then_held_until_the_flood_ends() {
        let mut em = Emulator::new(80, 5);
        let mut p = Pump::new();
        let t0 = Instant::now();
        let pieces = FLOOD_BYTES.div_ceil(piece(0).len());
        for n in 0..pieces - 1 {
            assert!(
                p.offer(&mut em, &piece(n), t0).is_some(),
                "piece {n} parsed at once"
            );
        }
        // The flood threshold is reached within the window: from here output is held.
        let _ = p.offer(&mut em, &piece(pieces - 1), t0);
        let t1 = t0 + Duration::from_millis(1);
        assert_eq!(p.offer(&mut em, &piece(pieces), t1), None, "held");
        assert!(p.holding());
        assert!(!em.row_text(4).contains(&format!("line {pieces:05}")));
        assert_eq!(p.deadline(&em), Some(t0 + HOLD_MAX_AGE), "due by its age");
        p.found_empty(t1);
        assert_eq!(
            p.deadline(&em),
            Some(t1 + HOLD_QUIET),
            "due when the output pauses"
        );
        let tick = p.tick(&mut em, t1 + HOLD_QUIET, false);
        assert!(tick.screen_changed);
        assert!(!p.holding());
        assert!(
            em.row_text(3).contains(&format!("line {pieces:05}-63")),
            "{}",
            em.row_text(3)
        );
        // The next window read as much: the flood goes on.
        let t2 = t0 + FLOOD_WINDOW + Duration::from_millis(1);
        assert_eq!(p.offer(&mut em, b"more", t2), None, "still a flood");
        // A quiet window ends it (what was held is parsed first, in order).
        let t3 = t2 + FLOOD_WINDOW + Duration::from_millis(1);
        assert!(
            p.offer(&mut em, b" and the prompt$ ", t3).is_some(),
            "parsed at once"
        );
        assert!(!p.holding());
        assert!(
            em.row_text(4).starts_with("more and the prompt$"),
            "{}",
            em.row_text(4)
        );
        // After a pause longer than a window, output is parsed at once too.
        let t4 = t3 + FLOOD_WINDOW * 3;
        assert!(p.offer(&mut em, b"x", t4).is_some());
    }

    #[test]
    fn held_output_is_parsed_by_its_age_at_the_latest_and_its_queries_answered() {
        let mut em = Emulator::new(80, 5);
        let mut p = Pump::new();
        let t0 = Instant::now();
        let _ = p.offer(&mut em, &vec![b'x'; FLOOD_BYTES], t0);
        let step = Duration::from_millis(1);
        let mut t = t0;
        let mut held = 0;
        // Output never pauses: a batch is parsed when its oldest byte is HOLD_MAX_AGE old.
        while t < t0 + HOLD_MAX_AGE * 2 {
            t += step;
            match p.offer(&mut em, b"\x1b[5n more\r\n", t) {
                None => held += 1,
                Some(answers) => {
                    assert_eq!(t, t0 + HOLD_MAX_AGE, "parsed at {:?}", t - t0);
                    assert_eq!(answers, b"\x1b[0n".repeat(held + 1), "every query answered");
                    return;
                }
            }
        }
        panic!("never parsed");
    }

    #[test]
    fn a_query_held_in_a_flood_is_answered_once_the_output_pauses() {
        let mut em = Emulator::new(80, 5);
        let mut p = Pump::new();
        let t0 = Instant::now();
        let _ = p.offer(&mut em, &vec![b'x'; FLOOD_BYTES], t0);
        assert_eq!(p.offer(&mut em, b"\r\n\x1b[6n", t0), None, "held");
        // The program waits for the answer: no more output.
        p.found_empty(t0);
        assert_eq!(p.deadline(&em), Some(t0 + HOLD_QUIET));
        let tick = p.tick(&mut em, t0 + HOLD_QUIET, false);
        assert_eq!(tick.answers, b"\x1b[5;1R");
        assert!(!p.holding());
    }

    /// The time a batch takes to parse is not a pause in the output: the line cut off at a
    /// batch's end stays held until a read finds the PTY empty (parsing it at once would end
    /// the batch mid-sequence, and the next batch could not be fast-forwarded).
    #[test]
    fn a_slow_batch_is_not_a_pause() {
        let mut em = Emulator::with_scrollback(80, 5, 10);
        let mut p = Pump::new();
        let t0 = Instant::now();
        let _ = p.offer(&mut em, &vec![b'x'; FLOOD_BYTES], t0);
        let lines = em.fast_forward_keep() * HOLD_BATCHES;
        let mut batch = piece(0).repeat(lines / 64 + 1);
        batch.extend_from_slice(b"cut off \x1b[38;5;");
        let answers = p.offer(&mut em, &batch, t0);
        assert_eq!(answers, Some(Vec::new()), "a full batch is parsed");
        assert!(p.holding(), "but not the line cut off");
        // The batch took 50 ms to parse; the loop looks at its timers before reading again.
        let after = t0 + Duration::from_millis(50);
        assert!(!p.tick(&mut em, after, false).screen_changed);
        assert!(p.holding(), "no pause seen yet");
        assert_eq!(p.offer(&mut em, b"17mend\r\n", after), None);
        p.found_empty(after);
        assert!(p.tick(&mut em, after + HOLD_QUIET, false).screen_changed);
        assert!(!p.holding());
        assert!(
            em.row_text(3).starts_with("cut off end"),
            "{}",
            em.row_text(3)
        );
    }

    #[test]
    fn held_output_is_parsed_when_the_program_exits() {
        let mut em = Emulator::new(80, 5);
        let mut p = Pump::new();
        let t0 = Instant::now();
        let _ = p.offer(&mut em, &vec![b'x'; FLOOD_BYTES], t0);
        assert_eq!(p.offer(&mut em, b"\r\nlast words", t0), None);
        p.exited(exit0(), t0);
        p.tick(&mut em, t0, false);
        assert!(!p.holding());
        assert!(em.row_text(4).contains("last words"));
    }

    #[test]
    fn queries_are_answered_in_order() {
        let mut em = Emulator::new(10, 2);
        let mut p = Pump::new();
        let answers = p.output(&mut em, b"\x1b[6n\x1b[5n");
        assert_eq!(answers, b"\x1b[1;1R\x1b[0n");
    }
}
