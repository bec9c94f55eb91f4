//! `Screen` + [`Appearance`] → SVG. Pure: no I/O, no clock, no environment; the same input gives
//! the same bytes. (The one exception is [`fonts::Fonts`], which may read the system's fonts the
//! first time a cluster needs a fallback face.)
//!
//! Layout rule (DESIGN.md): the emulator's grid is the layout. Every cluster's x comes from its
//! column, never from the viewer's advances or `textLength`; no runs of spaces are ever emitted
//! for positioning.
//!
//! Text mode positions every glyph with an `x` of its own: each cluster is a `<tspan x>`, in one
//! `<text y>` per row (see `grid::Painter::write_text`). Why not one `x` list per row, which is
//! smaller: librsvg (rsvg-convert, and ImageMagick, GNOME and the documentation tools built on
//! it) reads only the first value of a list, and places the rest by its font's advances, so
//! with any font but the one we name (JetBrains Mono, unless installed, is never the one it
//! uses: it ignores `@font-face`), or a proportional fallback, every glyph after the first of a
//! run drifts. Per-glyph elements cost bytes, so: the text layer is a group scaled to 6 units
//! per cell, which makes each column's x a small integer; an element's own `x` places its
//! first character, so the `<text>` (or a styled run's `<tspan>`) carries its first glyph's;
//! and, to pay for the rest, underlines and runs of box-drawing rectangles are one shape per
//! run rather than per cell. Measured on the 200×50 screen of `benches/render.rs`: 249 820
//! bytes with embedded fonts against 224 544 with one `x` list per row (1.11×), 231 871
//! against 206 595 without (1.12×); RC-12's rainbow row stays under its budget of 40 bytes
//! per coloured cell.
//!
//! Styles that differ from the stylesheet's `text{…}` defaults (colour, weight, slant, a
//! fallback face's `font-family`, the smaller `font-size` of a glyph shrunk to its cells) sit
//! on `<tspan>`s, as classes or presentation attributes: the `text{…}` rule selects `<text>`
//! elements only, so in browsers it would override presentation attributes on a `<text>`
//! but never those of a `<tspan>`.

pub mod animation;
pub mod chrome;
mod colors;
pub mod fonts;
pub mod geometry;
mod grid;
pub mod layout;
pub mod outlines;
pub mod raster;
pub mod svg;
pub mod theme;

use crate::term::{Rgb, Screen};
use chrome::{Frame, TerminalFill};
use fonts::Fonts;
use layout::{CellMetrics, Layout, Spacing};
use svg::{push_attr, push_num};
use theme::Theme;

pub use colors::{is_css_color, parse_css, Palette};

/// The CSS font stack used when no `--font` is given (shared/spec/themes.md §3).
pub const DEFAULT_FONT_STACK: &str = "\"JetBrains Mono\",\"Cascadia Mono\",\"Segoe UI Mono\",\"Noto Sans Mono\",\"SFMono-Regular\",Menlo,Consolas,\"DejaVu Sans Mono\",\"Liberation Mono\",monospace";

/// What is painted behind the window (the whole canvas).
#[derive(Debug, Clone, PartialEq)]
pub enum Background {
    /// A solid colour (any CSS colour).
    Color(String),
    /// A linear gradient from the top-left to the bottom-right corner.
    Gradient(String, String),
    /// An image, already a `data:` URI, covering the canvas (centred, cropped).
    Image(String),
}

/// How glyphs are drawn (`--text-mode`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum TextMode {
    /// `<text>` elements, with subsets of the faces used embedded as `@font-face` (unless
    /// `--no-embed-font`): small, selectable, but how it looks depends on the viewer honouring
    /// the embedded fonts.
    #[default]
    Text,
    /// Every glyph as geometry (a `<path>`, colour layers or a PNG, defined once and placed
    /// with `<use>`), plus the same text invisible on top for selection, search and links:
    /// looks the same in every viewer, with no font needed (see [`outlines`]).
    Outlines,
}

impl TextMode {
    /// The option value: `text` or `outlines`.
    pub fn name(self) -> &'static str {
        match self {
            TextMode::Text => "text",
            TextMode::Outlines => "outlines",
        }
    }
}

impl std::str::FromStr for TextMode {
    type Err = String;

    /// `text` or `outlines`; errors name the bad value.
    fn from_str(s: &str) -> Result<TextMode, String> {
        match s {
            "text" => Ok(TextMode::Text),
            "outlines" => Ok(TextMode::Outlines),
            _ => Err(format!("'{s}' is not a text mode (text or outlines)")),
        }
    }
}

