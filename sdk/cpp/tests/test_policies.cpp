// The reference policies; greedy against the Python SDK's greedy_move on positions from
// real games when SPITE_GREEDY_CASES names a file of them (tests/languages/test_cpp.py).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "spite/json.hpp"
#include "spite/spite.hpp"

namespace {

using spite::Move;

spite::Observation observation(std::vector<spite::Pile> discards, std::vector<std::string> legal) {
  spite::Observation o;
  o.rules.name = "standard";
  o.rules.wild_ranks = {spite::JOKER, spite::KING};
  o.discard_piles = {discards};
  for (const auto& text : legal) o.legal_moves.push_back(Move::parse(text));
  return o;
}

TEST(Policies, GreedyChoices) {
  struct Case { const char* what; std::vector<spite::Pile> discards; std::vector<std::string> legal; const char* choice; };
  const Case cases[] = {
      {"the stock first, even a wild one", {}, {"H:5>C0", "D0:6>C1", "S:K>C2", "S:K>C3", "H:9>D0"}, "S:K>C2"},
      {"a natural hand card before a wild", {}, {"H:*>C0", "H:K>C0", "H:4>C1", "D0:4>C1"}, "H:4>C1"},
      {"a natural discard-pile top before a wild hand card", {}, {"H:K>C0", "D2:Q>C3", "H:9>D0"}, "D2:Q>C3"},
      {"no natural play: discard the highest non-wild card", {}, {"H:K>C0", "H:3>D0", "H:J>D0", "H:K>D0", "H:J>D1"}, "H:J>D0"},
      {"onto an empty pile, the lowest-numbered", {{9}, {}, {}, {4}}, {"H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"}, "H:7>D1"},
      {"else onto the pile whose top is closest above", {{2, 12}, {9}, {8}, {5}}, {"H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"}, "H:7>D2"},
      {"an equal top counts as above", {{12}, {7}, {9}, {3}}, {"H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"}, "H:7>D1"},
      {"else the closest below", {{2}, {5}, {3}, {6}}, {"H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"}, "H:7>D3"},
      {"a tie goes to the lower pile", {{6}, {8}, {8}, {6}}, {"H:7>D0", "H:7>D1", "H:7>D2", "H:7>D3"}, "H:7>D1"},
      {"wilds are discarded only when nothing else may go", {{6}}, {"H:K>D0", "H:*>D0", "H:K>D1"}, "H:K>D1"},
      {"no discard: a wild play rather than pass", {}, {"H:*>C0", "H:K>C1", "pass"}, "H:*>C0"},
      {"nothing else: pass", {}, {"pass"}, "pass"},
  };
  for (const Case& c : cases) EXPECT_EQ(spite::policies::greedy(observation(c.discards, c.legal)).to_string(), c.choice) << c.what;
  EXPECT_EQ(spite::policies::greedy(observation({}, {})), Move::pass()) << "no legal moves";
}

TEST(Policies, RandomAndNaive) {
  auto obs = observation({}, {"H:5>C0", "D0:6>C1", "H:9>D0", "H:9>D1"});
  spite::policies::SplitMix64 rng(1);
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    Move m = spite::policies::naive(obs, rng);
    EXPECT_EQ(m.kind, spite::MoveKind::Play) << m.to_string();
    seen.insert(m.to_string());
    seen.insert(spite::policies::random(obs, rng).to_string());
  }
  EXPECT_EQ(seen.size(), obs.legal_moves.size());
  EXPECT_EQ(spite::policies::naive(observation({}, {"H:9>D0"}), rng).to_string(), "H:9>D0");
  spite::policies::SplitMix64 a(7), b(7);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.next(), b.next());
}

// Each line of the file: [a Welcome line, a DecisionRequest line, the Python choice], the
// referee's own JSON of positions from engine games in several rule sets.
TEST(Policies, GreedyMatchesPython) {
  const char* path = std::getenv("SPITE_GREEDY_CASES");
  if (!path || !*path) GTEST_SKIP() << "SPITE_GREEDY_CASES is not set (tests/languages/test_cpp.py sets it)";
  std::ifstream file(path);
  ASSERT_TRUE(file) << path;
  std::map<std::string, int> positions;
  int mismatches = 0;
  for (std::string line; std::getline(file, line);) {
    auto item = spite::json::parse(line);
    auto rules = spite::wire::welcome(item.items().at(0)["welcome"]).rules;
    auto obs = spite::wire::observation(item.items().at(1)["decision"]["observation"], rules);
    const std::string& expected = item.items().at(2).as_string();
    std::string got = spite::policies::greedy(obs).to_string();
    ++positions[rules.name];
    if (got != expected && ++mismatches <= 10) ADD_FAILURE() << rules.name << " turn " << obs.turn << ": " << got << " != " << expected;
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_FALSE(positions.empty());
  std::size_t total = 0;
  for (const auto& [name, n] : positions) total += static_cast<std::size_t>(n);
  if (mismatches == 0) std::cout << positions.size() << " rule sets: same choices on " << total << " positions\n";
}

}  // namespace
