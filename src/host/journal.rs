//! The session journal: what happened in a session, in order, so it can be exported as a
//! scenario (`session export`) and replayed (`scenario run`).
//!
//! Actions (`launch`, `send`, `resize`, `capture`, `stop`) and conditions (`wait`, with whether
//! it matched) are exported; observations (`read`, `inspect`) are recorded but never exported.
//! Stored in the host's memory and, privately (0600), as JSON lines under the runtime
//! directory; removed with the session.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::protocol::{Condition, Launch};
use crate::options::AppearanceOptions;
use crate::term::keys::Input;

/// One journal entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Entry {
    /// How the program was started.
    Launch(Launch),
    /// A send, with its inputs in order.
    Send {
        inputs: Vec<Input>,
    },
    Resize {
        width: u16,
        height: u16,
    },
    /// A wait and how it ended.
    Wait {
        condition: Condition,
        timeout_ms: Option<u64>,
        matched: bool,
    },
    /// A capture written by a client: the output path as given, resolved against `cwd`, and the
    /// appearance options from the command line.
    Capture {
        output: String,
        cwd: String,
        options: Box<AppearanceOptions>,
        /// Pixel scale of a raster output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scale: Option<f32>,
    },
    Read,
    Inspect,
    Stop,
}

impl Entry {
    /// True for observations, which an export leaves out.
    pub fn is_observation(&self) -> bool {
        matches!(self, Entry::Read | Entry::Inspect)
    }
}

/// A session's journal: entries in memory, mirrored to a private file.
#[derive(Debug)]
pub struct Journal {
    entries: Vec<Entry>,
    file: Option<PathBuf>,
}

impl Journal {
    /// A journal mirrored to `file` (created 0600; `None` keeps it in memory only).
    pub fn new(file: Option<PathBuf>) -> Journal {
        Journal {
            entries: Vec::new(),
            file,
        }
    }

    /// Appends an entry (and a line to the file; a failed file write loses only the mirror).
    pub fn record(&mut self, entry: Entry) {
        if let Some(path) = &self.file {
            let line = serde_json::to_string(&entry).unwrap_or_default();
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(path);
            if let Ok(mut f) = file {
                let _ = writeln!(f, "{line}");
            }
        }
        self.entries.push(entry);
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Deletes the file.
    pub fn remove_file(&self) {
        if let Some(path) = &self.file {
            let _ = std::fs::remove_file(path);
        }
    }
}
