//! The [`Bot`] trait and the terms of a decision.

use std::time::{Duration, Instant};

use crate::choice::Choice;
use crate::types::{ActionResult, Event, MatchResult, Observation, Outcome, Welcome};

/// An error a bot returns from [`Bot::decide`]: it stops the bot.
pub type BotError = Box<dyn std::error::Error + Send + Sync>;

/// A bot chooses moves. [`decide`](Bot::decide) is the only method a bot must write;
/// the hooks (`on_*`) do nothing unless overridden.
///
/// Every call comes from the one task that reads the referee's stream, in the order of
/// the referee's messages, on the thread that runs [`run`](crate::run) or
/// [`play_match`](crate::play_match): a bot needs no locking, and the time `decide`
/// takes is its thinking time, nothing added (the connection is served on another
/// thread meanwhile, so a long think does not starve it).
pub trait Bot {
    /// Chooses what to do about `obs`, whose `legal_moves` are not empty.
    ///
    /// `decision` holds the deadline: an answer after [`Decision::deadline`] is still
    /// accepted while the game's time bank lasts ([`Decision::final_deadline`]), and the
    /// overrun is taken from the bank. An error stops the bot: the referee counts it as
    /// a crash. So does a panic.
    fn decide(&mut self, obs: &Observation, decision: &Decision) -> Result<Choice, BotError>;

    /// The referee accepted the bot: its seat, the rules, the time control, the games, the policy.
    fn on_welcome(&mut self, _welcome: &Welcome) {}

    /// A game begins: the seat's opening view (its hand; no legal moves yet).
    fn on_game_start(&mut self, _game: u32, _obs: &Observation) {}

    /// Events between decisions (the events since the seat's previous decision also
    /// arrive in the next `obs.events`).
    fn on_events(&mut self, _game: u32, _events: &[Event]) {}

    /// The referee's verdict on the bot's action. A rejected action is also reported on
    /// stderr, whether or not this is overridden.
    fn on_result(&mut self, _result: &ActionResult) {}

    /// A game ended.
    fn on_game_over(&mut self, _game: u32, _outcome: &Outcome) {}

    /// The match ended; [`play_match`](crate::play_match) returns right after.
    fn on_match_over(&mut self, _result: &MatchResult) {}

    /// On a ladder ([`crate::arena`]): a new bot, as this one is now, to play one game on.
    /// The ladder takes one before the first game and plays every game on a copy of that,
    /// so that games, at once or one after another, never see each other's state. A bot
    /// that derives `Clone` writes `Some(Box::new(self.clone()))`. `None` (the default):
    /// every game plays on this one bot, its calls from the games in flight interleaved
    /// on one thread (fine for a bot without state between calls, such as a closure).
    fn fresh(&self) -> Option<Box<dyn Bot>> {
        None
    }
}

/// A closure is a bot with no hooks.
///
/// ```
/// use spite::{policies, Bot, Decision, Observation};
/// let mut bot = |obs: &Observation, _: &Decision| Ok(policies::greedy(obs).into());
/// # fn is_bot(_: &mut impl Bot) {}
/// # is_bot(&mut bot);
/// ```
impl<F> Bot for F
where
    F: FnMut(&Observation, &Decision) -> Result<Choice, BotError>,
{
    fn decide(&mut self, obs: &Observation, decision: &Decision) -> Result<Choice, BotError> {
        self(obs, decision)
    }
}

/// The terms of one decision. Times are taken when the request arrived, so they leave
/// out the network: keep a margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The decision's id; the SDK echoes it in the answer.
    pub id: u64,
    /// The game's number within the match, from 0.
    pub game: u32,
    /// When the request arrived.
    pub received: Instant,
    /// When the decision's own time runs out and the time bank is drawn on.
    pub deadline: Instant,
    /// The time left in this game's time bank.
    pub bank: Duration,
}

impl Decision {
    /// The terms of a decision received now with `deadline_ms` and `bank_ms`.
    pub fn new(id: u64, game: u32, deadline: Duration, bank: Duration) -> Decision {
        let received = Instant::now();
        Decision { id, game, received, deadline: received + deadline, bank }
    }

    /// When the decision times out: the deadline plus the time bank.
    pub fn final_deadline(&self) -> Instant {
        self.deadline + self.bank
    }

    /// The time left before the deadline (zero once it has passed).
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Whether the deadline has passed (the bank is being drawn on).
    pub fn is_overdue(&self) -> bool {
        Instant::now() >= self.deadline
    }
}
