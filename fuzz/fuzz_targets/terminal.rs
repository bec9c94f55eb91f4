//! Bytes → `term::Emulator` at sizes 1–500, resized and split where the input says → `Screen`
//! → SVG (see `console2svg::fuzzing::TerminalCase` for how the input is read).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for svg in console2svg::fuzzing::terminal(data) {
        if let Err(e) = roxmltree::Document::parse(&svg) {
            panic!("the SVG is not well-formed XML: {e}");
        }
    }
});
