// python.cuda-packages: which build a package is (tags, evidence files, the libraries an
// extension module links), when the check judges at all, its severity and its exact fixes; the
// ELF reader that tells what a module links, on Debian's real libraries and on hostile bytes.
#include <catch2/catch.hpp>

#include <fcntl.h>

#include <fstream>

#include <string>
#include <vector>

#include "probes/python.h"
#include "src/binaries/elf_needed.h"
#include "src/checks/checks.h"
#include "src/util/byte_source.h"
#include "src/util/strings.h"
#include "tests/unit/report_support.h"

using namespace rocdoc;
using rocdoc::embedded_knowledge;
using rocdoc::test::fix_commands;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string k_site = "/home/alice/venv/lib/python3.12/site-packages";
const std::string k_python = "'/home/alice/venv/bin/python3'";

/// The facts of a fixture (an RX 7900 XTX host, a venv with torch 2.7.1+rocm6.3 on Python
/// 3.12), its environment's packages replaced by `packages`.
Facts facts_with(std::vector<PythonPackage> packages,
                 const std::string& fixture = "full-stack-healthy") {
  Facts facts = test::fixture_report(fixture).facts;
  REQUIRE(facts.python);
  REQUIRE(facts.python->environments.size() == 1);
  facts.python->environments.front().packages = std::move(packages);
  return facts;
}

CheckResult judge(const Facts& facts) {
  return checks::python_cuda_packages(test::check_context(facts));
}

PackageFile linked(const std::string& relative, std::vector<std::string> needed) {
  return {k_site + "/" + relative, std::move(needed)};
}

PackageFile file(const std::string& relative) { return {k_site + "/" + relative, std::nullopt}; }

const std::vector<std::string> k_cuda_module = {"libc10.so", "libtorch.so", "libcudart.so.12",
                                                "libc10_cuda.so", "libtorch_cuda.so"};
const std::vector<std::string> k_hip_module = {"libc10.so", "libtorch.so", "libamdhip64.so.6",
                                               "libc10_hip.so", "libtorch_hip.so"};

/// A 64-bit little-endian ELF shared object: one PT_LOAD mapping the file at address 0 and one
/// PT_DYNAMIC, whose entries name `needed` from a string table right after them.
std::string elf_with(const std::vector<std::string>& needed) {
  auto put = [](std::string& bytes, std::size_t at, std::uint64_t value, int width) {
    for (int i = 0; i < width; ++i) {
      bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
    }
  };
  std::string strtab(1, '\0');
  std::vector<std::uint64_t> offsets;
  for (const auto& name : needed) {
    offsets.push_back(strtab.size());
    strtab += name + '\0';
  }
  const std::size_t dynamic_at = 64 + 2 * 56;
  const std::size_t entries = needed.size() + 3;  // NEEDED…, STRTAB, STRSZ, NULL
  const std::size_t strtab_at = dynamic_at + entries * 16;
  std::string bytes(strtab_at + strtab.size(), '\0');
  bytes.replace(0, 4,
                "\x7f"
                "ELF");
  bytes[4] = 2;           // 64-bit
  bytes[5] = 1;           // little-endian
  put(bytes, 16, 3, 2);   // ET_DYN
  put(bytes, 32, 64, 8);  // program headers right after the header
  put(bytes, 54, 56, 2);
  put(bytes, 56, 2, 2);
  put(bytes, 64, 1, 4);  // PT_LOAD: the whole file at address 0
  put(bytes, 64 + 32, bytes.size(), 8);
  put(bytes, 120, 2, 4);  // PT_DYNAMIC
  put(bytes, 120 + 8, dynamic_at, 8);
  put(bytes, 120 + 16, dynamic_at, 8);
  put(bytes, 120 + 32, entries * 16, 8);
  std::size_t at = dynamic_at;
  for (const auto offset : offsets) {
    put(bytes, at, 1, 8);
    put(bytes, at + 8, offset, 8);
    at += 16;
  }
  put(bytes, at, 5, 8);
  put(bytes, at + 8, strtab_at, 8);
  put(bytes, at + 16, 10, 8);
  put(bytes, at + 24, strtab.size(), 8);
  bytes.replace(strtab_at, strtab.size(), strtab);
  return bytes;
}

}  // namespace

