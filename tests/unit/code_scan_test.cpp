// The source scan's judgement of a file (src/scan/code_scanner.cpp) with the embedded
// rules/code_patterns.yaml: every pattern on a line it exists for, and the lines the catalog
// says are not findings; comments, preprocessor branches, suppressions, fingerprints, the
// baseline, and the rules file's refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "rocdoc/check.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"
#include "src/scan/baseline.h"
#include "src/scan/code_scanner.h"
#include "src/scan/comments.h"
#include "src/scan/preprocessor_branches.h"

namespace rocdoc {

namespace {

const Knowledge& knowledge() {
  static const Knowledge k = load_embedded_knowledge();
  return k;
}

const CodeRules& rules() {
  static const CodeRules compiled(knowledge());
  return compiled;
}

/// "LINE id pattern" for each finding of `text` read as a file of `kind`.
std::vector<std::string> found(SourceKind kind, const std::string& text,
                               std::string_view path = "x") {
  std::vector<std::string> out;
  for (const CodeFinding& finding : scan_file_text(path, text, kind, rules()).findings) {
    out.push_back(std::to_string(finding.line) + " " + finding.id + " " + finding.pattern);
  }
  return out;
}

struct Example {
  std::string pattern;
  SourceKind kind;
  std::string line;
};

/// One line each pattern of the rules exists for (from the ports in tests/scan/real/ and the
/// catalog's examples). A test below requires an example for every pattern of the rules.
const std::vector<Example>& examples() {
  static const std::vector<Example> k = {
      {"sync-mask-32-bit", SourceKind::cxx, "x += __shfl_xor_sync(0xffffffff, x, o);"},
      {"lane-arithmetic-32", SourceKind::cxx, "const int warp_lane = threadIdx.x % 32;"},
      {"lane-stride-32", SourceKind::cxx, "for (int i = lane; i < n; i += 32) {"},
      {"lane-compare-32", SourceKind::cxx, "if (lane_id < 32) {"},
      {"reduction-from-16", SourceKind::cxx, "for (int offset = 16; offset > 0; offset >>= 1) {"},
      {"warp-primitive-32", SourceKind::cxx, "typedef hipcub::WarpReduce<float, 32> WarpReduce;"},
      {"warps-per-block-32", SourceKind::cxx, "__shared__ float partial[THREADS/32];"},
      {"warp-size-constant-32", SourceKind::cxx, "#define WARP_SIZE 32"},
      {"warp-size-constant-64-on-rocm", SourceKind::cxx,
       "#ifdef USE_ROCM\n#define WARP_SIZE 64\n#endif"},
      {"shuffle-width-32", SourceKind::cxx, "v = __shfl_down(v, 1, 32);"},
      {"warpsize-compile-time", SourceKind::cxx,
       "__shared__ float smem[THREADS_PER_PIXEL*(THREADS_PER_CTA/warpSize)];"},
      {"c10-warp-size-host-constant", SourceKind::cxx,
       "constexpr unsigned int kWarpSize = C10_WARP_SIZE;"},
      {"ptx-asm", SourceKind::cxx, "asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(id));"},
      {"wmma-header", SourceKind::cxx, "#include <mma.h>"},
      {"libcudacxx-header", SourceKind::cxx, "#include <cuda/std/atomic>"},
      {"cuda-fp8", SourceKind::cxx, "#include <cuda_fp8.h>"},
      {"pynvml", SourceKind::python, "import pynvml"},
      {"nvml-c", SourceKind::cxx, "#include <nvml.h>"},
      {"nvidia-smi-call", SourceKind::python,
       "out = subprocess.check_output(['nvidia-smi', '-L'])"},
      {"nvidia-smi-shell", SourceKind::shell, "nvidia-smi --query-gpu=name --format=csv"},
      {"capability-gate-python", SourceKind::python,
       "use_fa = torch.cuda.get_device_capability() >= (8, 0)"},
      {"device-name-gate-python", SourceKind::python,
       "if 'A100' in torch.cuda.get_device_name(0):"},
      {"capability-gate-cxx", SourceKind::cxx, "if (prop.major >= 8) {"},
      {"cuda-arch-gate", SourceKind::cxx, "#if __CUDA_ARCH__ >= 800"},
      {"stream-capture-info-v2-signature", SourceKind::cxx,
       "cudaStreamGetCaptureInfo(stream, &status, &id, &graph, &deps, &n);"},
      {"cuda-visible-devices-alone", SourceKind::shell, "export CUDA_VISIBLE_DEVICES=0,1"},
      {"cuda-visible-devices-alone-python", SourceKind::python,
       "os.environ['CUDA_VISIBLE_DEVICES'] = '0'"},
      {"cuda-visible-devices-alone-manifest", SourceKind::kubernetes,
       "        - name: CUDA_VISIBLE_DEVICES"},
      {"nvidia-transport-setting", SourceKind::shell, "export NCCL_NVLS_ENABLE=1"},
      {"cmake-cuda-language", SourceKind::cmake, "project(kernels LANGUAGES CXX CUDA)"},
      {"nvcc-flags", SourceKind::make, "NVFLAGS = -gencode arch=compute_80,code=sm_80"},
      {"cuda-link-library", SourceKind::make, "LDLIBS += -lcudart -lcublas"},
      {"torch-cuda-arch-list-alone", SourceKind::dockerfile,
       "ENV TORCH_CUDA_ARCH_LIST=\"8.0 9.0\""},
      {"setup-requires-cuda", SourceKind::python, "if CUDA_HOME is None:"},
      {"nvcc-in-make", SourceKind::make, "NVCC := nvcc"},
      {"cuda-wheel-index", SourceKind::dockerfile,
       "RUN pip install torch --index-url https://download.pytorch.org/whl/cu121"},
      {"cuda-only-dependency", SourceKind::pyproject, "dependencies = [\"cupy-cuda12x\"]"},
      {"cuda-base-image", SourceKind::dockerfile, "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04"},
      {"docker-gpus-flag", SourceKind::shell, "docker run --rm --gpus all image python x.py"},
      {"compose-nvidia-runtime", SourceKind::compose, "    runtime: nvidia"},
      {"kubernetes-nvidia-gpu", SourceKind::kubernetes, "            nvidia.com/gpu: 1"},
      {"cuda-image-reference", SourceKind::kubernetes,
       "    - image: nvcr.io/nvidia/pytorch:24.05-py3"},
      {"nvidia-container-variables", SourceKind::dockerfile, "ENV NVIDIA_VISIBLE_DEVICES=all"},
  };
  return k;
}

}  // namespace

TEST_CASE("Every code pattern finds the line it exists for", "[scan][rules]") {
  std::set<std::string> covered;
  for (const Example& example : examples()) {
    INFO(example.pattern << ": " << example.line);
    const auto findings = scan_file_text("x", example.line, example.kind, rules()).findings;
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].pattern == example.pattern);
    covered.insert(example.pattern);
  }
  for (const CodePattern& pattern : knowledge().code_patterns) {
    INFO(pattern.name);
    CHECK(covered.count(pattern.name) == 1);  // a new pattern needs its example above
  }
}

