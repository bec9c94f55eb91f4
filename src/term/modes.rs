//! Modes, identification and conformance levels done in our layer: the modes alacritty_terminal
//! does not keep (reported by DECRQM, saved by XTSAVE), the alternate screen of modes 47 and
//! 1047, DECCOLM with xterm's mode 40, the device attributes (DA1, DA2) and the conformance
//! level DECSCL selects.
//!
//! The rules are xterm's (ctlseqs: "DECSET", "DECRQM", "XTSAVE", "DECSCL", "Send Device
//! Attributes") and DEC STD 070's where xterm follows it. Deliberate differences:
//!
//! - The modes that change how the keyboard or a printer works (KAM 2, SRM 12, DECPFF 18,
//!   DECPEX 19, DECNRCM 42, DECBKM 67, xterm's font-shift mode 35) and smooth scrolling
//!   (DECSCLM 4) are kept and reported as the program set them, but change nothing: a
//!   session's input comes from its owner (`session send`), there is no printer, only the
//!   ASCII and DEC Special Graphics sets exist, and a screen is read whole, not watched
//!   scrolling.
//! - DECCOLM (mode 3, with mode 40 allowing it) clears the screen (unless DECNCSM), resets the
//!   margins and homes the cursor, and is reported set or reset, but the width stays the
//!   session's: the size of a session's terminal is its owner's to set (`session resize`),
//!   as xterm does when its window operations are disallowed.
//! - Until a program selects a conformance level with DECSCL, every function is available and
//!   the device attributes are the VT220 answers the emulator always gave (`CSI ? 62 ; 22 c`);
//!   once it selects one, DA1 and DA2 answer as xterm does at that level (a VT525 at level 5
//!   lists xterm's extensions too) and the functions above the level are refused as xterm
//!   refuses them: DECRQM below 3, DECSLRM below 4, DECNCSM below 5.

use alacritty_terminal::event::EventListener;
use alacritty_terminal::grid::{Dimensions, Grid};
use alacritty_terminal::term::cell::Cell;
use alacritty_terminal::term::TermMode;
use alacritty_terminal::vte::ansi::{Handler, NamedPrivateMode, PrivateMode};

use super::guard::{set_alternate, Guarded};

/// ANSI mode 2, KAM (keyboard action: set locks the keyboard).
pub(super) const KAM: u16 = 2;
/// ANSI mode 12, SRM (send/receive: reset echoes the keyboard locally); set by default.
pub(super) const SRM: u16 = 12;

/// DEC private mode 3, DECCOLM (132 columns).
pub(super) const DECCOLM: u16 = 3;
/// DEC private mode 5, DECSCNM (reverse video: the screen's default colours swapped).
pub(super) const DECSCNM: u16 = 5;
/// xterm's private mode 40: DECCOLM is allowed (else ignored).
pub(super) const ALLOW_DECCOLM: u16 = 40;
/// xterm's private mode 41, the "more(1) fix": a tab right after a character written in the
/// last column wraps first.
pub(super) const MORE_FIX: u16 = 41;
/// xterm's private mode 47: the alternate screen, its contents kept between visits.
pub(super) const ALTBUF: u16 = 47;
/// DEC private mode 95, DECNCSM: DECCOLM does not clear the screen (VT510).
pub(super) const DECNCSM: u16 = 95;
/// xterm's private mode 1047: the alternate screen, cleared when left.
pub(super) const ALTBUF_CLEARED: u16 = 1047;

/// The DEC private modes kept here, each set or reset by the program and reported as it is:
/// DECCOLM 3, DECSCLM 4, DECSCNM 5, DECPFF 18, DECPEX 19, xterm's 35 (font shifting; DECHEBM
/// on a VT520), 40 (allow DECCOLM), 41 (the more(1) fix), DECNRCM 42, DECBKM 67, DECNCSM 95.
const KEPT_PRIVATE: &[u16] = &[
    DECCOLM,
    4,
    DECSCNM,
    18,
    19,
    35,
    ALLOW_DECCOLM,
    MORE_FIX,
    42,
    67,
    DECNCSM,
];

