#include "src/scan/preprocessor_branches.h"

#include <algorithm>
#include <cctype>

#include "rocdoc/knowledge.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// `text` without parentheses that enclose all of it: "((a && b))" → "a && b".
std::string_view unwrap(std::string_view text) {
  for (text = util::trim(text); text.size() >= 2 && text.front() == '(' && text.back() == ')';) {
    int depth = 0;
    bool encloses = true;
    for (std::size_t i = 0; i < text.size(); ++i) {
      depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
      if (depth == 0 && i + 1 < text.size()) {
        encloses = false;
        break;
      }
    }
    if (!encloses) {
      break;
    }
    text = util::trim(text.substr(1, text.size() - 2));
  }
  return text;
}

/// The parts of `text` between top-level occurrences of `separator` ("&&", "||").
std::vector<std::string_view> split_top_level(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0 && text.substr(i, separator.size()) == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + separator.size();
      ++i;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

BuildPlatform macro_platform(std::string_view name, const CodePlatformMacros& macros) {
  const auto named = [&](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  return named(macros.rocm)   ? BuildPlatform::rocm
         : named(macros.cuda) ? BuildPlatform::cuda
                              : BuildPlatform::either;
}

/// The branch of NOT `platform`: not ROCm is CUDA (the ROCm macros mark every ROCm build); not
/// CUDA is the host pass or ROCm, either.
BuildPlatform negated(BuildPlatform platform) {
  return platform == BuildPlatform::rocm ? BuildPlatform::cuda : BuildPlatform::either;
}

/// How deep `!` and parentheses are followed: a hostile condition ("!!!!…", "((((…") is judged
/// either build's beyond it instead of recursing without end.
constexpr int k_max_condition_depth = 32;

BuildPlatform expression_platform(std::string_view expression, const CodePlatformMacros& macros,
                                  int depth = 0);

/// One term of a conjunction: defined(X), defined X, X, X >= N, !term, (expression).
BuildPlatform term_platform(std::string_view term, const CodePlatformMacros& macros, int depth) {
  term = unwrap(term);
  if (term.starts_with('!') && !term.starts_with("!=")) {
    return negated(expression_platform(term.substr(1), macros, depth + 1));
  }
  if (term.starts_with("defined")) {
    term = unwrap(term.substr(7));
  }
  std::size_t end = 0;
  while (end < term.size() &&
         (std::isalnum(static_cast<unsigned char>(term[end])) != 0 || term[end] == '_')) {
    ++end;
  }
  if (end == 0) {
    return BuildPlatform::either;  // "(a) b", "1", "": no macro test (unwrap took whole parens)
  }
  const std::string_view rest = util::trim(term.substr(end));
  // `X` alone, or `X` compared with a number (`__CUDA_ARCH__ >= 800` holds in CUDA builds
  // only); `X == 0` and the like are not a test of being defined.
  const bool tested = rest.empty() || rest.starts_with(">") ||
                      (rest.starts_with("!=") && util::trim(rest.substr(2)) == "0");
  return tested ? macro_platform(term.substr(0, end), macros) : BuildPlatform::either;
}

BuildPlatform expression_platform(std::string_view expression, const CodePlatformMacros& macros,
                                  int depth) {
  if (depth > k_max_condition_depth) {
    return BuildPlatform::either;
  }
  expression = unwrap(expression);
  if (split_top_level(expression, "||").size() > 1) {
    return BuildPlatform::either;
  }
  bool rocm = false;
  for (const std::string_view term : split_top_level(expression, "&&")) {
    const BuildPlatform platform = term_platform(term, macros, depth);
    if (platform == BuildPlatform::cuda) {
      return BuildPlatform::cuda;
    }
    rocm = rocm || platform == BuildPlatform::rocm;
  }
  return rocm ? BuildPlatform::rocm : BuildPlatform::either;
}

struct Frame {
  BuildPlatform platform = BuildPlatform::either;       ///< of the branch now open
  BuildPlatform else_platform = BuildPlatform::either;  ///< of an #else that follows
  bool earlier_rocm = false;  ///< an earlier branch of this #if was ROCm's: the rest are CUDA's
  std::string condition;
};

/// The directive of a line ("if", "ifdef", "else") and what follows it; empty when none.
std::pair<std::string_view, std::string_view> directive_of(std::string_view line) {
  line = util::trim(line);
  if (!line.starts_with('#')) {
    return {};
  }
  line = util::trim(line.substr(1));
  std::size_t end = 0;
  while (end < line.size() && std::isalpha(static_cast<unsigned char>(line[end])) != 0) {
    ++end;
  }
  return {line.substr(0, end), util::trim(line.substr(end))};
}

BuildPlatform condition_platform_of(std::string_view directive, std::string_view condition,
                                    const CodePlatformMacros& macros);

/// The platform of the #else of a lone #if/#ifdef/#ifndef: the else of `#ifndef USE_ROCM` is
/// ROCm's, the else of `#ifdef USE_ROCM` CUDA's, the else of `#ifdef __CUDA_ARCH__` either.
BuildPlatform else_platform(std::string_view directive, std::string_view condition,
                            const CodePlatformMacros& macros) {
  if (directive == "ifndef") {
    return macro_platform(util::trim(condition), macros);
  }
  if (directive == "if") {
    const std::string_view expression = unwrap(condition);
    if (expression.starts_with('!') && split_top_level(expression, "&&").size() == 1 &&
        split_top_level(expression, "||").size() == 1) {
      return expression_platform(expression.substr(1), macros);
    }
  }
  return negated(condition_platform_of(directive, condition, macros));
}

}  // namespace

BuildPlatform condition_platform(std::string_view directive, std::string_view condition,
                                 const CodePlatformMacros& macros) {
  return condition_platform_of(directive, condition, macros);
}

namespace {

BuildPlatform condition_platform_of(std::string_view directive, std::string_view condition,
                                    const CodePlatformMacros& macros) {
  if (directive == "ifdef" || directive == "elifdef") {
    return macro_platform(util::trim(condition), macros);
  }
  if (directive == "ifndef" || directive == "elifndef") {
    return negated(macro_platform(util::trim(condition), macros));
  }
  return expression_platform(condition, macros);
}

}  // namespace

std::vector<BranchState> branch_states(std::string_view code, const CodePlatformMacros& macros,
                                       const std::vector<std::size_t>& lines) {
  constexpr std::size_t k_max_depth = 64;
  constexpr std::size_t k_max_condition = 200;
  constexpr std::size_t k_max_conditions = 1024;
  std::vector<Frame> frames;
  std::size_t unjudged = 0;  // branches opened deeper than k_max_depth, still open
  const auto state_of = [&](std::size_t depth) {
    BranchState state;
    for (std::size_t i = 0; i < depth; ++i) {
      state.cuda_only = state.cuda_only || frames[i].platform == BuildPlatform::cuda;
      state.rocm_only = state.rocm_only || frames[i].platform == BuildPlatform::rocm;
      if (state.conditions.size() < k_max_conditions) {
        state.conditions += (i == 0 ? "" : "; ") + frames[i].condition;
      }
    }
    return state;
  };
  std::vector<BranchState> states;
  states.reserve(lines.size());
  auto wanted = lines.begin();
  std::size_t line = 1;
  std::size_t start = 0;
  while (wanted != lines.end() && start <= code.size()) {
    // A logical line: physical lines joined by a trailing backslash.
    std::size_t end = start;
    std::size_t count = 0;
    std::string joined;
    while (true) {
      const std::size_t newline = code.find('\n', end);
      const std::size_t stop = newline == std::string_view::npos ? code.size() : newline;
      std::string_view physical = code.substr(end, stop - end);
      ++count;
      if (!physical.empty() && physical.back() == '\r') {
        physical.remove_suffix(1);
      }
      const bool continued =
          !physical.empty() && physical.back() == '\\' && newline != std::string_view::npos;
      if (joined.size() < 4096) {
        joined.append(physical.substr(0, physical.size() - (continued ? 1 : 0)));
      }
      end = stop + 1;
      if (!continued) {
        break;
      }
    }
    const auto [directive, rest] = directive_of(joined);
    const std::string condition =
        "#" + std::string(directive) + " " + std::string(rest.substr(0, k_max_condition));
    std::size_t depth_of_line = frames.size();
    bool directive_in_cuda = false;
    if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
      if (frames.size() < k_max_depth && unjudged == 0) {
        const BuildPlatform platform = condition_platform(directive, rest, macros);
        frames.push_back({platform, else_platform(directive, rest, macros),
                          platform == BuildPlatform::rocm, condition});
      } else {
        ++unjudged;
      }
    } else if ((directive == "elif" || directive == "elifdef" || directive == "elifndef" ||
                directive == "else") &&
               !frames.empty() && unjudged == 0) {
      depth_of_line = frames.size() - 1;
      Frame& frame = frames.back();
      // An #elif or #else after a ROCm branch is judged where only CUDA builds get.
      directive_in_cuda = frame.earlier_rocm;
      const BuildPlatform platform = frame.earlier_rocm ? BuildPlatform::cuda
                                     : directive == "else"
                                         ? frame.else_platform
                                         : condition_platform(directive, rest, macros);
      frame.earlier_rocm = frame.earlier_rocm || platform == BuildPlatform::rocm;
      frame.else_platform = BuildPlatform::either;  // after an #elif: not judged
      frame.platform = platform;
      if (frame.condition.size() < k_max_condition * 4) {
        frame.condition += "; " + condition;
      }
    } else if (directive == "endif") {
      if (unjudged > 0) {
        --unjudged;
      } else if (!frames.empty()) {
        frames.pop_back();
      }
      depth_of_line = frames.size();
    }
    for (std::size_t i = 0; i < count; ++i, ++line) {
      while (wanted != lines.end() && *wanted == line) {
        states.push_back(state_of(depth_of_line));
        states.back().cuda_only = states.back().cuda_only || (i == 0 && directive_in_cuda);
        ++wanted;
      }
    }
    start = end;
  }
  while (states.size() < lines.size()) {
    states.emplace_back();  // lines past the end of the text
  }
  return states;
}

}  // namespace rocdoc
