#include "src/commands/snapshot.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <chrono>
#include <ctime>
#include <sstream>

#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/commands/arguments.h"
#include "src/commands/command.h"
#include "src/commands/python_interpreter.h"
#include "src/hosts/live.h"
#include "src/hosts/recording.h"
#include "src/hosts/redacting.h"
#include "src/hosts/snapshot.h"
#include "src/snapshot/archive.h"
#include "src/snapshot/provenance.h"
#include "src/snapshot/writer.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// The machine's name for the default file name, as a safe file-name word.
std::string host_word(const Host& host) {
  std::string name;
  for (const char* path : {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
    if (auto text = host.read_file(path, 256)) {
      name = std::string(util::trim(*text));
      if (!name.empty()) {
        break;
      }
    }
  }
  std::string word;
  for (const char c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    word += safe ? c : '_';
  }
  word = word.substr(0, 64);
  return word.empty() || word.front() == '.' ? "host" : word;
}

/// "2026-12-01T21:40:05Z" → "20261201T214005Z".
std::string compact_time(const std::string& created) {
  std::string compact;
  for (const char c : created) {
    if (c != '-' && c != ':') {
      compact += c;
    }
  }
  return compact;
}

std::string size_words(std::size_t bytes) {
  return bytes < 10 * 1024 ? fmt::format("{} bytes", bytes)
                           : fmt::format("{:.0f} KB", static_cast<double>(bytes) / 1024.0);
}

constexpr std::string_view k_snapshot_exit_codes =
    "Exit codes:\n"
    "  0  the snapshot was written (whatever the findings in it)\n"
    "  2  it could not be: bad arguments, an unreadable source snapshot, invalid rules, or the\n"
    "     file could not be written (it already exists, no space)\n";

/// snapshot's option values that cannot work, before anything is read.
std::optional<std::string> snapshot_argument_problem(const SnapshotOptions& options) {
  if (!options.output.empty() && !options.dir.empty()) {
    return std::string("snapshot --dir: -o names a file and --dir a directory; give one");
  }
  if (auto problem = directory_problem("snapshot --root", options.root)) {
    return problem;
  }
  if (!options.root.empty() && !options.pythons.empty()) {
    return std::string(
        "snapshot --python: it runs an interpreter of this machine; it cannot go with --root");
  }
  if (auto problem =
          deep_timeout_problem("snapshot", options.deep, options.smoke, options.timeout)) {
    return problem;
  }
  if (!options.root.empty() && options.deep) {
    return std::string(
        "snapshot --deep: it loads this machine's runtimes; it cannot go with --root");
  }
  if (!options.root.empty() && options.smoke) {
    return std::string("snapshot --smoke: it runs this machine's torch; it cannot go with --root");
  }
  if (auto problem = directory_problem("snapshot --rules", options.rules)) {
    return problem;
  }
  if (!options.output.empty()) {
    struct ::stat st {};
    if (::lstat(options.output.c_str(), &st) == 0) {
      return "snapshot -o: " + util::printable(options.output) +
             ": already exists; give another name, or remove it";
    }
  }
  return std::nullopt;
}

}  // namespace

