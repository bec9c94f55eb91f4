//! Link-time choice for the binaries (issue: host redesign, item 6, "a lean client path").
//!
//! On Linux with glibc, release binaries are linked as position-dependent executables
//! (`-no-pie`). A ~15 MB PIE carries ~29 000 relative relocations: the dynamic loader writes
//! every pointer in `.data.rel.ro` at each start, ~130 copy-on-write page faults, about a
//! quarter of a short client's CPU time (`session read`: 265 → 136 page faults, ~2.9 → ~2.2 ms
//! of CPU; `benches/client.sh`). The code itself stays position-independent (the libraries'
//! objects are unchanged, nothing is rebuilt); only the link resolves the addresses. The cost:
//! the executable's own image is not randomised (its libraries, heap and stacks still are).
//! Debug builds keep the default (PIE).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    if os == "linux" && env == "gnu" && release {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
