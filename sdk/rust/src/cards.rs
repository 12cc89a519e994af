//! Cards: ranks only, since suits never matter in these games.

use std::fmt;
use std::str::FromStr;

/// A card's rank, 0..=13. Two cards of the same rank are the same value.
///
/// | rank | meaning | name |
/// |---|---|---|
/// | 0 | Joker, or the Skip-Bo wild card | `*` |
/// | 1 | Ace (Skip-Bo: 1) | `A` |
/// | 2..=10 | pips | `2`..`10` |
/// | 11 | Jack (Skip-Bo: 11) | `J` |
/// | 12 | Queen (Skip-Bo: 12), completes a centre pile | `Q` |
/// | 13 | King (Spite and Malice only; wild in most rule sets) | `K` |
///
/// Whether a rank is wild depends on the rule set: see [`RuleSet::is_wild`](crate::RuleSet::is_wild).
///
/// ```
/// use spite::Card;
/// assert_eq!(Card::KING.to_string(), "K");
/// assert_eq!("q".parse::<Card>(), Ok(Card::QUEEN));
/// assert_eq!(Card(7).to_string(), "7");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(pub u8);

impl Card {
    /// The Joker, and the Skip-Bo wild card.
    pub const JOKER: Card = Card(0);
    pub const ACE: Card = Card(1);
    pub const JACK: Card = Card(11);
    /// The Queen: the last card of a centre pile.
    pub const QUEEN: Card = Card(12);
    pub const KING: Card = Card(13);

    /// The rank as a number, 0..=13.
    pub fn rank(self) -> u8 {
        self.0
    }
}

impl fmt::Display for Card {
    /// The short name: `*`, `A`, `2`..`10`, `J`, `Q` or `K`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Card::JOKER => f.write_str("*"),
            Card::ACE => f.write_str("A"),
            Card::JACK => f.write_str("J"),
            Card::QUEEN => f.write_str("Q"),
            Card::KING => f.write_str("K"),
            Card(rank) => write!(f, "{rank}"),
        }
    }
}

/// Text that names no card or move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub(crate) String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

impl FromStr for Card {
    type Err = ParseError;

    /// Reads a card name (`*`, `A`, `J`, `Q`, `K`; also `JOKER`, `W` and `SB` for the
    /// wild) or a number 0..=13. Case and surrounding spaces do not matter.
    fn from_str(text: &str) -> Result<Card, ParseError> {
        let key = text.trim().to_ascii_uppercase();
        match key.as_str() {
            "*" | "JOKER" | "W" | "SB" => return Ok(Card::JOKER),
            "A" => return Ok(Card::ACE),
            "J" => return Ok(Card::JACK),
            "Q" => return Ok(Card::QUEEN),
            "K" => return Ok(Card::KING),
            _ => {}
        }
        if !key.is_empty()
            && key.bytes().all(|b| b.is_ascii_digit())
            && let Ok(rank) = key.parse::<u8>()
            && rank <= Card::KING.0
        {
            return Ok(Card(rank));
        }
        Err(ParseError(format!("not a card: {text:?} (expected *, A, 2..10, J, Q, K or 0..13)")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let names = [
            (Card::JOKER, "*"),
            (Card::ACE, "A"),
            (Card(2), "2"),
            (Card(10), "10"),
            (Card::JACK, "J"),
            (Card::QUEEN, "Q"),
            (Card::KING, "K"),
        ];
        for (card, name) in names {
            assert_eq!(card.to_string(), name);
            assert_eq!(name.to_lowercase().parse::<Card>(), Ok(card), "{name}");
        }
        assert_eq!(" sb ".parse::<Card>(), Ok(Card::JOKER));
        assert_eq!("13".parse::<Card>(), Ok(Card::KING));
        assert_eq!("07".parse::<Card>(), Ok(Card(7)));
    }

    #[test]
    fn rejects_what_is_no_card() {
        for bad in ["", "14", "-1", "-0", "+3", "X", "1.0", "٣"] {
            assert!(bad.parse::<Card>().is_err(), "{bad:?} was read as a card");
        }
    }
}