/// The DEC private modes xterm recognises but does not implement, answered "permanently
/// reset" (4) from the level named: VT320/VT330 modes from 3 (DECEDM 10, DECLTM 11, DECEKEM
/// 16, DEC131TM 53, DECKKDM 59, DECHCCM 60, DECVCCM 61, DECPCCM 64, DECKBUM 68, DECXRLM 73),
/// VT420's DECKPM 81 from 4, and the VT510/VT520 modes from 5 (DECRLM 34, DECHEM 36, DECNAKB
/// 57, DECIPEM 58, 96–104, 106, 108–117). DECARM 8 (auto-repeat) is always reset.
fn permanently_reset(mode: u16, level: u8) -> bool {
    match mode {
        8 => true,
        10 | 11 | 16 | 53 | 59 | 60 | 61 | 64 | 68 | 73 => level >= 3,
        81 => level >= 4,
        34 | 36 | 57 | 58 | 96..=104 | 106 | 108..=117 => level >= 5,
        _ => false,
    }
}

/// The alternate screen's grid kept between visits (mode 47), boxed: most programs never
/// leave one.
pub(super) type KeptGrid = Option<Box<Grid<Cell>>>;

/// The highest conformance level (VT525), the one the emulator works at.
pub(super) const MAX_LEVEL: u8 = 5;

/// The xterm patch level DA2 reports once a conformance level is selected (xterm's DA2 gives
/// its patch number as the firmware version; esctest2 wants 314 or later).
const DA2_VERSION: u16 = 380;

/// The modes kept in our layer (see [`KEPT_PRIVATE`]) and the ANSI modes KAM and SRM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct KeptModes {
    /// The ANSI modes set (KAM, SRM).
    ansi: Vec<u16>,
    /// The DEC private modes of [`KEPT_PRIVATE`] set.
    private: Vec<u16>,
}

impl Default for KeptModes {
    /// As at power-up: SRM set (no local echo), every other mode reset.
    fn default() -> KeptModes {
        KeptModes {
            ansi: vec![SRM],
            private: Vec::new(),
        }
    }
}

impl KeptModes {
    /// Whether DEC private mode `mode` is set.
    pub fn private(&self, mode: u16) -> bool {
        self.private.contains(&mode)
    }

    /// Whether ANSI mode `mode` is set.
    pub fn ansi(&self, mode: u16) -> bool {
        self.ansi.contains(&mode)
    }

    fn set_in(set: &mut Vec<u16>, mode: u16, on: bool) {
        set.retain(|&m| m != mode);
        if on {
            set.push(mode);
        }
    }

    /// Sets or resets ANSI mode `mode` (KAM or SRM).
    pub fn set_ansi(&mut self, mode: u16, on: bool) {
        Self::set_in(&mut self.ansi, mode, on);
    }

    /// Sets or resets DEC private mode `mode`.
    pub fn set_private(&mut self, mode: u16, on: bool) {
        Self::set_in(&mut self.private, mode, on);
    }
}

/// A mode's state as DECRQM reports it (DEC STD 070 `Ps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ModeState {
    /// 0: not recognised.
    Unknown = 0,
    /// 1: set.
    Set = 1,
    /// 2: reset.
    Reset = 2,
    /// 4: permanently reset.
    AlwaysReset = 4,
}

impl From<bool> for ModeState {
    fn from(set: bool) -> ModeState {
        if set {
            ModeState::Set
        } else {
            ModeState::Reset
        }
    }
}

/// The DEC private mode numbered `mode`, as alacritty's parser names it.
pub(super) fn private_mode(mode: u16) -> PrivateMode {
    use NamedPrivateMode as N;
    PrivateMode::Named(match mode {
        1 => N::CursorKeys,
        3 => N::ColumnMode,
        6 => N::Origin,
        7 => N::LineWrap,
        12 => N::BlinkingCursor,
        25 => N::ShowCursor,
        1000 => N::ReportMouseClicks,
        1002 => N::ReportCellMouseMotion,
        1003 => N::ReportAllMouseMotion,
        1004 => N::ReportFocusInOut,
        1005 => N::Utf8Mouse,
        1006 => N::SgrMouse,
        1007 => N::AlternateScroll,
        1042 => N::UrgencyHints,
        1049 => N::SwapScreenAndSetRestoreCursor,
        2004 => N::BracketedPaste,
        2026 => N::SyncUpdate,
        _ => return PrivateMode::Unknown(mode),
    })
}

