//! Writing artifacts: the output format from a path's extension, and atomic file writes
//! (a reader never sees a half-written file; on error nothing is left behind).

use std::io::Write;
use std::path::Path;

/// Formats an artifact can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Svg,
}

impl Format {
    /// The name used in JSON replies (`artifact.format`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Svg => "svg",
        }
    }

    /// The format a path's extension asks for: `.svg` (or no extension) is SVG.
    ///
    /// Errors: a message naming the unsupported extension.
    pub fn from_path(path: &Path) -> Result<Format, String> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("svg") => Ok(Format::Svg),
            Some(other) => Err(format!(
                "unsupported output format '.{other}' for {} (supported: .svg)",
                path.display()
            )),
        }
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed, then
/// renamed over `path`. Errors carry the path.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let mut tmp = tempfile::Builder::new()
        .prefix(".console2svg-")
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    // Temporary files are created 0600; an artifact is an ordinary readable file.
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}
