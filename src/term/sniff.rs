//! Sequences alacritty_terminal does not act on, picked out of the byte stream before it is
//! parsed: XTVERSION (`CSI > Ps q`, xterm's "report version"), DECRQCRA (`CSI Pi ; Pp ; Pt ;
//! Pl ; Pb ; Pr * y`, VT420 "request checksum of rectangular area"), DECRQSS (`DCS $ q Pt
//! ST`, "request selection or setting") and OSC 7501 program status
//! (`ESC ] 7501 ; state=<s>[:kind=<k>][:msg=<base64>] ST`, and its `?` probe), DECRQM for
//! synchronized output (`CSI ? 2026 $ p`: alacritty always answers "reset", and inside an open
//! frame the parser holds the query back until the frame ends) and OSC 9;4
//! progress (`ESC ] 9 ; 4 ; <0-4> [; <pct>] ST`); see shared/notes/agents.md, "In-band
//! signals"; and the DEC and xterm control functions the emulator does itself
//! ([`Control::is_ours`], `ESC 6`, `ESC 9`, `ESC V`, `ESC W`, the icon label of OSC 0 and 1);
//! xterm's colour controls (OSC 4, 5, 10–19, 104, 105, 110–119), which take X11 colour specs
//! alacritty does not parse, XTGETTCAP (`DCS + q Pt ST`) and RIS (`ESC c`, for the colours
//! kept beside alacritty's).
//! Every control sequence is read once here (ECMA-48's shape: prefix, parameters,
//! intermediates, final byte) and only the ones named are kept. Sequences may straddle reads:
//! an unfinished one is carried over (at most [`MAX_CARRY`] bytes).

use base64::Engine;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

/// Longest unfinished sequence kept between reads; longer ones are not ours and are dropped.
pub const MAX_CARRY: usize = 4096;

/// A program's status as reported by OSC 7501.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramStatus {
    /// `idle`, `working`, `blocked` (waiting for the user), `done` or `error`, as sent.
    pub state: String,
    /// What a `blocked` program waits for: `permission`, `question` or `auth`, when given.
    pub kind: Option<String>,
    /// The decoded `msg` field (base64 of UTF-8 text), when given and decodable.
    pub message: Option<String>,
}

/// A sequence found in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// XTVERSION (`CSI > q` or `CSI > 0 q`).
    XtVersion,
    /// DA3, tertiary device attributes (`CSI = c` or `CSI = 0 c`, VT400 and up).
    TertiaryAttributes,
    /// DECRQCRA: the checksum of the rectangle `area` (top, left, bottom, right; 1-based,
    /// inclusive; 0 where the parameter was absent or 0, which means the screen's edge),
    /// answered with request id `id`. The page parameter is ignored (one page).
    Checksum { id: u32, area: [u16; 4] },
    /// DECRQSS: a request for the setting named by the final characters `setting` (`m` SGR,
    /// ` q` DECSCUSR, `r` DECSTBM, …), at most 4 bytes.
    Setting(Vec<u8>),
    /// DECRQM for DEC private mode 2026 (`CSI ? 2026 $ p`), answered with whether a
    /// synchronized frame is open at that point of the stream.
    SyncQuery,
    /// The OSC 7501 `?` probe; `bel` when it ended with BEL rather than ST.
    StatusProbe { bel: bool },
    /// An OSC 7501 status report.
    Status(ProgramStatus),
    /// An OSC 9;4 progress report: its state (0 removed, 1 normal, 2 error, 3 indeterminate,
    /// 4 paused).
    Progress(u8),
    /// A control sequence alacritty_terminal does not act on (or acts on otherwise than
    /// xterm), acted on by the emulator: see [`Control::is_ours`].
    Control(Control),
    /// DECBI (`ESC 6`, VT420 back index).
    BackIndex,
    /// DECFI (`ESC 9`, VT420 forward index).
    ForwardIndex,
    /// The icon label set by OSC 0 or OSC 1 (xterm; OSC 0 sets the window title too, which
    /// alacritty takes).
    IconLabel(String),
    /// SPA (`ESC V`, ECMA-48 start of guarded area).
    StartProtected,
    /// An xterm colour control (`OSC Ps ; Pt`, ctlseqs "Operating System Commands"):
    /// `code` 4 (palette), 5 (special colours), 10–19 (dynamic colours), 104, 105 and
    /// 110–119 (their resets); `body` what follows the code's `;` (empty without one); `bel`
    /// when BEL ended it rather than ST.
    Colour { code: u16, body: String, bel: bool },
    /// XTGETTCAP (`DCS + q Pt ST`, xterm's "request termcap/terminfo string"): the
    /// hex-encoded names asked for, split by `;`, as sent (at most [`MAX_CARRY`] bytes).
    Capability(Vec<u8>),
    /// RIS (`ESC c`, full reset), which resets the colours kept beside alacritty's.
    FullReset,
    /// EPA (`ESC W`, ECMA-48 end of guarded area).
    EndProtected,
}

