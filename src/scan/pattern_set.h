// Many regular expressions matched over a file in one pass (RE2::Set: a DFA over all of them,
// linear in the text whatever the patterns or the input), then each pattern that occurs is run
// alone to say where. Patterns never match across a line end: the scan's findings are lines.
// RE2 because it is Debian's on every architecture (Debian 11's for the release binary too),
// links statically in about a megabyte, and never backtracks.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace rocdoc {

struct PatternMatch {
  std::size_t pattern = 0;  ///< index into the compiled list
  std::size_t offset = 0;   ///< byte offset of the match in the text
  std::size_t length = 0;
};

/// 1-based line and column (in bytes) of a byte offset.
struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};
TextPosition position_of(std::string_view text, std::size_t offset);

class PatternSet {
 public:
  /// Compiles RE2 patterns, each in multi-line mode (^ and $ at every line's start and end);
  /// `error` names the first that does not compile, or says the set is too large.
  struct Compiled;
  static Compiled compile(const std::vector<std::string>& patterns);

  PatternSet(PatternSet&&) noexcept;
  PatternSet& operator=(PatternSet&&) noexcept;
  ~PatternSet();

  /// Every match of every pattern, ordered by offset then pattern; at most `max_matches`.
  /// `complete` is false when the one-pass matcher ran out of memory on this text (the scan
  /// says so instead of reporting nothing) or the limit was reached.
  struct Matches {
    std::vector<PatternMatch> matches;
    bool complete = true;
  };
  Matches find_all(std::string_view text, std::size_t max_matches = 10000) const;

  /// The patterns that occur in `text` (one pass, no positions), ascending. When the one-pass
  /// matcher runs out of memory on the text, every pattern is listed: each is then run alone.
  std::vector<std::size_t> present(std::string_view text) const;
  /// Every match of the patterns `which` (indexes, ascending), as find_all orders them.
  Matches locate(std::string_view text, const std::vector<std::size_t>& which,
                 std::size_t max_matches = 10000) const;

  std::size_t size() const;

 private:
  struct State;
  explicit PatternSet(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

struct PatternSet::Compiled {
  std::unique_ptr<PatternSet> set;  ///< null when `error` is set
  std::string error;
};

}  // namespace rocdoc
