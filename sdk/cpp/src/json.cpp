#include "spite/json.hpp"

#include <cerrno>
#include <cstdlib>

namespace spite::json {

namespace {

const Value kNull;
const std::vector<Value> kNoItems;
const std::string kEmpty;
constexpr int kMaxDepth = 64;  // the referee's messages nest five deep; a line is at most 64 KiB

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Value document() {
    Value v = value(0);
    skip_space();
    if (pos_ != text_.size()) fail("text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ParseError("not JSON: " + what + " at byte " + std::to_string(pos_));
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r'))
      ++pos_;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void expect(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail("expected " + std::string(word));
    pos_ += word.size();
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("nested too deep");
    skip_space();
    switch (peek()) {
      case '{': return object(depth);
      case '[': return array(depth);
      case '"': return Value::string(string());
      case 't': expect("true"); return Value::boolean(true);
      case 'f': expect("false"); return Value::boolean(false);
      case 'n': expect("null"); return Value();
      default: return number();
    }
  }

  Value object(int depth) {
    Value v = Value::object();
    ++pos_;
    skip_space();
    if (peek() == '}') { ++pos_; return v; }
    for (;;) {
      skip_space();
      if (peek() != '"') fail("expected a member name");
      std::string key = string();
      skip_space();
      if (peek() != ':') fail("expected ':'");
      ++pos_;
      v.set(std::move(key), value(depth + 1));
      skip_space();
      if (peek() == ',') { ++pos_; continue; }
      if (peek() == '}') { ++pos_; return v; }
      fail("expected ',' or '}'");
    }
  }

  Value array(int depth) {
    Value v = Value::array();
    ++pos_;
    skip_space();
    if (peek() == ']') { ++pos_; return v; }
    for (;;) {
      v.push_back(value(depth + 1));
      skip_space();
      if (peek() == ',') { ++pos_; continue; }
      if (peek() == ']') { ++pos_; return v; }
      fail("expected ',' or ']'");
    }
  }

  Value number() {
    std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    auto digits = [this] {
      std::size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ > from;
    };
    if (!digits()) fail("expected a value");
    if (peek() == '.') { ++pos_; if (!digits()) fail("expected digits after '.'"); }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!digits()) fail("expected an exponent");
    }
    return Value::number(std::string(text_.substr(start, pos_ - start)));
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("a short \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      code <<= 4;
      if (c >= '0' && c <= '9') code |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') code |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') code |= unsigned(c - 'A' + 10);
      else fail("a bad \\u escape");
    }
    return code;
  }

  static void utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xC0 | (code >> 6));
      out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += char(0xE0 | (code >> 12));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    } else {
      out += char(0xF0 | (code >> 18));
      out += char(0x80 | ((code >> 12) & 0x3F));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    }
  }

  std::string string() {
    ++pos_;  // the opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("an unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("a control character in a string");
      if (c != '\\') { out += c; continue; }
      if (pos_ >= text_.size()) fail("an unterminated escape");
      char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            unsigned low = hex4();
            if (low >= 0xDC00 && low < 0xE000) code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            else { utf8(out, 0xFFFD); code = low; }
          }
          if (code >= 0xD800 && code < 0xE000) code = 0xFFFD;  // a lone surrogate
          utf8(out, code);
          break;
        }
        default: fail("a bad escape");
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

Value Value::boolean(bool b) { Value v; v.type_ = Type::Bool; v.bool_ = b; return v; }
Value Value::number(std::string text) { Value v; v.type_ = Type::Number; v.text_ = std::move(text); return v; }
Value Value::string(std::string text) { Value v; v.type_ = Type::String; v.text_ = std::move(text); return v; }
Value Value::array() { Value v; v.type_ = Type::Array; return v; }
Value Value::object() { Value v; v.type_ = Type::Object; return v; }

const Value* Value::find(std::string_view key) const {
  if (type_ != Type::Object) return nullptr;
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) return &items_[i];
  return nullptr;
}

const Value& Value::operator[](std::string_view key) const {
  const Value* v = find(key);
  return v ? *v : kNull;
}

const std::vector<Value>& Value::items() const {
  if (type_ == Type::Array) return items_;
  if (type_ == Type::Null) return kNoItems;
  throw ParseError("expected an array");
}

std::int64_t Value::as_int(std::int64_t fallback) const {
  if (type_ == Type::Null) return fallback;
  if (type_ != Type::Number && type_ != Type::String) throw ParseError("expected an integer");
  errno = 0;
  char* end = nullptr;
  long long n = std::strtoll(text_.c_str(), &end, 10);
  if (text_.empty() || errno != 0 || *end != '\0') {
    // protobuf's JSON writes integers as integers, but a reader must take 3.0 or 3e0 too
    double d = std::strtod(text_.c_str(), &end);
    if (text_.empty() || *end != '\0' || d != static_cast<double>(static_cast<long long>(d)))
      throw ParseError("expected an integer, got " + text_.substr(0, 40));
    return static_cast<long long>(d);
  }
  return n;
}

std::uint64_t Value::as_uint64(std::uint64_t fallback) const {
  if (type_ == Type::Null) return fallback;
  if (type_ != Type::Number && type_ != Type::String) throw ParseError("expected an integer");
  errno = 0;
  char* end = nullptr;
  if (text_.empty() || text_[0] == '-') throw ParseError("expected an unsigned integer, got " + text_.substr(0, 40));
  unsigned long long n = std::strtoull(text_.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') throw ParseError("expected an unsigned integer, got " + text_.substr(0, 40));
  return n;
}

bool Value::as_bool(bool fallback) const {
  if (type_ == Type::Null) return fallback;
  if (type_ != Type::Bool) throw ParseError("expected true or false");
  return bool_;
}

const std::string& Value::as_string() const {
  if (type_ == Type::Null) return kEmpty;
  if (type_ != Type::String) throw ParseError("expected a string");
  return text_;
}

void Value::push_back(Value v) { items_.push_back(std::move(v)); }

void Value::set(std::string key, Value v) {
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) { items_[i] = std::move(v); return; }
  keys_.push_back(std::move(key));
  items_.push_back(std::move(v));
}

Value parse(std::string_view text) { return Parser(text).document(); }

std::string quote(std::string_view text) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20) { out += "\\u00"; out += hex[u >> 4]; out += hex[u & 15]; }
    else out += c;
  }
  return out + "\"";
}

}  // namespace spite::json
