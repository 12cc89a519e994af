//! Reference policies: pure functions from an observation to a move, ported from the
//! Python SDK's `spite_sdk.policies`.
//!
//! [`greedy`] makes the same choice as the Python `greedy_move` for every observation
//! (a test checks it on positions from real games). [`random`] and [`naive`] draw from
//! a [`SplitMix64`], so their choices differ from the Python bots' for the same seed.

use crate::Card;
use crate::moves::{Move, MoveKind, Source};
use crate::types::{Observation, Pile};

/// Plays its stock first, then natural (non-wild) hand cards, then natural discard-pile
/// tops; else it discards its highest non-wild card (a wild only if nothing else may
/// go) onto an empty discard pile, else onto the pile whose top is closest above it;
/// with no discard, it plays a wild rather than pass. Ties go to the earliest legal
/// move. It returns [`Move::PASS`] when there are no legal moves.
pub fn greedy(obs: &Observation) -> Move {
    let moves = &obs.legal_moves;
    let Some(&first) = moves.first() else {
        return Move::PASS;
    };
    let rules = &obs.rules;
    let plays = || moves.iter().filter(|m| m.kind == MoveKind::Play);
    if let Some(&m) = plays().find(|m| m.source == Source::Stock) {
        return m;
    }
    for source in [Source::Hand, Source::DiscardPile] {
        if let Some(&m) = plays().find(|m| m.source == source && !rules.is_wild(m.card)) {
            return m;
        }
    }
    let discards = || moves.iter().filter(|m| m.kind == MoveKind::Discard);
    // The card to discard: the highest non-wild one, else the highest wild one.
    let card =
        discards().map(|m| m.card).filter(|&c| !rules.is_wild(c)).max().or_else(|| discards().map(|m| m.card).max());
    if let Some(card) = card {
        let piles = obs.discard_piles.get(obs.seat).map_or(&[][..], Vec::as_slice);
        // min_by_key keeps the first of equal keys, as Python's min does.
        if let Some(&m) =
            discards().filter(|m| m.card == card).min_by_key(|m| discard_fit(piles.get(m.target), card, m.target))
        {
            return m;
        }
    }
    plays().next().copied().unwrap_or(first)
}

/// How well discarding `card` on a pile fits (lower is better): an empty pile first
/// (the lowest-numbered), then a pile whose top is at or above the card (the closest),
/// then one whose top is below it (the closest).
fn discard_fit(pile: Option<&Pile>, card: Card, target: usize) -> (u8, usize) {
    match pile.and_then(|p| p.last()) {
        None => (0, target),
        Some(top) => {
            let gap = i32::from(top.0) - i32::from(card.0);
            (if gap >= 0 { 1 } else { 2 }, gap.unsigned_abs() as usize * 10 + target)
        }
    }
}

/// A uniformly random legal move ([`Move::PASS`] when there is none).
pub fn random(obs: &Observation, rng: &mut SplitMix64) -> Move {
    if obs.legal_moves.is_empty() {
        return Move::PASS;
    }
    obs.legal_moves[rng.below(obs.legal_moves.len())]
}

/// The published baseline: play any legal card (at random), discard only when it must.
pub fn naive(obs: &Observation, rng: &mut SplitMix64) -> Move {
    let plays: Vec<Move> = obs.legal_moves.iter().copied().filter(|m| m.kind == MoveKind::Play).collect();
    if plays.is_empty() {
        return random(obs, rng);
    }
    plays[rng.below(plays.len())]
}

