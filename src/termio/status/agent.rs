//! The status machine of one agent session (shared/spec/termio-sessions.md, "Live agent
//! status", "Waiting for the outcome"; shared/notes/agents.md; cases SC-02, SC-03, SC-13,
//! SC-14): [`Track`]. It is pure: every call takes the time (`now`) and what was observed as
//! arguments ([`Seen`] for a look at the session, [`Report`] for a hook's report), and reads
//! transcripts through [`Transcripts`], so it is tested from scripted observations. The
//! thread that feeds it from a live session, types into it and answers `--wait` is
//! [`super::monitor`].
//!
//! # Status
//!
//! Sources, most trusted first: hook reports (`termio agent report`, [`Track::report`]), OSC
//! 7501 reports parsed from the PTY, OSC 9;4 progress (shown: working; removed after working:
//! done), the agent's title rules, its screen rules. The status is the state of the most
//! trusted source that has said anything; on top of it a numbered-choice dialog on screen (a
//! trust or permission question, [`crate::termio::agents::dialog_question`]) makes it
//! `needs-you`, and the agent leaving the PTY's foreground process group (the shell is back in
//! front) makes it `exited` ("agent gone"; a closed session is `exited` too, but the session is
//! gone from `list`). Every change bumps a sequence number and records `reason` and `since`;
//! `needs-you` carries the on-screen question (else the source's message).
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

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use regex::Regex;

use crate::term::sniff::ProgramStatus;
use crate::termio::agents::{self, AgentDef};
use crate::termio::reply::Status;
use crate::termio::transcript::{self, TurnEnd};
use crate::termio::wire::Outcome;

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
/// (Gemini CLI 0.61.0 keeps its answered trust dialog on screen about 5 s while it restarts.)
const ANSWER_GRACE: Duration = Duration::from_secs(8);

/// A `needs-you` a hook reported before its dialog is drawn: a wait holds its reply this long
/// for the question to show on screen ([`Track::question_pending`]).
pub const QUESTION_GRACE: Duration = Duration::from_secs(1);

/// A hook's `working` that an in-band source (OSC 7501, OSC 9;4, the title) contradicts, at rest
/// after that `working` for this long with no hook since, is over: the turn was interrupted
/// (Escape or Ctrl-C: Claude Code and Codex fire no `Stop` hook then). Long enough for a
/// normal turn's `Stop` hook, which trails the title's rest by a moment, to arrive first.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(2);

/// A delivered prompt that moved nothing and still sits at the bottom of a screen this still
/// gets its Return again ([`Due::Return`]): the agent dropped the first one.
pub const RETURN_QUIET: Duration = Duration::from_millis(1200);

/// How many times a dropped Return is pressed again, at most.
pub const RETURN_AGAIN_MAX: u32 = 2;

/// Plain-terminal-style settling for agents with no status signal: screen still this long.
const SETTLE_QUIET: Duration = Duration::from_millis(1500);

/// How long after its first delivery a session without a hook-named transcript takes the
/// newest candidate file when none holds one of its prompts.
pub const BIND_GRACE: Duration = Duration::from_secs(10);

/// Most transcript searches a second (when no hook named the transcript).
const SEARCH_EVERY: Duration = Duration::from_secs(1);

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

/// A status change: the new status, why, and its sequence number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The status now.
    pub status: Status,
    /// Why it changed.
    pub reason: String,
    /// Its sequence number.
    pub seq: u64,
}

/// What the monitor saw in one look at the session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    /// The session's program still runs.
    pub running: bool,
    /// A process group other than the shell's holds the terminal (the agent is in front).
    pub agent_front: bool,
    /// The screen version.
    pub version: u64,
    /// Time since the screen last changed.
    pub quiet: Duration,
    /// The screen text (rows joined by `\n`), when it changed since the last look.
    pub text: Option<String>,
    /// The title (OSC 0/2).
    pub title: Option<String>,
    /// The last OSC 7501 report and how many reports there have been.
    pub osc: Option<(u64, ProgramStatus)>,
    /// The last OSC 9;4 progress state and how many progress reports there have been.
    pub progress: Option<(u64, u8)>,
}

/// A hook's report (`termio agent report`), already read: the state it says (`None` for an
/// `auto` report that says nothing), its reason, and what its input carried.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The status the hook reports.
    pub status: Option<Status>,
    /// `hook <Event>` (or `hook report <state>` without an event).
    pub reason: String,
    /// `needs-you`: the hook's message.
    pub message: Option<String>,
    /// The transcript file the hook names.
    pub transcript: Option<PathBuf>,
    /// The Stop hook's `last_assistant_message` (Codex: `last-assistant-message`).
    pub last_message: Option<String>,
}

/// What the monitor is due to type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Due {
    /// Nothing now.
    Nothing,
    /// The agent's command line, once the shell is ready.
    Launch(String),
    /// The queued prompt (take it with [`Track::take_queued`]).
    Prompt,
    /// The Return of a delivered prompt again: the prompt moved no status, the screen has been
    /// still [`RETURN_QUIET`] and still shows the prompt's text in its last rows (its input
    /// box). Claude Code 2.1.197 on a loaded machine now and then drops a Return that comes
    /// right after the typed text (the text stays in its box, a later Return submits it): the
    /// rare start-up failure of the real-agent tests. At most [`RETURN_AGAIN_MAX`] times.
    Return,
}

/// A transcript search (see [`Transcripts::bind`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search<'a> {
    /// The agent's transcript pattern (see `termio::agents`).
    pub pattern: &'a str,
    /// The session's working directory (the pattern's `{cwd}`).
    pub cwd: &'a Path,
    /// Only files written since then (the session's start).
    pub since: SystemTime,
    /// The last lines of the prompts delivered so far (see [`needle`]).
    pub needles: Vec<&'a str>,
    /// No file holds one of them: take the newest candidate ([`BIND_GRACE`] passed).
    pub any: bool,
}

/// How the machine reads agents' transcripts: files on disk in the host
/// ([`super::monitor::Files`]); scripted in tests.
pub trait Transcripts {
    /// Complete lines in `path` (0 when it cannot be read).
    fn line_count(&self, path: &Path) -> u64;
    /// Lines `from..to` of `path`.
    fn lines(&self, path: &Path, from: u64, to: u64) -> Vec<String>;
    /// The transcript to bind for `search`, claimed for this session host-wide: the first
    /// unclaimed candidate holding a prompt line for one of the needles, else (`any`) the
    /// newest unclaimed candidate.
    fn bind(&self, search: &Search<'_>) -> Option<PathBuf>;
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
    /// How many times its Return was pressed again ([`Due::Return`]), the last time when.
    returns: (u32, Option<Instant>),
    /// The text delivered (its prompt line in the transcript marks where its response starts,
    /// and identifies the session's transcript when no hook names it).
    text: String,
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
            returns: (0, None),
        }
    }

    fn open(&self) -> bool {
        self.delivered.is_some() && self.settled.is_none() && self.stalled.is_none()
    }
}

/// Where the agent's start is.
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

/// What a prompt's delivery recorded (see [`Track::deliver`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    /// The turn.
    pub turn: u64,
    /// The status sequence the turn's wait starts after.
    pub seq: u64,
}

