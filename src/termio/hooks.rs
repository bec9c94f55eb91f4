//! termio's status hooks in AI coding agents' own config files: install, uninstall, status.
//!
//! Every hook runs `termio agent report <state> --agent <agent> --event <Event>`, which reads the
//! hook's JSON from stdin and reports one status to termio (notes/agents.md, "The termio contract
//! on the hook side"). The rules, from the same notes: merge, never replace; every entry we add
//! carries the fingerprint [`FINGERPRINT`] as a trailing shell comment of its command, and only
//! fingerprinted entries are ever removed; a file that does not parse is refused and left
//! byte-identical; writes are atomic ([`crate::output::write_atomic`]) and skipped when nothing
//! would change.
//!
//! Files are edited as JSON values with key order preserved (serde_json `preserve_order`), and
//! written back with the indentation the file already used (two spaces for a new file) and its
//! trailing newline or lack of one, so a file in the usual pretty layout round-trips
//! byte-identically through install and uninstall. JSON with comments (JSONC) is refused: Claude
//! Code and Gemini CLI settings are strict JSON, and no maintained crate edits JSONC while keeping
//! its comments.
//!
//! For Codex, the `notify` entry of `config.toml` is handled alongside `hooks.json`
//! ([`super::codex_notify`]): both files are parsed before either is written.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::codex_notify::{self, NotifyReport};
use super::setup::{create_dir, read_optional, Dirs, SetupError};

/// The fingerprint every command we install ends with, as a shell comment. Uninstall matches the
/// version-free prefix [`FINGERPRINT_PREFIX`], so entries of older versions are removed too.
pub const FINGERPRINT: &str = "# termio-hooks v1";

/// What identifies an entry as ours, in any version of the fingerprint.
pub const FINGERPRINT_PREFIX: &str = "# termio-hooks v";

/// The environment variable that replaces the reporting program (`termio` on `PATH` by default)
/// in the installed commands, verbatim (quote a path with spaces yourself). Meant for tests and
/// for installs where `termio` is not on the agents' `PATH`.
pub const HOOK_COMMAND_ENV: &str = "TERMIO_HOOK_COMMAND";

/// An AI coding agent whose config termio can install status hooks into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Claude Code: `settings.json` in `CLAUDE_CONFIG_DIR` (else `~/.claude`).
    Claude,
    /// Codex CLI: `hooks.json` in `CODEX_HOME` (else `~/.codex`).
    Codex,
    /// Cursor agent: `~/.cursor/hooks.json`.
    Cursor,
    /// Gemini CLI: `~/.gemini/settings.json`.
    Gemini,
}

/// One hook we install: the agent's event, an optional matcher, and the state it reports
/// (`auto` lets the reporter decide from the hook's stdin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookSpec {
    /// The agent's event name, spelled as the agent spells it.
    pub event: &'static str,
    /// The matcher of the group (nested shapes only); `None` means "all".
    pub matcher: Option<&'static str>,
    /// `idle`, `working`, `needs-you`, `done`, or `auto`.
    pub state: &'static str,
}

const fn spec(event: &'static str, matcher: Option<&'static str>, state: &'static str) -> HookSpec {
    HookSpec {
        event,
        matcher,
        state,
    }
}

/// Source: notes/agents.md, Claude Code. `Notification` is `auto`: the reporter reads
/// `notification_type` (`permission_prompt`, `elicitation_dialog` → needs-you). A failed turn
/// (not logged in, API unreachable, an API error) ends with `StopFailure`, not `Stop`: `idle`,
/// with the error in the reason.
const CLAUDE_HOOKS: &[HookSpec] = &[
    spec("SessionStart", None, "idle"),
    spec("UserPromptSubmit", None, "working"),
    spec("PreToolUse", Some("*"), "working"),
    spec("PostToolUse", Some("*"), "working"),
    spec("PermissionRequest", Some("*"), "needs-you"),
    spec("Notification", None, "auto"),
    spec("Stop", None, "done"),
    spec("StopFailure", None, "idle"),
];

