//! Agent sessions on the host (shared/spec/termio-sessions.md, "Live agent status", "Waiting
//! for the outcome"; shared/notes/agents.md; cases SC-02, SC-03, SC-13, SC-14): the status
//! machine of one agent session ([`Track`]), its monitor thread (which also types the agent's
//! command and the spawn's queued prompt), prompt delivery (`type_turn`, `send`) and the turn
//! outcomes `--wait` reads ([`TurnProbe`]).
//!
//! # Status
//!
//! Sources, most trusted first: hook reports (`termio agent report`, [`apply_report`]), OSC
//! 7501 reports parsed from the PTY, OSC 9;4 progress (shown: working; removed after working:
//! done), the agent's title rules, its screen rules. The status is
//! the state of the most trusted source that has said anything; on top of it a numbered-choice
//! dialog on screen (a trust or permission question, [`crate::termio::agents::dialog_question`])
//! makes it `needs-you`, and the agent leaving the PTY's foreground process group (the shell is
//! back in front) makes it `exited` ("agent gone"; a closed session is `exited` too, but the
//! session is gone from `list`). Every change bumps a sequence number and records `reason` and
//! `since`; `needs-you` carries the on-screen question (else the source's message).
//!
//! # Turns
//!
//! A turn is one prompt: spawn's queued prompt, or a `send` to an agent that is not asking
//! anything (a `send` to a `needs-you` agent answers the current turn instead). A turn has had
//! an effect once the status moved after its Return (for an agent with no status signal at
//! all: once the screen changed); none within [`STALL`] is `prompt_stalled`. It settles once
//! it was seen `working` and rested off it (`done`/`idle`; held [`REST_HOLD`] unless a hook said
//! so) and the transcript caught up: it contains the Stop hook's `last_assistant_message`, or
//! (without one) an assistant line and no growth for 300 ms, or no growth for [`CATCH_UP`]
//! (bounded at [`CATCH_UP_MAX`], SC-14), always after the turn's own prompt line (found by its
//! last line, whole). The turn's range starts just past that prompt line (so a prompt the agent
//! queued behind another turn does not get that turn's reply) and ends at the line count then;
//! older turns still open are settled with their own ranges at the same time. Without a hook
//! naming it, a session's transcript is the file holding a prompt it delivered, claimed for it
//! host-wide.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use regex::Regex;
use serde_json::Value;

use crate::host::journal::Entry;
use crate::host::protocol::{ErrorCode, HostError};
use crate::host::session::State;
use crate::term::keys::{self, Input, Step};
use crate::termio::agents::{self, AgentDef};
use crate::termio::reply::Status;
use crate::termio::tracked::{link_of, termio_status, title_of, Tracked};
use crate::termio::transcript;
use crate::termio::typist::{self, Readiness, Typed};
use crate::termio::wire::{Outcome, TurnProbe};

/// How often the monitor looks at an agent session.
pub const TICK: Duration = Duration::from_millis(50);

/// A delivered prompt with no effect this long is `prompt_stalled`.
pub const STALL: Duration = Duration::from_secs(5);

/// A rest seen by an in-band source (OSC, title, screen) must hold this long to count.
pub const REST_HOLD: Duration = Duration::from_millis(300);

/// The screen must be this still before the queued prompt is typed.
pub const READY_QUIET: Duration = Duration::from_millis(300);

/// Without a readiness rule, this much stillness means the agent is ready.
pub const READY_QUIET_FALLBACK: Duration = Duration::from_secs(1);

/// A queued prompt still undelivered this long after the agent started is `prompt_stalled`
/// (unless the agent is asking something: a dialog waits for its answer).
pub const READY_MAX: Duration = Duration::from_secs(60);

/// The agent command must take the terminal within this long, else the agent is gone.
pub const LAUNCH_MAX: Duration = Duration::from_secs(10);

/// Transcript catch-up: no growth this long ends it.
pub const CATCH_UP: Duration = Duration::from_secs(1);

/// Transcript catch-up: never longer than this after the rest.
pub const CATCH_UP_MAX: Duration = Duration::from_secs(5);

/// An answered dialog still on screen this long is a new question (the answer was eaten).
const ANSWER_GRACE: Duration = Duration::from_secs(2);

/// Plain-terminal-style settling for agents with no status signal: screen still this long.
const SETTLE_QUIET: Duration = Duration::from_millis(1500);

/// What `list` and `watch` show of an agent session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The agent's name.
    pub agent: String,
    /// The status now.
    pub status: Status,
    /// Why the status last changed: `hook <Event>`, `osc 7501 state=<s>`, `title rule <re>`,
    /// `screen rule <re>`, `dialog on screen`, `answered`, `agent exited back to its shell`, ….
    pub reason: String,
    /// When it last changed.
    pub since: SystemTime,
    /// `needs-you`: the question.
    pub prompt: Option<String>,
    /// The transcript file, when known.
    pub transcript: Option<PathBuf>,
    /// The transcript's line count when the last turn settled.
    pub cursor_end: Option<u64>,
    /// Bumped on every status change (a watcher's cheap change test).
    pub seq: u64,
    /// A delivered turn has not settled yet (its transcript may still be catching up, SC-14):
    /// `cursor_end` is the previous turn's until it settles.
    pub settling: bool,
}

/// One status source's last word.
#[derive(Debug, Clone)]
struct Said {
    status: Status,
    reason: String,
    message: Option<String>,
    /// When the source last changed its word (hooks: last reported).
    at: Instant,
}

