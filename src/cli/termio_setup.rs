//! `termio hooks …` and `termio skill …`: clap definitions and printing over
//! [`crate::termio::hooks`] and [`crate::termio::skill`], flattened into the `termio` binary's
//! top-level subcommands by `cli::termio`.
//!
//! With `--json` every command prints one JSON document: a [`Success`] reply
//! (`{"ok": true, …, "schema_version": 1}`), or the contract's one error shape, [`Error`]
//! (codes `bad_agent`, `bad_config`, `io_error`; see [`SetupError`]). Exit code 0 on success, 1 on any error; `hooks status` reports a file that
//! does not parse in that agent's entry (`error`, `message`) and still exits 0. An install or
//! uninstall goes on with the other agents after one fails, then replies with the first error and
//! every agent's entry in `agents`. Without `--json`, one line per agent or skills folder, errors
//! on stderr.

use clap::{Args, Subcommand};
use serde::Serialize;
use serde_json::Value;

use crate::termio::hooks::{self, Action, Agent};
use crate::termio::reply::Success;
use crate::termio::setup::{Dirs, SetupError};
use crate::termio::skill::{self, SkillReport};
use crate::termio::Error;

/// `termio hooks …` and `termio skill …`, flattened into the `termio` binary's top-level
/// subcommands (`cli::termio`).
#[derive(Subcommand, Debug)]
pub enum SetupCommand {
    /// Install, remove or inspect termio's status hooks in AI coding agents' configs.
    #[command(
        long_about = "Install, remove or inspect termio's status hooks in AI coding agents' config \
files (Claude Code, Codex, Cursor, Gemini CLI). Each hook runs `termio agent report <state> --agent \
<name> --event <event>` silently; other entries and the files' layout are kept, and a file that \
does not parse is refused and left byte-identical.\n\nExit codes: 0 success, 1 error (codes \
bad_agent, bad_config, io_error)."
    )]
    Hooks(HooksArgs),
    /// Install, remove, inspect or print the `termio` agent skill.
    #[command(
        long_about = "Install, remove, inspect or print the `termio` agent skill: a SKILL.md that \
teaches an agent the `termio sessions` verbs, in ~/.claude/skills, ~/.codex/skills and \
~/.agents/skills. While session control is on, the session host re-asserts installed copies when \
it starts, so hand edits heal.\n\nExit codes: 0 success, 1 error (codes bad_config, io_error)."
    )]
    Skill(SkillArgs),
}

/// `termio hooks`.
#[derive(Args, Debug)]
#[command(subcommand_required = true, arg_required_else_help = true)]
pub struct HooksArgs {
    /// Print one JSON document instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub action: HooksAction,
}

/// `termio skill`.
#[derive(Args, Debug)]
#[command(subcommand_required = true, arg_required_else_help = true)]
pub struct SkillArgs {
    /// Print one JSON document instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub action: SkillAction,
}

/// `termio hooks …` verbs.
#[derive(Subcommand, Debug)]
pub enum HooksAction {
    /// Add termio's hooks, keeping every other entry. Without --agent, agents whose config folder
    /// does not exist are skipped.
    Install(AgentArg),
    /// Remove termio's hooks (only entries carrying the `# termio-hooks` fingerprint).
    Uninstall(AgentArg),
    /// Show, per agent, the config file and whether the hooks are installed.
    Status(AgentArg),
}

/// The `--agent` filter.
#[derive(Args, Debug)]
pub struct AgentArg {
    /// Only this agent: claude, codex, cursor or gemini.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
}

/// `termio skill …` verbs.
#[derive(Subcommand, Debug)]
pub enum SkillAction {
    /// Install the skill into ~/.claude/skills, ~/.codex/skills and ~/.agents/skills.
    Install,
    /// Remove the skill where it is ours.
    Uninstall,
    /// Show, per skills folder, whether the skill is installed.
    Status,
    /// Print the skill's SKILL.md.
    Print,
    /// Heal installed copies that differ (what the host does when it starts).
    #[command(hide = true)]
    Reassert,
}

