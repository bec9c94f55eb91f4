//! `capture`'s time options (contract: "Video / animation options", "asciicast"): recording,
//! `--save-cast`, `--in`, animated SVG, GIF/MP4/WebM, stills of one moment, saved frames.
//! Argument mapping only: the work is in [`crate::recording`] and [`crate::render`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};
use serde::Serialize;

use crate::output::{self, Format};
use crate::recording::{self, asciicast, encode, Recording};
use crate::render::{self, fonts::Fonts, Appearance};
use crate::term::Screen;

/// `-m image|video`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Image,
    Video,
}

/// The time options of `capture` and `cast`.
#[derive(Args, Debug, Clone)]
pub struct VideoArgs {
    /// Animated output of the whole run (same as --mode video).
    #[arg(short = 'v', long = "video", help_heading = "Animation")]
    pub video: bool,
    /// image (the final screen) or video (the whole run).
    #[arg(short = 'm', long = "mode", value_enum, help_heading = "Animation")]
    pub mode: Option<Mode>,
    /// Most frames a second (1-120; default 12).
    #[arg(long, help_heading = "Animation")]
    pub fps: Option<u32>,
    /// Play once and stop on the last frame.
    #[arg(long, help_heading = "Animation")]
    pub no_loop: bool,
    /// Hold the last frame this many seconds before the animation ends or loops.
    #[arg(long, value_name = "S", default_value = "1", value_parser = parse_secs, help_heading = "Animation")]
    pub sleep: Duration,
    /// Play this many times as fast (0.01-100).
    #[arg(long, value_name = "X", value_parser = parse_speed, help_heading = "Animation")]
    pub speed: Option<f64>,
    /// Cap every pause at this many seconds (as asciinema does).
    #[arg(long, value_name = "S", value_parser = parse_secs, help_heading = "Animation")]
    pub idle_time_limit: Option<Duration>,
    /// START-END: keep this span of the recording (seconds); T alone: a still of moment T.
    #[arg(long, value_name = "T|START-END", value_parser = parse_time, help_heading = "Animation")]
    pub time: Option<TimeArg>,
    /// A still of frame N (0-based).
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "time",
        help_heading = "Animation"
    )]
    pub frame: Option<usize>,
    /// Also write every frame as an SVG still: DIR/frame-0000.svg, …
    #[arg(long, value_name = "DIR", help_heading = "Animation")]
    pub save_frames: Option<PathBuf>,
    /// Render this asciicast (v2 or v3) instead of running a command.
    #[arg(long = "in", value_name = "FILE", help_heading = "Animation")]
    pub input: Option<PathBuf>,
    /// Also write the output as an asciicast v2 recording.
    #[arg(long, value_name = "PATH", help_heading = "Animation")]
    pub save_cast: Option<PathBuf>,
    /// The options a config file set (not a flag): the flag and the config key, so an error
    /// about the value names the key.
    #[arg(skip)]
    pub from_config: Vec<(&'static str, &'static str)>,
}

/// `--fps` when neither the flag nor the config file sets it.
pub const DEFAULT_FPS: u32 = 12;

/// `--time`: one moment or a span, seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeArg {
    At(Duration),
    Span(Duration, Duration),
}

fn secs(s: &str) -> Option<Duration> {
    let v: f64 = s.trim().parse().ok()?;
    (v.is_finite() && (0.0..=1e7).contains(&v)).then(|| Duration::from_secs_f64(v))
}

fn parse_secs(s: &str) -> Result<Duration, String> {
    secs(s).ok_or_else(|| format!("'{s}' is not a number of seconds (0 or more)"))
}

fn parse_speed(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.01..=100.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a speed from 0.01 to 100")),
    }
}

fn parse_time(s: &str) -> Result<TimeArg, String> {
    let bad = || format!("'{s}' is not a time T or a span START-END (seconds)");
    match s.split_once('-') {
        Some((a, b)) => Ok(TimeArg::Span(
            secs(a).ok_or_else(bad)?,
            secs(b).ok_or_else(bad)?,
        )),
        None => secs(s).map(TimeArg::At).ok_or_else(bad),
    }
}