/// One prompt's turn.
#[derive(Debug, Clone)]
struct Turn {
    id: u64,
    /// When its Return was written.
    delivered: Option<Instant>,
    /// Transcript lines when it was submitted (`None`: transcript unknown then).
    cursor: Option<u64>,
    seq_at_delivery: u64,
    version_at_delivery: u64,
    seen_working: bool,
    rested_at: Option<Instant>,
    rest_by_hook: bool,
    last_message: Option<String>,
    growth: Option<(u64, Instant)>,
    stalled: Option<String>,
    settled: Option<(u64, u64)>,
    /// The text delivered (its prompt line in the transcript marks where its response starts,
    /// and identifies the session's transcript when no hook names it).
    text: String,
}

/// Where the monitor is with starting the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Launch {
    /// Waiting for the shell's prompt.
    Shell,
    /// The command was typed at this time; waiting for it to take the terminal.
    Typed(Instant),
    /// The agent holds the terminal (since then).
    Running(Instant),
    /// Adopted: a session whose agent was not started by termio (hooks only).
    Adopted,
}

/// The status machine of one agent session.
#[derive(Debug)]
pub struct Track {
    def: AgentDef,
    ready: Option<Regex>,
    title_rules: Vec<(Regex, Status)>,
    screen_rules: Vec<(Regex, Status)>,
    started: SystemTime,
    cwd: PathBuf,
    status: Status,
    reason: String,
    since: SystemTime,
    seq: u64,
    hook: Option<Said>,
    osc: Option<Said>,
    osc_count: u64,
    progress: Option<Said>,
    progress_count: u64,
    title: Option<Said>,
    screen: Option<Said>,
    screen_question: Option<String>,
    dialog: Option<String>,
    /// When an answer was typed into a `needs-you` agent: until the most trusted source says
    /// something else afterwards, its `needs-you` is the answered question.
    answered: Option<Instant>,
    /// The dialog an answer was typed into (`None` inside: whatever dialog shows first, as
    /// the answer may have come before the dialog was seen), and when.
    answered_dialog: Option<(Option<String>, Instant)>,
    launch: Launch,
    gone: bool,
    closed: bool,
    transcript: Option<PathBuf>,
    last_settled_end: Option<u64>,
    /// When a turn last settled.
    settled_at: Option<SystemTime>,
    next_turn: u64,
    turns: Vec<Turn>,
    queued: Option<(u64, String)>,
    last_search: Option<Instant>,
    /// The last few `needs-you` changes: (status sequence, question), for watchers that
    /// sample less often than a question can be answered ([`Slot::asked_since`]).
    asked: std::collections::VecDeque<(u64, Option<String>)>,
}

/// The agent part of a session's termio metadata: `None` for plain terminals.
#[derive(Debug, Default)]
pub struct Slot {
    track: parking_lot::Mutex<Option<Track>>,
    /// Held while typing, so the monitor and a `send` never interleave their input.
    typing: parking_lot::Mutex<()>,
}

fn compile(rules: &[agents::Rule]) -> Vec<(Regex, Status)> {
    rules
        .iter()
        .filter_map(|r| Regex::new(&r.pattern).ok().map(|re| (re, r.state)))
        .collect()
}

impl Track {
    /// A new track for `def` working in `cwd`.
    fn new(def: AgentDef, cwd: PathBuf, launch: Launch) -> Track {
        let now = SystemTime::now();
        Track {
            ready: def.ready.as_deref().and_then(|r| Regex::new(r).ok()),
            title_rules: compile(&def.title_rules),
            screen_rules: compile(&def.screen_rules),
            def,
            started: now,
            cwd,
            status: Status::Idle,
            reason: "starting".into(),
            since: now,
            seq: 0,
            hook: None,
            osc: None,
            osc_count: 0,
            progress: None,
            progress_count: 0,
            title: None,
            screen: None,
            screen_question: None,
            dialog: None,
            answered: None,
            answered_dialog: None,
            launch,
            gone: false,
            closed: false,
            transcript: None,
            last_settled_end: None,
            settled_at: None,
            next_turn: 1,
            turns: Vec::new(),
            queued: None,
            last_search: None,
            asked: std::collections::VecDeque::new(),
        }
    }

    fn no_signal(&self) -> bool {
        self.hook.is_none()
            && self.osc.is_none()
            && self.progress.is_none()
            && self.title.is_none()
            && self.screen.is_none()
    }

