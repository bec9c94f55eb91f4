//! `console2svg scenario run` and `console2svg llm skills`.
//!
//! `scenario run` prints one JSON document on stdout: `{schemaVersion, status:"completed",
//! sessionId, exitCode, artifacts}` on success, else the contract's error envelope with code
//! `scenario_failed` (plus `differences` for `--check`), the message also on stderr, exit 1.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use crate::scenario::run::{self, Mode, RunOptions};

/// `scenario` subcommands.
#[derive(Subcommand, Debug)]
pub enum ScenarioCommand {
    /// Run a scenario document (YAML or JSON): prepare, launch, execute, verify, teardown.
    Run(RunArgs),
}

/// `scenario run` options.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The scenario document.
    pub document: PathBuf,
    /// Terminal columns (1–500), over the document's options.
    #[arg(short = 'w', long, value_parser = clap::value_parser!(u16).range(1..=500))]
    pub width: Option<u16>,
    /// Terminal rows (1–500), over the document's options.
    #[arg(short = 'h', long, value_parser = clap::value_parser!(u16).range(1..=500))]
    pub height: Option<u16>,
    /// Compare each capture with the file at its output path instead of writing it; fail,
    /// listing the files that differ, when any does.
    #[arg(long, conflicts_with = "update")]
    pub check: bool,
    /// Rewrite every capture (the result lists the files that changed in `updated`).
    #[arg(long)]
    pub update: bool,
}

/// `llm` subcommands.
#[derive(Subcommand, Debug)]
pub enum LlmCommand {
    /// Print the agent skill (SKILL.md) for driving programs with `console2svg session`.
    Skills,
}

/// The agent skill.
pub const SKILL: &str = include_str!("skill.md");

/// Runs a `scenario` subcommand; returns the exit code.
pub fn run(command: ScenarioCommand, config: Option<&Path>) -> i32 {
    crate::host::client::install_interrupt_handler();
    let ScenarioCommand::Run(a) = command;
    let opts = RunOptions {
        width: a.width,
        height: a.height,
        config: config.map(Path::to_path_buf),
        mode: if a.check {
            Mode::Check
        } else if a.update {
            Mode::Update
        } else {
            Mode::Write
        },
    };
    let paths = |v: &[PathBuf]| -> Vec<String> {
        v.iter().map(|p| p.to_string_lossy().into_owned()).collect()
    };
    let reply = match run::run(&a.document, &opts) {
        Ok(o) if !o.differences.is_empty() => {
            let list = paths(&o.differences);
            let mut v = envelope(format!(
                "{}: {} capture(s) differ from the files on disk: {}",
                a.document.display(),
                list.len(),
                list.join(", ")
            ));
            v["differences"] = json!(list);
            v["sessionId"] = json!(o.session_id);
            v
        }
        Ok(o) => {
            let mut v = json!({
                "schemaVersion": 1,
                "status": "completed",
                "sessionId": o.session_id,
                "exitCode": o.exit_code,
                "artifacts": paths(&o.artifacts),
            });
            match opts.mode {
                Mode::Update => v["updated"] = json!(paths(&o.updated)),
                Mode::Check => v["differences"] = json!([]),
                _ => {}
            }
            v
        }
        Err(message) => envelope(message),
    };
    print_reply(&reply)
}

/// A `scenario` argument error (a missing document, an unknown option, a value out of range)
/// as every other scenario failure: the envelope on stdout with the one-line message (naming the
/// argument, [`super::clap_error_line`]), the line on stderr; returns the exit code, 1.
pub fn usage_error(e: &clap::Error) -> i32 {
    usage_message(super::clap_error_line(e))
}

/// `message` (a usage error) as the scenario failure envelope; returns the exit code, 1.
pub fn usage_message(message: String) -> i32 {
    print_reply(&envelope(message))
}

/// Prints a reply; the exit code is 1 for an error envelope (its message also on stderr).
fn print_reply(reply: &Value) -> i32 {
    let failed = reply["status"] == "error";
    if let Err(e) = super::print_stdout(&format!("{reply}\n")) {
        eprintln!("console2svg: error: {}", e.message);
        return 1;
    }
    if failed {
        if let Some(m) = reply["error"]["message"].as_str() {
            eprintln!("console2svg: error: {m}");
        }
        1
    } else {
        0
    }
}

fn envelope(message: String) -> Value {
    json!({
        "schemaVersion": 1,
        "status": "error",
        "error": {"code": "scenario_failed", "message": message},
    })
}

/// `llm skills`.
pub fn llm(command: LlmCommand) -> Result<(), super::CliError> {
    match command {
        LlmCommand::Skills => super::print_stdout(SKILL),
    }
}