TEST_CASE("Every code pattern is evidence for a code check of the check table", "[scan][rules]") {
  for (const CodePattern& pattern : knowledge().code_patterns) {
    INFO(pattern.name);
    const CheckInfo* check = find_check(pattern.id);
    REQUIRE(check != nullptr);
    CHECK(check->judges == Judges::code);
    CHECK(pattern.severity <= check->severity);  // the table's severity is the worst one
    CHECK_FALSE(pattern.sources.empty());
  }
}

TEST_CASE("What the catalog says is no finding is none", "[scan][rules]") {
  const std::vector<std::pair<SourceKind, std::string>> portable = {
      // AMDGCN inline assembly is valid HIP.
      {SourceKind::cxx, "asm volatile(\"v_mac_f32_e32 %0, %2, %3\" : \"=v\"(out) : \"v\"(a));"},
      // warpSize at run time, 64-bit masks, the wave from the device.
      {SourceKind::cxx, "const int lane = threadIdx.x % warpSize;"},
      {SourceKind::cxx, "for (int o = warpSize / 2; o > 0; o >>= 1) {"},
      {SourceKind::cxx, "v += __shfl_xor_sync(0xffffffffffffffffULL, v, o);"},
      {SourceKind::cxx, "v += __shfl_xor_sync(~0ull, v, o);"},
      {SourceKind::cxx, "const int bits = n % 32;"},
      {SourceKind::cxx, "#include <rocwmma/rocwmma.hpp>"},
      {SourceKind::cxx, "#include <hip/hip_fp8.h>"},
      {SourceKind::cxx, "#if defined(USE_ROCM) || __CUDA_ARCH__ >= 800"},
      {SourceKind::cxx,
       "#if CUDA_VERSION >= 9000\n  return __shfl_xor_sync(mask, v, m, w);\n#else\n"
       "  return __shfl_xor(v, m, w);\n#endif"},
      {SourceKind::cxx, "auto sum = smem[wid*C10_WARP_SIZE + lid];"},
      {SourceKind::cxx,
       "#if defined(GGML_CUDA_USE_PDL) && defined(__CUDA_ARCH__) && "
       "__CUDA_ARCH__ >= GGML_CUDA_CC_HOPPER"},
      {SourceKind::cxx, "#if defined(FP16_AVAILABLE) && __CUDA_ARCH__ != 610"},
      {SourceKind::cxx, "typedef __hip_fp8_e4m3 __nv_fp8_e4m3;"},
      {SourceKind::cxx, "static constexpr int warpSize = __AMDGCN_WAVEFRONT_SIZE;"},
      {SourceKind::cxx, "#if __gfx1010__ || __gfx1030__\n#define WAVEFRONT_SIZE 32\n#endif"},
      // A mask constant alone is no finding: where it goes (a _sync builtin or a macro that
      // maps it away on HIP) decides.
      {SourceKind::cxx, "constexpr uint32_t FULL_MASK = 0xffffffff;"},
      {SourceKind::cxx, "if (props.major >= 9 && props.gcnArchName[0] == 'g') {"},
      // torch.cuda works on ROCm; roctx stands behind torch.cuda.nvtx.
      {SourceKind::python, "torch.cuda.nvtx.range_push('step')"},
      {SourceKind::python, "if torch.cuda.is_available():\n    x = x.cuda()"},
      {SourceKind::python, "# nvidia-smi shows the GPUs"},
      {SourceKind::python,
       "if torch.version.hip:\n    ok = True\nelif "
       "torch.cuda.get_device_capability() >= (8, 0):"},
      // RCCL reads the other NCCL_* variables.
      {SourceKind::shell, "export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth0 NCCL_IB_HCA=mlx5"},
      {SourceKind::shell, "export CUDA_VISIBLE_DEVICES=0\nexport HIP_VISIBLE_DEVICES=0"},
      {SourceKind::shell, "echo \"$#\" ${#list[@]}  # docker run --gpus all"},
      {SourceKind::python, "print('set CUDA_VISIBLE_DEVICES= to hide the GPUs')"},
      {SourceKind::dockerfile,
       "FROM rocm/pytorch:rocm6.4_ubuntu24.04_py3.12_pytorch_release_2.6.0"},
      {SourceKind::dockerfile, "# FROM nvidia/cuda:12.4.1-devel-ubuntu22.04"},
      {SourceKind::kubernetes, "            amd.com/gpu: 1"},
      {SourceKind::cmake, "project(k LANGUAGES CXX CUDA HIP)\nenable_language(HIP)"},
      {SourceKind::python,
       "TORCH_CUDA_ARCH_LIST = os.environ.get('TORCH_CUDA_ARCH_LIST')\n"
       "PYTORCH_ROCM_ARCH = os.environ.get('PYTORCH_ROCM_ARCH')"},
  };
  for (const auto& [kind, text] : portable) {
    INFO(text);
    CHECK(found(kind, text).empty());
  }
}

