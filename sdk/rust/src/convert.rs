//! Conversions between the wire messages ([`crate::proto`]) and this crate's values.
//!
//! The only code that knows the wire's numbering: it keeps 0 of every enum for
//! "unspecified", so its move kinds, sources and event kinds are this crate's numbers
//! plus one (`MOVE_KIND_PLAY = 1` is `MoveKind::Play = 0`, `SOURCE_HAND = 1` is
//! `Source::Hand = 0`), and its "-1 for none" is `None`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::cards::Card;
use crate::moves::{Move, MoveKind, Source};
use crate::proto as pb;
use crate::types::{
    ActionResult, Ending, Event, EventKind, Fault, MatchResult, Observation, Outcome, Policy, RuleSet, StockView,
    TimeControl, Welcome,
};

/// A message from the referee that this SDK cannot read (a move with no kind, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError(pub String);

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProtocolError {}

impl TryFrom<&pb::Move> for Move {
    type Error = ProtocolError;

    /// The move a wire move stands for; an error for one that stands for none (an
    /// unspecified kind or source, a discard not from the hand).
    fn try_from(m: &pb::Move) -> Result<Move, ProtocolError> {
        let kind = match pb::MoveKind::try_from(m.kind) {
            Ok(pb::MoveKind::Pass) => return Ok(Move::PASS),
            Ok(pb::MoveKind::Play) => MoveKind::Play,
            Ok(pb::MoveKind::Discard) => MoveKind::Discard,
            _ => return Err(ProtocolError(format!("move kind {} is not PLAY, DISCARD or PASS", m.kind))),
        };
        let source = match pb::Source::try_from(m.source) {
            Ok(pb::Source::Hand) => Source::Hand,
            Ok(pb::Source::Stock) => Source::Stock,
            Ok(pb::Source::DiscardPile) => Source::DiscardPile,
            _ => return Err(ProtocolError(format!("a {kind:?} move needs a source, got {}", m.source))),
        };
        let card = card(m.card)?;
        if kind == MoveKind::Discard {
            if source != Source::Hand {
                return Err(ProtocolError(format!("a DISCARD comes from the hand, not {source:?}")));
            }
            return Ok(Move::discard(card, m.target as usize));
        }
        Ok(Move::play(source, m.source_index as usize, card, m.target as usize))
    }
}

impl From<Move> for pb::Move {
    fn from(m: Move) -> pb::Move {
        if m.kind == MoveKind::Pass {
            return pb::Move { kind: pb::MoveKind::Pass as i32, ..Default::default() };
        }
        pb::Move {
            kind: m.kind as i32 + 1,
            source: m.source as i32 + 1,
            source_index: m.index as u32,
            card: u32::from(m.card.0),
            target: m.target as u32,
        }
    }
}

impl From<&pb::RuleSet> for RuleSet {
    fn from(r: &pb::RuleSet) -> RuleSet {
        RuleSet {
            name: r.name.clone(),
            version: r.version,
            players: r.players as usize,
            partners: r.partners,
            deck: r.deck.clone(),
            decks: r.decks,
            jokers_per_deck: r.jokers_per_deck,
            kings_wild: r.kings_wild,
            stock_size: r.stock_size as usize,
            hand_size: r.hand_size as usize,
            centre_piles: r.centre_piles as usize,
            discard_piles: r.discard_piles as usize,
            open_stock: r.open_stock as usize,
            no_block: r.no_block,
            completed_piles: r.completed_piles.clone(),
            draw_pile_exhausted: r.draw_pile_exhausted.clone(),
            discard_aces: r.discard_aces,
            scoring: r.scoring.clone(),
            match_points: r.match_points,
            turn_cap: r.turn_cap,
            // A rank the wire could hold but no card has is never wild: leave it out.
            wild_ranks: r.wild_ranks.iter().filter_map(|&rank| card(rank).ok()).collect(),
        }
    }
}

