#include "src/scan/pattern_set.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

namespace rocdoc {

namespace {

RE2::Options line_options() {
  RE2::Options options;
  options.set_never_nl(true);     // a match never spans two lines
  options.set_log_errors(false);  // errors are returned, never printed
  options.set_max_mem(64 << 20);
  return options;
}

}  // namespace

struct PatternSet::State {
  RE2::Set set{line_options(), RE2::UNANCHORED};
  std::vector<std::unique_ptr<RE2>> each;
};

TextPosition position_of(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const auto last_newline = before.rfind('\n');
  return {static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1,
          last_newline == std::string_view::npos ? offset + 1 : offset - last_newline};
}

PatternSet::PatternSet(std::unique_ptr<State> state) : m_state(std::move(state)) {}
PatternSet::PatternSet(PatternSet&&) noexcept = default;
PatternSet& PatternSet::operator=(PatternSet&&) noexcept = default;
PatternSet::~PatternSet() = default;

std::size_t PatternSet::size() const { return m_state->each.size(); }

PatternSet::Compiled PatternSet::compile(const std::vector<std::string>& patterns) {
  auto state = std::make_unique<State>();
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    // ^ and $ are a line's start and end: each pattern is one line's.
    const std::string multi_line = "(?m)" + patterns[i];
    auto alone = std::make_unique<RE2>(multi_line, line_options());
    if (!alone->ok()) {
      return {nullptr,
              "pattern " + std::to_string(i + 1) + " (" + patterns[i] + "): " + alone->error()};
    }
    std::string error;
    if (state->set.Add(multi_line, &error) != static_cast<int>(i)) {
      return {nullptr, "pattern " + std::to_string(i + 1) + " (" + patterns[i] + "): " + error};
    }
    state->each.push_back(std::move(alone));
  }
  if (!state->set.Compile()) {
    return {nullptr, "the patterns together are too large to compile"};
  }
  return {std::unique_ptr<PatternSet>(new PatternSet(std::move(state))), ""};
}

std::vector<std::size_t> PatternSet::present(std::string_view text) const {
  std::vector<int> found;
  RE2::Set::ErrorInfo error{};
  const re2::StringPiece piece(text.data(), text.size());
  std::vector<std::size_t> result;
  if (!m_state->set.Match(piece, &found, &error)) {
    if (error.kind != RE2::Set::kNoError) {
      // The one pass ran out of memory: every pattern is run alone instead.
      for (std::size_t i = 0; i < m_state->each.size(); ++i) {
        result.push_back(i);
      }
    }
    return result;
  }
  for (const int index : found) {
    result.push_back(static_cast<std::size_t>(index));
  }
  std::sort(result.begin(), result.end());
  return result;
}

PatternSet::Matches PatternSet::locate(std::string_view text, const std::vector<std::size_t>& which,
                                       std::size_t max_matches) const {
  Matches result;
  const re2::StringPiece piece(text.data(), text.size());
  for (const std::size_t index : which) {
    if (index >= m_state->each.size()) {
      continue;
    }
    const RE2& pattern = *m_state->each[index];
    std::size_t at = 0;
    re2::StringPiece found;
    while (at <= text.size() && pattern.Match(piece, at, text.size(), RE2::UNANCHORED, &found, 1)) {
      if (result.matches.size() == max_matches) {
        result.complete = false;
        break;
      }
      const auto offset = static_cast<std::size_t>(found.data() - text.data());
      result.matches.push_back({index, offset, found.size()});
      at = offset + std::max<std::size_t>(found.size(), 1);
    }
  }
  std::sort(result.matches.begin(), result.matches.end(),
            [](const PatternMatch& a, const PatternMatch& b) {
              return a.offset != b.offset ? a.offset < b.offset : a.pattern < b.pattern;
            });
  return result;
}

PatternSet::Matches PatternSet::find_all(std::string_view text, std::size_t max_matches) const {
  return locate(text, present(text), max_matches);
}

}  // namespace rocdoc
