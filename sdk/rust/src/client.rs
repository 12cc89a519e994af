//! The session with the referee: configuration, connection, the Play stream, errors
//! and the process's exit status.

use std::any::Any;
use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::pin::pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tonic::codegen::http::Uri;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Status, Streaming};

use crate::bot::{Bot, BotError, Decision};
use crate::choice::{Choice, action_for, cut};
use crate::convert::{events_from_proto, millis};
use crate::frames::{FRAMES_FORMAT, Pipes, STDIO_VARIABLE, take_over_stdout};
use crate::proto::referee_client::RefereeClient;
use crate::proto::{self as pb, bot_message, referee_message};
use crate::types::{ActionResult, MatchResult, Observation, Outcome, RuleSet, Welcome};

/// The protocol version this SDK speaks.
pub const PROTOCOL_VERSION: u32 = 1;
/// The largest message either side may send.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// The most the referee keeps of a bot's name and of its version.
pub const MAX_NAME_BYTES: usize = 64;
/// The metadata key that carries the seat token (it is in the Hello message too).
pub const TOKEN_METADATA_KEY: &str = "spite-token";
/// How long to wait for the referee to accept the connection, unless configured.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to let the referee end the stream itself after MatchOver.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Exit status of [`run`]: the match was played to its end.
pub const EXIT_OK: u8 = 0;
/// Exit status of [`run`]: the referee refused or ended the stream, or the bot failed.
pub const EXIT_FAILED: u8 = 1;
/// Exit status of [`run`]: no address or no token.
pub const EXIT_CONFIG: u8 = 2;

/// How much the SDK writes on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// One line per decision, with its time.
    Debug,
    /// The session's milestones: welcome, each game's start and end, the match's end.
    Info,
    /// Surprises: a protocol version mismatch, a message this SDK does not know.
    Warning,
    Error,
}

impl LogLevel {
    pub(crate) fn from_env() -> LogLevel {
        let text = std::env::var("SPITE_LOG_LEVEL").unwrap_or_default();
        match text.trim().to_ascii_uppercase().as_str() {
            "DEBUG" => LogLevel::Debug,
            "INFO" => LogLevel::Info,
            "" | "WARNING" | "WARN" => LogLevel::Warning,
            "ERROR" => LogLevel::Error,
            other => {
                eprintln!("SPITE_LOG_LEVEL={other:?} is not a logging level; using WARNING");
                LogLevel::Warning
            }
        }
    }
}

/// The configuration of one bot process. [`run`] fills the empty fields from the
/// environment ([`Options::from_env`]); [`play_match`] uses them as they are.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Shown in logs and leaderboards (cut to [`MAX_NAME_BYTES`]); default: the program's name.
    pub name: String,
    /// The bot's version (cut to [`MAX_NAME_BYTES`]).
    pub version: String,
    /// The referee's address: `host:port` or `unix:/absolute/path` (env `SPITE_ADDRESS`).
    pub address: String,
    /// The seat's secret token (env `SPITE_TOKEN`, or the file named by `SPITE_TOKEN_FILE`).
    pub token: String,
    /// How long to wait for the referee (env `SPITE_CONNECT_TIMEOUT`, in seconds);
    /// default [`DEFAULT_CONNECT_TIMEOUT`].
    pub connect_timeout: Option<Duration>,
    /// How much to log on stderr (env `SPITE_LOG_LEVEL`: `DEBUG`, `INFO`, `WARNING`
    /// (the default) or `ERROR`); [`play_match`] logs errors only when unset.
    pub log_level: Option<LogLevel>,
}