impl<T: EventListener> Guarded<'_, T> {
    /// The conformance level in effect (the highest until a program selects one).
    pub(super) fn level(&self) -> u8 {
        self.dec.level.unwrap_or(MAX_LEVEL)
    }

    /// DECSCL (`CSI Pl ; Pc " p`): levels 61–65 select VT100 to VT525 conformance, after a
    /// soft reset (DEC STD 070 and the VT220 manual; xterm does the same); `Pc` (7- or 8-bit
    /// controls) is taken as 7-bit, the only kind sent here. Other levels are ignored.
    pub(super) fn select_level(&mut self, pl: u16) {
        if let 61..=65 = pl {
            self.soft_reset();
            self.dec.level = Some((pl - 60) as u8);
        }
    }

    /// DA1 (`CSI c`) and DA2 (`CSI > c`) once a level is selected (see the module
    /// documentation); `false` when alacritty's answers stand (no level selected).
    pub(super) fn identify(&mut self, intermediate: Option<char>) -> bool {
        let Some(level) = self.dec.level else {
            return false;
        };
        let reply = match intermediate {
            None => match level {
                1 => "\x1b[?1;2c".to_string(),
                2 | 3 => format!("\x1b[?6{level};1;2;6;9;15;22;29c"),
                _ => format!("\x1b[?6{level};1;2;6;9;15;16;17;18;21;22;28;29c"),
            },
            Some('>') => {
                let id = match level {
                    1 => 0,
                    2 => 1,
                    3 => 24,
                    4 => 41,
                    _ => 64,
                };
                format!("\x1b[>{id};{DA2_VERSION};0c")
            }
            Some(_) => return true,
        };
        self.reply(reply);
        true
    }

    /// The state of ANSI mode `mode` this layer answers for (KAM, SRM), `None` for the rest.
    pub(super) fn ansi_mode_state(&self, mode: u16) -> Option<ModeState> {
        matches!(mode, KAM | SRM).then(|| self.dec.kept.ansi(mode).into())
    }

    /// The state of DEC private mode `mode` as DECRQM reports it (xterm's answers): the modes
    /// kept here, the alternate screen's (47, 1047, 1049), the ones alacritty keeps, the
    /// permanently reset ones; 0 for any other. Mode 2026 is answered by the emulator where it
    /// stands in the stream.
    pub(super) fn private_mode_state(&self, mode: u16) -> ModeState {
        let level = self.level();
        let term = self.term.mode();
        let has = |flag: TermMode| ModeState::from(term.contains(flag));
        match mode {
            DECNCSM if level < 5 => ModeState::Unknown,
            super::dec::DECLRMM if level < 4 => ModeState::Unknown,
            m if KEPT_PRIVATE.contains(&m) => self.dec.kept.private(m).into(),
            m if permanently_reset(m, level) => ModeState::AlwaysReset,
            2 => ModeState::Set,
            ALTBUF | ALTBUF_CLEARED | 1049 => has(TermMode::ALT_SCREEN),
            1 => has(TermMode::APP_CURSOR),
            6 => has(TermMode::ORIGIN),
            7 => has(TermMode::LINE_WRAP),
            12 => self.term.cursor_style().blinking.into(),
            25 => has(TermMode::SHOW_CURSOR),
            1000 => has(TermMode::MOUSE_REPORT_CLICK),
            1002 => has(TermMode::MOUSE_DRAG),
            1003 => has(TermMode::MOUSE_MOTION),
            1004 => has(TermMode::FOCUS_IN_OUT),
            1005 => has(TermMode::UTF8_MOUSE),
            1006 => has(TermMode::SGR_MOUSE),
            1007 => has(TermMode::ALTERNATE_SCROLL),
            1042 => has(TermMode::URGENCY_HINTS),
            2004 => has(TermMode::BRACKETED_PASTE),
            super::dec::DECLRMM => self.dec.lrmm.into(),
            66 => has(TermMode::APP_KEYPAD),
            45 | 1045 => self.dec.reverse_wrap.into(),
            1048 => ModeState::Reset,
            super::cluster::MODE => self.width.graphemes.into(),
            _ => ModeState::Unknown,
        }
    }

    /// DECRQM for DEC private mode `mode`: `CSI ? mode ; Ps $ y`; nothing below level 3
    /// (xterm) and nothing for 2026 (answered in the stream).
    pub(super) fn report_private(&mut self, mode: u16) {
        if self.level() < 3 || mode == 2026 {
            return;
        }
        let state = self.private_mode_state(mode) as u8;
        self.reply(format!("\x1b[?{mode};{state}$y"));
    }

    /// Sets or resets a DEC private mode kept here (see [`KEPT_PRIVATE`]); `true` when
    /// `mode` is one of them (then nothing else acts on it). DECCOLM acts as
    /// [`Guarded::column_mode`] says; DECNCSM only from level 5.
    pub(super) fn keep_private(&mut self, mode: u16, on: bool) -> bool {
        if !KEPT_PRIVATE.contains(&mode) {
            return false;
        }
        match mode {
            DECCOLM => self.column_mode(on),
            DECNCSM if self.level() < 5 => {}
            _ => self.dec.kept.set_private(mode, on),
        }
        true
    }

    /// DECCOLM (`CSI ? 3 h/l`), as xterm does it with the width kept (see the module
    /// documentation): ignored unless mode 40 allows it; else the screen cleared (unless
    /// DECNCSM), the scroll region and the left and right margins reset, the cursor home, and
    /// the mode kept for DECRQM.
    fn column_mode(&mut self, on: bool) {
        if !self.dec.kept.private(ALLOW_DECCOLM) {
            return;
        }
        if self.dec.kept.private(DECNCSM) {
            Handler::set_scrolling_region(&mut *self.term, 1, None);
        } else {
            // alacritty's DECCOLM: the region reset and the screen cleared.
            Handler::set_private_mode(&mut *self.term, private_mode(DECCOLM));
        }
        *self.region = 0..self.term.screen_lines() as i32;
        self.dec.margins = None;
        Handler::goto(&mut *self.term, 0, 0);
        self.dec.kept.set_private(DECCOLM, on);
    }

    /// XTSAVE (`CSI ? Pm s`): the states of DEC private modes `modes` are saved, each
    /// replacing what was saved for it before.
    pub(super) fn save_modes(&mut self, modes: &[u16]) {
        for &mode in modes {
            let set = match self.private_mode_state(mode) {
                ModeState::Set => true,
                ModeState::Reset | ModeState::AlwaysReset => false,
                ModeState::Unknown => continue,
            };
            self.dec.saved_modes.retain(|&(m, _)| m != mode);
            self.dec.saved_modes.push((mode, set));
        }
    }

    /// XTRESTORE (`CSI ? Pm r`): DEC private modes `modes` set or reset as XTSAVE saved them
    /// (as `CSI ? Pm h/l` would); a mode never saved is left as it is.
    pub(super) fn restore_modes(&mut self, modes: &[u16]) {
        for &mode in modes {
            let Some(&(_, set)) = self.dec.saved_modes.iter().find(|&&(m, _)| m == mode) else {
                continue;
            };
            if set {
                Handler::set_private_mode(self, private_mode(mode));
            } else {
                Handler::unset_private_mode(self, private_mode(mode));
            }
        }
    }

    /// Modes 47 and 1047 set: the alternate screen shown, as it was left by mode 47 (xterm
    /// keeps its contents; blank the first time, after 1047 or 1049 left it, or after a
    /// resize), the cursor where it was.
    pub(super) fn enter_alternate(&mut self) {
        if !self.primary() {
            return;
        }
        let (cols, rows) = (self.term.columns(), self.term.screen_lines());
        let kept = self
            .dec
            .alt_kept
            .take()
            .filter(|g| g.columns() == cols && g.screen_lines() == rows);
        let cursor = self.term.grid().cursor.clone();
        let saved = self.term.grid().saved_cursor.clone();
        // alacritty's swap saves the cursor over the primary screen's saved one (as 1049
        // does): it is put back.
        set_alternate(self.term, 1, 1);
        self.term.grid_mut().cursor = saved.clone();
        self.term.swap_alt();
        let mut grid = match kept {
            Some(g) => *g,
            None => Grid::new(rows, cols, 0),
        };
        grid.cursor = cursor;
        *self.term.grid_mut() = grid;
    }

    /// Modes 47 and 1047 reset: the primary screen shown, the cursor where it is on the
    /// alternate one; mode 47 keeps the alternate screen's contents for the next visit, 1047
    /// clears them.
    pub(super) fn leave_alternate(&mut self, keep: bool) {
        if self.primary() {
            return;
        }
        let cursor = self.term.grid().cursor.clone();
        let alternate = std::mem::replace(self.term.grid_mut(), Grid::new(1, 1, 0));
        if keep {
            self.dec.alt_kept = Some(Box::new(alternate));
        }
        self.term.swap_alt();
        self.term.grid_mut().cursor = cursor;
    }
}
