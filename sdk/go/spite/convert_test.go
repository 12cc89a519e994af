package spite

import (
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/spite-arena/spite/sdk/go/spitev1"
)

func TestMoveWireNumbering(t *testing.T) {
	// The wire keeps 0 for "unspecified": its numbers are this package's plus one.
	cases := []struct {
		wire *spitev1.Move
		move string
	}{
		{&spitev1.Move{Kind: spitev1.MoveKind_MOVE_KIND_PLAY, Source: spitev1.Source_SOURCE_HAND, Card: 7}, "H:7>C0"},
		{&spitev1.Move{Kind: spitev1.MoveKind_MOVE_KIND_PLAY, Source: spitev1.Source_SOURCE_STOCK, Card: 13, Target: 2}, "S:K>C2"},
		{&spitev1.Move{Kind: spitev1.MoveKind_MOVE_KIND_PLAY, Source: spitev1.Source_SOURCE_DISCARD_PILE, SourceIndex: 1, Card: 12, Target: 3}, "D1:Q>C3"},
		{&spitev1.Move{Kind: spitev1.MoveKind_MOVE_KIND_DISCARD, Source: spitev1.Source_SOURCE_HAND, Card: 9}, "H:9>D0"},
		{&spitev1.Move{Kind: spitev1.MoveKind_MOVE_KIND_PASS}, "pass"},
	}
	for _, c := range cases {
		move, err := MoveFromProto(c.wire)
		if err != nil || move.String() != c.move {
			t.Errorf("MoveFromProto(%v) = %v, %v; want %s", c.wire, move, err, c.move)
			continue
		}
		if back := MoveToProto(move); !proto.Equal(back, c.wire) {
			t.Errorf("MoveToProto(%v) = %v, want %v", move, back, c.wire)
		}
	}
}

func TestMoveFromProtoNormalises(t *testing.T) {
	// A source index means something only for a discard-pile source; a pass is only a pass.
	move, err := MoveFromProto(&spitev1.Move{Kind: spitev1.MoveKind_MOVE_KIND_PLAY, Source: spitev1.Source_SOURCE_HAND,
		SourceIndex: 3, Card: 5, Target: 1})
	if err != nil || move != (Move{Kind: Play, Source: Hand, Card: 5, Target: 1}) {
		t.Errorf("got %+v, %v", move, err)
	}
	move, err = MoveFromProto(&spitev1.Move{Kind: spitev1.MoveKind_MOVE_KIND_PASS, Source: spitev1.Source_SOURCE_STOCK, Card: 4})
	if err != nil || move != PassMove {
		t.Errorf("got %+v, %v", move, err)
	}
}

func TestMoveFromProtoRejects(t *testing.T) {
	for _, wire := range []*spitev1.Move{
		{},
		{Kind: 9, Source: spitev1.Source_SOURCE_HAND},
		{Kind: spitev1.MoveKind_MOVE_KIND_PLAY},
		{Kind: spitev1.MoveKind_MOVE_KIND_PLAY, Source: 7},
		{Kind: spitev1.MoveKind_MOVE_KIND_DISCARD, Source: spitev1.Source_SOURCE_STOCK, Card: 4},
	} {
		if move, err := MoveFromProto(wire); err == nil {
			t.Errorf("MoveFromProto(%v) = %v, want an error", wire, move)
		}
	}
}

func wireMove(text string) *spitev1.Move { return MoveToProto(MustParseMove(text)) }

