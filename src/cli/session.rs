//! `console2svg session …`: every subcommand prints one JSON document on stdout (errors as the
//! contract's envelope, with the message also on stderr) and exits 0 on success, 1 on failure.

use std::ffi::OsString;
use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use clap::{ArgMatches, Args, Subcommand};
use serde_json::{json, Value};

use crate::host::client;
use crate::host::protocol::{
    parse_duration, Condition, ErrorCode, HostError, Launch, Request, Until,
};
use crate::term::keys::Input;

/// `session` subcommands.
#[derive(Subcommand, Debug)]
pub enum SessionCommand {
    /// Start a program in a background PTY session.
    Start(StartArgs),
    /// List sessions (running; --all adds retained exited ones).
    List {
        #[arg(long)]
        all: bool,
    },
    /// Read the screen.
    Read {
        id: String,
        /// Include the row-major cell snapshot.
        #[arg(long)]
        structured: bool,
    },
    /// Wait for text to appear or disappear.
    Wait(WaitArgs),
    /// Send text, keys, pasted text or raw bytes, in argument order, as one request.
    Send(SendArgs),
    /// Resize the terminal (the program gets SIGWINCH).
    Resize {
        id: String,
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=500))]
        width: u16,
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=500))]
        height: u16,
    },
    /// Render the current screen to an SVG file (same options as `capture`).
    Capture {
        id: String,
        /// Output file.
        #[arg(short = 'o', long = "out", default_value = "output.svg")]
        out: std::path::PathBuf,
        /// Pixel scale of raster output (`-o x.png`), 0.1–10.
        #[arg(long, default_value_t = 1.0)]
        scale: f32,
        #[command(flatten)]
        appearance: Box<super::appearance::AppearanceArgs>,
        #[command(flatten)]
        still: Box<super::still::StillArgs>,
    },
    /// Render the current screen to a private temporary SVG and print its path.
    Inspect {
        id: String,
        #[command(flatten)]
        appearance: Box<super::appearance::AppearanceArgs>,
        #[command(flatten)]
        still: Box<super::still::StillArgs>,
    },
    /// Write the session's journal as a scenario document (YAML; JSON for .json).
    Export {
        id: String,
        /// Output file: a scenario document (`.yaml`, appended when there is no extension;
        /// `.json`), or the session's output so far as an asciicast v2 recording (`.cast`).
        #[arg(short = 'o', long = "out")]
        out: std::path::PathBuf,
        /// Secret masking of a cast's output (the auto rules unless `--mask-auto false`).
        #[command(flatten)]
        mask: super::still::MaskArgs,
    },
    /// Stop a session (or all) and delete its data.
    Stop {
        /// The session to stop.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<String>,
        /// Stop every session.
        #[arg(long)]
        all: bool,
        /// Do not ask for confirmation (required when stdin is not a terminal).
        #[arg(short = 'y', long)]
        yes: bool,
    },
}

