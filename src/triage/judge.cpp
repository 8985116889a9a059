// Triage's judging: the facts a log showed turned into a machine (GPU-less mode, as check --gpu
// judges one), judged by the check functions themselves, and the signatures' own findings; the
// exit code. The log is scanned in scan.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "probes/torch_origin.h"
#include "rocdoc/check.h"
#include "rocdoc/gfx_target.h"
#include "src/hosts/declared_gpus.h"
#include "src/triage/scan.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

int rank(Severity severity) {
  return severity == Severity::error ? 2 : severity == Severity::warning ? 1 : 0;
}

Severity severity_of(const std::string& name) {
  return name == "error" ? Severity::error : name == "warning" ? Severity::warning : Severity::info;
}

/// The machine the log describes, as facts the software checks read: the GPUs are declared
/// (GPU-less mode), torch sits in one Python environment, the override is set.
struct LogMachine {
  Facts facts;
  std::vector<DeclaredGpu> gpus;
  std::vector<std::size_t> lines;  ///< the lines these facts came from
  /// The packages and their lines: a finding about packages quotes those it names.
  std::vector<std::pair<std::string, std::size_t>> package_lines;
};

/// "AMD Radeon RX 5700 XT (gfx1010:xnack-)" → "Radeon RX 5700 XT": the log's own words for a
/// product, without the vendor and what follows in parentheses.
std::string product_words(std::string_view name) {
  name = util::trim(name.substr(0, name.find(" (")));
  if (name.substr(0, 4) == "AMD ") {
    name.remove_prefix(4);
  }
  return std::string(util::trim(name));
}

/// The name the log itself gives the GPU of target `gfx` (N4: "RX 5700 XT", not the first product
/// of gfx1010): a name on the same line (collect_env, a PCI id's line), else a name in the log
/// that the rules take for the same target, else the log's only name when it has only this
/// target. nullopt: the rules' product name stays.
std::optional<std::string> log_name_of(const LogFacts& found, const LogFact& gfx,
                                       const Knowledge& knowledge) {
  for (const auto& name : found.gpu_names) {
    if (name.line == gfx.line) {
      return product_words(name.value);
    }
  }
  for (const auto& name : found.gpu_names) {
    try {
      const auto gpus = parse_declared_gpus(knowledge, {product_words(name.value)});
      if (gpus.size() == 1 && gpus.front().gfx_target == gfx.value) {
        return product_words(name.value);
      }
    } catch (const std::exception&) {  // a name the rules do not know
    }
  }
  if (found.gpu_names.size() == 1 && found.gfx_targets.size() == 1) {
    return product_words(found.gpu_names.front().value);
  }
  return std::nullopt;
}

