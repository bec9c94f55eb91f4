//! The `termio` command line (shared/spec/termio-sessions.md, "The termio command-line tool"):
//! `termio [path]` opens a folder as a project; `termio sessions <verb>` drives the project's
//! sessions. Every verb takes `--json` (the contract's shapes on stdout; errors as
//! `{"ok": false, "error", "message", "schema_version": 1}`), and prints a readable form
//! without it (errors on stderr). Exit codes: 0 success, 1 error (argument errors included),
//! 3 a `--wait` that timed out.
//!
//! Adding a verb: a variant of [`Verb`] with its `Args`, and an arm in [`run_verb`] that calls
//! the library and returns an [`Emitted`].

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde::Serialize;

use crate::termio::reply::{self, Success};
use crate::termio::verbs::{self, Ctx, RunReply, SendReply, Wait};
use crate::termio::{Code, Error};

const SESSIONS_ABOUT: &str = "\
Orchestrate the sessions of this project: list them, spawn agents and run plain commands in new \
terminals, type into them, read their screens, close them.

Every command resolves the caller's project (from TERMIO_SESSION inside a termio session, else \
the working directory: the deepest project opened with `termio [path]`, else the git top level, \
else the directory) and sees and drives only that project's sessions.

<link> is a termio://session/<uuid> address as `list` prints it; a bare uuid, a unique id prefix \
(the 8-character id is one) or a session title also works.

--json prints the contract's JSON (schema_version 1); errors are \
{\"ok\": false, \"error\": \"<code>\", \"message\": \"<text>\", \"schema_version\": 1}.
Exit codes: 0 success, 1 error, 3 --wait timed out.
Environment: TERMIO_SESSION, TERMIO_CLI_TIMEOUT (client timeout: ms or a duration, default 15 s).";

#[derive(Parser, Debug)]
#[command(
    name = "termio",
    version,
    about = "Open a folder as a termio project, and drive its sessions from the shell",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Top>,
    /// Folder to open as a project (default: the current directory).
    path: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum Top {
    /// Orchestrate this project's sessions (list, watch, spawn, run, send, read, close, focus).
    #[command(long_about = SESSIONS_ABOUT)]
    Sessions(SessionsArgs),
    /// Show the focused session of this project live in this terminal and type into it.
    #[command(long_about = ATTACH_ABOUT)]
    Attach(AttachArgs),
    /// `termio hooks …` and `termio skill …` (cli::termio_setup).
    #[command(flatten)]
    Setup(super::termio_setup::SetupCommand),
    /// Agent-side commands (`termio agent report`, run by status hooks).
    Agent(AgentArgs),
    /// Run the session host (started on demand).
    #[command(name = "__host", hide = true)]
    Host,
}

/// `termio agent`.
#[derive(Args, Debug)]
#[command(subcommand_required = true, arg_required_else_help = true)]
pub struct AgentArgs {
    #[command(subcommand)]
    pub verb: AgentVerb,
}

/// The `termio agent` verbs.
#[derive(Subcommand, Debug)]
pub enum AgentVerb {
    /// Report this session's agent status to termio (what status hooks run). Reads the hook's
    /// JSON from stdin, finds the session from TERMIO_SESSION, never blocks the agent, prints
    /// nothing, always exits 0.
    Report(ReportArgs),
}

/// `termio agent report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// working, idle, done, needs-you, or auto (from the event and the hook's input).
    #[arg(value_name = "STATE", value_parser = clap::builder::PossibleValuesParser::new(crate::termio::report::STATES))]
    pub state: String,
    /// The reporting agent (claude, codex, cursor, gemini, …).
    #[arg(long, value_name = "NAME", default_value = "")]
    pub agent: String,
    /// The hook event (Stop, UserPromptSubmit, …).
    #[arg(long, value_name = "EVENT", default_value = "")]
    pub event: String,
    /// The event's JSON as an argument instead of stdin (Codex `notify` appends it).
    #[arg(value_name = "JSON")]
    pub payload: Option<String>,
}

/// `termio sessions`.
#[derive(Args, Debug)]
#[command(subcommand_required = true, arg_required_else_help = true)]
pub struct SessionsArgs {
    /// Print the contract's JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub verb: Verb,
}

