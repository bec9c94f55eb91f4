//! Box drawing (U+2500–U+257F), block elements and shades (U+2580–U+259F) and Powerline
//! separators (U+E0B0–U+E0B7) drawn as filled geometry that tiles with no gap.
//!
//! Sources of the shapes: the Unicode code charts *Box Drawing* (U+2500–U+257F) and
//! *Block Elements* (U+2580–U+259F); the Powerline private-use code points U+E0B0–U+E0B3
//! (and the Nerd Fonts half circles U+E0B4–U+E0B7).
//!
//! Everything is emitted as **filled** shapes in absolute px coordinates (commands `M`, `L`,
//! `H`, `V`, `A`, `Z`), every subpath wound clockwise on screen (y pointing down). Shapes of the
//! same colour can therefore be concatenated into one `<path>` under the default `nonzero` fill
//! rule without overlaps cancelling out.
//!
//! Rules that make neighbouring cells join:
//! - a line's arm reaches exactly the cell edge (`x`, `x + w`, `y`, `y + h`); centre lines are
//!   at `x + w / 2` and `y + h / 2`;
//! - light strokes are `t = clamp(w / 8, 1, min(w, h) / 4)` px thick (rounded to 0.02 px),
//!   heavy strokes `2 t`;
//!   a double line is two light strokes whose centres are `t` either side of the centre line
//!   (so the gap between them is `t` as well);
//! - at a junction, an arm runs past the centre far enough to cover the perpendicular arms
//!   (half their thickness, or the far stroke of a double line), so corners have no notch;
//!   a stroke of a double arm instead stops at the inner corner when the perpendicular arm on
//!   its side is double too (so `╬` has four separate corners and `╔` an outer and an inner
//!   corner);
//! - block elements divide the cell at exact multiples of `w / 8` and `h / 8`; nothing is drawn
//!   outside the cell rectangle.

use crate::render::svg::push_num;

/// True when `c` is drawn by [`draw`] instead of a font glyph: every code point of Box Drawing
/// (U+2500–U+257F), Block Elements (U+2580–U+259F) and the Powerline separators U+E0B0–U+E0B7
/// (triangles, chevrons and half circles).
pub fn covers(c: char) -> bool {
    matches!(c, '\u{2500}'..='\u{259F}' | '\u{E0B0}'..='\u{E0B7}')
}

/// Emits the shapes of `c` in the cell at (`x`, `y`) of size `w` × `h` px as SVG path data,
/// each with its fill alpha in percent (100 = opaque; shades use 25/50/75).
///
/// All coordinates are absolute px, rounded to two decimals, and lie inside the cell rectangle
/// `[x, x + w] × [y, y + h]`. Lines reach the cell edges exactly, so the same character in
/// neighbouring cells forms one continuous line at any (also fractional) cell size. Characters
/// for which [`covers`] is false emit nothing.
pub fn draw(c: char, x: f32, y: f32, w: f32, h: f32, emit: &mut dyn FnMut(u8, &str)) {
    let finite = x.is_finite() && y.is_finite() && w.is_finite() && h.is_finite();
    if !covers(c) || !finite || w <= 0.0 || h <= 0.0 {
        return;
    }
    let cell = Cell::new(x, y, w, h);
    let mut out = Path::default();
    let cp = c as u32;
    match cp {
        0x2500..=0x257F => {
            let arms = ARMS[(cp - 0x2500) as usize];
            if arms != 0 {
                let arms =
                    [arms >> 12, (arms >> 8) & 15, (arms >> 4) & 15, arms & 15].map(|a| a as u8);
                cell.lines(arms, &mut out);
            } else {
                cell.special_box(cp, &mut out);
            }
        }
        0x2591..=0x2593 => {
            let alpha = [25, 50, 75][(cp - 0x2591) as usize];
            out.rect(Rect {
                x0: x,
                y0: y,
                x1: x + w,
                y1: y + h,
            });
            emit(alpha, &out.d);
            return;
        }
        0x2580..=0x259F => cell.block(cp, &mut out),
        _ => cell.powerline(cp, &mut out),
    }
    if !out.d.is_empty() {
        emit(100, &out.d);
    }
}

/// Arm weights of the box-drawing characters U+2500–U+257F packed as nibbles `0xURDL`
/// (up, right, down, left): 0 none, 1 light, 2 heavy, 3 double. 0 marks the characters drawn
/// by special code (dashes, arcs, diagonals). From the Unicode Box Drawing code chart names.
#[rustfmt::skip]
const ARMS: [u16; 128] = [
    // 2500 ─ ━ │ ┃ ┄ ┅ ┆ ┇
    0x0101, 0x0202, 0x1010, 0x2020, 0, 0, 0, 0,
    // 2508 ┈ ┉ ┊ ┋ ┌ ┍ ┎ ┏
    0, 0, 0, 0, 0x0110, 0x0210, 0x0120, 0x0220,
    // 2510 ┐ ┑ ┒ ┓ └ ┕ ┖ ┗
    0x0011, 0x0012, 0x0021, 0x0022, 0x1100, 0x1200, 0x2100, 0x2200,
    // 2518 ┘ ┙ ┚ ┛ ├ ┝ ┞ ┟
    0x1001, 0x1002, 0x2001, 0x2002, 0x1110, 0x1210, 0x2110, 0x1120,
    // 2520 ┠ ┡ ┢ ┣ ┤ ┥ ┦ ┧
    0x2120, 0x2210, 0x1220, 0x2220, 0x1011, 0x1012, 0x2011, 0x1021,
    // 2528 ┨ ┩ ┪ ┫ ┬ ┭ ┮ ┯
    0x2021, 0x2012, 0x1022, 0x2022, 0x0111, 0x0112, 0x0211, 0x0212,
    // 2530 ┰ ┱ ┲ ┳ ┴ ┵ ┶ ┷
    0x0121, 0x0122, 0x0221, 0x0222, 0x1101, 0x1102, 0x1201, 0x1202,
    // 2538 ┸ ┹ ┺ ┻ ┼ ┽ ┾ ┿
    0x2101, 0x2102, 0x2201, 0x2202, 0x1111, 0x1112, 0x1211, 0x1212,
    // 2540 ╀ ╁ ╂ ╃ ╄ ╅ ╆ ╇
    0x2111, 0x1121, 0x2121, 0x2112, 0x2211, 0x1122, 0x1221, 0x2212,
    // 2548 ╈ ╉ ╊ ╋ ╌ ╍ ╎ ╏
    0x1222, 0x2122, 0x2221, 0x2222, 0, 0, 0, 0,
    // 2550 ═ ║ ╒ ╓ ╔ ╕ ╖ ╗
    0x0303, 0x3030, 0x0310, 0x0130, 0x0330, 0x0013, 0x0031, 0x0033,
    // 2558 ╘ ╙ ╚ ╛ ╜ ╝ ╞ ╟
    0x1300, 0x3100, 0x3300, 0x1003, 0x3001, 0x3003, 0x1310, 0x3130,
    // 2560 ╠ ╡ ╢ ╣ ╤ ╥ ╦ ╧
    0x3330, 0x1013, 0x3031, 0x3033, 0x0313, 0x0131, 0x0333, 0x1303,
    // 2568 ╨ ╩ ╪ ╫ ╬ ╭ ╮ ╯
    0x3101, 0x3303, 0x1313, 0x3131, 0x3333, 0, 0, 0,
    // 2570 ╰ ╱ ╲ ╳ ╴ ╵ ╶ ╷
    0, 0, 0, 0, 0x0001, 0x1000, 0x0100, 0x0010,
    // 2578 ╸ ╹ ╺ ╻ ╼ ╽ ╾ ╿
    0x0002, 0x2000, 0x0200, 0x0020, 0x0201, 0x1020, 0x0102, 0x2010,
];

