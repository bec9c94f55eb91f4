//! Writing artifacts: the output format from a path's extension, and safe file writes (a reader
//! never sees a half-written file; on error nothing is left behind).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::render::{self, fonts::Fonts, Appearance};
use crate::term::Screen;

/// Formats an artifact can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Svg,
    /// Rasterised in-process (see `render::raster`).
    Png,
    /// The PNG's pixels as a JPEG (quality 90), over white where the picture is transparent
    /// (JPEG has no alpha).
    #[value(alias = "jpeg")]
    Jpg,
    /// The PNG's pixels as a lossless WebP (alpha kept).
    Webp,
    /// Animated GIF, in-process (`render::raster::GifWriter`).
    Gif,
    /// H.264 video through ffmpeg (`recording::ffmpeg`).
    Mp4,
    /// VP9 video through ffmpeg.
    Webm,
}

impl Format {
    /// The name used in JSON replies (`artifact.format`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
            Format::Jpg => "jpg",
            Format::Webp => "webp",
            Format::Gif => "gif",
            Format::Mp4 => "mp4",
            Format::Webm => "webm",
        }
    }

    /// Whether the format is a still made of pixels (PNG, JPEG, WebP): `--scale` applies.
    pub fn is_raster(self) -> bool {
        matches!(self, Format::Png | Format::Jpg | Format::Webp)
    }

    /// Whether the format only holds animations (GIF, MP4, WebM).
    pub fn is_video(self) -> bool {
        matches!(self, Format::Gif | Format::Mp4 | Format::Webm)
    }

    /// `screen` drawn with `appearance` in this format; `scale` applies to raster formats.
    /// SVG is [`render::render_svg`]; PNG rasterises [`render::render_for_raster`] (glyphs as
    /// outlines, so the rasteriser lays out no text: the same picture, much faster); JPEG and
    /// WebP encode the same pixels ([`render::raster::jpeg_scene`], [`render::raster::webp_scene`]).
    ///
    /// Errors: as `render::raster::png`; a video format (its frames come from a recording).
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
            Format::Jpg => render::raster::jpeg_scene(
                &render::render_for_raster(screen, appearance, fonts),
                scale,
            ),
            Format::Webp => render::raster::webp_scene(
                &render::render_for_raster(screen, appearance, fonts),
                scale,
            ),
            Format::Gif | Format::Mp4 | Format::Webm => Err(format!(
                "{} is an animation format: it needs a recording (-v)",
                self.name()
            )),
        }
    }

    /// The format a path's extension asks for: `.svg` (or no extension) is SVG, `.png` PNG,
    /// `.jpg`/`.jpeg` JPEG, `.webp` WebP, `.gif`, `.mp4`, `.webm` the animation formats.
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
            Some("jpg" | "jpeg") => Ok(Format::Jpg),
            Some("webp") => Ok(Format::Webp),
            Some("gif") => Ok(Format::Gif),
            Some("mp4") => Ok(Format::Mp4),
            Some("webm") => Ok(Format::Webm),
            Some(other) => Err(format!(
                "unsupported output format '.{other}' for {} (supported: .svg, .png, .jpg, .webp, .gif, .mp4, .webm)",
                path.display()
            )),
        }
    }
}

/// Why an artifact write failed.
///
/// `Display` is one line naming the path and the reason. Callers that answer in the session
/// JSON envelope map [`WriteError::Refused`] to `permission_denied` and [`WriteError::Io`] to
/// `io_error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// The path goes through a symbolic link the link rule of [`write_atomic`] does not follow.
    Refused(String),
    /// The OS refused or failed (no such directory, no permission, a directory at the path,
    /// disk full…).
    Io(String),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Refused(m) | WriteError::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for WriteError {}

impl From<WriteError> for String {
    fn from(e: WriteError) -> String {
        e.to_string()
    }
}

