//! Resolving cell colours to RGB: theme palette, 256-colour cube, OSC 4 overrides, inverse, dim.

use crate::term::{xterm_256, Cell, Color, Rgb};

use super::theme::Theme;

/// Fraction by which faint (SGR 2) text is blended towards the background
/// (shared/cases/rendering.md RC-08: "roughly 40–50 %").
pub const DIM_BLEND: f32 = 0.45;

/// The 256-entry palette plus default colours, as one screen is rendered.
#[derive(Debug, Clone, PartialEq)]
pub struct Palette {
    pub foreground: Rgb,
    pub background: Rgb,
    pub colors: [Rgb; 256],
    /// Bold text in the named colours 0–7 (SGR 30–37) uses 8–15; off by default, and never
    /// for `38;5;n` or truecolor (shared/cases/rendering.md RC-09).
    pub bold_is_bright: bool,
}

impl Palette {
    /// The theme's colours, xterm's cube and grey ramp for 16–255, then the program's OSC 4
    /// changes.
    pub fn new(theme: &Theme, overrides: &[(u8, Rgb)], bold_is_bright: bool) -> Palette {
        let mut colors = [Rgb::new(0, 0, 0); 256];
        for (i, c) in colors.iter_mut().enumerate() {
            *c = if i < 16 {
                theme.ansi[i]
            } else {
                xterm_256(i as u8)
            };
        }
        for &(i, c) in overrides {
            colors[i as usize] = c;
        }
        Palette {
            foreground: theme.foreground,
            background: theme.background,
            colors,
            bold_is_bright,
        }
    }

    /// A colour as foreground (`Default` = the default foreground).
    pub fn fg(&self, c: Color, bold: bool) -> Rgb {
        match c {
            Color::Default => self.foreground,
            Color::Named(i) if bold && self.bold_is_bright && i < 8 => self.colors[i as usize + 8],
            Color::Named(i) | Color::Indexed(i) => self.colors[i as usize],
            Color::Rgb(rgb) => rgb,
        }
    }

    /// A colour as background (`Default` = the default background).
    pub fn bg(&self, c: Color) -> Rgb {
        match c {
            Color::Default => self.background,
            Color::Named(i) | Color::Indexed(i) => self.colors[i as usize],
            Color::Rgb(rgb) => rgb,
        }
    }

    /// The (text, background) colours a cell is drawn with, after inverse and faint; the
    /// background is `None` when it is the default one and needs no drawing.
    pub fn cell_colors(&self, cell: &Cell, inverse: bool) -> (Rgb, Option<Rgb>) {
        let mut fg = self.fg(cell.fg, cell.bold);
        let mut bg = (cell.bg != Color::Default).then(|| self.bg(cell.bg));
        if inverse {
            let old_fg = fg;
            fg = bg.unwrap_or(self.background);
            bg = Some(old_fg);
        }
        if cell.dim {
            fg = blend(fg, bg.unwrap_or(self.background), DIM_BLEND);
        }
        (fg, bg)
    }
}

/// `a` moved `t` (0–1) of the way towards `b`, per channel.
pub fn blend(a: Rgb, b: Rgb, t: f32) -> Rgb {
    let mix = |x: u8, y: u8| (x as f32 + (y as f32 - x as f32) * t).round() as u8;
    Rgb::new(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b))
}

