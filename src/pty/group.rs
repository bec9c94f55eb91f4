//! Ending many sessions of processes at once: one `/proc` scan serves every session, so stopping
//! 300 sessions costs a few scans instead of thousands.
//!
//! A PTY spawn makes its program the leader of a new session (`setsid`); everything it starts
//! stays in that session whatever its process group (an interactive shell's jobs included)
//! unless it calls `setsid` itself. Signals go to every process group found in the session.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use rustix::process::Signal;

/// Live members of each of the sessions `sids`, as (pid, process group) pairs, from one scan
/// of `/proc`. Sessions with no live member are absent from the map.
pub fn members(sids: &HashSet<u32>) -> HashMap<u32, Vec<(u32, u32)>> {
    let mut out: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the parenthesised command: state ppid pgrp session …
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let (Some(state), _, Some(pgrp), Some(session)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if state == "Z" {
            continue;
        }
        let (Ok(pgrp), Ok(session)) = (pgrp.parse::<u32>(), session.parse::<u32>()) else {
            continue;
        };
        if sids.contains(&session) {
            out.entry(session).or_default().push((pid, pgrp));
        }
    }
    out
}

/// Sends each of `signals`, in order, to every process group of each session in `sids`
/// (one `/proc` scan). Returns how many live members there were.
pub fn signal(sids: &HashSet<u32>, signals: &[Signal]) -> usize {
    let found = members(sids);
    let mut groups: Vec<u32> = found.values().flatten().map(|&(_, g)| g).collect();
    groups.sort_unstable();
    groups.dedup();
    for &s in signals {
        for &g in &groups {
            if let Some(pid) = rustix::process::Pid::from_raw(g as i32) {
                let _ = rustix::process::kill_process_group(pid, s);
            }
        }
    }
    found.values().map(Vec::len).sum()
}

/// The first half of ending sessions: SIGTERM, SIGHUP and SIGCONT (so stopped jobs see them)
/// to every process group of each session.
pub fn begin_end(sids: &HashSet<u32>) {
    signal(sids, &[Signal::TERM, Signal::HUP, Signal::CONT]);
}

/// The second half: waits until `deadline` (one shared grace period) for every member of the
/// sessions to go, scanning `/proc` every 10 ms, then SIGKILLs what is left until nothing is
/// (at most 1 s more).
pub fn finish_end(sids: &HashSet<u32>, deadline: Instant) {
    let mut left: HashSet<u32> = sids.clone();
    while !left.is_empty() && Instant::now() < deadline {
        let found = members(&left);
        left.retain(|s| found.contains_key(s));
        if left.is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    for _ in 0..100 {
        if signal(&left, &[Signal::KILL]) == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
