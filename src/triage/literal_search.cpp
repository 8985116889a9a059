#include "src/triage/literal_search.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <numeric>

namespace rocdoc {

namespace {

re2::RE2::Options options() {
  re2::RE2::Options options;
  options.set_encoding(re2::RE2::Options::EncodingLatin1);  // bytes: a log need not be UTF-8
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  options.set_never_capture(true);
  options.set_max_mem(std::int64_t{64} << 20);  // DFAs over some hundred literals
  return options;
}

std::string alternation(const std::vector<std::string>& literals) {
  std::string pattern;
  for (const auto& literal : literals) {
    pattern += (pattern.empty() ? "" : "|") + re2::RE2::QuoteMeta(literal);
  }
  return pattern.empty() ? std::string("[^\\x00-\\xff]") : pattern;  // nothing matches
}

}  // namespace

struct LiteralSearch::Engines {
  re2::RE2 any;
  re2::RE2::Set each{options(), re2::RE2::UNANCHORED};
  bool ok = true;
  std::size_t count = 0;

  explicit Engines(const std::vector<std::string>& literals)
      : any(alternation(literals), options()), count(literals.size()) {
    for (const auto& literal : literals) {
      ok = ok && each.Add(re2::RE2::QuoteMeta(literal), nullptr) >= 0;
    }
    ok = ok && any.ok() && each.Compile();
  }
};

LiteralSearch::LiteralSearch(const std::vector<std::string>& literals)
    : engines_(std::make_unique<Engines>(literals)) {}

LiteralSearch::~LiteralSearch() = default;

std::optional<std::size_t> LiteralSearch::next(std::string_view text, std::size_t from) const {
  if (from >= text.size()) {
    return std::nullopt;
  }
  if (!engines_->ok) {
    return from;  // never expected; then every line is read, as without the search
  }
  re2::StringPiece found;
  const re2::StringPiece whole(text.data(), text.size());
  if (!engines_->any.Match(whole, from, whole.size(), re2::RE2::UNANCHORED, &found, 1)) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(found.data() - text.data());
}

void LiteralSearch::which(std::string_view line, std::vector<int>& found) const {
  found.clear();
  if (!engines_->ok) {  // every literal may be there: the caller compares each
    found.resize(engines_->count);
    std::iota(found.begin(), found.end(), 0);
    return;
  }
  engines_->each.Match(re2::StringPiece(line.data(), line.size()), &found);
}

}  // namespace rocdoc
