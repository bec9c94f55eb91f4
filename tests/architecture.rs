//! The layers go one way (DESIGN.md, "Module map"): `term` <- `render` <- `host` <-
//! `termio`/`scenario` <- `cli`. This test reads the source text of the lower layers and
//! fails, naming file and line, when one of them imports a module above it: `host` never
//! imports `termio` or `mcp`; `term` imports nothing above it; `render` never imports
//! `host`, `pty`, `termio`, `scenario`, `cli`, `capture` or `mcp`; `recording` (timed output,
//! frames, asciicast, encoding) sits above `term` and beside `render`, and never imports
//! `host`, `termio`, `scenario`, `cli`, `capture` or `mcp`; `mask` (which works on a `Screen`)
//! imports only `term`, and so does `tmux` (reading a tmux pane into a `Screen`).
//!
//! An import is any path to the module from the crate root: `crate::termio…`, `super::…`
//! climbing to the root then `termio` (`super::super::termio` from `src/host/x.rs`), or the
//! module inside a grouped `use crate::{…}`. Comments and string literals do not count.

use std::path::{Path, PathBuf};

/// One layer rule: no file under `dir` (relative to the crate root) may import `forbidden`.
struct Rule {
    dir: &'static str,
    forbidden: &'static [&'static str],
}

const RULES: &[Rule] = &[
    Rule {
        dir: "src/host",
        forbidden: &["termio", "mcp", "live"],
    },
    Rule {
        dir: "src/term",
        forbidden: &[
            "host", "pty", "render", "termio", "scenario", "cli", "capture", "mcp", "live",
        ],
    },
    Rule {
        dir: "src/recording",
        forbidden: &[
            "host", "termio", "scenario", "cli", "capture", "mcp", "live",
        ],
    },
    Rule {
        dir: "src/mask",
        forbidden: &[
            "host", "pty", "render", "termio", "scenario", "cli", "capture", "mcp", "live",
        ],
    },
    Rule {
        dir: "src/tmux.rs",
        forbidden: &[
            "host", "pty", "render", "termio", "scenario", "cli", "capture", "mcp",
        ],
    },
    Rule {
        dir: "src/render",
        forbidden: &[
            "host", "pty", "termio", "scenario", "cli", "capture", "mcp", "live",
        ],
    },
];

/// The `.rs` files under `dir` (or `dir` itself, a file module), sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    if dir.is_file() {
        return vec![dir.to_path_buf()];
    }
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// How many `super::` reach the crate root from the file at `rel` (`src/host/events.rs`: 2,
/// `src/host/mod.rs`: 1).
fn depth(rel: &Path) -> usize {
    let parts: Vec<String> = rel
        .strip_prefix("src")
        .unwrap_or(rel)
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    match parts.last().map(String::as_str) {
        Some("mod.rs") | Some("lib.rs") => parts.len() - 1,
        _ => parts.len(),
    }
}

/// The source with comments and the contents of string and char literals blanked (newlines
/// kept, so line numbers stay).
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut nesting = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    nesting += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    nesting -= 1;
                    out.push_str("  ");
                    i += 2;
                    if nesting == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && matches!(next, Some('"') | Some('#'))
            && !chars
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#, …
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.extend(std::iter::repeat_n(' ', j + 1 - i));
            i = j + 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    out.extend(std::iter::repeat_n(' ', hashes + 1));
                    i += hashes + 1;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\u{1F600}'); a lifetime has no closing quote.
            let end = (i + 2..chars.len())
                .find(|&k| chars[k] == '\'')
                .unwrap_or(i);
            out.extend(std::iter::repeat_n(' ', end + 1 - i));
            i = end + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether `text` at byte `at` starts the identifier `name` as a whole word.
fn word_at(text: &str, at: usize, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text[at..].starts_with(name) && !text[at + name.len()..].starts_with(ident)
}

/// Skips whitespace from byte `at`.
fn skip_space(text: &str, at: usize) -> usize {
    at + (text[at..].len() - text[at..].trim_start().len())
}

