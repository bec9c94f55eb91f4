//! Agent sessions on the host: the agent status machine ([`super::agent::Track`]) fed from a
//! live session. Each agent session has a [`Slot`] in termio's per-session data and a monitor
//! thread ([`start`]) that looks at the session every [`TICK`] (or screen change), types the
//! agent's command and the spawn's queued prompt when they are due, and ends with the
//! session. Here too: prompt delivery ([`send`]; SC-02, SC-03), hook reports
//! ([`apply_report`]), the turn probes `--wait` reads ([`probe`]), and the transcript files
//! the machine reads ([`Files`]).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use super::agent::{Due, Report, Search, Seen, Track, Transcripts, View, READY_MAX, TICK};
use crate::host::journal::Entry;
use crate::host::protocol::{ErrorCode, HostError};
use crate::host::session::State;
use crate::term::keys::{self, Input, Step};
use crate::termio::agents::{self, AgentDef};
use crate::termio::reply::Status;
use crate::termio::tracked::{link_of, termio_status, title_of, Tracked};
use crate::termio::transcript;
use crate::termio::typist::{self, Readiness, Typed, INPUT_PATIENCE};
use crate::termio::wire::{Outcome, TurnProbe};

/// The agent part of a session's termio data: no track for plain terminals.
#[derive(Debug, Default)]
pub struct Slot {
    track: parking_lot::Mutex<Option<Track>>,
    /// Held while typing, so the monitor and a `send` never interleave their input.
    typing: parking_lot::Mutex<()>,
}

impl Slot {
    /// Whether the session is an agent session.
    pub fn is_agent(&self) -> bool {
        self.track.lock().is_some()
    }

    /// What `list` shows, for agent sessions (a transcript only once its file exists: Claude
    /// Code's `SessionStart` hook names a file it writes at the first prompt).
    pub fn view(&self) -> Option<View> {
        self.track.lock().as_ref().map(Track::view).map(existing)
    }

    /// The agent's definition, for agent sessions.
    pub fn def(&self) -> Option<AgentDef> {
        self.track.lock().as_ref().map(|t| t.def().clone())
    }

    /// The `needs-you` changes after status sequence `seq` (oldest first, with their
    /// questions) and the sequence now: how a watcher sampling every 100 ms still reports a
    /// question that was answered in between. Empty for plain terminals.
    pub fn asked_since(&self, seq: u64) -> (u64, Vec<(u64, Option<String>)>) {
        match self.track.lock().as_ref() {
            Some(t) => (t.seq(), t.asked_since(seq)),
            None => (seq, Vec::new()),
        }
    }

    /// Marks the session closed (`close`): waits end with `session_closed`.
    pub fn mark_closed(&self) {
        if let Some(t) = self.track.lock().as_mut() {
            t.close(Instant::now());
        }
    }
}

/// Transcript files bound by a search (not named by a hook), host-wide: a file is one
/// session's, so agents of one kind given the same prompt at once each get their own.
static CLAIMED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// The transcripts on disk ([`crate::termio::transcript`]); a bound file is claimed
/// host-wide (one session's only).
pub struct Files;

impl Transcripts for Files {
    fn line_count(&self, path: &Path) -> u64 {
        transcript::line_count(path)
    }

    fn lines(&self, path: &Path, from: u64, to: u64) -> Vec<String> {
        transcript::lines(path, from, to)
    }

    fn bind(&self, search: &Search<'_>) -> Option<PathBuf> {
        let full = agents::expand_pattern(search.pattern, search.cwd);
        let files = agents::find_files(&full, search.since);
        let holds_ours = |p: &PathBuf| {
            let lines = transcript::lines(p, 0, transcript::line_count(p));
            lines.iter().any(|l| {
                search
                    .needles
                    .iter()
                    .any(|n| transcript::is_prompt_for(l, n))
            })
        };
        let mut claimed = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
        let free: Vec<&PathBuf> = files.iter().filter(|p| !claimed.contains(p)).collect();
        let pick = free
            .iter()
            .find(|p| holds_ours(p))
            .map(|p| (*p).clone())
            .or_else(|| {
                search
                    .any
                    .then(|| free.first().map(|p| (*p).clone()))
                    .flatten()
            });
        if let Some(p) = &pick {
            claimed.push(p.clone());
        }
        pick
    }
}