LogMachine machine_of(const LogFacts& found, const Knowledge& knowledge) {
  LogMachine machine;
  Facts& facts = machine.facts;
  facts.pci = PciFacts{};
  facts.driver = DriverFacts{};
  facts.access = AccessFacts{};
  facts.kfd = KfdFacts{};
  facts.system = SystemFacts{};
  facts.env = EnvFacts{};
  facts.rocm = RocmFacts{};
  facts.python = PythonFacts{};
  // Each GPU as `rocdoc check --gpu` declares it (the same name and target), from its gfx
  // target, else from a product name the rules know.
  const auto declare = [&](const LogFact& fact) {
    try {
      for (auto& gpu : parse_declared_gpus(knowledge, {fact.value})) {
        machine.gpus.push_back(std::move(gpu));
        machine.lines.push_back(fact.line);
      }
    } catch (const std::exception&) {  // a target or name the rules do not know: no GPU
    }
  };
  for (const auto& gfx : found.gfx_targets) {
    if (knowledge.target(gfx.value) != nullptr) {
      const std::size_t before = machine.gpus.size();
      declare(gfx);
      for (std::size_t i = before; i < machine.gpus.size(); ++i) {
        if (auto name = log_name_of(found, gfx, knowledge)) {
          machine.gpus[i].name = std::move(*name);
        }
      }
    }
  }
  if (machine.gpus.empty()) {
    for (const auto& name : found.gpu_names) {
      if (name.value.find(',') == std::string::npos) {
        declare(name);
      }
    }
  }
  if (found.nvidia_gpu) {  // python.cuda-packages: CUDA packages may be for this GPU
    PciDevice nvidia;
    nvidia.bdf = "the log";
    nvidia.vendor = 0x10de;
    nvidia.class_code = 0x030000;
    nvidia.gpu = GpuVendor::nvidia;
    facts.pci->devices.push_back(std::move(nvidia));
  }
  if (!found.overrides.empty()) {
    facts.env->variables[found.overrides.front().name] = found.overrides.front().value;
    machine.lines.push_back(found.overrides.front().line);
  }
  const bool torch = found.torch && found.torch_build;
  if (torch || !found.packages.empty()) {
    PythonEnvironment environment;
    if (found.site_packages) {
      environment.site_dir = found.site_packages->value;
      // <prefix>/lib/pythonX.Y/site-packages
      const std::string parent = util::parent_path(util::parent_path(environment.site_dir));
      const auto lib = parent.rfind("/lib");
      environment.prefix = lib != std::string::npos && lib + 4 == parent.size()
                               ? parent.substr(0, lib)
                               : std::string();
      machine.lines.push_back(found.site_packages->line);
    }
    if (environment.prefix.empty()) {
      // Where the environment lives is not in the log: software.cpp's python_of() then says
      // python3, as for the user site (~/.local), which belongs to whichever python3 is run.
      environment.prefix = "~/.local";
      environment.site_dir = "the Python environment of the log";
    }
    environment.found_by.push_back("the log");
    if (found.python) {
      environment.python_version = found.python->value;
    }
    if (torch) {
      TorchInstall install;
      install.version = found.torch->value;
      install.build = *found.torch_build;
      classify_torch(install, environment.site_dir, knowledge);
      environment.torch = std::move(install);
      machine.lines.push_back(found.torch->line);
    }
    // The packages of the log's lists.
    for (const auto& package : found.packages) {
      if (package.name == "torch" || package.name == "torchvision" ||
          package.name == "torchaudio") {
        continue;  // torch is the environment's torch; its companions come just below
      }
      environment.packages.push_back({package.name, package.value, {}});
      machine.package_lines.emplace_back(package.name, package.line);
    }
    for (const auto* companion : {&found.torchvision, &found.torchaudio}) {
      if (*companion) {
        environment.packages.push_back(
            {companion == &found.torchvision ? "torchvision" : "torchaudio",
             (*companion)->value,
             {}});
        machine.package_lines.emplace_back(environment.packages.back().name, (*companion)->line);
      }
    }
    facts.python->environments.push_back(std::move(environment));
  }
  return machine;
}

/// The software checks the facts of a log can answer, as `rocdoc check --gpu` would.
constexpr std::array<std::string_view, 6> k_fact_checks = {
    "arch.unsupported", "arch.override-wrong", "torch.cuda-wheel",
    "torch.cpu-wheel",  "torch.companions",    "python.cuda-packages"};

std::map<std::string, CheckResult> judge_facts(const LogMachine& machine,
                                               const Knowledge& knowledge) {
  std::map<std::string, CheckResult> results;
  const bool torch = !machine.facts.python->environments.empty();
  if (machine.gpus.empty() && !torch) {
    return results;
  }
  GpuInventory inventory = declared_gpu_inventory(machine.gpus, knowledge);
  const CheckContext context{machine.facts, knowledge, std::move(inventory.gpus),
                             std::move(inventory.withheld)};
  for (const auto id : k_fact_checks) {
    const CheckInfo* info = find_check(id);
    if (info == nullptr) {
      continue;
    }
    try {
      results.emplace(std::string(id), info->run(context));
    } catch (const std::exception&) {  // as the runner: an exception is no verdict
    }
  }
  return results;
}

std::vector<Fix> fixes_of(const TriageSignature& signature) {
  std::vector<Fix> fix;
  for (const auto& f : signature.fixes) {
    const FixKind kind = f.command.empty()            ? FixKind::manual
                         : f.kind == "container_flag" ? FixKind::container_flag
                         : f.kind == "file_edit"      ? FixKind::file_edit
                                                      : FixKind::shell;
    fix.push_back({f.description, f.command, f.needs_root, kind});
  }
  return fix;
}

