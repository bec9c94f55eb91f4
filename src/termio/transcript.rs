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
    fn only_complete_lines_count() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.jsonl");
        assert_eq!(line_count(&p), 0);
        std::fs::write(&p, "a\nb\nc").unwrap();
        assert_eq!(line_count(&p), 2);
        assert_eq!(lines(&p, 1, 5), ["b"]);
    }
}
