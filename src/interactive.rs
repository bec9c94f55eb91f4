//! A program run in a PTY through our emulator with its input from the user's terminal (or
//! from a replay file): `console2svg interactive`, `capture --replay-save` and `replay`.
//!
//! The loop follows the one pump's rules ([`crate::pty::pump`]: query answers from the
//! emulator, synchronized-output deadlines, the drain after the exit) and adds the input side:
//!
//! - [`Source::Terminal`]: the user's terminal is put in raw mode (restored on every way out:
//!   the program's end, an error, a panic, SIGINT/SIGTERM/SIGHUP), every byte typed is passed
//!   to the program, and the program's output is shown on stdout as it comes. The terminal's
//!   own reports on stdin (cursor position, device attributes…) are dropped: the emulator
//!   answers the program, the same way live and replayed. With hotkeys on, F10 and F9 are
//!   not passed on but captured: F10 a still of the screen, F9 starts and then ends an
//!   animated recording ([`Captured`]).
//! - [`Source::Script`]: a replay's events, each typed at its time with the program's modes
//!   at that moment.

use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::termios::{self, OptionalActions, Termios};

use crate::capture::{Capture, Status};
use crate::pty::pump::{self, Pump};
use crate::pty::{self, SpawnError, SpawnSpec};
use crate::recording::{Recorder, Recording};
use crate::replay::{self, Event};
use crate::term::{ansi, Emulator, QueryColors, Screen};

/// F10 (`CSI 21 ~`): a still of the screen.
pub const STILL_KEY: &[u8] = b"\x1b[21~";
/// F9 (`CSI 20 ~`): start, then end, an animated recording.
pub const RECORD_KEY: &[u8] = b"\x1b[20~";

/// Grace between SIGTERM and SIGKILL when the run is cut short.
const KILL_GRACE: Duration = Duration::from_millis(500);

/// Where the program's input comes from.
pub enum Source {
    /// The user's terminal (stdin, raw mode; output shown on stdout).
    Terminal {
        /// Keep the keys typed, with their times ([`Outcome::keys`]).
        record_keys: bool,
        /// F10/F9 capture instead of reaching the program.
        hotkeys: bool,
        /// Resize the program with the terminal (else it keeps [`SpawnSpec`]'s size).
        follow_size: bool,
    },
    /// A replay's events, typed at their times.
    Script(Vec<Event>),
}

/// What a hotkey captured.
pub enum Captured {
    /// F10: the screen (viewport) then.
    Still(Screen),
    /// F9 twice (or F9 and the program's end): the output in between, starting with the
    /// screen as it was at the first F9.
    Animation(Recording),
}

/// A run's options.
pub struct Options<'a> {
    /// The program, its directory, environment and size (the size is the terminal's instead
    /// when [`Source::Terminal::follow_size`]).
    pub spawn: SpawnSpec,
    /// Rows of scrollback (see [`Emulator::with_scrollback`]).
    pub scrollback: usize,
    /// Colours reported to OSC 10/11/4 queries.
    pub query_colors: QueryColors,
    /// Where the input comes from.
    pub source: Source,
    /// Stop after this long (then [`Status::Partial`]).
    pub timeout: Option<Duration>,
    /// Handles a hotkey's capture; its answer (the file written, or why not) is kept in
    /// [`Outcome::captures`].
    pub on_capture: &'a mut dyn FnMut(Captured) -> Result<String, String>,
}

/// How a run ended.
pub struct Outcome {
    /// The final screen and the program's exit (no recording).
    pub capture: Capture,
    /// The keys typed, when asked to keep them.
    pub keys: Vec<Event>,
    /// What each hotkey capture answered, in order.
    pub captures: Vec<Result<String, String>>,
}

/// The saved terminal mode, for the panic hook.
static SAVED: parking_lot::Mutex<Option<Termios>> = parking_lot::Mutex::new(None);

/// Raw mode on stdin while alive; the mode is restored when dropped, and by a panic hook.
struct RawMode;

impl RawMode {
    fn enter() -> RawMode {
        let stdin = std::io::stdin();
        if let Ok(saved) = termios::tcgetattr(stdin.as_fd()) {
            let mut raw = saved.clone();
            raw.make_raw();
            *SAVED.lock() = Some(saved);
            let _ = termios::tcsetattr(stdin.as_fd(), OptionalActions::Now, &raw);
            static HOOK: std::sync::Once = std::sync::Once::new();
            HOOK.call_once(|| {
                let previous = std::panic::take_hook();
                std::panic::set_hook(Box::new(move |info| {
                    restore();
                    previous(info);
                }));
            });
        }
        RawMode
    }
}

fn restore() {
    if let Some(saved) = SAVED.lock().take() {
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &saved);
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore();
    }
}

/// The terminal's size (cols, rows), when stdout is one.
fn terminal_size() -> Option<(u16, u16)> {
    termios::tcgetwinsize(std::io::stdout().as_fd())
        .ok()
        .filter(|w| w.ws_col > 0 && w.ws_row > 0)
        .map(|w| (w.ws_col.min(500), w.ws_row.min(500)))
}

