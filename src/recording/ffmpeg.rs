//! MP4 and WebM through the `ffmpeg` program (Debian package `ffmpeg`): raw RGBA frames are
//! piped in at a constant frame rate (a frame shown longer is repeated), encoded H.264
//! (`yuv420p`, even size) or VP9, with ffmpeg's bit-exact flags so the same frames give the
//! same file.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Video containers encoded by ffmpeg.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    Mp4,
    Webm,
}

/// The `ffmpeg` executable on `PATH`, if there is one.
pub fn find() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("ffmpeg"))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The error when ffmpeg is missing.
pub fn missing() -> String {
    "MP4 and WebM output need ffmpeg on PATH (Debian/Ubuntu: apt-get install ffmpeg); GIF and SVG need nothing".into()
}

/// Encodes frames of `width` × `height` px (RGBA, premultiplied alpha is not expected: the
/// frames are opaque) at `fps`, each `(rgba, count)` shown for `count` frame periods.
///
/// Errors: ffmpeg missing ([`missing`]), failing to start, or exiting with an error (its last
/// message line).
pub fn encode(
    container: Container,
    width: u32,
    height: u32,
    fps: u32,
    frames: &mut dyn Iterator<Item = Result<(Vec<u8>, u32), String>>,
) -> Result<Vec<u8>, String> {
    let ffmpeg = find().ok_or_else(missing)?;
    let dir = tempfile::tempdir().map_err(|e| format!("cannot create a temporary file: {e}"))?;
    let ext = match container {
        Container::Mp4 => "mp4",
        Container::Webm => "webm",
    };
    let out = dir.path().join(format!("video.{ext}"));
    let mut cmd = Command::new(ffmpeg);
    cmd.args(["-hide_banner", "-loglevel", "error", "-nostdin", "-y"])
        .args(["-f", "rawvideo", "-pixel_format", "rgba", "-video_size"])
        .arg(format!("{width}x{height}"))
        .args(["-framerate", &fps.to_string(), "-i", "-"])
        .args([
            "-vf",
            "pad=ceil(iw/2)*2:ceil(ih/2)*2",
            "-pix_fmt",
            "yuv420p",
        ])
        .args(["-fflags", "+bitexact", "-flags:v", "+bitexact"]);
    match container {
        Container::Mp4 => cmd.args([
            "-c:v",
            "libx264",
            "-preset",
            "medium",
            "-crf",
            "18",
            "-threads",
            "1",
            "-movflags",
            "+faststart",
        ]),
        Container::Webm => cmd.args([
            "-c:v",
            "libvpx-vp9",
            "-b:v",
            "0",
            "-crf",
            "32",
            "-threads",
            "1",
        ]),
    };
    cmd.arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start ffmpeg: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut failed = None;
    for frame in frames {
        match frame {
            Ok((rgba, count)) => {
                let written = (0..count).try_for_each(|_| stdin.write_all(&rgba));
                if written.is_err() {
                    break; // ffmpeg stopped reading: its exit says why
                }
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    drop(stdin);
    let output = child
        .wait_with_output()
        .map_err(|e| format!("ffmpeg: {e}"))?;
    if let Some(e) = failed {
        return Err(e);
    }
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!("ffmpeg failed ({}): {last}", output.status));
    }
    std::fs::read(&out).map_err(|e| format!("cannot read ffmpeg's output: {e}"))
}