/// In a container the groups are the host's, added where it is started (as check says in
/// perm.container-groups): the numeric gids, read on the host; never a usermod in the image.
std::vector<Fix> container_group_fixes(const std::string& runtime) {
  if (runtime == "kubernetes") {
    return {
        {"The log comes from a pod: give it the device nodes' groups in the pod spec, under "
         "spec.securityContext, with the numeric gids of /dev/kfd and /dev/dri/renderD* on "
         "the node (stat -c %g /dev/kfd shows one), then recreate the pod",
         "supplementalGroups: [<gid of /dev/kfd>, <gid of /dev/dri/renderD128>]", false,
         FixKind::file_edit}};
  }
  return {
      {"The log comes from a container: start it with the host's numeric groups of the "
       "device nodes (add to " +
           runtime +
           " run; the $(…) is read on the host, where names and numbers can differ from "
           "the image's)",
       "--group-add \"$(stat -c %g /dev/kfd)\" --group-add \"$(stat -c %g "
       "/dev/dri/renderD128)\"",
       false, FixKind::container_flag}};
}

/// The lines of `text` numbered in `wanted` (from 1), quoted as findings quote them: cut at
/// k_max_triage_line, without a CR before the LF.
std::vector<LogLine> quote_lines(std::string_view text, std::set<std::size_t> wanted) {
  std::vector<LogLine> quoted;
  std::size_t number = 0;
  std::size_t start = 0;
  while (start < text.size() && !wanted.empty()) {
    const std::size_t newline = text.find('\n', start);
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline;
    ++number;
    if (wanted.erase(number) != 0) {
      std::string_view line = text.substr(start, std::min(end - start, k_max_triage_line));
      if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
      }
      quoted.push_back(quote(number, line));
    }
    start = end + 1;
  }
  return quoted;
}

void add_lines(std::vector<LogLine>& lines, const std::vector<LogLine>& more) {
  for (const auto& line : more) {
    const bool seen = std::any_of(lines.begin(), lines.end(),
                                  [&](const LogLine& l) { return l.number == line.number; });
    if (!seen && lines.size() < 2 * k_max_quoted_lines) {
      lines.push_back(line);
    }
  }
}

/// What the text does not tell, so nothing about it was judged (issue 27 §3).
std::vector<NotInLog> missing_facts(const LogFacts& facts) {
  std::vector<NotInLog> missing;
  if (facts.gfx_targets.empty() && facts.gpu_names.empty()) {
    missing.push_back({"gpu", "the GPU: no gfx target, product name or AMD PCI id"});
  }
  if (!facts.torch && !facts.torch_build) {
    missing.push_back({"torch", "torch: no version or build"});
  }
  if (!facts.rocm) {
    missing.push_back({"rocm", "the ROCm or HIP version"});
  }
  if (std::none_of(facts.tools.begin(), facts.tools.end(),
                   [](const LogFact& tool) { return tool.value.rfind("a kernel log", 0) == 0; })) {
    missing.push_back({"kernel-log", "a kernel log (dmesg): the driver's and the GPU's errors"});
  }
  return missing;
}

/// A signature's hit joins the finding of its check: severity (the worst), message, lines,
/// sources, and the first hit's fixes; in a container, the container's fixes.
void add_signature_hit(TriageFinding& finding, const SignatureHit& hit, const LogFacts& facts,
                       std::string_view text) {
  const TriageSignature& signature = *hit.signature;
  const Severity severity = severity_of(signature.severity);
  if (finding.signatures.empty() || rank(severity) > rank(finding.severity)) {
    finding.severity = severity;
  }
  finding.signatures.push_back(signature.id);
  finding.message += (finding.message.empty() ? "" : "; ") + signature.message;
  add_lines(finding.lines, hit.lines);
  finding.matched_lines += hit.count;
  if (finding.fix.empty()) {
    finding.fix = fixes_of(signature);
    finding.fix_order =
        signature.fix_order == "alternatives" ? FixOrder::alternatives : FixOrder::steps;
    const bool permissions = finding.check == "perm.kfd" || finding.check == "perm.render";
    if (facts.container && permissions) {
      finding.fix = container_group_fixes(facts.container->value);
      finding.fix_from_facts = true;
      add_lines(finding.lines, quote_lines(text, {facts.container->line}));
    } else if (facts.container && finding.fix_order == FixOrder::alternatives) {
      // The log comes from a container: of "in a container … / on a host …" the container's
      // way is the one (issue 27 §3).
      std::vector<Fix> in_container;
      std::copy_if(finding.fix.begin(), finding.fix.end(), std::back_inserter(in_container),
                   [](const Fix& fix) { return fix.kind == FixKind::container_flag; });
      if (!in_container.empty()) {
        finding.fix = std::move(in_container);
        finding.fix_from_facts = true;
        add_lines(finding.lines, quote_lines(text, {facts.container->line}));
      }
    }
  }
  for (const auto source : util::split(signature.source, ';')) {
    const std::string trimmed(util::trim(source));
    if (!trimmed.empty() && std::find(finding.sources.begin(), finding.sources.end(), trimmed) ==
                                finding.sources.end()) {
      finding.sources.push_back(trimmed);
    }
  }
}