    /// Recomputes the status from the sources; bumps `seq` on a change.
    fn recompute(&mut self) {
        let (status, reason) = if self.closed {
            (Status::Exited, "session closed".to_string())
        } else if self.gone {
            (Status::Exited, self.gone_reason())
        } else if self.dialog.is_some() {
            (Status::NeedsYou, "dialog on screen".to_string())
        } else {
            let base = [
                &self.hook,
                &self.osc,
                &self.progress,
                &self.title,
                &self.screen,
            ]
            .into_iter()
            .flatten()
            .next();
            if let (Some(a), Some(b)) = (self.answered, base) {
                if b.at > a && b.status != Status::NeedsYou {
                    self.answered = None;
                }
            }
            match base {
                Some(s) if s.status == Status::NeedsYou && self.answered.is_some() => {
                    (Status::Working, "answered".to_string())
                }
                Some(s) => (s.status, s.reason.clone()),
                None if self.queued.is_some() => {
                    (Status::Idle, "starting; prompt queued".to_string())
                }
                None => (Status::Idle, self.reason_if_unchanged("starting")),
            }
        };
        if status != self.status {
            self.status = status;
            self.reason = reason;
            self.since = SystemTime::now();
            self.seq += 1;
            if status == Status::NeedsYou {
                let question = self.question();
                self.asked.push_back((self.seq, question));
                if self.asked.len() > 16 {
                    self.asked.pop_front();
                }
            }
        } else if self.reason.starts_with("starting") {
            // The first word of a source that agrees with the initial status explains it.
            self.reason = reason;
        }
        // The question shown may come after the status (a hook says needs-you before the
        // dialog is drawn): the record of this question keeps the latest one seen.
        if self.status == Status::NeedsYou {
            let (seq, question) = (self.seq, self.question());
            if let Some(last) = self.asked.back_mut().filter(|a| a.0 == seq) {
                if question.is_some() {
                    last.1 = question;
                }
            }
        }
        let now = Instant::now();
        let by_hook = self.hook.is_some() && self.dialog.is_none();
        if let Some(t) = self.current_turn_mut() {
            match status {
                Status::Working => {
                    t.seen_working = true;
                    t.rested_at = None;
                }
                Status::Done | Status::Idle if t.seen_working => {
                    t.rested_at.get_or_insert(now);
                    t.rest_by_hook = by_hook;
                }
                _ => t.rested_at = None,
            }
        }
    }

    fn gone_reason(&self) -> String {
        match self.launch {
            Launch::Typed(_) => format!(
                "agent gone: {:?} never took the terminal within {} s (not installed?)",
                self.def.command,
                LAUNCH_MAX.as_secs()
            ),
            _ => "agent exited back to its shell".into(),
        }
    }

    fn reason_if_unchanged(&self, default: &str) -> String {
        if self.seq == 0 {
            default.into()
        } else {
            self.reason.clone()
        }
    }

    fn current_turn_mut(&mut self) -> Option<&mut Turn> {
        self.turns
            .iter_mut()
            .rev()
            .find(|t| t.delivered.is_some() && t.settled.is_none() && t.stalled.is_none())
    }

    /// Sets one source's word; returns whether its state changed. (A changed word other than
    /// `needs-you` clears an answer's override: the agent has moved on.)
    fn say(slot: &mut Option<Said>, said: Option<Said>) -> bool {
        let changed = match (&*slot, &said) {
            (Some(a), Some(b)) => a.status != b.status,
            (None, None) => false,
            _ => true,
        };
        if changed {
            *slot = said;
        } else if let (Some(a), Some(b)) = (slot.as_mut(), said) {
            a.message = b.message.or(a.message.take());
        }
        changed
    }

    /// The needs-you question: the on-screen question, else the source's message.
    fn question(&self) -> Option<String> {
        if self.status != Status::NeedsYou {
            return None;
        }
        let message = [&self.hook, &self.osc]
            .into_iter()
            .flatten()
            .find(|s| s.status == Status::NeedsYou)
            .and_then(|s| s.message.clone());
        self.dialog
            .clone()
            .or_else(|| self.screen_question.clone())
            .or(message)
            .or_else(|| Some("the agent is waiting for an answer".into()))
    }

    /// What `list` shows.
    ///
    /// A turn that has rested but whose response is not in the transcript yet still shows as
    /// `working` ("turn ending"), so that a `done` (in `list` and `watch`) always comes with the
    /// turn's `cursor_end`.
    pub fn view(&self) -> View {
        let ending = matches!(self.status, Status::Done | Status::Idle)
            && self.turns.iter().any(|t| {
                t.delivered.is_some()
                    && t.seen_working
                    && t.settled.is_none()
                    && t.stalled.is_none()
            });
        let (status, reason, since) = if ending {
            (
                Status::Working,
                "turn ending: waiting for the transcript to catch up".to_string(),
                self.since,
            )
        } else {
            let since = match self.settled_at {
                Some(at) if matches!(self.status, Status::Done | Status::Idle) => {
                    at.max(self.since)
                }
                _ => self.since,
            };
            (self.status, self.reason.clone(), since)
        };
        View {
            agent: self.def.name.clone(),
            status,
            reason,
            since,
            prompt: self.question(),
            transcript: self.transcript.clone(),
            cursor_end: self.last_settled_end,
            seq: self.seq,
            settling: self
                .turns
                .iter()
                .any(|t| t.delivered.is_some() && t.settled.is_none() && t.stalled.is_none()),
        }
    }

    /// The definition.
    pub fn def(&self) -> &AgentDef {
        &self.def
    }