TEST_CASE("PyPI's vllm beside a ROCm torch pulls a CUDA torch: uninstall, then the ROCm wheel") {
  const auto result = judge(facts_with({{"torch", "2.7.1+rocm6.3", {}}, {"vllm", "0.22.1", {}}}));
  CHECK(result.status == Status::fail);
  CHECK(result.severity == Severity::error);
  CHECK(contains(result.message, "vllm 0.22.1 (pulls a CUDA torch)"));
  CHECK(fix_commands(result) ==
        std::vector<std::string>{k_python + " -m pip uninstall -y vllm",
                                 k_python +
                                     " -m pip install vllm==0.18.0+rocm700 --extra-index-url "
                                     "https://wheels.vllm.ai/rocm/0.18.0/rocm700"});
}

TEST_CASE("vLLM's ROCm wheels are CPython 3.12's: another Python gets words, not PyPI again") {
  Facts facts = facts_with({{"vllm", "0.22.1", {}}});
  facts.python->environments.front().python_version = "3.11";
  const auto result = judge(facts);
  REQUIRE(result.fix.size() == 2);
  CHECK(result.fix[1].command.empty());
  CHECK(contains(result.fix[1].description,
                 "has wheels for CPython 3.12 only, and this environment runs 3.11"));
}

TEST_CASE("A +rocm tag, ROCm evidence or a HIP-linked module is the ROCm build: no finding") {
  const auto result = judge(facts_with({
      {"vllm", "0.18.0+rocm700", {}},
      {"bitsandbytes",
       "0.49.0",
       {file("bitsandbytes/libbitsandbytes_cuda128.so"),
        file("bitsandbytes/libbitsandbytes_rocm63.so")}},
      {"flash-attn",
       "2.7.4.post1",
       {linked("flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so", k_hip_module)}},
      {"xformers", "0.0.30", {linked("xformers/_C.so", k_hip_module)}},
      {"llama-cpp-python", "0.3.16", {file("llama_cpp/lib/libggml-hip.so")}},
  }));
  CHECK(result.status == Status::pass);
}

TEST_CASE("What a module links tells flash-attn's builds apart; an unread module is not judged") {
  SECTION("linked to libcudart: the CUDA build, which fails at import") {
    const auto result = judge(facts_with(
        {{"flash-attn",
          "2.7.4.post1",
          {linked("flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so", k_cuda_module)}}}));
    CHECK(result.status == Status::fail);
    CHECK(result.severity == Severity::error);
    REQUIRE(result.evidence.size() == 1);
    CHECK(contains(result.evidence[0],
                   "flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so links libcudart.so.12"));
    CHECK(fix_commands(result).back() ==
          "git clone https://github.com/Dao-AILab/flash-attention && cd flash-attention && "
          "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE " +
              k_python + " -m pip install --no-build-isolation .");
  }
  SECTION("unread (a Triton-backend install has no module): no finding") {
    const auto result = judge(facts_with(
        {{"flash-attn",
          "2.7.4.post1",
          {{k_site + "/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so", std::nullopt}}}}));
    CHECK(result.status == Status::pass);
  }
}

TEST_CASE("bitsandbytes with CUDA libraries only fails on the GPU; its ROCm build is 0.49.0's") {
  const auto result = judge(
      facts_with({{"bitsandbytes", "0.46.0", {file("bitsandbytes/libbitsandbytes_cuda126.so")}}}));
  CHECK(result.status == Status::fail);
  CHECK(fix_commands(result) ==
        std::vector<std::string>{k_python + " -m pip uninstall -y bitsandbytes",
                                 k_python + " -m pip install \"bitsandbytes>=0.49.0\""});
}

TEST_CASE("xFormers' ROCm line names torch's own index only where that index serves xFormers") {
  SECTION("rocm6.3 serves it") {
    const auto result =
        judge(facts_with({{"xformers", "0.0.30", {linked("xformers/_C.so", k_cuda_module)}}}));
    CHECK(fix_commands(result).back() ==
          k_python +
              " -m pip install xformers --index-url https://download.pytorch.org/whl/rocm6.3");
  }
  SECTION("rocm6.2.4 does not: the fix says where the builds are, without a command") {
    const auto result = judge(facts_with(
        {{"xformers",
          "0.0.29.post2",
          {{"/home/alice/venv/lib/python3.10/site-packages/xformers/_C.so", k_cuda_module}}}},
        "torchvision-cu-mismatch"));
    REQUIRE(result.fix.size() == 2);
    CHECK(result.fix[1].command.empty());
    CHECK(contains(result.fix[1].description, "pytorch.org's ROCm indexes"));
  }
}

