//! The host's replies on the wire, byte for byte: typed replies must serialise exactly as the
//! contract's documents always have (key order included), so clients written against earlier
//! hosts keep working. Screens come from byte fixtures fed to the emulator (no PTY, no clock).

use console2svg::host::reply::{self, ScreenDoc};
use console2svg::term::Emulator;

/// A screen exercising every structured cell field: named, indexed and RGB colours, bold,
/// italic, faint, reversed, hidden, strikethrough, every underline style and colour, an OSC 8
/// link, wide characters, a title, a hidden cursor and bracketed paste.
fn fixture() -> (console2svg::term::Screen, usize) {
    let mut e = Emulator::new(12, 8);
    e.advance(b"\x1b]2;wire title\x07\x1b[?2004h");
    e.advance(b"\x1b[1;31mA\x1b[0;3;38;5;200mB\x1b[0;2;48;2;1;2;3mC\x1b[0;7mD\x1b[0;8mE\x1b[0;9mF\x1b[0m\r\n");
    e.advance(b"\x1b[4mu\x1b[4:2md\x1b[4:3mc\x1b[4:4mo\x1b[4:5mh\x1b[58;2;9;8;7;4:1ml\x1b[0m\r\n");
    e.advance(
        "\u{4e2d}\u{6587}|\x1b]8;;https://example.com/x\x1b\\link\x1b]8;;\x1b\\\r\n".as_bytes(),
    );
    e.advance(b"line\r\nscrolled\r\n\r\nlast\x1b[?25l");
    (e.snapshot(), e.history_size())
}

fn golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots/wire")
        .join(name);
    // Regenerated on purpose only: the wire is a contract.
    if std::env::var_os("UPDATE_WIRE").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    assert_eq!(actual, expected, "{} changed", path.display());
}

#[test]
fn read_screen_structured_is_byte_identical() {
    let (screen, history) = fixture();
    let doc = ScreenDoc::of(&screen, history, true);
    golden("screen_structured.json", &reply::to_line(&doc));
}

#[test]
fn read_screen_plain_is_byte_identical() {
    let (screen, history) = fixture();
    let doc = ScreenDoc::of(&screen, history, false);
    golden("screen_plain.json", &reply::to_line(&doc));
}
