//! rust-greedy is the greedy sample bot on the Rust SDK: stock first, then natural
//! cards, then the discard that blocks least (`policies::greedy`, the same choices as
//! the Python greedy bot).
//!
//! The referee, or `spite play`, starts it with its address and seat token in the
//! environment; to run it by hand against a referee you started:
//!
//! ```sh
//! cargo build --release && SPITE_ADDRESS=localhost:50051 SPITE_TOKEN=... target/release/rust-greedy
//! ```

use std::process::ExitCode;

use spite::{BotError, Choice, Decision, Observation, Options, policies};

fn main() -> ExitCode {
    let mut bot = |obs: &Observation, _: &Decision| -> Result<Choice, BotError> { Ok(policies::greedy(obs).into()) };
    spite::run(&mut bot, Options::new("rust-greedy", "1.0.0"))
}
