//! X11 colour specifications, as programs send them in xterm's colour controls (OSC 4, 5,
//! 10–19): what a string names, reduced to the 8 bits a channel has on a 24-bit TrueColor
//! screen (what is then reported, `rgb:RRRR/GGGG/BBBB` with each byte repeated).
//!
//! The forms are those of Xlib's "Color Strings" (the prefix is matched without regard to
//! case):
//! - `#RGB`, `#RRGGBB`, `#RRRGGGBBB`, `#RRRRGGGGBBBB`: each value shifted to the top of 16
//!   bits (`#fff` is `f000`, not `ffff`).
//! - `rgb:R/G/B` with 1–4 hex digits a channel, scaled to 16 bits (`f` is `ffff`).
//! - `rgbi:R/G/B`: linear device intensities from 0 to 1.
//! - The device-independent spaces, each three decimal numbers split by `/`:
//!   `CIEXYZ:X/Y/Z`, `CIEuvY:u′/v′/Y`, `CIExyY:x/y/Y`, `CIELab:L*/a*/b*` and
//!   `CIELuv:L*/u*/v*`, with Y relative to the white point (white is Y 1).
//!
//! The screen is taken to be an sRGB display (IEC 61966-2-1:1999): its white is CIE
//! illuminant D65, the device-independent forms go to CIE XYZ by the CIE's formulas
//! (CIE 15:2004, "Colorimetry", §7.3 and §8), from XYZ to linear sRGB intensities through the
//! standard's matrix, are clipped to 0–1 when outside the sRGB gamut, and become device
//! values through the sRGB transfer function; `rgbi:` intensities go through the same
//! function. This is a deliberate difference from xterm, whose Xlib converts through the
//! colour characterization of a 1990 Tektronix monitor that Xlib falls back on when a screen
//! publishes none, and so reports other values for these forms.
//!
//! Not understood: `TekHVC:` (Tektronix's proprietary space, with no published standard to
//! convert it by) and colour names (`red`, `SlateGray`), which an X server looks up in its
//! colour database, of which there is none here.

/// A colour as a screen with 8 bits a channel keeps it.
pub type Rgb8 = [u8; 3];

/// The colour `spec` names, or `None` if it is not one of the forms in the module
/// documentation, its values are out of the space's range (a `rgb:` channel of 5 digits,
/// an `rgbi:` intensity over 1, CIELab L* over 100, CIEuvY Y over 1, …) or it names no
/// chromaticity (CIExyY y 0, CIEuvY v′ 0, with a luminance above 0).
pub fn parse(spec: &str) -> Option<Rgb8> {
    if let Some(hex) = spec.strip_prefix('#') {
        return parse_hash(hex);
    }
    let (prefix, values) = spec.split_once(':')?;
    let prefix = prefix.to_ascii_lowercase();
    if prefix == "rgb" {
        return parse_rgb(values);
    }
    let [a, b, c] = floats(values)?;
    let xyz = match prefix.as_str() {
        "rgbi" => {
            for v in [a, b, c] {
                in_range(v, 1.0)?;
            }
            return Some(encode([a, b, c]));
        }
        "ciexyz" => {
            // Y is relative to the white (0–1); X and Z are never negative.
            in_range(b, 1.0)?;
            in_range(a, f64::MAX)?;
            in_range(c, f64::MAX)?;
            [a, b, c]
        }
        "cieuvy" => {
            in_range(c, 1.0)?;
            uvy_to_xyz([a, b, c])?
        }
        "ciexyy" => {
            for v in [a, b, c] {
                in_range(v, 1.0)?;
            }
            xyy_to_xyz([a, b, c])?
        }
        "cielab" => {
            in_range(a, 100.0)?;
            lab_to_xyz([a, b, c])
        }
        "cieluv" => {
            in_range(a, 100.0)?;
            luv_to_xyz([a, b, c])?
        }
        _ => return None,
    };
    Some(encode(xyz_to_linear_srgb(xyz)))
}

/// `#` and 3, 6, 9 or 12 hex digits: each channel's digits are the top bits of 16.
fn parse_hash(hex: &str) -> Option<Rgb8> {
    let n = hex.len();
    if !matches!(n, 3 | 6 | 9 | 12) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let digits = n / 3;
    let channel = |i: usize| -> Option<u8> {
        let v = u32::from_str_radix(&hex[i * digits..(i + 1) * digits], 16).ok()?;
        Some(((v << (16 - 4 * digits)) >> 8) as u8)
    };
    Some([channel(0)?, channel(1)?, channel(2)?])
}