TEST_CASE("A table mapping a CUDA builtin to HIP makes its 32-bit masks no finding", "[scan]") {
  const std::string table =
      "#if defined(GGML_USE_HIP)\n"
      "#define __shfl_xor_sync(mask, var, laneMask, width) __shfl_xor(var, laneMask, width)\n"
      "#  define __shfl_sync(mask, var, laneMask, width) __shfl(var, laneMask, width)\n"
      "#define __not_function 1\n#endif\n";
  CHECK(mapped_names(table) == std::vector<std::string>{"__shfl_xor_sync", "__shfl_sync"});
  std::string hostile(100, ' ');
  for (int i = 0; i < 200000; ++i) {
    hostile += "#define __x(";  // one line; its first 100 columns deep: none is read
  }
  CHECK(mapped_names(hostile).empty());
  FileScan use = scan_file_text("common.cuh",
                                "x += __shfl_xor_sync(0xffffffff, x, o, 32);\n"
                                "y = __ballot_sync(0xffffffff, p);\n",
                                SourceKind::cxx, rules());
  REQUIRE(use.findings.size() == 2);
  drop_mapped(use.findings, mapped_names(table), rules());
  REQUIRE(use.findings.size() == 1);  // __ballot_sync is not in the table
  CHECK(use.findings[0].line == 2);
}

