// The source scan's walk: .gitignore as git reads it, and a tree walked without following a
// link, bounded like a snapshot (issue 26 §2, "Walking the tree").
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "src/scan/file_kind.h"
#include "src/scan/ignore_rules.h"
#include "src/scan/pattern_set.h"
#include "src/scan/source_tree.h"
#include "tests/unit/test_support.h"

using namespace rocdoc;

namespace {

std::vector<std::string> paths(const SourceTree& tree) {
  std::vector<std::string> out;
  for (const auto& file : tree.files) {
    out.push_back(file.path);
  }
  return out;
}

std::string why_skipped(const SourceTree& tree, const std::string& path) {
  for (const auto& skipped : tree.skipped) {
    if (skipped.path == path) {
      return skipped.why;
    }
  }
  return "";
}

bool ignored(const std::string& gitignore, const std::string& path,
             PathKind kind = PathKind::file) {
  return ignore_verdict(parse_ignore_file(gitignore, ""), path, kind).value_or(false);
}

}  // namespace

TEST_CASE("gitignore globs: * and ? stay in one directory, ** crosses them") {
  CHECK(gitignore_glob("*.cu", "kernel.cu"));
  CHECK_FALSE(gitignore_glob("*.cu", "a/kernel.cu"));
  CHECK(gitignore_glob("a/*/c", "a/b/c"));
  CHECK_FALSE(gitignore_glob("a/*/c", "a/b/x/c"));
  CHECK(gitignore_glob("a/**/c", "a/c"));
  CHECK(gitignore_glob("a/**/c", "a/b/x/c"));
  CHECK(gitignore_glob("**/build", "x/y/build"));
  CHECK(gitignore_glob("**/build", "build"));
  CHECK(gitignore_glob("out/**", "out/a/b"));
  CHECK(gitignore_glob("file?.h", "file1.h"));
  CHECK_FALSE(gitignore_glob("file?.h", "file/.h"));
  CHECK(gitignore_glob("[a-c]x", "bx"));
  CHECK_FALSE(gitignore_glob("[!a-c]x", "bx"));
  CHECK(gitignore_glob("[]]x", "]x"));
  CHECK(gitignore_glob("\\*x", "*x"));
  CHECK_FALSE(gitignore_glob("\\*x", "ax"));
  // A pattern made to blow up a backtracking matcher stays linear.
  CHECK_FALSE(gitignore_glob("*a*a*a*a*a*a*a*a*a*b", std::string(3000, 'a')));
}

TEST_CASE("gitignore lines: comments, negation, anchoring, directories, the last rule wins") {
  const std::string rules =
      "# generated\n"
      "build/\n"
      "*.o\n"
      "!keep.o\n"
      "/top.cu\n"
      "docs/*.md\n"
      "\\#hash\n"
      "trailing.cu   \n"
      "\n";
  CHECK(ignored(rules, "build", PathKind::directory));
  CHECK(ignored(rules, "src/build", PathKind::directory));
  CHECK_FALSE(ignored(rules, "build"));  // a file named build: the rule is for directories
  CHECK(ignored(rules, "src/x.o"));
  CHECK_FALSE(ignored(rules, "src/keep.o"));
  CHECK(ignored(rules, "top.cu"));
  CHECK_FALSE(ignored(rules, "src/top.cu"));  // anchored to the file's directory
  CHECK(ignored(rules, "docs/a.md"));
  CHECK_FALSE(ignored(rules, "x/docs/a.md"));
  CHECK(ignored(rules, "#hash"));
  CHECK(ignored(rules, "trailing.cu"));
  // A nested .gitignore speaks for its own directory only.
  const auto nested = parse_ignore_file("*.cu\n", "third/");
  CHECK(ignore_verdict(nested, "third/k.cu", PathKind::file) == std::optional(true));
  CHECK_FALSE(ignore_verdict(nested, "other/k.cu", PathKind::file).has_value());
  CHECK(parse_ignore_file("#only a comment\n\n   \n/\n!\n//\n!//\n", "").empty());
}

