//! `termio attach [link]`: the human front end. Shows the focused session of the caller's
//! project live in the current terminal (a header row, then the session's screen), forwards
//! every keystroke to it, follows `termio sessions focus` from anywhere, and detaches on
//! [`DETACH_KEY`] (Ctrl-]), leaving the session running.
//!
//! Built on two host streams ([`crate::host::events`]): a subscription (focus moves, titles,
//! closed sessions) and an attach stream of the shown session's screens, repainted with
//! [`crate::term::ansi::paint`].

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::time::Duration;

use rustix::termios::{self, OptionalActions, Termios};
use serde_json::Value;

use super::reply::SessionEntry;
use super::wire::{SummaryPart, OP};
use crate::host::client::{self, StreamEnd};
use crate::host::events::{Event, Frame};
use crate::host::protocol::{HostError, Request};
use crate::term::keys::Input;
use crate::term::{ansi, Screen};

/// The byte that detaches: Ctrl-] (GS, 0x1d), as in telnet.
pub const DETACH_KEY: u8 = 0x1d;

enum Msg {
    Input(Vec<u8>),
    InputClosed,
    Frame {
        generation: u64,
        screen: Box<Screen>,
    },
    Ended {
        generation: u64,
    },
    Event(Event),
    HostGone,
}

/// Restores the terminal's mode and screen when dropped.
struct TerminalGuard {
    saved: Option<Termios>,
}

impl TerminalGuard {
    fn enter() -> TerminalGuard {
        let stdin = std::io::stdin();
        let saved = termios::tcgetattr(stdin.as_fd()).ok();
        if let Some(t) = &saved {
            let mut raw = t.clone();
            raw.make_raw();
            let _ = termios::tcsetattr(stdin.as_fd(), OptionalActions::Now, &raw);
        }
        // Alternate screen, so the user's scrollback is left as it was.
        print_bytes(b"\x1b[?1049h\x1b[2J");
        TerminalGuard { saved }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        print_bytes(b"\x1b[0m\x1b[?25h\x1b[0 q\x1b[?1049l");
        if let Some(t) = &self.saved {
            let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, t);
        }
    }
}

fn print_bytes(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes);
    let _ = out.flush();
}

/// The terminal's size in cells (rows, cols); 24 × 80 when it cannot be read.
fn terminal_size() -> (usize, usize) {
    match termios::tcgetwinsize(std::io::stdout().as_fd()) {
        Ok(w) if w.ws_row > 0 && w.ws_col > 0 => (w.ws_row as usize, w.ws_col as usize),
        _ => (24, 80),
    }
}

/// Streams the screens of session `id` into `tx`, tagged with `generation`, until the
/// session ends, the stream breaks, or `shown` moves on to another generation.
fn follow(id: String, generation: u64, shown: Arc<AtomicU64>, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let Ok((_, mut stream)) = client::open_stream(&Request::Attach { id: id.into() }) else {
            let _ = tx.send(Msg::Ended { generation });
            return;
        };
        while shown.load(Ordering::SeqCst) == generation {
            match stream.next(Duration::from_secs(1)).map(frame) {
                Ok(Some(Frame::Screen { screen, .. })) => {
                    let msg = Msg::Frame { generation, screen };
                    if tx.send(msg).is_err() {
                        return;
                    }
                }
                Ok(Some(Frame::Ended { .. })) => break,
                Ok(None) | Err(StreamEnd::Quiet) => {}
                Err(StreamEnd::Closed) => break,
            }
        }
        let _ = tx.send(Msg::Ended { generation });
    });
}

/// An attach stream line as a [`Frame`]; `None` for a line this client does not know.
fn frame(line: Value) -> Option<Frame> {
    serde_json::from_value(line).ok()
}

/// A subscription line as an [`Event`]; `None` for a line this client does not know.
fn event(line: Value) -> Option<Event> {
    serde_json::from_value(line).ok()
}