TEST_CASE("NVIDIA's runtime wheels beside a ROCm torch are leftovers: a warning, one uninstall") {
  const auto result = judge(facts_with({{"nvidia-cublas-cu12", "12.1.3.1", {}},
                                        {"nvidia-cublas", "13.1.0.3", {}},
                                        {"cuda-toolkit", "13.0.2", {}},
                                        {"nvidia-ml-py", "12.570.86", {}}}));
  CHECK(result.status == Status::warn);
  CHECK(result.severity == Severity::warning);
  // nvidia-ml-py (NVML's bindings) is no runtime wheel.
  CHECK(fix_commands(result) ==
        std::vector<std::string>{
            k_python + " -m pip uninstall -y nvidia-cublas-cu12 nvidia-cublas cuda-toolkit"});
}

TEST_CASE("Beside a CUDA torch, its runtime wheels are torch.cuda-wheel's; vllm is still judged") {
  const auto report = test::fixture_report("rx9070xt-vllm-from-pypi-cuda-torch");
  const auto& result = test::check_result(report, "python.cuda-packages");
  CHECK(result.status == Status::fail);
  CHECK(fix_commands(result).front() == k_python + " -m pip uninstall -y vllm");
  CHECK(test::check_result(test::fixture_report("rx9070xt-cuda-wheel-from-pypi"),
                           "python.cuda-packages")
            .status == Status::pass);
}

TEST_CASE("Packages that only lose the GPU are a warning, on a host whose only GPUs are AMD's") {
  // No torch in the environment: the host's GPUs decide.
  Facts facts = facts_with({{"onnxruntime-gpu", "1.22.0", {}},
                            {"tensorflow", "2.18.1", {}},
                            {"tensorflow-rocm", "2.18.1", {}},
                            {"jax-cuda12-plugin", "0.6.2", {}}});
  facts.python->environments.front().torch.reset();
  const auto result = judge(facts);
  CHECK(result.status == Status::warn);
  CHECK(result.severity == Severity::warning);
  CHECK(fix_commands(result).front() ==
        k_python + " -m pip uninstall -y onnxruntime-gpu tensorflow jax-cuda12-plugin");
}

TEST_CASE("Without a ROCm torch and without AMD GPUs, nothing fires") {
  // An NVIDIA host (no AMD GPU) with a CUDA torch and PyPI's vllm: all as it should be there.
  Facts facts = facts_with({{"vllm", "0.22.1", {}}}, "rocm-torch-nvidia-only");
  facts.python->environments.front().torch->build = TorchBuild::cuda;
  CHECK(judge(facts).status == Status::skip);
  // The same with its ROCm torch: judged (the environment runs on ROCm wherever it is).
  facts.python->environments.front().torch->build = TorchBuild::rocm;
  CHECK(judge(facts).status == Status::fail);
}

TEST_CASE("Distribution names are compared as pip normalises them") {
  const auto package = package_from_metadata_dir("Flash_Attn-2.7.4.post1.dist-info");
  REQUIRE(package);
  CHECK(package->name == "flash-attn");
  CHECK(embedded_knowledge().cuda_package("flash-attn") != nullptr);
  CHECK(embedded_knowledge().cuda_package("cupy-cuda12x") != nullptr);
  CHECK(embedded_knowledge().cuda_package("cupy-rocm-7-0") == nullptr);
  CHECK(embedded_knowledge().cuda_package("jax-cuda13-pjrt") != nullptr);
  CHECK(embedded_knowledge().cuda_package("triton") == nullptr);  // torch.companions' finding
}

TEST_CASE("wildcard_match: * is any run, every other character itself") {
  CHECK(util::wildcard_match("libbitsandbytes_cuda*.so", "libbitsandbytes_cuda121.so"));
  CHECK_FALSE(util::wildcard_match("libbitsandbytes_cuda*.so", "libbitsandbytes_cpu.so"));
  CHECK(util::wildcard_match("nvidia-*-cu12", "nvidia-cuda-nvrtc-cu12"));
  CHECK_FALSE(util::wildcard_match("nvidia-*-cu12", "nvidia-cu12"));
  CHECK(util::wildcard_match("a*b*c", "abbbc"));
  CHECK_FALSE(util::wildcard_match("a*b*c", "abbb"));
  CHECK(util::wildcard_match("*", ""));
  CHECK_FALSE(util::wildcard_match("", "a"));
  // Many stars against a long non-match stays quick (one backtrack point).
  CHECK_FALSE(util::wildcard_match("*a*a*a*a*a*a*b", std::string(10000, 'a')));
}