impl Observation {
    /// The observation a wire observation describes; `rules` is the match's rule set
    /// (sent once, in Welcome). It fails on a malformed move or an impossible card.
    pub fn from_proto(o: &pb::Observation, rules: Arc<RuleSet>) -> Result<Observation, ProtocolError> {
        let legal_moves = o
            .legal_moves
            .iter()
            .enumerate()
            .map(|(i, m)| Move::try_from(m).map_err(|e| ProtocolError(format!("legal move {i}: {e}"))))
            .collect::<Result<_, _>>()?;
        Ok(Observation {
            rules,
            seat: usize::try_from(o.seat).map_err(|_| ProtocolError(format!("observation of seat {}", o.seat)))?,
            turn: o.turn,
            to_move: o.to_move as usize,
            hand: cards(&o.hand)?,
            hand_sizes: o.hand_sizes.iter().map(|&n| n as usize).collect(),
            stocks: o
                .stocks
                .iter()
                .map(|s| Ok(StockView { count: s.count as usize, visible: cards(&s.visible)? }))
                .collect::<Result<_, ProtocolError>>()?,
            discard_piles: o.discard_piles.iter().map(|seat| piles(&seat.piles)).collect::<Result<_, _>>()?,
            centre_piles: piles(&o.centre_piles)?,
            draw_pile_count: o.draw_pile_count as usize,
            set_aside_count: o.set_aside_count as usize,
            events: events_from_proto(&o.events)?,
            legal_moves,
        })
    }
}

/// The events of a wire event list.
pub fn events_from_proto(events: &[pb::Event]) -> Result<Vec<Event>, ProtocolError> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let kind = match pb::EventKind::try_from(e.kind) {
                Ok(pb::EventKind::Unspecified) => return Err(ProtocolError(format!("event {i} has no kind"))),
                Ok(pb::EventKind::Deal) => EventKind::Deal,
                Ok(pb::EventKind::Turn) => EventKind::Turn,
                Ok(pb::EventKind::Move) => EventKind::Move,
                Ok(pb::EventKind::Draw) => EventKind::Draw,
                Ok(pb::EventKind::Reveal) => EventKind::Reveal,
                Ok(pb::EventKind::PileCompleted) => EventKind::PileCompleted,
                Ok(pb::EventKind::Shuffle) => EventKind::Shuffle,
                Ok(pb::EventKind::GameOver) => EventKind::GameOver,
                Err(_) => EventKind::Unknown(e.kind),
            };
            let mv = match &e.r#move {
                Some(m) => Some(Move::try_from(m).map_err(|err| ProtocolError(format!("event {i}: {err}")))?),
                None => None,
            };
            Ok(Event {
                kind,
                seat: index(e.seat),
                mv,
                cards: cards(&e.cards).map_err(|err| ProtocolError(format!("event {i}: {err}")))?,
                count: e.count,
                pile: index(e.pile),
            })
        })
        .collect()
}

impl From<&pb::Outcome> for Outcome {
    /// An ending this SDK does not know becomes [`Ending::Unknown`].
    fn from(o: &pb::Outcome) -> Outcome {
        let ending = match pb::Ending::try_from(o.ending) {
            Ok(pb::Ending::StockEmptied) => Ending::StockEmptied,
            Ok(pb::Ending::Stalemate) => Ending::Stalemate,
            Ok(pb::Ending::TurnCap) => Ending::TurnCap,
            Ok(pb::Ending::DrawPileExhausted) => Ending::DrawPileExhausted,
            Ok(pb::Ending::Timeout) => Ending::Timeout,
            Ok(pb::Ending::IllegalMove) => Ending::IllegalMove,
            Ok(pb::Ending::Malformed) => Ending::Malformed,
            Ok(pb::Ending::Crash) => Ending::Crash,
            Ok(pb::Ending::Disconnect) => Ending::Disconnect,
            Ok(pb::Ending::NoShow) => Ending::NoShow,
            Ok(pb::Ending::Forfeit) => Ending::Forfeit,
            Ok(pb::Ending::Unspecified) | Err(_) => Ending::Unknown,
        };
        Outcome {
            ending,
            winners: o.winners.iter().map(|&s| s as usize).collect(),
            scores: o.scores.clone(),
            reason: o.reason.clone(),
            offender: index(o.offender),
        }
    }
}

