//! The `termio sessions` verbs, client side: resolve the caller ([`Ctx::from_env`]), ask the
//! host (the `termio` op of the host protocol, [`super::wire`], handled by termio's host extension), and return the
//! contract's typed replies or its one error shape. `--wait` ([`Wait`]) runs here, over
//! blocking host probes.
//!
//! Client timeout: every command gives up after 15 s without its reply (`not_live`), or
//! `TERMIO_CLI_TIMEOUT`: a bare number of milliseconds or a duration (`500ms`, `20s`, `2m`).
//! Under `--wait` the bound becomes the wait's timeout plus that much.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;

use super::agents;
use super::config::Config;
use super::error::{Code, Error};
use super::link;
use super::project::{self, Registry};
use super::reply::{self, Status, Success};
use super::wire::{
    self, Caller, Outcome, Probe, SendOutcome, SpawnOutcome, TermioRequest, TurnProbe,
};
use crate::duration::parse_duration;
use crate::host::client;

/// The default client timeout (spec, "Fail loud").
pub const CLI_TIMEOUT: Duration = Duration::from_secs(15);

/// `--wait`: the screen must have been still this long (and no command hold the terminal)
/// for the turn to count as settled.
pub const SETTLE: Duration = Duration::from_millis(1500);

/// `--wait`: input with no visible effect this long is `prompt_stalled`.
pub const STALL: Duration = Duration::from_secs(5);

/// `--timeout` default, ms.
pub const WAIT_TIMEOUT_MS: u64 = 300_000;

/// `--timeout` bounds, ms.
pub const WAIT_TIMEOUT_RANGE: (u64, u64) = (1_000, 600_000);

/// The longest one host probe blocks during a wait.
const PROBE_BUDGET: Duration = Duration::from_millis(500);

/// Terminal size of a `run` session.
pub const RUN_SIZE: (u16, u16) = (100, 24);

/// Terminal size of a `spawn` session.
pub const SPAWN_SIZE: (u16, u16) = (120, 40);

/// `TERMIO_CLI_TIMEOUT`, else [`CLI_TIMEOUT`].
///
/// Errors: `bad_request` for a value that is neither milliseconds nor a duration.
pub fn cli_timeout() -> Result<Duration, Error> {
    match std::env::var("TERMIO_CLI_TIMEOUT") {
        Ok(v) => parse_cli_timeout(&v),
        Err(_) => Ok(CLI_TIMEOUT),
    }
}

/// Parses a `TERMIO_CLI_TIMEOUT` value: a bare number is milliseconds, anything else a
/// duration (`500ms`, `20s`, `2m`, `1h`); it must be more than 0.
///
/// Errors: `bad_request`.
pub fn parse_cli_timeout(value: &str) -> Result<Duration, Error> {
    let v = value.trim();
    let parsed = if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        v.parse::<u64>()
            .map(Duration::from_millis)
            .map_err(|e| e.to_string())
    } else {
        // The host's parser reads a bare number as seconds; here it is milliseconds (above),
        // so its message's hint would contradict ours.
        parse_duration(v).map_err(|_| format!("'{v}' is not a duration (e.g. 500ms, 2s, 3m, 1h)"))
    };
    match parsed {
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err(Error::new(
            Code::BadRequest,
            "TERMIO_CLI_TIMEOUT must be more than 0",
        )),
        Err(e) => Err(Error::new(
            Code::BadRequest,
            format!("TERMIO_CLI_TIMEOUT: {e} (a bare number is milliseconds)"),
        )),
    }
}

/// A caller's context: who it is, and until when it waits for replies.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The caller: its session (`TERMIO_SESSION`) or its project.
    pub caller: Caller,
    base: Duration,
    deadline: Instant,
}

