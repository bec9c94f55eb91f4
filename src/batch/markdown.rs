//! Reading `batch markdown` markers out of a Markdown or MDX text, and rewriting the image
//! link that follows each one.
//!
//! Facts (shared/spec/console2svg-contract.md, "batch marker syntax"):
//! - Markers are HTML comments `<!-- c2s:: … -->` / `<!-- console2svg:: … -->` or MDX comments
//!   `{/* c2s:: … */}`, starting a line (indentation allowed); markers inside fenced code blocks
//!   are ignored.
//! - The marker's first line is `[capture options] -- <command>`, split at the first standalone
//!   `--` (quotes `"`/`'` respected); the lines after it, up to the comment's end, are an
//!   optional YAML body (see [`super::Body`]).
//! - Fences may be tagged ```` ```lang c2s-id=<id> ```` (`[A-Za-z][A-Za-z0-9_-]*`, unique per
//!   file).
//! - The link: the first non-blank line after the marker, if it is `![alt](target)`,
//!   `<img … src="…">` or `<source … src="…">`, gets its target replaced; otherwise a line
//!   `![<command's first line>](<link>)` is inserted after the marker.

/// A fenced code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// 0-based index of the opening line.
    pub start: usize,
    /// 0-based index of the closing line (the last line for an unclosed fence).
    pub end: usize,
    /// The info string's first word, lowercase (`bash`), or empty.
    pub lang: String,
    /// The `c2s-id=` tag, if any.
    pub id: Option<String>,
    /// The lines between the fences, joined by `\n`.
    pub content: String,
}

/// One marker as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// 0-based index of the line the marker starts on (its line number is `line + 1`).
    pub line: usize,
    /// 0-based index of the line the marker ends on.
    pub end: usize,
    /// The first line after `c2s::`, trimmed.
    pub head: String,
    /// The lines after the first, up to the comment's end (the YAML body), or empty.
    pub body: String,
}

/// A parsed file: its lines (with their endings), fences and markers.
#[derive(Debug, Clone)]
pub struct Document {
    pub lines: Vec<String>,
    pub fences: Vec<Fence>,
    pub markers: Vec<Marker>,
}

/// Shell languages whose fenced block a marker without a command runs.
pub const SHELL_LANGS: &[&str] = &[
    "bash",
    "sh",
    "shell",
    "console",
    "zsh",
    "ksh",
    "dash",
    "ps",
    "powershell",
    "pwsh",
    "cmd",
    "batch",
    "terminal",
    "sh-session",
    "shell-session",
];

fn fence_open(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    if n < 3 {
        return None;
    }
    let info = &t[n..];
    if c == '`' && info.contains('`') {
        return None;
    }
    Some((c, n, info.trim()))
}

