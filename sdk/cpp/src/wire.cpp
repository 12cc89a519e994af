// The conversions between the referee's canonical JSON (protobuf's mapping of spite.v1:
// lowerCamelCase names, enums by name, 64-bit integers as strings, defaults left out)
// and the SDK's values.
#include <string>

#include "spite/json.hpp"
#include "spite/spite.hpp"

namespace spite::wire {

namespace {

using json::ParseError;
using json::Value;

int integer(const Value& v) { return static_cast<int>(v.as_int()); }

std::vector<int> integers(const Value& v) {
  std::vector<int> out;
  for (const Value& item : v.items()) out.push_back(integer(item));
  return out;
}

MoveKind move_kind(const std::string& name) {
  if (name == "MOVE_KIND_PLAY") return MoveKind::Play;
  if (name == "MOVE_KIND_DISCARD") return MoveKind::Discard;
  if (name == "MOVE_KIND_PASS") return MoveKind::Pass;
  throw ParseError("an unknown move kind: " + name.substr(0, 40));
}

Source source(const std::string& name) {
  if (name.empty() || name == "SOURCE_HAND" || name == "SOURCE_UNSPECIFIED") return Source::Hand;  // a pass has none
  if (name == "SOURCE_STOCK") return Source::Stock;
  if (name == "SOURCE_DISCARD_PILE") return Source::DiscardPile;
  throw ParseError("an unknown source: " + name.substr(0, 40));
}

EventKind event_kind(const std::string& name) {
  static const char* const names[] = {"EVENT_KIND_UNSPECIFIED", "EVENT_KIND_DEAL", "EVENT_KIND_TURN",
                                      "EVENT_KIND_MOVE", "EVENT_KIND_DRAW", "EVENT_KIND_REVEAL",
                                      "EVENT_KIND_PILE_COMPLETED", "EVENT_KIND_SHUFFLE", "EVENT_KIND_GAME_OVER"};
  for (int i = 0; i < 9; ++i)
    if (name == names[i]) return static_cast<EventKind>(i);
  return EventKind::Unspecified;  // a kind added later: the bot sees it as unspecified
}

Ending ending(const std::string& name) {
  static const char* const names[] = {"ENDING_UNSPECIFIED", "ENDING_STOCK_EMPTIED", "ENDING_STALEMATE",
                                      "ENDING_TURN_CAP", "ENDING_DRAW_PILE_EXHAUSTED", "ENDING_TIMEOUT",
                                      "ENDING_ILLEGAL_MOVE", "ENDING_MALFORMED", "ENDING_CRASH",
                                      "ENDING_DISCONNECT", "ENDING_NO_SHOW", "ENDING_FORFEIT"};
  for (int i = 0; i < 12; ++i)
    if (name == names[i]) return static_cast<Ending>(i);
  return Ending::Unspecified;
}

Fault fault(const std::string& name) {
  if (name == "FAULT_TIMEOUT") return Fault::Timeout;
  if (name == "FAULT_ILLEGAL_MOVE") return Fault::IllegalMove;
  if (name == "FAULT_MALFORMED") return Fault::Malformed;
  if (name == "FAULT_WRONG_DECISION") return Fault::WrongDecision;
  return Fault::None;
}

Policy policy(const std::string& name) {
  if (name == "POLICY_FORFEIT") return Policy::Forfeit;
  if (name == "POLICY_SUBSTITUTE") return Policy::Substitute;
  return Policy::Unspecified;
}

std::vector<Move> moves(const Value& v) {
  std::vector<Move> out;
  for (const Value& item : v.items()) out.push_back(move(item));
  return out;
}

/// Cuts ``text`` to at most ``limit`` bytes without splitting a UTF-8 character.
std::string cut_utf8(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

RuleSet rules(const Value& v) {
  RuleSet r;
  r.name = v["name"].as_string();
  r.version = integer(v["version"]);
  r.players = integer(v["players"]);
  r.partners = v["partners"].as_bool();
  r.deck = v["deck"].as_string();
  r.decks = integer(v["decks"]);
  r.jokers_per_deck = integer(v["jokersPerDeck"]);
  r.kings_wild = v["kingsWild"].as_bool();
  r.stock_size = integer(v["stockSize"]);
  r.hand_size = integer(v["handSize"]);
  r.centre_piles = integer(v["centrePiles"]);
  r.discard_piles = integer(v["discardPiles"]);
  r.open_stock = integer(v["openStock"]);
  r.no_block = v["noBlock"].as_bool();
  r.completed_piles = v["completedPiles"].as_string();
  r.draw_pile_exhausted = v["drawPileExhausted"].as_string();
  r.discard_aces = v["discardAces"].as_bool();
  r.scoring = v["scoring"].as_string();
  r.match_points = integer(v["matchPoints"]);
  r.turn_cap = integer(v["turnCap"]);
  r.wild_ranks = integers(v["wildRanks"]);
  return r;
}

Move move(const Value& v) {
  if (!v.is_object()) throw ParseError("expected a move");
  Move m;
  m.kind = move_kind(v["kind"].as_string());
  m.source = source(v["source"].as_string());
  m.index = integer(v["sourceIndex"]);
  m.card = integer(v["card"]);
  m.target = integer(v["target"]);
  return m;
}

Event event(const Value& v) {
  Event e;
  e.kind = event_kind(v["kind"].as_string());
  e.seat = integer(v["seat"]);
  if (const Value* m = v.find("move")) e.move = move(*m);
  e.cards = integers(v["cards"]);
  e.count = integer(v["count"]);
  e.pile = integer(v["pile"]);
  return e;
}

Observation observation(const Value& v, const RuleSet& rules) {
  Observation o;
  o.rules = rules;
  o.seat = integer(v["seat"]);
  o.turn = integer(v["turn"]);
  o.to_move = integer(v["toMove"]);
  o.hand = integers(v["hand"]);
  o.hand_sizes = integers(v["handSizes"]);
  for (const Value& s : v["stocks"].items()) o.stocks.push_back({integer(s["count"]), integers(s["visible"])});
  for (const Value& seat : v["discardPiles"].items()) {
    std::vector<Pile> piles;
    for (const Value& p : seat["piles"].items()) piles.push_back(integers(p["cards"]));
    o.discard_piles.push_back(std::move(piles));
  }
  for (const Value& p : v["centrePiles"].items()) o.centre_piles.push_back(integers(p["cards"]));
  o.draw_pile_count = integer(v["drawPileCount"]);
  o.set_aside_count = integer(v["setAsideCount"]);
  for (const Value& e : v["events"].items()) o.events.push_back(event(e));
  o.legal_moves = moves(v["legalMoves"]);
  return o;
}

Welcome welcome(const Value& v) {
  Welcome w;
  w.seat = integer(v["seat"]);
  w.rules = rules(v["rules"]);
  const Value& tc = v["timeControl"];
  w.time_control = {integer(tc["decisionMs"]), integer(tc["bankMs"]), integer(tc["connectMs"])};
  w.games = integer(v["games"]);
  w.match_id = v["matchId"].as_string();
  w.protocol_version = integer(v["protocolVersion"]);
  for (const Value& name : v["seatNames"].items()) w.seat_names.push_back(name.as_string());
  w.policy = policy(v["policy"].as_string());
  return w;
}

ActionResult result(const Value& v) {
  ActionResult r;
  r.decision_id = v["decisionId"].as_uint64();
  r.applied = moves(v["applied"]);
  r.dropped = integer(v["dropped"]);
  r.fault = fault(v["fault"].as_string());
  r.error = v["error"].as_string();
  r.strikes = integer(v["strikes"]);
  return r;
}

Outcome outcome(const Value& v) {
  Outcome o;
  o.ending_name = v["ending"].as_string();
  o.ending = ending(o.ending_name);
  o.winners = integers(v["winners"]);
  o.scores = integers(v["scores"]);
  o.reason = v["reason"].as_string();
  o.offender = integer(v["offender"]);
  return o;
}

MatchResult match_over(const Value& v) {
  return {integers(v["points"]), integers(v["wins"]), integers(v["winners"]), v["reason"].as_string()};
}

std::string move_json(const Move& m) {
  static const char* const kinds[] = {"MOVE_KIND_PLAY", "MOVE_KIND_DISCARD", "MOVE_KIND_PASS"};
  static const char* const sources[] = {"SOURCE_HAND", "SOURCE_STOCK", "SOURCE_DISCARD_PILE"};
  std::string out = std::string("{\"kind\":\"") + kinds[static_cast<int>(m.kind)] + "\"";
  if (m.kind == MoveKind::Pass) return out + "}";
  out += std::string(",\"source\":\"") + sources[static_cast<int>(m.source)] + "\"";
  out += ",\"sourceIndex\":" + std::to_string(m.index) + ",\"card\":" + std::to_string(m.card) +
         ",\"target\":" + std::to_string(m.target) + "}";
  return out;
}

std::string hello_line(const Options& options, const std::string& token) {
  std::string out = "{\"hello\":{";
  if (!token.empty()) out += "\"token\":" + json::quote(token) + ",";
  return out + "\"name\":" + json::quote(options.name) + ",\"version\":" + json::quote(options.version) +
         ",\"protocolVersion\":1}}";
}

std::string action_line(std::uint64_t decision_id, const Choice& choice, const std::vector<Move>& legal_moves) {
  std::string out = "{\"action\":{\"decisionId\":\"" + std::to_string(decision_id) + "\"";
  switch (choice.kind()) {
    case Choice::Kind::Index: {
      long long i = choice.index();
      if (i < 0) i += static_cast<long long>(legal_moves.size());
      out += ",\"moveIndex\":" + std::to_string(i);  // out of range: the referee says so (malformed)
      break;
    }
    case Choice::Kind::Move: {
      // One of the legal moves goes by its index: the referee reads that line fastest.
      const Move& m = choice.moves().front();
      std::size_t i = 0;
      while (i < legal_moves.size() && legal_moves[i] != m) ++i;
      out += i < legal_moves.size() ? ",\"moveIndex\":" + std::to_string(i) : ",\"move\":" + move_json(m);
      break;
    }
    case Choice::Kind::Plan: {
      out += ",\"plan\":{\"moves\":[";
      for (std::size_t k = 0; k < choice.moves().size(); ++k)
        out += (k ? "," : "") + move_json(choice.moves()[k]);
      out += "]}";
      break;
    }
  }
  if (!choice.debug().empty()) out += ",\"debug\":" + json::quote(cut_utf8(choice.debug(), 256));
  return out + "}}";
}

}  // namespace spite::wire