impl VideoArgs {
    /// Most frames a second (`--fps`, else 12).
    pub fn fps(&self) -> u32 {
        self.fps.unwrap_or(DEFAULT_FPS)
    }

    /// The config file's `capture.mode`, `capture.video` and `capture.image` under these
    /// flags: a flag given wins; `video.time` applies to an animation, `image.*` to a still.
    ///
    /// Errors: `capture.image` with both `frame` and `time`, a negative or reversed time.
    pub fn apply_config(
        &mut self,
        config: &crate::options::CaptureOptions,
        format: Format,
    ) -> Result<(), String> {
        use crate::options::CaptureMode;
        if !self.video && self.mode.is_none() {
            self.mode = config.mode.map(|m| match m {
                CaptureMode::Image => Mode::Image,
                CaptureMode::Video => Mode::Video,
            });
        }
        let seconds = |key: &str, v: f64| {
            secs(&v.to_string()).ok_or_else(|| {
                format!("config capture.{key}: {v} is not a number of seconds (0 or more)")
            })
        };
        let video = config.video.clone().unwrap_or_default();
        if self.fps.is_none() && video.fps.is_some() {
            self.fps = video.fps;
            self.from_config.push(("--fps", "capture.video.fps"));
        }
        if video.looped == Some(false) {
            self.no_loop = true;
        }
        let image = config.image.clone().unwrap_or_default();
        if image.frame.is_some() && image.time.is_some() {
            return Err("config capture.image: give frame or time, not both".into());
        }
        if self.time.is_some() || self.frame.is_some() {
            return Ok(());
        }
        if self.animated(format) {
            if let Some(span) = &video.time {
                let start = seconds("video.time.start", span.start.unwrap_or(0.0))?;
                let end = match span.end {
                    Some(e) => seconds("video.time.end", e)?,
                    None => Duration::from_secs_f64(1e7),
                };
                if end < start {
                    return Err("config capture.video.time: end is before start".into());
                }
                self.time = Some(TimeArg::Span(start, end));
                self.from_config.push(("--time", "capture.video.time"));
            }
        } else {
            if image.frame.is_some() {
                self.frame = image.frame;
                self.from_config.push(("--frame", "capture.image.frame"));
            }
            if let Some(t) = image.time {
                self.time = Some(TimeArg::At(seconds("image.time", t)?));
                self.from_config.push(("--time", "capture.image.time"));
            }
        }
        Ok(())
    }

    /// `message` (an error about a value) naming the config key when a config file set the
    /// value it starts with (`config capture.image.frame: --frame 3: the animation has …`).
    pub fn blame_config(&self, message: String) -> String {
        match self
            .from_config
            .iter()
            .find(|(flag, _)| message.starts_with(&format!("{flag} ")))
        {
            Some((_, key)) => format!("config {key}: {message}"),
            None => message,
        }
    }

    /// Whether the output is an animation (`-v`, `-m video`, or a video format).
    pub fn animated(&self, format: Format) -> bool {
        self.video || self.mode == Some(Mode::Video) || format.is_video()
    }

    /// A still of one moment (`--frame N`, `--time T`).
    fn moment(&self) -> bool {
        self.frame.is_some() || matches!(self.time, Some(TimeArg::At(_)))
    }

    /// Whether the capture must keep its output with timing.
    pub fn records(&self, format: Format) -> bool {
        self.animated(format)
            || self.moment()
            || self.save_cast.is_some()
            || self.save_frames.is_some()
    }

    /// Checks the options against each other before anything runs.
    ///
    /// Errors: one line naming the options that do not go together.
    pub fn check(&self, format: Format, has_command: bool) -> Result<(), String> {
        if self.fps() == 0 || self.fps() > 120 {
            return Err(recording::FrameError::Fps(self.fps()).to_string());
        }
        if self.input.is_some() && has_command {
            return Err("--in renders a recording: give no command with it".into());
        }
        if self.moment() && self.animated(format) && self.video {
            return Err("--frame and --time T make a still: leave out -v".into());
        }
        if matches!(self.time, Some(TimeArg::Span(..))) && !self.animated(format) {
            return Err(
                "--time START-END trims an animation: add -v (or write .gif/.mp4/.webm); --time T makes a still of one moment"
                    .into(),
            );
        }
        if self.moment() && format.is_video() {
            return Err(format!(
                "--frame and --time T make a still: .{} is a video format",
                format.name()
            ));
        }
        Ok(())
    }
}

