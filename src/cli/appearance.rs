//! The appearance flags shared by `capture`, `session capture` and `session inspect`, mapped
//! onto [`AppearanceOptions`] (which a config file and a scenario can also set).

use clap::Args;

use crate::options::{self, AppearanceOptions};
use crate::render::TextMode;
use crate::term::Rgb;

/// Appearance flags (shared/spec/console2svg-contract.md, "capture options").
#[derive(Args, Debug, Clone, Default)]
pub struct AppearanceArgs {
    /// Window style: none, transparent, macos, windows, macos-pc, windows-pc, cyberpunk, cyberpunk-pc, or a frame JSON file (ours or the original's chrome.json); bare -d = macos.
    #[arg(short = 'd', long = "window", value_name = "STYLE", num_args = 0..=1, default_missing_value = "macos")]
    pub window: Option<String>,
    /// Theme: a built-in or installed id, a window style (-t nord -t macos), or a theme file (ours, the original's theme.json or its directory, Windows Terminal scheme .json, .itermcolors, alacritty .toml, kitty .conf, Ghostty); repeatable, later wins.
    #[arg(short = 't', long = "theme", value_name = "THEME")]
    pub theme: Vec<String>,
    /// Default foreground colour: #rgb, #rrggbb, a CSS colour name or rgb()/hsl().
    #[arg(long, value_parser = parse_color)]
    pub forecolor: Option<Rgb>,
    /// Terminal background colour: #rgb, #rrggbb, a CSS colour name or rgb()/hsl().
    #[arg(long, value_parser = parse_color)]
    pub backcolor: Option<Rgb>,
    /// Canvas background: a colour, two colours for a gradient (`c1 c2` or `c1:c2`), or an image file.
    #[arg(long, num_args = 1..=2, value_name = "BACKGROUND")]
    pub background: Vec<String>,
    /// Opacity of the frame and terminal background (0–1).
    #[arg(long, value_parser = parse_unit)]
    pub opacity: Option<f32>,
    /// Space between the terminal edge and the text, px.
    #[arg(long, value_parser = parse_px)]
    pub padding: Option<f32>,
    /// Space between the frame and the terminal area, px.
    #[arg(long, value_parser = parse_px)]
    pub margin: Option<f32>,
    /// Desktop padding of -pc window styles, px.
    #[arg(long, value_parser = parse_px)]
    pub pc_padding: Option<f32>,
    /// CSS font stack.
    #[arg(long)]
    pub font: Option<String>,
    /// Font size, px.
    #[arg(long, value_parser = parse_font_size)]
    pub fontsize: Option<f32>,
    /// Row height as a multiple of the font's natural height, 1–2 (default 1); box drawing
    /// and block elements still tile with no gaps.
    #[arg(long, value_name = "FACTOR", value_parser = parse_line_height, allow_negative_numbers = true)]
    pub line_height: Option<f32>,
    /// Output pixel size, aspect kept: W, WxH, Wx* or *xH.
    #[arg(long, value_parser = parse_size)]
    pub size: Option<String>,
    /// Show a header row with the prompt and the command.
    #[arg(short = 'c', long = "with-command")]
    pub with_command: bool,
    /// Header text (implies a header row).
    #[arg(long)]
    pub header: Option<String>,
    /// Prompt of the header row ("$", or "#" as root).
    #[arg(long)]
    pub prompt: Option<String>,
    /// Never draw the cursor.
    #[arg(long)]
    pub no_cursor: bool,
    /// Bold text in colours 0–7 uses the bright colours 8–15.
    #[arg(long)]
    pub bold_is_bright: bool,
    /// Do not embed font subsets (smaller files; viewers use their own fonts).
    #[arg(long)]
    pub no_embed_font: bool,
    /// How glyphs are drawn: text (selectable text elements with embedded font subsets) or outlines
    /// (every glyph as a path or image, the same in every viewer; the text stays selectable
    /// as an invisible layer). Default: text.
    #[arg(long, value_name = "MODE", value_parser = parse_text_mode)]
    pub text_mode: Option<TextMode>,
}

impl AppearanceArgs {
    /// The options these flags set (flags not given set nothing, so lower layers show).
    pub fn to_options(&self) -> AppearanceOptions {
        AppearanceOptions {
            theme: (!self.theme.is_empty()).then(|| self.theme.clone()),
            window: self.window.clone(),
            forecolor: self.forecolor.map(Rgb::to_hex),
            backcolor: self.backcolor.map(Rgb::to_hex),
            background: (!self.background.is_empty()).then(|| self.background.clone()),
            opacity: self.opacity,
            padding: self.padding,
            margin: self.margin,
            pc_padding: self.pc_padding,
            font: self.font.clone(),
            fontsize: self.fontsize,
            line_height: self.line_height,
            size: self.size.clone(),
            with_command: self.with_command.then_some(true),
            header: self.header.clone(),
            prompt: self.prompt.clone(),
            cursor: self.no_cursor.then_some(false),
            bold_is_bright: self.bold_is_bright.then_some(true),
            embed_font: self.no_embed_font.then_some(false),
            text_mode: self.text_mode,
        }
    }
}

fn parse_color(s: &str) -> Result<Rgb, String> {
    crate::render::parse_css(s).ok_or_else(|| {
        format!("'{s}' is not a colour (#rgb, #rrggbb, a CSS name such as tomato, rgb() or hsl(); opaque)")
    })
}

fn parse_text_mode(s: &str) -> Result<TextMode, String> {
    s.parse()
}

fn parse_unit(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a number from 0 to 1")),
    }
}

fn parse_px(s: &str) -> Result<f32, String> {
    match s.trim_end_matches("px").parse::<f32>() {
        Ok(v) if v.is_finite() && (0.0..=10_000.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a length in px from 0 to 10000")),
    }
}

fn parse_font_size(s: &str) -> Result<f32, String> {
    match s.trim_end_matches("px").parse::<f32>() {
        Ok(v) if v.is_finite() && (1.0..=500.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a font size in px from 1 to 500")),
    }
}

fn parse_line_height(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && (1.0..=2.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a line height from 1 to 2")),
    }
}

fn parse_size(s: &str) -> Result<String, String> {
    options::parse_size(s)
        .map(|_| s.to_string())
        .map_err(|e| e.trim_start_matches("size: ").to_string())
}
