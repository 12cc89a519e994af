// The JSON reader and the wire conversions, on lines as the referee writes them
// (spite_wire.canonical_json.referee_message_line: defaults left out, enums by name,
// 64-bit integers as strings).
#include <gtest/gtest.h>

#include "spite/json.hpp"
#include "spite/spite.hpp"

namespace {

using spite::Move;
using spite::MoveKind;
using spite::Source;

// A Skip-Bo 4-player Welcome, seat 0 (left out), as the referee writes it.
const char* const kWelcome =
    R"({"welcome":{"rules":{"name":"skip-bo+4p","version":2,"players":4,"deck":"skip-bo","decks":1,)"
    R"("jokersPerDeck":2,"kingsWild":true,"stockSize":30,"handSize":5,"centrePiles":4,"discardPiles":4,)"
    R"("openStock":1,"completedPiles":"set-aside","drawPileExhausted":"play-on","discardAces":true,)"
    R"("scoring":"win","turnCap":2000,"wildRanks":[0]},"timeControl":{"decisionMs":1000,"bankMs":10000,)"
    R"("connectMs":10000},"games":2,"matchId":"abc","protocolVersion":1,"seatNames":["a","b","c","d"],)"
    R"("policy":"POLICY_SUBSTITUTE"}})";

// Its seat 0's decision at turn 31 (events shortened): a Joker (card 0) and target 0 are left out.
const char* const kDecision =
    R"({"decision":{"decisionId":"12345678901234","gameNumber":1,"observation":{"turn":31,"hand":[0,1,2],)"
    R"("handSizes":[3,3,3,3],"stocks":[{"count":30,"visible":[12]},{"count":30,"visible":[11]},)"
    R"({"count":30,"visible":[9]},{"count":30,"visible":[11]}],"discardPiles":[{"piles":[{"cards":[11]},)"
    R"({"cards":[10]},{"cards":[10]},{"cards":[9,4,6,3]}]},{"piles":[{"cards":[11]},{"cards":[12]},)"
    R"({"cards":[9]},{"cards":[8,9,8,7]}]},{"piles":[{"cards":[9]},{"cards":[6]},{"cards":[9]},)"
    R"({"cards":[6,5,5,4,3]}]},{"piles":[{"cards":[11]},{"cards":[10]},{"cards":[12]},{"cards":[6,12,11,5,2]}]}],)"
    R"("centrePiles":[{},{},{},{}],"events":[{"kind":"EVENT_KIND_MOVE","move":{"kind":"MOVE_KIND_DISCARD",)"
    R"("source":"SOURCE_HAND","card":3,"target":3},"pile":-1},{"kind":"EVENT_KIND_TURN","seat":1,"count":28,)"
    R"("pile":-1}],"legalMoves":[{"kind":"MOVE_KIND_PLAY","source":"SOURCE_HAND"},{"kind":"MOVE_KIND_PLAY",)"
    R"("source":"SOURCE_HAND","card":1},{"kind":"MOVE_KIND_DISCARD","source":"SOURCE_HAND"},)"
    R"({"kind":"MOVE_KIND_DISCARD","source":"SOURCE_HAND","target":1},{"kind":"MOVE_KIND_DISCARD",)"
    R"("source":"SOURCE_HAND","card":2,"target":3}]},"deadlineMs":1000,"bankMs":9000}})";

TEST(Json, ReadsTheValuesTheProtocolUses) {
  auto v = spite::json::parse(R"( {"a": [1, -2, 3.0e0], "b": true, "c": null, "d": "x\"\\\/\n\u00e9\ud83d\ude00"} )");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v["a"].items().size(), 3u);
  EXPECT_EQ(v["a"].items()[1].as_int(), -2);
  EXPECT_EQ(v["a"].items()[2].as_int(), 3);
  EXPECT_TRUE(v["b"].as_bool());
  EXPECT_TRUE(v["c"].is_null());
  EXPECT_EQ(v["d"].as_string(), "x\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(v["missing"].as_int(7), 7);  // proto3 JSON leaves defaults out
  EXPECT_TRUE(v["missing"].items().empty());
  EXPECT_EQ(v["missing"].as_string(), "");
}

TEST(Json, SixtyFourBitIntegersComeAsStrings) {
  auto v = spite::json::parse(R"({"id":"18446744073709551615","n":42})");
  EXPECT_EQ(v["id"].as_uint64(), 18446744073709551615ULL);
  EXPECT_EQ(v["n"].as_uint64(), 42u);
  EXPECT_THROW(spite::json::parse(R"({"id":"-1"})")["id"].as_uint64(), spite::json::ParseError);
}

TEST(Json, RejectsWhatIsNotJson) {
  for (const char* bad : {"", "{", "{\"a\":}", "[1,]", "{\"a\" 1}", "tru", "\"abc", "{} x", "01x", "\"\\q\"",
                          "[\"\x01\"]"}) {
    EXPECT_THROW(spite::json::parse(bad), spite::json::ParseError) << bad;
  }
  std::string deep(100, '[');
  EXPECT_THROW(spite::json::parse(deep + std::string(100, ']')), spite::json::ParseError);
}

TEST(Json, WrongTypesAreParseErrors) {
  auto v = spite::json::parse(R"({"s":"x","n":1,"o":{}})");
  EXPECT_THROW(v["s"].as_int(), spite::json::ParseError);
  EXPECT_THROW(v["n"].as_string(), spite::json::ParseError);
  EXPECT_THROW(v["o"].items(), spite::json::ParseError);
  EXPECT_THROW(v["n"].as_bool(), spite::json::ParseError);
}

TEST(Json, QuotesStrings) {
  EXPECT_EQ(spite::json::quote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(spite::json::parse(spite::json::quote("tab\there \xc3\xa9")).as_string(), "tab\there \xc3\xa9");
}

TEST(Wire, ReadsAWelcome) {
  auto w = spite::wire::welcome(spite::json::parse(kWelcome)["welcome"]);
  EXPECT_EQ(w.seat, 0);
  EXPECT_EQ(w.rules.name, "skip-bo+4p");
  EXPECT_EQ(w.rules.version, 2);
  EXPECT_EQ(w.rules.players, 4);
  EXPECT_FALSE(w.rules.partners);
  EXPECT_EQ(w.rules.stock_size, 30);
  EXPECT_EQ(w.rules.centre_piles, 4);
  EXPECT_EQ(w.rules.discard_piles, 4);
  EXPECT_EQ(w.rules.open_stock, 1);
  EXPECT_TRUE(w.rules.discard_aces);
  EXPECT_EQ(w.rules.turn_cap, 2000);
  EXPECT_EQ(w.rules.wild_ranks, std::vector<int>{0});
  EXPECT_TRUE(w.rules.is_wild(spite::JOKER));
  EXPECT_FALSE(w.rules.is_wild(spite::KING));
  EXPECT_EQ(w.time_control.decision_ms, 1000);
  EXPECT_EQ(w.time_control.bank_ms, 10000);
  EXPECT_EQ(w.games, 2);
  EXPECT_EQ(w.match_id, "abc");
  EXPECT_EQ(w.seat_names.size(), 4u);
  EXPECT_EQ(w.policy, spite::Policy::Substitute);
}

TEST(Wire, ReadsAnObservationWithItsDefaultsLeftOut) {
  auto rules = spite::wire::welcome(spite::json::parse(kWelcome)["welcome"]).rules;
  auto message = spite::json::parse(kDecision);
  const auto& body = message["decision"];
  EXPECT_EQ(body["decisionId"].as_uint64(), 12345678901234ULL);
  auto o = spite::wire::observation(body["observation"], rules);
  EXPECT_EQ(o.rules.name, "skip-bo+4p");
  EXPECT_EQ(o.seat, 0);
  EXPECT_EQ(o.turn, 31);
  EXPECT_EQ(o.to_move, 0);
  EXPECT_EQ(o.hand, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(o.hand_sizes, (std::vector<int>{3, 3, 3, 3}));
  ASSERT_EQ(o.stocks.size(), 4u);
  EXPECT_EQ(o.stocks[1].count, 30);
  EXPECT_EQ(o.stocks[1].top(), spite::JACK);
  EXPECT_EQ(o.my_stock().top(), spite::QUEEN);
  ASSERT_EQ(o.discard_piles.size(), 4u);
  EXPECT_EQ(o.discard_piles[3][3], (spite::Pile{6, 12, 11, 5, 2}));
  EXPECT_EQ(o.my_discard_piles()[3], (spite::Pile{9, 4, 6, 3}));
  ASSERT_EQ(o.centre_piles.size(), 4u);
  EXPECT_TRUE(o.centre_piles[0].empty());
  EXPECT_EQ(o.centre_needs(), (std::vector<int>{1, 1, 1, 1}));
  ASSERT_EQ(o.events.size(), 2u);
  EXPECT_EQ(o.events[0].kind, spite::EventKind::Move);
  EXPECT_EQ(o.events[0].seat, 0);
  EXPECT_EQ(o.events[0].move, Move::discard(3, 3));
  EXPECT_EQ(o.events[0].pile, -1);
  EXPECT_EQ(o.events[1].kind, spite::EventKind::Turn);
  EXPECT_EQ(o.events[1].count, 28);
  ASSERT_EQ(o.legal_moves.size(), 5u);
  EXPECT_EQ(o.legal_moves[0], Move::play(Source::Hand, spite::JOKER, 0));
  EXPECT_EQ(o.legal_moves[1], Move::play(Source::Hand, spite::ACE, 0));
  EXPECT_EQ(o.legal_moves[3], Move::discard(spite::JOKER, 1));
  EXPECT_EQ(o.legal_moves[4].to_string(), "H:2>D3");
}

TEST(Wire, ReadsResultsOutcomesAndTheMatchOver) {
  auto r = spite::wire::result(spite::json::parse(
      R"({"decisionId":"3","applied":[{"kind":"MOVE_KIND_DISCARD","source":"SOURCE_HAND","card":9}],)"
      R"("fault":"FAULT_ILLEGAL_MOVE","error":"illegal move: H:7>C0: centre pile 0 needs 3","strikes":1})"));
  EXPECT_EQ(r.decision_id, 3u);
  EXPECT_EQ(r.fault, spite::Fault::IllegalMove);
  EXPECT_EQ(r.applied, std::vector<Move>{Move::discard(9, 0)});
  EXPECT_EQ(r.strikes, 1);
  auto o = spite::wire::outcome(spite::json::parse(
      R"({"ending":"ENDING_STOCK_EMPTIED","winners":[1],"scores":[0,1],"reason":"seat 1 emptied its stock","offender":-1})"));
  EXPECT_EQ(o.ending, spite::Ending::StockEmptied);
  EXPECT_EQ(o.winners, std::vector<int>{1});
  EXPECT_EQ(o.offender, -1);
  auto m = spite::wire::match_over(spite::json::parse(R"({"points":[0,1],"wins":[0,1],"winners":[1],"reason":"r"})"));
  EXPECT_EQ(m.points, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.reason, "r");
  auto pass = spite::wire::move(spite::json::parse(R"({"kind":"MOVE_KIND_PASS"})"));
  EXPECT_EQ(pass, Move::pass());
  EXPECT_THROW(spite::wire::move(spite::json::parse(R"({"kind":"MOVE_KIND_JUMP"})")), spite::json::ParseError);
}

TEST(Wire, WritesHelloAndActions) {
  EXPECT_EQ(spite::wire::hello_line({"b\"ot", "1.0"}, "tok"),
            R"({"hello":{"token":"tok","name":"b\"ot","version":"1.0","protocolVersion":1}})");
  EXPECT_EQ(spite::wire::hello_line({"bot", "1.0"}, ""), R"({"hello":{"name":"bot","version":"1.0","protocolVersion":1}})");
  std::vector<Move> legal = {Move::play(Source::Stock, 1, 0), Move::discard(9, 2)};
  EXPECT_EQ(spite::wire::action_line(7, spite::Choice::index(1), legal), R"({"action":{"decisionId":"7","moveIndex":1}})");
  EXPECT_EQ(spite::wire::action_line(7, spite::Choice::index(-1), legal), R"({"action":{"decisionId":"7","moveIndex":1}})");
  EXPECT_EQ(spite::wire::action_line(7, Move::discard(9, 2), legal), R"({"action":{"decisionId":"7","moveIndex":1}})");
  EXPECT_EQ(spite::wire::action_line(7, Move::play(Source::DiscardPile, 12, 3, 1), legal),
            R"({"action":{"decisionId":"7","move":{"kind":"MOVE_KIND_PLAY","source":"SOURCE_DISCARD_PILE",)"
            R"("sourceIndex":1,"card":12,"target":3}}})");
  EXPECT_EQ(spite::wire::action_line(8, spite::Choice::plan({Move::play(Source::Stock, 1, 0), Move::pass()})
                                            .with_debug("stock ace"), legal),
            R"({"action":{"decisionId":"8","plan":{"moves":[{"kind":"MOVE_KIND_PLAY","source":"SOURCE_STOCK",)"
            R"("sourceIndex":0,"card":1,"target":0},{"kind":"MOVE_KIND_PASS"}]},"debug":"stock ace"}})");
  // debug is cut to 256 bytes, never inside a UTF-8 character
  std::string note = std::string(255, 'x') + "\xc3\xa9";
  auto line = spite::wire::action_line(9, spite::Choice::index(0).with_debug(note), legal);
  auto debug = spite::json::parse(line)["action"]["debug"].as_string();
  EXPECT_EQ(debug, std::string(255, 'x'));
}

TEST(Moves, NotationRoundTrips) {
  for (const char* text : {"H:7>C0", "S:K>C2", "D1:Q>C3", "H:9>D0", "pass", "H:*>C1", "H:A>D3", "H:10>C0"}) {
    EXPECT_EQ(Move::parse(text).to_string(), text);
  }
  EXPECT_EQ(Move::parse(" d2 : q > c3 "), Move::play(Source::DiscardPile, spite::QUEEN, 3, 2));
  EXPECT_EQ(Move::parse("PASS"), Move::pass());
  for (const char* bad : {"", "H7C0", "X:7>C0", "H:14>C0", "H:7>E0", "S:7>D0", "H:7>C10"}) {
    EXPECT_THROW(Move::parse(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
