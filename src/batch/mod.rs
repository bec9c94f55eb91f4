//! `batch markdown`: regenerate every terminal picture a Markdown tree asks for, and re-link
//! it; `batch restore`: put a manifest's assets back (see [`restore`]).
//!
//! Facts: shared/spec/console2svg-contract.md, "batch marker syntax"; the marker syntax itself
//! is read by [`mod@markdown`].
//!
//! How a run goes:
//! 1. **Plan.** Every `.md`/`.mdx` file under the input directory (matching `--filter` globs,
//!    relative to it) is read (it must be UTF-8) and its markers become recipes: capture
//!    options, the command (after `--`, from the YAML body's `capture`, or the shell code
//!    block above the marker), `setup`/`teardown`, or a `scenario` document. A recipe's hash
//!    (SHA-256 of everything that shapes the picture: the marker's options and scripts, the
//!    program's version, the config files' text) names its object,
//!    `<output>/.generated/<hash>.<ext>`; identical recipes share one object.
//! 2. **Run.** Each recipe whose object does not exist yet runs once (in parallel, `--jobs`):
//!    `setup` (`sh -c`), the capture (this binary's `capture`, so options are parsed exactly
//!    like `capture`'s), `teardown` (always). Commands run in the current directory; a
//!    scenario runs from its own directory. `--placeholder` draws a placeholder instead of
//!    running; `--dry-run` runs and writes nothing.
//! 3. **Link.** A marker with `-o <rel>` gets a copy of its object at `<output>/<rel>`; one
//!    without gets a readable alias `<output>/<dir>/<md-name>-<n>.<ext>` (a relative symbolic
//!    link to the object). The first image link after the marker is pointed at it (or one is
//!    inserted) and the Markdown file is rewritten atomically, only when its text changed.
//!
//! Re-running on unchanged inputs runs nothing and writes nothing (objects exist, aliases and
//! copies are identical, the Markdown text is unchanged, so no mtime moves). A failing marker
//! is reported as `file:line: message` and the others still run; the run then fails.
//! Setup, capture and teardown run in a shell: never run `batch markdown` on untrusted
//! Markdown.

pub mod markdown;
pub mod restore;

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::output::{self, Format};

/// `batch markdown` options.
#[derive(Debug, Clone)]
pub struct MarkdownOptions {
    /// The docs tree (`-i`, default `docs`).
    pub input: PathBuf,
    /// Where pictures go (`-o`, default `assets`).
    pub output: PathBuf,
    /// Globs over paths relative to `input` (`--filter`); empty = every file.
    pub filters: Vec<String>,
    /// Picture format of markers without `-o` (`--format`).
    pub format: Format,
    /// Report what would happen; run and write nothing (`--dry-run`).
    pub dry_run: bool,
    /// Draw a placeholder instead of running a missing recipe (`--placeholder`).
    pub placeholder: bool,
    /// Rerun every recipe even when its object exists.
    pub force: bool,
    /// Manifest to write (`--manifest`).
    pub manifest: Option<PathBuf>,
    /// Recipes run at the same time.
    pub jobs: usize,
    /// The `console2svg` binary that runs captures and scenarios.
    pub exe: PathBuf,
    /// `-C` config file, passed on to captures.
    pub config: Option<PathBuf>,
}

/// What a run did; `failures` non-empty means the run failed.
#[derive(Debug, Default)]
pub struct Report {
    /// Progress lines, in order (`generated …`, `rewrote …`, `would …`).
    pub lines: Vec<String>,
    /// `file:line: message` (or `file: message`) per failure.
    pub failures: Vec<String>,
    /// Markers seen (restore: manifest entries).
    pub markers: usize,
    /// Pictures (or restored files) written.
    pub generated: usize,
    /// Recipes (or files) already up to date.
    pub up_to_date: usize,
}

/// A marker's YAML body: only these keys (unknown or duplicate keys are errors).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Shell script run before the capture; non-zero fails the marker.
    pub setup: Option<String>,
    /// The command (instead of `-- <command>` on the first line).
    pub capture: Option<String>,
    /// Shell script run after the capture, always.
    pub teardown: Option<String>,
    /// A scenario document (relative to the Markdown file) whose first capture is the picture.
    pub scenario: Option<String>,
}

