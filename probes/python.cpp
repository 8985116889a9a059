#include "probes/python.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "probes/gpu_code.h"
#include "probes/python_locations.h"
#include "probes/rocm_sdk.h"
#include "probes/torch_origin.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_packages[] = {
    "torch", "torchvision", "torchaudio", "pytorch-triton-rocm", "triton-rocm", "triton"};

/// The python3.N entries of DIR ("/usr/lib" → python3.11, python3.12).
std::vector<std::string> python_names(const Host& host, const std::string& dir) {
  std::vector<std::string> found;
  if (const auto names = host.list_dir(dir)) {
    for (const auto& name : *names) {
      if (name.rfind("python3.", 0) == 0 && util::parse_unsigned(name.substr(8))) {
        found.push_back(name);
      }
    }
  }
  return found;
}

/// pyvenv.cfg's include-system-site-packages = true.
bool pyvenv_includes_system(const Host& host, const std::string& prefix) {
  const auto config = host.read_file(prefix + "/pyvenv.cfg", 16 * 1024);
  if (!config) {
    return false;
  }
  for (const auto line : util::lines(*config)) {
    const auto equals = line.find('=');
    if (equals != std::string_view::npos &&
        util::trim(line.substr(0, equals)) == "include-system-site-packages") {
      return util::to_lower(util::trim(line.substr(equals + 1))) == "true";
    }
  }
  return false;
}

bool is_pyenv_shims(const Host& host, const std::string& dir) {
  const auto root = host.env("PYENV_ROOT");
  return (root && dir == *root + "/shims") ||
         (dir.size() > 13 && dir.substr(dir.size() - 13) == "/.pyenv/shims");
}

/// The prefixes that PATH's python3 interpreters belong to, and the first python3 on PATH.
std::vector<PythonPrefix> path_prefixes(const Host& host, std::optional<PathPython>& first) {
  std::vector<PythonPrefix> prefixes;
  const auto path = host.env("PATH");
  if (!path) {
    return prefixes;
  }
  const auto parts = util::split(*path, ':');
  check_bound(parts.size(), k_max_python_prefixes, "PATH entries", "PATH");
  for (const auto part : parts) {
    const std::string dir(part);
    if (dir.empty() || dir.front() != '/' || !host.stat(dir + "/python3")) {
      continue;
    }
    const std::string python = dir + "/python3";
    const std::string target = follow_links(host, python);
    if (!first) {
      first = PathPython{python, target == python ? std::nullopt : std::optional(target), false};
    }
    if (is_pyenv_shims(host, dir)) {
      continue;  // pyenv_prefixes() follows the shims to the version they run
    }
    // A venv's bin/python3 links to its base interpreter; the venv is the environment.
    const std::string parent = util::parent_path(dir);
    const bool venv = host.stat(parent + "/pyvenv.cfg").has_value();
    const std::string prefix = venv ? parent : util::parent_path(util::parent_path(target));
    prefixes.push_back(
        {prefix, std::string(venv ? "venv python3 on PATH in " : "python3 on PATH in ") + dir});
    if (venv && pyvenv_includes_system(host, prefix)) {
      prefixes.push_back({"/usr", "system site of the venv in " + prefix});
    }
  }
  return prefixes;
}

std::vector<PythonPrefix> candidate_prefixes(const Host& host,
                                             const std::vector<std::string>& homes,
                                             std::optional<PathPython>& first) {
  std::vector<PythonPrefix> candidates;
  if (const auto venv = host.env("VIRTUAL_ENV")) {
    candidates.push_back({*venv, "VIRTUAL_ENV"});
  }
  if (const auto conda = host.env("CONDA_PREFIX")) {
    candidates.push_back({*conda, "CONDA_PREFIX"});
  }
  for (auto& prefix : path_prefixes(host, first)) {
    candidates.push_back(std::move(prefix));
  }
  for (const auto& home : homes) {
    for (auto* finder : {&pyenv_prefixes, &conda_prefixes, &uv_prefixes}) {
      for (auto& prefix : finder(host, home)) {
        candidates.push_back(std::move(prefix));
      }
    }
  }
  check_bound(candidates.size(), k_max_python_prefixes, "places that may hold a Python environment",
              "VIRTUAL_ENV, PATH, pyenv, conda, uv");
  return candidates;
}