    /// Applies what the monitor saw on screen (`text`), in the title and in OSC 7501.
    fn observe(&mut self, seen: &Seen) {
        let now = Instant::now();
        // OSC 7501.
        if let Some((count, ps)) = &seen.osc {
            if *count != self.osc_count {
                let jumped = count - self.osc_count >= 2;
                self.osc_count = *count;
                let status = match ps.state.as_str() {
                    "working" => Some(Status::Working),
                    "blocked" => Some(Status::NeedsYou),
                    "done" | "error" => Some(Status::Done),
                    "idle" => Some(Status::Idle),
                    _ => None,
                };
                if let Some(status) = status {
                    let said = Said {
                        status,
                        reason: format!("osc 7501 state={}", ps.state),
                        message: ps.message.clone(),
                        at: Instant::now(),
                    };
                    Track::say(&mut self.osc, Some(said));
                    // Several reports between two looks, ending at rest: the turn went
                    // through `working` in between.
                    if jumped && matches!(status, Status::Done | Status::Idle) {
                        if let Some(t) = self.current_turn_mut() {
                            t.seen_working = true;
                        }
                    }
                }
            }
        }
        // OSC 9;4 progress: shown while working; removed (or an error) after it, the turn
        // rested.
        if let Some((count, state)) = seen.progress {
            if count != self.progress_count {
                let jumped = count - self.progress_count >= 2;
                self.progress_count = count;
                let was_working = self
                    .progress
                    .as_ref()
                    .is_some_and(|p| p.status == Status::Working);
                let status = match state {
                    1 | 3 | 4 => Some(Status::Working),
                    0 | 2 if was_working || jumped => Some(Status::Done),
                    _ => None,
                };
                if let Some(status) = status {
                    let said = Said {
                        status,
                        reason: format!("osc 9;4 progress state {state}"),
                        message: None,
                        at: Instant::now(),
                    };
                    Track::say(&mut self.progress, Some(said));
                    if jumped && status == Status::Done {
                        if let Some(t) = self.current_turn_mut() {
                            t.seen_working = true;
                        }
                    }
                }
            }
        }
        // Title rules.
        if !self.title_rules.is_empty() {
            let title = seen.title.as_deref().unwrap_or("");
            let hit = self.title_rules.iter().find(|(re, _)| re.is_match(title));
            let said = match hit {
                Some((re, st)) => Some(Said {
                    status: *st,
                    reason: format!("title rule {}", re.as_str()),
                    message: None,
                    at: Instant::now(),
                }),
                // No rule matches: after `working`, the turn rested.
                None => match &self.title {
                    Some(s) if s.status == Status::Working => Some(Said {
                        status: Status::Done,
                        reason: "title no longer working".into(),
                        message: None,
                        at: Instant::now(),
                    }),
                    other => other.clone(),
                },
            };
            Track::say(&mut self.title, said);
        }
        // Screen rules and dialogs.
        if let Some(text) = &seen.text {
            if !self.screen_rules.is_empty() {
                let hit = self.screen_rules.iter().find(|(re, _)| re.is_match(text));
                let said = hit.map(|(re, st)| Said {
                    status: *st,
                    reason: format!("screen rule {}", re.as_str()),
                    message: None,
                    at: Instant::now(),
                });
                let said = said.or_else(|| self.screen.clone());
                Track::say(&mut self.screen, said);
            }
            self.screen_question = agents::dialog_question(text);
            self.dialog = if self.def.dialogs {
                self.screen_question.clone()
            } else {
                None
            };
            // The answered dialog may stay on screen a moment (the agent has not read the
            // answer yet): not a new question unless it outstays the grace.
            if let Some((q, at)) = self.answered_dialog.take() {
                let fresh = now.duration_since(at) < ANSWER_GRACE;
                match (q, self.dialog.clone()) {
                    (_, None) if fresh => self.answered_dialog = Some((None, at)),
                    (q, Some(d)) if fresh && q.as_ref().is_none_or(|q| *q == d) => {
                        self.dialog = None;
                        self.answered_dialog = Some((Some(d), at));
                    }
                    _ => {}
                }
            }
        }
        self.recompute();
    }