/// Whether `event` is part of a subscription's roster.
fn is_snapshot(event: &Event) -> bool {
    matches!(
        event,
        Event::Session { snapshot: true, .. } | Event::Focus { snapshot: true, .. }
    )
}

/// The header row: what is shown and how to leave.
fn header(title: &str, link: &str, ended: bool, cols: usize) -> Vec<u8> {
    let state = if ended { " (ended)" } else { "" };
    let text = format!(" termio attach │ {title}{state} │ {link} │ Ctrl-] detaches ");
    let clipped: String = text.chars().take(cols).collect();
    format!("\x1b[1;1H\x1b[0;7m{clipped}\x1b[K\x1b[0m").into_bytes()
}

/// Attaches the current terminal to session `shown` (a host session id, focused in
/// `project` by the caller: see the termio `focus` request) and follows the project's focus
/// until the user presses [`DETACH_KEY`] or stdin closes (both `Ok`). The shown session is
/// resized to the terminal (its columns × its rows less the header row), as a tmux client
/// does, and again when the terminal's size changes.
///
/// `own` is the session this attach runs in (if any): focus moving there is not followed, so
/// attach never shows itself. When the shown session closes, `next()` names the session to
/// show instead (`None`: nothing is left, and attach returns `Ok` with a message on stderr).
///
/// Errors: the host's error when it cannot be reached or goes away while attached.
pub fn run(
    project: &str,
    shown: String,
    own: Option<String>,
    mut next: impl FnMut() -> Option<String>,
) -> Result<(), HostError> {
    let (_, mut events) = client::open_stream(&Request::Subscribe)?;
    // Read the roster: titles and links of the project's sessions, and the current focus.
    let mut entries: std::collections::HashMap<String, SessionEntry> = Default::default();
    let mut focused = Some(shown);
    let (tx, rx) = mpsc::channel::<Msg>();
    loop {
        match events.next(Duration::from_millis(200)).map(event) {
            Ok(Some(e)) if is_snapshot(&e) => absorb(&e, project, &mut entries, &mut focused),
            Ok(Some(e)) => {
                // Live already: hand it to the main loop below.
                let _ = tx.send(Msg::Event(e));
                break;
            }
            Ok(None) => {}
            Err(StreamEnd::Quiet) => break,
            Err(StreamEnd::Closed) => {
                return Err(HostError::new(
                    crate::host::protocol::ErrorCode::HostUnavailable,
                    "the host closed the stream",
                ))
            }
        }
    }
    let mut current = focused.expect("set above; absorb only replaces it");
    let events_tx = tx.clone();
    std::thread::spawn(move || loop {
        match events.next(Duration::from_secs(3600)).map(event) {
            Ok(Some(e)) => {
                if events_tx.send(Msg::Event(e)).is_err() {
                    return;
                }
            }
            Ok(None) | Err(StreamEnd::Quiet) => {}
            Err(StreamEnd::Closed) => {
                let _ = events_tx.send(Msg::HostGone);
                return;
            }
        }
    });
    let input_tx = tx.clone();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = [0u8; 4096];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => {
                    let _ = input_tx.send(Msg::InputClosed);
                    return;
                }
                Ok(n) => {
                    if input_tx.send(Msg::Input(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
    });

    let _guard = TerminalGuard::enter();
    let mut generation = 0;
    let mut ended = false;
    let mut last: Option<Box<Screen>> = None;
    let shown = Arc::new(AtomicU64::new(generation));
    follow(current.clone(), generation, shown.clone(), tx.clone());
    let paint = |screen: Option<&Screen>,
                 id: &str,
                 ended: bool,
                 entries: &std::collections::HashMap<String, SessionEntry>| {
        let (rows, cols) = terminal_size();
        let entry = entries.get(id);
        let title = entry.map_or(id, |e| e.title.as_str()).to_string();
        let link = entry.map_or("", |e| e.link.as_str());
        let mut out = header(&title, link, ended, cols);
        if let Some(s) = screen {
            out.extend(ansi::paint(s, 1, rows.saturating_sub(1), cols));
        }
        print_bytes(&out);
    };
    // The (session, cols, rows) the shown session was last resized to.
    let mut sized: Option<(String, usize, usize)> = None;
    loop {
        let (rows, cols) = terminal_size();
        let want = (current.clone(), cols, rows.saturating_sub(1).max(1));
        if sized.as_ref() != Some(&want) {
            let _ = client::request(&Request::Resize {
                id: current.as_str().into(),
                width: want.1.min(500) as u16,
                height: want.2.min(500) as u16,
            });
            sized = Some(want);
        }
        let msg = match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(msg) => msg,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
        };
        match msg {
            Msg::Input(bytes) => {
                let (keep, detach) = match bytes.iter().position(|&b| b == DETACH_KEY) {
                    Some(i) => (&bytes[..i], true),
                    None => (&bytes[..], false),
                };
                if !keep.is_empty() && !ended {
                    let hex: String = keep.iter().map(|b| format!("{b:02x}")).collect();
                    // A session that just ended refuses input; the header already says so.
                    let _ = client::request(&Request::Send {
                        id: current.as_str().into(),
                        inputs: vec![Input::RawHex(hex)],
                        gap_ms: None,
                    });
                }
                if detach {
                    return Ok(());
                }
            }
            Msg::InputClosed => return Ok(()),
            Msg::Frame {
                generation: g,
                screen,
            } if g == generation => {
                paint(Some(&screen), &current, ended, &entries);
                last = Some(screen);
            }
            Msg::Frame { .. } => {}
            Msg::Ended { generation: g } if g == generation => {
                ended = true;
                paint(last.as_deref(), &current, ended, &entries);
            }
            Msg::Ended { .. } => {}
            Msg::Event(e) => {
                let mut focus = Some(current.clone());
                absorb(&e, project, &mut entries, &mut focus);
                if let Event::Closed {
                    session_id,
                    summary,
                } = &e
                {
                    if *session_id == current {
                        focus = next().filter(|id| Some(id) != own.as_ref());
                        if focus.is_none() {
                            drop(_guard);
                            let part: Option<SummaryPart> = summary.part(OP);
                            let title = part.map(|p| p.entry.title).unwrap_or_default();
                            eprintln!("termio attach: {title} closed; no other session to show");
                            return Ok(());
                        }
                    }
                }
                if focus.is_some() && focus == own {
                    // Focus on the session this attach runs in: showing it would mirror
                    // itself endlessly. Keep showing the current one.
                    focus = Some(current.clone());
                }
                match focus {
                    Some(id) if id != current => {
                        current = id;
                        generation += 1;
                        shown.store(generation, Ordering::SeqCst);
                        ended = false;
                        last = None;
                        print_bytes(b"\x1b[0m\x1b[2J");
                        follow(current.clone(), generation, shown.clone(), tx.clone());
                    }
                    _ => paint(last.as_deref(), &current, ended, &entries),
                }
            }
            Msg::HostGone => {
                return Err(HostError::new(
                    crate::host::protocol::ErrorCode::HostUnavailable,
                    "the host went away",
                ))
            }
        }
    }
}

/// Applies one hub event to what attach knows: the project's entries (by host session id)
/// and the focused session of the project.
fn absorb(
    event: &Event,
    project: &str,
    entries: &mut std::collections::HashMap<String, SessionEntry>,
    focused: &mut Option<String>,
) {
    match event {
        Event::Session {
            session_id,
            summary,
            ..
        } => {
            if let Some(part) = summary.part::<SummaryPart>(OP) {
                if part.project == project {
                    entries.insert(session_id.clone(), part.entry);
                }
            }
        }
        Event::Closed { session_id, .. } => {
            entries.remove(session_id);
        }
        Event::Focus {
            scope, session_id, ..
        } if scope == project => {
            *focused = Some(session_id.clone());
        }
        _ => {}
    }
}