/// The environments found so far, each with its site directory's links resolved once.
struct FoundEnvironments {
  std::vector<PythonEnvironment>& environments;
  std::vector<std::string> real_site_dirs;  ///< one per environment
  /// The python3.N entries of each lib directory listed, by its real path: "/lib" is "/usr/lib"
  /// on a merged /usr, and /usr/local/lib is a place of several prefixes.
  std::map<std::string, std::vector<std::string>> python_names;
  LinksRead links;  ///< the links read while resolving the directories above
};

/// python3.N directories under DIR ("/usr/lib" → /usr/lib/python3.12), each real directory
/// listed once.
std::vector<std::string> python_dirs(const Host& host, FoundEnvironments& found,
                                     const std::string& dir) {
  const std::string real = resolve_links(host, dir, found.links);
  auto listed = found.python_names.find(real);
  if (listed == found.python_names.end()) {
    listed = found.python_names.emplace(real, python_names(host, dir)).first;
  }
  std::vector<std::string> dirs;
  for (const auto& name : listed->second) {
    dirs.push_back(dir + "/" + name);
  }
  return dirs;
}

void add_site_dir(const Host& host, FoundEnvironments& found, const std::string& site_dir,
                  const std::string& prefix, const std::string& found_by) {
  auto& environments = found.environments;
  auto existing = std::find_if(environments.begin(), environments.end(),
                               [&](const PythonEnvironment& e) { return e.site_dir == site_dir; });
  std::string real;
  if (existing == environments.end()) {
    real = resolve_links(host, site_dir, found.links);
    const auto same = std::find(found.real_site_dirs.begin(), found.real_site_dirs.end(), real);
    existing = environments.begin() + (same - found.real_site_dirs.begin());
  }
  if (existing != environments.end()) {
    if (std::find(existing->found_by.begin(), existing->found_by.end(), found_by) ==
        existing->found_by.end()) {
      existing->found_by.push_back(found_by);
    }
    return;
  }
  const auto stat = host.stat(site_dir);
  if (!stat || stat->type != FileType::directory) {
    return;
  }
  PythonEnvironment environment;
  environment.site_dir = site_dir;
  environment.prefix = prefix;
  environment.found_by.push_back(found_by);
  environments.push_back(std::move(environment));
  found.real_site_dirs.push_back(std::move(real));
}

void add_prefix_site_dirs(const Host& host, FoundEnvironments& environments,
                          const std::string& prefix, const std::string& found_by) {
  for (const auto& lib : lib_dirs(host, prefix)) {
    for (const auto& dir : python_dirs(host, environments, lib)) {
      add_site_dir(host, environments, dir + "/site-packages", prefix, found_by);
    }
  }
  if (prefix == "/usr") {
    add_site_dir(host, environments, "/usr/lib/python3/dist-packages", prefix, found_by);
  }
  if (prefix == "/usr/local" || prefix == "/usr") {
    for (const auto& dir : python_dirs(host, environments, "/usr/local/lib")) {
      add_site_dir(host, environments, dir + "/dist-packages", "/usr/local", found_by);
    }
  }
}

/// The distribution's own directories: Debian's dist-packages, /usr/local (where `sudo pip`
/// installs), and the lib64 platlib of RHEL, Fedora and SUSE.
void add_system_site_dirs(const Host& host, FoundEnvironments& environments) {
  add_site_dir(host, environments, "/usr/lib/python3/dist-packages", "/usr",
               "system dist-packages");
  for (const auto& dir : python_dirs(host, environments, "/usr/local/lib")) {
    add_site_dir(host, environments, dir + "/dist-packages", "/usr/local", "system dist-packages");
    add_site_dir(host, environments, dir + "/site-packages", "/usr/local", "system site-packages");
  }
  for (const char* prefix : {"/usr", "/usr/local"}) {
    for (const auto& dir : python_dirs(host, environments, std::string(prefix) + "/lib64")) {
      add_site_dir(host, environments, dir + "/site-packages", prefix, "system site-packages");
    }
  }
}

