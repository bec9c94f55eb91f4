//! Secret masking: find secrets in a [`Screen`] (or a text) and replace them with `*` before
//! anything is rendered, written or printed.
//!
//! Masking is a **safety net, not a guarantee**: it finds what its rules describe (see
//! [`rules::auto_rules`], `--mask`, `--mask-rules`), and a secret in a shape no rule knows is
//! published as it is. Review pictures before publishing them.
//!
//! What it does (shared/spec/console2svg-contract.md, "Masking"):
//! - Rules run on the screen's text with soft-wrapped rows joined into one logical line
//!   ([`Screen::wrapped`]), so a token split by wrapping is still found; logical lines are
//!   joined by `\n`, so a rule can span lines (a PEM private key block).
//! - A masked cell's text becomes `*`; a wide character's two cells become two `*` cells, so the
//!   cell count never changes. The cell is flagged [`Cell::masked`] and the renderer draws a
//!   visible masked overlay over it.
//! - Link targets (OSC 8 URIs and ids) and the window title are masked as text with the same
//!   rules ([`Masker::mask_text`]), so no output (SVG, PNG, JSON) carries the plaintext.
//!
//! Entry points for every path that renders or records: [`Masker::mask_screen`] for a screen,
//! [`Masker::mask_output`] for raw terminal output (a recording's output events),
//! [`Masker::mask_text`] for any other text (a title, a link target).
//!
//! ```
//! use console2svg::mask::Masker;
//! use console2svg::term::Emulator;
//!
//! let mut e = Emulator::new(40, 3);
//! e.advance(b"cd /home/alice");
//! let mut screen = e.snapshot();
//! let masker = Masker::auto();
//! assert_eq!(masker.mask_screen(&mut screen), 5);
//! assert_eq!(screen.row_text(0), "cd /home/*****");
//! ```

pub mod rules;

use std::collections::HashMap;
use std::ops::Range;

use crate::term::{Cell, Screen};
pub use rules::{Rule, RuleError};

/// One finding: which rule matched and the byte range of the masked text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule's id.
    pub rule: String,
    /// Byte range in the text searched.
    pub range: Range<usize>,
}

/// A set of rules, applied together.
#[derive(Debug, Clone, Default)]
pub struct Masker {
    rules: Vec<Rule>,
}

impl Masker {
    /// No rules: masks nothing.
    pub fn none() -> Masker {
        Masker::default()
    }

    /// The auto rules only ([`rules::auto_rules`]).
    pub fn auto() -> Masker {
        Masker {
            rules: rules::auto_rules(),
        }
    }

    /// The auto rules when `auto`, then one rule per `--mask` pattern (see [`Rule::user`]).
    ///
    /// Errors: the first pattern that is not a valid regex.
    pub fn new(auto: bool, patterns: &[String]) -> Result<Masker, RuleError> {
        let mut m = if auto { Masker::auto() } else { Masker::none() };
        for p in patterns {
            m.rules.push(Rule::user(p)?);
        }
        Ok(m)
    }

    /// Adds rules (from [`rules::gitleaks_rules`], say).
    pub fn extend(&mut self, rules: Vec<Rule>) {
        self.rules.extend(rules);
    }

    /// True when there are no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rules, in the order they run.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Every finding in `text`, rule by rule (rules in order, matches left to right). Findings
    /// may overlap; empty ones are dropped.
    pub fn find(&self, text: &str) -> Vec<Finding> {
        let mut out = Vec::new();
        if self.rules.is_empty() || text.is_empty() {
            return out;
        }
        // ASCII lowercasing keeps byte offsets; keywords are ASCII in practice.
        let lower = text.to_ascii_lowercase();
        for rule in &self.rules {
            if !rule.keywords.is_empty() && !rule.keywords.iter().any(|k| lower.contains(k)) {
                continue;
            }
            let mut push = |range: Range<usize>| {
                let allowed = rule
                    .allow
                    .as_ref()
                    .is_some_and(|a| a.is_match(&text[range.clone()]));
                if !range.is_empty() && !allowed {
                    out.push(Finding {
                        rule: rule.id.clone(),
                        range,
                    });
                }
            };
            if rule.groups.is_empty() {
                for m in rule.regex.find_iter(text) {
                    push(m.range());
                }
            } else {
                for caps in rule.regex.captures_iter(text) {
                    for &g in &rule.groups {
                        if let Some(m) = caps.get(g) {
                            push(m.range());
                        }
                    }
                }
            }
        }
        out
    }

    /// `text` with every character inside a finding replaced by `*` (line breaks kept); the
    /// character count never changes. Returns the text unchanged (no allocation beyond the
    /// copy) when nothing is found.
    pub fn mask_text(&self, text: &str) -> String {
        let findings = self.find(text);
        if findings.is_empty() {
            return text.to_string();
        }
        let hidden = covered(text.len(), &findings);
        text.char_indices()
            .map(|(i, c)| {
                if hidden[i] && c != '\n' && c != '\r' {
                    '*'
                } else {
                    c
                }
            })
            .collect()
    }