/// Reads an asciicast file (`--in`, `cast FILE`).
///
/// Errors: one line: `FILE: line N: …` or the read error.
pub fn read_cast(path: &Path) -> Result<Recording, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    asciicast::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// What a recorded capture produced: files to write (all rendered before any is written), the
/// screen for the JSON reply, and the sampled frames.
pub struct Rendered {
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// The picture's screen (the still, or the animation's static frame).
    pub screen: Screen,
    /// Sampled frames for `--json` (`timeMs`, `path`).
    pub samples: Vec<Sample>,
    pub frames: usize,
}

/// One sampled frame in `capture --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    pub time_ms: u64,
    pub path: String,
}

/// Everything the rendering of a recording needs besides the recording.
pub struct Job<'a> {
    pub args: &'a VideoArgs,
    pub format: Format,
    pub out: &'a Path,
    pub appearance: &'a Appearance,
    pub scale: f32,
    /// `-h` was given: every frame is the whole viewport; otherwise frames are cut to the rows
    /// any frame uses.
    pub full_height: bool,
    /// `--no-cursor`.
    pub no_cursor: bool,
    /// Write up to 12 sampled frames next to the output (`--json`).
    pub samples: bool,
    /// The capture's final screen, as a still draws it: the picture when the output is
    /// neither an animation nor a still of one moment (`--save-cast`/`--save-frames` alone).
    pub final_screen: Screen,
    /// The crop and the masking: every frame is masked, all frames are cut to one crop window
    /// (found on the last frame), and the saved cast's output is masked.
    pub still: &'a crate::options::Still,
}

/// `recording` with its output masked ([`crate::mask::Masker::mask_output`]) as one text, so
/// a secret split between two reads is still found; masking replaces characters one for one,
/// so each output event keeps its own characters. Output that is not UTF-8 as a whole is
/// masked event by event (decoded lossily).
pub fn masked_recording(recording: &Recording, masker: &crate::mask::Masker) -> Recording {
    let mut out = recording.clone();
    let whole: Vec<u8> = recording
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            recording::EventKind::Output(bytes) => Some(bytes.as_slice()),
            _ => None,
        })
        .flatten()
        .copied()
        .collect();
    let Ok(text) = std::str::from_utf8(&whole) else {
        for e in &mut out.events {
            if let recording::EventKind::Output(bytes) = &mut e.kind {
                *bytes = masker
                    .mask_output(&String::from_utf8_lossy(bytes))
                    .into_bytes();
            }
        }
        return out;
    };
    let masked = masker.mask_output(text);
    if masked == text {
        return out;
    }
    // Each event's share: the characters that start within its bytes.
    let mut starts = text.char_indices().map(|(i, _)| i).peekable();
    let mut chars = masked.chars();
    let mut end = 0;
    for e in &mut out.events {
        if let recording::EventKind::Output(bytes) = &mut e.kind {
            end += bytes.len();
            let mut count = 0;
            while starts.next_if(|&i| i < end).is_some() {
                count += 1;
            }
            *bytes = chars.by_ref().take(count).collect::<String>().into_bytes();
        }
    }
    out
}

