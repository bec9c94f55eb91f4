//! Reading agents' JSONL transcripts (spec: "Transcript as truth"): line counts for `cursor`,
//! and the tests that tell a turn's response lines from its prompt lines. Lines are counted
//! 1-based and only when complete (ended by `\n`): a line being written does not count yet.
//! A range `cursor..cursor_end` means lines `cursor + 1` to `cursor_end`, i.e. skip `cursor`
//! lines and read up to line `cursor_end`.

use std::path::Path;

use serde_json::Value;

/// Complete lines in the file now (0 when it does not exist yet).
pub fn line_count(path: &Path) -> u64 {
    std::fs::read(path)
        .map(|b| memchr::memchr_iter(b'\n', &b).count() as u64)
        .unwrap_or(0)
}

/// Complete lines `from + 1 ..= to` (fewer when the file is shorter).
pub fn lines(path: &Path, from: u64, to: u64) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let complete = match text.rfind('\n') {
        Some(i) => &text[..i],
        None => "",
    };
    complete
        .split('\n')
        .skip(from as usize)
        .take(to.saturating_sub(from) as usize)
        .map(str::to_string)
        .collect()
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or(Value::Null)
}

fn role(v: &Value) -> Option<&str> {
    v.pointer("/message/role")
        .or_else(|| v.pointer("/payload/role"))
        .and_then(Value::as_str)
}

/// Whether a line belongs to the prompt side of a turn rather than its response: the user's
/// message (Claude `type: user` with text content, Codex `role: user` items and `user_message`
/// events) or bookkeeping (Codex `session_meta`, `turn_context`).
pub fn is_prompt_line(line: &str) -> bool {
    let v = parse(line);
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    let payload_kind = v.pointer("/payload/type").and_then(Value::as_str);
    if matches!(kind, "session_meta" | "turn_context") || payload_kind == Some("user_message") {
        return true;
    }
    let user = kind == "user" || role(&v) == Some("user");
    // A Claude tool result is a `user` line too, but it is part of the response.
    let tool_result = v
        .pointer("/message/content")
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter()
                .any(|p| p.get("type").and_then(Value::as_str) == Some("tool_result"))
        });
    user && !tool_result
}

/// Whether a line is (part of) an assistant message (Claude `type: assistant`, Codex
/// `role: assistant` items and `agent_message` events, Gemini `type: gemini`).
pub fn is_assistant_line(line: &str) -> bool {
    let v = parse(line);
    // Gemini CLI writes its replies as `type: gemini`.
    matches!(
        v.get("type").and_then(Value::as_str),
        Some("assistant" | "gemini")
    ) || role(&v) == Some("assistant")
        || v.pointer("/payload/type").and_then(Value::as_str) == Some("agent_message")
}

/// Whether the line is a prompt line ([`is_prompt_line`]) whose text ends with the line
/// `last` exactly: some string inside it has `last` (trimmed) as its last non-empty line. How
/// a turn finds its own prompt in a transcript ("fix bug" is not "please fix bug").
pub fn is_prompt_for(line: &str, last: &str) -> bool {
    fn walk(v: &Value, t: &str) -> bool {
        match v {
            Value::String(s) => s.lines().map(str::trim).rfind(|l| !l.is_empty()) == Some(t),
            Value::Array(a) => a.iter().any(|x| walk(x, t)),
            Value::Object(o) => o.values().any(|x| walk(x, t)),
            _ => false,
        }
    }
    let t = last.trim();
    !t.is_empty() && is_prompt_line(line) && walk(&parse(line), t)
}

/// Whether any string inside the line's JSON contains `text` (whitespace-trimmed).
pub fn contains_text(line: &str, text: &str) -> bool {
    fn walk(v: &Value, t: &str) -> bool {
        match v {
            Value::String(s) => s.contains(t),
            Value::Array(a) => a.iter().any(|x| walk(x, t)),
            Value::Object(o) => o.values().any(|x| walk(x, t)),
            _ => false,
        }
    }
    let t = text.trim();
    !t.is_empty() && walk(&parse(line), t)
}

/// How a turn ended when its transcript says it did not finish normally (see [`turn_end`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    /// The turn failed (an API error): the agent's error text.
    Failed(String),
    /// The user interrupted the turn (Escape, Ctrl-C): what the agent recorded.
    Interrupted(String),
}

