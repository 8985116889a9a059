#include "src/fleet/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "src/util/strings.h"

namespace rocdoc {
namespace {

/// Groups sorted by node count, largest first, then by value.
void sort_groups(std::vector<FleetGroup>& groups) {
  for (auto& group : groups) {
    std::sort(group.nodes.begin(), group.nodes.end());
  }
  std::sort(groups.begin(), groups.end(), [](const FleetGroup& a, const FleetGroup& b) {
    if (a.nodes.size() != b.nodes.size()) {
      return a.nodes.size() > b.nodes.size();
    }
    return a.value < b.value;
  });
}

/// "gfx1100" or "gfx942 x8", joined by ", " in name order; "none" without GPUs.
std::string gfx_mix(std::vector<std::string> targets) {
  if (targets.empty()) {
    return "none";
  }
  std::sort(targets.begin(), targets.end());
  std::string mix;
  for (std::size_t i = 0; i < targets.size();) {
    std::size_t j = i;
    while (j < targets.size() && targets[j] == targets[i]) {
      ++j;
    }
    mix += (mix.empty() ? "" : ", ") + targets[i];
    if (j - i > 1) {
      mix += " x" + std::to_string(j - i);
    }
    i = j;
  }
  return mix;
}

std::string joined_or(std::vector<std::string> values, std::string_view empty, bool sort) {
  if (values.empty()) {
    return std::string(empty);
  }
  if (sort) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
  }
  return util::join(values, ", ");
}

void add_outliers(const std::vector<const FleetNode*>& readable, FleetDimension dimension,
                  FleetSummary& summary) {
  std::unordered_map<std::string, std::vector<std::string>> by_value;
  for (const FleetNode* node : readable) {
    by_value[dimension_value(*node->report, dimension)].push_back(node->name);
  }
  if (by_value.size() < 2) {
    return;
  }
  std::vector<FleetGroup> groups;
  for (auto& [value, nodes] : by_value) {
    groups.push_back({value, "", std::move(nodes)});
  }
  sort_groups(groups);
  FleetOutlier outlier{dimension, groups.front().value, groups.front().nodes.size(), {}};
  outlier.others.assign(std::make_move_iterator(groups.begin() + 1),
                        std::make_move_iterator(groups.end()));
  summary.outliers.push_back(std::move(outlier));
}

std::optional<FleetStale> staleness(const FleetNode& node, const FleetExpectations& expect) {
  const FleetReport& report = *node.report;
  const std::string created = report.capture_created.value_or(report.created);
  const auto when = parse_fleet_time(created);
  if (!when) {
    return FleetStale{node.name, created, std::nullopt};
  }
  const std::int64_t age = expect.now - *when;
  if (age > *expect.max_age_s) {
    return FleetStale{node.name, created, age};
  }
  return std::nullopt;
}

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace

/// "27 xgmi, 1 pcie_across_numa xgmi-down": the pairs of each kind, most first; "no pairs".
std::string link_mix(const std::vector<std::string>& links) {
  if (links.empty()) {
    return "no pairs";
  }
  std::map<std::string, std::size_t> counts;
  for (const auto& link : links) {
    ++counts[link];
  }
  std::vector<std::pair<std::string, std::size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [kind, count] : sorted) {
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + kind;
  }
  return text;
}

std::string_view dimension_key(FleetDimension dimension) {
  switch (dimension) {
    case FleetDimension::rocm:
      return "rocm";
    case FleetDimension::torch:
      return "torch";
    case FleetDimension::driver:
      return "driver";
    case FleetDimension::firmware:
      return "firmware";
    case FleetDimension::gfx:
      return "gfx";
    case FleetDimension::topology:
      return "topology";
    case FleetDimension::kernel:
      return "kernel";
    case FleetDimension::os:
      return "os";
  }
  return "";
}

std::string_view dimension_title(FleetDimension dimension) {
  switch (dimension) {
    case FleetDimension::rocm:
      return "ROCm";
    case FleetDimension::torch:
      return "torch";
    case FleetDimension::driver:
      return "amdgpu driver";
    case FleetDimension::firmware:
      return "GPU firmware";
    case FleetDimension::gfx:
      return "GPUs (gfx)";
    case FleetDimension::topology:
      return "GPU links";
    case FleetDimension::kernel:
      return "kernel";
    case FleetDimension::os:
      return "OS";
  }
  return "";
}