TEST_CASE("elf_needed reads what Debian's real libraries link, from a few hundred bytes") {
  // librocsparse.so.0 is 1.3 GB of HIP code (install-test-deps.sh): only its headers are read.
  const auto open_file = [](const char* path) { return util::UniqueFd(::open(path, O_RDONLY)); };
  const auto rocsparse =
      elf_needed_of_file(open_file("/usr/lib/x86_64-linux-gnu/librocsparse.so.0"));
  REQUIRE(rocsparse);
  CHECK(std::find(rocsparse->begin(), rocsparse->end(), "libamdhip64.so.5") != rocsparse->end());
  const auto torch_c = elf_needed_of_file(
      open_file("/usr/lib/python3/dist-packages/torch/_C.cpython-311-x86_64-linux-gnu.so"));
  REQUIRE(torch_c);
  CHECK(std::find(torch_c->begin(), torch_c->end(), "libtorch_python.so.1.13") != torch_c->end());
  CHECK_FALSE(elf_needed_of_file(open_file("/etc/os-release")));  // not ELF
  CHECK_FALSE(elf_needed_of_file(open_file("/usr/lib")));         // a directory
}

TEST_CASE("elf_needed on hostile bytes: unknown, never a guess") {
  const std::string good = elf_with({"libcudart.so.12", "libc10_cuda.so"});
  CHECK(elf_needed(util::StringBytes(good)) ==
        std::optional(std::vector<std::string>{"libcudart.so.12", "libc10_cuda.so"}));
  CHECK(elf_needed(util::StringBytes(elf_with({}))) == std::optional(std::vector<std::string>{}));
  CHECK_FALSE(elf_needed(util::StringBytes("")));
  CHECK_FALSE(elf_needed(util::StringBytes(good.substr(0, 40))));  // truncated header
  std::string thirty_two = good;
  thirty_two[4] = 1;
  CHECK_FALSE(elf_needed(util::StringBytes(thirty_two)));
  CHECK_FALSE(elf_needed(util::StringBytes(good.substr(0, good.size() - 20))));  // cut strings
  std::string far = good;
  far[120 + 8 + 6] = 0x7f;  // the dynamic segment's offset past the end
  CHECK_FALSE(elf_needed(util::StringBytes(far)));
  std::string unterminated = good;
  unterminated.back() = 'x';
  CHECK_FALSE(elf_needed(util::StringBytes(unterminated)));
}

TEST_CASE("A real CUDA 13 venv's packages, moved beside a ROCm torch: what each name is") {
  // The dist-info names of PyPI's torch 2.11.0+cu130 venv on an H100 host (tests/data).
  std::ifstream in(std::string(ROCDOC_SOURCE_DIR) +
                   "/tests/data/nvidia-h100-torch211-cu130-site-packages.txt");
  REQUIRE(in);
  std::vector<PythonPackage> packages{{"torch", "2.7.1+rocm6.3", {}}};
  for (std::string line; std::getline(in, line);) {
    if (auto package = package_from_metadata_dir(line); package && package->name != "torch") {
      packages.push_back(std::move(*package));
    }
  }
  REQUIRE(packages.size() > 150);
  const auto result = judge(facts_with(packages));
  REQUIRE(result.status == Status::fail);  // cupy-cuda13x fails on the GPU
  CHECK(fix_commands(result).front() ==
        k_python +
            " -m pip uninstall -y cuda-bindings cuda-pathfinder cuda-toolkit cupy-cuda13x "
            "jax-cuda13-pjrt jax-cuda13-plugin nvidia-cublas nvidia-cuda-cupti nvidia-cuda-nvrtc "
            "nvidia-cuda-runtime nvidia-cudnn-cu13 nvidia-cufft nvidia-cufile nvidia-curand "
            "nvidia-cusolver nvidia-cusparse nvidia-cusparselt-cu13 nvidia-nccl-cu13 "
            "nvidia-nvjitlink nvidia-nvshmem-cu13 nvidia-nvtx");
  // One line per rules row: the runtime wheels and JAX's two plugin packages are grouped.
  CHECK(result.evidence.size() == 3);
  CHECK(
      contains(result.message, "18 of NVIDIA's CUDA runtime wheels (left behind by a CUDA torch)"));
}

TEST_CASE("A dist-info name that is no distribution name never reaches a fix command") {
  // "nvidia-$(touch x)-cu12" would match the rules' nvidia-*-cu12; pip never writes such a name.
  const auto package = package_from_metadata_dir("nvidia_$(touch x)_cu12-1.0.dist-info");
  REQUIRE(package);
  const auto result = judge(facts_with({*package, {"nvidia-cublas-cu12", "12.1.3.1", {}}}));
  REQUIRE(result.status == Status::warn);
  CHECK(fix_commands(result) ==
        std::vector<std::string>{k_python + " -m pip uninstall -y nvidia-cublas-cu12"});
}