impl Options {
    /// Options with a name and a version, the rest to come from the environment.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Options {
        Options { name: name.into(), version: version.into(), ..Options::default() }
    }

    /// These options with their empty fields filled from the environment:
    ///
    /// | variable | meaning |
    /// |---|---|
    /// | `SPITE_ADDRESS` | the referee: `host:port` or `unix:/path` |
    /// | `SPITE_TOKEN` | the seat's secret token, or |
    /// | `SPITE_TOKEN_FILE` | a file holding it |
    /// | `SPITE_CONNECT_TIMEOUT` | seconds to wait for the referee (30) |
    /// | `SPITE_LOG_LEVEL` | `DEBUG`, `INFO`, `WARNING` (default) or `ERROR` |
    ///
    /// Configuration never comes from the command line: a token in argv is visible to
    /// every user of the machine.
    pub fn from_env(mut self) -> Result<Options, Error> {
        if self.name.is_empty() {
            self.name = program_name();
        }
        if self.address.is_empty() {
            self.address = std::env::var("SPITE_ADDRESS").unwrap_or_default().trim().to_owned();
            if self.address.is_empty() {
                return Err(Error::Config("no referee address: set SPITE_ADDRESS (host:port or unix:/path)".into()));
            }
        }
        if self.token.is_empty() {
            self.token = token_from_env()?;
        }
        if self.connect_timeout.is_none() {
            let text = std::env::var("SPITE_CONNECT_TIMEOUT").unwrap_or_default();
            let text = text.trim();
            if !text.is_empty() {
                let seconds = text.parse::<f64>().ok().filter(|s| s.is_finite() && *s > 0.0).ok_or_else(|| {
                    Error::Config(format!("SPITE_CONNECT_TIMEOUT must be a positive number of seconds, got {text:?}"))
                })?;
                self.connect_timeout = Some(Duration::from_secs_f64(seconds));
            }
        }
        if self.log_level.is_none() {
            self.log_level = Some(LogLevel::from_env());
        }
        Ok(self)
    }
}

pub(crate) fn program_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|arg0| PathBuf::from(arg0).file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "bot".into())
}

fn token_from_env() -> Result<String, Error> {
    let token = std::env::var("SPITE_TOKEN").unwrap_or_default();
    if !token.trim().is_empty() {
        return Ok(token.trim().to_owned());
    }
    let path = std::env::var("SPITE_TOKEN_FILE").unwrap_or_default();
    if path.is_empty() {
        return Err(Error::Config(
            "no seat token: set SPITE_TOKEN, or SPITE_TOKEN_FILE to a file holding it \
            (the referee or `spite play` does this for the bots it starts)"
                .into(),
        ));
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|error| Error::Config(format!("cannot read the seat token from SPITE_TOKEN_FILE={path}: {error}")))?;
    close_inherited(&path);
    let token = text.trim();
    if token.is_empty() {
        return Err(Error::Config(format!("the token file {path} is empty")));
    }
    Ok(token.to_owned())
}

/// The referee's bots get `SPITE_TOKEN_FILE=/dev/fd/N`, an inherited pipe holding the token
/// once: closed once read.
#[cfg(unix)]
fn close_inherited(path: &str) {
    use std::os::fd::FromRawFd;
    if let Some(Ok(fd)) = path.strip_prefix("/dev/fd/").map(str::parse::<i32>) {
        // SAFETY: the descriptor was inherited for the token alone; nothing else in this process uses it.
        drop(unsafe { std::fs::File::from_raw_fd(fd) });
    }
}

#[cfg(not(unix))]
fn close_inherited(_path: &str) {}

/// `SPITE_BOT_SEED`, the seed the referee hands a bot for its own randomness (0 when
/// unset; text that is not a number is hashed), so that a match replayed with the same
/// seeds sees the same choices.
pub fn bot_seed() -> u64 {
    let text = std::env::var("SPITE_BOT_SEED").unwrap_or_default();
    let text = text.trim();
    if text.is_empty() {
        return 0;
    }
    if let Ok(seed) = text.parse::<i64>() {
        return seed as u64;
    }
    if let Ok(seed) = text.parse::<u64>() {
        return seed;
    }
    // FNV-1a, as the Go SDK hashes it.
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// Why a match could not be played to its end.
#[derive(Debug)]
pub enum Error {
    /// The bot cannot start: no address, no token, a bad address.
    Config(String),
    /// The referee refused the bot or ended the stream before the match was over.
    Referee(RefereeError),
    /// [`Bot::decide`] returned an error.
    Decide { decision: u64, source: BotError },
    /// The bot's code panicked (the panic itself is on stderr, with its location).
    Panic(String),
    /// The referee sent something this SDK cannot read.
    Protocol(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(message) | Error::Protocol(message) => f.write_str(message),
            Error::Referee(error) => error.fmt(f),
            Error::Decide { decision, source } => write!(f, "decide failed on decision {decision}: {source}"),
            Error::Panic(message) => write!(f, "the bot panicked: {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Decide { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// The referee refused the bot or ended the stream before the match was over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefereeError {
    /// The stream's gRPC status; `None` when the referee closed it without one.
    pub code: Option<Code>,
    /// The referee's own words, if any.
    pub details: String,
    /// What the status means for the bot's author.
    pub meaning: String,
}

impl fmt::Display for RefereeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            None => f.write_str(&self.meaning),
            Some(code) => {
                let details = if self.details.is_empty() { "no details" } else { &self.details };
                write!(f, "{} ({}: {details})", self.meaning, code_name(code))
            }
        }
    }
}