/// Fraction of a dash period left as gap (half of it at each end of the period).
const DASH_GAP: f32 = 0.4;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Rect {
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
}

/// One segment of an outline: a straight line or an elliptical arc to (`x`, `y`).
#[derive(Clone, Copy, Debug)]
enum Seg {
    Line(f32, f32),
    Arc {
        rx: f32,
        ry: f32,
        sweep: bool,
        x: f32,
        y: f32,
    },
}

impl Seg {
    fn end(self) -> (f32, f32) {
        match self {
            Seg::Line(x, y) | Seg::Arc { x, y, .. } => (x, y),
        }
    }
}

/// Path data under construction.
#[derive(Default)]
struct Path {
    d: String,
}

impl Path {
    fn cmd(&mut self, c: char, nums: &[f32]) {
        self.d.push(c);
        for (i, &n) in nums.iter().enumerate() {
            if i > 0 {
                self.d.push(' ');
            }
            push_num(&mut self.d, n);
        }
    }

    /// A clockwise rectangle; empty rectangles are skipped.
    fn rect(&mut self, r: Rect) {
        if r.x1 - r.x0 <= 0.0 || r.y1 - r.y0 <= 0.0 {
            return;
        }
        self.cmd('M', &[r.x0, r.y0]);
        self.cmd('H', &[r.x1]);
        self.cmd('V', &[r.y1]);
        self.cmd('H', &[r.x0]);
        self.d.push('Z');
    }

    /// A closed outline from `start` through `segs`, rewound clockwise if needed (the winding is
    /// judged from the polygon of its vertices, which is enough for the shapes drawn here).
    fn shape(&mut self, start: (f32, f32), segs: &[Seg]) {
        let mut pts = Vec::with_capacity(segs.len() + 1);
        pts.push(start);
        pts.extend(segs.iter().map(|s| s.end()));
        let n = pts.len();
        let area: f32 = (0..n)
            .map(|i| {
                let (a, b) = (pts[i], pts[(i + 1) % n]);
                a.0 * b.1 - b.0 * a.1
            })
            .sum();
        if area < -1e-4 {
            // Reverse: start → last vertex along the closing line, then each segment backwards.
            let mut rev = Vec::with_capacity(segs.len() + 1);
            rev.push(Seg::Line(pts[n - 1].0, pts[n - 1].1));
            for i in (0..segs.len()).rev() {
                let (x, y) = pts[i];
                rev.push(match segs[i] {
                    Seg::Line(..) => Seg::Line(x, y),
                    Seg::Arc { rx, ry, sweep, .. } => Seg::Arc {
                        rx,
                        ry,
                        sweep: !sweep,
                        x,
                        y,
                    },
                });
            }
            self.emit_shape(start, &rev);
        } else {
            self.emit_shape(start, segs);
        }
    }

    fn emit_shape(&mut self, start: (f32, f32), segs: &[Seg]) {
        self.cmd('M', &[start.0, start.1]);
        let mut cur = start;
        for (i, &s) in segs.iter().enumerate() {
            match s {
                Seg::Line(x, y) => {
                    if i + 1 == segs.len() && (x, y) == start {
                        break; // `Z` closes it
                    }
                    if (x, y) == cur {
                        continue;
                    } else if x == cur.0 {
                        self.cmd('V', &[y]);
                    } else if y == cur.1 {
                        self.cmd('H', &[x]);
                    } else {
                        self.cmd('L', &[x, y]);
                    }
                    cur = (x, y);
                }
                Seg::Arc {
                    rx,
                    ry,
                    sweep,
                    x,
                    y,
                } => {
                    self.cmd(
                        'A',
                        &[rx, ry, 0.0, 0.0, if sweep { 1.0 } else { 0.0 }, x, y],
                    );
                    cur = (x, y);
                }
            }
        }
        self.d.push('Z');
    }
}

/// Merges rectangles that share an edge span and touch or overlap, and drops rectangles that
/// lie inside another one, so straight lines come out as one rectangle.
fn merge(rects: &mut Vec<Rect>) {
    const EPS: f32 = 1e-4;
    let same = |a: f32, b: f32| (a - b).abs() < EPS;
    let inside = |a: &Rect, b: &Rect| {
        a.x0 >= b.x0 - EPS && a.x1 <= b.x1 + EPS && a.y0 >= b.y0 - EPS && a.y1 <= b.y1 + EPS
    };
    'again: loop {
        for i in 0..rects.len() {
            for j in 0..rects.len() {
                if i == j {
                    continue;
                }
                let (a, b) = (rects[i], rects[j]);
                let merged = if inside(&b, &a) {
                    Some(a)
                } else if same(a.x0, b.x0)
                    && same(a.x1, b.x1)
                    && a.y0 <= b.y1 + EPS
                    && b.y0 <= a.y1 + EPS
                {
                    Some(Rect {
                        y0: a.y0.min(b.y0),
                        y1: a.y1.max(b.y1),
                        ..a
                    })
                } else if same(a.y0, b.y0)
                    && same(a.y1, b.y1)
                    && a.x0 <= b.x1 + EPS
                    && b.x0 <= a.x1 + EPS
                {
                    Some(Rect {
                        x0: a.x0.min(b.x0),
                        x1: a.x1.max(b.x1),
                        ..a
                    })
                } else {
                    None
                };
                if let Some(m) = merged {
                    rects[i] = m;
                    rects.swap_remove(j);
                    continue 'again;
                }
            }
        }
        break;
    }
}