/// `R/G/B` after `rgb:`, each 1–4 hex digits scaled to 16 bits (`v × 65535 / (16ⁿ − 1)`,
/// rounded down), of which a screen keeps the top 8.
fn parse_rgb(values: &str) -> Option<Rgb8> {
    let mut out = [0u8; 3];
    let mut parts = values.split('/');
    for slot in &mut out {
        let part = parts.next()?;
        if part.is_empty() || part.len() > 4 || !part.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let v = u32::from_str_radix(part, 16).ok()?;
        let max = (1u32 << (4 * part.len())) - 1;
        *slot = ((v * 0xffff / max) >> 8) as u8;
    }
    parts.next().is_none().then_some(out)
}

/// Three decimal numbers split by `/` (each with an optional sign, a fraction and an
/// exponent, as C's `strtod` reads them).
fn floats(values: &str) -> Option<[f64; 3]> {
    let mut out = [0.0; 3];
    let mut parts = values.split('/');
    for slot in &mut out {
        let part = parts.next()?.trim();
        if part.is_empty() || !part.bytes().all(|b| b"0123456789+-.eE".contains(&b)) {
            return None;
        }
        *slot = part.parse::<f64>().ok().filter(|v| v.is_finite())?;
    }
    parts.next().is_none().then_some(out)
}

/// `Some` when `v` is in `0..=max`.
fn in_range(v: f64, max: f64) -> Option<()> {
    (0.0..=max).contains(&v).then_some(())
}

/// The white point, CIE illuminant D65, as CIE XYZ with Y 1: from its chromaticity
/// x 0.3127, y 0.3290, the values IEC 61966-2-1 gives for sRGB's reference white.
const D65: [f64; 3] = [0.3127 / 0.3290, 1.0, (1.0 - 0.3127 - 0.3290) / 0.3290];

/// CIE XYZ (white Y 1) → linear sRGB intensities, IEC 61966-2-1:1999 §5.2 (the standard's
/// four-digit matrix; D65 white gives 1, 1, 1 to within 10⁻⁴).
const XYZ_TO_SRGB: [[f64; 3]; 3] = [
    [3.2406, -1.5372, -0.4986],
    [-0.9689, 1.8758, 0.0415],
    [0.0557, -0.2040, 1.0570],
];

/// CIE XYZ → linear sRGB intensities, each clipped to 0–1 (a colour outside the sRGB gamut
/// keeps what of it the screen can show).
fn xyz_to_linear_srgb(xyz: [f64; 3]) -> [f64; 3] {
    XYZ_TO_SRGB.map(|row| (row[0] * xyz[0] + row[1] * xyz[1] + row[2] * xyz[2]).clamp(0.0, 1.0))
}

/// Linear intensities (0–1) → 8-bit device values by the sRGB transfer function
/// (IEC 61966-2-1:1999 §5.2: `12.92 v` up to 0.0031308, else `1.055 v^(1/2.4) − 0.055`),
/// rounded to the nearest of 0–255.
fn encode(linear: [f64; 3]) -> Rgb8 {
    linear.map(|v| {
        let v = v.clamp(0.0, 1.0);
        let e = if v <= 0.003_130_8 {
            12.92 * v
        } else {
            1.055 * v.powf(1.0 / 2.4) - 0.055
        };
        (e * 255.0).round().clamp(0.0, 255.0) as u8
    })
}

/// CIE xyY → XYZ (CIE 15:2004 §7.3: `X = xY/y`, `Z = (1 − x − y)Y/y`); black for Y 0,
/// `None` for y 0 with Y above 0 (no chromaticity).
fn xyy_to_xyz([x, y, big_y]: [f64; 3]) -> Option<[f64; 3]> {
    if big_y == 0.0 {
        return Some([0.0; 3]);
    }
    (y != 0.0).then(|| [x * big_y / y, big_y, (1.0 - x - y) * big_y / y])
}

/// CIE 1976 u′v′ and Y → XYZ (CIE 15:2004 §8.1: `u′ = 4X/(X + 15Y + 3Z)`,
/// `v′ = 9Y/(X + 15Y + 3Z)`, solved for X and Z: `X = 9u′Y/(4v′)`,
/// `Z = (12 − 3u′ − 20v′)Y/(4v′)`); black for Y 0, `None` for v′ 0 with Y above 0.
fn uvy_to_xyz([u, v, big_y]: [f64; 3]) -> Option<[f64; 3]> {
    if big_y == 0.0 {
        return Some([0.0; 3]);
    }
    (v != 0.0).then(|| {
        [
            9.0 * u * big_y / (4.0 * v),
            big_y,
            (12.0 - 3.0 * u - 20.0 * v) * big_y / (4.0 * v),
        ]
    })
}

