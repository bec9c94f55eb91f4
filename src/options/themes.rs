//! Where `-t` finds a theme, and the user's theme directory (`theme install`, `theme list`,
//! `theme remove`).
//!
//! `-t ARG` is, in order: a built-in theme id; an installed theme's id (or the `pc` variant id
//! of an installed original `theme.json`); a built-in window style (`-t nord -t macos` layers
//! the macOS frame over nord's colours, as the original's window themes do); a path to a theme
//! file in any format [`formats::detect`] knows, or to a directory holding the original's
//! `theme.json`.
//!
//! The theme directory is `$XDG_DATA_HOME/console2svg/themes` (else
//! `~/.local/share/console2svg/themes`). An installed theme is one file `<id>.<ext>` (the
//! source's extension kept, so its format is found again) or one directory `<id>/` (an original
//! theme directory, copied whole).

use std::path::{Path, PathBuf};

use crate::render::chrome;
use crate::render::theme::{self, formats, formats::Format, ThemeError, ThemeSpec};

/// The user theme directory (see the module doc); `None` when neither `XDG_DATA_HOME` nor
/// `HOME` is set.
pub fn user_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("XDG_DATA_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|h| h.join(".local/share")))
        .map(|d| d.join("console2svg/themes"))
}

/// One installed theme.
#[derive(Debug, Clone, PartialEq)]
pub struct Installed {
    /// The id `-t` takes.
    pub id: String,
    /// Its file or directory in [`user_dir`].
    pub path: PathBuf,
    /// The pc variant's id (an original `theme.json` with `appearance.pc`).
    pub pc_id: Option<String>,
}