/// A cell and its derived measures, all in px.
struct Cell {
    x: f32,
    y: f32,
    w: f32,
    h: f32,
    /// Centre of the cell.
    cx: f32,
    cy: f32,
    /// Light stroke thickness; heavy is twice this.
    t: f32,
}

impl Cell {
    fn new(x: f32, y: f32, w: f32, h: f32) -> Cell {
        // A multiple of 0.02 px, so half strokes stay exact at two decimals.
        let t = ((w / 8.0).max(1.0).min(w.min(h) / 4.0) * 50.0).round() / 50.0;
        Cell {
            x,
            y,
            w,
            h,
            cx: x + w / 2.0,
            cy: y + h / 2.0,
            t,
        }
    }

    /// Stroke thickness for arm weight 1 (light) or 2 (heavy); a double line's strokes are light.
    fn thick(&self, weight: u8) -> f32 {
        if weight == 2 {
            2.0 * self.t
        } else {
            self.t
        }
    }

    /// Offset of each stroke of a double line from the centre line.
    fn dbl(&self) -> f32 {
        self.t
    }

    /// Half the width of the footprint of a perpendicular arm of `weight` (what an arm must run
    /// past the centre to cover it).
    fn reach(&self, weight: u8) -> f32 {
        match weight {
            0 => 0.0,
            3 => self.dbl() + self.t / 2.0,
            k => self.thick(k) / 2.0,
        }
    }

    /// The strokes of one arm of `weight`, whose perpendicular arms are `neg` (on the side of
    /// negative offsets: up for horizontal arms, left for vertical arms) and `pos`.
    /// Each stroke is (offset from the centre line, thickness, overshoot past the centre).
    fn strokes(&self, weight: u8, neg: u8, pos: u8) -> Vec<(f32, f32, f32)> {
        match weight {
            0 => vec![],
            3 => {
                let d = self.dbl();
                // A stroke meets a double perpendicular arm on its own side at the inner corner,
                // covers a single one on its side, and otherwise reaches across whatever is on
                // the other side (the outer corner of a double arm, or a single line).
                let over = |own: u8, other: u8| match own {
                    3 => self.t / 2.0 - d,
                    0 => self.reach(other),
                    k => self.reach(k),
                };
                vec![(-d, self.t, over(neg, pos)), (d, self.t, over(pos, neg))]
            }
            k => vec![(0.0, self.thick(k), self.reach(neg).max(self.reach(pos)))],
        }
    }

    /// Lines with arms `[up, right, down, left]` of weight 0 none, 1 light, 2 heavy, 3 double.
    fn lines(&self, [u, r, d, l]: [u8; 4], out: &mut Path) {
        let (x, y, cx, cy) = (self.x, self.y, self.cx, self.cy);
        let (x1, y1) = (x + self.w, y + self.h);
        let mut rects = Vec::new();
        for (off, th, o) in self.strokes(r, u, d) {
            rects.push(Rect {
                x0: cx - o,
                y0: cy + off - th / 2.0,
                x1,
                y1: cy + off + th / 2.0,
            });
        }
        for (off, th, o) in self.strokes(l, u, d) {
            rects.push(Rect {
                x0: x,
                y0: cy + off - th / 2.0,
                x1: cx + o,
                y1: cy + off + th / 2.0,
            });
        }
        for (off, th, o) in self.strokes(u, l, r) {
            rects.push(Rect {
                x0: cx + off - th / 2.0,
                y0: y,
                x1: cx + off + th / 2.0,
                y1: cy + o,
            });
        }
        for (off, th, o) in self.strokes(d, l, r) {
            rects.push(Rect {
                x0: cx + off - th / 2.0,
                y0: cy - o,
                x1: cx + off + th / 2.0,
                y1,
            });
        }
        merge(&mut rects);
        for r in rects {
            out.rect(r);
        }
    }

    /// Dashes, arcs and diagonals.
    fn special_box(&self, cp: u32, out: &mut Path) {
        match cp {
            // ┄ ┅ ┆ ┇ (triple), ┈ ┉ ┊ ┋ (quadruple), ╌ ╍ ╎ ╏ (double dash)
            0x2504..=0x250B | 0x254C..=0x254F => {
                let (n, k) = match cp {
                    0x2504..=0x2507 => (3, cp - 0x2504),
                    0x2508..=0x250B => (4, cp - 0x2508),
                    _ => (2, cp - 0x254C),
                };
                self.dashes(n, if k % 2 == 1 { 2 } else { 1 }, k >= 2, out);
            }
            // ╭ ╮ ╯ ╰: arms (right, down), (left, down), (left, up), (right, up)
            0x256D => self.arc(1.0, 1.0, out),
            0x256E => self.arc(-1.0, 1.0, out),
            0x256F => self.arc(-1.0, -1.0, out),
            0x2570 => self.arc(1.0, -1.0, out),
            0x2571 => self.diagonal(true, out),
            0x2572 => self.diagonal(false, out),
            0x2573 => {
                self.diagonal(true, out);
                self.diagonal(false, out);
            }
            _ => {}
        }
    }

    /// `n` dashes per cell of `weight`; each dash period is centred in its share of the cell, so
    /// the end gaps are half the inner ones and the pattern continues across neighbouring cells.
    fn dashes(&self, n: u32, weight: u8, vertical: bool, out: &mut Path) {
        let th = self.thick(weight);
        let len = if vertical { self.h } else { self.w };
        let period = len / n as f32;
        let gap = period * DASH_GAP;
        for i in 0..n {
            let a = i as f32 * period + gap / 2.0;
            let b = (i + 1) as f32 * period - gap / 2.0;
            out.rect(if vertical {
                Rect {
                    x0: self.cx - th / 2.0,
                    y0: self.y + a,
                    x1: self.cx + th / 2.0,
                    y1: self.y + b,
                }
            } else {
                Rect {
                    x0: self.x + a,
                    y0: self.cy - th / 2.0,
                    x1: self.x + b,
                    y1: self.cy + th / 2.0,
                }
            });
        }
    }

