//! The success replies of the `termio sessions` verbs (shared/spec/termio-sessions.md, "JSON
//! contract"): snake_case, `ok: true` and `schema_version: 1` on every one (added by [`Success`]),
//! optional fields omitted rather than empty or null.

use serde::{Deserialize, Serialize};

/// The JSON contract's version.
pub const SCHEMA_VERSION: u32 = 1;

/// A success reply: `{"ok": true, <body fields>, "schema_version": 1}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Success<T> {
    /// Always true.
    pub ok: bool,
    #[serde(flatten)]
    pub body: T,
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
}

impl<T> Success<T> {
    /// Wraps a reply body.
    pub fn new(body: T) -> Success<T> {
        Success {
            ok: true,
            body,
            schema_version: SCHEMA_VERSION,
        }
    }
}

/// A session's status (spec: "Live agent status"), for plain terminals computed from the PTY's
/// foreground process group (see `termio::tracked::termio_status`):
/// - `idle`: the shell is at its prompt and no command has run yet;
/// - `working`: a command (a process group other than the shell's) holds the terminal, or a
///   non-shell program is running;
/// - `done`: back at the shell prompt after a command ran;
/// - `needs-you`: an agent waits for an answer (a permission or trust question; see
///   `termio::status::agent`);
/// - `exited`: the session's program has ended (the session stays readable until it is
///   closed or its retention runs out), or an agent session's agent has exited back to its
///   shell. termio's addition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// At the shell prompt, no command run yet.
    Idle,
    /// A command holds the terminal (or a non-shell program runs).
    Working,
    /// Back at the prompt after a command.
    Done,
    /// An agent waits for an answer.
    NeedsYou,
    /// The program has ended.
    Exited,
}

impl Status {
    /// The status as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Working => "working",
            Status::Done => "done",
            Status::NeedsYou => "needs-you",
            Status::Exited => "exited",
        }
    }
}

/// One session as `list` shows it (and `watch` streams it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEntry {
    /// The canonical address, `termio://session/<uuid>`.
    pub link: String,
    /// The short form: the uuid's first 8 hex digits.
    pub id: String,
    /// The program's OSC title, else the command.
    pub title: String,
    /// The agent's name (`claude`, …), or `terminal` for plain terminals.
    pub agent: String,
    /// See [`Status`].
    pub status: Status,
    /// What the session runs: the `run` command, or the program and its arguments.
    pub description: String,
    /// The agent's transcript file; plain terminals have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// The shell's current directory (from `/proc/<pid>/cwd`), for running shells only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Agents: why the status is what it is (`hook Stop`, `osc 7501 state=working`, `screen
    /// rule …`, `dialog on screen`, `agent exited back to its shell`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Agents: when the status last changed (RFC 3339 UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// `needs-you` only: the question on screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Agents with a transcript: its line count when the last turn settled (`done` events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_end: Option<u64>,
}

/// `list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct List {
    /// The caller's project directory.
    pub project: String,
    /// Oldest first.
    pub sessions: Vec<SessionEntry>,
}

/// `run` (and `spawn`): the session exists; its command is still being delivered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    /// The new session's link.
    pub target: String,
    /// Its title (the command until the program sets one).
    pub title: String,
    /// Always true.
    pub created: bool,
    /// Always true: the command is typed once the shell is ready.
    pub queued: bool,
}

/// `read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Read {
    /// The session's link.
    pub target: String,
    /// Its title.
    pub title: String,
    /// The viewport, rows right-trimmed, trailing blank rows dropped, joined by `\n`.
    pub screen: String,
}

/// `send` without `--wait`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    /// The session's link.
    pub target: String,
    /// Its title.
    pub title: String,
    /// Agents only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// Agents only: the transcript line the response starts at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
}

/// `send`/`run` with `--wait`: the turn's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waited {
    /// The session's link.
    pub target: String,
    /// Its title.
    pub title: String,
    /// The status when the wait ended.
    pub status: Status,
    /// True when `--timeout` passed first (exit code 3).
    pub timed_out: bool,
    /// `run --wait` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<bool>,
    /// Agents only: the transcript file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// Agents only: the first transcript line of the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
    /// Agents only: the last transcript line of the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_end: Option<u64>,
    /// `needs-you` outcomes only (agents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Agents, a turn that ended `idle` only: why it did not finish (`failed: <the agent's
    /// error>`, `interrupted: …`, `hook StopFailure: <error>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `close`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Closed {
    /// The links closed, in argument order.
    pub closed: Vec<String>,
    /// Their titles, joined by ", ".
    pub title: String,
}

/// `focus`: the session now in front (what `termio attach` shows).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Focused {
    /// The focused session's link.
    pub focused: String,
    /// Its title.
    pub title: String,
    /// The project it was focused in (the scope attach follows). An addition to the
    /// contract's `focused`.
    pub project: String,
    /// The host's session id (`s_…`, what the host's attach stream takes). An addition to
    /// the contract's `focused`.
    pub session: String,
    /// For a front end (`termio attach`): the host id of the session it runs in, never shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer_session: Option<String>,
}

/// `termio [path]`: a folder registered as a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registered {
    /// The project's canonical path.
    pub project: String,
    /// False when it was registered already.
    pub added: bool,
}
