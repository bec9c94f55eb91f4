//! Spawning a program in a pseudo-terminal: the environment policy, its own process group,
//! resizing, process-group kill and exit status.
//!
//! Environment policy (shared/spec/console2svg-contract.md, capture options): the child inherits
//! the caller's environment, with `TERM=xterm-256color`, `COLORTERM=truecolor` and
//! `FORCE_COLOR=3` set unless `--no-colorenv`, `CI` and `TF_BUILD` removed unless
//! `--no-delete-envs`, and `COLUMNS`/`LINES` set to the terminal size.

pub mod group;
pub mod pump;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

/// What to run and how.
#[derive(Debug, Clone)]
pub struct SpawnSpec {
    /// The program and its arguments. A single element is a shell command line and runs
    /// through `/bin/sh -c`.
    pub argv: Vec<OsString>,
    /// Working directory (the caller's, normally).
    pub cwd: PathBuf,
    /// Terminal size in cells.
    pub cols: u16,
    pub rows: u16,
    /// Set `TERM`, `COLORTERM`, `FORCE_COLOR` (default true; `--no-colorenv` clears it).
    pub color_env: bool,
    /// Remove `CI` and `TF_BUILD` (default true; `--no-delete-envs` clears it).
    pub delete_ci_env: bool,
    /// Extra variables set last, over everything above (e.g. `TERMIO_SESSION` and
    /// `TERMIO_PROJECT` for termio sessions).
    pub env: Vec<(String, String)>,
    /// The environment the program starts from: the caller's, sent with its request (see
    /// [`caller_env`]), so a session sees the variables and `PATH` of the shell that started
    /// it rather than the host's. `None`: this process's environment (one-shot captures and
    /// scenario runs, where this process is the caller). The policy above (colour variables,
    /// CI removal, `COLUMNS`/`LINES`, `env`) applies on top, and the program is looked up on
    /// this environment's `PATH`.
    pub base_env: Option<Vec<(String, String)>>,
}

/// This process's environment as a request carries it to the host ([`SpawnSpec::base_env`]).
/// Variables whose name or value is not UTF-8 are left out (JSON carries text).
pub fn caller_env() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// Why a program could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("no command given")]
    Empty,
    #[error("cannot open a pseudo-terminal: {0}")]
    Pty(String),
    #[error("cannot start '{program}': {reason}")]
    Start { program: String, reason: String },
}

/// A running program in a PTY. Dropping it does not kill the program; call
/// [`PtyProcess::kill_group`].
pub struct PtyProcess {
    master: Box<dyn MasterPty + Send>,
    child: Box<dyn Child + Send + Sync>,
    pid: u32,
}

/// How a program ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exit {
    /// The exit code; for a program killed by a signal, 128 + the signal number when known.
    pub code: i32,
    /// The signal's name when a signal ended it.
    pub signal: Option<String>,
}

impl SpawnSpec {
    /// The argv actually executed: a lone argument that looks like a shell command line
    /// (whitespace or shell syntax in it) becomes `/bin/sh -c <arg>`, unless it is the path of an
    /// executable file; a lone plain word is run directly, so a missing program is reported as
    /// such.
    pub fn effective_argv(&self) -> Vec<OsString> {
        let shell_line = |a: &OsString| {
            a.as_encoded_bytes()
                .iter()
                .any(|b| b.is_ascii_whitespace() || b"|&;<>()$`\\\"'*?[]#~=%{}!".contains(b))
        };
        // A lone path to an executable file runs as it is, spaces in its name and all.
        let program_path = |a: &OsString| {
            a.as_encoded_bytes().contains(&b'/')
                && not_executable(a, &self.cwd, "".as_ref()).is_none()
        };
        if self.argv.len() == 1 && shell_line(&self.argv[0]) && !program_path(&self.argv[0]) {
            vec!["/bin/sh".into(), "-c".into(), self.argv[0].clone()]
        } else {
            self.argv.clone()
        }
    }
}

