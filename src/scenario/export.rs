//! `session export`: a session's journal as a scenario document.
//!
//! Actions (`send`, `resize`, `capture`) and the conditions that matched (`wait`) are kept in
//! order; observations (`read`, `inspect`) and waits that did not match are left out. The
//! launch becomes `launch` plus the terminal size. Paths in a document are relative to the
//! document's directory, so the working directory (the session's) and the capture outputs are
//! written relative to where the document is saved: the document, its project and its images
//! can be committed together and replayed from any clone.
//!
//! Input typed at a hidden prompt was never journaled ([`Entry::HiddenSend`]): each becomes a
//! secret input naming an environment variable, `CONSOLE2SVG_SECRET_1`, `_2`, … in the order
//! sent, which `scenario run` reads (see [`super::document`], "Secret inputs"). The document
//! itself holds no secret, so it is written with the user's umask like any other file.

use std::path::Path;

use super::document::{
    CaptureArgs, Document, Launch, ResizeArgs, Scenario, SendInput, Step, WaitArgs, WorkingDir,
};
use crate::host::journal::{Entry, Sent};
use crate::host::protocol::{format_duration_ms, Until};
use crate::options::{AppearanceOptions, Options, TerminalOptions};

/// The environment variables secret inputs are exported as: this prefix and 1, 2, … in the
/// order the secrets were sent.
pub const SECRET_PREFIX: &str = "CONSOLE2SVG_SECRET_";

