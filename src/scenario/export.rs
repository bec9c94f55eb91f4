//! `session export`: a session's journal as a scenario document.
//!
//! Actions (`send`, `resize`, `capture`) and the conditions that matched (`wait`) are kept in
//! order; observations (`read`, `inspect`) and waits that did not match are left out. The
//! launch becomes `launch` plus the terminal size; the working directory is the document's
//! own directory (`path: "."`), and capture outputs inside the session's directory are written
//! relative to it, so the document can be committed next to its images and replayed anywhere.

use std::path::Path;

use super::document::{
    CaptureArgs, Document, Launch, ResizeArgs, Scenario, Step, WaitArgs, WorkingDir,
};
use crate::host::journal::Entry;
use crate::host::protocol::{format_duration_ms, Until};
use crate::options::{AppearanceOptions, Options, TerminalOptions};

/// Builds the document. Errors when the journal has no launch.
pub fn from_journal(entries: &[Entry]) -> Result<Document, String> {
    let Some(Entry::Launch {
        argv,
        cwd,
        width,
        height,
        color_env,
        delete_ci_env,
    }) = entries.first()
    else {
        return Err("the session's journal has no launch".into());
    };
    let mut execute = Vec::new();
    let mut after_action = false;
    for entry in &entries[1..] {
        match entry {
            Entry::Send { inputs } => {
                execute.push(Step::Send {
                    inputs: inputs.clone(),
                });
                after_action = true;
            }
            Entry::Resize { width, height } => {
                execute.push(Step::Resize {
                    args: ResizeArgs {
                        width: *width,
                        height: *height,
                    },
                });
                after_action = true;
            }
            Entry::Wait {
                condition,
                timeout_ms,
                matched: true,
            } => {
                let c = condition;
                let args = WaitArgs {
                    text: (!c.regex).then(|| c.text.clone()),
                    regex: c.regex.then(|| c.text.clone()),
                    until: (c.until == Until::Absent).then_some(Until::Absent),
                    stable_for: (c.stable_for_ms > 0).then(|| format_duration_ms(c.stable_for_ms)),
                    timeout: timeout_ms.map(format_duration_ms),
                    line: c.line.then_some(true),
                    since_last_action: (c.since.is_some() && after_action).then_some(true),
                };
                execute.push(Step::Wait { args });
            }
            Entry::Capture {
                output,
                cwd: capture_cwd,
                options,
            } => {
                execute.push(Step::Capture {
                    args: CaptureArgs {
                        output: relative_output(output, capture_cwd, cwd),
                    },
                    options: (**options != AppearanceOptions::default()).then(|| Options {
                        terminal: None,
                        appearance: Some((**options).clone()),
                    }),
                });
            }
            Entry::Wait { .. }
            | Entry::Launch { .. }
            | Entry::Read
            | Entry::Inspect
            | Entry::Stop => {}
        }
    }
    Ok(Document {
        version: 1,
        options: Some(Options {
            terminal: Some(TerminalOptions {
                width: Some(*width),
                height: Some(*height),
            }),
            appearance: None,
        }),
        scenario: Scenario {
            working_dir: Some(WorkingDir {
                path: ".".into(),
                temporary: false,
            }),
            prepare: Vec::new(),
            launch: Launch {
                executable: argv.first().cloned().unwrap_or_default(),
                args: argv.iter().skip(1).cloned().collect(),
                options: None,
                colorenv: (!color_env).then_some(false),
                delete_envs: (!delete_ci_env).then_some(false),
                exit_timeout: None,
            },
            execute,
            verify: Vec::new(),
            teardown: Vec::new(),
        },
    })
}

/// A capture's output path for the document: relative to the session's directory when it lies
/// inside it, else absolute.
fn relative_output(output: &str, capture_cwd: &str, session_cwd: &str) -> String {
    let abs = Path::new(capture_cwd).join(output);
    let abs = std::path::absolute(&abs).unwrap_or(abs);
    match abs.strip_prefix(session_cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => abs.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::protocol::Condition;
    use crate::term::keys::Input;

    #[test]
    fn actions_and_matched_waits_are_kept_observations_dropped() {
        let wait = |text: &str, matched| Entry::Wait {
            condition: Condition {
                text: text.into(),
                regex: false,
                until: Until::Present,
                stable_for_ms: 0,
                line: false,
                since: Some(3),
            },
            timeout_ms: Some(5000),
            matched,
        };
        let entries = vec![
            Entry::Launch {
                argv: vec!["vim".into(), "a.txt".into()],
                cwd: "/w".into(),
                width: 80,
                height: 24,
                color_env: true,
                delete_ci_env: true,
            },
            Entry::Read,
            Entry::Send {
                inputs: vec![Input::Text("iHi".into()), Input::Keys("Escape".into())],
            },
            wait("Hi", true),
            wait("never", false),
            Entry::Inspect,
            Entry::Resize {
                width: 100,
                height: 30,
            },
            Entry::Capture {
                output: "img/out.svg".into(),
                cwd: "/w".into(),
                options: Box::new(AppearanceOptions {
                    window: Some("macos".into()),
                    ..Default::default()
                }),
            },
            Entry::Stop,
        ];
        let doc = from_journal(&entries).unwrap();
        let kinds: Vec<&str> = doc.scenario.execute.iter().map(Step::kind).collect();
        assert_eq!(kinds, ["send", "wait", "resize", "capture"]);
        assert_eq!(doc.scenario.launch.args, ["a.txt"]);
        match &doc.scenario.execute[1] {
            Step::Wait { args } => {
                assert_eq!(args.timeout.as_deref(), Some("5s"));
                assert_eq!(args.since_last_action, Some(true));
            }
            other => panic!("{other:?}"),
        }
        match &doc.scenario.execute[3] {
            Step::Capture { args, .. } => assert_eq!(args.output, "img/out.svg"),
            other => panic!("{other:?}"),
        }
        doc.validate().unwrap();
    }
}