impl From<&pb::Welcome> for Welcome {
    fn from(w: &pb::Welcome) -> Welcome {
        let tc = w.time_control.unwrap_or_default();
        let policy = match pb::Policy::try_from(w.policy) {
            Ok(pb::Policy::Forfeit) => Policy::Forfeit,
            Ok(pb::Policy::Substitute) => Policy::Substitute,
            Ok(pb::Policy::Unspecified) | Err(_) => Policy::Unspecified,
        };
        Welcome {
            seat: w.seat as usize,
            rules: Arc::new(w.rules.as_ref().map(RuleSet::from).unwrap_or_default()),
            time_control: TimeControl {
                decision: millis(tc.decision_ms),
                bank: millis(tc.bank_ms),
                connect: millis(tc.connect_ms),
            },
            games: w.games,
            match_id: w.match_id.clone(),
            protocol_version: w.protocol_version,
            seat_names: w.seat_names.clone(),
            policy,
        }
    }
}

impl TryFrom<&pb::ActionResult> for ActionResult {
    type Error = ProtocolError;

    fn try_from(r: &pb::ActionResult) -> Result<ActionResult, ProtocolError> {
        let fault = match pb::Fault::try_from(r.fault) {
            Ok(pb::Fault::None) => Fault::None,
            Ok(pb::Fault::Timeout) => Fault::Timeout,
            Ok(pb::Fault::IllegalMove) => Fault::IllegalMove,
            Ok(pb::Fault::Malformed) => Fault::Malformed,
            Ok(pb::Fault::WrongDecision) => Fault::WrongDecision,
            Err(_) => Fault::Unknown(r.fault),
        };
        let applied = r
            .applied
            .iter()
            .enumerate()
            .map(|(i, m)| Move::try_from(m).map_err(|e| ProtocolError(format!("applied move {i}: {e}"))))
            .collect::<Result<_, _>>()?;
        let error = if fault != Fault::None && r.error.is_empty() { format!("fault {fault}") } else { r.error.clone() };
        Ok(ActionResult { decision_id: r.decision_id, applied, dropped: r.dropped, fault, error, strikes: r.strikes })
    }
}

impl From<&pb::MatchOver> for MatchResult {
    fn from(m: &pb::MatchOver) -> MatchResult {
        MatchResult {
            points: m.points.clone(),
            wins: m.wins.clone(),
            winners: m.winners.iter().map(|&s| s as usize).collect(),
            reason: m.reason.clone(),
        }
    }
}

fn card(rank: u32) -> Result<Card, ProtocolError> {
    u8::try_from(rank)
        .ok()
        .filter(|&r| r <= Card::KING.0)
        .map(Card)
        .ok_or_else(|| ProtocolError(format!("{rank} is not a card (0..13)")))
}

fn cards(ranks: &[u32]) -> Result<Vec<Card>, ProtocolError> {
    ranks.iter().map(|&rank| card(rank)).collect()
}

fn piles(piles: &[pb::Pile]) -> Result<Vec<Vec<Card>>, ProtocolError> {
    piles.iter().map(|p| cards(&p.cards)).collect()
}

/// The wire's "-1 for none".
fn index(value: i32) -> Option<usize> {
    usize::try_from(value).ok()
}