    /// A rounded corner with arms toward `sx` (+1 right, -1 left) and `sy` (+1 down, -1 up):
    /// a light ring quarter of centre-line radius `min(w, h) / 2` around the point
    /// (cx + sx·r, cy + sy·r), continued by straight strokes to the middles of the two edges.
    fn arc(&self, sx: f32, sy: f32, out: &mut Path) {
        let ht = self.t / 2.0;
        let r = self.w.min(self.h) / 2.0;
        let (ro, ri) = (r + ht, r - ht);
        let px = |dx: f32| self.cx + sx * dx;
        let py = |dy: f32| self.cy + sy * dy;
        let (ex, ey) = (self.w / 2.0, self.h / 2.0);
        // Unmirrored (╭) the outer arc turns clockwise.
        let sweep = sx * sy > 0.0;
        out.shape(
            (px(-ht), py(ey)),
            &[
                Seg::Line(px(-ht), py(r)),
                Seg::Arc {
                    rx: ro,
                    ry: ro,
                    sweep,
                    x: px(r),
                    y: py(-ht),
                },
                Seg::Line(px(ex), py(-ht)),
                Seg::Line(px(ex), py(ht)),
                Seg::Line(px(r), py(ht)),
                Seg::Arc {
                    rx: ri,
                    ry: ri,
                    sweep: !sweep,
                    x: px(ht),
                    y: py(r),
                },
                Seg::Line(px(ht), py(ey)),
            ],
        );
    }

    /// ╱ (`rising`) or ╲: a light band along the cell diagonal, clipped to the cell (a hexagon).
    fn diagonal(&self, rising: bool, out: &mut Path) {
        let (w, h) = (self.w, self.h);
        let len = (w * w + h * h).sqrt();
        // Where the band's edges cross the horizontal and vertical cell edges.
        let ah = (self.t / 2.0 * len / h).min(w);
        let av = (self.t / 2.0 * len / w).min(h);
        // Drawn as ╱ in cell-local coordinates, mirrored horizontally for ╲.
        let fx = |dx: f32| if rising { self.x + dx } else { self.x + w - dx };
        let y = self.y;
        let pts = [
            (w - ah, 0.0),
            (w, 0.0),
            (w, av),
            (ah, h),
            (0.0, h),
            (0.0, h - av),
        ];
        let segs: Vec<Seg> = pts[1..]
            .iter()
            .map(|&(dx, dy)| Seg::Line(fx(dx), y + dy))
            .collect();
        out.shape((fx(pts[0].0), y + pts[0].1), &segs);
    }

    /// Block elements U+2580–U+2590, U+2594–U+259F (shades are handled by the caller).
    fn block(&self, cp: u32, out: &mut Path) {
        // Rectangles in eighths of the cell: (x0, y0, x1, y1).
        let mut parts: Vec<(u8, u8, u8, u8)> = Vec::new();
        match cp {
            0x2580 => parts.push((0, 0, 8, 4)),
            0x2581..=0x2588 => parts.push((0, 8 - (cp - 0x2580) as u8, 8, 8)),
            0x2589..=0x258F => parts.push((0, 0, 8 - (cp - 0x2588) as u8, 8)),
            0x2590 => parts.push((4, 0, 8, 8)),
            0x2594 => parts.push((0, 0, 8, 1)),
            0x2595 => parts.push((7, 0, 8, 8)),
            0x2596..=0x259F => {
                // Quadrant bits: 1 upper left, 2 upper right, 4 lower left, 8 lower right.
                let bits = [
                    4u8,
                    8,
                    1,
                    1 | 4 | 8,
                    1 | 8,
                    1 | 2 | 4,
                    1 | 2 | 8,
                    2,
                    2 | 4,
                    2 | 4 | 8,
                ][(cp - 0x2596) as usize];
                for (bit, q) in [
                    (1, (0, 0, 4, 4)),
                    (2, (4, 0, 8, 4)),
                    (4, (0, 4, 4, 8)),
                    (8, (4, 4, 8, 8)),
                ] {
                    if bits & bit != 0 {
                        parts.push(q);
                    }
                }
            }
            _ => {}
        }
        let fx = |e: u8| {
            if e == 8 {
                self.x + self.w
            } else {
                self.x + self.w * e as f32 / 8.0
            }
        };
        let fy = |e: u8| {
            if e == 8 {
                self.y + self.h
            } else {
                self.y + self.h * e as f32 / 8.0
            }
        };
        let mut rects: Vec<Rect> = parts
            .into_iter()
            .map(|(a, b, c, d)| Rect {
                x0: fx(a),
                y0: fy(b),
                x1: fx(c),
                y1: fy(d),
            })
            .collect();
        merge(&mut rects);
        for r in rects {
            out.rect(r);
        }
    }

