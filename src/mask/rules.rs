//! The rules a [`super::Masker`] runs: our own auto rules (`--mask-auto`, on by default), rules
//! from `--mask PATTERN`, and rules loaded from a gitleaks-format TOML file (`--mask-rules`).
//!
//! Facts: shared/spec/console2svg-contract.md, "Masking" (the original masks GitHub tokens, AWS
//! keys, Slack/Stripe/OpenAI-style tokens, private keys, credential URIs, git identities, home
//! directories; generic `key=value` findings mask only the value). The regexes here are our
//! own. The gitleaks rule format (`[[rules]]` with `id`, `regex`, `secretGroup`, `keywords`) is
//! gitleaks' `config/gitleaks.toml`; other keys of a rule (`description`, `entropy`, `path`,
//! `allowlists`, `tags`…) are accepted and ignored.

use regex::Regex;
use serde::Deserialize;

/// One rule: a regex and which part of each match is the secret.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule's name, shown by `mask test` and in errors.
    pub id: String,
    pub(super) regex: Regex,
    /// Capture groups whose text is masked (each separately); empty masks the whole match.
    pub(super) groups: Vec<usize>,
    /// Lowercase keywords: the rule runs only on text holding one of them (gitleaks'
    /// prefilter); empty runs always.
    pub(super) keywords: Vec<String>,
    /// A finding whose whole text matches this is not a secret (gitleaks' allowlist idea).
    pub(super) allow: Option<Regex>,
}

/// A rule that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The regex does not compile; names the rule id and the regex.
    #[error("mask rule '{id}': invalid regex '{regex}': {reason}")]
    Regex {
        id: String,
        regex: String,
        reason: String,
    },
    /// `secretGroup` names a group the regex does not have.
    #[error("mask rule '{id}': secretGroup {group} but the regex '{regex}' has {count} groups")]
    Group {
        id: String,
        regex: String,
        group: usize,
        count: usize,
    },
    /// The rules file is not valid TOML or lacks a required key; names the file.
    #[error("mask rules {source_name}: {reason}")]
    File { source_name: String, reason: String },
}

impl Rule {
    /// A rule from a regex. `groups`: capture groups to mask (empty: the whole match);
    /// `keywords`: prefilter words (matched case-insensitively).
    ///
    /// Errors: [`RuleError::Regex`] when the regex does not compile (or exceeds the regex
    /// crate's size limit), [`RuleError::Group`] when a group does not exist.
    pub fn new(
        id: &str,
        regex: &str,
        groups: &[usize],
        keywords: &[&str],
    ) -> Result<Rule, RuleError> {
        let compiled = Regex::new(regex).map_err(|e| RuleError::Regex {
            id: id.to_string(),
            regex: regex.to_string(),
            reason: e
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .trim_start_matches("error: ")
                .to_string(),
        })?;
        let count = compiled.captures_len() - 1;
        if let Some(&group) = groups.iter().find(|&&g| g > count) {
            return Err(RuleError::Group {
                id: id.to_string(),
                regex: regex.to_string(),
                group,
                count,
            });
        }
        Ok(Rule {
            id: id.to_string(),
            regex: compiled,
            groups: groups.to_vec(),
            keywords: keywords.iter().map(|k| k.to_ascii_lowercase()).collect(),
            allow: None,
        })
    }

    /// The same rule, ignoring findings whose whole text matches `allow`.
    fn allowing(mut self, allow: &str) -> Rule {
        self.allow = Some(Regex::new(allow).expect("the allow regexes compile"));
        self
    }

    /// A `--mask PATTERN` rule: the pattern is a regex (plain text without regex syntax
    /// matches itself); `literal:TEXT` matches TEXT exactly. The rule id is `mask:<pattern>`.
    ///
    /// Errors: [`RuleError::Regex`] naming the pattern.
    pub fn user(pattern: &str) -> Result<Rule, RuleError> {
        let id = format!("mask:{pattern}");
        match pattern.strip_prefix("literal:") {
            Some(text) => Rule::new(&id, &regex::escape(text), &[], &[]),
            None => Rule::new(&id, pattern, &[], &[]),
        }
    }
}