impl Ctx {
    /// Resolves the caller from the environment: `TERMIO_SESSION` when set, else the project
    /// of the working directory (see `termio::project::resolve_dir`).
    ///
    /// Errors: `disabled` when the config file turns session control off; `bad_request` for
    /// an unreadable config or registry or a bad `TERMIO_CLI_TIMEOUT`; `no_scope` when the
    /// working directory cannot be read.
    pub fn from_env() -> Result<Ctx, Error> {
        let config = Config::load().map_err(|e| Error::new(Code::BadRequest, e))?;
        if !config.session_control() {
            return Err(Error::new(
                Code::Disabled,
                "session control is turned off (session_control: false in the termio config)",
            ));
        }
        let base = cli_timeout()?;
        let caller = match std::env::var("TERMIO_SESSION") {
            // The bare uuid, as termio sets it; a pasted link is accepted too.
            Ok(uuid) if !uuid.trim().is_empty() => {
                let uuid = uuid.trim();
                Caller::Session(uuid.strip_prefix(link::SCHEME).unwrap_or(uuid).to_string())
            }
            _ => {
                let cwd = std::env::current_dir().map_err(|e| {
                    Error::new(
                        Code::NoScope,
                        format!(
                            "cannot tell the project: the working directory is unreadable ({e})"
                        ),
                    )
                })?;
                let registry = Registry::load().map_err(|e| Error::new(Code::BadRequest, e))?;
                let dir = project::resolve_dir(&cwd, &registry);
                Caller::Project(dir.to_string_lossy().into_owned())
            }
        };
        Ok(Ctx {
            caller,
            base,
            deadline: Instant::now() + base,
        })
    }

    /// Gives the command `extra` more time (a `--wait`'s timeout) on top of the client timeout.
    pub fn widen(&mut self, extra: Duration) {
        self.deadline = Instant::now() + extra + self.base;
    }

    /// Sends one termio request and parses its reply as `T`.
    ///
    /// Errors: the host's termio error; `not_live` when the host cannot be reached, does not
    /// answer before the deadline, or answers nothing readable.
    pub fn request<T: DeserializeOwned>(&self, request: TermioRequest) -> Result<T, Error> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::new(
                Code::NotLive,
                "the termio host did not answer within the client timeout",
            ));
        }
        let value = client::request_with_timeout(&wire::request(&request), left)
            .map_err(|e| Error::new(Code::NotLive, format!("termio host: {}", e.message)))?;
        if value.get("ok") == Some(&serde_json::Value::Bool(false)) {
            return Err(serde_json::from_value(value.clone()).unwrap_or_else(|_| {
                Error::new(
                    Code::NotLive,
                    format!("unreadable error from the host: {value}"),
                )
            }));
        }
        serde_json::from_value(value.clone()).map_err(|e| {
            Error::new(
                Code::NotLive,
                format!("unreadable reply from the host ({e}): {value}"),
            )
        })
    }
}

/// `--wait [--timeout <ms>]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    /// How long to wait for the outcome, already clamped.
    pub timeout: Duration,
}

impl Wait {
    /// A wait of `timeout_ms` (default [`WAIT_TIMEOUT_MS`]) clamped to [`WAIT_TIMEOUT_RANGE`].
    pub fn new(timeout_ms: Option<u64>) -> Wait {
        let ms = timeout_ms
            .unwrap_or(WAIT_TIMEOUT_MS)
            .clamp(WAIT_TIMEOUT_RANGE.0, WAIT_TIMEOUT_RANGE.1);
        Wait {
            timeout: Duration::from_millis(ms),
        }
    }
}

/// `run`'s reply: at once, or the outcome under `--wait`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum RunReply {
    Created(Success<reply::Created>),
    Waited(Success<reply::Waited>),
}

/// `send`'s reply: at once, or the outcome under `--wait`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum SendReply {
    Sent(Success<reply::Sent>),
    Waited(Success<reply::Waited>),
}

/// `termio [path]`: registers `path` (default: the working directory) as a project.
///
/// Errors: `bad_request` when it is not a directory or the registry cannot be written.
pub fn register(path: Option<&Path>) -> Result<Success<reply::Registered>, Error> {
    let dir = match path {
        Some(p) => p.to_path_buf(),
        None => std::env::current_dir().map_err(|e| {
            Error::new(
                Code::NoScope,
                format!("the working directory is unreadable: {e}"),
            )
        })?,
    };
    let (project, added) = Registry::register(&dir).map_err(|e| Error::new(Code::BadRequest, e))?;
    Ok(Success::new(reply::Registered {
        project: project.to_string_lossy().into_owned(),
        added,
    }))
}

