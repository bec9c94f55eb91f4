//! The agents registry (shared/spec/termio-sessions.md, "Spawning without waiting";
//! shared/notes/agents.md): how to start each coding agent, how to tell it is ready for input,
//! how long to wait before the submitting Return, which hook dialect it speaks, which title and
//! screen rules tell its state, and where its transcript lives.
//!
//! Built in: `claude`, `codex`, `cursor` (the Cursor agent CLI) and `gemini`. User definitions
//! come from a YAML file, `$TERMIO_AGENTS_FILE` when set (tests), else `agents.yaml` next to the
//! termio config file (`$XDG_CONFIG_HOME/termio/agents.yaml`, else
//! `$HOME/.config/termio/agents.yaml`):
//!
//! ```yaml
//! default: myagent            # used when the caller is no agent session (optional)
//! agents:
//!   myagent:
//!     command: /usr/local/bin/myagent
//!     args: ["--fast"]
//!     hooks: claude           # hook dialect: claude | codex | cursor | gemini | none
//!     ready: '(?m)^❯ '        # the screen shows the prompt box (a regex)
//!     starting: 'Loading…'    # while this shows, it does not take input yet (optional)
//!     quiet_ms: 150           # gap between the typed prompt and its Return, ms
//!     dialogs: true           # a numbered-choice dialog on screen means needs-you
//!     choice_return: false    # an option number needs a Return too (it only moves a pointer)
//!     title_rules: [{match: '^[⠀-⣿]', state: working}]
//!     screen_rules: [{match: '(?m)^\[done\]$', state: done}]
//!     transcript: '{claude_dir}/projects/{cwd_slug}/*.jsonl'
//! ```
//!
//! A user definition with a built-in's name replaces it. Omitted fields take the defaults of
//! [`AgentDef`]. Transcript patterns expand `{home}`, `{cwd}`, `{cwd_slug}` (the working
//! directory with every non-alphanumeric character as `-`), `{claude_dir}` (`$CLAUDE_CONFIG_DIR`,
//! else `~/.claude`) and `{codex_home}` (`$CODEX_HOME`, else `~/.codex`); `*` and `?` match
//! within one path segment. The newest matching file modified since the session started is the
//! session's transcript, unless a hook names it first.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::error::{Code, Error};
use super::reply::Status;

/// The environment variable naming the user agents file (overrides the default location).
pub const AGENTS_FILE_ENV: &str = "TERMIO_AGENTS_FILE";

/// The default gap between the typed prompt and its Return, ms (Codex needs ≥ 150: SC-02).
pub const DEFAULT_QUIET_MS: u64 = 150;

/// Which hook dialect an agent's hooks speak (how `termio agent report auto` maps an event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// Claude Code (`SessionStart`, `UserPromptSubmit`, `Stop`, …).
    Claude,
    /// Codex CLI (Claude-like events, plus `notify`'s `agent-turn-complete`).
    Codex,
    /// Cursor agent (camelCase events: `beforeSubmitPrompt`, `stop`, …).
    Cursor,
    /// Gemini CLI (`BeforeAgent`, `AfterAgent`, `Notification`).
    Gemini,
    /// No hooks: status from in-band signals and rules only.
    #[default]
    None,
}

/// A regex rule: when `match` matches, the agent is in `state`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rule {
    /// A regular expression (Rust `regex` syntax), matched against the title or the screen
    /// text (rows joined by `\n`, right-trimmed).
    #[serde(rename = "match")]
    pub pattern: String,
    /// `working`, `idle`, `done` or `needs-you`.
    pub state: Status,
}

/// One agent's definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentDef {
    /// The agent's name (`claude`, `codex`, …); the map key in the YAML file.
    pub name: String,
    /// The program (looked up in the session shell's `PATH`).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The hook dialect.
    pub hooks: Dialect,
    /// A regex on the screen text that holds once the agent shows its prompt box; `None`: the
    /// screen has been still for a second.
    pub ready: Option<String>,
    /// A regex on the screen text that, while it matches, means the agent does not take input
    /// yet even though its prompt box shows (a start-up notice such as Codex's `Waiting for
    /// startup`): nothing is typed meanwhile.
    pub starting: Option<String>,
    /// Gap between the typed prompt and the submitting Return, ms.
    pub quiet_ms: u64,
    /// Whether a numbered-choice dialog on screen (`❯ 1. …` then `2. …`) means `needs-you`,
    /// with the text above it as the question.
    pub dialogs: bool,
    /// Whether an option number typed into such a dialog only moves its pointer, so the answer
    /// needs a Return too (Codex 0.171.0); otherwise the dialog acts on the digit alone and a
    /// Return would confirm whatever comes next (Claude Code, Gemini CLI).
    pub choice_return: bool,
    /// Title rules, first match wins; no match after `working` means the turn rested.
    pub title_rules: Vec<Rule>,
    /// Screen rules, first match wins.
    pub screen_rules: Vec<Rule>,
    /// Where the transcript is (a path pattern, see the module docs).
    pub transcript: Option<String>,
}

impl Default for AgentDef {
    fn default() -> AgentDef {
        AgentDef {
            name: String::new(),
            command: String::new(),
            args: Vec::new(),
            hooks: Dialect::None,
            ready: None,
            starting: None,
            quiet_ms: DEFAULT_QUIET_MS,
            dialogs: true,
            choice_return: false,
            title_rules: Vec::new(),
            screen_rules: Vec::new(),
            transcript: None,
        }
    }
}