/// A control sequence (`CSI`), as ECMA-48 §5.4 shapes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    /// The private prefix (`<`, `=`, `>` or `?`), if any.
    pub prefix: Option<u8>,
    /// The parameters in order (an empty one is 0; sub-parameters after `:` are dropped;
    /// each clamped to 65 535).
    pub params: Vec<u16>,
    /// The intermediate byte (0x20–0x2F), if any.
    pub intermediate: Option<u8>,
    /// The final byte.
    pub final_byte: u8,
}

impl Control {
    /// Whether the emulator acts on this sequence itself (xterm's ctlseqs names each):
    /// DECSTR `CSI ! p`, DECSCL `CSI Pl ; Pc " p`, DECDSR `CSI ? Ps n`, DECSCA `CSI Ps " q`,
    /// DECSED `CSI ? Ps J`, DECSEL `CSI ? Ps K`, DECSLRM or SCOSC `CSI Pl ; Pr s`, the
    /// rectangular-area operations DECCRA `CSI … $ v`, DECFRA `CSI … $ x`, DECERA
    /// `CSI … $ z`, DECSERA `CSI … $ {`, DECIC `CSI Pn ' }`, DECDC `CSI Pn ' ~`, DECSACE
    /// `CSI Ps * x`, XTSAVE `CSI ? Pm s` and XTRESTORE `CSI ? Pm r`, and the window operations
    /// (`CSI Ps ; … t`) alacritty does not answer.
    pub fn is_ours(&self) -> bool {
        matches!(
            (self.prefix, self.intermediate, self.final_byte),
            (None, Some(b'!'), b'p')
                | (None, Some(b'"'), b'p' | b'q')
                | (Some(b'?'), None, b'n' | b'J' | b'K' | b's' | b'r')
                | (None, None, b's' | b't')
                | (None, Some(b'$'), b'v' | b'x' | b'z' | b'{')
                | (None, Some(b'*'), b'x')
                | (None, Some(b'\''), b'}' | b'~')
        )
    }

    /// Parameter `i`, or `default` when it is absent or 0.
    pub fn param(&self, i: usize, default: u16) -> u16 {
        match self.params.get(i) {
            Some(&v) if v != 0 => v,
            _ => default,
        }
    }
}

/// The stream scanner; keeps an unfinished sequence between calls.
#[derive(Debug, Default)]
pub struct Sniffer {
    carry: Vec<u8>,
}

enum Parse {
    /// A whole sequence ending at this offset, ours or not.
    Done(usize, Option<Found>),
    /// Not a sequence we look for.
    NotOurs,
    /// The data ends inside what may be one of ours.
    Incomplete,
}

impl Sniffer {
    /// Scans the next bytes of the stream. Returns each sequence found with its span in
    /// `bytes` (from its start, or 0 when it began in an earlier read, to just past its end),
    /// in stream order.
    pub fn scan(&mut self, bytes: &[u8]) -> Vec<(std::ops::Range<usize>, Found)> {
        let carried = self.carry.len();
        let joined = super::after_carry(&mut self.carry, bytes);
        let data: &[u8] = &joined;
        let mut found = Vec::new();
        let mut i = 0;
        while let Some(p) = memchr::memchr(ESC, &data[i..]).map(|p| p + i) {
            match parse_at(data, p) {
                Parse::Done(end, Some(f)) => {
                    let span = p.saturating_sub(carried)..end.saturating_sub(carried);
                    found.push((span, f));
                    i = end;
                }
                Parse::Done(end, None) => i = end,
                Parse::NotOurs => i = p + 1,
                Parse::Incomplete => {
                    if data.len() - p <= MAX_CARRY {
                        self.carry = data[p..].to_vec();
                    }
                    break;
                }
            }
        }
        found
    }
}