/// Where the path after `at` continues past `prefix` (segments separated by `::`, spaces
/// allowed), if it starts with it.
fn after_segments(text: &str, mut at: usize, prefix: &[&str]) -> Option<usize> {
    for seg in prefix {
        at = skip_space(text, at);
        if !word_at(text, at, seg) {
            return None;
        }
        at = skip_space(text, at + seg.len());
        if !text[at..].starts_with("::") {
            return None;
        }
        at += 2;
    }
    Some(skip_space(text, at))
}

/// The first path segment of every top-level item of the `{…}` group starting at `open`.
fn group_heads(text: &str, open: usize) -> Vec<(usize, String)> {
    let mut heads = Vec::new();
    let mut nesting = 0;
    let mut item_start = true;
    for (k, c) in text[open..].char_indices() {
        let at = open + k;
        match c {
            '{' => {
                nesting += 1;
                if nesting == 1 {
                    item_start = true;
                }
            }
            '}' => {
                nesting -= 1;
                if nesting == 0 {
                    break;
                }
            }
            ',' if nesting == 1 => item_start = true,
            c if nesting == 1 && item_start && (c.is_alphanumeric() || c == '_') => {
                let name: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                heads.push((at, name));
                item_start = false;
            }
            c if !c.is_whitespace() && nesting == 1 => item_start = false,
            _ => {}
        }
    }
    heads
}

/// The imports of `forbidden` modules in `source` (a file `depth` modules below the crate
/// root): `(line, module)`.
fn offences(source: &str, depth: usize, forbidden: &[&str]) -> Vec<(usize, String)> {
    let code = code_only(source);
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut roots: Vec<Vec<&str>> = vec![vec!["crate"]];
    if depth > 0 {
        roots.push(vec!["super"; depth]);
    }
    let mut found = Vec::new();
    for (at, c) in code.char_indices() {
        if c != 'c' && c != 's' {
            continue; // Paths from the root start with `crate` or `super`.
        }
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue; // Inside a word or a longer path.
        }
        for root in &roots {
            let Some(rest) = after_segments(&code, at, root) else {
                continue;
            };
            if code[rest..].starts_with('{') {
                for (head_at, head) in group_heads(&code, rest) {
                    if forbidden.contains(&head.as_str()) {
                        found.push((line_of(head_at), head));
                    }
                }
            } else if let Some(m) = forbidden.iter().find(|m| word_at(&code, rest, m)) {
                found.push((line_of(at), m.to_string()));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn lower_layers_never_import_upper_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut report = Vec::new();
    for rule in RULES {
        for file in rust_files(&root.join(rule.dir)) {
            let rel = file.strip_prefix(root).expect("under the crate root");
            let source = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let lines: Vec<&str> = source.lines().collect();
            for (line, module) in offences(&source, depth(rel), rule.forbidden) {
                report.push(format!(
                    "{}:{line}: imports `{module}` ({} must not): {}",
                    rel.display(),
                    rule.dir,
                    lines.get(line - 1).map_or("", |l| l.trim())
                ));
            }
        }
    }
    assert!(
        report.is_empty(),
        "layer violations (term <- render <- host <- termio/scenario <- cli):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_scanner_finds_every_form_and_ignores_comments_and_strings() {
    let forbidden = &["termio", "mcp"];
    let source = r##"//! Mentions crate::termio in a doc comment.
use crate::termio::link;
use super::super::termio;
use crate::{host::events, termio::project::Registry};
use crate::{
    mcp,
    term::{self, Screen},
};
fn f() {
    let _ = crate :: termio :: wire::OP;
    let s = "crate::termio::x";
    /* crate::termio in a block comment */
    let c = '"'; let _ = crate::termio_like::x;
    super::termio::x(); // host's own child module, not the crate's
    let r = r#"crate::mcp"#;
}
"##;
    assert_eq!(
        offences(source, 2, forbidden),
        [
            (2, "termio".to_string()),
            (3, "termio".to_string()),
            (4, "termio".to_string()),
            (6, "mcp".to_string()),
            (10, "termio".to_string()),
        ]
    );
    assert_eq!(
        offences("use super::termio;\n", 1, forbidden),
        [(1, "termio".to_string())],
        "from a mod.rs one super reaches the root"
    );
    assert_eq!(depth(Path::new("src/host/events.rs")), 2);
    assert_eq!(depth(Path::new("src/host/mod.rs")), 1);
    assert_eq!(depth(Path::new("src/termio/status/agent.rs")), 3);
}