std::string dimension_value(const FleetReport& report, FleetDimension dimension) {
  switch (dimension) {
    case FleetDimension::rocm:
      return !report.rocm_known ? "unknown" : report.rocm.value_or("none");
    case FleetDimension::torch:
      return !report.python_known ? "unknown" : joined_or(report.torch, "none", false);
    case FleetDimension::driver:
      if (!report.driver_known) {
        return "unknown";
      }
      if (report.dkms_version) {
        return "dkms " + *report.dkms_version;
      }
      return report.amdgpu_loaded ? "in-kernel" : "not loaded";
    case FleetDimension::firmware:
      return joined_or(report.firmware, "none", true);
    case FleetDimension::gfx:
      return gfx_mix(report.gfx);
    case FleetDimension::topology:
      return !report.topology_known ? "unknown" : link_mix(report.links);
    case FleetDimension::kernel:
      return report.kernel.value_or("unknown");
    case FleetDimension::os:
      return report.os.value_or("unknown");
  }
  return "unknown";
}

int FleetSummary::exit_code() const {
  const bool clean = with_findings == 0 && unreadable.empty() && missing.empty() && stale.empty() &&
                     outliers.empty();
  return clean ? 0 : 1;
}

FleetSummary summarize_fleet(const std::vector<FleetNode>& nodes,
                             const FleetExpectations& expectations) {
  FleetSummary summary;
  summary.max_age_s = expectations.max_age_s;
  summary.nodes = nodes.size();
  std::vector<const FleetNode*> readable;
  std::unordered_map<std::string, FleetGroup> causes;
  for (const FleetNode& node : nodes) {
    if (!node.report) {
      summary.unreadable.push_back({node.name, node.file, node.problem});
      continue;
    }
    readable.push_back(&node);
    const FleetReport& report = *node.report;
    (report.errors + report.warnings > 0 ? summary.with_findings : summary.healthy) += 1;
    std::set<std::string_view> seen;  // a cause counts once per node
    for (const FleetCause& cause : report.causes) {
      if (!seen.insert(cause.id).second) {
        continue;
      }
      FleetGroup& group = causes[cause.id];
      group.value = cause.id;
      if (group.severity != "error") {
        group.severity = cause.severity;
      }
      group.nodes.push_back(node.name);
    }
    if (expectations.max_age_s) {
      if (auto stale = staleness(node, expectations)) {
        summary.stale.push_back(std::move(*stale));
      }
    }
  }
  for (auto& [id, group] : causes) {
    summary.causes.push_back(std::move(group));
  }
  sort_groups(summary.causes);
  for (const FleetDimension dimension : k_fleet_dimensions) {
    add_outliers(readable, dimension, summary);
  }
  std::set<std::string> present;
  for (const FleetNode& node : nodes) {
    present.insert(node.name);
  }
  std::set<std::string> expected(expectations.expected.begin(), expectations.expected.end());
  for (const auto& name : expected) {
    if (present.count(name) == 0) {
      summary.missing.push_back(name);
    }
  }
  if (!expected.empty()) {
    for (const auto& name : present) {
      if (expected.count(name) == 0) {
        summary.unexpected.push_back(name);
      }
    }
  }
  std::sort(summary.stale.begin(), summary.stale.end(),
            [](const FleetStale& a, const FleetStale& b) { return a.node < b.node; });
  std::sort(summary.unreadable.begin(), summary.unreadable.end(),
            [](const FleetUnreadable& a, const FleetUnreadable& b) {
              return a.node != b.node ? a.node < b.node : a.file < b.file;
            });
  return summary;
}

bool is_fleet_node_name(std::string_view name) {
  if (name.empty() || name.size() > k_fleet_max_node_name || name[0] == '-' || name[0] == '.') {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_';
  });
}

FleetNodeList parse_fleet_nodes(std::string_view text) {
  FleetNodeList list;
  std::size_t number = 0;
  while (!text.empty()) {  // one line at a time: a file of empty lines costs no list of them
    const auto end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++number;
    if (line.size() > k_fleet_max_nodes_line) {
      list.problem = fmt::format("line {}: over {} bytes; one node name a line", number,
                                 k_fleet_max_nodes_line);
      return list;
    }
    const std::string_view name = util::trim(line);
    if (name.empty() || name[0] == '#') {
      continue;
    }
    if (!is_fleet_node_name(name)) {
      list.problem = fmt::format(
          "line {}: '{}' is not a node name (one host name a line: letters, digits, '.', '-' "
          "and '_'; expand a Slurm host list with scontrol show hostnames)",
          number, util::excerpt(name, 64));
      return list;
    }
    if (list.names.size() == k_fleet_max_nodes_names) {
      list.problem = fmt::format("more than {} node names", k_fleet_max_nodes_names);
      return list;
    }
    list.names.emplace_back(name);
  }
  return list;
}