fn parse_at(data: &[u8], p: usize) -> Parse {
    match data.get(p + 1) {
        None => Parse::Incomplete,
        Some(b'[') => parse_csi(data, p + 2),
        Some(b'6') => Parse::Done(p + 2, Some(Found::BackIndex)),
        Some(b'9') => Parse::Done(p + 2, Some(Found::ForwardIndex)),
        Some(b'V') => Parse::Done(p + 2, Some(Found::StartProtected)),
        Some(b'W') => Parse::Done(p + 2, Some(Found::EndProtected)),
        Some(b'c') => Parse::Done(p + 2, Some(Found::FullReset)),
        Some(b'P') => match parse_decrqss(data, p + 2) {
            Parse::NotOurs => parse_xtgettcap(data, p + 2),
            other => other,
        },
        Some(b']') => match parse_osc_7501(data, p + 2) {
            Parse::NotOurs => match parse_osc_progress(data, p + 2) {
                Parse::NotOurs => match parse_osc_icon(data, p + 2) {
                    Parse::NotOurs => parse_osc_colour(data, p + 2),
                    other => other,
                },
                other => other,
            },
            other => other,
        },
        Some(_) => Parse::NotOurs,
    }
}

/// Longest parameter string of a control sequence looked at here; longer ones are not ours.
const MAX_PARAMS: usize = 64;

/// After `ESC [`: a control sequence (ECMA-48 §5.4: an optional private prefix `<=>?`,
/// parameters of digits, `;` and `:`, at most two intermediates, a final byte), classified:
/// XTVERSION, DECRQM for mode 2026, DECRQCRA, or another sequence the emulator acts on itself
/// ([`Control::is_ours`]); anything else is not ours.
fn parse_csi(data: &[u8], mut i: usize) -> Parse {
    let prefix = match data.get(i) {
        None => return Parse::Incomplete,
        Some(&b @ b'<'..=b'?') => {
            i += 1;
            Some(b)
        }
        Some(_) => None,
    };
    let params = i;
    while data
        .get(i)
        .is_some_and(|b| b.is_ascii_digit() || *b == b';' || *b == b':')
    {
        i += 1;
        if i - params > MAX_PARAMS {
            return Parse::NotOurs;
        }
    }
    let params = params..i;
    let inter = i;
    while data.get(i).is_some_and(|b| (0x20..=0x2f).contains(b)) {
        i += 1;
        if i - inter > 2 {
            return Parse::NotOurs;
        }
    }
    let final_byte = match data.get(i) {
        None => return Parse::Incomplete,
        Some(&b @ 0x40..=0x7e) => b,
        Some(_) => return Parse::NotOurs,
    };
    let intermediates = &data[inter..i];
    let end = i + 1;
    let raw = &data[params];
    let numbers = || -> Vec<u32> {
        if raw.is_empty() {
            return Vec::new();
        }
        raw.split(|&b| b == b';')
            .map(|p| {
                let main = p.split(|&b| b == b':').next().unwrap_or(&[]);
                std::str::from_utf8(main)
                    .ok()
                    .and_then(|t| t.parse::<u32>().ok())
                    .unwrap_or(0)
            })
            .collect()
    };
    match (prefix, intermediates, final_byte) {
        (Some(b'>'), [], b'q') if raw.iter().all(|&b| b == b'0') => {
            Parse::Done(end, Some(Found::XtVersion))
        }
        (Some(b'='), [], b'c') if raw.iter().all(|&b| b == b'0') => {
            Parse::Done(end, Some(Found::TertiaryAttributes))
        }
        (Some(b'?'), b"$", b'p') if raw == b"2026" => Parse::Done(end, Some(Found::SyncQuery)),
        (None, b"*", b'y') => {
            let params = numbers();
            if params.len() > 6 {
                return Parse::Done(end, None);
            }
            let at = |k: usize| params.get(k).copied().unwrap_or(0).min(u16::MAX as u32) as u16;
            let found = Found::Checksum {
                id: params.first().copied().unwrap_or(0),
                area: [at(2), at(3), at(4), at(5)],
            };
            Parse::Done(end, Some(found))
        }
        _ => {
            let control = Control {
                prefix,
                params: Vec::new(),
                intermediate: intermediates.first().copied(),
                final_byte,
            };
            if intermediates.len() > 1 || !control.is_ours() {
                return Parse::NotOurs;
            }
            let params = numbers()
                .into_iter()
                .map(|n| n.min(u16::MAX as u32) as u16)
                .collect();
            Parse::Done(end, Some(Found::Control(Control { params, ..control })))
        }
    }
}

