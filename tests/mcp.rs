//! `console2svg mcp` driven by a real MCP client: the official Python MCP SDK's stdio client
//! (`mcp` on PyPI) runs `tests/mcp/client.py` against the built binary and a private host.
//! The script initialises, lists the tools (each input schema checked as JSON Schema), drives
//! vim through a session (start, send, wait, read, capture as a PNG of the CLI's size, stop),
//! triggers `session_not_found`, `unsupported_key`, `wait_timeout`, `invalid_condition`,
//! `session_not_started`, `session_exited` and
//! `invalid_request`, sends a malformed call, reads and subscribes to the screen resource
//! (an update arrives after a send), drives termio's verbs (run, read, send, close, and
//! `not_found`), and has a second client disconnect mid-wait while the session lives on.
//!
//! Python: `CONSOLE2SVG_MCP_PYTHON`, else `<target dir>/mcp-venv/bin/python` (what `.ci/run`
//! makes). Without it the test is skipped with a note, except under `CI=true`, where it fails.

mod common;

use std::path::PathBuf;
use std::process::Command;

/// The Python with the MCP SDK, or `None`.
fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CONSOLE2SVG_MCP_PYTHON").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        common::repo().join(target)
    };
    // The target dir's venv, else the repository's `target/` one (the README makes it there).
    [target, common::repo().join("target")]
        .into_iter()
        .map(|t| t.join("mcp-venv/bin/python"))
        .find(|p| p.is_file())
}

#[test]
fn the_python_sdk_client_drives_sessions_through_mcp() {
    let Some(python) = python() else {
        let how = "make it with: python3 -m venv target/mcp-venv && \
                   target/mcp-venv/bin/pip install mcp==2.3.0 jsonschema (or set CONSOLE2SVG_MCP_PYTHON)";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("no Python with the MCP SDK: {how}");
        }
        eprintln!("skipped: no Python with the MCP SDK; {how}");
        return;
    };
    let host = common::session::Host::new();
    let out = Command::new(&python)
        .arg(common::repo().join("tests/mcp/client.py"))
        .arg(env!("CARGO_BIN_EXE_console2svg"))
        .arg(host.dir.path())
        .env("CONSOLE2SVG_RUNTIME_DIR", host.rt())
        .env("CONSOLE2SVG_HOST_IDLE_SECS", "3")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "the MCP client failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
}
