//! The values a bot works with: a seat's view of the game, and what the referee says.
//!
//! Indices (seats, piles) are `usize` and 0-based; piles are listed bottom to top.
//! The wire's "-1 for none" is `None` here.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::cards::Card;
use crate::moves::Move;

/// Every option of the match's game; the referee sends it once, in [`Welcome`].
/// docs/rules.md states what each option means.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleSet {
    /// The canonical spec, e.g. `"standard"`, `"kings-only+short-15"`, `"skip-bo+4p"`.
    pub name: String,
    /// Bumped whenever the same seed and moves would give another game.
    pub version: u32,
    /// Seats at the table; seats move in order 0, 1, 2, ...
    pub players: usize,
    /// 2 v 2: seats 0 and 2 against seats 1 and 3, one shared stock per team.
    pub partners: bool,
    /// `"spite"` (52-card decks plus jokers) or `"skip-bo"` (12 x 1..12 plus 18 wilds).
    pub deck: String,
    /// Decks shuffled together.
    pub decks: u32,
    pub jokers_per_deck: u32,
    pub kings_wild: bool,
    /// Cards dealt to each stock.
    pub stock_size: usize,
    /// Hands are refilled to this many cards.
    pub hand_size: usize,
    /// Shared centre piles, built from Ace (1) to Queen (12).
    pub centre_piles: usize,
    /// Discard piles per seat.
    pub discard_piles: usize,
    /// Face-up cards on each stock (3 with open-stock); only the top one is playable.
    pub open_stock: usize,
    /// A non-wild card playable on a centre pile now may not be discarded.
    pub no_block: bool,
    /// `"shuffle"` or `"set-aside"`.
    pub completed_piles: String,
    /// `"play-on"` or `"draw-game"`.
    pub draw_pile_exhausted: String,
    /// Whether Aces (Skip-Bo 1s) may be discarded.
    pub discard_aces: bool,
    /// `"win"` or `"stock-left"`.
    pub scoring: String,
    /// 0: games stand alone; N: the match goes on until a seat or team has N points.
    pub match_points: u32,
    /// Turns after which a game is drawn.
    pub turn_cap: u32,
    /// The ranks that are wild on centre piles, ascending.
    pub wild_ranks: Vec<Card>,
}

impl RuleSet {
    /// Whether `card` is wild on the centre piles in this rule set.
    pub fn is_wild(&self, card: Card) -> bool {
        self.wild_ranks.contains(&card)
    }

    /// The number of stocks: one per seat, or one per team with partners.
    pub fn stocks(&self) -> usize {
        if self.partners { 2 } else { self.players }
    }

    /// The stock that `seat` plays from (its team's with partners).
    pub fn stock_of(&self, seat: usize) -> usize {
        if self.partners { seat % 2 } else { seat }
    }

    /// The seat's team: the seat itself, or `seat % 2` with partners.
    pub fn team_of(&self, seat: usize) -> usize {
        self.stock_of(seat)
    }
}

/// A pile of face-up cards, bottom to top (its top is `pile.last()`).
pub type Pile = Vec<Card>;

/// A stock as everyone sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StockView {
    /// Cards left in the stock.
    pub count: usize,
    /// The face-up cards, top first: one, or up to three with open-stock.
    pub visible: Vec<Card>,
}

impl StockView {
    /// The stock's playable card; `None` for an empty stock.
    pub fn top(&self) -> Option<Card> {
        self.visible.first().copied()
    }
}

