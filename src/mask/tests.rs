use super::*;
use crate::term::Emulator;

/// `text` masked by the auto rules.
fn auto(text: &str) -> String {
    Masker::auto().mask_text(text)
}

/// The ids of the rules that fire on `text`.
fn fired(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Masker::auto()
        .find(text)
        .into_iter()
        .map(|f| f.rule)
        .collect();
    ids.dedup();
    ids
}

fn screen(cols: usize, rows: usize, bytes: &str) -> Screen {
    let mut e = Emulator::new(cols, rows);
    e.advance(bytes.as_bytes());
    e.snapshot()
}

const GHP: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

#[test]
fn github_tokens() {
    assert_eq!(
        auto(&format!("token {GHP}!")),
        format!("token {}!", "*".repeat(40))
    );
    assert_eq!(
        fired("gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
        ["github-token"]
    );
    let pat = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz";
    assert_eq!(auto(pat), "*".repeat(pat.len()));
    // Too short to be a token.
    assert_eq!(auto("ghp_short"), "ghp_short");
}

#[test]
fn aws_keys() {
    assert_eq!(auto("id AKIAIOSFODNN7EXAMPLE."), "id ********************.");
    assert_eq!(fired("ASIAIOSFODNN7EXAMPLE"), ["aws-access-key-id"]);
    let line = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    assert_eq!(
        auto(line),
        format!("aws_secret_access_key = {}", "*".repeat(40))
    );
    assert!(fired(line).contains(&"aws-secret-access-key".to_string()));
}

#[test]
fn slack_stripe_openai_anthropic_tokens() {
    let slack = "xoxb-123456789012-1234567890123-abcdefghijklmnop";
    assert_eq!(auto(slack), "*".repeat(slack.len()));
    assert_eq!(fired(slack), ["slack-token"]);
    let hook = "https://hooks.slack.com/services/T000/B000/XXXXXXXX";
    assert_eq!(auto(hook), "*".repeat(hook.len()));
    let stripe = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    assert_eq!(auto(stripe), "*".repeat(stripe.len()));
    assert_eq!(fired(stripe), ["stripe-key"]);
    let openai = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
    assert_eq!(auto(openai), "*".repeat(openai.len()));
    assert_eq!(fired(openai), ["openai-api-key"]);
    let anthropic = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz_0123456789";
    assert_eq!(auto(anthropic), "*".repeat(anthropic.len()));
    assert_eq!(fired(anthropic)[0], "anthropic-api-key");
    // A word with a dash is not a key.
    assert_eq!(auto("sk-learn is fine"), "sk-learn is fine");
}

#[test]
fn jwts() {
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    assert_eq!(
        auto(&format!("Bearer {jwt}")),
        format!("Bearer {}", "*".repeat(jwt.len()))
    );
    assert_eq!(fired(jwt), ["jwt"]);
}

#[test]
fn private_key_blocks_mask_the_body() {
    let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcDEF==\n-----END RSA PRIVATE KEY-----\nafter";
    assert_eq!(
        auto(pem),
        "-----BEGIN RSA PRIVATE KEY-----\n****************\n********\n-----END RSA PRIVATE KEY-----\nafter"
    );
    // A block cut off by the end of the screen is masked to the end.
    assert_eq!(
        auto("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\n*******************"
    );
}

#[test]
fn credential_uris_mask_user_and_password_separately() {
    assert_eq!(
        auto("git clone https://bob:hunter22@example.com/repo.git"),
        "git clone https://***:********@example.com/repo.git"
    );
    assert_eq!(
        auto("postgres://admin:s3cr3t@db:5432/app"),
        "postgres://*****:******@db:5432/app"
    );
    assert!(fired("redis://u:p@host").contains(&"credential-uri".to_string()));
    // No password: nothing to hide.
    assert_eq!(auto("https://example.com/a:b"), "https://example.com/a:b");
}

#[test]
fn git_identities_keep_the_domain() {
    assert_eq!(
        auto("Author: Alice Smith <alice.smith@example.com>"),
        "Author: *********** <***********@example.com>"
    );
    assert!(fired("Bob <bob@example.org>").contains(&"git-identity".to_string()));
}

#[test]
fn email_addresses_mask_the_local_part() {
    assert_eq!(
        auto("mail jane.doe@corp.example"),
        "mail ********@corp.example"
    );
    assert_eq!(auto("not@mail"), "not@mail");
}

#[test]
fn home_directories_mask_the_user() {
    assert_eq!(auto("/home/alice/src"), "/home/*****/src");
    assert_eq!(auto("cd /Users/bob"), "cd /Users/***");
    assert_eq!(auto(r"C:\Users\carol\x"), r"C:\Users\*****\x");
    assert_eq!(fired("/home/alice"), ["home-directory"]);
    assert_eq!(auto("/home/"), "/home/");
}

#[test]
fn generic_assignments_mask_only_the_value() {
    assert_eq!(auto("DB_PASSWORD=correcthorse"), "DB_PASSWORD=************");
    assert_eq!(auto("api_key: \"abcd1234\""), "api_key: \"********\"");
    assert_eq!(
        auto("client_secret => zzzz9999"),
        "client_secret => ********"
    );
    assert_eq!(fired("MY_TOKEN=abcdef"), ["generic-secret"]);
    // Too short to be a secret, or not an assignment.
    assert_eq!(auto("tokens = 12"), "tokens = 12");
    for setting in [
        "max_tokens=4096",
        "use_token=true",
        "password: required",
        "API_KEY=$API_KEY",
        "token: ${GITHUB_TOKEN}",
        "secret=<your-secret>",
    ] {
        assert_eq!(auto(setting), setting);
    }
    assert_eq!(auto("DB_PASSWORD=secret"), "DB_PASSWORD=******");
    assert_eq!(auto("the password is long"), "the password is long");
}

#[test]
fn plain_text_is_left_alone() {
    let text = "total 12\ndrwxr-xr-x 2 root root 4096 Jan  1 00:00 src\nhello, world";
    assert_eq!(auto(text), text);
    assert!(Masker::auto().find(text).is_empty());
}

#[test]
fn user_patterns_are_regexes_or_literals() {
    let m = Masker::new(false, &["user[0-9]+".into(), "literal:a.b(".into()]).unwrap();
    assert_eq!(m.mask_text("user42 axb( a.b("), "****** axb( ****");
    let e = Masker::new(false, &["(".into()]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("mask rule 'mask:(': invalid regex '('"),
        "{e}"
    );
}

#[test]
fn tokens_split_by_wrapping_are_found() {
    // 20 columns: the token wraps over three rows.
    let mut s = screen(20, 5, &format!("key {GHP} end"));
    assert_eq!(s.wrapped, vec![0, 1]);
    let n = Masker::auto().mask_screen(&mut s);
    assert_eq!(n, 40);
    assert_eq!(s.row_text(0), format!("key {}", "*".repeat(16)));
    assert_eq!(s.row_text(1), "*".repeat(20));
    assert_eq!(s.row_text(2), "**** end");
    assert!(s.rows[1].iter().all(|c| c.masked));
    assert!(!s.rows[2][5].masked);
    // Rows that merely end full are not joined: a hard newline ends the line.
    let mut s = screen(8, 5, "ghp_abcd\r\nefghijklmnopqrstuvwxyz0123456789");
    assert_eq!(Masker::auto().mask_screen(&mut s), 0);
}

#[test]
fn wide_characters_become_two_masked_cells() {
    let mut s = screen(30, 3, "/home/日本");
    let width_before = s.rows[0].len();
    assert_eq!(Masker::auto().mask_screen(&mut s), 4);
    assert_eq!(s.rows[0].len(), width_before);
    assert_eq!(s.row_text(0), "/home/****");
    assert!(s.rows[0][6..10].iter().all(|c| c.width == 1 && c.masked));
}

#[test]
fn links_and_titles_are_masked() {
    let mut s = screen(
        60,
        3,
        &format!(
            "\x1b]2;cwd /home/alice\x07\x1b]8;;https://x.test/?t={GHP}\x1b\\open\x1b]8;;\x1b\\"
        ),
    );
    Masker::auto().mask_screen(&mut s);
    assert_eq!(s.title.as_deref(), Some("cwd /home/*****"));
    let uri = &s.rows[0][0].link.as_ref().unwrap().uri;
    assert!(!uri.contains("ghp_"), "{uri}");
    assert_eq!(s.row_text(0), "open");
}

#[test]
fn masked_cells_serialise_their_flag_only_when_set() {
    let mut s = screen(20, 1, "/home/al");
    Masker::auto().mask_screen(&mut s);
    let json = serde_json::to_string(&s.rows[0][0]).unwrap();
    assert!(!json.contains("masked"));
    let json = serde_json::to_string(&s.rows[0][6]).unwrap();
    assert!(json.contains("\"masked\":true"));
}

#[test]
fn gitleaks_files_load_and_name_bad_rules() {
    let toml = r#"
title = "custom"
[[rules]]
id = "acme-key"
description = "ACME keys"
regex = '''acme_([a-z0-9]{8})'''
secretGroup = 1
keywords = ["acme_"]
entropy = 3.0

[[rules]]
id = "path-only"
path = '''\.pem$'''
"#;
    let rules = rules::gitleaks_rules(toml, "r.toml").unwrap();
    assert_eq!(rules.len(), 1);
    let mut m = Masker::none();
    m.extend(rules);
    assert_eq!(m.mask_text("key acme_abcd1234"), "key acme_********");
    assert_eq!(m.find("acme_abcd1234")[0].rule, "acme-key");

    let bad = "[[rules]]\nid = \"broken\"\nregex = '''a(b'''\n";
    let e = rules::gitleaks_rules(bad, "r.toml").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("mask rule 'broken': invalid regex 'a(b'"),
        "{e}"
    );
    let e = rules::gitleaks_rules(
        "[[rules]]\nid = \"g\"\nregex = 'a'\nsecretGroup = 2\n",
        "r.toml",
    )
    .unwrap_err();
    assert!(e.to_string().contains("secretGroup 2"), "{e}");
    let e = rules::gitleaks_rules("[[rules]\n", "r.toml").unwrap_err();
    assert!(e.to_string().starts_with("mask rules r.toml:"), "{e}");
}

#[test]
fn every_auto_rule_has_a_distinct_id() {
    let rules = rules::auto_rules();
    let mut ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n);
}

#[test]
fn raw_output_is_masked_around_escape_sequences() {
    let m = Masker::auto();
    // A token coloured in two pieces, a home directory in a title, a link target.
    let out = format!(
        "\x1b[32m{}\x1b[1m{}\x1b[0m\r\n\x1b]2;/home/alice\x07\x1b]8;;https://u:pw12@x.test/\x1b\\link\x1b]8;;\x1b\\\r\n",
        &GHP[..10],
        &GHP[10..]
    );
    let masked = m.mask_output(&out);
    assert_eq!(
        masked,
        format!(
            "\x1b[32m{}\x1b[1m{}\x1b[0m\r\n\x1b]2;/home/*****\x07\x1b]8;;https://*:****@x.test/\x1b\\link\x1b]8;;\x1b\\\r\n",
            "*".repeat(10),
            "*".repeat(30)
        )
    );
    // Lines are not joined across a line break, escape sequences stay byte for byte.
    let plain = "ghp_abcd\r\nefghijklmnopqrstuvwxyz0123456789\x1b[0m";
    assert_eq!(m.mask_output(plain), plain);
}
