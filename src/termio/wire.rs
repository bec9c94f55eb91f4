//! The `termio` op of the host protocol: the requests termio's clients send to the host
//! ([`TermioRequest`], built into a host request by [`request`]), the host's answers that
//! are not contract replies ([`Probe`], [`TurnProbe`], [`SendOutcome`], [`SpawnOutcome`]),
//! and termio's part of each session summary the host's event hub publishes
//! ([`SummaryPart`], under [`OP`]).
//!
//! On the wire a termio request is `{"op": "termio", "verb": …, …}`; the host carries it to
//! termio's extension (`termio::service`) without reading it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::reply::{self, SessionEntry, Status, Success};
use crate::host::protocol::{ExtensionRequest, Request};

/// The op of termio's requests, and the key of its part of host session summaries.
pub const OP: &str = "termio";

/// The host request carrying `request`.
pub fn request(request: &TermioRequest) -> Request {
    Request::Extension(
        ExtensionRequest::new(OP, request).expect("a termio request serialises to an object"),
    )
}

/// termio's part of a host session summary (under [`OP`]): the session's list entry, its
/// project directory and, for an agent whose turn has not settled yet (its transcript
/// catching up), `settling: true`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryPart {
    /// The `list` entry.
    #[serde(flatten)]
    pub entry: SessionEntry,
    /// The session's project directory.
    pub project: String,
    /// A delivered turn has not settled yet.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub settling: bool,
}

/// The reply to a hook's [`TermioRequest::Report`]: `{"ok": true, "schema_version": 1}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reported {}

/// Who is asking: the caller's session (`TERMIO_SESSION`) or its project directory (resolved
/// by the client from its working directory).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Caller {
    /// The uuid from `TERMIO_SESSION`.
    Session(String),
    /// An absolute project directory.
    Project(String),
}

/// The termio requests (the `termio` op of the host protocol). Replies are the contract's
/// documents (`termio::reply`) or its error shape (`termio::error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verb", rename_all = "snake_case")]
pub enum TermioRequest {
    /// The caller's project and its sessions (oldest first).
    List {
        /// Who asks.
        caller: Caller,
    },
    /// Starts `<shell> -i` in the caller's project and queues `command`.
    Run {
        /// Who asks.
        caller: Caller,
        /// The shell command to type.
        command: String,
        /// The shell program (the client's `$SHELL`, else `bash`).
        shell: String,
        /// The caller's environment ([`crate::pty::SpawnSpec::base_env`]); absent from older clients.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        env: Option<Vec<(String, String)>>,
        /// Columns, 1–500.
        width: u16,
        /// Rows, 1–500.
        height: u16,
    },
    /// The viewport text; `lines` keeps its last N rows.
    Read {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title (see `termio::link::resolve`).
        target: String,
        /// Keep the last N rows.
        lines: Option<usize>,
    },
    /// Types `text` (pasted when it has line breaks), then `keys`, then Return when `enter`.
    /// The reply adds `since` (the version before the input) and `command` (whether it
    /// submitted a command line at a shell prompt) for `--wait`.
    Send {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title (see `termio::link::resolve`).
        target: String,
        /// Typed as-is (pasted when it spans lines); may be empty.
        text: String,
        /// Key names (`term::keys::parse_key`), pressed after the text.
        keys: Vec<String>,
        /// Press Return (its own write, [`super::typist::SUBMIT_GAP`] after the text).
        enter: bool,
        /// `answer`: refuse (`wrong_agent`) unless the target is an agent session.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        agent_only: bool,
    },
    /// Closes sessions (all targets resolve first, or none is closed).
    Close {
        /// Who asks.
        caller: Caller,
        /// Links, uuids, id prefixes or titles.
        targets: Vec<String>,
    },
    /// Brings `target` to the front of the caller's project: attach front ends showing the
    /// project switch to it. Without a target, replies with the session in front now (else
    /// the project's newest session, which is then focused). The reply is
    /// [`reply::Focused`].
    Focus {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title; `None` asks what is in front.
        target: Option<String>,
        /// The pid of a front end that will show the session (`termio attach`): the session
        /// it runs in (if any) is never chosen, and naming it is `bad_request`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        viewer: Option<u32>,
    },
    /// Starts an agent session: `<shell> -i` in the caller's project, the agent's command typed
    /// once the shell is ready, `prompt` (with a provenance envelope when the caller is a
    /// session) typed once the agent is ready. Replies with a [`SpawnOutcome`].
    Spawn {
        /// Who asks.
        caller: Caller,
        /// The prompt.
        prompt: String,
        /// `--agent`'s definition (resolved by the client from its agents registry).
        #[serde(default)]
        agent: Option<Box<super::agents::AgentDef>>,
        /// Used when no `--agent` was given and the caller is no agent session (the agents
        /// file's `default`).
        #[serde(default)]
        fallback: Option<Box<super::agents::AgentDef>>,
        /// The shell program (the client's `$SHELL`, else `bash`).
        shell: String,
        /// The caller's environment ([`crate::pty::SpawnSpec::base_env`]); absent from older clients.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        env: Option<Vec<(String, String)>>,
        /// Columns, 1–500.
        width: u16,
        /// Rows, 1–500.
        height: u16,
    },
    /// One step of an agent `--wait`: blocks until turn `turn` is decided for a wait that
    /// started at status sequence `from_seq`, or `budget_ms` (100–1000) passes; replies with a
    /// [`TurnProbe`].
    Turn {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title.
        target: String,
        /// The turn (from [`SpawnOutcome`] or [`SendOutcome`]).
        turn: u64,
        /// The status sequence the wait starts after.
        from_seq: u64,
        /// The longest the probe blocks, ms (clamped 100–1000).
        budget_ms: u64,
    },
    /// A hook's status report (`termio agent report`) for the session `session` (the uuid
    /// from `TERMIO_SESSION`), whatever the project. Replies `{"ok": true, …}`.
    Report {
        /// The reporting session's uuid.
        session: String,
        /// `working`, `idle`, `done`, `needs-you` or `auto`.
        state: String,
        /// The agent's name (`--agent`).
        agent: String,
        /// The hook event (`--event`).
        event: String,
        /// The hook's stdin JSON (`null` when none).
        #[serde(default)]
        input: Value,
    },
    /// One step of a `--wait`: blocks until the screen version passes `since`, the session
    /// ends, or `budget_ms` (100–1000) passes; replies with a [`Probe`].
    Probe {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title (see `termio::link::resolve`).
        target: String,
        /// The last screen version the client has seen.
        since: u64,
        /// The longest the probe blocks, ms (clamped 100–1000).
        budget_ms: u64,
    },
}

