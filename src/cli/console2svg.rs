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
use crate::render::{
    self, chrome, fonts::Fonts, layout::Spacing, theme, Appearance, Background, OutputSize,
};
use crate::term::{QueryColors, Rgb};

/// Subcommands; anything else as the first argument means `capture` (the legacy root form).
const SUBCOMMANDS: &[&str] = &[
    "capture",
    "session",
    "theme",
    "completions",
    "help",
    "__host",
];

#[derive(Parser, Debug)]
#[command(
    name = "console2svg",
    version,
    about = "Run a command in a pseudo-terminal and render its screen as a crisp, themed SVG",
    disable_help_flag = true,
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print help.
    #[arg(long, global = true, action = clap::ArgAction::Help)]
    help: Option<bool>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a command in a PTY (or read a pipe) and render the final screen.
    Capture(Box<CaptureArgs>),
    /// Drive programs in background PTY sessions (JSON in, JSON out).
    Session {
        #[command(subcommand)]
        command: super::session::SessionCommand,
    },
    /// Built-in themes.
    Theme {
        #[command(subcommand)]
        command: ThemeCommand,
    },
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Run the session host (started on demand by `session` commands).
    #[command(name = "__host", hide = true)]
    Host,
}

#[derive(Subcommand, Debug)]
enum ThemeCommand {
    /// List the built-in themes.
    List {
        #[arg(long, value_enum, default_value_t = ListFormat::Table)]
        format: ListFormat,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum ListFormat {
    Table,
    Markdown,
    Json,
}

/// `capture` options.
#[derive(Args, Debug)]
struct CaptureArgs {
    /// Output file; its extension picks the format.
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
    /// Terminal width in columns (1–500).
    #[arg(short = 'w', long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=500))]
    width: u16,
    /// Terminal height in rows (1–500); without it the image grows to the content, scrollback included.
    #[arg(short = 'h', long, value_parser = clap::value_parser!(u16).range(1..=500))]
    height: Option<u16>,
    /// Stop after this many seconds and render what is on screen (status "partial").
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<Duration>,
    /// Do not set TERM=xterm-256color, COLORTERM=truecolor, FORCE_COLOR=3.
    #[arg(long)]
    no_colorenv: bool,
    /// Do not remove CI and TF_BUILD from the environment.
    #[arg(long)]
    no_delete_envs: bool,
    /// Window style: none, transparent, macos, windows, macos-pc, windows-pc, or a frame JSON file; bare -d = macos.
    #[arg(short = 'd', long = "window", value_name = "STYLE", num_args = 0..=1, default_missing_value = "macos")]
    window: Option<String>,
    /// Theme id or theme JSON file; repeatable, later wins.
    #[arg(short = 't', long = "theme", value_name = "THEME")]
    theme: Vec<String>,
    /// Default foreground colour (#rgb or #rrggbb).
    #[arg(long, value_parser = parse_color)]
    forecolor: Option<Rgb>,
    /// Terminal background colour (#rgb or #rrggbb).
    #[arg(long, value_parser = parse_color)]
    backcolor: Option<Rgb>,
    /// Canvas background: a colour, two colours for a gradient (`c1 c2` or `c1:c2`), or an image file.
    #[arg(long, num_args = 1..=2, value_name = "BACKGROUND")]
    background: Vec<String>,
    /// Opacity of the frame and terminal background (0–1).
    #[arg(long, value_parser = parse_unit)]
    opacity: Option<f32>,
    /// Space between the terminal edge and the text, px.
    #[arg(long, value_parser = parse_px)]
    padding: Option<f32>,
    /// Space between the frame and the terminal area, px.
    #[arg(long, value_parser = parse_px)]
    margin: Option<f32>,
    /// Desktop padding of -pc window styles, px.
    #[arg(long, value_parser = parse_px)]
    pc_padding: Option<f32>,
    /// CSS font stack.
    #[arg(long)]
    font: Option<String>,
    /// Font size, px.
    #[arg(long, value_parser = parse_font_size)]
    fontsize: Option<f32>,
    /// Output pixel size, aspect kept: W, WxH, Wx* or *xH.
    #[arg(long, value_parser = parse_size)]
    size: Option<OutputSize>,
    /// Show a header row with the prompt and the command.
    #[arg(short = 'c', long = "with-command")]
    with_command: bool,
    /// Header text (implies a header row).
    #[arg(long)]
    header: Option<String>,
    /// Prompt of the header row ("$", or "#" as root).
    #[arg(long)]
    prompt: Option<String>,
    /// Never draw the cursor.
    #[arg(long)]
    no_cursor: bool,
    /// Bold text in colours 0–7 uses the bright colours 8–15.
    #[arg(long)]
    bold_is_bright: bool,
    /// Do not embed font subsets (smaller files; viewers use their own fonts).
    #[arg(long)]
    no_embed_font: bool,
    /// The command; a single argument is a shell command line. Without one, stdin is read as terminal output.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    command: Vec<OsString>,
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

fn parse_color(s: &str) -> Result<Rgb, String> {
    Rgb::parse_hex(s).ok_or_else(|| format!("'{s}' is not a colour (#rgb or #rrggbb)"))
}

fn parse_unit(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a number from 0 to 1")),
    }
}

fn parse_px(s: &str) -> Result<f32, String> {
    match s.trim_end_matches("px").parse::<f32>() {
        Ok(v) if v.is_finite() && (0.0..=10_000.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a length in px from 0 to 10000")),
    }
}

fn parse_font_size(s: &str) -> Result<f32, String> {
    match s.trim_end_matches("px").parse::<f32>() {
        Ok(v) if v.is_finite() && (1.0..=500.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a font size in px from 1 to 500")),
    }
}

fn parse_size(s: &str) -> Result<OutputSize, String> {
    let bad = || format!("'{s}' is not a size (W, WxH, Wx* or *xH, in px)");
    let px = |v: &str| {
        v.parse::<f32>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 1.0 && *v <= 100_000.0)
    };
    match s.split_once(['x', 'X']) {
        None => px(s).map(OutputSize::Width).ok_or_else(bad),
        Some(("*", h)) => px(h).map(OutputSize::Height).ok_or_else(bad),
        Some((w, "*")) => px(w).map(OutputSize::Width).ok_or_else(bad),
        Some((w, h)) => Ok(OutputSize::Box(
            px(w).ok_or_else(bad)?,
            px(h).ok_or_else(bad)?,
        )),
    }
}

/// Entry point of the `console2svg` binary.
pub fn main() -> Result<(), CliError> {
    let mut argv: Vec<OsString> = std::env::args_os().collect();
    // Legacy root form: `console2svg [capture options] [--] cmd…`.
    let first = argv.get(1).and_then(|a| a.to_str()).unwrap_or("");
    let root_flag = matches!(first, "--help" | "--version" | "-V");
    if !SUBCOMMANDS.contains(&first) && !root_flag {
        argv.insert(1, "capture".into());
    }
    let parsed = Cli::command()
        .try_get_matches_from(argv)
        .and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)));
    let (cli, matches) = match parsed {
        Ok(v) => v,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    match cli.command {
        Command::Session { command } => {
            let send = matches
                .subcommand_matches("session")
                .and_then(|m| m.subcommand_matches("send"));
            std::process::exit(super::session::run(command, send));
        }
        Command::Host => crate::host::server::run().map_err(CliError::new),
        Command::Capture(args) => run_capture(*args),
        Command::Theme {
            command: ThemeCommand::List { format },
        } => {
            let format = match format {
                ListFormat::Table => theme::ListFormat::Table,
                ListFormat::Markdown => theme::ListFormat::Markdown,
                ListFormat::Json => theme::ListFormat::Json,
            };
            super::print_stdout(&theme::format_list(format))
        }
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "console2svg",
                &mut std::io::stdout(),
            );
            Ok(())
        }
    }
}

