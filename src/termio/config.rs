//! The termio config file: `$XDG_CONFIG_HOME/termio/config.yaml`, else
//! `$HOME/.config/termio/config.yaml` (YAML; unknown keys are ignored).
//!
//! `session_control: false` turns the `termio sessions` verbs off: each then fails with
//! `disabled` (the spec's Settings ▸ Agents ▸ Session control switch). Absent, it is on.
//! `stall_after` and `stall_lines` set the stall alarm's thresholds ([`super::stall`]).

use std::path::PathBuf;

use serde::Deserialize;

/// The config file's path, or `None` when neither `XDG_CONFIG_HOME` nor `HOME` is set.
pub fn config_file() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("XDG_CONFIG_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|h| h.join(".config")))
        .map(|d| d.join("termio").join("config.yaml"))
}

/// The settings termio reads.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Config {
    /// Whether `termio sessions` is enabled (default true).
    pub session_control: Option<bool>,
    /// Quiet time before the stall alarm (`20m`, `90s`, `500ms`; default 20 min). See
    /// [`super::stall`].
    pub stall_after: Option<String>,
    /// Transcript or output growth, in lines, that counts as progress for the stall alarm
    /// (default 10).
    pub stall_lines: Option<u64>,
}

impl Config {
    /// Reads the config file; a missing or empty file is the defaults.
    ///
    /// Errors: a message naming the file when it cannot be read or is not valid YAML.
    pub fn load() -> Result<Config, String> {
        let Some(file) = config_file() else {
            return Ok(Config::default());
        };
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
        };
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        let config = serde_yaml_ng::from_str::<Option<Config>>(&text)
            .map(Option::unwrap_or_default)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        if let Some(after) = &config.stall_after {
            match crate::duration::parse_duration(after) {
                Ok(d) if !d.is_zero() => {}
                Ok(_) => {
                    return Err(format!(
                        "{}: stall_after must be more than 0",
                        file.display()
                    ))
                }
                Err(e) => return Err(format!("{}: stall_after: {e}", file.display())),
            }
        }
        Ok(config)
    }

    /// Whether session control is on.
    pub fn session_control(&self) -> bool {
        self.session_control.unwrap_or(true)
    }
}
