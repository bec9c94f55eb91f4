//! Input for `session send`: key names, pasted text and raw bytes, validated up front and encoded
//! against the terminal modes current at write time.
//!
//! Sources of the rules:
//! - the contract table "Key names for `send --keys`" (shared/spec/console2svg-contract.md), which
//!   fixes every name and its bytes;
//! - xterm's PC-style function keys (ctlseqs, "PC-Style Function Keys") for the modified forms:
//!   the modifier parameter is `1 + (Shift 1 + Alt 2 + Ctrl 4)`, giving `CSI 1 ; m A..D/H/F`
//!   (modifyCursorKeys ≥ 1, so a modified cursor key ignores DECCKM), `CSI 1 ; m P..S` for F1–F4
//!   and `CSI n ; m ~` for the tilde keys;
//! - common terminal behaviour for the control characters outside letters (`Ctrl+@`,
//!   `Ctrl+Space`, `Ctrl+[`, `Ctrl+\`, `Ctrl+]`, `Ctrl+^`, `Ctrl+_`).
//!
//! - the kitty keyboard protocol (sw.kovidgoyal.net/kitty/keyboard-protocol, "Progressive
//!   enhancement"): once the program pushed flag 1 (disambiguate) or 8 (all keys as escape codes)
//!   with `CSI > flags u`, Escape, modified Enter/Tab/Backspace and Ctrl/Alt characters are sent
//!   as `CSI <code> ; <modifiers> u`; after the program pops its flags (`CSI < u`) keys are legacy
//!   again. The emulator tracks the flag stack and answers `CSI ? u`.
//!
//! Choices where the contract is silent (each documented at its rule):
//! - `Shift+<letter>` is the letter's uppercase form (`Shift+a` = `A`); Shift with any other
//!   character is layout-dependent and unsupported.
//! - `Alt`/`Meta` also prefix `Enter`, `Tab`, `Escape` and `Backspace` with ESC (xterm's
//!   metaSendsEscape).
//! - Keys only the kitty keyboard protocol can express are valid names: `Shift+Enter`,
//!   `Ctrl+Enter`, `Ctrl+Tab`, `Ctrl+Backspace`, `Shift+Escape`, `Ctrl+Shift+<letter>`,
//!   `Ctrl+<digit or other character>`… They have no legacy bytes (`Ctrl+Shift+a` would be
//!   `Ctrl+a`, `Shift+Enter` a plain CR), so while the program has not enabled the protocol,
//!   sending one is refused with `unsupported_key` and nothing of the request is sent
//!   ([`encode_key`]).
//! - Keypad keys take no modifiers.
//! - `Space` names the space character (so `Ctrl+Space` can be written).
//! - A key name is one Unicode scalar value or a name from the table; it is not trimmed (`" "` is
//!   the space character). A decomposed character (`e` + U+0301) is two scalars: send it with
//!   `--text`.
//! - A bracketed paste drops any `ESC[201~` inside the pasted text, so the paste cannot end early
//!   and turn its remainder into typed keys; otherwise pasted text is sent byte for byte.

use std::fmt;

use super::screen::Modes;

const ESC: u8 = 0x1b;
const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// One input step of a `send` request, in argv order (`--text`, `--keys`, `--paste`,
/// `--raw-hex`).
///
/// Serialised as a one-key map, `{text: …}`, `{keys: …}`, `{paste: …}` or `{raw-hex: …}`, as
/// in a scenario's `send` step (shared/spec/console2svg-contract.md, "Scenario documents").
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "InputRepr", into = "InputRepr")]
pub enum Input {
    /// `--text`: typed literally, no escape processing (`\r` is the two bytes `5c 72`).
    Text(String),
    /// `--keys`: one key name, e.g. `Enter`, `Ctrl+C`, `Shift+Up` (see [`parse_key`]).
    Keys(String),
    /// `--paste`: text wrapped in bracketed-paste markers when the application enabled mode 2004.
    Paste(String),
    /// `--raw-hex`: pairs of hexadecimal digits, e.g. `1B5B41` for `ESC [ A`.
    RawHex(String),
}

/// The one-key-map form of [`Input`].
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct InputRepr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    keys: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    paste: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    raw_hex: Option<String>,
}

impl TryFrom<InputRepr> for Input {
    type Error = String;

    fn try_from(r: InputRepr) -> Result<Input, String> {
        match (r.text, r.keys, r.paste, r.raw_hex) {
            (Some(t), None, None, None) => Ok(Input::Text(t)),
            (None, Some(k), None, None) => Ok(Input::Keys(k)),
            (None, None, Some(p), None) => Ok(Input::Paste(p)),
            (None, None, None, Some(h)) => Ok(Input::RawHex(h)),
            _ => Err("an input has exactly one of text, keys, paste, raw-hex".into()),
        }
    }
}

impl From<Input> for InputRepr {
    fn from(i: Input) -> InputRepr {
        match i {
            Input::Text(t) => InputRepr {
                text: Some(t),
                ..InputRepr::default()
            },
            Input::Keys(k) => InputRepr {
                keys: Some(k),
                ..InputRepr::default()
            },
            Input::Paste(p) => InputRepr {
                paste: Some(p),
                ..InputRepr::default()
            },
            Input::RawHex(h) => InputRepr {
                raw_hex: Some(h),
                ..InputRepr::default()
            },
        }
    }
}

/// A validated input step, ready to encode against the modes current at write time
/// ([`encode_step`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Literal text, sent as its UTF-8.
    Text(String),
    /// A key whose bytes depend on DECCKM/DECKPAM.
    Key(Key),
    /// Text wrapped in `ESC[200~ … ESC[201~` when bracketed paste is on.
    Paste(String),
    /// Bytes sent exactly as given.
    Raw(Vec<u8>),
}

/// A key without its modifiers. Names come from the contract table (plus `Space`, see the module
/// documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyBase {
    /// A printable character (never a control character); sent as its UTF-8.
    Char(char),
    /// `Enter`/`Return`: CR.
    Enter,
    /// `Tab`: HT (`Shift+Tab`: `ESC [ Z`).
    Tab,
    /// `Escape`/`Esc`: ESC.
    Escape,
    /// `Backspace`: DEL (0x7f).
    Backspace,
    /// `Insert`: `ESC[2~`.
    Insert,
    /// `Delete`: `ESC[3~`.
    Delete,
    /// `PageUp`: `ESC[5~`.
    PageUp,
    /// `PageDown`: `ESC[6~`.
    PageDown,
    /// `Up`: `ESC[A` / `ESC O A` (DECCKM).
    Up,
    /// `Down`: `ESC[B` / `ESC O B`.
    Down,
    /// `Right`: `ESC[C` / `ESC O C`.
    Right,
    /// `Left`: `ESC[D` / `ESC O D`.
    Left,
    /// `Home`: `ESC[H` / `ESC O H`.
    Home,
    /// `End`: `ESC[F` / `ESC O F`.
    End,
    /// `F1`..`F12` (the number, 1–12).
    F(u8),
    /// A keypad key (`KP0`…`KPSeparator`).
    Keypad(KeypadKey),
}