/// Makes `s` an agent session running `def` with `prompt` queued (turn 1), and starts its
/// monitor: it types the agent's command once the shell is ready, then the prompt once the
/// agent is ready (SC-01, SC-13), and keeps the status. Returns the prompt's turn.
///
/// Errors: `start_failed` when the monitor thread cannot start.
pub fn start(s: &Tracked, def: AgentDef, prompt: String) -> Result<u64, String> {
    let track = Track::spawned(
        def,
        s.meta.cwd().to_path_buf(),
        prompt,
        Instant::now(),
        SystemTime::now(),
    );
    let turn = track.current_turn();
    *s.meta.agent.track.lock() = Some(track);
    let worker = s.clone();
    std::thread::Builder::new()
        .name("termio-agent".into())
        .spawn(move || monitor(&worker))
        .map_err(|e| e.to_string())?;
    Ok(turn)
}

/// `view` without a transcript path whose file does not exist (yet).
fn existing(mut view: View) -> View {
    if view.transcript.as_deref().is_some_and(|p| !p.exists()) {
        view.transcript = None;
    }
    view
}

/// What the monitor reads from the session in one look (`text` only when the screen changed
/// since `seen_version`).
fn look(s: &Tracked, seen_version: u64) -> Seen {
    let mut seen = {
        let g = s.lock();
        Seen {
            running: g.state == State::Running,
            agent_front: false,
            version: g.version,
            quiet: SystemTime::now()
                .duration_since(g.updated_at)
                .unwrap_or_default(),
            text: (g.version != seen_version).then(|| g.emulator.snapshot().text()),
            title: g.emulator.title().map(str::to_string),
            osc: g
                .emulator
                .program_status()
                .map(|p| (g.emulator.status_reports(), p.clone())),
            progress: g.emulator.progress(),
        }
    };
    seen.agent_front = s
        .foreground_group()
        .is_some_and(|g| g > 0 && g as u32 != s.pid);
    seen
}

/// The monitor of an agent session: every [`TICK`] (or screen change), looks at the screen,
/// title, OSC reports and the foreground process group, feeds the status machine, and types
/// what is due. Ends with the session.
fn monitor(s: &Tracked) {
    let shell_started = Instant::now();
    let mut seen_version = 0u64;
    loop {
        let from = seen_version;
        s.wait_until(Instant::now() + TICK, |g| {
            g.version != from || g.state != State::Running
        });
        let seen = look(s, seen_version);
        seen_version = seen.version;
        let due = {
            let mut guard = s.meta.agent.track.lock();
            let Some(t) = guard.as_mut() else { return };
            let now = Instant::now();
            t.observe(&seen, now, &Files);
            if !seen.running {
                return;
            }
            t.due(seen.quiet, now)
        };
        match due {
            Due::Nothing => {}
            Due::Launch(line) => {
                if typist::shell_ready(s, shell_started) == Readiness::Ready {
                    let _typing = s.meta.agent.typing.lock();
                    if let Ok(typed) = typist::input_steps(&line, &[]) {
                        let _ = typist::submit(s, typed, true);
                    }
                    if let Some(t) = s.meta.agent.track.lock().as_mut() {
                        t.command_typed(Instant::now());
                    }
                }
            }
            Due::Prompt => {
                let queued = s
                    .meta
                    .agent
                    .track
                    .lock()
                    .as_mut()
                    .and_then(Track::take_queued);
                if let Some((id, text)) = queued {
                    let _ = type_turn(s, &text, Some(id));
                }
            }
            Due::Return => {
                let _typing = s.meta.agent.typing.lock();
                if let Ok(enter) = keys::parse_key("Enter") {
                    let _ = s.send(vec![Step::Key(enter)], Duration::ZERO);
                    s.record(Entry::send(vec![Input::Keys("Enter".into())], false));
                }
            }
        }
    }
}

/// What a `send` to an agent did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// The turn the wait follows.
    pub turn: u64,
    /// The status sequence the wait starts after.
    pub seq: u64,
    /// The transcript, when known.
    pub transcript: Option<PathBuf>,
    /// Its line count before the text.
    pub cursor: Option<u64>,
}

