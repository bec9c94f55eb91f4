//! The strict command line (issue 17 item 1): options we do not know are errors naming them,
//! the command is what follows `--` or starts at the first word that is not an option, a
//! shell command line in one argument may be followed by options, `--version` answers on every
//! subcommand, and `session` verbs report argument errors as the JSON envelope with one line.

mod common;

use common::session::Host;
use common::*;
use predicates::str::contains;

/// `capture --json -o out.svg <args>` in `dir`: the reply.
fn capture_json(dir: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let out = console2svg().current_dir(dir).args(args).assert().success();
    serde_json::from_slice(&out.get_output().stdout).expect("JSON reply")
}

/// stderr of a failed run, which must be exactly one line.
fn one_error_line(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(err.starts_with("console2svg: error: "), "{err}");
    err
}

#[test]
fn an_unknown_option_before_the_command_is_an_error_naming_it() {
    let dir = tempdir();
    for args in [
        vec!["capture", "--bogus", "--", "touch", "ran"],
        vec!["--bogus", "--", "touch", "ran"],
        vec!["capture", "-w", "20", "--bogus=1", "touch", "ran"],
    ] {
        let out = console2svg()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(one_error_line(&out).contains("'--bogus"), "{args:?}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "nothing ran, nothing written: {left:?}");
}

#[test]
fn mask_before_the_command_masks_instead_of_running_a_program() {
    let dir = tempdir();
    let v = capture_json(
        dir.path(),
        &[
            "capture", "--json", "-o", "m.svg", "--mask", "hunter2", "--", "echo", "pw", "hunter2",
        ],
    );
    assert_eq!(v["screen"]["text"], "pw *******");
    assert_eq!(v["exitCode"], 0);
    let svg = std::fs::read_to_string(dir.path().join("m.svg")).unwrap();
    assert!(!svg.contains("hunter2"));
}

#[test]
fn the_command_starts_at_the_first_word_that_is_not_an_option() {
    let dir = tempdir();
    // `-n -w` after `echo` are echo's: the command is everything from `echo` on.
    let v = capture_json(
        dir.path(),
        &["--json", "-o", "a.svg", "-w", "30", "echo", "-n", "-w"],
    );
    assert_eq!(v["screen"]["width"], 30);
    assert_eq!(v["screen"]["text"], "-w");
    // After `--` too, even for words that look like our options.
    let v = capture_json(
        dir.path(),
        &["capture", "--json", "-o", "a.svg", "--", "echo", "--json"],
    );
    assert_eq!(v["screen"]["text"], "--json");
}

#[test]
fn options_after_a_shell_command_line_apply() {
    let dir = tempdir();
    let v = capture_json(
        dir.path(),
        &["echo one; echo two", "-w", "40", "--json", "-o", "s.svg"],
    );
    assert_eq!(v["screen"]["width"], 40);
    assert_eq!(v["screen"]["text"], "one\ntwo");
    assert!(dir.path().join("s.svg").is_file());
    // An unknown option there is named; a word that is not an option is refused.
    for (args, named) in [
        (vec!["echo hi", "-w", "40", "--bogus"], "'--bogus'"),
        (vec!["echo hi", "-w", "40", "extra"], "'extra'"),
    ] {
        let out = console2svg()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(one_error_line(&out).contains(named), "{args:?}");
    }
    assert!(!dir.path().join("output.svg").exists());
}

#[test]
fn the_config_option_before_a_subcommand_or_the_root_form() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("w.yaml"),
        "$version: 1\noptions: {terminal: {width: 33}}\n",
    )
    .unwrap();
    for args in [
        vec![
            "-C", "w.yaml", "capture", "--json", "-o", "c.svg", "--", "echo", "hi",
        ],
        vec!["-C", "w.yaml", "--json", "-o", "c.svg", "--", "echo", "hi"],
        vec!["--config=w.yaml", "--json", "-o", "c.svg", "echo", "hi"],
    ] {
        let v = capture_json(dir.path(), &args);
        assert_eq!(v["screen"]["width"], 33, "{args:?}");
        assert_eq!(v["screen"]["text"], "hi", "{args:?}");
    }
}

#[test]
fn help_documents_the_rule_and_tmux_help_is_help() {
    let dir = tempdir();
    for args in [vec!["--help"], vec!["capture", "--help"]] {
        console2svg()
            .args(&args)
            .assert()
            .success()
            .stdout(contains("everything after `--`"))
            .stdout(contains("git log --oneline"));
    }
    console2svg()
        .current_dir(dir.path())
        .args(["tmux", "--help"])
        .assert()
        .success()
        .stdout(contains("Usage: console2svg tmux"));
    let out = console2svg()
        .current_dir(dir.path())
        .arg("tmux")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(one_error_line(&out).contains("needs a verb: capture"));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "tmux did not run a capture: {left:?}");
}