/// The `termio sessions` verbs.
#[derive(Subcommand, Debug)]
pub enum Verb {
    /// List the sessions in this project with their live status.
    List,
    /// Start a new plain terminal session typing a shell command (a dev server, a test run).
    #[command(
        long_about = "Start a new plain terminal session: an interactive shell ($SHELL, else bash) in the \
project directory, with the command typed in once the shell is ready (its prompt shown, then quiet). \
Replies at once with the session's link (created, queued); with --wait, once the command's output has \
settled."
    )]
    Run(RunArgs),
    /// Start a new agent session on a prompt; replies at once with its link.
    #[command(
        long_about = "Start a new agent session: your shell in the project directory with the agent \
started in it, the prompt typed once the agent shows its prompt box (a trust or permission dialog is \
never typed into: the session is needs-you until someone answers with `send`). --agent picks the agent \
(built in: claude, codex, cursor, gemini; more in $XDG_CONFIG_HOME/termio/agents.yaml or \
$TERMIO_AGENTS_FILE); the default is the caller's own kind. From inside a termio session the prompt \
opens with a short provenance envelope naming the caller. With --wait, blocks until the turn settles \
and replies with the transcript range holding the response."
    )]
    Spawn(SpawnArgs),
    /// Print a session's current screen without focusing it.
    Read(ReadArgs),
    /// Type text into a session and submit it with a real Return keypress.
    #[command(
        long_about = "Type text into a session, then press Return as a separate write. --key presses \
named keys after the text instead (Enter, Tab, Shift+Tab, Up, Ctrl+C, F5, …; repeatable); --no-enter \
types the text only. Text with line breaks is pasted (bracketed when the program asks), so it is one \
submission."
    )]
    Send(SendArgs),
    /// Deprecated alias of `send`, for agent sessions only (`wrong_agent` on a plain terminal).
    #[command(hide = true)]
    Answer(SendArgs),
    /// Close one or more sessions.
    Close(CloseArgs),
    /// Block and stream one line per status change (the push alternative to polling list).
    #[command(long_about = WATCH_ABOUT)]
    Watch(WatchArgs),
    /// Bring a session to the front: every `termio attach` of this project switches to it.
    Focus(FocusArgs),
}

const WATCH_ABOUT: &str = "\
Block and stream one line per status change of this project's sessions; the host pushes them.