/// Types a prompt into an agent (SC-02, SC-03): bracketed paste when the text spans lines or
/// the agent has mode 2004 on, else typed; then, after the agent's quiet gap, a Return in its
/// own write. `turn` is the queued turn being delivered; `None` makes a new turn.
///
/// Errors: `session_exited` when the program has ended.
fn type_turn(s: &Tracked, text: &str, turn: Option<u64>) -> Result<Sent, HostError> {
    let _typing = s.meta.agent.typing.lock();
    let (gap, path) = {
        let g = s.meta.agent.track.lock();
        let t = g.as_ref().ok_or_else(|| not_agent(s))?;
        if t.is_gone() {
            // The shell is in front again: typing would run the text as a command.
            return Err(HostError::new(
                ErrorCode::SessionExited,
                "the agent exited back to its shell; nothing was typed",
            ));
        }
        (
            Duration::from_millis(t.def().quiet_ms),
            t.transcript().map(Path::to_path_buf),
        )
    };
    let cursor = path.as_deref().map(transcript::line_count);
    let paste = text.contains('\n') || s.lock().emulator.modes().bracketed_paste;
    let input = if paste {
        Input::Paste(text.to_string())
    } else {
        Input::Text(text.to_string())
    };
    let step = if paste {
        Step::Paste(text.to_string())
    } else {
        Step::Text(text.to_string())
    };
    // Read before the input is written: a prompt typed at a hidden prompt is never journaled.
    let hidden = s.hidden_prompt();
    // The host holds any later input until the quiet gap after the prompt has passed;
    // waiting for that here reads the version with the prompt's echo in it.
    s.send_then_quiet(vec![step], gap, gap)?;
    s.wait_input_settled(gap + INPUT_PATIENCE);
    let version = s.lock().version;
    let enter = keys::parse_key("Enter")
        .map_err(|e| HostError::new(ErrorCode::InvalidRequest, e.to_string()))?;
    // The turn counts as delivered before its Return is written, so the fastest reaction to
    // it (a hook reporting `working` at once) is already the turn's.
    let sent = {
        let mut g = s.meta.agent.track.lock();
        let t = g.as_mut().ok_or_else(|| not_agent(s))?;
        let d = t.deliver(turn, text, cursor, version, Instant::now());
        Sent {
            turn: d.turn,
            seq: d.seq,
            transcript: t.transcript().map(Path::to_path_buf),
            cursor,
        }
    };
    s.send(vec![Step::Key(enter)], Duration::ZERO)?;
    s.record(Entry::send(
        vec![input, Input::Keys("Enter".into())],
        hidden,
    ));
    Ok(sent)
}

fn not_agent(s: &Tracked) -> HostError {
    HostError::new(
        ErrorCode::InvalidOperation,
        format!("session {} is not an agent session", s.id),
    )
}

/// `send` to an agent session: waits (≤ [`READY_MAX`]) for a queued spawn prompt to be
/// delivered unless the agent is asking something; then either answers the question (the
/// text and Return go to the dialog, the current turn continues; an option number answering
/// a numbered dialog goes alone, as the dialog acts on the digit) or types a new prompt
/// (`type_turn`). `keys`/no Return: typed as given, no new turn.
///
/// Errors: `session_exited`.
pub fn send(
    s: &Tracked,
    text: &str,
    typed: Typed,
    with_keys: bool,
    enter: bool,
) -> Result<Sent, HostError> {
    let until = Instant::now() + READY_MAX;
    loop {
        let waiting = s
            .meta
            .agent
            .track
            .lock()
            .as_ref()
            .is_some_and(Track::waiting_to_deliver);
        if !waiting || Instant::now() >= until || s.lock().state != State::Running {
            break;
        }
        std::thread::sleep(TICK);
    }
    let (asking, choice, choice_return, current, seq, path) = {
        let g = s.meta.agent.track.lock();
        let t = g.as_ref().ok_or_else(|| not_agent(s))?;
        // A question in the agent's last reply is answered by a new prompt (below); only a
        // question the agent holds its turn for (a dialog, a hook's) takes an answer.
        let asking = t.status() == Status::NeedsYou && !t.asks_in_reply();
        (
            asking,
            asking && t.choice_on_screen() && is_option_number(text),
            t.def().choice_return,
            t.current_turn(),
            t.seq(),
            t.transcript().map(Path::to_path_buf),
        )
    };
    let plain = !enter || text.is_empty() || with_keys;
    if asking || plain {
        let cursor = path.as_deref().map(transcript::line_count);
        // Marked before the answer is typed: the agent may act on it at once.
        let seq_after = {
            let mut g = s.meta.agent.track.lock();
            let t = g.as_mut().ok_or_else(|| not_agent(s))?;
            if asking {
                t.answer(Instant::now());
            }
            t.seq()
        };
        {
            let _typing = s.meta.agent.typing.lock();
            // A numbered dialog acts on the digit itself (Claude Code, Gemini CLI): a Return
            // after it would confirm whatever the agent shows next (its next dialog's
            // default, or an empty prompt). Codex's dialogs only move their pointer on a
            // digit (agents' `choice_return`): the Return confirms the chosen option.
            typist::submit(s, typed, enter && (!choice || choice_return))?;
        }
        return Ok(Sent {
            turn: current,
            seq: if asking { seq_after } else { seq },
            transcript: path,
            cursor,
        });
    }
    type_turn(s, text, None)
}

