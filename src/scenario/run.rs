//! `scenario run`: replays a scenario document in-process.
//!
//! The program runs in a [`Session`] owned by this process (no background host), so a run needs
//! no daemon and leaves nothing behind: the program is always ended and a temporary working
//! directory always removed before [`run`] returns.
//!
//! Semantics:
//! - **Paths.** The document's directory is the base. `working-dir.path` is relative to it
//!   (default `.`); `temporary: true` runs in a fresh temporary directory removed at the end.
//!   Capture `output` paths are relative to the document's directory (absolute allowed), never
//!   to the working directory, and their directory must exist.
//! - **Options.** Appearance for a capture: config tiers (`-C`) → document `options` →
//!   `launch.options` → the step's `options`, resolved without a command (no `-c` header).
//!   Terminal size: document `options` → `launch.options` → `--width`/`--height` (flags win);
//!   default 100 × 24. A capture step's `terminal` options are ignored (a capture never resizes).
//! - **prepare.** Each command runs as `sh -c` in the working directory; non-zero fails.
//! - **launch.** `[executable, args…]` is executed directly, not through a shell, with
//!   `colorenv` and `delete-envs` defaulting to what the config and document `options`'
//!   `environment` say (`preserve` = false), else true. (One exception inherited from the PTY
//!   layer: an `executable` without `args` that contains whitespace or shell syntax runs through
//!   `/bin/sh -c`, as everywhere else in console2svg.)
//! - **execute**, in order: `wait` registers the condition (text or regex, `until`,
//!   `stable-for`, `line`; `since-last-action` only lets rows written after the version taken
//!   right before the previous `send`/`resize` match) and blocks until it matches, its timeout
//!   (default 30 s) passes (failure; the message carries the screen), or the program ends
//!   (failure). `send` validates its inputs and types them (a `secret` input types the value
//!   of its environment variable; every secret is read before anything runs, and a missing
//!   one fails the run naming the variable); `resize` resizes; both fail once
//!   the program has exited. `capture` renders the current screen and writes it atomically
//!   (`Mode::Write`/`Mode::Update`) or compares it with the file already there
//!   (`Mode::Check`; a missing file differs; nothing is written). `command` runs `sh -c`.
//!   Waits, never sleeps, are what make runs deterministic. `sleep` pauses; `type` types its
//!   text one character at a time (`delay` apart); `hide`/`show` leave steps out of a
//!   recording.
//! - **record** runs its `steps` and writes them as an animation (`.svg`, `.gif`, `.mp4`,
//!   `.webm`, or an asciicast `.cast` that paints those frames; compared, not written, under
//!   `Mode::Check`). Its clock is the document's: only `sleep` and `type` move it, and after
//!   every step the settled screen is a frame at the clock's time, so a replay gives the same
//!   bytes (see `document::RecordArgs`).
//! - After `execute`, the program has `launch.exit-timeout` (default 5 s) to exit by itself;
//!   then it is stopped (SIGTERM/SIGHUP, 2 s grace, SIGKILL) and the exit code is that status.
//! - **verify.** Each command, after the program ended; non-zero fails.
//! - **teardown.** Always attempted, even after a failure; its failures are appended to the
//!   message, but the first failure is the one reported.
//!
//! Command output (stdout and stderr) goes to this process's stderr, so stdout stays the
//! JSON result; a failing command's last stderr lines are quoted in the message.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::document::{
    send_gap, Document, SendInput, Step, WaitArgs, DEFAULT_EXIT_TIMEOUT, DEFAULT_RECORD_SLEEP,
    DEFAULT_TYPE_DELAY, DEFAULT_WAIT_TIMEOUT,
};
use crate::host::protocol::{parse_duration, Condition, ErrorCode, Until};
use crate::host::session::{
    Poll, Session, State, CAPTURE_QUIET, CAPTURE_SETTLE_MAX, DEFAULT_INPUT_GAP,
};
use crate::options::{AppearanceOptions, Options};
use crate::pty::SpawnSpec;
use crate::render::fonts::Fonts;
use crate::term::keys;