/// The u′v′ of a colour (CIE 15:2004 §8.1).
fn xyz_to_uv([x, y, z]: [f64; 3]) -> (f64, f64) {
    let d = x + 15.0 * y + 3.0 * z;
    (4.0 * x / d, 9.0 * y / d)
}

/// The inverse of CIE 15:2004's function f of CIELAB and CIELUV (§8.2.1):
/// `t³` above 6/29, else `3 (6/29)² (t − 4/29)`, the straight segment near black.
fn f_inverse(t: f64) -> f64 {
    const DELTA: f64 = 6.0 / 29.0;
    if t > DELTA {
        t.powi(3)
    } else {
        3.0 * DELTA * DELTA * (t - 4.0 / 29.0)
    }
}

/// CIELAB → XYZ relative to D65 (CIE 15:2004 §8.2.1, inverted:
/// `fy = (L* + 16)/116`, `fx = fy + a*/500`, `fz = fy − b*/200`, each through [`f_inverse`]
/// and scaled by the white's X, Y, Z).
fn lab_to_xyz([l, a, b]: [f64; 3]) -> [f64; 3] {
    let fy = (l + 16.0) / 116.0;
    let [fx, fz] = [fy + a / 500.0, fy - b / 200.0];
    [
        D65[0] * f_inverse(fx),
        D65[1] * f_inverse(fy),
        D65[2] * f_inverse(fz),
    ]
}