impl From<Status> for RefereeError {
    fn from(status: Status) -> RefereeError {
        RefereeError {
            code: Some(status.code()),
            details: status.message().to_owned(),
            meaning: meaning(status.code()),
        }
    }
}

/// What each status the referee ends a stream with means for the bot's author
/// (referee.proto, rpc Play).
fn meaning(code: Code) -> String {
    match code {
        Code::Unauthenticated => "the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE)".into(),
        Code::AlreadyExists => "the referee already has a bot on this seat (is a second copy running?)".into(),
        Code::FailedPrecondition => format!(
            "the referee does not speak protocol version {PROTOCOL_VERSION} \
            (update the SDK) or refused the seat now"
        ),
        Code::InvalidArgument => "the referee rejected a message from this bot as malformed".into(),
        Code::ResourceExhausted => format!("a message exceeded the {} KiB limit", MAX_MESSAGE_BYTES >> 10),
        Code::Unavailable => "the referee is unavailable (not running, or it went away)".into(),
        Code::Cancelled => "the stream was cancelled (the referee stopped the match or shut down)".into(),
        Code::DeadlineExceeded => "the referee's deadline passed".into(),
        Code::Unimplemented => "the server at this address is not a Spite Arena referee".into(),
        _ => "the referee ended the stream with an error".into(),
    }
}

/// A status code as the gRPC specification spells it: `UNAUTHENTICATED`.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

fn closed_early() -> Error {
    Error::Referee(RefereeError {
        code: None,
        details: String::new(),
        meaning: "the referee closed the stream before the match was over".into(),
    })
}

/// Plays one match as the process's main function, configured by `options` and the
/// environment ([`Options::from_env`]), and returns the exit status: [`EXIT_OK`] after
/// the match, [`EXIT_CONFIG`] when the address or token is missing, [`EXIT_FAILED`]
/// when the referee refused or ended the stream, or the bot failed (`decide` returned
/// an error or panicked); each failure is explained on stderr.
///
/// ```no_run
/// use spite::{policies, Decision, Observation, Options};
/// fn main() -> std::process::ExitCode {
///     let mut bot = |obs: &Observation, _: &Decision| Ok(policies::greedy(obs).into());
///     spite::run(&mut bot, Options::new("mybot", "0.1.0"))
/// }
/// ```
///
/// Started by the referee on its pipes (`SPITE_STDIO=protobuf`: the manifest says
/// `transport = "stdio"`, `stdio_format = "protobuf"`) it plays there, on protobuf frames
/// ([`play_pipes`]); any other `SPITE_STDIO` exits [`EXIT_CONFIG`].
///
/// With `SPITE_ARENA` and `SPITE_BOT_KEY` set, it joins that ladder instead and plays
/// every game it is given until stopped (see [`crate::arena`]).
pub fn run(bot: &mut dyn Bot, options: Options) -> ExitCode {
    match std::env::var(STDIO_VARIABLE).unwrap_or_default().trim() {
        "" => {}
        FRAMES_FORMAT => return run_pipes(bot, options),
        other => {
            eprintln!(
                "{}: {STDIO_VARIABLE}={other}: this SDK speaks the referee's pipes only as protobuf frames: \
                set stdio_format = \"protobuf\" in bot.toml (or transport = \"grpc\")",
                program_name()
            );
            return ExitCode::from(EXIT_CONFIG);
        }
    }
    if crate::arena::ladder_requested() {
        return crate::arena::run_ladder(bot, options);
    }
    let options = match options.from_env() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("{}: {error}", program_name());
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    // The bot runs on this thread (block_on); one worker thread serves the connection,
    // so that HTTP/2 pings are answered while the bot thinks.
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("{}: cannot start the async runtime: {error}", options.name);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let result = runtime.block_on(play_match(bot, &options));
    runtime.shutdown_background();
    exit_status(&options.name, result)
}

