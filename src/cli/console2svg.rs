//! The `console2svg` command line (shared/spec/console2svg-contract.md, "Command tree" and
//! "capture options").

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use serde_json::json;

use super::CliError;
use crate::capture::{self, Capture, CommandCapture, Status};
use crate::output::{self, Format};
use crate::pty::SpawnSpec;
use crate::render::{fonts::Fonts, theme};
use crate::term::QueryColors;

/// The argument the host is started with (`console2svg __host`, nothing else).
const HOST_VERB: &str = "__host";

/// Subcommands; anything else as the first argument means `capture` (the legacy root form).
const SUBCOMMANDS: &[&str] = &[
    "capture",
    "cast",
    "session",
    "scenario",
    "theme",
    "status",
    "llm",
    "completions",
    "mask",
    "batch",
    "mcp",
    "live-server",
    "replay",
    "interactive",
    "tmux",
    "help",
];

#[derive(Parser, Debug)]
#[command(
    name = "console2svg",
    version,
    propagate_version = true,
    about = "Run a command in a pseudo-terminal and render its screen as a crisp, themed SVG",
    after_help = COMMAND_LINE_RULE,
    disable_help_flag = true,
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Write JSON Schemas (draft 2020-12) of the config file and of scenario documents into DIR
    /// (console2svg.config.schema.json, console2svg.scenario.schema.json), for editors: point a
    /// document's `$schema` at them.
    #[arg(long = "cw-generate-json-schema", value_name = "DIR", exclusive = true)]
    generate_json_schema: Option<PathBuf>,
    /// Config file, YAML or JSON, ours or the original's v1 (after
    /// ~/.config/console2svg/config.yaml and ./console2svg.config.yaml).
    #[arg(short = 'C', long = "config", global = true, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Print help.
    #[arg(long, global = true, action = clap::ArgAction::Help)]
    help: Option<bool>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a command in a PTY (or read a pipe) and render the final screen.
    #[command(after_help = COMMAND_LINE_RULE)]
    Capture(Box<CaptureArgs>),
    /// Render an asciicast (v2 or v3) recording: its final screen, or -v for the animation.
    Cast(Box<CastArgs>),
    /// Drive programs in background PTY sessions (JSON in, JSON out).
    Session {
        #[command(subcommand)]
        command: super::session::SessionCommand,
    },
    /// Replay a scenario document (in-process: no background host).
    Scenario {
        #[command(subcommand)]
        command: super::scenario::ScenarioCommand,
    },
    /// Agent skills.
    Llm {
        #[command(subcommand)]
        command: super::scenario::LlmCommand,
    },
    /// What this installation can do here: fonts and fallbacks, renderers, themes, colour environment.
    Status {
        /// Print JSON (the same as --format json).
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// table (readable text, the default), markdown, or json.
        #[arg(long, value_enum)]
        format: Option<ListFormat>,
    },
    /// Themes: list the built-in and installed ones, install a theme file, remove one.
    Theme {
        #[command(subcommand)]
        command: ThemeCommand,
    },
    /// Keep docs pictures in sync: `batch markdown` regenerates every marker's picture, `batch restore` puts a manifest's assets back.
    Batch {
        #[command(subcommand)]
        command: super::batch::BatchCommand,
    },
    /// Secret masking: `mask test TEXT` shows which rule fires on a text.
    Mask {
        #[command(subcommand)]
        command: MaskCommand,
    },
    /// Print a shell completion script: `completions SHELL` (bash, zsh, fish, elvish,
    /// powershell or pwsh); `completions script SHELL` and `completions generate SHELL` are the same.
    Completions {
        /// The shell, after an optional `script` or `generate`.
        #[arg(value_name = "SHELL", num_args = 1..=2, required = true)]
        words: Vec<String>,
    },
    /// Serve the session suite to AI agents over the Model Context Protocol (stdio).
    Mcp,
    /// Show a program's screen live in a browser: a page, pushed over Server-Sent Events as
    /// the screen changes; `GET /snapshot.svg`, `GET /health`.
    #[command(name = "live-server")]
    LiveServer(Box<super::live::LiveArgs>),
    /// Run a command typing the keys of a replay file (from `capture --replay-save`) at their
    /// times, and render the final screen as `capture` does.
    #[command(after_help = COMMAND_LINE_RULE)]
    Replay(Box<ReplayArgs>),
    /// Run a program in this terminal through our emulator; F10 writes a still SVG of the
    /// screen, F9 starts and F9 again ends an animated SVG recording.
    Interactive(Box<super::interactive::InteractiveArgs>),
    /// Existing tmux panes: `tmux capture` renders one like a capture of the same program.
    Tmux {
        #[command(subcommand)]
        command: super::tmux::TmuxCommand,
    },
}

