#include "src/commands/python_interpreter.h"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

#include "rocdoc/env_allowlist.h"
#include "src/util/strings.h"
#include "src/util/subprocess.h"

namespace rocdoc {

namespace {

/// One deadline for an interpreter named with --python: starting, answering and exiting.
constexpr std::chrono::seconds k_python_limit{10};
/// A sys.path is a few KB; output this large is not one, and is not kept.
constexpr std::size_t k_python_output_limit = std::size_t{1} << 20;

/// "python3" → the first PATH directory's python3 that can be executed, as a shell finds it.
std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    return name;
  }
  const char* path = is_allowed_env("PATH") ? std::getenv("PATH") : nullptr;
  for (const auto dir : util::split(path != nullptr ? path : "", ':')) {
    if (dir.empty()) {
      continue;
    }
    const std::string candidate = std::string(dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  throw std::runtime_error("--python " + name + ": not found on PATH");
}

/// The interpreter's whole environment. `python -I` needs none of it (and ignores PYTHON*), so
/// nothing of rocdoc's own environment, where tokens and passwords sit, is passed on: only a
/// plain PATH and locale, and what a version manager's shim needs to start the interpreter that
/// typing its name starts: HOME (asdf reads the global version from ~/.tool-versions; taken from
/// /etc/passwd, not from the environment) and pyenv's choice of version (allow-listed).
std::vector<std::string> interpreter_environment() {
  std::vector<std::string> environment = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8"};
  if (const passwd* user = ::getpwuid(::getuid()); user != nullptr && user->pw_dir != nullptr) {
    environment.push_back(std::string("HOME=") + user->pw_dir);
  }
  for (const char* name : {"PYENV_ROOT", "PYENV_VERSION"}) {
    const char* value = is_allowed_env(name) ? std::getenv(name) : nullptr;
    if (value != nullptr) {
      environment.push_back(std::string(name) + "=" + value);
    }
  }
  return environment;
}

/// Why a run of an interpreter gave no sys.path; nullopt when it exited with status 0.
std::optional<std::string> run_problem(const util::ProcessOutput& output) {
  switch (output.ending) {
    case util::Ending::timed_out:
      return fmt::format("did not exit within {} s; it was killed, with every process it started",
                         k_python_limit.count());
    case util::Ending::output_over_limit:
      return fmt::format("printed more than {} MiB (a sys.path is a few KB); it was killed",
                         k_python_output_limit >> 20);
    case util::Ending::finished:
      break;
  }
  if (output.signal) {
    return "was killed by signal " + util::signal_name(*output.signal);
  }
  if (output.exit_status && *output.exit_status != 0) {
    return "exited with status " + std::to_string(*output.exit_status);
  }
  return std::nullopt;
}

}  // namespace

/// Asks an interpreter named with --python for its sys.path: the one time rocdoc runs a
/// program, and only because the user named it. A bare name is looked up on PATH.
PythonInterpreter ask_interpreter(const std::string& name) {
  const std::string python = find_on_path(name);
  std::string error;
  const auto output =
      util::run_capture({python, "-I", "-c", "import json, sys; print(json.dumps(sys.path))"},
                        interpreter_environment(), {k_python_limit, k_python_output_limit}, error);
  if (!output) {
    throw std::runtime_error("--python " + python + ": " + error);
  }
  if (const auto problem = run_problem(*output)) {
    throw std::runtime_error("--python " + python + ": " + *problem);
  }
  PythonInterpreter interpreter{python, {}};
  try {
    for (const auto& entry : nlohmann::json::parse(output->out)) {
      interpreter.sys_path.push_back(entry.get<std::string>());
    }
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error("--python " + python + ": did not print its sys.path as JSON");
  }
  return interpreter;
}
}  // namespace rocdoc