/// What to do with captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Write every capture (atomically).
    #[default]
    Write,
    /// Compare every capture with the file at its output path; write nothing.
    Check,
    /// Rewrite every capture (reports which files changed).
    Update,
}

/// How to run a document.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Terminal size flags (over the document's options).
    pub width: Option<u16>,
    pub height: Option<u16>,
    /// `-C` config file.
    pub config: Option<PathBuf>,
    pub mode: Mode,
}

/// A finished run (the program ran, every phase passed).
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The in-process session's id.
    pub session_id: String,
    /// The program's exit code (the killed status when it had to be stopped).
    pub exit_code: Option<i32>,
    /// Absolute capture paths, in order.
    pub artifacts: Vec<PathBuf>,
    /// `Mode::Check`: captures that differ from (or are missing at) their path.
    pub differences: Vec<PathBuf>,
    /// `Mode::Update`: captures whose file content changed.
    pub updated: Vec<PathBuf>,
}

/// How often a wait looks at Ctrl+C.
const POLL_SLICE: Duration = Duration::from_millis(100);
/// The grace between SIGTERM and SIGKILL when the program is stopped.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// Runs the document at `path`.
///
/// Errors: one message, starting with the document's path and naming the phase and step
/// (`scenario.yaml: execute[3] (wait): …`); an invalid document fails before anything runs.
pub fn run(path: &Path, opts: &RunOptions) -> Result<Outcome, String> {
    let doc = Document::load(path).map_err(|e| locate_step_error(path).unwrap_or(e))?;
    let config = crate::options::load_config(opts.config.as_deref())?;
    let abs = std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = abs
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"));
    let label = path.display().to_string();
    // Every capture's appearance must resolve before anything runs: nothing half-done.
    let doc_options = Options::default()
        .overlay(doc.options.as_ref().unwrap_or(&Options::default()))
        .overlay(
            doc.scenario
                .launch
                .options
                .as_ref()
                .unwrap_or(&Options::default()),
        );
    for (i, step) in doc.scenario.execute.iter().enumerate() {
        if let Step::Capture { options, .. } | Step::Record { options, .. } = step {
            let kind = step.kind();
            capture_options(&config, &doc_options, options.as_deref())
                .resolve(None)
                .map_err(|e| format!("{label}: execute[{i}] ({kind}): {e}"))?;
            still_options(&config, &doc_options, options.as_deref())
                .still()
                .map_err(|e| format!("{label}: execute[{i}] ({kind}): {e}"))?;
        }
    }
    // Every secret must be set before anything runs.
    let mut secrets = std::collections::HashMap::new();
    for (i, step) in doc.scenario.execute.iter().enumerate() {
        if let Step::Send { inputs, .. } = step {
            for input in inputs {
                if let SendInput::Secret { name, .. } = input {
                    let value = std::env::var(name).map_err(|e| {
                        format!(
                            "{label}: execute[{i}] (send): the secret {name} is not set: set the \
                             environment variable {name} to the text to send ({e})"
                        )
                    })?;
                    secrets.insert(name.clone(), value);
                }
            }
        }
    }
    let mut runner = Runner {
        secrets,
        doc: &doc,
        opts,
        config,
        doc_options,
        base,
        workdir: PathBuf::new(),
        _temp: None,
        session: None,
        fonts: None,
        last_action_version: None,
        take: None,
        outcome: Outcome {
            session_id: String::new(),
            exit_code: None,
            artifacts: Vec::new(),
            differences: Vec::new(),
            updated: Vec::new(),
        },
    };
    let result = runner.lifecycle();
    // Whatever happened, the program ends and teardown is attempted.
    let stop = runner.stop_program();
    let mut failure = result.and(stop).err();
    for (i, c) in doc.scenario.teardown.iter().enumerate() {
        if let Err(e) = runner.shell(c.command()) {
            let m = format!("teardown[{i}] (command): {e}");
            failure = Some(match failure {
                Some(f) => format!("{f}; also {m}"),
                None => m,
            });
        }
    }
    let outcome = runner.outcome.clone();
    drop(runner); // removes a temporary working directory
    match failure {
        Some(f) => Err(format!("{label}: {f}")),
        None => Ok(outcome),
    }
}