#[derive(Subcommand, Debug)]
enum ThemeCommand {
    /// List the built-in themes and the installed ones.
    List {
        #[arg(long, value_enum, default_value_t = ListFormat::Table)]
        format: ListFormat,
    },
    /// Copy a theme into the user theme directory so `-t ID` finds it: a theme JSON file (ours, the original's theme.json or its directory, a Windows Terminal scheme), an iTerm2 .itermcolors, an alacritty .toml, a kitty .conf or a Ghostty theme.
    Install {
        /// The theme file or original theme directory.
        source: std::path::PathBuf,
        /// The id to install under (default: the theme's own id or name, else the file name).
        #[arg(long)]
        id: Option<String>,
        /// Replace an installed theme of the same id.
        #[arg(long)]
        force: bool,
    },
    /// Remove an installed theme.
    Remove {
        /// The installed theme's id (`theme list` shows it).
        id: String,
    },
}

#[derive(Subcommand, Debug)]
enum MaskCommand {
    /// Show which rules fire on TEXT and what they mask (to track down false positives).
    Test {
        /// The text to test (several lines: a real line break, e.g. bash's $'a\nb').
        text: String,
        /// Print JSON: {schemaVersion, masked, findings:[{rule, start, end, text}]} (byte offsets).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        mask: super::still::MaskArgs,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum ListFormat {
    Table,
    Markdown,
    Json,
}

/// How the root form and `capture` tell their options from the command (`--help` shows it).
const COMMAND_LINE_RULE: &str = "\
The command line: options come first. The command is everything after `--`, or everything from
the first word that is not an option on (`console2svg -w 80 ls -la` runs `ls -la`). An option
that is not known before the command is an error naming it. A command given as one argument
holding a space is a shell command line, and options may follow it:
`console2svg \"git log --oneline\" -w 80`. Without a subcommand, the arguments mean `capture`.";

/// `capture` options.
#[derive(Args, Debug)]
struct CaptureArgs {
    /// Output file; its extension picks the format (.svg, .png, .jpg, .webp, .gif, .mp4, .webm).
    #[arg(
        short = 'o',
        long = "out",
        value_name = "PATH",
        default_value = "output.svg"
    )]
    out: PathBuf,
    /// Write the SVG to stdout instead of a file.
    #[arg(long, conflicts_with_all = ["out", "json"])]
    stdout: bool,
    /// Print a JSON result instead of prose.
    #[arg(long)]
    json: bool,
    /// Output format (default: from the -o extension; svg for --stdout).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Pixel scale of raster output (PNG), 0.1–10, e.g. 2 for HiDPI.
    #[arg(long, default_value_t = 1.0, value_parser = parse_scale)]
    scale: f32,
    /// Terminal width in columns (1–500; default 100).
    #[arg(short = 'w', long, value_parser = clap::value_parser!(u16).range(1..=500))]
    width: Option<u16>,
    /// Terminal height in rows (1–500); without it the image grows to the content, scrollback included.
    #[arg(short = 'h', long, value_parser = clap::value_parser!(u16).range(1..=500))]
    height: Option<u16>,
    /// Rows of scrollback kept above the screen, 0–100000 (default 10000): without -h the
    /// image shows them, so output longer than that loses its beginning.
    #[arg(long, value_name = "ROWS", value_parser = clap::value_parser!(u32).range(0..=crate::term::MAX_SCROLLBACK as i64))]
    scrollback: Option<u32>,
    /// Stop after this many seconds and render what is on screen (status "partial").
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<Duration>,
    /// Do not set TERM=xterm-256color, COLORTERM=truecolor, FORCE_COLOR=3.
    #[arg(long)]
    no_colorenv: bool,
    /// Do not remove CI and TF_BUILD from the environment.
    #[arg(long)]
    no_delete_envs: bool,
    /// Run the command interactively in this terminal (keys typed reach it, its output is
    /// shown) and save the keys typed, with their times, to FILE (replay v1 JSON) for
    /// `console2svg replay FILE -- <command>`.
    #[arg(long, value_name = "FILE")]
    replay_save: Option<PathBuf>,
    /// The keys to type (from `replay`'s file).
    #[arg(skip)]
    script: Option<Vec<crate::replay::Event>>,
    #[command(flatten)]
    appearance: super::appearance::AppearanceArgs,
    #[command(flatten)]
    video: super::video::VideoArgs,
    #[command(flatten)]
    still: super::still::StillArgs,
    /// The command: everything after `--`, or from the first word that is not an option on; a
    /// single argument is a shell command line. Without one, stdin is read as terminal output.
    #[arg(trailing_var_arg = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