    /// Powerline separators: U+E0B0 solid right triangle, U+E0B1 thin right chevron,
    /// U+E0B2 solid left triangle, U+E0B3 thin left chevron, U+E0B4–U+E0B7 right/left half
    /// circles (solid, thin). All span the full cell height.
    fn powerline(&self, cp: u32, out: &mut Path) {
        let (x, y, w, h, cy) = (self.x, self.y, self.w, self.h, self.cy);
        let (x1, y1) = (x + w, y + h);
        // Mirror horizontally for the left-pointing variants.
        let left = matches!(cp, 0xE0B2 | 0xE0B3 | 0xE0B6 | 0xE0B7);
        let fx = |dx: f32| if left { x1 - dx } else { x + dx };
        let t = self.t;
        match cp {
            0xE0B0 | 0xE0B2 => out.shape(
                (fx(0.0), y),
                &[Seg::Line(fx(w), cy), Seg::Line(fx(0.0), y1)],
            ),
            0xE0B1 | 0xE0B3 => {
                // Stroke `t` thick measured perpendicular to the slanted edges.
                let len = (w * w + h * h / 4.0).sqrt();
                let a = (t * len / w).min(h / 2.0 - 0.01).max(0.0);
                let b = (t * len / (h / 2.0)).min(w);
                out.shape(
                    (fx(0.0), y),
                    &[
                        Seg::Line(fx(w), cy),
                        Seg::Line(fx(0.0), y1),
                        Seg::Line(fx(0.0), y1 - a),
                        Seg::Line(fx(w - b), cy),
                        Seg::Line(fx(0.0), y + a),
                    ],
                );
            }
            0xE0B4..=0xE0B7 => {
                // Half ellipse: flat side on the near edge, bulging to the far edge.
                // Clockwise: right-pointing goes top → bottom, left-pointing bottom → top.
                let (ys, ye) = if left { (y1, y) } else { (y, y1) };
                let dir = if left { -1.0 } else { 1.0 };
                let ry = h / 2.0;
                let outer = Seg::Arc {
                    rx: w,
                    ry,
                    sweep: true,
                    x: fx(0.0),
                    y: ye,
                };
                if matches!(cp, 0xE0B4 | 0xE0B6) {
                    out.emit_shape((fx(0.0), ys), &[outer]);
                } else {
                    let ti = t.min(w / 2.0).min(ry / 2.0);
                    out.emit_shape(
                        (fx(0.0), ys),
                        &[
                            outer,
                            Seg::Line(fx(0.0), ye - dir * ti),
                            Seg::Arc {
                                rx: w - ti,
                                ry: ry - ti,
                                sweep: false,
                                x: fx(0.0),
                                y: ys + dir * ti,
                            },
                        ],
                    );
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything `draw` emits for `c`, as (alpha, path data).
    fn paths(c: char, x: f32, y: f32, w: f32, h: f32) -> Vec<(u8, String)> {
        let mut v = Vec::new();
        draw(c, x, y, w, h, &mut |a, d| v.push((a, d.to_string())));
        v
    }

    /// Path data split into command letters and number tokens.
    fn tokens(d: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut num = String::new();
        for ch in d.chars() {
            if ch.is_ascii_digit() || ch == '.' || (ch == '-' && num.is_empty()) {
                num.push(ch);
                continue;
            }
            if !num.is_empty() {
                out.push(std::mem::take(&mut num));
            }
            if ch == '-' {
                num.push(ch);
            } else if ch.is_ascii_alphabetic() {
                out.push(ch.to_string());
            } else {
                assert_eq!(ch, ' ', "unexpected character {ch:?} in {d:?}");
            }
        }
        if !num.is_empty() {
            out.push(num);
        }
        out
    }

    /// One subpath: its vertices (arc end points included) and whether it has arcs.
    struct Sub {
        pts: Vec<(f32, f32)>,
        arcs: bool,
    }

    /// Parses absolute `M L H V A Z` path data into subpaths (arcs reduced to their chords).
    fn parse(d: &str) -> Vec<Sub> {
        let toks = tokens(d);
        let mut subs: Vec<Sub> = Vec::new();
        let mut i = 0;
        let mut cur = (0.0f32, 0.0f32);
        let num = |i: usize| -> f32 {
            let t = &toks[i];
            t.parse::<f32>()
                .unwrap_or_else(|_| panic!("bad number {t:?} in {d:?}"))
        };
        while i < toks.len() {
            let c = toks[i].as_str();
            i += 1;
            match c {
                "M" => {
                    cur = (num(i), num(i + 1));
                    i += 2;
                    subs.push(Sub {
                        pts: vec![cur],
                        arcs: false,
                    });
                }
                "L" => {
                    cur = (num(i), num(i + 1));
                    i += 2;
                    subs.last_mut().unwrap().pts.push(cur);
                }
                "H" => {
                    cur.0 = num(i);
                    i += 1;
                    subs.last_mut().unwrap().pts.push(cur);
                }
                "V" => {
                    cur.1 = num(i);
                    i += 1;
                    subs.last_mut().unwrap().pts.push(cur);
                }
                "A" => {
                    assert!(num(i) > 0.0 && num(i + 1) > 0.0, "bad radius in {d:?}");
                    cur = (num(i + 5), num(i + 6));
                    i += 7;
                    let s = subs.last_mut().unwrap();
                    s.pts.push(cur);
                    s.arcs = true;
                }
                "Z" => cur = subs.last().unwrap().pts[0],
                other => panic!("unexpected command {other:?} in {d:?}"),
            }
        }
        subs
    }

    fn all_points(c: char, x: f32, y: f32, w: f32, h: f32) -> Vec<(f32, f32)> {
        paths(c, x, y, w, h)
            .iter()
            .flat_map(|(_, d)| parse(d))
            .flat_map(|s| s.pts)
            .collect()
    }

    /// Nonzero winding test of (`px`, `py`) against everything drawn for `c` at full alpha
    /// (arcs count as chords, so keep probes away from curves).
    fn covered(c: char, cell: (f32, f32, f32, f32), px: f32, py: f32) -> bool {
        let (x, y, w, h) = cell;
        let mut wind = 0;
        for (_, d) in paths(c, x, y, w, h) {
            for s in parse(&d) {
                let n = s.pts.len();
                for k in 0..n {
                    let (a, b) = (s.pts[k], s.pts[(k + 1) % n]);
                    if a.1 <= py && b.1 > py && cross(a, b, (px, py)) > 0.0 {
                        wind += 1;
                    } else if a.1 > py && b.1 <= py && cross(a, b, (px, py)) < 0.0 {
                        wind -= 1;
                    }
                }
            }
        }
        wind != 0
    }

    fn cross(a: (f32, f32), b: (f32, f32), p: (f32, f32)) -> f32 {
        (b.0 - a.0) * (p.1 - a.1) - (p.0 - a.0) * (b.1 - a.1)
    }

    fn bounds(pts: &[(f32, f32)]) -> (f32, f32, f32, f32) {
        pts.iter()
            .fold((f32::MAX, f32::MAX, f32::MIN, f32::MIN), |b, p| {
                (b.0.min(p.0), b.1.min(p.1), b.2.max(p.0), b.3.max(p.1))
            })
    }

    fn all_chars() -> impl Iterator<Item = char> {
        (0x2500..=0x259F)
            .chain(0xE0B0..=0xE0B7)
            .map(|c| char::from_u32(c).unwrap())
    }

    const CELLS: [(f32, f32, f32, f32); 5] = [
        (0.0, 0.0, 8.4, 18.0),
        (0.0, 0.0, 8.4, 18.48),
        (84.0, 36.96, 8.4, 18.48),
        (16.0, 20.0, 10.0, 20.0),
        (3.3, 7.7, 7.23, 16.9),
    ];

    const CELL: (f32, f32, f32, f32) = (0.0, 0.0, 8.4, 18.0);

    #[test]
    fn covers_exactly_the_ranges() {
        for c in all_chars() {
            assert!(covers(c), "{c:?}");
        }
        for c in [
            'a', '0', ' ', '\u{24FF}', '\u{25A0}', '\u{E0AF}', '\u{E0B8}', '\u{2800}',
        ] {
            assert!(!covers(c), "{c:?}");
        }
        let mut n = 0;
        draw('a', 0.0, 0.0, 8.4, 18.0, &mut |_, _| n += 1);
        assert_eq!(n, 0);
    }

    #[test]
    fn every_char_draws_inside_its_cell() {
        for &(x, y, w, h) in &CELLS {
            for c in all_chars() {
                let ps = paths(c, x, y, w, h);
                assert!(!ps.is_empty(), "{c:?} drew nothing");
                for (alpha, d) in &ps {
                    assert!(!d.is_empty(), "{c:?} emitted empty path data");
                    assert!([25, 50, 75, 100].contains(alpha), "{c:?} alpha {alpha}");
                    let subs = parse(d);
                    assert!(!subs.is_empty());
                    for s in subs {
                        assert!(s.pts.len() >= 2, "{c:?}: degenerate subpath in {d:?}");
                        for (px, py) in s.pts {
                            let tol = 0.006;
                            assert!(
                                px >= x - tol
                                    && px <= x + w + tol
                                    && py >= y - tol
                                    && py <= y + h + tol,
                                "{c:?} at {:?}: ({px}, {py}) outside the cell in {d:?}",
                                (x, y, w, h)
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_are_finite_with_at_most_two_decimals() {
        for &(x, y, w, h) in &CELLS {
            for c in all_chars() {
                for (_, d) in paths(c, x, y, w, h) {
                    assert!(!d.contains("NaN") && !d.contains("inf"), "{c:?}: {d}");
                    for t in tokens(&d) {
                        if t.chars().next().unwrap().is_ascii_alphabetic() {
                            assert!(
                                ["M", "L", "H", "V", "A", "Z"].contains(&t.as_str()),
                                "{c:?}: {d}"
                            );
                            continue;
                        }
                        assert!(t.parse::<f32>().unwrap().is_finite(), "{c:?}: {t}");
                        let decimals = t.split('.').nth(1).map_or(0, str::len);
                        assert!(decimals <= 2, "{c:?}: {t} in {d}");
                    }
                }
            }
        }
    }

    #[test]
    fn shapes_wind_clockwise() {
        // Shapes of one colour share a nonzero-filled path: opposite windings would cancel.
        for &(x, y, w, h) in &CELLS {
            for c in all_chars() {
                for (_, d) in paths(c, x, y, w, h) {
                    for s in parse(&d) {
                        let n = s.pts.len();
                        let area: f32 = (0..n)
                            .map(|i| {
                                let (a, b) = (s.pts[i], s.pts[(i + 1) % n]);
                                a.0 * b.1 - b.0 * a.1
                            })
                            .sum();
                        if s.arcs {
                            assert!(area >= -0.01, "{c:?}: counter-clockwise {d}");
                        } else {
                            assert!(area > 0.0, "{c:?}: not clockwise {d}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn horizontal_and_vertical_lines_reach_the_edges() {
        for &(x, y, w, h) in &CELLS {
            for c in ['─', '━', '═', '┼', '╋', '╬', '╪', '╫', '┿', '╂'] {
                let b = bounds(&all_points(c, x, y, w, h));
                assert!(
                    (b.0 - x).abs() < 0.006 && (b.2 - (x + w)).abs() < 0.006,
                    "{c:?} x span {b:?}"
                );
            }
            for c in ['│', '┃', '║', '┼', '╋', '╬', '╪', '╫', '┿', '╂'] {
                let b = bounds(&all_points(c, x, y, w, h));
                assert!(
                    (b.1 - y).abs() < 0.006 && (b.3 - (y + h)).abs() < 0.006,
                    "{c:?} y span {b:?}"
                );
            }
        }
        let (x0, _, x1, _) = bounds(&all_points('─', 0.0, 0.0, 8.4, 18.0));
        assert_eq!((x0, x1), (0.0, 8.4));
        let (_, y0, _, y1) = bounds(&all_points('│', 0.0, 0.0, 8.4, 18.0));
        assert_eq!((y0, y1), (0.0, 18.0));
        // One rectangle for a straight line, centred on the cell.
        assert_eq!(
            paths('─', 0.0, 0.0, 8.4, 18.0),
            vec![(100, "M0 8.48H8.4V9.52H0Z".to_string())]
        );
    }

    #[test]
    fn lines_tile_across_a_row_and_a_column() {
        let (w, h) = (8.4, 18.48);
        for k in 0..12 {
            let x = k as f32 * w;
            let cell = (x, 0.0, w, h);
            for p in [x + 0.01, x + w / 2.0, x + w - 0.01] {
                assert!(covered('─', cell, p, h / 2.0), "─ cell {k} at x {p}");
                assert!(
                    covered('═', cell, p, h / 2.0 - w / 8.0),
                    "═ top line cell {k} at x {p}"
                );
                assert!(
                    covered('═', cell, p, h / 2.0 + w / 8.0),
                    "═ bottom line cell {k} at x {p}"
                );
                assert!(!covered('═', cell, p, h / 2.0), "═ gap cell {k} at x {p}");
            }
            let y = k as f32 * h;
            let cell = (0.0, y, w, h);
            for p in [y + 0.01, y + h / 2.0, y + h - 0.01] {
                assert!(covered('│', cell, w / 2.0, p), "│ cell {k} at y {p}");
                assert!(covered('┃', cell, w / 2.0, p), "┃ cell {k} at y {p}");
                assert!(
                    covered('║', cell, w / 2.0 - w / 8.0, p),
                    "║ cell {k} at y {p}"
                );
                assert!(!covered('║', cell, w / 2.0, p), "║ gap cell {k} at y {p}");
            }
        }
    }

    #[test]
    fn corners_and_junctions_are_solid() {
        let (cx, cy, t) = (4.2, 9.0, Cell::new(0.0, 0.0, 8.4, 18.0).t);
        // Light and heavy corners: the outer corner of the bend is filled.
        assert!(covered('┌', CELL, cx - t / 2.0 + 0.02, cy - t / 2.0 + 0.02));
        assert!(!covered(
            '┌',
            CELL,
            cx - t / 2.0 - 0.02,
            cy - t / 2.0 - 0.02
        ));
        assert!(covered('┏', CELL, cx - t + 0.02, cy - t + 0.02));
        assert!(covered('┍', CELL, cx - t / 2.0 + 0.02, cy - t + 0.02));
        assert!(covered('┎', CELL, cx - t + 0.02, cy - t / 2.0 + 0.02));
        assert!(covered('┘', CELL, cx + t / 2.0 - 0.02, cy + t / 2.0 - 0.02));
        assert!(covered('┼', CELL, cx, cy));
        // Heavy arm over a light line: no notch on the light side.
        assert!(covered('┞', CELL, cx - t + 0.02, cy + t / 2.0 - 0.02));
    }

    #[test]
    fn double_line_junctions() {
        let (cx, cy, t) = (4.2, 9.0, Cell::new(0.0, 0.0, 8.4, 18.0).t);
        let d = t;
        let probe = |c: char, dx: f32, dy: f32| covered(c, CELL, cx + dx, cy + dy);
        // ╔: outer lines meet at the outer corner, inner lines at the inner corner.
        assert!(probe('╔', -d, -d));
        assert!(probe('╔', -d - t / 2.0 + 0.02, -d - t / 2.0 + 0.02));
        assert!(probe('╔', d, d));
        assert!(probe('╔', d - t / 2.0 + 0.02, d - t / 2.0 + 0.02));
        assert!(!probe('╔', 0.0, 0.0));
        assert!(!probe('╔', d - t / 2.0 - 0.02, d));
        assert!(!probe('╔', d, d - t / 2.0 - 0.02));
        // ╝ mirrored.
        assert!(probe('╝', d, d));
        assert!(probe('╝', -d, -d));
        assert!(!probe('╝', 0.0, 0.0));
        // ╬: four separate corners, nothing in the middle.
        for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
            assert!(probe('╬', sx * d, sy * d));
            assert!(
                !probe('╬', sx * (d + t / 2.0 + 0.05), sy * (d + t / 2.0 + 0.05)),
                "╬ outside {sx} {sy}"
            );
        }
        for (dx, dy) in [(0.0, 0.0), (0.0, -d), (0.0, d), (-d, 0.0), (d, 0.0)] {
            assert!(!probe('╬', dx, dy), "╬ at {dx} {dy}");
        }
        // ╦: the top line runs straight through; the lower strokes form two inner corners.
        assert!(probe('╦', 0.0, -d));
        assert!(!probe('╦', 0.0, d));
        assert!(!probe('╦', 0.0, 0.0));
        assert!(probe('╦', -d, d) && probe('╦', d, d));
        // ╠: the left line runs full height.
        for p in [0.01, 4.0, 9.0, 14.0, 17.99] {
            assert!(covered('╠', CELL, cx - d, p));
        }
        assert!(!probe('╠', d + t / 2.0 + 0.05, 0.0));
        // ╒: single down line with two double branches; the top branch covers the corner.
        assert!(probe('╒', -t / 2.0 + 0.02, -d - t / 2.0 + 0.02));
        assert!(probe('╒', 0.0, -d) && probe('╒', 0.0, d) && probe('╒', 0.0, 0.0));
        assert!(!probe('╒', 0.0, -d - t / 2.0 - 0.05));
        // ╓: single right arm across both strokes of the double down arm.
        assert!(probe('╓', -d, 0.0) && probe('╓', 0.0, 0.0) && probe('╓', d, 0.0));
        assert!(probe('╓', -d - t / 2.0 + 0.02, -t / 2.0 + 0.02));
        assert!(!probe('╓', 0.0, t));
        // ╪ and ╫: the single line crosses the double one.
        assert!(probe('╪', 0.0, 0.0) && probe('╪', 0.0, -d) && probe('╪', 0.0, 5.0));
        assert!(probe('╫', 0.0, 0.0) && probe('╫', -d, 0.0) && probe('╫', 3.0, 0.0));
    }

    #[test]
    fn blocks_divide_the_cell_exactly() {
        let one = |c: char, x: f32, y: f32, w: f32, h: f32| {
            let ps = paths(c, x, y, w, h);
            assert_eq!(ps.len(), 1, "{c:?}");
            let subs = parse(&ps[0].1);
            assert_eq!(subs.len(), 1, "{c:?}");
            bounds(&subs[0].pts)
        };
        assert_eq!(one('▄', 0.0, 0.0, 8.4, 18.0), (0.0, 9.0, 8.4, 18.0));
        assert_eq!(one('▀', 0.0, 0.0, 8.4, 18.0), (0.0, 0.0, 8.4, 9.0));
        assert_eq!(one('█', 0.0, 0.0, 8.4, 18.0), (0.0, 0.0, 8.4, 18.0));
        assert_eq!(one('█', 8.4, 18.48, 8.4, 18.48), (8.4, 18.48, 16.8, 36.96));
        assert_eq!(one('▁', 0.0, 0.0, 8.4, 18.0), (0.0, 15.75, 8.4, 18.0));
        assert_eq!(one('▂', 0.0, 0.0, 8.4, 18.0), (0.0, 13.5, 8.4, 18.0));
        assert_eq!(one('▇', 0.0, 0.0, 8.4, 18.0), (0.0, 2.25, 8.4, 18.0));
        assert_eq!(one('▔', 0.0, 0.0, 8.4, 18.0), (0.0, 0.0, 8.4, 2.25));
        assert_eq!(one('▉', 0.0, 0.0, 8.0, 18.0), (0.0, 0.0, 7.0, 18.0));
        assert_eq!(one('▏', 0.0, 0.0, 8.0, 18.0), (0.0, 0.0, 1.0, 18.0));
        assert_eq!(one('▌', 0.0, 0.0, 8.4, 18.0), (0.0, 0.0, 4.2, 18.0));
        assert_eq!(one('▐', 0.0, 0.0, 8.4, 18.0), (4.2, 0.0, 8.4, 18.0));
        assert_eq!(one('▕', 0.0, 0.0, 8.0, 18.0), (7.0, 0.0, 8.0, 18.0));
        assert_eq!(one('▖', 0.0, 0.0, 8.4, 18.0), (0.0, 9.0, 4.2, 18.0));
        assert_eq!(one('▝', 0.0, 0.0, 8.4, 18.0), (4.2, 0.0, 8.4, 9.0));
        // Quadrant combinations, probed at the centre of each quadrant.
        for (c, ul, ur, ll, lr) in [
            ('▙', true, false, true, true),
            ('▚', true, false, false, true),
            ('▛', true, true, true, false),
            ('▜', true, true, false, true),
            ('▞', false, true, true, false),
            ('▟', false, true, true, true),
            ('▘', true, false, false, false),
            ('▗', false, false, false, true),
        ] {
            assert_eq!(covered(c, CELL, 2.1, 4.5), ul, "{c:?} upper left");
            assert_eq!(covered(c, CELL, 6.3, 4.5), ur, "{c:?} upper right");
            assert_eq!(covered(c, CELL, 2.1, 13.5), ll, "{c:?} lower left");
            assert_eq!(covered(c, CELL, 6.3, 13.5), lr, "{c:?} lower right");
        }
    }

    #[test]
    fn shades_are_translucent_full_cells() {
        for (c, a) in [('░', 25), ('▒', 50), ('▓', 75)] {
            assert_eq!(
                paths(c, 0.0, 0.0, 8.4, 18.0),
                vec![(a, "M0 0H8.4V18H0Z".to_string())]
            );
        }
    }

    #[test]
    fn dashes_repeat_regularly() {
        // Three dashes; the end gaps are half the inner gaps so the rhythm continues.
        let (w, h) = (8.4, 18.0);
        for (c, n, vertical) in [
            ('┄', 3, false),
            ('┈', 4, false),
            ('╌', 2, false),
            ('┆', 3, true),
            ('╏', 2, true),
        ] {
            let ps = paths(c, 0.0, 0.0, w, h);
            let subs = parse(&ps[0].1);
            assert_eq!(subs.len(), n, "{c:?}");
            let mut spans: Vec<(f32, f32)> = subs
                .iter()
                .map(|s| {
                    let b = bounds(&s.pts);
                    if vertical {
                        (b.1, b.3)
                    } else {
                        (b.0, b.2)
                    }
                })
                .collect();
            spans.sort_by(|a, b| a.0.total_cmp(&b.0));
            let len = if vertical { h } else { w };
            let end_gaps = spans[0].0 + (len - spans[n - 1].1);
            for k in 1..n {
                let inner = spans[k].0 - spans[k - 1].1;
                assert!(
                    (inner - end_gaps).abs() < 0.03,
                    "{c:?}: inner gap {inner} vs ends {end_gaps}"
                );
                let (l0, l1) = (spans[k].1 - spans[k].0, spans[0].1 - spans[0].0);
                assert!((l0 - l1).abs() < 0.03, "{c:?}: dash lengths differ");
            }
            assert!(
                spans[0].0 > 0.0 && spans[n - 1].1 < len,
                "{c:?}: no end gaps"
            );
        }
        // Heavy dashes are thicker than light ones.
        let thick = |c: char| {
            let b = bounds(&parse(&paths(c, 0.0, 0.0, w, h)[0].1)[0].pts);
            b.3 - b.1
        };
        assert!(thick('┅') > thick('┄') * 1.5);
    }

    #[test]
    fn rounded_corners_reach_the_edge_middles() {
        let (w, h) = (8.4, 18.0);
        let t = Cell::new(0.0, 0.0, w, h).t;
        let (cx, cy) = (w / 2.0, h / 2.0);
        // ╭: down from the bottom edge and right to the right edge.
        assert!(covered('╭', CELL, cx, h - 0.01));
        assert!(covered('╭', CELL, w - 0.01, cy));
        assert!(!covered('╭', CELL, 0.5, cy));
        assert!(!covered('╭', CELL, cx, 0.5));
        assert!(covered('╯', CELL, cx, 0.01));
        assert!(covered('╯', CELL, 0.01, cy));
        assert!(covered('╮', CELL, 0.01, cy) && covered('╮', CELL, cx, h - 0.01));
        assert!(covered('╰', CELL, w - 0.01, cy) && covered('╰', CELL, cx, 0.01));
        // The straight ends are exactly one light stroke wide and centred.
        let pts = all_points('╭', 0.0, 0.0, w, h);
        let bottom: Vec<f32> = pts.iter().filter(|p| p.1 == h).map(|p| p.0).collect();
        assert_eq!(bottom.len(), 2);
        assert!((bottom[0].min(bottom[1]) - (cx - t / 2.0)).abs() < 0.006);
        assert!((bottom[0].max(bottom[1]) - (cx + t / 2.0)).abs() < 0.006);
        let right: Vec<f32> = pts.iter().filter(|p| p.0 == w).map(|p| p.1).collect();
        assert_eq!(right.len(), 2);
        assert!((right[0].min(right[1]) - (cy - t / 2.0)).abs() < 0.006);
        assert!(parse(&paths('╭', 0.0, 0.0, w, h)[0].1)[0].arcs);
    }

    #[test]
    fn diagonals_run_corner_to_corner() {
        let (w, h) = (8.4, 18.0);
        assert!(covered('╱', CELL, w - 0.05, 0.05) && covered('╱', CELL, 0.05, h - 0.05));
        assert!(covered('╱', CELL, w / 2.0, h / 2.0));
        assert!(!covered('╱', CELL, 0.5, 0.5) && !covered('╱', CELL, w - 0.5, h - 0.5));
        assert!(covered('╲', CELL, 0.05, 0.05) && covered('╲', CELL, w - 0.05, h - 0.05));
        assert!(!covered('╲', CELL, w - 0.5, 0.5));
        for p in [
            (0.05, 0.05),
            (w - 0.05, 0.05),
            (0.05, h - 0.05),
            (w - 0.05, h - 0.05),
            (w / 2.0, h / 2.0),
        ] {
            assert!(covered('╳', CELL, p.0, p.1), "╳ at {p:?}");
        }
    }

    #[test]
    fn powerline_triangles_fill_the_cell_height() {
        let (x, y, w, h) = (8.4, 18.48, 8.4, 18.48);
        let cell = (x, y, w, h);
        let pts = all_points('\u{E0B0}', x, y, w, h);
        for p in [(x, y), (x + w, y + h / 2.0), (x, y + h)] {
            assert!(
                pts.iter()
                    .any(|q| (q.0 - p.0).abs() < 0.006 && (q.1 - p.1).abs() < 0.006),
                "{p:?}"
            );
        }
        assert!(covered('\u{E0B0}', cell, x + 0.01, y + 0.02));
        assert!(covered('\u{E0B0}', cell, x + w - 0.05, y + h / 2.0));
        assert!(!covered('\u{E0B0}', cell, x + w - 0.05, y + 0.5));
        let pts = all_points('\u{E0B2}', x, y, w, h);
        for p in [(x + w, y), (x, y + h / 2.0), (x + w, y + h)] {
            assert!(
                pts.iter()
                    .any(|q| (q.0 - p.0).abs() < 0.006 && (q.1 - p.1).abs() < 0.006),
                "{p:?}"
            );
        }
        // Chevrons: outline only.
        assert!(covered('\u{E0B1}', cell, x + 0.05, y + 0.2));
        assert!(covered('\u{E0B1}', cell, x + w - 0.1, y + h / 2.0));
        assert!(!covered('\u{E0B1}', cell, x + 1.0, y + h / 2.0));
        assert!(covered('\u{E0B3}', cell, x + w - 0.05, y + 0.2));
        assert!(covered('\u{E0B3}', cell, x + 0.1, y + h / 2.0));
        assert!(!covered('\u{E0B3}', cell, x + w - 1.0, y + h / 2.0));
        // Half circles span the full height from the near edge.
        for c in ['\u{E0B4}', '\u{E0B5}', '\u{E0B6}', '\u{E0B7}'] {
            let b = bounds(&all_points(c, x, y, w, h));
            assert!(
                (b.1 - y).abs() < 0.006 && (b.3 - (y + h)).abs() < 0.006,
                "{c:?} {b:?}"
            );
        }
    }
}