/// The status machine of one agent session.
#[derive(Debug)]
pub struct Track {
    def: AgentDef,
    ready: Option<Regex>,
    starting: Option<Regex>,
    title_rules: Vec<(Regex, Status)>,
    screen_rules: Vec<(Regex, Status)>,
    /// When the track was made: the monotonic time and the wall-clock time then (what
    /// `since` is told in).
    started: (Instant, SystemTime),
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
    /// The last screen text seen (for the readiness rule).
    screen_text: String,
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
    /// sample less often than a question can be answered ([`Track::asked_since`]).
    asked: VecDeque<(u64, Option<String>)>,
    /// When the status last became `needs-you`.
    asked_at: Option<Instant>,
    /// The agent's own ids for this session (Codex's session/thread id, Claude Code's
    /// `session_id`), learnt from hook reports: how a report from a hook that runs with
    /// another session's environment finds its session ([`Track::knows`]).
    agent_ids: Vec<String>,
    /// What the last settled turn left behind, read from its reply and transcript: it failed
    /// or was interrupted, or its reply asks the user something. Holds while the agent rests,
    /// until the next prompt.
    after: Option<AfterTurn>,
}

/// What a settled turn left behind (see [`Track::observe`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum AfterTurn {
    /// The turn did not finish: `idle` with this reason (`failed: <the agent's error>`,
    /// `interrupted: …`).
    Ended(String),
    /// The reply ends with a question ([`agents::reply_question`]): `needs-you` with it.
    Asks(String),
}

fn compile(rules: &[agents::Rule]) -> Vec<(Regex, Status)> {
    rules
        .iter()
        .filter_map(|r| Regex::new(&r.pattern).ok().map(|re| (re, r.state)))
        .collect()
}

/// The word of a rule source (`source`: `title` or `screen`) on `text` at `now`: the state of
/// the first rule matching, `None` when none does. An idle rule after a `working` or `done`
/// word (`previous`) is `done`: the turn ended (Gemini CLI's `◇ Ready` title after `✦
/// Working…`, Claude Code's `✳` after its spinner, an idle prompt box after a spinner line).
fn rule_word(
    rules: &[(Regex, Status)],
    text: &str,
    previous: Option<&Said>,
    source: &str,
    now: Instant,
) -> Option<Said> {
    let (re, state) = rules.iter().find(|(re, _)| re.is_match(text))?;
    let after_turn = previous.is_some_and(|s| matches!(s.status, Status::Working | Status::Done));
    let (status, reason) = match state {
        Status::Idle if after_turn => (
            Status::Done,
            format!("{source} rule {} after working", re.as_str()),
        ),
        st => (*st, format!("{source} rule {}", re.as_str())),
    };
    Some(Said {
        status,
        reason,
        message: None,
        at: now,
    })
}

/// The part of a delivered text to look for in a transcript: its last non-empty line,
/// trimmed (an envelope before it does not matter), matched whole by
/// [`transcript::is_prompt_for`].
pub fn needle(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|l| !l.is_empty())
}

impl Track {
    /// The track of an agent session termio spawns: `def` started from a shell in `cwd`
    /// (typed once the shell is ready), with `prompt` queued as turn 1. `now` and `wall` are
    /// the same moment on the monotonic and the wall clock.
    pub fn spawned(
        def: AgentDef,
        cwd: PathBuf,
        prompt: String,
        now: Instant,
        wall: SystemTime,
    ) -> Track {
        let mut t = Track::new(def, cwd, Launch::Shell, now, wall);
        let id = t.new_turn();
        t.queued = Some((id, prompt));
        t.recompute(now);
        t
    }

    /// The track of a session a hook reported from, whose agent termio did not start (its
    /// status then comes from hooks only).
    pub fn adopted(def: AgentDef, cwd: PathBuf, now: Instant, wall: SystemTime) -> Track {
        Track::new(def, cwd, Launch::Adopted, now, wall)
    }

    fn new(def: AgentDef, cwd: PathBuf, launch: Launch, now: Instant, wall: SystemTime) -> Track {
        Track {
            ready: def.ready.as_deref().and_then(|r| Regex::new(r).ok()),
            starting: def.starting.as_deref().and_then(|r| Regex::new(r).ok()),
            title_rules: compile(&def.title_rules),
            screen_rules: compile(&def.screen_rules),
            def,
            started: (now, wall),
            cwd,
            status: Status::Idle,
            reason: "starting".into(),
            since: wall,
            seq: 0,
            hook: None,
            osc: None,
            osc_count: 0,
            progress: None,
            progress_count: 0,
            title: None,
            screen: None,
            screen_question: None,
            screen_text: String::new(),
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
            asked: VecDeque::new(),
            asked_at: None,
            agent_ids: Vec::new(),
            after: None,
        }
    }

    /// `now` on the wall clock.
    fn wall(&self, now: Instant) -> SystemTime {
        let (at, wall) = self.started;
        match now.checked_duration_since(at) {
            Some(d) => wall + d,
            None => wall - at.duration_since(now),
        }
    }

    fn new_turn(&mut self) -> u64 {
        let id = self.next_turn;
        self.next_turn += 1;
        self.turns.push(Turn::new(id));
        id
    }

    /// The status change since sequence `seq`, if any.
    fn change_since(&self, seq: u64) -> Option<Change> {
        (self.seq != seq).then(|| Change {
            status: self.status,
            reason: self.reason.clone(),
            seq: self.seq,
        })
    }

    fn no_signal(&self) -> bool {
        self.hook.is_none()
            && self.osc.is_none()
            && self.progress.is_none()
            && self.title.is_none()
            && self.screen.is_none()
    }

    /// Recomputes the status from the sources; bumps `seq` on a change.
    fn recompute(&mut self, now: Instant) {
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
            let interrupted = self.interrupted(now);
            let base = interrupted.as_ref().or(base);
            if let (Some(a), Some(b)) = (self.answered, base) {
                if b.at > a && b.status != Status::NeedsYou {
                    self.answered = None;
                }
            }
            let (status, reason) = match base {
                Some(s) if s.status == Status::NeedsYou && self.answered.is_some() => {
                    (Status::Working, "answered".to_string())
                }
                Some(s) => (s.status, s.reason.clone()),
                None if self.queued.is_some() => {
                    (Status::Idle, "starting; prompt queued".to_string())
                }
                None => (Status::Idle, self.reason_if_unchanged("starting")),
            };
            // At rest after a turn that failed, was interrupted, or asks in its reply.
            match (&self.after, status) {
                (Some(AfterTurn::Ended(why)), Status::Done | Status::Idle) => {
                    (Status::Idle, why.clone())
                }
                (Some(AfterTurn::Asks(_)), Status::Done | Status::Idle) => {
                    (Status::NeedsYou, "question in the reply".to_string())
                }
                (Some(_), _) => {
                    // Working again (or asking on screen): the agent moved on.
                    self.after = None;
                    (status, reason)
                }
                (None, _) => (status, reason),
            }
        };
        if status != self.status {
            self.status = status;
            self.reason = reason;
            self.since = self.wall(now);
            self.seq += 1;
            if status == Status::NeedsYou {
                self.asked_at = Some(now);
                let question = self.question();
                self.asked.push_back((self.seq, question));
                if self.asked.len() > 16 {
                    self.asked.pop_front();
                }
            }
        } else if self.reason.starts_with("starting")
            || matches!(self.after, Some(AfterTurn::Ended(_)))
        {
            // The first word of a source that agrees with the initial status explains it, as
            // does a settled turn's end (`interrupted: …` found in the transcript).
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

    /// The hook's `working` contradicted by an in-band rest since, held [`INTERRUPT_GRACE`]:
    /// the turn ended without its hook (interrupted), `idle`.
    fn interrupted(&self, now: Instant) -> Option<Said> {
        let hook = self.hook.as_ref().filter(|h| h.status == Status::Working)?;
        let rest = [&self.osc, &self.progress, &self.title]
            .into_iter()
            .flatten()
            .next()
            .filter(|s| matches!(s.status, Status::Done | Status::Idle))
            .filter(|s| s.at > hook.at && now.duration_since(s.at) >= INTERRUPT_GRACE)?;
        Some(Said {
            status: Status::Idle,
            reason: format!(
                "interrupted: the turn ended without its hook ({})",
                rest.reason
            ),
            message: None,
            at: rest.at,
        })
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
        self.turns.iter_mut().rev().find(|t| t.open())
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
        let in_reply = match &self.after {
            Some(AfterTurn::Asks(q)) => Some(q.clone()),
            _ => None,
        };
        self.dialog
            .clone()
            .or_else(|| self.screen_question.clone())
            .or(in_reply)
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
            && self.turns.iter().any(|t| t.open() && t.seen_working);
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
            settling: self.turns.iter().any(Turn::open),
        }
    }