/// `replay` options: the replay file, then `capture`'s options.
#[derive(Args, Debug)]
struct ReplayArgs {
    /// The replay file (replay v1 JSON, as `capture --replay-save` writes).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    capture: CaptureArgs,
}

/// `cast` options: the recording, then `capture`'s options.
#[derive(Args, Debug)]
struct CastArgs {
    /// The asciicast file (v2 or v3).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    capture: CaptureArgs,
}

pub(super) fn parse_scale(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && (0.1..=10.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a scale from 0.1 to 10")),
    }
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of seconds"))?;
    if !(v.is_finite() && v > 0.0 && v <= 1e7) {
        return Err(format!(
            "timeout must be more than 0 and at most 10000000 seconds, got {s}"
        ));
    }
    Ok(Duration::from_secs_f64(v))
}

/// The first argument that is not the global `-C`/`--config` option or its value: the
/// subcommand, or where the legacy root form starts.
fn first_word(args: &[OsString]) -> &str {
    let mut i = 0;
    while let Some(a) = args.get(i).and_then(|a| a.to_str()) {
        match a {
            "-C" | "--config" => i += 2,
            _ if a.starts_with("--config=") || (a.starts_with("-C") && a.len() > 2) => i += 1,
            _ => return a,
        }
    }
    ""
}

/// The command words of a parsed `capture` or `cast`.
fn command_words(cli: &Cli) -> Option<&[OsString]> {
    match cli.command.as_ref() {
        Some(Command::Capture(a)) => Some(&a.command),
        Some(Command::Cast(a)) => Some(&a.capture.command),
        _ => None,
    }
}

/// Parses `argv`. A command given as one argument holding a space (a shell command line)
/// followed by options (`console2svg "git log" -w 40`) is parsed again with those options
/// before it, so they apply; a word that is not an option after it is an error.
fn parse(argv: Vec<OsString>) -> Result<(Cli, clap::ArgMatches), clap::Error> {
    let parse_once = |argv: &[OsString]| {
        Cli::command()
            .try_get_matches_from(argv)
            .and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)))
    };
    let (cli, matches) = parse_once(&argv)?;
    let Some(words) = command_words(&cli) else {
        return Ok((cli, matches));
    };
    let at = argv.len() - words.len();
    let line = words.first().and_then(|w| w.to_str()).unwrap_or("");
    let options_follow = words.len() > 1
        && line.contains(char::is_whitespace)
        && words[1].to_str().is_some_and(|w| w.starts_with('-'))
        && !words[1..].iter().any(|w| w == "--")
        && argv.get(at.wrapping_sub(1)).is_some_and(|w| w != "--");
    if !options_follow {
        return Ok((cli, matches));
    }
    let mut moved: Vec<OsString> = argv[..at].to_vec();
    moved.extend_from_slice(&argv[at + 1..]);
    moved.push("--".into());
    moved.push(line.into());
    let (again, matches) = parse_once(&moved)?;
    match command_words(&again) {
        Some([one]) if one == line => Ok((again, matches)),
        other => {
            let stray = other
                .and_then(|w| w.first())
                .map(|w| w.to_string_lossy().into_owned())
                .unwrap_or_default();
            Err(Cli::command().error(
                clap::error::ErrorKind::UnknownArgument,
                format!(
                    "unexpected argument '{stray}' after the shell command line '{line}' \
                     (only options may follow it; put a command with arguments after `--`)"
                ),
            ))
        }
    }
}

