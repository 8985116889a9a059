// The monitoring renderers: --format prometheus (exact exposition lines) and --format npd
// (one line of at most 80 bytes, cut on UTF-8 character boundaries).
#include <catch2/catch.hpp>
#include <deque>
#include <sstream>

#include "src/render/npd.h"
#include "src/render/prometheus.h"

using namespace rocdoc;

namespace {

/// A Report built by hand; the check-table entries live as long as the builder.
class MonitoringReport {
 public:
  MonitoringReport() {
    report.tool_version = "0.1.0";
    report.rules_revision = "2026-11-30";
    report.created = "2026-12-01T17:57:08Z";
  }
  CheckResult& add(std::string_view id, std::string_view area, Status status, Severity severity) {
    CheckInfo& info = m_infos.emplace_back();
    info.id = id;
    info.area = area;
    info.title = id;
    info.severity = severity;
    CheckRecord record;
    record.info = &info;
    record.result.status = status;
    record.result.severity = severity;
    report.checks.push_back(std::move(record));
    return report.checks.back().result;
  }
  std::string prometheus() const {
    std::ostringstream out;
    render_prometheus(report, out);
    return out.str();
  }
  std::string npd() {
    report.outcome = judge(report, report.outcome.fail_on, report.outcome.required);
    std::ostringstream out;
    render_npd(report, out);
    return out.str();
  }

  Report report;

 private:
  std::deque<CheckInfo> m_infos;
};

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

bool utf8_complete(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t length = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (length == 0 || i + length > text.size()) {
      return false;
    }
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0U) != 0x80U) {
        return false;
      }
    }
    i += length;
  }
  return true;
}

}  // namespace

TEST_CASE("prometheus: every check a status sample, findings by severity, provenance") {
  MonitoringReport r;
  r.add("perm.kfd", "Permissions", Status::fail, Severity::error);
  r.add("gpu.none", "Hardware and PCI", Status::pass, Severity::error);
  r.add("env.typo", "Environment", Status::warn, Severity::warning);
  r.add("torch.rocm", "PyTorch", Status::skip, Severity::error);
  r.report.gpus.push_back({"Instinct MI300X",
                           "gfx942",
                           "0000:0c:00.0",
                           "amdgpu",
                           {},
                           false,
                           std::nullopt,
                           std::nullopt});
  r.report.outcome.exit_code = 1;
  const std::string text = r.prometheus();

  CHECK(has_line(text, "# TYPE rocdoc_check_status gauge"));
  CHECK(has_line(text,
                 "rocdoc_check_status{check=\"perm.kfd\",area=\"Permissions\","
                 "severity=\"error\"} 2"));
  CHECK(has_line(text,
                 "rocdoc_check_status{check=\"gpu.none\",area=\"Hardware and PCI\","
                 "severity=\"error\"} 0"));
  CHECK(has_line(text,
                 "rocdoc_check_status{check=\"env.typo\",area=\"Environment\","
                 "severity=\"warning\"} 1"));
  CHECK(has_line(text,
                 "rocdoc_check_status{check=\"torch.rocm\",area=\"PyTorch\","
                 "severity=\"error\"} -1"));
  CHECK(has_line(text, "rocdoc_findings{severity=\"error\"} 1"));
  CHECK(has_line(text, "rocdoc_findings{severity=\"warning\"} 1"));
  CHECK(has_line(text, "rocdoc_findings{severity=\"info\"} 0"));
  CHECK(has_line(text, "rocdoc_exit_code 1"));
  CHECK(has_line(text,
                 "rocdoc_gpu_info{gpu=\"0\",bdf=\"0000:0c:00.0\",gfx=\"gfx942\","
                 "name=\"Instinct MI300X\",driver=\"amdgpu\"} 1"));
  CHECK(has_line(text, "rocdoc_gpus 1"));
  // date -u -d 2026-12-01T17:57:08Z +%s
  CHECK(has_line(text, "rocdoc_last_run_timestamp_seconds 1796147828"));
  CHECK(has_line(text, "rocdoc_rules_revision_info{revision=\"2026-11-30\"} 1"));
  CHECK(has_line(text, "rocdoc_rules_revision_timestamp_seconds 1795996800"));
  CHECK(has_line(text, "rocdoc_build_info{version=\"0.1.0\"} 1"));
  // Each family once: HELP and TYPE before its samples.
  CHECK(text.find("# HELP rocdoc_findings ") < text.find("rocdoc_findings{"));
}

TEST_CASE("prometheus: label values of unbounded shape become placeholders") {
  MonitoringReport r;
  r.report.gpus.push_back({"", "", "", "", {}, false, std::nullopt, std::nullopt});
  r.report.gpus.push_back({"Radeon \"RX\"\n<script>",
                           "gfx11;00",
                           "../../etc",
                           "a\"b",
                           {},
                           false,
                           std::nullopt,
                           std::nullopt});
  const std::string text = r.prometheus();
  CHECK(has_line(text,
                 "rocdoc_gpu_info{gpu=\"0\",bdf=\"unknown\",gfx=\"unknown\","
                 "name=\"unknown\",driver=\"none\"} 1"));
  CHECK(has_line(text,
                 "rocdoc_gpu_info{gpu=\"1\",bdf=\"unknown\",gfx=\"unknown\","
                 "name=\"unknown\",driver=\"unknown\"} 1"));
  CHECK(has_line(text, "rocdoc_gpus 2"));
}

