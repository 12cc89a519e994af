// The session: play_match over string streams, the referee's side written as it would be.
#include <gtest/gtest.h>

#include <sstream>

#include "spite/json.hpp"
#include "spite/spite.hpp"

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// Records every hook and plays the last legal move (with a debug note).
class Recorder : public spite::Bot {
 public:
  spite::Choice decide(const spite::Observation& o, const spite::Decision& d) override {
    calls.push_back("decide " + std::to_string(d.id) + " game " + std::to_string(d.game) + " rules " + o.rules.name);
    return spite::Choice::index(-1).with_debug("last");
  }
  void on_welcome(const spite::Welcome& w) override { calls.push_back("welcome seat " + std::to_string(w.seat)); }
  void on_game_start(int game, const spite::Observation& o) override {
    calls.push_back("game start " + std::to_string(game) + " hand " + std::to_string(o.hand.size()));
  }
  void on_events(int game, const std::vector<spite::Event>& events) override {
    calls.push_back("events " + std::to_string(game) + " x" + std::to_string(events.size()));
  }
  void on_result(const spite::ActionResult& r) override {
    calls.push_back("result " + std::to_string(r.decision_id) + (r.fault == spite::Fault::None ? "" : " fault"));
  }
  void on_game_over(int game, const spite::Outcome& o) override {
    calls.push_back("game over " + std::to_string(game) + " " + o.reason);
  }
  void on_match_over(const spite::MatchResult& r) override { calls.push_back("match over " + r.reason); }
  std::vector<std::string> calls;
};

const char* const kMatch =
    R"({"welcome":{"seat":1,"rules":{"name":"standard","players":2,"wildRanks":[0,13]},"games":2}})" "\n"
    R"({"gameStart":{"observation":{"seat":1,"hand":[2,5,9,11,13]}}})" "\n"
    R"({"events":{"events":[{"kind":"EVENT_KIND_TURN","seat":1,"count":2,"pile":-1}]}})" "\n"
    R"({"decision":{"decisionId":"2","observation":{"seat":1,"toMove":1,"legalMoves":[)"
    R"({"kind":"MOVE_KIND_PLAY","source":"SOURCE_HAND","card":13},{"kind":"MOVE_KIND_DISCARD","source":"SOURCE_HAND","card":9}]},)"
    R"("deadlineMs":1000,"bankMs":10000}})" "\n"
    // a forced timeout: the referee closed decision 2 and says so; the bot must read on
    R"({"result":{"decisionId":"2","fault":"FAULT_TIMEOUT","error":"no answer in time","strikes":1}})" "\n"
    "this line is not JSON\n"
    R"({"somethingNew":{"x":1}})" "\n"
    R"({"gameOver":{"outcome":{"ending":"ENDING_STOCK_EMPTIED","winners":[1],"reason":"seat 1 emptied its stock"}}})" "\n"
    R"({"gameStart":{"gameNumber":1,"firstSeat":1,"observation":{"seat":1}}})" "\n"
    R"({"decision":{"decisionId":"3","gameNumber":1,"observation":{"seat":1,"legalMoves":[{"kind":"MOVE_KIND_PASS"}]}}})" "\n"
    R"({"result":{"decisionId":"3","applied":[{"kind":"MOVE_KIND_PASS"}]}})" "\n"
    R"({"gameOver":{"gameNumber":1,"outcome":{"ending":"ENDING_STALEMATE","reason":"stalemate"}}})" "\n"
    R"({"matchOver":{"points":[0,1],"wins":[0,1],"winners":[1],"reason":"seat 1 won the match, 0-1"}})" "\n"
    R"({"welcome":{"seat":0}})" "\n";  // after MatchOver nothing is read