    /// The agent's definition.
    pub fn def(&self) -> &AgentDef {
        &self.def
    }

    /// The status now (without the `turn ending` of [`Track::view`]).
    pub fn status(&self) -> Status {
        self.status
    }

    /// The status sequence now.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The transcript file, once known.
    pub fn transcript(&self) -> Option<&Path> {
        self.transcript.as_deref()
    }

    /// The agent exited back to its shell (typing would run text as a command).
    pub fn is_gone(&self) -> bool {
        self.gone
    }

    /// A queued prompt waits for delivery, and the agent is neither asking, gone nor closed.
    pub fn waiting_to_deliver(&self) -> bool {
        self.queued.is_some() && self.status != Status::NeedsYou && !self.gone && !self.closed
    }

    /// The turn a `send` continues: the queued one, else the last one (0: none yet).
    pub fn current_turn(&self) -> u64 {
        self.queued
            .as_ref()
            .map(|q| q.0)
            .or_else(|| self.turns.last().map(|x| x.id))
            .unwrap_or(0)
    }

    /// The `needs-you` changes after status sequence `seq` (oldest first, with their
    /// questions): how a watcher sampling every 100 ms still reports a question that was
    /// answered in between.
    pub fn asked_since(&self, seq: u64) -> Vec<(u64, Option<String>)> {
        self.asked
            .iter()
            .filter(|(s, _)| *s > seq)
            .cloned()
            .collect()
    }

    /// One look at the session at `now`: the agent's launch (it took the terminal, never
    /// did within [`LAUNCH_MAX`], or left it: `exited`), the sources seen on screen, in the
    /// title and in OSC reports, dialogs, the transcript (bound when no hook named it) and the
    /// current turn (stall, transcript catch-up, settlement). A program that ended closes the
    /// track. Returns the status change, if any.
    pub fn observe(
        &mut self,
        seen: &Seen,
        now: Instant,
        files: &dyn Transcripts,
    ) -> Option<Change> {
        let seq = self.seq;
        if !seen.running {
            self.closed = true;
            self.recompute(now);
            return self.change_since(seq);
        }
        match self.launch {
            Launch::Typed(_) if seen.agent_front => self.launch = Launch::Running(now),
            Launch::Typed(at) if now.duration_since(at) >= LAUNCH_MAX && !self.gone => {
                self.gone = true;
            }
            Launch::Running(_) if !seen.agent_front && !self.gone => self.gone = true,
            _ => {}
        }
        if let Some(text) = &seen.text {
            self.screen_text.clone_from(text);
        }
        self.sources(seen, now);
        self.find_transcript(now, files);
        self.advance_turn(seen.version, seen.quiet, now, files);
        self.change_since(seq)
    }

    /// Whether `id` (an agent's session or thread id from a hook's input) is this session's:
    /// learnt before ([`Track::learn`]), or the name of its transcript file carries it (Codex
    /// names its rollout files by it).
    pub fn knows(&self, id: &str) -> bool {
        self.agent_ids.iter().any(|k| k == id)
            || id.len() >= 8
                && self
                    .transcript
                    .as_deref()
                    .and_then(Path::file_name)
                    .is_some_and(|f| f.to_string_lossy().contains(id))
    }

    /// Whether the session knows any agent id yet.
    pub fn knows_any(&self) -> bool {
        !self.agent_ids.is_empty()
    }

    /// Records `id` as this session's agent id.
    pub fn learn(&mut self, id: &str) {
        if !id.is_empty() && !self.agent_ids.iter().any(|k| k == id) {
            self.agent_ids.push(id.to_string());
        }
    }

    /// Whether `prompt` (a hook's submitted prompt, whole) is one this session typed or has
    /// queued and not settled yet.
    pub fn typed_prompt(&self, prompt: &str) -> bool {
        let prompt = prompt.trim();
        !prompt.is_empty()
            && (self.queued.as_ref().is_some_and(|q| q.1.trim() == prompt)
                || self
                    .turns
                    .iter()
                    .any(|t| t.settled.is_none() && t.text.trim() == prompt))
    }

    /// A hook's report at `now` (most trusted source). Returns the status change, if any.
    pub fn report(&mut self, report: Report, now: Instant) -> Option<Change> {
        let seq = self.seq;
        if let Some(p) = report.transcript {
            self.transcript = Some(p);
        }
        if let Some(m) = report.last_message {
            if let Some(turn) = self.turns.iter_mut().rev().find(|x| x.delivered.is_some()) {
                turn.last_message = Some(m);
            }
        }
        if let Some(status) = report.status {
            self.hook = Some(Said {
                status,
                reason: report.reason,
                message: report.message,
                at: now,
            });
            self.recompute(now);
        }
        self.change_since(seq)
    }

    /// An answer was typed into the `needs-you` agent at `now`: the question counts as
    /// answered (`working`, "answered") until a source says something else afterwards, and
    /// its dialog lingering on screen a moment is not a new question.
    pub fn answer(&mut self, now: Instant) -> Option<Change> {
        let seq = self.seq;
        self.answered = Some(now);
        self.answered_dialog = Some((self.dialog.take(), now));
        self.recompute(now);
        self.change_since(seq)
    }

    /// The session was closed (`close`) or its program ended: waits end with
    /// `session_closed`.
    pub fn close(&mut self, now: Instant) -> Option<Change> {
        let seq = self.seq;
        self.closed = true;
        self.recompute(now);
        self.change_since(seq)
    }

    /// The agent's command line was typed at the shell prompt at `now`.
    pub fn command_typed(&mut self, now: Instant) {
        self.launch = Launch::Typed(now);
    }

    /// What is due after the last look at `now`: the agent's command line while the shell
    /// waits for it; the queued prompt once the agent is ready (its readiness rule matches
    /// the screen, or it has been still for [`READY_QUIET_FALLBACK`] without one; still for
    /// [`READY_QUIET`] and asking nothing). A prompt still undelivered [`READY_MAX`] after the
    /// agent started is stalled instead.
    pub fn due(&mut self, quiet: Duration, now: Instant) -> Due {
        if self.return_dropped(quiet, now) {
            if let Some(t) = self.current_turn_mut() {
                t.returns = (t.returns.0 + 1, Some(now));
            }
            return Due::Return;
        }
        match self.launch {
            Launch::Shell => Due::Launch(self.def.command_line()),
            Launch::Running(since) if self.queued.is_some() && !self.gone => {
                let ready_screen = match &self.ready {
                    Some(re) => re.is_match(&self.screen_text),
                    None => quiet >= READY_QUIET_FALLBACK,
                } && !self
                    .starting
                    .as_ref()
                    .is_some_and(|re| re.is_match(&self.screen_text));
                if self.dialog.is_none()
                    && self.status != Status::NeedsYou
                    && ready_screen
                    && quiet >= READY_QUIET
                {
                    return Due::Prompt;
                }
                if now.duration_since(since) >= READY_MAX && self.status != Status::NeedsYou {
                    if let Some((id, _)) = self.queued.take() {
                        if let Some(turn) = self.turns.iter_mut().find(|x| x.id == id) {
                            turn.stalled = Some(format!(
                                "the agent never showed its prompt box within {} s",
                                READY_MAX.as_secs()
                            ));
                        }
                    }
                }
                Due::Nothing
            }
            _ => Due::Nothing,
        }
    }