First one line per session with its current status (\"snapshot\": true in --json; --no-snapshot \
skips them), then live changes into the states of --state (default done,needs-you; also working, \
idle, stalled). A needs-you line carries the on-screen question in prompt, a done line the \
transcript and cursor_end when the session has one. With --json, {\"heartbeat\": true} after 30 s \
of silence.
Exit codes: 0 after Ctrl-C, 2 when the host went away, 1 on an error.";

const ATTACH_ABOUT: &str = "\
Show the focused session of this project live in this terminal (a header row, then its screen) \
and forward every keystroke to it. With a link, that session is focused first; without one, the \
session in front (else the newest). `termio sessions focus <link>`, from any shell, switches what \
every attach of the project shows. Ctrl-] detaches and leaves the session running.";

/// `watch`.
#[derive(Args, Debug)]
pub struct WatchArgs {
    /// Live events to show, comma separated: working, idle, done, needs-you, stalled.
    #[arg(long = "state", value_name = "STATES")]
    pub states: Option<String>,
    /// Skip the roster (one line per session) printed first.
    #[arg(long)]
    pub no_snapshot: bool,
}

/// `focus`.
#[derive(Args, Debug)]
pub struct FocusArgs {
    /// The session (link, id, id prefix or title).
    #[arg(value_name = "LINK")]
    pub target: Option<String>,
}

/// `termio attach`.
#[derive(Args, Debug)]
pub struct AttachArgs {
    /// The session to focus and show (default: the one in front).
    #[arg(value_name = "LINK")]
    pub target: Option<String>,
    /// Print errors as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--wait` and `--timeout`.
#[derive(Args, Debug)]
pub struct WaitArgs {
    /// Block until the outcome. Agents: the turn was seen working, rested, and its response is
    /// in the transcript (the reply carries transcript, cursor, cursor_end), or the agent asks
    /// something (status needs-you, prompt). Plain terminals: the screen changed, then stayed
    /// still for 1.5 s (and no command started by the input still runs). Fails with
    /// prompt_stalled when the input has no effect within 5 s, agent_gone when the agent exits,
    /// session_closed when the session ends; exit code 3 on timeout.
    #[arg(long)]
    pub wait: bool,
    /// How long --wait waits, ms (default 300000, clamped 1000–600000).
    #[arg(long, value_name = "MS", requires = "wait")]
    pub timeout: Option<u64>,
}

impl WaitArgs {
    fn wait(&self) -> Option<Wait> {
        self.wait.then(|| Wait::new(self.timeout))
    }
}

/// `run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The shell command to type.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
    #[command(flatten)]
    pub wait: WaitArgs,
}

/// `spawn`.
#[derive(Args, Debug)]
pub struct SpawnArgs {
    /// The prompt.
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,
    /// The agent (default: the caller's own kind, else the agents file's default).
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    #[command(flatten)]
    pub wait: WaitArgs,
}

/// `read`.
#[derive(Args, Debug)]
pub struct ReadArgs {
    /// The session (link, id, id prefix or title).
    #[arg(value_name = "LINK")]
    pub target: Option<String>,
    /// Keep only the last N rows.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub lines: Option<u64>,
}

/// `send` (and `answer`).
#[derive(Args, Debug)]
pub struct SendArgs {
    /// The session (link, id, id prefix or title).
    #[arg(value_name = "LINK")]
    pub target: Option<String>,
    /// The text to type.
    #[arg(value_name = "TEXT")]
    pub text: Option<String>,
    /// A key to press after the text (repeatable); suppresses the implicit Return.
    #[arg(long = "key", value_name = "NAME")]
    pub keys: Vec<String>,
    /// Type the text without pressing Return.
    #[arg(long)]
    pub no_enter: bool,
    /// With no target (a lone prompt): the agent to spawn, as `spawn --agent`.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    #[command(flatten)]
    pub wait: WaitArgs,
}

/// `close`.
#[derive(Args, Debug)]
pub struct CloseArgs {
    /// The sessions (links, ids, id prefixes or titles).
    #[arg(value_name = "LINK")]
    pub targets: Vec<String>,
}

/// What a verb produced: its JSON document, its readable form, and the exit code.
pub struct Emitted {
    /// The `--json` document; `Null` for a verb that streamed its output already (`watch`).
    pub json: serde_json::Value,
    /// The readable form (stdout).
    pub text: String,
    /// The exit code.
    pub code: i32,
}

impl Emitted {
    /// A success (exit code 0).
    pub fn ok<T: Serialize>(reply: &T, text: String) -> Emitted {
        Emitted {
            json: serde_json::to_value(reply).expect("replies serialise"),
            text,
            code: 0,
        }
    }

    /// A streaming verb's end: its output is printed already; only the exit code is left.
    pub fn streamed(code: i32) -> Emitted {
        Emitted {
            json: serde_json::Value::Null,
            text: String::new(),
            code,
        }
    }
}

/// Entry point of the `termio` binary; returns the exit code.
pub fn main() -> i32 {
    let argv: Vec<OsString> = std::env::args_os().collect();
    let json = argv.iter().any(|a| a == "--json");
    let parsed = Cli::command()
        .try_get_matches_from(&argv)
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        // A status hook must never fail its agent, whatever it was given (README: `termio
        // agent report` always exits 0); its help still prints.
        Err(e)
            if argv.get(1).is_some_and(|a| a == "agent")
                && argv.get(2).is_some_and(|a| a == "report")
                && !matches!(
                    e.kind(),
                    clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
                ) =>
        {
            return 0
        }
        Err(e) => return usage_error(e, json),
    };
    match cli.command {
        Some(Top::Host) => {
            match crate::host::server::run(vec![crate::termio::service::extension()]) {
                Ok(()) => 0,
                Err(m) => {
                    super::print_error("termio", &m);
                    1
                }
            }
        }
        Some(Top::Setup(cmd)) => super::termio_setup::run(cmd),
        Some(Top::Agent(a)) => match a.verb {
            AgentVerb::Report(r) => {
                crate::termio::report::run(&r.state, &r.agent, &r.event, r.payload.as_deref())
            }
        },
        Some(Top::Sessions(s)) => {
            crate::host::client::install_interrupt_handler();
            let json = s.json;
            finish(run_verb(s.verb, json), json)
        }
        Some(Top::Attach(a)) => {
            let result = Ctx::from_env().and_then(|ctx| verbs::attach(&ctx, a.target.as_deref()));
            match result {
                Ok(()) => 0,
                Err(e) => fail(&e, a.json),
            }
        }
        None => finish(
            verbs::register(cli.path.as_deref()).map(|r| {
                let text = if r.body.added {
                    format!("opened project {}", r.body.project)
                } else {
                    format!("project {} (already open)", r.body.project)
                };
                Emitted::ok(&r, text)
            }),
            cli.json,
        ),
    }
}

