package spite

import (
	"strconv"
	"time"
)

// A RuleSet holds every option of the match's game; the referee sends it once, in
// [Welcome]. docs/rules.md states what each option means.
type RuleSet struct {
	// Name is the canonical spec, e.g. "standard", "kings-only+short-15", "skip-bo+4p".
	Name string
	// Version is bumped whenever the same seed and moves would give another game.
	Version int
	// Players is the number of seats; seats move in order 0, 1, 2, ...
	Players int
	// Partners: 2 v 2, seats 0 and 2 against seats 1 and 3, one shared stock per team.
	Partners bool
	// Deck is "spite" (52-card decks plus jokers) or "skip-bo" (12 x 1..12 plus 18 wilds).
	Deck string
	// Decks is the number of decks shuffled together.
	Decks         int
	JokersPerDeck int
	KingsWild     bool
	// StockSize is the number of cards dealt to each stock.
	StockSize int
	// HandSize is the number of cards hands are refilled to.
	HandSize int
	// CentrePiles is the number of shared centre piles, built from Ace (1) to Queen (12).
	CentrePiles int
	// DiscardPiles is the number of discard piles per seat.
	DiscardPiles int
	// OpenStock is the number of face-up cards on each stock (3 with open-stock); only
	// the top one is playable.
	OpenStock int
	// NoBlock: a non-wild card playable on a centre pile now may not be discarded.
	NoBlock bool
	// CompletedPiles is "shuffle" or "set-aside".
	CompletedPiles string
	// DrawPileExhausted is "play-on" or "draw-game".
	DrawPileExhausted string
	// DiscardAces says whether Aces (Skip-Bo 1s) may be discarded.
	DiscardAces bool
	// Scoring is "win" or "stock-left".
	Scoring string
	// MatchPoints: 0, games stand alone; N, the match goes on until a seat or team has N points.
	MatchPoints int
	// TurnCap is the number of turns after which a game is drawn.
	TurnCap int
	// WildRanks are the ranks that are wild on centre piles, ascending.
	WildRanks []Card
}

// IsWild reports whether card is wild on the centre piles in this rule set.
func (r *RuleSet) IsWild(card Card) bool {
	for _, wild := range r.WildRanks {
		if wild == card {
			return true
		}
	}
	return false
}

// Stocks returns the number of stocks: one per seat, or one per team with Partners.
func (r *RuleSet) Stocks() int {
	if r.Partners {
		return 2
	}
	return r.Players
}

// StockOf returns the index of the stock that seat plays from (its team's with Partners).
func (r *RuleSet) StockOf(seat int) int {
	if r.Partners {
		return seat % 2
	}
	return seat
}

// TeamOf returns the seat's team: the seat itself, or seat % 2 with Partners.
func (r *RuleSet) TeamOf(seat int) int { return r.StockOf(seat) }

// A Pile is a pile of face-up cards, bottom to top.
type Pile []Card

// Top returns the pile's top card, and false for an empty pile.
func (p Pile) Top() (Card, bool) {
	if len(p) == 0 {
		return 0, false
	}
	return p[len(p)-1], true
}

// A StockView is a stock as everyone sees it.
type StockView struct {
	// Count is the number of cards left in the stock.
	Count int
	// Visible holds the face-up cards, top first: one, or up to three with open-stock.
	// Only the top one is playable.
	Visible []Card
}

// Top returns the stock's playable card, and false for an empty stock.
func (s StockView) Top() (Card, bool) {
	if len(s.Visible) == 0 {
		return 0, false
	}
	return s.Visible[0], true
}