/// `list`: the caller's project and its sessions, oldest first.
///
/// Errors: `no_scope`, `not_live`.
pub fn list(ctx: &Ctx) -> Result<Success<reply::List>, Error> {
    ctx.request(TermioRequest::List {
        caller: ctx.caller.clone(),
    })
}

/// `run "<command>"`: a new plain terminal (the user's `$SHELL`, else bash) in the caller's
/// project, the command typed once the shell is ready.
///
/// Errors: `no_text` for an empty command, `start_failed`, `no_scope`, `not_live`; under
/// `--wait` also `prompt_stalled` and `session_closed`.
pub fn run(ctx: &mut Ctx, command: &str, wait: Option<Wait>) -> Result<RunReply, Error> {
    if command.trim().is_empty() {
        return Err(Error::new(Code::NoText, "no command to run"));
    }
    let shell = std::env::var("SHELL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "bash".into());
    let created: Success<reply::Created> = ctx.request(TermioRequest::Run {
        caller: ctx.caller.clone(),
        command: command.to_string(),
        shell,
        env: Some(crate::pty::caller_env()),
        width: RUN_SIZE.0,
        height: RUN_SIZE.1,
    })?;
    let Some(wait) = wait else {
        return Ok(RunReply::Created(created));
    };
    ctx.widen(wait.timeout);
    let mut waited = wait_outcome(ctx, &created.body.target, None, true, wait)?;
    waited.body.created = Some(true);
    Ok(RunReply::Waited(waited))
}

/// `read <link> [--lines N]`: the viewport, right-trimmed, trailing blank rows dropped; the
/// last `lines` rows of it when given.
///
/// Errors: `no_target`, `not_found`, `ambiguous`, `no_scope`, `not_live`.
pub fn read(ctx: &Ctx, target: &str, lines: Option<usize>) -> Result<Success<reply::Read>, Error> {
    need_target(target)?;
    ctx.request(TermioRequest::Read {
        caller: ctx.caller.clone(),
        target: target.to_string(),
        lines,
    })
}

/// What `send` types.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    /// Typed as-is; pasted (one submission) when it spans lines.
    pub text: String,
    /// Key names (`term::keys`), pressed after the text; they suppress the implicit Return.
    pub keys: Vec<String>,
    /// `--no-enter`: no Return.
    pub no_enter: bool,
    /// The deprecated `answer`: the target must be an agent session (else `wrong_agent`).
    pub agent_only: bool,
}

/// `send <link> "<text>"`: the text, then a real Return as a separate write (unless `--key`
/// or `--no-enter`).
///
/// Errors: `no_target`, `no_text` (nothing to type), `bad_request` (an unknown key),
/// `not_found`, `ambiguous`, `not_live` (the session has exited), `no_scope`; under `--wait`
/// also `prompt_stalled` and `session_closed`.
pub fn send(
    ctx: &mut Ctx,
    target: &str,
    input: &Input,
    wait: Option<Wait>,
) -> Result<SendReply, Error> {
    need_target(target)?;
    if input.text.is_empty() && input.keys.is_empty() {
        return Err(Error::new(
            Code::NoText,
            "nothing to send: give text or --key",
        ));
    }
    let sent: SendOutcome = ctx.request(TermioRequest::Send {
        caller: ctx.caller.clone(),
        target: target.to_string(),
        text: input.text.clone(),
        keys: input.keys.clone(),
        enter: input.keys.is_empty() && !input.no_enter,
        agent_only: input.agent_only,
    })?;
    let Some(wait) = wait else {
        return Ok(SendReply::Sent(sent.reply));
    };
    ctx.widen(wait.timeout);
    if let (Some(turn), Some(seq)) = (sent.turn, sent.seq) {
        let waited = agent_wait(ctx, &sent.reply.body.target, turn, seq, wait)?;
        return Ok(SendReply::Waited(waited));
    }
    let waited = wait_outcome(
        ctx,
        &sent.reply.body.target,
        Some(sent.since),
        sent.command,
        wait,
    )?;
    Ok(SendReply::Waited(waited))
}

