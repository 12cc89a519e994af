package spite

import (
	"strings"
	"testing"
)

func TestMoveNotation(t *testing.T) {
	cases := []struct {
		text string
		move Move
	}{
		{"H:7>C0", Move{Kind: Play, Source: Hand, Card: 7, Target: 0}},
		{"S:K>C2", Move{Kind: Play, Source: Stock, Card: King, Target: 2}},
		{"D1:Q>C3", Move{Kind: Play, Source: DiscardPile, Index: 1, Card: Queen, Target: 3}},
		{"H:9>D0", Move{Kind: Discard, Source: Hand, Card: 9, Target: 0}},
		{"pass", PassMove},
		{"H:*>C1", Move{Kind: Play, Source: Hand, Card: Joker, Target: 1}},
		{"S:A>C0", Move{Kind: Play, Source: Stock, Card: Ace, Target: 0}},
		{"H:10>D3", Move{Kind: Discard, Source: Hand, Card: 10, Target: 3}},
		{"D3:J>C1", Move{Kind: Play, Source: DiscardPile, Index: 3, Card: Jack, Target: 1}},
	}
	for _, c := range cases {
		if got := c.move.String(); got != c.text {
			t.Errorf("%+v.String() = %q, want %q", c.move, got, c.text)
		}
		got, err := ParseMove(c.text)
		if err != nil || got != c.move {
			t.Errorf("ParseMove(%q) = %+v, %v; want %+v", c.text, got, err, c.move)
		}
	}
}

func TestParseMoveIsLenient(t *testing.T) {
	cases := map[string]string{
		"h:9>d0":       "H:9>D0",
		" S : k > C2 ": "S:K>C2",
		"PASS":         "pass",
		"d1:12>c3":     "D1:Q>C3",
		"H:joker>C0":   "H:*>C0",
		"H:sb>C0":      "H:*>C0",
		"S:13>C1":      "S:K>C1",
		"H:07>C0":      "H:7>C0",
		"  pass\t":     "pass",
	}
	for text, want := range cases {
		move, err := ParseMove(text)
		if err != nil || move.String() != want {
			t.Errorf("ParseMove(%q) = %v, %v; want %s", text, move, err, want)
		}
	}
}

func TestParseMoveRejects(t *testing.T) {
	for _, text := range []string{"", "S:7>D0", "D0:7>D1", "X:7>C0", "H:14>C0", "H:7>C", "H:7>C10", "H7>C0",
		"H:-1>C0", "H:+1>C0", "H:Z>C0", "passes", "H:7>C0 extra"} {
		if move, err := ParseMove(text); err == nil {
			t.Errorf("ParseMove(%q) = %v, want an error", text, move)
		}
	}
	_, err := ParseMove("S:7>D0")
	if err == nil || !strings.Contains(err.Error(), "only hand cards may be discarded") {
		t.Errorf("discard from the stock: got %v", err)
	}
}

func TestCards(t *testing.T) {
	names := map[Card]string{Joker: "*", Ace: "A", 2: "2", 10: "10", Jack: "J", Queen: "Q", King: "K"}
	for card, name := range names {
		if card.String() != name {
			t.Errorf("Card(%d).String() = %q, want %q", int(card), card.String(), name)
		}
		if got, err := ParseCard(strings.ToLower(name)); err != nil || got != card {
			t.Errorf("ParseCard(%q) = %v, %v", name, got, err)
		}
	}
	for _, bad := range []string{"", "14", "-1", "-0", "+3", "X", "1.0"} {
		if card, err := ParseCard(bad); err == nil {
			t.Errorf("ParseCard(%q) = %v, want an error", bad, card)
		}
	}
}

func TestMustParseMovePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParseMove of bad notation did not panic")
		}
	}()
	MustParseMove("nonsense")
}