/// Capture options a marker may not use.
const DISALLOWED: &[&str] = &[
    "--in",
    "--save-cast",
    "--save-frames",
    "--stdout",
    "--json",
    "--embed",
    "--verbose",
    "--no-resize",
    "--mouse",
    "-C",
    "--config",
];

/// What one marker asks for.
#[derive(Debug, Clone, Serialize)]
struct Recipe {
    options: Vec<String>,
    command: String,
    setup: Option<String>,
    teardown: Option<String>,
    /// Scenario document (absolute) and the SHA-256 of its text.
    scenario: Option<(PathBuf, String)>,
    ext: &'static str,
    /// What else shapes every picture: this program's version and the config files' text
    /// (SHA-256), so an upgrade or a config change regenerates.
    context: String,
}

impl Recipe {
    fn hash(&self) -> String {
        let json = serde_json::to_string(&(1, self)).unwrap_or_default();
        hex(&Sha256::digest(json.as_bytes()))[..20].to_string()
    }
}

/// A planned marker: where it is, its recipe, where its picture goes.
struct Planned {
    /// `file:line`.
    at: String,
    file: usize,
    marker: usize,
    hash: String,
    /// The picture the link points at (alias or `-o` path), absolute.
    target: PathBuf,
    /// `-o` given: a copy, else an alias link.
    copy: bool,
    alt: String,
}

/// A Markdown file of the run.
struct File {
    path: PathBuf,
    text: String,
    doc: markdown::Document,
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `batch markdown`.
///
/// Errors (the whole run stops, nothing written): the input directory cannot be read, a
/// filter is not a glob. Everything else is a per-file or per-marker failure in the report.
pub fn markdown(opts: &MarkdownOptions) -> Result<Report, String> {
    let mut report = Report::default();
    let input = std::path::absolute(&opts.input).map_err(|e| e.to_string())?;
    let output = std::path::absolute(&opts.output).map_err(|e| e.to_string())?;
    if !input.is_dir() {
        return Err(format!("{}: not a directory", opts.input.display()));
    }
    let mut globs = globset::GlobSetBuilder::new();
    for f in &opts.filters {
        globs.add(globset::Glob::new(f).map_err(|e| format!("--filter {f}: {e}"))?);
    }
    let globs = globs.build().map_err(|e| e.to_string())?;
    let mut paths = Vec::new();
    collect_markdown(&input, &output, &mut paths)?;
    paths.sort();

    let mut context = format!("console2svg {}", env!("CARGO_PKG_VERSION"));
    for path in crate::options::config_paths(opts.config.as_deref()) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        context.push_str(&format!(" {}", hex(&Sha256::digest(&bytes))));
    }

