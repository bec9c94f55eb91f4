//! Where `session inspect` puts its images: a private per-user temporary root
//! (`<temp dir>/console2svg-inspect-<uid>`, 0700) holding one unpredictable
//! `inspect-<32 hex>` directory (0700) per inspection with `inspect.svg` (0600) inside.
//! Inspections older than 24 h are removed, best effort, whenever a new one is made; newer ones
//! stay so the caller can still read them (session spec §7).

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// Age after which an inspection directory is swept.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// The per-user root (not created).
pub fn root() -> PathBuf {
    std::env::temp_dir().join(format!(
        "console2svg-inspect-{}",
        rustix::process::getuid().as_raw()
    ))
}

/// Creates a fresh inspection directory and returns the path of its `inspect.svg`, after
/// sweeping inspections older than [`MAX_AGE`].
///
/// Errors: a message when the root cannot be created or is not private and ours.
pub fn new_inspection() -> Result<PathBuf, String> {
    let root = root();
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&root)
        .map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let meta = std::fs::symlink_metadata(&root)
        .map_err(|e| format!("cannot read {}: {e}", root.display()))?;
    if !meta.is_dir() || meta.uid() != rustix::process::getuid().as_raw() {
        return Err(format!("{} is not a directory of ours", root.display()));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("cannot make {} private: {e}", root.display()))?;
    }
    sweep(&root);
    let dir = root.join(format!(
        "inspect-{}",
        &super::protocol::SessionId::generate()[2..]
    ));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir.join("inspect.svg"))
}

/// Removes `inspect-*` directories under `root` last modified more than [`MAX_AGE`] ago.
fn sweep(root: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with("inspect-") {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > MAX_AGE));
        if old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