    /// Looks for the transcript file (at most once a second) when no hook named it.
    fn find_transcript(&mut self) {
        if self.transcript.is_some() {
            return;
        }
        let Some(pattern) = self.def.transcript.clone() else {
            return;
        };
        let now = Instant::now();
        if self
            .last_search
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1))
        {
            return;
        }
        self.last_search = Some(now);
        // Without a hook naming it, the session's transcript is the file (of those written
        // since it started) holding a prompt it delivered: several agents of one kind started
        // together each find their own. Before any delivery there is no telling; a file
        // that never shows a delivered prompt is taken, newest first, after [`BIND_GRACE`].
        let delivered: Vec<(&str, Instant)> = self
            .turns
            .iter()
            .filter_map(|t| Some((needle(&t.text)?, t.delivered?)))
            .collect();
        let Some(first) = delivered.iter().map(|d| d.1).min() else {
            return;
        };
        let full = agents::expand_pattern(&pattern, &self.cwd);
        let files = agents::find_files(&full, self.started);
        let holds_ours = |p: &PathBuf| {
            let lines = transcript::lines(p, 0, transcript::line_count(p));
            lines.iter().any(|l| {
                delivered
                    .iter()
                    .any(|(n, _)| transcript::is_prompt_for(l, n))
            })
        };
        let mut claimed = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
        let free: Vec<&PathBuf> = files.iter().filter(|p| !claimed.contains(p)).collect();
        let pick = free
            .iter()
            .find(|p| holds_ours(p))
            .map(|p| (*p).clone())
            .or_else(|| {
                (now.duration_since(first) >= BIND_GRACE)
                    .then(|| free.first().map(|p| (*p).clone()))
                    .flatten()
            });
        if let Some(p) = &pick {
            claimed.push(p.clone());
        }
        self.transcript = pick;
    }

    /// Advances the current turn: stall check, transcript catch-up, settlement.
    fn advance_turn(&mut self, version: u64, quiet: Duration) {
        let now = Instant::now();
        let no_signal = self.no_signal();
        let seq = self.seq;
        let path = self.transcript.clone();
        let last_end = self.last_settled_end;
        let status = self.status;
        let Some(t) = self.current_turn_mut() else {
            return;
        };
        let Some(at) = t.delivered else { return };
        // A turn faster than the status sampling (done → done) still leaves its lines in the
        // transcript: growth past the delivery counts as the prompt's effect.
        // (Its own prompt line among them: a late line of the turn before is not its effect.)
        let grew = !t.seen_working
            && seq == t.seq_at_delivery
            && path.as_deref().is_some_and(|p| {
                let from = t.cursor.or(last_end).unwrap_or(0);
                let n = needle(&t.text);
                transcript::lines(p, from, transcript::line_count(p))
                    .iter()
                    .any(|l| n.is_none_or(|n| transcript::is_prompt_for(l, n)))
            });
        let effect = t.seen_working
            || seq > t.seq_at_delivery
            || grew
            || no_signal && version > t.version_at_delivery;
        if !effect {
            if now.duration_since(at) >= STALL {
                let why = format!(
                    "the prompt had no effect within {} s (no status move{})",
                    STALL.as_secs(),
                    if no_signal { ", no screen change" } else { "" }
                );
                t.stalled = Some(why.clone());
                // The status did not move; its explanation says why nothing happens.
                self.reason = format!("prompt stalled: {why}");
            }
            return;
        }
        if status == Status::Working {
            // Still (or again) working, e.g. on a prompt queued behind the previous turn.
            return;
        }
        let resting = matches!(status, Status::Done | Status::Idle);
        let rested = match t.rested_at {
            Some(r) if t.rest_by_hook || now.duration_since(r) >= REST_HOLD => Some(r),
            Some(_) => None,
            // Never seen working (a turn faster than sampling) but back at rest and quiet.
            None if (no_signal || !t.seen_working && resting) && quiet >= SETTLE_QUIET => {
                Some(now - quiet)
            }
            None => None,
        };
        let Some(rested) = rested else { return };
        let start = t.cursor.or(last_end).unwrap_or(0);
        let Some(path) = path else {
            if now.duration_since(rested) >= CATCH_UP {
                t.settled = Some((start, start));
                // No transcript: an empty range is meaningless; settle without one.
                t.cursor = None;
                self.settled_at = Some(SystemTime::now());
            }
            return;
        };
        let count = transcript::line_count(&path);
        let grown = match t.growth {
            Some((c, at)) if c == count => at,
            _ => {
                t.growth = Some((count, now));
                now
            }
        };
        let lines = transcript::lines(&path, start, count);
        // The response starts after this turn's own prompt line (a turn queued behind another
        // has that turn's reply first); it is caught up once the reply is after that line.
        let needle = needle(&t.text);
        let own = needle.and_then(|n| lines.iter().rposition(|l| transcript::is_prompt_for(l, n)));
        let after = &lines[own.map_or(0, |i| i + 1)..];
        let caught_up = match &t.last_message {
            Some(m) => after.iter().any(|l| transcript::contains_text(l, m)),
            None => {
                after.iter().any(|l| transcript::is_assistant_line(l))
                    && now.duration_since(grown) >= Duration::from_millis(300)
            }
        };
        // Settling on a still transcript needs the turn's own prompt in it (when the agent
        // writes prompts there at all: some line is a prompt line).
        let placed = own.is_some()
            || needle.is_none()
            || !lines.iter().any(|l| transcript::is_prompt_line(l));
        let caught_up = placed && caught_up;
        let still = placed && now.duration_since(grown.max(rested)) >= CATCH_UP;
        if caught_up || still || now.duration_since(rested) >= CATCH_UP_MAX {
            let skip = match own {
                Some(i) => i as u64 + 1,
                None => lines
                    .iter()
                    .take_while(|l| transcript::is_prompt_line(l))
                    .count() as u64,
            };
            t.settled = Some((start + skip, count));
            // Older turns still open (this prompt was queued behind them) are settled too: each
            // from past its own prompt line to the next prompt line (else to this turn's
            // prompt line), releasing their waiters and the `turn ending` view.
            let (id, before) = (t.id, start + own.map_or(skip, |i| i as u64));
            for x in self.turns.iter_mut().filter(|x| {
                x.id < id && x.delivered.is_some() && x.settled.is_none() && x.stalled.is_none()
            }) {
                let from = x.cursor.unwrap_or(before).min(before);
                let mine = transcript::lines(&path, from, before);
                let range = self::needle(&x.text)
                    .and_then(|n| mine.iter().position(|l| transcript::is_prompt_for(l, n)))
                    .map(|i| {
                        let end = mine[i + 1..]
                            .iter()
                            .position(|l| transcript::is_prompt_line(l))
                            .map_or(mine.len(), |j| i + 1 + j);
                        (from + i as u64 + 1, from + end as u64)
                    });
                x.settled = Some(range.unwrap_or((from, before)));
            }
            self.last_settled_end = Some(count);
            self.settled_at = Some(SystemTime::now());
        }
    }

    /// The outcome of turn `id` for a wait that started at status sequence `from_seq`.
    fn outcome(&self, id: u64, from_seq: u64, running: bool) -> (Outcome, Option<String>) {
        if !running || self.closed {
            return (
                Outcome::Closed,
                Some("the session ended during the wait".into()),
            );
        }
        if self.gone {
            return (
                Outcome::AgentGone,
                Some("the agent exited back to its shell during the wait".into()),
            );
        }
        if self.status == Status::NeedsYou && self.seq > from_seq {
            return (Outcome::NeedsYou, None);
        }
        let Some(t) = self.turns.iter().find(|t| t.id == id) else {
            return (Outcome::Stalled, Some(format!("no turn {id}")));
        };
        if let Some(m) = &t.stalled {
            return (Outcome::Stalled, Some(m.clone()));
        }
        if t.settled.is_some() {
            return (Outcome::Settled, None);
        }
        (Outcome::Pending, None)
    }
}