/// Builds the document that will be saved in directory `doc_dir` (absolute). Errors when the
/// journal has no launch.
pub fn from_journal(entries: &[Entry], doc_dir: &Path) -> Result<Document, String> {
    let Some(Entry::Launch(crate::host::protocol::Launch {
        argv,
        cwd,
        width,
        height,
        color_env,
        delete_ci_env,
        ..
    })) = entries.first()
    else {
        return Err("the session's journal has no launch".into());
    };
    let mut execute = Vec::new();
    let mut after_action = false;
    let mut secrets = 0;
    for entry in &entries[1..] {
        match entry {
            Entry::Send { inputs, gap_ms } => {
                execute.push(Step::Send {
                    inputs: inputs.iter().cloned().map(SendInput::from).collect(),
                    gap: gap_ms.map(|ms| format!("{ms}ms")),
                });
                after_action = true;
            }
            Entry::HiddenSend { inputs, gap_ms } => {
                let inputs = inputs
                    .iter()
                    .map(|i| match i {
                        Sent::Input(i) => SendInput::Input(i.clone()),
                        Sent::Secret { secret } => {
                            secrets += 1;
                            SendInput::Secret {
                                name: format!("{SECRET_PREFIX}{secrets}"),
                                kind: *secret,
                            }
                        }
                    })
                    .collect();
                execute.push(Step::Send {
                    inputs,
                    gap: gap_ms.map(|ms| format!("{ms}ms")),
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
                scale,
                still,
            } => {
                let still = still.as_deref().cloned().unwrap_or_default();
                let step = Options {
                    terminal: None,
                    appearance: (**options != AppearanceOptions::default())
                        .then(|| (**options).clone()),
                    render: still.render,
                    capture: still.capture,
                    ..Options::default()
                };
                execute.push(Step::Capture {
                    args: CaptureArgs {
                        output: relative(&Path::new(capture_cwd).join(output), doc_dir),
                        scale: *scale,
                    },
                    options: (step != Options::default()).then(|| Box::new(step)),
                });
            }
            Entry::Wait { .. } | Entry::Launch(_) | Entry::Read | Entry::Inspect | Entry::Stop => {}
        }
    }
    Ok(Document {
        schema: None,
        version: 1,
        options: Some(Options {
            terminal: Some(TerminalOptions {
                width: Some(*width),
                height: Some(*height),
                scrollback: None,
            }),
            ..Options::default()
        }),
        scenario: Scenario {
            working_dir: Some(WorkingDir {
                path: relative(Path::new(cwd), doc_dir),
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

/// `target` written relative to `base` (`..` where needed; `.` for `base` itself), both made
/// absolute and lexically normalised first.
fn relative(target: &Path, base: &Path) -> String {
    use std::path::Component;
    let norm = |p: &Path| -> Vec<std::ffi::OsString> {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let mut out: Vec<std::ffi::OsString> = Vec::new();
        for c in abs.components() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::Normal(n) => out.push(n.to_os_string()),
                _ => {}
            }
        }
        out
    };
    let (t, b) = (norm(target), norm(base));
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut rel = std::path::PathBuf::new();
    for _ in common..b.len() {
        rel.push("..");
    }
    for part in &t[common..] {
        rel.push(part);
    }
    if rel.as_os_str().is_empty() {
        ".".into()
    } else {
        rel.to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::protocol::Condition;
    use crate::term::keys::Input;

    #[test]
    fn paths_are_relative_to_the_document() {
        assert_eq!(
            relative(Path::new("/w/docs/a.svg"), Path::new("/w/scenarios")),
            "../docs/a.svg"
        );
        assert_eq!(relative(Path::new("/w"), Path::new("/w/scenarios")), "..");
        assert_eq!(relative(Path::new("/w"), Path::new("/w")), ".");
        assert_eq!(
            relative(Path::new("/w/./x/../a.svg"), Path::new("/w")),
            "a.svg"
        );
    }

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
            Entry::Launch(crate::host::protocol::Launch {
                argv: vec!["vim".into(), "a.txt".into()],
                cwd: "/w".into(),
                width: 80,
                height: 24,
                color_env: true,
                delete_ci_env: true,
                env: None,
                scrollback: None,
                record: false,
            }),
            Entry::Read,
            Entry::Send {
                inputs: vec![Input::Text("iHi".into()), Input::Keys("Escape".into())],
                gap_ms: None,
            },
            Entry::send(
                vec![Input::Paste("p".into()), Input::Keys("Enter".into())],
                false,
            )
            .with_gap(Some(0)),
            Entry::send(
                vec![Input::Text("hunter2".into()), Input::Keys("Enter".into())],
                true,
            ),
            Entry::send(vec![Input::Paste("again".into())], true),
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
                scale: None,
                still: None,
            },
            Entry::Stop,
        ];
        let doc = from_journal(&entries, Path::new("/w")).unwrap();
        let kinds: Vec<&str> = doc.scenario.execute.iter().map(Step::kind).collect();
        assert_eq!(
            kinds,
            ["send", "send", "send", "send", "wait", "resize", "capture"]
        );
        assert_eq!(doc.scenario.launch.args, ["a.txt"]);
        let text = doc.to_text(false);
        assert!(
            !text.contains("hunter2") && !text.contains("again"),
            "{text}"
        );
        // A send's own gap is kept; the default is not written.
        assert_eq!(
            doc.scenario.execute[1],
            Step::Send {
                inputs: vec![
                    Input::Paste("p".into()).into(),
                    Input::Keys("Enter".into()).into()
                ],
                gap: Some("0ms".into()),
            }
        );
        assert!(text.contains("gap: 0ms"), "{text}");
        assert_eq!(
            doc.scenario.execute[2],
            Step::Send {
                inputs: vec![
                    SendInput::Secret {
                        name: "CONSOLE2SVG_SECRET_1".into(),
                        kind: crate::host::journal::InputKind::Text
                    },
                    Input::Keys("Enter".into()).into()
                ],
                gap: None,
            }
        );
        assert_eq!(
            doc.scenario.execute[3],
            Step::Send {
                inputs: vec![SendInput::Secret {
                    name: "CONSOLE2SVG_SECRET_2".into(),
                    kind: crate::host::journal::InputKind::Paste
                }],
                gap: None,
            }
        );
        let again: Document = serde_yaml_ng::from_str(&text).unwrap();
        assert_eq!(again, doc);
        match &doc.scenario.execute[4] {
            Step::Wait { args } => {
                assert_eq!(args.timeout.as_deref(), Some("5s"));
                assert_eq!(args.since_last_action, Some(true));
            }
            other => panic!("{other:?}"),
        }
        match &doc.scenario.execute[6] {
            Step::Capture { args, .. } => assert_eq!(args.output, "img/out.svg"),
            other => panic!("{other:?}"),
        }
        doc.validate().unwrap();
    }
}