/// The installed themes, sorted by id (empty when there is no theme directory).
pub fn installed() -> Vec<Installed> {
    let Some(dir) = user_dir() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<Installed> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if name.starts_with('.') {
                return None;
            }
            let id = if path.is_dir() {
                name
            } else {
                Path::new(&name).file_stem()?.to_string_lossy().to_string()
            };
            let pc_id = original_of(&path)
                .ok()
                .flatten()
                .and_then(|o| o.pc.map(|(id, _)| id));
            Some(Installed { id, path, pc_id })
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The original `theme.json` of `path` (a directory holding one, or the file), if it is one.
fn original_of(path: &Path) -> Result<Option<formats::OriginalTheme>, ThemeError> {
    let file = if path.is_dir() {
        path.join("theme.json")
    } else {
        path.to_path_buf()
    };
    let bytes = read(&file)?;
    let origin = file.display().to_string();
    if formats::detect(&origin, &bytes) != Some(Format::Original) {
        return Ok(None);
    }
    let text = String::from_utf8_lossy(&bytes);
    formats::parse_original(&text, &origin).map(Some)
}

/// Most bytes a theme or frame file may hold: real ones are a few KB; a device or a huge file
/// named by mistake is refused before it is read whole.
const MAX_THEME_BYTES: u64 = 4 * 1024 * 1024;

fn read(path: &Path) -> Result<Vec<u8>, ThemeError> {
    use std::io::Read;
    let error = |source| ThemeError::Read {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::open(path).map_err(error)?;
    let meta = file.metadata().map_err(error)?;
    if !meta.is_file() {
        return Err(error(std::io::Error::other("not a regular file")));
    }
    let mut bytes = Vec::new();
    file.take(MAX_THEME_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(error)?;
    if bytes.len() as u64 > MAX_THEME_BYTES {
        return Err(error(std::io::Error::other(format!(
            "larger than {} MiB: not a theme file",
            MAX_THEME_BYTES >> 20
        ))));
    }
    Ok(bytes)
}

fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.contains('.') || Path::new(arg).exists()
}

/// The theme specs `-t arg` stands for, in stacking order (an original theme's `$include`s
/// first, then the theme itself). See the module doc for the lookup order.
///
/// Errors: one line naming the file and the key ([`ThemeError`]).
pub fn load(arg: &str) -> Result<Vec<ThemeSpec>, ThemeError> {
    load_at(arg, 0, true)
}

/// `paths`: whether `arg` may be a path (`-t`), or only an id (an original theme's
/// `$include`, which names themes by id, never by path).
fn load_at(arg: &str, depth: u32, paths: bool) -> Result<Vec<ThemeSpec>, ThemeError> {
    if depth > 8 {
        return Err(ThemeError::Value {
            path: arg.to_string(),
            key: "$include".into(),
            msg: "nests more than 8 deep (a cycle?)".into(),
        });
    }
    if theme::builtin_ids().contains(&arg) {
        return theme::load(arg).map(|s| vec![s]);
    }
    let installed = installed();
    if let Some(t) = installed.iter().find(|t| t.id == arg) {
        return load_path(&t.path, false, depth);
    }
    if let Some(t) = installed.iter().find(|t| t.pc_id.as_deref() == Some(arg)) {
        return load_path(&t.path, true, depth);
    }
    if chrome::builtin_names().contains(&arg) {
        return Ok(vec![ThemeSpec {
            id: Some(arg.to_string()),
            window: Some(arg.to_string()),
            ..ThemeSpec::default()
        }]);
    }
    if paths && looks_like_path(arg) {
        return load_path(Path::new(arg), false, depth);
    }
    let mut valid: Vec<String> = theme::builtin_ids().iter().map(|s| s.to_string()).collect();
    valid.extend(installed.iter().map(|t| t.id.clone()));
    valid.extend(
        chrome::builtin_names()
            .iter()
            .filter(|n| !valid.iter().any(|v| v == *n))
            .map(|n| n.to_string())
            .collect::<Vec<_>>(),
    );
    Err(ThemeError::Unknown {
        id: arg.to_string(),
        valid: valid.join(", "),
    })
}

/// A theme file or an original theme directory; `pc`: its `appearance.pc` variant.
fn load_path(path: &Path, pc: bool, depth: u32) -> Result<Vec<ThemeSpec>, ThemeError> {
    let file = if path.is_dir() {
        path.join("theme.json")
    } else {
        path.to_path_buf()
    };
    let origin = file.display().to_string();
    let bytes = read(&file)?;
    let format = formats::detect(&origin, &bytes).ok_or_else(|| ThemeError::UnknownFormat {
        path: origin.clone(),
    })?;
    if format != Format::Original {
        return formats::parse(format, &bytes, &origin).map(|s| vec![s]);
    }
    let o = formats::parse_original(&String::from_utf8_lossy(&bytes), &origin)?;
    let root = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let root = root.canonicalize().map_err(|source| ThemeError::Read {
        path: root.display().to_string(),
        source,
    })?;
    let (key, mut spec) = match (pc, o.pc) {
        (true, Some((_, s))) => ("appearance.pc.window", s),
        _ => ("appearance.normal.window", o.normal),
    };
    // A window asset (the original's `chrome.json`) resolves inside the theme's directory.
    if let Some(w) = spec.window.clone() {
        if !chrome::builtin_names().contains(&w.as_str()) {
            let target = root
                .join(&w)
                .canonicalize()
                .map_err(|e| ThemeError::Value {
                    path: origin.clone(),
                    key: key.into(),
                    msg: format!("'{w}' cannot be read: {e}"),
                })?;
            if !target.starts_with(&root) {
                return Err(ThemeError::Value {
                    path: origin.clone(),
                    key: key.into(),
                    msg: format!("'{w}' is outside the theme's directory"),
                });
            }
            spec.window = Some(target.display().to_string());
        }
    }
    let mut out = Vec::new();
    for id in &o.includes {
        if id == &o.id {
            return Err(ThemeError::Value {
                path: origin.clone(),
                key: "$include".into(),
                msg: format!("'{id}' includes itself"),
            });
        }
        out.extend(
            load_at(id, depth + 1, false).map_err(|e| ThemeError::Value {
                path: origin.clone(),
                key: "$include".into(),
                msg: format!("'{id}': {e}"),
            })?,
        );
    }
    out.push(spec);
    Ok(out)
}

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct InstallReport {
    /// The id the theme is installed under.
    pub id: String,
    /// Where it went.
    pub path: PathBuf,
    /// The source's format.
    pub format: Format,
}

/// An id made of `[a-z0-9._-]` from `name` (other characters become `-`).
fn slug(name: &str) -> String {
    let s: String = name
        .trim()
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    s.trim_matches('-').to_string()
}

/// Copies the theme at `source` (a file in any known format, or an original theme directory)
/// into [`user_dir`] under `id` (default: the theme's own id or name, else the file stem). The
/// theme is loaded first; nothing is written unless it loads. An id a built-in theme or window
/// style has is refused; so is one already installed unless `force`.
///
/// Errors: one line (the source, the id or the directory, and what is wrong).
pub fn install(source: &Path, id: Option<&str>, force: bool) -> Result<InstallReport, String> {
    let file = if source.is_dir() {
        source.join("theme.json")
    } else {
        source.to_path_buf()
    };
    let origin = file.display().to_string();
    let bytes = read(&file).map_err(|e| e.to_string())?;
    let format = formats::detect(&origin, &bytes).ok_or_else(|| {
        ThemeError::UnknownFormat {
            path: origin.clone(),
        }
        .to_string()
    })?;
    let specs = load_path(source, false, 0).map_err(|e| e.to_string())?;
    let own = match format {
        Format::Original => original_of(&file).map_err(|e| e.to_string())?.map(|o| o.id),
        _ => specs.last().and_then(|s| s.id.clone()),
    };
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let id = match id {
        Some(i) => {
            if slug(i) != i || i.is_empty() {
                return Err(format!(
                    "theme install: id '{i}' must be made of a-z, 0-9, '-' and '_'"
                ));
            }
            i.to_string()
        }
        None => own
            .as_deref()
            .map(slug)
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| slug(&stem)),
    };
    if id.is_empty() {
        return Err(format!(
            "theme install: no id for '{origin}'; give one with --id"
        ));
    }
    if theme::builtin_ids().contains(&id.as_str()) || chrome::builtin_names().contains(&id.as_str())
    {
        return Err(format!(
            "theme install: '{id}' is a built-in theme or window style; give another id with --id"
        ));
    }
    let dir = user_dir().ok_or("theme install: neither XDG_DATA_HOME nor HOME is set")?;
    let existing: Vec<Installed> = installed().into_iter().filter(|t| t.id == id).collect();
    if !existing.is_empty() && !force {
        return Err(format!(
            "theme install: '{id}' is already installed ({}); remove it first or pass --force",
            existing[0].path.display()
        ));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("theme install: {}: {e}", dir.display()))?;
    // Staged beside its final place, then renamed: a failure leaves nothing half-written.
    let stage = tempfile::Builder::new()
        .prefix(".stage-")
        .tempdir_in(&dir)
        .map_err(|e| format!("theme install: {}: {e}", dir.display()))?;
    let (staged, target) = if source.is_dir() {
        let staged = stage.path().join(&id);
        copy_dir(source, &staged).map_err(|e| format!("theme install: {e}"))?;
        (staged, dir.join(&id))
    } else {
        let name = match file.extension() {
            Some(ext) => format!("{id}.{}", ext.to_string_lossy()),
            None => id.clone(),
        };
        let staged = stage.path().join(&name);
        std::fs::write(&staged, &bytes).map_err(|e| format!("theme install: {e}"))?;
        (staged, dir.join(name))
    };
    for old in &existing {
        let r = if old.path.is_dir() {
            std::fs::remove_dir_all(&old.path)
        } else {
            std::fs::remove_file(&old.path)
        };
        r.map_err(|e| format!("theme install: {}: {e}", old.path.display()))?;
    }
    std::fs::rename(&staged, &target)
        .map_err(|e| format!("theme install: {}: {e}", target.display()))?;
    Ok(InstallReport {
        id,
        path: target,
        format,
    })
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()))?;
        } else if t.is_file() {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// Removes the installed theme `id`; returns the path removed.
///
/// Errors: a built-in id, or no installed theme of that id (the message lists them).
pub fn remove(id: &str) -> Result<PathBuf, String> {
    if theme::builtin_ids().contains(&id) {
        return Err(format!(
            "theme remove: '{id}' is a built-in theme and cannot be removed"
        ));
    }
    let all = installed();
    let Some(t) = all.iter().find(|t| t.id == id) else {
        let ids: Vec<&str> = all.iter().map(|t| t.id.as_str()).collect();
        return Err(format!(
            "theme remove: no installed theme '{id}' (installed: {})",
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        ));
    };
    let r = if t.path.is_dir() {
        std::fs::remove_dir_all(&t.path)
    } else {
        std::fs::remove_file(&t.path)
    };
    r.map_err(|e| format!("theme remove: {}: {e}", t.path.display()))?;
    Ok(t.path.clone())
}