/// `session start` options.
#[derive(Args, Debug)]
pub struct StartArgs {
    /// Columns (1–500).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=500))]
    width: u16,
    /// Rows (1–500).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u16).range(1..=500))]
    height: u16,
    /// Working directory of the program (default: the current directory).
    #[arg(long)]
    cwd: Option<std::path::PathBuf>,
    /// Do not set TERM=xterm-256color, COLORTERM=truecolor, FORCE_COLOR=3.
    #[arg(long)]
    no_colorenv: bool,
    /// Do not remove CI and TF_BUILD from the environment.
    #[arg(long)]
    no_delete_envs: bool,
    /// Rows of scrollback the session keeps, 0–100000 (default: the config's
    /// `terminal.scrollback`, else 2000); the oldest rows go first.
    #[arg(long, value_name = "ROWS", value_parser = clap::value_parser!(u32).range(0..=crate::term::MAX_SCROLLBACK as i64))]
    scrollback: Option<u32>,
    /// Keep the session's output with its timing (at most 4 MiB), so `session export ID -o
    /// x.cast` can write it as an asciicast; off by default (it costs memory per session).
    #[arg(long)]
    record: bool,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

/// `session wait` options.
#[derive(Args, Debug)]
pub struct WaitArgs {
    id: String,
    /// Literal, case-sensitive text.
    #[arg(long, required_unless_present = "regex", conflicts_with = "regex")]
    text: Option<String>,
    /// A regular expression instead of literal text.
    #[arg(long)]
    regex: Option<String>,
    #[arg(long, value_enum, default_value = "present")]
    until: UntilArg,
    /// The condition must hold this long (ms, s, m, h; a bare number is seconds).
    #[arg(long, value_parser = parse_duration, default_value = "0")]
    stable_for: Duration,
    /// Give up after this long (default: no limit).
    #[arg(long, value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// Only rows written after this version (from a send or resize reply) can match.
    #[arg(long)]
    since: Option<u64>,
    /// A whole row (right-trimmed) must equal the text.
    #[arg(long)]
    line: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum UntilArg {
    Present,
    Absent,
}

/// `session send` options (repeatable; sent in argument order).
#[derive(Args, Debug)]
pub struct SendArgs {
    id: String,
    /// Text typed as-is (no newline added, no escapes interpreted).
    #[arg(long, action = clap::ArgAction::Append)]
    text: Vec<String>,
    /// A key name: Enter, Tab, Shift+Tab, Up, F5, Ctrl+C, KP5, … (Shift+Enter, Ctrl+Enter,
    /// Ctrl+Shift+A… once the program enabled the kitty keyboard protocol)
    #[arg(long, action = clap::ArgAction::Append)]
    keys: Vec<String>,
    /// Text pasted (bracketed when the program enabled mode 2004).
    #[arg(long, action = clap::ArgAction::Append)]
    paste: Vec<String>,
    /// Bytes as hex pairs, e.g. 1B5B41.
    #[arg(long, action = clap::ArgAction::Append)]
    raw_hex: Vec<String>,
    /// Quiet gap after a --paste, or a bare Escape key, when more input follows in this send
    /// (default 200ms; 0 for none; at most 10s): composers that debounce a paste drop a Return
    /// that arrives with it, and programs read ESC + text within their escape timeout as Alt+text.
    #[arg(long, value_parser = parse_gap, allow_negative_numbers = true)]
    gap: Option<Duration>,
}

/// `--gap`: a duration from 0 to the host's [`crate::host::session::MAX_INPUT_GAP`]; a negative
/// or larger value is refused here, naming the range.
fn parse_gap(s: &str) -> Result<Duration, String> {
    let max = crate::host::session::MAX_INPUT_GAP;
    let out_of_range = || {
        format!(
            "'{s}' is not a gap from 0 to {} (e.g. 200ms; 0 for none)",
            crate::duration::format_duration_ms(max.as_millis() as u64)
        )
    };
    if s.trim_start().starts_with('-') {
        return Err(out_of_range());
    }
    match parse_duration(s) {
        Ok(d) if d <= max => Ok(d),
        Ok(_) => Err(out_of_range()),
        Err(e) => Err(e),
    }
}

/// Prints a reply and returns the exit code: 0, or 1 for an error envelope.
fn emit(result: Result<Value, HostError>) -> i32 {
    match result {
        Ok(v) => {
            if let Err(e) = super::print_stdout(&format!("{v}\n")) {
                super::print_error("console2svg", &e.message);
                return 1;
            }
            if v["status"] == "error" {
                if let Some(m) = v["error"]["message"].as_str() {
                    super::print_error("console2svg", m);
                }
                1
            } else {
                0
            }
        }
        Err(e) => {
            let _ = super::print_stdout(&format!("{}\n", e.envelope()));
            super::print_error("console2svg", &e.message);
            1
        }
    }
}

/// A `session` argument error (clap's): the error envelope with `invalid_request` and one
/// line naming the argument ([`super::clap_error_line`]) on stdout, the line on stderr; exit 1
/// like every other envelope (session spec: "Operation failures also return a JSON envelope on
/// standard output").
pub fn usage_error(e: &clap::Error) -> i32 {
    emit(Err(HostError::new(
        ErrorCode::InvalidRequest,
        super::clap_error_line(e),
    )))
}

/// Prints `message` as an `invalid_request` envelope (a `session` usage error found before
/// clap, such as no verb at all) and returns the exit code, 1.
pub fn usage_message(message: String) -> i32 {
    emit(Err(HostError::new(ErrorCode::InvalidRequest, message)))
}

/// Runs a `session` subcommand; `matches` are the `send` matches (for argument order).
pub fn run(
    command: SessionCommand,
    send_matches: Option<&ArgMatches>,
    config: Option<&std::path::Path>,
) -> i32 {
    client::install_interrupt_handler();
    match command {
        SessionCommand::Start(a) => {
            let cwd = match a
                .cwd
                .map_or_else(std::env::current_dir, |c| std::path::absolute(&c))
            {
                Ok(c) => c,
                Err(e) => {
                    return emit(Err(HostError::new(
                        ErrorCode::IoError,
                        format!("cannot resolve the working directory: {e}"),
                    )))
                }
            };
            let (configured, environment) = match start_config(config) {
                Ok(v) => v,
                Err(e) => return emit(Err(e)),
            };
            let scrollback = a.scrollback.map(|rows| rows as usize).or(configured);
            emit(client::request(&Request::Start(Launch {
                argv: a
                    .command
                    .iter()
                    .map(|s| s.to_string_lossy().into_owned())
                    .collect(),
                cwd: cwd.to_string_lossy().into_owned(),
                width: a.width,
                height: a.height,
                color_env: environment.color_env(a.no_colorenv),
                delete_ci_env: environment.delete_ci_env(a.no_delete_envs),
                env: Some(crate::pty::caller_env()),
                scrollback,
                record: a.record,
            })))
        }
        SessionCommand::List { all } => emit(client::request(&Request::List { all })),
        SessionCommand::Read { id, structured } => {
            match client::request_raw(&Request::Read {
                id: id.into(),
                structured,
            }) {
                Ok(raw) => emit_raw(raw),
                Err(e) => emit(Err(e)),
            }
        }
        SessionCommand::Wait(a) => wait(a),
        SessionCommand::Send(a) => {
            let inputs = ordered_inputs(&a, send_matches);
            if inputs.is_empty() {
                return emit(Err(HostError::new(
                    ErrorCode::InvalidRequest,
                    "nothing to send: give --text, --keys, --paste or --raw-hex",
                )));
            }
            emit(client::request(&Request::Send {
                id: a.id.into(),
                inputs,
                gap_ms: a.gap.map(|g| g.as_millis().try_into().unwrap_or(u64::MAX)),
            }))
        }
        SessionCommand::Resize { id, width, height } => emit(client::request(&Request::Resize {
            id: id.into(),
            width,
            height,
        })),
        SessionCommand::Capture {
            id,
            out,
            scale,
            appearance,
            still,
        } => emit(capture(
            &id,
            Some((&out, scale)),
            &appearance,
            &still,
            config,
        )),
        SessionCommand::Inspect {
            id,
            appearance,
            still,
        } => emit(capture(&id, None, &appearance, &still, config)),
        SessionCommand::Export { id, out, mask } => emit(export(&id, &out, &mask, config)),
        SessionCommand::Stop { id: Some(id), .. } => {
            emit(client::request(&Request::Stop { id: id.into() }))
        }
        SessionCommand::Stop { id: None, yes, .. } => {
            if !yes {
                if !std::io::stdin().is_terminal() {
                    return emit(Err(HostError::new(
                        ErrorCode::InvalidRequest,
                        "stop --all needs --yes when stdin is not a terminal",
                    )));
                }
                eprint!("Stop all console2svg sessions? [y/N] ");
                let _ = std::io::stderr().flush();
                let mut answer = String::new();
                let _ = std::io::stdin().lock().read_line(&mut answer);
                if !matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
                    return emit(Err(HostError::new(ErrorCode::Cancelled, "not confirmed")));
                }
            }
            emit(client::request(&Request::StopAll))
        }
    }
}

/// The client's fast path: `session read`, `session list` and `session send` in their plain
/// forms, recognised from `args` (argv without the program name) without building the whole
/// clap command tree of the binary; `None` for anything else (flags in another form, `--help`,
/// `-C`, an unknown flag, a value that looks like a flag, non-UTF-8), which the full parser
/// handles exactly as before, its errors included.
///
/// Accepted (each flag spelled out, values as separate arguments):
/// `session read <id> [--structured]`, `session list [--all]`,
/// `session send <id> (--text|--keys|--paste|--raw-hex <value>)…`. What is accepted means
/// what clap would make of it, so the reply and the exit code are the same; only the time to
/// get there is shorter (issue: host redesign, item 6).
pub fn fast_path(args: &[OsString]) -> Option<i32> {
    let args: Vec<&str> = args.iter().map(|a| a.to_str()).collect::<Option<_>>()?;
    // A value clap would read as a flag (or an empty one, clap's `--text ''` is fine but
    // rare) goes the long way.
    let plain = |v: &str| !v.starts_with('-');
    let request = match args.as_slice() {
        ["session", "list"] => Request::List { all: false },
        ["session", "list", "--all"] => Request::List { all: true },
        ["session", "read", id] if plain(id) => Request::Read {
            id: (*id).into(),
            structured: false,
        },
        ["session", "read", id, "--structured"] | ["session", "read", "--structured", id]
            if plain(id) =>
        {
            Request::Read {
                id: (*id).into(),
                structured: true,
            }
        }
        ["session", "send", id, rest @ ..] if plain(id) && !rest.is_empty() => {
            let mut inputs = Vec::with_capacity(rest.len() / 2);
            for pair in rest.chunks(2) {
                let [flag, value] = pair else { return None };
                if !plain(value) {
                    return None;
                }
                let value = value.to_string();
                inputs.push(match *flag {
                    "--text" => Input::Text(value),
                    "--keys" => Input::Keys(value),
                    "--paste" => Input::Paste(value),
                    "--raw-hex" => Input::RawHex(value),
                    _ => return None,
                });
            }
            Request::Send {
                id: (*id).into(),
                inputs,
                gap_ms: None,
            }
        }
        _ => return None,
    };
    client::install_interrupt_handler();
    Some(match client::request_raw(&request) {
        Ok(raw) => emit_raw(raw),
        Err(e) => emit(Err(e)),
    })
}

/// Prints a reply as the host wrote it (see [`client::request_raw`]) and returns the exit code,
/// as [`emit`] does for the same reply.
fn emit_raw(raw: client::Raw) -> i32 {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(&raw.line).and_then(|_| out.flush()) {
        super::print_error("console2svg", &format!("cannot write to stdout: {e}"));
        return 1;
    }
    match raw.failed {
        Some(m) => {
            if !m.is_empty() {
                super::print_error("console2svg", &m);
            }
            1
        }
        None => 0,
    }
}

/// The send inputs in command-line order.
fn ordered_inputs(a: &SendArgs, matches: Option<&ArgMatches>) -> Vec<Input> {
    let mut items: Vec<(usize, Input)> = Vec::new();
    let mut take = |name: &str, values: &[String], make: fn(String) -> Input| {
        let indices: Vec<usize> = matches
            .and_then(|m| m.indices_of(name))
            .map(|i| i.collect())
            .unwrap_or_default();
        for (k, v) in values.iter().enumerate() {
            let at = indices.get(k).copied().unwrap_or(usize::MAX);
            items.push((at, make(v.clone())));
        }
    };
    take("text", &a.text, Input::Text);
    take("keys", &a.keys, Input::Keys);
    take("paste", &a.paste, Input::Paste);
    take("raw_hex", &a.raw_hex, Input::RawHex);
    items.sort_by_key(|(i, _)| *i);
    items.into_iter().map(|(_, i)| i).collect()
}

/// `session wait`: registers a waiter, polls it (each poll ≤ 100 ms in the host) until it is
/// decided, the timeout passes, or Ctrl+C.
fn wait(a: WaitArgs) -> i32 {
    let condition = Condition {
        regex: a.regex.is_some(),
        text: a.text.or(a.regex).unwrap_or_default(),
        until: match a.until {
            UntilArg::Present => Until::Present,
            UntilArg::Absent => Until::Absent,
        },
        stable_for_ms: a.stable_for.as_millis() as u64,
        line: a.line,
        since: a.since,
    };
    let end = match client::wait(&a.id, condition, a.timeout, client::interrupted) {
        Ok(end) => end,
        Err(e) => return emit(Err(e)),
    };
    let reply = match end {
        client::WaitEnd::Matched(reply) => reply,
        client::WaitEnd::SessionEnded(mut reply) => {
            reply["error"] = json!({"code": "session_exited", "message": format!("session {} ended before the condition was met", a.id)});
            reply
        }
        client::WaitEnd::TimedOut(mut reply) => {
            reply["status"] = json!("error");
            reply["result"] = json!("timeout");
            reply["timedOut"] = json!(true);
            reply["error"] = json!({"code": "wait_timeout", "message": "the condition was not met before the timeout"});
            reply
        }
        client::WaitEnd::Stopped(mut reply) => {
            reply["status"] = json!("error");
            reply["result"] = json!("cancelled");
            reply["error"] = json!({"code": "cancelled", "message": "cancelled by the user"});
            reply
        }
    };
    emit(Ok(reply))
}

fn err(code: ErrorCode) -> impl Fn(String) -> HostError {
    move |m| HostError::new(code, m)
}

/// A failed artifact write in the envelope: `permission_denied` when the link rule refused it
/// (see [`crate::output::write_atomic`]), `io_error` otherwise.
fn write_error(e: crate::output::WriteError) -> HostError {
    use crate::output::WriteError;
    match e {
        WriteError::Refused(m) => HostError::new(ErrorCode::PermissionDenied, m),
        WriteError::Io(m) => HostError::new(ErrorCode::IoError, m),
    }
}

/// What `session start` takes from the config: `terminal.scrollback`, checked (`None` when no
/// config sets it), and `environment`.
///
/// Errors: `invalid_request` for a config that cannot be read or a value over
/// [`crate::term::MAX_SCROLLBACK`].
fn start_config(
    config: Option<&std::path::Path>,
) -> Result<(Option<usize>, crate::options::EnvironmentOptions), HostError> {
    let options = crate::options::load_config(config).map_err(err(ErrorCode::InvalidRequest))?;
    let environment = options.environment.clone().unwrap_or_default();
    let rows = options.terminal().scrollback.map(|n| n as usize);
    match rows {
        Some(n) if n > crate::term::MAX_SCROLLBACK => Err(HostError::new(
            ErrorCode::InvalidRequest,
            format!(
                "config terminal.scrollback: {n} is not in 0..={}",
                crate::term::MAX_SCROLLBACK
            ),
        )),
        other => Ok((other, environment)),
    }
}

/// A session's screen as it is now, prepared for rendering: what `session capture`, `session
/// inspect` and the MCP server's `session_capture` share (one snapshot, one resolution of
/// config file + flags, the crop and the masking applied).
pub struct Snapshot {
    /// The host's screen, cropped and masked (cursor hidden when `--no-cursor`).
    pub screen: crate::term::Screen,
    /// The config file's appearance overlaid with the flags (journaled with a capture).
    pub options: crate::options::AppearanceOptions,
    /// `options` resolved (themes, window style, fonts), its header row masked.
    pub appearance: crate::render::Appearance,
    /// The crop and masking flags as given (journaled with a capture when any was given;
    /// mask rule files made absolute).
    pub still_flags: crate::options::Options,
    /// The session's `state` from the host's reply (`running`, `exited`, …).
    pub state: Value,
}

/// Takes the session's screen from the host, resolves `args` and `still_flags` (crop and
/// masking, see [`super::still::StillArgs::to_options`]) over the config file, and applies the
/// crop and the masking (masking is on by default).
///
/// Errors: `invalid_request` for a bad config file, appearance, crop or mask rule; the host's
/// errors (`session_not_found`, …); `session_error` for a screen the host sent unreadable.
pub fn snapshot(
    id: &str,
    args: &super::appearance::AppearanceArgs,
    mut still_flags: crate::options::Options,
    config: Option<&std::path::Path>,
    fonts: &crate::render::fonts::Fonts,
) -> Result<Snapshot, HostError> {
    let config = crate::options::load_config(config).map_err(err(ErrorCode::InvalidRequest))?;
    if let Some(rules) = still_flags
        .render
        .as_mut()
        .and_then(|r| r.masking.as_mut())
        .and_then(|m| m.rules.as_mut())
    {
        for r in rules.iter_mut() {
            if let Ok(abs) = std::path::absolute(&*r) {
                *r = abs.to_string_lossy().into_owned();
            }
        }
    }
    let still = config
        .overlay(&still_flags)
        .still()
        .map_err(err(ErrorCode::InvalidRequest))?;
    let options = config.appearance().overlay(&args.to_options());
    let appearance = options
        .resolve(None)
        .map_err(err(ErrorCode::InvalidRequest))?;
    let appearance = still.mask_header(appearance);
    let mut snap = client::request(&Request::Snapshot { id: id.into() })?;
    let mut screen: crate::term::Screen =
        serde_json::from_value(snap["screen"].take()).map_err(|e| {
            HostError::new(
                ErrorCode::SessionError,
                format!("unreadable screen from the host: {e}"),
            )
        })?;
    if args.no_cursor {
        screen.cursor.visible = false;
    }
    let rows = 0..screen.rows.len();
    let screen = still
        .apply(screen, rows, &appearance, fonts)
        .map_err(err(ErrorCode::InvalidRequest))?;
    Ok(Snapshot {
        screen,
        options,
        appearance,
        still_flags,
        state: snap["state"].clone(),
    })
}

/// Writes `bytes` (a rendering of `snap` in `format`) to `out` atomically and journals the
/// capture; returns the absolute path written.
///
/// Errors: `permission_denied`/`io_error` for the write; the host's errors for the journal.
pub fn write_capture(
    id: &str,
    snap: &Snapshot,
    out: &std::path::Path,
    format: crate::output::Format,
    scale: f32,
    bytes: &[u8],
) -> Result<std::path::PathBuf, HostError> {
    crate::output::write_atomic(out, bytes).map_err(write_error)?;
    let cwd =
        std::env::current_dir().map_err(|e| HostError::new(ErrorCode::IoError, e.to_string()))?;
    let path = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    client::request(&Request::Record {
        id: id.into(),
        entry: Box::new(crate::host::journal::Entry::Capture {
            output: out.to_string_lossy().into_owned(),
            cwd: cwd.to_string_lossy().into_owned(),
            options: Box::new(snap.options.clone()),
            scale: (format.is_raster() && scale != 1.0).then_some(scale),
            still: (snap.still_flags != crate::options::Options::default())
                .then(|| Box::new(snap.still_flags.clone())),
        }),
    })?;
    Ok(path)
}

/// Writes `svg` (a rendering of the session's screen) as a fresh private inspection and
/// journals the inspection; returns its path.
///
/// Errors: `io_error`/`permission_denied` for the write; the host's errors for the journal.
pub fn write_inspection(id: &str, svg: &[u8]) -> Result<std::path::PathBuf, HostError> {
    let path = crate::host::inspect::new_inspection().map_err(err(ErrorCode::IoError))?;
    crate::output::write_private(&path, svg).map_err(write_error)?;
    client::request(&Request::Record {
        id: id.into(),
        entry: Box::new(crate::host::journal::Entry::Inspect),
    })?;
    Ok(path)
}

/// `session capture` (`out` given) and `session inspect` (`out` is `None`): the host's
/// current screen, rendered here with the same renderer and options as `capture`, written
/// atomically; the capture is journaled (an action), the inspection too (an observation).
fn capture(
    id: &str,
    out: Option<(&std::path::Path, f32)>,
    args: &super::appearance::AppearanceArgs,
    still: &super::still::StillArgs,
    config: Option<&std::path::Path>,
) -> Result<Value, HostError> {
    use crate::render::{self, fonts::Fonts};
    let format = match out {
        Some((path, _)) => crate::output::Format::from_path(path)
            .ok()
            .filter(|f| !f.is_video())
            .ok_or_else(|| {
                let ext = path.extension().map(|e| e.to_string_lossy().into_owned());
                HostError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "session capture writes a still (.svg, .png, .jpg or .webp), not .{}; `session export ID -o x.cast` keeps the session's recording",
                        ext.unwrap_or_default()
                    ),
                )
            })?,
        None => crate::output::Format::Svg,
    };
    let fonts = Fonts::new();
    let snap = snapshot(id, args, still.to_options(), config, &fonts)?;
    let state = snap.state.clone();
    match out {
        Some((out, scale)) => {
            let bytes = format
                .render(&snap.screen, &snap.appearance, &fonts, scale)
                .map_err(err(ErrorCode::InvalidRequest))?;
            let path = write_capture(id, &snap, out, format, scale, &bytes)?;
            Ok(
                json!({"schemaVersion": 1, "sessionId": id, "state": state, "artifact": {"path": path.to_string_lossy(), "format": format.name()}}),
            )
        }
        None => {
            let svg = render::render_svg(&snap.screen, &snap.appearance, &fonts);
            let path = write_inspection(id, svg.as_bytes())?;
            Ok(
                json!({"schemaVersion": 1, "sessionId": id, "state": state, "path": path.to_string_lossy(), "format": "svg"}),
            )
        }
    }
}

