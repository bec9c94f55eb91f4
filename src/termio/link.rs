//! Session addresses (shared/spec/termio-sessions.md, "One address, one target"): the
//! `termio://session/<uuid>` link minted when a session is created, its 8-hex-digit short
//! `id`, and how a target written by a caller resolves to one session.
//!
//! The uuid is derived from the host's session id (`s_` + 32 random hex digits from
//! `/dev/urandom`, see `host::session::new_id`) by setting the RFC 4122 version (4) and variant
//! bits, so every host session, started by either CLI, has a fixed random v4-style link that
//! never changes (titles do).

use super::error::{Code, Error};

/// The link scheme and path prefix.
pub const SCHEME: &str = "termio://session/";

/// Shortest hex prefix (dashes not counted) accepted as an id prefix; shorter targets are only
/// matched as titles.
pub const MIN_PREFIX: usize = 4;

/// The v4-style uuid (`8-4-4-4-12` lowercase hex) of a host session id.
pub fn uuid_of(session_id: &str) -> String {
    let mut hex: Vec<u8> = session_id
        .bytes()
        .filter(u8::is_ascii_hexdigit)
        .map(|b| b.to_ascii_lowercase())
        .collect();
    // Ids are `s_` + 32 hex digits; anything else (never produced) is padded or cut to fit.
    hex.resize(32, b'0');
    hex[12] = b'4';
    let variant =
        u8::from_str_radix(std::str::from_utf8(&hex[16..17]).unwrap_or("0"), 16).unwrap_or(0);
    hex[16] = b"89ab"[(variant & 3) as usize];
    let h = String::from_utf8(hex).expect("hex digits");
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// The canonical link of a uuid: `termio://session/<uuid>`.
pub fn link_of(uuid: &str) -> String {
    format!("{SCHEME}{uuid}")
}

/// The short id: the uuid's first 8 hex digits.
pub fn short_id(uuid: &str) -> &str {
    &uuid[..uuid.len().min(8)]
}

/// One session a target may name.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// The session's uuid (see [`uuid_of`]).
    pub uuid: &'a str,
    /// The host's session id (`s_…`), accepted too.
    pub host_id: &'a str,
    /// The current title.
    pub title: &'a str,
}

/// Resolves `target` against `candidates` (the caller's project's sessions) and returns the
/// index of the one it names. In order:
/// 1. a link `termio://session/<uuid>`: that exact uuid only;
/// 2. a bare uuid or host session id, exactly (case-insensitive);
/// 3. a prefix of at least [`MIN_PREFIX`] hex digits of the uuid (the 8-char `id` is one),
///    or a title, exactly: a target that is both (a session titled `c9d0` beside a session
///    whose id starts `c9d0`) names every session it matches either way.
///
/// Errors: `not_found` when nothing matches, `ambiguous` when a prefix or a title matches
/// several sessions (the message lists their links).
pub fn resolve(target: &str, candidates: &[Candidate]) -> Result<usize, Error> {
    let wanted = target.trim();
    let not_found = || {
        Error::new(
            Code::NotFound,
            format!("no session '{target}' in this project"),
        )
    };
    if let Some(uuid) = wanted.strip_prefix(SCHEME) {
        return candidates
            .iter()
            .position(|c| c.uuid.eq_ignore_ascii_case(uuid.trim_end_matches('/')))
            .ok_or_else(not_found);
    }
    if let Some(i) = candidates
        .iter()
        .position(|c| c.uuid.eq_ignore_ascii_case(wanted) || c.host_id == wanted)
    {
        return Ok(i);
    }
    let digits = wanted.chars().filter(|&c| c != '-').count();
    let hexlike = wanted.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    let lower = wanted.to_ascii_lowercase();
    let by_prefix =
        |i: &usize| hexlike && digits >= MIN_PREFIX && candidates[*i].uuid.starts_with(&lower);
    let by_title = |i: &usize| candidates[*i].title == wanted;
    let hits: Vec<usize> = (0..candidates.len())
        .filter(|i| by_prefix(i) || by_title(i))
        .collect();
    let what = match (hits.iter().any(by_prefix), hits.iter().any(by_title)) {
        (true, true) => "id prefix or title",
        (true, false) => "id prefix",
        (false, true) => "title",
        (false, false) => return Err(not_found()),
    };
    one(target, what, hits, candidates)
}

fn one(
    target: &str,
    what: &str,
    hits: Vec<usize>,
    candidates: &[Candidate],
) -> Result<usize, Error> {
    if hits.len() == 1 {
        return Ok(hits[0]);
    }
    let links: Vec<String> = hits.iter().map(|&i| link_of(candidates[i].uuid)).collect();
    Err(Error::new(
        Code::Ambiguous,
        format!(
            "the {what} '{target}' matches {} sessions: {}",
            hits.len(),
            links.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_v4_shaped_and_stable() {
        let id = "s_0123456789abcdef0123456789abcdef";
        let u = uuid_of(id);
        assert_eq!(u, "01234567-89ab-4def-8123-456789abcdef");
        assert_eq!(uuid_of(id), u);
        assert_eq!(short_id(&u), "01234567");
        assert_eq!(
            link_of(&u),
            "termio://session/01234567-89ab-4def-8123-456789abcdef"
        );
    }

    fn cands() -> Vec<Candidate<'static>> {
        vec![
            Candidate {
                uuid: "aaaa1111-0000-4000-8000-000000000001",
                host_id: "s_1",
                title: "build",
            },
            Candidate {
                uuid: "aaaa2222-0000-4000-8000-000000000002",
                host_id: "s_2",
                title: "dev",
            },
            Candidate {
                uuid: "bbbb3333-0000-4000-8000-000000000003",
                host_id: "s_3",
                title: "dev",
            },
        ]
    }

    #[test]
    fn targets_resolve_by_link_uuid_prefix_and_title() {
        let c = cands();
        assert_eq!(
            resolve("termio://session/aaaa2222-0000-4000-8000-000000000002", &c),
            Ok(1)
        );
        assert_eq!(resolve("AAAA2222-0000-4000-8000-000000000002", &c), Ok(1));
        assert_eq!(resolve("s_3", &c), Ok(2));
        assert_eq!(resolve("aaaa1111", &c), Ok(0));
        assert_eq!(resolve("bbbb", &c), Ok(2));
        assert_eq!(resolve("build", &c), Ok(0));
        assert_eq!(resolve("aaaa", &c).unwrap_err().code, Code::Ambiguous);
        assert_eq!(resolve("dev", &c).unwrap_err().code, Code::Ambiguous);
        assert_eq!(resolve("nope", &c).unwrap_err().code, Code::NotFound);
        // A title that is also another session's id prefix names both.
        let mut c = cands();
        c[1].title = "bbbb";
        assert_eq!(resolve("bbbb", &c).unwrap_err().code, Code::Ambiguous);
        c[2].title = "bbbb";
        assert_eq!(resolve("bbbb", &c).unwrap_err().code, Code::Ambiguous);
        c[1].title = "x";
        assert_eq!(
            resolve("bbbb", &c),
            Ok(2),
            "prefix and title name the same one"
        );
        assert_eq!(
            resolve("termio://session/aaaa1111", &c).unwrap_err().code,
            Code::NotFound,
            "a link names one exact uuid"
        );
    }
}
