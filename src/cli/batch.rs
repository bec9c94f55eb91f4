//! `console2svg batch markdown|restore`: keep every docs image in sync with real output (see
//! [`crate::batch`]).

use std::path::PathBuf;

use clap::Subcommand;

use super::CliError;
use crate::batch::{self, restore::RestoreOptions, MarkdownOptions, Report};
use crate::output::Format;

/// `batch` subcommands.
#[derive(Subcommand, Debug)]
pub enum BatchCommand {
    /// Regenerate the picture of every `<!-- c2s:: … -->` marker in a Markdown/MDX tree and re-link it.
    Markdown {
        /// The docs tree.
        #[arg(short = 'i', long = "input", default_value = "docs")]
        input: PathBuf,
        /// Where pictures go (markers' -o paths are relative to it).
        #[arg(short = 'o', long = "output", default_value = "assets")]
        output: PathBuf,
        /// Only files matching GLOB (relative to the input directory); repeatable.
        #[arg(long = "filter", value_name = "GLOB")]
        filter: Vec<String>,
        /// Picture format of markers without -o.
        #[arg(long, value_enum, default_value = "svg")]
        format: Format,
        /// Report what would be generated and rewritten; run and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Draw a placeholder for missing pictures instead of running commands.
        #[arg(long)]
        placeholder: bool,
        /// Rerun every marker even when its picture exists.
        #[arg(long)]
        force: bool,
        /// Write a JSON manifest of every asset (path, size, SHA-256).
        #[arg(long, value_name = "PATH")]
        manifest: Option<PathBuf>,
        /// Markers run at the same time (default: the number of CPUs, at most 8).
        #[arg(short = 'j', long, value_parser = clap::value_parser!(u16).range(1..=64))]
        jobs: Option<u16>,
    },
    /// Restore the assets a manifest lists from the manifest's directory, verifying size and SHA-256.
    Restore {
        /// The manifest (its directory holds the assets).
        manifest: PathBuf,
        /// Where to restore them.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Replace files that exist with other content.
        #[arg(long)]
        force: bool,
        /// Remove files under the output directory the manifest does not list.
        #[arg(long)]
        prune: bool,
        /// Report what would be done; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// Runs a `batch` subcommand: progress on stdout, failures on stderr (`file:line: message`),
/// exit 1 when anything failed.
pub fn run(command: BatchCommand, config: Option<PathBuf>) -> Result<(), CliError> {
    let report = match command {
        BatchCommand::Markdown {
            input,
            output,
            filter,
            format,
            dry_run,
            placeholder,
            force,
            manifest,
            jobs,
        } => {
            let exe = std::env::current_exe()
                .map_err(|e| CliError::new(format!("cannot find this program: {e}")))?;
            let jobs = jobs.map(usize::from).unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(2, |n| n.get().min(8))
            });
            batch::markdown(&MarkdownOptions {
                input,
                output,
                filters: filter,
                format,
                dry_run,
                placeholder,
                force,
                manifest,
                jobs,
                exe,
                config,
            })?
        }
        BatchCommand::Restore {
            manifest,
            output,
            force,
            prune,
            dry_run,
        } => batch::restore::restore(&RestoreOptions {
            manifest,
            output,
            force,
            prune,
            dry_run,
        })?,
    };
    print(&report)
}

fn print(report: &Report) -> Result<(), CliError> {
    let mut out = String::new();
    for l in &report.lines {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&format!(
        "{} entries: {} written, {} up to date, {} failed\n",
        report.markers,
        report.generated,
        report.up_to_date,
        report.failures.len()
    ));
    super::print_stdout(&out)?;
    for f in &report.failures {
        super::print_error("console2svg", f);
    }
    if report.failures.is_empty() {
        Ok(())
    } else {
        Err(CliError::new(format!(
            "{} failure(s); see above",
            report.failures.len()
        )))
    }
}
