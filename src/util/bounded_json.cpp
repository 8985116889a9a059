#include "src/util/bounded_json.h"

#include "src/util/strings.h"

namespace rocdoc::util {

namespace {

using nlohmann::json;

/// Counts values and depth, and keeps nothing: the pass that decides whether the document
/// may be built.
class LimitCounter {
 public:
  explicit LimitCounter(const JsonLimits& limits) : m_limits(limits) {}

  bool null() { return value(); }
  bool boolean(bool /*unused*/) { return value(); }
  bool number_integer(json::number_integer_t /*unused*/) { return value(); }
  bool number_unsigned(json::number_unsigned_t /*unused*/) { return value(); }
  bool number_float(json::number_float_t /*unused*/, const json::string_t& /*unused*/) {
    return value();
  }
  bool string(json::string_t& /*unused*/) { return value(); }
  bool binary(json::binary_t& /*unused*/) { return value(); }
  bool key(json::string_t& /*unused*/) { return true; }
  bool start_object(std::size_t /*unused*/) { return open(); }
  bool start_array(std::size_t /*unused*/) { return open(); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& error) {
    m_refused = JsonRefusal::not_json;
    m_syntax_error = shortened(error.what());
    return false;
  }

  JsonRefusal refused() const { return m_refused; }
  std::string syntax_error() const { return m_syntax_error; }

 private:
  bool value() {
    if (++m_values > m_limits.max_values) {
      m_refused = JsonRefusal::too_many_values;
      return false;
    }
    return true;
  }
  bool open() {
    if (++m_depth > m_limits.max_depth) {
      m_refused = JsonRefusal::too_deep;
      return false;
    }
    return value();
  }
  bool close() {
    --m_depth;
    return true;
  }

  /// nlohmann quotes the last token it read, which may be megabytes of hostile input.
  static std::string shortened(std::string what) {
    constexpr std::string_view k_last_read = "; last read: ";
    const auto at = what.find(k_last_read);
    if (at == std::string::npos) {
      return what;
    }
    return what.substr(0, at) + std::string(k_last_read) +
           excerpt(std::string_view(what).substr(at + k_last_read.size()), 40);
  }

  const JsonLimits& m_limits;
  std::size_t m_values = 0;
  std::size_t m_depth = 0;
  JsonRefusal m_refused = JsonRefusal::none;
  std::string m_syntax_error;
};

}  // namespace

BoundedJson parse_json_bounded(std::string_view text, const JsonLimits& limits) {
  BoundedJson result;
  LimitCounter counter(limits);
  if (!json::sax_parse(text, &counter) || counter.refused() != JsonRefusal::none) {
    result.refused =
        counter.refused() == JsonRefusal::none ? JsonRefusal::not_json : counter.refused();
    result.syntax_error = counter.syntax_error();
    return result;
  }
  // The same parser accepted the same text just now, so this cannot fail; allow_exceptions
  // off keeps that a discarded value rather than an exception if it ever did.
  result.value = json::parse(text, nullptr, false);
  if (result.value.is_discarded()) {
    result.value = nullptr;
    result.refused = JsonRefusal::not_json;
  }
  return result;
}

}  // namespace rocdoc::util