/// `focus <link>`: brings the session to the front of the project (attach front ends switch
/// to it). With `None` (what `termio attach` without a link asks), replies with the session
/// in front, else the project's newest one.
///
/// Errors: `no_target` (no link and no session in the project), `not_found`, `ambiguous`,
/// `no_scope`, `not_live`.
pub fn focus(ctx: &Ctx, target: Option<&str>) -> Result<Success<reply::Focused>, Error> {
    focus_for(ctx, target, None)
}

/// [`focus`] for a front end running as `viewer` (a pid): the session it runs in is skipped.
fn focus_for(
    ctx: &Ctx,
    target: Option<&str>,
    viewer: Option<u32>,
) -> Result<Success<reply::Focused>, Error> {
    if let Some(t) = target {
        need_target(t)?;
    }
    ctx.request(TermioRequest::Focus {
        caller: ctx.caller.clone(),
        target: target.map(str::to_string),
        viewer,
    })
}

/// `watch`: streams the caller's project's status changes to stdout until Ctrl-C (exit code
/// 0) or until the host goes away (2); see [`super::watch`].
///
/// Errors: `bad_request` for an unknown `--state`; `no_scope`, `not_live` when the project
/// cannot be resolved or the host cannot be reached.
pub fn watch(ctx: &Ctx, states: Option<&str>, snapshot: bool, json: bool) -> Result<i32, Error> {
    let states = match states {
        Some(list) => {
            super::watch::parse_states(list).map_err(|m| Error::new(Code::BadRequest, m))?
        }
        None => super::watch::DEFAULT_STATES
            .iter()
            .map(|s| s.to_string())
            .collect(),
    };
    let project = list(ctx)?.body.project;
    let options = super::watch::WatchOptions {
        project,
        states,
        snapshot,
        json,
    };
    super::watch::run(&options, &mut std::io::stdout())
        .map_err(|e| Error::new(Code::NotLive, format!("termio host: {}", e.message)))
}

/// `termio attach [link]`: focuses the target (or takes the session in front) and shows it
/// live in this terminal until Ctrl-] (see [`super::attach`]).
///
/// Errors: as [`focus`]; `not_live` when the host goes away while attached.
pub fn attach(ctx: &Ctx, target: Option<&str>) -> Result<(), Error> {
    if !rustix::termios::isatty(std::io::stdin()) {
        return Err(Error::new(
            Code::BadRequest,
            "termio attach needs a terminal: stdin is not a tty",
        ));
    }
    let me = std::process::id();
    let front = focus_for(ctx, target, Some(me))?.body;
    let own = front.viewer_session.clone();
    // When the shown session closes: the one in front now, else the newest (never our own).
    let next = || focus_for(ctx, None, Some(me)).ok().map(|f| f.body.session);
    super::attach::run(&front.project, front.session, own, next)
        .map_err(|e| Error::new(Code::NotLive, format!("termio host: {}", e.message)))
}