/// Source: notes/agents.md, Codex CLI (the same event names as Claude Code, no `Notification`).
const CODEX_HOOKS: &[HookSpec] = &[
    spec("SessionStart", None, "idle"),
    spec("UserPromptSubmit", None, "working"),
    spec("PreToolUse", Some("*"), "working"),
    spec("PostToolUse", Some("*"), "working"),
    spec("PermissionRequest", Some("*"), "needs-you"),
    spec("Stop", None, "done"),
];

/// Source: notes/agents.md, Cursor agent (camelCase events, flat entries).
const CURSOR_HOOKS: &[HookSpec] = &[
    spec("beforeSubmitPrompt", None, "working"),
    spec("preToolUse", None, "working"),
    spec("postToolUse", None, "working"),
    spec("stop", None, "done"),
];

/// Source: notes/agents.md, Gemini CLI. `Notification` is `auto`: the reporter reads
/// `notification_type` (`ToolPermission` → needs-you).
const GEMINI_HOOKS: &[HookSpec] = &[
    spec("BeforeAgent", None, "working"),
    spec("AfterAgent", None, "done"),
    spec("Notification", None, "auto"),
];

/// How an agent's hooks are laid out under its top-level `hooks` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `{"<Event>": [{"matcher": …, "hooks": [{"type": "command", "command": …}]}]}`.
    Nested {
        /// The `timeout` field of our entries, in the agent's unit, if we set one.
        timeout: Option<u64>,
    },
    /// `{"<event>": [{"command": …}]}` (Cursor).
    Flat,
}

impl Agent {
    /// Every agent, in the order reports list them.
    pub const ALL: [Agent; 4] = [Agent::Claude, Agent::Codex, Agent::Cursor, Agent::Gemini];

    /// The agent for a name: `claude` (or `claude-code`), `codex`, `cursor`, `gemini` (or
    /// `gemini-cli`), case-insensitive.
    ///
    /// Errors: [`SetupError::BadAgent`] for any other name.
    pub fn from_name(name: &str) -> Result<Agent, SetupError> {
        match name.to_ascii_lowercase().as_str() {
            "claude" | "claude-code" => Ok(Agent::Claude),
            "codex" => Ok(Agent::Codex),
            "cursor" => Ok(Agent::Cursor),
            "gemini" | "gemini-cli" => Ok(Agent::Gemini),
            _ => Err(SetupError::BadAgent(name.to_string())),
        }
    }

