//! Window frames ("chrome"): `none`, `transparent`, `macos`, `windows`, `macos-pc`, `windows-pc`,
//! the cyberpunk frames, and frames from a user's JSON file. Facts: `shared/spec/themes.md` §2.
//! STUB: the theme helper replaces this file.

use crate::term::Rgb;

/// Space a frame takes on each side of the terminal area, in px.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Insets {
    pub top: f32,
    pub right: f32,
    pub bottom: f32,
    pub left: f32,
}

/// What fills the terminal area under a frame.
#[derive(Debug, Clone, PartialEq)]
pub enum TerminalFill {
    /// The palette's background.
    Palette,
    /// A fixed colour (the `windows` frame's #0c0c0c).
    Color(Rgb),
    /// Nothing: whatever is under the SVG shows through.
    Transparent,
}

/// A window frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub name: String,
    pub insets: Insets,
    /// Corner radius of the terminal background rect, px.
    pub client_corner_radius: f32,
    /// Desktop (`-pc`) variant: desktop padding around the window and a gradient desktop.
    pub pc: bool,
    /// Desktop padding on every side, px (pc only).
    pub pc_padding: f32,
    /// Extra px reserved right and bottom (pc only).
    pub shadow_offset: f32,
    pub terminal_fill: TerminalFill,
    /// Desktop gradient the frame prefers (else the theme's).
    pub desktop: Option<[Rgb; 2]>,
}

/// Error loading a frame.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("unknown window style '{0}'")]
    Unknown(String),
}

/// Names of the built-in frames.
pub fn builtin_names() -> Vec<&'static str> {
    vec!["none"]
}

/// A built-in frame name, or a path to a frame JSON file.
pub fn load(arg: &str) -> Result<Frame, FrameError> {
    if arg == "none" {
        return Ok(Frame {
            name: "none".into(),
            insets: Insets::default(),
            client_corner_radius: 0.0,
            pc: false,
            pc_padding: 0.0,
            shadow_offset: 0.0,
            terminal_fill: TerminalFill::Palette,
            desktop: None,
        });
    }
    Err(FrameError::Unknown(arg.into()))
}

/// Appends the frame's drawing (body, title bar, buttons…) for a window whose outer box is at
/// (`x`, `y`) with size `w` × `h` px. The terminal area is drawn by the caller on top.
pub fn draw(_out: &mut String, _frame: &Frame, _x: f32, _y: f32, _w: f32, _h: f32) {}