TEST_CASE("The walk lists source files, respects .gitignore and skips what it must") {
  test::TempSnapshot temp;
  temp.file("/csrc/attention.cu", "__global__ void k() {}\n");
  temp.file("/csrc/attention.h", "\n");
  temp.file("/setup.py", "\n");
  temp.file("/Dockerfile", "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n");
  temp.file("/docker/Dockerfile.rocm", "\n");
  temp.file("/README.md", "not source\n");
  temp.file("/model.bin", "not source\n");
  temp.file("/.gitignore", "build/\n*.gen.cu\n");
  temp.file("/build/out.cu", "\n");
  temp.file("/csrc/table.gen.cu", "\n");
  temp.file("/csrc/sub/.gitignore", "local.py\n");
  temp.file("/csrc/sub/local.py", "\n");
  temp.file("/csrc/sub/kept.py", "\n");
  temp.file("/.git/config", "\n");
  temp.file("/.git/hooks/x.sh", "\n");
  temp.file("/third_party/cutlass/gemm.cu", "\n");
  temp.file("/.venv/lib/site.py", "\n");
  temp.symlink("/csrc/escape.cu", "/etc/hostname");
  temp.symlink("/csrc/up", "..");
  REQUIRE(::mkfifo((temp.root() + "/csrc/pipe.py").c_str(), 0600) == 0);

  const auto walk = walk_source_tree(temp.root());
  REQUIRE(walk.error.empty());
  CHECK(paths(walk.tree) == std::vector<std::string>{"Dockerfile", "csrc/attention.cu",
                                                     "csrc/attention.h", "csrc/sub/kept.py",
                                                     "docker/Dockerfile.rocm", "setup.py"});
  CHECK(why_skipped(walk.tree, "csrc/escape.cu") == "a symbolic link: not followed");
  CHECK(why_skipped(walk.tree, "third_party/") == "vendored or generated: not scanned");
  CHECK(why_skipped(walk.tree, ".venv/") == "vendored or generated: not scanned");
  CHECK_FALSE(walk.tree.truncated);

  const auto all = walk_source_tree(temp.root(), {}, VendoredDirectories::scan);
  const auto listed = paths(all.tree);
  CHECK(std::find(listed.begin(), listed.end(), "third_party/cutlass/gemm.cu") != listed.end());
  CHECK(std::find(listed.begin(), listed.end(), ".git/hooks/x.sh") == listed.end());
}

TEST_CASE("The walk is bounded: depth, entries, file size") {
  test::TempSnapshot temp;
  std::string deep;
  for (int i = 0; i < 10; ++i) {
    deep += "/d";
  }
  temp.file(deep + "/k.cu", "\n");
  temp.file("/big.cu", std::string(2048, 'x'));
  for (int i = 0; i < 20; ++i) {
    temp.file("/many/f" + std::to_string(i) + ".py", "\n");
  }
  SourceTreeLimits limits;
  limits.max_depth = 5;
  limits.max_file_bytes = 1024;
  const auto walk = walk_source_tree(temp.root(), limits);
  CHECK(paths(walk.tree).size() == 20);
  CHECK(why_skipped(walk.tree, "d/d/d/d/d/d/") == "deeper than 5 levels");
  CHECK(why_skipped(walk.tree, "big.cu") == "over 1024 bytes: generated or data, not scanned");
  limits.max_entries = 10;
  CHECK(walk_source_tree(temp.root(), limits).tree.truncated);
  CHECK_FALSE(walk_source_tree(temp.root() + "/big.cu").error.empty());  // not a directory
  CHECK_FALSE(walk_source_tree(temp.root() + "/none").error.empty());
}

TEST_CASE("The names the scan reads") {
  for (const auto* name : {"a.cu", "a.cuh", "a.hip", "a.cpp", "a.h", "setup.py", "CMakeLists.txt",
                           "Makefile", "run.sh", "Dockerfile", "Dockerfile.rocm", "app.dockerfile",
                           "compose.yaml", "deploy.yml", "pyproject.toml", "x.cmake"}) {
    CAPTURE(name);
    CHECK(is_source_name(name));
  }
  for (const auto* name : {"README.md", "model.bin", "a.so", "Dockerfile~", "notes.txt"}) {
    CAPTURE(name);
    CHECK_FALSE(is_source_name(name));
  }
}

