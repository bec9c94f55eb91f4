//! The `termio` binary: see `termio --help` and `termio sessions --help`.

fn main() {
    std::process::exit(console2svg::cli::termio::main());
}