/// `session export x.cast`: the session's output so far as an asciicast v2 recording, its
/// secrets masked as a capture's are (the config's and `mask`'s `render.masking`).
fn export_cast(
    id: &str,
    path: &std::path::Path,
    mask: &super::still::MaskArgs,
    config: Option<&std::path::Path>,
) -> Result<Value, HostError> {
    let flags = crate::options::Options {
        render: mask.to_options().map(|m| crate::options::RenderOptions {
            masking: Some(m),
            ..Default::default()
        }),
        ..Default::default()
    };
    let still = crate::options::load_config(config)
        .and_then(|c| c.overlay(&flags).still())
        .map_err(err(ErrorCode::InvalidRequest))?;
    let reply = client::request(&Request::Cast { id: id.into() })?;
    let cast = reply["cast"]
        .as_str()
        .ok_or_else(|| HostError::new(ErrorCode::SessionError, "unreadable cast from the host"))?;
    let masked = crate::recording::asciicast::parse(cast)
        .ok()
        .map(|rec| (super::video::masked_recording(&rec, &still.masker), rec))
        .filter(|(masked, rec)| masked != rec)
        .map(|(masked, _)| crate::recording::asciicast::write_v2(&masked));
    let cast = masked.as_deref().unwrap_or(cast);
    let abs =
        std::path::absolute(path).map_err(|e| HostError::new(ErrorCode::IoError, e.to_string()))?;
    crate::output::write_atomic(path, cast.as_bytes()).map_err(write_error)?;
    Ok(
        json!({"schemaVersion": 1, "sessionId": id, "path": abs.to_string_lossy(), "format": "cast", "events": cast.lines().count().saturating_sub(1)}),
    )
}

