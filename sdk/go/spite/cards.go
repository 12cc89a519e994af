package spite

import (
	"fmt"
	"strconv"
	"strings"
)

// A Card is a card's rank, 0..13. Suits never matter in these games, so two cards of
// the same rank are the same value.
//
//	rank  meaning                             name
//	0     Joker, or the Skip-Bo wild card     *
//	1     Ace (Skip-Bo: 1)                    A
//	2-10  pips                                2..10
//	11    Jack (Skip-Bo: 11)                  J
//	12    Queen (Skip-Bo: 12), completes a    Q
//	      centre pile
//	13    King (Spite and Malice only; wild   K
//	      in most rule sets)
//
// Whether a rank is wild depends on the rule set: see [RuleSet.IsWild].
type Card int

// The ranks with a name.
const (
	Joker Card = 0
	Ace   Card = 1
	Jack  Card = 11
	Queen Card = 12
	King  Card = 13
)

// String returns the card's short name: *, A, 2..10, J, Q or K.
func (c Card) String() string {
	switch c {
	case Joker:
		return "*"
	case Ace:
		return "A"
	case Jack:
		return "J"
	case Queen:
		return "Q"
	case King:
		return "K"
	}
	return strconv.Itoa(int(c))
}

// ParseCard reads a card name (*, A, J, Q, K; also JOKER, W and SB for the wild) or a
// number 0..13. Case and surrounding spaces do not matter.
func ParseCard(text string) (Card, error) {
	key := strings.ToUpper(strings.TrimSpace(text))
	switch key {
	case "*", "JOKER", "W", "SB":
		return Joker, nil
	case "A":
		return Ace, nil
	case "J":
		return Jack, nil
	case "Q":
		return Queen, nil
	case "K":
		return King, nil
	}
	if key != "" && strings.Trim(key, "0123456789") == "" {
		if n, err := strconv.Atoi(key); err == nil && n <= int(King) {
			return Card(n), nil
		}
	}
	return 0, fmt.Errorf("not a card: %q (expected *, A, 2..10, J, Q, K or 0..13)", text)
}
