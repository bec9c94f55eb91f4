//! `termio hooks …` and `termio skill …` through the real `termio` binary, with HOME and the
//! agents' config variables pointed at a scratch folder holding realistic config files; and the
//! session host re-asserting the skill when it starts.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use assert_cmd::Command;
use serde_json::{json, Value};

/// A scratch HOME.
struct Home {
    dir: tempfile::TempDir,
    env: Vec<(&'static str, String)>,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().expect("tempdir"),
            env: Vec::new(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    fn json_file(&self, rel: &str) -> Value {
        serde_json::from_str(&self.read(rel)).unwrap()
    }

    fn with_env(mut self, name: &'static str, value: &str) -> Home {
        self.env.push((name, value.to_string()));
        self
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::cargo_bin("termio").expect("termio built");
        cmd.args(args)
            .env("HOME", self.dir.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("TERMIO_HOOK_COMMAND");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs with `--json`; the parsed reply and the exit code.
    fn run_json(&self, args: &[&str]) -> (Value, i32) {
        let out = self.cmd(args).arg("--json").output().unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let reply = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("one JSON document expected ({e}): {stdout:?}"));
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        (reply, out.status.code().unwrap())
    }

    /// Runs with `--json` and expects success.
    fn ok(&self, args: &[&str]) -> Value {
        let (reply, code) = self.run_json(args);
        assert_eq!(code, 0, "{reply}");
        assert_eq!(reply["ok"], json!(true), "{reply}");
        assert_eq!(reply["schema_version"], json!(1), "{reply}");
        reply
    }
}

/// Pretty JSON as serde_json (and Claude Code) writes it, with a trailing newline.
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

/// Key order matters: compare the compact texts, not the values.
fn assert_same_json(actual: &Value, expected: &Value) {
    assert_eq!(
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}

fn claude_cmd(state: &str, event: &str) -> String {
    format!("termio agent report {state} --agent claude --event {event} >/dev/null 2>&1 || true # termio-hooks v1")
}

fn ours(state: &str, event: &str, matcher: Option<&str>) -> Value {
    let mut group = serde_json::Map::new();
    if let Some(m) = matcher {
        group.insert("matcher".into(), json!(m));
    }
    group.insert(
        "hooks".into(),
        json!([{"type": "command", "command": claude_cmd(state, event), "timeout": 10}]),
    );
    Value::Object(group)
}

fn claude_settings() -> Value {
    json!({
        "$schema": "https://json.schemastore.org/claude-code-settings.json",
        "model": "opus",
        "permissions": {
            "allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"],
            "deny": ["Read(./.env)"]
        },
        "hooks": {
            "PreToolUse": [{
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/.claude/hooks/check-bash.sh", "timeout": 30}]
            }]
        },
        "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}
    })
}

fn set_old_mtime(path: &Path) -> SystemTime {
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(old).unwrap();
    old
}

fn mtime(path: &Path) -> SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn claude_install_merges_is_idempotent_and_uninstall_restores_the_bytes() {
    let home = Home::new();
    let original = pretty(&claude_settings());
    home.write(".claude/settings.json", &original);

    let reply = home.ok(&["hooks", "install", "--agent", "claude"]);
    assert_eq!(reply["action"], "install");
    assert_eq!(reply["agents"][0]["state"], "installed");
    assert_eq!(reply["agents"][0]["changed"], true);

    let mut expected = claude_settings();
    expected["hooks"]["PreToolUse"]
        .as_array_mut()
        .unwrap()
        .push(ours("working", "PreToolUse", Some("*")));
    let hooks = expected["hooks"].as_object_mut().unwrap();
    hooks.insert(
        "SessionStart".into(),
        json!([ours("idle", "SessionStart", None)]),
    );
    hooks.insert(
        "UserPromptSubmit".into(),
        json!([ours("working", "UserPromptSubmit", None)]),
    );
    hooks.insert(
        "PostToolUse".into(),
        json!([ours("working", "PostToolUse", Some("*"))]),
    );
    hooks.insert(
        "PermissionRequest".into(),
        json!([ours("needs-you", "PermissionRequest", Some("*"))]),
    );
    hooks.insert(
        "Notification".into(),
        json!([ours("auto", "Notification", None)]),
    );
    hooks.insert("Stop".into(), json!([ours("done", "Stop", None)]));
    hooks.insert(
        "StopFailure".into(),
        json!([ours("idle", "StopFailure", None)]),
    );
    assert_same_json(&home.json_file(".claude/settings.json"), &expected);

    let file = home.path(".claude/settings.json");
    let installed = home.read(".claude/settings.json");
    let old = set_old_mtime(&file);
    let reply = home.ok(&["hooks", "install", "--agent", "claude"]);
    assert_eq!(reply["agents"][0]["changed"], false);
    assert_eq!(home.read(".claude/settings.json"), installed, "same bytes");
    assert_eq!(mtime(&file), old, "not rewritten");

    let reply = home.ok(&["hooks", "uninstall", "--agent", "claude"]);
    assert_eq!(reply["agents"][0]["state"], "not-installed");
    assert_eq!(
        home.read(".claude/settings.json"),
        original,
        "byte-identical"
    );

    let old = set_old_mtime(&file);
    home.ok(&["hooks", "uninstall", "--agent", "claude"]);
    assert_eq!(mtime(&file), old, "nothing to remove, not rewritten");
}

#[test]
fn a_file_in_another_layout_round_trips_semantically() {
    let home = Home::new();
    let compact = claude_settings().to_string();
    home.write(".claude/settings.json", &compact);
    home.ok(&["hooks", "install", "--agent", "claude"]);
    home.ok(&["hooks", "uninstall", "--agent", "claude"]);
    assert_same_json(&home.json_file(".claude/settings.json"), &claude_settings());
}

#[test]
fn claude_config_dir_is_honoured() {
    let home = Home::new();
    let elsewhere = home.path("cfg/claude");
    let home = home.with_env("CLAUDE_CONFIG_DIR", elsewhere.to_str().unwrap());
    std::fs::create_dir_all(&elsewhere).unwrap();
    let reply = home.ok(&["hooks", "install"]);
    assert_eq!(
        reply["agents"][0]["path"],
        json!(elsewhere.join("settings.json"))
    );
    assert_eq!(
        home.json_file("cfg/claude/settings.json")["hooks"]["Stop"][0],
        ours("done", "Stop", None)
    );
    assert!(!home.path(".claude").exists());
}

#[test]
fn codex_hooks_merge_under_codex_home_keeping_four_space_layout() {
    let home = Home::new();
    let codex_home = home.path("codex-home");
    let home = home.with_env("CODEX_HOME", codex_home.to_str().unwrap());
    let original = "{\n    \"hooks\": {\n        \"Stop\": [\n            {\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"notify-send 'codex finished'\"\n                    }\n                ]\n            }\n        ]\n    }\n}\n";
    home.write("codex-home/hooks.json", original);

    home.ok(&["hooks", "install", "--agent", "codex"]);
    let doc = home.json_file("codex-home/hooks.json");
    let cmd = |state: &str, event: &str| {
        format!("termio agent report {state} --agent codex --event {event} >/dev/null 2>&1 || true # termio-hooks v1")
    };
    assert_same_json(
        &doc["hooks"]["Stop"],
        &json!([
            {"hooks": [{"type": "command", "command": "notify-send 'codex finished'"}]},
            {"hooks": [{"type": "command", "command": cmd("done", "Stop")}]}
        ]),
    );
    let events: Vec<&str> = doc["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        events,
        [
            "Stop",
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PermissionRequest"
        ]
    );
    assert_eq!(
        doc["hooks"]["PermissionRequest"],
        json!([{"matcher": "*", "hooks": [{"type": "command", "command": cmd("needs-you", "PermissionRequest")}]}])
    );
    assert!(
        home.read("codex-home/hooks.json")
            .contains("\n        \"Stop\""),
        "4-space indent kept"
    );
    assert!(
        !home.path(".codex").exists(),
        "CODEX_HOME replaces ~/.codex"
    );

    home.ok(&["hooks", "uninstall", "--agent", "codex"]);
    assert_eq!(home.read("codex-home/hooks.json"), original);
}

#[test]
fn codex_notify_is_set_in_config_toml_keeping_comments_and_removed_exactly() {
    let home = Home::new();
    let config = "# Codex settings\nmodel = \"gpt-5-codex\"  # fast enough\napproval_policy = \"on-request\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # local\n";
    home.write(".codex/config.toml", config);
    let reply = home.ok(&["hooks", "install", "--agent", "codex"]);
    assert_same_json(
        &reply["agents"][0]["notify"],
        &json!({"path": home.path(".codex/config.toml"), "state": "installed", "changed": true}),
    );
    let script = "printf '%s' \"$1\" | termio agent report done --agent codex --event agent-turn-complete >/dev/null 2>&1 || true # termio-hooks v1";
    let written = home.read(".codex/config.toml");
    let (head, tail) = written.split_once("notify = [").expect("notify added");
    assert_eq!(
        head,
        "# Codex settings\nmodel = \"gpt-5-codex\"  # fast enough\napproval_policy = \"on-request\"\n",
        "appended to the top-level keys, comments kept"
    );
    assert!(
        tail.ends_with("]\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # local\n"),
        "{written}"
    );
    let doc: toml_edit::DocumentMut = written.parse().unwrap();
    let argv: Vec<&str> = doc["notify"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(argv, ["sh", "-c", script, "termio-notify"]);

    // What Codex runs: argv plus one JSON argument, which reaches the reporter's stdin.
    let log = home.path("notify.log");
    let reporter = home.path("bin/fake-termio");
    home.write(
        "bin/fake-termio",
        &format!(
            "#!/bin/sh\necho \"$*\" > '{0}'\ncat >> '{0}'\necho noise\n",
            log.display()
        ),
    );
    std::fs::set_permissions(
        &reporter,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let argv: Vec<String> = {
        let mut argv = vec![
            "sh".to_string(),
            "-c".into(),
            script.replace("termio agent", &format!("{} agent", reporter.display())),
            "termio-notify".into(),
        ];
        argv.push("{\"type\":\"agent-turn-complete\"}".into());
        argv
    };
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .output()
        .unwrap();
    assert_eq!((out.status.code(), out.stdout.len()), (Some(0), 0));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "agent report done --agent codex --event agent-turn-complete\n{\"type\":\"agent-turn-complete\"}"
    );

    let file = home.path(".codex/config.toml");
    let old = set_old_mtime(&file);
    assert_eq!(
        home.ok(&["hooks", "install", "--agent", "codex"])["agents"][0]["notify"]["changed"],
        false
    );
    assert_eq!(mtime(&file), old);

    home.ok(&["hooks", "uninstall", "--agent", "codex"]);
    assert_eq!(
        home.read(".codex/config.toml"),
        config,
        "byte-identical, comments included"
    );
}

#[test]
fn a_users_codex_notify_stays_and_broken_toml_blocks_both_files() {
    let home = Home::new();
    let config = "notify = [\"notify-send\", \"Codex\"]\n";
    home.write(".codex/config.toml", config);
    let reply = home.ok(&["hooks", "install", "--agent", "codex"]);
    assert_eq!(reply["agents"][0]["notify"]["state"], "foreign");
    assert_eq!(
        reply["agents"][0]["state"], "installed",
        "hooks.json still gets its hooks"
    );
    home.ok(&["hooks", "uninstall", "--agent", "codex"]);
    assert_eq!(home.read(".codex/config.toml"), config);

    std::fs::remove_file(home.path(".codex/hooks.json")).unwrap();
    let broken = "model = \"gpt-5\"\nnotify = [\n";
    home.write(".codex/config.toml", broken);
    let (reply, code) = home.run_json(&["hooks", "install", "--agent", "codex"]);
    assert_eq!((code, reply["error"].as_str()), (1, Some("bad_config")));
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("config.toml: not valid TOML"),
        "{reply}"
    );
    assert_eq!(home.read(".codex/config.toml"), broken);
    assert!(
        !home.path(".codex/hooks.json").exists(),
        "nothing written when either file is refused"
    );
}

#[test]
fn cursor_entries_are_flat_keep_version_and_print_empty_json() {
    let home = Home::new();
    let original = pretty(&json!({
        "version": 1,
        "hooks": {"stop": [{"command": "./hooks/audit.sh"}]}
    }));
    home.write(".cursor/hooks.json", &original);
    home.ok(&["hooks", "install", "--agent", "cursor"]);
    let cmd = |state: &str, event: &str| {
        format!("termio agent report {state} --agent cursor --event {event} >/dev/null 2>&1; echo '{{}}' # termio-hooks v1")
    };
    assert_same_json(
        &home.json_file(".cursor/hooks.json"),
        &json!({
            "version": 1,
            "hooks": {
                "stop": [{"command": "./hooks/audit.sh"}, {"command": cmd("done", "stop")}],
                "beforeSubmitPrompt": [{"command": cmd("working", "beforeSubmitPrompt")}],
                "preToolUse": [{"command": cmd("working", "preToolUse")}],
                "postToolUse": [{"command": cmd("working", "postToolUse")}]
            }
        }),
    );
    home.ok(&["hooks", "uninstall", "--agent", "cursor"]);
    assert_eq!(home.read(".cursor/hooks.json"), original);
}

#[test]
fn a_new_cursor_file_gets_version_1() {
    let home = Home::new();
    home.ok(&["hooks", "install", "--agent", "cursor"]);
    let doc = home.json_file(".cursor/hooks.json");
    assert_eq!(
        doc.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["version", "hooks"]
    );
    assert_eq!(doc["version"], 1);
    assert!(
        home.read(".cursor/hooks.json").ends_with("}\n"),
        "a new file ends with a newline"
    );
}

#[test]
fn gemini_hooks_use_millisecond_timeouts_and_keep_other_settings() {
    let home = Home::new();
    let settings = json!({
        "general": {"vimMode": true},
        "ui": {"theme": "GitHub"},
        "mcpServers": {"github": {"command": "github-mcp", "args": ["stdio"]}},
        "hooks": {"AfterAgent": [{"hooks": [{"name": "log", "type": "command", "command": "log-turn.sh", "timeout": 5000}]}]}
    });
    let original = pretty(&settings);
    home.write(".gemini/settings.json", &original);
    home.ok(&["hooks", "install", "--agent", "gemini"]);
    let doc = home.json_file(".gemini/settings.json");
    let cmd = |state: &str, event: &str| {
        format!("termio agent report {state} --agent gemini --event {event} >/dev/null 2>&1 || true # termio-hooks v1")
    };
    let mut expected = settings.clone();
    expected["hooks"]["AfterAgent"].as_array_mut().unwrap().push(
        json!({"hooks": [{"type": "command", "command": cmd("done", "AfterAgent"), "timeout": 10000}]}),
    );
    let hooks = expected["hooks"].as_object_mut().unwrap();
    hooks.insert("BeforeAgent".into(), json!([{"hooks": [{"type": "command", "command": cmd("working", "BeforeAgent"), "timeout": 10000}]}]));
    hooks.insert("Notification".into(), json!([{"hooks": [{"type": "command", "command": cmd("auto", "Notification"), "timeout": 10000}]}]));
    assert_same_json(&doc, &expected);
    home.ok(&["hooks", "uninstall", "--agent", "gemini"]);
    assert_eq!(home.read(".gemini/settings.json"), original);
}

/// The installed command lines behave as the notes require when a shell runs them: silent (Cursor:
/// exactly `{}`), never failing, and the reporter gets its arguments and the hook's stdin.
#[test]
fn installed_commands_run_silently_and_reach_the_reporter() {
    let home = Home::new();
    let log = home.path("reports.log");
    let reporter = home.path("bin/fake-termio");
    home.write(
        "bin/fake-termio",
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\ncat >> '{}'\necho noise on stdout\necho noise on stderr >&2\nexit 7\n",
            log.display(),
            log.display()
        ),
    );
    std::fs::set_permissions(
        &reporter,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let home = home.with_env("TERMIO_HOOK_COMMAND", reporter.to_str().unwrap());
    home.ok(&["hooks", "install", "--agent", "claude"]);
    home.ok(&["hooks", "install", "--agent", "cursor"]);

    let run = |command: &str, stdin: &str| {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(stdin.as_bytes())?;
                child.wait_with_output()
            })
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let claude = home.json_file(".claude/settings.json");
    let stop = claude["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert_eq!(
        run(stop, "{\"hook_event_name\":\"Stop\"}"),
        (Some(0), String::new(), String::new())
    );
    let cursor = home.json_file(".cursor/hooks.json");
    let stop = cursor["hooks"]["stop"][0]["command"].as_str().unwrap();
    assert_eq!(
        run(stop, "{\"status\":\"completed\"}"),
        (Some(0), "{}\n".into(), String::new())
    );
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "agent report done --agent claude --event Stop\n{\"hook_event_name\":\"Stop\"}\
         agent report done --agent cursor --event stop\n{\"status\":\"completed\"}"
    );
}

#[test]
fn a_broken_file_is_refused_and_left_byte_identical_while_others_install() {
    let home = Home::new();
    let broken = "{\n  \"model\": \"opus\",\n  \"hooks\": {},\n}\n";
    home.write(".claude/settings.json", broken);
    home.write(".gemini/settings.json", "{}\n");
    let file = home.path(".claude/settings.json");
    let old = set_old_mtime(&file);
    let (reply, code) = home.run_json(&["hooks", "install"]);
    assert_eq!(code, 1);
    assert_eq!(reply["ok"], false);
    assert_eq!(reply["error"], "bad_config");
    assert_eq!(reply["schema_version"], 1);
    let message = reply["message"].as_str().unwrap();
    assert!(
        message.contains("settings.json") && message.contains("left untouched"),
        "{message}"
    );
    assert_eq!(home.read(".claude/settings.json"), broken);
    assert_eq!(mtime(&file), old);
    let agents = reply["agents"].as_array().unwrap();
    assert_eq!(agents[0]["error"], "bad_config");
    assert_eq!(agents[3]["agent"], "gemini");
    assert_eq!(
        agents[3]["state"], "installed",
        "the other agents still get their hooks"
    );

    let (_, code) = home.run_json(&["hooks", "uninstall", "--agent", "claude"]);
    assert_eq!(code, 1);
    assert_eq!(home.read(".claude/settings.json"), broken);

    let out = home
        .cmd(&["hooks", "install", "--agent", "claude"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("termio: error:"));
}

#[test]
fn jsonc_and_wrong_shapes_are_refused_with_a_reason() {
    let home = Home::new();
    let jsonc = "{\n  // my settings\n  \"model\": \"opus\"\n}\n";
    home.write(".claude/settings.json", jsonc);
    let (reply, code) = home.run_json(&["hooks", "install", "--agent", "claude"]);
    assert_eq!((code, reply["error"].as_str()), (1, Some("bad_config")));
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("comments are not supported"),
        "{reply}"
    );
    assert_eq!(home.read(".claude/settings.json"), jsonc);

    for (text, reason) in [
        ("[1, 2]\n", "top level is not a JSON object"),
        ("{\"hooks\": []}\n", "\"hooks\" is not an object"),
        (
            "{\"hooks\": {\"Stop\": {}}}\n",
            "\"hooks.Stop\" is not an array",
        ),
    ] {
        home.write(".claude/settings.json", text);
        let (reply, code) = home.run_json(&["hooks", "install", "--agent", "claude"]);
        assert_eq!(code, 1);
        assert!(
            reply["message"].as_str().unwrap().contains(reason),
            "{reply}"
        );
        assert_eq!(home.read(".claude/settings.json"), text);
    }
}

#[test]
fn agent_filter_and_missing_config_folders() {
    let home = Home::new();
    home.write(".claude/settings.json", "{}\n");
    home.write(
        ".cursor/hooks.json",
        &pretty(&json!({"version": 1, "hooks": {}})),
    );

    let reply = home.ok(&["hooks", "install", "--agent", "cursor"]);
    assert_eq!(reply["agents"].as_array().unwrap().len(), 1);
    assert_eq!(
        home.read(".claude/settings.json"),
        "{}\n",
        "other agents untouched"
    );

    let reply = home.ok(&["hooks", "install"]);
    let skipped: Vec<(&str, bool)> = reply["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["agent"].as_str().unwrap(),
                a["skipped"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        skipped,
        [
            ("claude", false),
            ("codex", true),
            ("cursor", false),
            ("gemini", true)
        ]
    );
    assert!(!home.path(".codex").exists() && !home.path(".gemini").exists());

    home.ok(&["hooks", "install", "--agent", "gemini-cli"]);
    assert!(
        home.path(".gemini/settings.json").exists(),
        "a named agent's folder is created"
    );

    let (reply, code) = home.run_json(&["hooks", "install", "--agent", "vim"]);
    assert_eq!(code, 1);
    assert_same_json(
        &reply,
        &json!({"ok": false, "error": "bad_agent",
            "message": "unknown agent 'vim' (known: claude, codex, cursor, gemini)", "schema_version": 1}),
    );
}

#[test]
fn uninstall_removes_only_fingerprinted_entries() {
    let home = Home::new();
    let settings = json!({
        "hooks": {
            "Stop": [{"hooks": [
                {"type": "command", "command": "say done"},
                {"type": "command", "command": "termio agent report done --event Stop # termio-hooks v0"}
            ]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": "termio agent report idle  # termio-hooks v0"}]}],
            "PreCompact": []
        }
    });
    home.write(".claude/settings.json", &pretty(&settings));
    home.ok(&["hooks", "uninstall", "--agent", "claude"]);
    assert_same_json(
        &home.json_file(".claude/settings.json"),
        &json!({"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
            "PreCompact": []
        }}),
    );
}

#[test]
fn status_reports_each_agent() {
    let home = Home::new();
    home.write(".claude/settings.json", &pretty(&claude_settings()));
    home.write(".cursor/hooks.json", "{ nope");
    let reply = home.ok(&["hooks", "status"]);
    assert_eq!(reply["action"], "status");
    let agents = reply["agents"].as_array().unwrap();
    assert_same_json(
        &agents[0],
        &json!({"agent": "claude", "path": home.path(".claude/settings.json"), "config_dir_exists": true,
            "state": "not-installed", "changed": false, "skipped": false}),
    );
    assert_eq!(agents[1]["config_dir_exists"], false);
    assert_eq!(
        agents[2]["error"], "bad_config",
        "a parse error is reported, exit 0"
    );
    assert!(agents[2].get("state").is_none());

    home.ok(&["hooks", "install", "--agent", "claude"]);
    assert_eq!(
        home.ok(&["hooks", "status", "--agent", "claude"])["agents"][0]["state"],
        "installed"
    );

    // Remove one of ours by hand: partial; install repairs it without duplicates.
    let mut doc = home.json_file(".claude/settings.json");
    doc["hooks"].as_object_mut().unwrap().shift_remove("Stop");
    home.write(".claude/settings.json", &pretty(&doc));
    assert_eq!(
        home.ok(&["hooks", "status", "--agent", "claude"])["agents"][0]["state"],
        "partial"
    );
    home.ok(&["hooks", "install", "--agent", "claude"]);
    assert_eq!(
        home.ok(&["hooks", "status", "--agent", "claude"])["agents"][0]["state"],
        "installed"
    );
    assert_eq!(
        home.json_file(".claude/settings.json")["hooks"]["PreToolUse"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // Another reporting program: partial until reinstalled.
    let other = Home {
        dir: home.dir,
        env: vec![("TERMIO_HOOK_COMMAND", "/opt/termio/bin/termio".into())],
    };
    assert_eq!(
        other.ok(&["hooks", "status", "--agent", "claude"])["agents"][0]["state"],
        "partial"
    );

    let out = other.cmd(&["hooks", "status"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("claude  partial"), "{text}");
}

fn skill_files(home: &Home) -> [PathBuf; 3] {
    [
        home.path("cfg/claude/skills/termio/SKILL.md"),
        home.path("cfg/codex/skills/termio/SKILL.md"),
        home.path(".agents/skills/termio/SKILL.md"),
    ]
}

fn skill_home() -> Home {
    let home = Home::new();
    let claude = home.path("cfg/claude");
    let codex = home.path("cfg/codex");
    home.with_env("CLAUDE_CONFIG_DIR", claude.to_str().unwrap())
        .with_env("CODEX_HOME", codex.to_str().unwrap())
}

#[test]
fn skill_install_print_uninstall() {
    let home = skill_home();
    let printed = home.cmd(&["skill", "print"]).output().unwrap();
    assert!(printed.status.success());
    let text = String::from_utf8(printed.stdout).unwrap();
    assert!(
        text.starts_with("---\nname: termio\ndescription: "),
        "{text}"
    );
    assert_eq!(home.ok(&["skill", "print"])["content"], json!(text));

    let reply = home.ok(&["skill", "install"]);
    let states: Vec<(&str, &str, bool)> = reply["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["home"].as_str().unwrap(),
                s["state"].as_str().unwrap(),
                s["changed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("claude", "installed", true),
            ("codex", "installed", true),
            ("agents", "installed", true)
        ]
    );
    for file in skill_files(&home) {
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            text,
            "{}",
            file.display()
        );
    }
    assert!(!home.path(".claude").exists() && !home.path(".codex").exists());

    let old = set_old_mtime(&skill_files(&home)[0]);
    let reply = home.ok(&["skill", "install"]);
    assert!(reply["skills"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["changed"] == false));
    assert_eq!(mtime(&skill_files(&home)[0]), old);

    home.ok(&["skill", "uninstall"]);
    for file in skill_files(&home) {
        assert!(
            !file.parent().unwrap().exists(),
            "{} removed",
            file.display()
        );
        assert!(
            file.parent().unwrap().parent().unwrap().exists(),
            "the skills folder stays"
        );
    }
    let reply = home.ok(&["skill", "status"]);
    assert!(reply["skills"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["state"] == "not-installed"));
}

#[test]
fn hand_edits_heal_and_foreign_skills_are_left_alone() {
    let home = skill_home();
    home.ok(&["skill", "install"]);
    let [claude, codex, agents] = skill_files(&home);
    let ours = std::fs::read_to_string(&claude).unwrap();

    // A hand edit that keeps the fingerprint is ours: reassert heals it.
    std::fs::write(&claude, ours.replace("Signal, never kill", "Kill at will")).unwrap();
    assert_eq!(
        home.ok(&["skill", "status"])["skills"][0]["state"],
        "outdated"
    );
    let reply = home.ok(&["skill", "reassert"]);
    assert_eq!(reply["skills"][0]["changed"], true);
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), ours);
    let reply = home.ok(&["skill", "reassert"]);
    assert!(
        reply["skills"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["changed"] == false),
        "idempotent"
    );

    // Reassert installs nothing new: an uninstalled copy stays uninstalled.
    std::fs::remove_file(&agents).unwrap();
    home.ok(&["skill", "reassert"]);
    assert!(!agents.exists());

    // `skill install` heals too.
    std::fs::write(&codex, ours.replace("termio sessions", "termio session")).unwrap();
    home.ok(&["skill", "install"]);
    assert_eq!(std::fs::read_to_string(&codex).unwrap(), ours);

    // A foreign `termio` skill (no fingerprint) is never overwritten or removed.
    let foreign = "---\nname: termio\ndescription: my own notes\n---\n\nHands off.\n";
    std::fs::write(&claude, foreign).unwrap();
    std::fs::write(claude.with_file_name("extra.md"), "mine").unwrap();
    let reply = home.ok(&["skill", "install"]);
    assert_eq!(reply["skills"][0]["state"], "foreign");
    home.ok(&["skill", "reassert"]);
    home.ok(&["skill", "uninstall"]);
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), foreign);
    assert!(claude.with_file_name("extra.md").exists());
    assert!(!codex.exists());

    // Our SKILL.md next to a file of the user's: only SKILL.md goes.
    std::fs::remove_file(&claude).unwrap();
    home.ok(&["skill", "install"]);
    home.ok(&["skill", "uninstall"]);
    assert!(!claude.exists());
    assert_eq!(
        std::fs::read_to_string(claude.with_file_name("extra.md")).unwrap(),
        "mine"
    );
}

impl Home {
    /// `termio <args>` as [`Home::cmd`] runs it, with a private host (runtime dir `rt` under
    /// HOME) and XDG dirs under HOME; a std command, so it can be spawned.
    fn host_cmd(&self, rt: &str, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_termio"));
        cmd.args(args)
            .env("HOME", self.dir.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("TERMIO_HOOK_COMMAND");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd.current_dir(self.dir.path())
            .env("CONSOLE2SVG_RUNTIME_DIR", self.path(rt))
            .env("CONSOLE2SVG_HOST_IDLE_SECS", "3")
            .env("XDG_CONFIG_HOME", self.path("xdg-config"))
            .env("XDG_STATE_HOME", self.path("xdg-state"))
            .env("SHELL", "bash")
            .env_remove("TERMIO_SESSION")
            .env_remove("TERMIO_PROJECT");
        cmd
    }
}

#[test]
fn a_host_start_heals_the_skill_while_session_control_is_on() {
    let home = skill_home();
    home.ok(&["skill", "install"]);
    let [claude, codex, agents] = skill_files(&home);
    let ours = std::fs::read_to_string(&claude).unwrap();
    let edited = ours.replace("Signal, never kill", "Kill at will");
    std::fs::write(&claude, &edited).unwrap();
    std::fs::write(&codex, &edited).unwrap();
    std::fs::remove_file(&agents).unwrap();

    // Session control off: the host starts and leaves the skill alone.
    home.write("xdg-config/termio/config.yaml", "session_control: false\n");
    let rt = home.path("rt-off");
    std::fs::create_dir_all(&rt).unwrap();
    let mut host = home
        .host_cmd("rt-off", &["__host"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while common::host_pid(&rt).is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the host never answered"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = host.kill();
    let _ = host.wait();
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), edited);

    // Session control on (the default): starting the host on demand heals the edited copies. A
    // removed copy stays removed: it cannot be told from an uninstall.
    std::fs::remove_file(home.path("xdg-config/termio/config.yaml")).unwrap();
    let out = home
        .host_cmd("rt-on", &["sessions", "list", "--json"])
        .output()
        .unwrap();
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reply["ok"], true, "{reply}");
    let pid = common::host_pid(&home.path("rt-on"));
    if let Some(pid) = pid {
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
    }
    assert!(pid.is_some(), "a host was started");
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), ours);
    assert_eq!(std::fs::read_to_string(&codex).unwrap(), ours);
    assert!(!agents.exists());
    assert!(home.ok(&["skill", "status"])["skills"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["state"] != "outdated"));
}

/// One skills folder that cannot be written (its `skills` is a file) neither stops nor hides
/// the others: they are installed, the reply is the error shape with every folder's result,
/// exit 1.
#[test]
fn a_failing_skills_folder_does_not_stop_the_others() {
    let home = skill_home();
    home.write("cfg/codex/skills", "not a folder");
    let (reply, code) = home.run_json(&["skill", "install"]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(reply["ok"], json!(false));
    assert_eq!(reply["error"], json!("io_error"), "{reply}");
    let skills = reply["skills"].as_array().expect("every folder listed");
    assert_eq!(skills.len(), 3, "{reply}");
    assert_eq!(skills[1]["error"], json!("io_error"), "{reply}");
    let [claude, _, agents] = skill_files(&home);
    assert!(claude.is_file() && agents.is_file(), "{reply}");
    let keys: Vec<&String> = reply.as_object().unwrap().keys().collect();
    assert_eq!(keys.last().unwrap().as_str(), "schema_version");
}
