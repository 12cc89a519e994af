// The session with the referee over stdio (docs/protocol.md), the values' helpers and
// the reference policies.
#include "spite/spite.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "spite/json.hpp"

namespace spite {

// ---- Values ----------------------------------------------------------------------

std::string card_name(Card card) {
  switch (card) {
    case JOKER: return "*";
    case ACE: return "A";
    case JACK: return "J";
    case QUEEN: return "Q";
    case KING: return "K";
    default: return std::to_string(card);
  }
}

std::string Move::to_string() const {
  if (kind == MoveKind::Pass) return "pass";
  std::string out = source == Source::Hand ? "H" : source == Source::Stock ? "S" : "D" + std::to_string(index);
  return out + ":" + card_name(card) + ">" + (kind == MoveKind::Play ? "C" : "D") + std::to_string(target);
}

namespace {

Card parse_card(const std::string& text) {
  if (text == "*" || text == "JOKER" || text == "W" || text == "SB") return JOKER;
  if (text == "A") return ACE;
  if (text == "J") return JACK;
  if (text == "Q") return QUEEN;
  if (text == "K") return KING;
  if (!text.empty() && text.size() <= 2 && std::all_of(text.begin(), text.end(), ::isdigit)) {
    int n = std::stoi(text);
    if (n <= KING) return n;
  }
  throw std::invalid_argument("not a card: " + text);
}

std::string trim(std::string_view text) {
  std::size_t a = 0, b = text.size();
  while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
  return std::string(text.substr(a, b - a));
}

}  // namespace

Move Move::parse(std::string_view text) {
  std::string upper = trim(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "PASS") return pass();
  auto bad = [&] {
    return std::invalid_argument("not a move: " + std::string(text.substr(0, 40)) +
                                 " (expected e.g. H:7>C0, S:K>C1, D2:Q>C3, H:9>D0, pass)");
  };
  std::size_t colon = upper.find(':'), arrow = upper.find('>');
  if (colon == std::string::npos || arrow == std::string::npos || arrow < colon) throw bad();
  std::string from = trim(upper.substr(0, colon)), card = trim(upper.substr(colon + 1, arrow - colon - 1)),
              to = trim(upper.substr(arrow + 1));
  if (to.size() != 2 || (to[0] != 'C' && to[0] != 'D') || !std::isdigit(static_cast<unsigned char>(to[1])))
    throw bad();
  Move m;
  m.kind = to[0] == 'C' ? MoveKind::Play : MoveKind::Discard;
  m.target = to[1] - '0';
  if (from == "H") m.source = Source::Hand;
  else if (from == "S") m.source = Source::Stock;
  else if (from.size() == 2 && from[0] == 'D' && std::isdigit(static_cast<unsigned char>(from[1]))) {
    m.source = Source::DiscardPile;
    m.index = from[1] - '0';
  } else throw bad();
  if (m.kind == MoveKind::Discard && m.source != Source::Hand) throw bad();
  try {
    m.card = parse_card(card);
  } catch (const std::invalid_argument&) {
    throw bad();
  }
  return m;
}

bool RuleSet::is_wild(Card card) const {
  return std::find(wild_ranks.begin(), wild_ranks.end(), card) != wild_ranks.end();
}

StockView Observation::my_stock() const {
  std::size_t i = static_cast<std::size_t>(rules.stock_of(seat));
  return i < stocks.size() ? stocks[i] : StockView{};
}

const std::vector<Pile>& Observation::my_discard_piles() const {
  static const std::vector<Pile> none;
  std::size_t i = static_cast<std::size_t>(seat);
  return i < discard_piles.size() ? discard_piles[i] : none;
}

std::vector<Card> Observation::centre_needs() const {
  std::vector<Card> needs;
  for (const Pile& pile : centre_piles) needs.push_back(static_cast<Card>(pile.size()) + 1);
  return needs;
}

std::chrono::milliseconds Decision::remaining() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline() - std::chrono::steady_clock::now());
}

std::uint64_t bot_seed() {
  const char* seed = std::getenv("SPITE_BOT_SEED");
  if (!seed || !*seed) return 0;
  char* end = nullptr;
  unsigned long long n = std::strtoull(seed, &end, 10);
  return *end == '\0' ? n : 0;
}

// ---- The session -------------------------------------------------------------------

MatchResult play_match(Bot& bot, const Options& options, std::istream& in, std::ostream& out, std::ostream& log,
                       const std::string& token) {
  out << wire::hello_line(options, token) << '\n' << std::flush;
  RuleSet rules;
  int game = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    json::Value message;
    try {
      message = json::parse(line);
    } catch (const json::ParseError& error) {
      log << options.name << ": an unreadable line from the referee (" << error.what() << ")\n";
      continue;
    }
    if (!message.is_object() || message.keys().empty()) continue;
    const std::string& kind = message.keys().front();
    const json::Value& body = message[kind];
    try {
      if (kind == "decision") {
        Decision decision;
        decision.id = body["decisionId"].as_uint64();
        decision.game = static_cast<int>(body["gameNumber"].as_int());
        decision.deadline_ms = static_cast<int>(body["deadlineMs"].as_int());
        decision.bank_ms = static_cast<int>(body["bankMs"].as_int());
        Observation observation = wire::observation(body["observation"], rules);
        // decide() is never asked about an empty list (a referee only asks with moves to make)
        Choice choice = observation.legal_moves.empty() ? Choice::index(0) : bot.decide(observation, decision);
        out << wire::action_line(decision.id, choice, observation.legal_moves) << '\n' << std::flush;
      } else if (kind == "events") {
        std::vector<Event> events;
        for (const json::Value& e : body["events"].items()) events.push_back(wire::event(e));
        bot.on_events(static_cast<int>(body["gameNumber"].as_int(game)), events);
      } else if (kind == "result") {
        ActionResult result = wire::result(body);
        if (result.fault != Fault::None || !result.error.empty())
          log << options.name << ": the referee says about decision " << result.decision_id << ": "
              << body["fault"].as_string() << ": " << result.error << '\n';
        bot.on_result(result);
      } else if (kind == "welcome") {
        Welcome welcome = wire::welcome(body);
        rules = welcome.rules;
        bot.on_welcome(welcome);
      } else if (kind == "gameStart") {
        game = static_cast<int>(body["gameNumber"].as_int());
        bot.on_game_start(game, wire::observation(body["observation"], rules));
      } else if (kind == "gameOver") {
        bot.on_game_over(static_cast<int>(body["gameNumber"].as_int(game)), wire::outcome(body["outcome"]));
      } else if (kind == "matchOver") {
        MatchResult result = wire::match_over(body);
        bot.on_match_over(result);
        return result;
      } else if (kind == "refusal") {
        throw RefereeError(body["code"].as_string(), body["message"].as_string());
      }
      // any other message is one this SDK does not know yet: skipped
    } catch (const json::ParseError& error) {
      log << options.name << ": a " << kind << " message it cannot read (" << error.what() << ")\n";
    }
  }
  throw SessionError("the referee closed the connection before the match was over");
}