/// Entry point of the `console2svg` binary.
pub fn main() -> Result<(), CliError> {
    let mut argv: Vec<OsString> = std::env::args_os().collect();
    // The session host, started on demand by `session` commands ([`crate::host::client`]):
    // not a verb anyone types, so not in the command tree, where shell completion (which
    // ignores `hide`) would offer it.
    if argv.len() == 2 && argv[1] == HOST_VERB {
        return crate::host::server::run(vec![crate::termio::service::extension()])
            .map_err(CliError::new);
    }
    // The client's hot verbs skip building the whole command tree.
    if let Some(code) = super::session::fast_path(argv.get(1..).unwrap_or_default()) {
        std::process::exit(code);
    }
    // Legacy root form: `console2svg [capture options] [--] cmd…`.
    let first = first_word(argv.get(1..).unwrap_or_default()).to_string();
    let root_flag = matches!(first.as_str(), "--help" | "--version" | "-V")
        || first.starts_with("--cw-generate-json-schema");
    if !SUBCOMMANDS.contains(&first.as_str()) && !root_flag {
        argv.insert(1, "capture".into());
    }
    let (cli, matches) = match parse(argv) {
        Ok(v) => v,
        // `console2svg session` (or `tmux`, `theme`…) with no verb: name the verbs.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let message = missing_verb(&first);
            match first.as_str() {
                "session" => std::process::exit(super::session::usage_message(message)),
                "scenario" => std::process::exit(super::scenario::usage_message(message)),
                _ => {}
            }
            super::print_error("console2svg", &message);
            std::process::exit(2);
        }
        // Agents parse stdout: a `session` verb's argument error is the contract's envelope.
        Err(e) if first == "session" && e.use_stderr() => {
            std::process::exit(super::session::usage_error(&e));
        }
        // Scenario runs are read by scripts: their argument errors are the same envelope.
        Err(e) if first == "scenario" && e.use_stderr() => {
            std::process::exit(super::scenario::usage_error(&e));
        }
        Err(e) if e.use_stderr() => {
            super::print_error("console2svg", &super::clap_error_line(&e));
            std::process::exit(2);
        }
        // `--version` on any subcommand names the program, not the subcommand.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayVersion => {
            let _ = super::print_stdout(&format!("console2svg {}\n", env!("CARGO_PKG_VERSION")));
            std::process::exit(0);
        }
        Err(e) => {
            let _ = e.print();
            std::process::exit(0);
        }
    };
    let Some(command) = cli.command else {
        return match &cli.generate_json_schema {
            Some(dir) => write_schemas(dir),
            None => Err(CliError {
                message: "no command given (see console2svg --help)".into(),
                code: 2,
            }),
        };
    };
    match command {
        Command::Session { command } => {
            let send = matches
                .subcommand_matches("session")
                .and_then(|m| m.subcommand_matches("send"));
            std::process::exit(super::session::run(command, send, cli.config.as_deref()));
        }
        Command::Scenario { command } => {
            std::process::exit(super::scenario::run(command, cli.config.as_deref()));
        }
        Command::Llm { command } => super::scenario::llm(command),
        Command::Capture(args) => run_capture(*args, cli.config),
        Command::Replay(args) => {
            let ReplayArgs { file, mut capture } = *args;
            if capture.command.is_empty() {
                return Err(CliError::new(format!(
                    "replay {}: no command given (console2svg replay FILE -- <command>)",
                    file.display()
                )));
            }
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read the replay file {}: {e}", file.display()))?;
            let events = crate::replay::parse(&text)
                .map_err(|e| format!("bad replay file {}: {e}", file.display()))?;
            capture.script = Some(events);
            run_capture(capture, cli.config)
        }
        Command::Interactive(args) => super::interactive::run(*args, cli.config.as_deref()),
        Command::Cast(args) => {
            let CastArgs { file, mut capture } = *args;
            capture.video.input = Some(file);
            run_capture(capture, cli.config)
        }
        Command::Batch { command } => super::batch::run(command, cli.config),
        Command::Mask {
            command: MaskCommand::Test { text, json, mask },
        } => mask_test(&text, json, &mask, cli.config),
        Command::Mcp => crate::mcp::run().map_err(CliError::new),
        Command::LiveServer(args) => super::live::run(*args, cli.config.as_deref()),
        Command::Tmux { command } => super::tmux::run(command, cli.config),
        Command::Theme { command } => theme_command(command),
        Command::Status { json, format } => {
            let status = crate::status::gather();
            let format = if json {
                ListFormat::Json
            } else {
                format.unwrap_or(ListFormat::Table)
            };
            let text = match format {
                ListFormat::Json => format!(
                    "{}\n",
                    serde_json::to_string(&status).map_err(|e| CliError::new(e.to_string()))?
                ),
                ListFormat::Markdown => status.to_markdown(),
                ListFormat::Table => status.to_text(),
            };
            super::print_stdout(&text)
        }
        Command::Completions { words } => {
            let shell = completion_shell(&words)?;
            // Into memory first: a reader that stops early (`| head`) is a write error here,
            // not a panic in the generator.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "console2svg", &mut script);
            super::print_stdout(&String::from_utf8_lossy(&script))
        }
    }
}