/// CIELUV → XYZ relative to D65 (CIE 15:2004 §8.2.2, inverted: Y from L* as in CIELAB,
/// `u′ = u*/(13 L*) + u′n`, `v′ = v*/(13 L*) + v′n`); L* 0 is black.
fn luv_to_xyz([l, u, v]: [f64; 3]) -> Option<[f64; 3]> {
    if l == 0.0 {
        return Some([0.0; 3]);
    }
    let (un, vn) = xyz_to_uv(D65);
    let y = D65[1] * f_inverse((l + 16.0) / 116.0);
    uvy_to_xyz([u / (13.0 * l) + un, v / (13.0 * l) + vn, y])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rgb:`/`#` forms keep their bits exactly (xterm reports the same for these).
    #[test]
    fn hex_forms_keep_their_bits() {
        for (spec, want) in [
            ("rgb:f0f0/f0f0/f0f0", [0xf0, 0xf0, 0xf0]),
            ("rgb:8080/8080/8080", [0x80, 0x80, 0x80]),
            ("#fff", [0xf0, 0xf0, 0xf0]),
            ("#888", [0x80, 0x80, 0x80]),
            ("#f0f0f0", [0xf0, 0xf0, 0xf0]),
            ("#f00f00f00", [0xf0, 0xf0, 0xf0]),
            ("#800080008000", [0x80, 0x80, 0x80]),
            ("#aaaabbbbcccc", [0xaa, 0xbb, 0xcc]),
        ] {
            assert_eq!(parse(spec), Some(want), "{spec}");
        }
    }

    #[test]
    fn rgb_channels_scale_by_their_digits() {
        // 1 digit: f → ffff; 3 digits: ed1 → ed20 (× 65535 / 4095, rounded down).
        assert_eq!(parse("rgb:f/ed1/0"), Some([0xff, 0xed, 0x00]));
        assert_eq!(parse("RGB:1/22/333"), Some([0x11, 0x22, 0x33]));
        assert_eq!(parse("#FfF"), Some([0xf0, 0xf0, 0xf0]));
    }

    /// `rgbi:` is linear intensity: through the sRGB transfer function, 0.5 is
    /// 1.055 × 0.5^(1/2.4) − 0.055 = 0.7354 of full scale, 187.5 → 188; the linear
    /// segment's end 0.0031308 is 12.92 × 0.0031308 × 255 = 10.3 → 10.
    #[test]
    fn rgbi_goes_through_the_srgb_transfer_function() {
        assert_eq!(parse("rgbi:0/0/0"), Some([0, 0, 0]));
        assert_eq!(parse("rgbi:1/1/1"), Some([0xff; 3]));
        assert_eq!(parse("rgbi:0.5/0.5/0.5"), Some([188; 3]));
        assert_eq!(parse("rgbi:0.0031308/0/1"), Some([10, 0, 0xff]));
    }

    /// D65 white is full intensity in every device-independent form.
    #[test]
    fn d65_white_is_white() {
        for spec in [
            "CIEXYZ:0.9505/1/1.089",
            "CIExyY:0.3127/0.3290/1",
            // u′ = 4x/(−2x + 12y + 3), v′ = 9y/(−2x + 12y + 3) for D65's x, y.
            "CIEuvY:0.19783/0.46832/1",
            "CIELab:100/0/0",
            "CIELuv:100/0/0",
        ] {
            assert_eq!(parse(spec), Some([0xff; 3]), "{spec}");
        }
    }

    /// The sRGB primaries, from their chromaticities and luminances in IEC 61966-2-1
    /// (red x 0.64 y 0.33 Y 0.2126, green 0.30 0.60 0.7152, blue 0.15 0.06 0.0722), and from
    /// their CIELAB values under D65 (computed from those by CIE 15:2004), come back as the
    /// full channel alone.
    #[test]
    fn srgb_primaries_round_trip() {
        for (spec, want) in [
            ("CIExyY:0.64/0.33/0.2126", [0xff, 0, 0]),
            ("CIExyY:0.30/0.60/0.7152", [0, 0xff, 0]),
            ("CIExyY:0.15/0.06/0.0722", [0, 0, 0xff]),
            ("CIEXYZ:0.4124/0.2126/0.0193", [0xff, 0, 0]),
            ("CIEXYZ:0.3576/0.7152/0.1192", [0, 0xff, 0]),
            ("CIEXYZ:0.1805/0.0722/0.9505", [0, 0, 0xff]),
            ("CIELab:53.2408/80.0925/67.2032", [0xff, 0, 0]),
            ("CIELab:87.7347/-86.1827/83.1793", [0, 0xff, 0]),
            ("CIELab:32.2970/79.1875/-107.8602", [0, 0, 0xff]),
        ] {
            assert_eq!(parse(spec), Some(want), "{spec}");
        }
    }

    /// L* 0 is black; L* 50 with no chroma is Y = (66/116)³ = 0.1842, sRGB-encoded
    /// 0.4663 × 255 = 118.9 → 119 (the familiar mid grey #777777), in both CIELAB and
    /// CIELUV.
    #[test]
    fn lightness_alone_gives_greys() {
        for spec in [
            "CIELab:0/0/0",
            "CIELuv:0/0/0",
            "CIExyY:0.3/0.3/0",
            "CIEuvY:0.2/0.4/0",
        ] {
            assert_eq!(parse(spec), Some([0, 0, 0]), "{spec}");
        }
        assert_eq!(parse("CIELab:50/0/0"), Some([0x77; 3]));
        assert_eq!(parse("CIELuv:50/0/0"), Some([0x77; 3]));
        // Below L* 8 the straight segment: L* 1 → Y = 1/903.3 = 0.0011, 12.92 × Y × 255 = 3.6.
        assert_eq!(parse("CIELab:1/0/0"), Some([4, 4, 4]));
    }

    /// Colours outside the sRGB gamut are clipped channel by channel (the answers a
    /// reference computation of the same standards gives).
    #[test]
    fn out_of_gamut_colours_are_clipped() {
        for (spec, want) in [
            ("CIEXYZ:1/1/1", [0xff, 0xf9, 0xf4]),
            ("CIEXYZ:0.5/0.5/0.5", [0xcc, 0xb7, 0xb4]),
            ("CIEuvY:0.5/0.5/0.5", [0xff, 0x00, 0x56]),
            ("CIExyY:0.5/0.5/0.5", [0xee, 0xb3, 0x00]),
            ("CIELab:1/1/1", [0x07, 0x03, 0x01]),
            ("CIELuv:1/1/1", [0x08, 0x03, 0x00]),
        ] {
            assert_eq!(parse(spec), Some(want), "{spec}");
        }
    }

    #[test]
    fn malformed_out_of_range_or_unsupported_specs_are_refused() {
        for spec in [
            "rgb:12345/0/0",
            "rgb:1/2",
            "rgb:1/2/3/4",
            "rgb:g/0/0",
            "rgb://",
            "#12",
            "#1234",
            "#ggg",
            "rgbi:1/1",
            "rgbi:a/b/c",
            "rgbi:1.5/0/0",
            "CIELab:101/0/0",
            "CIELuv:-1/0/0",
            "CIEuvY:0.2/0.4/2",
            "CIEuvY:0.2/0/0.5",
            "CIExyY:1.5/0.3/0.5",
            "CIExyY:0.3/0/0.5",
            "CIEXYZ:2/2/2",
            "CIEXYZ:-1/0/0",
            "TekHVC:0/100/0",
            "TekHVC:1/1/1",
            "hsl:1/2/3",
            "red",
            "",
        ] {
            assert_eq!(parse(spec), None, "{spec}");
        }
    }
}
