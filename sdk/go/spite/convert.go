package spite

import (
	"fmt"
	"time"

	"github.com/spite-arena/spite/sdk/go/spitev1"
)

// The conversions between the wire messages (package spitev1) and this package's
// values. The only code that knows the wire's numbering: it keeps 0 of every enum for
// "unspecified", so its move kinds, sources and event kinds are this package's numbers
// plus one (MOVE_KIND_PLAY = 1 is Play = 0, SOURCE_HAND = 1 is Hand = 0).

// MoveFromProto returns the move a wire move stands for, or an error for one that
// stands for none (an unspecified kind or source, a discard not from the hand).
func MoveFromProto(m *spitev1.Move) (Move, error) {
	kind := m.GetKind()
	switch kind {
	case spitev1.MoveKind_MOVE_KIND_PASS:
		return PassMove, nil
	case spitev1.MoveKind_MOVE_KIND_PLAY, spitev1.MoveKind_MOVE_KIND_DISCARD:
	default:
		return Move{}, fmt.Errorf("move kind %d is not PLAY, DISCARD or PASS", kind)
	}
	source := m.GetSource()
	if source < spitev1.Source_SOURCE_HAND || source > spitev1.Source_SOURCE_DISCARD_PILE {
		return Move{}, fmt.Errorf("a %v move needs a source, got %d", MoveKind(kind-1), source)
	}
	move := Move{Kind: MoveKind(kind - 1), Source: Source(source - 1), Card: Card(m.GetCard()), Target: int(m.GetTarget())}
	if move.Kind == Discard && move.Source != Hand {
		return Move{}, fmt.Errorf("a DISCARD comes from the hand, not %v", move.Source)
	}
	if move.Source == DiscardPile {
		move.Index = int(m.GetSourceIndex())
	}
	return move, nil
}

// MoveToProto returns the wire form of a move.
func MoveToProto(m Move) *spitev1.Move {
	if m.Kind == Pass {
		return &spitev1.Move{Kind: spitev1.MoveKind_MOVE_KIND_PASS}
	}
	return &spitev1.Move{
		Kind:        spitev1.MoveKind(m.Kind + 1),
		Source:      spitev1.Source(m.Source + 1),
		SourceIndex: uint32(m.Index),
		Card:        uint32(m.Card),
		Target:      uint32(m.Target),
	}
}

// RulesFromProto returns the rule set a wire rule set describes.
func RulesFromProto(r *spitev1.RuleSet) *RuleSet {
	return &RuleSet{
		Name: r.GetName(), Version: int(r.GetVersion()), Players: int(r.GetPlayers()), Partners: r.GetPartners(),
		Deck: r.GetDeck(), Decks: int(r.GetDecks()), JokersPerDeck: int(r.GetJokersPerDeck()),
		KingsWild: r.GetKingsWild(), StockSize: int(r.GetStockSize()), HandSize: int(r.GetHandSize()),
		CentrePiles: int(r.GetCentrePiles()), DiscardPiles: int(r.GetDiscardPiles()),
		OpenStock: int(r.GetOpenStock()), NoBlock: r.GetNoBlock(), CompletedPiles: r.GetCompletedPiles(),
		DrawPileExhausted: r.GetDrawPileExhausted(), DiscardAces: r.GetDiscardAces(), Scoring: r.GetScoring(),
		MatchPoints: int(r.GetMatchPoints()), TurnCap: int(r.GetTurnCap()), WildRanks: cards(r.GetWildRanks()),
	}
}

// ObservationFromProto returns the observation a wire observation describes; rules is
// the match's rule set (sent once, in Welcome). It fails only on a malformed move.
func ObservationFromProto(o *spitev1.Observation, rules *RuleSet) (*Observation, error) {
	obs := &Observation{
		Rules: rules, Seat: int(o.GetSeat()), Turn: int(o.GetTurn()), ToMove: int(o.GetToMove()),
		Hand: cards(o.GetHand()), HandSizes: ints(o.GetHandSizes()),
		DrawPileCount: int(o.GetDrawPileCount()), SetAsideCount: int(o.GetSetAsideCount()),
	}
	obs.Stocks = make([]StockView, len(o.GetStocks()))
	for i, s := range o.GetStocks() {
		obs.Stocks[i] = StockView{Count: int(s.GetCount()), Visible: cards(s.GetVisible())}
	}
	obs.DiscardPiles = make([][]Pile, len(o.GetDiscardPiles()))
	for i, seat := range o.GetDiscardPiles() {
		obs.DiscardPiles[i] = piles(seat.GetPiles())
	}
	obs.CentrePiles = piles(o.GetCentrePiles())
	var err error
	if obs.Events, err = EventsFromProto(o.GetEvents()); err != nil {
		return nil, err
	}
	obs.LegalMoves = make([]Move, len(o.GetLegalMoves()))
	for i, m := range o.GetLegalMoves() {
		if obs.LegalMoves[i], err = MoveFromProto(m); err != nil {
			return nil, fmt.Errorf("legal move %d: %w", i, err)
		}
	}
	return obs, nil
}

