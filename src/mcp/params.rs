//! The MCP tools' input types: serde + JSON Schema (schemars) shapes of the `session` verbs'
//! options, mapped onto the host's typed requests ([`crate::host::protocol`]) and the CLI's
//! appearance flags. Field names are camelCase on the wire, like the host's replies.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::cli::appearance::AppearanceArgs;
use crate::host::protocol::{parse_duration, Condition, ErrorCode, HostError, Until};
use crate::term::keys::Input;

/// A duration: a number of seconds, or text with a unit (`500ms`, `2s`, `1m`; a bare number
/// is seconds), as the CLI's `--timeout`/`--stable-for`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum DurationArg {
    /// Seconds.
    Seconds(f64),
    /// `500ms`, `2s`, `1m`, `1h`.
    Text(String),
}

impl DurationArg {
    /// The duration.
    ///
    /// Errors: `invalid_request` naming `what` for a negative, non-finite or unparsable value.
    pub fn to_duration(&self, what: &str) -> Result<Duration, HostError> {
        let bad = |m: String| HostError::new(ErrorCode::InvalidRequest, format!("{what}: {m}"));
        match self {
            DurationArg::Seconds(s) if s.is_finite() && *s >= 0.0 && *s <= 1e7 => {
                Ok(Duration::from_secs_f64(*s))
            }
            DurationArg::Seconds(s) => Err(bad(format!("{s} is not a number of seconds"))),
            DurationArg::Text(t) => parse_duration(t).map_err(bad),
        }
    }
}

/// `session_start`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartParams {
    /// The program and its arguments, e.g. `["vim", "notes.txt"]` (no shell: use
    /// `["bash", "-lc", "…"]` for a command line).
    pub command: Vec<String>,
    /// Columns, 1–500 (default 100).
    #[schemars(range(min = 1, max = 500))]
    pub width: Option<u16>,
    /// Rows, 1–500 (default 24).
    #[schemars(range(min = 1, max = 500))]
    pub height: Option<u16>,
    /// Working directory of the program (default: the server's current directory).
    pub cwd: Option<String>,
    /// Do not set TERM=xterm-256color, COLORTERM=truecolor, FORCE_COLOR=3.
    #[serde(default)]
    pub no_colorenv: bool,
    /// Do not remove CI and TF_BUILD from the environment.
    #[serde(default)]
    pub no_delete_envs: bool,
    /// Rows of scrollback the session keeps, 0–100000 (default: the host's, 2000).
    #[schemars(range(max = 100000))]
    pub scrollback: Option<u32>,
    /// Keep the session's output with its timing (at most 4 MiB), so `session export ID -o
    /// x.cast` can write it as an asciicast.
    #[serde(default)]
    pub record: bool,
}

/// `session_list`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListParams {
    /// Also list exited sessions that are still retained.
    #[serde(default)]
    pub all: bool,
}

/// `session_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadParams {
    /// The session id (`s_…`, from `session_start` or `session_list`).
    pub id: String,
    /// Also return the row-major cell snapshot (colours and attributes of every cell).
    #[serde(default)]
    pub structured: bool,
}

/// `session_wait --until`.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UntilParam {
    /// Wait until the text is on the screen.
    #[default]
    Present,
    /// Wait until the text is gone from the screen.
    Absent,
}

/// `session_wait`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitParams {
    /// The session id.
    pub id: String,
    /// Literal, case-sensitive text to look for (give this or `regex`).
    pub text: Option<String>,
    /// A regular expression (Rust `regex` syntax) instead of literal text.
    pub regex: Option<String>,
    /// `present` (default): wait until it shows; `absent`: until it is gone.
    #[serde(default)]
    pub until: UntilParam,
    /// The condition must hold this long before the wait ends (default 0).
    pub stable_for: Option<DurationArg>,
    /// Give up after this long (default 30 s); the result is then the `wait_timeout` error
    /// with the screen as it was.
    pub timeout: Option<DurationArg>,
    /// Only rows written after this screen version can match (pass the `version` of a
    /// `session_send` or `session_resize` reply so an old match on screen does not count).
    pub since: Option<u64>,
    /// A whole row (right-trimmed) must equal the text.
    #[serde(default)]
    pub line: bool,
}

/// How long `session_wait` waits when the call gives no timeout.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(30);

impl WaitParams {
    /// The host's condition and the client-side timeout.
    ///
    /// Errors: `invalid_request` when neither or both of `text` and `regex` are given, or a
    /// duration is bad.
    pub fn condition(&self) -> Result<(Condition, Duration), HostError> {
        let (text, regex) = match (&self.text, &self.regex) {
            (Some(t), None) => (t.clone(), false),
            (None, Some(r)) => (r.clone(), true),
            _ => {
                return Err(HostError::new(
                    ErrorCode::InvalidRequest,
                    "give exactly one of `text` and `regex`",
                ))
            }
        };
        let stable_for = match &self.stable_for {
            Some(d) => d.to_duration("stableFor")?,
            None => Duration::ZERO,
        };
        let timeout = match &self.timeout {
            Some(d) => d.to_duration("timeout")?,
            None => DEFAULT_WAIT_TIMEOUT,
        };
        Ok((
            Condition {
                text,
                regex,
                until: match self.until {
                    UntilParam::Present => Until::Present,
                    UntilParam::Absent => Until::Absent,
                },
                stable_for_ms: stable_for.as_millis() as u64,
                line: self.line,
                since: self.since,
            },
            timeout,
        ))
    }
}