/// Parses `text`.
///
/// Errors: a duplicate `c2s-id` (naming both lines), an invalid id, a marker comment that is
/// never closed.
pub fn parse(text: &str) -> Result<Document, String> {
    let lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    let bare = |i: usize| lines[i].trim_end_matches(['\n', '\r']);
    let mut fences: Vec<Fence> = Vec::new();
    let mut markers = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some((c, n, info)) = fence_open(bare(i)) {
            let mut words = info.split_whitespace();
            let lang = words
                .next()
                .filter(|w| !w.starts_with("c2s-id="))
                .unwrap_or("")
                .trim_start_matches('{')
                .trim_start_matches('.')
                .trim_end_matches('}')
                .to_ascii_lowercase();
            let id = info
                .split_whitespace()
                .find_map(|w| w.strip_prefix("c2s-id="))
                .map(str::to_string);
            if let Some(id) = &id {
                let ok = id.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if !ok {
                    return Err(format!(
                        "line {}: invalid c2s-id '{id}' (a letter, then letters, digits, _ or -)",
                        i + 1
                    ));
                }
                if let Some(prev) = fences.iter().find(|f| f.id.as_deref() == Some(id)) {
                    return Err(format!(
                        "line {}: duplicate c2s-id '{id}' (first on line {})",
                        i + 1,
                        prev.start + 1
                    ));
                }
            }
            let mut j = i + 1;
            while j < lines.len() {
                let t = bare(j).trim();
                if t.len() >= n
                    && t.chars().all(|x| x == c)
                    && bare(j).len() - bare(j).trim_start().len() <= 3
                {
                    break;
                }
                j += 1;
            }
            let end = j.min(lines.len() - 1);
            let content = (i + 1..j.min(lines.len()))
                .map(bare)
                .collect::<Vec<_>>()
                .join("\n");
            fences.push(Fence {
                start: i,
                end,
                lang,
                id,
                content,
            });
            i = j + 1;
            continue;
        }
        let t = bare(i).trim_start();
        let opener = [("<!--", "-->"), ("{/*", "*/}")]
            .into_iter()
            .find(|(open, _)| t.starts_with(open));
        if let Some((open, close)) = opener {
            let inner = t[open.len()..].trim_start();
            let prefix = ["c2s::", "console2svg::"]
                .into_iter()
                .find(|p| inner.starts_with(p));
            if let Some(prefix) = prefix {
                // Gather up to the closing token.
                let mut text = inner[prefix.len()..].to_string();
                let mut j = i;
                loop {
                    if let Some(at) = text.find(close) {
                        text.truncate(at);
                        break;
                    }
                    j += 1;
                    if j >= lines.len() {
                        return Err(format!("line {}: marker comment is never closed", i + 1));
                    }
                    text.push('\n');
                    text.push_str(bare(j));
                }
                let (head, body) = match text.split_once('\n') {
                    Some((h, b)) => (h.trim().to_string(), b.to_string()),
                    None => (text.trim().to_string(), String::new()),
                };
                markers.push(Marker {
                    line: i,
                    end: j,
                    head,
                    body,
                });
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    Ok(Document {
        lines,
        fences,
        markers,
    })
}

impl Document {
    /// The nearest fenced block that closes before line `line`.
    pub fn fence_before(&self, line: usize) -> Option<&Fence> {
        self.fences.iter().rev().find(|f| f.end < line)
    }

    /// The nearest fence before `line` tagged `c2s-id=<id>`.
    pub fn fence_by_id(&self, id: &str, line: usize) -> Option<&Fence> {
        self.fences
            .iter()
            .rev()
            .find(|f| f.start < line && f.id.as_deref() == Some(id))
    }

    /// The line ending the file mostly uses.
    fn newline(&self) -> &'static str {
        let crlf = self.lines.iter().filter(|l| l.ends_with("\r\n")).count();
        if crlf * 2 > self.lines.len() {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// The text with each `(marker, link, alt)` applied: the first non-blank line after the
    /// marker gets `link` as its target when it is a line of the link's kind (see
    /// [`LinkKind`]); an image line before a video or a recording is replaced by the right
    /// line; otherwise the right line is inserted after the marker.
    pub fn relink(&self, links: &[(&Marker, String, String)]) -> String {
        let nl = self.newline();
        let mut replace: std::collections::HashMap<usize, String> = Default::default();
        let mut insert: std::collections::HashMap<usize, String> = Default::default();
        for (m, link, alt) in links {
            let next = (m.end + 1..self.lines.len()).find(|&k| !self.lines[k].trim().is_empty());
            // A marker directly followed by another marker gets its own line.
            let next = next.filter(|&k| !self.markers.iter().any(|o| o.line == k));
            let kind = LinkKind::of(link);
            let fresh = kind.line(link, alt);
            let found = next.and_then(|k| {
                let line = &self.lines[k];
                match retarget(line, link, kind) {
                    Some(l) => Some((k, l)),
                    // An image line where a video or a recording now goes: the right line.
                    None if kind != LinkKind::Image && line.trim_start().starts_with("![") => {
                        let ending = &line[line.trim_end_matches(['\r', '\n']).len()..];
                        Some((k, format!("{fresh}{ending}")))
                    }
                    None => None,
                }
            });
            match found {
                Some((k, line)) => {
                    replace.insert(k, line);
                }
                None => {
                    insert.insert(m.end, format!("{fresh}{nl}"));
                }
            }
        }
        let mut out = String::new();
        for (k, line) in self.lines.iter().enumerate() {
            out.push_str(replace.get(&k).unwrap_or(line));
            if let Some(extra) = insert.get(&k) {
                if !line.ends_with('\n') {
                    out.push_str(nl);
                }
                out.push_str(extra);
            }
        }
        out
    }
}

/// What a marker's link points at, by its extension: how it is written in the Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// `.svg`, `.png`, `.jpg`, `.webp`, `.gif`: `![alt](link)` (or an `<img src>`).
    Image,
    /// `.mp4`, `.webm`: `<video src="link" …></video>` (or a `<source src>` inside one);
    /// Markdown images do not play videos.
    Video,
    /// `.cast`: a plain link `[alt (asciicast)](link)`, for a player or `asciinema play`.
    Recording,
}

impl LinkKind {
    /// The kind of `link`, by its extension.
    pub fn of(link: &str) -> LinkKind {
        let ext = link.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("mp4" | "webm") => LinkKind::Video,
            Some("cast") => LinkKind::Recording,
            _ => LinkKind::Image,
        }
    }

    /// The line inserted for a new link (no line ending).
    fn line(self, link: &str, alt: &str) -> String {
        let alt = alt_text(alt);
        match self {
            LinkKind::Image => format!("![{alt}]({link})"),
            LinkKind::Video => format!(
                "<video src=\"{link}\" title=\"{}\" controls muted loop playsinline></video>",
                alt.replace('&', "&amp;")
                    .replace('"', "&quot;")
                    .replace('<', "&lt;")
            ),
            LinkKind::Recording => format!("[{alt} (asciicast)]({link})"),
        }
    }
}

/// `alt` made safe for `![…]`: its first line, at most 80 characters, `]` → `)`, `|` → `/`.
fn alt_text(alt: &str) -> String {
    alt.lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(80)
        .map(|c| match c {
            ']' => ')',
            '|' => '/',
            c => c,
        })
        .collect()
}

/// `line` with its target replaced by `link`, when it is a line of `kind`: an image line
/// (`![alt](x)`, `<img … src="x">`, `<source … src="x">`), a video line (`<video … src="x">`,
/// `<source … src="x">`) or a plain link line (`[alt](x)`); `None` otherwise.
fn retarget(line: &str, link: &str, kind: LinkKind) -> Option<String> {
    let t = line.trim_start();
    let (markdown, html): (Option<&str>, &[&str]) = match kind {
        LinkKind::Image => (Some("!["), &["<img", "<source"]),
        LinkKind::Video => (None, &["<video", "<source"]),
        LinkKind::Recording => (Some("["), &[]),
    };
    if markdown.is_some_and(|m| t.starts_with(m)) {
        let close = t.find("](")?;
        let start = line.len() - t.len() + close + 2;
        let rest = &line[start..];
        let end = rest.find([')', ' ', '\t'])?;
        return Some(format!("{}{link}{}", &line[..start], &rest[end..]));
    }
    if html.iter().any(|h| t.starts_with(h)) {
        for attr in ["src=\"", "src='", "srcset=\"", "srcset='"] {
            if let Some(at) = line.find(&format!(" {attr}")) {
                let start = at + 1 + attr.len();
                let quote = attr.chars().last()?;
                let end = start + line[start..].find(quote)?;
                return Some(format!("{}{link}{}", &line[..start], &line[end..]));
            }
        }
    }
    None
}

/// Splits a marker's first line into option words (quotes `"`/`'` respected, backslash
/// escapes in double quotes) and the raw command after the first standalone `--`.
///
/// Errors: an unclosed quote.
pub fn split_head(head: &str) -> Result<(Vec<String>, Option<String>), String> {
    let mut words = Vec::new();
    let mut chars = head.char_indices().peekable();
    loop {
        while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
            chars.next();
        }
        let Some(&(start, _)) = chars.peek() else {
            break;
        };
        let mut word = String::new();
        let mut quoted = false;
        while let Some(&(_, c)) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            match c {
                '\'' => {
                    quoted = true;
                    loop {
                        match chars.next() {
                            Some((_, '\'')) => break,
                            Some((_, x)) => word.push(x),
                            None => return Err(format!("unclosed ' in '{head}'")),
                        }
                    }
                }
                '"' => {
                    quoted = true;
                    loop {
                        match chars.next() {
                            Some((_, '"')) => break,
                            Some((_, '\\')) => {
                                if let Some((_, x)) = chars.next() {
                                    word.push(x);
                                }
                            }
                            Some((_, x)) => word.push(x),
                            None => return Err(format!("unclosed \" in '{head}'")),
                        }
                    }
                }
                x => word.push(x),
            }
        }
        if word == "--" && !quoted {
            let after = chars.peek().map_or(head.len(), |&(i, _)| i);
            let _ = start;
            let command = head[after..].trim().to_string();
            return Ok((words, (!command.is_empty()).then_some(command)));
        }
        words.push(word);
    }
    Ok((words, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_fences_and_ids() {
        let text = "# T\n\n```bash c2s-id=list\nls -la\n```\n\n<!-- c2s:: -w 80 -->\n![x](old.svg)\n\n```md\n<!-- c2s:: -- echo no -->\n```\n{/* console2svg:: -c -- echo \"a b\" */}\n<!-- c2s:: -- echo hi\nsetup: touch f\n-->\n";
        let d = parse(text).unwrap();
        assert_eq!(d.fences.len(), 2);
        assert_eq!(d.fences[0].lang, "bash");
        assert_eq!(d.fences[0].id.as_deref(), Some("list"));
        assert_eq!(d.fences[0].content, "ls -la");
        assert_eq!(d.markers.len(), 3, "the fenced marker is ignored");
        assert_eq!(d.markers[0].head, "-w 80");
        assert_eq!(d.markers[0].line, 6);
        assert_eq!(d.markers[1].head, "-c -- echo \"a b\"");
        assert_eq!(d.markers[2].head, "-- echo hi");
        assert_eq!(d.markers[2].body, "setup: touch f\n");
        assert_eq!(d.fence_before(6).unwrap().id.as_deref(), Some("list"));
        assert_eq!(d.fence_by_id("list", 20).unwrap().start, 2);
    }

    #[test]
    fn duplicate_ids_and_unclosed_markers_are_errors() {
        let e = parse("```sh c2s-id=a\nx\n```\n```sh c2s-id=a\ny\n```\n").unwrap_err();
        assert_eq!(e, "line 4: duplicate c2s-id 'a' (first on line 1)");
        let e = parse("<!-- c2s:: -- ls\n").unwrap_err();
        assert_eq!(e, "line 1: marker comment is never closed");
        assert!(parse("```sh c2s-id=1x\n```\n").is_err());
    }

    #[test]
    fn heads_split_at_the_first_standalone_double_dash() {
        assert_eq!(
            split_head("-w 80 --crop-top 'Host:1' -- ls -- -la").unwrap(),
            (
                vec![
                    "-w".into(),
                    "80".into(),
                    "--crop-top".into(),
                    "Host:1".into()
                ],
                Some("ls -- -la".into())
            )
        );
        assert_eq!(split_head("-c").unwrap(), (vec!["-c".into()], None));
        assert_eq!(
            split_head("--header \"a -- b\" --").unwrap(),
            (vec!["--header".into(), "a -- b".into()], None)
        );
        assert!(split_head("--header 'x").is_err());
    }

    #[test]
    fn links_are_rewritten_or_inserted() {
        let text = "<!-- c2s:: -- ls -->\n\n![old](a.svg \"t\")\n<!-- c2s:: -- echo ] | x -->\ntext\n<!-- c2s:: -- pwd -->\n<img width=\"5\" src=\"b.svg\">\n";
        let d = parse(text).unwrap();
        let links = vec![
            (&d.markers[0], "n1.svg".to_string(), "ls".to_string()),
            (
                &d.markers[1],
                "n2.svg".to_string(),
                "echo ] | x".to_string(),
            ),
            (&d.markers[2], "n3.svg".to_string(), "pwd".to_string()),
        ];
        assert_eq!(
            d.relink(&links),
            "<!-- c2s:: -- ls -->\n\n![old](n1.svg \"t\")\n<!-- c2s:: -- echo ] | x -->\n![echo ) / x](n2.svg)\ntext\n<!-- c2s:: -- pwd -->\n<img width=\"5\" src=\"n3.svg\">\n"
        );
        // Applying the same links again changes nothing.
        let again = parse(&d.relink(&links)).unwrap();
        let links2: Vec<_> = again
            .markers
            .iter()
            .zip(["n1.svg", "n2.svg", "n3.svg"])
            .map(|(m, l)| (m, l.to_string(), "x".to_string()))
            .collect();
        assert_eq!(again.relink(&links2), d.relink(&links));
    }
}