    // 1. Plan.
    let mut files: Vec<File> = Vec::new();
    let mut planned: Vec<Planned> = Vec::new();
    let mut recipes: BTreeMap<String, (Recipe, String)> = BTreeMap::new();
    for path in paths {
        let rel = path.strip_prefix(&input).unwrap_or(&path).to_path_buf();
        if !opts.filters.is_empty() && !globs.is_match(&rel) {
            continue;
        }
        let shown = display(&path);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                report.failures.push(format!("{shown}: cannot read: {e}"));
                continue;
            }
        };
        let Ok(text) = String::from_utf8(bytes) else {
            report.failures.push(format!(
                "{shown}: not UTF-8 text; the file is left as it is"
            ));
            continue;
        };
        let doc = match markdown::parse(&text) {
            Ok(d) => d,
            Err(e) => {
                report
                    .failures
                    .push(format!("{shown}:{e}").replacen(":line ", ":", 1));
                continue;
            }
        };
        let file = files.len();
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let alias_dir = output.join(rel.parent().unwrap_or(Path::new("")));
        for (n, marker) in doc.markers.iter().enumerate() {
            report.markers += 1;
            let at = format!("{shown}:{}", marker.line + 1);
            match plan(&doc, marker, &path, opts.format) {
                Ok((mut recipe, out, alt)) => {
                    recipe.context = context.clone();
                    let hash = recipe.hash();
                    let (target, copy) = match (&out, &recipe.scenario) {
                        (_, Some(_)) => (PathBuf::new(), false),
                        (Some(rel), None) => (output.join(rel), true),
                        (None, None) => (
                            alias_dir.join(format!("{stem}-{}.{}", n + 1, recipe.ext)),
                            false,
                        ),
                    };
                    if let Some(other) = planned.iter().find(|p| {
                        p.hash != hash && !target.as_os_str().is_empty() && p.target == target
                    }) {
                        report.failures.push(format!(
                            "{at}: {} is also the picture of {} (another recipe)",
                            display(&target),
                            other.at
                        ));
                        continue;
                    }
                    recipes.entry(hash.clone()).or_insert((recipe, at.clone()));
                    planned.push(Planned {
                        at,
                        file,
                        marker: n,
                        hash,
                        target,
                        copy,
                        alt,
                    });
                }
                Err(e) => report.failures.push(format!("{at}: {e}")),
            }
        }
        files.push(File { path, text, doc });
    }

    // 2. Run what is missing.
    let generated = output.join(".generated");
    let object = |hash: &str, recipe: &Recipe| {
        let ext = if recipe.scenario.is_some() {
            "json"
        } else {
            recipe.ext
        };
        generated.join(format!("{hash}.{ext}"))
    };
    let done = |h: &str, r: &Recipe| {
        let obj = object(h, r);
        obj.exists() && (r.scenario.is_none() || scenario_artifact(&obj).is_ok_and(|a| a.exists()))
    };
    let todo: Vec<(&String, &Recipe, &String)> = recipes
        .iter()
        .filter(|(h, (r, _))| opts.force || !done(h, r))
        .map(|(h, (r, at))| (h, r, at))
        .collect();
    report.up_to_date = recipes.len() - todo.len();
    let mut failed: HashMap<String, String> = HashMap::new();
    if opts.dry_run {
        for (h, r, at) in &todo {
            report
                .lines
                .push(format!("would generate {} ({at})", display(&object(h, r))));
        }
    } else if !todo.is_empty() {
        std::fs::create_dir_all(&generated)
            .map_err(|e| format!("cannot create {}: {e}", generated.display()))?;
        let queue = Mutex::new(todo.iter());
        let results = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..opts.jobs.max(1) {
                s.spawn(|| loop {
                    let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
                    let Some((h, r, at)) = next else { break };
                    let res = if opts.placeholder && r.scenario.is_none() {
                        placeholder(r, &object(h, r))
                    } else {
                        run(r, &object(h, r), opts)
                    };
                    results.lock().unwrap_or_else(|p| p.into_inner()).push((
                        (*h).clone(),
                        (*at).clone(),
                        res,
                    ));
                });
            }
        });
        let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        results.sort();
        for (h, at, res) in results {
            match res {
                Ok(()) => {
                    report.generated += 1;
                    report.lines.push(format!(
                        "generated {} ({at})",
                        display(&object(&h, &recipes[&h].0))
                    ));
                }
                Err(e) => {
                    failed.insert(h, e);
                }
            }
        }
    }

    // 3. Aliases, copies, links.
    let mut manifest: BTreeMap<String, ManifestEntry> = BTreeMap::new();
    let mut links: HashMap<usize, Vec<(usize, String, String)>> = HashMap::new();
    for p in &planned {
        if let Some(e) = failed.get(&p.hash) {
            report.failures.push(format!("{}: {e}", p.at));
            continue;
        }
        let recipe = &recipes[&p.hash].0;
        let obj = object(&p.hash, recipe);
        let md_dir = files[p.file].path.parent().unwrap_or(Path::new("/"));
        let target = if recipe.scenario.is_some() {
            match scenario_artifact(&obj) {
                Ok(t) => t,
                Err(e) if opts.dry_run => {
                    let _ = e;
                    continue;
                }
                Err(e) => {
                    report.failures.push(format!("{}: {e}", p.at));
                    continue;
                }
            }
        } else {
            p.target.clone()
        };
        if !opts.dry_run && recipe.scenario.is_none() {
            let res = if p.copy {
                copy_if_changed(&obj, &target)
            } else {
                link_if_changed(&obj, &target)
            };
            match res {
                Ok(true) => report.lines.push(format!("updated {}", display(&target))),
                Ok(false) => {}
                Err(e) => {
                    report.failures.push(format!("{}: {e}", p.at));
                    continue;
                }
            }
        }
        if opts.manifest.is_some() && !opts.dry_run {
            for (path, link) in [(obj.clone(), None), (target.clone(), Some(&obj))] {
                if let Some(rel) = rel_under(&output, &path) {
                    let link = link
                        .filter(|_| !p.copy && recipe.scenario.is_none())
                        .and_then(|o| relative(target.parent()?, o));
                    let source = display(&files[p.file].path);
                    if let Ok(e) = manifest_entry(&path, rel.clone(), link, &source) {
                        manifest.entry(rel).or_insert(e);
                    }
                }
            }
        }
        let link = relative(md_dir, &target).unwrap_or_else(|| display(&target));
        links
            .entry(p.file)
            .or_default()
            .push((p.marker, link, p.alt.clone()));
    }
    for (i, f) in files.iter().enumerate() {
        let Some(list) = links.get(&i) else { continue };
        let list: Vec<_> = list
            .iter()
            .map(|(m, l, a)| (&f.doc.markers[*m], l.clone(), a.clone()))
            .collect();
        let text = f.doc.relink(&list);
        if text == f.text {
            continue;
        }
        if opts.dry_run {
            report
                .lines
                .push(format!("would rewrite {}", display(&f.path)));
            continue;
        }
        match output::write_atomic(&f.path, text.as_bytes()) {
            Ok(()) => report.lines.push(format!("rewrote {}", display(&f.path))),
            Err(e) => report.failures.push(format!("{}: {e}", display(&f.path))),
        }
    }
    if let (Some(path), false) = (&opts.manifest, opts.dry_run) {
        let doc = Manifest {
            schema_version: 1,
            assets: manifest.into_values().collect(),
        };
        let mut json = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        json.push('\n');
        let same = std::fs::read(path).ok().as_deref() == Some(json.as_bytes());
        if !same {
            output::write_atomic(path, json.as_bytes()).map_err(|e| e.to_string())?;
        }
    }
    Ok(report)
}

