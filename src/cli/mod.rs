//! Command-line front ends: clap definitions and printing for both binaries, no logic beyond
//! mapping arguments onto the library.

pub mod console2svg;
pub mod session;

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

/// Runs `main`, printing an error as `<bin>: error: <message>` on stderr and exiting with its code.
pub fn exit_with(bin: &str, result: Result<(), CliError>) -> ! {
    match result {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("{bin}: error: {}", e.message);
            std::process::exit(e.code)
        }
    }
}
