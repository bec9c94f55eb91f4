//! The termio verbs as MCP tools, for the caller's project: the project of the server's
//! working directory (agents start MCP servers in the project they work on), or the session
//! named by `TERMIO_SESSION` when the server runs inside a termio session. Each tool calls the
//! same verb as the `termio` CLI ([`crate::termio::verbs`]); replies are termio's contract
//! documents; a failure is a tool error whose `structuredContent` is the error envelope with
//! termio's code (`not_found`, `no_text`, `prompt_stalled`, …) under `error.code` and termio's
//! own error document under `termio`.

use rmcp::model::{CallToolResult, ContentBlock};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::termio::error::Error;
use crate::termio::verbs::{self, Ctx, Input, Wait};

/// `wait` and its timeout, shared by the verbs that can wait for the outcome.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitOptions {
    /// Wait for the outcome (the command's output and the prompt back, or the agent's turn
    /// ended) instead of returning at once.
    #[serde(default)]
    pub wait: bool,
    /// How long to wait, ms (default and limits as `termio … --wait --timeout`).
    pub timeout_ms: Option<u64>,
}

impl WaitOptions {
    fn wait(&self) -> Option<Wait> {
        self.wait.then(|| Wait::new(self.timeout_ms))
    }
}

/// `termio_list`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {}

/// `termio_run`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunParams {
    /// The shell command line to type into a new terminal of the project.
    pub command: String,
    #[serde(flatten)]
    pub wait: WaitOptions,
}

/// `termio_spawn`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpawnParams {
    /// The prompt typed into the new agent once it is ready.
    pub prompt: String,
    /// The agent (a name from the agents file: claude, codex, …); default: the caller's own
    /// kind, else the agents file's default.
    pub agent: Option<String>,
    #[serde(flatten)]
    pub wait: WaitOptions,
}

/// `termio_send`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendParams {
    /// The session: its link or id from termio_list.
    pub target: String,
    /// Text to type (pasted as one submission when it spans lines); Return follows unless
    /// `keys` or `noEnter`.
    #[serde(default)]
    pub text: String,
    /// Key names pressed after the text (Enter, Escape, Ctrl+C, Up, …); they replace the
    /// implicit Return.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Do not press Return after the text.
    #[serde(default)]
    pub no_enter: bool,
    #[serde(flatten)]
    pub wait: WaitOptions,
}

/// `termio_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadParams {
    /// The session: its link or id from termio_list.
    pub target: String,
    /// Only the last this many rows.
    pub lines: Option<usize>,
}

/// `termio_close`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloseParams {
    /// The sessions to close: links or ids from termio_list.
    pub targets: Vec<String>,
}

/// A verb's reply as a tool result, or its error as a tool error.
fn result<T: serde::Serialize>(reply: Result<T, Error>) -> CallToolResult {
    match reply.and_then(|r| {
        serde_json::to_value(r).map_err(|e| {
            Error::new(
                crate::termio::error::Code::BadRequest,
                format!("unwritable reply: {e}"),
            )
        })
    }) {
        Ok(value) => super::ok(value),
        Err(e) => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
                "{}: {}",
                e.code.as_str(),
                e.message
            ))]);
            result.structured_content = Some(json!({
                "schemaVersion": 1,
                "status": "error",
                "error": {"code": e.code.as_str(), "message": e.message},
                "termio": e,
            }));
            result
        }
    }
}

/// `termio_list`.
pub fn list() -> CallToolResult {
    result(Ctx::from_env().and_then(|ctx| verbs::list(&ctx)))
}

/// `termio_run`.
pub fn run(p: RunParams) -> CallToolResult {
    result(Ctx::from_env().and_then(|mut ctx| verbs::run(&mut ctx, &p.command, p.wait.wait())))
}

/// `termio_spawn`.
pub fn spawn(p: SpawnParams) -> CallToolResult {
    result(
        Ctx::from_env().and_then(|mut ctx| {
            verbs::spawn(&mut ctx, &p.prompt, p.agent.as_deref(), p.wait.wait())
        }),
    )
}

/// `termio_send`.
pub fn send(p: SendParams) -> CallToolResult {
    let input = Input {
        text: p.text,
        keys: p.keys,
        no_enter: p.no_enter,
        agent_only: false,
    };
    result(
        Ctx::from_env().and_then(|mut ctx| verbs::send(&mut ctx, &p.target, &input, p.wait.wait())),
    )
}

/// `termio_read`.
pub fn read(p: ReadParams) -> CallToolResult {
    result(Ctx::from_env().and_then(|ctx| verbs::read(&ctx, &p.target, p.lines)))
}

/// `termio_close`.
pub fn close(p: CloseParams) -> CallToolResult {
    result(Ctx::from_env().and_then(|ctx| verbs::close(&ctx, &p.targets)))
}

/// The watch resource: the status changes of this project's termio sessions, as
/// `termio sessions watch` streams them, with subscriptions (a subscribed client gets
/// `notifications/resources/updated` for every new line).
pub const WATCH_URI: &str = "console2svg://termio/watch";

/// Lines kept for readers of the watch resource (the oldest go first).
pub const WATCH_KEPT: usize = 100;

/// One line of the watch resource's `events`: a `watch --json` line and its number (1, 2, …
/// from the subscription's start), so a reader can tell which lines it has seen.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Numbered {
    pub seq: u64,
    #[serde(flatten)]
    pub line: crate::termio::watch::Line,
}

/// The watch lines seen since the subscription started (the last [`WATCH_KEPT`]).
#[derive(Debug, Default)]
pub struct WatchLog {
    next: u64,
    lines: std::collections::VecDeque<Numbered>,
}

impl WatchLog {
    /// Keeps `line` as the next numbered line.
    pub fn push(&mut self, line: crate::termio::watch::Line) {
        self.next += 1;
        self.lines.push_back(Numbered {
            seq: self.next,
            line,
        });
        if self.lines.len() > WATCH_KEPT {
            self.lines.pop_front();
        }
    }
}

fn host_error(e: Error) -> crate::host::protocol::HostError {
    use crate::host::protocol::{ErrorCode, HostError};
    HostError::new(ErrorCode::InvalidRequest, format!("termio: {}", e.message))
}

/// The caller's project directory (as `termio_list` resolves it).
///
/// Errors: `invalid_request` naming termio's reason (no project, host not live).
pub fn project() -> Result<String, crate::host::protocol::HostError> {
    Ctx::from_env()
        .and_then(|ctx| verbs::list(&ctx))
        .map(|l| l.body.project)
        .map_err(host_error)
}

/// The watch resource's text: `{"project", "sessions": [the roster as watch lines],
/// "events": [the lines since subscribing, numbered]}` (pretty JSON). Without a subscription
/// `events` is empty.
///
/// Errors: as [`project`].
pub fn watch_document(log: &WatchLog) -> Result<String, crate::host::protocol::HostError> {
    let list = Ctx::from_env()
        .and_then(|ctx| verbs::list(&ctx))
        .map_err(host_error)?
        .body;
    let sessions: Vec<_> = list
        .sessions
        .iter()
        .map(|e| crate::termio::watch::line(e, true))
        .collect();
    let doc = json!({
        "project": list.project,
        "sessions": sessions,
        "events": log.lines,
    });
    Ok(serde_json::to_string_pretty(&doc).unwrap_or_default())
}