TEST(Session, HelloFirstThenEveryMessageInOrder) {
  Recorder bot;
  std::istringstream in(kMatch);
  std::ostringstream out, log;
  auto result = spite::play_match(bot, {"recorder", "1.2.3"}, in, out, log, "seat-token");
  EXPECT_EQ(result.winners, std::vector<int>{1});
  auto sent = lines_of(out.str());
  ASSERT_EQ(sent.size(), 3u) << out.str();
  EXPECT_EQ(sent[0], R"({"hello":{"token":"seat-token","name":"recorder","version":"1.2.3","protocolVersion":1}})");
  EXPECT_EQ(sent[1], R"({"action":{"decisionId":"2","moveIndex":1,"debug":"last"}})");
  EXPECT_EQ(sent[2], R"({"action":{"decisionId":"3","moveIndex":0,"debug":"last"}})");
  EXPECT_EQ(bot.calls, (std::vector<std::string>{
                           "welcome seat 1", "game start 0 hand 5", "events 0 x1", "decide 2 game 0 rules standard",
                           "result 2 fault", "game over 0 seat 1 emptied its stock", "game start 1 hand 0",
                           "decide 3 game 1 rules standard", "result 3", "game over 1 stalemate",
                           "match over seat 1 won the match, 0-1"}));
  // the fault and the unreadable line are in the log; the session went on
  EXPECT_NE(log.str().find("FAULT_TIMEOUT: no answer in time"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("unreadable line"), std::string::npos) << log.str();
  EXPECT_EQ(in.peek(), '{');  // the line after MatchOver is left unread
}

TEST(Session, ARefusalIsARefereeError) {
  Recorder bot;
  std::istringstream in(R"({"refusal":{"code":"UNAUTHENTICATED","message":"unknown token"}})" "\n");
  std::ostringstream out, log;
  try {
    spite::play_match(bot, {"b", "1"}, in, out, log, "bad");
    FAIL() << "no error";
  } catch (const spite::RefereeError& error) {
    EXPECT_EQ(error.code, "UNAUTHENTICATED");
    EXPECT_NE(std::string(error.what()).find("unknown token"), std::string::npos);
  }
}

TEST(Session, StdinEndingBeforeTheMatchOverIsASessionError) {
  Recorder bot;
  std::istringstream in(R"({"welcome":{"seat":0}})" "\n");
  std::ostringstream out, log;
  EXPECT_THROW(spite::play_match(bot, {"b", "1"}, in, out, log), spite::SessionError);
  EXPECT_EQ(lines_of(out.str()).size(), 1u);  // only the Hello
}

TEST(Session, WhatDecideThrowsStopsTheBot) {
  struct Thrower : spite::Bot {
    spite::Choice decide(const spite::Observation&, const spite::Decision&) override {
      throw std::runtime_error("my bug");
    }
  } bot;
  std::istringstream in(R"({"decision":{"decisionId":"1","observation":{"legalMoves":[{"kind":"MOVE_KIND_PASS"}]}}})" "\n");
  std::ostringstream out, log;
  EXPECT_THROW(spite::play_match(bot, {"b", "1"}, in, out, log), std::runtime_error);
}

TEST(Session, AMessageItCannotReadIsSkipped) {
  Recorder bot;
  std::istringstream in(R"({"decision":{"decisionId":"x1","observation":{}}})" "\n"
                        R"({"matchOver":{}})" "\n");
  std::ostringstream out, log;
  spite::play_match(bot, {"b", "1"}, in, out, log);
  EXPECT_NE(log.str().find("a decision message it cannot read"), std::string::npos) << log.str();
  EXPECT_EQ(lines_of(out.str()).size(), 1u);
}

TEST(Session, DecisionTermsAreMeasuredFromArrival) {
  spite::Decision d;
  d.deadline_ms = 1000;
  d.bank_ms = 500;
  EXPECT_EQ(d.final_deadline() - d.received, std::chrono::milliseconds(1500));
  EXPECT_LE(d.remaining(), std::chrono::milliseconds(1000));
}

}  // namespace
