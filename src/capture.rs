//! One-shot capture: run a command in a PTY (or read a pipe) through the [`Emulator`] until it
//! ends, and return the final [`Screen`]. A command runs through the same pump as a host session
//! ([`crate::pty::pump`]: query answers, synchronized-output deadlines, the drain after the
//! exit), driven on this thread.

use std::io::Read;
use std::os::fd::AsFd;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::pty::pump::{self, Ended, Pump};
use crate::pty::{self, Exit, SpawnError, SpawnSpec};
use crate::recording::{Recorder, Recording};
use crate::term::{Emulator, QueryColors, Screen};

/// Grace between SIGTERM and SIGKILL when a capture times out.
const KILL_GRACE: Duration = Duration::from_millis(500);

/// What a capture ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The program ended (or the input reached its end).
    Completed,
    /// `--timeout` expired first; the screen is what was drawn by then.
    Partial,
}

/// The result of a capture.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The final screen, including scrollback.
    pub screen: Screen,
    pub status: Status,
    /// The program's exit, when it ended by itself.
    pub exit: Option<Exit>,
    /// Wall time from start to the end of output.
    pub duration: Duration,
    /// The output with its timing, when the capture was asked to record.
    pub recording: Option<Recording>,
}

/// A recorder started now, for a `cols` × `rows` terminal.
fn recorder(cols: u16, rows: u16, start: Instant) -> Recorder {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs());
    Recorder::new(cols, rows, start, unix)
}

/// Options for [`run_command`].
#[derive(Debug, Clone)]
pub struct CommandCapture {
    pub spawn: SpawnSpec,
    /// Stop after this long and return a partial screen.
    pub timeout: Option<Duration>,
    /// Colours reported to OSC 10/11/4 queries.
    pub query_colors: QueryColors,
    /// Keep the output with its timing ([`Capture::recording`]).
    pub record: bool,
    /// Rows of scrollback kept above the screen (see [`Emulator::with_scrollback`]).
    pub scrollback: usize,
}

enum Chunk {
    Data(Vec<u8>),
    End,
}

fn read_in_thread(mut reader: Box<dyn Read + Send>) -> Receiver<Chunk> {
    let (tx, rx) = mpsc::sync_channel(64);
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => {
                    let _ = tx.send(Chunk::End);
                    return;
                }
                Ok(n) => {
                    if tx.send(Chunk::Data(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

/// Runs `opts.spawn` in a PTY until it exits and its output is drained, or until the timeout.
///
/// Errors: the [`SpawnError`] when the program cannot be started.
pub fn run_command(opts: &CommandCapture) -> Result<Capture, SpawnError> {
    let start = Instant::now();
    let mut emulator = Emulator::with_scrollback(
        opts.spawn.cols as usize,
        opts.spawn.rows as usize,
        opts.scrollback,
    );
    emulator.set_query_colors(opts.query_colors);
    // The writer stays until the end: dropping it types newline + EOF into the PTY.
    let (mut process, reader, _writer) = pty::spawn(&opts.spawn)?;
    drop(reader);
    let fd = process
        .master_fd()
        .and_then(|m| pump::nonblocking_dup(m).ok())
        .ok_or_else(|| SpawnError::Pty("the PTY has no usable descriptor".into()))?;
    let deadline = opts.timeout.and_then(|t| start.checked_add(t));
    let mut pump = Pump::new();
    let pid = process.pid();
    let mut recorder = opts
        .record
        .then(|| recorder(opts.spawn.cols, opts.spawn.rows, start));
    let mut tap = |at: Instant, bytes: &[u8]| {
        if let Some(r) = recorder.as_mut() {
            r.output(at, bytes);
        }
    };
    let ended = pump::run_blocking(
        &mut pump,
        &mut emulator,
        fd.as_fd(),
        pid,
        || process.try_exit(),
        deadline,
        opts.record.then_some(&mut tap as pump::Tap<'_>),
    );
    if ended == Ended::TimedOut {
        // The screen as it stood at the deadline: what the program draws while it is being
        // killed (vim's "Caught deadly signal", a restored primary screen) is not part of it.
        let screen = emulator.snapshot_with_scrollback();
        process.kill_group(KILL_GRACE);
        return Ok(Capture {
            screen,
            status: Status::Partial,
            exit: None,
            duration: start.elapsed(),
            recording: recorder.map(Recorder::finish),
        });
    }
    let exit = match pump.exit() {
        Some(e) => Some(e.clone()),
        // The PTY closed first: the program is on its way out.
        None => process.kill_group(KILL_GRACE),
    };
    // Leftover background members of the group lose their terminal with us.
    process.kill_group(Duration::ZERO);
    // Whatever is still buffered was already written by the program: keep it.
    let mut buf = vec![0u8; pump::READ_CHUNK];
    while let Ok(Some(n @ 1..)) = pump::read_some(fd.as_fd(), &mut buf) {
        if let Some(r) = recorder.as_mut() {
            r.output(Instant::now(), &buf[..n]);
        }
        emulator.advance(&buf[..n]);
    }
    if emulator.sync_deadline().is_some() {
        emulator.expire_sync();
    }
    Ok(Capture {
        screen: emulator.snapshot_with_scrollback(),
        status: Status::Completed,
        exit,
        duration: start.elapsed(),
        recording: recorder.map(Recorder::finish),
    })
}

/// Feeds raw terminal output from `input` (pipe mode) into a `cols` × `rows` terminal until the
/// end of input, or until `timeout` (then [`Status::Partial`]). Queries are not answered.
///
/// Each LF is fed as CR LF, as a PTY's output processing (`onlcr`) would do for a program that
/// wrote to a terminal. With `record`, the input is kept with the time each chunk arrived.
pub fn run_bytes(
    input: Box<dyn Read + Send>,
    cols: u16,
    rows: u16,
    scrollback: usize,
    timeout: Option<Duration>,
    record: bool,
) -> Capture {
    let start = Instant::now();
    let mut recorder = record.then(|| recorder(cols, rows, start));
    let mut emulator = Emulator::with_scrollback(cols as usize, rows as usize, scrollback);
    let rx = read_in_thread(input);
    let mut status = Status::Completed;
    loop {
        let wait = timeout
            .and_then(|t| start.checked_add(t))
            .map(|d| d.saturating_duration_since(Instant::now()));
        let chunk = match wait {
            Some(w) => rx.recv_timeout(w),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match chunk {
            Ok(Chunk::Data(bytes)) => {
                let bytes = onlcr(&bytes);
                if let Some(r) = recorder.as_mut() {
                    r.output(Instant::now(), &bytes);
                }
                emulator.advance(&bytes)
            }
            Ok(Chunk::End) | Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                status = Status::Partial;
                break;
            }
        }
    }
    if emulator.sync_deadline().is_some() {
        emulator.expire_sync();
    }
    Capture {
        screen: emulator.snapshot_with_scrollback(),
        status,
        exit: None,
        duration: start.elapsed(),
        recording: recorder.map(Recorder::finish),
    }
}

/// LF → CR LF (termios `onlcr`).
fn onlcr(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 32);
    for &b in bytes {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}