/// `spawn "<prompt>" [--agent NAME]`: a new agent session in the caller's project: the
/// user's shell with the agent started in it, the prompt typed once the agent is ready (after
/// any trust dialog is answered). The agent is `--agent`'s, else the caller's own kind, else
/// the agents file's `default`.
///
/// Errors: `no_text`, `bad_agent` (unknown name or a bad agents file), `no_agent`,
/// `start_failed`, `no_scope`, `not_live`; under `--wait` also `prompt_stalled`,
/// `session_closed` and `agent_gone`.
pub fn spawn(
    ctx: &mut Ctx,
    prompt: &str,
    agent: Option<&str>,
    wait: Option<Wait>,
) -> Result<RunReply, Error> {
    if prompt.trim().is_empty() {
        return Err(Error::new(Code::NoText, "no prompt to spawn with"));
    }
    let registry = agents::Registry::load()?;
    let agent = agent.map(|a| registry.get(a)).transpose()?.map(Box::new);
    let fallback = registry.default_agent()?.map(Box::new);
    let shell = std::env::var("SHELL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "bash".into());
    let spawned: SpawnOutcome = ctx.request(TermioRequest::Spawn {
        caller: ctx.caller.clone(),
        prompt: prompt.to_string(),
        agent,
        fallback,
        shell,
        env: Some(crate::pty::caller_env()),
        width: SPAWN_SIZE.0,
        height: SPAWN_SIZE.1,
    })?;
    let Some(wait) = wait else {
        return Ok(RunReply::Created(spawned.reply));
    };
    ctx.widen(wait.timeout);
    let target = &spawned.reply.body.target;
    // The error shape has no `target`: the message names the session that was created.
    let mut waited =
        agent_wait(ctx, target, spawned.turn, spawned.seq, wait).map_err(|mut e| {
            e.message = format!("{} (session {target})", e.message);
            e
        })?;
    waited.body.created = Some(true);
    Ok(RunReply::Waited(waited))
}

/// `--wait` on an agent turn (spec, "Waiting for the outcome"; see [`super::status::agent`]):
/// settled (the turn was seen working and rested, and the transcript caught up) gives the
/// status and the `cursor`..`cursor_end` range; `needs-you` short-circuits with `prompt`;
/// `prompt_stalled`, `agent_gone` and `session_closed` are errors; the timeout gives a normal
/// reply with `timed_out: true`.
fn agent_wait(
    ctx: &Ctx,
    target: &str,
    turn: u64,
    from_seq: u64,
    wait: Wait,
) -> Result<Success<reply::Waited>, Error> {
    let deadline = Instant::now() + wait.timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let p: TurnProbe = match ctx.request(TermioRequest::Turn {
            caller: ctx.caller.clone(),
            target: target.to_string(),
            turn,
            from_seq,
            budget_ms: left.min(PROBE_BUDGET).as_millis() as u64,
        }) {
            Ok(p) => p,
            // Closed and removed between two probes.
            Err(e) if e.code == Code::NotFound => {
                return Err(Error::new(
                    Code::SessionClosed,
                    format!("session {target} was closed during the wait"),
                ))
            }
            Err(e) => return Err(e),
        };
        let fail = |code: Code, what: &str| {
            Err(Error::new(
                code,
                p.message
                    .clone()
                    .unwrap_or_else(|| format!("session {target}: {what}")),
            ))
        };
        let timed_out = Instant::now() >= deadline;
        let body = |timed_out: bool| {
            Success::new(reply::Waited {
                target: p.target.clone(),
                title: p.title.clone(),
                status: p.status,
                timed_out,
                created: None,
                transcript: p.transcript.clone(),
                cursor: p.cursor,
                cursor_end: p.cursor_end,
                prompt: p.prompt.clone(),
                reason: (p.outcome == Outcome::Settled && p.status == Status::Idle)
                    .then(|| p.reason.clone())
                    .filter(|r| !r.is_empty()),
            })
        };
        match p.outcome {
            Outcome::Settled | Outcome::NeedsYou => return Ok(body(false)),
            Outcome::Stalled => return fail(Code::PromptStalled, "the prompt had no effect"),
            Outcome::AgentGone => return fail(Code::AgentGone, "the agent exited"),
            Outcome::Closed => return fail(Code::SessionClosed, "the session ended"),
            Outcome::Pending if timed_out => return Ok(body(true)),
            Outcome::Pending => {}
        }
    }
}

/// `close <link>…`: closes the sessions (all resolve first, or none is closed).
///
/// Errors: `no_target`, `not_found`, `ambiguous`, `no_scope`, `not_live`.
pub fn close(ctx: &Ctx, targets: &[String]) -> Result<Success<reply::Closed>, Error> {
    if targets.is_empty() {
        return Err(Error::new(Code::NoTarget, "no session given"));
    }
    for t in targets {
        need_target(t)?;
    }
    ctx.request(TermioRequest::Close {
        caller: ctx.caller.clone(),
        targets: targets.to_vec(),
    })
}

