#include "rocdoc/env_allowlist.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

// Keep sorted. Every name here is documented in rules/env_vars.yaml and the other way round
// (a test holds them together); nothing that can hold a secret belongs here.
constexpr std::string_view k_allowed[] = {
    "ACCELERATE_MIXED_PRECISION",
    "AMDGPU_TARGETS",
    "AMD_LOG_LEVEL",
    "AMD_SERIALIZE_COPY",
    "AMD_SERIALIZE_KERNEL",
    "CLICOLOR_FORCE",
    "COLUMNS",
    "CONDA_PREFIX",
    "CUDA_LAUNCH_BLOCKING",
    "CUDA_VISIBLE_DEVICES",
    "FLASH_ATTENTION_TRITON_AMD_ENABLE",
    "GPU_DEVICE_ORDINAL",
    "GPU_MAX_HW_QUEUES",
    "GPU_TARGETS",
    "HCC_AMDGPU_TARGET",
    "HIP_FORCE_DEV_KERNARG",
    "HIP_LAUNCH_BLOCKING",
    "HIP_PATH",
    "HIP_PLATFORM",
    "HIP_VISIBLE_DEVICES",
    "HSAKMT_DEBUG_LEVEL",
    "HSA_CU_MASK",
    "HSA_DISABLE_CACHE",
    "HSA_ENABLE_DXG_DETECTION",
    "HSA_ENABLE_SDMA",
    "HSA_FORCE_FINE_GRAIN_PCIE",
    "HSA_NO_SCRATCH_RECLAIM",
    "HSA_OVERIDE_GFX_VERSION",
    "HSA_OVERRIDE_GFX_VERSION",
    "HSA_XNACK",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LD_LIBRARY_PATH",
    "MIOPEN_CUSTOM_CACHE_DIR",
    "MIOPEN_DEBUG_CONV_DIRECT",
    "MIOPEN_DEBUG_CONV_FFT",
    "MIOPEN_DEBUG_CONV_GEMM",
    "MIOPEN_DEBUG_CONV_IMPLICIT_GEMM",
    "MIOPEN_DEBUG_CONV_WINOGRAD",
    "MIOPEN_DEBUG_DISABLE_FIND_DB",
    "MIOPEN_DISABLE_CACHE",
    "MIOPEN_ENABLE_LOGGING",
    "MIOPEN_FIND_ENFORCE",
    "MIOPEN_FIND_MODE",
    "MIOPEN_LOG_LEVEL",
    "MIOPEN_USER_DB",
    "MIOPEN_USER_DB_PATH",
    "NCCL_IB_HCA",
    "NCCL_NET_GDR_LEVEL",
    "NCCL_P2P_DISABLE",
    "NCCL_P2P_LEVEL",
    "NCCL_PROTO",
    "NCCL_SHM_DISABLE",
    "NCCL_SOCKET_IFNAME",
    "NO_COLOR",
    "PATH",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "PYTHONPATH",
    "PYTORCH_ALLOC_CONF",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_HIP_ALLOC_CONF",
    "PYTORCH_NO_CUDA_MEMORY_CACHING",
    "PYTORCH_NO_HIP_MEMORY_CACHING",
    "PYTORCH_ROCM_ARCH",
    "PYTORCH_TUNABLEOP_ENABLED",
    "PYTORCH_TUNABLEOP_FILENAME",
    "PYTORCH_TUNABLEOP_TUNING",
    "PYTORCH_TUNABLE_BACKEND",
    "ROCBLAS_USE_HIPBLASLT",
    "ROCM_HOME",
    "ROCM_PATH",
    "ROCM_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "ROC_GLOBAL_CU_MASK",
    "SUDO_GID",
    "SUDO_UID",
    "SUDO_USER",
    "TERM",
    "TORCH_BLAS_PREFER_HIPBLASLT",
    "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL",
    "UV_PYTHON_INSTALL_DIR",
    "VIRTUAL_ENV",
    "WSL_DISTRO_NAME",
};

constexpr std::array<std::string_view, 1> k_indexed_prefixes = {"HSA_OVERRIDE_GFX_VERSION_"};

// Read by rocdoc for its own output (colour, glyphs, width), never reported: LANG and the
// LC_* variables are read only to tell a UTF-8 terminal from one that is not.
constexpr std::array<std::string_view, 7> k_tool_only = {
    "CLICOLOR_FORCE", "COLUMNS", "LANG", "LC_ALL", "LC_CTYPE", "NO_COLOR", "TERM"};

}  // namespace