    /// The name used on the command line, in commands and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Cursor => "cursor",
            Agent::Gemini => "gemini",
        }
    }

    /// The agent's own config folder (whether or not it exists).
    pub fn config_dir(self, dirs: &Dirs) -> PathBuf {
        match self {
            Agent::Claude => dirs.claude.clone(),
            Agent::Codex => dirs.codex.clone(),
            Agent::Cursor => dirs.home.join(".cursor"),
            Agent::Gemini => dirs.home.join(".gemini"),
        }
    }

    /// The file our hooks go into (notes/agents.md, per agent).
    pub fn hooks_file(self, dirs: &Dirs) -> PathBuf {
        let name = match self {
            Agent::Claude | Agent::Gemini => "settings.json",
            Agent::Codex | Agent::Cursor => "hooks.json",
        };
        self.config_dir(dirs).join(name)
    }

    /// The hooks we install for this agent.
    pub fn hooks(self) -> &'static [HookSpec] {
        match self {
            Agent::Claude => CLAUDE_HOOKS,
            Agent::Codex => CODEX_HOOKS,
            Agent::Cursor => CURSOR_HOOKS,
            Agent::Gemini => GEMINI_HOOKS,
        }
    }

    fn shape(self) -> Shape {
        match self {
            // Claude Code: timeout in seconds; Gemini CLI: in milliseconds (notes/agents.md).
            Agent::Claude => Shape::Nested { timeout: Some(10) },
            Agent::Gemini => Shape::Nested {
                timeout: Some(10_000),
            },
            Agent::Codex => Shape::Nested { timeout: None },
            Agent::Cursor => Shape::Flat,
        }
    }

    /// The shell command of one hook, ending with [`FINGERPRINT`]. `program` is the reporter
    /// (`termio`, or [`HOOK_COMMAND_ENV`]).
    ///
    /// All output of the reporter is discarded (a hook must be silent on stdout, and Claude Code
    /// adds the stdout of some hooks to the model's context) and a failure never fails the hook.
    /// Cursor parses the hook's stdout as JSON, so its hooks print `{}` (notes/agents.md, Cursor).
    pub fn hook_command(self, hook: &HookSpec, program: &str) -> String {
        let report = format!(
            "{program} agent report {} --agent {} --event {}",
            hook.state,
            self.name(),
            hook.event
        );
        match self {
            Agent::Cursor => format!("{report} >/dev/null 2>&1; echo '{{}}' {FINGERPRINT}"),
            _ => format!("{report} >/dev/null 2>&1 || true {FINGERPRINT}"),
        }
    }

    /// The JSON entry of one hook, as it is appended to the event's array.
    fn entry(self, hook: &HookSpec, program: &str) -> Value {
        let command = self.hook_command(hook, program);
        match self.shape() {
            Shape::Flat => json!({ "command": command }),
            Shape::Nested { timeout } => {
                let mut inner = Map::new();
                inner.insert("type".into(), json!("command"));
                inner.insert("command".into(), json!(command));
                if let Some(t) = timeout {
                    inner.insert("timeout".into(), json!(t));
                }
                let mut group = Map::new();
                if let Some(m) = hook.matcher {
                    group.insert("matcher".into(), json!(m));
                }
                group.insert("hooks".into(), json!([inner]));
                Value::Object(group)
            }
        }
    }
}

/// The reporting program: [`HOOK_COMMAND_ENV`] when set and not empty, else `termio`.
pub fn program_from_env() -> String {
    std::env::var(HOOK_COMMAND_ENV)
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "termio".to_string())
}

/// Whether our hooks are in an agent's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookState {
    /// Every hook we would install is there, exactly, and no other fingerprinted entry.
    Installed,
    /// No fingerprinted entry (or no file).
    NotInstalled,
    /// Some fingerprinted entries, but not exactly ours (some missing, or from another version
    /// or reporting program): `install` fixes it.
    Partial,
}

/// What an install, uninstall or status did for one agent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AgentReport {
    /// The agent.
    pub agent: Agent,
    /// Its hooks file.
    pub path: PathBuf,
    /// Whether the agent's config folder exists (an install without `--agent` skips agents
    /// without one).
    pub config_dir_exists: bool,
    /// The file's state after the action.
    pub state: HookState,
    /// Whether the file was written.
    pub changed: bool,
    /// Whether the agent was skipped (install without `--agent`, and no config folder).
    pub skipped: bool,
    /// Codex only: the `notify` entry of `config.toml`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notify: Option<NotifyReport>,
    /// Codex only, with our hooks in the file: whether Codex has trusted them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<TrustReport>,
}

/// Whether Codex runs our hooks: newer Codex versions (0.171.0 seen) run new or changed hooks
/// only once the user trusted them ("Hooks need review" at start, or `/hooks`), and record each
/// trusted hook in `config.toml` under `[hooks.state."<hooks.json>:<event>:<group>:<hook>"]`
/// with a `trusted_hash`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TrustReport {
    /// `trusted` (Codex recorded trust for every one of our hooks) or `needed`.
    pub state: TrustState,
    /// Our hooks' events Codex has no trust recorded for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub untrusted: Vec<String>,
    /// What to do, when trust is needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// See [`TrustReport`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrustState {
    /// Codex recorded trust for every one of our hooks (a hook changed since may still ask).
    Trusted,
    /// Some of our hooks are not trusted yet: Codex does not run them.
    Needed,
}