/// After `ESC P`: DECRQSS, `$ q`, the setting's final characters (at most 4), `ESC \`.
fn parse_decrqss(data: &[u8], i: usize) -> Parse {
    parse_dcs(
        data,
        i,
        *b"$q",
        |_, len| len <= 4,
        // Longer is not a setting.
        |len| len <= 4,
        Found::Setting,
    )
}

/// A DCS string the sniffer answers, after `ESC P`: the two bytes `intro`, a body of bytes
/// that `fits(byte, length so far)` accepts, then `ESC \`. At the terminator the body goes
/// to `found` if `whole(length)` holds and is dropped otherwise; a byte that does not fit
/// makes the string not ours, and another sequence cancelling it drops it.
fn parse_dcs(
    data: &[u8],
    i: usize,
    intro: [u8; 2],
    fits: impl Fn(u8, usize) -> bool,
    whole: impl Fn(usize) -> bool,
    found: impl FnOnce(Vec<u8>) -> Found,
) -> Parse {
    match (data.get(i), data.get(i + 1)) {
        (None, _) => return Parse::Incomplete,
        (Some(&a), None) if a == intro[0] => return Parse::Incomplete,
        (Some(&a), Some(&b)) if [a, b] == intro => {}
        _ => return Parse::NotOurs,
    }
    let body = i + 2;
    let mut j = body;
    loop {
        match data.get(j) {
            None => return Parse::Incomplete,
            Some(&ESC) => {
                return match data.get(j + 1) {
                    None => Parse::Incomplete,
                    Some(b'\\') if whole(j - body) => {
                        Parse::Done(j + 2, Some(found(data[body..j].to_vec())))
                    }
                    Some(_) => Parse::Done(j, None),
                };
            }
            Some(&b) if fits(b, j - body) => j += 1,
            Some(_) => return Parse::NotOurs,
        }
    }
}

/// An OSC string after `ESC ]` that starts with `prefix`, ended by BEL or `ESC \`: the body
/// (after the prefix) as a range of `data`, where the string ends (past its terminator) and
/// whether BEL ended it. `Err` is how parsing stops instead: not this string (another prefix,
/// or a body longer than `max` bytes), incomplete, or cancelled by another `ESC` (`Done` with
/// nothing found).
fn osc_string(
    data: &[u8],
    i: usize,
    prefix: &[u8],
    max: usize,
) -> Result<(std::ops::Range<usize>, usize, bool), Parse> {
    let have = &data[i..data.len().min(i + prefix.len())];
    if !prefix.starts_with(have) {
        return Err(Parse::NotOurs);
    }
    if have.len() < prefix.len() {
        return Err(Parse::Incomplete);
    }
    let start = i + prefix.len();
    let mut j = start;
    loop {
        match data.get(j) {
            None => return Err(Parse::Incomplete),
            Some(&BEL) => return Ok((start..j, j + 1, true)),
            Some(&ESC) => match data.get(j + 1) {
                None => return Err(Parse::Incomplete),
                Some(b'\\') => return Ok((start..j, j + 2, false)),
                // Any other ESC cancels the string.
                Some(_) => return Err(Parse::Done(j, None)),
            },
            Some(_) if j - start > max => return Err(Parse::NotOurs),
            Some(_) => j += 1,
        }
    }
}

/// After `ESC ]`: `7501;`, the payload, then BEL or `ESC \`.
fn parse_osc_7501(data: &[u8], i: usize) -> Parse {
    match osc_string(data, i, b"7501;", MAX_CARRY) {
        Ok((body, end, bel)) => Parse::Done(end, payload(&data[body], bel)),
        Err(stop) => stop,
    }
}

