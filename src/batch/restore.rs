//! `batch restore <manifest> -o DIR [--force] [--prune] [--dry-run]`: copy the assets a
//! `batch markdown --manifest` listed from the manifest's directory (a cache, a CI artifact)
//! into `DIR`, verifying each one's size and SHA-256 first.
//!
//! Rules: every path must be relative with no `..` (else the manifest is refused before
//! anything is written); a source whose size or SHA-256 differs from the manifest is a
//! failure and is not copied; a destination that already holds the same bytes is left alone
//! (no write, no mtime change); one that differs is replaced only with `--force`; aliases
//! (`link`) are made as relative symbolic links. `--prune` removes files under `DIR` the
//! manifest does not list (the manifest itself and hidden files other than `.generated/`
//! objects are kept). `--dry-run` reports and writes nothing. Failures do not stop the others.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{hex, Manifest, Report};
use crate::output;

/// `batch restore` options.
#[derive(Debug, Clone)]
pub struct RestoreOptions {
    /// The manifest; its directory holds the assets.
    pub manifest: PathBuf,
    /// Where to restore them (`-o`).
    pub output: PathBuf,
    /// Replace files that exist with other content.
    pub force: bool,
    /// Remove unlisted files under `output`.
    pub prune: bool,
    /// Report, write nothing.
    pub dry_run: bool,
}

/// Runs `batch restore`.
///
/// Errors (nothing written): the manifest cannot be read or parsed, or lists a path that is
/// absolute or climbs out with `..`.
pub fn restore(opts: &RestoreOptions) -> Result<Report, String> {
    let text = std::fs::read_to_string(&opts.manifest)
        .map_err(|e| format!("cannot read manifest {}: {e}", opts.manifest.display()))?;
    let manifest: Manifest = serde_json::from_str(&text)
        .map_err(|e| format!("invalid manifest {}: {e}", opts.manifest.display()))?;
    if manifest.schema_version != 1 {
        return Err(format!(
            "invalid manifest {}: schemaVersion must be 1",
            opts.manifest.display()
        ));
    }
    for a in &manifest.assets {
        let safe = |p: &str| {
            !p.is_empty()
                && Path::new(p)
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)))
        };
        let bad_link = a
            .link
            .as_deref()
            .is_some_and(|l| l.starts_with('/') || !link_stays_inside(&a.path, l));
        if !safe(&a.path) || bad_link {
            return Err(format!(
                "invalid manifest {}: '{}' is not a relative path inside the output directory",
                opts.manifest.display(),
                a.path
            ));
        }
    }
    let source = opts
        .manifest
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let source = if source.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        source
    };
    let mut report = Report::default();
    let mut listed = BTreeSet::new();
    for a in &manifest.assets {
        report.markers += 1;
        let dest = opts.output.join(&a.path);
        listed.insert(dest.clone());
        if let Some(link) = &a.link {
            if std::fs::read_link(&dest).ok().as_deref() == Some(Path::new(link)) {
                report.up_to_date += 1;
                continue;
            }
            if dest.exists() && !opts.force && std::fs::read_link(&dest).is_err() {
                report.failures.push(format!(
                    "{}: exists and is not the link; use --force",
                    dest.display()
                ));
                continue;
            }
            if opts.dry_run {
                report
                    .lines
                    .push(format!("would link {} -> {link}", dest.display()));
                continue;
            }
            let res = dest
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|_| {
                    let tmp = dest.with_file_name(format!(
                        ".{}.c2s-link-{}",
                        dest.file_name().unwrap_or_default().to_string_lossy(),
                        std::process::id()
                    ));
                    let _ = std::fs::remove_file(&tmp);
                    std::os::unix::fs::symlink(link, &tmp)
                        .and_then(|_| std::fs::rename(&tmp, &dest))
                });
            match res {
                Ok(()) => {
                    report.generated += 1;
                    report
                        .lines
                        .push(format!("linked {} -> {link}", dest.display()));
                }
                Err(e) => report.failures.push(format!("{}: {e}", dest.display())),
            }
            continue;
        }
        let src = source.join(&a.path);
        let bytes = match std::fs::read(&src) {
            Ok(b) => b,
            Err(e) => {
                report
                    .failures
                    .push(format!("{}: cannot read: {e}", src.display()));
                continue;
            }
        };
        let sum = hex(&Sha256::digest(&bytes));
        if bytes.len() as u64 != a.size || sum != a.sha256 {
            report.failures.push(format!(
                "{}: does not match the manifest (size {} / {}, sha256 {} / {})",
                src.display(),
                bytes.len(),
                a.size,
                &sum[..12],
                a.sha256.get(..12).unwrap_or(&a.sha256)
            ));
            continue;
        }
        let existing = std::fs::read(&dest).ok();
        if existing.as_deref() == Some(bytes.as_slice()) {
            report.up_to_date += 1;
            continue;
        }
        if existing.is_some() && !opts.force {
            report.failures.push(format!(
                "{}: exists with other content; use --force to replace it",
                dest.display()
            ));
            continue;
        }
        if opts.dry_run {
            report
                .lines
                .push(format!("would restore {}", dest.display()));
            continue;
        }
        if std::fs::canonicalize(&src).ok() == std::fs::canonicalize(&dest).ok() {
            report.up_to_date += 1;
            continue;
        }
        let res = dest
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .map_err(|e| e.to_string())
            .and_then(|_| output::write_atomic(&dest, &bytes).map_err(|e| e.to_string()));
        match res {
            Ok(()) => {
                report.generated += 1;
                report.lines.push(format!("restored {}", dest.display()));
            }
            Err(e) => report.failures.push(format!("{}: {e}", dest.display())),
        }
    }
    if opts.prune {
        let manifest_abs = std::fs::canonicalize(&opts.manifest).ok();
        let mut files = Vec::new();
        walk(&opts.output, &mut files);
        for f in files {
            if listed.contains(&f) || std::fs::canonicalize(&f).ok() == manifest_abs {
                continue;
            }
            if opts.dry_run {
                report.lines.push(format!("would remove {}", f.display()));
                continue;
            }
            match std::fs::remove_file(&f) {
                Ok(()) => report.lines.push(format!("removed {}", f.display())),
                Err(e) => report
                    .failures
                    .push(format!("{}: cannot remove: {e}", f.display())),
            }
        }
    }
    Ok(report)
}

/// A link inside `path`'s directory that climbs with `..` must still land inside the
/// output directory.
fn link_stays_inside(path: &str, link: &str) -> bool {
    let mut depth: i64 = path.split('/').count() as i64 - 1;
    for part in link.split('/') {
        match part {
            ".." => depth -= 1,
            "." | "" => {}
            _ => depth += 1,
        }
        if depth < 0 {
            return false;
        }
    }
    true
}

/// Regular files and links under `dir` (hidden directories other than `.generated` skipped).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            if !name.starts_with('.') || name == ".generated" {
                walk(&path, out);
            }
        } else if !name.starts_with('.') || dir.ends_with(".generated") {
            out.push(path);
        }
    }
}
