//! Scenario documents (shared/spec/console2svg-contract.md, "Scenario documents"): YAML or
//! JSON, kebab-case keys, `$version: 1`.
//!
//! Extensions beyond the contract (optional keys): `line` and `since-last-action` on `wait`
//! (only a whole row matches / only rows written after the previous action match),
//! `colorenv`, `delete-envs` and `exit-timeout` on `launch`, and secret inputs in `send`.
//!
//! # Secret inputs
//!
//! A `send` input may name an environment variable instead of holding its text:
//! `{secret: CONSOLE2SVG_SECRET_1}` types the variable's value as `text` would;
//! `{secret: NAME, as: paste}` (or `keys`, `raw-hex`) sends it as that kind of input.
//! `session export` writes one for every input typed at a hidden prompt (a password prompt:
//! see `host::journal::Entry::send`), named `CONSOLE2SVG_SECRET_1`, `CONSOLE2SVG_SECRET_2`, …
//! in the order they were sent; rename them freely (letters, digits and `_`, not starting with
//! a digit). `scenario run` reads every secret before anything runs and fails, naming the
//! variable, when one is not set. So a scenario with a login replays without holding the
//! password.

use std::path::Path;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::host::journal::InputKind;
use crate::host::protocol::{parse_duration, Until};
use crate::host::session::MAX_INPUT_GAP;
use crate::options::Options;
use crate::term::keys::{self, Input};

/// A scenario document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "console2svg scenario document")]
pub struct Document {
    /// The document's JSON Schema (for editors; `--cw-generate-json-schema DIR` writes it).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The format version: 1.
    #[serde(rename = "$version")]
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Options>,
    pub scenario: Scenario,
}

/// The lifecycle: prepare, launch, execute, verify, teardown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Scenario {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<WorkingDir>,
    /// Shell commands run before the launch; a non-zero exit aborts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prepare: Vec<CommandStep>,
    pub launch: Launch,
    /// Steps against the launched program, in order.
    #[serde(default)]
    pub execute: Vec<Step>,
    /// Shell commands run after the program exits; a non-zero exit fails the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verify: Vec<CommandStep>,
    /// Shell commands always attempted at the end.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teardown: Vec<CommandStep>,
}

/// Where the scenario runs: `path` relative to the document's directory, or a fresh temporary
/// directory (deleted afterwards) when `temporary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct WorkingDir {
    #[serde(default = "dot")]
    pub path: String,
    #[serde(default)]
    pub temporary: bool,
}

fn dot() -> String {
    ".".into()
}

/// A shell command (`sh -c`) in the working directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum CommandStep {
    Command { command: String },
}

impl CommandStep {
    /// The command line.
    pub fn command(&self) -> &str {
        match self {
            CommandStep::Command { command } => command,
        }
    }
}

/// The program to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Launch {
    pub executable: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Options for this program (terminal size), over the document's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Options>,
    /// Set TERM/COLORTERM/FORCE_COLOR (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colorenv: Option<bool>,
    /// Remove CI and TF_BUILD (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_envs: Option<bool>,
    /// How long to wait after `execute` for the program to exit by itself before it is stopped
    /// (default 5s).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "duration_text"
    )]
    #[schemars(with = "Option<DurationSchema>")]
    pub exit_timeout: Option<String>,
}

/// One `execute` step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Step {
    Wait {
        args: WaitArgs,
    },
    /// Input in order, as `session send`; `gap` is its quiet gap after a paste or a bare
    /// Escape (`--gap`; default 200ms).
    Send {
        inputs: Vec<SendInput>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "duration_text"
        )]
        gap: Option<String>,
    },
    Resize {
        args: ResizeArgs,
    },
    Capture {
        args: CaptureArgs,
        /// Boxed: the step list stays small.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        options: Option<Box<Options>>,
    },
    Command {
        command: String,
    },
    /// Pause for `duration`; in a recording, the picture holds that long.
    Sleep {
        #[serde(deserialize_with = "duration_required")]
        #[schemars(with = "DurationSchema")]
        duration: String,
    },
    /// Type `text` one character at a time, `delay` apart (default [`DEFAULT_TYPE_DELAY`]);
    /// in a recording, each character is a frame.
    Type {
        text: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "duration_text"
        )]
        delay: Option<String>,
    },
    /// Leave the steps that follow out of the recording (until `show`): its clock stops.
    Hide,
    /// Record again after `hide`, from the screen as it is now.
    Show,
    /// Run `steps` and write them as an animation (see [`RecordArgs`]).
    Record {
        args: RecordArgs,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        options: Option<Box<Options>>,
        steps: Vec<Step>,
    },
}