fn need_target(target: &str) -> Result<(), Error> {
    if target.trim().is_empty() {
        return Err(Error::new(
            Code::NoTarget,
            "no session given (a termio://session/<uuid> link, an id prefix or a title)",
        ));
    }
    Ok(())
}

/// `--wait` on a plain terminal: screen settling (spec, "Waiting for the outcome").
///
/// The turn starts at `since` (the version before the input; for `run`, `None`: the version
/// just before the queued command is typed, once it is). It has had an effect once the screen
/// changed after it (or, for a command line submitted at a shell prompt, once the command
/// holds the terminal). It has settled once it had an effect, no command it started holds the
/// terminal any more, and the screen has been still for [`SETTLE`]. No effect within
/// [`STALL`] is `prompt_stalled`; the session ending is `session_closed`; the timeout gives a
/// normal reply with `timed_out: true`. Each probe blocks in the host until the screen
/// changes or 500 ms pass (and never returns in under 100 ms).
fn wait_outcome(
    ctx: &Ctx,
    target: &str,
    since: Option<u64>,
    command: bool,
    wait: Wait,
) -> Result<Success<reply::Waited>, Error> {
    let start = Instant::now();
    let deadline = start + wait.timeout;
    let mut base = since;
    let mut seen = since.unwrap_or(0);
    let mut stall_from = start;
    let mut effect = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let p: Probe = ctx.request(TermioRequest::Probe {
            caller: ctx.caller.clone(),
            target: target.to_string(),
            since: seen,
            budget_ms: left.min(PROBE_BUDGET).as_millis() as u64,
        })?;
        if !p.running {
            return Err(Error::new(
                Code::SessionClosed,
                format!("session {target} ended during the wait"),
            ));
        }
        let now = Instant::now();
        seen = p.version;
        let timed_out = now >= deadline;
        let Some(b) = base.or(p.delivered) else {
            // `run`: the command is not typed yet.
            if timed_out {
                return Ok(waited(&p, true));
            }
            continue;
        };
        if base.is_none() {
            base = Some(b);
            stall_from = now;
        }
        let busy = command && p.status == Status::Working;
        effect |= p.version > b || busy;
        if effect && !busy && p.quiet_ms >= SETTLE.as_millis() as u64 {
            return Ok(waited(&p, false));
        }
        if !effect && now.duration_since(stall_from) >= STALL {
            return Err(Error::new(
                Code::PromptStalled,
                format!(
                    "the input had no visible effect on {target} within {} s",
                    STALL.as_secs()
                ),
            ));
        }
        if timed_out {
            return Ok(waited(&p, true));
        }
    }
}

fn waited(p: &Probe, timed_out: bool) -> Success<reply::Waited> {
    Success::new(reply::Waited {
        target: p.target.clone(),
        title: p.title.clone(),
        status: p.status,
        timed_out,
        created: None,
        transcript: None,
        cursor: None,
        cursor_end: None,
        prompt: None,
        reason: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_timeouts_are_ms_or_durations() {
        assert_eq!(parse_cli_timeout("1500"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_cli_timeout(" 20s "), Ok(Duration::from_secs(20)));
        assert_eq!(parse_cli_timeout("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_cli_timeout("2m"), Ok(Duration::from_secs(120)));
        for bad in ["", "0", "banana", "-5"] {
            assert_eq!(
                parse_cli_timeout(bad).unwrap_err().code,
                Code::BadRequest,
                "{bad}"
            );
        }
    }

    #[test]
    fn wait_timeouts_are_clamped() {
        assert_eq!(Wait::new(None).timeout, Duration::from_millis(300_000));
        assert_eq!(Wait::new(Some(10)).timeout, Duration::from_millis(1_000));
        assert_eq!(
            Wait::new(Some(9_999_999)).timeout,
            Duration::from_millis(600_000)
        );
        assert_eq!(Wait::new(Some(4_321)).timeout, Duration::from_millis(4_321));
    }
}
