//! Joining a hosted ladder (`spite serve`, docs/hosting.md) as a remote bot: bring your
//! own compute. When the environment has
//!
//! | variable | meaning |
//! |---|---|
//! | `SPITE_ARENA` | the competition's gRPC address, `host:port` |
//! | `SPITE_BOT_KEY` | the entrant's API key (`spite arena add-entrant` printed it) |
//! | `SPITE_ARENA_CAPACITY` | games this process plays at once (default 1, at most 64) |
//!
//! [`run`](crate::run) joins the lobby (`Arena.Join`, proto/spite/v1/arena.proto) instead
//! of playing one match, and plays every game it is assigned over `Referee.Play` at the
//! same address until the process is stopped: each on its own copy of the bot as it was
//! before its first game when the bot has one to give ([`Bot::fresh`]), else all on the
//! one bot, whose calls then come from the games in flight in turn, on one thread. When
//! the server goes away it joins again, waiting a little longer each time (1, 2, 5, then
//! every 10 s). A refusal (an unknown key, a name or version out of range, too many Joins,
//! a benched or disabled version) ends the process with one line saying why. The same
//! behaviour as the Python SDK's `spite_sdk.arena`.

use std::cell::RefCell;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::process::ExitCode;
use std::time::Duration;

use tonic::Code;
use tonic::metadata::MetadataValue;

use crate::bot::Bot;
use crate::client::{EXIT_CONFIG, EXIT_FAILED, LogLevel, Options, endpoint, play_shared, program_name};
use crate::proto::JoinRequest;
use crate::proto::arena_client::ArenaClient;

/// The metadata key that carries the entrant's key on `Arena.Join` (it is in the request too).
pub const BOT_KEY_METADATA_KEY: &str = "spite-bot-key";
/// How long to wait before joining again after the n-th failure in a row (the last repeats).
pub const RETRY: [Duration; 4] =
    [Duration::from_secs(1), Duration::from_secs(2), Duration::from_secs(5), Duration::from_secs(10)];
/// The statuses that mean the server will not take this bot: the process stops
/// (arena.proto, rpc Join).
pub const REFUSALS: [Code; 4] =
    [Code::Unauthenticated, Code::InvalidArgument, Code::ResourceExhausted, Code::FailedPrecondition];

/// Both `SPITE_ARENA` and `SPITE_BOT_KEY` are set: the bot is a remote ladder bot.
pub fn ladder_requested() -> bool {
    let set = |name| !std::env::var(name).unwrap_or_default().trim().is_empty();
    set("SPITE_ARENA") && set("SPITE_BOT_KEY")
}

/// Where to join and how many games to take at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ladder {
    /// The competition's gRPC address, `host:port`.
    pub address: String,
    /// The entrant's key.
    pub key: String,
    /// Games at once, 1..=64.
    pub capacity: u32,
}

impl Ladder {
    /// The ladder's settings from the environment, or a message saying which one is wrong.
    pub fn from_env() -> Result<Ladder, String> {
        let var = |name| std::env::var(name).unwrap_or_default().trim().to_owned();
        let (address, key, capacity) = (var("SPITE_ARENA"), var("SPITE_BOT_KEY"), var("SPITE_ARENA_CAPACITY"));
        let capacity = if capacity.is_empty() { Ok(1) } else { capacity.parse::<u32>() };
        let capacity = capacity
            .ok()
            .filter(|c| (1..=64).contains(c))
            .ok_or("SPITE_ARENA_CAPACITY must be a whole number in 1..64")?;
        // This SDK has no TLS: sending the key in plaintext where TLS was asked for would leak it.
        if address.starts_with("tls:") || !var("SPITE_TLS_CA").is_empty() || var("SPITE_TLS") == "1" {
            return Err("the Rust SDK connects in plaintext only, and SPITE_ARENA (tls:) or SPITE_TLS* asks for \
                TLS; use the Python or Go SDK, or a TLS-terminating tunnel to the arena"
                .into());
        }
        endpoint(&address).map_err(|error| error.to_string())?;
        Ok(Ladder { address, key, capacity })
    }
}