/// What to do when Codex has not trusted the hooks.
pub const CODEX_TRUST_HINT: &str = "Codex runs new or changed hooks only once you trust them: \
    start codex and choose \"Trust all and continue\" when it says \"Hooks need review\" (or \
    trust them in /hooks)";

/// Codex's trust of our hooks in `doc` (its `hooks.json` at `path`), from `config.toml` in
/// `codex_dir`; `None` when none of our hooks are in the file. An unreadable or broken
/// `config.toml` counts as no trust recorded.
fn codex_trust(path: &Path, doc: &Value, codex_dir: &Path) -> Option<TrustReport> {
    let config = std::fs::read_to_string(codex_dir.join("config.toml")).unwrap_or_default();
    let config: toml_edit::DocumentMut = config.parse().unwrap_or_default();
    let states = config
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(|s| s.as_table_like());
    let names: Vec<String> = std::iter::once(path.to_path_buf())
        .chain(path.canonicalize().ok())
        .map(|p| p.display().to_string())
        .collect();
    let trusted = |key: &str| {
        states
            .and_then(|t| t.get(key))
            .and_then(|e| e.get("trusted_hash"))
            .is_some_and(|h| h.as_str().is_some_and(|h| !h.is_empty()))
    };
    let mut ours = 0;
    let mut untrusted = Vec::new();
    for (event, groups) in doc.get("hooks").and_then(Value::as_object)? {
        let snake = snake_case(event);
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let inner = group.get("hooks").and_then(Value::as_array);
            for (h, hook) in inner.into_iter().flatten().enumerate() {
                if !is_ours(hook) {
                    continue;
                }
                ours += 1;
                let ok = names
                    .iter()
                    .any(|n| trusted(&format!("{n}:{snake}:{g}:{h}")));
                if !ok && !untrusted.contains(event) {
                    untrusted.push(event.clone());
                }
            }
        }
    }
    if ours == 0 {
        return None;
    }
    let needed = !untrusted.is_empty();
    Some(TrustReport {
        state: if needed {
            TrustState::Needed
        } else {
            TrustState::Trusted
        },
        untrusted,
        hint: needed.then(|| CODEX_TRUST_HINT.to_string()),
    })
}

/// `PreToolUse` → `pre_tool_use`.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// What to do to an agent's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Add our hooks (replacing fingerprinted entries that differ).
    Install,
    /// Remove every fingerprinted entry.
    Uninstall,
    /// Only look.
    Status,
}