/// `hooks …` replies: `{"ok": true, "action": …, "agents": […], "schema_version": 1}`.
#[derive(Serialize)]
struct AgentsReply {
    action: &'static str,
    agents: Vec<Value>,
}

/// `skill install|uninstall|status` replies.
#[derive(Serialize)]
struct SkillsReply {
    action: &'static str,
    skills: Vec<Value>,
}

/// `skill print --json`.
#[derive(Serialize)]
struct Printed {
    name: &'static str,
    content: &'static str,
}

/// Runs a setup command and prints its reply; returns the exit code (0 success, 1 error).
pub fn run(cmd: SetupCommand) -> i32 {
    let (json, printed) = match cmd {
        SetupCommand::Hooks(a) => (a.json, run_hooks(a.action, a.json)),
        SetupCommand::Skill(a) => (a.json, run_skill(a.action, a.json)),
    };
    match printed {
        Ok(code) => code,
        Err(e) => fail(&e, json, None),
    }
}

/// Prints the contract's error (JSON on stdout with `--json`, `termio: error: <code>: <message>`
/// on stderr otherwise), with `agents` added to the JSON when given; returns 1.
fn fail(e: &SetupError, json: bool, agents: Option<Vec<Value>>) -> i32 {
    match agents {
        Some(items) => fail_with(e, json, "agents", items),
        None => fail_with(e, json, "", Vec::new()),
    }
}

/// [`fail`] listing every item's result under `key` (none when `key` is empty).
fn fail_with(e: &SetupError, json: bool, key: &str, items: Vec<Value>) -> i32 {
    let error = Error::from(e);
    if json {
        let mut reply = error.to_json();
        if let (false, Some(map)) = (key.is_empty(), reply.as_object_mut()) {
            // Before `schema_version`, which stays last as in every reply.
            let version = map.remove("schema_version");
            map.insert(key.into(), items.into());
            if let Some(v) = version {
                map.insert("schema_version".into(), v);
            }
        }
        emit(&reply.to_string());
    } else {
        super::print_error(
            "termio",
            &format!("{}: {}", error.code.as_str(), error.message),
        );
    }
    1
}

fn emit(line: &str) {
    let _ = super::print_stdout(&format!("{line}\n"));
}

fn emit_json<T: Serialize>(body: T) {
    emit(&serde_json::to_string(&Success::new(body)).expect("replies serialise"));
}

fn run_hooks(action: HooksAction, json: bool) -> Result<i32, SetupError> {
    let (verb, action, arg) = match action {
        HooksAction::Install(a) => ("install", Action::Install, a),
        HooksAction::Uninstall(a) => ("uninstall", Action::Uninstall, a),
        HooksAction::Status(a) => ("status", Action::Status, a),
    };
    let agents = hooks::agents(arg.agent.as_deref())?;
    let dirs = Dirs::from_env()?;
    let program = hooks::program_from_env();
    let create = arg.agent.is_some();
    let mut items = Vec::new();
    let mut first_error: Option<SetupError> = None;
    for agent in agents {
        match hooks::apply(agent, action, &dirs, &program, create) {
            Ok(report) => {
                if !json {
                    let what = if report.skipped {
                        " (skipped: no config folder)"
                    } else if report.changed {
                        " (written)"
                    } else {
                        ""
                    };
                    let state = serde_json::to_value(report.state).unwrap_or_default();
                    emit(&format!(
                        "{:<7} {:<14} {}{what}",
                        agent.name(),
                        state.as_str().unwrap_or_default(),
                        report.path.display()
                    ));
                    if let Some(n) = &report.notify {
                        let state = serde_json::to_value(n.state).unwrap_or_default();
                        let what = if n.changed { " (written)" } else { "" };
                        emit(&format!(
                            "{:<7} {:<14} {} (notify){what}",
                            "",
                            state.as_str().unwrap_or_default(),
                            n.path.display()
                        ));
                    }
                    if let Some(t) = &report.trust {
                        let state = serde_json::to_value(t.state).unwrap_or_default();
                        let hint = t
                            .hint
                            .as_deref()
                            .map(|h| format!(": {h}"))
                            .unwrap_or_default();
                        emit(&format!(
                            "{:<7} trust {}{hint}",
                            "",
                            state.as_str().unwrap_or_default()
                        ));
                    }
                }
                items.push(serde_json::to_value(&report).unwrap_or_default());
            }
            Err(e) => {
                if !json {
                    emit(&format!("{:<7} {:<14} {e}", agent.name(), "error"));
                }
                items.push(agent_error(agent, &dirs, &e));
                first_error.get_or_insert(e);
            }
        }
    }
    // A status that found a broken file succeeded at its job: it reports the error per agent.
    match first_error {
        Some(e) if action != Action::Status => Ok(fail(&e, json, Some(items))),
        _ => {
            if json {
                emit_json(AgentsReply {
                    action: verb,
                    agents: items,
                });
            }
            Ok(0)
        }
    }
}