/// The shell of `completions [script|generate] SHELL` (`pwsh` is PowerShell).
///
/// Errors: exit 2 and one line naming the word that is not a shell.
fn completion_shell(words: &[String]) -> Result<clap_complete::Shell, CliError> {
    let shell = match words {
        [one] => one,
        [verb, shell] if verb == "script" || verb == "generate" => shell,
        [verb, _] => {
            return Err(CliError {
                message: format!(
                    "completions: '{verb}' is not script or generate (completions [script|generate] SHELL)"
                ),
                code: 2,
            })
        }
        _ => unreachable!("clap takes one or two words"),
    };
    let name = match shell.to_ascii_lowercase().as_str() {
        "pwsh" => "powershell".to_string(),
        other => other.to_string(),
    };
    <clap_complete::Shell as ValueEnum>::from_str(&name, true).map_err(|_| CliError {
        message: format!(
            "completions: '{shell}' is not a shell (bash, zsh, fish, elvish, powershell or pwsh)"
        ),
        code: 2,
    })
}

/// The error for `console2svg <subcommand>` given without its verb: the verbs it takes.
fn missing_verb(subcommand: &str) -> String {
    let cmd = Cli::command();
    let verbs: Vec<String> = cmd
        .find_subcommand(subcommand)
        .map(|c| {
            c.get_subcommands()
                .filter(|v| !v.is_hide_set() && v.get_name() != "help")
                .map(|v| v.get_name().to_string())
                .collect()
        })
        .unwrap_or_default();
    format!(
        "`console2svg {subcommand}` needs a verb: {} (see console2svg {subcommand} --help)",
        verbs.join(", ")
    )
}

/// `--cw-generate-json-schema DIR`: the config file's and the scenario document's JSON
/// Schemas, generated from the types that read them, written into `dir` (created if missing).
fn write_schemas(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let files = [
        (CONFIG_SCHEMA_FILE, crate::options::config_schema()),
        (SCENARIO_SCHEMA_FILE, crate::scenario::document::schema()),
    ];
    let mut wrote = Vec::new();
    for (name, schema) in files {
        let path = dir.join(name);
        let mut text = serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())?;
        text.push('\n');
        output::write_atomic(&path, text.as_bytes())?;
        wrote.push(path.display().to_string());
    }
    super::print_stdout(&format!("wrote {}\n", wrote.join(" and ")))
}

/// The config file's JSON Schema, as `--cw-generate-json-schema` names it.
pub const CONFIG_SCHEMA_FILE: &str = "console2svg.config.schema.json";

/// The scenario document's JSON Schema, as `--cw-generate-json-schema` names it.
pub const SCENARIO_SCHEMA_FILE: &str = "console2svg.scenario.schema.json";