/// Runs `action` on one agent's hooks file.
///
/// `create` lets an install create the agent's config folder; without it an agent whose folder
/// does not exist is skipped (reported with `skipped: true`). A missing file is created by an
/// install (Cursor's with `"version": 1`); uninstall and status treat it as empty. An empty or
/// whitespace-only file counts as `{}`. For Codex the `notify` entry of `config.toml` is planned
/// first ([`codex_notify::plan`]), so a refused `config.toml` leaves `hooks.json` unwritten too.
///
/// Errors: [`SetupError::BadConfig`] when the file is not strict JSON (JSONC included), its top
/// level is not an object, or `hooks` (or an event we add to) has the wrong type; the file is then
/// not written; the same for a Codex `config.toml` that is not valid TOML. [`SetupError::Io`] when
/// reading or writing fails.
pub fn apply(
    agent: Agent,
    action: Action,
    dirs: &Dirs,
    program: &str,
    create: bool,
) -> Result<AgentReport, SetupError> {
    let path = agent.hooks_file(dirs);
    let dir = agent.config_dir(dirs);
    let config_dir_exists = dir.is_dir();
    let mut report = AgentReport {
        agent,
        path: path.clone(),
        config_dir_exists,
        state: HookState::NotInstalled,
        changed: false,
        skipped: false,
        notify: None,
        trust: None,
    };
    let text = read_optional(&path)?;
    let bad = |reason: String| SetupError::BadConfig {
        path: path.clone(),
        reason,
    };
    let old = match text.as_deref() {
        Some(t) if !t.trim().is_empty() => Some(parse(t).map_err(bad)?),
        _ => None,
    };
    let mut doc = old.clone().unwrap_or_else(|| json!({}));
    let look_only =
        action == Action::Status || (action == Action::Install && !config_dir_exists && !create);
    let mut notify_text = None;
    if agent == Agent::Codex {
        let install = match action {
            _ if look_only => None,
            Action::Install => Some(true),
            Action::Uninstall => Some(false),
            Action::Status => None,
        };
        let (notify, text) = codex_notify::plan(&dir, program, install)?;
        report.notify = Some(notify);
        notify_text = text;
    }
    let trust = |doc: &Value| {
        (agent == Agent::Codex)
            .then(|| codex_trust(&path, doc, &dir))
            .flatten()
    };
    if look_only {
        report.state = state_of(agent, &doc, program).map_err(bad)?;
        report.skipped = action == Action::Install;
        report.trust = trust(&doc);
        return Ok(report);
    }
    edit(agent, &mut doc, program, action == Action::Install).map_err(bad)?;
    report.state = state_of(agent, &doc, program).map_err(bad)?;
    let unchanged = match &old {
        Some(old) => canonical(old) == canonical(&doc),
        None => action == Action::Uninstall,
    };
    let writes = !unchanged || notify_text.is_some();
    if writes && !config_dir_exists {
        create_dir(&dir)?;
    }
    if !unchanged {
        let bytes = serialize(&doc, text.as_deref().unwrap_or(""));
        crate::output::write_atomic(&path, bytes.as_bytes())
            .map_err(|e| SetupError::Io(e.into()))?;
        report.changed = true;
    }
    if let (Some(text), Some(notify)) = (notify_text, report.notify.as_ref()) {
        crate::output::write_atomic(&notify.path, text.as_bytes())
            .map_err(|e| SetupError::Io(e.into()))?;
    }
    report.trust = trust(&doc);
    Ok(report)
}

/// Parses strict JSON; a failure names the line and column, and says so when the file looks like
/// JSON with comments.
fn parse(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| {
        let jsonc = if text.contains("//") || text.contains("/*") {
            " (comments are not supported: remove them, or add the hooks by hand)"
        } else {
            ""
        };
        format!("not valid JSON: {e}{jsonc}")
    })
}

/// The top-level object.
fn root_mut(doc: &mut Value) -> Result<&mut Map<String, Value>, String> {
    doc.as_object_mut()
        .ok_or_else(|| "the top level is not a JSON object".to_string())
}

fn is_ours(entry: &Value) -> bool {
    entry
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| c.contains(FINGERPRINT_PREFIX))
}

/// Removes every fingerprinted entry (and the groups it leaves empty). Returns the events whose
/// array this emptied, and whether anything was removed.
fn strip(hooks: &mut Map<String, Value>, shape: Shape) -> (Vec<String>, bool) {
    let mut emptied = Vec::new();
    let mut removed = false;
    for (event, list) in hooks.iter_mut() {
        let Some(list) = list.as_array_mut() else {
            continue;
        };
        let before = list.len();
        match shape {
            Shape::Flat => list.retain(|e| !is_ours(e)),
            Shape::Nested { .. } => list.retain_mut(|group| {
                let Some(inner) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let n = inner.len();
                inner.retain(|h| !is_ours(h));
                removed |= inner.len() < n;
                !(inner.is_empty() && n > 0)
            }),
        }
        removed |= list.len() < before;
        if list.is_empty() && before > 0 {
            emptied.push(event.clone());
        }
    }
    (emptied, removed)
}

