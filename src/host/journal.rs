//! The session journal: what happened in a session, in order, so it can be exported as a
//! scenario (`session export`) and replayed (`scenario run`).
//!
//! Actions (`launch`, `send`, `resize`, `capture`, `stop`) and conditions (`wait`, with whether
//! it matched) are exported; observations (`read`, `inspect`) are recorded but never exported.
//! Stored in the host's memory and, privately (0600), as JSON lines under the runtime
//! directory; removed with the session.
//!
//! Input typed at a hidden prompt (a password prompt: see [`Entry::send`]) is never kept:
//! such a send is journaled as [`Entry::HiddenSend`], each input that carries text reduced to
//! its kind ([`Sent::Secret`]), so neither the memory nor the file holds the secret.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::protocol::{Condition, Launch};
use crate::options::{AppearanceOptions, Options};
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
    /// A send, with its inputs in order, and the quiet gap it asked for after a paste or a
    /// bare Escape (ms; `None`: the default).
    Send {
        inputs: Vec<Input>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gap_ms: Option<u64>,
    },
    /// A send made while the program was at a hidden prompt (see [`Entry::send`]): its inputs
    /// in order, those that carry text kept only as their kind.
    HiddenSend {
        inputs: Vec<Sent>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gap_ms: Option<u64>,
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
        /// Crop and masking options from the command line (the `capture` and `render`
        /// sections; mask rule files as absolute paths).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        still: Option<Box<Options>>,
    },
    Read,
    Inspect,
    Stop,
}

impl Entry {
    /// The journal entry of a send of `inputs`; `hidden` when the program was at a hidden
    /// prompt when the send was requested (`Session::hidden_prompt`: echo off in canonical
    /// mode, the state getpass(3), sudo, ssh, `read -s` and `stty -echo` set). Then every input
    /// that carries text (`text`, `paste`, `raw-hex`, a `keys` naming a plain character) is
    /// kept only as its kind, and named keys (`Enter`, `Ctrl+C`, …) as they are.
    pub fn send(inputs: Vec<Input>, hidden: bool) -> Entry {
        if !hidden {
            return Entry::Send {
                inputs,
                gap_ms: None,
            };
        }
        Entry::HiddenSend {
            gap_ms: None,
            inputs: inputs
                .into_iter()
                .map(|i| {
                    if carries_text(&i) {
                        Sent::Secret {
                            secret: InputKind::of(&i),
                        }
                    } else {
                        Sent::Input(i)
                    }
                })
                .collect(),
        }
    }

    /// A send entry with the quiet gap its request asked for (ms; `None`: the default);
    /// other entries as they are.
    pub fn with_gap(mut self, gap: Option<u64>) -> Entry {
        if let Entry::Send { gap_ms, .. } | Entry::HiddenSend { gap_ms, .. } = &mut self {
            *gap_ms = gap;
        }
        self
    }

    /// True for observations, which an export leaves out.
    pub fn is_observation(&self) -> bool {
        matches!(self, Entry::Read | Entry::Inspect)
    }
}

/// One input of a [`Entry::HiddenSend`]: as given, or, for one that carries text, only its
/// kind (`{"secret": "text"}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Sent {
    /// Text typed at the hidden prompt, not kept.
    Secret {
        /// How it was sent.
        secret: InputKind,
    },
    /// An input kept as it was (a named key).
    Input(Input),
}

/// Which option an input came from (`--text`, `--keys`, `--paste`, `--raw-hex`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InputKind {
    #[default]
    Text,
    Keys,
    Paste,
    RawHex,
}

impl InputKind {
    /// The kind of `input`.
    pub fn of(input: &Input) -> InputKind {
        match input {
            Input::Text(_) => InputKind::Text,
            Input::Keys(_) => InputKind::Keys,
            Input::Paste(_) => InputKind::Paste,
            Input::RawHex(_) => InputKind::RawHex,
        }
    }

    /// The option's name without dashes: `text`, `keys`, `paste`, `raw-hex`.
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Text => "text",
            InputKind::Keys => "keys",
            InputKind::Paste => "paste",
            InputKind::RawHex => "raw-hex",
        }
    }

    /// `value` as an input of this kind.
    pub fn input(self, value: String) -> Input {
        match self {
            InputKind::Text => Input::Text(value),
            InputKind::Keys => Input::Keys(value),
            InputKind::Paste => Input::Paste(value),
            InputKind::RawHex => Input::RawHex(value),
        }
    }
}

/// Whether `input` carries text a secret could be in: anything but a named key (a `keys`
/// input naming one plain character, possibly with Shift, is text too).
fn carries_text(input: &Input) -> bool {
    match input {
        Input::Keys(name) => crate::term::keys::parse_key(name).is_ok_and(|k| {
            let m = k.modifiers();
            matches!(k.base(), crate::term::keys::KeyBase::Char(_)) && !m.ctrl && !m.alt
        }),
        _ => true,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_at_a_hidden_prompt_keeps_no_text() {
        let inputs = vec![
            Input::Text("hunter2".into()),
            Input::Paste("pasted".into()),
            Input::RawHex("41".into()),
            Input::Keys("x".into()),
            Input::Keys("Shift+X".into()),
            Input::Keys("Enter".into()),
            Input::Keys("Ctrl+C".into()),
        ];
        assert_eq!(
            Entry::send(inputs.clone(), false),
            Entry::Send {
                inputs: inputs.clone(),
                gap_ms: None,
            }
        );
        let hidden = Entry::send(inputs, true);
        let line = serde_json::to_string(&hidden).unwrap();
        assert_eq!(
            line,
            r#"{"kind":"hidden-send","inputs":[{"secret":"text"},{"secret":"paste"},{"secret":"raw-hex"},{"secret":"keys"},{"secret":"keys"},{"keys":"Enter"},{"keys":"Ctrl+C"}]}"#
        );
        let back: Entry = serde_json::from_str(&line).unwrap();
        assert_eq!(back, hidden);
    }
}