/// Writes `bytes` to `path`.
///
/// A regular file (or a new one) is replaced atomically: a temporary file created in the same
/// directory (`O_CREAT|O_EXCL|O_NOFOLLOW`, never through a link), written, flushed to disk,
/// given the old file's permission bits, then renamed over the name (a rename replaces a
/// name, never a link's target). A new file gets `0644` less the process's umask, like a shell
/// redirection. Anything else that exists there (a device such as `/dev/null` or `/dev/stdout`,
/// a FIFO) is written to directly, never replaced. On any error nothing is left behind and an
/// existing file is unchanged.
///
/// # The link rule
///
/// Every symbolic link met on the way to the file (the last component and every directory
/// before it) is checked before it is followed, after the kernel's `protected_symlinks`
/// (Documentation/admin-guide/sysctl/fs.rst), made stricter:
///
/// - a link in a sticky world-writable directory (`/tmp`, `/var/tmp`, `/dev/shm`) is never
///   followed, whoever owns it;
/// - elsewhere a link is followed only when it is owned by the caller (effective uid) or by
///   root (system links such as `/dev/stdout`; root can write anywhere, so its links give
///   nobody a way in).
///
/// Any other link makes the write fail with [`WriteError::Refused`], naming the link, and
/// nothing is written: a link planted in a shared directory cannot make a capture overwrite a
/// file of the link owner's victim. The directory the file goes in is opened once and
/// checked to be the one resolved, so a directory swapped for a link between the check and the
/// write is noticed too.
///
/// Errors: [`WriteError::Refused`] by the link rule; [`WriteError::Io`] otherwise, one line
/// naming `path` and the OS's reason.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_with_mode(path, bytes, 0o644)
}

/// Like [`write_atomic`], but a new file is created private (`0600`).
///
/// Errors: as [`write_atomic`].
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_with_mode(path, bytes, 0o600)
}

/// Where a path leads once its links are followed: a directory without links on the way, and a
/// name in it.
struct Resolved {
    dir: PathBuf,
    /// The directory's `(st_dev, st_ino)` as resolved, to check the one opened.
    dir_id: (u64, u64),
    name: std::ffi::OsString,
    /// The last component is a link (already checked) to something that is no path to follow
    /// by hand (a device behind `/proc/self/fd/N`): open it through the link.
    open_through_link: bool,
}

/// A file's identity: `(st_dev, st_ino)` (their types vary between platforms).
#[allow(clippy::unnecessary_cast)]
fn file_id(st: &rustix::fs::Stat) -> (u64, u64) {
    (st.st_dev as u64, st.st_ino as u64)
}

/// Most links followed for one path (the kernel's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

fn write_with_mode(path: &Path, bytes: &[u8], new_mode: u32) -> Result<(), WriteError> {
    use rustix::fs::{self as rfs, AtFlags, FileType, OFlags};
    let io = |e: std::io::Error| WriteError::Io(format!("cannot write {}: {}", path.display(), e));
    let os = |e: rustix::io::Errno| io(e.into());
    let resolved = resolve(path)?;
    let dir = rfs::open(
        &resolved.dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        rfs::Mode::empty(),
    )
    .map_err(os)?;
    let dir_stat = rfs::fstat(&dir).map_err(os)?;
    if file_id(&dir_stat) != resolved.dir_id {
        return Err(WriteError::Refused(format!(
            "cannot write {}: the directory {} changed while it was being written",
            path.display(),
            resolved.dir.display()
        )));
    }
    let name = resolved.name.as_os_str();
    let existing = match rfs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Some(st),
        Err(rustix::io::Errno::NOENT) => None,
        Err(e) => return Err(os(e)),
    };
    let direct = |flags: OFlags| -> Result<(), WriteError> {
        let fd = rfs::openat(
            &dir,
            name,
            OFlags::WRONLY | OFlags::TRUNC | OFlags::NOCTTY | OFlags::CLOEXEC | flags,
            rfs::Mode::empty(),
        )
        .map_err(os)?;
        let mut f = std::fs::File::from(fd);
        f.write_all(bytes).and_then(|_| f.flush()).map_err(io)
    };
    let mode = match existing {
        None => None,
        Some(st) => match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => Some(st.st_mode & 0o777),
            FileType::Directory => {
                return Err(WriteError::Io(format!(
                    "cannot write {}: it is a directory",
                    path.display()
                )))
            }
            FileType::Symlink => {
                // Only a checked link to a device is left unresolved; a link that appeared
                // since the check is checked now, and written through only to a device.
                check_link(&resolved.dir.join(name), st.st_uid, dir_stat.st_mode).map_err(|m| {
                    WriteError::Refused(format!("cannot write {}: {m}", path.display()))
                })?;
                let target = rfs::statat(&dir, name, AtFlags::empty()).map_err(os)?;
                match FileType::from_raw_mode(target.st_mode) {
                    FileType::RegularFile | FileType::Directory if !resolved.open_through_link => {
                        return Err(WriteError::Refused(format!(
                            "cannot write {}: it changed while it was being written",
                            path.display()
                        )))
                    }
                    FileType::Directory => {
                        return Err(WriteError::Io(format!(
                            "cannot write {}: it is a directory",
                            path.display()
                        )))
                    }
                    _ => return direct(OFlags::empty()),
                }
            }
            _ => return direct(OFlags::NOFOLLOW),
        },
    };
    let (tmp_name, tmp) = create_temp(&dir, new_mode).map_err(os)?;
    let written = (|| -> Result<(), WriteError> {
        let mut f = std::fs::File::from(tmp);
        f.write_all(bytes).map_err(io)?;
        if let Some(mode) = mode {
            rfs::fchmod(&f, rfs::Mode::from_raw_mode(mode)).map_err(os)?;
        }
        f.sync_all().map_err(io)?;
        rfs::renameat(&dir, &tmp_name, &dir, name).map_err(os)
    })();
    if written.is_err() {
        let _ = rfs::unlinkat(&dir, &tmp_name, AtFlags::empty());
    }
    written
}