/// Output pixel size (`--size`): the aspect ratio is always kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OutputSize {
    /// Fit inside this width (`W` or `Wx*`).
    Width(f32),
    /// Fit inside this height (`*xH`).
    Height(f32),
    /// Fit inside this box (`WxH`).
    Box(f32, f32),
}

/// Everything about how a screen looks, apart from the screen itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Appearance {
    /// The resolved theme (palette plus the theme's spacing and font preferences).
    pub theme: Theme,
    /// The window frame.
    pub frame: Frame,
    /// Override of the default foreground (`--forecolor`).
    pub foreground: Option<Rgb>,
    /// Override of the terminal background (`--backcolor`).
    pub background_color: Option<Rgb>,
    /// Canvas background (`--background`); for `-pc` frames it replaces the desktop gradient.
    pub canvas: Option<Background>,
    /// Opacity of the frame and terminal background, 0–1 (`--opacity`); text stays opaque.
    pub opacity: f32,
    /// px (`--padding`, `--margin`, `--pc-padding`).
    pub spacing: Spacing,
    /// CSS font stack (`--font`); `None` = [`DEFAULT_FONT_STACK`].
    pub font_family: Option<String>,
    /// Font size, px (`--fontsize`).
    pub font_size: f32,
    /// Row height as a multiple of the font's natural height, 1–2 (`--line-height`).
    pub line_height: f32,
    /// The command header row text (`-c`, `--header`), e.g. `$ ls -la`.
    pub header: Option<String>,
    /// Draw the cursor when the screen shows it.
    pub cursor: bool,
    /// Bold text in palette colours 0–7 uses the bright colours 8–15.
    pub bold_is_bright: bool,
    /// Embed subsets of the bundled faces as `@font-face` data.
    pub embed_fonts: bool,
    /// Scale the output to this pixel size.
    pub size: Option<OutputSize>,
    /// Glyphs as text or as outlines (`--text-mode`).
    pub text_mode: TextMode,
}

impl Default for Appearance {
    fn default() -> Appearance {
        Appearance {
            theme: theme::resolve(&[]),
            frame: chrome::load("none").expect("built-in frame"),
            foreground: None,
            background_color: None,
            canvas: None,
            opacity: 1.0,
            spacing: Spacing {
                padding: 8.0,
                margin: 0.0,
                pc_padding: 20.0,
            },
            font_family: None,
            font_size: 14.0,
            line_height: 1.0,
            header: None,
            cursor: true,
            bold_is_bright: false,
            embed_fonts: true,
            size: None,
            text_mode: TextMode::Text,
        }
    }
}

impl Appearance {
    /// The palette after the program's OSC 4 changes (`overrides`), `--forecolor`/`--backcolor`
    /// and the frame's terminal fill.
    pub fn palette(&self, overrides: &[(u8, Rgb)]) -> Palette {
        let mut p = Palette::new(&self.theme, overrides, self.bold_is_bright);
        if let TerminalFill::Color(c) = self.frame.terminal_fill {
            p.background = c;
        }
        if let Some(fg) = self.foreground {
            p.foreground = fg;
        }
        if let Some(bg) = self.background_color {
            p.background = bg;
        }
        p
    }
}

/// Renders every row of `screen` (the caller chooses the rows by slicing the screen).
pub fn render_svg(screen: &Screen, appearance: &Appearance, fonts: &Fonts) -> String {
    render(screen, appearance, fonts, true).0
}

/// A picture prepared for the rasteriser (see [`render_for_raster`]).
#[derive(Debug, Clone)]
pub struct RasterScene {
    /// SVG of everything under the glyphs: canvas, frame, backgrounds, geometric glyphs,
    /// colour glyphs (COLR layers, bitmaps) placed with `<use>`.
    pub below: String,
    /// Plain glyph outlines, px in canvas coordinates, drawn over `below`.
    pub ink: Vec<outlines::Ink>,
    /// SVG of what lies over the glyphs (decorations, cursor), same size and viewBox as
    /// `below`; `None` when there is nothing.
    pub above: Option<String>,
    /// Output px per canvas px (`--size`; 1 without it).
    pub zoom: f32,
}

/// `screen` drawn with `appearance` as [`TextMode::Outlines`] whatever its text mode, for a
/// rasteriser: no invisible text layer (it draws nothing), no embedded fonts, and the plain
/// glyph outlines as data ([`outlines::Ink`]) rather than SVG. `raster::png_scene` draws it
/// like [`render_svg`]'s picture with no text layout and no per-glyph SVG parsing.
pub fn render_for_raster(screen: &Screen, appearance: &Appearance, fonts: &Fonts) -> RasterScene {
    let appearance = Appearance {
        text_mode: TextMode::Outlines,
        ..appearance.clone()
    };
    let (below, painted, zoom) = render(screen, &appearance, fonts, false);
    let above = (!painted.above.is_empty()).then(|| {
        let head = &below[..below.find("</style>").map_or(0, |i| i + "</style>".len())];
        format!("{head}{}</svg>\n", painted.above)
    });
    RasterScene {
        below,
        ink: painted.ink,
        above,
        zoom,
    }
}

