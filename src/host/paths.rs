//! Where the host lives: a private per-user runtime directory holding the socket.
//!
//! Order (DESIGN.md, IPC): `$CONSOLE2SVG_RUNTIME_DIR` (tests and side-by-side hosts), else
//! `$XDG_RUNTIME_DIR/console2svg`, else `<temp dir>/console2svg-<uid>`. The directory is created
//! 0700 and must be owned by the current user; the socket inside is `host.sock`, 0600.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::PathBuf;

/// The runtime directory (not created).
pub fn runtime_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CONSOLE2SVG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(xdg) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(xdg).join("console2svg");
    }
    std::env::temp_dir().join(format!(
        "console2svg-{}",
        rustix::process::getuid().as_raw()
    ))
}

/// The socket path inside [`runtime_dir`].
pub fn socket_path() -> PathBuf {
    runtime_dir().join("host.sock")
}

/// Creates the runtime directory (0700) if needed and checks it is ours and private.
///
/// Errors: a message naming the directory when it cannot be created, belongs to another user,
/// or is accessible to others.
pub fn ensure_runtime_dir() -> Result<PathBuf, String> {
    let dir = runtime_dir();
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
    {
        Ok(()) => {}
        Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
    }
    let meta =
        std::fs::metadata(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    if meta.uid() != rustix::process::getuid().as_raw() {
        return Err(format!("{} belongs to another user", dir.display()));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| {
            format!(
                "{} is not private and cannot be made so: {e}",
                dir.display()
            )
        })?;
    }
    Ok(dir)
}

/// Creates `dir` (0700) if needed, for private files under the runtime directory.
///
/// Errors: a message naming the directory.
pub fn ensure_private_dir(dir: &std::path::Path) -> Result<PathBuf, String> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir.to_path_buf())
}