TEST_CASE("A file's kind: by its name, and a YAML file by what it holds") {
  CHECK(source_kind("attention.cu", "") == SourceKind::cxx);
  CHECK(source_kind("kernel.hip", "") == SourceKind::cxx);
  CHECK(source_kind("setup.py", "") == SourceKind::python);
  CHECK(source_kind("CMakeLists.txt", "") == SourceKind::cmake);
  CHECK(source_kind("rules.mk", "") == SourceKind::make);
  CHECK(source_kind("run.sh", "") == SourceKind::shell);
  CHECK(source_kind("Dockerfile.rocm", "") == SourceKind::dockerfile);
  CHECK(source_kind("app.dockerfile", "") == SourceKind::dockerfile);
  CHECK(source_kind("pyproject.toml", "") == SourceKind::pyproject);
  CHECK_FALSE(source_kind("other.toml", ""));
  CHECK_FALSE(source_kind("README.md", ""));
  // YAML: compose by name or by a top-level services key; a manifest by apiVersion and kind.
  CHECK(source_kind("docker-compose.gpu.yml", "") == SourceKind::compose);
  CHECK(source_kind("stack.yaml", "version: '3'\nservices:\n  vllm:\n") == SourceKind::compose);
  CHECK(source_kind("job.yaml", "apiVersion: batch/v1\nkind: Job\n") == SourceKind::kubernetes);
  CHECK(source_kind("list.yaml", "items:\n- apiVersion: v1\n  kind: Pod\n") ==
        SourceKind::kubernetes);
  CHECK_FALSE(source_kind(".pre-commit-config.yaml", "repos:\n- repo: x\n"));
  CHECK(source_kind_name(SourceKind::kubernetes) == "Kubernetes manifest");
}

TEST_CASE("Patterns are matched in one pass, line by line, and placed by line and column") {
  // Patterns of the scan's research (issue 26): a 32-bit mask to a _sync builtin, lane
  // arithmetic with 32, an NVIDIA base image.
  auto compiled = PatternSet::compile(
      {R"(\b__(?:shfl(?:_up|_down|_xor)?|ballot|all|any)_sync\s*\(\s*0[xX][fF]{8}[uU]?\b)",
       R"(\bthreadIdx\.[xyz]\s*(?:%\s*32\b|&\s*(?:31|0x1[fF])\b|>>\s*5\b))",
       R"((?i)^\s*FROM\s+(?:[\w.-]+(?::\d+)?/)?nvidia/cuda\b)"});
  REQUIRE(compiled.error.empty());
  const PatternSet& set = *compiled.set;
  CHECK(set.size() == 3);
  const std::string source =
      "int lane = threadIdx.x % 32;\n"
      "v += __shfl_xor_sync(0xffffffff, v, 16);\n"
      "v += __shfl_xor_sync(0xffffffffffffffffULL, v, 16);\n"  // 64-bit: no finding
      "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n";
  const auto found = set.find_all(source);
  CHECK(found.complete);
  REQUIRE(found.matches.size() == 3);
  CHECK(found.matches[0].pattern == 1);
  CHECK(position_of(source, found.matches[0].offset).line == 1);
  CHECK(position_of(source, found.matches[0].offset).column == 12);
  CHECK(found.matches[1].pattern == 0);
  CHECK(position_of(source, found.matches[1].offset).line == 2);
  CHECK(source.substr(found.matches[1].offset, found.matches[1].length) ==
        "__shfl_xor_sync(0xffffffff");
  CHECK(found.matches[2].pattern == 2);
  CHECK(position_of(source, found.matches[2].offset).line == 4);
  // Never across a line end, even where the pattern's \s could.
  auto spanning = PatternSet::compile({R"(__shfl_sync\s*\(\s*0xffffffff)"});
  REQUIRE(spanning.error.empty());
  CHECK(spanning.set->find_all("__shfl_sync(\n0xffffffff").matches.empty());
  // Empty matches advance; the limit is said.
  auto empty = PatternSet::compile({"x*"});
  REQUIRE(empty.error.empty());
  CHECK(empty.set->find_all("ab").matches.size() == 3);
  CHECK_FALSE(empty.set->find_all(std::string(100, 'a'), 10).complete);
  // A pattern RE2 cannot take is named.
  const auto bad = PatternSet::compile({"ok", "(?<=lookbehind)x"});
  CHECK(bad.set == nullptr);
  CHECK(bad.error.rfind("pattern 2 ((?<=lookbehind)x): ", 0) == 0);
}