TEST_CASE("A line in a branch only CUDA builds compile is no finding", "[scan][branches]") {
  const std::string code =
      "#ifndef USE_ROCM\n"                                        // 1
      "#define SHFL(v, m) __shfl_xor_sync(0xffffffff, v, m)\n"    // 2: CUDA only
      "#else\n"                                                   // 3
      "#define WARP_SIZE 64\n"                                    // 4: ROCm, any arch
      "#endif\n"                                                  // 5
      "#if defined(__HIP_PLATFORM_AMD__) && defined(__GFX9__)\n"  // 6
      "#define WAVE_SIZE 64\n"                                    // 7: gfx9: right
      "#endif\n"                                                  // 8
      "#if !(defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)) && __CUDA_ARCH__ >= 800\n"
      "    return __reduce_add_sync(0xffffffff, x);\n"  // 10: CUDA only
      "#endif\n"                                        // 11
      "#ifdef USE_ROCM\n"                               // 12
      "#elif __CUDA_ARCH__ >= 800\n"                    // 13: a CUDA branch
      "  x = __shfl_sync(0xffffffff, x, 0);\n"          // 14
      "#else\n"                                         // 15
      "  y = __shfl_sync(0xffffffff, y, 0);\n"          // 16: CUDA too
      "#endif\n"                                        // 17
      "  z = __shfl_sync(0xffffffff, z, 0);\n";         // 18: every build
  CHECK(found(SourceKind::cxx, code) ==
        std::vector<std::string>{"4 code.warp-size warp-size-constant-64-on-rocm",
                                 "18 code.warp-size sync-mask-32-bit"});
}