/// One asset of a manifest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ManifestEntry {
    /// Relative to the output directory, `/`-separated, no `..`.
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// SHA-256 of the content, lowercase hex.
    pub sha256: String,
    /// For an alias: the relative link target (the object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// The first Markdown file that asked for it (line numbers are left out: inserting a link
    /// moves them, and the manifest must not change on a re-run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The `--manifest` document.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// 1.
    pub schema_version: u32,
    /// Every asset, sorted by path.
    pub assets: Vec<ManifestEntry>,
}

fn manifest_entry(
    path: &Path,
    rel: String,
    link: Option<String>,
    source: &str,
) -> Result<ManifestEntry, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    Ok(ManifestEntry {
        path: rel,
        size: bytes.len() as u64,
        sha256: hex(&Sha256::digest(&bytes)),
        link,
        source: Some(source.to_string()),
    })
}

/// A marker's recipe, its `-o` (relative to the output directory) and the alt text.
fn plan(
    doc: &markdown::Document,
    marker: &markdown::Marker,
    md: &Path,
    default_format: Format,
) -> Result<(Recipe, Option<PathBuf>, String), String> {
    let body: Body = if marker.body.trim().is_empty() {
        Body::default()
    } else {
        serde_yaml_ng::from_str(&marker.body).map_err(|e| format!("marker body: {e}"))?
    };
    let head = marker.head.trim();
    // `<!-- c2s:: scenario: path.yaml -->` is a scenario marker too.
    let (head, head_scenario) = match head.strip_prefix("scenario:") {
        Some(p) => ("", Some(p.trim().to_string())),
        None => (head, None),
    };
    let (words, inline) = markdown::split_head(head)?;
    let mut options = Vec::new();
    let mut out: Option<String> = None;
    let mut format: Option<String> = None;
    let mut it = words.into_iter();
    while let Some(w) = it.next() {
        let (name, value) = match w.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (w.clone(), None),
        };
        if let Some(bad) = DISALLOWED
            .iter()
            .find(|d| name == **d || (d.starts_with("--") && name.starts_with(&format!("{d}-"))))
        {
            return Err(format!("{bad} is not allowed in a marker"));
        }
        match name.as_str() {
            "-o" | "--out" | "--format" => {
                let v = match value {
                    Some(v) => v,
                    None => it.next().ok_or_else(|| format!("{name} needs a value"))?,
                };
                if name == "--format" {
                    format = Some(v);
                } else {
                    out = Some(v);
                }
            }
            _ if name.starts_with("-o") && name.len() > 2 && !name.starts_with("--") => {
                out = Some(name[2..].to_string());
            }
            _ => options.push(w),
        }
    }
    let scenario_path = body.scenario.clone().or(head_scenario);
    if inline.is_some() && body.capture.is_some() {
        return Err("the command is given twice (after -- and as capture: in the body)".into());
    }
    let resolve_code = |s: &str| -> Result<String, String> {
        let mut out = String::new();
        let mut rest = s;
        while let Some(at) = rest.find("{code:") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 6..];
            let end = after
                .find('}')
                .ok_or_else(|| format!("unclosed {{code:…}} in '{s}'"))?;
            let id = &after[..end];
            let fence = doc
                .fence_by_id(id, marker.line)
                .ok_or_else(|| format!("no code block tagged c2s-id={id} above the marker"))?;
            out.push_str(&fence.content);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    };
    const FORMATS: &str = "svg, png, jpg, webp, gif, mp4, webm or cast";
    let ext = |f: &str| -> Result<&'static str, String> {
        match f.to_ascii_lowercase().as_str() {
            "" => Err(format!("unsupported format '' ({FORMATS})")),
            // The recording itself (asciicast v2), written by `capture --save-cast`.
            "cast" => Ok("cast"),
            f => crate::output::Format::from_path(Path::new(&format!("x.{f}")))
                .map(crate::output::Format::name)
                .map_err(|_| format!("unsupported format '{f}' ({FORMATS})")),
        }
    };
    let out = match out {
        None => None,
        Some(o) => Some(check_out(&o)?),
    };
    let ext = match (&out, &format) {
        (Some(o), _) => ext(&o.extension().unwrap_or_default().to_string_lossy())?,
        (None, Some(f)) => ext(f)?,
        (None, None) => default_format.name(),
    };
    let md_dir = md.parent().unwrap_or(Path::new("."));
    if let Some(sc) = scenario_path {
        if inline.is_some() || body.capture.is_some() || !options.is_empty() {
            return Err("a scenario marker takes no command and no capture options".into());
        }
        let path = md_dir.join(&sc);
        let text = std::fs::read(&path)
            .map_err(|e| format!("cannot read scenario {}: {e}", path.display()))?;
        let recipe = Recipe {
            options: Vec::new(),
            command: String::new(),
            setup: body.setup.as_deref().map(resolve_code).transpose()?,
            teardown: body.teardown.as_deref().map(resolve_code).transpose()?,
            scenario: Some((path, hex(&Sha256::digest(&text)))),
            ext: "svg",
            context: String::new(),
        };
        return Ok((recipe, None, format!("scenario {sc}")));
    }
    let command = match (inline, body.capture.as_deref()) {
        (Some(c), _) => c,
        (None, Some(c)) => c.to_string(),
        (None, None) => {
            let fence = doc.fence_before(marker.line).ok_or(
                "the marker has no command (after --, capture: in its body, or a shell code block above it)",
            )?;
            if !markdown::SHELL_LANGS.contains(&fence.lang.as_str()) {
                return Err(format!(
                    "the marker has no command and the code block above it (line {}) is '{}', not a shell block",
                    fence.start + 1,
                    fence.lang
                ));
            }
            fence_commands(&fence.content)
        }
    };
    let command = resolve_code(&command)?;
    if command.trim().is_empty() {
        return Err("the marker's command is empty".into());
    }
    let alt = command.lines().next().unwrap_or("").trim().to_string();
    Ok((
        Recipe {
            options,
            command,
            setup: body.setup.as_deref().map(resolve_code).transpose()?,
            teardown: body.teardown.as_deref().map(resolve_code).transpose()?,
            scenario: None,
            ext,
            context: String::new(),
        },
        out,
        alt,
    ))
}