/// `session export`: the journal as a scenario document; `.yaml` is appended to a path
/// without an extension; JSON for `.json`.
fn export(
    id: &str,
    out: &std::path::Path,
    mask: &super::still::MaskArgs,
    config: Option<&std::path::Path>,
) -> Result<Value, HostError> {
    let mut path = out.to_path_buf();
    if path.is_dir() {
        return Err(HostError::new(
            ErrorCode::IoError,
            format!("cannot write {}: it is a directory", path.display()),
        ));
    }
    if path.extension().is_none() && !path.exists() {
        path.set_extension("yaml");
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("cast"))
    {
        return export_cast(id, &path, mask, config);
    }
    if let Some(ext) = path.extension() {
        let ext = ext.to_string_lossy();
        if !["yaml", "yml", "json"].contains(&ext.to_ascii_lowercase().as_str()) {
            return Err(HostError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "session export writes a scenario (.yaml, .yml, .json) or a cast (.cast), not .{ext}"
                ),
            ));
        }
    }
    let json_out = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let reply = client::request(&Request::Journal { id: id.into() })?;
    let entries: Vec<crate::host::journal::Entry> =
        serde_json::from_value(reply["entries"].clone()).map_err(|e| {
            HostError::new(
                ErrorCode::SessionError,
                format!("unreadable journal from the host: {e}"),
            )
        })?;
    let abs = std::path::absolute(&path)
        .map_err(|e| HostError::new(ErrorCode::IoError, e.to_string()))?;
    let doc_dir = abs.parent().unwrap_or(std::path::Path::new("/"));
    let doc = crate::scenario::export::from_journal(&entries, doc_dir)
        .map_err(err(ErrorCode::SessionError))?;
    crate::output::write_atomic(&path, doc.to_text(json_out).as_bytes()).map_err(write_error)?;
    Ok(
        json!({"schemaVersion": 1, "sessionId": id, "path": abs.to_string_lossy(), "entries": doc.scenario.execute.len()}),
    )
}
