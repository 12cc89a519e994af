package policies

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/spite-arena/spite/sdk/go/spite"
	"github.com/spite-arena/spite/sdk/go/spitev1"
)

var standard = &spite.RuleSet{Name: "standard", Players: 2, CentrePiles: 4, DiscardPiles: 4,
	WildRanks: []spite.Card{spite.Joker, spite.King}}

// observation builds seat 0's view with these discard piles and legal moves (notation).
func observation(discards []spite.Pile, legal ...string) *spite.Observation {
	if discards == nil {
		discards = []spite.Pile{{}, {}, {}, {}}
	}
	obs := &spite.Observation{Rules: standard, DiscardPiles: [][]spite.Pile{discards, {{}, {}, {}, {}}}}
	for _, text := range legal {
		obs.LegalMoves = append(obs.LegalMoves, spite.MustParseMove(text))
	}
	return obs
}

func TestGreedy(t *testing.T) {
	cases := []struct {
		name string
		obs  *spite.Observation
		want string
	}{
		{"the stock first, even a wild one",
			observation(nil, "H:5>C0", "D0:6>C1", "S:K>C2", "S:K>C3", "H:9>D0"), "S:K>C2"},
		{"a natural hand card before a wild",
			observation(nil, "H:*>C0", "H:K>C0", "H:4>C1", "D0:4>C1"), "H:4>C1"},
		{"a natural discard-pile top before a wild hand card",
			observation(nil, "H:K>C0", "D2:Q>C3", "H:9>D0"), "D2:Q>C3"},
		{"no natural play: discard the highest non-wild card",
			observation(nil, "H:K>C0", "H:3>D0", "H:J>D0", "H:K>D0", "H:J>D1"), "H:J>D0"},
		{"onto an empty pile, the lowest-numbered",
			observation([]spite.Pile{{9}, {}, {}, {4}}, "H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"), "H:7>D1"},
		{"else onto the pile whose top is closest above",
			observation([]spite.Pile{{2, 12}, {9}, {8}, {5}}, "H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"), "H:7>D2"},
		{"an equal top counts as above",
			observation([]spite.Pile{{12}, {7}, {9}, {3}}, "H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"), "H:7>D1"},
		{"else the closest below",
			observation([]spite.Pile{{2}, {5}, {3}, {6}}, "H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"), "H:7>D3"},
		{"a tie goes to the lower pile",
			observation([]spite.Pile{{6}, {8}, {8}, {6}}, "H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"), "H:7>D1"},
		{"wilds are discarded only when nothing else may go",
			observation([]spite.Pile{{6}, {}, {}, {}}, "H:K>D0", "H:*>D0", "H:K>D1"), "H:K>D1"},
		{"no discard: a wild play rather than pass",
			observation(nil, "H:*>C0", "H:K>C1", "pass"), "H:*>C0"},
		{"nothing else: pass",
			observation(nil, "pass"), "pass"},
	}
	for _, c := range cases {
		if got := Greedy(c.obs).String(); got != c.want {
			t.Errorf("%s: Greedy = %s, want %s", c.name, got, c.want)
		}
	}
	if got := Greedy(observation(nil)); got != spite.PassMove {
		t.Errorf("no legal moves: Greedy = %v, want pass", got)
	}
}

func TestRandomAndNaive(t *testing.T) {
	obs := observation(nil, "H:5>C0", "D0:6>C1", "H:9>D0", "H:9>D1")
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[spite.Move]bool{}
	for range 200 {
		move := Naive(obs, rng)
		if move.Kind != spite.Play {
			t.Fatalf("Naive chose %v while a play was legal", move)
		}
		seen[move] = true
		seen[Random(obs, rng)] = true
	}
	if len(seen) != len(obs.LegalMoves) {
		t.Errorf("in 400 draws only %d of the %d legal moves came up", len(seen), len(obs.LegalMoves))
	}
	if got := Naive(observation(nil, "H:9>D0"), rng); got.String() != "H:9>D0" {
		t.Errorf("Naive with only a discard = %v", got)
	}
}

// TestGreedyMatchesPython checks Greedy against the Python greedy_move on positions from
// real games. tests/languages/test_go.py writes the cases (JSON lines: the wire RuleSet
// and Observation, base64, and the Python choice) and names the file in
// SPITE_GREEDY_CASES; without it, the test has nothing to compare and is skipped.
func TestGreedyMatchesPython(t *testing.T) {
	path := os.Getenv("SPITE_GREEDY_CASES")
	if path == "" {
		t.Skip("SPITE_GREEDY_CASES is not set (tests/languages/test_go.py sets it)")
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	rules := map[string]*spite.RuleSet{}
	count, mismatches := 0, 0
	for scanner.Scan() {
		var c struct{ Rules, Observation, Greedy string }
		if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		ruleSet, ok := rules[c.Rules]
		if !ok {
			var wire spitev1.RuleSet
			unmarshal(t, c.Rules, &wire)
			ruleSet = spite.RulesFromProto(&wire)
			rules[c.Rules] = ruleSet
		}
		var wire spitev1.Observation
		unmarshal(t, c.Observation, &wire)
		obs, err := spite.ObservationFromProto(&wire, ruleSet)
		if err != nil {
			t.Fatal(err)
		}
		count++
		if got := Greedy(obs).String(); got != c.Greedy {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("%s: Greedy = %s, Python greedy_move = %s; legal moves %v", ruleSet.Name, got, c.Greedy, obs.LegalMoves)
			}
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	if count == 0 {
		t.Fatal("no cases in " + path)
	}
	if mismatches > 0 {
		t.Errorf("%d of %d choices differ", mismatches, count)
	}
	t.Logf("%d positions, %d rule sets: same choices", count, len(rules))
}

func unmarshal(t *testing.T, b64 string, message proto.Message) {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(data, message); err != nil {
		t.Fatal(err)
	}
}
