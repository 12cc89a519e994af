// Spite Arena C++ SDK: a bot that plays one seat of a Spite and Malice match over the
// referee's stdio transport (docs/protocol.md, "The stdio transport"): one JSON message
// per line on stdin/stdout, stderr for the log. You write decide(): an observation in,
// a move out; run() does the rest (Hello first, every referee message, a clean exit).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace spite {

// ---- Cards and moves -------------------------------------------------------------

/// A card is its rank: 0 the Joker (Skip-Bo's wild), 1 the Ace, 2..10, 11 Jack, 12 Queen, 13 King.
using Card = int;
constexpr Card JOKER = 0, ACE = 1, JACK = 11, QUEEN = 12, KING = 13;

/// ``*``, ``A``, ``2``..``10``, ``J``, ``Q``, ``K``.
std::string card_name(Card card);

enum class MoveKind { Play, Discard, Pass };
enum class Source { Hand, Stock, DiscardPile };

/// One move. ``index`` is the discard pile a card comes from (DiscardPile only);
/// ``target`` is the centre pile of a play, the own discard pile of a discard.
struct Move {
  MoveKind kind = MoveKind::Pass;
  Source source = Source::Hand;
  int index = 0;
  Card card = 0;
  int target = 0;

  static Move play(Source source, Card card, int target, int index = 0) { return {MoveKind::Play, source, index, card, target}; }
  static Move discard(Card card, int target) { return {MoveKind::Discard, Source::Hand, 0, card, target}; }
  static Move pass() { return {}; }

  /// The notation of logs and replays: ``H:7>C0``, ``S:K>C2``, ``D1:Q>C3``, ``H:9>D0``, ``pass``.
  std::string to_string() const;
  /// Reads that notation back (case and spaces around the punctuation do not matter); throws std::invalid_argument.
  static Move parse(std::string_view text);

  friend bool operator==(const Move& a, const Move& b) {
    return a.kind == b.kind && a.source == b.source && a.index == b.index && a.card == b.card && a.target == b.target;
  }
  friend bool operator!=(const Move& a, const Move& b) { return !(a == b); }
};

// ---- What the referee says -------------------------------------------------------

/// The match's rule set (docs/rules.md): the wire RuleSet's fields.
struct RuleSet {
  std::string name;
  int version = 0;
  int players = 2;
  bool partners = false;
  std::string deck;
  int decks = 0, jokers_per_deck = 0;
  bool kings_wild = false;
  int stock_size = 0, hand_size = 0, centre_piles = 0, discard_piles = 0;
  int open_stock = 0;  // how many of a stock's top cards are face up (0: only the top)
  bool no_block = false;
  std::string completed_piles, draw_pile_exhausted;
  bool discard_aces = false;
  std::string scoring;
  int match_points = 0, turn_cap = 0;
  std::vector<Card> wild_ranks;

  bool is_wild(Card card) const;
  /// The number of stocks: one per seat, or one per team with partners.
  int stocks() const { return partners ? 2 : players; }
  /// The stock ``seat`` plays from (its team's with partners).
  int stock_of(int seat) const { return partners ? seat % 2 : seat; }
};

/// A stock: how many cards, and the face-up ones (``visible.front()`` is the playable top).
struct StockView {
  int count = 0;
  std::vector<Card> visible;
  /// The playable card, or -1 for an empty stock.
  Card top() const { return visible.empty() ? -1 : visible.front(); }
};

/// Face-up cards, bottom to top (the top is ``back()``).
using Pile = std::vector<Card>;

enum class EventKind { Unspecified, Deal, Turn, Move, Draw, Reveal, PileCompleted, Shuffle, GameOver };

/// Something that happened, redacted for this seat (another seat's draw shows only a count).
struct Event {
  EventKind kind = EventKind::Unspecified;
  int seat = 0;
  spite::Move move;
  std::vector<Card> cards;
  int count = 0;
  int pile = 0;
};