fn run_capture(mut args: CaptureArgs, config: Option<PathBuf>) -> Result<(), CliError> {
    let format = match (args.format, args.stdout) {
        (Some(f), _) => f,
        (None, true) => Format::Svg,
        (None, false) => Format::from_path(&args.out)?,
    };
    let command: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let config = crate::options::load_config(config.as_deref())?;
    let appearance = config
        .appearance()
        .overlay(&args.appearance.to_options())
        .resolve(Some(&command))?;
    let still = config.overlay(&args.still.to_options()).still()?;
    let appearance = still.mask_header(appearance);
    // Flags, then the config file's terminal size, then 100 × 24.
    let terminal = config.terminal();
    let check = |v: Option<u16>, what: &str| match v {
        Some(n) if !(1..=500).contains(&n) => Err(CliError::new(format!(
            "config terminal.{what}: {n} is not in 1..=500"
        ))),
        other => Ok(other),
    };
    let height = args.height.or(check(terminal.height, "height")?);
    let cols = args
        .width
        .or(check(terminal.width, "width")?)
        .unwrap_or(100);
    let rows = height.unwrap_or(24);
    let captured = config.capture.clone().unwrap_or_default();
    args.video.apply_config(&captured, format)?;
    let environment = config.environment.clone().unwrap_or_default();
    args.video
        .check(format, !args.command.is_empty())
        .map_err(|e| args.video.blame_config(e))?;
    let record = args.video.records(format);
    let scrollback = match (args.scrollback, terminal.scrollback.map(|n| n as usize)) {
        (Some(n), _) => n as usize,
        (None, Some(n)) if n > crate::term::MAX_SCROLLBACK => {
            return Err(CliError::new(format!(
                "config terminal.scrollback: {n} is not in 0..={}",
                crate::term::MAX_SCROLLBACK
            )))
        }
        (None, n) => n.unwrap_or(crate::term::SCROLLBACK_LINES),
    };

    if args.replay_save.is_some() && (args.command.is_empty() || args.video.input.is_some()) {
        return Err(CliError::new(
            "--replay-save records the keys typed into a command: give the command after `--`",
        ));
    }
    let capture = if let Some(path) = &args.video.input {
        let recording = super::video::read_cast(path)?;
        let (cols, rows) = (recording.cols, recording.rows);
        let mut emulator = crate::term::Emulator::new(cols as usize, rows as usize);
        for e in &recording.events {
            match &e.kind {
                crate::recording::EventKind::Output(b) => emulator.advance(b),
                crate::recording::EventKind::Resize { cols, rows } => {
                    emulator.resize(*cols as usize, *rows as usize)
                }
                _ => {}
            }
        }
        if emulator.sync_deadline().is_some() {
            emulator.expire_sync();
        }
        Capture {
            screen: emulator.snapshot_with_scrollback(),
            status: Status::Completed,
            exit: None,
            duration: recording.duration(),
            recording: Some(recording),
        }
    } else if args.command.is_empty() {
        if std::io::stdin().is_terminal() {
            return Err(CliError::new(
                "no command given: use `console2svg capture -- <command>` or pipe terminal output into console2svg",
            ));
        }
        capture::run_bytes(
            Box::new(std::io::stdin()),
            cols,
            rows,
            scrollback,
            args.timeout,
            record,
        )
    } else {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?;
        let palette = appearance.palette(&[]);
        let query_colors = QueryColors {
            foreground: palette.foreground,
            background: palette.background,
            ansi: appearance.theme.ansi,
        };
        let spawn = SpawnSpec {
            argv: args.command.clone(),
            cwd,
            cols,
            rows,
            color_env: environment.color_env(args.no_colorenv),
            delete_ci_env: environment.delete_ci_env(args.no_delete_envs),
            env: Vec::new(),
            base_env: None,
        };
        if args.script.is_some() || args.replay_save.is_some() {
            typed_capture(&mut args, spawn, query_colors, scrollback, record)?
        } else {
            capture::run_command(&CommandCapture {
                spawn,
                timeout: args.timeout,
                query_colors,
                record,
                scrollback,
            })?
        }
    };
    let Capture {
        screen: mut full,
        status,
        exit,
        duration,
        recording,
    } = capture;
    if args.appearance.no_cursor {
        full.cursor.visible = false;
    }
    let mut frames_json = Vec::new();
    let fonts = Fonts::new();
    // The rows a still draws, prepared by the crop and the masking.
    let prepare = |full: crate::term::Screen| {
        let rows = if height.is_some() {
            full.viewport_rows()
        } else {
            full.content_rows()
        };
        still.apply(full, rows, &appearance, &fonts)
    };
    let (screen, bytes) = match recording {
        Some(recording) if record => {
            let job = super::video::Job {
                args: &args.video,
                format,
                out: &args.out,
                appearance: &appearance,
                scale: args.scale,
                full_height: height.is_some(),
                no_cursor: args.appearance.no_cursor,
                samples: args.json && args.video.animated(format),
                final_screen: prepare(full)?,
                still: &still,
            };
            let rendered =
                super::video::render(recording, &job).map_err(|e| args.video.blame_config(e))?;
            let mut files = rendered.files;
            // The picture itself goes last: to stdout, or written after the side files.
            let main = files
                .iter()
                .position(|(p, _)| p == &args.out && args.video.save_cast.as_ref() != Some(p))
                .map(|i| files.remove(i).1)
                .unwrap_or_default();
            super::video::write_all(&files)?;
            frames_json = rendered.samples;
            (rendered.screen, main)
        }
        _ => {
            let screen = prepare(full)?;
            let bytes = format.render(&screen, &appearance, &fonts, args.scale)?;
            (screen, bytes)
        }
    };
    if args.stdout {
        let mut out = std::io::stdout().lock();
        out.write_all(&bytes)
            .and_then(|_| out.flush())
            .map_err(|e| format!("cannot write to stdout: {e}"))?;
        return Ok(());
    }
    output::write_atomic(&args.out, &bytes)?;
    if args.json {
        super::print_stdout(&format!(
            "{}\n",
            result_json(
                status,
                exit.as_ref(),
                duration,
                &screen,
                Some((&args.out, format)),
                &frames_json,
            )
        ))?;
    } else {
        let exit = match &exit {
            Some(e) => format!("exit code {}", e.code),
            None if status == Status::Partial => "timed out, partial screen".to_string(),
            None => "input ended".to_string(),
        };
        super::print_stdout(&format!(
            "wrote {} ({}×{} cells, {exit})\n",
            args.out.display(),
            screen.width,
            screen.rows.len()
        ))?;
    }
    Ok(())
}