/// Runs one verb (`json`: the caller asked for `--json`, which streaming verbs need to know).
pub fn run_verb(verb: Verb, json: bool) -> Result<Emitted, Error> {
    let mut ctx = Ctx::from_env()?;
    match verb {
        Verb::List => {
            let r = verbs::list(&ctx)?;
            Ok(Emitted::ok(&r, list_text(&r.body)))
        }
        Verb::Run(a) => {
            let command = a.command.unwrap_or_default();
            Ok(started(verbs::run(&mut ctx, &command, a.wait.wait())?))
        }
        Verb::Spawn(a) => spawn(
            &mut ctx,
            &a.prompt.unwrap_or_default(),
            a.agent.as_deref(),
            a.wait.wait(),
        ),
        Verb::Read(a) => {
            let r = verbs::read(
                &ctx,
                a.target.as_deref().unwrap_or(""),
                a.lines.map(|n| n as usize),
            )?;
            let text = r.body.screen.clone();
            Ok(Emitted::ok(&r, text))
        }
        Verb::Send(a) => send(&mut ctx, a, false),
        Verb::Answer(a) => {
            eprintln!("termio: warning: `answer` is deprecated; use `send`");
            send(&mut ctx, a, true)
        }
        Verb::Watch(a) => {
            let code = verbs::watch(&ctx, a.states.as_deref(), !a.no_snapshot, json)?;
            Ok(Emitted::streamed(code))
        }
        Verb::Focus(a) => {
            let r = verbs::focus(&ctx, Some(a.target.as_deref().unwrap_or("")))?;
            let text = format!("focused {} ({})", r.body.focused, r.body.title);
            Ok(Emitted::ok(&r, text))
        }
        Verb::Close(a) => {
            let r = verbs::close(&ctx, &a.targets)?;
            let text = r
                .body
                .closed
                .iter()
                .map(|l| format!("closed {l}"))
                .collect::<Vec<_>>()
                .join("\n");
            Ok(Emitted::ok(&r, text))
        }
    }
}

fn spawn(
    ctx: &mut Ctx,
    prompt: &str,
    agent: Option<&str>,
    wait: Option<Wait>,
) -> Result<Emitted, Error> {
    Ok(started(verbs::spawn(ctx, prompt, agent, wait)?))
}

/// What `run` and `spawn` print: the new session queued, or the outcome of its `--wait`.
fn started(reply: RunReply) -> Emitted {
    match reply {
        RunReply::Created(r) => {
            let text = format!("{}  {} (queued)", r.body.target, r.body.title);
            Emitted::ok(&r, text)
        }
        RunReply::Waited(r) => waited(&r),
    }
}