impl Step {
    /// The step's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            Step::Wait { .. } => "wait",
            Step::Send { .. } => "send",
            Step::Resize { .. } => "resize",
            Step::Capture { .. } => "capture",
            Step::Command { .. } => "command",
            Step::Sleep { .. } => "sleep",
            Step::Type { .. } => "type",
            Step::Hide => "hide",
            Step::Show => "show",
            Step::Record { .. } => "record",
        }
    }
}

/// A `record` block's output.
///
/// The recording's clock is the document's, not the wall's: it starts at 0, and only `sleep`
/// (its duration) and `type` (its delay per character) move it. After every step inside the
/// block the screen is settled and kept as a frame at the clock's time when it changed, so the
/// same document replays to the same bytes whatever the machine's speed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RecordArgs {
    /// `.svg` (animated), `.gif`, `.mp4`, `.webm` or `.cast` (asciicast v2), relative to the
    /// document's directory.
    pub output: String,
    /// Play for ever (default true).
    #[serde(default, rename = "loop", skip_serializing_if = "Option::is_none")]
    pub looped: Option<bool>,
    /// Hold the last frame this long at the end (default 1s).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "duration_text"
    )]
    #[schemars(with = "Option<DurationSchema>")]
    pub sleep: Option<String>,
    /// Frame rate of MP4/WebM (default 12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fps: Option<u32>,
    /// Pixel scale of GIF/MP4/WebM, 0.1–10 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f32>,
}

impl RecordArgs {
    /// Whether `output` is an asciicast (`.cast`): the frames painted back as terminal output
    /// ([`crate::recording::Frames::to_recording`]), so steps between `hide` and `show` and
    /// masked secrets stay out of it as they do from the pictures.
    pub fn is_cast(&self) -> bool {
        Path::new(&self.output)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("cast"))
    }
}

/// The error for a `record` output of a format that holds no animation.
fn record_formats(output: &str) -> String {
    format!("{output}: a recording is written as .svg, .gif, .mp4, .webm or .cast")
}

/// Default `type` delay between characters.
pub const DEFAULT_TYPE_DELAY: Duration = Duration::from_millis(50);

/// Default hold of a recording's last frame.
pub const DEFAULT_RECORD_SLEEP: Duration = Duration::from_secs(1);

/// One input of a `send` step: an input as `session send` takes it, or a secret read from the
/// environment when the scenario runs (see the module documentation).
///
/// Serialised as a one-key map (`{text: …}`, `{keys: …}`, `{paste: …}`, `{raw-hex: …}`), or
/// `{secret: NAME}` with an optional `as`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "SendInputRepr", into = "SendInputRepr")]
pub enum SendInput {
    /// Sent as written.
    Input(Input),
    /// The value of an environment variable, sent as `kind`.
    Secret {
        /// The environment variable's name.
        name: String,
        /// How the value is sent (default `text`).
        kind: InputKind,
    },
}

impl From<Input> for SendInput {
    fn from(i: Input) -> SendInput {
        SendInput::Input(i)
    }
}

/// The map form of [`SendInput`].
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct SendInputRepr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    keys: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    paste: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    raw_hex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
    #[serde(default, rename = "as", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<InputKindSchema>")]
    as_kind: Option<InputKind>,
}

impl TryFrom<SendInputRepr> for SendInput {
    type Error = String;

    fn try_from(r: SendInputRepr) -> Result<SendInput, String> {
        match (r.text, r.keys, r.paste, r.raw_hex, r.secret, r.as_kind) {
            (None, None, None, None, Some(name), kind) => Ok(SendInput::Secret {
                name,
                kind: kind.unwrap_or_default(),
            }),
            (_, _, _, _, None, Some(_)) => Err("`as` goes with `secret`".into()),
            (Some(t), None, None, None, None, None) => Ok(Input::Text(t).into()),
            (None, Some(k), None, None, None, None) => Ok(Input::Keys(k).into()),
            (None, None, Some(p), None, None, None) => Ok(Input::Paste(p).into()),
            (None, None, None, Some(h), None, None) => Ok(Input::RawHex(h).into()),
            _ => Err("an input has exactly one of text, keys, paste, raw-hex, secret".into()),
        }
    }
}

