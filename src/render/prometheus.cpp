// --format prometheus: node_exporter's textfile collector format (Prometheus text exposition
// 0.0.4). Every metric is a gauge; every label value comes from a bounded set (check ids,
// areas, severities, PCI addresses, gfx targets, product names of the rules' or pci.ids'
// tables, kernel driver names), so a scrape never grows a series per message. A value that is
// not of its set's shape is written as "unknown". docs/prometheus.md lists every metric.
#include "src/render/prometheus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "rocdoc/render.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_unknown = "unknown";

void family(std::ostream& out, std::string_view name, std::string_view help) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " gauge\n";
}

/// -1 skipped, 0 pass, 1 warn, 2 fail.
int status_value(Status status) {
  switch (status) {
    case Status::pass:
      return 0;
    case Status::warn:
      return 1;
    case Status::fail:
      return 2;
    case Status::skip:
      break;
  }
  return -1;
}

bool all_of(std::string_view text, bool (*allowed)(char)) {
  return std::all_of(text.begin(), text.end(), allowed);
}

bool hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

/// "0000:03:00.0" (domain:bus:device.function).
std::string_view bdf_label(std::string_view bdf) {
  const bool shaped = bdf.size() == 12 && bdf[4] == ':' && bdf[7] == ':' && bdf[10] == '.' &&
                      all_of(bdf.substr(0, 4), hex_digit) && all_of(bdf.substr(5, 2), hex_digit) &&
                      all_of(bdf.substr(8, 2), hex_digit) && hex_digit(bdf[11]);
  return shaped ? bdf : k_unknown;
}

/// "gfx942", "gfx90a", "gfx1151".
std::string_view gfx_label(std::string_view gfx) {
  const bool shaped = gfx.size() > 3 && gfx.size() <= 10 && gfx.substr(0, 3) == "gfx" &&
                      all_of(gfx.substr(3), hex_digit);
  return shaped ? gfx : k_unknown;
}

/// A product name of a table ("Instinct MI300X", "Radeon RX 7900 XTX", "AMD GPU 1002:744c"):
/// letters, digits, spaces and a few marks, 128 bytes at most.
std::string_view name_label(std::string_view name) {
  const bool shaped = !name.empty() && name.size() <= 128 && all_of(name, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view(" .,:/()[]+-_").find(c) != std::string_view::npos;
  });
  return shaped ? name : k_unknown;
}

/// A kernel driver name ("amdgpu", "vfio-pci"); "none" when no driver is bound.
std::string_view driver_label(std::string_view driver) {
  if (driver.empty()) {
    return "none";
  }
  const bool shaped =
      driver.size() <= 32 && all_of(driver, [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
      });
  return shaped ? driver : k_unknown;
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

/// The digits of text[at, at + count) as a number; nullopt when one is not a digit.
std::optional<unsigned> digits(std::string_view text, std::size_t at, std::size_t count) {
  unsigned value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      return std::nullopt;
    }
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return value;
}

void sample(std::ostream& out, std::string_view name, std::string_view labels, long long value) {
  out << name;
  if (!labels.empty()) {
    out << '{' << labels << '}';
  }
  out << ' ' << value << '\n';
}

std::string label(std::string_view name, std::string_view value) {
  return fmt::format("{}=\"{}\"", name, prometheus_label_value(value));
}

void render_checks(const Report& report, std::ostream& out) {
  family(out, "rocdoc_check_status",
         "Result of each check: 0 pass, 1 warn, 2 fail, -1 skipped (severity: the finding's "
         "when it warns or fails, as the report says it, else the check's default)");
  for (const auto& record : report.checks) {
    // numa.balancing is an error on Instinct: the label says so, as rocdoc_findings does (N18).
    const bool found = record.result.status == Status::warn || record.result.status == Status::fail;
    const std::string labels = fmt::format(
        "{},{},{}", label("check", record.info->id), label("area", record.info->area),
        label("severity", to_string(found ? record.result.severity : record.info->severity)));
    sample(out, "rocdoc_check_status", labels, status_value(record.result.status));
  }
}

void render_counts(const Report& report, std::ostream& out) {
  const Summary summary = report.summary();
  family(out, "rocdoc_findings",
         "Findings of the report by severity (error: failed checks, warning, info: notices)");
  sample(out, "rocdoc_findings", label("severity", "error"), summary.errors);
  sample(out, "rocdoc_findings", label("severity", "warning"), summary.warnings);
  sample(out, "rocdoc_findings", label("severity", "info"), summary.notices);
  family(out, "rocdoc_root_causes", "Errors and warnings that follow from no other finding");
  sample(out, "rocdoc_root_causes", "", summary.root_causes);
  family(out, "rocdoc_exit_code",
         "Exit code of rocdoc check: 0 nothing at or above --fail-on, 1 otherwise");
  sample(out, "rocdoc_exit_code", "", report.outcome.exit_code);
}