// EventsFromProto returns the events of a wire event list.
func EventsFromProto(events []*spitev1.Event) ([]Event, error) {
	out := make([]Event, len(events))
	for i, e := range events {
		out[i] = Event{Kind: EventKind(e.GetKind() - 1), Seat: int(e.GetSeat()), Cards: cards(e.GetCards()),
			Count: int(e.GetCount()), Pile: int(e.GetPile())}
		if e.GetKind() == spitev1.EventKind_EVENT_KIND_UNSPECIFIED {
			return nil, fmt.Errorf("event %d has no kind", i)
		}
		if e.GetMove() != nil {
			move, err := MoveFromProto(e.GetMove())
			if err != nil {
				return nil, fmt.Errorf("event %d: %w", i, err)
			}
			out[i].Move = &move
		}
	}
	return out, nil
}

// OutcomeFromProto returns the outcome a wire outcome describes; an ending this SDK
// does not know becomes EndingUnknown.
func OutcomeFromProto(o *spitev1.Outcome) *Outcome {
	ending := Ending(o.GetEnding())
	if int(ending) >= len(endingNames) {
		ending = EndingUnknown
	}
	return &Outcome{Ending: ending, Winners: ints(o.GetWinners()), Scores: ints(o.GetScores()),
		Reason: o.GetReason(), Offender: int(o.GetOffender())}
}

// WelcomeFromProto returns the terms of the match a wire Welcome carries.
func WelcomeFromProto(w *spitev1.Welcome) *Welcome {
	tc := w.GetTimeControl()
	policy := Policy(w.GetPolicy())
	if policy > PolicySubstitute {
		policy = PolicyUnspecified
	}
	return &Welcome{
		Seat: int(w.GetSeat()), Rules: RulesFromProto(w.GetRules()),
		TimeControl: TimeControl{Decision: millis(tc.GetDecisionMs()), Bank: millis(tc.GetBankMs()),
			Connect: millis(tc.GetConnectMs())},
		Games: int(w.GetGames()), MatchID: w.GetMatchId(), ProtocolVersion: int(w.GetProtocolVersion()),
		SeatNames: w.GetSeatNames(), Policy: policy,
	}
}

// ActionResultFromProto returns the verdict a wire ActionResult carries.
func ActionResultFromProto(r *spitev1.ActionResult) (*ActionResult, error) {
	result := &ActionResult{DecisionID: r.GetDecisionId(), Dropped: int(r.GetDropped()),
		Fault: Fault(r.GetFault()), Error: r.GetError(), Strikes: int(r.GetStrikes())}
	if result.Fault != FaultNone && result.Error == "" {
		result.Error = "fault " + result.Fault.String()
	}
	result.Applied = make([]Move, len(r.GetApplied()))
	for i, m := range r.GetApplied() {
		move, err := MoveFromProto(m)
		if err != nil {
			return nil, fmt.Errorf("applied move %d: %w", i, err)
		}
		result.Applied[i] = move
	}
	return result, nil
}

// MatchResultFromProto returns the result a wire MatchOver carries.
func MatchResultFromProto(m *spitev1.MatchOver) *MatchResult {
	return &MatchResult{Points: ints(m.GetPoints()), Wins: ints(m.GetWins()), Winners: ints(m.GetWinners()),
		Reason: m.GetReason()}
}

func cards(ranks []uint32) []Card {
	out := make([]Card, len(ranks))
	for i, r := range ranks {
		out[i] = Card(r)
	}
	return out
}

func piles(ps []*spitev1.Pile) []Pile {
	out := make([]Pile, len(ps))
	for i, p := range ps {
		out[i] = cards(p.GetCards())
	}
	return out
}

func ints[T uint32 | int32](values []T) []int {
	out := make([]int, len(values))
	for i, v := range values {
		out[i] = int(v)
	}
	return out
}

func millis(ms uint32) time.Duration { return time.Duration(ms) * time.Millisecond }
