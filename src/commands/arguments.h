// What the commands share to judge option values before anything is read: did-you-mean, check
// ids and areas, directories, --timeout and --format. Each returns the problem in rocdoc's
// words ("check --root: /x: no such directory"), or nullopt.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/probes.h"

namespace rocdoc {

/// The candidate closest to `word` (at most 3 edits, and fewer than its length), or "". Of
/// two as close, the one that starts with the same letter ("trch": torch, not arch).
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

/// The check ids that --only, --skip or --require name: "a,b" and repeated flags both work;
/// "torch.*" is every check of the torch area. An unknown id or area is said on `err`, with the
/// closest, and `ok` becomes false.
std::set<std::string> check_ids(const std::vector<std::string>& values, std::string_view flag,
                                std::ostream& err, bool& ok);

/// Why PATH cannot be the directory that `what` names: "check --root: /x: no such directory".
std::optional<std::string> directory_problem(const std::string& what, const std::string& path);

/// --timeout's value: seconds from 0.1 to 600, decimals allowed; nullopt when not one.
std::optional<std::chrono::milliseconds> parse_deep_timeout(std::string_view text);
/// --deep, --smoke and --timeout (checked) as the runtime and smoke probes take them: a given
/// --timeout bounds both.
RuntimeOptions runtime_options(bool deep, bool smoke, const std::string& timeout);

/// --timeout SECONDS (with --deep or --smoke only; 0.1 to 600), or why not.
std::optional<std::string> deep_timeout_problem(std::string_view command, bool deep, bool smoke,
                                                const std::string& timeout);

/// --format's value (of check or explain), and --json beside it: "check --format: …".
std::optional<std::string> format_problem(std::string_view command, const std::string& format,
                                          bool json);

}  // namespace rocdoc