/// A capture whose keys are typed: from a replay file (`replay`), or by the user in this
/// terminal with the keys saved (`capture --replay-save`).
///
/// Errors: `--replay-save` without a terminal on stdin, an animation asked for (these make
/// stills), the program not starting, the replay file not writable.
fn typed_capture(
    args: &mut CaptureArgs,
    spawn: SpawnSpec,
    query_colors: QueryColors,
    scrollback: usize,
    record: bool,
) -> Result<Capture, CliError> {
    use crate::interactive::{self, Source};
    if record {
        return Err(CliError::new(
            "replay and --replay-save make a still picture: drop the animation options",
        ));
    }
    let source = match args.script.take() {
        Some(events) => Source::Script(events),
        None if !std::io::stdin().is_terminal() => {
            return Err(CliError::new(
                "--replay-save records the keys typed: it needs a terminal on stdin",
            ))
        }
        None => Source::Terminal {
            record_keys: true,
            hotkeys: false,
            follow_size: false,
        },
    };
    let mut no_hotkeys = |_| Err("hotkeys are off".to_string());
    let outcome = interactive::run(interactive::Options {
        spawn,
        scrollback,
        query_colors,
        source,
        timeout: args.timeout,
        on_capture: &mut no_hotkeys,
    })?;
    if let Some(path) = &args.replay_save {
        let created = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
        let text = crate::replay::write(&outcome.keys, outcome.capture.duration, &created);
        output::write_atomic(path, text.as_bytes())?;
    }
    Ok(outcome.capture)
}

/// The `mask test --json` reply.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct MaskTestReply<'a> {
    schema_version: u32,
    masked: String,
    findings: Vec<MaskTestFinding<'a>>,
}