/// The torch installed in a site directory, read without the rules: its version.py, its
/// metadata and installer, the libraries in torch/lib. Its origin is judged later, with them.
std::optional<TorchInstall> read_torch(const Host& host, const PythonEnvironment& environment,
                                       const std::vector<std::string_view>& dist_names,
                                       const std::vector<PythonPackage>& packages) {
  const std::string torch_dir = environment.site_dir + "/torch";
  const auto version_py = host.read_file(torch_dir + "/version.py", 64 * 1024);
  if (!version_py) {
    return std::nullopt;
  }
  TorchInstall torch = torch_from_version_py(parse_version_py(*version_py));
  for (std::size_t i = 0; i < packages.size(); ++i) {
    if (packages[i].name == "torch") {
      const std::string_view name = dist_names[i];
      const bool egg = name.size() > 9 && name.substr(name.size() - 9) == ".egg-info";
      const std::string dir = environment.site_dir + "/" + std::string(name);
      torch.metadata_path = dir + (egg ? "/PKG-INFO" : "/METADATA");
      if (const auto content = host.read_file(torch.metadata_path, 64 * 1024)) {
        torch.metadata_version = metadata_version(*content);
      }
      if (const auto installer = host.read_file(dir + "/INSTALLER", 256)) {
        torch.installer = std::string(util::trim(*installer));
      }
    }
  }
  if (const auto libs = host.list_dir(torch_dir + "/lib")) {
    // A CUDA build's libraries hold no HIP code: their ELF section tables (gigabytes of
    // libtorch_cuda.so and cuDNN on an NVIDIA host) are not opened.
    if (torch.build != TorchBuild::cuda) {
      torch.hip_libraries = gpu_code_in(host, torch_dir + "/lib", *libs);
    }
    for (const auto& lib : *libs) {
      torch.bundles_hip = torch.bundles_hip || lib.rfind("libamdhip64.so", 0) == 0;
      if (lib.rfind("libhsa-runtime64.so", 0) == 0) {
        const std::string path = torch_dir + "/lib/" + lib;
        const auto stat = host.stat(path);
        torch.bundled_hsa_runtime.push_back(
            {path, stat ? std::optional<std::uint64_t>(stat->size) : std::nullopt});
      }
    }
  }
  const std::string torch_hip = torch_dir + "/lib/libtorch_hip.so";
  for (const auto& library : torch.hip_libraries) {
    if (library.path == torch_hip) {
      torch.compiled_targets = library.targets;
    }
  }
  torch.rocblas_library = tensile_library(host, torch_dir + "/lib/rocblas/library");
  return torch;
}

/// The files of a package that the rules name as evidence of its build (a few per package;
/// the libraries of extension modules read from their dynamic sections, never loaded).
std::vector<PackageFile> evidence_files(const Host& host, const std::string& site_dir,
                                        const std::vector<std::string>& site_names,
                                        const CudaPackage& rule) {
  constexpr std::size_t k_max_per_pattern = 8;
  std::vector<PackageFile> files;
  for (const auto& evidence : rule.evidence) {
    const auto slash = evidence.pattern.rfind('/');
    const std::string dir =
        slash == std::string::npos ? site_dir : site_dir + "/" + evidence.pattern.substr(0, slash);
    const std::string last =
        slash == std::string::npos ? evidence.pattern : evidence.pattern.substr(slash + 1);
    // The site directory's own listing is at hand; a package directory is listed when asked.
    std::optional<std::vector<std::string>> listed;
    if (slash != std::string::npos) {
      listed = host.list_dir(dir);
    }
    const std::vector<std::string>* names = slash == std::string::npos ? &site_names
                                            : listed                   ? &*listed
                                                                       : nullptr;
    if (names == nullptr) {
      continue;
    }
    std::size_t found = 0;
    for (const auto& name : *names) {
      if (found == k_max_per_pattern || !util::wildcard_match(last, name)) {
        continue;
      }
      ++found;
      PackageFile file{dir + "/" + name, std::nullopt};
      if (evidence.says == PackageEvidence::linked) {
        file.needed = host.needed_libraries(file.path);
      }
      files.push_back(std::move(file));
    }
  }
  return files;
}