int run_snapshot(const SnapshotOptions& options, const std::vector<PythonInterpreter>& interpreters,
                 std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  const auto rules = load_rules(options.rules, KnowledgeParts::machine);
  const Knowledge& knowledge = *rules;
  std::unique_ptr<Host> source;
  if (options.root.empty()) {
    source = std::make_unique<LiveHost>();
  } else {
    source = std::make_unique<SnapshotHost>(options.root);
  }
  std::vector<PythonInterpreter> asked = interpreters;
  if (const auto* snapshot = dynamic_cast<const SnapshotHost*>(source.get());
      snapshot != nullptr && asked.empty()) {
    asked = snapshot->manifest().interpreters;
  }
  std::unique_ptr<RedactingHost> redacting;
  if (options.redact) {
    redacting = std::make_unique<RedactingHost>(*source);
    for (auto& interpreter : asked) {  // the probes see the machine through the placeholders
      interpreter.path = redacting->redact(interpreter.path);
      for (auto& entry : interpreter.sys_path) {
        entry = redacting->redact(entry);
      }
    }
  }
  const Host& inspected = redacting ? *redacting : *source;
  const RecordingHost recorder(inspected);
  Report report = run_report(recorder, knowledge, {}, asked, {},
                             runtime_options(options.deep, options.smoke, options.timeout));
  report.outcome = judge(report, FailOn::error);
  std::ostringstream report_json;
  render_json(report, report_json);
  CaptureInfo info;
  info.created = report.created;
  info.rocdoc_version = ROCDOC_VERSION;
  info.rules_revision = knowledge.revision;
  info.note = options.note.empty() ? "captured by rocdoc snapshot" : options.note;
  info.redacted = options.redact;
  const SnapshotImage image =
      make_snapshot_image(recorder.recording(), info, report_json.str(), asked);
  std::string written;
  try {
    if (!options.dir.empty()) {
      write_snapshot_directory(image, options.dir);
      written = options.dir;
    } else {
      written = !options.output.empty() ? options.output
                                        : "rocdoc-snapshot-" + host_word(inspected) + "-" +
                                              compact_time(report.created) + ".tar.gz";
      write_snapshot_archive(image, written);
    }
  } catch (const std::runtime_error& error) {
    err << "rocdoc: snapshot: cannot write " << util::printable(error.what()) << "\n";
    return 2;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const Summary summary = report.summary();
  out << fmt::format("wrote {}: {} files, {} of content, in {:.0f} ms\n", util::printable(written),
                     image.files.size(), size_words(image.bytes()), ms);
  out << fmt::format("at capture: {} error{}, {} warning{} ({} check{} passed)\n", summary.errors,
                     summary.errors == 1 ? "" : "s", summary.warnings,
                     summary.warnings == 1 ? "" : "s", summary.passed,
                     summary.passed == 1 ? "" : "s");
  out << "It holds only what rocdoc read" << (options.redact ? ", redacted" : "")
      << "; attach it to the ticket. To diagnose it again:\n  rocdoc check "
      << (options.dir.empty() ? "--snapshot " : "--root ") << util::shell_word(written) << "\n";
  return 0;
}

RegisteredCommand add_snapshot_options(CLI::App& command, const CLI::App& /*app*/) {
  auto state = std::make_shared<SnapshotOptions>();
  CLI::App* snapshot = &command;
  SnapshotOptions& snapshot_options = *state;
  snapshot
      ->add_option("-o,--output", snapshot_options.output,
                   "Write the snapshot to FILE (default: rocdoc-snapshot-HOST-TIME.tar.gz here); "
                   "an existing file is never replaced")
      ->type_name("FILE")
      ->take_last();
  snapshot
      ->add_option("--dir", snapshot_options.dir,
                   "Write an unpacked snapshot directory instead (read it with check --root)")
      ->type_name("DIR")
      ->take_last();
  snapshot->add_flag("--redact", snapshot_options.redact,
                     "Replace host and user names, home directories, other groups, kernel "
                     "command-line values, serial numbers and GPU unique ids with placeholders");
  snapshot
      ->add_option("--note", snapshot_options.note,
                   "Free text for the manifest (a ticket number, what was going on)")
      ->type_name("TEXT")
      ->take_last();
  snapshot
      ->add_option("--root", snapshot_options.root,
                   "Capture a snapshot directory again instead of this machine")
      ->type_name("DIR")
      ->take_last();
  snapshot
      ->add_option("--rules", snapshot_options.rules,
                   "Judge the report inside with the rules in DIR")
      ->type_name("DIR")
      ->take_last();
  snapshot
      ->add_option("--python", snapshot_options.pythons,
                   "Also search the environment of this interpreter (runs it once to ask for "
                   "sys.path; the snapshot keeps the answer)")
      ->type_name("PATH");
  snapshot->add_flag("--deep", snapshot_options.deep,
                     "Also load the HIP runtime, rocm_smi_lib and the HSA runtime in child "
                     "processes; the snapshot keeps what they said");
  snapshot->add_flag("--smoke", snapshot_options.smoke,
                     "Also run each torch found on the GPUs in a child process (as check --smoke); "
                     "the snapshot keeps what they printed");
  snapshot
      ->add_option("--timeout", snapshot_options.timeout,
                   "With --deep or --smoke: how long the runtimes (default 10) or each torch run "
                   "(default 60) may take, in seconds")
      ->type_name("SECONDS")
      ->take_last();
  snapshot->footer(std::string(k_snapshot_exit_codes));
  return {[state] { return snapshot_argument_problem(*state); },
          [state](const CommandStreams& io) {
            std::vector<PythonInterpreter> interpreters;
            for (const auto& python : state->pythons) {
              interpreters.push_back(ask_interpreter(python));
            }
            return run_snapshot(*state, interpreters, io.out, io.err);
          }};
}

}  // namespace rocdoc