impl Slot {
    /// Whether the session is an agent session.
    pub fn is_agent(&self) -> bool {
        self.track.lock().is_some()
    }

    /// What `list` shows, for agent sessions.
    pub fn view(&self) -> Option<View> {
        self.track.lock().as_ref().map(Track::view)
    }

    /// The agent's definition, for agent sessions.
    pub fn def(&self) -> Option<AgentDef> {
        self.track.lock().as_ref().map(|t| t.def.clone())
    }

    /// The `needs-you` changes after status sequence `seq` (oldest first, with their
    /// questions) and the sequence now: how a watcher sampling every 100 ms still reports a
    /// question that was answered in between. Empty for plain terminals.
    pub fn asked_since(&self, seq: u64) -> (u64, Vec<(u64, Option<String>)>) {
        match self.track.lock().as_ref() {
            Some(t) => (
                t.seq,
                t.asked.iter().filter(|(s, _)| *s > seq).cloned().collect(),
            ),
            None => (seq, Vec::new()),
        }
    }

    /// Marks the session closed (`close`): waits end with `session_closed`.
    pub fn mark_closed(&self) {
        if let Some(t) = self.track.lock().as_mut() {
            t.closed = true;
            t.recompute();
        }
    }
}

/// What the monitor read from the session in one look.
struct Seen {
    text: Option<String>,
    title: Option<String>,
    osc: Option<(u64, crate::term::sniff::ProgramStatus)>,
    progress: Option<(u64, u8)>,
}

/// Makes `s` an agent session running `def` with `prompt` queued (turn 1), and starts its
/// monitor: it types the agent's command once the shell is ready, then the prompt once the
/// agent is ready (SC-01, SC-13), and keeps the status.
///
/// Errors: `start_failed` when the monitor thread cannot start.
pub fn start(s: &Tracked, def: AgentDef, prompt: String) -> Result<u64, String> {
    let mut track = Track::new(def, s.meta.cwd().to_path_buf(), Launch::Shell);
    let id = track.next_turn;
    track.next_turn += 1;
    track.turns.push(Turn::new(id));
    track.queued = Some((id, prompt));
    track.recompute();
    *s.meta.agent.track.lock() = Some(track);
    let worker = s.clone();
    std::thread::Builder::new()
        .name("termio-agent".into())
        .spawn(move || monitor(&worker))
        .map_err(|e| e.to_string())?;
    Ok(id)
}

impl Turn {
    fn new(id: u64) -> Turn {
        Turn {
            text: String::new(),
            id,
            delivered: None,
            cursor: None,
            seq_at_delivery: 0,
            version_at_delivery: 0,
            seen_working: false,
            rested_at: None,
            rest_by_hook: false,
            last_message: None,
            growth: None,
            stalled: None,
            settled: None,
        }
    }
}