impl AgentDef {
    /// The shell command line that starts the agent (each word single-quoted when needed).
    pub fn command_line(&self) -> String {
        std::iter::once(&self.command)
            .chain(&self.args)
            .map(|w| shell_quote(w))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Checks the definition: a command, valid regexes.
    ///
    /// Errors: `bad_agent` naming the field.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |m: String| Error::new(Code::BadAgent, format!("agent {}: {m}", self.name));
        if self.command.trim().is_empty() {
            return Err(bad("no command".into()));
        }
        let regexes = self
            .ready
            .iter()
            .chain(&self.starting)
            .chain(self.title_rules.iter().map(|r| &r.pattern))
            .chain(self.screen_rules.iter().map(|r| &r.pattern));
        for r in regexes {
            regex::Regex::new(r).map_err(|e| bad(format!("bad regex {r:?}: {e}")))?;
        }
        for rule in self.title_rules.iter().chain(&self.screen_rules) {
            if rule.state == Status::Exited {
                return Err(bad(
                    "a rule's state must be working, idle, done or needs-you".into(),
                ));
            }
        }
        Ok(())
    }
}

/// Quotes a word for a POSIX shell when it has anything but safe characters.
pub fn shell_quote(w: &str) -> String {
    let safe = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if safe {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// The built-in definitions (shared/notes/agents.md).
pub fn builtins() -> Vec<AgentDef> {
    let spinner = Rule {
        pattern: "^[\u{2800}-\u{28FF}✶✻✽✢·]".into(),
        state: Status::Working,
    };
    // Claude Code 2.1.197: `⠂`/`⠐ Claude Code` while working, `✳ Claude Code` at rest.
    let claude_titles = vec![
        Rule {
            pattern: "^[\u{2800}-\u{28FF}]".into(),
            state: Status::Working,
        },
        Rule {
            pattern: "^✳".into(),
            state: Status::Idle,
        },
    ];
    // Gemini CLI 0.61.0: `◇ Ready`, `✦ Working…`, `⏲ Working…`, `✋ Action Required`.
    let gemini_titles = vec![
        Rule {
            pattern: "^✋|Action Required".into(),
            state: Status::NeedsYou,
        },
        Rule {
            pattern: "^[✦⏲\u{2800}-\u{28FF}]|Working".into(),
            state: Status::Working,
        },
        Rule {
            pattern: "^◇|Ready".into(),
            state: Status::Idle,
        },
    ];
    // Screen rules for sessions whose titles say nothing (a terminal title turned off): the
    // working indicator first (a spinner line's `esc to interrupt` / `esc to cancel` footer),
    // then the idle prompt box's hint; first match wins, and idle after working is done.
    let screen = |working: &str, idle: &str| {
        vec![
            Rule {
                pattern: working.into(),
                state: Status::Working,
            },
            Rule {
                pattern: idle.into(),
                state: Status::Idle,
            },
        ]
    };
    vec![
        AgentDef {
            name: "claude".into(),
            command: "claude".into(),
            hooks: Dialect::Claude,
            // The prompt box with its footer hint: Claude Code 2.1.197 draws the box before
            // it takes input (a Return then is lost), the `? for shortcuts` hint once it does.
            ready: Some(r"(?ms)^[│|\s]*[>❯](\s|$).*\? for shortcuts".into()),
            title_rules: claude_titles,
            screen_rules: screen(r"esc to interrupt", r"\? for shortcuts"),
            transcript: Some("{claude_dir}/projects/{cwd_slug}/*.jsonl".into()),
            ..AgentDef::default()
        },
        AgentDef {
            name: "codex".into(),
            command: "codex".into(),
            hooks: Dialect::Codex,
            // Codex 0.171.0: its composer (`› ` and a placeholder) over the `… · ? for
            // shortcuts` footer; not during its intro (a bare `? for shortcuts` under its
            // logo: a trust dialog may still come) nor while it waits for its app server.
            ready: Some(r"(?ms)^\s*›\s.*·\s*\? for shortcuts".into()),
            starting: Some(r"Waiting for startup|Booting MCP server|Starting MCP".into()),
            quiet_ms: 200,
            choice_return: true,
            title_rules: vec![
                Rule {
                    pattern: "Action Required".into(),
                    state: Status::NeedsYou,
                },
                spinner.clone(),
            ],
            // `• Working (2s • esc to interrupt)`; its footer shows `? for shortcuts` then too.
            screen_rules: screen(r"esc to interrupt\)", r"·\s*\? for shortcuts"),
            transcript: Some("{codex_home}/sessions/*/*/*/rollout-*.jsonl".into()),
            ..AgentDef::default()
        },
        AgentDef {
            name: "cursor".into(),
            command: "cursor-agent".into(),
            hooks: Dialect::Cursor,
            ready: Some(r"(?m)^[│|\s]*[>→›❯](\s|$)".into()),
            title_rules: vec![spinner.clone()],
            ..AgentDef::default()
        },
        AgentDef {
            name: "gemini".into(),
            command: "gemini".into(),
            hooks: Dialect::Gemini,
            // Gemini CLI 0.61.0: the empty prompt box (its placeholder) under the `? for
            // shortcuts` hint; never the answered trust dialog it restarts below.
            ready: Some(r"(?ms)\? for shortcuts.*^[│|\s]*>\s+Type your message".into()),
            starting: Some(r"Initializing\.\.\.".into()),
            title_rules: gemini_titles,
            // `⠹ Thinking... (esc to cancel, 1s)` over the prompt box.
            screen_rules: screen(r"\(esc to cancel", r"(?m)^[│|\s]*>\s+Type your message"),
            // Gemini CLI 0.61.0: `~/.gemini/tmp/<project>/chats/session-<date>-<id>.jsonl`.
            transcript: Some("{home}/.gemini/tmp/*/chats/session-*.jsonl".into()),
            ..AgentDef::default()
        },
    ]
}

/// The user agents file: `$TERMIO_AGENTS_FILE`, else `agents.yaml` beside the config file.
pub fn agents_file() -> Option<PathBuf> {
    match std::env::var_os(AGENTS_FILE_ENV) {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => super::config::config_file().map(|c| c.with_file_name("agents.yaml")),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    default: Option<String>,
    #[serde(default)]
    agents: BTreeMap<String, AgentDef>,
}

/// The built-in and user definitions, and the user's default agent.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    agents: Vec<AgentDef>,
    default: Option<String>,
}

impl Registry {
    /// The built-ins plus the user file's definitions (see the module docs).
    ///
    /// Errors: `bad_agent` when the file cannot be read or parsed, or a definition is invalid.
    pub fn load() -> Result<Registry, Error> {
        let mut agents = builtins();
        let mut default = None;
        if let Some(path) = agents_file() {
            match std::fs::read_to_string(&path) {
                Ok(text) if !text.trim().is_empty() => {
                    let file: File = serde_yaml_ng::from_str(&text).map_err(|e| {
                        Error::new(Code::BadAgent, format!("{}: {e}", path.display()))
                    })?;
                    for (name, mut def) in file.agents {
                        def.name = name;
                        def.validate()?;
                        agents.retain(|a| a.name != def.name);
                        agents.push(def);
                    }
                    default = file.default;
                }
                Ok(_) => {}
                // The default file is optional; one named by the environment must exist.
                Err(e)
                    if e.kind() == std::io::ErrorKind::NotFound
                        && std::env::var_os(AGENTS_FILE_ENV).is_none_or(|v| v.is_empty()) => {}
                Err(e) => {
                    return Err(Error::new(
                        Code::BadAgent,
                        format!("cannot read {}: {e}", path.display()),
                    ))
                }
            }
        }
        Ok(Registry { agents, default })
    }

    /// The definition named `name`.
    ///
    /// Errors: `bad_agent` listing the known names.
    pub fn get(&self, name: &str) -> Result<AgentDef, Error> {
        self.agents
            .iter()
            .find(|a| a.name == name.trim())
            .cloned()
            .ok_or_else(|| {
                let known: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
                Error::new(
                    Code::BadAgent,
                    format!("unknown agent {name:?} (known: {})", known.join(", ")),
                )
            })
    }

    /// The user's `default` agent, if the file names one.
    ///
    /// Errors: `bad_agent` when it names no known agent.
    pub fn default_agent(&self) -> Result<Option<AgentDef>, Error> {
        self.default.as_deref().map(|d| self.get(d)).transpose()
    }

    /// Every definition (built-ins first).
    pub fn all(&self) -> &[AgentDef] {
        &self.agents
    }
}

/// The state a hook event means (shared/notes/agents.md), for `termio agent report auto`:
/// `None` for events that say nothing about the session (a sub-agent stopping, unknown
/// events). `input` is the hook's stdin JSON.
pub fn auto_state(event: &str, input: &serde_json::Value) -> Option<Status> {
    let field = |k: &str| input.get(k).and_then(|v| v.as_str()).unwrap_or("");
    match event {
        "SessionStart" | "sessionStart" => Some(Status::Idle),
        "UserPromptSubmit"
        | "PreToolUse"
        | "PostToolUse"
        | "BeforeAgent"
        | "BeforeTool"
        | "AfterTool"
        | "beforeSubmitPrompt"
        | "preToolUse"
        | "postToolUse"
        | "beforeShellExecution"
        | "beforeMCPExecution"
        | "afterFileEdit" => Some(Status::Working),
        "PermissionRequest" => Some(Status::NeedsYou),
        "Notification" => match field("notification_type") {
            "permission_prompt" | "elicitation_dialog" | "ToolPermission" => Some(Status::NeedsYou),
            _ => None,
        },
        "Stop" | "AfterAgent" | "agent-turn-complete" => Some(Status::Done),
        // Claude Code: a turn that failed (an API error, not logged in) ended.
        "StopFailure" => Some(Status::Idle),
        "stop" => match field("status") {
            "aborted" | "error" => Some(Status::Idle),
            _ => Some(Status::Done),
        },
        _ => None,
    }
}

/// Expands a transcript pattern's placeholders for a session working in `cwd`.
pub fn expand_pattern(pattern: &str, cwd: &Path) -> String {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let home = var("HOME").unwrap_or_default();
    let claude = var("CLAUDE_CONFIG_DIR").unwrap_or_else(|| home.join(".claude"));
    let codex = var("CODEX_HOME").unwrap_or_else(|| home.join(".codex"));
    let slug: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    pattern
        .replace("{home}", &home.to_string_lossy())
        .replace("{claude_dir}", &claude.to_string_lossy())
        .replace("{codex_home}", &codex.to_string_lossy())
        .replace("{cwd_slug}", &slug)
        .replace("{cwd}", &cwd.to_string_lossy())
}

/// The files matching the absolute `pattern` (`*`, `?` within a segment) modified at or
/// after `since`, newest first.
pub fn find_files(pattern: &str, since: SystemTime) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = vec![PathBuf::from("/")];
    for seg in pattern.split('/').filter(|s| !s.is_empty()) {
        let mut next = Vec::new();
        if !seg.contains(['*', '?']) {
            next.extend(found.iter().map(|d| d.join(seg)).filter(|p| p.exists()));
        } else {
            let re = glob_segment(seg);
            for dir in &found {
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                for e in entries.flatten() {
                    if re.is_match(&e.file_name().to_string_lossy()) {
                        next.push(e.path());
                    }
                }
            }
        }
        found = next;
        if found.is_empty() {
            return Vec::new();
        }
    }
    let mut files = found
        .into_iter()
        .filter_map(|p| {
            let m = std::fs::metadata(&p).ok()?;
            let t = m.modified().ok()?;
            (m.is_file() && t >= since).then_some((t, p))
        })
        .collect::<Vec<_>>();
    files.sort_by(|a, b| b.cmp(a));
    files.into_iter().map(|(_, p)| p).collect()
}

/// The newest of [`find_files`].
pub fn find_newest(pattern: &str, since: SystemTime) -> Option<PathBuf> {
    find_files(pattern, since).into_iter().next()
}

fn glob_segment(seg: &str) -> regex::Regex {
    let mut re = String::from("^");
    for c in seg.chars() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).expect("an escaped glob is a regex")
}

