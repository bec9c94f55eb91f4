//! DEC private modes 2026 (synchronized output) and 2027 (grapheme cluster widths) with real
//! programs in real sessions: issue 14, items 2 and 5.

mod common;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::session::Host;

/// Seconds since the epoch, as `date +%s.%N` prints them.
fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// A program drawing frames in synchronized output, each one cleared first and drawn 300 ms
/// later (longer than vte's 150 ms limit, well within a terminal's 1 s), and a reader polling
/// every 50 ms: once a frame was shown, no read is ever blank or half drawn, and no frame is
/// ended by force.
#[test]
fn a_reader_polling_every_50_ms_never_sees_a_frame_half_drawn() {
    let h = Host::new();
    let frames = "for i in 1 2 3 4 5 6 7 8 9 10; do \
                  printf '\\033[?2026h\\033[H\\033[2J'; sleep 0.3; \
                  printf 'frame %d\\r\\nsecond line' $i; printf '\\033[?2026l'; sleep 0.05; \
                  done; sleep 30";
    let id = h.start(&["--width", "30", "--height", "4", "--", "bash", "-c", frames]);
    let end = Instant::now() + Duration::from_secs(20);
    let (mut shown, mut in_frame, mut seen) = (0, 0, std::collections::BTreeSet::new());
    loop {
        let r = h.ok(&["read", &id]);
        let text = r["screen"]["text"].as_str().unwrap().to_string();
        let modes = &r["screen"]["modes"];
        assert_eq!(modes["forcedSyncEnds"], 0, "{r}");
        if shown > 0 || !text.is_empty() {
            shown += 1;
            let (first, second) = text.split_once('\n').unwrap_or((&text, ""));
            assert!(
                first.starts_with("frame ") && second == "second line",
                "read {shown} shows {text:?}"
            );
            seen.insert(first.to_string());
            if modes["synchronizedOutput"] == true {
                in_frame += 1;
            }
        }
        if text.starts_with("frame 10") || Instant::now() > end {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(seen.contains("frame 10"), "the last frame shows: {seen:?}");
    // Most reads fall inside an open frame (it is open 300 ms of every 350): they show the
    // frame before it.
    assert!(
        in_frame * 2 > shown,
        "{in_frame} of {shown} reads in a frame"
    );
    assert!(seen.len() >= 3, "frames seen: {seen:?}");
    h.ok(&["stop", &id]);
}

/// A frame left open is ended by force after about a second (not 150 ms), the end is
/// reported (`forcedSyncEnds`), and until then the screen before it shows.
#[test]
fn an_unterminated_frame_ends_after_a_second_and_is_reported() {
    let h = Host::new();
    let id = h.start(&[
        "--width",
        "40",
        "--height",
        "3",
        "--",
        "bash",
        "-c",
        "printf 'before %s' $(date +%s.%N); printf '\\033[?2026h\\033[H\\033[2Jafter'; sleep 30",
    ]);
    let r = h.wait(&id, "before");
    let text = r["screen"]["text"].as_str().unwrap_or_default().to_string();
    let r = if text.is_empty() {
        h.ok(&["read", &id])
    } else {
        r
    };
    let text = r["screen"]["text"].as_str().unwrap().to_string();
    let stamp: f64 = if let Some(s) = text.strip_prefix("before ") {
        s.trim().parse().unwrap()
    } else {
        // The frame already ended: the stamp is gone, the report must still be there.
        assert_eq!(text, "after");
        now_secs() - 1.0
    };
    let end = Instant::now() + Duration::from_secs(10);
    let r = loop {
        let r = h.ok(&["read", &id]);
        if r["screen"]["text"] == "after" || Instant::now() > end {
            break r;
        }
        assert_eq!(r["screen"]["modes"]["forcedSyncEnds"], 0, "{r}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let shown_after = now_secs() - stamp;
    assert_eq!(r["screen"]["text"], "after", "{r}");
    assert_eq!(r["screen"]["modes"]["forcedSyncEnds"], 1, "{r}");
    assert_eq!(r["screen"]["modes"]["synchronizedOutput"], false, "{r}");
    // The frame opened after the stamp was taken and is held 1 s.
    assert!(
        shown_after >= 0.99,
        "shown {shown_after:.3} s after opening"
    );
    h.ok(&["stop", &id]);
}

/// DECRQM for modes 2026 and 2027, asked by bash's `read` through the PTY: 2026 is "set"
/// inside an open frame and answered at once (the frame is still open when the answer
/// comes), "reset" outside; 2027 is set by default and can be reset by the program.
#[test]
fn decrqm_reports_synchronized_output_and_grapheme_clusters() {
    let h = Host::new();
    let script = r#"ask() { IFS= read -rs -t 5 -d y -p "$1" R; printf '%s ' "${R#?}"; }
ask $'\e[?2026$p'
printf '\e[?2026h'; ask $'\e[?2026$p'; printf '\e[?2026l'
ask $'\e[?2027$p'
printf '\e[?2027l'; ask $'\e[?2027$p'
echo; echo done; sleep 30"#;
    let id = h.start(&["--width", "80", "--height", "4", "--", "bash", "-c", script]);
    let r = h.wait(&id, "done");
    let text = r["screen"]["text"].as_str().unwrap_or_default().to_string();
    let text = if text.is_empty() { h.text(&id) } else { text };
    assert_eq!(
        text.lines().next().unwrap().trim_end(),
        "[?2026;2$ [?2026;1$ [?2027;1$ [?2027;2$",
        "{text:?}"
    );
    let r = h.ok(&["read", &id]);
    assert_eq!(r["screen"]["modes"]["graphemeClusters"], false);
    h.ok(&["stop", &id]);
}

/// A real program's emoji clusters read back as the grid holds them (`read --structured`):
/// one wide cell and its continuation each, the cursor after them.
#[test]
fn emoji_clusters_read_back_as_one_wide_cell() {
    let h = Host::new();
    let id = h.start(&[
        "--width",
        "20",
        "--height",
        "3",
        "--",
        "bash",
        "-c",
        "printf 'A\\u2764\\ufe0fB\\U0001F1FA\\U0001F1F8C'; sleep 30",
    ]);
    h.wait(&id, "C");
    let r = h.ok(&["read", &id, "--structured"]);
    let s = &r["screen"];
    assert_eq!(s["text"], "A\u{2764}\u{fe0f}B🇺🇸C");
    assert_eq!(s["cursorColumn"], 7);
    assert_eq!(s["modes"]["graphemeClusters"], true);
    let cells = s["structured"]["cells"].as_array().unwrap();
    let texts: Vec<(&str, bool, bool)> = cells[..7]
        .iter()
        .map(|c| {
            (
                c["text"].as_str().unwrap(),
                c["isWide"] == true,
                c["isWideContinuation"] == true,
            )
        })
        .collect();
    assert_eq!(
        texts,
        [
            ("A", false, false),
            ("\u{2764}\u{fe0f}", true, false),
            ("", false, true),
            ("B", false, false),
            ("🇺🇸", true, false),
            ("", false, true),
            ("C", false, false),
        ]
    );
    h.ok(&["stop", &id]);
}