/// The monitor of an agent session: every [`TICK`] (or screen change), reads the screen,
/// title, OSC 7501 reports and the foreground process group, updates the status, types what is
/// due, advances the current turn. Ends with the session.
fn monitor(s: &Tracked) {
    let shell_started = Instant::now();
    let mut seen_version = 0u64;
    let mut last_text = String::new();
    loop {
        let from = seen_version;
        s.wait_until(Instant::now() + TICK, |g| {
            g.version != from || g.state != State::Running
        });
        let (running, version, quiet, text, title, osc, progress) = {
            let g = s.lock();
            let quiet = SystemTime::now()
                .duration_since(g.updated_at)
                .unwrap_or_default();
            let text = (g.version != seen_version).then(|| g.emulator.snapshot().text());
            let osc = g
                .emulator
                .program_status()
                .map(|p| (g.emulator.status_reports(), p.clone()));
            (
                g.state == State::Running,
                g.version,
                quiet,
                text,
                g.emulator.title().map(str::to_string),
                osc,
                g.emulator.progress(),
            )
        };
        if let Some(t) = &text {
            last_text.clone_from(t);
        }
        seen_version = version;
        let fg = s.foreground_group();
        let agent_front = fg.is_some_and(|g| g > 0 && g as u32 != s.pid);
        let mut todo = Todo::Nothing;
        {
            let mut guard = s.meta.agent.track.lock();
            let Some(t) = guard.as_mut() else { return };
            if !running {
                t.closed = true;
                t.recompute();
                return;
            }
            let now = Instant::now();
            match t.launch {
                Launch::Typed(_) if agent_front => t.launch = Launch::Running(now),
                Launch::Typed(at) if now.duration_since(at) >= LAUNCH_MAX && !t.gone => {
                    t.gone = true;
                }
                Launch::Running(_) if !agent_front && !t.gone => t.gone = true,
                _ => {}
            }
            t.observe(&Seen {
                text,
                title,
                osc,
                progress,
            });
            t.find_transcript();
            t.advance_turn(version, quiet);
            match t.launch {
                Launch::Shell => todo = Todo::Launch(t.def.command_line()),
                Launch::Running(since) if t.queued.is_some() && !t.gone => {
                    let ready_screen = match &t.ready {
                        Some(re) => re.is_match(&last_text),
                        None => quiet >= READY_QUIET_FALLBACK,
                    };
                    if t.dialog.is_none()
                        && t.status != Status::NeedsYou
                        && ready_screen
                        && quiet >= READY_QUIET
                    {
                        todo = Todo::Prompt;
                    } else if now.duration_since(since) >= READY_MAX && t.status != Status::NeedsYou
                    {
                        if let Some((id, _)) = t.queued.take() {
                            if let Some(turn) = t.turns.iter_mut().find(|x| x.id == id) {
                                turn.stalled = Some(format!(
                                    "the agent never showed its prompt box within {} s",
                                    READY_MAX.as_secs()
                                ));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        match todo {
            Todo::Nothing => {}
            Todo::Launch(line) => match typist::shell_ready(s, shell_started) {
                Readiness::NotYet => {}
                Readiness::Gone => {}
                Readiness::Ready => {
                    let _typing = s.meta.agent.typing.lock();
                    if let Ok(typed) = typist::input_steps(&line, &[]) {
                        let _ = typist::submit(s, typed, true);
                    }
                    if let Some(t) = s.meta.agent.track.lock().as_mut() {
                        t.launch = Launch::Typed(Instant::now());
                    }
                }
            },
            Todo::Prompt => {
                let queued = s
                    .meta
                    .agent
                    .track
                    .lock()
                    .as_mut()
                    .and_then(|t| t.queued.take());
                if let Some((id, text)) = queued {
                    let _ = type_turn(s, &text, Some(id));
                }
            }
        }
    }
}

enum Todo {
    Nothing,
    Launch(String),
    Prompt,
}

/// How long after its first delivery a session without a hook-named transcript takes the
/// newest candidate file when none holds one of its prompts.
const BIND_GRACE: Duration = Duration::from_secs(10);

/// The part of a delivered text to look for in a transcript: its last non-empty line,
/// trimmed (an envelope before it does not matter), matched whole by
/// [`transcript::is_prompt_for`].
fn needle(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|l| !l.is_empty())
}

/// Transcript files bound by a search (not named by a hook), host-wide: a file is one
/// session's, so agents of one kind given the same prompt at once each get their own.
static CLAIMED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

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
        if t.gone {
            // The shell is in front again: typing would run the text as a command.
            return Err(HostError::new(
                ErrorCode::SessionExited,
                "the agent exited back to its shell; nothing was typed",
            ));
        }
        (Duration::from_millis(t.def.quiet_ms), t.transcript.clone())
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
    s.send(vec![step])?;
    std::thread::sleep(gap);
    let version = s.lock().version;
    let enter = keys::parse_key("Enter")
        .map_err(|e| HostError::new(ErrorCode::InvalidRequest, e.to_string()))?;
    // The turn counts as delivered before its Return is written, so the fastest reaction to
    // it (a hook reporting `working` at once) is already the turn's.
    let sent = {
        let mut g = s.meta.agent.track.lock();
        let t = g.as_mut().ok_or_else(|| not_agent(s))?;
        let id = match turn {
            Some(id) => id,
            None => {
                let id = t.next_turn;
                t.next_turn += 1;
                t.turns.push(Turn::new(id));
                id
            }
        };
        let seq = t.seq;
        if let Some(x) = t.turns.iter_mut().find(|x| x.id == id) {
            x.delivered = Some(Instant::now());
            x.cursor = cursor;
            x.seq_at_delivery = seq;
            x.version_at_delivery = version;
            x.text = text.to_string();
        }
        // Keep the last few turns only.
        let keep = t.turns.len().saturating_sub(8);
        t.turns.drain(..keep);
        Sent {
            turn: id,
            seq,
            transcript: t.transcript.clone(),
            cursor,
        }
    };
    s.send(vec![Step::Key(enter)])?;
    s.record(Entry::Send {
        inputs: vec![input, Input::Keys("Enter".into())],
    });
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
/// text and Return go to the dialog, the current turn continues) or types a new prompt
/// ([`type_turn`]). `keys`/no Return: typed as given, no new turn.
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
        let waiting = {
            let g = s.meta.agent.track.lock();
            g.as_ref().is_some_and(|t| {
                t.queued.is_some() && t.status != Status::NeedsYou && !t.gone && !t.closed
            })
        };
        if !waiting || Instant::now() >= until || s.lock().state != State::Running {
            break;
        }
        std::thread::sleep(TICK);
    }
    let (asking, current, seq, path) = {
        let g = s.meta.agent.track.lock();
        let t = g.as_ref().ok_or_else(|| not_agent(s))?;
        let current = t
            .queued
            .as_ref()
            .map(|q| q.0)
            .or_else(|| t.turns.last().map(|x| x.id))
            .unwrap_or(0);
        (
            t.status == Status::NeedsYou,
            current,
            t.seq,
            t.transcript.clone(),
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
                t.answered = Some(Instant::now());
                t.answered_dialog = Some((t.dialog.take(), Instant::now()));
                t.recompute();
            }
            t.seq
        };
        {
            let _typing = s.meta.agent.typing.lock();
            typist::submit(s, typed, enter)?;
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
                    let (o, m) = t.outcome(id, from_seq, running);
                    let turn = t.turns.iter().find(|x| x.id == id);
                    let range = turn.and_then(|x| {
                        x.settled
                            .filter(|_| x.cursor.is_some() || t.transcript.is_some())
                    });
                    // Not settled (timed out, needs-you): where the response will start, past
                    // the turn's own prompt line once the transcript holds it (a late line of
                    // the turn before may follow the count taken at delivery).
                    let start = turn.and_then(|x| {
                        let own = t.transcript.as_deref().and_then(|p| {
                            let n = needle(&x.text)?;
                            let from = x.cursor.unwrap_or(0);
                            let lines = transcript::lines(p, from, transcript::line_count(p));
                            let i = lines
                                .iter()
                                .rposition(|l| transcript::is_prompt_for(l, n))?;
                            Some(from + i as u64 + 1)
                        });
                        own.or(x.cursor)
                    });
                    (o, m, Some(t.view()), range, start)
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
            let settled = outcome == Outcome::Settled;
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
                cursor: match range.filter(|_| settled) {
                    Some(r) => Some(r.0),
                    None => start.filter(|_| view.transcript.is_some()),
                },
                cursor_end: range.filter(|_| settled).map(|r| r.1),
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
/// the transcript catch-up (SC-14), and `message` for `needs-you`. A session that is not an
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
    let mut g = s.meta.agent.track.lock();
    if g.is_none() {
        let def = agents::Registry::load()
            .ok()
            .and_then(|r| r.get(agent).ok())
            .unwrap_or_else(|| AgentDef {
                name: agent.to_string(),
                command: agent.to_string(),
                ..AgentDef::default()
            });
        *g = Some(Track::new(def, s.meta.cwd().to_path_buf(), Launch::Adopted));
    }
    let t = g.as_mut().expect("set above");
    let text = |k: &str| {
        input
            .get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    if let Some(p) = text("transcript_path") {
        t.transcript = Some(PathBuf::from(p));
    }
    if let Some(m) = text("last_assistant_message").or_else(|| text("last-assistant-message")) {
        if let Some(turn) = t.turns.iter_mut().rev().find(|x| x.delivered.is_some()) {
            turn.last_message = Some(m);
        }
    }
    if let Some(status) = status {
        t.hook = Some(Said {
            status,
            reason: if event.is_empty() {
                format!("hook report {state}")
            } else {
                format!("hook {event}")
            },
            message: text("message"),
            at: Instant::now(),
        });
        t.recompute();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track() -> Track {
        let mut t = Track::new(AgentDef::default(), "/".into(), Launch::Adopted);
        t.turns.push(Turn::new(1));
        t.turns[0].delivered = Some(Instant::now());
        t
    }

    fn hook(t: &mut Track, status: Status, event: &str) {
        t.hook = Some(Said {
            status,
            reason: format!("hook {event}"),
            message: None,
            at: Instant::now(),
        });
        t.recompute();
    }

    #[test]
    fn a_turn_rests_only_after_working() {
        let mut t = track();
        hook(&mut t, Status::Done, "Stop");
        assert!(
            t.turns[0].rested_at.is_none(),
            "done before working is no rest"
        );
        hook(&mut t, Status::Working, "UserPromptSubmit");
        hook(&mut t, Status::Done, "Stop");
        assert!(t.turns[0].rested_at.is_some() && t.turns[0].rest_by_hook);
        assert_eq!(t.reason, "hook Stop");
        // Shown as working until the transcript caught up (the turn settled).
        assert_eq!(t.view().status, Status::Working);
        t.turns[0].settled = Some((0, 0));
        assert_eq!(
            (t.view().status, t.view().reason),
            (Status::Done, "hook Stop".into())
        );
    }

    #[test]
    fn progress_reports_are_a_source() {
        let mut t = track();
        let seen = |n, state| Seen {
            text: None,
            title: None,
            osc: None,
            progress: Some((n, state)),
        };
        t.observe(&seen(1, 0));
        assert_eq!(t.status, Status::Idle, "removed before shown says nothing");
        t.observe(&seen(2, 3));
        assert_eq!(t.status, Status::Working);
        assert_eq!(t.reason, "osc 9;4 progress state 3");
        t.observe(&seen(3, 0));
        assert_eq!(t.status, Status::Done);
        assert!(t.turns[0].rested_at.is_some());
    }

    #[test]
    fn dialogs_win_over_sources_and_answers_override_needs_you() {
        let mut t = track();
        hook(&mut t, Status::Working, "PreToolUse");
        t.observe(&Seen {
            text: Some("Allow it?\n❯ 1. Yes\n  2. No".into()),
            title: None,
            osc: None,
            progress: None,
        });
        assert_eq!(t.status, Status::NeedsYou);
        assert_eq!(t.view().prompt.as_deref(), Some("Allow it?"));
        let seq = t.seq;
        assert_eq!(t.outcome(1, seq - 1, true).0, Outcome::NeedsYou);
        assert_eq!(t.outcome(1, seq, true).0, Outcome::Pending);
        hook(&mut t, Status::NeedsYou, "PermissionRequest");
        t.answered = Some(Instant::now());
        t.dialog = None;
        t.recompute();
        assert_eq!(t.status, Status::Working);
        assert_eq!(t.reason, "answered");
    }
}