/// An F9 recording in progress.
struct Filming {
    recorder: Recorder,
}

impl Filming {
    /// Starts at `now` from `screen` as it is (painted as the recording's first output).
    fn start(screen: &Screen, now: Instant) -> Filming {
        let (cols, rows) = (screen.width, screen.rows.len() - screen.scrollback_rows);
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs());
        let mut recorder = Recorder::new(cols as u16, rows as u16, now, unix);
        let mut seed = b"\x1b[H\x1b[2J".to_vec();
        seed.extend(ansi::paint(screen, 0, rows, cols));
        recorder.output(now, &seed);
        Filming { recorder }
    }
}

/// Runs `opts.spawn` until it exits (and its output is drained), the timeout, or a signal.
///
/// Errors: the [`SpawnError`] when the program cannot be started.
pub fn run(opts: Options<'_>) -> Result<Outcome, SpawnError> {
    let start = Instant::now();
    let mut spec = opts.spawn.clone();
    let terminal = match &opts.source {
        Source::Terminal { follow_size, .. } => Some(*follow_size),
        Source::Script(_) => None,
    };
    if terminal == Some(true) {
        if let Some((cols, rows)) = terminal_size() {
            (spec.cols, spec.rows) = (cols, rows);
        }
    }
    let mut emulator =
        Emulator::with_scrollback(spec.cols as usize, spec.rows as usize, opts.scrollback);
    emulator.set_query_colors(opts.query_colors);
    // The writer stays until the end: dropping it types newline + EOF into the PTY.
    let (mut process, reader, _writer) = pty::spawn(&spec)?;
    drop(reader);
    let fd = process
        .master_fd()
        .and_then(|m| pump::nonblocking_dup(m).ok())
        .ok_or_else(|| SpawnError::Pty("the PTY has no usable descriptor".into()))?;
    let notifier = pump::exit_notifier(process.pid());
    let stop = Arc::new(AtomicBool::new(false));
    let signals: Vec<_> = [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ]
    .into_iter()
    .filter_map(|s| signal_hook::flag::register(s, Arc::clone(&stop)).ok())
    .collect();
    let raw = terminal.map(|_| RawMode::enter());
    let (record_keys, hotkeys) = match &opts.source {
        Source::Terminal {
            record_keys,
            hotkeys,
            ..
        } => (*record_keys, *hotkeys),
        Source::Script(_) => (false, false),
    };
    let mut script = match opts.source {
        Source::Script(events) => events.into_iter().peekable(),
        Source::Terminal { .. } => Vec::new().into_iter().peekable(),
    };
    let on_capture = opts.on_capture;
    let deadline = opts.timeout.and_then(|t| start.checked_add(t));
    let mut pump = Pump::new();
    let mut keys = Vec::new();
    let mut captures = Vec::new();
    let mut filming: Option<Filming> = None;
    let mut stdin_open = terminal.is_some();
    let mut size = (spec.cols, spec.rows);
    let mut buf = vec![0u8; pump::READ_CHUNK];
    let mut stdout = std::io::stdout();
    let status = loop {
        let now = Instant::now();
        if pump.exit().is_none() {
            if let Some(e) = process.try_exit() {
                pump.exited(e, now);
            }
        }
        pump.tick(&mut emulator, now, false);
        if pump.finished(now) || pump.at_eof() {
            break Status::Completed;
        }
        if stop.load(Ordering::SeqCst) || deadline.is_some_and(|d| now >= d) {
            break Status::Partial;
        }
        while let Some(e) = script.next_if(|e| start + e.at <= now) {
            // Checked when the file was read; a key the modes refuse is skipped.
            if let Ok(bytes) = e.input.bytes(&emulator.modes()) {
                pump::write_all_blocking(fd.as_fd(), &bytes);
            }
        }
        if terminal == Some(true) {
            if let Some(now_size) = terminal_size().filter(|s| *s != size) {
                size = now_size;
                let _ = process.resize(size.0, size.1);
                emulator.resize(size.0 as usize, size.1 as usize);
            }
        }
        let mut until = [
            pump.deadline(&emulator),
            deadline,
            script.peek().map(|e| start + e.at),
            Some(now + Duration::from_millis(250)),
        ]
        .into_iter()
        .flatten()
        .min()
        .expect("one is always given");
        if notifier.is_none() || pump.exit().is_some() {
            until = until.min(now + Duration::from_millis(10));
        }
        let stdin = std::io::stdin();
        let (pty_ready, stdin_ready) = wait(
            fd.as_fd(),
            stdin_open.then(|| stdin.as_fd()),
            notifier
                .as_ref()
                .filter(|_| pump.exit().is_none())
                .map(|n| n.as_fd()),
            until - now,
        );
        if stdin_ready {
            match stdin.lock().read(&mut buf) {
                Ok(0) | Err(_) => stdin_open = false,
                Ok(n) => {
                    let typed = buf[..n].to_vec();
                    let at = now.duration_since(start);
                    for part in split_hotkeys(&typed, hotkeys) {
                        match part {
                            Part::Bytes(bytes) => {
                                let bytes = replay::without_reports(bytes);
                                if record_keys {
                                    keys.extend(replay::decode_input(&bytes, at));
                                }
                                pump::write_all_blocking(fd.as_fd(), &bytes);
                            }
                            Part::Still => {
                                captures.push(on_capture(Captured::Still(emulator.snapshot())));
                            }
                            Part::Record => match filming.take() {
                                Some(f) => captures
                                    .push(on_capture(Captured::Animation(f.recorder.finish()))),
                                None => filming = Some(Filming::start(&emulator.snapshot(), now)),
                            },
                        }
                    }
                }
            }
        }
        if pty_ready {
            loop {
                match pump::read_some(fd.as_fd(), &mut buf) {
                    Ok(Some(0)) | Err(_) => {
                        pump.end_of_output();
                        break;
                    }
                    Ok(None) => break,
                    Ok(Some(n)) => {
                        let chunk = &buf[..n];
                        if terminal.is_some() {
                            let _ = stdout.write_all(chunk).and_then(|_| stdout.flush());
                        }
                        if let Some(f) = filming.as_mut() {
                            f.recorder.output(Instant::now(), chunk);
                        }
                        let answers = pump.output(&mut emulator, chunk);
                        pump::write_all_blocking(fd.as_fd(), &answers);
                    }
                }
            }
        }
    };
    let exit = match status {
        Status::Partial => {
            process.kill_group(KILL_GRACE);
            None
        }
        Status::Completed => {
            let exit = pump
                .exit()
                .cloned()
                .or_else(|| process.kill_group(KILL_GRACE));
            process.kill_group(Duration::ZERO);
            while let Ok(Some(n @ 1..)) = pump::read_some(fd.as_fd(), &mut buf) {
                if terminal.is_some() {
                    let _ = stdout.write_all(&buf[..n]).and_then(|_| stdout.flush());
                }
                if let Some(f) = filming.as_mut() {
                    f.recorder.output(Instant::now(), &buf[..n]);
                }
                emulator.advance(&buf[..n]);
            }
            exit
        }
    };
    drop(raw);
    for id in signals {
        signal_hook::low_level::unregister(id);
    }
    if emulator.sync_deadline().is_some() {
        emulator.expire_sync();
    }
    if let Some(f) = filming.take() {
        captures.push(on_capture(Captured::Animation(f.recorder.finish())));
    }
    Ok(Outcome {
        capture: Capture {
            screen: emulator.snapshot_with_scrollback(),
            status,
            exit,
            duration: start.elapsed(),
            recording: None,
        },
        keys,
        captures,
    })
}