/// The spawned prompt with its provenance envelope (spec: "Spawned sessions know their
/// caller"): names the caller's link and allows exactly one back-channel message.
pub fn envelope(caller_link: &str, caller_title: &str, prompt: &str) -> String {
    format!(
        "[termio] This task comes from the termio session {caller_link} ({caller_title}). \
         You may message it at most once, either with one mid-task question or with a one-line \
         completion ping: termio sessions send {caller_link} \"<message>\". Nothing else goes \
         back that way (no conversation, no delegating work back); your transcript is the \
         result.\n\n{prompt}"
    )
}

/// An option row of a numbered-choice dialog: an optional pointer, then `1.` to `9.` (or `1)`)
/// and text.
fn option_regex() -> &'static regex::Regex {
    static OPTION: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    OPTION.get_or_init(|| {
        regex::Regex::new(r"^[│|\s]*(?:([❯›>●▶→])\s*)?([1-9])[.)]\s+\S").expect("regex")
    })
}

/// Whether a screen row is an option row of a numbered-choice dialog (pointed at or not).
pub fn is_option_row(row: &str) -> bool {
    option_regex().is_match(row)
}

/// Most rows of text (frame rows aside) below a dialog's options: more, and the dialog is
/// history with the agent's next screen under it (see [`dialog_question`]).
pub const MAX_ROWS_BELOW_DIALOG: usize = 5;