/// What a site directory holds that is read without the rules: the probe reads every
/// environment's while the rules are still being built (KnowledgeSource).
struct SiteReading {
  std::optional<std::vector<std::string>> names;  ///< the directory's entries
  /// The entries that are a package's metadata ("torch-2.11.0.dist-info"): they stay where they
  /// are while the reading is moved (moving the vector moves its buffer, not the strings in it).
  std::vector<std::string_view> dist_names;
  std::vector<PythonPackage> packages;  ///< what each of dist_names says
  std::optional<TorchInstall> torch;    ///< its origin not judged yet
};

SiteReading read_site(const Host& host, PythonEnvironment& environment) {
  SiteReading reading;
  reading.names = host.list_dir(environment.site_dir);
  if (reading.names) {
    for (const auto& name : *reading.names) {
      if (auto package = package_from_metadata_dir(name)) {
        reading.dist_names.push_back(name);
        reading.packages.push_back(std::move(*package));
      }
    }
    environment.rocm_sdk = rocm_sdk_of(reading.packages);
    reading.torch = read_torch(host, environment, reading.dist_names, reading.packages);
  }
  return reading;
}

/// The packages the rules name (CUDA builds, with the files that show it) and torch's origin.
void judge_site(const Host& host, PythonEnvironment& environment, SiteReading& reading,
                const Knowledge& knowledge) {
  if (!reading.names) {
    return;
  }
  for (auto& package : reading.packages) {
    if (const CudaPackage* rule = knowledge.cuda_package(package.name)) {
      package.files = evidence_files(host, environment.site_dir, *reading.names, *rule);
      environment.packages.push_back(std::move(package));
    } else if (std::find(std::begin(k_packages), std::end(k_packages), package.name) !=
               std::end(k_packages)) {
      environment.packages.push_back(std::move(package));
    }
  }
  if (reading.torch) {
    classify_torch(*reading.torch, environment.site_dir, knowledge);
    environment.torch = std::move(*reading.torch);
  }
}

/// Whether one of the environments belongs to PATH's python3.
bool path_python_inspected(const Host& host, const PathPython& python,
                           const std::vector<PythonEnvironment>& environments) {
  const std::string dir = util::parent_path(python.path);
  const std::string real_dir = util::parent_path(python.target.value_or(python.path));
  if (real_dir == "/usr/bin" || real_dir == "/bin" || real_dir == "/usr/local/bin") {
    return true;  // the distribution's Python: its directories are searched in every case
  }
  const bool pyenv_shim = is_pyenv_shims(host, dir);
  return std::any_of(environments.begin(), environments.end(), [&](const PythonEnvironment& e) {
    return std::any_of(e.found_by.begin(), e.found_by.end(), [&](const std::string& by) {
      return by.find("(" + dir + ")") != std::string::npos ||
             (by.rfind("pyenv ", 0) == 0 && pyenv_shim);
    });
  });
}

