// The probe table: one row per probe, in report order (probes/probes.cpp says how they run).
#pragma once

#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/host.h"
#include "rocdoc/knowledge_source.h"

namespace rocdoc {

/// An interpreter named with --python, and the sys.path it reported (asked once).
struct PythonInterpreter {
  std::string path;
  std::vector<std::string> sys_path;
};

/// --deep (load the runtimes in children), --smoke (run torch in children) and --timeout.
struct RuntimeOptions {
  RuntimeMode mode = RuntimeMode::recorded_only;
  std::chrono::milliseconds timeout{10'000};
  SmokeMode smoke = SmokeMode::recorded_only;
  std::chrono::milliseconds smoke_timeout{60'000};
};

struct ProbeContext {
  const Host& host;
  /// Waits for the rules while they are built: read it only where needed, after the reading.
  const KnowledgeSource& knowledge;
  const std::vector<PythonInterpreter>& interpreters;
  RuntimeOptions runtime;
};

struct ProbeInfo {
  std::string_view name;
  std::string_view description;
  void (*run)(const ProbeContext&, Facts&);  ///< fills its member of Facts; may throw
  bool (*has_facts)(const Facts&);           ///< whether its member of Facts is filled
  /// The probe whose facts this one reads (run before it); empty when it reads none.
  std::string_view reads_facts_of = {};
};

const ProbeInfo* find_probe(std::string_view name);

std::span<const ProbeInfo> probe_table();

}  // namespace rocdoc
