#include "src/util/shell.h"

namespace rocdoc::util {

namespace {

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string shell_quote(std::string_view word) {
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

bool is_shell_safe(std::string_view word) {
  constexpr std::string_view k_punctuation = "_@%+=:,./-";
  if (word.empty()) {
    return false;
  }
  for (const char c : word) {
    if (!is_ascii_letter(c) && !is_ascii_digit(c) &&
        k_punctuation.find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

std::string shell_word(std::string_view word) {
  return is_shell_safe(word) ? std::string(word) : shell_quote(word);
}

bool is_shell_name(std::string_view name) {
  if (name.empty() || is_ascii_digit(name.front())) {
    return false;
  }
  for (const char c : name) {
    if (!is_ascii_letter(c) && !is_ascii_digit(c) && c != '_') {
      return false;
    }
  }
  return true;
}

}  // namespace rocdoc::util
