//! Fonts: the bundled JetBrains Mono faces, the fallback chain through system fonts, cell
//! metrics, and the `@font-face` subsets embedded in the SVG.
//!
//! Rules (see `DESIGN.md`, "Fonts" and "Font embedding for browsers"):
//! - JetBrains Mono (bundled, four styles) is the default face; clusters it does not cover fall
//!   back to system fonts found by fontdb, judged by shaping the whole cluster with rustybuzz.
//! - The last fallback before the replacement box is the bundled icon face ([`ICONS_FAMILY`],
//!   the Nerd Fonts icon sets): prompts, file managers and status lines print its private-use
//!   icons, which no ordinary font covers. Embedded as a subset like the other fallbacks.
//! - System fonts are scanned lazily, the first time a cluster is not covered by the bundled face,
//!   so a plain ASCII screen never touches them.
//! - The fallback order is deterministic (never the directory order): see [`Fonts::resolve`].
//! - Embedded faces are TrueType subsets made by allsorts with a Unicode `cmap` and the `OS/2`
//!   table, which browsers (OTS) require; the `subsetter` crate's output is PDF-only.
//!
//! All lengths are in em (font units divided by units per em).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine as _;
use unicode_width::UnicodeWidthStr;

/// One of the four bundled faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaceStyle {
    Regular,
    Bold,
    Italic,
    BoldItalic,
}

impl FaceStyle {
    /// All four styles, in `Ord` order.
    pub const ALL: [FaceStyle; 4] = [
        FaceStyle::Regular,
        FaceStyle::Bold,
        FaceStyle::Italic,
        FaceStyle::BoldItalic,
    ];

    /// The face for a cell's bold and italic flags.
    pub fn of(bold: bool, italic: bool) -> FaceStyle {
        match (bold, italic) {
            (false, false) => FaceStyle::Regular,
            (true, false) => FaceStyle::Bold,
            (false, true) => FaceStyle::Italic,
            (true, true) => FaceStyle::BoldItalic,
        }
    }

    /// True for the bold styles.
    pub fn is_bold(self) -> bool {
        matches!(self, FaceStyle::Bold | FaceStyle::BoldItalic)
    }

    /// True for the italic styles.
    pub fn is_italic(self) -> bool {
        matches!(self, FaceStyle::Italic | FaceStyle::BoldItalic)
    }

    /// CSS `font-weight` of this style: 400 or 700.
    pub fn css_weight(self) -> u16 {
        if self.is_bold() {
            700
        } else {
            400
        }
    }

    /// CSS `font-style` of this style: `normal` or `italic`.
    pub fn css_style(self) -> &'static str {
        if self.is_italic() {
            "italic"
        } else {
            "normal"
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// Vertical and horizontal metrics of the bundled regular face, in em.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// Advance of `0`, em (the cell width for a 1 em font size).
    pub advance: f32,
    /// Distance above the baseline, em.
    pub ascender: f32,
    /// Positive distance below the baseline, em.
    pub descender: f32,
    /// Extra space between lines recommended by the face, em.
    pub line_gap: f32,
}

/// The face chosen for a cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// Real family name of the face that covers the cluster (the first family name fontdb
    /// reports for it); [`BUNDLED_FAMILY`] when nothing covers it.
    pub family: String,
    /// True when that face is one of the bundled JetBrains Mono faces (also when nothing
    /// covers the cluster); false for a system face and for the bundled icon face, which the
    /// text names by family like any fallback.
    pub bundled: bool,
    /// Advance of the shaped cluster, em. When nothing covers it: the cluster's width in cells
    /// times [`Metrics::advance`].
    pub advance: f32,
    /// False when no face covers it (a replacement box is shown).
    pub found: bool,
    /// The face itself (the bundled face of the style when nothing covers the cluster).
    pub face: FaceId,
}

/// Which face drew a cluster: one of the bundled styles, or a system face (an index into this
/// [`Fonts`]' scan of the system's fonts; meaningful only for the `Fonts` that returned it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaceId {
    /// A bundled JetBrains Mono face.
    Bundled(FaceStyle),
    /// A system face found by the fallback chain.
    System(usize),
    /// The bundled icon face ([`ICONS_FAMILY`]), the last fallback.
    Icons,
}

/// One glyph of a shaped cluster.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapedGlyph {
    /// Glyph id in the face (0 is `.notdef`, the replacement box).
    pub id: u16,
    /// Offset of the glyph's origin from the cluster's origin, em (x to the right).
    pub x: f32,
    /// Offset of the glyph's origin from the baseline, em (y up, as in the font).
    pub y: f32,
}

/// A cluster shaped with rustybuzz in the face [`Fonts::resolve`] picks for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shaped {
    /// The face the glyph ids belong to.
    pub face: FaceId,
    /// The glyphs in visual order.
    pub glyphs: Vec<ShapedGlyph>,
    /// Total advance, em (as [`Resolved::advance`]).
    pub advance: f32,
}

/// What an `@font-face` rule needs to know about a face.
#[derive(Debug, Clone, PartialEq)]
pub struct FaceInfo {
    /// Real family name (the first one fontdb reports).
    pub family: String,
    /// CSS weight, 100–900.
    pub weight: u16,
    /// True for italic and oblique faces.
    pub italic: bool,
}

/// Family name of the bundled faces.
pub const BUNDLED_FAMILY: &str = "JetBrains Mono";

/// Family name of the bundled icon face (Nerd Fonts icons; `fonts/README.md` says where it
/// comes from and `fonts/NerdFonts-LICENSE.txt` its licence).
pub const ICONS_FAMILY: &str = "Pure Nerd Font";

/// The bundled icon face's font file.
pub fn icon_face() -> &'static [u8] {
    include_bytes!("../../fonts/PureNerdFont-Icons.ttf")
}

/// The bundled font files: (style, bytes).
pub fn bundled_faces() -> [(FaceStyle, &'static [u8]); 4] {
    [
        (
            FaceStyle::Regular,
            include_bytes!("../../fonts/JetBrainsMono-Regular.ttf"),
        ),
        (
            FaceStyle::Bold,
            include_bytes!("../../fonts/JetBrainsMono-Bold.ttf"),
        ),
        (
            FaceStyle::Italic,
            include_bytes!("../../fonts/JetBrainsMono-Italic.ttf"),
        ),
        (
            FaceStyle::BoldItalic,
            include_bytes!("../../fonts/JetBrainsMono-BoldItalic.ttf"),
        ),
    ]
}

fn bundled_bytes(style: FaceStyle) -> &'static [u8] {
    bundled_faces()[style.slot()].1
}

/// Failure to subset a face for embedding.
#[derive(Debug, thiserror::Error)]
#[error("cannot subset the {face:?} face: {reason}")]
pub struct SubsetError {
    /// The face that failed.
    pub face: FaceId,
    /// What allsorts reported, or why the face is not embedded.
    pub reason: String,
}