/// After `ESC ]`: `0;` or `1;` (icon label and window title, or the icon label alone), the
/// label, then BEL or `ESC \`.
fn parse_osc_icon(data: &[u8], i: usize) -> Parse {
    let prefix: &[u8] = match data.get(i) {
        None => return Parse::Incomplete,
        Some(b'0') => b"0;",
        Some(b'1') => b"1;",
        Some(_) => return Parse::NotOurs,
    };
    match osc_string(data, i, prefix, MAX_CARRY) {
        Ok((body, end, _)) => {
            let label = String::from_utf8_lossy(&data[body]).into_owned();
            Parse::Done(end, Some(Found::IconLabel(label)))
        }
        Err(stop) => stop,
    }
}

/// After `ESC P`: XTGETTCAP, `+ q`, the hex-encoded names, `ESC \`.
fn parse_xtgettcap(data: &[u8], i: usize) -> Parse {
    parse_dcs(
        data,
        i,
        *b"+q",
        |b, _| b.is_ascii_hexdigit() || b == b';',
        |_| true,
        Found::Capability,
    )
}

/// Whether OSC `code` is one of xterm's colour controls ([`Found::Colour`]).
fn is_colour_code(code: u16) -> bool {
    matches!(code, 4 | 5 | 10..=19 | 104 | 105 | 110..=119)
}

/// After `ESC ]`: a colour control's code (digits), then `;` and its parameters or
/// nothing, then BEL or `ESC \`.
fn parse_osc_colour(data: &[u8], i: usize) -> Parse {
    let mut j = i;
    while data.get(j).is_some_and(u8::is_ascii_digit) {
        j += 1;
        if j - i > 3 {
            return Parse::NotOurs;
        }
    }
    if j == data.len() {
        return Parse::Incomplete;
    }
    let code = std::str::from_utf8(&data[i..j])
        .ok()
        .and_then(|t| t.parse::<u16>().ok());
    let Some(code) = code.filter(|c| is_colour_code(*c)) else {
        return Parse::NotOurs;
    };
    if !matches!(data[j], b';' | BEL | ESC) {
        return Parse::NotOurs;
    }
    match osc_string(data, i, &data[i..j], MAX_CARRY) {
        Ok((body, end, bel)) => {
            let body = &data[body];
            let body = body.strip_prefix(b";").unwrap_or(body);
            let body = String::from_utf8_lossy(body).into_owned();
            Parse::Done(end, Some(Found::Colour { code, body, bel }))
        }
        Err(stop) => stop,
    }
}

/// After `ESC ]`: `9;4;`, the state digit, optional `;<pct>`, then BEL or `ESC \`.
fn parse_osc_progress(data: &[u8], i: usize) -> Parse {
    match osc_string(data, i, b"9;4;", 16) {
        Ok((body, end, _)) => {
            let body = std::str::from_utf8(&data[body]).unwrap_or("");
            let state = body.split(';').next().and_then(|s| s.parse::<u8>().ok());
            Parse::Done(end, state.filter(|s| *s <= 4).map(Found::Progress))
        }
        Err(stop) => stop,
    }
}