TEST_CASE("Branch platforms follow the macros of the rules", "[scan][branches]") {
  const CodePlatformMacros& macros = knowledge().code_platform_macros;
  CHECK(condition_platform("ifdef", "USE_ROCM", macros) == BuildPlatform::rocm);
  CHECK(condition_platform("ifndef", "USE_ROCM", macros) == BuildPlatform::cuda);
  CHECK(condition_platform("ifdef", "__CUDA_ARCH__", macros) == BuildPlatform::cuda);
  CHECK(condition_platform("ifndef", "__CUDA_ARCH__", macros) == BuildPlatform::either);
  CHECK(condition_platform("if", "defined(__HIPCC__) && X > 1", macros) == BuildPlatform::rocm);
  CHECK(condition_platform("if", "!defined(USE_ROCM)", macros) == BuildPlatform::cuda);
  CHECK(condition_platform("if", "defined(USE_ROCM) || defined(FOO)", macros) ==
        BuildPlatform::either);
  CHECK(condition_platform("if", "__CUDA_ARCH__ >= 800", macros) == BuildPlatform::cuda);
  CHECK(condition_platform("if", "__CUDA_ARCH__ == 0", macros) == BuildPlatform::either);
  CHECK(condition_platform("if", "((defined USE_ROCM))", macros) == BuildPlatform::rocm);
  // Hostile conditions end: a parenthesis that does not wrap the term, "!" many times.
  CHECK(condition_platform("if", "(a) b", macros) == BuildPlatform::either);
  CHECK(condition_platform("if", "(defined(USE_ROCM)) && (x", macros) == BuildPlatform::rocm);
  CHECK(condition_platform("if", std::string(4000, '!') + "defined(USE_ROCM)", macros) ==
        BuildPlatform::either);
  CHECK(condition_platform("if", std::string(4000, '(') + "USE_ROCM", macros) ==
        BuildPlatform::either);
  // Hostile nesting is bounded: branches deeper than 64 are not judged, and nothing crashes.
  std::string deep;
  for (int i = 0; i < 5000; ++i) {
    deep += "#ifndef USE_ROCM\n";
  }
  deep += "x\n";
  const auto states = branch_states(deep, macros, {1, 5001, 5002, 9999});
  REQUIRE(states.size() == 4);
  CHECK_FALSE(states[0].cuda_only);  // the directive line itself: outside its branch
  CHECK(states[1].cuda_only);
  CHECK(states[1].conditions.size() <= 1024 + 300);
}

TEST_CASE("Comments are blanked, literals and offsets kept", "[scan][comments]") {
  const auto blanked = [](std::string text, std::initializer_list<std::string_view> comments) {
    for (const std::string_view comment : comments) {
      text.replace(text.find(comment), comment.size(), std::string(comment.size(), ' '));
    }
    return text;
  };
  const std::string c =
      "a = \"// not\"; // nvidia-smi\n/* asm(\"mov.u32\") */ b = '\\''; c = 1'000;";
  CHECK(without_comments(c, CommentSyntax::c_like) ==
        blanked(c, {"// nvidia-smi", "/* asm(\"mov.u32\") */"}));
  const std::string hash = "x = \"#1\"  # nvidia-smi\necho $# ${#a} # --gpus all\n";
  CHECK(without_comments(hash, CommentSyntax::hash) ==
        blanked(hash, {"# nvidia-smi", "# --gpus all"}));
  CHECK(found(SourceKind::cxx, "// x += __shfl_xor_sync(0xffffffff, x, o);").empty());
  CHECK(found(SourceKind::cxx, "/* #define WARP_SIZE 32\n */ int a;").empty());
}

TEST_CASE("rocdoc: ignore comments silence one check where they stand", "[scan][suppress]") {
  const std::string code =
      "int l = threadIdx.x % 32;  // rocdoc: ignore[code.warp-size]\n"   // 1
      "// rocdoc: ignore[code.inline-ptx, code.warp-size]\n"             // 2
      "int w = threadIdx.x / 32;\n"                                      // 3
      "int v = threadIdx.x & 31;  // rocdoc: ignore[code.cuda-build]\n"  // 4: another id
      "int u = threadIdx.x >> 5;\n";                                     // 5
  const FileScan scan = scan_file_text("k.cu", code, SourceKind::cxx, rules());
  std::vector<std::size_t> lines;
  for (const auto& finding : scan.findings) {
    lines.push_back(finding.line);
  }
  CHECK(lines == std::vector<std::size_t>{4, 5});
  CHECK(scan.suppressed_inline == 2);
  const std::string whole = "// rocdoc: ignore-file[code.warp-size]\n" + code;
  CHECK(scan_file_text("k.cu", whole, SourceKind::cxx, rules()).findings.empty());
  CHECK(ignored_ids("x // rocdoc: ignore[ code.a ,code.b]") ==
        std::vector<std::string>{"code.a", "code.b"});
  CHECK(ignored_ids("rocdoc: ignore[code.a").empty());
}