/// Polls the PTY, stdin (when given) and the exit notifier (when given) for at most `left`;
/// returns whether the PTY and stdin are readable.
fn wait(
    pty: BorrowedFd<'_>,
    stdin: Option<BorrowedFd<'_>>,
    notifier: Option<BorrowedFd<'_>>,
    left: Duration,
) -> (bool, bool) {
    use rustix::event::{poll, PollFd, PollFlags};
    let mut fds = vec![PollFd::new(&pty, PollFlags::IN)];
    if let Some(s) = &stdin {
        fds.push(PollFd::new(s, PollFlags::IN));
    }
    if let Some(n) = &notifier {
        fds.push(PollFd::new(n, PollFlags::IN));
    }
    let timeout = rustix::event::Timespec {
        tv_sec: left.as_secs() as i64,
        tv_nsec: left.subsec_nanos() as i64,
    };
    let _ = poll(&mut fds, Some(&timeout));
    let ready = |f: &PollFd<'_>| !f.revents().is_empty();
    (ready(&fds[0]), stdin.is_some() && ready(&fds[1]))
}

/// A piece of typed input: bytes for the program, or a hotkey.
#[derive(Debug, PartialEq, Eq)]
enum Part<'a> {
    Bytes(&'a [u8]),
    Still,
    Record,
}

/// `typed` cut at the hotkeys (none when `hotkeys` is off).
fn split_hotkeys(typed: &[u8], hotkeys: bool) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut rest = typed;
    let next = |rest: &[u8]| {
        [STILL_KEY, RECORD_KEY]
            .into_iter()
            .filter_map(|key| memchr::memmem::find(rest, key).map(|i| (i, key)))
            .min_by_key(|(i, _)| *i)
    };
    while let Some((i, key)) = hotkeys.then(|| next(rest)).flatten() {
        if i > 0 {
            parts.push(Part::Bytes(&rest[..i]));
        }
        parts.push(if key == STILL_KEY {
            Part::Still
        } else {
            Part::Record
        });
        rest = &rest[i + key.len()..];
    }
    if !rest.is_empty() {
        parts.push(Part::Bytes(rest));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hotkeys_are_cut_out_of_the_typed_bytes() {
        assert_eq!(
            split_hotkeys(b"ab\x1b[21~c\x1b[20~", true),
            [
                Part::Bytes(b"ab"),
                Part::Still,
                Part::Bytes(b"c"),
                Part::Record
            ]
        );
        assert_eq!(
            split_hotkeys(b"\x1b[21~", false),
            [Part::Bytes(b"\x1b[21~")]
        );
        assert_eq!(split_hotkeys(b"", true), []);
    }
}
