//! Moves and their text notation.

use std::fmt;
use std::str::FromStr;

use crate::cards::{Card, ParseError};

/// What a move does. Numbered like the rules engine and every SDK (the wire adds one,
/// keeping 0 for "unspecified"; only [`convert`](crate::convert) knows that).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MoveKind {
    /// Put a card onto a centre pile.
    Play = 0,
    /// Put a hand card on one of the mover's discard piles; it ends the turn.
    Discard = 1,
    /// End the turn without discarding; legal only when no discard is.
    Pass = 2,
}

/// Where a played card comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// The mover's hand: the source of every discard (and, unused, of a pass).
    Hand = 0,
    /// The top card of the mover's stock (its team's stock with partners).
    Stock = 1,
    /// The top card of one of the mover's discard piles ([`Move::index`]).
    DiscardPile = 2,
}

/// One move: where a card comes from, which card, and where it goes. A small `Copy`
/// value; moves compare with `==`.
///
/// Its text notation ([`Display`](fmt::Display) and [`FromStr`]):
///
/// | notation | meaning |
/// |---|---|
/// | `H:7>C0` | play the hand's 7 on centre pile 0 |
/// | `S:K>C2` | play the stock's top King on centre pile 2 |
/// | `D1:Q>C3` | play discard pile 1's top Queen on centre pile 3 |
/// | `H:9>D0` | discard the hand's 9 on discard pile 0 (ends the turn) |
/// | `pass` | end the turn without discarding |
///
/// ```
/// use spite::{Card, Move, Source};
/// let m: Move = "D1:Q>C3".parse().unwrap();
/// assert_eq!(m, Move::play(Source::DiscardPile, 1, Card::QUEEN, 3));
/// assert_eq!(m.to_string(), "D1:Q>C3");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub kind: MoveKind,
    /// Where the card comes from: `Hand` for every discard, and for a pass.
    pub source: Source,
    /// The discard pile the card comes from when `source` is `DiscardPile`, else 0.
    pub index: usize,
    /// The card moved; `Card(0)` for a pass.
    pub card: Card,
    /// The centre pile for a play, the mover's discard pile for a discard, 0 for a pass.
    pub target: usize,
}

impl Move {
    /// The one pass move.
    pub const PASS: Move = Move { kind: MoveKind::Pass, source: Source::Hand, index: 0, card: Card(0), target: 0 };

    /// A play of `card` onto centre pile `target`, from `source` (`index` names the
    /// discard pile for `Source::DiscardPile` and is ignored otherwise).
    pub fn play(source: Source, index: usize, card: Card, target: usize) -> Move {
        let index = if source == Source::DiscardPile { index } else { 0 };
        Move { kind: MoveKind::Play, source, index, card, target }
    }

    /// A discard of the hand's `card` onto the mover's discard pile `pile`.
    pub fn discard(card: Card, pile: usize) -> Move {
        Move { kind: MoveKind::Discard, source: Source::Hand, index: 0, card, target: pile }
    }
}

impl fmt::Display for Move {
    /// The move's notation, e.g. `H:7>C0`, `D1:Q>C3`, `H:9>D0` or `pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            MoveKind::Pass => return f.write_str("pass"),
            MoveKind::Play | MoveKind::Discard => {}
        }
        match self.source {
            Source::Hand => f.write_str("H")?,
            Source::Stock => f.write_str("S")?,
            Source::DiscardPile => write!(f, "D{}", self.index)?,
        }
        let pile = if self.kind == MoveKind::Play { 'C' } else { 'D' };
        write!(f, ":{}>{pile}{}", self.card, self.target)
    }
}

impl FromStr for Move {
    type Err = ParseError;