/// A parse error inside a step loses its position (tagged enums are buffered): find the first
/// step that does not parse on its own and name it (`execute[1] (wait): unknown field …`).
fn locate_step_error(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_yaml_ng::from_str(&text).ok()?;
    let scenario = value.get("scenario")?;
    for phase in ["prepare", "execute", "verify", "teardown"] {
        let Some(steps) = scenario.get(phase).and_then(|v| v.as_array()) else {
            continue;
        };
        for (i, step) in steps.iter().enumerate() {
            let kind = step.get("type").and_then(|t| t.as_str()).unwrap_or("?");
            let err = if phase == "execute" {
                serde_json::from_value::<Step>(step.clone()).err()
            } else {
                serde_json::from_value::<super::document::CommandStep>(step.clone()).err()
            };
            if let Some(e) = err {
                return Some(format!(
                    "invalid scenario {}: {phase}[{i}] ({kind}): {e}",
                    path.display()
                ));
            }
        }
    }
    None
}

/// The appearance options of one capture: config, document (+ launch), step.
fn capture_options(
    config: &Options,
    doc_options: &Options,
    step: Option<&Options>,
) -> AppearanceOptions {
    let mut o = config.appearance().overlay(&doc_options.appearance());
    if let Some(s) = step {
        o = o.overlay(&s.appearance());
    }
    o
}

/// The still-picture options (masking, crop) of one capture: config, document (+ launch), step.
fn still_options(config: &Options, doc_options: &Options, step: Option<&Options>) -> Options {
    let o = config.overlay(doc_options);
    step.map_or(o.clone(), |s| o.overlay(s))
}

struct Runner<'a> {
    /// The values of the document's secret inputs, by variable name.
    secrets: std::collections::HashMap<String, String>,
    doc: &'a Document,
    opts: &'a RunOptions,
    config: Options,
    /// The document's options with `launch.options` over them.
    doc_options: Options,
    base: PathBuf,
    workdir: PathBuf,
    _temp: Option<tempfile::TempDir>,
    session: Option<Session>,
    fonts: Option<Fonts>,
    /// The version taken right before the previous send or resize.
    last_action_version: Option<u64>,
    /// The recording of the `record` block running now.
    take: Option<Take>,
    outcome: Outcome,
}

/// A `record` block's recording so far (see `document::RecordArgs`).
#[derive(Default)]
struct Take {
    frames: crate::recording::Frames,
    /// Each frame's title and modes: a settled screen that differs from the last frame in
    /// these alone is still a new frame.
    states: Vec<(Option<String>, crate::term::Modes)>,
    /// The document's clock: moved only by `sleep` and `type`.
    clock: Duration,
    /// Between `hide` and `show`: no frames, the clock stands still.
    hidden: bool,
    /// Leave the cursor out (`cursor: false`).
    no_cursor: bool,
}