/// Marks the environments the first python3 on PATH runs: those found through its directory
/// (a venv's bin, a conda env's bin), the pyenv version its shim selects, or, for the
/// distribution's interpreter, the system site directories of its prefix.
void mark_python3(const Host& host, const PathPython& python,
                  std::vector<PythonEnvironment>& environments) {
  const std::string dir = util::parent_path(python.path);
  // By the directory PATH names, not where links lead: a venv's python3 links to /usr/bin's.
  const bool system = dir == "/usr/bin" || dir == "/bin" || dir == "/usr/local/bin";
  const bool pyenv_shim = is_pyenv_shims(host, dir);
  for (auto& environment : environments) {
    const bool found_there = std::any_of(environment.found_by.begin(), environment.found_by.end(),
                                         [&](const std::string& by) {
                                           return by.find("(" + dir + ")") != std::string::npos ||
                                                  (pyenv_shim && by.rfind("pyenv ", 0) == 0);
                                         });
    const bool system_site =
        system && (environment.prefix == "/usr" || environment.prefix == "/usr/local");
    environment.runs_as_python3 = found_there || system_site;
  }
}

std::optional<std::string> quoted(std::string_view value) {
  value = util::trim(value);
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    return std::string(value.substr(1, value.size() - 2));
  }
  return std::nullopt;
}

}  // namespace

std::map<std::string, std::optional<std::string>> parse_version_py(std::string_view content) {
  std::map<std::string, std::optional<std::string>> values;
  for (const auto raw : util::lines(content)) {
    const std::string_view line = util::trim(raw);
    const auto equals = line.find('=');
    if (line.empty() || line.front() == '#' || equals == std::string_view::npos) {
      continue;
    }
    std::string_view name = util::trim(line.substr(0, equals));
    name = util::trim(name.substr(0, name.find(':')));  // `hip: Optional[str] = ...`
    const std::string_view value = util::trim(line.substr(equals + 1));
    if (name.empty() || name.find(' ') != std::string_view::npos) {
      continue;
    }
    if (value == "None") {
      values[std::string(name)] = std::nullopt;
    } else if (auto text = quoted(value)) {
      values[std::string(name)] = std::move(text);
    }
  }
  return values;
}

TorchInstall torch_from_version_py(
    const std::map<std::string, std::optional<std::string>>& values) {
  const auto get = [&](const char* key) -> std::optional<std::string> {
    const auto it = values.find(key);
    return it == values.end() ? std::nullopt : it->second;
  };
  TorchInstall torch;
  torch.version = get("__version__").value_or("");
  torch.cuda = get("cuda");
  torch.hip = get("hip");
  torch.rocm = get("rocm");
  torch.git_version = get("git_version");
  torch.build = torch.hip ? TorchBuild::rocm : torch.cuda ? TorchBuild::cuda : TorchBuild::cpu;
  return torch;
}

std::optional<PythonPackage> package_from_metadata_dir(std::string_view name) {
  for (const std::string_view suffix : {".dist-info", ".egg-info"}) {
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
      const std::string_view stem = name.substr(0, name.size() - suffix.size());
      const auto dash = stem.find('-');
      if (dash == std::string_view::npos || dash == 0) {
        return std::nullopt;
      }
      // Egg-info names may carry a -pyX.Y tag: torch-1.13.0a0+gitunknown-py3.11.egg-info.
      std::string_view version = stem.substr(dash + 1);
      if (const auto py = version.find("-py"); py != std::string_view::npos) {
        version = version.substr(0, py);
      }
      // Normalised as pip compares names (PEP 503): lower case, '_' and '.' as '-'.
      std::string package = util::to_lower(stem.substr(0, dash));
      std::replace(package.begin(), package.end(), '_', '-');
      std::replace(package.begin(), package.end(), '.', '-');
      return PythonPackage{package, std::string(version), {}};
    }
  }
  return std::nullopt;
}

std::optional<std::string> metadata_version(std::string_view content) {
  for (const auto line : util::lines(content)) {
    if (line.empty()) {
      break;  // the headers end at the first blank line
    }
    if (line.rfind("Version:", 0) == 0) {
      return std::string(util::trim(line.substr(8)));
    }
  }
  return std::nullopt;
}