TEST_CASE("A finding: one per line and check, placed, with a fingerprint that survives moves",
          "[scan]") {
  const std::string line = "  x += __shfl_xor_sync(0xffffffff, x, offset, 32);\n";
  const FileScan scan = scan_file_text("a/k.cu", line + line, SourceKind::cxx, rules());
  REQUIRE(scan.findings.size() == 2);
  const CodeFinding& first = scan.findings[0];
  CHECK(first.id == "code.warp-size");
  CHECK(first.pattern == "sync-mask-32-bit");  // the error, not the shuffle-width warning
  CHECK(first.severity == Severity::error);
  CHECK(first.line == 1);
  CHECK(first.column == 8);
  CHECK(first.text == "__shfl_xor_sync(0xffffffff");
  CHECK(first.end_column == first.column + first.text.size());
  CHECK(first.line_text == "x += __shfl_xor_sync(0xffffffff, x, offset, 32);");
  CHECK(first.fingerprint.size() == 16);
  CHECK(first.fingerprint != scan.findings[1].fingerprint);  // the second occurrence
  const FileScan moved =
      scan_file_text("a/k.cu", "\n\n// new\n" + line + "\n" + line, SourceKind::cxx, rules());
  REQUIRE(moved.findings.size() == 2);
  CHECK(moved.findings[0].line == 4);
  CHECK(moved.findings[0].fingerprint == first.fingerprint);
  CHECK(moved.findings[1].fingerprint == scan.findings[1].fingerprint);
  CHECK(code_fingerprint("code.a", "p", "x", 0) != code_fingerprint("code.a", "q", "x", 0));
}

TEST_CASE("A baseline is an earlier scan's JSON: its findings are not new", "[scan][baseline]") {
  CHECK(parse_baseline("{").error.find("not JSON") == 0);
  CHECK(parse_baseline("{\"schema\": \"rocdoc-report/1\"}").error.find("not a rocdoc scan") == 0);
  CHECK(parse_baseline("{\"schema\": \"rocdoc-scan/1\", \"findings\": {}}").error ==
        "its \"findings\" is not a list");
  CHECK(parse_baseline("{\"schema\": \"rocdoc-scan/1\", \"findings\": [{\"id\": 1}]}").error ==
        "finding 1 has no \"fingerprint\" string");
  const Baseline baseline =
      parse_baseline("{\"schema\": \"rocdoc-scan/1\", \"findings\": [{\"fingerprint\": \"b\"}]}");
  REQUIRE(baseline.error.empty());
  CodeScanFacts scan;
  scan.findings.resize(3);
  scan.findings[0].fingerprint = "a";
  scan.findings[1].fingerprint = "b";
  scan.findings[2].fingerprint = "c";
  apply_baseline(scan, baseline);
  REQUIRE(scan.findings.size() == 2);
  CHECK(scan.findings[1].fingerprint == "c");
  CHECK(scan.baselined == 1);
}