/// Creates `.console2svg-<random>` in `dir` with `O_CREAT|O_EXCL|O_NOFOLLOW` (mode `mode` less
/// the umask), retrying on a name already taken.
fn create_temp(
    dir: &rustix::fd::OwnedFd,
    mode: u32,
) -> rustix::io::Result<(std::ffi::OsString, rustix::fd::OwnedFd)> {
    use rustix::fs::{self as rfs, OFlags};
    use std::hash::{BuildHasher, Hasher};
    let mut last = rustix::io::Errno::EXIST;
    for attempt in 0u32..100 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        h.write_u32(attempt);
        let name = std::ffi::OsString::from(format!(".console2svg-{:016x}", h.finish()));
        match rfs::openat(
            dir,
            name.as_os_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            rfs::Mode::from_raw_mode(mode),
        ) {
            Ok(fd) => return Ok((name, fd)),
            Err(rustix::io::Errno::EXIST) => last = rustix::io::Errno::EXIST,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Whether the link rule of [`write_atomic`] lets a link owned by `link_uid`, in a directory
/// of mode `dir_mode`, be followed.
///
/// Errors: why not, naming `link`.
fn check_link(link: &Path, link_uid: u32, dir_mode: u32) -> Result<(), String> {
    const STICKY_WORLD_WRITABLE: u32 = 0o1002;
    if dir_mode & STICKY_WORLD_WRITABLE == STICKY_WORLD_WRITABLE {
        return Err(format!(
            "refusing to follow the symbolic link {} in a sticky world-writable directory",
            link.display()
        ));
    }
    let me = rustix::process::geteuid().as_raw();
    if link_uid != me && link_uid != 0 {
        return Err(format!(
            "refusing to follow the symbolic link {}, owned by another user (uid {link_uid})",
            link.display()
        ));
    }
    Ok(())
}

/// Follows `path` component by component, checking every link by the link rule, to a
/// link-free directory and a name in it.
///
/// Errors: [`WriteError::Refused`] for a link the rule does not follow; [`WriteError::Io`] for a
/// path that names a directory, a missing directory on the way, or too many links.
fn resolve(path: &Path) -> Result<Resolved, WriteError> {
    use rustix::fs::{self as rfs, FileType};
    use std::collections::VecDeque;
    use std::ffi::OsString;
    use std::path::Component;
    let io = |e: std::io::Error| WriteError::Io(format!("cannot write {}: {e}", path.display()));
    let os = |e: rustix::io::Errno| io(e.into());
    let id = file_id;

    /// One step of the walk: a path component still to follow.
    enum Part {
        Root,
        Up,
        Name(OsString),
    }
    let parts = |p: &Path| -> Vec<Part> {
        p.components()
            .filter_map(|c| match c {
                Component::RootDir | Component::Prefix(_) => Some(Part::Root),
                Component::CurDir => None,
                Component::ParentDir => Some(Part::Up),
                Component::Normal(n) => Some(Part::Name(n.to_os_string())),
            })
            .collect()
    };
    let mut dir = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        std::env::current_dir().map_err(io)?
    };
    let mut dir_stat = rfs::stat(&dir).map_err(os)?;
    let mut todo: VecDeque<Part> = parts(path).into();
    let mut links = 0;
    while let Some(part) = todo.pop_front() {
        let name = match part {
            Part::Root => {
                dir = PathBuf::from("/");
                dir_stat = rfs::stat(&dir).map_err(os)?;
                continue;
            }
            Part::Up => {
                dir.pop();
                dir_stat = rfs::stat(&dir).map_err(os)?;
                continue;
            }
            Part::Name(n) => n,
        };
        let last = todo.is_empty();
        let candidate = dir.join(&name);
        let st = match rfs::lstat(&candidate) {
            Ok(st) => st,
            Err(rustix::io::Errno::NOENT) if last => {
                return Ok(Resolved {
                    dir,
                    dir_id: id(&dir_stat),
                    name,
                    open_through_link: false,
                })
            }
            Err(e) => return Err(os(e)),
        };
        match FileType::from_raw_mode(st.st_mode) {
            FileType::Symlink => {
                check_link(&candidate, st.st_uid, dir_stat.st_mode).map_err(|m| {
                    WriteError::Refused(format!("cannot write {}: {m}", path.display()))
                })?;
                links += 1;
                if links > MAX_LINKS {
                    return Err(os(rustix::io::Errno::LOOP));
                }
                let target = std::fs::read_link(&candidate).map_err(io)?;
                if last {
                    // A link to a device whose target is no path (`/proc/self/fd/1` →
                    // `pipe:[…]`): written through the link itself.
                    let through = rfs::stat(&candidate)
                        .map(|t| {
                            !matches!(
                                FileType::from_raw_mode(t.st_mode),
                                FileType::RegularFile | FileType::Directory
                            )
                        })
                        .unwrap_or(false);
                    if through && rfs::lstat(dir.join(&target)).is_err() {
                        return Ok(Resolved {
                            dir,
                            dir_id: id(&dir_stat),
                            name,
                            open_through_link: true,
                        });
                    }
                }
                for p in parts(&target).into_iter().rev() {
                    todo.push_front(p);
                }
            }
            _ if last => {
                return Ok(Resolved {
                    dir,
                    dir_id: id(&dir_stat),
                    name,
                    open_through_link: false,
                })
            }
            FileType::Directory => {
                dir = candidate;
                dir_stat = st;
            }
            _ => return Err(os(rustix::io::Errno::NOTDIR)),
        }
    }
    Err(WriteError::Io(format!(
        "cannot write {}: it is a directory",
        path.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// The process's umask, from `/proc/self/status` (reading it with umask(2) would race
    /// the other tests' file creation).
    fn umask() -> u32 {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022)
    }

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn replaces_files_keeps_modes_follows_own_links_and_writes_devices() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.svg");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&file, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(mode(&file), 0o600);

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
            mode(&fresh),
            0o644 & !umask(),
            "a new file: 0644 less the umask"
        );
        let private = dir.path().join("private.svg");
        write_private(&private, b"x").unwrap();
        assert_eq!(mode(&private), 0o600 & !umask());

        let err = write_atomic(&dir.path().join("no/such/x.svg"), b"x").unwrap_err();
        assert!(
            matches!(&err, WriteError::Io(m) if m.ends_with("No such file or directory (os error 2)")),
            "{err}"
        );
        let err = write_atomic(dir.path(), b"x").unwrap_err();
        assert!(err.to_string().ends_with("it is a directory"), "{err}");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 4, "no temporary files left: {names:?}");
    }

    #[test]
    fn relative_paths_and_dot_dot_resolve_like_the_kernel() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink("sub", dir.path().join("to-sub")).unwrap();
        write_atomic(&dir.path().join("to-sub/../x.svg"), b"x").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("x.svg")).unwrap(),
            "x",
            "`..` after a link is taken in the link's target"
        );
        std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
        let err = write_atomic(&dir.path().join("loop"), b"x").unwrap_err();
        assert!(matches!(err, WriteError::Io(_)), "{err}");
    }

    /// A 1777 directory like `/tmp`, with a victim's file outside it.
    fn sticky() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let shared = root.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
        let victim = root.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        (root, shared, victim)
    }

    #[test]
    fn links_in_a_sticky_world_writable_directory_are_never_followed() {
        let (root, shared, victim) = sticky();
        let link = shared.join("out.svg");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let err = write_atomic(&link, b"overwritten").unwrap_err();
        assert!(
            matches!(&err, WriteError::Refused(m) if m.contains("sticky world-writable")),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());

        // A link standing for a directory on the way is refused too.
        std::os::unix::fs::symlink(root.path(), shared.join("dir")).unwrap();
        let err = write_atomic(&shared.join("dir/victim.txt"), b"overwritten").unwrap_err();
        assert!(matches!(err, WriteError::Refused(_)), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");

        // A plain new file there is fine, and nothing else is left behind.
        write_atomic(&shared.join("mine.svg"), b"ok").unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&shared)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["dir", "mine.svg", "out.svg"]);
    }

    #[test]
    fn links_owned_by_another_user_are_not_followed() {
        if !rustix::process::geteuid().is_root() {
            eprintln!("skipped: making a link owned by another user needs root");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let link = dir.path().join("out.svg");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        std::os::unix::fs::lchown(&link, Some(54321), Some(54321)).unwrap();
        let err = write_atomic(&link, b"overwritten").unwrap_err();
        assert!(
            matches!(&err, WriteError::Refused(m) if m.contains("uid 54321")),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }
}
