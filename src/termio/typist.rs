//! Typing into termio's shell sessions: when a booting shell may be typed into (case SC-01,
//! [`shell_ready`]), how text and keys become input ([`input_steps`]), how a command line is
//! submitted ([`submit`]: the Return is its own write, case SC-02), and the typist of a `run`
//! session, which types its command once the shell is ready ([`deliver_when_ready`]).

use std::time::{Duration, Instant, SystemTime};

use super::error::{Code, Error};
use super::reply::Status;
use super::status::shell::SUBMIT_GRACE;
use super::tracked::{termio_status, Tracked};
use crate::host::journal::Entry;
use crate::host::protocol::{ErrorCode, HostError};
use crate::host::session::State;
use crate::term::keys::{self, Input, Step};

/// A shell counts as ready once it has printed something and then been quiet this long with
/// the cursor after text on its row (a prompt) and the terminal in its own hands.
pub const READY_QUIET: Duration = Duration::from_millis(300);

/// Without anything prompt-like under the cursor, quiet this long counts as ready.
pub const READY_QUIET_FALLBACK: Duration = Duration::from_secs(2);

/// The command is typed after this long whatever the shell shows (a shell that never prints
/// a prompt); the spec prefers a late command to none.
pub const READY_MAX: Duration = Duration::from_secs(15);

/// How often the typist looks at a booting shell.
pub const READY_POLL: Duration = Duration::from_millis(50);

/// The gap between typed text and its Return (the Return is its own write, case SC-02).
pub const SUBMIT_GAP: Duration = Duration::from_millis(150);

/// How long [`submit`] waits for its Return to be written, and an agent's prompt delivery for
/// its prompt (the program may read no input).
pub const INPUT_PATIENCE: Duration = Duration::from_secs(2);

/// What a send types: the inputs (for the journal) and their validated steps.
pub struct Typed {
    inputs: Vec<Input>,
    steps: Vec<Step>,
}

impl Typed {
    /// Whether nothing would be typed (no text, no keys).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// Text (pasted when it spans lines, so it is one submission: case SC-03) then keys.
///
/// Errors: `bad_request` for an unknown key name.
pub fn input_steps(text: &str, key_names: &[String]) -> Result<Typed, Error> {
    let mut inputs = Vec::new();
    if !text.is_empty() {
        inputs.push(if text.contains('\n') {
            Input::Paste(text.to_string())
        } else {
            Input::Text(text.to_string())
        });
    }
    inputs.extend(key_names.iter().map(|k| Input::Keys(k.clone())));
    let steps = keys::validate(&inputs).map_err(|e| Error::new(Code::BadRequest, e.to_string()))?;
    Ok(Typed { inputs, steps })
}

/// Writes the typed steps (one write each), then, [`SUBMIT_GAP`] after the last of them was
/// written (the host's quiet gap, as `session send` leaves after a paste), a Return as its own
/// write when `enter`; journals them. Returns, once the Return is written, the version before
/// the input and whether it submitted a command line at a shell prompt (which the status
/// machine then follows).
///
/// Errors: `session_exited` when the program has ended.
pub fn submit(s: &Tracked, typed: Typed, enter: bool) -> Result<(u64, bool), HostError> {
    let before = termio_status(s);
    let since = s.lock().version;
    let Typed { mut inputs, steps } = typed;
    let wrote_text = !steps.is_empty();
    // Read before the input is written: text typed at a hidden prompt is never journaled.
    let hidden = s.hidden_prompt();
    if wrote_text {
        let quiet_after = if enter { SUBMIT_GAP } else { Duration::ZERO };
        s.send_then_quiet(steps, SUBMIT_GAP, quiet_after)?;
    }
    if enter {
        let key = keys::parse_key("Enter")
            .map_err(|e| HostError::new(ErrorCode::InvalidRequest, e.to_string()))?;
        // Queued now, written by the host once the gap after the text has passed.
        s.send(vec![Step::Key(key)], Duration::ZERO)?;
        inputs.push(Input::Keys("Enter".into()));
        s.wait_input_settled(INPUT_PATIENCE);
    }
    s.record(Entry::send(inputs, hidden));
    let command = enter && s.meta.is_shell() && matches!(before, Status::Idle | Status::Done);
    if command {
        s.meta.shell.lock().submitted(Instant::now());
    }
    Ok((since, command))
}

/// Whether a booting shell may be typed into.
#[derive(Debug, PartialEq, Eq)]
pub enum Readiness {
    /// Not yet: still booting or busy.
    NotYet,
    /// Ready for input.
    Ready,
    /// The shell has ended.
    Gone,
}

/// SC-01: a shell is ready once it has printed something (its prompt), the screen has been
/// still for [`READY_QUIET`] with the cursor after text on its row (a prompt, not a bare line
/// an rc file printed), and no rc-file command holds the terminal; or still for
/// [`READY_QUIET_FALLBACK`] whatever the cursor; or after [`READY_MAX`] in any case.
pub fn shell_ready(s: &Tracked, started: Instant) -> Readiness {
    let (running, version, quiet, prompt_like) = {
        let g = s.lock();
        let (row, col) = g.emulator.cursor();
        let prompt_like = col > 0 && !g.emulator.row_text(row).trim().is_empty();
        let quiet = SystemTime::now()
            .duration_since(g.updated_at)
            .unwrap_or_default();
        (g.state == State::Running, g.version, quiet, prompt_like)
    };
    if !running {
        return Readiness::Gone;
    }
    if started.elapsed() >= READY_MAX {
        return Readiness::Ready;
    }
    let own_terminal = s.foreground_group().is_none_or(|g| g as u32 == s.pid);
    if version <= 1 || !own_terminal {
        return Readiness::NotYet;
    }
    if (quiet >= READY_QUIET && prompt_like) || quiet >= READY_QUIET_FALLBACK {
        Readiness::Ready
    } else {
        Readiness::NotYet
    }
}

/// Whether a `run` session's own command has been typed and has started: it holds the
/// terminal, or [`SUBMIT_GRACE`] has passed since its Return (a builtin, or a command already
/// done). Input typed before that could reach the shell's line editor and be lost or run
/// first.
pub fn command_started(s: &Tracked) -> bool {
    let Some((_, at)) = *s.meta.delivered.lock() else {
        return false;
    };
    at.elapsed() >= SUBMIT_GRACE || s.foreground_group().is_some_and(|g| g as u32 != s.pid)
}

/// The typist of a `run` session: waits for the shell to be ready, then types the command
/// and a Return, and records the version before them (for `--wait`) once both are written.
pub fn deliver_when_ready(s: &Tracked, command: &str) {
    let started = Instant::now();
    loop {
        std::thread::sleep(READY_POLL);
        match shell_ready(s, started) {
            Readiness::NotYet => continue,
            Readiness::Gone => return,
            Readiness::Ready => break,
        }
    }
    let Ok(typed) = input_steps(command, &[]) else {
        return;
    };
    if let Ok((version, _)) = submit(s, typed, true) {
        *s.meta.delivered.lock() = Some((version, Instant::now()));
    }
}
