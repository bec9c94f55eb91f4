//! `console2svg mcp`: the session suite as a Model Context Protocol server on stdio (issue 18),
//! built on the official Rust SDK (`rmcp`). Standard output carries only protocol messages;
//! diagnostics go to standard error.
//!
//! Every tool is a `session` verb sent to the same background host as the CLI (so sessions
//! started here show in `console2svg session list` and the other way round), through
//! [`crate::host::client`] and the typed [`Request`]s. Pictures are rendered here with the
//! CLI's own code ([`crate::cli::session::snapshot`]). A tool's reply is the host's JSON
//! document (as text content and as `structuredContent`); a failure is a tool error
//! (`isError: true`) whose `structuredContent` is the contract's error envelope
//! `{"schemaVersion":1,"status":"error","error":{"code","message"}}` with the stable codes
//! of [`ErrorCode`] (`session_not_found`, `unsupported_key`, `wait_timeout`, …).
//!
//! Layering: this module sits with `cli`, above `host`; `host` never imports it.

pub mod params;
pub mod resources;
pub mod termio;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use base64::Engine;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResult, ResourceContents,
    ResourceUpdatedNotificationParam, ServerCapabilities, ServerInfo, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};

use crate::host::client;
use crate::host::protocol::{ErrorCode, HostError, Launch, Request};
use params::*;

/// What the server tells a client on `initialize`.
const INSTRUCTIONS: &str = "Drive terminal programs (vim, less, htop, REPLs, TUIs) in background PTY \
sessions and see their screens. Typical loop: session_start → session_wait for a prompt or text → \
session_send keys/text → session_wait (pass the send reply's `version` as `since`) → session_read \
(text) or session_capture (a PNG you can look at) → session_stop. Errors carry a stable code in \
structuredContent.error.code (session_not_found, unsupported_key, wait_timeout, invalid_request, …). \
Resources: each session's screen (console2svg://session/<id>/screen) and termio's watch of this \
project (console2svg://termio/watch: status changes of its sessions); subscribe to be notified.";

/// Runs the server on stdin/stdout until the client closes the connection.
///
/// Errors: a message when the runtime cannot start or the transport fails.
pub fn run() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the MCP runtime: {e}"))?;
    let closing = Arc::new(AtomicBool::new(false));
    let server = Server::new(Arc::clone(&closing));
    let result = runtime.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("MCP initialisation failed: {e}"))?;
        service
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| format!("MCP server failed: {e}"))
    });
    // Waits still polling the host end theirs (WaitEnd) and return; the runtime's drop waits
    // for them.
    closing.store(true, Ordering::SeqCst);
    drop(runtime);
    result
}

/// The MCP server: its tool router and the flag that ends running waits when the client goes.
#[derive(Clone)]
pub struct Server {
    tool_router: ToolRouter<Server>,
    closing: Arc<AtomicBool>,
    subscriptions: Arc<resources::Subscriptions>,
}

/// A tool's result: the reply document, or a host error shown as a tool error.
type Outcome = Result<CallToolResult, ErrorData>;

/// The reply document as a successful tool result (text + structured content).
fn ok(value: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(value);
    result
}

/// `e` as a tool error: `code: message` as text, the error envelope as structured content.
fn tool_error(e: &HostError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(e.to_string())]);
    result.structured_content = Some(e.envelope());
    result
}

/// A reply that carries a result but failed (`wait_timeout`, `session_exited` from a wait):
/// a tool error whose structured content is the whole reply (screen included).
fn failed_reply(value: Value) -> CallToolResult {
    let code = value["error"]["code"].as_str().unwrap_or("session_error");
    let message = value["error"]["message"].as_str().unwrap_or("");
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "{code}: {message}\n{value}"
    ))]);
    result.structured_content = Some(value);
    result
}

/// Runs blocking host I/O off the async workers and maps its outcome to a tool result.
async fn blocking<F>(work: F) -> Outcome
where
    F: FnOnce() -> Result<CallToolResult, HostError> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(e)) => Ok(tool_error(&e)),
        Err(e) => Err(ErrorData::internal_error(
            format!("the tool failed: {e}"),
            None,
        )),
    }
}

