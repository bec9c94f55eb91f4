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