/// The auto rules, in the order `mask test` reports them. Every regex here compiles (a unit
/// test holds it).
///
/// | id | masks |
/// |---|---|
/// | `github-token` | `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_` + 36 or more, `github_pat_…` |
/// | `aws-access-key-id` | `AKIA`/`ASIA`/`ABIA`/`ACCA`/`A3T…` + 16 |
/// | `aws-secret-access-key` | the 40-character value after `aws_secret_access_key`-like keys |
/// | `slack-token` | `xox[baprs]-…`, Slack webhook URLs |
/// | `stripe-key` | `sk_`/`rk_`/`pk_` + `live_`/`test_` keys |
/// | `anthropic-api-key` | `sk-ant-api03-…`-style keys |
/// | `openai-api-key` | `sk-…`, `sk-proj-…` keys |
/// | `jwt` | `eyJ….eyJ….…` |
/// | `private-key` | the body of a PEM `-----BEGIN … PRIVATE KEY-----` block (to its END or the end of the screen) |
/// | `credential-uri` | user and password of `scheme://user:pass@host`, each separately |
/// | `git-identity` | name and local part of `Name <local@domain>` (the domain stays) |
/// | `email-address` | the local part of `local@domain.tld` |
/// | `home-directory` | the user of `/home/<user>`, `/Users/<user>`, `C:\Users\<user>` |
/// | `generic-secret` | the value of `…secret…`, `…token…`, `…password…`, `…api_key…` `=`/`:` value (not numbers, booleans, `$VAR` references or `<placeholders>`) |
pub fn auto_rules() -> Vec<Rule> {
    const ID: &str = r"[A-Za-z0-9_-]";
    let rules: Vec<(&str, String, &[usize], &[&str])> = vec![
        (
            "github-token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})".into(),
            &[],
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        ),
        (
            "aws-access-key-id",
            r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b".into(),
            &[],
            &["a3t", "akia", "asia", "abia", "acca"],
        ),
        (
            "aws-secret-access-key",
            r#"(?i)aws_?(?:secret)?_?(?:access)?_?key\s*(?:=|:|:=|=>)\s*["']?([A-Za-z0-9/+=]{40})\b"#
                .into(),
            &[1],
            &["aws"],
        ),
        (
            "slack-token",
            r"\bxox[baprse]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/_-]+"
                .into(),
            &[],
            &["xox", "hooks.slack.com"],
        ),
        (
            "stripe-key",
            r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,99}\b".into(),
            &[],
            &["_live_", "_test_"],
        ),
        (
            "anthropic-api-key",
            format!(r"\bsk-ant-(?:api|admin|oat)\d{{2}}-{ID}{{20,}}"),
            &[],
            &["sk-ant-"],
        ),
        (
            "openai-api-key",
            format!(r"\bsk-(?:proj-|svcacct-|admin-)?{ID}{{20,}}"),
            &[],
            &["sk-"],
        ),
        (
            "jwt",
            format!(r"\beyJ{ID}{{5,}}\.eyJ{ID}{{5,}}\.{ID}{{5,}}"),
            &[],
            &["eyj"],
        ),
        (
            "private-key",
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----((?s:.*?))(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)"
                .into(),
            &[1],
            &["private key"],
        ),
        (
            "credential-uri",
            r"\b[A-Za-z][A-Za-z0-9+.-]*://([^\s:/?#@\[\]]+):([^\s/?#@]+)@".into(),
            &[1, 2],
            &["://"],
        ),
        (
            "git-identity",
            r"(\p{L}[\p{L}\p{M}.'-]*(?: \p{L}[\p{L}\p{M}.'-]*){0,3}) <([^\s<>@]+)@[^\s<>@]+>".into(),
            &[1, 2],
            &["@"],
        ),
        (
            "email-address",
            r"\b([A-Za-z0-9._%+-]+)@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b".into(),
            &[1],
            &["@"],
        ),
        (
            "home-directory",
            r#"(?:/home/|/Users/|\b[A-Za-z]:\\Users\\)([^/\\\s:'"`]+)"#.into(),
            &[1],
            &["/home/", "/users/", "\\users\\"],
        ),
        (
            "generic-secret",
            r#"(?i)\b[A-Za-z0-9_.-]*(?:secret|token|passwd|password|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key)[A-Za-z0-9_.-]*["']?\s*(?:=|:=|:|=>)\s*["']?([^\s"',;*]{4,})"#
                .into(),
            &[1],
            &["secret", "token", "passwd", "password", "key"],
        ),
    ];
    rules
        .into_iter()
        .map(|(id, re, groups, keywords)| {
            let rule = Rule::new(id, &re, groups, keywords).expect("the auto rules compile");
            if id == "generic-secret" {
                // Settings that only look like secrets: numbers (`max_tokens=4096`), booleans,
                // placeholders and variable references (`$TOKEN`, `${API_KEY}`, `<token>`).
                rule.allowing(
                    r"^(?i:[0-9]+|true|false|null|nil|none|yes|no|on|off|required|optional|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|x+|\.+)$",
                )
            } else {
                rule
            }
        })
        .collect()
}

/// A gitleaks config file: only `[[rules]]` is read.
#[derive(Debug, Deserialize)]
struct GitleaksFile {
    #[serde(default)]
    rules: Vec<GitleaksRule>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GitleaksRule {
    id: String,
    regex: Option<String>,
    secret_group: Option<usize>,
    #[serde(default)]
    keywords: Vec<String>,
}

/// Rules from a gitleaks-format TOML text (`source_name` names it in errors). A rule without
/// `regex` (gitleaks allows path-only rules) is skipped; `secretGroup` 0 or absent masks the
/// whole match. Go's RE2 syntax is what the regex crate reads (a few gitleaks files use
/// `(?i)` and classes the same way).
///
/// Errors: [`RuleError::File`] for TOML or shape errors; [`RuleError::Regex`] /
/// [`RuleError::Group`] naming the first bad rule.
pub fn gitleaks_rules(text: &str, source_name: &str) -> Result<Vec<Rule>, RuleError> {
    let file: GitleaksFile = toml::from_str(text).map_err(|e| RuleError::File {
        source_name: source_name.to_string(),
        reason: e.message().to_string(),
    })?;
    let mut out = Vec::new();
    for r in file.rules {
        let Some(regex) = r.regex else { continue };
        let groups: Vec<usize> = r.secret_group.filter(|&g| g > 0).into_iter().collect();
        let keywords: Vec<&str> = r.keywords.iter().map(String::as_str).collect();
        out.push(Rule::new(&r.id, &regex, &groups, &keywords)?);
    }
    Ok(out)
}