/// A host request whose reply is returned as is.
fn plain(request: Request) -> Result<CallToolResult, HostError> {
    client::request(&request).map(ok)
}

/// A base64 PNG as MCP image content.
fn png_image(bytes: &[u8]) -> ContentBlock {
    ContentBlock::image(
        base64::engine::general_purpose::STANDARD.encode(bytes),
        "image/png",
    )
}

#[tool_router(router = tool_router)]
impl Server {
    /// A server; `closing` set ends running waits.
    pub fn new(closing: Arc<AtomicBool>) -> Server {
        Server {
            tool_router: Self::tool_router(),
            closing,
            subscriptions: Arc::default(),
        }
    }

    #[tool(
        description = "Start a program in a background PTY session (a real terminal, default 100x24) and return its session id (`sessionId`) and state. The session lives in a background host shared with the `console2svg session` CLI, until session_stop. Then session_wait for what you expect, session_send input, session_read or session_capture the screen."
    )]
    async fn session_start(&self, Parameters(p): Parameters<StartParams>) -> Outcome {
        blocking(move || {
            if p.command.is_empty() {
                return Err(HostError::new(
                    ErrorCode::InvalidRequest,
                    "command: give the program and its arguments",
                ));
            }
            let width = cells(p.width, 100, "width")?;
            let height = cells(p.height, 24, "height")?;
            let cwd = p
                .cwd
                .map_or_else(std::env::current_dir, |c| std::path::absolute(&c))
                .map_err(|e| {
                    HostError::new(
                        ErrorCode::IoError,
                        format!("cannot resolve the working directory: {e}"),
                    )
                })?;
            plain(Request::Start(Launch {
                argv: p.command,
                cwd: cwd.to_string_lossy().into_owned(),
                width,
                height,
                color_env: !p.no_colorenv,
                delete_ci_env: !p.no_delete_envs,
                env: Some(crate::pty::caller_env()),
                scrollback: p.scrollback.map(|n| n as usize),
                record: p.record,
            }))
        })
        .await
    }

    #[tool(
        description = "List running sessions (id, command, size, state, screen version); `all: true` adds exited sessions still retained."
    )]
    async fn session_list(&self, Parameters(p): Parameters<ListParams>) -> Outcome {
        blocking(move || plain(Request::List { all: p.all })).await
    }

    #[tool(
        description = "Read a session's screen now: its text (one line per row), cursor position and visibility, terminal modes (alternate screen, application cursor keys, bracketed paste, …), size, state and screen `version`. `structured: true` adds every cell's colours and attributes (large). Does not wait: use session_wait first when the program is still drawing."
    )]
    async fn session_read(&self, Parameters(p): Parameters<ReadParams>) -> Outcome {
        blocking(move || {
            plain(Request::Read {
                id: p.id.into(),
                structured: p.structured,
            })
        })
        .await
    }

    #[tool(
        description = "Wait until text (literal, or `regex`) is `present` (default) or `absent` on a session's screen, optionally stable for `stableFor`, and return the screen. Event-driven (no sleeping needed). Pass `since` = the `version` from a session_send reply so text already on screen before the send does not count. Default timeout 30 s; on timeout the result is an error with code `wait_timeout` and the screen as it was; `session_exited` if the program ends first."
    )]
    async fn session_wait(
        &self,
        Parameters(p): Parameters<WaitParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let closing = Arc::clone(&self.closing);
        let cancelled = ctx.ct.clone();
        blocking(move || {
            wait(p, || {
                closing.load(Ordering::SeqCst) || cancelled.is_cancelled()
            })
        })
        .await
    }

    #[tool(
        description = "Send input to a session, in order, as one write: `inputs` is a list of {\"text\": …} (typed as-is, no newline added), {\"keys\": \"Enter\"} (one key name: Enter, Tab, Escape, Backspace, Up, Down, PageUp, F1–F12, Ctrl+C, Alt+X, Shift+Tab, KP5, …; encoded for the program's current modes), {\"paste\": …} (bracketed paste when enabled) or {\"rawHex\": \"1b5b41\"}. After a paste, or a bare Escape, that more input follows, the rest waits a quiet `gap` (default 200ms) so composers do not swallow the Return and Escape is not read as Alt. Keys such as Shift+Enter, Ctrl+Enter or Ctrl+Shift+A are sent the kitty keyboard protocol's way once the program enabled it (CSI > 1 u). The reply's `version` is the screen version to pass as `since` to session_wait. An unknown key name, or one the program's keyboard mode cannot encode, fails with `unsupported_key` and nothing is sent."
    )]
    async fn session_send(&self, Parameters(p): Parameters<SendParams>) -> Outcome {
        blocking(move || {
            if p.inputs.is_empty() {
                return Err(HostError::new(
                    ErrorCode::InvalidRequest,
                    "nothing to send: give at least one of text, keys, paste or rawHex in `inputs`",
                ));
            }
            let gap = p.gap.as_ref().map(|g| g.to_duration("gap")).transpose()?;
            plain(Request::Send {
                id: p.id.into(),
                inputs: p.inputs.into_iter().map(Into::into).collect(),
                gap_ms: gap.map(|g| g.as_millis().try_into().unwrap_or(u64::MAX)),
            })
        })
        .await
    }

    #[tool(
        description = "Resize a session's terminal to `width` columns × `height` rows (1–500); the program gets SIGWINCH and redraws. The reply's `version` can be passed as `since` to session_wait."
    )]
    async fn session_resize(&self, Parameters(p): Parameters<ResizeParams>) -> Outcome {
        blocking(move || {
            cells(Some(p.width), 100, "width")?;
            cells(Some(p.height), 24, "height")?;
            plain(Request::Resize {
                id: p.id.into(),
                width: p.width,
                height: p.height,
            })
        })
        .await
    }

    #[tool(
        description = "Take a picture of a session's screen: returns the PNG as image content (so you can see colours, highlighting, layout) and, as text, JSON with the SVG file written (`svg.path`), the PNG's pixel size and the session state. Appearance options as `console2svg session capture` (theme, window, font, fontsize, padding, …). `out` names the SVG file (journaled); default a private temporary file."
    )]
    async fn session_capture(&self, Parameters(p): Parameters<SessionCaptureParams>) -> Outcome {
        blocking(move || session_capture(p)).await
    }

    #[tool(
        description = "Stop a session (its process group is ended) and delete its data; `all: true` stops every session of this user, also those started from the CLI."
    )]
    async fn session_stop(&self, Parameters(p): Parameters<StopParams>) -> Outcome {
        blocking(move || match (p.id, p.all) {
            (Some(id), false) => plain(Request::Stop { id: id.into() }),
            (None, true) => plain(Request::StopAll),
            _ => Err(HostError::new(
                ErrorCode::InvalidRequest,
                "give exactly one of `id` and `all: true`",
            )),
        })
        .await
    }

    #[tool(
        description = "One-shot: run a command in a fresh PTY until it exits (or `timeout`, default 30 s: then status `partial`), and return its final screen as text (JSON: status, exitCode, screen text) plus a PNG picture as image content. No session is left behind. A single `command` element is run as a shell command line."
    )]
    async fn capture(&self, Parameters(p): Parameters<CaptureParams>) -> Outcome {
        blocking(move || one_shot(p)).await
    }

    #[tool(
        description = "termio: the sessions of this project (the server's working directory): each with its link, kind (terminal or agent), state (working, waiting, idle, exited, …) and title. Use the links as `target` in the other termio_ tools."
    )]
    async fn termio_list(&self, Parameters(_p): Parameters<termio::ListParams>) -> Outcome {
        blocking(|| Ok(termio::list())).await
    }

    #[tool(
        description = "termio: open a new terminal in this project and type a shell command line into it. With `wait: true` returns once the command finished and the prompt is back (its output in the reply), else at once with the new session's link."
    )]
    async fn termio_run(&self, Parameters(p): Parameters<termio::RunParams>) -> Outcome {
        blocking(move || Ok(termio::run(p))).await
    }

    #[tool(
        description = "termio: start a new coding-agent session (claude, codex, …) in this project and give it `prompt` once it is ready. With `wait: true` returns when the agent's turn ended."
    )]
    async fn termio_spawn(&self, Parameters(p): Parameters<termio::SpawnParams>) -> Outcome {
        blocking(move || Ok(termio::spawn(p))).await
    }

    #[tool(
        description = "termio: type `text` into a session of this project (Return follows unless `keys` or `noEnter`); `keys` are key names pressed after it. With `wait: true` returns the outcome: a command's output with the prompt back, or an agent's finished turn."
    )]
    async fn termio_send(&self, Parameters(p): Parameters<termio::SendParams>) -> Outcome {
        blocking(move || Ok(termio::send(p))).await
    }

    #[tool(
        description = "termio: a session's screen as text (right-trimmed, trailing blank rows dropped); `lines` keeps only the last rows."
    )]
    async fn termio_read(&self, Parameters(p): Parameters<termio::ReadParams>) -> Outcome {
        blocking(move || Ok(termio::read(p))).await
    }

    #[tool(description = "termio: close sessions of this project (their programs are ended).")]
    async fn termio_close(&self, Parameters(p): Parameters<termio::CloseParams>) -> Outcome {
        blocking(move || Ok(termio::close(p))).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
        .with_server_info(Implementation::new(
            "console2svg",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = in_thread(resources::list).await?;
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let uri = request.uri.clone();
        let subscriptions = Arc::clone(&self.subscriptions);
        let text = in_thread(move || resources::read(&uri, &subscriptions)).await?;
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            text,
            request.uri,
        )]))
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let subscriptions = Arc::clone(&self.subscriptions);
        let closing = Arc::clone(&self.closing);
        let runtime = tokio::runtime::Handle::current();
        let peer = context.peer.clone();
        let uri = request.uri;
        in_thread(move || {
            let updated = uri.clone();
            subscriptions.subscribe(&uri, closing, move || {
                let peer = peer.clone();
                let uri = updated.clone();
                runtime.spawn(async move {
                    let _ = peer
                        .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                        .await;
                });
            })
        })
        .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }
}

