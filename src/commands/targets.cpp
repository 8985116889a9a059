#include "src/commands/targets.h"
#include "rocdoc/gfx_target.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"
#include "src/binaries/offload_file.h"
#include "src/binaries/tensile_names.h"
#include "src/commands/arguments.h"
#include "src/commands/command.h"
#include "src/hosts/live.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

using Json = nlohmann::ordered_json;

/// What one FILE holds.
struct TargetsAnswer {
  std::string path;
  std::string kind;  ///< shared_object, fat_object, bundle_file, code_object, tensile_directory,
                     ///< none
  OffloadScan scan;
  std::vector<std::string> targets;
};

std::string kind_name(OffloadContainer container) {
  switch (container) {
    case OffloadContainer::elf_sections:
      return "shared_object";
    case OffloadContainer::fat_object:
      return "fat_object";
    case OffloadContainer::bundle_file:
      return "bundle_file";
    case OffloadContainer::code_object:
      return "code_object";
    case OffloadContainer::none:
      break;
  }
  return "none";
}

/// Targets in the order the check report uses: by GPU generation (gfx803 < gfx900 < gfx90a <
/// gfx1030), features after the plain name, names that are no gfx target last (N25).
void sort_targets(std::vector<std::string>& targets) {
  const auto key = [](const std::string& target) {
    const std::string name = target.substr(0, target.find(':'));
    const auto kfd = kfd_from_gfx_name(name);
    return std::make_tuple(!kfd.has_value(), kfd.value_or(0), target);
  };
  std::stable_sort(targets.begin(), targets.end(),
                   [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
}

/// Which of `targets` runs on the GPU target `gpu` ("gfx1100"): the target itself, in any
/// feature variant ("gfx90a:xnack-"), its LLVM generic family ("gfx11-generic", from the
/// rules), or SPIR-V, compiled for any GPU when loaded; "" when none does.
std::string runs_on(const std::vector<std::string>& targets, const std::string& gpu,
                    const Knowledge& knowledge) {
  const GfxTarget* known = knowledge.target(gpu);
  const std::string generic = known != nullptr ? known->generic : std::string();
  for (const std::string& wanted : {gpu, generic, std::string("amdgcnspirv")}) {
    // The plain name first, then xnack- (XNACK is off unless the user turns it on), then any.
    for (const std::string& exact : {wanted, wanted + ":xnack-"}) {
      if (!wanted.empty() && std::find(targets.begin(), targets.end(), exact) != targets.end()) {
        return exact;
      }
    }
    for (const auto& target : targets) {
      if (!wanted.empty() && target.substr(0, target.find(':')) == wanted) {
        return target;
      }
    }
  }
  return {};
}

std::optional<TargetsAnswer> answer_for(const std::string& path, std::ostream& err) {
  TargetsAnswer answer;
  answer.path = path;
  // O_NONBLOCK: naming a FIFO must not hang the command.
  util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) {
    err << "rocdoc: targets: cannot open " << util::printable(path) << ": " << errno_name(errno)
        << "\n";
    return std::nullopt;
  }
  struct ::stat st {};
  if (::fstat(fd.get(), &st) == 0 && S_ISDIR(st.st_mode)) {
    answer.kind = "tensile_directory";
    answer.targets = tensile_targets(list_local_dir(path).value_or(std::vector<std::string>{}));
    return answer;
  }
  answer.scan = scan_offload_file(std::move(fd));
  answer.kind = kind_name(answer.scan.container);
  answer.targets = answer.scan.targets();
  return answer;
}

std::size_t compressed_count(const OffloadScan& scan, BundleCompression method) {
  return static_cast<std::size_t>(std::count_if(
      scan.bundles.begin(), scan.bundles.end(),
      [method](const OffloadBundle& bundle) { return bundle.compression == method; }));
}

std::string target_words(const std::string& target) {
  return target == "amdgcnspirv" ? "amdgcnspirv (SPIR-V: compiled for the GPU when loaded)"
                                 : util::printable(target);
}

std::string bundle_summary(const TargetsAnswer& answer) {
  const OffloadScan& scan = answer.scan;
  if (answer.kind == "tensile_directory") {
    return "from the names of its Tensile files";
  }
  if (answer.kind == "code_object") {
    return "an AMDGPU code object";
  }
  if (answer.kind == "fat_object") {
    return "from the offload sections of a relocatable object";
  }
  std::string text = "from " + std::to_string(scan.bundles.size()) + " offload bundle" +
                     (scan.bundles.size() == 1 ? "" : "s") +
                     (answer.kind == "shared_object" ? " in .hip_fatbin" : "");
  const auto zstd = compressed_count(scan, BundleCompression::zstd);
  const auto zlib = compressed_count(scan, BundleCompression::zlib);
  if (zstd + zlib == 0) {
    return text + " (uncompressed)";
  }
  text += " (";
  if (zstd != 0) {
    text += std::to_string(zstd) + " zstd-compressed";
  }
  if (zlib != 0) {
    text += std::string(zstd != 0 ? ", " : "") + std::to_string(zlib) + " zlib-compressed";
  }
  return text + ")";
}

void render_human(const std::vector<TargetsAnswer>& answers, const std::string& has,
                  const Knowledge& knowledge, std::ostream& out) {
  for (const auto& answer : answers) {
    out << util::printable(answer.path) << "\n";
    if (!has.empty()) {
      const std::string found = runs_on(answer.targets, has, knowledge);
      out << "  " << has << ": "
          << (found.empty()            ? "no code that runs on it"
              : found == has           ? "yes"
              : found == "amdgcnspirv" ? "yes, as SPIR-V (compiled for it when loaded)"
                                       : "yes, through " + util::printable(found))
          << "\n";
    }
    if (!answer.targets.empty()) {
      std::vector<std::string> words;
      std::vector<std::string> ordered = answer.targets;  // JSON keeps them sorted as text
      sort_targets(ordered);
      for (const auto& target : ordered) {
        words.push_back(target_words(target));
      }
      out << "  targets: " << util::join(words, " ") << "\n";
      out << "  " << bundle_summary(answer) << "\n";
    } else if (answer.scan.problems.empty()) {
      out << "  no GPU code"
          << (answer.kind == "tensile_directory"
                  ? " (no file name names a gfx target: a directory is read as a rocBLAS or "
                    "hipBLASLt library directory; to read the libraries in it, name them: "
                    "rocdoc targets DIR/*.so*)"
                  : " (no offload bundle with a GPU entry)")
          << "\n";
    }
    for (const auto& problem : answer.scan.problems) {
      out << "  problem: " << util::printable(problem) << "\n";
    }
    const auto wrappers = answer.scan.wrapper_count;
    if (wrappers && answer.scan.problems.empty() && *wrappers != answer.scan.bundles.size()) {
      out << "  note: .hipFatBinSegment registers " << *wrappers << " bundle"
          << (*wrappers == 1 ? "" : "s") << "; " << answer.scan.bundles.size() << " were read\n";
    }
  }
}

void render_json(const std::vector<TargetsAnswer>& answers, const std::string& has,
                 const Knowledge& knowledge, std::ostream& out) {
  Json files = Json::array();
  for (const auto& answer : answers) {
    const std::string found = has.empty() ? std::string() : runs_on(answer.targets, has, knowledge);
    Json compressed = {{"zstd", compressed_count(answer.scan, BundleCompression::zstd)},
                       {"zlib", compressed_count(answer.scan, BundleCompression::zlib)}};
    files.push_back({{"path", answer.path},
                     {"kind", answer.kind},
                     {"targets", answer.targets},
                     {"bundles", answer.scan.bundles.size()},
                     {"compressed_bundles", compressed},
                     {"registered_bundles",
                      answer.scan.wrapper_count ? Json(*answer.scan.wrapper_count) : Json(nullptr)},
                     {"problems", answer.scan.problems}});
    if (!has.empty()) {
      files.back()["has"] = {{"target", has},
                             {"runs", !found.empty()},
                             {"through", found.empty() ? Json(nullptr) : Json(found)}};
    }
  }
  const Json document = {{"schema", "rocdoc-targets/1"}, {"files", files}};
  out << document.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

}  // namespace

int run_targets(const TargetsOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<TargetsAnswer> answers;
  bool unopened = false;
  for (const auto& path : options.files) {
    if (auto answer = answer_for(path, err)) {
      answers.push_back(std::move(*answer));
    } else {
      unopened = true;
    }
  }
  const Knowledge& knowledge = embedded_knowledge(KnowledgeParts::machine);
  if (options.json) {
    render_json(answers, options.has, knowledge, out);
  } else {
    render_human(answers, options.has, knowledge, out);
  }
  if (unopened) {
    return 2;  // the files that could be opened are still answered
  }
  const bool all_good = std::all_of(answers.begin(), answers.end(), [&](const TargetsAnswer& a) {
    return !a.targets.empty() && a.scan.problems.empty() &&
           (options.has.empty() || !runs_on(a.targets, options.has, knowledge).empty());
  });
  return all_good ? 0 : 1;
}

RegisteredCommand add_targets_options(CLI::App& command, const CLI::App& /*app*/) {
  auto state = std::make_shared<TargetsOptions>();
  CLI::App* targets = &command;
  TargetsOptions& targets_options = *state;
  targets->add_option("FILE", targets_options.files, "A HIP binary or a rocblas/library directory")
      ->type_name("");
  targets->add_flag("--json", targets_options.json, "Print JSON (schema rocdoc-targets/1)");
  targets
      ->add_option("--has", targets_options.has,
                   "Say whether each FILE has code that runs on this GPU target (gfx1100); exit 1 "
                   "when one has none")
      ->type_name("GFX")
      ->take_last();
  targets->footer(std::string(k_targets_exit_codes));
  return {[state]() -> std::optional<std::string> {
            if (state->files.empty()) {
              return "targets: name at least one file (a HIP binary such as "
                     "torch/lib/libtorch_hip.so, or a rocblas/library directory)";
            }
            if (!state->has.empty() && !kfd_from_gfx_name(state->has)) {
              return "targets --has: '" + util::printable(state->has) +
                     "' is not a gfx target such as gfx1100 or gfx90a";
            }
            return std::nullopt;
          },
          [state](const CommandStreams& io) { return run_targets(*state, io.out, io.err); }};
}

}  // namespace rocdoc
