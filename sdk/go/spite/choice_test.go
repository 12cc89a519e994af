package spite

import (
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"github.com/spite-arena/spite/sdk/go/spitev1"
)

func TestActionFor(t *testing.T) {
	move := MustParseMove("D1:Q>C3")
	cases := []struct {
		name   string
		choice Choice
		want   *spitev1.Action
	}{
		{"move", move, &spitev1.Action{DecisionId: 9, Choice: &spitev1.Action_Move{Move: MoveToProto(move)}}},
		{"index", Index(2), &spitev1.Action{DecisionId: 9, Choice: &spitev1.Action_MoveIndex{MoveIndex: 2}}},
		{"last", Index(-1), &spitev1.Action{DecisionId: 9, Choice: &spitev1.Action_MoveIndex{MoveIndex: 4}}},
		{"plan", Plan{MustParseMove("S:A>C0"), MustParseMove("H:2>C0")}, &spitev1.Action{DecisionId: 9,
			Choice: &spitev1.Action_Plan{Plan: &spitev1.Plan{Moves: []*spitev1.Move{wireMove("S:A>C0"), wireMove("H:2>C0")}}}}},
		{"debug", WithDebug(PassMove, "nothing to do"), &spitev1.Action{DecisionId: 9, Debug: "nothing to do",
			Choice: &spitev1.Action_Move{Move: MoveToProto(PassMove)}}},
		{"outer debug wins", WithDebug(WithDebug(Index(0), "inner"), "outer"), &spitev1.Action{DecisionId: 9,
			Debug: "outer", Choice: &spitev1.Action_MoveIndex{MoveIndex: 0}}},
	}
	for _, c := range cases {
		got, err := actionFor(9, c.choice, 5)
		if err != nil || !proto.Equal(got, c.want) {
			t.Errorf("%s: actionFor = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	for _, bad := range []Choice{nil, Index(-6), WithDebug(nil, "x")} {
		if got, err := actionFor(9, bad, 5); err == nil {
			t.Errorf("actionFor(%#v) = %v, want an error", bad, got)
		}
	}
}

func TestDebugIsCut(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	action, err := actionFor(1, WithDebug(PassMove, long), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(action.Debug) != MaxDebugBytes || !utf8.ValidString(action.Debug) {
		t.Errorf("debug cut to %d bytes (valid UTF-8: %v), want %d", len(action.Debug), utf8.ValidString(action.Debug), MaxDebugBytes)
	}
	odd := "a" + strings.Repeat("é", 200) // the cut falls inside a character
	if got := cutDebug(odd); len(got) != MaxDebugBytes-1 || !utf8.ValidString(got) {
		t.Errorf("cutDebug cut inside a character: %d bytes", len(got))
	}
	if got := cutDebug("bad \xff byte"); !utf8.ValidString(got) {
		t.Errorf("cutDebug kept invalid UTF-8: %q", got)
	}
	if got := cutString("naïve", 3); got != "na" {
		t.Errorf("cutString = %q, want %q", got, "na")
	}
}