/// Renders `recording` as `job` asks: the animation (or the still of `--frame`/`--time T`),
/// plus `--save-cast` and `--save-frames`.
///
/// Errors: one line (bad `--time` range, `--frame` past the end, ffmpeg missing or failing,
/// a frame too large to rasterise).
pub fn render(recording: Recording, job: &Job<'_>) -> Result<Rendered, String> {
    let args = job.args;
    let mut files = Vec::new();
    if let Some(path) = &args.save_cast {
        let masked = masked_recording(&recording, &job.still.masker);
        files.push((path.clone(), asciicast::write_v2(&masked).into_bytes()));
    }
    let mut rec = recording;
    if let Some(limit) = args.idle_time_limit {
        rec = rec.with_idle_limit(limit);
    }
    if let Some(speed) = args.speed {
        rec = rec.with_speed(speed);
    }
    let total = rec.duration();
    let mut frames = recording::frames(&rec, args.fps()).map_err(|e| e.to_string())?;
    let mut end = total;
    if let Some(TimeArg::Span(a, b)) = args.time {
        frames = recording::trim(frames, total, a, b).map_err(|e| e.to_string())?;
        end = b.min(total).saturating_sub(a);
    }
    for f in &mut frames.list {
        if job.no_cursor {
            f.cursor.visible = false;
        }
    }
    encode::normalise(&mut frames, job.full_height);
    let fonts = Fonts::new();
    job.still
        .apply_frames(&mut frames, job.appearance, &fonts)?;
    if let Some(dir) = &args.save_frames {
        for (i, f) in frames.list.iter().enumerate() {
            let svg = render::render_svg(&frames.screen(f), job.appearance, &fonts);
            files.push((dir.join(format!("frame-{i:04}.svg")), svg.into_bytes()));
        }
    }
    let still = match (args.frame, args.time) {
        (Some(n), _) => Some(recording::frame_index(&frames.list, n).map_err(|e| e.to_string())?),
        (None, Some(TimeArg::At(t))) => {
            Some(recording::frame_at(&frames.list, total, t).map_err(|e| e.to_string())?)
        }
        _ if !args.animated(job.format) => {
            let bytes = job
                .format
                .render(&job.final_screen, job.appearance, &fonts, job.scale)?;
            files.push((job.out.to_path_buf(), bytes));
            return Ok(Rendered {
                files,
                screen: job.final_screen.clone(),
                samples: Vec::new(),
                frames: frames.len(),
            });
        }
        _ => None,
    };
    if let Some(f) = still {
        let screen = frames.screen(f);
        let bytes = job
            .format
            .render(&screen, job.appearance, &fonts, job.scale)?;
        files.push((job.out.to_path_buf(), bytes));
        return Ok(Rendered {
            files,
            screen,
            samples: Vec::new(),
            frames: frames.len(),
        });
    }
    let last_ms = frames.list.last().map_or(0, |f| f.time.as_millis() as u64);
    let duration_ms = (end.as_millis() as u64).max(last_ms) + args.sleep.as_millis() as u64;
    let looped = !args.no_loop;
    let encoding = encode::Encoding {
        duration_ms,
        looped,
        fps: args.fps(),
        scale: job.scale,
    };
    let bytes = encode::encode(&frames, job.format, &encoding, job.appearance, &fonts)
        .map_err(|e| format!("{}: {e}", job.out.display()))?;
    files.push((job.out.to_path_buf(), bytes));
    let mut samples = Vec::new();
    if job.samples {
        let dir = job.out.with_extension("frames");
        for i in recording::sample(&frames.list, 12) {
            let f = &frames.list[i];
            let path = dir.join(format!("frame-{i:04}.png"));
            let png = Format::Png.render(&frames.screen(f), job.appearance, &fonts, job.scale)?;
            let abs = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
            samples.push(Sample {
                time_ms: f.time.as_millis() as u64,
                path: abs.to_string_lossy().into_owned(),
            });
            files.push((path, png));
        }
    }
    let screen = frames
        .list
        .last()
        .map(|f| frames.screen(f))
        .unwrap_or_else(|| Screen::blank(rec.cols as usize, rec.rows as usize));
    Ok(Rendered {
        files,
        screen,
        samples,
        frames: frames.len(),
    })
}

/// Writes every file (creating the directories of `--save-frames` and samples).
///
/// Errors: the first failed write.
pub fn write_all(files: &[(PathBuf, Vec<u8>)]) -> Result<(), String> {
    for (path, bytes) in files {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
        }
        output::write_atomic(path, bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_is_a_moment_or_a_span() {
        assert_eq!(
            parse_time("1.5"),
            Ok(TimeArg::At(Duration::from_millis(1500)))
        );
        assert_eq!(
            parse_time("1-2.5"),
            Ok(TimeArg::Span(
                Duration::from_secs(1),
                Duration::from_millis(2500)
            ))
        );
        assert!(parse_time("a-b").is_err());
        assert!(parse_speed("0").is_err());
    }
}