fn run_capture(args: CaptureArgs) -> Result<(), CliError> {
    let format = if args.stdout {
        Format::Svg
    } else {
        Format::from_path(&args.out)?
    };
    let appearance = appearance(&args)?;
    let rows = args.height.unwrap_or(24);

    let capture = if args.command.is_empty() {
        if std::io::stdin().is_terminal() {
            return Err(CliError::new(
                "no command given: use `console2svg capture -- <command>` or pipe terminal output into console2svg",
            ));
        }
        capture::run_bytes(Box::new(std::io::stdin()), args.width, rows, args.timeout)
    } else {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?;
        let palette = appearance.palette(&[]);
        let query_colors = QueryColors {
            foreground: palette.foreground,
            background: palette.background,
            ansi: appearance.theme.ansi,
        };
        capture::run_command(&CommandCapture {
            spawn: SpawnSpec {
                argv: args.command.clone(),
                cwd,
                cols: args.width,
                rows,
                color_env: !args.no_colorenv,
                delete_ci_env: !args.no_delete_envs,
            },
            timeout: args.timeout,
            query_colors,
        })?
    };
    let Capture {
        screen: mut full,
        status,
        exit,
        duration,
    } = capture;
    if args.no_cursor {
        full.cursor.visible = false;
    }
    let screen = if args.height.is_some() {
        full.into_viewport()
    } else {
        full.into_content()
    };
    let fonts = Fonts::new();
    let svg = render::render_svg(&screen, &appearance, &fonts);

    if args.stdout {
        let mut out = std::io::stdout().lock();
        out.write_all(svg.as_bytes())
            .and_then(|_| out.flush())
            .map_err(|e| format!("cannot write to stdout: {e}"))?;
        return Ok(());
    }
    output::write_atomic(&args.out, svg.as_bytes())?;
    if args.json {
        super::print_stdout(&format!(
            "{}\n",
            result_json(
                status,
                exit.as_ref(),
                duration,
                &screen,
                Some((&args.out, format))
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

/// The `capture --json` reply (contract: `capture --json`).
fn result_json(
    status: Status,
    exit: Option<&crate::pty::Exit>,
    duration: Duration,
    screen: &crate::term::Screen,
    artifact: Option<(&Path, Format)>,
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
        "frames": [],
    })
    .to_string()
}

/// Maps the appearance options onto an [`Appearance`]; theme fields apply unless a flag is given.
fn appearance(args: &CaptureArgs) -> Result<Appearance, CliError> {
    let specs = args
        .theme
        .iter()
        .map(|t| theme::load(t))
        .collect::<Result<Vec<_>, _>>()?;
    let theme = theme::resolve(&specs);
    let window = args
        .window
        .clone()
        .or_else(|| theme.window.clone())
        .unwrap_or_else(|| "none".into());
    let frame = chrome::load(&window)?;
    let header = match (&args.header, args.with_command) {
        (Some(h), _) => Some(h.clone()),
        (None, true) if !args.command.is_empty() => {
            let prompt = args.prompt.clone().unwrap_or_else(|| {
                if rustix::process::geteuid().is_root() {
                    "#".into()
                } else {
                    "$".into()
                }
            });
            let command: Vec<String> = args
                .command
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            Some(format!("{prompt} {}", super::shell_join(&command)))
        }
        (None, _) => None,
    };
    let defaults = Appearance::default();
    Ok(Appearance {
        foreground: args.forecolor,
        background_color: args.backcolor,
        canvas: background(&args.background)?,
        opacity: args.opacity.or(theme.opacity).unwrap_or(1.0),
        spacing: Spacing {
            padding: args
                .padding
                .or(theme.padding)
                .or(frame.padding)
                .unwrap_or(defaults.spacing.padding),
            margin: args
                .margin
                .or(theme.margin)
                .unwrap_or(defaults.spacing.margin),
            pc_padding: args
                .pc_padding
                .or(theme.pc_padding)
                .unwrap_or(frame.pc_padding),
        },
        font_family: args.font.clone().or_else(|| theme.font_family.clone()),
        font_size: args
            .fontsize
            .or(theme.font_size)
            .unwrap_or(defaults.font_size),
        header,
        cursor: !args.no_cursor,
        bold_is_bright: args.bold_is_bright,
        embed_fonts: !args.no_embed_font,
        size: args.size,
        frame,
        theme,
    })
}

/// `--background`: one colour, two colours (or `c1:c2`) for a gradient, or an image file.
fn background(values: &[String]) -> Result<Option<Background>, CliError> {
    let check = |c: &str| -> Result<String, CliError> {
        if render::is_css_color(c) {
            Ok(c.trim().to_string())
        } else {
            Err(CliError::new(format!(
                "--background: '{c}' is not a CSS colour or an image file"
            )))
        }
    };
    Ok(match values {
        [] => None,
        [one] if Path::new(one).is_file() => {
            Some(Background::Image(image_data_uri(Path::new(one))?))
        }
        [one] => match one.split_once(':') {
            Some((a, b)) => Some(Background::Gradient(check(a)?, check(b)?)),
            None => Some(Background::Color(check(one)?)),
        },
        [a, b] => Some(Background::Gradient(check(a)?, check(b)?)),
        _ => return Err(CliError::new("--background takes one or two values")),
    })
}

fn image_data_uri(path: &Path) -> Result<String, CliError> {
    use base64::Engine;
    let mime = match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("svg") => "image/svg+xml",
        _ => {
            return Err(CliError::new(format!(
                "{}: background images must be .png, .jpg, .gif, .webp or .svg",
                path.display()
            )))
        }
    };
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let looks_right = match mime {
        "image/png" => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => bytes.starts_with(&[0xff, 0xd8, 0xff]),
        "image/gif" => bytes.starts_with(b"GIF8"),
        "image/webp" => bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP",
        _ => String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).contains("<svg"),
    };
    if !looks_right {
        return Err(CliError::new(format!(
            "{}: not a {mime} image",
            path.display()
        )));
    }
    Ok(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}