/// The CSS Color Module Level 4 named colours (plus `transparent`), lowercase.
const CSS_NAMED_COLORS: &[&str] = &[
    "aliceblue",
    "antiquewhite",
    "aqua",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanchedalmond",
    "blue",
    "blueviolet",
    "brown",
    "burlywood",
    "cadetblue",
    "chartreuse",
    "chocolate",
    "coral",
    "cornflowerblue",
    "cornsilk",
    "crimson",
    "cyan",
    "darkblue",
    "darkcyan",
    "darkgoldenrod",
    "darkgray",
    "darkgreen",
    "darkgrey",
    "darkkhaki",
    "darkmagenta",
    "darkolivegreen",
    "darkorange",
    "darkorchid",
    "darkred",
    "darksalmon",
    "darkseagreen",
    "darkslateblue",
    "darkslategray",
    "darkslategrey",
    "darkturquoise",
    "darkviolet",
    "deeppink",
    "deepskyblue",
    "dimgray",
    "dimgrey",
    "dodgerblue",
    "firebrick",
    "floralwhite",
    "forestgreen",
    "fuchsia",
    "gainsboro",
    "ghostwhite",
    "gold",
    "goldenrod",
    "gray",
    "green",
    "greenyellow",
    "grey",
    "honeydew",
    "hotpink",
    "indianred",
    "indigo",
    "ivory",
    "khaki",
    "lavender",
    "lavenderblush",
    "lawngreen",
    "lemonchiffon",
    "lightblue",
    "lightcoral",
    "lightcyan",
    "lightgoldenrodyellow",
    "lightgray",
    "lightgreen",
    "lightgrey",
    "lightpink",
    "lightsalmon",
    "lightseagreen",
    "lightskyblue",
    "lightslategray",
    "lightslategrey",
    "lightsteelblue",
    "lightyellow",
    "lime",
    "limegreen",
    "linen",
    "magenta",
    "maroon",
    "mediumaquamarine",
    "mediumblue",
    "mediumorchid",
    "mediumpurple",
    "mediumseagreen",
    "mediumslateblue",
    "mediumspringgreen",
    "mediumturquoise",
    "mediumvioletred",
    "midnightblue",
    "mintcream",
    "mistyrose",
    "moccasin",
    "navajowhite",
    "navy",
    "oldlace",
    "olive",
    "olivedrab",
    "orange",
    "orangered",
    "orchid",
    "palegoldenrod",
    "palegreen",
    "paleturquoise",
    "palevioletred",
    "papayawhip",
    "peachpuff",
    "peru",
    "pink",
    "plum",
    "powderblue",
    "purple",
    "rebeccapurple",
    "red",
    "rosybrown",
    "royalblue",
    "saddlebrown",
    "salmon",
    "sandybrown",
    "seagreen",
    "seashell",
    "sienna",
    "silver",
    "skyblue",
    "slateblue",
    "slategray",
    "slategrey",
    "snow",
    "springgreen",
    "steelblue",
    "tan",
    "teal",
    "thistle",
    "tomato",
    "transparent",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "whitesmoke",
    "yellow",
    "yellowgreen",
];

/// An opaque CSS colour as RGB: `#rgb`, `#rrggbb`, a named colour (CSS Color 4, `rebeccapurple`),
/// `rgb()`/`rgba()` or `hsl()`/`hsla()` (CSS Color 4 syntax, parsed by `csscolorparser`).
/// `None`: not a colour, or not opaque (`transparent`, an alpha below 1).
pub fn parse_css(s: &str) -> Option<Rgb> {
    let c = csscolorparser::parse(s.trim()).ok()?;
    let [r, g, b, a] = c.to_rgba8();
    (a == 255).then(|| Rgb::new(r, g, b))
}

/// True for a CSS colour value we accept for the canvas background: `#rgb`, `#rgba`,
/// `#rrggbb`, `#rrggbbaa`, a named colour (CSS Color 4), or `rgb()`/`rgba()`/`hsl()`/`hsla()`
/// with numbers, `%`, `.`, `,` and spaces inside.
pub fn is_css_color(s: &str) -> bool {
    let lower = s.trim().to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix('#') {
        return matches!(hex.len(), 3 | 4 | 6 | 8) && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    for f in ["rgba(", "rgb(", "hsla(", "hsl("] {
        if let Some(inner) = lower.strip_prefix(f).and_then(|r| r.strip_suffix(')')) {
            return !inner.trim().is_empty()
                && inner
                    .chars()
                    .all(|c| c.is_ascii_digit() || " .,%/-+degturadn".contains(c));
        }
    }
    CSS_NAMED_COLORS.binary_search(&lower.as_str()).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_colours() {
        assert!(
            CSS_NAMED_COLORS.windows(2).all(|w| w[0] < w[1]),
            "sorted for binary search"
        );
        for ok in [
            "#fff",
            "#ff0080",
            "#ff008080",
            "red",
            "RebeccaPurple",
            "rgb(1, 2, 3)",
            "hsl(120deg 50% 50%)",
            "transparent",
        ] {
            assert!(is_css_color(ok), "{ok}");
        }
        for bad in [
            "bogus",
            "#12345",
            "rgb(1,2,3",
            "url(x)",
            "red;x",
            "",
            "rgb()",
        ] {
            assert!(!is_css_color(bad), "{bad}");
        }
    }

    #[test]
    fn css_colours_as_rgb() {
        for (css, hex) in [
            ("#abc", "#aabbcc"),
            ("rebeccapurple", "#663399"),
            ("Tomato", "#ff6347"),
            ("rgb(1, 2, 3)", "#010203"),
            ("rgb(255 0 0)", "#ff0000"),
            ("hsl(120, 100%, 25%)", "#008000"),
        ] {
            assert_eq!(
                parse_css(css).map(Rgb::to_hex).as_deref(),
                Some(hex),
                "{css}"
            );
        }
        for bad in ["transparent", "rgba(1,2,3,0.5)", "reddish", "", "#12345"] {
            assert_eq!(parse_css(bad), None, "{bad}");
        }
    }

    #[test]
    fn dim_blends_towards_the_background() {
        assert_eq!(
            blend(Rgb::new(212, 212, 212), Rgb::new(30, 30, 30), DIM_BLEND),
            Rgb::new(130, 130, 130)
        );
    }
}
