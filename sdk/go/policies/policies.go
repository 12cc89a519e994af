// Package policies holds reference policies: pure functions from an observation to a
// move, ported from the Python SDK's spite_sdk.policies.
//
// Greedy makes the same choice as the Python greedy_move for every observation (a test
// checks it on positions from real games). Random and Naive draw from a Go random
// source, so their choices differ from the Python bots' for the same seed.
package policies

import (
	"math/rand/v2"

	"github.com/spite-arena/spite/sdk/go/spite"
)

// Greedy plays its stock first, then natural (non-wild) hand cards, then natural
// discard-pile tops; else it discards its highest non-wild card (a wild only if nothing
// else may go) onto an empty discard pile, else onto the pile whose top is closest above
// it; with no discard, it plays a wild rather than pass. Ties go to the earliest legal
// move. It returns spite.PassMove when there are no legal moves.
func Greedy(obs *spite.Observation) spite.Move {
	moves := obs.LegalMoves
	if len(moves) == 0 {
		return spite.PassMove
	}
	rules := obs.Rules
	for _, m := range moves {
		if m.Kind == spite.Play && m.Source == spite.Stock {
			return m
		}
	}
	for _, source := range [...]spite.Source{spite.Hand, spite.DiscardPile} {
		for _, m := range moves {
			if m.Kind == spite.Play && m.Source == source && !rules.IsWild(m.Card) {
				return m
			}
		}
	}
	// The card to discard: the highest non-wild one, else the highest wild one.
	found, bestWild, best := false, false, spite.Card(0)
	for _, m := range moves {
		if m.Kind != spite.Discard {
			continue
		}
		wild := rules.IsWild(m.Card)
		if !found || (!wild && bestWild) || (wild == bestWild && m.Card > best) {
			found, bestWild, best = true, wild, m.Card
		}
	}
	if found {
		piles := obs.DiscardPiles[obs.Seat]
		var choice spite.Move
		var choiceFit [2]int
		first := true
		for _, m := range moves {
			if m.Kind != spite.Discard || m.Card != best {
				continue
			}
			if f := discardFit(piles[m.Target], best, m.Target); first || less(f, choiceFit) {
				choice, choiceFit, first = m, f, false
			}
		}
		return choice
	}
	for _, m := range moves {
		if m.Kind == spite.Play {
			return m
		}
	}
	return moves[0]
}

// discardFit ranks discarding card on pile (lower is better): an empty pile first (the
// lowest-numbered), then a pile whose top is at or above the card (the closest), then
// one whose top is below it (the closest).
func discardFit(pile spite.Pile, card spite.Card, target int) [2]int {
	top, ok := pile.Top()
	if !ok {
		return [2]int{0, target}
	}
	gap := int(top) - int(card)
	if gap >= 0 {
		return [2]int{1, gap*10 + target}
	}
	return [2]int{2, -gap*10 + target}
}

func less(a, b [2]int) bool { return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]) }

// Random returns a uniformly random legal move (spite.PassMove when there is none).
func Random(obs *spite.Observation, rng *rand.Rand) spite.Move {
	if len(obs.LegalMoves) == 0 {
		return spite.PassMove
	}
	return obs.LegalMoves[rng.IntN(len(obs.LegalMoves))]
}

// Naive is the published baseline: play any legal card (at random), discard only when
// it must.
func Naive(obs *spite.Observation, rng *rand.Rand) spite.Move {
	var plays []spite.Move
	for _, m := range obs.LegalMoves {
		if m.Kind == spite.Play {
			plays = append(plays, m)
		}
	}
	if len(plays) > 0 {
		return plays[rng.IntN(len(plays))]
	}
	return Random(obs, rng)
}
