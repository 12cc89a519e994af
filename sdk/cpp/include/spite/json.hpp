// A small JSON reader and writer: exactly what the referee's stdio transport needs
// (protobuf's canonical JSON mapping, one message per line), with no dependency.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace spite::json {

/// A line that is not JSON, or a value of the wrong type where the protocol needs another.
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One JSON value. Objects keep their members in order; lookups are linear (the
/// protocol's objects have a handful of members).
class Value {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };

  Value() = default;
  static Value boolean(bool b);
  static Value number(std::string text);
  static Value string(std::string text);
  static Value array();
  static Value object();

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::Null; }
  bool is_object() const { return type_ == Type::Object; }
  bool is_array() const { return type_ == Type::Array; }

  /// The member ``key`` of an object, or nullptr (also for a value that is not an object).
  const Value* find(std::string_view key) const;
  /// The member ``key``, or a null value when it is missing: proto3 JSON leaves defaults out.
  const Value& operator[](std::string_view key) const;
  /// An array's elements (empty for null: a missing repeated field).
  const std::vector<Value>& items() const;
  /// An object's member names, in order.
  const std::vector<std::string>& keys() const { return keys_; }

  /// An integer: a JSON number, or a string of digits (64-bit fields are strings); null is ``fallback``.
  std::int64_t as_int(std::int64_t fallback = 0) const;
  std::uint64_t as_uint64(std::uint64_t fallback = 0) const;
  bool as_bool(bool fallback = false) const;
  /// A string; null is ``fallback``.
  const std::string& as_string() const;

  void push_back(Value v);
  void set(std::string key, Value v);

 private:
  Type type_ = Type::Null;
  bool bool_ = false;
  std::string text_;  // a string's contents, or a number's digits as written
  std::vector<Value> items_;
  std::vector<std::string> keys_;  // objects: keys_[i] names items_[i]
};

/// Parses one JSON text (surrounding whitespace allowed); throws ParseError.
Value parse(std::string_view text);

/// ``text`` as a JSON string literal, quotes included.
std::string quote(std::string_view text);

}  // namespace spite::json