/// [`run`] on the referee's pipes (`SPITE_STDIO=protobuf`): the token only if one is set
/// (the pipes say which seat this is), the frames on stdin and on a copy of stdout.
fn run_pipes(bot: &mut dyn Bot, mut options: Options) -> ExitCode {
    if options.name.is_empty() {
        options.name = program_name();
    }
    let given =
        ["SPITE_TOKEN", "SPITE_TOKEN_FILE"].iter().any(|v| !std::env::var(v).unwrap_or_default().trim().is_empty());
    if options.token.is_empty() && given {
        match token_from_env() {
            Ok(token) => options.token = token,
            Err(error) => {
                eprintln!("{}: {error}", options.name);
                return ExitCode::from(EXIT_CONFIG);
            }
        }
    }
    if options.log_level.is_none() {
        options.log_level = Some(LogLevel::from_env());
    }
    let mut output = match take_over_stdout() {
        Ok(file) => io::BufWriter::with_capacity(1 << 12, file),
        Err(error) => {
            eprintln!("{}: cannot set up the referee's pipes: {error}", options.name);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let mut input = io::BufReader::with_capacity(1 << 16, io::stdin().lock());
    let result = play_pipes(bot, &options, &mut input, &mut output);
    exit_status(&options.name, result)
}

/// The exit status after a match, its failure (if any) explained in one line on stderr.
fn exit_status(name: &str, result: Result<MatchResult, Error>) -> ExitCode {
    match result {
        Ok(_) => ExitCode::from(EXIT_OK),
        Err(error @ Error::Config(_)) => {
            eprintln!("{name}: {error}");
            ExitCode::from(EXIT_CONFIG)
        }
        Err(error @ (Error::Referee(_) | Error::Protocol(_))) => {
            eprintln!("{name}: {error}");
            ExitCode::from(EXIT_FAILED)
        }
        Err(error) => {
            eprintln!("{name}: {error}; the bot stopped (the referee counts this as a crash)");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// Plays one match on protobuf frames: RefereeMessages read from `input`, BotMessages
/// written to `output`; `options.token` may be empty (the pipes say which seat this is).
/// Blocks this thread until MatchOver. For embedding (tests, tools); a bot process calls
/// [`run`], which plays on stdin and stdout when `SPITE_STDIO=protobuf`.
pub fn play_pipes(
    bot: &mut dyn Bot,
    options: &Options,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> Result<MatchResult, Error> {
    let bot = RefCell::new(bot);
    let log = Logger { level: options.log_level.unwrap_or(LogLevel::Error), name: options.name.clone() };
    let mut session = Session { bot: &bot, stream: Pipes { input, output }, log, rules: None };
    session.stream.send(&pb::BotMessage { body: Some(bot_message::Body::Hello(hello(options))) })?;
    // The pipes block instead of waiting asynchronously: the session's future is ready at its first poll.
    let future = pin!(session.run());
    match future.poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(result) => result,
        Poll::Pending => unreachable!("a session on the pipes never waits asynchronously"),
    }
}

/// Plays one match of `bot` against the referee at `options.address` with
/// `options.token`, and returns its result once the referee has sent MatchOver. For
/// embedding (tests, tools); a bot process calls [`run`].
///
/// The bot is called synchronously from this future: poll it with `block_on`, or on a
/// multi-thread runtime, so that another thread serves the connection meanwhile.
///
/// (`dyn Bot` rather than a generic keeps the session's code in this crate: a bot's own
/// crate then rebuilds in seconds.)
pub async fn play_match(bot: &mut dyn Bot, options: &Options) -> Result<MatchResult, Error> {
    play_shared(&RefCell::new(bot), options).await
}

/// [`play_match`] on a bot that other matches of this thread may be playing too (a ladder
/// bot without [`Bot::fresh`]): it is borrowed for each call only, never across an await.
pub(crate) async fn play_shared(bot: &RefCell<&mut dyn Bot>, options: &Options) -> Result<MatchResult, Error> {
    if options.address.is_empty() || options.token.is_empty() {
        return Err(Error::Config("play_match needs Options::address and Options::token".into()));
    }
    let log = Logger { level: options.log_level.unwrap_or(LogLevel::Error), name: options.name.clone() };
    let channel = connect(&options.address, options.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT)).await?;
    let mut client = RefereeClient::new(channel)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let token = MetadataValue::try_from(options.token.as_str())
        .map_err(|_| Error::Config("the seat token holds characters that cannot go in gRPC metadata".into()))?;
    let (outbox, outgoing) = mpsc::unbounded_channel();
    // Queued before the call, so the Hello goes out with the stream's opening.
    let _ = outbox.send(pb::BotMessage { body: Some(bot_message::Body::Hello(hello(options))) });
    let mut request = tonic::Request::new(UnboundedReceiverStream::new(outgoing));
    request.metadata_mut().insert(TOKEN_METADATA_KEY, token);
    let inbound = client.play(request).await.map_err(|s| Error::Referee(s.into()))?.into_inner();
    let mut session = Session { bot, stream: GrpcStream { inbound, outbox }, log, rules: None };
    let result = session.run().await?;
    // The match is over: half-close, and give the referee a moment to end the stream.
    let GrpcStream { mut inbound, outbox } = session.stream;
    drop(outbox);
    let _ = tokio::time::timeout(CLOSE_WAIT, async { while let Ok(Some(_)) = inbound.message().await {} }).await;
    Ok(result)
}

/// The Hello that opens a session: `warm` and `compact` keep their defaults, false (one
/// match per process, the full session).
fn hello(options: &Options) -> pb::Hello {
    pb::Hello {
        token: options.token.clone(),
        name: cut(&options.name, MAX_NAME_BYTES).to_owned(),
        version: cut(&options.version, MAX_NAME_BYTES).to_owned(),
        protocol_version: PROTOCOL_VERSION,
        ..Default::default()
    }
}

/// What a [`Session`] plays on: a gRPC Play stream, or protobuf frames on the referee's pipes.
trait RefereeStream {
    /// The referee's next message, or `None` when it ended the stream cleanly.
    async fn receive(&mut self) -> Result<Option<pb::RefereeMessage>, Error>;
    /// Sends one message to the referee.
    fn send(&mut self, message: &pb::BotMessage) -> Result<(), Error>;
}

/// A Play stream: the referee's messages, and the queue the bot's go out from.
struct GrpcStream {
    inbound: Streaming<pb::RefereeMessage>,
    outbox: mpsc::UnboundedSender<pb::BotMessage>,
}

impl RefereeStream for GrpcStream {
    async fn receive(&mut self) -> Result<Option<pb::RefereeMessage>, Error> {
        self.inbound.message().await.map_err(|status| Error::Referee(status.into()))
    }

    fn send(&mut self, message: &pb::BotMessage) -> Result<(), Error> {
        // A closed stream fails the send; the next read says why.
        let _ = self.outbox.send(message.clone());
        Ok(())
    }
}

impl RefereeStream for Pipes<'_> {
    async fn receive(&mut self) -> Result<Option<pb::RefereeMessage>, Error> {
        Pipes::receive(self)
    }

    fn send(&mut self, message: &pb::BotMessage) -> Result<(), Error> {
        Pipes::send(self, message)
    }
}

/// The endpoint of a `host:port` or `http://...` address, with the SDK's settings.
pub(crate) fn endpoint(address: &str) -> Result<Endpoint, Error> {
    let bad = |error: &dyn fmt::Display| Error::Config(format!("bad referee address {address:?}: {error}"));
    let uri = if address.contains("://") { address.to_owned() } else { format!("http://{address}") };
    tune(Endpoint::from_shared(uri).map_err(|e| bad(&e))?).map_err(|e| bad(&e))
}

fn tune(endpoint: Endpoint) -> Result<Endpoint, tonic::transport::Error> {
    Ok(endpoint
        .user_agent("spite-sdk-rust")?
        // Pings notice a referee that vanished (a dead host, a cut connection) instead of
        // hanging; the referee allows one every 5 s.
        .http2_keep_alive_interval(Duration::from_secs(30))
        .keep_alive_timeout(Duration::from_secs(10))
        .tcp_nodelay(true))
}

/// Dials the referee, retrying until `timeout` (it may still be starting).
async fn connect(address: &str, timeout: Duration) -> Result<Channel, Error> {
    let bad = |error: &dyn fmt::Display| Error::Config(format!("bad referee address {address:?}: {error}"));
    let unix_path = address.strip_prefix("unix:").map(|path| {
        // unix:/abs/path, unix:///abs/path, or unix:relative/path
        PathBuf::from(path.strip_prefix("//").unwrap_or(path))
    });
    let uri = match unix_path {
        // Any authority will do: the connector below ignores it.
        Some(_) => "http://localhost".to_owned(),
        None if address.contains("://") => address.to_owned(),
        None => format!("http://{address}"),
    };
    let endpoint = tune(Endpoint::from_shared(uri).map_err(|e| bad(&e))?).map_err(|e| bad(&e))?;
    let deadline = Instant::now() + timeout;
    let mut backoff = Duration::from_millis(20);
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let attempt = match &unix_path {
            Some(path) => {
                let path = path.clone();
                let connector = tower::service_fn(move |_: Uri| {
                    let path = path.clone();
                    async move { Ok::<_, io::Error>(TokioIo::new(UnixStream::connect(path).await?)) }
                });
                tokio::time::timeout(remaining, endpoint.connect_with_connector(connector)).await
            }
            None => tokio::time::timeout(remaining, endpoint.connect()).await,
        };
        let error = match attempt {
            Ok(Ok(channel)) => return Ok(channel),
            Ok(Err(error)) => chain(&error),
            Err(_) => "timed out".to_owned(),
        };
        if Instant::now() + backoff >= deadline {
            return Err(Error::Referee(RefereeError {
                code: Some(Code::Unavailable),
                details: error,
                meaning: format!("cannot reach the referee at {address} (waited {timeout:?}; is it running?)"),
            }));
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(1));
    }
}

/// An error and its causes, in one line (a cause that an outer message already quotes
/// is left out).
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

struct Logger {
    level: LogLevel,
    name: String,
}

impl Logger {
    fn enabled(&self, level: LogLevel) -> bool {
        level >= self.level
    }

    fn log(&self, level: LogLevel, message: fmt::Arguments<'_>) {
        if self.enabled(level) {
            let level = match level {
                LogLevel::Debug => "DEBUG",
                LogLevel::Info => "INFO",
                LogLevel::Warning => "WARNING",
                LogLevel::Error => "ERROR",
            };
            eprintln!("{} [spite {level}] {message}", self.name);
        }
    }
}

/// One match on one [`RefereeStream`].
struct Session<'a, 'b, S: RefereeStream> {
    bot: &'a RefCell<&'b mut dyn Bot>,
    stream: S,
    log: Logger,
    rules: Option<Arc<RuleSet>>,
}

impl<S: RefereeStream> Session<'_, '_, S> {
    /// Handles the referee's messages until MatchOver.
    async fn run(&mut self) -> Result<MatchResult, Error> {
        use referee_message::Body;
        loop {
            let Some(message) = self.stream.receive().await? else { return Err(closed_early()) };
            match message.body {
                Some(Body::Decision(request)) => self.decide(&request)?,
                Some(Body::Result(result)) => {
                    let result = ActionResult::try_from(&result).map_err(protocol)?;
                    if !result.ok() {
                        self.report_rejected(&result);
                    } else if result.dropped > 0 {
                        self.log.log(
                            LogLevel::Debug,
                            format_args!("decision {}: {} plan moves dropped", result.decision_id, result.dropped),
                        );
                    }
                    guard(|| self.bot.borrow_mut().on_result(&result))?;
                }
                Some(Body::Events(batch)) => {
                    let events = events_from_proto(&batch.events).map_err(protocol)?;
                    guard(|| self.bot.borrow_mut().on_events(batch.game_number, &events))?;
                }
                Some(Body::GameStart(start)) => {
                    let rules = self.rules.clone().ok_or_else(|| protocol("GameStart came before Welcome"))?;
                    let obs =
                        Observation::from_proto(&start.observation.unwrap_or_default(), rules).map_err(protocol)?;
                    self.log.log(
                        LogLevel::Info,
                        format_args!("game {} starts, seat {} first", start.game_number, start.first_seat),
                    );
                    guard(|| self.bot.borrow_mut().on_game_start(start.game_number, &obs))?;
                }
                Some(Body::GameOver(over)) => {
                    let outcome = Outcome::from(&over.outcome.unwrap_or_default());
                    self.log.log(LogLevel::Info, format_args!("game {} over: {}", over.game_number, outcome.reason));
                    guard(|| self.bot.borrow_mut().on_game_over(over.game_number, &outcome))?;
                }
                Some(Body::Welcome(welcome)) => {
                    let welcome = Welcome::from(&welcome);
                    if welcome.protocol_version != 0 && welcome.protocol_version != PROTOCOL_VERSION {
                        self.log.log(
                            LogLevel::Warning,
                            format_args!(
                                "the referee speaks protocol {}, this SDK {}",
                                welcome.protocol_version, PROTOCOL_VERSION
                            ),
                        );
                    }
                    self.log.log(
                        LogLevel::Info,
                        format_args!(
                            "welcome: seat {} of match {}, {}, {} games",
                            welcome.seat, welcome.match_id, welcome.rules.name, welcome.games
                        ),
                    );
                    self.rules = Some(Arc::clone(&welcome.rules));
                    guard(|| self.bot.borrow_mut().on_welcome(&welcome))?;
                }
                Some(Body::MatchOver(over)) => {
                    let result = MatchResult::from(&over);
                    self.log.log(LogLevel::Info, format_args!("match over: {}", result.reason));
                    guard(|| self.bot.borrow_mut().on_match_over(&result))?;
                    return Ok(result);
                }
                Some(Body::Refusal(refusal)) => {
                    // The pipes' form of a refusal; a gRPC referee ends the stream with the status instead.
                    let code =
                        (0..=16).map(Code::from_i32).find(|&c| code_name(c) == refusal.code).unwrap_or(Code::Unknown);
                    return Err(Error::Referee(RefereeError {
                        code: Some(code),
                        details: refusal.message,
                        meaning: meaning(code),
                    }));
                }
                None => {
                    self.log.log(
                        LogLevel::Warning,
                        format_args!(
                            "ignoring a message this SDK does not know \
                        (a newer referee?)"
                        ),
                    );
                }
            }
        }
    }

    /// Answers one DecisionRequest.
    fn decide(&mut self, request: &pb::DecisionRequest) -> Result<(), Error> {
        let decision = Decision::new(
            request.decision_id,
            request.game_number,
            millis(request.deadline_ms),
            millis(request.bank_ms),
        );
        let rules = self.rules.clone().ok_or_else(|| protocol("a DecisionRequest came before Welcome"))?;
        let empty = pb::Observation::default();
        let obs = Observation::from_proto(request.observation.as_ref().unwrap_or(&empty), rules).map_err(protocol)?;
        let choice = guard(|| self.bot.borrow_mut().decide(&obs, &decision))?
            .map_err(|source| Error::Decide { decision: decision.id, source })?;
        let shown = self.log.enabled(LogLevel::Debug).then(|| describe(&choice, &obs));
        let action = action_for(decision.id, choice, obs.legal_moves.len())
            .map_err(|message| Error::Decide { decision: decision.id, source: message.into() })?;
        self.stream.send(&pb::BotMessage { body: Some(bot_message::Body::Action(action)) })?;
        if let Some(shown) = shown {
            self.log.log(
                LogLevel::Debug,
                format_args!("decision {}: {shown} in {} us", decision.id, decision.received.elapsed().as_micros()),
            );
        }
        Ok(())
    }

    /// Tells the bot's author, on stderr, what the referee rejected and why.
    fn report_rejected(&self, result: &ActionResult) {
        let mut line =
            format!("{}: decision {} rejected: {}: {}", self.log.name, result.decision_id, result.fault, result.error);
        if result.strikes > 0 {
            line += &format!(" (strikes: {})", result.strikes);
        }
        if !result.applied.is_empty() {
            let played: Vec<String> = result.applied.iter().map(ToString::to_string).collect();
            line += &format!("; the referee played {} instead", played.join(", "));
        }
        eprintln!("{line}");
    }
}

fn protocol(error: impl fmt::Display) -> Error {
    Error::Protocol(format!("protocol error: {error}"))
}

/// Calls the bot's code, turning a panic into an error (the panic hook has already
/// printed it, with its location).
fn guard<T>(call: impl FnOnce() -> T) -> Result<T, Error> {
    panic::catch_unwind(AssertUnwindSafe(call)).map_err(|payload| Error::Panic(panic_message(payload.as_ref())))
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with no message".into()
    }
}

fn describe(choice: &Choice, obs: &Observation) -> String {
    match choice {
        Choice::Noted(inner, _) => describe(inner, obs),
        Choice::Move(m) => m.to_string(),
        Choice::Plan(moves) => {
            let moves: Vec<String> = moves.iter().map(ToString::to_string).collect();
            format!("plan {}", moves.join(" "))
        }
        &Choice::Index(i) => {
            let resolved = if i < 0 { i + obs.legal_moves.len() as isize } else { i };
            match usize::try_from(resolved).ok().and_then(|r| obs.legal_moves.get(r)) {
                Some(m) => format!("#{i} ({m})"),
                None => format!("#{i}"),
            }
        }
    }
}
