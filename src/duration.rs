//! Durations as people write them in flags, config files and scenarios: `500ms`, `2s`, `3m`,
//! `1h`, or a bare number of seconds (session spec §3). Below every layer that reads them
//! (`host`, `termio`, `scenario`, `cli`), so none of them borrows the parser from another.

use std::time::Duration;

/// Parses a duration: `500ms`, `2s`, `3m`, `1h`, or a bare number of seconds (fractions
/// allowed) (session spec §3).
///
/// Errors: a message quoting the value.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let bad =
        || format!("'{s}' is not a duration (e.g. 500ms, 2s, 3m, 1h; a bare number is seconds)");
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let v: f64 = num.trim().parse().map_err(|_| bad())?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" => v * 60.0,
        "h" => v * 3600.0,
        _ => return Err(bad()),
    };
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Formats a duration in ms the way [`parse_duration`] reads it back: `250ms`, `2s`, `1500ms`.
pub fn format_duration_ms(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_round_trip() {
        for (text, ms) in [("500ms", 500), ("2s", 2000), ("1.5", 1500), ("3m", 180_000)] {
            assert_eq!(
                parse_duration(text).unwrap(),
                Duration::from_millis(ms),
                "{text}"
            );
        }
        for ms in [250, 2000, 1500] {
            let text = format_duration_ms(ms);
            assert_eq!(parse_duration(&text).unwrap(), Duration::from_millis(ms));
        }
        assert!(parse_duration("2d").unwrap_err().contains("'2d'"));
        assert!(parse_duration("-1s").is_err());
    }
}