/// One item of `session_send`: exactly one of its keys.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum SendItem {
    /// Text typed as-is (no newline added, no escapes interpreted: send `{"keys": "Enter"}`
    /// for Return).
    Text(String),
    /// One key name: `Enter`, `Tab`, `Shift+Tab`, `Escape`, `Up`, `F5`, `Ctrl+C`, `KP5`, …
    /// (encoded for the program's current keypad/cursor modes).
    Keys(String),
    /// Text pasted (bracketed when the program enabled mode 2004).
    Paste(String),
    /// Bytes as hex pairs, e.g. `1B5B41`.
    RawHex(String),
}

impl From<SendItem> for Input {
    fn from(item: SendItem) -> Input {
        match item {
            SendItem::Text(t) => Input::Text(t),
            SendItem::Keys(k) => Input::Keys(k),
            SendItem::Paste(p) => Input::Paste(p),
            SendItem::RawHex(h) => Input::RawHex(h),
        }
    }
}

/// `session_send`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendParams {
    /// The session id.
    pub id: String,
    /// What to send, in order, as one write: e.g. `[{"text": ":wq"}, {"keys": "Enter"}]`.
    pub inputs: Vec<SendItem>,
    /// The quiet gap after a paste, or a bare Escape key, when more input follows (default
    /// 200 ms, 0 for none, at most 10 s): composers that debounce a paste drop a Return sent
    /// with it, and programs read ESC + text within their escape timeout as Alt+text.
    pub gap: Option<DurationArg>,
}

/// `session_resize`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResizeParams {
    /// The session id.
    pub id: String,
    /// Columns, 1–500.
    #[schemars(range(min = 1, max = 500))]
    pub width: u16,
    /// Rows, 1–500.
    #[schemars(range(min = 1, max = 500))]
    pub height: u16,
}

/// `session_stop`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopParams {
    /// The session to stop (give this or `all`).
    pub id: Option<String>,
    /// Stop every session of this user, also those started outside this MCP server.
    #[serde(default)]
    pub all: bool,
}

/// The appearance options of `session capture` (shared/spec/console2svg-contract.md,
/// "capture options"); each maps onto the CLI flag of the same name and is checked by it.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppearanceParams {
    /// Window style: none, transparent, macos, windows, macos-pc, windows-pc, cyberpunk,
    /// cyberpunk-pc, or a frame JSON file.
    pub window: Option<String>,
    /// Theme ids or theme JSON files; later wins.
    #[serde(default)]
    pub theme: Vec<String>,
    /// Default foreground colour (#rgb or #rrggbb).
    pub forecolor: Option<String>,
    /// Terminal background colour (#rgb or #rrggbb).
    pub backcolor: Option<String>,
    /// Canvas background: one colour, two colours for a gradient, or an image file.
    #[serde(default)]
    pub background: Vec<String>,
    /// Opacity of the frame and terminal background (0–1).
    pub opacity: Option<f32>,
    /// Space between the terminal edge and the text, px.
    pub padding: Option<f32>,
    /// Space between the frame and the terminal area, px.
    pub margin: Option<f32>,
    /// Desktop padding of -pc window styles, px.
    pub pc_padding: Option<f32>,
    /// CSS font stack.
    pub font: Option<String>,
    /// Font size, px.
    pub fontsize: Option<f32>,
    /// Row height as a multiple of the font's natural height, 1–2 (default 1).
    pub line_height: Option<f32>,
    /// Output pixel size, aspect kept: W, WxH, Wx* or *xH.
    pub size: Option<String>,
    /// Show a header row with the prompt and the command.
    #[serde(default)]
    pub with_command: bool,
    /// Header text (implies a header row).
    pub header: Option<String>,
    /// Prompt of the header row.
    pub prompt: Option<String>,
    /// Never draw the cursor.
    #[serde(default)]
    pub no_cursor: bool,
    /// Bold text in colours 0–7 uses the bright colours 8–15.
    #[serde(default)]
    pub bold_is_bright: bool,
    /// Do not embed font subsets in the SVG.
    #[serde(default)]
    pub no_embed_font: bool,
    /// `text` (selectable text, default) or `outlines` (every glyph as a path).
    pub text_mode: Option<String>,
}