/// One finding of `mask test --json`: the rule, the byte range and the text it masks.
#[derive(serde::Serialize)]
struct MaskTestFinding<'a> {
    rule: &'a str,
    start: usize,
    end: usize,
    text: &'a str,
}

/// `mask test TEXT`: the text as masked, and every finding with its rule.
fn mask_test(
    text: &str,
    json: bool,
    mask: &super::still::MaskArgs,
    config: Option<PathBuf>,
) -> Result<(), CliError> {
    let config = crate::options::load_config(config.as_deref())?;
    let masking = config
        .masking()
        .overlay(&mask.to_options().unwrap_or_default());
    let masker = masking.masker()?;
    let findings = masker.find(text);
    let masked = masker.mask_text(text);
    if json {
        let reply = MaskTestReply {
            schema_version: 1,
            masked,
            findings: findings
                .iter()
                .map(|f| MaskTestFinding {
                    rule: &f.rule,
                    start: f.range.start,
                    end: f.range.end,
                    text: &text[f.range.clone()],
                })
                .collect(),
        };
        let json = serde_json::to_string(&reply).map_err(|e| CliError::new(e.to_string()))?;
        return super::print_stdout(&format!("{json}\n"));
    }
    let mut out = format!("{masked}\n");
    if findings.is_empty() {
        out.push_str("no rule fires\n");
    }
    for f in &findings {
        out.push_str(&format!(
            "{}: {:?} (bytes {}..{})\n",
            f.rule,
            &text[f.range.clone()],
            f.range.start,
            f.range.end
        ));
    }
    super::print_stdout(&out)
}

/// The `capture --json` reply (contract: `capture --json`).
pub(super) fn result_json(
    status: Status,
    exit: Option<&crate::pty::Exit>,
    duration: Duration,
    screen: &crate::term::Screen,
    artifact: Option<(&Path, Format)>,
    frames: &[super::video::Sample],
) -> String {
    const MAX_TEXT: usize = 200_000;
    let mut text = screen.text();
    let truncated = text.chars().count() > MAX_TEXT;
    if truncated {
        text = text.chars().take(MAX_TEXT).collect();
    }
    let artifact = artifact.map(|(path, format)| {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        json!({"path": abs.to_string_lossy(), "format": format.name()})
    });
    json!({
        "schemaVersion": 1,
        "status": if status == Status::Completed { "completed" } else { "partial" },
        "exitCode": exit.map(|e| e.code),
        "durationMs": duration.as_millis() as u64,
        "screen": {"width": screen.width, "height": screen.rows.len(), "text": text, "truncated": truncated},
        "artifact": artifact,
        "frames": frames,
    })
    .to_string()
}

/// `theme list|install|remove`.
fn theme_command(command: ThemeCommand) -> Result<(), CliError> {
    use crate::options::themes;
    match command {
        ThemeCommand::List { format } => {
            let format = match format {
                ListFormat::Table => theme::ListFormat::Table,
                ListFormat::Markdown => theme::ListFormat::Markdown,
                ListFormat::Json => theme::ListFormat::Json,
            };
            // An installed theme that no longer loads is listed with the reason.
            // With an original theme's pc variant id after its own.
            let installed: Vec<theme::ThemeInfo> = themes::installed()
                .iter()
                .flat_map(|t| std::iter::once(t.id.clone()).chain(t.pc_id.clone()))
                .map(|id| match themes::load(&id) {
                    Ok(specs) => theme::installed_info(&id, &specs),
                    Err(e) => theme::ThemeInfo {
                        description: format!("does not load: {e}"),
                        ..theme::installed_info(&id, &[])
                    },
                })
                .collect();
            super::print_stdout(&theme::format_list(format, &installed))
        }
        ThemeCommand::Install { source, id, force } => {
            let r = themes::install(&source, id.as_deref(), force).map_err(CliError::new)?;
            super::print_stdout(&format!(
                "installed theme '{}' ({}) at {}\n",
                r.id,
                r.format.name(),
                r.path.display()
            ))
        }
        ThemeCommand::Remove { id } => {
            let path = themes::remove(&id).map_err(CliError::new)?;
            super::print_stdout(&format!("removed theme '{id}' ({})\n", path.display()))
        }
    }
}
