#include "src/commands/arguments.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "rocdoc/check.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// "perm" for "perm.kfd": what --only torch.* selects by.
std::string_view id_area(std::string_view id) { return id.substr(0, id.find('.')); }

/// The areas of the check ids, sorted: "arch", "driver", ….
std::vector<std::string> check_areas() {
  std::set<std::string> areas;
  for (const auto& check : check_table()) {
    areas.emplace(id_area(check.id));
  }
  return {areas.begin(), areas.end()};
}

}  // namespace

/// The candidate closest to `word` (at most 3 edits, and fewer than its length), or "". Of
/// two as close, the one that starts with the same letter ("trch": torch, not arch).
std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::min<std::size_t>(4, word.size());
  const auto same_start = [&](std::string_view candidate) {
    return !word.empty() && !candidate.empty() && word.front() == candidate.front();
  };
  for (const auto& candidate : candidates) {
    const std::size_t distance = util::edit_distance(word, candidate);
    if (distance < best_distance || (distance == best_distance && !best.empty() &&
                                     same_start(candidate) && !same_start(best))) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

namespace {

std::string did_you_mean(std::string_view id) {
  std::vector<std::string> ids;
  for (const auto& check : check_table()) {
    ids.emplace_back(check.id);
  }
  const auto areas = check_areas();
  if (std::find(areas.begin(), areas.end(), id) != areas.end()) {
    return "; did you mean " + std::string(id) + ".* (every " + std::string(id) + " check)?";
  }
  const std::string best = closest(id, ids);
  return best.empty() ? "; `rocdoc list-checks` lists them" : "; did you mean " + best + "?";
}

/// The most --timeout accepts: a runtime that needs longer than this to start is hung.
constexpr double k_max_deep_timeout = 600;

}  // namespace

/// "a,b" and repeated flags both work; "torch.*" is every check whose id starts "torch.", and a
/// report heading ("Kernel driver") every check the report files under it.
std::set<std::string> check_ids(const std::vector<std::string>& values, std::string_view flag,
                                std::ostream& err, bool& ok) {
  std::set<std::string> ids;
  for (const auto& value : values) {
    for (const auto part : util::split(value, ',')) {
      const std::string id(util::trim(part));
      if (id.empty()) {
        continue;
      }
      if (id.size() > 2 && id.substr(id.size() - 2) == ".*") {
        const std::string area = id.substr(0, id.size() - 2);
        const auto areas = check_areas();
        if (std::find(areas.begin(), areas.end(), area) == areas.end()) {
          const std::string best = closest(area, areas);
          err << fmt::format("rocdoc: check {}: unknown area '{}'{}\n", flag, util::printable(id),
                             best.empty() ? "; the areas are " + util::join(areas, ".*, ") + ".*"
                                          : "; did you mean " + best + ".*?");
          ok = false;
          continue;
        }
        for (const auto& check : check_table()) {
          if (id_area(check.id) == area) {
            ids.emplace(check.id);
          }
        }
        continue;
      }
      // A heading of the report ("Kernel driver", any case) is every check filed under it:
      // the report files some checks under another area than their id's prefix (rocm.agents
      // under Kernel driver), so AREA.* alone cannot select what a heading shows (N30).
      bool heading = false;
      for (const auto& check : check_table()) {
        if (util::to_lower(check.area) == util::to_lower(id)) {
          ids.emplace(check.id);
          heading = true;
        }
      }
      if (heading) {
        continue;
      }
      if (find_check(id) == nullptr) {
        err << fmt::format("rocdoc: check {}: unknown check id '{}'{}\n", flag, util::printable(id),
                           did_you_mean(id));
        ok = false;
      }
      ids.insert(id);
    }
  }
  return ids;
}

/// Why PATH cannot be the directory that `what` names: "check --root: /x: no such directory".
std::optional<std::string> directory_problem(const std::string& what, const std::string& path) {
  if (path.empty()) {
    return std::nullopt;
  }
  struct ::stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const bool missing = errno == ENOENT;
    return what + ": " + util::printable(path) + ": " +
           (missing ? std::string("no such directory") : std::string(std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return what + ": " + util::printable(path) + ": not a directory";
  }
  return std::nullopt;
}

/// --timeout SECONDS (a positive decimal number, at most k_max_deep_timeout), or why not.
std::optional<std::string> deep_timeout_problem(std::string_view command, bool deep, bool smoke,
                                                const std::string& timeout) {
  if (timeout.empty()) {
    return std::nullopt;
  }
  if (!deep && !smoke) {
    return fmt::format(
        "{} --timeout: it bounds the runtimes that --deep loads and the torch runs of --smoke; "
        "add --deep or --smoke",
        command);
  }
  const auto seconds = parse_deep_timeout(timeout);
  if (!seconds) {
    return fmt::format(
        "{} --timeout: '{}' is not a number of seconds from 0.1 to {:g} (e.g. "
        "--timeout 30)",
        command, util::excerpt(timeout, 40), k_max_deep_timeout);
  }
  return std::nullopt;
}

/// --format's value (of check or explain), and --json beside it: "check --format: …".
std::optional<std::string> format_problem(std::string_view command, const std::string& format,
                                          bool json) {
  static const std::vector<std::string> k_formats(std::begin(k_report_formats),
                                                  std::end(k_report_formats));
  if (format.empty()) {
    return std::nullopt;
  }
  if (std::find(k_formats.begin(), k_formats.end(), format) == k_formats.end()) {
    const std::string best = closest(format, k_formats);
    return fmt::format("{} --format: '{}' is not human, json, markdown, slurm, prometheus or npd{}",
                       command, util::printable(format),
                       best.empty() ? "" : "; did you mean " + best + "?");
  }
  if (format == "slurm" && command != "check") {
    return fmt::format("{} --format: slurm is a format of check only", command);
  }
  if ((format == "prometheus" || format == "npd") && command != "check") {
    return fmt::format("{} --format: {} is a format of check only", command, format);
  }
  if (json && format != "json") {
    return fmt::format(
        "{} --format: --json is short for --format json; it cannot go with --format {}", command,
        format);
  }
  return std::nullopt;
}
std::optional<std::chrono::milliseconds> parse_deep_timeout(std::string_view text) {
  // Seconds with at most three decimals, read by hand: no locale, no exponent, no "inf".
  const auto dot = text.find('.');
  const auto whole = util::parse_number<std::uint32_t>(text.substr(0, dot));
  std::uint64_t millis = 0;
  if (dot != std::string_view::npos) {
    const auto fraction = text.substr(dot + 1);
    if (fraction.empty() || fraction.size() > 3 ||
        fraction.find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
    millis = *util::parse_number<std::uint32_t>(std::string(fraction) +
                                                std::string(3 - fraction.size(), '0'));
  }
  if (!whole || *whole > 600) {
    return std::nullopt;
  }
  millis += std::uint64_t{*whole} * 1000;
  if (millis < 100 || millis > 600'000) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(millis);
}

RuntimeOptions runtime_options(bool deep, bool smoke, const std::string& timeout) {
  RuntimeOptions options;
  options.mode = deep ? RuntimeMode::load : RuntimeMode::recorded_only;
  options.smoke = smoke ? SmokeMode::run : SmokeMode::recorded_only;
  if (const auto limit = parse_deep_timeout(timeout)) {
    options.timeout = *limit;
    options.smoke_timeout = *limit;
  }
  return options;
}

}  // namespace rocdoc