/// The commands of a shell block: the `$ `-prompted lines when there are any (the rest is
/// output), else every line.
fn fence_commands(content: &str) -> String {
    let prompted: Vec<&str> = content
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("$ "))
        .collect();
    if prompted.is_empty() {
        content.to_string()
    } else {
        prompted.join("\n")
    }
}

/// A marker's `-o`: relative, no `..`, no `:`, with an extension.
fn check_out(o: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(o);
    if o.contains(':') {
        return Err(format!("-o {o}: ':' is not allowed"));
    }
    if p.components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "-o {o}: must be relative to the output directory, without '..'"
        ));
    }
    if p.extension().is_none() {
        return Err(format!(
            "-o {o}: needs an extension (.svg, .png, .jpg, .webp, .gif, .mp4, .webm or .cast)"
        ));
    }
    Ok(p)
}

/// Runs one recipe, writing its object.
fn run(r: &Recipe, object: &Path, opts: &MarkdownOptions) -> Result<(), String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let workdir = match &r.scenario {
        Some((path, _)) => path.parent().unwrap_or(&cwd).to_path_buf(),
        None => cwd,
    };
    if let Some(setup) = &r.setup {
        shell("setup", setup, &workdir)?;
    }
    let result = if let Some((path, _)) = &r.scenario {
        run_scenario(path, object, opts)
    } else {
        let mut cmd = Command::new(&opts.exe);
        if let Some(c) = &opts.config {
            cmd.arg("-C").arg(c);
        }
        cmd.arg("capture");
        if r.ext == "cast" {
            // The recording is the artifact; the picture is not kept.
            cmd.arg("--save-cast")
                .arg(object)
                .arg("-o")
                .arg("/dev/null");
        } else {
            cmd.arg("-o").arg(object);
        }
        cmd.args(&r.options)
            .arg("--")
            .arg(&r.command)
            .current_dir(&workdir);
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", opts.exe.display()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("capture failed: {}", tail(&out.stderr)))
        }
    };
    let teardown = r
        .teardown
        .as_ref()
        .map(|t| shell("teardown", t, &workdir))
        .unwrap_or(Ok(()));
    result.and(teardown)
}