/// One seat's view of a game at one moment: what it may see, nothing else. The SDK
/// builds a new one for each decision; a bot may keep it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// The match's rule set, shared by every observation of the match.
    pub rules: Arc<RuleSet>,
    /// The observing seat.
    pub seat: usize,
    /// The turn number, from 1.
    pub turn: u32,
    /// The seat whose decision it is.
    pub to_move: usize,
    /// The observer's hand, sorted by rank.
    pub hand: Vec<Card>,
    /// Cards in each seat's hand.
    pub hand_sizes: Vec<usize>,
    /// Each stock: one per seat, or one per team with partners (see [`Observation::my_stock`]).
    pub stocks: Vec<StockView>,
    /// Per seat, its discard piles.
    pub discard_piles: Vec<Vec<Pile>>,
    /// Each centre pile; a pile's rank is its length.
    pub centre_piles: Vec<Pile>,
    /// Cards in the draw pile (its order is hidden from everyone).
    pub draw_pile_count: usize,
    /// Cards of completed piles waiting to become the draw pile (set-aside rule sets).
    pub set_aside_count: usize,
    /// What happened since this seat's previous decision, its own last move included.
    pub events: Vec<Event>,
    /// The observer's legal moves, in the engine's order, when it is to move; else empty.
    pub legal_moves: Vec<Move>,
}

impl Observation {
    /// The stock this seat plays from (empty if the referee sent none).
    pub fn my_stock(&self) -> StockView {
        self.stocks.get(self.rules.stock_of(self.seat)).cloned().unwrap_or_default()
    }

    /// This seat's discard piles.
    pub fn my_discard_piles(&self) -> &[Pile] {
        self.discard_piles.get(self.seat).map_or(&[], Vec::as_slice)
    }

    /// The rank each centre pile needs next (an Ace for an empty pile).
    pub fn centre_needs(&self) -> Vec<Card> {
        self.centre_piles.iter().map(|pile| Card(pile.len() as u8 + 1)).collect()
    }
}

/// What an [`Event`] records (numbered like the engine's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// The game begins; `seat` moves first.
    Deal,
    /// Turn number `count` begins for `seat`.
    Turn,
    /// `seat` made `mv`.
    Move,
    /// `seat` drew `count` cards; `cards` are filled only for the drawing seat.
    Draw,
    /// Stock `pile` shows `cards` face up (top first), `count` cards left in it.
    Reveal,
    /// Centre pile `pile` reached the Queen; its `cards` left the table.
    PileCompleted,
    /// The draw pile was shuffled and holds `count` cards.
    Shuffle,
    /// The game is over (the outcome comes to [`Bot::on_game_over`](crate::Bot::on_game_over)).
    GameOver,
    /// A kind this SDK does not know (a newer referee), by its wire number.
    Unknown(i32),
}

/// Something that happened in the game, as this seat may see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    /// The seat concerned, if any.
    pub seat: Option<usize>,
    /// The move of an [`EventKind::Move`].
    pub mv: Option<Move>,
    /// The cards shown (see [`EventKind`] for which kinds carry them).
    pub cards: Vec<Card>,
    /// A count (cards drawn, cards left, turn number), see [`EventKind`].
    pub count: u32,
    /// A pile index (stock or centre pile), if any.
    pub pile: Option<usize>,
}

/// How a game ended: by the rules (the first four) or cut off by the referee (the
/// others, with an offending seat).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// An ending this SDK does not know (a newer referee); see the reason.
    Unknown,
    /// A seat (team) played the last card of its stock and won.
    StockEmptied,
    /// A full round passed with no card played or drawn: a draw.
    Stalemate,
    /// The turn cap was reached: a draw.
    TurnCap,
    /// A draw found the draw pile empty (classic-20): a draw.
    DrawPileExhausted,
    /// The offender ran out of time (decision limit and time bank).
    Timeout,
    /// The offender sent an illegal move (forfeit policy, or a third strike).
    IllegalMove,
    /// The offender sent a message that is not a valid action.
    Malformed,
    /// The offender's process exited or its stream failed.
    Crash,
    /// The offender closed its stream mid-match.
    Disconnect,
    /// The offender never connected in time.
    NoShow,
    /// The offender was forfeited for another reason.
    Forfeit,
}

impl Ending {
    /// Whether the game ended by the rules rather than being cut off by the referee.
    pub fn by_rules(self) -> bool {
        matches!(self, Ending::StockEmptied | Ending::Stalemate | Ending::TurnCap | Ending::DrawPileExhausted)
    }
}

