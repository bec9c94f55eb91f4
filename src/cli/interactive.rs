//! `console2svg interactive`: argument mapping onto [`crate::interactive`], and where its
//! hotkeys' pictures go.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;
use crate::interactive::{self, Captured, Source};
use crate::output;
use crate::pty::SpawnSpec;
use crate::render::{fonts::Fonts, Appearance};
use crate::term::QueryColors;

/// `interactive` options.
#[derive(Args, Debug)]
pub struct InteractiveArgs {
    /// Directory the pictures are written to: still-N.svg (F10) and animation-N.svg (F9),
    /// numbered past the files already there.
    #[arg(long, value_name = "DIR", default_value = ".")]
    out_dir: PathBuf,
    /// Frames a second of the F9 animations (1–60).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=60))]
    fps: u32,
    #[command(flatten)]
    appearance: super::appearance::AppearanceArgs,
    /// The program and its arguments, after `--` (default: $SHELL).
    #[arg(last = true, value_name = "PROGRAM")]
    program: Vec<OsString>,
}

/// Runs `interactive`: the program in this terminal until it exits, then one line per
/// picture written.
///
/// Errors: stdin or stdout not a terminal, a bad config or appearance, the output directory
/// missing, the program not starting.
pub fn run(args: InteractiveArgs, config: Option<&Path>) -> Result<(), CliError> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(CliError::new(
            "interactive runs a program in this terminal: stdin and stdout must be a terminal",
        ));
    }
    if !args.out_dir.is_dir() {
        return Err(CliError::new(format!(
            "--out-dir {}: no such directory",
            args.out_dir.display()
        )));
    }
    let options = crate::options::load_config(config)?;
    let argv: Vec<OsString> = if args.program.is_empty() {
        vec![std::env::var_os("SHELL").unwrap_or_else(|| "/bin/sh".into())]
    } else {
        args.program.clone()
    };
    let words: Vec<String> = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let appearance = options
        .appearance()
        .overlay(&args.appearance.to_options())
        .resolve(Some(&words))?;
    let still = options.still()?;
    let appearance = still.mask_header(appearance);
    let palette = appearance.palette(&[]);
    let query_colors = QueryColors {
        foreground: palette.foreground,
        background: palette.background,
        ansi: appearance.theme.ansi,
    };
    let environment = options.environment.clone().unwrap_or_default();
    let spawn = SpawnSpec {
        argv,
        cwd: std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?,
        cols: 80,
        rows: 24,
        color_env: environment.color_env(false),
        delete_ci_env: environment.delete_ci_env(false),
        env: Vec::new(),
        base_env: None,
    };
    let pictures = Pictures {
        dir: args.out_dir.clone(),
        appearance,
        still,
        fps: args.fps,
        no_cursor: args.appearance.no_cursor,
        fonts: Fonts::new(),
    };
    let mut on_capture = |c: Captured| pictures.write(c);
    let outcome = interactive::run(interactive::Options {
        spawn,
        scrollback: crate::term::SCROLLBACK_LINES,
        query_colors,
        source: Source::Terminal {
            record_keys: false,
            hotkeys: true,
            follow_size: true,
        },
        timeout: None,
        on_capture: &mut on_capture,
    })?;
    let mut failed = None;
    for c in outcome.captures {
        match c {
            Ok(path) => eprintln!("console2svg interactive: wrote {path}"),
            Err(e) => {
                eprintln!("console2svg interactive: error: {e}");
                failed = Some(e);
            }
        }
    }
    match failed {
        Some(e) => Err(CliError::new(e)),
        None => Ok(()),
    }
}

/// Where hotkey pictures go and how they are drawn.
struct Pictures {
    dir: PathBuf,
    appearance: Appearance,
    still: crate::options::Still,
    fps: u32,
    no_cursor: bool,
    fonts: Fonts,
}

impl Pictures {
    /// Renders and writes one capture; returns the path written.
    fn write(&self, captured: Captured) -> Result<String, String> {
        let (stem, svg) = match captured {
            Captured::Still(mut screen) => {
                if self.no_cursor {
                    screen.cursor.visible = false;
                }
                let rows = 0..screen.rows.len();
                let screen = self
                    .still
                    .apply(screen, rows, &self.appearance, &self.fonts)?;
                (
                    "still",
                    crate::render::render_svg(&screen, &self.appearance, &self.fonts),
                )
            }
            Captured::Animation(recording) => ("animation", self.animate(recording)?),
        };
        let path = free_name(&self.dir, stem);
        output::write_atomic(&path, svg.as_bytes()).map_err(|e| e.to_string())?;
        Ok(path.display().to_string())
    }

    /// An F9 recording as an animated SVG (looping), masked as a capture's.
    fn animate(&self, recording: crate::recording::Recording) -> Result<String, String> {
        use crate::recording::{self, encode};
        let mut frames = recording::frames(&recording, self.fps).map_err(|e| e.to_string())?;
        for f in &mut frames.list {
            if self.no_cursor {
                f.cursor.visible = false;
            }
        }
        encode::normalise(&mut frames, true);
        self.still
            .apply_frames(&mut frames, &self.appearance, &self.fonts)?;
        let end = recording.duration();
        let last_ms = frames.list.last().map_or(0, |f| f.time.as_millis() as u64);
        let encoding = encode::Encoding {
            duration_ms: (end.as_millis() as u64).max(last_ms) + 1000,
            looped: true,
            fps: self.fps,
            scale: 1.0,
        };
        let bytes = encode::encode(
            &frames,
            output::Format::Svg,
            &encoding,
            &self.appearance,
            &self.fonts,
        )
        .map_err(|e| e.to_string())?;
        String::from_utf8(bytes).map_err(|e| e.to_string())
    }
}

/// `dir/stem-N.svg` with the first N from 1 that names no file.
fn free_name(dir: &Path, stem: &str) -> PathBuf {
    (1..)
        .map(|n| dir.join(format!("{stem}-{n}.svg")))
        .find(|p| !p.exists())
        .expect("a free name")
}