/// One seat's view at one decision: only what it may see.
struct Observation {
  RuleSet rules;
  int seat = 0, turn = 0, to_move = 0;
  std::vector<Card> hand;                       // sorted by rank
  std::vector<int> hand_sizes;                  // per seat
  std::vector<StockView> stocks;                // per stock (rules.stock_of(seat))
  std::vector<std::vector<Pile>> discard_piles; // per seat, per pile
  std::vector<Pile> centre_piles;
  int draw_pile_count = 0, set_aside_count = 0;
  std::vector<Event> events;                    // since this seat's previous decision
  std::vector<Move> legal_moves;                // in the engine's order; never empty in decide()

  StockView my_stock() const;
  const std::vector<Pile>& my_discard_piles() const;
  /// The rank each centre pile needs next (an Ace for an empty pile).
  std::vector<Card> centre_needs() const;
};

struct TimeControl { int decision_ms = 0, bank_ms = 0, connect_ms = 0; };
enum class Policy { Unspecified, Forfeit, Substitute };

/// The referee accepted the bot: its seat and the match's terms.
struct Welcome {
  int seat = 0;
  RuleSet rules;
  TimeControl time_control;
  int games = 0;
  std::string match_id;
  int protocol_version = 0;
  std::vector<std::string> seat_names;
  Policy policy = Policy::Unspecified;
};

/// The terms of one decision, measured from when its request arrived.
struct Decision {
  std::uint64_t id = 0;
  int game = 0;
  int deadline_ms = 0, bank_ms = 0;
  std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now();

  /// When the decision's own time runs out (an answer after it is taken from the bank).
  std::chrono::steady_clock::time_point deadline() const { return received + std::chrono::milliseconds(deadline_ms); }
  /// The deadline plus the bank: after this the answer is a timeout.
  std::chrono::steady_clock::time_point final_deadline() const { return deadline() + std::chrono::milliseconds(bank_ms); }
  std::chrono::milliseconds remaining() const;
};

enum class Fault { None, Timeout, IllegalMove, Malformed, WrongDecision };

/// The referee's verdict on an action: what it applied, or the fault and why.
struct ActionResult {
  std::uint64_t decision_id = 0;
  std::vector<Move> applied;
  int dropped = 0;
  Fault fault = Fault::None;
  std::string error;
  int strikes = 0;
};

enum class Ending { Unspecified, StockEmptied, Stalemate, TurnCap, DrawPileExhausted, Timeout, IllegalMove,
                    Malformed, Crash, Disconnect, NoShow, Forfeit };

struct Outcome {
  Ending ending = Ending::Unspecified;
  std::string ending_name;  // as the wire says it, e.g. "ENDING_STOCK_EMPTIED"
  std::vector<int> winners;
  std::vector<int> scores;
  std::string reason;
  int offender = 0;  // the seat at fault, -1 for none
};

struct MatchResult {
  std::vector<int> points, wins, winners;
  std::string reason;
};

// ---- What the bot answers ----------------------------------------------------------

/// A move, an index into ``legal_moves`` (negative counts from the end), or a plan of up to
/// 32 moves played in order; any of them may carry a debug note kept in the replay (256 bytes).
class Choice {
 public:
  enum class Kind { Move, Index, Plan };
  Choice(const spite::Move& move) : kind_(Kind::Move), moves_{move} {}  // NOLINT: a move is a choice
  static Choice index(int i) { Choice c; c.kind_ = Kind::Index; c.index_ = i; return c; }
  static Choice plan(std::vector<spite::Move> moves) { Choice c; c.kind_ = Kind::Plan; c.moves_ = std::move(moves); return c; }
  Choice&& with_debug(std::string note) && { debug_ = std::move(note); return std::move(*this); }
  Choice& with_debug(std::string note) & { debug_ = std::move(note); return *this; }

  Kind kind() const { return kind_; }
  int index() const { return index_; }
  const std::vector<spite::Move>& moves() const { return moves_; }
  const std::string& debug() const { return debug_; }

