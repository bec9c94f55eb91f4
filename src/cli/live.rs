//! `console2svg live-server`: argument mapping onto [`crate::live`].

use std::ffi::OsString;
use std::path::Path;

use clap::Args;

use super::CliError;
use crate::host::client;
use crate::host::protocol::{ErrorCode, HostError, Launch, Request};
use crate::live::{self, Fit, Listener, Source};

/// `live-server` options.
#[derive(Args, Debug)]
pub struct LiveArgs {
    /// Where to listen, HOST:PORT or :PORT (loopback); port 0 picks a free port and the
    /// address served is printed. Default: the config's `live-server.host`, else
    /// 127.0.0.1:38473.
    #[arg(value_name = "HOST:PORT")]
    addr: Option<String>,
    /// Show an existing session (an id from `session list`) instead of starting one.
    #[arg(long, value_name = "ID", conflicts_with_all = ["termio", "command"])]
    session: Option<String>,
    /// Show the session in front of the termio project of the current directory, following
    /// `termio sessions focus`.
    #[arg(long, conflicts_with = "command")]
    termio: bool,
    /// Most frames a second sent to the page (1–60).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=60))]
    fps: u32,
    /// How the page fits the picture: contain, width, height or actual (1:1); a page's
    /// `?fit=` overrides it.
    #[arg(long, value_enum, default_value_t = Fit::Contain)]
    fit: Fit,
    /// Columns of a session started here (1–500).
    #[arg(short = 'w', long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=500))]
    width: u16,
    /// Rows of a session started here (1–500).
    #[arg(short = 'h', long, default_value_t = 24, value_parser = clap::value_parser!(u16).range(1..=500))]
    height: u16,
    #[command(flatten)]
    appearance: super::appearance::AppearanceArgs,
    /// The program to start in a new session and show, after `--` (default: $SHELL). It is
    /// stopped when the server stops.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

/// Runs `live-server`: binds first (a port in use fails before anything starts), starts or
/// finds the session, prints the page's address, and serves until Ctrl+C or SIGTERM.
///
/// Errors: one line naming the bad input: the address, an unknown session, a termio
/// directory that is not a project, a bad config or appearance.
pub fn run(args: LiveArgs, config: Option<&Path>) -> Result<(), CliError> {
    client::install_interrupt_handler();
    let options = crate::options::load_config(config)?;
    let appearance = options
        .appearance()
        .overlay(&args.appearance.to_options())
        .resolve(None)?;
    let still = options.still()?;
    let appearance = still.mask_header(appearance);
    let configured = options.live_server.as_ref().and_then(|l| l.host.clone());
    let addr = live::listen_address(args.addr.as_deref().or(configured.as_deref()));
    let listener = Listener::bind(&addr)?;
    let (source, started) = match (&args.session, args.termio) {
        (Some(id), _) => (Source::Session(id.clone()), None),
        (None, true) => (
            Source::Focus {
                project: project()?,
            },
            None,
        ),
        (None, false) => {
            let id = start(&args, config).map_err(|e| e.message)?;
            (Source::Session(id.clone()), Some(id))
        }
    };
    let shown = match &source {
        Source::Session(id) => format!("session {id}"),
        Source::Focus { project } => format!("the focused session of {project}"),
    };
    let config = live::Config {
        fps: args.fps,
        fit: args.fit,
        appearance,
        still,
        no_cursor: args.appearance.no_cursor,
    };
    let url = format!("http://{}/", listener.addr());
    // Printed once the source is open: a reader of this line can load the page at once.
    let announce = || {
        let _ = super::print_stdout(&format!(
            "live-server: {url} shows {shown} (Ctrl+C stops)\n"
        ));
    };
    let served = serve(listener, source, config, announce);
    if let Some(id) = started {
        let _ = client::request_despite_interrupt(&Request::Stop {
            id: id.as_str().into(),
        });
    }
    served.map_err(|e| match e.code {
        ErrorCode::SessionNotFound => CliError {
            message: format!(
                "unknown session {}: no such session (see `console2svg session list`)",
                args.session.as_deref().unwrap_or("")
            ),
            code: 1,
        },
        _ => CliError::new(e.message),
    })
}

/// [`live::serve`] until interrupted, calling `announce` once the source is open.
fn serve(
    listener: Listener,
    source: Source,
    config: live::Config,
    announce: impl FnOnce(),
) -> Result<(), HostError> {
    let mut announce = Some(announce);
    live::serve(listener, source, config, || {
        if let Some(a) = announce.take() {
            a();
        }
        client::interrupted()
    })
}

/// The termio project of the current directory, as `termio sessions list` names it.
///
/// Errors: termio's, as one line (`no_scope`, `disabled`, the host's).
fn project() -> Result<String, CliError> {
    use crate::termio::verbs::{self, Ctx};
    Ctx::from_env()
        .and_then(|ctx| verbs::list(&ctx))
        .map(|l| l.body.project)
        .map_err(|e| CliError::new(format!("--termio: {}", e.message)))
}

/// Starts the session `live-server -- cmd` shows; returns its id.
fn start(args: &LiveArgs, config: Option<&Path>) -> Result<String, HostError> {
    let io = |e: std::io::Error| HostError::new(ErrorCode::IoError, e.to_string());
    let cwd = std::env::current_dir().map_err(io)?;
    let options = crate::options::load_config(config)
        .map_err(|e| HostError::new(ErrorCode::InvalidRequest, e))?;
    let environment = options.environment.clone().unwrap_or_default();
    let argv: Vec<String> = if args.command.is_empty() {
        vec![std::env::var("SHELL").unwrap_or_else(|_| "/bin/sh".into())]
    } else {
        args.command
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect()
    };
    let reply = client::request(&Request::Start(Launch {
        argv,
        cwd: cwd.to_string_lossy().into_owned(),
        width: args.width,
        height: args.height,
        color_env: environment.color_env(false),
        delete_ci_env: environment.delete_ci_env(false),
        env: Some(crate::pty::caller_env()),
        scrollback: None,
        record: false,
    }))?;
    reply["sessionId"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| HostError::new(ErrorCode::SessionError, format!("no session id in {reply}")))
}