/// Runs blocking host I/O off the async workers for a non-tool request; a host error is a
/// protocol error (`resource_not_found` for a session that is not there, `invalid_params` for
/// a bad URI) whose data is the contract's error envelope.
async fn in_thread<T, F>(work: F) -> Result<T, ErrorData>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, HostError> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => {
            let data = Some(e.envelope());
            Err(match e.code {
                ErrorCode::SessionNotFound | ErrorCode::SessionExpired => {
                    ErrorData::resource_not_found(e.to_string(), data)
                }
                ErrorCode::InvalidRequest => ErrorData::invalid_params(e.to_string(), data),
                _ => ErrorData::internal_error(e.to_string(), data),
            })
        }
        Err(e) => Err(ErrorData::internal_error(
            format!("the request failed: {e}"),
            None,
        )),
    }
}

/// `session_wait`: WaitStart, then WaitPoll (each ≤ 100 ms in the host) until the waiter is
/// decided, the timeout passes or `gone()` (the client cancelled or disconnected), then
/// WaitEnd for an undecided waiter, as `console2svg session wait` does.
fn wait(p: WaitParams, gone: impl Fn() -> bool) -> Result<CallToolResult, HostError> {
    use client::WaitEnd;
    let (condition, timeout) = p.condition()?;
    let id = p.id.as_str();
    let mut reply = match client::wait(id, condition, Some(timeout), gone)? {
        WaitEnd::Matched(reply) => return Ok(ok(reply)),
        WaitEnd::SessionEnded(mut reply) => {
            reply["error"] = json!({"code": "session_exited", "message": format!("session {id} ended before the condition was met")});
            reply
        }
        WaitEnd::TimedOut(mut reply) => {
            reply["result"] = json!("timeout");
            reply["timedOut"] = json!(true);
            reply["error"] = json!({"code": "wait_timeout", "message": "the condition was not met before the timeout"});
            reply
        }
        WaitEnd::Stopped(mut reply) => {
            reply["result"] = json!("cancelled");
            reply["error"] = json!({"code": "cancelled", "message": "cancelled by the client"});
            reply
        }
    };
    reply["status"] = json!("error");
    Ok(failed_reply(reply))
}