/// The layout and palette of a `cols` × `rows` screen (`rows` without the header row).
fn setup(
    cols: usize,
    rows: usize,
    palette_overrides: &[(u8, Rgb)],
    appearance: &Appearance,
    fonts: &Fonts,
) -> (Layout, Palette) {
    let cell = CellMetrics::new(
        &fonts.metrics(),
        appearance.font_size,
        appearance.line_height,
    );
    let header_rows = usize::from(appearance.header.is_some());
    let layout = Layout::new(
        &appearance.frame,
        appearance.spacing,
        cell,
        cols,
        rows.max(1) + header_rows,
    );
    (layout, appearance.palette(palette_overrides))
}

/// Canvas, window frame and terminal background: everything under the grid.
fn shell(appearance: &Appearance, layout: &Layout) -> String {
    let mut body = String::new();
    draw_canvas(&mut body, appearance, layout);

    // Frame, terminal background and header background share the opacity.
    let group = appearance.opacity < 1.0;
    if group {
        body.push_str("<g opacity=\"");
        push_num(&mut body, appearance.opacity);
        body.push_str("\">");
    }
    let w = layout.window;
    chrome::draw(&mut body, &appearance.frame, w.x, w.y, w.w, w.h);
    chrome::draw_template(
        &mut body,
        &appearance.frame,
        (w.x, w.y, w.w, w.h),
        layout.canvas_width,
        layout.canvas_height,
        &appearance.palette(&[]).background.to_hex(),
    );
    if appearance.frame.terminal_fill != TerminalFill::Transparent
        || appearance.background_color.is_some()
    {
        let t = layout.terminal;
        body.push_str("<rect class=\"bg\" x=\"");
        push_num(&mut body, t.x);
        body.push_str("\" y=\"");
        push_num(&mut body, t.y);
        body.push_str("\" width=\"");
        push_num(&mut body, t.w);
        body.push_str("\" height=\"");
        push_num(&mut body, t.h);
        if appearance.frame.client_corner_radius > 0.0 {
            body.push_str("\" rx=\"");
            push_num(&mut body, appearance.frame.client_corner_radius);
        }
        body.push_str("\"/>");
    }
    if group {
        body.push_str("</g>");
    }
    body
}

/// The parts of a picture [`document`] puts together.
struct Parts<'a> {
    layout: &'a Layout,
    palette: &'a Palette,
    /// Under the grid ([`shell`]).
    shell: &'a str,
    /// The grid's elements.
    grid: &'a str,
    /// CSS of the grid's text classes, and any more rules (an animation's).
    css: &'a str,
    /// Characters drawn per face (for embedded subsets).
    used: std::collections::BTreeMap<fonts::FaceId, std::collections::BTreeSet<char>>,
}