/// The keypad keys of the contract table; their bytes depend on DECKPAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeypadKey {
    /// `KP0`..`KP9` (the digit, 0–9): `ESC O p..y` / `"0".."9"`.
    Digit(u8),
    /// `KPDecimal`: `ESC O n` / `.`.
    Decimal,
    /// `KPEnter`: `ESC O M` / CR.
    Enter,
    /// `KPAdd`: `ESC O k` / `+`.
    Add,
    /// `KPSubtract`: `ESC O m` / `-`.
    Subtract,
    /// `KPMultiply`: `ESC O j` / `*`.
    Multiply,
    /// `KPDivide`: `ESC O o` / `/`.
    Divide,
    /// `KPSeparator`: `ESC O l` / `,`.
    Separator,
}

/// Modifiers held with a key. `Meta` is the same as `Alt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Modifiers {
    /// Shift (weight 1 in the xterm parameter).
    pub shift: bool,
    /// Alt or Meta (weight 2).
    pub alt: bool,
    /// Ctrl or Control (weight 4).
    pub ctrl: bool,
}

impl Modifiers {
    /// True when no modifier is held.
    pub fn is_empty(&self) -> bool {
        !(self.shift || self.alt || self.ctrl)
    }

    /// xterm's modifier parameter: `1 + (Shift 1 + Alt 2 + Ctrl 4)`, 1 when none is held.
    pub fn parameter(&self) -> u8 {
        1 + u8::from(self.shift) + 2 * u8::from(self.alt) + 4 * u8::from(self.ctrl)
    }
}

/// A validated key: a base key and its modifiers. Only [`parse_key`] makes one, so every `Key`
/// has an encoding. `Shift+<letter>` is stored as the uppercase letter without Shift, and
/// `Ctrl+<ASCII letter>` with the uppercase letter (`Ctrl+c` equals `Ctrl+C`).
///
/// `Display` gives the canonical name (`Ctrl+Alt+Shift+<key>`, table spelling), which
/// [`parse_key`] reads back to the same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    base: KeyBase,
    mods: Modifiers,
}

impl Key {
    /// The key without modifiers.
    pub fn base(&self) -> KeyBase {
        self.base
    }

    /// The modifiers held.
    pub fn modifiers(&self) -> Modifiers {
        self.mods
    }
}

/// Why an input step was refused. Nothing of the request is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// A `--keys` value the contract table does not define (unknown name, repeated or lone
    /// modifier, empty name, combination without an encoding). Code `unsupported_key`.
    #[error("unsupported key '{name}': {reason}")]
    Unsupported {
        /// The name as given.
        name: String,
        /// Why it is refused, one line.
        reason: String,
    },
    /// A `--raw-hex` value that is empty, of odd length or not hexadecimal. Code
    /// `invalid_request`.
    #[error("invalid --raw-hex value '{value}': {reason}")]
    InvalidHex {
        /// The value as given.
        value: String,
        /// Why it is refused, one line.
        reason: String,
    },
}

impl KeyError {
    /// The error-envelope code: `unsupported_key` for [`KeyError::Unsupported`],
    /// `invalid_request` for [`KeyError::InvalidHex`] (contract, "Key names for `send --keys`").
    pub fn code(&self) -> &'static str {
        match self {
            KeyError::Unsupported { .. } => "unsupported_key",
            KeyError::InvalidHex { .. } => "invalid_request",
        }
    }
}

/// The named keys, matched case-insensitively. `Space` is an addition (see module docs).
const NAMES: &[(&str, KeyBase)] = &[
    ("Enter", KeyBase::Enter),
    ("Return", KeyBase::Enter),
    ("Tab", KeyBase::Tab),
    ("Escape", KeyBase::Escape),
    ("Esc", KeyBase::Escape),
    ("Backspace", KeyBase::Backspace),
    ("Insert", KeyBase::Insert),
    ("Delete", KeyBase::Delete),
    ("PageUp", KeyBase::PageUp),
    ("PageDown", KeyBase::PageDown),
    ("Up", KeyBase::Up),
    ("Down", KeyBase::Down),
    ("Right", KeyBase::Right),
    ("Left", KeyBase::Left),
    ("Home", KeyBase::Home),
    ("End", KeyBase::End),
    ("Space", KeyBase::Char(' ')),
    ("F1", KeyBase::F(1)),
    ("F2", KeyBase::F(2)),
    ("F3", KeyBase::F(3)),
    ("F4", KeyBase::F(4)),
    ("F5", KeyBase::F(5)),
    ("F6", KeyBase::F(6)),
    ("F7", KeyBase::F(7)),
    ("F8", KeyBase::F(8)),
    ("F9", KeyBase::F(9)),
    ("F10", KeyBase::F(10)),
    ("F11", KeyBase::F(11)),
    ("F12", KeyBase::F(12)),
    ("KP0", KeyBase::Keypad(KeypadKey::Digit(0))),
    ("KP1", KeyBase::Keypad(KeypadKey::Digit(1))),
    ("KP2", KeyBase::Keypad(KeypadKey::Digit(2))),
    ("KP3", KeyBase::Keypad(KeypadKey::Digit(3))),
    ("KP4", KeyBase::Keypad(KeypadKey::Digit(4))),
    ("KP5", KeyBase::Keypad(KeypadKey::Digit(5))),
    ("KP6", KeyBase::Keypad(KeypadKey::Digit(6))),
    ("KP7", KeyBase::Keypad(KeypadKey::Digit(7))),
    ("KP8", KeyBase::Keypad(KeypadKey::Digit(8))),
    ("KP9", KeyBase::Keypad(KeypadKey::Digit(9))),
    ("KPDecimal", KeyBase::Keypad(KeypadKey::Decimal)),
    ("KPEnter", KeyBase::Keypad(KeypadKey::Enter)),
    ("KPAdd", KeyBase::Keypad(KeypadKey::Add)),
    ("KPSubtract", KeyBase::Keypad(KeypadKey::Subtract)),
    ("KPMultiply", KeyBase::Keypad(KeypadKey::Multiply)),
    ("KPDivide", KeyBase::Keypad(KeypadKey::Divide)),
    ("KPSeparator", KeyBase::Keypad(KeypadKey::Separator)),
];

/// Modifier names, matched case-insensitively: which flag each sets.
enum ModName {
    Shift,
    Alt,
    Ctrl,
}

fn modifier_name(s: &str) -> Option<ModName> {
    [
        ("Shift", ModName::Shift),
        ("Alt", ModName::Alt),
        ("Meta", ModName::Alt),
        ("Ctrl", ModName::Ctrl),
        ("Control", ModName::Ctrl),
    ]
    .into_iter()
    .find(|(n, _)| n.eq_ignore_ascii_case(s))
    .map(|(_, m)| m)
}