/// Runs a scenario document; its first capture is the picture. The object records the
/// artifacts' paths (JSON).
fn run_scenario(path: &Path, object: &Path, opts: &MarkdownOptions) -> Result<(), String> {
    let mut cmd = Command::new(&opts.exe);
    if let Some(c) = &opts.config {
        cmd.arg("-C").arg(c);
    }
    let out = cmd
        .arg("scenario")
        .arg("run")
        .arg(path)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", opts.exe.display()))?;
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    if !out.status.success() {
        let msg = reply["error"]["message"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| tail(&out.stderr));
        return Err(format!("scenario failed: {msg}"));
    }
    let artifacts = reply["artifacts"].clone();
    if artifacts.as_array().is_none_or(|a| a.is_empty()) {
        return Err(format!("scenario {} captures nothing", path.display()));
    }
    output::write_atomic(object, format!("{artifacts}\n").as_bytes()).map_err(|e| e.to_string())
}

/// The first artifact a scenario object records.
fn scenario_artifact(object: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(object)
        .map_err(|e| format!("cannot read {}: {e}", object.display()))?;
    let v: Vec<PathBuf> =
        serde_json::from_str(&text).map_err(|e| format!("unreadable {}: {e}", object.display()))?;
    v.into_iter()
        .next()
        .ok_or_else(|| format!("{} lists no artifact", object.display()))
}

/// A placeholder picture for a recipe: its command, drawn, instead of running it.
fn placeholder(r: &Recipe, object: &Path) -> Result<(), String> {
    let mut e = crate::term::Emulator::new(80, 3);
    let first = r.command.lines().next().unwrap_or("");
    let text = format!("$ {first}\r\n(placeholder: not run)");
    if r.ext == "cast" {
        let cast = format!(
            "{}\n{}\n",
            serde_json::json!({"version": 2, "width": 80, "height": 3}),
            serde_json::json!([0.0, "o", text])
        );
        return output::write_atomic(object, cast.as_bytes()).map_err(|e| e.to_string());
    }
    e.advance(text.as_bytes());
    let screen = e.snapshot();
    let format = Format::from_path(object)
        .ok()
        .filter(|f| !f.is_video())
        .unwrap_or(Format::Svg);
    let appearance = crate::render::Appearance::default();
    let bytes = format.render(
        &screen,
        &appearance,
        &crate::render::fonts::Fonts::new(),
        1.0,
    )?;
    output::write_atomic(object, &bytes).map_err(|e| e.to_string())
}

fn shell(what: &str, script: &str, cwd: &Path) -> Result<(), String> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{what}: cannot run sh: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}): {}",
            out.status,
            tail(&out.stderr)
        ))
    }
}

/// The last lines of a program's stderr, one line.
fn tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    // The capture's own lines carry its prefix; the batch adds its own.
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.strip_prefix("console2svg: error: ").unwrap_or(l))
        .collect();
    let start = lines.len().saturating_sub(3);
    let t = lines[start..].join(" / ");
    if t.is_empty() {
        "no message".into()
    } else {
        t
    }
}