/// `session_capture`: one snapshot rendered as SVG (written) and PNG (returned).
fn session_capture(p: SessionCaptureParams) -> Result<CallToolResult, HostError> {
    use crate::output::Format;
    use crate::render::fonts::Fonts;
    let args = p.appearance.to_args()?;
    let scale = scale(p.scale)?;
    let id = p.id.as_str();
    let fonts = Fonts::new();
    // Crop none, masking as configured (on by default): the picture an agent sees is the one
    // `session capture` would publish.
    let snap =
        crate::cli::session::snapshot(id, &args, crate::options::Options::default(), None, &fonts)?;
    let render = |format: Format, scale: f32| {
        format
            .render(&snap.screen, &snap.appearance, &fonts, scale)
            .map_err(|e| HostError::new(ErrorCode::InvalidRequest, e))
    };
    let svg = render(Format::Svg, 1.0)?;
    let png = render(Format::Png, scale)?;
    let svg_path = match &p.out {
        Some(out) => {
            let out = std::path::Path::new(out);
            if Format::from_path(out) != Ok(Format::Svg) {
                return Err(HostError::new(
                    ErrorCode::InvalidRequest,
                    format!("out: {} is not an .svg path", out.display()),
                ));
            }
            crate::cli::session::write_capture(id, &snap, out, Format::Svg, 1.0, &svg)?
        }
        None => crate::cli::session::write_inspection(id, &svg)?,
    };
    let (width, height) = png_size(&png);
    let doc = json!({
        "schemaVersion": 1,
        "sessionId": id,
        "state": snap.state,
        "svg": {"path": svg_path.to_string_lossy()},
        "png": {"width": width, "height": height, "scale": scale},
    });
    let mut result = ok(doc);
    result.content.push(png_image(&png));
    Ok(result)
}