/// The host's answer to [`TermioRequest::Probe`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// The session's link.
    pub target: String,
    /// Its title now.
    pub title: String,
    /// The screen version now.
    pub version: u64,
    /// The program is still running.
    pub running: bool,
    /// [`super::tracked::termio_status`] now.
    pub status: Status,
    /// Time since the screen last changed, ms.
    pub quiet_ms: u64,
    /// `run`: the version just before the queued command was typed, once it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered: Option<u64>,
}

/// The host's answer to [`TermioRequest::Send`]: the reply plus what `--wait` needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendOutcome {
    #[serde(flatten)]
    pub reply: Success<reply::Sent>,
    /// The screen version before the input.
    pub since: u64,
    /// The input submitted a command line at a shell prompt.
    pub command: bool,
    /// Agent sessions: the turn a `--wait` follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    /// Agent sessions: the status sequence the wait starts after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

/// The host's answer to [`TermioRequest::Spawn`]: the reply plus what `--wait` needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpawnOutcome {
    #[serde(flatten)]
    pub reply: Success<reply::Created>,
    /// The queued prompt's turn.
    pub turn: u64,
    /// The status sequence the wait starts after.
    pub seq: u64,
}

/// How `--wait` on a turn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Not decided yet.
    Pending,
    /// The turn settled; `cursor`..`cursor_end` hold its response.
    Settled,
    /// The agent is asking something (`prompt`).
    NeedsYou,
    /// The prompt had no effect (`prompt_stalled`).
    Stalled,
    /// The agent exited back to its shell (`agent_gone`).
    AgentGone,
    /// The session ended or was closed (`session_closed`).
    Closed,
}

/// The host's answer to a turn probe (`TermioRequest::Turn`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnProbe {
    /// The session's link.
    pub target: String,
    /// Its title.
    pub title: String,
    /// Where the turn stands.
    pub outcome: Outcome,
    /// The session's status now.
    pub status: Status,
    /// Why (see [`super::status::agent::View::reason`]).
    pub reason: String,
    /// `needs-you`: the question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The transcript file, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// Settled: lines before the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
    /// Settled: the last line of the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_end: Option<u64>,
    /// A message for the error outcomes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}