std::string hostlist(std::vector<std::string> names) {
  // (prefix, width) -> numbers; width 0 for unpadded numbers of any length, which share one
  // range as Slurm writes them (node[1-20], not node[1-9],node[10-20]: N19); zero-padded ones
  // (node007) keep their width, and an unpadded number as wide joins them (node[007,100]).
  // Names without a numeric suffix stand alone.
  struct Numbered {
    std::string prefix;
    std::string digits;
  };
  std::vector<Numbered> numbered;
  std::set<std::string> plain;
  std::set<std::pair<std::string, std::size_t>> padded_widths;
  for (const auto& name : names) {
    std::size_t start = name.size();
    while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') {
      --start;
    }
    const std::size_t digits = name.size() - start;
    // A suffix of over 18 digits does not fit; such a name, or one with '[' ']' or ',', is
    // listed as it is.
    if (digits == 0 || digits > 18 || name.find_first_of("[],") != std::string::npos) {
      plain.insert(name);
      continue;
    }
    numbered.push_back({name.substr(0, start), name.substr(start)});
    if (digits > 1 && name[start] == '0') {
      padded_widths.insert({name.substr(0, start), digits});
    }
  }
  std::map<std::pair<std::string, std::size_t>, std::vector<std::uint64_t>> ranges;
  for (const auto& [prefix, digits] : numbered) {
    const bool padded = padded_widths.count({prefix, digits.size()}) != 0;
    ranges[{prefix, padded ? digits.size() : 0}].push_back(std::stoull(digits));
  }
  std::vector<std::pair<std::string, std::string>> parts;  // sort key, text
  for (auto& [key, numbers] : ranges) {
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    const auto& [prefix, width] = key;
    const auto padded = [width = width](std::uint64_t n) {
      std::string text = std::to_string(n);
      return std::string(width - std::min(width, text.size()), '0') + text;  // width 0: as is
    };
    if (numbers.size() == 1) {
      parts.emplace_back(prefix + padded(numbers[0]), prefix + padded(numbers[0]));
      continue;
    }
    std::string text = prefix + "[";
    for (std::size_t i = 0; i < numbers.size();) {
      std::size_t j = i;
      while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) {
        ++j;
      }
      text += (i == 0 ? "" : ",") + padded(numbers[i]);
      if (j > i) {
        text += "-" + padded(numbers[j]);
      }
      i = j + 1;
    }
    parts.emplace_back(prefix + padded(numbers[0]), text + "]");
  }
  for (const auto& name : plain) {
    parts.emplace_back(name, name);
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& part : parts) {
    out += (out.empty() ? "" : ",") + part.second;
  }
  return out;
}

std::optional<std::int64_t> parse_fleet_duration(std::string_view text) {
  if (text.size() < 2) {
    return std::nullopt;
  }
  const char unit = text.back();
  const std::int64_t scale = unit == 's'   ? 1
                             : unit == 'm' ? 60
                             : unit == 'h' ? 3600
                             : unit == 'd' ? 86400
                             : unit == 'w' ? 604800
                                           : 0;
  const auto number = util::parse_unsigned(text.substr(0, text.size() - 1));
  if (scale == 0 || !number || *number == 0 || *number > 100u * 365 * 86400) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*number) * scale;
}

std::optional<std::int64_t> parse_fleet_time(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SSZ
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text[19] != 'Z') {
    return std::nullopt;
  }
  const auto field = [&](std::size_t at, std::size_t size) {
    return util::parse_unsigned(text.substr(at, size));
  };
  const auto year = field(0, 4);
  const auto month = field(5, 2);
  const auto day = field(8, 2);
  const auto hour = field(11, 2);
  const auto minute = field(14, 2);
  const auto second = field(17, 2);
  if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 ||
      *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  return days_from_civil(static_cast<std::int64_t>(*year), static_cast<unsigned>(*month),
                         static_cast<unsigned>(*day)) *
             86400 +
         static_cast<std::int64_t>(*hour * 3600 + *minute * 60 + *second);
}

}  // namespace rocdoc