    /// Whether the current turn's Return looks dropped (see [`Due::Return`]).
    fn return_dropped(&self, quiet: Duration, now: Instant) -> bool {
        // Without any status signal the screen change is the effect: nothing to tell by.
        if quiet < RETURN_QUIET
            || self.status == Status::NeedsYou
            || self.gone
            || self.closed
            || self.no_signal()
        {
            return false;
        }
        let Some(t) = self.turns.iter().rev().find(|t| t.open()) else {
            return false;
        };
        let no_effect = !t.seen_working && self.seq == t.seq_at_delivery;
        let (count, last_at) = t.returns;
        let again = count < RETURN_AGAIN_MAX
            && last_at.is_none_or(|at| now.duration_since(at) >= RETURN_QUIET);
        let Some(last) = needle(&t.text).filter(|_| no_effect && again) else {
            return false;
        };
        // The line's last characters (a long line wraps in the box), in the last rows.
        let chars: Vec<char> = last.chars().collect();
        let tail: String = chars[chars.len().saturating_sub(12)..].iter().collect();
        let tail = tail.trim();
        !tail.is_empty()
            && self
                .screen_text
                .lines()
                .rev()
                .filter(|r| !r.trim().is_empty())
                .take(6)
                .any(|r| r.contains(tail))
    }

    /// Takes the queued prompt for delivery: its turn and text.
    pub fn take_queued(&mut self) -> Option<(u64, String)> {
        self.queued.take()
    }

    /// Records the delivery of `text` as turn `turn` (a new turn when `None`) at `now`, just
    /// before its Return is written: the transcript held `cursor` lines and the screen was at
    /// `version`. Keeps the last few turns only.
    pub fn deliver(
        &mut self,
        turn: Option<u64>,
        text: &str,
        cursor: Option<u64>,
        version: u64,
        now: Instant,
    ) -> Delivery {
        let id = match turn {
            Some(id) => id,
            None => self.new_turn(),
        };
        // A new prompt: what the last turn left behind (its question) is over.
        if self.after.take().is_some() {
            self.recompute(now);
        }
        let seq = self.seq;
        if let Some(x) = self.turns.iter_mut().find(|x| x.id == id) {
            x.delivered = Some(now);
            x.cursor = cursor;
            x.seq_at_delivery = seq;
            x.version_at_delivery = version;
            x.text = text.to_string();
        }
        let keep = self.turns.len().saturating_sub(8);
        self.turns.drain(..keep);
        Delivery { turn: id, seq }
    }

    /// Applies the sources of one look: OSC 7501, OSC 9;4, title rules, screen rules and
    /// dialogs; then recomputes the status.
    fn sources(&mut self, seen: &Seen, now: Instant) {
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
                        at: now,
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
                        at: now,
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
        // Title rules; no match after `working`: the turn rested.
        if !self.title_rules.is_empty() {
            let title = seen.title.as_deref().unwrap_or("");
            let said = rule_word(&self.title_rules, title, self.title.as_ref(), "title", now)
                .or_else(|| match &self.title {
                    Some(s) if s.status == Status::Working => Some(Said {
                        status: Status::Done,
                        reason: "title no longer working".into(),
                        message: None,
                        at: now,
                    }),
                    other => other.clone(),
                });
            Track::say(&mut self.title, said);
        }
        // Screen rules; no match keeps the last word.
        if let Some(text) = &seen.text {
            if !self.screen_rules.is_empty() {
                let said = rule_word(
                    &self.screen_rules,
                    text,
                    self.screen.as_ref(),
                    "screen",
                    now,
                )
                .or_else(|| self.screen.clone());
                Track::say(&mut self.screen, said);
            }
        }
        // Dialogs: on a new screen, and while an answered dialog is in its grace (which may
        // end on a screen that no longer changes).
        if seen.text.is_some() || self.answered_dialog.is_some() {
            self.screen_question = agents::dialog_question(&self.screen_text);
            self.dialog = if self.def.dialogs {
                self.screen_question.clone()
            } else {
                None
            };
            // The answered dialog may stay on screen a moment (the agent has not read the
            // answer yet): not a new question unless it outstays the grace. A dialog the
            // answer went to before it was seen (`None`) is whichever shows first; a known
            // one stays itself when the screen blanks between two dialogs, so the next dialog
            // is a new question at once.
            if let Some((q, at)) = self.answered_dialog.take() {
                let fresh = now.duration_since(at) < ANSWER_GRACE;
                match (q, self.dialog.clone()) {
                    (q, None) if fresh => self.answered_dialog = Some((q, at)),
                    (q, Some(d)) if fresh && q.as_ref().is_none_or(|q| *q == d) => {
                        self.dialog = None;
                        self.answered_dialog = Some((Some(d), at));
                    }
                    _ => {}
                }
            }
        }
        self.recompute(now);
    }

    /// Looks for the transcript file (at most once a second) when no hook named it.
    fn find_transcript(&mut self, now: Instant, files: &dyn Transcripts) {
        if self.transcript.is_some() {
            return;
        }
        let Some(pattern) = self.def.transcript.as_deref() else {
            return;
        };
        if self
            .last_search
            .is_some_and(|t| now.duration_since(t) < SEARCH_EVERY)
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
        let search = Search {
            pattern,
            cwd: &self.cwd,
            since: self.started.1,
            needles: delivered.iter().map(|d| d.0).collect(),
            any: now.duration_since(first) >= BIND_GRACE,
        };
        self.transcript = files.bind(&search);
    }