TEST_CASE("code_patterns.yaml: a broken pattern is refused at its line", "[scan][rules]") {
  const std::string head =
      "sources:\n  s: a source\nplatform_macros:\n  rocm: [USE_ROCM]\n  cuda: [__NVCC__]\n"
      "  source: s\ncuda_only_paths:\n  match: ['/nv/']\n  source: s\npatterns:\n";
  const std::string row =
      "  - id: code.warp-size\n    name: p\n    kinds: [cxx]\n    severity: error\n"
      "    what: w\n    replacement: r\n    source: s\n";
  const auto error = [&](const std::string& extra, const std::string& changed_row = "") {
    std::vector<RuleText> files = {
        {"code_patterns.yaml", head + (changed_row.empty() ? row : changed_row) + extra}};
    for (const auto& embedded : embedded_rule_files()) {
      if (find_rule_file(files, embedded.name) == nullptr) {
        files.push_back({std::string(embedded.name), std::string(embedded.content)});
      }
    }
    try {
      load_knowledge(files, "test");
    } catch (const RulesError& e) {
      return std::to_string(e.line()) + ": " + e.what();
    }
    return std::string("loaded");
  };
  CHECK(error("    match: 'x('\n").find("\"match\" is not an RE2 expression") != std::string::npos);
  CHECK(error("    match: 'x*'\n").find("matches an empty line") != std::string::npos);
  CHECK(error("    match: 'x'\n    branch: rocm\n").find("loaded") == 0);
  CHECK(error("    match: 'x'\n    unless_branch: 'y'\n").find("loaded") == 0);
  std::string shell = row;
  shell.replace(shell.find("[cxx]"), 5, "[shell]");
  CHECK(error("    match: 'x'\n    unless_branch: 'y'\n", shell).find("needs kinds: [cxx]") !=
        std::string::npos);
  CHECK(error("    match: 'x'\n    context_lines: 3\n").find("beside an \"unless_line\"") !=
        std::string::npos);
  CHECK(error("    match: 'x'\n    unless_mapped: true\n").find("loaded") == 0);
  CHECK(error("    match: 'x'\n    unless_mapped: true\n", shell).find("needs kinds: [cxx]") !=
        std::string::npos);
  std::string other = row;
  other.replace(other.find("[cxx]"), 5, "[rust]");
  CHECK(error("    match: 'x'\n", other).find("unknown file kind \"rust\"") != std::string::npos);
  other = row;
  other.replace(other.find("source: s"), 9, "source: [s, t]");
  CHECK(error("    match: 'x'\n", other).find("unknown source \"t\"") != std::string::npos);
  other = row;
  other.replace(other.find("code.warp-size"), 14, "torch.smoke");
  CHECK(error("    match: 'x'\n", other).find("must be a code.* check id") != std::string::npos);
  other = row;
  other.replace(other.find("[cxx]"), 5, "[shell]");
  CHECK(error("    match: 'x'\n    branch: code\n", other).find("needs kinds: [cxx]") !=
        std::string::npos);
  CHECK(error("    match: 'x'\n" + row + "    match: 'y'\n").find("listed twice") !=
        std::string::npos);
  CHECK(error("    match: 'x'\n").find("loaded") == 0);
}

TEST_CASE("code_patterns.yaml: the embedded patterns are the loaded file's", "[scan][rules]") {
  std::vector<RuleText> files;
  for (const auto& embedded : embedded_rule_files()) {
    files.push_back({std::string(embedded.name), std::string(embedded.content)});
  }
  const Knowledge loaded = load_knowledge(files, "test");
  const Knowledge& compiled = knowledge();
  REQUIRE(loaded.code_patterns.size() == compiled.code_patterns.size());
  for (std::size_t i = 0; i < loaded.code_patterns.size(); ++i) {
    const CodePattern& a = loaded.code_patterns[i];
    const CodePattern& b = compiled.code_patterns[i];
    INFO(a.name);
    CHECK(a.id == b.id);
    CHECK(a.name == b.name);
    CHECK(a.kinds == b.kinds);
    CHECK(a.severity == b.severity);
    CHECK(a.match == b.match);
    CHECK(a.unless_line == b.unless_line);
    CHECK(a.context_lines == b.context_lines);
    CHECK(a.unless_file == b.unless_file);
    CHECK(a.unless_mapped == b.unless_mapped);
    CHECK(a.branch == b.branch);
    CHECK(a.unless_branch == b.unless_branch);
    CHECK(a.what == b.what);
    CHECK(a.replacement == b.replacement);
    CHECK(a.sources == b.sources);
  }
  CHECK(loaded.code_platform_macros.rocm == compiled.code_platform_macros.rocm);
  CHECK(loaded.code_platform_macros.cuda == compiled.code_platform_macros.cuda);
  CHECK(loaded.code_cuda_only_paths.match == compiled.code_cuda_only_paths.match);
}

}  // namespace rocdoc

TEST_CASE("The code patterns are not compiled from rules built without them", "[scan][rules]") {
  CHECK_THROWS_AS(rocdoc::CodeRules(rocdoc::embedded_knowledge(rocdoc::KnowledgeParts::machine)),
                  std::logic_error);
  CHECK_NOTHROW(rocdoc::CodeRules(
      rocdoc::embedded_knowledge(rocdoc::KnowledgeParts::machine | rocdoc::KnowledgeParts::code)));
}