/// The end of a turn a transcript line records, if the line says the turn failed or was
/// interrupted (seen on the real programs: shared/notes/agents.md):
///
/// - Codex 0.171.0: an `event_msg` `task_complete` with an `error` (its `message`), an
///   `error` event, a `turn_aborted` event (its `reason`);
/// - Gemini CLI 0.61.0: a `type: error` line (its `content`), an `info` line
///   `Request cancelled.`;
/// - Claude Code 2.1.197: an assistant line marked `isApiErrorMessage`, a user line
///   `[Request interrupted by user…]`.
pub fn turn_end(line: &str) -> Option<TurnEnd> {
    let v = parse(line);
    let s = |p: &str| {
        v.pointer(p)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
    };
    let kind = s("/type").unwrap_or("");
    match (kind, s("/payload/type")) {
        ("event_msg", Some("task_complete")) => {
            s("/payload/error/message").map(|m| TurnEnd::Failed(m.to_string()))
        }
        ("event_msg", Some("error")) => Some(TurnEnd::Failed(
            s("/payload/message").unwrap_or("error").into(),
        )),
        ("event_msg", Some("turn_aborted")) => Some(TurnEnd::Interrupted(format!(
            "turn aborted ({})",
            s("/payload/reason").unwrap_or("interrupted")
        ))),
        ("error", _) => Some(TurnEnd::Failed(s("/content").unwrap_or("error").into())),
        ("info", _) => s("/content")
            .filter(|c| c.to_lowercase().contains("request cancelled"))
            .map(|c| TurnEnd::Interrupted(c.to_string())),
        ("assistant", _) if v.get("isApiErrorMessage") == Some(&Value::Bool(true)) => {
            Some(TurnEnd::Failed(message_text(&v)))
        }
        ("user", _) => {
            let t = message_text(&v);
            t.starts_with("[Request interrupted by user")
                .then_some(TurnEnd::Interrupted(t))
        }
        _ => None,
    }
}

/// The text of a transcript line's message: a string content, or its text parts joined.
fn message_text(v: &Value) -> String {
    let content = v
        .pointer("/message/content")
        .or_else(|| v.pointer("/payload/content"))
        .or_else(|| v.get("content"));
    match content {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string(),
        _ => String::new(),
    }
}

/// The reply text of an assistant line (Claude `type: assistant` text parts, Codex
/// `role: assistant` message items, Gemini `type: gemini` content); `None` for other lines
/// and replies without text (a tool call).
pub fn assistant_text(line: &str) -> Option<String> {
    let v = parse(line);
    let kind = v.get("type").and_then(Value::as_str);
    let reply = matches!(kind, Some("assistant" | "gemini"))
        || v.pointer("/payload/type").and_then(Value::as_str) == Some("message")
            && role(&v) == Some("assistant");
    Some(message_text(&v)).filter(|t| reply && !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_and_response_lines_are_told_apart() {
        let user = r#"{"type":"user","message":{"role":"user","content":"go"}}"#;
        let tool =
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result"}]}}"#;
        let asst = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"FINAL"}]}}"#;
        assert!(is_prompt_line(user) && !is_assistant_line(user));
        assert!(!is_prompt_line(tool));
        assert!(is_assistant_line(asst) && !is_prompt_line(asst));
        assert!(contains_text(asst, " FINAL\n") && !contains_text(asst, "nope"));
        let codex = r#"{"type":"response_item","payload":{"type":"message","role":"user"}}"#;
        assert!(is_prompt_line(codex));
    }

    #[test]
    fn failed_and_interrupted_turns_are_read_from_the_transcripts() {
        use TurnEnd::{Failed, Interrupted};
        let codex_failed = r#"{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":null,"error":{"message":"boom"}}}"#;
        let codex_done =
            r#"{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":"ok"}}"#;
        let codex_aborted =
            r#"{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}"#;
        let gemini_error = r#"{"type":"error","content":"[API Error: 400]"}"#;
        let gemini_cancel = r#"{"type":"info","content":"Request cancelled."}"#;
        let gemini_info = r#"{"type":"info","content":"This request failed."}"#;
        let claude_error = r#"{"type":"assistant","isApiErrorMessage":true,"message":{"role":"assistant","content":[{"type":"text","text":"API Error: 500"}]}}"#;
        let claude_cancel = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#;
        assert_eq!(turn_end(codex_failed), Some(Failed("boom".into())));
        assert_eq!(turn_end(codex_done), None);
        assert_eq!(
            turn_end(codex_aborted),
            Some(Interrupted("turn aborted (interrupted)".into()))
        );
        assert_eq!(
            turn_end(gemini_error),
            Some(Failed("[API Error: 400]".into()))
        );
        assert_eq!(
            turn_end(gemini_cancel),
            Some(Interrupted("Request cancelled.".into()))
        );
        assert_eq!(turn_end(gemini_info), None);
        assert_eq!(
            turn_end(claude_error),
            Some(Failed("API Error: 500".into()))
        );
        assert_eq!(
            turn_end(claude_cancel),
            Some(Interrupted("[Request interrupted by user]".into()))
        );
    }

    #[test]
    fn assistant_replies_are_read_from_the_transcripts() {
        let claude = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Which one?"}]}}"#;
        let tool = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use"}]}}"#;
        let codex = r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Sure?"}]}}"#;
        let gemini = r#"{"type":"gemini","content":"Go on? [y/N]"}"#;
        let user = r#"{"type":"user","message":{"role":"user","content":"go"}}"#;
        assert_eq!(assistant_text(claude).as_deref(), Some("Which one?"));
        assert_eq!(assistant_text(tool), None);
        assert_eq!(assistant_text(codex).as_deref(), Some("Sure?"));
        assert_eq!(assistant_text(gemini).as_deref(), Some("Go on? [y/N]"));
        assert_eq!(assistant_text(user), None);
    }

    #[test]
    fn only_complete_lines_count() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.jsonl");
        assert_eq!(line_count(&p), 0);
        std::fs::write(&p, "a\nb\nc").unwrap();
        assert_eq!(line_count(&p), 2);
        assert_eq!(lines(&p, 1, 5), ["b"]);
    }
}