/// Removes our entries, then (for an install) appends the current ones; finally drops the event
/// arrays and the `hooks` object that our removal emptied and nothing refilled.
fn edit(agent: Agent, doc: &mut Value, program: &str, install: bool) -> Result<(), String> {
    let shape = agent.shape();
    let root = root_mut(doc)?;
    let (emptied, removed) = match root.get_mut("hooks") {
        Some(Value::Object(hooks)) => strip(hooks, shape),
        Some(_) if install => return Err("\"hooks\" is not an object".into()),
        _ => (Vec::new(), false),
    };
    if install {
        if agent == Agent::Cursor && !root.contains_key("version") {
            root.insert("version".into(), json!(1));
        }
        let hooks = root
            .entry("hooks")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .ok_or("\"hooks\" is not an object")?;
        for hook in agent.hooks() {
            let list = hooks
                .entry(hook.event)
                .or_insert_with(|| json!([]))
                .as_array_mut()
                .ok_or_else(|| format!("\"hooks.{}\" is not an array", hook.event))?;
            list.push(agent.entry(hook, program));
        }
    }
    if let Some(Value::Object(hooks)) = root.get_mut("hooks") {
        for event in emptied {
            if hooks
                .get(&event)
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            {
                hooks.shift_remove(&event);
            }
        }
        if removed && hooks.is_empty() {
            root.shift_remove("hooks");
        }
    }
    Ok(())
}

/// The commands of every fingerprinted entry, by event.
fn ours(agent: Agent, doc: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, list) in hooks {
        for entry in list.as_array().into_iter().flatten() {
            let entries: Vec<&Value> = match agent.shape() {
                Shape::Flat => vec![entry],
                Shape::Nested { .. } => entry
                    .get("hooks")
                    .and_then(Value::as_array)
                    .map(|v| v.iter().collect())
                    .unwrap_or_default(),
            };
            for e in entries.into_iter().filter(|e| is_ours(e)) {
                let command = e.get("command").and_then(Value::as_str).unwrap_or_default();
                found.push((event.clone(), command.to_string()));
            }
        }
    }
    found
}

fn state_of(agent: Agent, doc: &Value, program: &str) -> Result<HookState, String> {
    if !doc.is_object() {
        return Err("the top level is not a JSON object".into());
    }
    let mut found = ours(agent, doc);
    if found.is_empty() {
        return Ok(HookState::NotInstalled);
    }
    let mut wanted: Vec<(String, String)> = agent
        .hooks()
        .iter()
        .map(|h| (h.event.to_string(), agent.hook_command(h, program)))
        .collect();
    found.sort();
    wanted.sort();
    Ok(if found == wanted {
        HookState::Installed
    } else {
        HookState::Partial
    })
}

/// A layout-free rendering of a document (key order kept), to tell whether an edit changed it.
fn canonical(doc: &Value) -> String {
    doc.to_string()
}