std::optional<std::string> python_version_of_site(std::string_view site_dir) {
  for (std::size_t at = site_dir.find("python"); at != std::string_view::npos;
       at = site_dir.find("python", at + 1)) {
    std::size_t end = at + 6;
    while (end < site_dir.size() &&
           (std::isdigit(static_cast<unsigned char>(site_dir[end])) != 0 || site_dir[end] == '.')) {
      ++end;
    }
    const std::string_view version = site_dir.substr(at + 6, end - at - 6);
    if (version.find('.') != std::string_view::npos && version.back() != '.' &&
        (end == site_dir.size() || site_dir[end] == '/')) {
      return std::string(version);
    }
  }
  return std::nullopt;
}

namespace {

/// The system interpreter's version from where /usr/bin/python3 leads ("python3.11").
std::optional<std::string> system_python_version(const Host& host) {
  const auto target = host.read_link("/usr/bin/python3");
  if (!target) {
    return std::nullopt;
  }
  const std::string_view name = std::string_view(*target).substr(target->rfind('/') + 1);
  if (name.rfind("python3.", 0) == 0 && util::parse_unsigned(name.substr(8))) {
    return std::string(name.substr(6));
  }
  return std::nullopt;
}

/// Where the interpreter of an environment keeps its stdlib, for the distribution's own
/// prefixes only: a venv, conda or pyenv environment is never externally managed.
bool externally_managed(const Host& host, const PythonEnvironment& environment) {
  if (!environment.python_version ||
      (environment.prefix != "/usr" && environment.prefix != "/usr/local")) {
    return false;
  }
  for (const char* lib : {"/usr/lib/python", "/usr/lib64/python"}) {
    if (host.stat(lib + *environment.python_version + "/EXTERNALLY-MANAGED")) {
      return true;
    }
  }
  return false;
}

}  // namespace

PythonFacts probe_python(const ProbeContext& context) {
  const Host& host = context.host;
  PythonFacts facts;
  FoundEnvironments found{facts.environments, {}, {}, {}};
  for (const auto& interpreter : context.interpreters) {
    for (const auto& entry : interpreter.sys_path) {
      const auto lib = entry.rfind("/lib/");
      const bool site = entry.size() > 14 && (entry.substr(entry.size() - 14) == "/site-packages" ||
                                              entry.substr(entry.size() - 14) == "/dist-packages");
      if (site && lib != std::string::npos) {
        add_site_dir(host, found, entry, entry.substr(0, lib), "--python " + interpreter.path);
      }
    }
  }
  const std::vector<std::string> homes = user_homes(host);
  for (const auto& candidate : candidate_prefixes(host, homes, facts.path_python3)) {
    add_prefix_site_dirs(host, found, candidate.prefix, candidate.found_by);
  }
  add_system_site_dirs(host, found);
  for (const auto& home : homes) {
    for (const auto& dir : python_dirs(host, found, home + "/.local/lib")) {
      add_site_dir(host, found, dir + "/site-packages", home + "/.local", "user site");
    }
  }
  std::optional<std::optional<std::string>> system_version;  // read once, when needed
  std::vector<SiteReading> readings;
  readings.reserve(facts.environments.size());
  for (auto& environment : facts.environments) {
    readings.push_back(read_site(host, environment));
    environment.python_version = python_version_of_site(environment.site_dir);
    if (!environment.python_version && environment.prefix == "/usr") {
      if (!system_version) {
        system_version = system_python_version(host);
      }
      environment.python_version = *system_version;
    }
    environment.externally_managed = externally_managed(host, environment);
  }
  // Only now the rules: everything above was read while they were being built.
  if (!facts.environments.empty()) {
    const Knowledge& knowledge = context.knowledge.get();
    for (std::size_t i = 0; i < facts.environments.size(); ++i) {
      judge_site(host, facts.environments[i], readings[i], knowledge);
    }
  }
  if (facts.path_python3) {
    facts.path_python3->inspected =
        path_python_inspected(host, *facts.path_python3, facts.environments);
    mark_python3(host, *facts.path_python3, facts.environments);
  }
  return facts;
}

}  // namespace rocdoc