    /// Advances the current turn: stall check, transcript catch-up, settlement.
    fn advance_turn(
        &mut self,
        version: u64,
        quiet: Duration,
        now: Instant,
        files: &dyn Transcripts,
    ) {
        let no_signal = self.no_signal();
        let seq = self.seq;
        let path = self.transcript.clone();
        let last_end = self.last_settled_end;
        let status = self.status;
        let wall = self.wall(now);
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
                files
                    .lines(p, from, files.line_count(p))
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
        // The agent took the prompt: its prompt line is in the transcript (a turn never seen
        // working settles at rest only then: Codex may hold a prompt typed while it starts,
        // and resting before it takes it is no turn).
        let taken = || {
            path.as_deref().is_some_and(|p| {
                let from = t.cursor.or(last_end).unwrap_or(0);
                let n = needle(&t.text);
                files
                    .lines(p, from, files.line_count(p))
                    .iter()
                    .any(|l| n.is_none_or(|n| transcript::is_prompt_for(l, n)))
            })
        };
        let rested = match t.rested_at {
            Some(r) if t.rest_by_hook || now.duration_since(r) >= REST_HOLD => Some(r),
            Some(_) => None,
            // Never seen working (a turn faster than sampling) but back at rest and quiet.
            None if (no_signal || !t.seen_working && resting && taken())
                && quiet >= SETTLE_QUIET =>
            {
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
                // Its reply may still ask (the Stop hook's message).
                let asks = t.last_message.as_deref().and_then(agents::reply_question);
                self.settled_at = Some(wall);
                self.after = asks.map(AfterTurn::Asks);
                self.recompute(now);
            }
            return;
        };
        let count = files.line_count(&path);
        let grown = match t.growth {
            Some((c, at)) if c == count => at,
            _ => {
                t.growth = Some((count, now));
                now
            }
        };
        let lines = files.lines(&path, start, count);
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
            // What the turn left behind: its transcript says it failed or was interrupted
            // (any line since its delivery: Gemini records a cancel before the prompt line),
            // else its reply (the Stop hook's message, else the transcript's) may ask.
            let left = match lines.iter().rev().find_map(|l| transcript::turn_end(l)) {
                Some(TurnEnd::Failed(e)) => Some(AfterTurn::Ended(format!("failed: {e}"))),
                Some(TurnEnd::Interrupted(w)) => {
                    Some(AfterTurn::Ended(format!("interrupted: {w}")))
                }
                None => t
                    .last_message
                    .clone()
                    .or_else(|| {
                        after
                            .iter()
                            .rev()
                            .find_map(|l| transcript::assistant_text(l))
                    })
                    .and_then(|r| agents::reply_question(&r))
                    .map(AfterTurn::Asks),
            };
            // Older turns still open (this prompt was queued behind them) are settled too: each
            // from past its own prompt line to the next prompt line (else to this turn's
            // prompt line), releasing their waiters and the `turn ending` view.
            let (id, before) = (t.id, start + own.map_or(skip, |i| i as u64));
            for x in self.turns.iter_mut().filter(|x| x.id < id && x.open()) {
                let from = x.cursor.unwrap_or(before).min(before);
                let mine = files.lines(&path, from, before);
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
            self.settled_at = Some(wall);
            self.after = left;
            self.recompute(now);
        }
    }

    /// The outcome of turn `id` for a wait that started at status sequence `from_seq`, while
    /// the session's program is `running` or not.
    pub fn outcome(&self, id: u64, from_seq: u64, running: bool) -> (Outcome, Option<String>) {
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

    /// Whether the agent asks in its last reply (not in a dialog): an answer to that is a new
    /// prompt, typed as one.
    pub fn asks_in_reply(&self) -> bool {
        self.status == Status::NeedsYou
            && self.dialog.is_none()
            && matches!(self.after, Some(AfterTurn::Asks(_)))
    }

    /// Whether the last screen seen shows a numbered-choice dialog (whatever the agent's
    /// `dialogs` setting): an option number typed there acts at once, without a Return.
    pub fn choice_on_screen(&self) -> bool {
        self.screen_question.is_some()
    }

    /// Whether a `needs-you` is too fresh to report: no question on screen yet (a hook such
    /// as Claude Code's `PermissionRequest` fires before the dialog is drawn) and less than
    /// [`QUESTION_GRACE`] since it began at `now`. A wait holds its reply meanwhile, so the
    /// reply carries the dialog's question rather than a placeholder.
    pub fn question_pending(&self, now: Instant) -> bool {
        self.status == Status::NeedsYou
            && self.dialog.is_none()
            && self.screen_question.is_none()
            && self.after.is_none()
            && self
                .asked_at
                .is_some_and(|at| now.duration_since(at) < QUESTION_GRACE)
    }

    /// Turn `id`'s settled range of transcript lines (only with a transcript to range over).
    pub fn settled_range(&self, id: u64) -> Option<(u64, u64)> {
        let x = self.turns.iter().find(|x| x.id == id)?;
        x.settled
            .filter(|_| x.cursor.is_some() || self.transcript.is_some())
    }

    /// Where turn `id`'s response starts while it is not settled: past its own prompt line
    /// once the transcript holds it (a late line of the turn before may follow the count
    /// taken at delivery), else the count taken at delivery.
    pub fn response_start(&self, id: u64, files: &dyn Transcripts) -> Option<u64> {
        let x = self.turns.iter().find(|x| x.id == id)?;
        let own = self.transcript.as_deref().and_then(|p| {
            let n = needle(&x.text)?;
            let from = x.cursor.unwrap_or(0);
            let lines = files.lines(p, from, files.line_count(p));
            let i = lines
                .iter()
                .rposition(|l| transcript::is_prompt_for(l, n))?;
            Some(from + i as u64 + 1)
        });
        own.or(x.cursor)
    }
}

#[cfg(test)]
mod tests {
    //! The machine driven by scripts: each step happens at a time (ms after the start), feeds
    //! one observation and states the status and reason `list` shows then.

    use std::cell::RefCell;

    use super::*;
    use Ev::*;
    use Status::*;