/// Whether `text` is one option number (`1`…`9`) of a numbered-choice dialog.
fn is_option_number(text: &str) -> bool {
    matches!(text.trim().as_bytes(), [b'1'..=b'9'])
}

/// One turn probe: blocks until turn `id` is decided (for a wait that started at `from_seq`)
/// or `budget` passes.
pub fn probe(s: &Tracked, id: u64, from_seq: u64, budget: Duration) -> TurnProbe {
    let end = Instant::now() + budget;
    loop {
        let running = s.lock().state == State::Running;
        let (outcome, message, view, range, start) = {
            let g = s.meta.agent.track.lock();
            match g.as_ref() {
                None => (
                    Outcome::Stalled,
                    Some("not an agent session".to_string()),
                    None,
                    None,
                    None,
                ),
                Some(t) => {
                    let (mut o, m) = t.outcome(id, from_seq, running);
                    if o == Outcome::NeedsYou && t.question_pending(Instant::now()) {
                        o = Outcome::Pending;
                    }
                    (
                        o,
                        m,
                        Some(existing(t.view())),
                        t.settled_range(id),
                        t.response_start(id, &Files),
                    )
                }
            }
        };
        if outcome != Outcome::Pending || Instant::now() >= end {
            let view = view.unwrap_or(View {
                agent: String::new(),
                status: termio_status(s),
                reason: String::new(),
                since: SystemTime::now(),
                prompt: None,
                transcript: None,
                cursor_end: None,
                seq: 0,
                settling: false,
            });
            return TurnProbe {
                target: link_of(s),
                title: title_of(s),
                outcome,
                status: view.status,
                reason: view.reason,
                prompt: (outcome == Outcome::NeedsYou)
                    .then_some(view.prompt)
                    .flatten(),
                transcript: view
                    .transcript
                    .as_ref()
                    .map(|p| p.to_string_lossy().into_owned()),
                // A settled turn's range (also when its reply asks: `needs-you`).
                cursor: match range {
                    Some(r) => Some(r.0),
                    None => start.filter(|_| view.transcript.is_some()),
                },
                cursor_end: range.map(|r| r.1),
                message,
            };
        }
        std::thread::sleep(TICK);
    }
}