fn agent_error(agent: Agent, dirs: &Dirs, e: &SetupError) -> Value {
    serde_json::json!({
        "agent": agent.name(),
        "path": agent.hooks_file(dirs),
        "error": e.code(),
        "message": e.to_string(),
    })
}

fn run_skill(action: SkillAction, json: bool) -> Result<i32, SetupError> {
    if let SkillAction::Print = action {
        if json {
            emit_json(Printed {
                name: skill::SKILL_NAME,
                content: skill::SKILL_MD,
            });
        } else {
            let _ = super::print_stdout(skill::SKILL_MD);
        }
        return Ok(0);
    }
    let dirs = Dirs::from_env()?;
    let (verb, op) = match action {
        SkillAction::Install => ("install", skill::SkillOp::Install),
        SkillAction::Uninstall => ("uninstall", skill::SkillOp::Uninstall),
        SkillAction::Status => ("status", skill::SkillOp::Status),
        SkillAction::Reassert => ("reassert", skill::SkillOp::Reassert),
        SkillAction::Print => unreachable!("handled above"),
    };
    // Every folder is tried, like the hooks' agents: one failure neither hides nor stops the
    // others, and the error reply lists them all.
    let mut items = Vec::new();
    let mut first_error: Option<SetupError> = None;
    for home in skill::SkillHome::ALL {
        match skill::apply_skill(op, home, &dirs) {
            Ok(r) => {
                if !json {
                    emit(&skill_line(&r));
                }
                items.push(serde_json::to_value(&r).unwrap_or_default());
            }
            Err(e) => {
                let name = serde_json::to_value(home).unwrap_or_default();
                if !json {
                    emit(&format!(
                        "{:<7} {:<14} {e}",
                        name.as_str().unwrap_or_default(),
                        "error"
                    ));
                }
                items.push(serde_json::json!({
                    "home": name,
                    "path": home.skill_file(&dirs),
                    "error": e.code(),
                    "message": e.to_string(),
                }));
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) if op != skill::SkillOp::Status => Ok(fail_with(&e, json, "skills", items)),
        _ => {
            if json {
                emit_json(SkillsReply {
                    action: verb,
                    skills: items,
                });
            }
            Ok(0)
        }
    }
}

fn skill_line(r: &SkillReport) -> String {
    let home = serde_json::to_value(r.home).unwrap_or_default();
    let state = serde_json::to_value(r.state).unwrap_or_default();
    let note = match (r.changed, r.state) {
        (true, skill::SkillState::NotInstalled) => " (removed)",
        (true, _) => " (written)",
        (false, skill::SkillState::Foreign) => " (not ours: left alone)",
        _ => "",
    };
    format!(
        "{:<7} {:<14} {}{note}",
        home.as_str().unwrap_or_default(),
        state.as_str().unwrap_or_default(),
        r.path.display()
    )
}