/// Pretty JSON with the indentation `original` used (two spaces when it has none) and its
/// trailing newline (kept when `original` is empty, i.e. a new file).
fn serialize(doc: &Value, original: &str) -> String {
    use serde::Serialize;
    let indent = original
        .lines()
        .skip(1)
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .find(|ws| !ws.is_empty())
        .unwrap_or("  ");
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    doc.serialize(&mut ser).expect("a JSON value serializes");
    let mut text = String::from_utf8(out).expect("serde_json writes UTF-8");
    if original.trim().is_empty() || original.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The agents a command acts on: the one named, or all.
///
/// Errors: [`SetupError::BadAgent`] for an unknown name.
pub fn agents(name: Option<&str>) -> Result<Vec<Agent>, SetupError> {
    match name {
        Some(n) => Ok(vec![Agent::from_name(n)?]),
        None => Ok(Agent::ALL.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_trust_is_read_from_its_hooks_state() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hooks.json");
        let ours = "termio agent report done --agent codex --event Stop >/dev/null 2>&1 || true # termio-hooks v1";
        let doc = json!({"hooks": {
            "Stop": [
                {"hooks": [{"type": "command", "command": "my-own-hook"}]},
                {"hooks": [{"type": "command", "command": ours}]}
            ],
            "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": ours}]}]
        }});
        let trust = |config: &str| {
            std::fs::write(dir.path().join("config.toml"), config).unwrap();
            codex_trust(&path, &doc, dir.path()).unwrap()
        };
        // Nothing recorded (Codex 0.171.0 asks "Hooks need review").
        let t = trust("model = \"m\"\n");
        assert_eq!(t.state, TrustState::Needed);
        assert_eq!(t.untrusted, ["Stop", "PreToolUse"]);
        assert!(t.hint.unwrap().contains("Trust all and continue"));
        // Trust for our Stop hook (its second group) only.
        let p = path.display();
        let stop = format!("[hooks.state.\"{p}:stop:1:0\"]\ntrusted_hash = \"sha256:ab\"\n");
        let t = trust(&stop);
        assert_eq!(
            (t.state, t.untrusted),
            (TrustState::Needed, vec!["PreToolUse".to_string()])
        );
        let both =
            format!("{stop}[hooks.state.\"{p}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:cd\"\n");
        let t = trust(&both);
        assert_eq!((t.state, t.hint), (TrustState::Trusted, None));
        // None of ours: nothing to say.
        let theirs = json!({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}});
        assert_eq!(codex_trust(&path, &theirs, dir.path()), None);
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
    }

    #[test]
    fn commands_carry_the_fingerprint_and_silence_the_reporter() {
        let stop = &CLAUDE_HOOKS[6];
        assert_eq!(
            Agent::Claude.hook_command(stop, "termio"),
            "termio agent report done --agent claude --event Stop >/dev/null 2>&1 || true # termio-hooks v1"
        );
        let cursor = &CURSOR_HOOKS[0];
        assert_eq!(
            Agent::Cursor.hook_command(cursor, "termio"),
            "termio agent report working --agent cursor --event beforeSubmitPrompt >/dev/null 2>&1; echo '{}' # termio-hooks v1"
        );
    }

    #[test]
    fn install_then_uninstall_restores_the_document() {
        let original = json!({"model": "opus", "hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "mine.sh"}]}]}});
        let mut doc = original.clone();
        edit(Agent::Claude, &mut doc, "termio", true).unwrap();
        assert_eq!(
            state_of(Agent::Claude, &doc, "termio"),
            Ok(HookState::Installed)
        );
        assert_eq!(doc["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        let once = doc.clone();
        edit(Agent::Claude, &mut doc, "termio", true).unwrap();
        assert_eq!(canonical(&once), canonical(&doc), "install is idempotent");
        edit(Agent::Claude, &mut doc, "termio", false).unwrap();
        assert_eq!(canonical(&original), canonical(&doc));
    }

    #[test]
    fn a_user_hook_sharing_a_group_with_ours_stays() {
        let mut doc = json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "mine.sh"},
            {"type": "command", "command": "old # termio-hooks v0"}]}]}});
        edit(Agent::Claude, &mut doc, "termio", false).unwrap();
        assert_eq!(
            doc,
            json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine.sh"}]}]}})
        );
    }

    #[test]
    fn layout_follows_the_original() {
        let doc = json!({"a": [1]});
        assert_eq!(
            serialize(&doc, "{\n    \"b\": 1\n}"),
            "{\n    \"a\": [\n        1\n    ]\n}"
        );
        assert_eq!(
            serialize(&doc, "{\n\t\"b\": 1\n}\n"),
            "{\n\t\"a\": [\n\t\t1\n\t]\n}\n"
        );
        assert_eq!(serialize(&doc, ""), "{\n  \"a\": [\n    1\n  ]\n}\n");
    }
}