/// A hook's report (`termio agent report`): `state` is `working|idle|done|needs-you|auto`
/// (`auto`: from `event` and the hook's stdin `input`, see
/// [`crate::termio::agents::auto_state`]). Also takes the transcript path (`transcript_path`),
/// the Stop hook's `last_assistant_message` (or Codex notify's `last-assistant-message`) for
/// the transcript catch-up (SC-14), `message` for `needs-you`, and a failed turn's error
/// (`StopFailure`'s `last_assistant_message`, else `error_details`, else `error`) for the reason. A session that is not an
/// agent session yet becomes one of kind `agent` (its status then from hooks only).
///
/// Errors: `bad_request` for an unknown state.
pub fn apply_report(
    s: &Tracked,
    state: &str,
    agent: &str,
    event: &str,
    input: &Value,
) -> Result<(), String> {
    let status = match state {
        "auto" => agents::auto_state(event, input),
        "working" => Some(Status::Working),
        "idle" => Some(Status::Idle),
        "done" => Some(Status::Done),
        "needs-you" => Some(Status::NeedsYou),
        other => return Err(format!("unknown state {other:?}")),
    };
    let text = |k: &str| {
        input
            .get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    // A failed turn (Claude's `StopFailure`) names its error: shown in the reason.
    let error = (event == "StopFailure")
        .then(|| {
            text("last_assistant_message")
                .or_else(|| text("error_details"))
                .or_else(|| text("error"))
        })
        .flatten();
    let report = Report {
        status,
        reason: match (event.is_empty(), error) {
            (true, _) => format!("hook report {state}"),
            (false, Some(e)) => format!("hook {event}: {e}"),
            (false, None) => format!("hook {event}"),
        },
        message: text("message"),
        transcript: text("transcript_path").map(PathBuf::from),
        // Gemini CLI's `AfterAgent` names its reply `prompt_response`.
        last_message: text("last_assistant_message")
            .or_else(|| text("last-assistant-message"))
            .or_else(|| text("prompt_response")),
    };
    let mut g = s.meta.agent.track.lock();
    let now = Instant::now();
    let t = g.get_or_insert_with(|| {
        let def = agents::Registry::load()
            .ok()
            .and_then(|r| r.get(agent).ok())
            .unwrap_or_else(|| AgentDef {
                name: agent.to_string(),
                command: agent.to_string(),
                ..AgentDef::default()
            });
        Track::adopted(def, s.meta.cwd().to_path_buf(), now, SystemTime::now())
    });
    t.report(report, now);
    Ok(())
}

/// The agent's own session id a hook's input carries: `session_id` (Claude Code, Codex and
/// Gemini CLI hooks), `thread-id` (Codex's `notify`), `conversation_id` (Cursor).
pub fn agent_session_id(input: &Value) -> Option<&str> {
    ["session_id", "thread-id", "conversation_id"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// The prompt a hook's input carries, whole: `prompt` (`UserPromptSubmit`), else the last of
/// `input-messages` (Codex's `notify`).
fn submitted_prompt(input: &Value) -> Option<&str> {
    input
        .get("prompt")
        .and_then(Value::as_str)
        .or_else(|| {
            input
                .get("input-messages")
                .and_then(Value::as_array)
                .and_then(|m| m.last())
                .and_then(Value::as_str)
        })
        .filter(|p| !p.trim().is_empty())
}

/// Which session a hook's report is for (issue: Codex runs every TUI's hooks and `notify` in
/// one app-server daemon, with the environment, so the `TERMIO_SESSION`, of whichever codex
/// started it). `named` is the session `TERMIO_SESSION` names, if any. Without an agent
/// session id in the input, the named session. With one (see [`agent_session_id`]), in order:
///
/// 1. the session that knows the id (learnt before, or its transcript file carries it);
/// 2. the session that typed the input's prompt, whole (preferring the named one, then one
///    that knows no id yet);
/// 3. the named session, unless it knows other ids already (the report is another thread's,
///    such as Codex's title helper); it learns the id unless another session of the same
///    agent in the same folder knows none yet either (ambiguous: the report still counts
///    there, the id is learnt later by its prompt);
/// 4. the one session of the agent in the input's `cwd` that knows no id yet.
///
/// `None`: the report is no session's (dropped).
pub fn route(
    all: &[Tracked],
    named: Option<Tracked>,
    agent: &str,
    input: &Value,
) -> Option<Tracked> {
    let Some(id) = agent_session_id(input) else {
        return named;
    };
    let with_track = |s: &Tracked, f: &mut dyn FnMut(&mut Track) -> bool| {
        s.meta.agent.track.lock().as_mut().is_some_and(f)
    };
    let learn = |s: &Tracked| {
        with_track(s, &mut |t| {
            t.learn(id);
            true
        });
    };
    // 1. Known.
    if let Some(s) = all.iter().find(|s| with_track(s, &mut |t| t.knows(id))) {
        return Some(s.clone());
    }
    // 2. Its prompt.
    if let Some(prompt) = submitted_prompt(input) {
        let typed: Vec<&Tracked> = all
            .iter()
            .filter(|s| with_track(s, &mut |t| t.typed_prompt(prompt)))
            .collect();
        let is_named = |s: &&Tracked| named.as_ref().is_some_and(|n| n.id == s.id);
        let pick = typed
            .iter()
            .find(|s| is_named(s))
            .or_else(|| {
                typed
                    .iter()
                    .find(|s| with_track(s, &mut |t| !t.knows_any()))
            })
            .or_else(|| typed.first());
        if let Some(s) = pick {
            learn(s);
            return Some((*s).clone());
        }
    }
    // Sessions of this agent in the input's folder that know no id yet.
    let cwd = input.get("cwd").and_then(Value::as_str).map(Path::new);
    let fresh: Vec<&Tracked> = all
        .iter()
        .filter(|s| {
            with_track(s, &mut |t| t.def().name == agent && !t.knows_any())
                && cwd.is_none_or(|c| c == s.meta.cwd())
        })
        .collect();
    // 3. The named session.
    if let Some(n) = named {
        let other_thread = with_track(&n, &mut |t| t.knows_any());
        if !other_thread {
            if !fresh.iter().any(|s| s.id != n.id) {
                learn(&n);
            }
            return Some(n);
        }
    }
    // 4. The one fresh session.
    match fresh.as_slice() {
        [one] => {
            learn(one);
            Some((*one).clone())
        }
        _ => None,
    }
}
