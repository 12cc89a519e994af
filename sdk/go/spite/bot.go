package spite

import (
	"context"
	"time"
)

// A Bot chooses moves. Decide is the only method a bot must have; it may also have any
// of the hook methods ([WelcomeHook], [GameStartHook], [EventsHook], [ResultHook],
// [GameOverHook], [MatchOverHook]), which the SDK calls when it sees them.
//
// Every call comes from the one goroutine that reads the referee's stream, in the
// order of the referee's messages: a bot needs no locking, and the time Decide takes
// is its thinking time, nothing added.
type Bot interface {
	// Decide chooses what to do about obs, whose LegalMoves are not empty.
	//
	// ctx is done when the decision's deadline passes (the time bank may still cover
	// an overrun, see [DecisionFromContext]) or the match is cancelled. An error stops
	// the bot: the referee counts it as a crash.
	Decide(ctx context.Context, obs *Observation) (Choice, error)
}

// DecideFunc turns a function into a [Bot] with no hooks.
type DecideFunc func(ctx context.Context, obs *Observation) (Choice, error)

// Decide calls f.
func (f DecideFunc) Decide(ctx context.Context, obs *Observation) (Choice, error) { return f(ctx, obs) }

// WelcomeHook is a bot that wants the terms of the match once the referee accepts it.
type WelcomeHook interface {
	OnWelcome(w *Welcome)
}

// GameStartHook is a bot that wants each game's opening view (no legal moves yet).
type GameStartHook interface {
	OnGameStart(game int, obs *Observation)
}

// EventsHook is a bot that wants the events the referee sends between decisions. The
// events since the seat's previous decision also arrive in the next Observation.Events.
type EventsHook interface {
	OnEvents(game int, events []Event)
}

// ResultHook is a bot that wants the referee's verdict on each action. A bot without
// it gets each rejected action reported on stderr.
type ResultHook interface {
	OnResult(r *ActionResult)
}

// GameOverHook is a bot that wants each game's outcome.
type GameOverHook interface {
	OnGameOver(game int, outcome *Outcome)
}

// MatchOverHook is a bot that wants the match's result; [PlayMatch] returns right after it.
type MatchOverHook interface {
	OnMatchOver(r *MatchResult)
}

// A Decision holds the terms of one decision. Times are taken when the request
// arrived, so they leave out the network: keep a margin.
type Decision struct {
	// ID is the decision's id; the SDK echoes it in the answer.
	ID uint64
	// Game is the game's number within the match, from 0.
	Game int
	// Received is when the request arrived.
	Received time.Time
	// Deadline is when the decision's own time runs out and the time bank is drawn on.
	Deadline time.Time
	// Bank is the time left in this game's time bank.
	Bank time.Duration
}

// FinalDeadline returns when the decision times out: Deadline plus the time bank.
func (d Decision) FinalDeadline() time.Time { return d.Deadline.Add(d.Bank) }

type decisionKey struct{}

// DecisionFromContext returns the terms of the decision that ctx (the one passed to
// Decide) belongs to.
func DecisionFromContext(ctx context.Context) (Decision, bool) {
	d, ok := ctx.Value(decisionKey{}).(Decision)
	return d, ok
}