// An Observation is one seat's view of a game at one moment: what it may see, nothing
// else. The SDK builds a new one for each decision; a bot may keep it.
type Observation struct {
	// Rules is the match's rule set (shared by every observation of the match: do not modify).
	Rules *RuleSet
	// Seat is the observing seat.
	Seat int
	// Turn is the turn number, from 1.
	Turn int
	// ToMove is the seat whose decision it is.
	ToMove int
	// Hand is the observer's hand, sorted by rank.
	Hand []Card
	// HandSizes is the number of cards in each seat's hand.
	HandSizes []int
	// Stocks holds each stock: one per seat, or one per team with partners (see MyStock).
	Stocks []StockView
	// DiscardPiles holds, per seat, its discard piles.
	DiscardPiles [][]Pile
	// CentrePiles holds each centre pile; a pile's rank is its length.
	CentrePiles []Pile
	// DrawPileCount is the number of cards in the draw pile (its order is hidden from everyone).
	DrawPileCount int
	// SetAsideCount is the number of cards of completed piles waiting to become the draw
	// pile (set-aside rule sets).
	SetAsideCount int
	// Events holds what happened since this seat's previous decision, its own last move
	// included, as this seat may see it.
	Events []Event
	// LegalMoves holds the observer's legal moves, in the engine's order, when it is to
	// move; else it is empty.
	LegalMoves []Move
}

// MyStock returns the stock this seat plays from.
func (o *Observation) MyStock() StockView { return o.Stocks[o.Rules.StockOf(o.Seat)] }

// MyDiscardPiles returns this seat's discard piles.
func (o *Observation) MyDiscardPiles() []Pile { return o.DiscardPiles[o.Seat] }

// CentreNeeds returns the rank each centre pile needs next (1, an Ace, for an empty pile).
func (o *Observation) CentreNeeds() []Card {
	needs := make([]Card, len(o.CentrePiles))
	for i, pile := range o.CentrePiles {
		needs[i] = Card(len(pile) + 1)
	}
	return needs
}

// An EventKind says what an [Event] records (numbered like the engine's).
type EventKind uint8

const (
	// EventDeal: the game begins; Seat moves first.
	EventDeal EventKind = iota
	// EventTurn: turn number Count begins for Seat.
	EventTurn
	// EventMove: Seat made Move.
	EventMove
	// EventDraw: Seat drew Count cards; Cards are filled only for the drawing seat.
	EventDraw
	// EventReveal: stock Pile shows Cards face up (top first), Count cards left in it.
	EventReveal
	// EventPileCompleted: centre pile Pile reached the Queen; its Cards left the table.
	EventPileCompleted
	// EventShuffle: the draw pile was shuffled and holds Count cards.
	EventShuffle
	// EventGameOver: the game is over (the outcome comes in the game-over hook).
	EventGameOver
)