namespace {

std::string read_token() {
  if (const char* token = std::getenv("SPITE_TOKEN"); token && *token) return token;
  const char* path = std::getenv("SPITE_TOKEN_FILE");
  if (!path || !*path) return "";  // on stdio the pipes say which seat this is
  std::ifstream file(path);
  std::string token;
  std::getline(file, token);
  return trim(token);
}

class FunctionBot : public Bot {
 public:
  explicit FunctionBot(std::function<Choice(const Observation&, const Decision&)> f) : f_(std::move(f)) {}
  Choice decide(const Observation& o, const Decision& d) override { return f_(o, d); }

 private:
  std::function<Choice(const Observation&, const Decision&)> f_;
};

}  // namespace

int run(Bot& bot, const Options& options) {
  const char* format = std::getenv("SPITE_STDIO");
  if (format && *format && std::string(format) != "json") {
    std::cerr << options.name << ": SPITE_STDIO=" << format
              << ": the C++ SDK speaks the stdio transport as JSON lines only (stdio_format = \"json\" in bot.toml)\n";
    return 2;
  }
  std::ios::sync_with_stdio(false);
  try {
    play_match(bot, options, std::cin, std::cout, std::cerr, read_token());
    return 0;
  } catch (const RefereeError& error) {
    std::cerr << options.name << ": the referee refused the bot: " << error.what() << '\n';
  } catch (const std::exception& error) {
    std::cerr << options.name << ": stopped: " << error.what() << '\n';
  }
  return 1;
}

int run(std::function<Choice(const Observation&, const Decision&)> decide, const Options& options) {
  FunctionBot bot(std::move(decide));
  return run(bot, options);
}

// ---- Policies ----------------------------------------------------------------------

namespace policies {

namespace {

/// How well discarding ``card`` on ``pile`` fits, lower is better: an empty pile (the
/// lowest-numbered), then a top at or above the card (the closest), then one below it.
std::pair<int, int> discard_fit(const Pile* pile, Card card, int target) {
  if (!pile || pile->empty()) return {0, target};
  int gap = pile->back() - card;
  return {gap >= 0 ? 1 : 2, std::abs(gap) * 10 + target};
}

}  // namespace

Move greedy(const Observation& obs) {
  const std::vector<Move>& moves = obs.legal_moves;
  if (moves.empty()) return Move::pass();
  const RuleSet& rules = obs.rules;
  for (const Move& m : moves)
    if (m.kind == MoveKind::Play && m.source == Source::Stock) return m;
  for (Source source : {Source::Hand, Source::DiscardPile})
    for (const Move& m : moves)
      if (m.kind == MoveKind::Play && m.source == source && !rules.is_wild(m.card)) return m;
  // the card to discard: the highest natural one, else the highest wild one
  Card natural = -1, any = -1;
  for (const Move& m : moves) {
    if (m.kind != MoveKind::Discard) continue;
    any = std::max(any, m.card);
    if (!rules.is_wild(m.card)) natural = std::max(natural, m.card);
  }
  Card card = natural >= 0 ? natural : any;
  if (card >= 0) {
    const std::vector<Pile>& piles = obs.my_discard_piles();
    const Move* best = nullptr;
    std::pair<int, int> best_fit;
    for (const Move& m : moves) {
      if (m.kind != MoveKind::Discard || m.card != card) continue;
      const Pile* pile = static_cast<std::size_t>(m.target) < piles.size() ? &piles[m.target] : nullptr;
      auto fit = discard_fit(pile, card, m.target);
      if (!best || fit < best_fit) best = &m, best_fit = fit;  // the first of equal fits, as Python's min
    }
    return *best;
  }
  for (const Move& m : moves)
    if (m.kind == MoveKind::Play) return m;
  return moves.front();
}

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::size_t SplitMix64::below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

Move random(const Observation& obs, SplitMix64& rng) {
  if (obs.legal_moves.empty()) return Move::pass();
  return obs.legal_moves[rng.below(obs.legal_moves.size())];
}

Move naive(const Observation& obs, SplitMix64& rng) {
  std::vector<Move> plays;
  for (const Move& m : obs.legal_moves)
    if (m.kind == MoveKind::Play) plays.push_back(m);
  return plays.empty() ? random(obs, rng) : plays[rng.below(plays.size())];
}

}  // namespace policies

}  // namespace spite