void render_gpus(const Report& report, std::ostream& out) {
  family(out, "rocdoc_gpu_info",
         "An AMD GPU as the report names it (gpu: its index in the report); always 1");
  for (std::size_t i = 0; i < report.gpus.size(); ++i) {
    const InventoryGpu& gpu = report.gpus[i];
    const std::string labels =
        fmt::format("{},{},{},{},{}", label("gpu", std::to_string(i)),
                    label("bdf", bdf_label(gpu.bdf)), label("gfx", gfx_label(gpu.gfx_target)),
                    label("name", name_label(gpu.name)), label("driver", driver_label(gpu.driver)));
    sample(out, "rocdoc_gpu_info", labels, 1);
  }
  family(out, "rocdoc_gpus", "AMD GPUs in the report");
  sample(out, "rocdoc_gpus", "", static_cast<long long>(report.gpus.size()));
}

/// 1: the kernel lets the pair reach each other directly; 0: it does not; -1: unknown.
long long peer_value(const TopologyLink& link) {
  switch (link.p2p) {
    case PeerAccess::yes:
      return 1;
    case PeerAccess::no:
      return 0;
    case PeerAccess::unknown:
      break;
  }
  return -1;
}

void render_links(const Report& report, std::ostream& out) {
  if (!report.topology || report.topology->links.empty()) {
    return;
  }
  family(out, "rocdoc_gpu_link",
         "A pair of AMD GPUs (gpu < peer, indexes of rocdoc_gpu_info) and its path type: 1 when "
         "they reach each other directly (XGMI or a KFD p2p_link), 0 when the kernel refuses, "
         "-1 when unknown");
  for (const auto& link : report.topology->links) {
    sample(out, "rocdoc_gpu_link",
           fmt::format("{},{},{}", label("gpu", std::to_string(link.first)),
                       label("peer", std::to_string(link.second)),
                       label("type", to_string(link.kind))),
           link.hive_without_xgmi ? 0 : peer_value(link));
  }
}

void render_provenance(const Report& report, std::ostream& out) {
  if (const auto created = prometheus_epoch_seconds(report.created)) {
    family(out, "rocdoc_last_run_timestamp_seconds",
           "When the report was made, seconds since "
           "the epoch");
    sample(out, "rocdoc_last_run_timestamp_seconds", "", *created);
  }
  family(out, "rocdoc_rules_revision_info", "The knowledge base's revision; always 1");
  sample(out, "rocdoc_rules_revision_info",
         label("revision", prometheus_epoch_seconds(report.rules_revision)
                               ? std::string_view(report.rules_revision)
                               : k_unknown),
         1);
  if (const auto revision = prometheus_epoch_seconds(report.rules_revision)) {
    family(out, "rocdoc_rules_revision_timestamp_seconds",
           "The knowledge base's revision date (00:00 UTC), seconds since the epoch");
    sample(out, "rocdoc_rules_revision_timestamp_seconds", "", *revision);
  }
  family(out, "rocdoc_build_info", "The rocdoc that made the report; always 1");
  sample(out, "rocdoc_build_info", label("version", name_label(report.tool_version)), 1);
}

}  // namespace

std::string prometheus_label_value(std::string_view value) {
  std::string escaped;
  escaped.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '"') {
      escaped += "\\\"";
    } else if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

std::optional<long long> prometheus_epoch_seconds(std::string_view utc) {
  const bool date_only = utc.size() == 10;
  if ((!date_only && utc.size() != 20) || utc[4] != '-' || utc[7] != '-') {
    return std::nullopt;
  }
  const auto year = digits(utc, 0, 4);
  const auto month = digits(utc, 5, 2);
  const auto day = digits(utc, 8, 2);
  if (!year || !month || !day || *month < 1 || *month > 12 || *day < 1 || *day > 31) {
    return std::nullopt;
  }
  long long seconds = days_from_civil(*year, *month, *day) * 86400;
  if (date_only) {
    return seconds;
  }
  if (utc[10] != 'T' || utc[13] != ':' || utc[16] != ':' || utc[19] != 'Z') {
    return std::nullopt;
  }
  const auto hour = digits(utc, 11, 2);
  const auto minute = digits(utc, 14, 2);
  const auto second = digits(utc, 17, 2);
  if (!hour || !minute || !second || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  return seconds + *hour * 3600LL + *minute * 60LL + *second;
}

void render_prometheus(const Report& report, std::ostream& out) {
  render_checks(report, out);
  render_counts(report, out);
  render_gpus(report, out);
  render_links(report, out);
  render_provenance(report, out);
}

}  // namespace rocdoc