/// Starts `spec` in a new PTY, in its own session and process group (`setsid`), with the
/// PTY as its controlling terminal.
///
/// Returns the process plus a reader of its output and a writer to its input.
///
/// Errors: [`SpawnError::Empty`] for an empty argv, [`SpawnError::Pty`] when no PTY can be
/// opened, [`SpawnError::Start`] when the program cannot be executed (not found, not
/// executable, bad cwd).
#[allow(clippy::type_complexity)]
pub fn spawn(
    spec: &SpawnSpec,
) -> Result<(PtyProcess, Box<dyn Read + Send>, Box<dyn Write + Send>), SpawnError> {
    let argv = spec.effective_argv();
    if argv.is_empty() || argv[0].is_empty() {
        return Err(SpawnError::Empty);
    }
    let program = argv[0].to_string_lossy().into_owned();
    if !spec.cwd.is_dir() {
        return Err(SpawnError::Start {
            program,
            reason: format!("working directory {} does not exist", spec.cwd.display()),
        });
    }
    let search = match &spec.base_env {
        Some(env) => env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.into())
            .unwrap_or_default(),
        None => std::env::var_os("PATH").unwrap_or_default(),
    };
    if let Some(reason) = not_executable(&argv[0], &spec.cwd, &search) {
        return Err(SpawnError::Start { program, reason });
    }
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: spec.rows,
            cols: spec.cols,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(|e| SpawnError::Pty(e.to_string()))?;
    let mut cmd = CommandBuilder::from_argv(argv);
    cmd.cwd(&spec.cwd);
    let term_set = match &spec.base_env {
        Some(env) => {
            cmd.env_clear();
            for (k, v) in env {
                cmd.env(k, v);
            }
            env.iter().any(|(k, _)| k == "TERM")
        }
        None => std::env::var_os("TERM").is_some(),
    };
    if spec.color_env {
        cmd.env("TERM", "xterm-256color");
        cmd.env("COLORTERM", "truecolor");
        cmd.env("FORCE_COLOR", "3");
    } else if !term_set {
        cmd.env("TERM", "xterm-256color");
    }
    if spec.delete_ci_env {
        cmd.env_remove("CI");
        cmd.env_remove("TF_BUILD");
    }
    cmd.env("COLUMNS", spec.cols.to_string());
    cmd.env("LINES", spec.rows.to_string());
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    let child = pair
        .slave
        .spawn_command(cmd)
        .map_err(|e| SpawnError::Start {
            program: program.clone(),
            reason: e
                .downcast_ref::<std::io::Error>()
                .map(|io| io.to_string())
                .unwrap_or_else(|| e.to_string()),
        })?;
    // The parent must not keep the slave open, or reads never see end-of-file.
    drop(pair.slave);
    let pid = child.process_id().unwrap_or(0);
    let reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| SpawnError::Pty(e.to_string()))?;
    let writer = pair
        .master
        .take_writer()
        .map_err(|e| SpawnError::Pty(e.to_string()))?;
    Ok((
        PtyProcess {
            master: pair.master,
            child,
            pid,
        },
        reader,
        writer,
    ))
}

impl PtyProcess {
    /// The child's process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The exit, if the program has ended (non-blocking).
    pub fn try_exit(&mut self) -> Option<Exit> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(convert_exit(&status)),
            _ => None,
        }
    }

    /// Sets the PTY size in cells; the kernel sends SIGWINCH to the foreground process group.
    pub fn resize(&self, cols: u16, rows: u16) -> std::io::Result<()> {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| std::io::Error::other(e.to_string()))
    }

    /// Ends the whole process group: SIGTERM, up to `grace` for the leader to exit, then
    /// SIGKILL; reaps the leader. Returns its exit.
    pub fn kill_group(&mut self, grace: Duration) -> Option<Exit> {
        signal_group(self.pid, rustix::process::Signal::TERM);
        signal_group(self.pid, rustix::process::Signal::HUP);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Some(exit) = self.try_exit() {
                signal_group(self.pid, rustix::process::Signal::KILL);
                return Some(exit);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        signal_group(self.pid, rustix::process::Signal::KILL);
        self.child.wait().ok().map(|s| convert_exit(&s))
    }
}

/// Why `program` cannot be executed (resolved against `PATH` when it has no `/`, else against
/// `cwd`), or `None` when it can.
fn not_executable(
    program: &std::ffi::OsStr,
    cwd: &std::path::Path,
    search: &std::ffi::OsStr,
) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let path = std::path::Path::new(program);
    if program.as_encoded_bytes().contains(&b'/') {
        let full = cwd.join(path);
        return match std::fs::metadata(&full) {
            Err(e) => Some(e.to_string()),
            Ok(_) if !runnable(&full) => Some("not an executable file".into()),
            Ok(_) => None,
        };
    }
    if std::env::split_paths(search).any(|dir| runnable(&cwd.join(dir).join(path))) {
        None
    } else {
        Some("command not found".into())
    }
}

impl PtyProcess {
    /// Splits the process into its PTY master (for resizing) and its child handle (for
    /// waiting), for owners that wait on one thread and resize from another.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(self) -> (Box<dyn MasterPty + Send>, Box<dyn Child + Send + Sync>, u32) {
        (self.master, self.child, self.pid)
    }
}

/// Converts portable-pty's exit status into an [`Exit`].
pub fn exit_of(status: &portable_pty::ExitStatus) -> Exit {
    convert_exit(status)
}

fn signal_group(pid: u32, signal: rustix::process::Signal) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
        let _ = rustix::process::kill_process_group(pid, signal);
    }
}

fn convert_exit(status: &portable_pty::ExitStatus) -> Exit {
    let signal = status.signal().map(str::to_string);
    let code = match &signal {
        Some(name) => 128 + signal_number(name).unwrap_or(0),
        None => status.exit_code() as i32,
    };
    Exit { code, signal }
}

/// Signal numbers by the description portable-pty reports (strsignal text).
fn signal_number(name: &str) -> Option<i32> {
    (1..32).find(|&n| {
        // SAFETY: strsignal returns a pointer to a static or thread-local string.
        let s = unsafe { std::ffi::CStr::from_ptr(libc_strsignal(n)) };
        s.to_string_lossy() == name
    })
}

extern "C" {
    #[link_name = "strsignal"]
    fn libc_strsignal(sig: i32) -> *const std::ffi::c_char;
}