pub(crate) fn millis(ms: u32) -> Duration {
    Duration::from_millis(u64::from(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(text: &str) -> pb::Move {
        text.parse::<Move>().unwrap().into()
    }

    #[test]
    fn move_wire_numbering_is_offset_by_one() {
        let cases = [
            (pb::Move { kind: 1, source: 1, card: 7, ..Default::default() }, "H:7>C0"),
            (pb::Move { kind: 1, source: 2, card: 13, target: 2, ..Default::default() }, "S:K>C2"),
            (pb::Move { kind: 1, source: 3, source_index: 1, card: 12, target: 3 }, "D1:Q>C3"),
            (pb::Move { kind: 2, source: 1, card: 9, ..Default::default() }, "H:9>D0"),
            (pb::Move { kind: 3, ..Default::default() }, "pass"),
        ];
        for (message, text) in cases {
            let m = Move::try_from(&message).unwrap();
            assert_eq!(m.to_string(), text);
            assert_eq!(pb::Move::from(m), message, "{text} back to the wire");
        }
        assert_eq!(pb::MoveKind::Play as i32, MoveKind::Play as i32 + 1);
        assert_eq!(pb::Source::DiscardPile as i32, Source::DiscardPile as i32 + 1);
    }

    #[test]
    fn move_from_the_wire_is_normalised() {
        // A source index means something only for a discard-pile source; a pass is only a pass.
        let play = pb::Move { kind: 1, source: 1, source_index: 3, card: 5, target: 1 };
        assert_eq!(Move::try_from(&play), Ok(Move::play(Source::Hand, 0, Card(5), 1)));
        let pass = pb::Move { kind: 3, source: 2, card: 4, ..Default::default() };
        assert_eq!(Move::try_from(&pass), Ok(Move::PASS));
    }

    #[test]
    fn move_from_the_wire_rejects_what_stands_for_no_move() {
        for message in [
            pb::Move::default(),
            pb::Move { kind: 9, source: 1, ..Default::default() },
            pb::Move { kind: 1, ..Default::default() },
            pb::Move { kind: 1, source: 7, ..Default::default() },
            pb::Move { kind: 2, source: 2, card: 4, ..Default::default() },
            pb::Move { kind: 1, source: 1, card: 14, ..Default::default() },
        ] {
            assert!(Move::try_from(&message).is_err(), "{message:?} was accepted");
        }
    }

    #[test]
    fn observation_from_the_wire() {
        let rules = Arc::new(RuleSet::from(&pb::RuleSet {
            name: "partners".into(),
            players: 4,
            partners: true,
            centre_piles: 3,
            discard_piles: 4,
            wild_ranks: vec![0, 13],
            hand_size: 5,
            ..Default::default()
        }));
        let mut message = pb::Observation {
            seat: 3,
            turn: 12,
            to_move: 3,
            hand: vec![2, 5, 13],
            hand_sizes: vec![5, 4, 5, 3],
            stocks: vec![pb::StockView { count: 20, visible: vec![6] }, pb::StockView { count: 0, visible: vec![] }],
            discard_piles: vec![
                pb::SeatPiles::default(),
                pb::SeatPiles::default(),
                pb::SeatPiles::default(),
                pb::SeatPiles { piles: vec![pb::Pile { cards: vec![9, 8] }, pb::Pile::default()] },
            ],
            centre_piles: vec![pb::Pile { cards: vec![1, 2] }, pb::Pile::default(), pb::Pile { cards: vec![1] }],
            draw_pile_count: 40,
            set_aside_count: 2,
            events: vec![
                pb::Event { kind: pb::EventKind::Turn as i32, seat: 3, count: 12, pile: -1, ..Default::default() },
                pb::Event {
                    kind: pb::EventKind::Move as i32,
                    seat: 1,
                    r#move: Some(wire("S:3>C0")),
                    pile: -1,
                    ..Default::default()
                },
                pb::Event {
                    kind: pb::EventKind::Draw as i32,
                    seat: 3,
                    cards: vec![2, 13],
                    count: 2,
                    pile: -1,
                    ..Default::default()
                },
                pb::Event {
                    kind: pb::EventKind::Reveal as i32,
                    seat: -1,
                    cards: vec![4],
                    count: 19,
                    pile: 0,
                    ..Default::default()
                },
            ],
            legal_moves: ["H:2>C1", "H:K>C0", "D0:8>C2", "H:5>D1"].map(wire).to_vec(),
        };
        let obs = Observation::from_proto(&message, Arc::clone(&rules)).unwrap();
        let expected = Observation {
            rules: Arc::clone(&rules),
            seat: 3,
            turn: 12,
            to_move: 3,
            hand: vec![Card(2), Card(5), Card::KING],
            hand_sizes: vec![5, 4, 5, 3],
            stocks: vec![StockView { count: 20, visible: vec![Card(6)] }, StockView { count: 0, visible: vec![] }],
            discard_piles: vec![vec![], vec![], vec![], vec![vec![Card(9), Card(8)], vec![]]],
            centre_piles: vec![vec![Card(1), Card(2)], vec![], vec![Card(1)]],
            draw_pile_count: 40,
            set_aside_count: 2,
            events: vec![
                Event { kind: EventKind::Turn, seat: Some(3), mv: None, cards: vec![], count: 12, pile: None },
                Event {
                    kind: EventKind::Move,
                    seat: Some(1),
                    mv: Some(Move::play(Source::Stock, 0, Card(3), 0)),
                    cards: vec![],
                    count: 0,
                    pile: None,
                },
                Event {
                    kind: EventKind::Draw,
                    seat: Some(3),
                    mv: None,
                    cards: vec![Card(2), Card::KING],
                    count: 2,
                    pile: None,
                },
                Event { kind: EventKind::Reveal, seat: None, mv: None, cards: vec![Card(4)], count: 19, pile: Some(0) },
            ],
            legal_moves: ["H:2>C1", "H:K>C0", "D0:8>C2", "H:5>D1"].map(|t| t.parse().unwrap()).to_vec(),
        };
        assert_eq!(obs, expected);
        assert_eq!(obs.my_stock().count, 0, "seat 3 plays its team's stock, 1");
        assert_eq!(obs.my_discard_piles()[0].last(), Some(&Card(8)));
        assert_eq!(obs.centre_needs(), vec![Card(3), Card(1), Card(2)]);
        assert!(rules.is_wild(Card::KING) && rules.is_wild(Card::JOKER) && !rules.is_wild(Card::QUEEN));
        assert_eq!((rules.stocks(), rules.team_of(2)), (2, 0));

        message.legal_moves.push(pb::Move::default());
        assert!(Observation::from_proto(&message, Arc::clone(&rules)).is_err(), "an unspecified legal move");
        message.legal_moves.pop();
        message.hand.push(99);
        assert!(Observation::from_proto(&message, rules).is_err(), "a card of rank 99");
    }

    #[test]
    fn outcomes_results_and_welcome() {
        let outcome = Outcome::from(&pb::Outcome {
            ending: pb::Ending::StockEmptied as i32,
            winners: vec![0, 2],
            scores: vec![1, 0, 1, 0],
            reason: "team 0 emptied its stock".into(),
            offender: -1,
        });
        assert!(outcome.ending.by_rules() && !outcome.is_draw() && outcome.offender.is_none());
        assert_eq!(outcome.ending.to_string(), "stock-emptied");
        let timeout =
            Outcome::from(&pb::Outcome { ending: pb::Ending::Timeout as i32, offender: 1, ..Default::default() });
        assert!(!timeout.ending.by_rules() && timeout.is_draw());
        assert_eq!(timeout.offender, Some(1));
        assert_eq!(Outcome::from(&pb::Outcome { ending: 99, ..Default::default() }).ending, Ending::Unknown);

        let result = ActionResult::try_from(&pb::ActionResult {
            decision_id: 7,
            fault: pb::Fault::Timeout as i32,
            applied: vec![wire("H:9>D0")],
            strikes: 1,
            ..Default::default()
        })
        .unwrap();
        assert!(!result.ok());
        assert_eq!((result.fault, result.error.as_str()), (Fault::Timeout, "fault TIMEOUT"));
        assert_eq!(result.applied, vec![Move::discard(Card(9), 0)]);

        let welcome = Welcome::from(&pb::Welcome {
            seat: 1,
            rules: Some(pb::RuleSet { name: "standard".into(), ..Default::default() }),
            time_control: Some(pb::TimeControl { decision_ms: 1000, bank_ms: 10000, connect_ms: 250 }),
            policy: pb::Policy::Substitute as i32,
            protocol_version: 1,
            seat_names: vec!["a".into(), "b".into()],
            ..Default::default()
        });
        assert_eq!(welcome.rules.name, "standard");
        assert_eq!(
            welcome.time_control,
            TimeControl {
                decision: Duration::from_secs(1),
                bank: Duration::from_secs(10),
                connect: Duration::from_millis(250)
            }
        );
        assert_eq!((welcome.seat, welcome.policy, welcome.seat_names[1].as_str()), (1, Policy::Substitute, "b"));

        let over = MatchResult::from(&pb::MatchOver {
            points: vec![2, 1],
            wins: vec![2, 1],
            winners: vec![0],
            reason: String::new(),
        });
        assert_eq!((over.points, over.winners), (vec![2, 1], vec![0]));
    }
}