/// Parses a key name, case-insensitively for names and modifiers: `Enter`, `Shift+Tab`,
/// `Ctrl+C`, `Ctrl+Alt+Left`, `Meta+Home`, `F5`, `KP7`, `a`, `é`, `+`, `Alt++`…
///
/// Shape: zero or more modifiers (`Shift`, `Alt`, `Meta` = Alt, `Ctrl`, `Control`) each followed
/// by `+`, then a base key: a name from the contract table (or `Space`), or exactly one printable
/// character, taken as written (`A` and `a` differ; `Ctrl+C` and `Ctrl+c` do not).
///
/// A combination that only the kitty keyboard protocol can encode (`Shift+Enter`,
/// `Ctrl+Shift+a`, `Ctrl+1`…) parses; whether it can be sent depends on the program's modes at
/// write time ([`encode_key`]).
///
/// Errors ([`KeyError::Unsupported`], code `unsupported_key`): an empty name, a modifier alone or
/// with no key after it, an unknown modifier or key name, a repeated modifier (`Meta` repeats
/// `Alt`), a control character, or a combination no encoding defines, e.g. `Shift+1`,
/// `Shift+Space`, `Shift+KP5`.
pub fn parse_key(name: &str) -> Result<Key, KeyError> {
    let fail = |reason: String| KeyError::Unsupported {
        name: name.to_string(),
        reason,
    };
    if name.is_empty() {
        return Err(fail("empty key name".into()));
    }
    let mut mods = Modifiers::default();
    let mut rest = name;
    // A '+' at position 0 is the key itself ("+" or the "+" of "Alt++").
    while let Some(i) = rest.find('+').filter(|&i| i > 0) {
        let word = &rest[..i];
        let flag = match modifier_name(word) {
            Some(ModName::Shift) => &mut mods.shift,
            Some(ModName::Alt) => &mut mods.alt,
            Some(ModName::Ctrl) => &mut mods.ctrl,
            None => {
                return Err(fail(format!(
                    "unknown modifier '{word}' (modifiers: Shift, Alt, Meta, Ctrl, Control)"
                )))
            }
        };
        if *flag {
            return Err(fail(format!("modifier '{word}' is repeated")));
        }
        *flag = true;
        rest = &rest[i + 1..];
    }
    if rest.is_empty() {
        return Err(fail("a modifier needs a key after its '+'".into()));
    }
    let mut chars = rest.chars();
    let base = match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_control() => {
            return Err(fail(format!(
                "control character U+{:04X} is not a key name; use a name such as Enter or Ctrl+<letter>, or --raw-hex",
                u32::from(c)
            )))
        }
        (Some(c), None) => KeyBase::Char(c),
        _ => match NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(rest)) {
            Some(&(_, base)) => base,
            None if modifier_name(rest).is_some() => {
                return Err(fail("a modifier alone is not a key".into()))
            }
            None => {
                return Err(fail(format!(
                    "unknown key name '{rest}' (a single printable character, Enter, Tab, Escape, Backspace, Insert, Delete, PageUp, PageDown, Up, Down, Left, Right, Home, End, F1–F12, KP0–KP9, KPDecimal, KPEnter, KPAdd, KPSubtract, KPMultiply, KPDivide, KPSeparator, Space, each with Ctrl+, Alt+ or Shift+); type text as text, not as a key"
                )))
            }
        },
    };
    let key = normalize_shift(base, mods).map_err(fail)?;
    // The same function encodes, so a parsed key has bytes in the legacy encoding or under the
    // kitty keyboard protocol; the modes only choose between the forms.
    if let Err(legacy) = encode(key.base, key.mods, &Modes::default()) {
        let kitty = Modes {
            kitty_keyboard_flags: KITTY_DISAMBIGUATE,
            ..Modes::default()
        };
        encode(key.base, key.mods, &kitty).map_err(|_| fail(legacy))?;
    }
    Ok(key)
}

/// `Shift+<letter>` becomes the uppercase letter without Shift; Shift with any other character
/// is refused (layout-dependent). `Ctrl+<ASCII letter>` is stored with the uppercase letter, so
/// `Ctrl+c` and `Ctrl+C` are equal keys; `Ctrl+Shift+<letter>` keeps its Shift (with the
/// uppercase letter), as only the kitty keyboard protocol tells it from `Ctrl+<letter>`.
fn normalize_shift(base: KeyBase, mods: Modifiers) -> Result<Key, String> {
    let KeyBase::Char(c) = base else {
        return Ok(Key { base, mods });
    };
    if !mods.shift {
        // Ctrl+c and Ctrl+C are one key (same byte): keep the uppercase form.
        let c = if mods.ctrl { c.to_ascii_uppercase() } else { c };
        return Ok(Key {
            base: KeyBase::Char(c),
            mods,
        });
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if c.is_alphabetic() => Ok(Key {
            base: KeyBase::Char(u),
            mods: Modifiers {
                shift: mods.ctrl,
                ..mods
            },
        }),
        _ => Err(format!(
            "Shift is only defined with a letter; send the shifted character itself instead of Shift+{c}"
        )),
    }
}

/// Validates every input first; one bad key name or bad hex value fails the whole list and
/// nothing is produced (contract: "error `unsupported_key`, nothing sent").
///
/// `Text` and `Paste` are taken as they are (no escape processing, empty allowed); `Keys` goes
/// through [`parse_key`]; `RawHex` must be non-empty, of even length and only hexadecimal digits
/// (either case, no `0x`, no spaces), else [`KeyError::InvalidHex`] (code `invalid_request`).
pub fn validate(inputs: &[Input]) -> Result<Vec<Step>, KeyError> {
    inputs
        .iter()
        .map(|input| match input {
            Input::Text(t) => Ok(Step::Text(t.clone())),
            Input::Keys(k) => parse_key(k).map(Step::Key),
            Input::Paste(t) => Ok(Step::Paste(t.clone())),
            Input::RawHex(h) => parse_hex(h).map(Step::Raw),
        })
        .collect()
}

fn parse_hex(value: &str) -> Result<Vec<u8>, KeyError> {
    let fail = |reason: &str| KeyError::InvalidHex {
        value: value.to_string(),
        reason: reason.to_string(),
    };
    if value.is_empty() {
        return Err(fail(
            "it is empty; give at least one byte as two hex digits",
        ));
    }
    if !value.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(fail("only hexadecimal digits 0-9, a-f, A-F are allowed"));
    }
    if value.len() % 2 != 0 {
        return Err(fail("odd number of digits; each byte is two hex digits"));
    }
    value
        .as_bytes()
        .chunks(2)
        .map(|pair| {
            // Both bytes are ASCII hex digits, checked above.
            let s = std::str::from_utf8(pair).map_err(|_| fail("not ASCII"))?;
            u8::from_str_radix(s, 16).map_err(|_| fail("not hexadecimal"))
        })
        .collect()
}

/// The bytes of a key given the application's current modes: unmodified cursor keys follow
/// DECCKM (`modes.application_cursor`), keypad keys follow DECKPAM (`modes.application_keypad`),
/// and the kitty keyboard flags (`modes.kitty_keyboard_flags`, bits 1 and 8) choose the
/// `CSI … u` forms; everything else is mode-independent. See the contract table and the module
/// docs.
///
/// Errors ([`KeyError::Unsupported`], code `unsupported_key`): a key only the kitty keyboard
/// protocol can express (`Shift+Enter`, `Ctrl+Shift+a`, …) while the program has not enabled it.
pub fn encode_key(key: &Key, modes: &Modes) -> Result<Vec<u8>, KeyError> {
    encode(key.base, key.mods, modes).map_err(|reason| KeyError::Unsupported {
        name: key.to_string(),
        reason: format!(
            "{reason}; the program has not enabled the kitty keyboard protocol (CSI > 1 u), \
             which would encode it"
        ),
    })
}