bool is_allowed_env(std::string_view name) {
  if (std::binary_search(std::begin(k_allowed), std::end(k_allowed), name)) {
    return true;
  }
  for (const std::string_view prefix : k_indexed_prefixes) {
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
        util::parse_unsigned(name.substr(prefix.size())).has_value()) {
      return true;
    }
  }
  return false;
}

std::span<const std::string_view> allowed_env_names() { return k_allowed; }

std::span<const std::string_view> allowed_env_indexed_prefixes() { return k_indexed_prefixes; }

namespace {

/// "10.3.0", "11.0": what HSA_OVERRIDE_GFX_VERSION takes.
bool is_version(std::string_view value) {
  const auto parts = util::split(value, '.');
  return parts.size() <= 3 && std::all_of(parts.begin(), parts.end(), [](std::string_view part) {
           return !part.empty() && part.size() <= 4 &&
                  part.find_first_not_of("0123456789") == std::string_view::npos;
         });
}

/// A level, a flag or a mode ("1", "NORMAL", "amd"): one short word.
bool is_setting(std::string_view value) {
  return value.size() <= 16 &&
         value.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
             std::string_view::npos;
}

// Variables whose value is one short setting (sorted).
constexpr std::string_view k_settings[] = {
    "ACCELERATE_MIXED_PRECISION",
    "AMD_LOG_LEVEL",
    "AMD_SERIALIZE_COPY",
    "AMD_SERIALIZE_KERNEL",
    "CUDA_LAUNCH_BLOCKING",
    "FLASH_ATTENTION_TRITON_AMD_ENABLE",
    "GPU_MAX_HW_QUEUES",
    "HIP_FORCE_DEV_KERNARG",
    "HIP_LAUNCH_BLOCKING",
    "HIP_PLATFORM",
    "HSAKMT_DEBUG_LEVEL",
    "HSA_DISABLE_CACHE",
    "HSA_ENABLE_DXG_DETECTION",
    "HSA_ENABLE_SDMA",
    "HSA_FORCE_FINE_GRAIN_PCIE",
    "HSA_NO_SCRATCH_RECLAIM",
    "HSA_XNACK",
    "MIOPEN_DEBUG_CONV_DIRECT",
    "MIOPEN_DEBUG_CONV_FFT",
    "MIOPEN_DEBUG_CONV_GEMM",
    "MIOPEN_DEBUG_CONV_IMPLICIT_GEMM",
    "MIOPEN_DEBUG_CONV_WINOGRAD",
    "MIOPEN_DEBUG_DISABLE_FIND_DB",
    "MIOPEN_DISABLE_CACHE",
    "MIOPEN_ENABLE_LOGGING",
    "MIOPEN_FIND_ENFORCE",
    "MIOPEN_FIND_MODE",
    "MIOPEN_LOG_LEVEL",
    "NCCL_NET_GDR_LEVEL",
    "NCCL_P2P_DISABLE",
    "NCCL_P2P_LEVEL",
    "NCCL_SHM_DISABLE",
    "PYTORCH_NO_CUDA_MEMORY_CACHING",
    "PYTORCH_NO_HIP_MEMORY_CACHING",
    "PYTORCH_TUNABLEOP_ENABLED",
    "PYTORCH_TUNABLEOP_TUNING",
    "PYTORCH_TUNABLE_BACKEND",
    "ROCBLAS_USE_HIPBLASLT",
    "SUDO_GID",
    "SUDO_UID",
    "TORCH_BLAS_PREFER_HIPBLASLT",
    "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL",
};

}  // namespace

bool has_expected_shape(std::string_view name, std::string_view value) {
  if (name == "HSA_OVERRIDE_GFX_VERSION" || name == "HSA_OVERIDE_GFX_VERSION" ||
      (name.substr(0, 25) == "HSA_OVERRIDE_GFX_VERSION_" && is_allowed_env(name))) {
    return is_version(value);
  }
  if (std::binary_search(std::begin(k_settings), std::end(k_settings), name)) {
    return is_setting(value);
  }
  return true;  // paths and lists: without_secrets() and the redaction's words are their rule
}