/// Writes `target` as a copy of `object` unless it already holds the same bytes; true when
/// written.
fn copy_if_changed(object: &Path, target: &Path) -> Result<bool, String> {
    let bytes =
        std::fs::read(object).map_err(|e| format!("cannot read {}: {e}", object.display()))?;
    if std::fs::symlink_metadata(target).is_ok_and(|m| m.is_file())
        && std::fs::read(target).ok().as_deref() == Some(bytes.as_slice())
    {
        return Ok(false);
    }
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    output::write_atomic(target, &bytes).map_err(|e| e.to_string())?;
    Ok(true)
}

/// Makes `target` a relative symbolic link to `object` unless it already is one; true when
/// written. The link is made under a temporary name and renamed over `target`; where the file
/// system has no symbolic links, `target` is a copy.
fn link_if_changed(object: &Path, target: &Path) -> Result<bool, String> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let rel = relative(dir, object).ok_or("cannot make a relative link")?;
    if std::fs::read_link(target).ok().as_deref() == Some(Path::new(&rel)) {
        return Ok(false);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = dir.join(format!(
        ".{}.c2s-link-{}",
        target.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&tmp);
    match std::os::unix::fs::symlink(&rel, &tmp) {
        Ok(()) => std::fs::rename(&tmp, target).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot link {}: {e}", target.display())
        })?,
        // A file system without symbolic links: a copy.
        Err(_) => return copy_if_changed(object, target),
    }
    Ok(true)
}

/// `to` relative to the directory `from` (both absolute), `/`-separated.
pub(crate) fn relative(from: &Path, to: &Path) -> Option<String> {
    let from: Vec<Component> = from.components().collect();
    let to_c: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to_c).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - common];
    parts.extend(
        to_c[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Some(parts.join("/"))
}

/// `path` relative to `root` when it is under it, `/`-separated.
fn rel_under(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// `path` as shown to people: relative to the current directory when under it.
fn display(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| rel_under(&cwd, path))
        .unwrap_or_else(|| path.display().to_string())
}

/// Every `.md`/`.mdx` file under `dir` (hidden directories, `node_modules` and the output
/// directory skipped).
fn collect_markdown(dir: &Path, output: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if name.starts_with('.') || name == "node_modules" || path == output {
                continue;
            }
            collect_markdown(&path, output, out)?;
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("mdx"))
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_paths_are_checked() {
        assert!(check_out("img/a.svg").is_ok());
        assert!(check_out("../a.svg").unwrap_err().contains("'..'"));
        assert!(check_out("img/../../a.svg").is_err());
        assert!(check_out("/tmp/a.svg").is_err());
        assert!(check_out("c:a.svg").unwrap_err().contains("':'"));
        assert!(check_out("img/a").unwrap_err().contains("extension"));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(
                Path::new("/r/docs/guide"),
                Path::new("/r/assets/guide/x.svg")
            )
            .as_deref(),
            Some("../../assets/guide/x.svg")
        );
        assert_eq!(
            relative(
                Path::new("/r/assets"),
                Path::new("/r/assets/.generated/h.svg")
            )
            .as_deref(),
            Some(".generated/h.svg")
        );
    }

    #[test]
    fn shell_blocks_with_prompts_run_only_the_commands() {
        assert_eq!(fence_commands("$ ls\nfile\n$ pwd\n/x"), "ls\npwd");
        assert_eq!(fence_commands("ls\npwd"), "ls\npwd");
    }

    #[test]
    fn recipes_hash_everything_that_shapes_the_picture() {
        let r = Recipe {
            options: vec!["-w".into(), "80".into()],
            command: "ls".into(),
            setup: None,
            teardown: None,
            scenario: None,
            ext: "svg",
            context: "console2svg 0.1.0".into(),
        };
        let mut other = r.clone();
        other.options.push("-c".into());
        assert_ne!(r.hash(), other.hash());
        let mut upgraded = r.clone();
        upgraded.context = "console2svg 0.2.0".into();
        assert_ne!(r.hash(), upgraded.hash());
        assert_eq!(r.hash(), r.clone().hash());
        assert_eq!(r.hash().len(), 20);
    }
}