impl fmt::Display for Ending {
    /// The engine's name: `stock-emptied`, `timeout`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ending::Unknown => "unknown",
            Ending::StockEmptied => "stock-emptied",
            Ending::Stalemate => "stalemate",
            Ending::TurnCap => "turn-cap",
            Ending::DrawPileExhausted => "draw-pile-exhausted",
            Ending::Timeout => "timeout",
            Ending::IllegalMove => "illegal-move",
            Ending::Malformed => "malformed",
            Ending::Crash => "crash",
            Ending::Disconnect => "disconnect",
            Ending::NoShow => "no-show",
            Ending::Forfeit => "forfeit",
        })
    }
}

/// The result of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub ending: Ending,
    /// The seats that won (both partners of a team); empty for a draw.
    pub winners: Vec<usize>,
    /// Points per seat, by the rule set's scoring.
    pub scores: Vec<i32>,
    /// One human-readable sentence, e.g. "seat 1 emptied its stock".
    pub reason: String,
    /// The seat at fault for the referee's endings.
    pub offender: Option<usize>,
}

impl Outcome {
    /// Whether nobody won.
    pub fn is_draw(&self) -> bool {
        self.winners.is_empty()
    }
}

/// What bad behaviour (timeout, illegal or malformed action, wrong decision id) gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    Unspecified,
    /// The offending seat loses the game at once (and the rest of the match).
    Forfeit,
    /// The referee plays a fallback legal move and counts a strike; 3 strikes in a game forfeit it.
    Substitute,
}

/// The limits on a seat's thinking time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    /// Per decision; overruns are paid from the bank.
    pub decision: Duration,
    /// Per game, per seat, for overruns.
    pub bank: Duration,
    /// To connect, and for the seat's first decision of the match.
    pub connect: Duration,
}

/// The referee's answer to the bot's hello: its seat and the terms of the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Welcome {
    pub seat: usize,
    pub rules: Arc<RuleSet>,
    pub time_control: TimeControl,
    /// Games in the match (with `rules.match_points`, the most that will be played).
    pub games: u32,
    pub match_id: String,
    pub protocol_version: u32,
    /// Each seat's bot name, by seat (empty for a seat not yet connected).
    pub seat_names: Vec<String>,
    pub policy: Policy,
}

/// What a bot did wrong with one action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    None,
    /// No answer within the deadline plus the time bank.
    Timeout,
    /// A well-formed move the rules forbid now.
    IllegalMove,
    /// Not a valid action.
    Malformed,
    /// An action for a decision that is not the open one.
    WrongDecision,
    /// A fault this SDK does not know (a newer referee), by its wire number.
    Unknown(i32),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::None => f.write_str("NONE"),
            Fault::Timeout => f.write_str("TIMEOUT"),
            Fault::IllegalMove => f.write_str("ILLEGAL_MOVE"),
            Fault::Malformed => f.write_str("MALFORMED"),
            Fault::WrongDecision => f.write_str("WRONG_DECISION"),
            Fault::Unknown(n) => write!(f, "FAULT_{n}"),
        }
    }
}

/// The referee's answer to one action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionResult {
    pub decision_id: u64,
    /// The moves applied for the seat: several for a plan, the fallback move when the
    /// referee substituted one.
    pub applied: Vec<Move>,
    /// Plan moves dropped unjudged because new information appeared.
    pub dropped: u32,
    /// `Fault::None` when the action was accepted as sent.
    pub fault: Fault,
    /// Why, in words, when `fault` is set.
    pub error: String,
    /// Strikes this seat has in the current game (substitute policy).
    pub strikes: u32,
}

impl ActionResult {
    /// Whether the action was accepted as sent.
    pub fn ok(&self) -> bool {
        self.fault == Fault::None
    }
}

/// The result of the whole match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchResult {
    /// Points per seat over the match.
    pub points: Vec<i32>,
    /// Games won per seat.
    pub wins: Vec<u32>,
    /// The seats that won the match (both partners of a team); empty for a tie.
    pub winners: Vec<usize>,
    pub reason: String,
}