var eventKindNames = [...]string{"DEAL", "TURN", "MOVE", "DRAW", "REVEAL", "PILE_COMPLETED", "SHUFFLE", "GAME_OVER"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// An Event is something that happened in the game, as this seat may see it.
type Event struct {
	Kind EventKind
	// Seat is the seat concerned, or -1.
	Seat int
	// Move is the move of an EventMove, else nil.
	Move *Move
	// Cards are the cards shown (see [EventKind] for which kinds carry them).
	Cards []Card
	// Count is a count (cards drawn, cards left, turn number), see [EventKind].
	Count int
	// Pile is a pile index (stock or centre pile), or -1.
	Pile int
}

// An Ending says how a game ended: by the rules (the first four) or cut off by the
// referee (the others, with an offending seat).
type Ending uint8

const (
	// EndingUnknown is an ending this SDK does not know (a newer referee); see the reason.
	EndingUnknown Ending = iota
	// EndingStockEmptied: a seat (team) played the last card of its stock and won.
	EndingStockEmptied
	// EndingStalemate: a full round passed with no card played or drawn; a draw.
	EndingStalemate
	// EndingTurnCap: the turn cap was reached; a draw.
	EndingTurnCap
	// EndingDrawPileExhausted: a draw found the draw pile empty (classic-20); a draw.
	EndingDrawPileExhausted
	// EndingTimeout: the offender ran out of time (decision limit and time bank).
	EndingTimeout
	// EndingIllegalMove: the offender sent an illegal move (forfeit policy, or a third strike).
	EndingIllegalMove
	// EndingMalformed: the offender sent a message that is not a valid action.
	EndingMalformed
	// EndingCrash: the offender's process exited or its stream failed.
	EndingCrash
	// EndingDisconnect: the offender closed its stream mid-match.
	EndingDisconnect
	// EndingNoShow: the offender never connected in time.
	EndingNoShow
	// EndingForfeit: the offender was forfeited for another reason.
	EndingForfeit
)

var endingNames = [...]string{"unknown", "stock-emptied", "stalemate", "turn-cap", "draw-pile-exhausted",
	"timeout", "illegal-move", "malformed", "crash", "disconnect", "no-show", "forfeit"}

func (e Ending) String() string {
	if int(e) < len(endingNames) {
		return endingNames[e]
	}
	return "Ending(" + strconv.Itoa(int(e)) + ")"
}

// ByRules reports whether the game ended by the rules rather than being cut off by the referee.
func (e Ending) ByRules() bool { return e >= EndingStockEmptied && e <= EndingDrawPileExhausted }

// An Outcome is the result of one game.
type Outcome struct {
	Ending Ending
	// Winners are the seats that won (both partners of a team); empty for a draw.
	Winners []int
	// Scores holds the points per seat, by the rule set's scoring.
	Scores []int
	// Reason is one human-readable sentence, e.g. "seat 1 emptied its stock".
	Reason string
	// Offender is the seat at fault for the referee's endings, or -1.
	Offender int
}

// IsDraw reports whether nobody won.
func (o *Outcome) IsDraw() bool { return len(o.Winners) == 0 }

// A Policy says what bad behaviour (timeout, illegal or malformed action, wrong
// decision id) gets in the match.
type Policy uint8

const (
	PolicyUnspecified Policy = iota
	// PolicyForfeit: the offending seat loses the game at once (and the rest of the match).
	PolicyForfeit
	// PolicySubstitute: the referee plays a fallback legal move and counts a strike;
	// 3 strikes in a game forfeit it.
	PolicySubstitute
)

func (p Policy) String() string {
	switch p {
	case PolicyForfeit:
		return "forfeit"
	case PolicySubstitute:
		return "substitute"
	}
	return "unspecified"
}

// TimeControl holds the limits on a seat's thinking time.
type TimeControl struct {
	// Decision is the time per decision; overruns are paid from the bank.
	Decision time.Duration
	// Bank is the time per game, per seat, for overruns.
	Bank time.Duration
	// Connect is the time to connect, and for the seat's first decision of the match.
	Connect time.Duration
}

// Welcome is the referee's answer to the bot's hello: its seat and the terms of the match.
type Welcome struct {
	Seat        int
	Rules       *RuleSet
	TimeControl TimeControl
	// Games is the number of games in the match (with Rules.MatchPoints, the most that will be played).
	Games           int
	MatchID         string
	ProtocolVersion int
	// SeatNames holds each seat's bot name, by seat (empty for a seat not yet connected).
	SeatNames []string
	Policy    Policy
}

// A Fault is what a bot did wrong with one action (numbered as on the wire).
type Fault uint8

const (
	FaultNone Fault = iota
	FaultTimeout
	FaultIllegalMove
	FaultMalformed
	FaultWrongDecision
)

var faultNames = [...]string{"NONE", "TIMEOUT", "ILLEGAL_MOVE", "MALFORMED", "WRONG_DECISION"}

func (f Fault) String() string {
	if int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "Fault(" + strconv.Itoa(int(f)) + ")"
}

// An ActionResult is the referee's answer to one action.
type ActionResult struct {
	DecisionID uint64
	// Applied holds the moves applied for the seat: several for a plan, the fallback
	// move when the referee substituted one.
	Applied []Move
	// Dropped is the number of plan moves dropped unjudged because new information appeared.
	Dropped int
	// Fault is FaultNone when the action was accepted as sent.
	Fault Fault
	// Error says why, in words, when Fault is set.
	Error string
	// Strikes is the number of strikes this seat has in the current game (substitute policy).
	Strikes int
}

// OK reports whether the action was accepted as sent.
func (r *ActionResult) OK() bool { return r.Fault == FaultNone }

// A MatchResult is the result of the whole match.
type MatchResult struct {
	// Points holds the points per seat over the match.
	Points []int
	// Wins holds the games won per seat.
	Wins []int
	// Winners are the seats that won the match (both partners of a team); empty for a tie.
	Winners []int
	Reason  string
}