impl Runner<'_> {
    /// working-dir, prepare, launch, execute, exit, verify. Teardown is the caller's.
    fn lifecycle(&mut self) -> Result<(), String> {
        let sc = &self.doc.scenario;
        let wd = sc
            .working_dir
            .clone()
            .unwrap_or(super::document::WorkingDir {
                path: ".".into(),
                temporary: false,
            });
        if wd.temporary {
            let t = tempfile::Builder::new()
                .prefix("console2svg-scenario-")
                .tempdir()
                .map_err(|e| format!("working-dir: cannot create a temporary directory: {e}"))?;
            self.workdir = t.path().to_path_buf();
            self._temp = Some(t);
        } else {
            self.workdir = self.base.join(&wd.path);
            if !self.workdir.is_dir() {
                return Err(format!(
                    "working-dir: {} is not a directory",
                    self.workdir.display()
                ));
            }
        }
        for (i, c) in sc.prepare.iter().enumerate() {
            self.shell(c.command())
                .map_err(|e| format!("prepare[{i}] (command): {e}"))?;
        }
        self.launch().map_err(|e| format!("launch: {e}"))?;
        for (i, step) in sc.execute.iter().enumerate() {
            self.step(step)
                .map_err(|e| format!("execute[{i}] ({}): {e}", step.kind()))?;
        }
        let exit_timeout = sc
            .launch
            .exit_timeout
            .as_deref()
            .map(parse_duration)
            .transpose()
            .map_err(|e| format!("launch: exit-timeout {e}"))?
            .unwrap_or(DEFAULT_EXIT_TIMEOUT);
        self.await_exit(exit_timeout)?;
        self.stop_program()?;
        for (i, c) in sc.verify.iter().enumerate() {
            self.shell(c.command())
                .map_err(|e| format!("verify[{i}] (command): {e}"))?;
        }
        Ok(())
    }

    fn launch(&mut self) -> Result<(), String> {
        let launch = &self.doc.scenario.launch;
        let t = self.doc_options.terminal();
        let cols = self.opts.width.or(t.width).unwrap_or(100);
        let rows = self.opts.height.or(t.height).unwrap_or(24);
        let environment = self
            .config
            .overlay(&self.doc_options)
            .environment
            .unwrap_or_default();
        let mut argv = vec![launch.executable.clone().into()];
        argv.extend(launch.args.iter().map(Into::into));
        let spec = SpawnSpec {
            argv,
            cwd: self.workdir.clone(),
            cols,
            rows,
            color_env: launch.colorenv.unwrap_or(environment.color_env(false)),
            delete_ci_env: launch
                .delete_envs
                .unwrap_or(environment.delete_ci_env(false)),
            env: Vec::new(),
            // The secrets the document sends are typed, never inherited by the program.
            base_env: Some(
                crate::pty::caller_env()
                    .into_iter()
                    .filter(|(k, _)| !self.secrets.contains_key(k))
                    .collect(),
            ),
        };
        let session = Session::start(&spec, None, false).map_err(|e| e.message)?;
        if let Some(rows) = t.scrollback {
            session.lock().emulator.set_scrollback(rows as usize);
        }
        self.outcome.session_id = session.id.to_string();
        self.session = Some(session);
        Ok(())
    }

    fn session(&self) -> &Session {
        self.session.as_ref().expect("launched")
    }

    fn step(&mut self, step: &Step) -> Result<(), String> {
        match step {
            Step::Wait { args } => self.wait(args),
            Step::Send { inputs, gap } => {
                let gap = match gap {
                    Some(g) => send_gap(g)?,
                    None => DEFAULT_INPUT_GAP,
                };
                let mut steps = Vec::new();
                for input in inputs {
                    let step = match input {
                        SendInput::Input(i) => {
                            keys::validate(std::slice::from_ref(i)).map_err(|e| e.to_string())?
                        }
                        SendInput::Secret { name, kind } => {
                            let value = self.secrets.get(name).cloned().unwrap_or_default();
                            // Never quote a secret's value in a message.
                            keys::validate(&[kind.input(value)]).map_err(|_| {
                                format!(
                                    "the secret {name} is not a valid {} input (its value is \
                                     not shown)",
                                    kind.name()
                                )
                            })?
                        }
                    };
                    steps.extend(step);
                }
                self.send(steps, gap)
            }
            Step::Resize { args } => {
                let s = self.session();
                let version = running_version(s)?;
                s.resize(args.width, args.height).map_err(|e| {
                    let g = s.lock();
                    if g.state != State::Running {
                        exited_message(&g)
                    } else {
                        e.message
                    }
                })?;
                self.last_action_version = Some(version);
                Ok(())
            }
            Step::Capture { args, options } => {
                self.capture(&args.output, args.scale.unwrap_or(1.0), options.as_deref())
            }
            Step::Command { command } => self.shell(command),
            Step::Sleep { duration } => {
                let d = parse_duration(duration)?;
                std::thread::sleep(d);
                self.advance(d);
                Ok(())
            }
            Step::Type { text, delay } => {
                let d = delay
                    .as_deref()
                    .map(parse_duration)
                    .transpose()?
                    .unwrap_or(DEFAULT_TYPE_DELAY);
                for ch in text.chars() {
                    let input = keys::Input::Text(ch.to_string());
                    let steps = keys::validate(&[input]).map_err(|e| e.to_string())?;
                    self.send(steps, Duration::ZERO)?;
                    std::thread::sleep(d);
                    self.advance(d);
                    self.frame();
                }
                Ok(())
            }
            Step::Hide | Step::Show => {
                if let Some(t) = &mut self.take {
                    t.hidden = matches!(step, Step::Hide);
                }
                Ok(())
            }
            Step::Record {
                args,
                options,
                steps,
            } => self.record(args, options.as_deref(), steps),
        }
    }

    /// Types `steps` into the program, with a quiet `gap` after a paste or a bare Escape (the
    /// version before is the last action's).
    fn send(&mut self, steps: Vec<keys::Step>, gap: Duration) -> Result<(), String> {
        let s = self.session();
        let version = running_version(s)?;
        s.send(steps, gap).map_err(|e| {
            if e.code == ErrorCode::UnsupportedKey {
                e.message
            } else {
                exited_message(&s.lock())
            }
        })?;
        self.last_action_version = Some(version);
        Ok(())
    }

    /// Moves a visible recording's clock on by `d`.
    fn advance(&mut self, d: Duration) {
        if let Some(t) = self.take.as_mut().filter(|t| !t.hidden) {
            t.clock += d;
        }
    }

    /// Keeps the settled screen as a frame of a visible recording at its clock's time: a
    /// frame at the same time is replaced, an unchanged picture is not kept.
    fn frame(&mut self) {
        if self.take.as_ref().is_none_or(|t| t.hidden) {
            return;
        }
        self.session().settle(CAPTURE_QUIET, CAPTURE_SETTLE_MAX);
        let (mut screen, _, _) = self.session().snapshot();
        let Some(t) = self.take.as_mut() else { return };
        if t.no_cursor {
            screen.cursor.visible = false;
        }
        let time = t.clock;
        if t.frames.list.last().is_some_and(|f| f.time == time) && t.frames.len() > 1 {
            t.frames.list.pop();
            t.states.pop();
        }
        let state = (screen.title.clone(), screen.modes);
        let frame = t.frames.frame(time, screen);
        match (t.frames.list.last_mut(), t.states.last_mut()) {
            (Some(f), Some(s)) if f.same_picture(&frame) && *s == state => {}
            (Some(f), Some(s)) if f.time == time => (*f, *s) = (frame, state),
            _ => {
                t.frames.list.push(frame);
                t.states.push(state);
            }
        }
    }

    /// Runs a `record` block and writes (or checks) its animation.
    fn record(
        &mut self,
        args: &super::document::RecordArgs,
        step: Option<&Options>,
        steps: &[Step],
    ) -> Result<(), String> {
        let options = capture_options(&self.config, &self.doc_options, step);
        let appearance = options.resolve(None)?;
        let format = if args.is_cast() {
            None
        } else {
            Some(crate::output::Format::from_path(Path::new(&args.output))?)
        };
        let hold = args
            .sleep
            .as_deref()
            .map(parse_duration)
            .transpose()?
            .unwrap_or(DEFAULT_RECORD_SLEEP);
        self.take = Some(Take {
            no_cursor: options.cursor == Some(false),
            ..Take::default()
        });
        self.frame();
        for (i, inner) in steps.iter().enumerate() {
            let done = self.step(inner);
            if let Err(e) = done {
                self.take = None;
                return Err(format!("steps[{i}] ({}): {e}", inner.kind()));
            }
            self.frame();
        }
        let Some(mut take) = self.take.take() else {
            return Ok(());
        };
        crate::recording::encode::normalise(&mut take.frames, true);
        let still = still_options(&self.config, &self.doc_options, step).still()?;
        let appearance = still.mask_header(appearance);
        let fonts = self.fonts.get_or_insert_with(Fonts::new);
        still.apply_frames(&mut take.frames, &appearance, fonts)?;
        let Some(format) = format else {
            let cast = take.frames.to_recording(take.clock + hold);
            return self.emit(
                &args.output,
                crate::recording::asciicast::write_v2(&cast).into_bytes(),
            );
        };
        let encoding = crate::recording::encode::Encoding {
            duration_ms: (take.clock + hold).as_millis() as u64,
            looped: args.looped.unwrap_or(true),
            fps: args.fps.unwrap_or(12),
            scale: args.scale.unwrap_or(1.0),
        };
        let fonts = self.fonts.get_or_insert_with(Fonts::new);
        let bytes =
            crate::recording::encode::encode(&take.frames, format, &encoding, &appearance, fonts)?;
        self.emit(&args.output, bytes)
    }

    fn wait(&mut self, args: &WaitArgs) -> Result<(), String> {
        let timeout = args
            .timeout
            .as_deref()
            .map(parse_duration)
            .transpose()?
            .unwrap_or(DEFAULT_WAIT_TIMEOUT);
        let stable = args
            .stable_for
            .as_deref()
            .map(parse_duration)
            .transpose()?
            .unwrap_or_default();
        let condition = Condition {
            regex: args.regex.is_some(),
            text: args.text.clone().or(args.regex.clone()).unwrap_or_default(),
            until: args.until.unwrap_or(Until::Present),
            stable_for_ms: stable.as_millis() as u64,
            line: args.line.unwrap_or(false),
            since: if args.since_last_action.unwrap_or(false) {
                self.last_action_version
            } else {
                None
            },
        };
        let what = format!(
            "{} '{}' to be {}",
            if condition.regex { "regex" } else { "text" },
            condition.text,
            condition.until.as_str()
        );
        let s = self.session();
        let id = s
            .add_waiter(condition, Some(timeout.as_millis() as u64))
            .map_err(|e| e.message)?;
        let deadline = Instant::now() + timeout;
        let result = loop {
            if crate::host::client::interrupted() {
                break Err("cancelled by the user".to_string());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match s.poll_waiter(id, left.min(POLL_SLICE)) {
                Ok(Poll::Matched) => break Ok(()),
                Ok(Poll::SessionEnded) => {
                    let g = s.lock();
                    break Err(format!(
                        "the program exited (code {}) before {what}; the screen:\n{}",
                        g.exit
                            .as_ref()
                            .map_or("unknown".to_string(), |e| e.code.to_string()),
                        g.emulator.snapshot().text()
                    ));
                }
                Ok(Poll::Pending) if left.is_zero() => {
                    break Err(format!(
                        "timed out after {} waiting for {what}; the screen:\n{}",
                        crate::host::protocol::format_duration_ms(timeout.as_millis() as u64),
                        s.snapshot().0.text()
                    ));
                }
                Ok(Poll::Pending) => {}
                Err(e) => break Err(e.message),
            }
        };
        s.finish_waiter(id);
        result
    }

    fn capture(&mut self, output: &str, scale: f32, step: Option<&Options>) -> Result<(), String> {
        let options = capture_options(&self.config, &self.doc_options, step);
        let appearance = options.resolve(None)?;
        // As `session capture` does: never between the parts of one redraw.
        self.session().settle(CAPTURE_QUIET, CAPTURE_SETTLE_MAX);
        let (mut screen, _, _) = self.session().snapshot();
        if options.cursor == Some(false) {
            screen.cursor.visible = false;
        }
        let still = still_options(&self.config, &self.doc_options, step).still()?;
        let fonts = self.fonts.get_or_insert_with(Fonts::new);
        let rows = 0..screen.rows.len();
        let appearance = still.mask_header(appearance);
        let screen = still.apply(screen, rows, &appearance, fonts)?;
        let bytes = crate::output::Format::from_path(std::path::Path::new(output))?.render(
            &screen,
            &appearance,
            fonts,
            scale,
        )?;
        self.emit(output, bytes)
    }

    /// Writes `bytes` to `output` (relative to the document's directory), or compares them
    /// with the file there (`Mode::Check`).
    fn emit(&mut self, output: &str, bytes: Vec<u8>) -> Result<(), String> {
        let path = self.base.join(output);
        let path = std::path::absolute(&path).unwrap_or(path);
        match path.parent() {
            Some(dir) if !dir.is_dir() => {
                return Err(format!(
                    "cannot write {}: the directory {} does not exist",
                    path.display(),
                    dir.display()
                ))
            }
            _ => {}
        }
        let old = std::fs::read(&path).ok();
        let same = old.as_deref() == Some(bytes.as_slice());
        match self.opts.mode {
            Mode::Check => {
                if !same {
                    self.outcome.differences.push(path.clone());
                }
            }
            Mode::Write | Mode::Update => {
                crate::output::write_atomic(&path, &bytes)?;
                if !same {
                    self.outcome.updated.push(path.clone());
                }
            }
        }
        self.outcome.artifacts.push(path);
        Ok(())
    }

    /// Waits up to `limit` for the program to exit by itself.
    fn await_exit(&mut self, limit: Duration) -> Result<(), String> {
        let Some(s) = &self.session else {
            return Ok(());
        };
        // A condition that can never hold: polling it returns when the program ends.
        let never = Condition {
            text: "\u{0}".into(),
            regex: false,
            until: Until::Present,
            stable_for_ms: 0,
            line: false,
            since: None,
        };
        let id = s.add_waiter(never, None).map_err(|e| e.message)?;
        let deadline = Instant::now() + limit;
        let mut result = Ok(());
        loop {
            if crate::host::client::interrupted() {
                result = Err("cancelled by the user".to_string());
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match s.poll_waiter(id, left.min(POLL_SLICE)) {
                Ok(Poll::Pending) if !left.is_zero() => {}
                _ => break,
            }
        }
        s.finish_waiter(id);
        result
    }

    /// Ends the program if it still runs and records its exit code.
    fn stop_program(&mut self) -> Result<(), String> {
        let Some(s) = &self.session else {
            return Ok(());
        };
        let (running, exit) = {
            let g = s.lock();
            (g.state == State::Running, g.exit.clone())
        };
        let exit = if running || exit.is_none() {
            s.kill(KILL_GRACE).or(exit)
        } else {
            exit
        };
        if let Some(e) = exit {
            self.outcome.exit_code = Some(e.code);
        }
        // Always make sure no process of the session is left (background children too).
        s.kill(Duration::ZERO);
        Ok(())
    }

    /// Runs `sh -c command` in the working directory; its output goes to stderr.
    fn shell(&self, command: &str) -> Result<(), String> {
        let out = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(command)
            .current_dir(&self.workdir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run '{command}': {e}"))?;
        {
            use std::io::Write;
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(&out.stdout);
            let _ = err.write_all(&out.stderr);
        }
        if out.status.success() {
            return Ok(());
        }
        let status = match out.status.code() {
            Some(c) => format!("exited with code {c}"),
            None => "was killed by a signal".to_string(),
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .rev()
            .take(3)
            .collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        if tail.is_empty() {
            Err(format!("'{command}' {status}"))
        } else {
            Err(format!("'{command}' {status}: {}", tail.join(" / ")))
        }
    }
}

impl Drop for Runner<'_> {
    fn drop(&mut self) {
        if let Some(s) = &self.session {
            if s.lock().state == State::Running {
                s.kill(KILL_GRACE);
            }
        }
    }
}

/// The screen version before an action (for `since-last-action`), or the "step after the
/// program exited" error.
fn running_version(s: &Session) -> Result<u64, String> {
    let g = s.lock();
    if g.state != State::Running {
        return Err(exited_message(&g));
    }
    Ok(g.version)
}

fn exited_message(g: &crate::host::session::Shared) -> String {
    match &g.exit {
        Some(e) => format!("step after the program exited (exit code {})", e.code),
        None => "step after the program exited".to_string(),
    }
}