impl From<SendInput> for SendInputRepr {
    fn from(i: SendInput) -> SendInputRepr {
        match i {
            SendInput::Input(Input::Text(t)) => SendInputRepr {
                text: Some(t),
                ..Default::default()
            },
            SendInput::Input(Input::Keys(k)) => SendInputRepr {
                keys: Some(k),
                ..Default::default()
            },
            SendInput::Input(Input::Paste(p)) => SendInputRepr {
                paste: Some(p),
                ..Default::default()
            },
            SendInput::Input(Input::RawHex(h)) => SendInputRepr {
                raw_hex: Some(h),
                ..Default::default()
            },
            SendInput::Secret { name, kind } => SendInputRepr {
                secret: Some(name),
                as_kind: (kind != InputKind::Text).then_some(kind),
                ..Default::default()
            },
        }
    }
}

/// Whether `name` can be an environment variable's name here: ASCII letters, digits and `_`,
/// not starting with a digit (POSIX, Base Definitions 8.1).
pub fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A wait condition: `text` (literal) or `regex`, not both.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct WaitArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<UntilSchema>")]
    pub until: Option<Until>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "duration_text"
    )]
    #[schemars(with = "Option<DurationSchema>")]
    pub stable_for: Option<String>,
    /// Default 30s.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "duration_text"
    )]
    #[schemars(with = "Option<DurationSchema>")]
    pub timeout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_last_action: Option<bool>,
}

/// The schema of a duration ([`duration_text`]): `"2s"`, `"500ms"`, or a number of seconds.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum DurationSchema {
    /// Seconds.
    Seconds(f64),
    /// `500ms`, `2s`, `3m`, `1h`.
    Text(String),
}

/// The schema of `until` ([`Until`]).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum UntilSchema {
    /// The text is on the screen.
    Present,
    /// The text is not on the screen.
    Absent,
}

/// The schema of a secret's `as` ([`InputKind`]).
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
enum InputKindSchema {
    /// Typed as-is.
    Text,
    /// Key names.
    Keys,
    /// Pasted.
    Paste,
    /// Hex bytes.
    RawHex,
}

/// The JSON Schema (draft 2020-12) of a scenario document ([`Document`]), generated from the
/// types that read it.
pub fn schema() -> serde_json::Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Document>();
    serde_json::to_value(schema).unwrap_or_default()
}

/// Reads a duration written as text (`"2s"`, `"500ms"`) or as a bare number of seconds (`2`,
/// `1.5`), as `session wait` does.
fn duration_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text {
        S(String),
        I(u64),
        F(f64),
    }
    Ok(Option::<Text>::deserialize(d)?.map(|v| match v {
        Text::S(s) => s,
        Text::I(i) => i.to_string(),
        Text::F(f) => f.to_string(),
    }))
}

/// The quiet gap of a `send` step: a duration of at most [`MAX_INPUT_GAP`].
///
/// Errors: the message for an unparsable or too long gap.
pub fn send_gap(text: &str) -> Result<Duration, String> {
    let gap = parse_duration(text).map_err(|e| format!("gap {e}"))?;
    if gap > MAX_INPUT_GAP {
        return Err(format!(
            "gap {text} is longer than {} ms",
            MAX_INPUT_GAP.as_millis()
        ));
    }
    Ok(gap)
}

/// A required duration ([`duration_text`]).
fn duration_required<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    duration_text(d)?.ok_or_else(|| serde::de::Error::custom("a duration is required"))
}

/// A resize.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ResizeArgs {
    pub width: u16,
    pub height: u16,
}

/// A capture: `output` relative to the document's directory (or absolute).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CaptureArgs {
    pub output: String,
    /// Pixel scale of a raster (`.png`) output, 0.1–10 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f32>,
}

/// Default `wait` timeout.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(30);

/// Default `launch.exit-timeout`.
pub const DEFAULT_EXIT_TIMEOUT: Duration = Duration::from_secs(5);