/// The bytes of a step: `Text` as its UTF-8, `Key` per [`encode_key`], `Raw` as given, and
/// `Paste` wrapped in `ESC[200~ … ESC[201~` only when `modes.bracketed_paste` (any `ESC[201~`
/// inside is dropped then), otherwise its UTF-8 as-is.
///
/// Errors: [`encode_key`]'s, for a key step.
pub fn encode_step(step: &Step, modes: &Modes) -> Result<Vec<u8>, KeyError> {
    Ok(match step {
        Step::Text(t) => t.as_bytes().to_vec(),
        Step::Key(k) => encode_key(k, modes)?,
        Step::Raw(b) => b.clone(),
        Step::Paste(t) if modes.bracketed_paste => {
            // Until none is left: removing one can join the pieces of another
            // (`ESC[20` `ESC[201~` `1~`).
            let mut body = t.replace("\x1b[201~", "");
            while body.contains("\x1b[201~") {
                body = body.replace("\x1b[201~", "");
            }
            let mut out = Vec::with_capacity(PASTE_START.len() + body.len() + PASTE_END.len());
            out.extend_from_slice(PASTE_START);
            out.extend_from_slice(body.as_bytes());
            out.extend_from_slice(PASTE_END);
            out
        }
        Step::Paste(t) => t.as_bytes().to_vec(),
    })
}

/// Encodes every step against `modes`, all or nothing: the writes of one `send` request.
///
/// Errors: the first step's [`encode_step`] error; then nothing may be sent.
pub fn encode_steps(steps: &[Step], modes: &Modes) -> Result<Vec<Vec<u8>>, KeyError> {
    steps.iter().map(|s| encode_step(s, modes)).collect()
}

/// Whether a quiet gap must follow `step` (encoded as `bytes`) before more input of the same
/// request: after a paste, since composers that debounce pasted input (Codex, Claude Code)
/// drop a Return that arrives with its end; and after a key that is a lone ESC (a bare
/// `Escape` in the legacy encoding), since a program that reads ESC and more input within its
/// escape timeout takes them for Alt+<input>. Raw bytes are sent as given, without gaps.
pub fn wants_quiet_gap(step: &Step, bytes: &[u8]) -> bool {
    match step {
        Step::Paste(_) => true,
        Step::Key(_) => bytes == [ESC],
        Step::Text(_) | Step::Raw(_) => false,
    }
}

/// The single source of every key's bytes; `Err` is the reason a combination is unsupported.
fn encode(base: KeyBase, mods: Modifiers, modes: &Modes) -> Result<Vec<u8>, String> {
    let m = mods.parameter();
    if let Some(bytes) = encode_kitty(base, mods, modes.kitty_keyboard_flags) {
        return Ok(bytes);
    }
    match base {
        KeyBase::Char(c) => encode_char(c, mods),
        KeyBase::Enter | KeyBase::Tab | KeyBase::Escape | KeyBase::Backspace => {
            let byte = match base {
                KeyBase::Enter => b'\r',
                KeyBase::Tab => b'\t',
                KeyBase::Escape => ESC,
                _ => 0x7f,
            };
            match (mods.shift, mods.alt, mods.ctrl) {
                (false, false, false) => Ok(vec![byte]),
                (true, false, false) if base == KeyBase::Tab => Ok(b"\x1b[Z".to_vec()),
                (false, true, false) => Ok(vec![ESC, byte]),
                _ => Err(format!(
                    "in the legacy encoding {} takes no modifier but Alt/Meta (and Shift for Tab)",
                    base_name(base)
                )),
            }
        }
        KeyBase::Up
        | KeyBase::Down
        | KeyBase::Right
        | KeyBase::Left
        | KeyBase::Home
        | KeyBase::End => {
            let letter = match base {
                KeyBase::Up => 'A',
                KeyBase::Down => 'B',
                KeyBase::Right => 'C',
                KeyBase::Left => 'D',
                KeyBase::Home => 'H',
                _ => 'F',
            };
            Ok(if m > 1 {
                format!("\x1b[1;{m}{letter}")
            } else if modes.application_cursor {
                format!("\x1bO{letter}")
            } else {
                format!("\x1b[{letter}")
            }
            .into_bytes())
        }
        KeyBase::F(n @ 1..=4) => {
            let letter = char::from(b'P' + (n - 1));
            Ok(if m > 1 {
                format!("\x1b[1;{m}{letter}")
            } else {
                format!("\x1bO{letter}")
            }
            .into_bytes())
        }
        KeyBase::Insert | KeyBase::Delete | KeyBase::PageUp | KeyBase::PageDown | KeyBase::F(_) => {
            let code = match base {
                KeyBase::Insert => 2,
                KeyBase::Delete => 3,
                KeyBase::PageUp => 5,
                KeyBase::PageDown => 6,
                KeyBase::F(5) => 15,
                KeyBase::F(6) => 17,
                KeyBase::F(7) => 18,
                KeyBase::F(8) => 19,
                KeyBase::F(9) => 20,
                KeyBase::F(10) => 21,
                KeyBase::F(11) => 23,
                KeyBase::F(12) => 24,
                _ => return Err("only F1–F12 are defined".into()),
            };
            Ok(if m > 1 {
                format!("\x1b[{code};{m}~")
            } else {
                format!("\x1b[{code}~")
            }
            .into_bytes())
        }
        KeyBase::Keypad(k) => {
            if !mods.is_empty() {
                return Err("keypad keys take no modifiers".into());
            }
            let (app, plain) = match k {
                KeypadKey::Digit(d) if d <= 9 => (b'p' + d, b'0' + d),
                KeypadKey::Digit(_) => return Err("keypad digits are 0–9".into()),
                KeypadKey::Decimal => (b'n', b'.'),
                KeypadKey::Enter => (b'M', b'\r'),
                KeypadKey::Add => (b'k', b'+'),
                KeypadKey::Subtract => (b'm', b'-'),
                KeypadKey::Multiply => (b'j', b'*'),
                KeypadKey::Divide => (b'o', b'/'),
                KeypadKey::Separator => (b'l', b','),
            };
            Ok(if modes.application_keypad {
                vec![ESC, b'O', app]
            } else {
                vec![plain]
            })
        }
    }
}

