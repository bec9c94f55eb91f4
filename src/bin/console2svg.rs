//! The `console2svg` binary: see `console2svg --help`.

fn main() {
    console2svg::cli::exit_with("console2svg", console2svg::cli::console2svg::main());
}