TEST_CASE("prometheus: label escaping and time parsing") {
  CHECK(prometheus_label_value("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
  CHECK(prometheus_label_value("Hardware and PCI") == "Hardware and PCI");
  CHECK(prometheus_epoch_seconds("1970-01-01T00:00:00Z") == 0);
  CHECK(prometheus_epoch_seconds("2000-03-01") == 951868800);
  CHECK(prometheus_epoch_seconds("2024-02-29T12:00:00Z") == 1709208000);
  CHECK_FALSE(prometheus_epoch_seconds("").has_value());
  CHECK_FALSE(prometheus_epoch_seconds("2026-13-01").has_value());
  CHECK_FALSE(prometheus_epoch_seconds("2026-12-01 17:57:08Z").has_value());
  CHECK_FALSE(prometheus_epoch_seconds("yesterday").has_value());
}

TEST_CASE("prometheus: a revision that is not a date has no timestamp") {
  MonitoringReport r;
  r.report.rules_revision = "custom\"rules";
  r.report.created = "";
  const std::string text = r.prometheus();
  CHECK(has_line(text, "rocdoc_rules_revision_info{revision=\"unknown\"} 1"));
  CHECK(text.find("rocdoc_rules_revision_timestamp_seconds") == std::string::npos);
  CHECK(text.find("rocdoc_last_run_timestamp_seconds") == std::string::npos);
}

TEST_CASE("npd: ok, root causes only, warnings under --fail-on warning") {
  MonitoringReport r;
  r.add("gpu.none", "Hardware", Status::pass, Severity::error);
  r.add("env.typo", "Environment", Status::warn, Severity::warning);
  CHECK(r.npd() == "rocdoc: ok\n");

  r.report.outcome.fail_on = FailOn::warning;
  CHECK(r.npd() == "rocdoc: env.typo\n");

  MonitoringReport causes;
  causes.add("perm.kfd", "Permissions", Status::fail, Severity::error);
  causes.add("perm.render", "Permissions", Status::fail, Severity::error).caused_by = {"perm.kfd"};
  causes.add("driver.loaded", "Driver", Status::fail, Severity::error);
  CHECK(causes.npd() == "rocdoc: perm.kfd, driver.loaded\n");
}

TEST_CASE("npd: a required check that did not run: nothing could run") {
  MonitoringReport r;
  r.add("torch.rocm", "PyTorch", Status::skip, Severity::error);
  CHECK(r.npd() == "rocdoc: ok, but no check could run\n");
  r.report.outcome.required = {"torch.rocm"};
  CHECK(r.npd() == "rocdoc: torch.rocm not run\n");
}

TEST_CASE("npd: the line fits 80 bytes with +N more for what is left out") {
  MonitoringReport r;
  const char* ids[] = {"python.torch-wheel-arch", "rocm.version-mismatch",
                       "perm.render-group",       "driver.firmware-too-old",
                       "gpu.pcie-atomics",        "env.hsa-override-wrong"};
  for (const char* id : ids) {
    r.add(id, "Area", Status::fail, Severity::error);
  }
  const std::string line = r.npd();
  CHECK(line == "rocdoc: python.torch-wheel-arch, rocm.version-mismatch, +4 more\n");
  CHECK(line.size() - 1 <= k_npd_line_bytes);
}

TEST_CASE("fit_line: byte budget, +N, UTF-8 boundaries") {
  CHECK(fit_line("p: ", {}, 80) == "p: ");
  CHECK(fit_line("p: ", {"a", "b"}, 80) == "p: a, b");
  CHECK(fit_line("p: ", {"aaaa", "bbbb", "cccc"}, 16) == "p: aaaa, +2 more");
  CHECK(fit_line("p: ", {"aaaa", "bbbbbbbb"}, 16) == "p: aaaa, +1 more");
  CHECK(fit_line("p: ", {"aaaa", "bbbbbbbb"}, 17) == "p: aaaa, bbbbbbbb");
  // The first item alone is too long: it is cut and marked.
  CHECK(fit_line("p: ", {"abcdefghijklmnop"}, 10) == "p: abcd...");
  CHECK(fit_line("p: ", {"abcdefghijklmnop", "x"}, 20) == "p: abcde..., +1 more");
  // "é" is two bytes, "€" three, "😀" four: a cut never splits one.
  for (std::size_t budget = 4; budget <= 30; ++budget) {
    const std::string line = fit_line("p: ", {"ééééé€€€😀😀😀", "x"}, budget);
    INFO("budget " << budget << ": " << line);
    CHECK(line.size() <= budget);
    CHECK(utf8_complete(line));
  }
  CHECK(fit_line("p: ", {"éééé"}, 10) == "p: éé...");  // 3 + 4 + 3 bytes
  CHECK(fit_line("p: ", {"€€€"}, 12) == "p: €€€");
  CHECK(fit_line("p: ", {"€€€"}, 11) == "p: €...");
}
