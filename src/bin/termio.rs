//! TEMPORARY `termio` binary: only `termio hooks …` and `termio skill …`, so the installers can be
//! tested through a real binary. Replaced by the real termio binary at merge.

use clap::Parser;

#[derive(Parser, Debug)]
#[command(name = "termio", version)]
struct Cli {
    /// Print one JSON document.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: console2svg::cli::termio_setup::SetupCommand,
}

fn main() {
    let cli = Cli::parse();
    std::process::exit(console2svg::cli::termio_setup::run(cli.command, cli.json));
}
