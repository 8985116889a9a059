#include "src/runtime/smoke_runner.h"

#include <ftw.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>

#include "src/util/subprocess.h"

namespace rocdoc::runtime {

namespace {

/// What a run may print: the step lines and a document of a few KiB per GPU.
constexpr std::size_t k_output_limit = 1 << 20;

constexpr std::array<std::string_view, 12> k_prefixes = {
    "HIP_",     "HSA_",     "ROCR_",      "GPU_",   "AMD_", "MIOPEN_",
    "PYTORCH_", "ROCBLAS_", "HIPBLASLT_", "TORCH_", "HCC_", "CUDA_"};

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }

/// A private directory for the caches, removed with everything in it when the run is done.
class CacheDirectory {
 public:
  CacheDirectory() {
    std::string pattern = "/tmp/rocdoc-smoke-XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) {
      m_path = pattern;
    }
  }
  ~CacheDirectory() {
    if (!m_path.empty()) {
      ::nftw(m_path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
  }
  CacheDirectory(const CacheDirectory&) = delete;
  CacheDirectory& operator=(const CacheDirectory&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

std::string home_directory() {
  const passwd* user = ::getpwuid(::getuid());
  return user != nullptr && user->pw_dir != nullptr ? user->pw_dir : "/";
}

SmokeRun run_one(const SmokeTarget& target, const SmokeRequest& request,
                 const std::vector<std::string>& environment) {
  SmokeRun run;
  run.target = target;
  // -B: no bytecode written; -E: no PYTHON* variable (none is passed anyway). The user site
  // stays: a torch installed with pip --user lives there.
  const std::vector<std::string> argv = {target.interpreter, "-B", "-E", "-c",
                                         std::string(smoke_script())};
  util::CaptureLimits limits{request.timeout, k_output_limit};
  std::string error;
  const auto started = std::chrono::steady_clock::now();
  auto output = util::run_capture(argv, environment, limits, error);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!output) {
    run.error = error;
    return run;
  }
  run.output = std::move(output->out);
  switch (output->ending) {
    case util::Ending::timed_out:
      run.ending = ChildEnding::timed_out;
      break;
    case util::Ending::output_over_limit:
      run.ending = ChildEnding::exited;
      run.output_over_limit = true;
      break;
    case util::Ending::finished:
      if (output->signal) {
        run.ending = ChildEnding::signaled;
        run.signal = util::signal_name(*output->signal);
      } else {
        run.ending = ChildEnding::exited;
        run.exit_status = output->exit_status;
      }
      break;
  }
  return run;
}

}  // namespace

bool is_smoke_variable(std::string_view name) {
  if (name == "ROCM_PATH" || name == "LD_LIBRARY_PATH") {
    return true;
  }
  for (const auto prefix : k_prefixes) {
    if (name.rfind(prefix, 0) == 0) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> smoke_environment(
    const std::vector<std::pair<std::string, std::string>>& variables, const std::string& home,
    const std::string& cache_dir) {
  std::vector<std::string> environment = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8",
                                          "HOME=" + home};
  for (const auto& [name, value] : variables) {
    if (is_smoke_variable(name)) {
      environment.push_back(name + "=" + value);
    }
  }
  // Later entries win: what the libraries would write under HOME goes to the private directory.
  for (const auto& cache :
       {std::pair<std::string_view, std::string_view>{"XDG_CACHE_HOME", "cache"},
        {"MIOPEN_USER_DB_PATH", "miopen"},
        {"MIOPEN_CUSTOM_CACHE_DIR", "miopen-cache"},
        {"AMD_COMGR_CACHE_DIR", "comgr"},
        {"CUDA_CACHE_PATH", "nv"},
        {"TRITON_CACHE_DIR", "triton"},
        {"TORCHINDUCTOR_CACHE_DIR", "inductor"}}) {
    const std::string prefix = std::string(cache.first) + "=";
    std::erase_if(environment,
                  [&](const std::string& entry) { return entry.rfind(prefix, 0) == 0; });
    environment.push_back(prefix + cache_dir + "/" + std::string(cache.second));
  }
  return environment;
}

SmokeReport run_smoke(const SmokeRequest& request,
                      const std::vector<std::pair<std::string, std::string>>& variables) {
  SmokeReport report;
  report.timeout = request.timeout;
  for (const auto& target : request.targets) {
    const CacheDirectory cache;
    if (cache.path().empty()) {
      SmokeRun run;
      run.target = target;
      run.error = "cannot create a private cache directory under /tmp";
      report.runs.push_back(std::move(run));
      continue;
    }
    report.runs.push_back(
        run_one(target, request, smoke_environment(variables, home_directory(), cache.path())));
  }
  return report;
}

}  // namespace rocdoc::runtime