#[test]
fn version_works_on_every_subcommand() {
    let want = format!("console2svg {}\n", env!("CARGO_PKG_VERSION"));
    for args in [
        vec!["--version"],
        vec!["-V"],
        vec!["capture", "--version"],
        vec!["cast", "--version"],
        vec!["session", "--version"],
        vec!["session", "start", "--version"],
        vec!["session", "list", "--version"],
        vec!["scenario", "run", "--version"],
        vec!["theme", "list", "--version"],
        vec!["status", "--version"],
        vec!["llm", "skills", "--version"],
        vec!["completions", "--version"],
        vec!["mask", "test", "--version"],
        vec!["batch", "markdown", "--version"],
        vec!["mcp", "--version"],
        vec!["tmux", "--version"],
        vec!["live-server", "--version"],
        vec!["replay", "--version"],
        vec!["interactive", "--version"],
    ] {
        let out = console2svg().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?}");
    }
}

#[test]
fn option_values_out_of_range_are_one_line_naming_the_option() {
    let dir = tempdir();
    for (args, named) in [
        (vec!["-w", "0", "--", "true"], "--width"),
        (vec!["-h", "501", "--", "true"], "--height"),
        (vec!["--scrollback", "100001", "--", "true"], "--scrollback"),
        (vec!["--fontsize", "0", "--", "true"], "--fontsize"),
        (vec!["--opacity", "2", "--", "true"], "--opacity"),
        (vec!["--timeout", "abc", "--", "true"], "--timeout"),
        (vec!["--scale", "20", "--", "true"], "--scale"),
        (vec!["capture", "-w"], "--width"),
    ] {
        let out = console2svg()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(one_error_line(&out).contains(named), "{args:?}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "nothing written: {left:?}");
}

/// Issue 17: agents read stdout, so every `session` verb's argument error is the envelope
/// (`invalid_request`, exit 1) with one line naming the argument.
#[test]
fn session_argument_errors_are_one_json_line_naming_the_argument() {
    let h = Host::new();
    for (args, named) in [
        (vec!["wait", "s_x"], "--text"),
        (
            vec!["wait", "s_x", "--text", "a", "--timeout", "abc"],
            "--timeout",
        ),
        (vec!["start", "--width", "0", "--", "true"], "--width"),
        (vec!["start", "--bogus", "--", "true"], "--bogus"),
        (
            vec!["resize", "s_x", "--width", "0", "--height", "2"],
            "--width",
        ),
        (vec!["send", "s_x", "--text"], "--text"),
        (vec!["capture", "s_x", "--fontsize", "0"], "--fontsize"),
        (vec!["read"], "<ID>"),
        // A value out of range names the option and the range.
        (
            vec!["send", "s_x", "--gap", "-5", "--text", "a"],
            "'--gap <GAP>'",
        ),
        (
            vec!["send", "s_x", "--gap", "11s", "--text", "a"],
            "from 0 to 10s",
        ),
        // No verb at all: the verbs.
        (vec![], "needs a verb: start, list, read, wait, send"),
    ] {
        let v = h.fails(&args, "invalid_request");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(!message.contains('\n'), "one line: {message:?}");
        assert!(!message.contains("Usage"), "{message:?}");
        assert!(message.contains(named), "{args:?}: {message}");
    }
    // Also when the config option comes first.
    let out = h
        .cmd()
        .args(["-C", "none.yaml", "session", "wait", "s_x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "invalid_request");
}

/// `scenario` argument errors are the scenario envelope (`scenario_failed`, exit 1) like every
/// other scenario failure, one line naming the argument; subcommands without their verb name
/// the verbs.
#[test]
fn scenario_argument_errors_are_the_envelope_and_missing_verbs_are_named() {
    let dir = tempdir();
    for (args, named) in [
        (vec!["scenario", "run"], "<DOCUMENT>"),
        (vec!["scenario", "run", "s.yaml", "--width", "0"], "--width"),
        (vec!["scenario", "run", "s.yaml", "--bogus"], "--bogus"),
        (vec!["scenario"], "needs a verb: run"),
    ] {
        let out = console2svg()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["status"], "error", "{args:?}");
        assert_eq!(v["error"]["code"], "scenario_failed", "{args:?}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains(named), "{args:?}: {message}");
        assert!(one_error_line(&out).contains(named));
    }
    for (args, verbs) in [
        (vec!["theme"], "needs a verb: list"),
        (vec!["batch"], "needs a verb: markdown, restore"),
    ] {
        let out = console2svg()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(one_error_line(&out).contains(verbs), "{args:?}");
    }
}