/// A numbered-choice dialog on the screen (a folder-trust, API-key or permission question):
/// consecutive option rows numbered from `1.` (or `1)`), at least two, with a pointer
/// (`❯ › > ● ▶ →`) on any one of them, the last such block on screen and at most
/// [`MAX_ROWS_BELOW_DIALOG`] rows of text under it: Claude Code's API-key dialog rests on option 2, Gemini
/// CLI points with `●` (shared/notes/agents.md, "Seen on the real programs"). Returns the
/// question, whole: the paragraph (rows up to the next blank row, wrapped rows joined by a
/// space) holding the nearest row above the options that ends a sentence with `?`, else the
/// nearest paragraph above the options. Wording-independent on purpose (SC-13: detection must
/// survive rewording).
pub fn dialog_question(screen: &str) -> Option<String> {
    let option = option_regex();
    // (number, pointed) of a row, when it is an option row.
    let parse = |row: &str| {
        option.captures(row).map(|c| {
            let n: u32 = c[2].parse().unwrap_or(0);
            (n, c.get(1).is_some())
        })
    };
    let rows: Vec<&str> = screen.lines().collect();
    let frame = |c: char| c.is_whitespace() || "│|╭╮╰╯─╌▄▀".contains(c);
    // The last block of options 1, 2, … (rows between them may wrap an option's text) with a
    // pointer on one of them: (its first row, its last option row).
    let mut last = None;
    let mut i = 0;
    while i < rows.len() {
        let Some((1, pointed)) = parse(rows[i]) else {
            i += 1;
            continue;
        };
        let (mut want, mut pointed, mut gap, mut end) = (2, pointed, 0, i);
        let mut j = i + 1;
        while j < rows.len() && gap <= 2 {
            match parse(rows[j]) {
                Some((n, p)) if n == want => {
                    want += 1;
                    pointed |= p;
                    gap = 0;
                    end = j;
                }
                Some(_) => break,
                None => gap += 1,
            }
            j += 1;
        }
        if want > 2 && pointed {
            last = Some((i, end));
        }
        i = end + 1;
    }
    let (i, end) = last?;
    // A dialog that has focus is the bottom of the screen: below its options at most a few
    // rows of hints (`Enter to confirm · Esc to cancel`, a link). An answered one the agent
    // left behind with its next screen drawn under it (Gemini CLI restarts below its trust
    // dialog) is history, not a question.
    let below = rows[end + 1..]
        .iter()
        .filter(|r| !r.trim_matches(frame).is_empty())
        .count();
    if below > MAX_ROWS_BELOW_DIALOG {
        return None;
    }
    let above: Vec<&str> = rows[..i].iter().map(|r| r.trim_matches(frame)).collect();
    // The paragraph around row `k`: non-blank rows, at most 6 on either side.
    let paragraph = |k: usize| {
        let mut a = k;
        while a > 0 && !above[a - 1].is_empty() && k - (a - 1) <= 6 {
            a -= 1;
        }
        let mut b = k;
        while b + 1 < above.len() && !above[b + 1].is_empty() && (b + 1) - k <= 6 {
            b += 1;
        }
        above[a..=b].join(" ")
    };
    let asks = |r: &str| r.contains("? ") || r.ends_with('?');
    let near = above.len().saturating_sub(16);
    let q = match (near..above.len()).rev().find(|&k| asks(above[k])) {
        Some(k) => paragraph(k),
        None => match (0..above.len()).rev().find(|&k| !above[k].is_empty()) {
            Some(k) => paragraph(k),
            None => String::new(),
        },
    };
    Some(if q.is_empty() {
        "a choice is waiting on screen".into()
    } else {
        q
    })
}