    /// Reads the notation of [`Move`]. Case, and spaces around the punctuation, do not matter.
    fn from_str(text: &str) -> Result<Move, ParseError> {
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("pass") {
            return Ok(Move::PASS);
        }
        let not_a_move = || {
            let shown: String = text.chars().take(40).collect();
            ParseError(format!("not a move: {shown:?} (expected e.g. H:7>C0, S:K>C1, D2:Q>C3, H:9>D0, pass)"))
        };
        let upper = trimmed.to_ascii_uppercase();
        let (source, rest) = upper.split_once(':').ok_or_else(not_a_move)?;
        let (card, target) = rest.split_once('>').ok_or_else(not_a_move)?;
        let (source, card, target) = (source.trim_end(), card.trim(), target.trim_start());
        let card_ok = card == "*"
            || (!card.is_empty() && card.bytes().all(|b| b.is_ascii_uppercase()))
            || (matches!(card.len(), 1 | 2) && card.bytes().all(|b| b.is_ascii_digit()));
        let target_bytes = target.as_bytes();
        if !card_ok
            || target_bytes.len() != 2
            || !matches!(target_bytes[0], b'C' | b'D')
            || !target_bytes[1].is_ascii_digit()
        {
            return Err(not_a_move());
        }
        let card: Card = card.parse()?;
        let target_index = usize::from(target_bytes[1] - b'0');
        let source = match source.as_bytes() {
            b"H" => (Source::Hand, 0),
            b"S" => (Source::Stock, 0),
            [b'D', digit] if digit.is_ascii_digit() => (Source::DiscardPile, usize::from(digit - b'0')),
            _ => return Err(not_a_move()),
        };
        if target_bytes[0] == b'D' {
            if source.0 != Source::Hand {
                return Err(ParseError(format!("{text:?}: only hand cards may be discarded")));
            }
            return Ok(Move::discard(card, target_index));
        }
        Ok(Move::play(source.0, source.1, card, target_index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Move {
        text.parse().unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    #[test]
    fn notation_round_trips() {
        let cases = [
            ("H:7>C0", Move::play(Source::Hand, 0, Card(7), 0)),
            ("S:K>C2", Move::play(Source::Stock, 0, Card::KING, 2)),
            ("D1:Q>C3", Move::play(Source::DiscardPile, 1, Card::QUEEN, 3)),
            ("H:9>D0", Move::discard(Card(9), 0)),
            ("pass", Move::PASS),
            ("H:*>C1", Move::play(Source::Hand, 0, Card::JOKER, 1)),
            ("S:A>C0", Move::play(Source::Stock, 0, Card::ACE, 0)),
            ("H:10>D3", Move::discard(Card(10), 3)),
            ("D3:J>C1", Move::play(Source::DiscardPile, 3, Card::JACK, 1)),
        ];
        for (text, expected) in cases {
            assert_eq!(expected.to_string(), text);
            assert_eq!(parse(text), expected, "{text}");
        }
    }

    #[test]
    fn parsing_is_lenient() {
        let cases = [
            ("h:9>d0", "H:9>D0"),
            (" S : k > C2 ", "S:K>C2"),
            ("PASS", "pass"),
            ("d1:12>c3", "D1:Q>C3"),
            ("H:joker>C0", "H:*>C0"),
            ("H:sb>C0", "H:*>C0"),
            ("S:13>C1", "S:K>C1"),
            ("H:07>C0", "H:7>C0"),
            ("  pass\t", "pass"),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text).to_string(), expected, "{text:?}");
        }
    }

    #[test]
    fn parsing_rejects_what_is_no_move() {
        for bad in [
            "",
            "S:7>D0",
            "D0:7>D1",
            "X:7>C0",
            "H:14>C0",
            "H:7>C",
            "H:7>C10",
            "H7>C0",
            "H:-1>C0",
            "H:+1>C0",
            "H:Z>C0",
            "passes",
            "H:7>C0 extra",
            "D:7>C0",
            "D12:7>C0",
            "H::7>C0",
            "H:7>>C0",
            "H:123>C0",
        ] {
            assert!(bad.parse::<Move>().is_err(), "{bad:?} was read as a move");
        }
        let error = "S:7>D0".parse::<Move>().unwrap_err();
        assert!(error.to_string().contains("only hand cards may be discarded"), "{error}");
    }

    #[test]
    fn play_ignores_an_index_outside_discard_piles() {
        assert_eq!(Move::play(Source::Hand, 3, Card(5), 1).index, 0);
    }
}
