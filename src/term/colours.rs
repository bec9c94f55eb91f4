//! xterm's colour controls (ctlseqs, "Operating System Commands"), read into what they ask
//! for: set, query or reset a palette entry (OSC 4, 104), one of the special colours that
//! xterm draws bold, underlined, blinking, reverse and italic text in (OSC 5, 105, or OSC 4
//! past the palette: 256 + n), or a dynamic colour (OSC 10–19, 110–119: foreground,
//! background, cursor, pointer foreground and background, Tektronix foreground, background
//! and cursor, highlight background and foreground). Colour specs are X11's
//! ([`super::xcolor`]).

use super::xcolor;

/// How many special colours xterm keeps (`colorBD`, `colorUL`, `colorBL`, `colorRV`,
/// `colorIT`): OSC 5 `0`–`4`, OSC 4 `256`–`260`.
pub(super) const SPECIALS: usize = 5;

/// How many dynamic colours there are (OSC 10 to 19).
pub(super) const DYNAMICS: usize = 10;

/// A colour a control names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// Palette entry 0–255.
    Palette(u8),
    /// Special colour 0–4.
    Special(u8),
    /// Dynamic colour 0–9 (OSC 10 + n).
    Dynamic(u8),
}

/// One thing a colour control asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Action {
    Set(Slot, [u8; 3]),
    /// Report the colour as `OSC <prefix> ; rgb:RRRR/GGGG/BBBB` and the control's terminator.
    Query(Slot, String),
    Reset(Slot),
    /// Reset every palette entry and, as xterm does, every special colour (OSC 104 without
    /// parameters).
    ResetPalette,
    /// Reset every special colour (OSC 105 without parameters).
    ResetSpecials,
}

/// What OSC `code` with parameters `body` (after the code's `;`) asks for, in order. Pairs
/// with an index out of range or a spec that is not a colour are skipped, as xterm skips
/// them.
pub(super) fn actions(code: u16, body: &str) -> Vec<Action> {
    let params: Vec<&str> = if body.is_empty() {
        Vec::new()
    } else {
        body.split(';').collect()
    };
    let mut out = Vec::new();
    match code {
        4 | 5 => {
            for pair in params.chunks(2) {
                let [index, spec] = pair else { break };
                let Ok(n) = index.parse::<u16>() else {
                    continue;
                };
                let slot = match (code, n) {
                    (4, 0..=255) => Slot::Palette(n as u8),
                    (4, _) if ((n - 256) as usize) < SPECIALS => Slot::Special((n - 256) as u8),
                    (5, _) if (n as usize) < SPECIALS => Slot::Special(n as u8),
                    _ => continue,
                };
                out.extend(set_or_query(slot, spec, format!("{code};{n}")));
            }
        }
        10..=19 => {
            for (k, spec) in params.iter().enumerate() {
                let n = code as usize - 10 + k;
                if n >= DYNAMICS {
                    break;
                }
                let slot = Slot::Dynamic(n as u8);
                out.extend(set_or_query(slot, spec, (10 + n).to_string()));
            }
        }
        104 | 105 if params.iter().all(|p| p.is_empty()) => out.push(if code == 104 {
            Action::ResetPalette
        } else {
            Action::ResetSpecials
        }),
        104 | 105 => {
            for n in params.iter().filter_map(|p| p.parse::<u16>().ok()) {
                let slot = match (code, n) {
                    (104, 0..=255) => Slot::Palette(n as u8),
                    (104, _) if ((n - 256) as usize) < SPECIALS => Slot::Special((n - 256) as u8),
                    (105, _) if (n as usize) < SPECIALS => Slot::Special(n as u8),
                    _ => continue,
                };
                out.push(Action::Reset(slot));
            }
        }
        110..=119 => out.push(Action::Reset(Slot::Dynamic((code - 110) as u8))),
        _ => {}
    }
    out
}

fn set_or_query(slot: Slot, spec: &str, prefix: String) -> Option<Action> {
    if spec == "?" {
        return Some(Action::Query(slot, prefix));
    }
    xcolor::parse(spec).map(|rgb| Action::Set(slot, rgb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Action::*;
    use Slot::*;

    #[test]
    fn palette_and_special_pairs() {
        assert_eq!(
            actions(4, "1;#ff0000;256;?;261;?;x;?;3;nonsense;2"),
            [
                Set(Palette(1), [0xff, 0, 0]),
                Query(Special(0), "4;256".into())
            ]
        );
        assert_eq!(
            actions(5, "4;rgb:1/2/3;0;?;5;?"),
            [
                Set(Special(4), [0x11, 0x22, 0x33]),
                Query(Special(0), "5;0".into())
            ]
        );
    }

    #[test]
    fn dynamic_colours_take_the_next_code_for_each_parameter() {
        assert_eq!(
            actions(10, "?;#000;?"),
            [
                Query(Dynamic(0), "10".into()),
                Set(Dynamic(1), [0, 0, 0]),
                Query(Dynamic(2), "12".into())
            ]
        );
        assert_eq!(actions(19, "?;?"), [Query(Dynamic(9), "19".into())]);
    }

    #[test]
    fn resets() {
        assert_eq!(actions(104, ""), [ResetPalette]);
        assert_eq!(actions(105, ""), [ResetSpecials]);
        assert_eq!(
            actions(104, "3;257;300"),
            [Reset(Palette(3)), Reset(Special(1))]
        );
        assert_eq!(
            actions(105, "0;4;5"),
            [Reset(Special(0)), Reset(Special(4))]
        );
        assert_eq!(actions(111, ""), [Reset(Dynamic(1))]);
    }
}