 private:
  Choice() = default;
  Kind kind_ = Kind::Index;
  int index_ = 0;
  std::vector<spite::Move> moves_;
  std::string debug_;
};

/// A bot: decide() and any of the hooks, all called from one thread in the referee's order.
class Bot {
 public:
  virtual ~Bot() = default;
  virtual Choice decide(const Observation& observation, const Decision& decision) = 0;
  virtual void on_welcome(const Welcome&) {}
  /// A game begins: the opening view (no legal moves yet).
  virtual void on_game_start(int /*game*/, const Observation&) {}
  /// Events between decisions (they also arrive in the next observation's events).
  virtual void on_events(int /*game*/, const std::vector<Event>&) {}
  /// The verdict on an action; a fault is also written to stderr.
  virtual void on_result(const ActionResult&) {}
  virtual void on_game_over(int /*game*/, const Outcome&) {}
  /// The match is over; run() returns 0 right after.
  virtual void on_match_over(const MatchResult&) {}
};

struct Options {
  std::string name;
  std::string version;
};

/// The referee refused the bot (a wrong token, a protocol it does not speak).
class RefereeError : public std::runtime_error {
 public:
  RefereeError(std::string code, const std::string& message)
      : std::runtime_error(code + ": " + message), code(std::move(code)) {}
  std::string code;
};

/// The session broke: stdin ended before MatchOver.
class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Plays one match on ``in``/``out`` (the referee's pipes in run(); string streams in tests):
/// sends Hello, answers every DecisionRequest, returns the MatchOver. A line it cannot read is
/// reported on ``log`` and skipped. Throws RefereeError, SessionError, or what decide() throws.
MatchResult play_match(Bot& bot, const Options& options, std::istream& in, std::ostream& out, std::ostream& log,
                       const std::string& token = "");

/// The whole program: reads the token (SPITE_TOKEN, else the file SPITE_TOKEN_FILE names), plays
/// the match on stdin/stdout and returns the exit status: 0 after MatchOver, 1 when the referee
/// refused the bot, the session broke or decide() threw (said on stderr), 2 when SPITE_STDIO
/// asks for a format this SDK does not speak.
int run(Bot& bot, const Options& options);
/// The same with a function for decide().
int run(std::function<Choice(const Observation&, const Decision&)> decide, const Options& options);

/// SPITE_BOT_SEED, for the bot's own randomness (0 when unset).
std::uint64_t bot_seed();

// ---- The wire (the only code that knows its spelling) ------------------------------

namespace json { class Value; }
namespace wire {
RuleSet rules(const json::Value& v);
Move move(const json::Value& v);
Event event(const json::Value& v);
Observation observation(const json::Value& v, const RuleSet& rules);
Welcome welcome(const json::Value& v);
ActionResult result(const json::Value& v);
Outcome outcome(const json::Value& v);
MatchResult match_over(const json::Value& v);
std::string move_json(const Move& m);
std::string hello_line(const Options& options, const std::string& token);
/// The Action line for a choice (an index resolved against ``legal_moves``; debug cut to 256 bytes).
std::string action_line(std::uint64_t decision_id, const Choice& choice, const std::vector<Move>& legal_moves);
}  // namespace wire

// ---- Reference policies ------------------------------------------------------------

namespace policies {
/// Stock first, then natural hand cards, then natural discard tops; else discard the highest
/// non-wild card onto an empty discard pile, else the pile whose top is closest above it (then
/// below); with no discard, play rather than pass. The Python SDK's greedy_move, choice for choice.
Move greedy(const Observation& observation);
/// A small seedable generator (SplitMix64), so that a seed gives the same choices everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  /// Uniform in [0, n); n > 0.
  std::size_t below(std::size_t n);
 private:
  std::uint64_t state_;
};
/// A uniformly random legal move.
Move random(const Observation& observation, SplitMix64& rng);
/// Play any legal card at random; discard only when it must.
Move naive(const Observation& observation, SplitMix64& rng);
}  // namespace policies

}  // namespace spite