impl AppearanceParams {
    /// The CLI flags these options stand for, parsed and checked by the CLI's own parser.
    ///
    /// Errors: `invalid_request` with the parser's message (bad colour, range, size, …).
    pub fn to_args(&self) -> Result<AppearanceArgs, HostError> {
        #[derive(clap::Parser)]
        #[command(no_binary_name = true)]
        struct Flags {
            #[command(flatten)]
            appearance: AppearanceArgs,
        }
        let mut argv: Vec<String> = Vec::new();
        let mut flag = |name: &str, value: Option<String>| {
            if let Some(v) = value {
                argv.push(format!("--{name}={v}"));
            }
        };
        flag("window", self.window.clone());
        for t in &self.theme {
            flag("theme", Some(t.clone()));
        }
        flag("forecolor", self.forecolor.clone());
        flag("backcolor", self.backcolor.clone());
        flag("opacity", self.opacity.map(|v| v.to_string()));
        flag("padding", self.padding.map(|v| v.to_string()));
        flag("margin", self.margin.map(|v| v.to_string()));
        flag("pc-padding", self.pc_padding.map(|v| v.to_string()));
        flag("font", self.font.clone());
        flag("fontsize", self.fontsize.map(|v| v.to_string()));
        flag("line-height", self.line_height.map(|v| v.to_string()));
        flag("size", self.size.clone());
        flag("header", self.header.clone());
        flag("prompt", self.prompt.clone());
        flag("text-mode", self.text_mode.clone());
        for (on, name) in [
            (self.with_command, "--with-command"),
            (self.no_cursor, "--no-cursor"),
            (self.bold_is_bright, "--bold-is-bright"),
            (self.no_embed_font, "--no-embed-font"),
        ] {
            if on {
                argv.push(name.to_string());
            }
        }
        if !self.background.is_empty() {
            argv.push("--background".to_string());
            argv.extend(self.background.iter().cloned());
        }
        use clap::Parser;
        Flags::try_parse_from(argv)
            .map(|f| f.appearance)
            .map_err(|e| {
                let message = e.render().to_string();
                let message = message.trim().trim_start_matches("error: ");
                let message = message.lines().next().unwrap_or(message).to_string();
                HostError::new(ErrorCode::InvalidRequest, message)
            })
    }
}

/// `session_capture`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionCaptureParams {
    /// The session id.
    pub id: String,
    /// Where to write the SVG (journaled as a capture, so `session export` replays it);
    /// default: a fresh private temporary file.
    pub out: Option<String>,
    /// Pixel scale of the returned PNG, 0.1–10 (default 1).
    pub scale: Option<f32>,
    /// Appearance of the picture (theme, window, fonts, …).
    #[serde(flatten)]
    pub appearance: AppearanceParams,
}

/// `capture` (one-shot).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaptureParams {
    /// The program and its arguments; a single element is run as a shell command line.
    pub command: Vec<String>,
    /// Columns, 1–500 (default 100).
    #[schemars(range(min = 1, max = 500))]
    pub width: Option<u16>,
    /// Rows, 1–500 (default 24).
    #[schemars(range(min = 1, max = 500))]
    pub height: Option<u16>,
    /// Stop after this long and return the screen as it is (status `partial`); default 30 s.
    pub timeout: Option<DurationArg>,
    /// Also write the SVG here.
    pub out: Option<String>,
    /// Pixel scale of the returned PNG, 0.1–10 (default 1).
    pub scale: Option<f32>,
    /// Do not set TERM=xterm-256color, COLORTERM=truecolor, FORCE_COLOR=3.
    #[serde(default)]
    pub no_colorenv: bool,
    /// Appearance of the picture (theme, window, fonts, …).
    #[serde(flatten)]
    pub appearance: AppearanceParams,
}

/// How long the one-shot `capture` runs a command when the call gives no timeout.
pub const DEFAULT_CAPTURE_TIMEOUT: Duration = Duration::from_secs(30);

/// Checks a terminal dimension.
///
/// Errors: `invalid_request` outside 1–500.
pub fn cells(value: Option<u16>, default: u16, what: &str) -> Result<u16, HostError> {
    match value.unwrap_or(default) {
        n @ 1..=500 => Ok(n),
        n => Err(HostError::new(
            ErrorCode::InvalidRequest,
            format!("{what}: {n} is not in 1..=500"),
        )),
    }
}

/// Checks a PNG scale.
///
/// Errors: `invalid_request` outside 0.1–10.
pub fn scale(value: Option<f32>) -> Result<f32, HostError> {
    match value.unwrap_or(1.0) {
        s if s.is_finite() && (0.1..=10.0).contains(&s) => Ok(s),
        s => Err(HostError::new(
            ErrorCode::InvalidRequest,
            format!("scale: {s} is not from 0.1 to 10"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_height_maps_onto_the_flag_and_its_range() {
        let ok = AppearanceParams {
            line_height: Some(1.5),
            ..Default::default()
        };
        assert_eq!(ok.to_args().unwrap().line_height, Some(1.5));
        let bad = AppearanceParams {
            line_height: Some(3.0),
            ..Default::default()
        };
        let e = bad.to_args().unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidRequest);
        assert!(e.message.contains("--line-height"), "{}", e.message);
    }
}
