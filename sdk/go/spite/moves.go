package spite

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A MoveKind says what a move does. The numbering is the rules engine's and every
// SDK's (the wire adds one, keeping 0 for "unspecified"; only the conversions know).
type MoveKind uint8

const (
	// Play puts a card onto a centre pile.
	Play MoveKind = iota
	// Discard puts a hand card on one of the mover's discard piles; it ends the turn.
	Discard
	// Pass ends the turn without discarding; legal only when no discard is.
	Pass
)

func (k MoveKind) String() string {
	switch k {
	case Play:
		return "PLAY"
	case Discard:
		return "DISCARD"
	case Pass:
		return "PASS"
	}
	return "MoveKind(" + strconv.Itoa(int(k)) + ")"
}

// A Source says where a played card comes from.
type Source uint8

const (
	// Hand is the mover's hand: the source of every discard (and, unused, of a pass).
	Hand Source = iota
	// Stock is the top card of the mover's stock (its team's stock with partners).
	Stock
	// DiscardPile is the top card of one of the mover's discard piles ([Move.Index]).
	DiscardPile
)

func (s Source) String() string {
	switch s {
	case Hand:
		return "HAND"
	case Stock:
		return "STOCK"
	case DiscardPile:
		return "DISCARD_PILE"
	}
	return "Source(" + strconv.Itoa(int(s)) + ")"
}

// A Move names where a card comes from, which card, and where it goes. Moves are
// small values: compare them with ==.
//
// Its text notation ([Move.String], [ParseMove]):
//
//	H:7>C0    play the hand's 7 on centre pile 0
//	S:K>C2    play the stock's top King on centre pile 2
//	D1:Q>C3   play discard pile 1's top Queen on centre pile 3
//	H:9>D0    discard the hand's 9 on discard pile 0 (ends the turn)
//	pass      end the turn without discarding
type Move struct {
	Kind MoveKind
	// Source is where the card comes from: Hand for every Discard, and for Pass.
	Source Source
	// Index is the discard pile the card comes from when Source is DiscardPile, else 0.
	Index int
	// Card is the card moved; 0 for Pass.
	Card Card
	// Target is the centre pile for Play, the mover's discard pile for Discard, 0 for Pass.
	Target int
}

// PassMove is the one Pass move.
var PassMove = Move{Kind: Pass}

// String returns the move's notation, e.g. "H:7>C0", "D1:Q>C3", "H:9>D0" or "pass".
func (m Move) String() string {
	if m.Kind == Pass {
		return "pass"
	}
	var b strings.Builder
	switch m.Source {
	case Hand:
		b.WriteString("H")
	case Stock:
		b.WriteString("S")
	default:
		b.WriteString("D" + strconv.Itoa(m.Index))
	}
	b.WriteString(":" + m.Card.String() + ">")
	if m.Kind == Play {
		b.WriteString("C")
	} else {
		b.WriteString("D")
	}
	b.WriteString(strconv.Itoa(m.Target))
	return b.String()
}

var notation = regexp.MustCompile(`^(H|S|D\d)\s*:\s*(\*|[A-Z]+|\d{1,2})\s*>\s*([CD])(\d)$`)

// ParseMove reads the notation of [Move] ("H:7>C0", "S:K>C2", "D1:Q>C3", "H:9>D0",
// "pass"). Case and spaces around the punctuation do not matter.
func ParseMove(text string) (Move, error) {
	trimmed := strings.TrimSpace(text)
	if strings.EqualFold(trimmed, "pass") {
		return PassMove, nil
	}
	parts := notation.FindStringSubmatch(strings.ToUpper(trimmed))
	if parts == nil {
		return Move{}, fmt.Errorf("not a move: %.40q (expected e.g. H:7>C0, S:K>C1, D2:Q>C3, H:9>D0, pass)", text)
	}
	source, cardText, targetKind, targetText := parts[1], parts[2], parts[3], parts[4]
	card, err := ParseCard(cardText)
	if err != nil {
		return Move{}, err
	}
	target, _ := strconv.Atoi(targetText)
	if targetKind == "D" {
		if source != "H" {
			return Move{}, fmt.Errorf("%q: only hand cards may be discarded", text)
		}
		return Move{Kind: Discard, Source: Hand, Card: card, Target: target}, nil
	}
	switch source {
	case "H":
		return Move{Kind: Play, Source: Hand, Card: card, Target: target}, nil
	case "S":
		return Move{Kind: Play, Source: Stock, Card: card, Target: target}, nil
	}
	index, _ := strconv.Atoi(source[1:])
	return Move{Kind: Play, Source: DiscardPile, Index: index, Card: card, Target: target}, nil
}

// MustParseMove is [ParseMove] for notation known to be valid (tests, tables); it
// panics on an error.
func MustParseMove(text string) Move {
	move, err := ParseMove(text)
	if err != nil {
		panic(err)
	}
	return move
}