/// Most lines of a reply's question (its last paragraphs); a longer tail is no question.
const MAX_QUESTION_LINES: usize = 16;

/// A question the agent's reply ends with (issue: questions outside a numbered dialog): the
/// agent finished its turn but asks the user something in its answer text. `reply` is the
/// turn's last assistant message (a Stop hook's, or the transcript's). Returns the question,
/// whole (its paragraph and the option list that goes with it, as the reply wrote them), when
/// the reply ends with:
///
/// - a line asking for a yes/no answer: `[y/N]`, `(y/n)`, `[yes/no]`, …;
/// - a paragraph whose last line ends with `?` (`Which option?`, `Shall I go on?`), with
///   the option list just above it, if any;
/// - a list of options `1) …`, `2) …` (or `1.`, `2.`) right under a paragraph ending with `?`.
///
/// A list after a statement (`Steps:` then `1. build`, `2. test`) is no question. Markdown
/// emphasis around the last characters (`**Which one?**`) does not hide the `?`.
pub fn reply_question(reply: &str) -> Option<String> {
    static YES_NO: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let yes_no = YES_NO
        .get_or_init(|| regex::Regex::new(r"(?i)[\[(]\s*y(es)?\s*/\s*no?\s*[\])]").expect("regex"));
    let lines: Vec<&str> = reply.lines().map(str::trim_end).collect();
    // Paragraphs as line ranges, blank lines between them.
    let mut paras: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, l) in lines.iter().enumerate() {
        match (l.trim().is_empty(), start) {
            (false, None) => start = Some(i),
            (true, Some(a)) => {
                paras.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        paras.push((a, lines.len()));
    }
    let text = |(a, b): (usize, usize)| lines[a..b].join("\n");
    let bare = |l: &str| l.trim().trim_end_matches(['*', '_', '`', ' ']).to_string();
    let option = |l: &str| {
        static OPT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        OPT.get_or_init(|| {
            regex::Regex::new(r"^\s*(?:[-*]\s+)?\(?([1-9])[.)]\s+\S").expect("regex")
        })
        .captures(l)
        .and_then(|c| c[1].parse::<u32>().ok())
    };
    // A paragraph of options 1, 2, … (after a lead line or two; wrapped lines between
    // them allowed).
    let is_options = |(a, b): (usize, usize)| {
        let numbers: Vec<u32> = lines[a..b].iter().filter_map(|l| option(l)).collect();
        numbers.len() >= 2 && numbers.iter().zip(1..).all(|(n, want)| *n == want)
    };
    let asks = |(_, b): (usize, usize)| bare(lines[b - 1]).ends_with('?');
    let &last = paras.last()?;
    let before = paras.len().checked_sub(2).map(|i| paras[i]);
    let span = |from: (usize, usize)| {
        (last.1 - from.0 <= MAX_QUESTION_LINES).then(|| text((from.0, last.1)))
    };
    if yes_no.is_match(lines[last.1 - 1]) {
        return span(last);
    }
    if is_options(last) {
        // The options' own paragraph may open with the question (`Which one?` then `1) …`).
        let lead = (last.0..last.1)
            .take_while(|&i| option(lines[i]).is_none())
            .last();
        return match (lead, before) {
            (Some(i), _) if asks((last.0, i + 1)) => span(last),
            (None, Some(q)) if asks(q) => span(q),
            _ => None,
        };
    }
    if asks(last) {
        return match before {
            Some(o) if is_options(o) => span(o),
            _ => span(last),
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_valid_and_named() {
        let names: Vec<String> = builtins().into_iter().map(|a| a.name).collect();
        assert_eq!(names, ["claude", "codex", "cursor", "gemini"]);
        for a in builtins() {
            a.validate().unwrap();
        }
    }

    #[test]
    fn dialogs_are_found_whatever_their_wording() {
        let trust = "✻ head\n\nIs this folder yours?\n\n❯ 1. Yes, I trust this folder\n  2. No, exit\n\nEnter to confirm";
        assert_eq!(dialog_question(trust).unwrap(), "Is this folder yours?");
        let perm = "log\nAllow write to hello.txt?\n❯ 1. Yes\n  2. No\n[needs-you] permission";
        assert_eq!(
            dialog_question(perm).unwrap(),
            "log Allow write to hello.txt?"
        );
        assert_eq!(dialog_question("❯ 1. only one option\nfoo"), None);
        // A pointer on option 2 (Claude Code's API-key dialog) and Gemini's `●` pointer.
        let key = "Do you want to use this API key?\n\n    1. Yes\n  ❯ 2. No (recommended)\n";
        assert_eq!(
            dialog_question(key).unwrap(),
            "Do you want to use this API key?"
        );
        let gemini = "│ Do you trust this folder?\n│\n│ ● 1. Trust folder\n│   2. Trust parent folder\n│   3. Don't trust\n";
        assert_eq!(
            dialog_question(gemini).unwrap(),
            "Do you trust this folder?"
        );
        // A numbered list with no pointer is no dialog.
        assert_eq!(dialog_question("Steps:\n1. build\n2. test\n❯ "), None);
        assert_eq!(dialog_question("─────\n❯ hello\n[idle]"), None);
    }

    #[test]
    fn questions_in_a_reply_are_found() {
        let ask = "I can fix the greeting in two ways.\n\nWhich option do you want?\n\n\
                   1) Keep the old file and add a new one\n2) Replace the old file";
        assert_eq!(
            reply_question(ask).unwrap(),
            "Which option do you want?\n\n1) Keep the old file and add a new one\n\
             2) Replace the old file"
        );
        let yn = "The file hello.txt exists already.\n\nOverwrite hello.txt? [y/N]";
        assert_eq!(reply_question(yn).unwrap(), "Overwrite hello.txt? [y/N]");
        assert_eq!(
            reply_question("Done.\n\nProceed (y/n)").unwrap(),
            "Proceed (y/n)"
        );
        assert_eq!(
            reply_question("Two ways:\n1. fast\n2. safe\n\n**Which option?**").unwrap(),
            "Two ways:\n1. fast\n2. safe\n\n**Which option?**"
        );
        assert_eq!(
            reply_question("Which one?\n1. fast\n2. safe").unwrap(),
            "Which one?\n1. fast\n2. safe"
        );
        // Statements are no questions, nor is a list after one, nor a question earlier on.
        assert_eq!(reply_question("MOCK REPLY: olleh yas"), None);
        assert_eq!(reply_question("Done. Steps:\n\n1. build\n2. test"), None);
        assert_eq!(reply_question("Why? Because.\n\nAll fixed."), None);
        assert_eq!(reply_question(""), None);
        assert_eq!(reply_question("1) a\n3) b\n\nok"), None);
    }

    /// The screen text and title after `bytes` (a program's real output, recorded at 100×30).
    fn replay(bytes: &[u8]) -> (String, Option<String>) {
        replay_at(bytes, 30)
    }

    /// [`replay`] into a terminal 100 columns wide and `rows` high.
    fn replay_at(bytes: &[u8], rows: usize) -> (String, Option<String>) {
        let mut e = crate::term::Emulator::new(100, rows);
        e.advance(bytes);
        (e.snapshot().text(), e.title().map(str::to_string))
    }

    /// The state of the first title rule of `agent` matching `title`.
    fn title_state(agent: &str, title: &str) -> Option<Status> {
        let def = builtins().into_iter().find(|a| a.name == agent).unwrap();
        def.title_rules
            .iter()
            .find(|r| regex::Regex::new(&r.pattern).unwrap().is_match(title))
            .map(|r| r.state)
    }

    macro_rules! claude {
        ($name:literal) => {
            include_bytes!(concat!(
                "../../tests/fixtures/agents/claude-2.1.197/",
                $name,
                ".raw"
            ))
        };
    }

    #[test]
    fn claude_dialogs_recorded_from_the_real_program() {
        let (trust, _) = replay(claude!("trust"));
        let q = dialog_question(&trust).unwrap();
        assert!(
            q.starts_with("Quick safety check: Is this a project you created or one you trust?"),
            "{q}"
        );
        assert!(q.ends_with("review what's in this folder first."), "{q}");
        // The API-key dialog rests on option 2: a dialog all the same.
        let (key, _) = replay(claude!("apikey"));
        assert_eq!(
            dialog_question(&key).unwrap(),
            "Do you want to use this API key?"
        );
        let (perm, _) = replay(claude!("permission"));
        assert_eq!(
            dialog_question(&perm).unwrap(),
            "Do you want to create hello.txt?"
        );
        // Ready: the prompt box with its `? for shortcuts` hint, never a dialog.
        let claude = builtins().into_iter().find(|a| a.name == "claude").unwrap();
        let ready = regex::Regex::new(claude.ready.as_deref().unwrap()).unwrap();
        assert!(ready.is_match(&replay(claude!("idle")).0));
        assert!(ready.is_match(&replay(claude!("done")).0));
        assert!(!ready.is_match(&trust) && !ready.is_match(&key) && !ready.is_match(&perm));
        // The box drawn before the hint (Claude does not take input yet).
        assert!(!ready.is_match("───\n❯ \n───\n                ● high · /effort"));
        for name in ["idle", "working", "done", "failed"] {
            let (s, _) = match name {
                "idle" => replay(claude!("idle")),
                "working" => replay(claude!("working")),
                "done" => replay(claude!("done")),
                _ => replay(claude!("failed")),
            };
            assert_eq!(dialog_question(&s), None, "{name}:\n{s}");
        }
    }

    macro_rules! gemini {
        ($name:literal) => {
            include_bytes!(concat!(
                "../../tests/fixtures/agents/gemini-0.61.0/",
                $name,
                ".raw"
            ))
        };
    }

    #[test]
    fn gemini_dialogs_recorded_from_the_real_program() {
        // `●` points; the numbered tips above the dialog (no pointer) are no dialog.
        let (trust, _) = replay(gemini!("trust"));
        assert_eq!(
            dialog_question(&trust).unwrap(),
            "Do you trust the files in this folder?"
        );
        let (auth, _) = replay(gemini!("auth"));
        assert_eq!(
            dialog_question(&auth).unwrap(),
            "How would you like to authenticate for this project?"
        );
        let (idle, title) = replay(gemini!("idle"));
        assert_eq!(dialog_question(&idle), None, "{idle}");
        assert_eq!(title_state("gemini", &title.unwrap()), Some(Status::Idle));
        let (working, title) = replay(gemini!("working"));
        assert_eq!(dialog_question(&working), None, "{working}");
        assert_eq!(
            title_state("gemini", &title.unwrap()),
            Some(Status::Working)
        );
        // Answered, the trust dialog stays while Gemini restarts (a dialog still: the answer's
        // grace covers it); restarted, its new screen is drawn below the old dialog, which is
        // history then (recorded at 100×40, where the old dialog is still on screen).
        let answered = replay_at(gemini!("trust-answered"), 40).0;
        assert_eq!(
            dialog_question(&answered).unwrap(),
            "Do you trust the files in this folder?"
        );
        let restarted = replay_at(gemini!("restarted"), 40).0;
        assert!(restarted.contains("● 1. Trust folder"), "{restarted}");
        assert_eq!(dialog_question(&restarted), None, "{restarted}");
        // Ready: the empty prompt box under its hint; never the dialogs or the restart.
        let gemini = builtins().into_iter().find(|a| a.name == "gemini").unwrap();
        let ready = regex::Regex::new(gemini.ready.as_deref().unwrap()).unwrap();
        assert!(ready.is_match(&idle) && ready.is_match(&restarted));
        assert!(!ready.is_match(&trust) && !ready.is_match(&auth) && !ready.is_match(&answered));
    }

    macro_rules! codex {
        ($name:literal) => {
            include_bytes!(concat!(
                "../../tests/fixtures/agents/codex-0.171.0/",
                $name,
                ".raw"
            ))
        };
    }

    #[test]
    fn codex_dialogs_recorded_from_the_real_program() {
        let (trust, _) = replay(codex!("trust"));
        let q = dialog_question(&trust).unwrap();
        assert!(q.starts_with("Trust this folder? Codex can read"), "{q}");
        assert!(q.ends_with("Your trust decision will be saved."), "{q}");
        let (hooks, _) = replay(codex!("hooks"));
        assert_eq!(
            dialog_question(&hooks).unwrap(),
            "Hooks need review 6 hooks are new or changed. Hooks can run outside the sandbox \
             after you trust them."
        );
        // A digit moved the pointer to option 2: the same dialog, only option rows differ.
        let (moved, _) = replay(codex!("hooks-pointer-2"));
        assert_eq!(dialog_question(&moved), dialog_question(&hooks));
        for (a, b) in hooks.lines().zip(moved.lines()).filter(|(a, b)| a != b) {
            assert!(is_option_row(a) && is_option_row(b), "{a:?} / {b:?}");
        }
        // Ready: the composer over its footer; never the intro (its logo over a bare
        // `? for shortcuts`, before the trust dialog) or a dialog.
        let codex = builtins().into_iter().find(|a| a.name == "codex").unwrap();
        let ready = regex::Regex::new(codex.ready.as_deref().unwrap()).unwrap();
        let starting = regex::Regex::new(codex.starting.as_deref().unwrap()).unwrap();
        let is_ready = |s: &str| ready.is_match(s) && !starting.is_match(s);
        let (intro, _) = replay(codex!("intro"));
        assert!(intro.contains("? for shortcuts"), "{intro}");
        assert!(!is_ready(&intro), "{intro}");
        assert!(!is_ready(&trust) && !is_ready(&hooks));
        for name in ["idle", "done"] {
            let (s, _) = match name {
                "idle" => replay(codex!("idle")),
                _ => replay(codex!("done")),
            };
            assert!(is_ready(&s), "{name}:\n{s}");
            assert_eq!(dialog_question(&s), None, "{name}:\n{s}");
        }
    }

    /// The agent's last reply as its screen shows it: the rows from the last one starting
    /// with `marker` (Claude `●`, Codex `•`, Gemini `✦`) up to a row flush left or Codex's
    /// `Worked for …` line, the two-column indent removed.
    fn screen_reply(screen: &str, marker: &str) -> String {
        let rows: Vec<&str> = screen.lines().collect();
        let start = rows.iter().rposition(|r| r.starts_with(marker)).unwrap();
        let mut reply = vec![&rows[start][marker.len()..]];
        for r in &rows[start + 1..] {
            let flush = r.chars().next().is_some_and(|c| !c.is_whitespace());
            if flush || r.trim_start().starts_with("Worked for") {
                break;
            }
            reply.push(r.strip_prefix("  ").unwrap_or(r));
        }
        reply.join("\n").trim().to_string()
    }

    #[test]
    fn questions_in_replies_recorded_from_the_real_programs() {
        let cases: [(&str, &[u8], &str, &str); 4] = [
            (
                "claude",
                claude!("asks"),
                "● ",
                "Which option do you want?\n\n1. Keep",
            ),
            (
                "claude",
                claude!("asks-yn"),
                "● ",
                "Overwrite hello.txt? [y/N]",
            ),
            (
                "codex",
                codex!("asks"),
                "• ",
                "Which option do you want?\n\n1. Keep",
            ),
            (
                "gemini",
                gemini!("asks-yn"),
                "✦ ",
                "Overwrite hello.txt? [y/N]",
            ),
        ];
        for (agent, bytes, marker, want) in cases {
            let (screen, _) = replay(bytes);
            // The agent rests at its prompt box: no dialog (its options have no pointer),
            // the screen rules say idle.
            assert_eq!(dialog_question(&screen), None, "{agent}:\n{screen}");
            assert_eq!(screen_state(agent, &screen), Some(Status::Idle), "{screen}");
            // The reply as shown (Claude and Codex render `1)` as `1.`) still asks.
            let reply = screen_reply(&screen, marker);
            let q = reply_question(&reply).unwrap_or_default();
            assert!(q.starts_with(want), "{agent}: {q:?} from {reply:?}");
        }
        // Codex asks before it runs a command outside its sandbox: a dialog.
        let (perm, _) = replay(codex!("permission"));
        assert_eq!(
            dialog_question(&perm).unwrap(),
            "Reason: Do you want to write hello.txt?"
        );
        // Failed and interrupted turns rest at the prompt box, asking nothing.
        let rest: [(&str, &[u8]); 3] = [
            ("codex", codex!("failed")),
            ("gemini", gemini!("failed")),
            ("gemini", gemini!("interrupted")),
        ];
        for (agent, bytes) in rest {
            let (screen, _) = replay(bytes);
            assert_eq!(dialog_question(&screen), None, "{agent}:\n{screen}");
            assert_eq!(screen_state(agent, &screen), Some(Status::Idle), "{screen}");
        }
    }

    /// The state of the first screen rule of `agent` matching `screen`.
    fn screen_state(agent: &str, screen: &str) -> Option<Status> {
        let def = builtins().into_iter().find(|a| a.name == agent).unwrap();
        def.screen_rules
            .iter()
            .find(|r| regex::Regex::new(&r.pattern).unwrap().is_match(screen))
            .map(|r| r.state)
    }

    #[test]
    fn screen_rules_match_the_real_programs() {
        use Status::{Idle, Working};
        let cases: [(&str, &[u8], Status); 10] = [
            ("claude", claude!("working"), Working),
            ("claude", claude!("idle"), Idle),
            ("claude", claude!("done"), Idle),
            ("claude", claude!("failed"), Idle),
            ("codex", codex!("working"), Working),
            ("codex", codex!("idle"), Idle),
            ("codex", codex!("done"), Idle),
            ("codex", codex!("interrupted"), Idle),
            ("gemini", gemini!("working"), Working),
            ("gemini", gemini!("idle"), Idle),
        ];
        for (agent, bytes, want) in cases {
            let (screen, _) = replay(bytes);
            assert_eq!(
                screen_state(agent, &screen),
                Some(want),
                "{agent}:\n{screen}"
            );
        }
        // Claude puts an interrupted prompt back in its box: no rule (the title says idle).
        let (interrupted, title) = replay(claude!("interrupted"));
        assert_eq!(screen_state("claude", &interrupted), None, "{interrupted}");
        assert_eq!(title_state("claude", &title.unwrap()), Some(Idle));
        // Codex's title: a spinner while working, none after.
        let (_, working) = replay(codex!("working"));
        assert_eq!(title_state("codex", &working.unwrap()), Some(Working));
        let (_, rested) = replay(codex!("interrupted"));
        assert_eq!(title_state("codex", &rested.unwrap()), None);
    }

    #[test]
    fn title_rules_match_the_real_programs() {
        let (_, idle) = replay(claude!("idle"));
        assert_eq!(idle.as_deref(), Some("✳ Claude Code"));
        assert_eq!(title_state("claude", &idle.unwrap()), Some(Status::Idle));
        let (_, working) = replay(claude!("working"));
        let working = working.unwrap();
        assert!(working.ends_with(" Claude Code"), "{working}");
        assert_eq!(title_state("claude", &working), Some(Status::Working));
        let (_, failed) = replay(claude!("failed"));
        assert_eq!(title_state("claude", &failed.unwrap()), Some(Status::Idle));
        // Gemini CLI 0.61.0's titles (shared/notes/agents.md).
        assert_eq!(title_state("gemini", "◇ Ready (proj)"), Some(Status::Idle));
        assert_eq!(
            title_state("gemini", "✦ Working… (proj)"),
            Some(Status::Working)
        );
        assert_eq!(
            title_state("gemini", "⏲ Working… (proj)"),
            Some(Status::Working)
        );
        assert_eq!(
            title_state("gemini", "✋ Action Required (proj)"),
            Some(Status::NeedsYou)
        );
    }

    #[test]
    fn hook_events_map_to_states() {
        let none = serde_json::json!({});
        assert_eq!(auto_state("UserPromptSubmit", &none), Some(Status::Working));
        assert_eq!(auto_state("Stop", &none), Some(Status::Done));
        assert_eq!(auto_state("SubagentStop", &none), None);
        assert_eq!(auto_state("StopFailure", &none), Some(Status::Idle));
        let n = serde_json::json!({"notification_type": "permission_prompt"});
        assert_eq!(auto_state("Notification", &n), Some(Status::NeedsYou));
        let idle = serde_json::json!({"notification_type": "idle_prompt"});
        assert_eq!(auto_state("Notification", &idle), None);
        let aborted = serde_json::json!({"status": "aborted"});
        assert_eq!(auto_state("stop", &aborted), Some(Status::Idle));
    }

    #[test]
    fn words_are_quoted_for_the_shell() {
        let a = AgentDef {
            command: "/bin/agent".into(),
            args: vec!["--reply".into(), "it's ok".into()],
            ..AgentDef::default()
        };
        assert_eq!(a.command_line(), r"/bin/agent --reply 'it'\''s ok'");
    }
}