impl Document {
    /// Reads and validates a document: JSON for `.json`, else YAML.
    ///
    /// Errors: one line naming the file and, for a bad step, the step (`execute[2] (wait): …`).
    pub fn load(path: &Path) -> Result<Document, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read scenario {}: {e}", path.display()))?;
        let doc: Document = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            serde_json::from_str(&text)
                .map_err(|e| format!("invalid scenario {}: {e}", path.display()))?
        } else {
            serde_yaml_ng::from_str(&text)
                .map_err(|e| format!("invalid scenario {}: {e}", path.display()))?
        };
        doc.validate()
            .map_err(|e| format!("invalid scenario {}: {e}", path.display()))?;
        Ok(doc)
    }

    /// Checks what serde cannot: the version, ranges, durations, key names, `text` xor `regex`.
    ///
    /// Errors: a message naming the step.
    pub fn validate(&self) -> Result<(), String> {
        if self.version != 1 {
            return Err(format!("$version must be 1, got {}", self.version));
        }
        let sc = &self.scenario;
        if sc.launch.executable.trim().is_empty() {
            return Err("launch: executable must not be empty".into());
        }
        if let Some(t) = &sc.launch.exit_timeout {
            parse_duration(t).map_err(|e| format!("launch: exit-timeout {e}"))?;
        }
        for opts in [self.options.as_ref(), sc.launch.options.as_ref()]
            .into_iter()
            .flatten()
        {
            check_terminal(opts).map_err(|e| format!("options: {e}"))?;
        }
        for (i, step) in sc.execute.iter().enumerate() {
            check_step(step).map_err(|e| format!("execute[{i}] ({}): {e}", step.kind()))?;
        }
        for (phase, list) in [
            ("prepare", &sc.prepare),
            ("verify", &sc.verify),
            ("teardown", &sc.teardown),
        ] {
            for (i, c) in list.iter().enumerate() {
                if c.command().trim().is_empty() {
                    return Err(format!("{phase}[{i}] (command): command must not be empty"));
                }
            }
        }
        Ok(())
    }

    /// Serialises as YAML, or as JSON when `json`.
    pub fn to_text(&self, json: bool) -> String {
        if json {
            let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
            s.push('\n');
            s
        } else {
            serde_yaml_ng::to_string(self).unwrap_or_default()
        }
    }
}

fn check_terminal(o: &Options) -> Result<(), String> {
    let t = o.terminal();
    for (what, v) in [("width", t.width), ("height", t.height)] {
        if let Some(n) = v {
            if !(1..=500).contains(&n) {
                return Err(format!("terminal.{what} {n} is not in 1..=500"));
            }
        }
    }
    if let Some(n) = t
        .scrollback
        .filter(|&n| n as usize > crate::term::MAX_SCROLLBACK)
    {
        return Err(format!(
            "terminal.scrollback {n} is not in 0..={}",
            crate::term::MAX_SCROLLBACK
        ));
    }
    Ok(())
}

