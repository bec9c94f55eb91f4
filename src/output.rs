//! Writing artifacts: the output format from a path's extension, and safe file writes (a reader
//! never sees a half-written file; on error nothing is left behind).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::render::{self, fonts::Fonts, Appearance};
use crate::term::Screen;

/// Formats an artifact can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Svg,
    /// Rasterised in-process (see `render::raster`).
    Png,
}

impl Format {
    /// The name used in JSON replies (`artifact.format`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
        }
    }

    /// `screen` drawn with `appearance` in this format; `scale` applies to raster formats.
    /// SVG is [`render::render_svg`]; PNG rasterises [`render::render_for_raster`] (glyphs as
    /// outlines, so the rasteriser lays out no text: the same picture, much faster).
    ///
    /// Errors: as `render::raster::png`.
    pub fn render(
        self,
        screen: &Screen,
        appearance: &Appearance,
        fonts: &Fonts,
        scale: f32,
    ) -> Result<Vec<u8>, String> {
        match self {
            Format::Svg => Ok(render::render_svg(screen, appearance, fonts).into_bytes()),
            Format::Png => render::raster::png_scene(
                &render::render_for_raster(screen, appearance, fonts),
                scale,
            ),
        }
    }

    /// The format a path's extension asks for: `.svg` (or no extension) is SVG, `.png` PNG.
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
            Some("png") => Ok(Format::Png),
            Some(other) => Err(format!(
                "unsupported output format '.{other}' for {} (supported: .svg, .png)",
                path.display()
            )),
        }
    }
}

/// The plain OS message of an I/O error, without the temporary path tempfile appends to it
/// (`… at path "/dir/.console2svg-XXXX"`).
fn os_message(e: &std::io::Error) -> String {
    let msg = e.to_string();
    msg.split(" at path \"").next().unwrap_or(&msg).to_string()
}

/// Follows symbolic links at `path` (also dangling ones) to the file they name.
fn resolve_links(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(target) => p = p.parent().map_or(target.clone(), |dir| dir.join(&target)),
            Err(_) => break,
        }
    }
    p
}

/// Writes `bytes` to `path`.
///
/// A regular file (or a new one) is replaced atomically: a temporary file in the same
/// directory, flushed, given the old file's permissions (0644 for a new file), then renamed over
/// it. A symbolic link is followed and its target replaced the same way. Anything else that
/// exists there (a device such as `/dev/stdout`, a FIFO) is written to directly, never replaced.
///
/// Errors: one line naming `path` and the OS's reason.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_with_mode(path, bytes, 0o644)
}

/// Like [`write_atomic`], but a new file is created private (0600).
///
/// Errors: as [`write_atomic`].
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_with_mode(path, bytes, 0o600)
}

fn write_with_mode(path: &Path, bytes: &[u8], new_mode: u32) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {}: {}", path.display(), os_message(&e));
    let target = resolve_links(path);
    let existing = std::fs::metadata(&target).ok();
    if let Some(meta) = &existing {
        if meta.is_dir() {
            return Err(format!(
                "cannot write {}: it is a directory",
                path.display()
            ));
        }
        if !meta.is_file() {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&target)
                .map_err(fail)?;
            return f.write_all(bytes).and_then(|_| f.flush()).map_err(fail);
        }
    }
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mode = existing.map_or(new_mode, |m| m.permissions().mode() & 0o7777);
    let mut tmp = tempfile::Builder::new()
        .prefix(".console2svg-")
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode)).map_err(fail)?;
    tmp.persist(&target).map_err(|e| fail(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_files_keeps_modes_follows_links_and_writes_devices() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.svg");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&file, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );

        let link = dir.path().join("link.svg");
        std::os::unix::fs::symlink("a.svg", &link).unwrap();
        write_atomic(&link, b"via link").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link stays a link"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "via link");

        write_atomic(Path::new("/dev/null"), b"discarded").unwrap();
        assert!(
            !std::fs::metadata("/dev/null").unwrap().is_file(),
            "a device is written to, not replaced"
        );

        let fresh = dir.path().join("fresh.svg");
        write_atomic(&fresh, b"x").unwrap();
        assert_eq!(
            std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
            0o644
        );

        let err = write_atomic(&dir.path().join("no/such/x.svg"), b"x").unwrap_err();
        assert!(
            err.ends_with("No such file or directory (os error 2)")
                && !err.contains(".console2svg-"),
            "{err}"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 3, "no temporary files left: {names:?}");
    }
}