/// What the check function says of the log's facts joins the finding, with the lines it rests on
/// (for a package check, those of the packages it names) and its fix, which is check's own.
void add_fact_verdict(TriageFinding& finding, const CheckResult& result,
                      const std::vector<LogLine>& fact_lines, const LogMachine& machine,
                      std::string_view text) {
  if (finding.signatures.empty() || rank(result.severity) > rank(finding.severity)) {
    finding.severity = result.severity;
  }
  finding.message += (finding.message.empty() ? "" : ". ") +
                     std::string("From the facts in the log, rocdoc check says: ") + result.message;
  add_lines(finding.lines, fact_lines);
  if (finding.check == "python.cuda-packages" || finding.check == "torch.companions") {
    std::string named_in = " " + result.message + " ";
    for (const auto& fix : result.fix) {
      named_in += fix.command + " ";
    }
    std::set<std::size_t> named;
    for (const auto& [name, line] : machine.package_lines) {
      if (named_in.find(" " + name + " ") != std::string::npos) {
        named.insert(line);
      }
    }
    add_lines(finding.lines, quote_lines(text, std::move(named)));
  }
  if (!result.fix.empty()) {
    finding.fix = result.fix;
    finding.fix_order = result.fix_order;
    finding.fix_from_facts = true;
  }
}

}  // namespace

TriageReport triage_log(std::string_view text, const Knowledge& knowledge) {
  return triage_log(text, LogMatcher(knowledge));
}

TriageReport triage_log(std::string_view text, const LogMatcher& matcher) {
  const Knowledge& knowledge = matcher.knowledge();
  check_triage_signatures(knowledge);
  TriageReport report;
  report.scan = scan_log(text, matcher);
  report.signatures = knowledge.triage_signatures.size();
  report.not_in_log = missing_facts(report.scan.facts);
  const LogMachine machine = machine_of(report.scan.facts, knowledge);
  const auto judged = judge_facts(machine, knowledge);
  // The lines the facts came from, quoted for findings that rest on the facts.
  const std::vector<LogLine> fact_lines =
      quote_lines(text, std::set<std::size_t>(machine.lines.begin(), machine.lines.end()));
  for (const auto& info : check_table()) {
    TriageFinding finding;
    finding.check = std::string(info.id);
    finding.title = std::string(info.title);
    finding.area = std::string(info.area);
    for (const auto& hit : report.scan.hits) {
      if (hit.signature->check == finding.check) {
        add_signature_hit(finding, hit, report.scan.facts, text);
      }
    }
    const auto verdict = judged.find(finding.check);
    // A notice ("works, not supported by AMD") is no problem: only warnings and errors count.
    const bool facts_fail =
        verdict != judged.end() &&
        (verdict->second.status == Status::fail || verdict->second.status == Status::warn) &&
        verdict->second.severity != Severity::info;
    if (finding.signatures.empty() && !facts_fail) {
      continue;
    }
    if (facts_fail) {
      add_fact_verdict(finding, verdict->second, fact_lines, machine, text);
    }
    std::sort(finding.lines.begin(), finding.lines.end(),
              [](const LogLine& a, const LogLine& b) { return a.number < b.number; });
    finding.status = finding.severity == Severity::error ? Status::fail : Status::warn;
    report.findings.push_back(std::move(finding));
  }
  return report;
}

int triage_exit_code(const TriageReport& report, FailOn fail_on) {
  for (const auto& finding : report.findings) {
    if ((fail_on == FailOn::error && finding.severity == Severity::error) ||
        (fail_on == FailOn::warning && finding.severity != Severity::info)) {
      return 1;
    }
  }
  return 0;
}

}  // namespace rocdoc
