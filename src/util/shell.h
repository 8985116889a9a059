// Shell quoting for fix commands that users copy and paste.
#pragma once

#include <string>
#include <string_view>

namespace rocdoc::util {

/// Single-quotes a word for POSIX shells: alice → 'alice', it's → 'it'\''s'.
std::string shell_quote(std::string_view word);

/// True when `word` is non-empty and made only of characters that no POSIX shell treats
/// specially anywhere in a word: letters, digits and _ @ % + = : , . / -.
bool is_shell_safe(std::string_view word);

/// `word` as it is when is_shell_safe(word), else shell_quote(word): 6.2.4 → 6.2.4,
/// a b → 'a b'.
std::string shell_word(std::string_view word);

/// True when `name` can name a shell variable: a letter or _, then letters, digits and _.
bool is_shell_name(std::string_view name);

}  // namespace rocdoc::util