/// A printable character with Ctrl and/or Alt (Shift was resolved by [`normalize_shift`]).
fn encode_char(c: char, mods: Modifiers) -> Result<Vec<u8>, String> {
    if c.is_control() {
        return Err("control characters are not key names".into());
    }
    if mods.shift {
        return Err(
            "in the legacy encoding Ctrl+Shift+<letter> is the same as Ctrl+<letter>".into(),
        );
    }
    let mut out = Vec::with_capacity(5);
    if mods.alt {
        out.push(ESC);
    }
    if mods.ctrl {
        out.push(ctrl_byte(c).ok_or_else(|| {
            format!(
                "in the legacy encoding Ctrl is defined with a letter, @, Space, [, \\, ], ^ or _, not '{c}'"
            )
        })?);
    } else {
        let mut buf = [0; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    Ok(out)
}

/// Kitty keyboard protocol flag 1: disambiguate escape codes.
const KITTY_DISAMBIGUATE: u8 = 1;
/// Kitty keyboard protocol flag 8: report all keys as escape codes.
const KITTY_ALL_KEYS: u8 = 8;

/// The kitty keyboard protocol form of a key (`CSI <code> [; <modifiers>] u`, per the
/// protocol's "progressive enhancement" section), when the program's flags call for one;
/// `None` means the legacy encoding applies.
///
/// With flag 1 (disambiguate): Escape, and Ctrl/Alt with a character key, become `CSI u`;
/// unmodified Enter, Tab and Backspace keep their legacy bytes, modified ones (`Shift+Enter`,
/// `Ctrl+Tab`…) become `CSI u`. With flag 8 (all keys): Enter, Tab and Backspace become
/// `CSI u` too. Typed text (`--text`) and plain character keys are sent as text. Functional
/// keys (arrows, Home, F1…) keep their `CSI … ~`/`SS3` forms, which the protocol leaves
/// unchanged, except modified F3: `CSI 13;m ~`. A character key is reported by its unshifted
/// code point with Shift in the modifiers (`Alt+A` = `Alt+Shift+a` = `CSI 97;4u`,
/// `Ctrl+Shift+a` = `CSI 97;6u`).
fn encode_kitty(base: KeyBase, mods: Modifiers, flags: u8) -> Option<Vec<u8>> {
    if flags & (KITTY_DISAMBIGUATE | KITTY_ALL_KEYS) == 0 {
        return None;
    }
    let all = flags & KITTY_ALL_KEYS != 0;
    if base == KeyBase::F(3) && !mods.is_empty() {
        // The protocol moved modified F3 from `CSI 1;m R`, which reads as a cursor position
        // report, to `CSI 13;m ~`.
        return Some(format!("\x1b[13;{}~", mods.parameter()).into_bytes());
    }
    let mut mods = mods;
    let code = match base {
        KeyBase::Escape => 27,
        KeyBase::Enter | KeyBase::Tab | KeyBase::Backspace if all || !mods.is_empty() => match base
        {
            KeyBase::Enter => 13,
            KeyBase::Tab => 9,
            _ => 127,
        },
        KeyBase::Char(c) if mods.ctrl || mods.alt => {
            // Ctrl+<letter> is stored uppercase whatever was written (Shift is explicit then);
            // without Ctrl an uppercase letter is Shift+<letter>.
            let mut lower = c.to_lowercase();
            let unshifted = match (lower.next(), lower.next()) {
                (Some(l), None) => l,
                _ => c,
            };
            if !mods.ctrl && unshifted != c {
                mods.shift = true;
            }
            u32::from(unshifted)
        }
        _ => return None,
    };
    let m = mods.parameter();
    Some(if m > 1 {
        format!("\x1b[{code};{m}u").into_bytes()
    } else {
        format!("\x1b[{code}u").into_bytes()
    })
}

/// `Ctrl+<c>`: a letter (either case) & 0x1f; `@` and Space → NUL; `[ \ ] ^ _` → 0x1b..0x1f.
fn ctrl_byte(c: char) -> Option<u8> {
    match c {
        'a'..='z' | 'A'..='Z' => Some(c as u8 & 0x1f),
        '@' | ' ' => Some(0),
        '[' | '\\' | ']' | '^' | '_' => Some(c as u8 & 0x1f),
        _ => None,
    }
}

/// The table spelling of a base key (`Space` for the space character).
fn base_name(base: KeyBase) -> String {
    match base {
        KeyBase::Char(' ') => "Space".into(),
        KeyBase::Char(c) => c.to_string(),
        _ => NAMES
            .iter()
            .find(|(_, b)| *b == base)
            .map_or_else(|| format!("{base:?}"), |(n, _)| (*n).to_string()),
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.ctrl {
            f.write_str("Ctrl+")?;
        }
        if self.mods.alt {
            f.write_str("Alt+")?;
        }
        if self.mods.shift {
            f.write_str("Shift+")?;
        }
        f.write_str(&base_name(self.base))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes(cursor: bool, keypad: bool, paste: bool) -> Modes {
        Modes {
            application_cursor: cursor,
            application_keypad: keypad,
            bracketed_paste: paste,
            ..Modes::default()
        }
    }

    /// No mode set: normal cursor keys, numeric keypad, no bracketed paste.
    fn normal() -> Modes {
        modes(false, false, false)
    }

    /// Application cursor keys and application keypad (no bracketed paste).
    fn app() -> Modes {
        modes(true, true, false)
    }

    fn bytes(name: &str, modes: &Modes) -> Vec<u8> {
        let key = parse_key(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        encode_key(&key, modes).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn kitty(flags: u8) -> Modes {
        Modes {
            kitty_keyboard_flags: flags,
            ..Modes::default()
        }
    }

    /// Every name of the contract table: (name, normal-mode bytes, application-mode bytes).
    const TABLE: &[(&str, &[u8], &[u8])] = &[
        ("Enter", b"\r", b"\r"),
        ("Return", b"\r", b"\r"),
        ("Tab", b"\t", b"\t"),
        ("Shift+Tab", b"\x1b[Z", b"\x1b[Z"),
        ("Escape", b"\x1b", b"\x1b"),
        ("Esc", b"\x1b", b"\x1b"),
        ("Backspace", b"\x7f", b"\x7f"),
        ("Insert", b"\x1b[2~", b"\x1b[2~"),
        ("Delete", b"\x1b[3~", b"\x1b[3~"),
        ("PageUp", b"\x1b[5~", b"\x1b[5~"),
        ("PageDown", b"\x1b[6~", b"\x1b[6~"),
        ("Up", b"\x1b[A", b"\x1bOA"),
        ("Down", b"\x1b[B", b"\x1bOB"),
        ("Right", b"\x1b[C", b"\x1bOC"),
        ("Left", b"\x1b[D", b"\x1bOD"),
        ("Home", b"\x1b[H", b"\x1bOH"),
        ("End", b"\x1b[F", b"\x1bOF"),
        ("F1", b"\x1bOP", b"\x1bOP"),
        ("F2", b"\x1bOQ", b"\x1bOQ"),
        ("F3", b"\x1bOR", b"\x1bOR"),
        ("F4", b"\x1bOS", b"\x1bOS"),
        ("F5", b"\x1b[15~", b"\x1b[15~"),
        ("F6", b"\x1b[17~", b"\x1b[17~"),
        ("F7", b"\x1b[18~", b"\x1b[18~"),
        ("F8", b"\x1b[19~", b"\x1b[19~"),
        ("F9", b"\x1b[20~", b"\x1b[20~"),
        ("F10", b"\x1b[21~", b"\x1b[21~"),
        ("F11", b"\x1b[23~", b"\x1b[23~"),
        ("F12", b"\x1b[24~", b"\x1b[24~"),
        ("KP0", b"0", b"\x1bOp"),
        ("KP1", b"1", b"\x1bOq"),
        ("KP2", b"2", b"\x1bOr"),
        ("KP3", b"3", b"\x1bOs"),
        ("KP4", b"4", b"\x1bOt"),
        ("KP5", b"5", b"\x1bOu"),
        ("KP6", b"6", b"\x1bOv"),
        ("KP7", b"7", b"\x1bOw"),
        ("KP8", b"8", b"\x1bOx"),
        ("KP9", b"9", b"\x1bOy"),
        ("KPDecimal", b".", b"\x1bOn"),
        ("KPEnter", b"\r", b"\x1bOM"),
        ("KPAdd", b"+", b"\x1bOk"),
        ("KPSubtract", b"-", b"\x1bOm"),
        ("KPMultiply", b"*", b"\x1bOj"),
        ("KPDivide", b"/", b"\x1bOo"),
        ("KPSeparator", b",", b"\x1bOl"),
        // Printable characters: their UTF-8, whatever the modes.
        ("a", b"a", b"a"),
        ("A", b"A", b"A"),
        ("~", b"~", b"~"),
        ("+", b"+", b"+"),
        (" ", b" ", b" "),
        ("Space", b" ", b" "),
        ("é", "é".as_bytes(), "é".as_bytes()),
        ("字", "字".as_bytes(), "字".as_bytes()),
        ("😀", "😀".as_bytes(), "😀".as_bytes()),
    ];

    #[test]
    fn every_table_name_in_normal_and_application_modes() {
        for &(name, want_normal, want_app) in TABLE {
            assert_eq!(bytes(name, &normal()), want_normal, "{name} normal");
            assert_eq!(bytes(name, &app()), want_app, "{name} application");
        }
    }

    #[test]
    fn cursor_keys_follow_only_decckm_and_keypad_only_deckpam() {
        for &(name, normal, app) in TABLE {
            let key = parse_key(name).unwrap();
            let cursor_key = matches!(
                key.base(),
                KeyBase::Up
                    | KeyBase::Down
                    | KeyBase::Right
                    | KeyBase::Left
                    | KeyBase::Home
                    | KeyBase::End
            );
            let keypad_key = matches!(key.base(), KeyBase::Keypad(_));
            let only_cursor = encode_key(&key, &modes(true, false, true)).unwrap();
            let only_keypad = encode_key(&key, &modes(false, true, true)).unwrap();
            assert_eq!(only_cursor, if cursor_key { app } else { normal }, "{name}");
            assert_eq!(only_keypad, if keypad_key { app } else { normal }, "{name}");
        }
    }

    /// Kitty keyboard protocol: flag 1 changes Escape and Ctrl/Alt characters, flag 8 also
    /// Enter, Tab and Backspace; functional keys and plain characters stay as they were.
    #[test]
    fn kitty_flags_change_only_the_keys_the_protocol_names() {
        let flags = kitty;
        let cases: &[(&str, &[u8], &[u8])] = &[
            ("Escape", b"\x1b[27u", b"\x1b[27u"),
            ("Alt+Escape", b"\x1b[27;3u", b"\x1b[27;3u"),
            ("Ctrl+C", b"\x1b[99;5u", b"\x1b[99;5u"),
            ("Alt+x", b"\x1b[120;3u", b"\x1b[120;3u"),
            ("Ctrl+Alt+a", b"\x1b[97;7u", b"\x1b[97;7u"),
            ("Enter", b"\r", b"\x1b[13u"),
            ("Tab", b"\t", b"\x1b[9u"),
            ("Backspace", b"\x7f", b"\x1b[127u"),
            ("Shift+Tab", b"\x1b[9;2u", b"\x1b[9;2u"),
            ("Alt+Enter", b"\x1b[13;3u", b"\x1b[13;3u"),
            ("a", b"a", b"a"),
            ("A", b"A", b"A"),
            ("Up", b"\x1b[A", b"\x1b[A"),
            ("F5", b"\x1b[15~", b"\x1b[15~"),
            ("F3", b"\x1bOR", b"\x1bOR"),
            ("Ctrl+F3", b"\x1b[13;5~", b"\x1b[13;5~"),
            ("Shift+F4", b"\x1b[1;2S", b"\x1b[1;2S"),
        ];
        for &(name, disambiguate, all_keys) in cases {
            assert_eq!(bytes(name, &flags(1)), disambiguate, "{name} with flag 1");
            assert_eq!(bytes(name, &flags(9)), all_keys, "{name} with flags 1+8");
            assert_eq!(
                bytes(name, &flags(2)),
                bytes(name, &normal()),
                "{name} flag 2"
            );
        }
    }

    /// Keys only the kitty keyboard protocol can express: valid names, sent as `CSI u` once the
    /// program pushed flag 1 (or 8), refused with `unsupported_key` in the legacy encoding.
    #[test]
    fn kitty_only_keys_parse_and_need_the_protocol() {
        let cases: &[(&str, &[u8])] = &[
            ("Shift+Enter", b"\x1b[13;2u"),
            ("Ctrl+Enter", b"\x1b[13;5u"),
            ("Ctrl+Shift+Enter", b"\x1b[13;6u"),
            ("Ctrl+Tab", b"\x1b[9;5u"),
            ("Alt+Shift+Tab", b"\x1b[9;4u"),
            ("Ctrl+Backspace", b"\x1b[127;5u"),
            ("Shift+Backspace", b"\x1b[127;2u"),
            ("Shift+Escape", b"\x1b[27;2u"),
            ("Ctrl+Escape", b"\x1b[27;5u"),
            ("Ctrl+Shift+a", b"\x1b[97;6u"),
            ("ctrl+shift+Z", b"\x1b[122;6u"),
            ("Ctrl+Alt+Shift+k", b"\x1b[107;8u"),
            ("Ctrl+1", b"\x1b[49;5u"),
            ("Ctrl+é", b"\x1b[233;5u"),
            ("Ctrl+.", b"\x1b[46;5u"),
        ];
        for &(name, want) in cases {
            let key = parse_key(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(bytes(name, &kitty(1)), want, "{name} with flag 1");
            assert_eq!(bytes(name, &kitty(1 | 2 | 4 | 8)), want, "{name} with 15");
            for legacy in [normal(), app(), kitty(2), kitty(4 | 16)] {
                let err = encode_key(&key, &legacy).expect_err(name);
                assert_eq!(err.code(), "unsupported_key", "{name}");
                assert!(err.to_string().contains("kitty keyboard protocol"), "{err}");
            }
            let again = parse_key(&key.to_string()).unwrap();
            assert_eq!(again, key, "{name} prints as {key}");
        }
        // Shift is reported with the unshifted key, however the key was written.
        assert_eq!(bytes("Alt+A", &kitty(1)), b"\x1b[97;4u");
        assert_eq!(bytes("Alt+Shift+a", &kitty(1)), b"\x1b[97;4u");
        assert_eq!(bytes("Ctrl+A", &kitty(1)), b"\x1b[97;5u");
        assert_eq!(bytes("Ctrl+Space", &kitty(1)), b"\x1b[32;5u");
        // Ctrl+Shift+a stays a key of its own; in legacy Ctrl+a is still 0x01.
        assert_ne!(
            parse_key("Ctrl+Shift+a").unwrap(),
            parse_key("Ctrl+a").unwrap()
        );
        assert_eq!(bytes("Ctrl+a", &normal()), [0x01]);
    }

    #[test]
    fn a_refused_step_fails_the_whole_encoding() {
        let steps =
            validate(&[Input::Text("hi".into()), Input::Keys("Shift+Enter".into())]).unwrap();
        let err = encode_steps(&steps, &normal()).expect_err("legacy");
        assert_eq!(err.code(), "unsupported_key");
        assert_eq!(
            encode_steps(&steps, &kitty(1)).unwrap(),
            vec![b"hi".to_vec(), b"\x1b[13;2u".to_vec()]
        );
    }

    #[test]
    fn quiet_gaps_follow_pastes_and_lone_escapes() {
        let gap = |input: Input, modes: &Modes| {
            let step = validate(&[input]).unwrap().remove(0);
            let bytes = encode_step(&step, modes).unwrap();
            wants_quiet_gap(&step, &bytes)
        };
        let bracketed = modes(false, false, true);
        assert!(gap(Input::Paste("x".into()), &bracketed));
        assert!(gap(Input::Paste("x".into()), &normal()));
        assert!(gap(Input::Keys("Escape".into()), &normal()));
        assert!(gap(Input::Keys("Ctrl+[".into()), &normal()));
        // Unambiguous under the kitty protocol, and never for raw bytes or typed text.
        assert!(!gap(Input::Keys("Escape".into()), &kitty(1)));
        assert!(!gap(Input::Keys("Alt+Escape".into()), &normal()));
        assert!(!gap(Input::RawHex("1b".into()), &normal()));
        assert!(!gap(Input::Text("\x1b".into()), &normal()));
        assert!(!gap(Input::Keys("Enter".into()), &normal()));
    }

    #[test]
    fn sc04_shift_tab_then_tab() {
        assert_eq!(bytes("Shift+Tab", &normal()), [0x1b, 0x5b, 0x5a]);
        assert_eq!(bytes("Tab", &normal()), [0x09]);
    }

    #[test]
    fn sc05_up_and_home_in_both_decckm_states() {
        let on = modes(true, false, false);
        let off = modes(false, false, false);
        assert_eq!(bytes("Up", &on), [0x1b, 0x4f, 0x41]);
        assert_eq!(bytes("Home", &on), [0x1b, 0x4f, 0x48]);
        assert_eq!(bytes("Up", &off), [0x1b, 0x5b, 0x41]);
        assert_eq!(bytes("Home", &off), [0x1b, 0x5b, 0x48]);
    }

    #[test]
    fn sc06_keypad_in_both_deckpam_states() {
        let on = modes(false, true, false);
        let off = modes(false, false, false);
        let cases: &[(&str, &[u8], &[u8])] = &[
            ("KP5", &[0x1b, 0x4f, 0x75], &[0x35]),
            ("KPEnter", &[0x1b, 0x4f, 0x4d], &[0x0d]),
            ("KPAdd", &[0x1b, 0x4f, 0x6b], &[0x2b]),
        ];
        for &(name, app, plain) in cases {
            assert_eq!(bytes(name, &on), app, "{name} DECKPAM");
            assert_eq!(bytes(name, &off), plain, "{name} DECKPNM");
        }
    }

    #[test]
    fn modified_keys_use_xterm_parameters() {
        let cases: &[(&str, &[u8])] = &[
            ("Shift+Up", b"\x1b[1;2A"),
            ("Ctrl+Alt+Left", b"\x1b[1;7D"),
            ("Meta+Home", b"\x1b[1;3H"),
            ("Ctrl+F5", b"\x1b[15;5~"),
            ("Shift+F1", b"\x1b[1;2P"),
            ("Ctrl+Delete", b"\x1b[3;5~"),
            ("Alt+Down", b"\x1b[1;3B"),
            ("Ctrl+Right", b"\x1b[1;5C"),
            ("Shift+End", b"\x1b[1;2F"),
            ("Ctrl+Shift+Up", b"\x1b[1;6A"),
            ("Shift+Alt+Up", b"\x1b[1;4A"),
            ("Ctrl+Alt+Shift+Right", b"\x1b[1;8C"),
            ("Alt+F4", b"\x1b[1;3S"),
            ("Ctrl+F2", b"\x1b[1;5Q"),
            ("Shift+F12", b"\x1b[24;2~"),
            ("Alt+F10", b"\x1b[21;3~"),
            ("Shift+Insert", b"\x1b[2;2~"),
            ("Ctrl+PageUp", b"\x1b[5;5~"),
            ("Alt+PageDown", b"\x1b[6;3~"),
        ];
        for &(name, want) in cases {
            // Modified cursor keys ignore DECCKM (xterm modifyCursorKeys).
            assert_eq!(bytes(name, &normal()), want, "{name} normal");
            assert_eq!(bytes(name, &app()), want, "{name} application");
        }
    }

    #[test]
    fn ctrl_and_alt_characters() {
        let cases: &[(&str, &[u8])] = &[
            ("Ctrl+C", &[0x03]),
            ("Ctrl+c", &[0x03]),
            ("Ctrl+A", &[0x01]),
            ("Ctrl+Z", &[0x1a]),
            ("Control+d", &[0x04]),
            ("Ctrl+Alt+c", &[0x1b, 0x03]),
            ("Alt+Ctrl+C", &[0x1b, 0x03]),
            ("Alt+x", &[0x1b, 0x78]),
            ("Meta+x", &[0x1b, 0x78]),
            ("Alt+X", &[0x1b, 0x58]),
            ("Alt+é", &[0x1b, 0xc3, 0xa9]),
            ("Alt++", &[0x1b, b'+']),
            ("Ctrl+@", &[0x00]),
            ("Ctrl+Space", &[0x00]),
            ("Ctrl+ ", &[0x00]),
            ("Ctrl+[", &[0x1b]),
            ("Ctrl+\\", &[0x1c]),
            ("Ctrl+]", &[0x1d]),
            ("Ctrl+^", &[0x1e]),
            ("Ctrl+_", &[0x1f]),
            ("Shift+a", b"A"),
            ("Shift+A", b"A"),
            ("Shift+é", "É".as_bytes()),
            ("Alt+Shift+a", &[0x1b, b'A']),
            ("Alt+Enter", &[0x1b, 0x0d]),
            ("Alt+Backspace", &[0x1b, 0x7f]),
            ("Alt+Tab", &[0x1b, 0x09]),
            ("Alt+Escape", &[0x1b, 0x1b]),
        ];
        for &(name, want) in cases {
            assert_eq!(bytes(name, &normal()), want, "{name}");
            assert_eq!(bytes(name, &app()), want, "{name} application");
        }
    }

    #[test]
    fn names_and_modifiers_are_case_insensitive() {
        let cases: &[(&str, &str)] = &[
            ("ENTER", "Enter"),
            ("enter", "Enter"),
            ("ctrl+c", "Ctrl+C"),
            ("CTRL+ALT+LEFT", "Ctrl+Alt+Left"),
            ("shift+tab", "Shift+Tab"),
            ("mEtA+hOmE", "Meta+Home"),
            ("kpenter", "KPEnter"),
            ("f5", "F5"),
            ("pageup", "PageUp"),
            ("esc", "Escape"),
            ("SPACE", " "),
        ];
        for &(a, b) in cases {
            assert_eq!(parse_key(a).unwrap(), parse_key(b).unwrap(), "{a} vs {b}");
            assert_eq!(bytes(a, &app()), bytes(b, &app()), "{a} vs {b}");
        }
        // A character is taken as written.
        assert_ne!(bytes("a", &normal()), bytes("A", &normal()));
    }

    #[test]
    fn unsupported_names_are_refused_with_their_code() {
        let cases = [
            "",
            "Ctrl",
            "Shift",
            "Meta",
            "Ctrl+",
            "Ctrl+Alt+",
            "Enterr",
            "F0",
            "F13",
            "KP10",
            "KPComma",
            "ab",
            "PgUp",
            " Enter",
            "Ctrl + C",
            "Hyper+a",
            "Ctrl+Ctrl+A",
            "Ctrl+Control+A",
            "Alt+Meta+x",
            "Shift+Shift+Up",
            "\n",
            "\u{7f}",
            "Ctrl+\t",
            "Shift+1",
            "Shift+ß",
            "Shift+Space",
            "Ctrl+Shift+1",
            "Shift+KP5",
            "Alt+KPEnter",
            "Ctrl+KP0",
            "e\u{301}",
        ];
        for name in cases {
            let err = parse_key(name).expect_err(name);
            assert_eq!(err.code(), "unsupported_key", "{name}");
            match &err {
                KeyError::Unsupported { name: n, reason } => {
                    assert_eq!(n, name);
                    assert!(!reason.is_empty());
                }
                other => panic!("{name}: {other:?}"),
            }
            assert!(err.to_string().contains("unsupported key"), "{err}");
        }
    }

    #[test]
    fn error_reasons_name_the_problem() {
        let reason = |name: &str| match parse_key(name) {
            Err(KeyError::Unsupported { reason, .. }) => reason,
            other => panic!("{name}: {other:?}"),
        };
        assert!(reason("Ctrl+Ctrl+A").contains("repeated"));
        assert!(reason("Alt+Meta+x").contains("repeated"));
        assert!(reason("").contains("empty"));
        assert!(reason("Ctrl").contains("modifier alone"));
        assert!(reason("Ctrl+").contains("needs a key"));
        assert!(reason("Hyper+a").contains("unknown modifier 'Hyper'"));
        assert!(reason("Enterr").contains("unknown key name 'Enterr'"));
    }

    #[test]
    fn raw_hex() {
        let ok: &[(&str, &[u8])] = &[
            ("0d", &[0x0d]),
            ("1B5B41", &[0x1b, 0x5b, 0x41]),
            ("1b5b41", &[0x1b, 0x5b, 0x41]),
            ("00ff", &[0x00, 0xff]),
        ];
        for &(hex, want) in ok {
            let steps = validate(&[Input::RawHex(hex.into())]).unwrap();
            assert_eq!(steps, vec![Step::Raw(want.to_vec())]);
            // Raw bytes ignore every mode.
            assert_eq!(
                encode_step(&steps[0], &modes(true, true, true)).unwrap(),
                want
            );
        }
        for bad in ["1", "zz", "", "0x1b", "1b 5b", "abc", "1g", "é1"] {
            let err = validate(&[Input::RawHex(bad.into())]).expect_err(bad);
            assert_eq!(err.code(), "invalid_request", "{bad}");
            assert!(matches!(err, KeyError::InvalidHex { ref value, .. } if value == bad));
        }
    }

    #[test]
    fn validate_keeps_order_and_rejects_the_whole_list_on_one_bad_item() {
        let good = vec![
            Input::Text("iHello".into()),
            Input::Keys("Escape".into()),
            Input::Paste("p".into()),
            Input::RawHex("1B".into()),
            Input::Keys("Ctrl+C".into()),
        ];
        let steps = validate(&good).unwrap();
        assert_eq!(
            steps,
            vec![
                Step::Text("iHello".into()),
                Step::Key(parse_key("Esc").unwrap()),
                Step::Paste("p".into()),
                Step::Raw(vec![0x1b]),
                Step::Key(parse_key("ctrl+c").unwrap()),
            ]
        );
        let wire: Vec<u8> = steps
            .iter()
            .flat_map(|s| encode_step(s, &normal()).unwrap())
            .collect();
        assert_eq!(wire, b"iHello\x1bp\x1b\x03");

        for (i, bad) in [Input::Keys("Nope".into()), Input::RawHex("1".into())]
            .into_iter()
            .enumerate()
        {
            for at in [0, 2, good.len()] {
                let mut list = good.clone();
                list.insert(at, bad.clone());
                let err = validate(&list).expect_err("one bad item");
                assert_eq!(
                    err.code(),
                    ["unsupported_key", "invalid_request"][i],
                    "{list:?}"
                );
            }
        }
    }

    #[test]
    fn paste_is_wrapped_only_with_bracketed_paste() {
        let step = Step::Paste("line1\nline2\nline3".into());
        assert_eq!(
            encode_step(&step, &modes(false, false, true)).unwrap(),
            b"\x1b[200~line1\nline2\nline3\x1b[201~"
        );
        assert_eq!(
            encode_step(&step, &modes(true, true, false)).unwrap(),
            b"line1\nline2\nline3"
        );
        // An end marker inside the text cannot end the paste early.
        let sneaky = Step::Paste("a\x1b[201~rm -rf\r".into());
        assert_eq!(
            encode_step(&sneaky, &modes(false, false, true)).unwrap(),
            b"\x1b[200~arm -rf\r\x1b[201~"
        );
        assert_eq!(
            encode_step(&sneaky, &modes(false, false, false)).unwrap(),
            b"a\x1b[201~rm -rf\r"
        );
        // Nor one that removing another would join together.
        let nested = Step::Paste("a\x1b[20\x1b[201~1~rm -rf\r".into());
        assert_eq!(
            encode_step(&nested, &modes(false, false, true)).unwrap(),
            b"\x1b[200~arm -rf\r\x1b[201~"
        );
    }

    #[test]
    fn text_is_literal() {
        let steps = validate(&[Input::Text("\\r".into()), Input::Text("é\x1b".into())]).unwrap();
        assert_eq!(encode_step(&steps[0], &app()).unwrap(), [0x5c, 0x72]);
        assert_eq!(
            encode_step(&steps[1], &modes(true, true, true)).unwrap(),
            b"\xc3\xa9\x1b"
        );
        // --raw-hex 0d is one CR.
        let raw = validate(&[Input::RawHex("0d".into())]).unwrap();
        assert_eq!(encode_step(&raw[0], &normal()).unwrap(), [0x0d]);
    }

    #[test]
    fn display_is_canonical_and_parses_back() {
        let cases: &[(&str, &str)] = &[
            ("ctrl+c", "Ctrl+C"),
            ("shift+alt+ctrl+up", "Ctrl+Alt+Shift+Up"),
            ("meta+home", "Alt+Home"),
            ("shift+tab", "Shift+Tab"),
            ("Shift+a", "A"),
            ("ctrl+space", "Ctrl+Space"),
            (" ", "Space"),
            ("alt++", "Alt++"),
            ("return", "Enter"),
            ("kpseparator", "KPSeparator"),
        ];
        for &(name, shown) in cases {
            let key = parse_key(name).unwrap();
            assert_eq!(key.to_string(), shown, "{name}");
            assert_eq!(parse_key(shown).unwrap(), key, "{shown}");
        }
        for &(name, _, _) in TABLE {
            let key = parse_key(name).unwrap();
            assert_eq!(parse_key(&key.to_string()).unwrap(), key, "{name}");
        }
    }

    #[test]
    fn modifier_parameter() {
        let p = |shift, alt, ctrl| Modifiers { shift, alt, ctrl }.parameter();
        assert_eq!(p(false, false, false), 1);
        assert_eq!(p(true, false, false), 2);
        assert_eq!(p(false, true, false), 3);
        assert_eq!(p(true, true, false), 4);
        assert_eq!(p(false, false, true), 5);
        assert_eq!(p(true, false, true), 6);
        assert_eq!(p(false, true, true), 7);
        assert_eq!(p(true, true, true), 8);
    }
}
