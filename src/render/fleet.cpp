#include "src/render/fleet.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "src/render/markdown_text.h"
#include "src/render/page.h"
#include "src/util/strings.h"

namespace rocdoc {
namespace {

std::string plural(std::size_t count, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

std::string age_text(const std::optional<std::int64_t>& age_s) {
  if (!age_s) {
    return "no readable creation time";
  }
  const std::int64_t s = *age_s;
  if (s >= 86400) {
    return fmt::format("{}d{}h old", s / 86400, (s % 86400) / 3600);
  }
  if (s >= 3600) {
    return fmt::format("{}h{}m old", s / 3600, (s % 3600) / 60);
  }
  return fmt::format("{}m old", s / 60);
}

std::string duration_text(std::int64_t s) {
  if (s % 86400 == 0) {
    return fmt::format("{}d", s / 86400);
  }
  if (s % 3600 == 0) {
    return fmt::format("{}h", s / 3600);
  }
  if (s % 60 == 0) {
    return fmt::format("{}m", s / 60);
  }
  return fmt::format("{}s", s);
}

std::string headline(const FleetSummary& summary) {
  std::string line = fmt::format("{}: {} healthy, {} with findings, {} unreadable",
                                 plural(summary.nodes, "node", "nodes"), summary.healthy,
                                 summary.with_findings, summary.unreadable.size());
  line += fmt::format(
      "; {} missing, {} stale, {}", summary.missing.size(), summary.stale.size(),
      plural(summary.outliers.size(), "dimension with outliers", "dimensions with outliers"));
  return line;
}

std::vector<std::string> stale_names(const FleetSummary& summary) {
  std::vector<std::string> names;
  for (const auto& stale : summary.stale) {
    names.push_back(stale.node);
  }
  return names;
}

}  // namespace

namespace {

/// A host list as a terminal line shows it: at most about 200 characters, cut between two of
/// its parts (never inside a range), with where the rest is (N19: 3,000 reports made 1.6 kB
/// lines).
std::string shown(const std::string& list) {
  constexpr std::size_t k_max = 200;
  if (list.size() <= k_max) {
    return list;
  }
  // The last comma before the bound; inside a range list "node[1,3,…" the bracket is closed.
  std::size_t cut = 0;
  int cut_depth = 0;
  int depth = 0;
  for (std::size_t i = 0; i < k_max; ++i) {
    depth += list[i] == '[' ? 1 : list[i] == ']' ? -1 : 0;
    if (list[i] == ',') {
      cut = i;
      cut_depth = depth;
    }
  }
  if (cut == 0) {
    return list.substr(0, k_max) + "… (every node: rocdoc fleet --json)";
  }
  return list.substr(0, cut) + (cut_depth > 0 ? ",…]" : ",…") +
         " (every node: rocdoc fleet --json)";
}

}  // namespace

void render_fleet_human(const FleetSummary& summary, const FleetContext& context,
                        std::ostream& out) {
  using util::printable;
  // Colour as check's report has it (src/render/page.h).
  const HumanOptions options{context.color};
  const Page page(out, options);
  out << page.paint("rocdoc fleet:", k_bold) << " " << headline(summary) << "\n";
  if (!summary.causes.empty()) {
    out << "\n" << page.paint("Root causes (nodes with the finding):", k_bold) << "\n";
    for (const auto& cause : summary.causes) {
      out << fmt::format(
          "  {} ({}): {}  {}\n",
          page.paint(printable(cause.value), cause.severity == "error" ? k_red : k_yellow),
          cause.severity, plural(cause.nodes.size(), "node", "nodes"),
          printable(shown(hostlist(cause.nodes))));
    }
  }
  if (!summary.outliers.empty()) {
    out << "\n" << page.paint("Outliers (nodes that differ from the majority):", k_bold) << "\n";
    for (const auto& outlier : summary.outliers) {
      out << fmt::format("  {}: majority {} ({})\n", dimension_title(outlier.dimension),
                         printable(outlier.majority),
                         plural(outlier.majority_count, "node", "nodes"));
      for (const auto& other : outlier.others) {
        out << fmt::format("    {}: {}  {}\n", printable(other.value),
                           plural(other.nodes.size(), "node", "nodes"),
                           printable(shown(hostlist(other.nodes))));
      }
    }
  }
  if (!summary.missing.empty()) {
    out << fmt::format("\nMissing (in --nodes, no report): {}  {}\n",
                       plural(summary.missing.size(), "node", "nodes"),
                       printable(shown(hostlist(summary.missing))));
  }
  if (!summary.unexpected.empty()) {
    out << fmt::format("\nUnexpected (a report, not in --nodes): {}  {}\n",
                       plural(summary.unexpected.size(), "node", "nodes"),
                       printable(shown(hostlist(summary.unexpected))));
  }
  if (!summary.stale.empty()) {
    out << fmt::format("\nStale (older than {} at {}): {}  {}\n",
                       duration_text(summary.max_age_s.value_or(0)), context.now,
                       plural(summary.stale.size(), "node", "nodes"),
                       printable(shown(hostlist(stale_names(summary)))));
    for (const auto& stale : summary.stale) {
      out << fmt::format("  {}: {} ({})\n", printable(stale.node),
                         stale.created.empty() ? "-" : printable(stale.created),
                         age_text(stale.age_s));
    }
  }
  if (!summary.unreadable.empty()) {
    out << fmt::format("\nUnreadable: {}\n", plural(summary.unreadable.size(), "node", "nodes"));
    for (const auto& bad : summary.unreadable) {
      out << fmt::format("  {}: {}: {}\n", printable(bad.node), printable(bad.file),
                         printable(bad.problem));
    }
  }
  if (summary.exit_code() == 0) {
    out << "\nEvery node is healthy, present, fresh and alike.\n";
  }
}

void render_fleet_markdown(const FleetSummary& summary, const FleetContext& context,
                           std::ostream& out) {
  using markdown::text;
  out << "# rocdoc fleet\n\n" << text(headline(summary)) << "\n";
  if (!summary.causes.empty()) {
    out << "\n## Root causes\n\n| cause | severity | nodes | which |\n|---|---|---|---|\n";
    for (const auto& cause : summary.causes) {
      out << fmt::format("| {} | {} | {} | {} |\n", text(cause.value), cause.severity,
                         cause.nodes.size(), text(hostlist(cause.nodes)));
    }
  }
  if (!summary.outliers.empty()) {
    out << "\n## Outliers\n\n| dimension | value | nodes | which |\n|---|---|---|---|\n";
    for (const auto& outlier : summary.outliers) {
      out << fmt::format("| {} | {} (majority) | {} | |\n", dimension_title(outlier.dimension),
                         text(outlier.majority), outlier.majority_count);
      for (const auto& other : outlier.others) {
        out << fmt::format("| {} | {} | {} | {} |\n", dimension_title(outlier.dimension),
                           text(other.value), other.nodes.size(), text(hostlist(other.nodes)));
      }
    }
  }
  if (!summary.missing.empty()) {
    out << "\n## Missing\n\n"
        << summary.missing.size()
        << " expected (--nodes), no report: " << text(hostlist(summary.missing)) << "\n";
  }
  if (!summary.unexpected.empty()) {
    out << "\n## Unexpected\n\n"
        << summary.unexpected.size()
        << " reported, not in --nodes: " << text(hostlist(summary.unexpected)) << "\n";
  }
  if (!summary.stale.empty()) {
    out << "\n## Stale\n\n"
        << text(fmt::format("Older than {} at {}:", duration_text(summary.max_age_s.value_or(0)),
                            context.now))
        << "\n\n| node | created | age |\n|---|---|---|\n";
    for (const auto& stale : summary.stale) {
      out << fmt::format("| {} | {} | {} |\n", text(stale.node), text(stale.created),
                         age_text(stale.age_s));
    }
  }
  if (!summary.unreadable.empty()) {
    out << "\n## Unreadable\n\n| node | file | problem |\n|---|---|---|\n";
    for (const auto& bad : summary.unreadable) {
      out << fmt::format("| {} | {} | {} |\n", text(bad.node), text(bad.file), text(bad.problem));
    }
  }
}

void render_fleet_json(const FleetSummary& summary, const FleetContext& context,
                       std::ostream& out) {
  using json = nlohmann::ordered_json;
  const auto group_json = [](const FleetGroup& group, std::string_view key) {
    json entry = {{std::string(key), group.value}};
    if (!group.severity.empty()) {
      entry["severity"] = group.severity;
    }
    entry["count"] = group.nodes.size();
    entry["hostlist"] = hostlist(group.nodes);
    entry["nodes"] = group.nodes;
    return entry;
  };
  json causes = json::array();
  for (const auto& cause : summary.causes) {
    causes.push_back(group_json(cause, "id"));
  }
  json outliers = json::array();
  for (const auto& outlier : summary.outliers) {
    json others = json::array();
    for (const auto& other : outlier.others) {
      others.push_back(group_json(other, "value"));
    }
    outliers.push_back({{"dimension", dimension_key(outlier.dimension)},
                        {"majority", outlier.majority},
                        {"majority_count", outlier.majority_count},
                        {"others", others}});
  }
  json stale = json::array();
  for (const auto& entry : summary.stale) {
    stale.push_back({{"node", entry.node},
                     {"created", entry.created.empty() ? json(nullptr) : json(entry.created)},
                     {"age_s", entry.age_s ? json(*entry.age_s) : json(nullptr)}});
  }
  json unreadable = json::array();
  for (const auto& bad : summary.unreadable) {
    unreadable.push_back({{"node", bad.node}, {"file", bad.file}, {"problem", bad.problem}});
  }
  const json document = {
      {"schema", "rocdoc-fleet/1"},
      {"now", context.now},
      {"max_age_s", summary.max_age_s ? json(*summary.max_age_s) : json(nullptr)},
      {"exit_code", summary.exit_code()},
      {"counts",
       {{"inputs", context.inputs},
        {"nodes", summary.nodes},
        {"healthy", summary.healthy},
        {"with_findings", summary.with_findings},
        {"unreadable", summary.unreadable.size()},
        {"expected", context.expected},
        {"missing", summary.missing.size()},
        {"unexpected", summary.unexpected.size()},
        {"stale", summary.stale.size()}}},
      {"causes", causes},
      {"outliers", outliers},
      {"missing", {{"hostlist", hostlist(summary.missing)}, {"nodes", summary.missing}}},
      {"unexpected", {{"hostlist", hostlist(summary.unexpected)}, {"nodes", summary.unexpected}}},
      {"stale", stale},
      {"unreadable", unreadable},
  };
  out << document.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace rocdoc