    /// One scripted observation (or action of the monitor).
    #[derive(Debug, Clone)]
    enum Ev {
        /// The screen now shows this text (a look follows).
        Screen(&'static str),
        /// The title now is this (a look follows).
        Title(&'static str),
        /// One more OSC 7501 report with this state (a look follows).
        Osc(&'static str),
        /// One more OSC 7501 report with a state and a message (a look follows).
        OscSays(&'static str, &'static str),
        /// This many more OSC 9;4 reports, the last with this state (a look follows).
        Progress(u64, u8),
        /// The agent holds the terminal or not (a look follows).
        Front(bool),
        /// A look with nothing new.
        Look,
        /// The session's program ended (a look follows).
        Exit,
        /// A hook reports a status from an event.
        Hook(Status, &'static str),
        /// The Stop hook reports `done` with the turn's last assistant message.
        Stop(&'static str),
        /// The monitor typed the agent's command line.
        Typed,
        /// A prompt is delivered as a new turn.
        Deliver(&'static str),
        /// The queued prompt is delivered.
        DeliverQueued,
        /// An answer is typed into the asking agent.
        Answer,
        /// A line is appended to the transcript.
        Append(&'static str),
        /// What is due now (checked).
        IsDue(Due),
        /// The question shown (checked).
        Asks(&'static str),
        /// The transcript line count when the last turn settled (checked).
        CursorEnd(u64),
        /// Whether a delivered turn has not settled yet (checked).
        Settling(bool),
    }

    /// An in-memory transcript at `/t.jsonl`, bound once it holds a delivered prompt.
    #[derive(Default)]
    struct Mem(RefCell<Vec<String>>);

    impl Transcripts for Mem {
        fn line_count(&self, _: &Path) -> u64 {
            self.0.borrow().len() as u64
        }

        fn lines(&self, _: &Path, from: u64, to: u64) -> Vec<String> {
            let lines = self.0.borrow();
            let to = (to as usize).min(lines.len());
            lines[(from as usize).min(to)..to].to_vec()
        }

        fn bind(&self, search: &Search<'_>) -> Option<PathBuf> {
            let ours = self.0.borrow().iter().any(|l| {
                search
                    .needles
                    .iter()
                    .any(|n| transcript::is_prompt_for(l, n))
            });
            (ours || search.any).then(|| PathBuf::from("/t.jsonl"))
        }
    }

    /// The session as the script leaves it, and the machine watching it.
    struct Sim {
        track: Track,
        seen: Seen,
        osc_reports: u64,
        screen: String,
        changed: Instant,
        looked_version: u64,
        files: Mem,
    }

    impl Sim {
        fn new(track: Track, t0: Instant) -> Sim {
            Sim {
                track,
                seen: Seen {
                    running: true,
                    version: 1,
                    ..Seen::default()
                },
                osc_reports: 0,
                screen: String::new(),
                changed: t0,
                looked_version: 0,
                files: Mem::default(),
            }
        }

        fn look(&mut self, now: Instant) {
            self.seen.quiet = now.duration_since(self.changed);
            self.seen.text =
                (self.seen.version != self.looked_version).then(|| self.screen.clone());
            self.looked_version = self.seen.version;
            self.track.observe(&self.seen, now, &self.files);
        }

        fn redraw(&mut self, now: Instant) {
            self.seen.version += 1;
            self.changed = now;
        }

        fn step(&mut self, ev: &Ev, now: Instant, name: &str, ms: u64) {
            let hook = |status, reason: String, last_message| Report {
                status: Some(status),
                reason,
                last_message,
                ..Report::default()
            };
            match ev.clone() {
                Screen(text) => {
                    self.screen = text.to_string();
                    self.redraw(now);
                    self.look(now);
                }
                Title(title) => {
                    self.seen.title = Some(title.to_string());
                    self.look(now);
                }
                Osc(state) | OscSays(state, _) => {
                    self.osc_reports += 1;
                    let message = match ev {
                        OscSays(_, m) => Some(m.to_string()),
                        _ => None,
                    };
                    let status = ProgramStatus {
                        state: state.to_string(),
                        kind: None,
                        message,
                    };
                    self.seen.osc = Some((self.osc_reports, status));
                    self.look(now);
                }
                Progress(more, state) => {
                    let count = self.seen.progress.map_or(0, |p| p.0) + more;
                    self.seen.progress = Some((count, state));
                    self.look(now);
                }
                Front(front) => {
                    self.seen.agent_front = front;
                    self.look(now);
                }
                Look => self.look(now),
                Exit => {
                    self.seen.running = false;
                    self.look(now);
                }
                Hook(status, event) => {
                    self.track
                        .report(hook(status, format!("hook {event}"), None), now);
                }
                Stop(message) => {
                    let report = hook(Done, "hook Stop".into(), Some(message.to_string()));
                    self.track.report(report, now);
                }
                Typed => self.track.command_typed(now),
                Deliver(text) => {
                    let cursor = Some(self.files.line_count(Path::new("/t.jsonl")));
                    self.track
                        .deliver(None, text, cursor, self.seen.version, now);
                }
                DeliverQueued => {
                    let (id, text) = self.track.take_queued().expect("a queued prompt");
                    self.track
                        .deliver(Some(id), &text, None, self.seen.version, now);
                }
                Answer => {
                    self.track.answer(now);
                }
                Append(line) => self.files.0.borrow_mut().push(line.to_string()),
                IsDue(due) => {
                    let quiet = now.duration_since(self.changed);
                    assert_eq!(self.track.due(quiet, now), due, "{name}, at {ms} ms");
                }
                Asks(question) => assert_eq!(
                    self.track.view().prompt.as_deref(),
                    Some(question),
                    "{name}, at {ms} ms"
                ),
                Settling(settling) => {
                    assert_eq!(self.track.view().settling, settling, "{name}, at {ms} ms")
                }
                CursorEnd(n) => {
                    assert_eq!(self.track.view().cursor_end, Some(n), "{name}, at {ms} ms")
                }
            }
        }
    }

    /// What `list` shows after a step (status and reason), when the step checks it.
    type Shown = Option<(Status, &'static str)>;

    /// A scripted session: how the track starts, then `(ms, observation, shown after it)`.
    struct Script {
        name: &'static str,
        def: AgentDef,
        spawned: bool,
        steps: Vec<(u64, Ev, Shown)>,
    }

    fn run(script: &Script) {
        let t0 = Instant::now();
        let wall = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let track = if script.spawned {
            Track::spawned(
                script.def.clone(),
                "/p".into(),
                "fix the bug".into(),
                t0,
                wall,
            )
        } else {
            Track::adopted(script.def.clone(), "/p".into(), t0, wall)
        };
        let mut sim = Sim::new(track, t0);
        for (ms, ev, expect) in &script.steps {
            let now = t0 + Duration::from_millis(*ms);
            sim.step(ev, now, script.name, *ms);
            if let Some((status, reason)) = expect {
                let view = sim.track.view();
                assert_eq!(
                    (view.status, view.reason.as_str()),
                    (*status, *reason),
                    "{}, at {ms} ms after {ev:?}",
                    script.name
                );
            }
        }
    }

    fn def() -> AgentDef {
        AgentDef {
            name: "claude".into(),
            command: "claude".into(),
            ..AgentDef::default()
        }
    }

    fn rule(pattern: &str, state: Status) -> agents::Rule {
        agents::Rule {
            pattern: pattern.into(),
            state,
        }
    }

    const DIALOG: &str = "Allow it?\n❯ 1. Yes\n  2. No";
    const ENDING: &str = "turn ending: waiting for the transcript to catch up";
    const PROMPT: &str = r#"{"type":"user","message":{"role":"user","content":"fix the bug"}}"#;
    const REPLY: &str = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"FIXED"}]}}"#;

    #[test]
    fn scripted_agent_sessions() {
        let scripts = [
            Script {
                name: "hook reports drive the status; a turn shows working until it settles",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Look, Some((Idle, "starting"))),
                    (0, Deliver("fix the bug"), None),
                    (10, Hook(Working, "UserPromptSubmit"), Some((Working, "hook UserPromptSubmit"))),
                    (500, Hook(Done, "Stop"), Some((Working, ENDING))),
                    (600, Look, Some((Working, ENDING))),
                    // No transcript: settled CATCH_UP after the hook's rest.
                    (1500, Look, Some((Done, "hook Stop"))),
                ],
            },
            Script {
                name: "done before working is no rest",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Deliver("fix the bug"), None),
                    (10, Hook(Done, "Stop"), Some((Done, "hook Stop"))),
                    (20, Hook(Working, "UserPromptSubmit"), Some((Working, "hook UserPromptSubmit"))),
                    (30, Hook(Done, "Stop"), Some((Working, ENDING))),
                ],
            },
            Script {
                name: "OSC 7501 reports, blocked with its message",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Osc("working"), Some((Working, "osc 7501 state=working"))),
                    (100, OscSays("blocked", "May I run rm?"), Some((NeedsYou, "osc 7501 state=blocked"))),
                    (100, Asks("May I run rm?"), None),
                    (200, Osc("error"), Some((Done, "osc 7501 state=error"))),
                    (300, Osc("idle"), Some((Idle, "osc 7501 state=idle"))),
                    (400, Osc("dancing"), Some((Idle, "osc 7501 state=idle"))),
                ],
            },
            Script {
                name: "hooks outrank OSC 7501",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Osc("working"), Some((Working, "osc 7501 state=working"))),
                    (100, Hook(Done, "Stop"), Some((Done, "hook Stop"))),
                    (200, Osc("blocked"), Some((Done, "hook Stop"))),
                ],
            },
            Script {
                name: "OSC 9;4 progress: shown is working, removed after it is done",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Progress(1, 0), Some((Idle, "starting"))),
                    (100, Progress(1, 3), Some((Working, "osc 9;4 progress state 3"))),
                    (200, Progress(1, 1), Some((Working, "osc 9;4 progress state 3"))),
                    (300, Progress(1, 0), Some((Done, "osc 9;4 progress state 0"))),
                ],
            },
            Script {
                name: "OSC 9;4: several reports between two looks ending removed went through working",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Deliver("fix the bug"), None),
                    (100, Progress(2, 0), Some((Working, ENDING))),
                    (1500, Look, Some((Done, "osc 9;4 progress state 0"))),
                ],
            },
            Script {
                name: "title rules; no rule matching after working is done",
                def: AgentDef {
                    title_rules: vec![rule("^[⠋⠙⠹]", Working), rule("^✳", Idle)],
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Title("✳ Claude"), Some((Idle, "title rule ^✳"))),
                    (100, Title("⠋ Working"), Some((Working, "title rule ^[⠋⠙⠹]"))),
                    (200, Title("Claude"), Some((Done, "title no longer working"))),
                ],
            },
            Script {
                name: "a turn never seen working is not settled before the agent took its prompt",
                def: AgentDef {
                    transcript: Some("/t.jsonl".into()),
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Osc("idle"), Some((Idle, "osc 7501 state=idle"))),
                    (10, Deliver("fix the bug"), None),
                    // The status moves (the delivery had an effect) but the agent, still
                    // starting, holds the prompt: no transcript line, no settling.
                    (100, Osc("done"), Some((Done, "osc 7501 state=done"))),
                    (5000, Look, None),
                    (5000, Settling(true), None),
                    (5100, Append(PROMPT), None),
                    (5200, Append(REPLY), None),
                    (6300, Look, None),
                    (8000, Look, None),
                    (8000, Settling(false), None),
                    (8000, CursorEnd(2), None),
                ],
            },
            Script {
                name: "an interrupted turn (no Stop hook, the title at rest) ends after a grace",
                def: AgentDef {
                    title_rules: vec![rule("^⠂", Working), rule("^✳", Idle)],
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Title("✳ Claude Code"), Some((Idle, "title rule ^✳"))),
                    (10, Deliver("fix the bug"), None),
                    (20, Hook(Working, "UserPromptSubmit"), Some((Working, "hook UserPromptSubmit"))),
                    (100, Title("⠂ Claude Code"), Some((Working, "hook UserPromptSubmit"))),
                    // Escape: the title rests, no Stop hook comes.
                    (500, Title("✳ Claude Code"), Some((Working, "hook UserPromptSubmit"))),
                    (2400, Look, Some((Working, "hook UserPromptSubmit"))),
                    // Rested: the turn ends (no transcript here: settled a moment later).
                    (2500, Look, Some((Working, ENDING))),
                    (2600, Settling(true), None),
                    (
                        3500,
                        Look,
                        Some((Idle, "interrupted: the turn ended without its hook (title rule ^✳ after working)")),
                    ),
                    (3500, Settling(false), None),
                    // The next turn's hook is believed again.
                    (4000, Deliver("next"), None),
                    (4010, Hook(Working, "UserPromptSubmit"), Some((Working, "hook UserPromptSubmit"))),
                    (4100, Title("⠂ Claude Code"), Some((Working, "hook UserPromptSubmit"))),
                    (4500, Title("✳ Claude Code"), Some((Working, "hook UserPromptSubmit"))),
                    (4700, Hook(Done, "Stop"), None),
                    (7000, Look, Some((Done, "hook Stop"))),
                ],
            },
            Script {
                name: "an idle title after a working one is done, until the title moves on",
                def: AgentDef {
                    title_rules: vec![rule("Working", Working), rule("Ready", Idle)],
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Title("◇ Ready"), Some((Idle, "title rule Ready"))),
                    (100, Title("✦ Working…"), Some((Working, "title rule Working"))),
                    (200, Title("◇ Ready"), Some((Done, "title rule Ready after working"))),
                    (300, Look, Some((Done, "title rule Ready after working"))),
                    (400, Title("✦ Working…"), Some((Working, "title rule Working"))),
                ],
            },
            Script {
                name: "screen rules keep their last word while none matches",
                def: AgentDef {
                    screen_rules: vec![rule("esc to interrupt", Working), rule("(?m)^> *$", Idle)],
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Screen("✻ Thinking… (esc to interrupt)"), Some((Working, "screen rule esc to interrupt"))),
                    (100, Screen("output scrolls"), Some((Working, "screen rule esc to interrupt"))),
                    (200, Screen("done\n> "), Some((Done, "screen rule (?m)^> *$ after working"))),
                ],
            },
            Script {
                name: "a dialog on screen is needs-you; an answered dialog lingering is not a new question",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Hook(Working, "PreToolUse"), Some((Working, "hook PreToolUse"))),
                    (100, Screen(DIALOG), Some((NeedsYou, "dialog on screen"))),
                    (100, Asks("Allow it?"), None),
                    (200, Answer, Some((Working, "hook PreToolUse"))),
                    (300, Screen(DIALOG), Some((Working, "hook PreToolUse"))),
                    // A slow agent (Gemini CLI restarting after its trust dialog).
                    (5300, Screen(DIALOG), Some((Working, "hook PreToolUse"))),
                    // Still there past the grace: the answer was eaten, it asks again.
                    (8300, Screen(DIALOG), Some((NeedsYou, "dialog on screen"))),
                ],
            },
            Script {
                name: "dialogs off: the question is shown only as the prompt of needs-you",
                def: AgentDef {
                    dialogs: false,
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Screen(DIALOG), Some((Idle, "starting"))),
                    (100, Hook(NeedsYou, "Notification"), Some((NeedsYou, "hook Notification"))),
                    (100, Asks("Allow it?"), None),
                ],
            },
            Script {
                name: "an answered needs-you is working until a source moves on",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Hook(NeedsYou, "PermissionRequest"), Some((NeedsYou, "hook PermissionRequest"))),
                    (0, Asks("the agent is waiting for an answer"), None),
                    (100, Answer, Some((Working, "answered"))),
                    (200, Hook(Working, "PostToolUse"), Some((Working, "answered"))),
                    (300, Hook(Done, "Stop"), Some((Done, "hook Stop"))),
                ],
            },
            Script {
                name: "spawned: the command, then the agent in front, then leaving it",
                def: AgentDef {
                    ready: Some("(?m)^> *$".into()),
                    ..def()
                },
                spawned: true,
                steps: vec![
                    (0, Look, Some((Idle, "starting; prompt queued"))),
                    (0, IsDue(Due::Launch("claude".into())), None),
                    (100, Typed, None),
                    (100, IsDue(Due::Nothing), None),
                    (200, Front(true), Some((Idle, "starting; prompt queued"))),
                    (300, Screen("Welcome\n> "), None),
                    // Still for READY_QUIET with the ready rule on screen: the prompt is due.
                    (400, IsDue(Due::Nothing), None),
                    (600, IsDue(Due::Prompt), None),
                    (600, DeliverQueued, None),
                    (700, Osc("working"), Some((Working, "osc 7501 state=working"))),
                    (800, Front(false), Some((Exited, "agent exited back to its shell"))),
                ],
            },
            Script {
                name: "spawned: a command that never takes the terminal is agent gone",
                def: def(),
                spawned: true,
                steps: vec![
                    (0, Typed, None),
                    (9_000, Look, Some((Idle, "starting; prompt queued"))),
                    (
                        10_000,
                        Look,
                        Some((Exited, r#"agent gone: "claude" never took the terminal within 10 s (not installed?)"#)),
                    ),
                ],
            },
            Script {
                name: "a prompt with no effect within STALL is stalled",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Deliver("fix the bug"), None),
                    (4_900, Look, Some((Idle, "starting"))),
                    (
                        5_000,
                        Look,
                        Some((Idle, "prompt stalled: the prompt had no effect within 5 s (no status move, no screen change)")),
                    ),
                ],
            },
            Script {
                name: "no status signal at all: a screen change is the effect, stillness settles",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Deliver("fix the bug"), None),
                    (100, Screen("working on it"), Some((Idle, "starting"))),
                    (1_500, Look, Some((Idle, "starting"))),
                    (1_500, Settling(true), None),
                    (1_600, Look, Some((Idle, "starting"))),
                    (1_600, Settling(false), None),
                ],
            },
            Script {
                name: "the Stop hook's last message settles the turn once the transcript holds it",
                def: AgentDef {
                    transcript: Some("/t.jsonl".into()),
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Deliver("fix the bug"), None),
                    (10, Hook(Working, "UserPromptSubmit"), Some((Working, "hook UserPromptSubmit"))),
                    (20, Append(PROMPT), None),
                    (1_020, Look, Some((Working, "hook UserPromptSubmit"))),
                    (2_000, Stop("FIXED"), Some((Working, ENDING))),
                    (2_100, Look, Some((Working, ENDING))),
                    (2_200, Append(REPLY), None),
                    (2_300, Look, Some((Done, "hook Stop"))),
                    (2_300, CursorEnd(2), None),
                ],
            },
            Script {
                name: "a dropped Return is pressed again while the prompt sits in a still box, twice at most",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Hook(Idle, "SessionStart"), None),
                    (0, Deliver("fix the bug"), None),
                    (10, Screen("welcome\n❯ fix the bug\n? for shortcuts"), None),
                    (500, IsDue(Due::Nothing), None),
                    (1_300, IsDue(Due::Return), None),
                    (1_300, IsDue(Due::Nothing), None),
                    (1_400, Screen("welcome\n❯ fix the bug\n  ? for shortcuts"), None),
                    (2_700, IsDue(Due::Return), None),
                    (2_800, Screen("welcome\n❯ fix the bug\n? for shortcuts"), None),
                    (4_100, IsDue(Due::Nothing), None),
                ],
            },
            Script {
                name: "a Return that took is never pressed again",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Hook(Idle, "SessionStart"), None),
                    (0, Deliver("fix the bug"), None),
                    (10, Screen("❯ fix the bug\n✻ Thinking"), None),
                    (20, Hook(Working, "UserPromptSubmit"), None),
                    (1_300, IsDue(Due::Nothing), None),
                    (1_400, Screen("❯ fix the bug\n● FIXED\n❯ "), None),
                    (1_500, Hook(Done, "Stop"), None),
                    (3_000, IsDue(Due::Nothing), None),
                ],
            },
            Script {
                name: "a reply that asks is needs-you with its question; the next prompt is a new turn",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Deliver("fix the bug"), None),
                    (10, Hook(Working, "UserPromptSubmit"), None),
                    (500, Stop("Two ways.\n\nWhich one?\n1) fast\n2) safe"), Some((Working, ENDING))),
                    // No transcript: settled CATCH_UP after the Stop hook.
                    (1500, Look, Some((NeedsYou, "question in the reply"))),
                    (1500, Asks("Which one?\n1) fast\n2) safe"), None),
                    (1600, Deliver("2"), Some((Done, "hook Stop"))),
                    (1610, Hook(Working, "UserPromptSubmit"), Some((Working, "hook UserPromptSubmit"))),
                    (2000, Stop("Done the safe way."), Some((Working, ENDING))),
                    (3000, Look, Some((Done, "hook Stop"))),
                ],
            },
            Script {
                name: "the transcript's reply asks when no hook gave the message",
                def: AgentDef {
                    transcript: Some("/t.jsonl".into()),
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Deliver("fix the bug"), None),
                    (10, Hook(Working, "UserPromptSubmit"), None),
                    (20, Append(PROMPT), None),
                    (1_020, Look, None),
                    (1_100, Append(r#"{"type":"gemini","content":"Overwrite it? [y/N]"}"#), None),
                    (1_200, Hook(Done, "AfterAgent"), Some((Working, ENDING))),
                    (1_300, Look, Some((Working, ENDING))),
                    (1_700, Look, Some((NeedsYou, "question in the reply"))),
                    (1_700, Asks("Overwrite it? [y/N]"), None),
                    (1_700, CursorEnd(2), None),
                ],
            },
            Script {
                name: "a turn whose transcript records an error ends idle with the error",
                def: AgentDef {
                    transcript: Some("/t.jsonl".into()),
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Deliver("fix the bug"), None),
                    (10, Hook(Working, "UserPromptSubmit"), None),
                    (20, Append(PROMPT), None),
                    (1_020, Look, None),
                    (1_100, Append(r#"{"type":"error","content":"[API Error: 500 boom]"}"#), None),
                    (1_200, Hook(Done, "AfterAgent"), Some((Working, ENDING))),
                    (1_300, Look, Some((Working, ENDING))),
                    (2_400, Look, Some((Idle, "failed: [API Error: 500 boom]"))),
                    (2_500, Deliver("again"), Some((Done, "hook AfterAgent"))),
                ],
            },
            Script {
                name: "an interrupt the transcript records ends the turn idle, interrupted",
                def: AgentDef {
                    transcript: Some("/t.jsonl".into()),
                    title_rules: vec![rule("^⠋", Working)],
                    ..def()
                },
                spawned: false,
                steps: vec![
                    (0, Deliver("fix the bug"), None),
                    (10, Hook(Working, "UserPromptSubmit"), None),
                    (20, Append(PROMPT), None),
                    (30, Title("⠋ codex"), None),
                    (1_000, Append(r#"{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}"#), None),
                    (1_000, Title("codex"), Some((Working, "hook UserPromptSubmit"))),
                    (3_000, Look, Some((Working, ENDING))),
                    (4_100, Look, Some((Idle, "interrupted: turn aborted (interrupted)"))),
                ],
            },
            Script {
                name: "the session ending closes the track",
                def: def(),
                spawned: false,
                steps: vec![
                    (0, Hook(Working, "UserPromptSubmit"), Some((Working, "hook UserPromptSubmit"))),
                    (100, Exit, Some((Exited, "session closed"))),
                ],
            },
        ];
        for script in &scripts {
            run(script);
        }
    }

    #[test]
    fn turn_outcomes_follow_the_wait() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut t = Track::adopted(def(), "/p".into(), t0, SystemTime::now());
        let turn = t.deliver(None, "fix the bug", None, 1, at(0)).turn;
        let hook = |status, event: &str| Report {
            status: Some(status),
            reason: format!("hook {event}"),
            ..Report::default()
        };
        t.report(hook(Working, "PreToolUse"), at(10));
        assert_eq!(t.outcome(turn, 0, true).0, Outcome::Pending);
        let asked = t
            .report(hook(NeedsYou, "PermissionRequest"), at(20))
            .unwrap();
        assert_eq!(t.outcome(turn, asked.seq - 1, true).0, Outcome::NeedsYou);
        assert_eq!(
            t.outcome(turn, asked.seq, true).0,
            Outcome::Pending,
            "seen already"
        );
        assert_eq!(
            t.asked_since(0),
            [(asked.seq, Some("the agent is waiting for an answer".into()))]
        );
        t.answer(at(30));
        t.report(hook(Done, "Stop"), at(40));
        t.observe(
            &Seen {
                running: true,
                version: 1,
                ..Seen::default()
            },
            at(1_100),
            &Mem::default(),
        );
        assert_eq!(t.outcome(turn, asked.seq, true).0, Outcome::Settled);
        assert_eq!(t.outcome(turn, asked.seq, false).0, Outcome::Closed);
        assert_eq!(
            t.outcome(7, asked.seq, true),
            (Outcome::Stalled, Some("no turn 7".into()))
        );
    }
}