bool is_tool_env(std::string_view name) {
  return std::find(k_tool_only.begin(), k_tool_only.end(), name) != k_tool_only.end();
}

namespace {

constexpr std::string_view k_secret_mark = "REDACTED-SECRET";

bool is_separator(char c) {
  return c == '/' || c == ':' || c == ';' || c == ',' || c == '=' || c == '@' || c == ' ' ||
         c == '\t';
}

}  // namespace

bool looks_like_secret(std::string_view word) {
  // Prefixes of tokens that services issue (GitHub, Hugging Face, OpenAI, AWS, GitLab, Slack,
  // Google, npm, PyPI, JWTs); long enough that a directory such as "hf_cache" is not one.
  static constexpr std::string_view k_prefixes[] = {
      "ghp_",  "gho_",  "ghu_",  "ghs_",   "ghr_", "github_pat_", "hf_",  "sk-",  "sk_",   "xoxb-",
      "xoxp-", "xoxa-", "xoxs-", "glpat-", "AKIA", "ASIA",        "AIza", "npm_", "pypi-", "eyJ"};
  for (const std::string_view prefix : k_prefixes) {
    if (word.size() >= 16 && word.substr(0, prefix.size()) == prefix) {
      return true;
    }
  }
  if (word.size() < 24) {
    return false;
  }
  bool lower = false;
  bool upper = false;
  bool digit = false;
  for (const char c : word) {
    lower = lower || (c >= 'a' && c <= 'z');
    upper = upper || (c >= 'A' && c <= 'Z');
    digit = digit || (c >= '0' && c <= '9');
    // Not '-' or '.': names such as Miniforge3-Linux-x86_64 or Python-3.12.4 are no tokens.
    const bool token_char =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!token_char) {
      return false;
    }
  }
  return lower && upper && digit;
}

namespace {

/// A token prefix that holds a '-' ("sk-proj-…"): the token goes on past the next '-'.
bool has_dash_prefix(std::string_view word) {
  static constexpr std::string_view k_prefixes[] = {"sk-",   "xoxb-",  "xoxp-", "xoxa-",
                                                    "xoxs-", "glpat-", "pypi-"};
  return std::any_of(std::begin(k_prefixes), std::end(k_prefixes), [&](std::string_view prefix) {
    return word.substr(0, prefix.size()) == prefix;
  });
}

/// A word between separators, with a token after a '-' or '.' in it ("venv-hf_…",
/// "tok-ghp_…") taken out too: each piece between them is tested as a word.
std::string without_secret_pieces(std::string_view word) {
  if (looks_like_secret(word)) {
    return std::string(k_secret_mark);
  }
  std::string result;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = word.find_first_of("-.", start);
    const std::size_t dot = word.find('.', start);
    const std::string_view piece = word.substr(start, end - start);
    const std::string_view to_dot = word.substr(start, dot - start);
    if (start > 0 && has_dash_prefix(to_dot) && looks_like_secret(to_dot)) {
      result += k_secret_mark;
      if (dot == std::string_view::npos) {
        return result;
      }
      result += '.';
      start = dot + 1;
      continue;
    }
    result += start > 0 && looks_like_secret(piece) ? k_secret_mark : piece;
    if (end == std::string_view::npos) {
      return result;
    }
    result += word[end];
    start = end + 1;
  }
}

}  // namespace

std::string without_secrets(std::string_view value) {
  std::string result;
  result.reserve(value.size());
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t end = start;
    while (end < value.size() && !is_separator(value[end])) {
      ++end;
    }
    const std::string_view word = value.substr(start, end - start);
    result += without_secret_pieces(word);
    if (end == value.size()) {
      break;
    }
    result += value[end];
    start = end + 1;
  }
  // scheme://user:password@host: the password, whatever it looks like.
  for (std::size_t scheme = result.find("://"); scheme != std::string::npos;
       scheme = result.find("://", scheme + 3)) {
    const std::size_t authority = scheme + 3;
    const std::size_t at = result.find('@', authority);
    const std::size_t slash = result.find('/', authority);
    if (at == std::string::npos || (slash != std::string::npos && slash < at)) {
      continue;
    }
    const std::size_t colon = result.find(':', authority);
    if (colon != std::string::npos && colon < at) {
      result.replace(colon + 1, at - colon - 1, k_secret_mark);
    }
  }
  return result;
}

}  // namespace rocdoc