/// The SVG document: root element, style (embedded fonts, text defaults, `parts.css`), shell
/// and grid. Returns it with the output px per canvas px.
fn document(appearance: &Appearance, fonts: &Fonts, parts: Parts<'_>) -> (String, f32) {
    let Parts {
        layout,
        palette,
        shell,
        grid,
        css,
        used,
    } = parts;
    let mut out = String::with_capacity(shell.len() + grid.len() + 1024);
    let (width, height) = output_size(appearance.size, layout.canvas_width, layout.canvas_height);
    out.push_str("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
    push_num(&mut out, width);
    out.push_str("\" height=\"");
    push_num(&mut out, height);
    out.push_str("\" viewBox=\"0 0 ");
    push_num(&mut out, layout.canvas_width);
    out.push(' ');
    push_num(&mut out, layout.canvas_height);
    out.push_str("\"><style>");
    let embeds_bundled = appearance
        .font_family
        .as_deref()
        .is_none_or(|f| f.contains(fonts::BUNDLED_FAMILY));
    if appearance.embed_fonts && appearance.text_mode == TextMode::Text {
        // Fallback faces are always embedded; the bundled ones only when the stack names them.
        let mut used_chars = used;
        if !embeds_bundled {
            used_chars.retain(|face, _| !matches!(face, fonts::FaceId::Bundled(_)));
        }
        out.push_str(&fonts.embed_css(&used_chars));
    }
    out.push_str("text{font-family:");
    out.push_str(&appearance.font_stack());
    out.push_str(";font-size:");
    push_num(&mut out, appearance.font_size);
    out.push_str("px;fill:");
    out.push_str(&palette.foreground.to_hex());
    // The grid is already in visual order: viewers must not reorder right-to-left runs.
    out.push_str(";unicode-bidi:bidi-override;direction:ltr}.bg{fill:");
    out.push_str(&palette.background.to_hex());
    out.push('}');
    out.push_str(css);
    out.push_str("</style>");
    out.push_str(shell);
    out.push_str(grid);
    out.push_str("</svg>\n");
    (out, width / layout.canvas_width)
}

/// The SVG, the painted grid's leftovers (ink and what goes over it) for the rasteriser, and
/// the output px per canvas px.
fn render(
    screen: &Screen,
    appearance: &Appearance,
    fonts: &Fonts,
    text_layer: bool,
) -> (String, grid::Painted, f32) {
    let header_rows = usize::from(appearance.header.is_some());
    let (layout, mut palette) = setup(
        screen.width,
        screen.rows.len(),
        &screen.palette_overrides,
        appearance,
        fonts,
    );
    if screen.modes.reverse_video {
        // DECSCNM: the default colours swap, as xterm shows reverse video (the terminal's
        // background, drawn in the palette's, too).
        std::mem::swap(&mut palette.foreground, &mut palette.background);
    }
    let body = shell(appearance, &layout);
    let mut painter = grid::Painter::new(&layout, &palette, fonts, appearance, text_layer);
    if let Some(header) = &appearance.header {
        painter.header(header);
    }
    painter.screen(screen, header_rows);
    let mut painted = painter.finish();
    let (cells_svg, classes) = (
        std::mem::take(&mut painted.svg),
        std::mem::take(&mut painted.classes),
    );
    let used = std::mem::take(&mut painted.used);
    let (out, zoom) = document(
        appearance,
        fonts,
        Parts {
            layout: &layout,
            palette: &palette,
            shell: &body,
            grid: &cells_svg,
            css: &classes,
            used,
        },
    );
    (out, painted, zoom)
}

impl Appearance {
    /// The CSS font stack (`--font`, else [`DEFAULT_FONT_STACK`]), made safe for `<style>`.
    pub fn font_stack(&self) -> String {
        css_escape(self.font_family.as_deref().unwrap_or(DEFAULT_FONT_STACK))
    }
}

/// Makes a CSS value safe inside `<style>` and attributes: drops `<`, `>`, `&`, `{`, `}` and `;`,
/// which could end the element, the rule or the declaration.
pub(crate) fn css_escape(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '<' | '>' | '&' | '{' | '}' | ';'))
        .collect()
}

fn output_size(size: Option<OutputSize>, w: f32, h: f32) -> (f32, f32) {
    let scale = match size {
        None => 1.0,
        Some(OutputSize::Width(tw)) => tw / w,
        Some(OutputSize::Height(th)) => th / h,
        Some(OutputSize::Box(tw, th)) => (tw / w).min(th / h),
    };
    (w * scale, h * scale)
}

/// Canvas background: `--background`, else for `-pc` frames the desktop gradient.
fn draw_canvas(body: &mut String, a: &Appearance, layout: &Layout) {
    let desktop = a.frame.desktop.unwrap_or(a.theme.desktop);
    let fill = match (&a.canvas, a.frame.pc) {
        (Some(bg), _) => bg.clone(),
        (None, true) => Background::Gradient(desktop[0].to_hex(), desktop[1].to_hex()),
        (None, false) => return,
    };
    let (w, h) = (layout.canvas_width, layout.canvas_height);
    let rect = |body: &mut String, fill: &str| {
        body.push_str("<rect width=\"");
        push_num(body, w);
        body.push_str("\" height=\"");
        push_num(body, h);
        body.push_str("\" fill=\"");
        push_attr(body, fill);
        body.push_str("\"/>");
    };
    match fill {
        Background::Color(c) => rect(body, &c),
        Background::Gradient(c1, c2) => {
            body.push_str("<defs><linearGradient id=\"desk\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"1\"><stop offset=\"0\" stop-color=\"");
            push_attr(body, &c1);
            body.push_str("\"/><stop offset=\"1\" stop-color=\"");
            push_attr(body, &c2);
            body.push_str("\"/></linearGradient></defs>");
            rect(body, "url(#desk)");
        }
        Background::Image(uri) => {
            body.push_str("<image width=\"");
            push_num(body, w);
            body.push_str("\" height=\"");
            push_num(body, h);
            body.push_str("\" preserveAspectRatio=\"xMidYMid slice\" href=\"");
            push_attr(body, &uri);
            body.push_str("\"/>");
        }
    }
}