/// A TrueType subset of the bundled `style` face holding `.notdef` and the glyphs of `chars`
/// (characters the face lacks are left out), with the tables browsers require: `cmap`
/// (Unicode), `OS/2`, `head`, `hhea`, `hmtx`, `maxp`, `name`, `post`, `glyf`, `loca`. Hinting
/// is removed (glyph instructions dropped; `fpgm`/`prep`/`cvt ` are not kept), which halves the
/// size; browsers render web fonts unhinted or auto-hinted anyway. Passes OTS (the sanitizer
/// Chrome and Firefox run on web fonts) without warnings.
///
/// Deterministic: the same input gives the same bytes. Errors: [`SubsetError`] when allsorts
/// cannot parse or write the face (not expected for the bundled files).
pub fn subset_bundled(style: FaceStyle, chars: &BTreeSet<char>) -> Result<Vec<u8>, SubsetError> {
    subset_face(bundled_bytes(style), 0, chars).map_err(|reason| SubsetError {
        face: FaceId::Bundled(style),
        reason,
    })
}

/// A subset of face `index` of the font file `data` (a `.ttf`, `.otf` or collection) holding
/// `.notdef` and the glyphs of `chars`, made by allsorts as [`subset_bundled`] describes. A
/// `glyf` face loses its hinting; a CFF face is kept as allsorts writes it.
///
/// Faces without outlines are refused: a colour-bitmap face (CBDT/CBLC or `sbix`, such as
/// Noto Color Emoji) has no `glyf` or `CFF ` table, allsorts' subsets keep no bitmap tables,
/// and browsers would get an empty font. Such glyphs are left to the viewer's own emoji font
/// in text mode; `--text-mode outlines` draws them as embedded PNGs instead.
///
/// Errors: a message when the face has no outlines or allsorts cannot read or write it.
pub fn subset_face(data: &[u8], index: u32, chars: &BTreeSet<char>) -> Result<Vec<u8>, String> {
    use allsorts::binary::read::ReadScope;
    use allsorts::subset::{subset, CmapTarget, SubsetProfile};
    use allsorts::tables::OpenTypeFont;

    let face = ttf_parser::Face::parse(data, index).map_err(|e| e.to_string())?;
    let raw = face.raw_face();
    let has = |tag: &[u8; 4]| raw.table(ttf_parser::Tag::from_bytes(tag)).is_some();
    let glyf = has(b"glyf");
    if !glyf && !has(b"CFF ") {
        return Err("the face has no outlines (a bitmap font); not embedded".into());
    }
    let mut ids: Vec<u16> = chars
        .iter()
        .filter_map(|&c| face.glyph_index(c))
        .map(|g| g.0)
        .filter(|&g| g != 0)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.insert(0, 0);

    let font = ReadScope::new(data)
        .read::<OpenTypeFont<'_>>()
        .map_err(|e| e.to_string())?;
    let provider = font
        .table_provider(index as usize)
        .map_err(|e| e.to_string())?;
    let font = subset(
        &provider,
        &ids,
        &SubsetProfile::Minimal,
        CmapTarget::Unicode,
    )
    .map_err(|e| format!("{e:?}"))?;
    if !glyf {
        return Ok(font);
    }
    strip_hinting(&font).ok_or_else(|| "malformed subset from allsorts".into())
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// Sum of big-endian u32 words, the last one zero-padded (OpenType table checksum).
fn checksum(data: &[u8]) -> u32 {
    data.chunks(4).fold(0u32, |sum, c| {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        sum.wrapping_add(u32::from_be_bytes(w))
    })
}

/// End of a simple glyph's data (its flags and coordinates start at `data`), so that padding
/// after it is not copied (OTS warns about extra bytes).
fn simple_glyph_end(glyph: &[u8], contours: i16, data: usize) -> Option<usize> {
    let points = match contours {
        0 => 0,
        n => usize::from(be16(glyph, 10 + 2 * (n as usize - 1))?) + 1,
    };
    let (mut at, mut seen, mut coords) = (data, 0, 0);
    while seen < points {
        let flag = *glyph.get(at)?;
        at += 1;
        let mut count = 1;
        if flag & 0x08 != 0 {
            count += usize::from(*glyph.get(at)?);
            at += 1;
        }
        let x = if flag & 0x02 != 0 {
            1
        } else if flag & 0x10 == 0 {
            2
        } else {
            0
        };
        let y = if flag & 0x04 != 0 {
            1
        } else if flag & 0x20 == 0 {
            2
        } else {
            0
        };
        coords += count * (x + y);
        seen += count;
    }
    let end = at + coords;
    (end <= glyph.len()).then_some(end)
}

/// Removes TrueType hinting from a `glyf` font made by allsorts: drops every glyph's
/// instructions (allsorts' `Minimal` profile keeps them but leaves out `fpgm`, `prep` and
/// `cvt ` they call into), sets `maxp.maxSizeOfInstructions` to 0, rewrites `loca` (short form
/// when it fits) and the sfnt directory, checksums and `head.checkSumAdjustment`. About half
/// the size of a hinted subset. `None` when the input is malformed.
fn strip_hinting(font: &[u8]) -> Option<Vec<u8>> {
    let num_tables = usize::from(be16(font, 4)?);
    let mut tables: BTreeMap<[u8; 4], Vec<u8>> = BTreeMap::new();
    for i in 0..num_tables {
        let rec = 12 + 16 * i;
        let tag: [u8; 4] = font.get(rec..rec + 4)?.try_into().ok()?;
        let offset = be32(font, rec + 8)? as usize;
        let len = be32(font, rec + 12)? as usize;
        tables.insert(tag, font.get(offset..offset.checked_add(len)?)?.to_vec());
    }
    let head = tables.get(b"head")?;
    let long_loca = be16(head, 50)? != 0;
    let num_glyphs = usize::from(be16(tables.get(b"maxp")?, 4)?);
    let loca = tables.get(b"loca")?;
    let glyf = tables.get(b"glyf")?;
    let offset = |i: usize| -> Option<usize> {
        if long_loca {
            be32(loca, 4 * i).map(|o| o as usize)
        } else {
            be16(loca, 2 * i).map(|o| 2 * usize::from(o))
        }
    };
    let mut new_glyf = Vec::with_capacity(glyf.len());
    let mut new_offsets = Vec::with_capacity(num_glyphs + 1);
    for i in 0..num_glyphs {
        new_offsets.push(new_glyf.len());
        let glyph = glyf.get(offset(i)?..offset(i + 1)?)?;
        if glyph.is_empty() {
            continue;
        }
        let contours = be16(glyph, 0)? as i16;
        if contours >= 0 {
            let at = 10 + 2 * contours as usize;
            let instructions = usize::from(be16(glyph, at)?);
            new_glyf.extend_from_slice(glyph.get(..at)?);
            new_glyf.extend_from_slice(&[0, 0]);
            let data = at + 2 + instructions;
            new_glyf.extend_from_slice(glyph.get(data..simple_glyph_end(glyph, contours, data)?)?);
        } else {
            const ARG_WORDS: u16 = 0x0001;
            const SCALE: u16 = 0x0008;
            const MORE: u16 = 0x0020;
            const XY_SCALE: u16 = 0x0040;
            const TWO_BY_TWO: u16 = 0x0080;
            const INSTRUCTIONS: u16 = 0x0100;
            let mut at = 10;
            let mut flags_at;
            loop {
                flags_at = at;
                let flags = be16(glyph, at)?;
                at += 4 + if flags & ARG_WORDS != 0 { 4 } else { 2 };
                at += if flags & TWO_BY_TWO != 0 {
                    8
                } else if flags & XY_SCALE != 0 {
                    4
                } else if flags & SCALE != 0 {
                    2
                } else {
                    0
                };
                if flags & MORE == 0 {
                    break;
                }
            }
            let start = new_glyf.len();
            new_glyf.extend_from_slice(glyph.get(..at)?);
            let flags = be16(glyph, flags_at)? & !INSTRUCTIONS;
            put16(&mut new_glyf, start + flags_at, flags);
        }
        new_glyf.resize(new_glyf.len().next_multiple_of(2), 0);
    }
    new_offsets.push(new_glyf.len());

    let short = new_glyf.len() <= 2 * usize::from(u16::MAX);
    let mut new_loca = Vec::new();
    for o in new_offsets {
        if short {
            new_loca.extend_from_slice(&u16::try_from(o / 2).ok()?.to_be_bytes());
        } else {
            new_loca.extend_from_slice(&u32::try_from(o).ok()?.to_be_bytes());
        }
    }
    let head = tables.get_mut(b"head")?;
    put16(head, 50, u16::from(!short));
    head.get_mut(8..12)?.fill(0);
    let maxp = tables.get_mut(b"maxp")?;
    if be32(maxp, 0)? == 0x0001_0000 {
        put16(maxp, 26, 0);
    }
    tables.insert(*b"glyf", new_glyf);
    tables.insert(*b"loca", new_loca);

    // Directory: tables in tag order, each 4-byte aligned.
    let n = tables.len();
    let entry_selector = n.ilog2();
    let search_range = 16u16 << entry_selector;
    let mut out = Vec::new();
    out.extend_from_slice(&0x0001_0000u32.to_be_bytes());
    out.extend_from_slice(&u16::try_from(n).ok()?.to_be_bytes());
    out.extend_from_slice(&search_range.to_be_bytes());
    out.extend_from_slice(&(entry_selector as u16).to_be_bytes());
    out.extend_from_slice(&(u16::try_from(16 * n).ok()? - search_range).to_be_bytes());
    let mut offset = 12 + 16 * n;
    let mut head_at = None;
    for (tag, data) in &tables {
        if tag == b"head" {
            head_at = Some(offset);
        }
        out.extend_from_slice(tag);
        out.extend_from_slice(&checksum(data).to_be_bytes());
        out.extend_from_slice(&u32::try_from(offset).ok()?.to_be_bytes());
        out.extend_from_slice(&u32::try_from(data.len()).ok()?.to_be_bytes());
        offset += data.len().next_multiple_of(4);
    }
    for data in tables.values() {
        out.extend_from_slice(data);
        out.resize(out.len().next_multiple_of(4), 0);
    }
    let adjustment = 0xB1B0_AFBAu32.wrapping_sub(checksum(&out));
    let at = head_at? + 8;
    out[at..at + 4].copy_from_slice(&adjustment.to_be_bytes());
    Some(out)
}

/// Font database with the fallback chain.
///
/// `Send + Sync`; results of [`Fonts::resolve`] are cached per (cluster, style).
pub struct Fonts {
    db: fontdb::Database,
    /// Family name fontdb reports for each bundled style.
    bundled_family: [String; 4],
    /// Shaping faces of the bundled styles, parsed on first use.
    shapers: [OnceLock<rustybuzz::Face<'static>>; 4],
    /// Shaping face of the icon face, parsed on first use.
    icons: OnceLock<Option<rustybuzz::Face<'static>>>,
    metrics: Metrics,
    use_system: bool,
    system: OnceLock<SystemFonts>,
    cache: Mutex<[HashMap<String, Resolved>; 4]>,
    shaped: Mutex<[HashMap<String, Arc<Shaped>>; 4]>,
}

impl Fonts {
    /// Bundled faces only; system fonts are loaded on the first cluster they do not cover.
    pub fn new() -> Fonts {
        Fonts::build(true)
    }

    /// Bundled faces only (JetBrains Mono and the icon face), and system fonts are never
    /// loaded: clusters the bundled faces do not cover resolve with `found == false`. For
    /// tests and offline, reproducible output.
    pub fn bundled_only() -> Fonts {
        Fonts::build(false)
    }

    fn build(use_system: bool) -> Fonts {
        let mut db = fontdb::Database::new();
        let mut bundled_family: [String; 4] = Default::default();
        for (style, bytes) in bundled_faces() {
            let ids = db.load_font_source(fontdb::Source::Binary(Arc::new(bytes)));
            bundled_family[style.slot()] = ids
                .first()
                .and_then(|&id| db.face(id))
                .and_then(|f| f.families.first())
                .map(|(name, _)| name.clone())
                .unwrap_or_else(|| BUNDLED_FAMILY.to_string());
        }
        Fonts {
            db,
            bundled_family,
            shapers: Default::default(),
            icons: OnceLock::new(),
            metrics: regular_metrics(),
            use_system,
            system: OnceLock::new(),
            cache: Mutex::new(Default::default()),
            shaped: Mutex::new(Default::default()),
        }
    }

    /// The database of bundled faces (system faces live in a separate, lazily loaded one).
    pub fn database(&self) -> &fontdb::Database {
        &self.db
    }

    /// The families of the system's fonts (scanning them if not done yet), sorted, each once;
    /// copies of the bundled family are left out (the bundled faces always win).
    pub fn system_families(&self) -> Vec<String> {
        let system = self.system.get_or_init(SystemFonts::load);
        let mut families: Vec<String> = system.faces.iter().map(|f| f.family.clone()).collect();
        families.sort();
        families.dedup();
        families
    }

    /// True once the system fonts have been scanned (by a cluster the bundled face lacks).
    pub fn system_fonts_loaded(&self) -> bool {
        self.system.get().is_some()
    }

    /// Metrics of the bundled regular face, em: advance of `0`, ascender, descender
    /// (positive) and line gap, as ttf-parser reports them (typo metrics when the face sets
    /// `USE_TYPO_METRICS`, else `hhea`). Computed once in the constructor.
    pub fn metrics(&self) -> Metrics {
        self.metrics
    }

    fn shaper(&self, style: FaceStyle) -> &rustybuzz::Face<'static> {
        self.shapers[style.slot()].get_or_init(|| {
            rustybuzz::Face::from_slice(bundled_bytes(style), 0).expect("bundled font parses")
        })
    }

    /// Picks the face for `cluster` (one grapheme cluster: a base character with its
    /// combining marks, ZWJ sequence or variation selectors) in `style` and measures it.
    ///
    /// The cluster is shaped with rustybuzz against the fallback chain, and the first face
    /// whose shaping of the whole cluster yields no `.notdef` glyph wins; default-ignorable
    /// characters (ZWJ, variation selectors, ...) a face lacks do not count against it.
    /// Chain: the bundled face of `style`; then (loaded on first need, never for a cluster the
    /// bundled face covers) the system faces, ordered deterministically by
    /// (script preference, monospace first, family name, closeness to `style`'s weight and
    /// slant, PostScript name, face index). Script preference puts faces whose family names an
    /// emoji font first for emoji clusters, CJK-suggesting families first for CJK clusters, and
    /// emoji fonts last for other text. System faces of the bundled family are skipped. Last,
    /// the bundled icon face ([`FaceId::Icons`], also with [`Fonts::bundled_only`]).
    ///
    /// Never fails: when no face covers the cluster, `found` is false, the family is the bundled
    /// one and the advance is the cluster's cell width (at least 1) times the cell advance.
    /// Results are cached per (cluster, style).
    pub fn resolve(&self, cluster: &str, style: FaceStyle) -> Resolved {
        if let Some(hit) = self.lock_cache()[style.slot()].get(cluster) {
            return hit.clone();
        }
        let resolved = self.resolve_uncached(cluster, style);
        self.lock_cache()[style.slot()].insert(cluster.to_string(), resolved.clone());
        resolved
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, [HashMap<String, Resolved>; 4]> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn resolve_uncached(&self, cluster: &str, style: FaceStyle) -> Resolved {
        let bundled = |advance: f32, found: bool| Resolved {
            family: self.bundled_family[style.slot()].clone(),
            bundled: true,
            advance,
            found,
            face: FaceId::Bundled(style),
        };
        if let Some(advance) = shape_covers(self.shaper(style), cluster) {
            return bundled(advance, true);
        }
        if self.use_system {
            let system = self.system.get_or_init(SystemFonts::load);
            if let Some((index, advance)) = system.find(cluster, style) {
                return Resolved {
                    family: system.faces[index].family.clone(),
                    bundled: false,
                    advance,
                    found: true,
                    face: FaceId::System(index),
                };
            }
        }
        let icons = self
            .icons
            .get_or_init(|| rustybuzz::Face::from_slice(icon_face(), 0));
        if let Some(advance) = icons.as_ref().and_then(|f| shape_covers(f, cluster)) {
            return Resolved {
                family: ICONS_FAMILY.to_string(),
                bundled: false,
                advance,
                found: true,
                face: FaceId::Icons,
            };
        }
        let cells = cluster.width().max(1) as f32;
        bundled(cells * self.metrics.advance, false)
    }

    /// Shapes `cluster` in `style` with rustybuzz in the face [`Fonts::resolve`] picks (the
    /// same fallback chain; when nothing covers it, the bundled face's `.notdef` boxes).
    /// Results are cached per (cluster, style).
    pub fn shape(&self, cluster: &str, style: FaceStyle) -> Arc<Shaped> {
        let lock = || self.shaped.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = lock()[style.slot()].get(cluster) {
            return hit.clone();
        }
        let resolved = self.resolve(cluster, style);
        let glyphs = self
            .with_face_data(resolved.face, |data, index| {
                let face = rustybuzz::Face::from_slice(data, index)?;
                Some(shape_glyphs(&face, cluster))
            })
            .flatten()
            .unwrap_or_default();
        let shaped = Arc::new(Shaped {
            face: resolved.face,
            glyphs,
            advance: resolved.advance,
        });
        lock()[style.slot()].insert(cluster.to_string(), shaped.clone());
        shaped
    }

    /// Calls `f` with the whole font file of `face` and the face's index in it; `None` when
    /// the face is unknown to this `Fonts` or its file can no longer be read.
    pub fn with_face_data<R>(&self, face: FaceId, f: impl FnOnce(&[u8], u32) -> R) -> Option<R> {
        match face {
            FaceId::Bundled(style) => Some(f(bundled_bytes(style), 0)),
            FaceId::Icons => Some(f(icon_face(), 0)),
            FaceId::System(i) => {
                let system = self.system.get()?;
                let info = system.faces.get(i)?;
                let data = system.file(&info.path)?;
                Some(f(&data, info.index))
            }
        }
    }

    /// Family, weight and slant of `face`, for an `@font-face` rule; `None` for an unknown face.
    pub fn face_info(&self, face: FaceId) -> Option<FaceInfo> {
        match face {
            FaceId::Bundled(style) => Some(FaceInfo {
                family: self.bundled_family[style.slot()].clone(),
                weight: style.css_weight(),
                italic: style.is_italic(),
            }),
            FaceId::Icons => Some(FaceInfo {
                family: ICONS_FAMILY.to_string(),
                weight: 400,
                italic: false,
            }),
            FaceId::System(i) => {
                let f = self.system.get()?.faces.get(i)?;
                Some(FaceInfo {
                    family: f.family.clone(),
                    weight: f.weight,
                    italic: f.italic,
                })
            }
        }
    }

    /// `@font-face` rules embedding subsets of the faces in `used` with the given characters:
    /// the bundled faces and the system faces the fallback chain picked (CJK, symbols…).
    ///
    /// One rule per face with at least one character, in [`FaceId`] order (bundled styles
    /// first): `@font-face{font-family:"JetBrains Mono";font-weight:400;font-style:normal;`
    /// `src:url(data:font/ttf;base64,...)}`, rules concatenated with no separator. The family,
    /// weight and slant are the face's own ([`Fonts::face_info`]), which is what the text's
    /// `font-family` names and what a browser matches. Each subset comes from [`subset_face`];
    /// a face that cannot be subset is left out (bitmap emoji faces, see [`subset_face`]; the
    /// viewer then uses a locally installed face). Deterministic byte for byte. Empty `used`
    /// gives an empty string.
    pub fn embed_css(&self, used: &BTreeMap<FaceId, BTreeSet<char>>) -> String {
        let mut css = String::new();
        for (&face, chars) in used {
            if chars.is_empty() {
                continue;
            }
            let Some(info) = self.face_info(face) else {
                continue;
            };
            let Some(Ok(font)) =
                self.with_face_data(face, |data, index| subset_face(data, index, chars))
            else {
                debug_assert!(
                    !matches!(face, FaceId::Bundled(_)),
                    "bundled face failed to subset"
                );
                continue;
            };
            let mime = if font.starts_with(b"OTTO") {
                "otf"
            } else {
                "ttf"
            };
            css.push_str("@font-face{font-family:\"");
            css.push_str(
                &info
                    .family
                    .replace(['"', '\\', '<', '>', '&', '{', '}', ';'], ""),
            );
            css.push_str("\";font-weight:");
            css.push_str(&info.weight.to_string());
            css.push_str(";font-style:");
            css.push_str(if info.italic { "italic" } else { "normal" });
            css.push_str(";src:url(data:font/");
            css.push_str(mime);
            css.push_str(";base64,");
            base64::engine::general_purpose::STANDARD.encode_string(&font, &mut css);
            css.push_str(")}");
        }
        css
    }
}

impl Default for Fonts {
    fn default() -> Fonts {
        Fonts::new()
    }
}

fn regular_metrics() -> Metrics {
    let face =
        ttf_parser::Face::parse(bundled_bytes(FaceStyle::Regular), 0).expect("bundled font parses");
    let upem = f32::from(face.units_per_em());
    let advance = face
        .glyph_index('0')
        .and_then(|g| face.glyph_hor_advance(g))
        .map_or(0.6, |a| f32::from(a) / upem);
    Metrics {
        advance,
        ascender: f32::from(face.ascender()) / upem,
        descender: -f32::from(face.descender()) / upem,
        line_gap: f32::from(face.line_gap()) / upem,
    }
}

/// Shapes `cluster` with `face`; the advance in em when no glyph is `.notdef` (ignoring
/// default-ignorable characters the face lacks), `None` otherwise.
fn shape_covers(face: &rustybuzz::Face<'_>, cluster: &str) -> Option<f32> {
    if cluster.is_empty() {
        return Some(0.0);
    }
    let mut buffer = rustybuzz::UnicodeBuffer::new();
    buffer.push_str(cluster);
    buffer.set_cluster_level(rustybuzz::BufferClusterLevel::Characters);
    buffer.guess_segment_properties();
    let shaped = rustybuzz::shape(face, &[], buffer);
    let mut advance = 0i64;
    for (info, pos) in shaped.glyph_infos().iter().zip(shaped.glyph_positions()) {
        if info.glyph_id == 0 {
            let ch = cluster
                .get(info.cluster as usize..)
                .and_then(|s| s.chars().next());
            if ch.is_some_and(is_default_ignorable) {
                continue;
            }
            return None;
        }
        advance += i64::from(pos.x_advance);
    }
    Some(advance as f32 / f32::from(face.units_per_em().max(1) as u16))
}

/// The glyphs of `cluster` shaped by `face`, offsets in em from the cluster's origin.
fn shape_glyphs(face: &rustybuzz::Face<'_>, cluster: &str) -> Vec<ShapedGlyph> {
    let mut buffer = rustybuzz::UnicodeBuffer::new();
    buffer.push_str(cluster);
    buffer.set_cluster_level(rustybuzz::BufferClusterLevel::Characters);
    buffer.guess_segment_properties();
    let shaped = rustybuzz::shape(face, &[], buffer);
    let upem = f32::from(face.units_per_em().max(1) as u16);
    let mut pen = 0i32;
    let mut out = Vec::new();
    for (info, pos) in shaped.glyph_infos().iter().zip(shaped.glyph_positions()) {
        let ignorable = || {
            cluster
                .get(info.cluster as usize..)
                .and_then(|s| s.chars().next())
                .is_some_and(is_default_ignorable)
        };
        if info.glyph_id == 0 && ignorable() {
            pen += pos.x_advance;
            continue;
        }
        out.push(ShapedGlyph {
            id: info.glyph_id as u16,
            x: (pen + pos.x_offset) as f32 / upem,
            y: pos.y_offset as f32 / upem,
        });
        pen += pos.x_advance;
    }
    out
}

/// Unicode `Default_Ignorable_Code_Point` (approximated by its ranges).
fn is_default_ignorable(c: char) -> bool {
    matches!(
        c as u32,
        0x00AD
            | 0x034F
            | 0x061C
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    )
}

/// Which kind of face a cluster prefers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Emoji,
    Cjk,
    Other,
}

impl Script {
    fn of(cluster: &str) -> Script {
        if cluster.chars().any(is_emoji_char) {
            Script::Emoji
        } else if cluster.chars().any(is_cjk_char) {
            Script::Cjk
        } else {
            Script::Other
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// Emoji presentation selector, pictographs and the BMP characters with
/// `Emoji_Presentation=Yes`.
fn is_emoji_char(c: char) -> bool {
    matches!(
        c as u32,
        0xFE0F
            | 0x20E3
            | 0x1F000..=0x1FAFF
            | 0x231A..=0x231B
            | 0x23E9..=0x23EC
            | 0x23F0
            | 0x23F3
            | 0x25FD..=0x25FE
            | 0x2614..=0x2615
            | 0x2648..=0x2653
            | 0x267F
            | 0x2693
            | 0x26A1
            | 0x26AA..=0x26AB
            | 0x26BD..=0x26BE
            | 0x26C4..=0x26C5
            | 0x26CE
            | 0x26D4
            | 0x26EA
            | 0x26F2..=0x26F3
            | 0x26F5
            | 0x26FA
            | 0x26FD
            | 0x2705
            | 0x270A..=0x270B
            | 0x2728
            | 0x274C
            | 0x274E
            | 0x2753..=0x2755
            | 0x2757
            | 0x2795..=0x2797
            | 0x27B0
            | 0x27BF
            | 0x2B1B..=0x2B1C
            | 0x2B50
            | 0x2B55
    )
}

/// Han, kana, Hangul, CJK symbols and full-width forms.
fn is_cjk_char(c: char) -> bool {
    matches!(
        c as u32,
        0x1100..=0x11FF
            | 0x2E80..=0x2FFF
            | 0x3000..=0x33FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xA960..=0xA97F
            | 0xAC00..=0xD7FF
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFFEF
            | 0x20000..=0x3FFFF
    )
}

fn family_is_emoji(family: &str) -> bool {
    family.to_lowercase().contains("emoji")
}

fn family_is_cjk(family: &str) -> bool {
    const HINTS: &[&str] = &[
        "cjk",
        "wenquanyi",
        "wqy",
        "hei",
        "song",
        "sung",
        "ming",
        "kai",
        "mincho",
        "gothic",
        "droid sans fallback",
        "source han",
        "sarasa",
        "yahei",
        "simsun",
        "nanum",
        "gulim",
        "batang",
        "dotum",
        "takao",
        "ipa",
        "arphic",
        "fangsong",
        "noto sans sc",
        "noto sans tc",
        "noto sans jp",
        "noto sans kr",
        "noto serif sc",
        "noto serif tc",
        "noto serif jp",
        "noto serif kr",
    ];
    let family = family.to_lowercase();
    HINTS.iter().any(|h| family.contains(h))
}

/// One system face of the fallback chain.
struct SystemFace {
    family: String,
    post_script: String,
    monospaced: bool,
    weight: u16,
    italic: bool,
    emoji: bool,
    cjk: bool,
    path: PathBuf,
    index: u32,
    /// Raw `cmap` table, read on first need (a pre-filter before loading the whole file).
    cmap: OnceLock<Option<Vec<u8>>>,
}

impl SystemFace {
    fn maps(&self, c: char) -> bool {
        let Some(bytes) = self.cmap.get_or_init(|| read_cmap(&self.path, self.index)) else {
            return false;
        };
        let Some(table) = ttf_parser::cmap::Table::parse(bytes) else {
            return false;
        };
        table
            .subtables
            .into_iter()
            .filter(|s| s.is_unicode())
            .any(|s| s.glyph_index(c as u32).is_some_and(|g| g.0 != 0))
    }

    fn style_distance(&self, style: FaceStyle) -> u32 {
        let weight = u32::from(style.css_weight()).abs_diff(u32::from(self.weight));
        let slant = if self.italic == style.is_italic() {
            0
        } else {
            1000
        };
        weight + slant
    }
}

/// The system faces, scanned once by fontdb.
struct SystemFonts {
    faces: Vec<SystemFace>,
    /// Candidate order per (script, style), computed on first need.
    orders: [[OnceLock<Vec<usize>>; 4]; 3],
    /// Whole font files, read on first need and shared by the faces of a collection.
    data: Mutex<HashMap<PathBuf, Option<Arc<Vec<u8>>>>>,
}

impl SystemFonts {
    fn load() -> SystemFonts {
        let mut db = fontdb::Database::new();
        db.load_system_fonts();
        let mut faces = Vec::new();
        for info in db.faces() {
            let fontdb::Source::File(path) = &info.source else {
                continue;
            };
            let family = info
                .families
                .first()
                .map(|(f, _)| f.clone())
                .unwrap_or_default();
            if family.is_empty() || family.eq_ignore_ascii_case(BUNDLED_FAMILY) {
                continue;
            }
            faces.push(SystemFace {
                emoji: family_is_emoji(&family),
                cjk: family_is_cjk(&family),
                family,
                post_script: info.post_script_name.clone(),
                monospaced: info.monospaced,
                weight: info.weight.0,
                italic: info.style != fontdb::Style::Normal,
                path: path.clone(),
                index: info.index,
                cmap: OnceLock::new(),
            });
        }
        SystemFonts {
            faces,
            orders: Default::default(),
            data: Mutex::new(HashMap::new()),
        }
    }

    fn order(&self, script: Script, style: FaceStyle) -> &[usize] {
        self.orders[script.slot()][style.slot()].get_or_init(|| {
            let group = |f: &SystemFace| -> u8 {
                match script {
                    Script::Emoji => u8::from(!f.emoji),
                    Script::Cjk => u8::from(!f.cjk),
                    Script::Other => u8::from(f.emoji),
                }
            };
            let mut order: Vec<usize> = (0..self.faces.len()).collect();
            order.sort_by(|&a, &b| {
                let (a, b) = (&self.faces[a], &self.faces[b]);
                (
                    group(a),
                    !a.monospaced,
                    &a.family,
                    a.style_distance(style),
                    &a.post_script,
                )
                    .cmp(&(
                        group(b),
                        !b.monospaced,
                        &b.family,
                        b.style_distance(style),
                        &b.post_script,
                    ))
                    .then(a.index.cmp(&b.index))
                    .then(a.path.cmp(&b.path))
            });
            order
        })
    }

    fn file(&self, path: &Path) -> Option<Arc<Vec<u8>>> {
        let lock = || self.data.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = lock().get(path) {
            return hit.clone();
        }
        let data = std::fs::read(path).ok().map(Arc::new);
        lock().insert(path.to_path_buf(), data.clone());
        data
    }

    /// The index and advance (em) of the first face in the chain covering `cluster`.
    fn find(&self, cluster: &str, style: FaceStyle) -> Option<(usize, f32)> {
        let base = cluster.chars().find(|&c| !is_default_ignorable(c));
        for &i in self.order(Script::of(cluster), style) {
            let face = &self.faces[i];
            if base.is_some_and(|c| !face.maps(c)) {
                continue;
            }
            let Some(data) = self.file(&face.path) else {
                continue;
            };
            let Some(shaper) = rustybuzz::Face::from_slice(&data, face.index) else {
                continue;
            };
            if let Some(advance) = shape_covers(&shaper, cluster) {
                return Some((i, advance));
            }
        }
        None
    }
}

/// Reads the raw `cmap` table of face `index` of the font file at `path` without reading the
/// rest of the file.
fn read_cmap(path: &Path, index: u32) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let mut file = std::fs::File::open(path).ok()?;
    let mut header = [0u8; 12];
    file.read_exact(&mut header).ok()?;
    if &header[..4] == b"ttcf" {
        if index >= be32(&header[8..12]) {
            return None;
        }
        file.seek(SeekFrom::Start(12 + 4 * u64::from(index))).ok()?;
        let mut offset = [0u8; 4];
        file.read_exact(&mut offset).ok()?;
        file.seek(SeekFrom::Start(u64::from(be32(&offset)))).ok()?;
        file.read_exact(&mut header).ok()?;
    }
    let tables = usize::from(u16::from_be_bytes([header[4], header[5]]));
    let mut records = vec![0u8; 16 * tables];
    file.read_exact(&mut records).ok()?;
    let record = records.chunks_exact(16).find(|r| &r[..4] == b"cmap")?;
    let len = be32(&record[12..16]) as usize;
    if len > 64 << 20 {
        return None;
    }
    file.seek(SeekFrom::Start(u64::from(be32(&record[8..12]))))
        .ok()?;
    let mut cmap = vec![0u8; len];
    file.read_exact(&mut cmap).ok()?;
    Some(cmap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn fonts_is_send_and_sync() {
        assert_send_sync::<Fonts>();
    }

    #[test]
    fn metrics_of_jetbrains_mono() {
        let m = Fonts::bundled_only().metrics();
        assert!((m.advance - 0.6).abs() < 1e-6, "{m:?}");
        assert!((m.ascender - 1.02).abs() < 1e-6, "{m:?}");
        assert!((m.descender - 0.3).abs() < 1e-6, "{m:?}");
        assert!(m.line_gap.abs() < 1e-6, "{m:?}");
    }

    #[test]
    fn ascii_is_bundled_without_system_fonts() {
        let fonts = Fonts::new();
        for style in FaceStyle::ALL {
            let r = fonts.resolve("A", style);
            assert_eq!(
                r,
                Resolved {
                    family: BUNDLED_FAMILY.into(),
                    bundled: true,
                    advance: 0.6,
                    found: true,
                    face: FaceId::Bundled(style),
                }
            );
        }
        for c in ' '..='~' {
            assert!(fonts.resolve(&c.to_string(), FaceStyle::Regular).bundled);
        }
        assert!(fonts.resolve("─", FaceStyle::Regular).bundled);
        assert!(
            !fonts.system_fonts_loaded(),
            "ASCII must not scan system fonts"
        );
    }

    #[test]
    fn combining_mark_is_covered() {
        let fonts = Fonts::new();
        let r = fonts.resolve("e\u{301}", FaceStyle::Regular);
        assert!(r.found && r.bundled, "{r:?}");
        assert!((r.advance - 0.6).abs() < 1e-6, "{r:?}");
        assert!(!fonts.system_fonts_loaded());
    }

    #[test]
    fn cjk_falls_back_to_a_cjk_system_font() {
        let fonts = Fonts::new();
        let r = fonts.resolve("中", FaceStyle::Regular);
        assert!(r.found && !r.bundled, "{r:?}");
        assert!(r.family.starts_with("WenQuanYi Micro Hei"), "{r:?}");
        assert!((r.advance - 1.0).abs() < 0.05, "{r:?}");
        // Cached, and the same for a second Fonts (deterministic order).
        assert_eq!(fonts.resolve("中", FaceStyle::Regular), r);
        assert_eq!(Fonts::new().resolve("中", FaceStyle::Regular), r);
        let bold = fonts.resolve("中", FaceStyle::Bold);
        assert!(bold.found && !bold.bundled, "{bold:?}");
    }

    #[test]
    fn emoji_falls_back_to_an_emoji_font() {
        let fonts = Fonts::new();
        for cluster in ["🚀", "❤\u{FE0F}", "👩\u{200D}💻", "👍🏽"] {
            let r = fonts.resolve(cluster, FaceStyle::Regular);
            assert!(r.found && !r.bundled, "{cluster}: {r:?}");
            assert_eq!(r.family, "Noto Color Emoji", "{cluster}");
            assert!(r.advance > 0.5, "{cluster}: {r:?}");
        }
    }

    #[test]
    fn unassigned_code_point_is_not_found() {
        let fonts = Fonts::new();
        let r = fonts.resolve("\u{10FFFD}", FaceStyle::Regular);
        assert!(!r.found, "{r:?}");
        assert!(r.bundled && r.family == BUNDLED_FAMILY, "{r:?}");
        assert!((r.advance - 0.6).abs() < 1e-6, "{r:?}");
    }

    #[test]
    fn bundled_only_never_loads_system_fonts() {
        let fonts = Fonts::bundled_only();
        let r = fonts.resolve("中", FaceStyle::Regular);
        assert!(!r.found && r.bundled, "{r:?}");
        assert!((r.advance - 1.2).abs() < 1e-6, "two cells: {r:?}");
        assert!(!fonts.system_fonts_loaded());
    }

    #[test]
    fn nerd_font_icons_fall_back_to_the_bundled_icon_face() {
        // U+F07B folder (Font Awesome), U+E718 Node.js (Devicons), U+F0001 a Material Design
        // icon (plane 15).
        let fonts = Fonts::bundled_only();
        for icon in ["\u{f07b}", "\u{e718}", "\u{f0001}"] {
            let r = fonts.resolve(icon, FaceStyle::Bold);
            assert!(r.found && !r.bundled, "{icon:?}: {r:?}");
            assert_eq!(r.face, FaceId::Icons);
            assert_eq!(r.family, ICONS_FAMILY);
            assert!(r.advance > 0.0, "{r:?}");
        }
        assert!(!fonts.system_fonts_loaded());
        // Text the bundled face covers never reaches the icon face.
        assert!(fonts.resolve("a", FaceStyle::Regular).bundled);
        // A private-use code point outside the icon sets is still a replacement box.
        assert!(!fonts.resolve("\u{10fff0}", FaceStyle::Regular).found);
    }

    #[test]
    fn the_icon_face_is_embedded_as_a_subset() {
        let fonts = Fonts::bundled_only();
        let mut used = BTreeMap::new();
        used.insert(FaceId::Icons, chars("\u{f07b}\u{e0a0}"));
        let css = fonts.embed_css(&used);
        assert!(
            css.starts_with(
                "@font-face{font-family:\"Pure Nerd Font\";font-weight:400;font-style:normal;"
            ),
            "{}",
            &css[..css.len().min(120)]
        );
        let b64 = css
            .split("base64,")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .unwrap();
        let subset = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        // A small subset of the 2 MB face, holding the two icons.
        assert!(subset.len() < 8_000, "{} bytes", subset.len());
        let face = ttf_parser::Face::parse(&subset, 0).unwrap();
        for c in ['\u{f07b}', '\u{e0a0}'] {
            assert!(face.glyph_index(c).is_some_and(|g| g.0 != 0), "{c:?}");
        }
    }

    #[test]
    fn ignorables_do_not_count_against_a_face() {
        assert!(is_default_ignorable('\u{200D}'));
        assert!(is_default_ignorable('\u{FE0E}'));
        let fonts = Fonts::bundled_only();
        let r = fonts.resolve("a\u{FE0E}", FaceStyle::Regular);
        assert!(r.found && r.bundled, "{r:?}");
    }

    fn chars(s: &str) -> BTreeSet<char> {
        s.chars().collect()
    }

    const TABLES: [&[u8; 4]; 10] = [
        b"cmap", b"OS/2", b"head", b"hhea", b"hmtx", b"maxp", b"name", b"post", b"glyf", b"loca",
    ];

    #[derive(Default)]
    struct Path(Vec<String>);

    impl ttf_parser::OutlineBuilder for Path {
        fn move_to(&mut self, x: f32, y: f32) {
            self.0.push(format!("M{x},{y}"));
        }
        fn line_to(&mut self, x: f32, y: f32) {
            self.0.push(format!("L{x},{y}"));
        }
        fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
            self.0.push(format!("Q{x1},{y1},{x},{y}"));
        }
        fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
            self.0.push(format!("C{x1},{y1},{x2},{y2},{x},{y}"));
        }
        fn close(&mut self) {
            self.0.push("Z".into());
        }
    }

    fn outline(face: &ttf_parser::Face<'_>, glyph: ttf_parser::GlyphId) -> Vec<String> {
        let mut path = Path::default();
        face.outline_glyph(glyph, &mut path);
        path.0
    }

    /// No glyph carries instructions and maxp says so.
    fn assert_no_hinting(font: &[u8]) {
        let raw = ttf_parser::RawFace::parse(font, 0).unwrap();
        let table = |t: &[u8; 4]| raw.table(ttf_parser::Tag::from_bytes(t)).unwrap();
        let (head, maxp, loca, glyf) = (
            table(b"head"),
            table(b"maxp"),
            table(b"loca"),
            table(b"glyf"),
        );
        assert_eq!(be16(maxp, 26), Some(0));
        let long = be16(head, 50).unwrap() != 0;
        let glyphs = usize::from(be16(maxp, 4).unwrap());
        let offset = |i: usize| {
            if long {
                be32(loca, 4 * i).unwrap() as usize
            } else {
                2 * usize::from(be16(loca, 2 * i).unwrap())
            }
        };
        for i in 0..glyphs {
            let glyph = &glyf[offset(i)..offset(i + 1)];
            if glyph.is_empty() {
                continue;
            }
            let contours = be16(glyph, 0).unwrap() as i16;
            if contours >= 0 {
                assert_eq!(
                    be16(glyph, 10 + 2 * contours as usize),
                    Some(0),
                    "glyph {i}"
                );
            }
        }
        assert!(raw.table(ttf_parser::Tag::from_bytes(b"fpgm")).is_none());
    }

    #[test]
    fn subsets_map_every_char_with_original_advances() {
        let text = "Hello, world! ~|{}éß→─";
        for (style, bytes) in bundled_faces() {
            let original = ttf_parser::Face::parse(bytes, 0).unwrap();
            let font = subset_bundled(style, &chars(text)).unwrap();
            let sub = ttf_parser::Face::parse(&font, 0).unwrap();
            let raw = ttf_parser::RawFace::parse(&font, 0).unwrap();
            for tag in TABLES {
                assert!(
                    raw.table(ttf_parser::Tag::from_bytes(tag)).is_some(),
                    "{style:?} subset lacks {}",
                    String::from_utf8_lossy(tag)
                );
            }
            let unique = chars(text);
            assert!(
                usize::from(sub.number_of_glyphs()) <= unique.len() + 1 + 8,
                "{style:?}: {} glyphs",
                sub.number_of_glyphs()
            );
            for c in unique {
                let g = sub
                    .glyph_index(c)
                    .unwrap_or_else(|| panic!("{style:?}: {c:?} unmapped"));
                assert_ne!(g.0, 0, "{style:?}: {c:?}");
                let og = original.glyph_index(c).unwrap();
                assert_eq!(
                    sub.glyph_hor_advance(g),
                    original.glyph_hor_advance(og),
                    "{style:?}: {c:?}"
                );
                assert_eq!(
                    sub.glyph_bounding_box(g),
                    original.glyph_bounding_box(og),
                    "{style:?}: {c:?} bounding box"
                );
                assert_eq!(
                    outline(&sub, g),
                    outline(&original, og),
                    "{style:?}: {c:?} outline"
                );
            }
            assert_eq!(sub.units_per_em(), original.units_per_em());
            assert_eq!(sub.ascender(), original.ascender());
            assert_eq!(sub.descender(), original.descender());
            assert!(sub.glyph_index('Z').is_none(), "Z was not requested");
            assert_no_hinting(&font);
            assert_eq!(
                checksum(&font),
                0xB1B0_AFBA,
                "{style:?}: checkSumAdjustment"
            );
            // allsorts reads its own output back.
            let scope = allsorts::binary::read::ReadScope::new(&font);
            let otf = scope.read::<allsorts::tables::OpenTypeFont<'_>>().unwrap();
            otf.table_provider(0).unwrap();
        }
    }

    #[test]
    fn subset_is_small_and_deterministic() {
        let fonts = Fonts::bundled_only();
        let set = chars("Hello, world!");
        let font = subset_bundled(FaceStyle::Regular, &set).unwrap();
        assert!(font.len() < 10_000, "{} bytes", font.len());
        eprintln!("subset of \"Hello, world!\": {} bytes", font.len());
        let used: BTreeMap<FaceId, BTreeSet<char>> = FaceStyle::ALL
            .iter()
            .map(|&s| (FaceId::Bundled(s), set.clone()))
            .collect();
        let a = fonts.embed_css(&used);
        let b = Fonts::bundled_only().embed_css(&used);
        assert_eq!(a, b);
        assert_eq!(a.matches("@font-face{").count(), 4);
        let ascii: BTreeSet<char> = (' '..='~').collect();
        for style in FaceStyle::ALL {
            let n = subset_bundled(style, &ascii).unwrap().len();
            eprintln!("{style:?} printable ASCII subset: {n} bytes");
        }
    }

    #[test]
    fn embed_css_format_and_order() {
        let fonts = Fonts::bundled_only();
        assert_eq!(fonts.embed_css(&BTreeMap::new()), "");
        let mut used = BTreeMap::new();
        used.insert(FaceId::Bundled(FaceStyle::BoldItalic), chars("x"));
        used.insert(FaceId::Bundled(FaceStyle::Regular), chars("ab"));
        used.insert(FaceId::Bundled(FaceStyle::Bold), BTreeSet::new());
        let css = fonts.embed_css(&used);
        let rules: Vec<&str> = css.split_inclusive(")}").collect();
        assert_eq!(rules.len(), 2, "{css}");
        assert!(rules[0].starts_with(
            "@font-face{font-family:\"JetBrains Mono\";font-weight:400;font-style:normal;\
             src:url(data:font/ttf;base64,"
        ));
        assert!(rules[1].starts_with(
            "@font-face{font-family:\"JetBrains Mono\";font-weight:700;font-style:italic;\
             src:url(data:font/ttf;base64,"
        ));
        let b64 = rules[0]
            .split("base64,")
            .nth(1)
            .unwrap()
            .trim_end_matches(")}");
        let font = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        assert_eq!(
            font,
            subset_bundled(FaceStyle::Regular, &chars("ab")).unwrap()
        );
        let face = ttf_parser::Face::parse(&font, 0).unwrap();
        assert!(face.glyph_index('a').is_some_and(|g| g.0 != 0));
    }

    #[test]
    fn fallback_faces_are_embedded_except_bitmap_emoji() {
        let fonts = Fonts::new();
        let cjk = fonts.resolve("中", FaceStyle::Regular);
        let emoji = fonts.resolve("🚀", FaceStyle::Regular);
        assert!(matches!(cjk.face, FaceId::System(_)), "{cjk:?}");
        assert!(matches!(emoji.face, FaceId::System(_)), "{emoji:?}");
        let used: BTreeMap<FaceId, BTreeSet<char>> = [
            (FaceId::Bundled(FaceStyle::Bold), chars("ab")),
            (cjk.face, chars("中")),
            (emoji.face, chars("🚀")),
        ]
        .into_iter()
        .collect();
        let css = fonts.embed_css(&used);
        let rules: Vec<&str> = css.split_inclusive(")}").collect();
        assert_eq!(rules.len(), 2, "bundled bold and the CJK face; no emoji");
        assert!(rules[0].starts_with("@font-face{font-family:\"JetBrains Mono\";font-weight:700;"));
        assert!(rules[1].starts_with(
            "@font-face{font-family:\"WenQuanYi Micro Hei\";font-weight:400;font-style:normal;\
             src:url(data:font/ttf;base64,"
        ));
        let err = fonts
            .with_face_data(emoji.face, |data, index| {
                subset_face(data, index, &chars("🚀"))
            })
            .unwrap()
            .unwrap_err();
        assert!(err.contains("no outlines"), "{err}");
        let font = fonts
            .with_face_data(cjk.face, |data, index| {
                subset_face(data, index, &chars("中"))
            })
            .unwrap()
            .unwrap();
        assert_no_hinting(&font);
        assert_eq!(checksum(&font), 0xB1B0_AFBA);
    }

    #[test]
    fn shaping_follows_the_fallback_chain() {
        let fonts = Fonts::new();
        let a = fonts.shape("a", FaceStyle::Bold);
        assert_eq!(a.face, FaceId::Bundled(FaceStyle::Bold));
        assert_eq!(a.glyphs.len(), 1);
        assert_ne!(a.glyphs[0].id, 0);
        let cjk = fonts.shape("中", FaceStyle::Regular);
        assert_eq!(cjk.face, fonts.resolve("中", FaceStyle::Regular).face);
        assert!(cjk.glyphs.iter().all(|g| g.id != 0), "{cjk:?}");
        // e + combining acute: the shaper composes the face's precomposed é.
        let e = fonts.shape("e\u{301}", FaceStyle::Regular);
        let face = ttf_parser::Face::parse(bundled_bytes(FaceStyle::Regular), 0).unwrap();
        let ids: Vec<u16> = e.glyphs.iter().map(|g| g.id).collect();
        assert_eq!(ids, [face.glyph_index('é').unwrap().0], "{e:?}");
        // Nothing covers it: the bundled face's replacement box, one per code point.
        let none = Fonts::bundled_only().shape("\u{10FFFD}", FaceStyle::Regular);
        assert_eq!(none.face, FaceId::Bundled(FaceStyle::Regular));
        assert_eq!(none.glyphs.iter().map(|g| g.id).collect::<Vec<_>>(), [0]);
        // Ignorables the face lacks (a tag character) draw nothing, not a replacement box.
        let tag = Fonts::bundled_only().shape("a\u{E0041}", FaceStyle::Regular);
        assert_eq!(
            tag.glyphs[0].id,
            face.glyph_index('a').unwrap().0,
            "{tag:?}"
        );
        assert!(tag.glyphs.iter().all(|g| g.id != 0), "{tag:?}");
    }

    #[test]
    fn timings() {
        let t = Instant::now();
        let fonts = Fonts::new();
        let r = fonts.resolve("A", FaceStyle::Regular);
        let startup = t.elapsed();
        assert!(r.bundled);
        let t = Instant::now();
        fonts.resolve("中", FaceStyle::Regular);
        let cjk = t.elapsed();
        let t = Instant::now();
        fonts.resolve("🚀", FaceStyle::Regular);
        let emoji = t.elapsed();
        eprintln!("new+resolve(A): {startup:?}; first CJK: {cjk:?}; first emoji: {emoji:?}");
    }
}
