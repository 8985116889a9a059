// Triage's one pass (issue 27 §4): every literal a line can be read for (the signatures' match
// strings and the words the fact readers look for), found in one search over the whole log;
// only the lines where one occurs are read, and on such a line one more search says which
// literals it holds. RE2 for the reason the scan uses it (src/scan/pattern_set.h): a DFA over
// all literals, linear in the text, no backtracking.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace rocdoc {

class LiteralSearch {
 public:
  /// The literals, compared without regard to ASCII case; none may be empty.
  explicit LiteralSearch(const std::vector<std::string>& literals);
  ~LiteralSearch();
  LiteralSearch(const LiteralSearch&) = delete;
  LiteralSearch& operator=(const LiteralSearch&) = delete;

  /// The offset in `text` of the first occurrence at or after `from` of any literal; nullopt
  /// when none occurs.
  std::optional<std::size_t> next(std::string_view text, std::size_t from) const;

  /// The indexes (into the literals as given) of every literal `line` holds, in any order.
  void which(std::string_view line, std::vector<int>& found) const;

 private:
  struct Engines;
  std::unique_ptr<Engines> engines_;
};

}  // namespace rocdoc