/// The one-shot `capture` tool.
fn one_shot(p: CaptureParams) -> Result<CallToolResult, HostError> {
    use crate::capture::{self, CommandCapture, Status};
    use crate::output::Format;
    use crate::render::fonts::Fonts;
    let invalid = |m: String| HostError::new(ErrorCode::InvalidRequest, m);
    if p.command.is_empty() {
        return Err(invalid(
            "command: give the program and its arguments".into(),
        ));
    }
    let args = p.appearance.to_args()?;
    let scale = scale(p.scale)?;
    let cols = cells(p.width, 100, "width")?;
    let rows = cells(p.height, 24, "height")?;
    let timeout = match &p.timeout {
        Some(t) => t.to_duration("timeout")?,
        None => DEFAULT_CAPTURE_TIMEOUT,
    };
    let config = crate::options::load_config(None).map_err(invalid)?;
    // Masking as configured (on by default), as `capture` does.
    let still = config.still().map_err(invalid)?;
    let appearance = config
        .appearance()
        .overlay(&args.to_options())
        .resolve(Some(&p.command))
        .map_err(invalid)?;
    let appearance = still.mask_header(appearance);
    let cwd =
        std::env::current_dir().map_err(|e| HostError::new(ErrorCode::IoError, e.to_string()))?;
    let palette = appearance.palette(&[]);
    let captured = capture::run_command(&CommandCapture {
        spawn: crate::pty::SpawnSpec {
            argv: p.command.iter().map(Into::into).collect(),
            cwd,
            cols,
            rows,
            color_env: !p.no_colorenv,
            delete_ci_env: true,
            env: Vec::new(),
            base_env: Some(crate::pty::caller_env()),
        },
        timeout: Some(timeout),
        query_colors: crate::term::QueryColors {
            foreground: palette.foreground,
            background: palette.background,
            ansi: appearance.theme.ansi,
        },
        record: false,
        scrollback: crate::term::SCROLLBACK_LINES,
    })
    .map_err(|e| HostError::new(ErrorCode::SessionNotStarted, e.to_string()))?;
    let mut full = captured.screen;
    if args.no_cursor {
        full.cursor.visible = false;
    }
    let fonts = Fonts::new();
    let rows = full.viewport_rows();
    let screen = still
        .apply(full, rows, &appearance, &fonts)
        .map_err(invalid)?;
    let png = Format::Png
        .render(&screen, &appearance, &fonts, scale)
        .map_err(invalid)?;
    let artifact = match &p.out {
        Some(out) => {
            let out = std::path::Path::new(out);
            let format = Format::from_path(out).map_err(invalid)?;
            let bytes = format
                .render(&screen, &appearance, &fonts, scale)
                .map_err(invalid)?;
            crate::output::write_atomic(out, &bytes).map_err(|e| match e {
                crate::output::WriteError::Refused(m) => {
                    HostError::new(ErrorCode::PermissionDenied, m)
                }
                crate::output::WriteError::Io(m) => HostError::new(ErrorCode::IoError, m),
            })?;
            let abs = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
            json!({"path": abs.to_string_lossy(), "format": format.name()})
        }
        None => Value::Null,
    };
    let (width, height) = png_size(&png);
    let doc = json!({
        "schemaVersion": 1,
        "status": if captured.status == Status::Completed { "completed" } else { "partial" },
        "exitCode": captured.exit.as_ref().map(|e| e.code),
        "durationMs": captured.duration.as_millis() as u64,
        "screen": {"width": screen.width, "height": screen.rows.len(), "text": screen.text()},
        "artifact": artifact,
        "png": {"width": width, "height": height, "scale": scale},
    });
    let mut result = ok(doc);
    result.content.push(png_image(&png));
    Ok(result)
}

