//! `console2svg tmux capture`: render an existing tmux pane like a capture of the same program
//! (shared/spec/console2svg-contract.md, "tmux"). The pane is read by [`crate::tmux`].

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};

use super::CliError;
use crate::output::{self, Format};
use crate::render::fonts::Fonts;
use crate::tmux::{History, Server};

/// `tmux` subcommands.
#[derive(Subcommand, Debug)]
pub enum TmuxCommand {
    /// Render a tmux pane's screen (or its history too, with --history) like a capture: colours,
    /// attributes, wide characters and the cursor, at the pane's size.
    Capture(Box<CaptureArgs>),
}

/// `tmux capture` options.
#[derive(Args, Debug)]
pub struct CaptureArgs {
    /// The pane: a tmux target such as %3, mysession:1.0 or mysession. Without it, a terminal
    /// asks which pane; with no terminal it is an error.
    #[arg(long, value_name = "PANE", value_parser = parse_target)]
    target: Option<String>,
    /// Include the pane's history above its screen: all of it, or at most ROWS rows (1–100000).
    #[arg(long, value_name = "ROWS", num_args = 0..=1, default_missing_value = "all",
          allow_negative_numbers = true, value_parser = parse_history)]
    history: Option<History>,
    /// The tmux server's socket name (tmux -L).
    #[arg(short = 'L', long, value_name = "NAME", conflicts_with = "socket_path")]
    socket_name: Option<String>,
    /// The tmux server's socket path (tmux -S).
    #[arg(short = 'S', long, value_name = "PATH")]
    socket_path: Option<PathBuf>,
    /// Output file; its extension picks the format (.svg, .png, .jpg, .webp).
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
    /// Print a JSON result (as `capture --json`) instead of prose.
    #[arg(long)]
    json: bool,
    /// Output format (default: from the -o extension; svg for --stdout).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Pixel scale of raster output, 0.1–10.
    #[arg(long, default_value_t = 1.0, value_parser = super::console2svg::parse_scale)]
    scale: f32,
    #[command(flatten)]
    appearance: super::appearance::AppearanceArgs,
    #[command(flatten)]
    still: super::still::StillArgs,
}

fn parse_target(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        return Err("a pane is needed (%3, session:window.pane or session)".into());
    }
    Ok(s.to_string())
}

fn parse_history(s: &str) -> Result<History, String> {
    if s == "all" {
        return Ok(History::All);
    }
    match s.parse::<usize>() {
        Ok(n @ 1..=100_000) => Ok(History::Rows(n)),
        _ => Err(format!(
            "'{s}' is not a number of history rows from 1 to 100000 (or none for all of it)"
        )),
    }
}

/// Runs a `tmux` subcommand.
pub fn run(command: TmuxCommand, config: Option<PathBuf>) -> Result<(), CliError> {
    let TmuxCommand::Capture(args) = command;
    capture(*args, config)
}

fn capture(args: CaptureArgs, config: Option<PathBuf>) -> Result<(), CliError> {
    let started = Instant::now();
    let format = match (args.format, args.stdout) {
        (Some(f), _) => f,
        (None, true) => Format::Svg,
        (None, false) => Format::from_path(&args.out)?,
    };
    if format.is_video() {
        return Err(CliError::new(format!(
            "tmux capture writes a still (.svg, .png, .jpg, .webp), not {}",
            format.name()
        )));
    }
    let server = match (&args.socket_name, &args.socket_path) {
        (Some(n), _) => Server::Name(n.clone()),
        (None, Some(p)) => Server::Path(p.clone()),
        (None, None) => Server::Default,
    };
    let config = crate::options::load_config(config.as_deref())?;
    let target = match &args.target {
        Some(t) => t.clone(),
        None => pick(&server)?,
    };
    let command = server
        .pane_command(&target)
        .map_err(|e| CliError::new(e.to_string()))?;
    let appearance = config
        .appearance()
        .overlay(&args.appearance.to_options())
        .resolve(Some(std::slice::from_ref(&command)))?;
    let still = config.overlay(&args.still.to_options()).still()?;
    let appearance = still.mask_header(appearance);
    let history = args.history.unwrap_or(History::None);
    let mut full = server
        .capture(&target, history)
        .map_err(|e| CliError::new(e.to_string()))?;
    if args.appearance.no_cursor {
        full.cursor.visible = false;
    }
    let fonts = Fonts::new();
    // The screen at the pane's size; with --history, the history rows above it too.
    let rows = match history {
        History::None => full.viewport_rows(),
        _ => 0..full.rows.len(),
    };
    let screen = still.apply(full, rows, &appearance, &fonts)?;
    let bytes = format.render(&screen, &appearance, &fonts, args.scale)?;
    if args.stdout {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(&bytes)
            .and_then(|_| out.flush())
            .map_err(|e| CliError::new(format!("cannot write to stdout: {e}")));
    }
    output::write_atomic(&args.out, &bytes)?;
    if args.json {
        return super::print_stdout(&format!(
            "{}\n",
            super::console2svg::result_json(
                crate::capture::Status::Completed,
                None,
                started.elapsed().min(Duration::from_secs(3600)),
                &screen,
                Some((&args.out, format)),
                &[],
            )
        ));
    }
    super::print_stdout(&format!(
        "wrote {} (tmux pane {target}, {}×{} cells)\n",
        args.out.display(),
        screen.width,
        screen.rows.len()
    ))
}

/// No `--target`: on a terminal, lists the server's panes on stderr and asks for one;
/// otherwise an error.
fn pick(server: &Server) -> Result<String, CliError> {
    if !std::io::stdin().is_terminal() {
        return Err(CliError {
            message: "tmux capture: no --target PANE given and no terminal to ask on \
                      (list the panes with `tmux list-panes -a`)"
                .into(),
            code: 2,
        });
    }
    let panes = server.panes().map_err(|e| CliError::new(e.to_string()))?;
    if panes.is_empty() {
        return Err(CliError::new("tmux capture: the tmux server has no panes"));
    }
    let mut err = std::io::stderr().lock();
    for (i, p) in panes.iter().enumerate() {
        let _ = writeln!(
            err,
            "{:>3}) {:<5} {:<20} {:>9}  {}",
            i + 1,
            p.id,
            p.name,
            p.size,
            p.command
        );
    }
    let _ = write!(err, "pane to capture [1-{}]: ", panes.len());
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| CliError::new(format!("cannot read the answer: {e}")))?;
    let answer = line.trim();
    answer
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| panes.get(i))
        .map(|p| p.id.clone())
        .ok_or_else(|| CliError::new(format!("tmux capture: '{answer}' is not a pane number")))
}