fn payload(body: &[u8], bel: bool) -> Option<Found> {
    if body == b"?" {
        return Some(Found::StatusProbe { bel });
    }
    let text = std::str::from_utf8(body).ok()?;
    let mut status = ProgramStatus {
        state: String::new(),
        kind: None,
        message: None,
    };
    for field in text.split(':') {
        let (key, value) = field.split_once('=')?;
        match key {
            "state" => status.state = value.to_string(),
            "kind" => status.kind = Some(value.to_string()),
            "msg" => {
                status.message = base64::engine::general_purpose::STANDARD
                    .decode(value)
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            }
            _ => {} // Fields may be added.
        }
    }
    const STATES: &[&str] = &["idle", "working", "blocked", "done", "error"];
    STATES
        .contains(&status.state.as_str())
        .then_some(Found::Status(status))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&[u8]]) -> Vec<Found> {
        let mut s = Sniffer::default();
        chunks.iter().flat_map(|c| s.scan(c)).map(|f| f.1).collect()
    }

    #[test]
    fn finds_xtversion_but_not_its_neighbours() {
        assert_eq!(
            all(&[b"a\x1b[>q b \x1b[>0q"]),
            [Found::XtVersion, Found::XtVersion]
        );
        // DA2, modifyOtherKeys and the cursor-style sequence are not XTVERSION.
        assert!(all(&[b"\x1b[>c\x1b[>4;1m\x1b[2 q\x1b[>1q"]).is_empty());
    }

    #[test]
    fn reads_status_reports_and_probes_across_reads() {
        let msg = base64::engine::general_purpose::STANDARD.encode("Allow edit?");
        let report = format!("\x1b]7501;state=blocked:kind=permission:msg={msg}\x1b\\");
        let bytes = report.as_bytes();
        let (a, b) = bytes.split_at(9);
        assert_eq!(
            all(&[b"x\x1b]75", b"01;?\x07", a, b]),
            [
                Found::StatusProbe { bel: true },
                Found::Status(ProgramStatus {
                    state: "blocked".into(),
                    kind: Some("permission".into()),
                    message: Some("Allow edit?".into()),
                })
            ]
        );
        assert!(all(&[b"\x1b]7501;state=sleeping\x07\x1b]75010;x\x07\x1b]2;t\x07"]).is_empty());
    }

    #[test]
    fn reads_checksum_requests_with_their_defaults() {
        assert_eq!(
            all(&[b"\x1b[7;1;2;3;", b"4;5*y", b"\x1b[*y\x1b[3;*z"]),
            [
                Found::Checksum {
                    id: 7,
                    area: [2, 3, 4, 5]
                },
                Found::Checksum {
                    id: 0,
                    area: [0, 0, 0, 0]
                },
            ]
        );
    }

    #[test]
    fn reads_control_sequences_by_their_shape_and_keeps_only_ours() {
        let control = |prefix, params: &[u16], intermediate, final_byte| {
            Found::Control(Control {
                prefix,
                params: params.to_vec(),
                intermediate,
                final_byte,
            })
        };
        assert_eq!(
            all(&[
                b"\x1b[!p\x1b[?6",
                b"n\x1b[1m\x1b[3;7s\x1b[42;1:2;3$x\x1b[2J\x1b]1;ic\x07\x1b6"
            ]),
            [
                control(None, &[], Some(b'!'), b'p'),
                control(Some(b'?'), &[6], None, b'n'),
                control(None, &[3, 7], None, b's'),
                control(None, &[42, 1, 3], Some(b'$'), b'x'),
                Found::IconLabel("ic".into()),
                Found::BackIndex,
            ]
        );
    }

    #[test]
    fn reads_setting_requests() {
        assert_eq!(
            all(&[
                b"\x1bP$qm\x1b\\\x1bP$",
                b"q q\x1b",
                b"\\\x1bP$qtoolong\x1b\\"
            ]),
            [
                Found::Setting(b"m".to_vec()),
                Found::Setting(b" q".to_vec())
            ]
        );
    }

    #[test]
    fn finds_the_synchronized_output_query_across_reads() {
        assert_eq!(
            all(&[
                b"\x1b[?2026$p\x1b[?20",
                b"26$p\x1b[?2026h\x1b[?2027$p\x1b[?1$p"
            ]),
            [Found::SyncQuery, Found::SyncQuery]
        );
    }

    #[test]
    fn reads_progress_reports() {
        assert_eq!(
            all(&[
                b"\x1b]9;4;1;50\x07x\x1b]9;4;",
                b"0\x1b\\\x1b]9;hello\x07\x1b]9;4;7\x07"
            ]),
            [Found::Progress(1), Found::Progress(0)]
        );
    }

    #[test]
    fn reads_colour_controls_and_termcap_requests() {
        let colour = |code, body: &str, bel| Found::Colour {
            code,
            body: body.into(),
            bel,
        };
        assert_eq!(
            all(&[
                b"\x1b]4;1;?\x07\x1b]1",
                b"0;rgb:1/2/3;?\x1b\\\x1b]105\x07\x1b]112\x1b\\",
                b"\x1b]8;;x\x07\x1b]1000;x\x07\x1bP+q436F\x1b\\\x1bc"
            ]),
            [
                colour(4, "1;?", true),
                colour(10, "rgb:1/2/3;?", false),
                colour(105, "", true),
                colour(112, "", false),
                Found::Capability(b"436F".to_vec()),
                Found::FullReset,
            ]
        );
    }

    #[test]
    fn offsets_point_past_each_sequence() {
        let mut s = Sniffer::default();
        assert!(s.scan(b"ab\x1b]7501;state=wor").is_empty());
        let found = s.scan(b"king\x07cd\x1b[>q");
        assert_eq!(found[0].0, 0..5);
        assert_eq!(found[1].0, 7..11);
    }
}