func TestObservationFromProto(t *testing.T) {
	rules := RulesFromProto(&spitev1.RuleSet{Name: "partners", Players: 4, Partners: true, CentrePiles: 3,
		DiscardPiles: 4, WildRanks: []uint32{0, 13}, HandSize: 5})
	wire := &spitev1.Observation{
		Seat: 3, Turn: 12, ToMove: 3, Hand: []uint32{2, 5, 13}, HandSizes: []uint32{5, 4, 5, 3},
		Stocks:        []*spitev1.StockView{{Count: 20, Visible: []uint32{6}}, {Count: 0}},
		DiscardPiles:  []*spitev1.SeatPiles{{}, {}, {}, {Piles: []*spitev1.Pile{{Cards: []uint32{9, 8}}, {}}}},
		CentrePiles:   []*spitev1.Pile{{Cards: []uint32{1, 2}}, {}, {Cards: []uint32{1}}},
		DrawPileCount: 40, SetAsideCount: 2,
		Events: []*spitev1.Event{
			{Kind: spitev1.EventKind_EVENT_KIND_TURN, Seat: 3, Count: 12, Pile: -1},
			{Kind: spitev1.EventKind_EVENT_KIND_MOVE, Seat: 1, Move: wireMove("S:3>C0"), Pile: -1},
			{Kind: spitev1.EventKind_EVENT_KIND_DRAW, Seat: 3, Cards: []uint32{2, 13}, Count: 2, Pile: -1},
		},
		LegalMoves: []*spitev1.Move{wireMove("H:2>C1"), wireMove("H:K>C0"), wireMove("D0:8>C2"), wireMove("H:5>D1")},
	}
	obs, err := ObservationFromProto(wire, rules)
	if err != nil {
		t.Fatal(err)
	}
	want := &Observation{
		Rules: rules, Seat: 3, Turn: 12, ToMove: 3, Hand: []Card{2, 5, King}, HandSizes: []int{5, 4, 5, 3},
		Stocks:        []StockView{{Count: 20, Visible: []Card{6}}, {Count: 0, Visible: []Card{}}},
		DiscardPiles:  [][]Pile{{}, {}, {}, {{9, 8}, {}}},
		CentrePiles:   []Pile{{1, 2}, {}, {1}},
		DrawPileCount: 40, SetAsideCount: 2,
		Events: []Event{
			{Kind: EventTurn, Seat: 3, Count: 12, Pile: -1, Cards: []Card{}},
			{Kind: EventMove, Seat: 1, Move: &Move{Kind: Play, Source: Stock, Card: 3}, Pile: -1, Cards: []Card{}},
			{Kind: EventDraw, Seat: 3, Cards: []Card{2, King}, Count: 2, Pile: -1},
		},
		LegalMoves: []Move{MustParseMove("H:2>C1"), MustParseMove("H:K>C0"), MustParseMove("D0:8>C2"), MustParseMove("H:5>D1")},
	}
	if !reflect.DeepEqual(obs, want) {
		t.Errorf("ObservationFromProto:\n got %+v\nwant %+v", obs, want)
	}
	if stock := obs.MyStock(); stock.Count != 0 { // seat 3 plays its team's stock, 1
		t.Errorf("MyStock() = %+v, want stock 1", stock)
	}
	if top, ok := obs.MyDiscardPiles()[0].Top(); !ok || top != 8 {
		t.Errorf("top of discard pile 0 = %v, %v; want 8", top, ok)
	}
	if needs := obs.CentreNeeds(); !reflect.DeepEqual(needs, []Card{3, 1, 2}) {
		t.Errorf("CentreNeeds() = %v", needs)
	}
	if !rules.IsWild(King) || !rules.IsWild(Joker) || rules.IsWild(Queen) {
		t.Errorf("IsWild with wild ranks %v is wrong", rules.WildRanks)
	}
	if rules.Stocks() != 2 || rules.TeamOf(2) != 0 {
		t.Errorf("partners: Stocks() = %d, TeamOf(2) = %d", rules.Stocks(), rules.TeamOf(2))
	}

	wire.LegalMoves = append(wire.LegalMoves, &spitev1.Move{})
	if _, err := ObservationFromProto(wire, rules); err == nil {
		t.Error("an unspecified legal move was accepted")
	}
}

func TestOutcomeAndResults(t *testing.T) {
	outcome := OutcomeFromProto(&spitev1.Outcome{Ending: spitev1.Ending_ENDING_STOCK_EMPTIED, Winners: []uint32{0, 2},
		Scores: []int32{1, 0, 1, 0}, Reason: "team 0 emptied its stock", Offender: -1})
	if outcome.Ending != EndingStockEmptied || !outcome.Ending.ByRules() || outcome.IsDraw() || outcome.Offender != -1 ||
		outcome.Ending.String() != "stock-emptied" {
		t.Errorf("outcome = %+v", outcome)
	}
	timeout := OutcomeFromProto(&spitev1.Outcome{Ending: spitev1.Ending_ENDING_TIMEOUT, Offender: 1})
	if timeout.Ending != EndingTimeout || timeout.Ending.ByRules() || !timeout.IsDraw() || timeout.Offender != 1 {
		t.Errorf("timeout outcome = %+v", timeout)
	}
	if future := OutcomeFromProto(&spitev1.Outcome{Ending: 99}); future.Ending != EndingUnknown {
		t.Errorf("an unknown ending became %v", future.Ending)
	}

	result, err := ActionResultFromProto(&spitev1.ActionResult{DecisionId: 7, Fault: spitev1.Fault_FAULT_TIMEOUT,
		Applied: []*spitev1.Move{wireMove("H:9>D0")}, Strikes: 1})
	if err != nil || result.OK() || result.Fault != FaultTimeout || result.Error != "fault TIMEOUT" ||
		result.Applied[0] != MustParseMove("H:9>D0") {
		t.Errorf("result = %+v, %v", result, err)
	}

	welcome := WelcomeFromProto(&spitev1.Welcome{Seat: 1, Rules: &spitev1.RuleSet{Name: "standard"},
		TimeControl: &spitev1.TimeControl{DecisionMs: 1000, BankMs: 10000, ConnectMs: 250},
		Policy:      spitev1.Policy_POLICY_SUBSTITUTE, ProtocolVersion: 1, SeatNames: []string{"a", "b"}})
	wantTC := TimeControl{Decision: time.Second, Bank: 10 * time.Second, Connect: 250 * time.Millisecond}
	if welcome.Seat != 1 || welcome.Rules.Name != "standard" || welcome.TimeControl != wantTC ||
		welcome.Policy != PolicySubstitute || welcome.SeatNames[1] != "b" {
		t.Errorf("welcome = %+v", welcome)
	}

	match := MatchResultFromProto(&spitev1.MatchOver{Points: []int32{2, 1}, Wins: []uint32{2, 1}, Winners: []uint32{0}})
	if !reflect.DeepEqual(match.Points, []int{2, 1}) || !reflect.DeepEqual(match.Winners, []int{0}) {
		t.Errorf("match result = %+v", match)
	}
}
