//! The width policy for grapheme clusters: DEC private mode 2027 ("grapheme cluster
//! processing", as kitty, WezTerm, Ghostty and foot implement it).
//!
//! With the mode set (the default here), an emoji cluster takes the cells modern terminals
//! give it, not the sum of its code points' `wcwidth`:
//!
//! - an emoji presentation sequence (a character followed by VS16, U+FE0F) is 2 cells, a text
//!   presentation sequence (VS15, U+FE0E) 1 cell;
//! - an emoji ZWJ sequence (`👨‍👩‍👧`), an emoji with a skin-tone modifier (`👍🏽`) and a
//!   regional-indicator pair (a flag, `🇺🇸`) are one cluster of 2 cells.
//!
//! A cluster's width is its text's width by Unicode's rules (`unicode-width`'s string width,
//! which reads these sequences) held to 1–2 cells. Which characters join the cluster before
//! them follows UAX #29 (`unicode-segmentation`), limited to the emoji sequences above: other
//! zero-width characters join as they always did (alacritty's rule), and characters one or two
//! cells wide that UAX #29 would join otherwise (Hangul jamo, spacing marks, prepended
//! concatenation marks) keep their own cells, as `wcwidth` programs expect.
//!
//! With the mode reset (`CSI ? 2027 l`) every code point takes its own `wcwidth` cells, the
//! legacy rule. `CSI ? 2027 $ p` (DECRQM) answers 1 (set) or 2 (reset).

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// The DEC private mode number that selects the policy.
pub const MODE: u16 = 2027;

/// ZERO WIDTH JOINER.
const ZWJ: char = '\u{200d}';

/// VARIATION SELECTOR-15 (text presentation) and -16 (emoji presentation).
pub(super) const VS15: char = '\u{fe0e}';
pub(super) const VS16: char = '\u{fe0f}';

/// A skin-tone modifier (EMOJI MODIFIER FITZPATRICK TYPE-1-2 … TYPE-6).
fn is_modifier(c: char) -> bool {
    ('\u{1f3fb}'..='\u{1f3ff}').contains(&c)
}

/// A regional indicator symbol (the letters flags are written with).
fn is_regional(c: char) -> bool {
    ('\u{1f1e6}'..='\u{1f1ff}').contains(&c)
}

/// Whether `c`, a character one or two cells wide, joins the cluster of `base` and the
/// characters joined to it so far (`joined`) under the policy: a skin-tone modifier after a
/// character, a pictograph after a ZWJ, or a second regional indicator after a first, each
/// only where UAX #29 keeps the result one grapheme cluster. Cheap for every other `c` (no
/// allocation): it runs for each wide character a program writes.
pub(super) fn joins(base: char, joined: &[char], c: char) -> bool {
    let candidate = if is_modifier(c) {
        base != ' ' && base != '\0'
    } else if is_regional(c) {
        is_regional(base) && joined.is_empty()
    } else {
        joined.last() == Some(&ZWJ)
    };
    if !candidate {
        return false;
    }
    let mut text = String::with_capacity(4 * (joined.len() + 2));
    text.push(base);
    text.extend(joined);
    text.push(c);
    text.graphemes(true).nth(1).is_none()
}

/// Whether `c` may change the width of the cluster it joins although it is zero-width: the
/// variation selectors.
pub(super) fn rewidens(c: char) -> bool {
    c == VS15 || c == VS16
}

/// The cells the cluster `cluster` takes under the policy: 1 or 2.
pub(super) fn width(cluster: &str) -> usize {
    cluster.width().clamp(1, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emoji_sequences_are_two_cells_and_text_presentation_one() {
        for s in [
            "❤\u{fe0f}",
            "1\u{fe0f}\u{20e3}",
            "🇺🇸",
            "👍🏽",
            "👨\u{200d}👩\u{200d}👧",
            "🏳\u{fe0f}\u{200d}🌈",
            "❤\u{fe0f}\u{200d}🔥",
            "😀",
        ] {
            assert_eq!(width(s), 2, "{s:?}");
        }
        for s in ["⌚\u{fe0e}", "❤", "e\u{301}", "a"] {
            assert_eq!(width(s), 1, "{s:?}");
        }
    }

    #[test]
    fn joins_only_the_emoji_sequences() {
        assert!(joins('👍', &[], '🏽'));
        assert!(!joins(' ', &[], '🏽'));
        assert!(joins('🇺', &[], '🇸'));
        assert!(!joins('🇺', &['🇸'], '🇬'));
        assert!(joins('👨', &[ZWJ], '👩'));
        // GB11 needs a pictograph before the ZWJ.
        assert!(!joins('a', &[ZWJ], '👨'));
        assert!(!joins('😀', &[], '😀'));
        // Hangul jamo form one cluster by UAX #29, but keep their own cells here.
        assert!(!joins('\u{1100}', &[], '\u{1100}'));
    }
}