/// A small, fast, seedable random number generator (SplitMix64), enough for a bot's
/// choices without another dependency. Seed it from [`bot_seed`](crate::bot_seed).
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..n` (`n` > 0), without modulo bias.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "SplitMix64::below(0)");
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::sync::Arc;

    use super::*;
    use crate::RuleSet;

    fn standard() -> Arc<RuleSet> {
        Arc::new(RuleSet {
            name: "standard".into(),
            players: 2,
            centre_piles: 4,
            discard_piles: 4,
            wild_ranks: vec![Card::JOKER, Card::KING],
            ..RuleSet::default()
        })
    }

    /// Seat 0's view with these discard piles (ranks) and legal moves (notation).
    fn observation(discards: &[&[u8]], legal: &[&str]) -> Observation {
        let mut mine: Vec<Pile> = discards.iter().map(|p| p.iter().map(|&r| Card(r)).collect()).collect();
        mine.resize(4, Vec::new());
        Observation {
            rules: standard(),
            seat: 0,
            turn: 1,
            to_move: 0,
            hand: vec![],
            hand_sizes: vec![5, 5],
            stocks: vec![],
            discard_piles: vec![mine, vec![vec![]; 4]],
            centre_piles: vec![vec![]; 4],
            draw_pile_count: 0,
            set_aside_count: 0,
            events: vec![],
            legal_moves: legal.iter().map(|t| t.parse().unwrap()).collect(),
        }
    }

    #[test]
    fn greedy_choices() {
        // (what it shows, seat 0's discard piles, the legal moves, greedy's choice)
        type Case<'a> = (&'a str, &'a [&'a [u8]], &'a [&'a str], &'a str);
        let cases: [Case; 12] = [
            ("the stock first, even a wild one", &[], &["H:5>C0", "D0:6>C1", "S:K>C2", "S:K>C3", "H:9>D0"], "S:K>C2"),
            ("a natural hand card before a wild", &[], &["H:*>C0", "H:K>C0", "H:4>C1", "D0:4>C1"], "H:4>C1"),
            ("a natural discard-pile top before a wild hand card", &[], &["H:K>C0", "D2:Q>C3", "H:9>D0"], "D2:Q>C3"),
            (
                "no natural play: discard the highest non-wild card",
                &[],
                &["H:K>C0", "H:3>D0", "H:J>D0", "H:K>D0", "H:J>D1"],
                "H:J>D0",
            ),
            (
                "onto an empty pile, the lowest-numbered",
                &[&[9], &[], &[], &[4]],
                &["H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"],
                "H:7>D1",
            ),
            (
                "else onto the pile whose top is closest above",
                &[&[2, 12], &[9], &[8], &[5]],
                &["H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"],
                "H:7>D2",
            ),
            (
                "an equal top counts as above",
                &[&[12], &[7], &[9], &[3]],
                &["H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"],
                "H:7>D1",
            ),
            ("else the closest below", &[&[2], &[5], &[3], &[6]], &["H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"], "H:7>D3"),
            (
                "a tie goes to the lower pile",
                &[&[6], &[8], &[8], &[6]],
                &["H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"],
                "H:7>D1",
            ),
            ("wilds are discarded only when nothing else may go", &[&[6]], &["H:K>D0", "H:*>D0", "H:K>D1"], "H:K>D1"),
            ("no discard: a wild play rather than pass", &[], &["H:*>C0", "H:K>C1", "pass"], "H:*>C0"),
            ("nothing else: pass", &[], &["pass"], "pass"),
        ];
        for (name, discards, legal, expected) in cases {
            assert_eq!(greedy(&observation(discards, legal)).to_string(), expected, "{name}");
        }
        assert_eq!(greedy(&observation(&[], &[])), Move::PASS, "no legal moves");
    }

    #[test]
    fn random_and_naive() {
        let obs = observation(&[], &["H:5>C0", "D0:6>C1", "H:9>D0", "H:9>D1"]);
        let mut rng = SplitMix64::new(1);
        let mut seen = HashSet::new();
        for _ in 0..200 {
            let m = naive(&obs, &mut rng);
            assert_eq!(m.kind, MoveKind::Play, "naive chose {m} while a play was legal");
            seen.insert(m);
            seen.insert(random(&obs, &mut rng));
        }
        assert_eq!(seen.len(), obs.legal_moves.len(), "in 400 draws some legal moves never came up");
        assert_eq!(naive(&observation(&[], &["H:9>D0"]), &mut rng).to_string(), "H:9>D0");
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        assert!((0..10).all(|_| a.next_u64() == b.next_u64()), "the same seed gives the same numbers");
    }
}
