//! The Spite Arena SDK for Rust: a bot is a separate process that plays one seat of a
//! Spite and Malice match through the referee's gRPC stream.
//!
//! This crate does the talking (the handshake, the stream, deadlines, errors and a
//! clean exit); a bot writes one method, [`Bot::decide`]: an observation in, a
//! [`Choice`] out.
//!
//! ```no_run
//! use spite::{policies, Bot, BotError, Choice, Decision, Observation, Options, Source};
//!
//! struct MyBot;
//!
//! impl Bot for MyBot {
//!     fn decide(&mut self, obs: &Observation, _decision: &Decision) -> Result<Choice, BotError> {
//!         // A stock card first (an empty stock wins), else what the greedy sample bot does.
//!         let stock = obs.legal_moves.iter().find(|m| m.source == Source::Stock);
//!         Ok(stock.copied().unwrap_or_else(|| policies::greedy(obs)).into())
//!     }
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     spite::run(&mut MyBot, Options::new("mybot", "0.1.0"))
//! }
//! ```
//!
//! The values ([`Move`], [`Observation`], ...) use the rules engine's numbering
//! (`MoveKind::Play = 0`, `Source::Hand = 0`); the wire's, offset by one, is known only
//! to [`convert`]. The generated protocol code is [`proto`], built from the repository's
//! `proto/` at compile time.
//!
//! With `SPITE_ARENA` and `SPITE_BOT_KEY` in its environment, the same bot joins a hosted
//! ladder instead of playing one match ([`arena`]).

pub mod arena;
mod bot;
mod cards;
mod choice;
mod client;
pub mod convert;
mod frames;
mod moves;
pub mod policies;
mod types;

/// The wire messages and the Referee and Arena clients and servers, generated from
/// `proto/spite/v1/*.proto` by build.rs (package `spite.v1`).
#[allow(clippy::all, missing_docs, rustdoc::all)]
pub mod proto {
    tonic::include_proto!("spite.v1");
}

pub use bot::{Bot, BotError, Decision};
pub use cards::{Card, ParseError};
pub use choice::{Choice, MAX_DEBUG_BYTES, MAX_PLAN_MOVES};
pub use client::{
    DEFAULT_CONNECT_TIMEOUT, EXIT_CONFIG, EXIT_FAILED, EXIT_OK, Error, LogLevel, MAX_MESSAGE_BYTES, MAX_NAME_BYTES,
    Options, PROTOCOL_VERSION, RefereeError, TOKEN_METADATA_KEY, bot_seed, code_name, play_match, play_pipes, run,
};
pub use convert::ProtocolError;
pub use frames::{FRAMES_FORMAT, STDIO_VARIABLE};
pub use moves::{Move, MoveKind, Source};
pub use tonic::Code;
pub use types::{
    ActionResult, Ending, Event, EventKind, Fault, MatchResult, Observation, Outcome, Pile, Policy, RuleSet, StockView,
    TimeControl, Welcome,
};
