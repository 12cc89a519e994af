package spite

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/spite-arena/spite/sdk/go/spitev1"
)

// MaxDebugBytes is the most of an action's debug note the referee keeps; the SDK cuts
// longer notes (never inside a character).
const MaxDebugBytes = 256

// MaxPlanMoves is the most moves the referee accepts in one [Plan].
const MaxPlanMoves = 32

// A Choice is what [Bot.Decide] returns: a [Move] (usually one of the observation's
// LegalMoves), a [Plan], or an [Index] into the LegalMoves; [WithDebug] attaches a note
// for the replay to any of them. Whether the move is legal is the referee's to judge.
type Choice interface {
	choice()
}

func (Move) choice() {}

// A Plan is a list of moves to play in order without a round trip each. The referee
// applies them one by one and stops, dropping the rest unjudged, as soon as the seat
// learns something new (a stock card turned up, cards drawn) or the turn ends; then it
// asks again; an illegal move stops it too, and the moves before it stay played. It
// holds 1 to [MaxPlanMoves] moves (the referee counts an empty plan as malformed).
type Plan []Move

func (Plan) choice() {}

// An Index chooses observation.LegalMoves[i]; a negative index counts from the end
// (-1 is the last legal move).
type Index int

func (Index) choice() {}

type noted struct {
	inner Choice
	debug string
}

func (noted) choice() {}

// WithDebug returns choice with a note on what the bot was thinking, stored in the
// replay (cut to [MaxDebugBytes]).
func WithDebug(choice Choice, debug string) Choice { return noted{choice, debug} }

// actionFor returns the Action answering decision id with choice; legal is the number
// of legal moves (to resolve a negative Index).
func actionFor(id uint64, choice Choice, legal int) (*spitev1.Action, error) {
	action := &spitev1.Action{DecisionId: id}
	for n, ok := choice.(noted); ok; n, ok = choice.(noted) {
		if action.Debug == "" {
			action.Debug = cutDebug(n.debug)
		}
		choice = n.inner
	}
	switch c := choice.(type) {
	case Move:
		action.Choice = &spitev1.Action_Move{Move: MoveToProto(c)}
	case Plan:
		moves := make([]*spitev1.Move, len(c))
		for i, m := range c {
			moves[i] = MoveToProto(m)
		}
		action.Choice = &spitev1.Action_Plan{Plan: &spitev1.Plan{Moves: moves}}
	case Index:
		index := int(c)
		if index < 0 {
			index += legal
		}
		if index < 0 || index > math.MaxUint32 {
			return nil, fmt.Errorf("Decide returned Index(%d), outside the %d legal moves", int(c), legal)
		}
		action.Choice = &spitev1.Action_MoveIndex{MoveIndex: uint32(index)}
	case nil:
		return nil, errors.New("Decide returned no choice (a nil Choice and no error)")
	default:
		return nil, fmt.Errorf("Decide returned %T, which is not a Move, Plan or Index", choice)
	}
	return action, nil
}

// cutDebug cuts a note to MaxDebugBytes of valid UTF-8, never inside a character.
func cutDebug(debug string) string {
	if len(debug) <= MaxDebugBytes && utf8.ValidString(debug) {
		return debug
	}
	var cut []byte
	for _, r := range debug { // an invalid byte comes out as U+FFFD
		if len(cut)+utf8.RuneLen(r) > MaxDebugBytes {
			break
		}
		cut = utf8.AppendRune(cut, r)
	}
	return string(cut)
}