/// Whether a lone `send` argument names a session rather than being a prompt: a link, or a
/// hexadecimal id (prefix) of 8 characters or more.
fn looks_like_target(arg: &str) -> bool {
    let a = arg.trim();
    a.starts_with("termio://")
        || a.len() >= 8 && a.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

/// `send` (and, with `agent_only`, the deprecated `answer`, which only agent sessions take).
fn send(ctx: &mut Ctx, a: SendArgs, agent_only: bool) -> Result<Emitted, Error> {
    // `send` with no target behaves like `spawn` (spec): a lone prompt.
    if let (Some(prompt), None, true) = (&a.target, &a.text, a.keys.is_empty()) {
        if !looks_like_target(prompt) {
            return spawn(ctx, prompt, a.agent.as_deref(), a.wait.wait());
        }
    }
    let input = verbs::Input {
        text: a.text.unwrap_or_default(),
        keys: a.keys,
        no_enter: a.no_enter,
        agent_only,
    };
    let target = a.target.unwrap_or_default();
    match verbs::send(ctx, &target, &input, a.wait.wait())? {
        SendReply::Sent(r) => {
            let text = format!("sent to {} ({})", r.body.target, r.body.title);
            Ok(Emitted::ok(&r, text))
        }
        SendReply::Waited(r) => Ok(waited(&r)),
    }
}

fn waited(r: &Success<reply::Waited>) -> Emitted {
    let b = &r.body;
    let mut text = format!(
        "{}  {}{}",
        b.target,
        b.status.as_str(),
        if b.timed_out { " (timed out)" } else { "" }
    );
    if let Some(p) = &b.prompt {
        text.push_str(&format!("\nquestion: {p}"));
    }
    if let (Some(t), Some(from), Some(to)) = (&b.transcript, b.cursor, b.cursor_end) {
        text.push_str(&format!("\ntranscript: {t} lines {}..{to}", from + 1));
    }
    let mut e = Emitted::ok(r, text);
    if r.body.timed_out {
        e.code = 3;
    }
    e
}

fn list_text(l: &reply::List) -> String {
    let mut out = format!("project {}\n", l.project);
    if l.sessions.is_empty() {
        out.push_str("(no sessions)");
    }
    for s in &l.sessions {
        out.push_str(&format!(
            "{}  {:<8} {:<9} {}  {}\n",
            s.id,
            s.status.as_str(),
            s.agent,
            s.title,
            s.link
        ));
    }
    out.trim_end().to_string()
}

/// Prints a verb's outcome and returns the exit code (1 for an error).
fn finish(result: Result<Emitted, Error>, json: bool) -> i32 {
    match result {
        Ok(e) => {
            let printed = if e.json.is_null() {
                String::new()
            } else if json {
                format!("{}\n", e.json)
            } else if e.text.is_empty() {
                String::new()
            } else {
                format!("{}\n", e.text)
            };
            match super::print_stdout(&printed) {
                Ok(()) => e.code,
                Err(err) => {
                    super::print_error("termio", &err.message);
                    1
                }
            }
        }
        Err(e) => fail(&e, json),
    }
}

/// Prints an error (JSON on stdout with `--json`, text on stderr otherwise); returns 1.
fn fail(e: &Error, json: bool) -> i32 {
    if json {
        let _ = super::print_stdout(&format!("{}\n", e.to_json()));
    } else {
        super::print_error("termio", &format!("{}: {}", e.code.as_str(), e.message));
    }
    1
}

/// A clap error: help and version print as usual (exit 0); an unknown verb is `bad_op`, any
/// other argument error `bad_request` (exit 1).
fn usage_error(e: clap::Error, json: bool) -> i32 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return 0;
        }
        _ => {}
    }
    let code = match e.kind() {
        ErrorKind::InvalidSubcommand
        | ErrorKind::MissingSubcommand
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => Code::BadOp,
        _ => Code::BadRequest,
    };
    let rendered = e.render().to_string();
    if json {
        // The whole first paragraph, on one line: clap lists missing arguments on the lines
        // after "the following required arguments were not provided:".
        let message = rendered
            .lines()
            .map(str::trim)
            .skip_while(|l| l.is_empty())
            .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"))
            .collect::<Vec<_>>()
            .join(" ")
            .trim_start_matches("error: ")
            .to_string();
        let message = if message.is_empty() {
            "invalid arguments".to_string()
        } else {
            message
        };
        fail(&Error::new(code, message), true)
    } else {
        eprint!("{rendered}");
        1
    }
}