/// A PNG's width and height in px, from its IHDR chunk (bytes 16–23, big-endian; PNG
/// specification §11.2.2); zeros for bytes that are not a PNG.
pub fn png_size(png: &[u8]) -> (u32, u32) {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" {
        return (0, 0);
    }
    let word = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    (word(16), word(20))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_size_reads_the_ihdr_chunk() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&640u32.to_be_bytes());
        png.extend_from_slice(&480u32.to_be_bytes());
        assert_eq!(png_size(&png), (640, 480));
        assert_eq!(png_size(b"GIF89a"), (0, 0));
    }

    #[test]
    fn appearance_options_are_checked_by_the_cli_parser() {
        let good = AppearanceParams {
            theme: vec!["dracula".into()],
            forecolor: Some("#fff".into()),
            background: vec!["#000".into(), "#111".into()],
            no_cursor: true,
            ..Default::default()
        };
        let args = good.to_args().unwrap();
        assert_eq!(args.theme, ["dracula"]);
        assert_eq!(args.background, ["#000", "#111"]);
        assert!(args.no_cursor);
        let bad = AppearanceParams {
            forecolor: Some("red-ish".into()),
            ..Default::default()
        };
        let e = bad.to_args().unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidRequest);
        assert!(e.message.contains("red-ish"), "{}", e.message);
    }

    #[test]
    fn a_wait_needs_exactly_one_of_text_and_regex() {
        let p: WaitParams =
            serde_json::from_value(json!({"id": "s_1", "text": "a", "regex": "b"})).unwrap();
        assert_eq!(p.condition().unwrap_err().code, ErrorCode::InvalidRequest);
        let p: WaitParams = serde_json::from_value(
            json!({"id": "s_1", "regex": "x+", "until": "absent", "stableFor": "250ms", "timeout": 2}),
        )
        .unwrap();
        let (c, timeout) = p.condition().unwrap();
        assert!(c.regex && c.stable_for_ms == 250);
        assert_eq!(timeout, std::time::Duration::from_secs(2));
    }

    #[test]
    fn send_items_are_one_key_objects() {
        let p: SendParams = serde_json::from_value(
            json!({"id": "s_1", "inputs": [{"text": "hi"}, {"keys": "Enter"}, {"rawHex": "1b"}]}),
        )
        .unwrap();
        let inputs: Vec<crate::term::keys::Input> = p.inputs.into_iter().map(Into::into).collect();
        assert_eq!(
            inputs,
            [
                crate::term::keys::Input::Text("hi".into()),
                crate::term::keys::Input::Keys("Enter".into()),
                crate::term::keys::Input::RawHex("1b".into()),
            ]
        );
    }
}
