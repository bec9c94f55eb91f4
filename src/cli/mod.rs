//! Command-line front ends: clap definitions and printing for both binaries, no logic beyond
//! mapping arguments onto the library.

pub mod appearance;
pub mod batch;
pub mod console2svg;
pub mod interactive;
pub mod live;
pub mod scenario;
pub mod session;
pub mod still;
pub mod termio;
pub mod termio_setup;
pub mod tmux;
pub mod video;

/// A failed command: its message (one line) and exit code.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub code: i32,
}

impl CliError {
    /// A failure with exit code 1.
    pub fn new(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: 1,
        }
    }
}

impl<E: std::fmt::Display> From<E> for CliError {
    fn from(e: E) -> CliError {
        CliError::new(e.to_string())
    }
}

/// Writes `text` to stdout, flushed. A closed or full stdout is an error, not a panic.
pub fn print_stdout(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| CliError::new(format!("cannot write to stdout: {e}")))
}

/// A command-line parse error as one line: clap's message with its tips, without the usage
/// block (`unexpected argument '--bogus' found`, `invalid value '0' for '--width <WIDTH>': 0 is
/// not in 1..=500`, `the following required arguments were not provided: --text <TEXT>`).
pub fn clap_error_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut main = Vec::new();
    let mut tips = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        match line.strip_prefix("tip: ") {
            Some(tip) => tips.push(tip),
            None => main.push(line.strip_prefix("error: ").unwrap_or(line)),
        }
    }
    let mut out = main.join(" ");
    if !tips.is_empty() {
        out.push_str(&format!(" ({})", tips.join("; ")));
    }
    out
}

/// Prints `<bin>: error: <message>` on stderr (both binaries' readable error line).
pub fn print_error(bin: &str, message: &str) {
    eprintln!("{bin}: error: {message}");
}

/// Runs `main`, printing an error as `<bin>: error: <message>` on stderr and exiting with its code.
pub fn exit_with(bin: &str, result: Result<(), CliError>) -> ! {
    match result {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            print_error(bin, &e.message);
            std::process::exit(e.code)
        }
    }
}