    /// Raw terminal output (what a program wrote: text with escape sequences, as in an
    /// asciicast's output events) with its secrets replaced by `*`, escape sequences kept.
    ///
    /// The rules run on the visible text: CSI sequences (colours, cursor moves) and two-byte
    /// escapes are skipped, so a token coloured piece by piece is still found; OSC payloads
    /// (titles, OSC 8 link targets) are searched as lines of their own; CR and LF end a line.
    /// A secret the program drew by moving the cursor around is not found: mask the screens
    /// ([`Masker::mask_screen`]) as well. Apply it to as long a stretch of output as possible
    /// (a secret split between two chunks is found only when they are masked together).
    pub fn mask_output(&self, output: &str) -> String {
        if self.rules.is_empty() {
            return output.to_string();
        }
        let (visible, map) = visible_text(output);
        let findings = self.find(&visible);
        if findings.is_empty() {
            return output.to_string();
        }
        let hidden = covered(visible.len(), &findings);
        let mut masked_at = vec![false; output.len()];
        for &(v, o) in &map {
            if hidden[v] {
                masked_at[o] = true;
            }
        }
        output
            .char_indices()
            .map(|(i, c)| if masked_at[i] { '*' } else { c })
            .collect()
    }

    /// Masks `screen` in place: cells covered by a finding get `*` and [`Cell::masked`]; link
    /// targets and the title are masked as text. Returns the number of cells masked.
    pub fn mask_screen(&self, screen: &mut Screen) -> usize {
        if self.rules.is_empty() {
            return 0;
        }
        let (text, starts) = logical_text(screen);
        let findings = self.find(&text);
        let mut count = 0;
        if !findings.is_empty() {
            let hidden = covered(text.len(), &findings);
            for &(at, row, col) in &starts {
                if hidden[at] {
                    count += mask_cell(&mut screen.rows[row], col);
                }
            }
        }
        let mut links: HashMap<String, String> = HashMap::new();
        for row in &mut screen.rows {
            for cell in row.iter_mut() {
                if let Some(link) = &mut cell.link {
                    let masked = links
                        .entry(link.uri.clone())
                        .or_insert_with(|| self.mask_text(&link.uri));
                    if *masked != link.uri {
                        link.uri = masked.clone();
                    }
                    if let Some(id) = &mut link.id {
                        *id = self.mask_text(id);
                    }
                }
            }
        }
        if let Some(title) = &mut screen.title {
            *title = self.mask_text(title);
        }
        count
    }
}

/// `covered[i]` is true when byte `i` of the text lies inside a finding.
fn covered(len: usize, findings: &[Finding]) -> Vec<bool> {
    let mut hidden = vec![false; len];
    for f in findings {
        hidden[f.range.clone()].fill(true);
    }
    hidden
}

/// The screen's text, soft-wrapped rows joined, logical lines separated by `\n`, each line
/// right-trimmed (blank cells after the last character of a line that does not wrap are left
/// out); with the byte offset, row and column where each cell's text starts. Continuation
/// cells of wide characters contribute nothing.
fn logical_text(screen: &Screen) -> (String, Vec<(usize, usize, usize)>) {
    let cells = screen.rows.len() * screen.width;
    let mut text = String::with_capacity(cells + screen.rows.len());
    let mut starts = Vec::with_capacity(cells);
    for (r, row) in screen.rows.iter().enumerate() {
        let end = if screen.wraps(r) {
            row.len()
        } else {
            row.iter()
                .rposition(|c| !c.text.trim().is_empty())
                .map_or(0, |i| i + 1)
        };
        for (c, cell) in row[..end].iter().enumerate() {
            if cell.width == 0 {
                continue;
            }
            starts.push((text.len(), r, c));
            if cell.text.is_empty() {
                text.push(' ');
            } else {
                text.push_str(&cell.text);
            }
        }
        if !screen.wraps(r) {
            text.push('\n');
        }
    }
    (text, starts)
}

/// The visible text of raw terminal output, and for each visible character the byte offsets
/// (in the text, in the output) it comes from. Escape sequences are left out; OSC payloads
/// and line breaks (CR, LF) become lines of their own.
fn visible_text(output: &str) -> (String, Vec<(usize, usize)>) {
    let mut text = String::with_capacity(output.len());
    let mut map = Vec::with_capacity(output.len());
    let mut chars = output.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek().map(|&(_, n)| n) {
                Some('[') => {
                    chars.next();
                    // Parameters and intermediates, then one final byte 0x40-0x7e.
                    for (_, n) in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&n) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    text.push('\n');
                    while let Some((j, n)) = chars.next() {
                        if n == '\u{7}' {
                            break;
                        }
                        if n == '\u{1b}' {
                            if chars.peek().is_some_and(|&(_, x)| x == '\\') {
                                chars.next();
                            }
                            break;
                        }
                        map.push((text.len(), j));
                        text.push(n);
                    }
                    text.push('\n');
                }
                Some(_) => {
                    chars.next();
                }
                None => {}
            },
            '\n' | '\r' => text.push('\n'),
            c if c.is_control() && c != '\t' => {}
            c => {
                map.push((text.len(), i));
                text.push(c);
            }
        }
    }
    (text, map)
}

/// Masks the cell at `col` (and the continuation cell of a wide character); returns the
/// cells masked.
fn mask_cell(row: &mut [Cell], col: usize) -> usize {
    let wide = row[col].width == 2;
    let star = |cell: &mut Cell| {
        cell.text = "*".into();
        cell.width = 1;
        cell.masked = true;
    };
    star(&mut row[col]);
    if wide && col + 1 < row.len() {
        star(&mut row[col + 1]);
        2
    } else {
        1
    }
}

#[cfg(test)]
mod tests;