fn check_step(step: &Step) -> Result<(), String> {
    match step {
        Step::Wait { args } => {
            match (&args.text, &args.regex) {
                (Some(_), Some(_)) => return Err("give text or regex, not both".into()),
                (None, None) => return Err("give text or regex".into()),
                (Some(t), None) | (None, Some(t)) if t.is_empty() => {
                    return Err("the text to wait for is empty".into())
                }
                (None, Some(r)) => {
                    regex::Regex::new(r).map_err(|e| format!("invalid regex: {e}"))?;
                }
                _ => {}
            }
            for (what, v) in [("stable-for", &args.stable_for), ("timeout", &args.timeout)] {
                if let Some(d) = v {
                    parse_duration(d).map_err(|e| format!("{what} {e}"))?;
                }
            }
        }
        Step::Send { inputs, gap } => {
            if inputs.is_empty() {
                return Err("inputs must not be empty".into());
            }
            if let Some(g) = gap {
                send_gap(g)?;
            }
            let plain: Vec<Input> = inputs
                .iter()
                .filter_map(|i| match i {
                    SendInput::Input(i) => Some(i.clone()),
                    SendInput::Secret { .. } => None,
                })
                .collect();
            keys::validate(&plain).map_err(|e| e.to_string())?;
            for i in inputs {
                if let SendInput::Secret { name, .. } = i {
                    if !is_env_name(name) {
                        return Err(format!(
                            "secret '{name}' is not an environment variable name (letters, \
                             digits and _, not starting with a digit)"
                        ));
                    }
                }
            }
        }
        Step::Resize { args } => {
            if !(1..=500).contains(&args.width) || !(1..=500).contains(&args.height) {
                return Err(format!(
                    "{}×{} is not within 1..=500",
                    args.width, args.height
                ));
            }
        }
        Step::Capture { args, options } => {
            if args.output.trim().is_empty() {
                return Err("output must not be empty".into());
            }
            if crate::output::Format::from_path(Path::new(&args.output))?.is_video() {
                return Err(format!(
                    "{}: a capture is a still (.svg, .png, .jpg or .webp); animations come from a record block",
                    args.output
                ));
            }
            if let Some(scale) = args.scale {
                if !(scale.is_finite() && (0.1..=10.0).contains(&scale)) {
                    return Err(format!("scale {scale} is not from 0.1 to 10"));
                }
            }
            if let Some(o) = options {
                check_terminal(o)?;
            }
        }
        Step::Command { command } => {
            if command.trim().is_empty() {
                return Err("command must not be empty".into());
            }
        }
        Step::Sleep { duration } => {
            parse_duration(duration).map_err(|e| format!("duration {e}"))?;
        }
        Step::Type { text, delay } => {
            if text.is_empty() {
                return Err("text must not be empty".into());
            }
            if let Some(d) = delay {
                parse_duration(d).map_err(|e| format!("delay {e}"))?;
            }
        }
        Step::Hide | Step::Show => {}
        Step::Record {
            args,
            options,
            steps,
        } => {
            if !args.is_cast() {
                let format = crate::output::Format::from_path(Path::new(&args.output))
                    .map_err(|_| record_formats(&args.output))?;
                if !(format.is_video() || format == crate::output::Format::Svg) {
                    return Err(record_formats(&args.output));
                }
            }
            if let Some(d) = &args.sleep {
                parse_duration(d).map_err(|e| format!("sleep {e}"))?;
            }
            if let Some(fps) = args.fps {
                if !(1..=120).contains(&fps) {
                    return Err(format!("fps must be from 1 to 120, got {fps}"));
                }
            }
            if let Some(scale) = args.scale {
                if !(scale.is_finite() && (0.1..=10.0).contains(&scale)) {
                    return Err(format!("scale {scale} is not from 0.1 to 10"));
                }
            }
            if let Some(o) = options {
                check_terminal(o)?;
            }
            for (i, inner) in steps.iter().enumerate() {
                if matches!(inner, Step::Record { .. }) {
                    return Err(format!("steps[{i}]: a record block cannot hold another"));
                }
                check_step(inner).map_err(|e| format!("steps[{i}] ({}): {e}", inner.kind()))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"
$version: 1
options: {terminal: {width: 100, height: 24}, appearance: {theme: [nord], window: macos}}
scenario:
  working-dir: {path: ".", temporary: false}
  prepare:  [{type: command, command: "echo prep"}]
  launch:   {executable: vim, args: [demo.txt], options: {terminal: {width: 80, height: 24}}}
  execute:
    - {type: wait, args: {text: "~", until: present, stable-for: 1s, timeout: 30s}}
    - {type: send, inputs: [{text: "iHello"}, {keys: Escape}, {paste: "x"}, {raw-hex: "1B"}]}
    - {type: send, inputs: [{secret: CONSOLE2SVG_SECRET_1}, {secret: TOKEN, as: paste}, {keys: Enter}]}
    - {type: resize, args: {width: 120, height: 36}}
    - {type: capture, args: {output: out.svg}, options: {appearance: {theme: [dracula]}}}
    - {type: command, command: "test -f hello.log"}
  verify:   [{type: command, command: "true"}]
  teardown: [{type: command, command: "true"}]
"#;

    #[test]
    fn the_contract_example_parses_and_round_trips() {
        let doc: Document = serde_yaml_ng::from_str(EXAMPLE).unwrap();
        doc.validate().unwrap();
        assert_eq!(doc.scenario.execute.len(), 6);
        assert_eq!(
            doc.scenario.execute[1],
            Step::Send {
                inputs: vec![
                    Input::Text("iHello".into()).into(),
                    Input::Keys("Escape".into()).into(),
                    Input::Paste("x".into()).into(),
                    Input::RawHex("1B".into()).into()
                ],
                gap: None,
            }
        );
        assert_eq!(
            doc.scenario.execute[2],
            Step::Send {
                inputs: vec![
                    SendInput::Secret {
                        name: "CONSOLE2SVG_SECRET_1".into(),
                        kind: InputKind::Text
                    },
                    SendInput::Secret {
                        name: "TOKEN".into(),
                        kind: InputKind::Paste
                    },
                    Input::Keys("Enter".into()).into(),
                ],
                gap: None,
            }
        );
        let again: Document = serde_yaml_ng::from_str(&doc.to_text(false)).unwrap();
        assert_eq!(again, doc);
        let json: Document = serde_json::from_str(&doc.to_text(true)).unwrap();
        assert_eq!(json, doc);
    }

    #[test]
    fn bad_documents_name_the_problem() {
        let err = |yaml: &str| match serde_yaml_ng::from_str::<Document>(yaml) {
            Err(e) => e.to_string(),
            Ok(d) => d.validate().unwrap_err(),
        };
        let base = "$version: 1\nscenario:\n  launch: {executable: sh}\n  execute:\n";
        assert!(err("$version: 1\nscenario: {execute: []}\n").contains("missing field `launch`"));
        assert!(err(&format!(
            "{base}    - {{type: wait, args: {{text: a, regex: b}}}}\n"
        ))
        .contains("execute[0] (wait): give text or regex, not both"));
        assert!(err(&format!(
            "{base}    - {{type: wait, args: {{text: a, timeout: soon}}}}\n"
        ))
        .contains("execute[0] (wait): timeout 'soon' is not a duration"));
        assert!(err(&format!(
            "{base}    - {{type: send, inputs: [{{keys: Hyper+Q}}]}}\n"
        ))
        .contains("execute[0] (send):"));
        assert!(err(&format!(
            "{base}    - {{type: send, inputs: [{{secret: 1PASSWORD}}]}}\n"
        ))
        .contains("execute[0] (send): secret '1PASSWORD' is not an environment variable name"));
        assert!(err(&format!(
            "{base}    - {{type: send, inputs: [{{text: a, as: paste}}]}}\n"
        ))
        .contains("`as` goes with `secret`"));
        assert!(err(&format!(
            "{base}    - {{type: send, inputs: [{{paste: a}}], gap: 11s}}\n"
        ))
        .contains("execute[0] (send): gap 11s is longer than 10000 ms"));
        assert!(err(&format!(
            "{base}    - {{type: send, inputs: [{{paste: a}}], gap: soon}}\n"
        ))
        .contains("execute[0] (send): gap 'soon' is not a duration"));
        let ok: Document = serde_yaml_ng::from_str(&format!(
            "{base}    - {{type: send, inputs: [{{paste: a}}, {{keys: Enter}}], gap: 0}}\n"
        ))
        .unwrap();
        ok.validate().unwrap();
        assert!(err(&format!("{base}    - {{type: wiat, args: {{}}}}\n"))
            .contains("unknown variant `wiat`"));
        assert!(
            err("$version: 1\nscenario:\n  launch: {executable: sh, colour: red}\n")
                .contains("unknown field `colour`")
        );
        assert!(err("$version: 2\nscenario:\n  launch: {executable: sh}\n")
            .contains("$version must be 1"));
    }

    #[test]
    fn record_blocks_and_demo_steps_parse_and_validate() {
        let base = "$version: 1\nscenario:\n  launch: {executable: sh}\n  execute:\n";
        let doc: Document = serde_yaml_ng::from_str(&format!(
            "{base}    - {{type: record, args: {{output: d.gif, loop: false}}, steps: [{{type: type, text: ls, delay: 20ms}}, {{type: sleep, duration: 1}}, {{type: hide}}, {{type: show}}]}}\n"
        ))
        .unwrap();
        doc.validate().unwrap();
        let Step::Record { args, steps, .. } = &doc.scenario.execute[0] else {
            panic!("a record step")
        };
        assert_eq!(args.looped, Some(false));
        assert_eq!(steps.len(), 4);
        assert_eq!(
            steps[1],
            Step::Sleep {
                duration: "1".into()
            }
        );
        let again: Document = serde_yaml_ng::from_str(&doc.to_text(false)).unwrap();
        assert_eq!(again, doc);
        let err = |yaml: String| {
            let d: Document = serde_yaml_ng::from_str(&yaml).unwrap();
            d.validate().unwrap_err()
        };
        assert!(err(format!(
            "{base}    - {{type: record, args: {{output: d.png}}, steps: []}}\n"
        ))
        .contains("a recording is written as .svg, .gif, .mp4, .webm or .cast"));
        assert!(err(format!(
            "{base}    - {{type: record, args: {{output: d.svg}}, steps: [{{type: record, args: {{output: e.svg}}, steps: []}}]}}\n"
        ))
        .contains("cannot hold another"));
        assert!(err(format!(
            "{base}    - {{type: record, args: {{output: d.svg}}, steps: [{{type: sleep, duration: soon}}]}}\n"
        ))
        .contains("execute[0] (record): steps[0] (sleep): duration"));
    }
}
