// Shell quoting for fix commands that users copy and paste.
#pragma once

#include <string>
#include <string_view>

namespace rocdoc::util {

/// Single-quotes a word for POSIX shells: alice → 'alice', it's → 'it'\''s'.
std::string shell_quote(std::string_view word);

}  // namespace rocdoc::util