/// The ladder as the process's main function ([`run`](crate::run) calls it): exits 1 when
/// the arena refuses the bot, 2 for a bad setting; SIGINT stops it as any program.
pub(crate) fn run_ladder(bot: &mut dyn Bot, mut options: Options) -> ExitCode {
    if options.name.is_empty() {
        options.name = program_name();
    }
    let ladder = match Ladder::from_env() {
        Ok(ladder) => ladder,
        Err(message) => {
            eprintln!("{}: {message}", options.name);
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    options.log_level = options.log_level.or_else(|| Some(LogLevel::from_env()));
    // The bot runs on this thread (block_on); one worker thread serves the connections.
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("{}: cannot start the async runtime: {error}", options.name);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let code = runtime.block_on(play_ladder(bot, &options, &ladder));
    runtime.shutdown_background();
    ExitCode::from(code)
}

type Game<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;

/// Polls `step` to its end, and the games in flight meanwhile (dropping those that end).
async fn alongside<F: Future>(games: &mut Vec<Game<'_>>, step: F) -> F::Output {
    let mut step = pin!(step);
    poll_fn(|cx| {
        games.retain_mut(|game| game.as_mut().poll(cx).is_pending());
        step.as_mut().poll(cx)
    })
    .await
}

/// Plays ladder games with `options`' name and version until the arena refuses the bot;
/// returns the exit status ([`EXIT_FAILED`]). The games in flight go on while the bot
/// joins again after an error.
pub async fn play_ladder(bot: &mut dyn Bot, options: &Options, ladder: &Ladder) -> u8 {
    let pristine = bot.fresh();
    let shared = RefCell::new(bot);
    let mut games: Vec<Game<'_>> = Vec::new();
    let mut failures = 0;
    loop {
        let ended = match alongside(&mut games, join(options, ladder)).await {
            Err(status) => Some(status),
            Ok(mut assignments) => loop {
                match alongside(&mut games, assignments.message()).await {
                    Ok(Some(assignment)) => {
                        failures = 0;
                        let mut seat = options.clone();
                        seat.address.clone_from(&ladder.address);
                        seat.token = assignment.token;
                        games.push(Box::pin(play_game(&shared, pristine.as_deref(), seat, assignment.match_id)));
                    }
                    Ok(None) => break None,
                    Err(status) => break Some(status),
                }
            },
        };
        if let Some(status) = ended.filter(|status| REFUSALS.contains(&status.code())) {
            eprintln!("{}: the arena refused to let the bot join: {}", options.name, status.message());
            return EXIT_FAILED;
        }
        let wait = RETRY[failures.min(RETRY.len() - 1)];
        failures += 1;
        eprintln!(
            "{}: not joined to the arena at {}; trying again in {} s",
            options.name,
            ladder.address,
            wait.as_secs()
        );
        alongside(&mut games, tokio::time::sleep(wait)).await;
    }
}

async fn join(options: &Options, ladder: &Ladder) -> Result<tonic::Streaming<crate::proto::Assignment>, tonic::Status> {
    let channel = endpoint(&ladder.address).map_err(|error| tonic::Status::invalid_argument(error.to_string()))?;
    let mut client = ArenaClient::new(channel.connect_lazy());
    let mut request = tonic::Request::new(JoinRequest {
        key: ladder.key.clone(),
        bot_name: options.name.clone(),
        bot_version: options.version.clone(),
        capacity: ladder.capacity,
    });
    let key = MetadataValue::try_from(ladder.key.as_str())
        .map_err(|_| tonic::Status::unauthenticated("the key holds characters that cannot go in gRPC metadata"))?;
    request.metadata_mut().insert(BOT_KEY_METADATA_KEY, key);
    Ok(client.join(request).await?.into_inner())
}

async fn play_game(shared: &RefCell<&mut dyn Bot>, pristine: Option<&dyn Bot>, seat: Options, match_id: String) {
    let result = match pristine.and_then(Bot::fresh) {
        Some(mut own) => play_shared(&RefCell::new(own.as_mut()), &seat).await,
        None => play_shared(shared, &seat).await,
    };
    if let Err(error) = result {
        eprintln!("{}: game {match_id}: {error}", seat.name);
    }
}
