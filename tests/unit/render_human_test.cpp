#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <sstream>
#include <stdexcept>

#include "rocdoc/render.h"
#include "src/render/text_layout.h"
#include "src/util/strings.h"

using namespace rocdoc;

namespace {

std::size_t count_of(const std::string& text, std::string_view what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size())) {
    ++count;
  }
  return count;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (const auto line : util::lines(text)) {
    lines.emplace_back(line);
  }
  return lines;
}

/// A Report built by hand: check-table entries live as long as the builder.
class ReportBuilder {
 public:
  /// add() returns a reference into report.checks: room is made once, so that no later add()
  /// moves the results a test still holds.
  ReportBuilder() { report.checks.reserve(k_capacity); }

  CheckResult& add(std::string_view id, std::string_view area, Status status, Severity severity,
                   std::string message) {
    CheckInfo& info = m_infos.emplace_back();
    info.id = id;
    info.area = area;
    info.title = id;
    info.severity = severity;
    CheckRecord record;
    record.info = &info;
    record.result.status = status;
    record.result.severity = severity;
    record.result.message = std::move(message);
    if (report.checks.size() == k_capacity) {
      throw std::logic_error("ReportBuilder: more checks than its capacity");
    }
    report.checks.push_back(std::move(record));
    return report.checks.back().result;
  }

  std::string render(std::size_t width = 0, Glyphs glyphs = Glyphs::unicode,
                     Verbosity verbosity = Verbosity::normal) const {
    std::ostringstream out;
    render_human(report, out, {Color::off, verbosity, width, glyphs});
    return out.str();
  }

  Report report;

 private:
  static constexpr std::size_t k_capacity = 64;
  std::deque<CheckInfo> m_infos;
};

Fix shell_fix(std::string description, std::string command) {
  Fix fix;
  fix.description = std::move(description);
  fix.command = std::move(command);
  return fix;
}

}  // namespace

TEST_CASE("display width counts code points, not bytes", "[render][layout]") {
  CHECK(text::display_width("") == 0);
  CHECK(text::display_width("gfx1100") == 7);
  CHECK(text::display_width("✓ ok") == 4);  // ✓ is three bytes
  CHECK(text::display_width("Radeon · gfx1100 · …") == 20);
}

TEST_CASE("wrap breaks at spaces within the room, first and further lines", "[render][layout]") {
  CHECK(text::wrap("short", 40, 40) == std::vector<std::string>{"short"});
  CHECK(text::wrap("no limit at all, however long it is", 0, 0) ==
        std::vector<std::string>{"no limit at all, however long it is"});
  const auto lines = text::wrap(
      "The amdgpu kernel module is not loaded: no AMD GPU can be used on this machine", 30, 25);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "The amdgpu kernel module is");
  CHECK(lines[1] == "not loaded: no AMD GPU");
  CHECK(lines[2] == "can be used on this");
  CHECK(lines[3] == "machine");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CHECK(text::display_width(lines[i]) <= (i == 0 ? 30u : 25u));
  }
}

TEST_CASE("wrap counts display columns: multi-byte text fits as wide as ASCII",
          "[render][layout]") {
  // 24 code points, 40 bytes: fits a room of 24.
  const std::string text = "✓✓✓✓✓✓✓ ✓✓✓✓✓✓✓ ✓✓✓✓✓✓✓✓";
  REQUIRE(text::display_width(text) == 24);
  CHECK(text::wrap(text, 24, 24).size() == 1);
  CHECK(text::wrap(text, 23, 23) == std::vector<std::string>{"✓✓✓✓✓✓✓ ✓✓✓✓✓✓✓", "✓✓✓✓✓✓✓✓"});
}

TEST_CASE("a word longer than its room is kept whole on a line of its own", "[render][layout]") {
  const std::string path = "/home/alice/.local/share/uv/python/cpython-3.12.14-linux-x86_64-gnu";
  const auto lines = text::wrap("environment " + path + " has no torch", 30, 30);
  CHECK(lines == std::vector<std::string>{"environment", path, "has no torch"});
  CHECK(text::wrap(path, 20, 20) == std::vector<std::string>{path});
  // Rooms below k_min_room are raised to it: words are not strewn one to a line.
  CHECK(text::wrap("a b c d e f g h i j", 2, 2) == std::vector<std::string>{"a b c d e f g h i j"});
}

TEST_CASE("wrap keeps leading and inner spaces and drops them at a break", "[render][layout]") {
  CHECK(text::wrap("  indented  twice", 40, 40) == std::vector<std::string>{"  indented  twice"});
  CHECK(text::wrap("aaaaaaaaaa bbbbbbbbbb     cccccccccc", 21, 21) ==
        std::vector<std::string>{"aaaaaaaaaa bbbbbbbbbb", "cccccccccc"});
}

TEST_CASE("to_ascii leaves no byte above 0x7f", "[render][layout]") {
  CHECK(text::to_ascii("plain") == "plain");
  CHECK(text::to_ascii("a · b … c → d — e") == "a - b ... c -> d -- e");
  CHECK(text::to_ascii("José") == "Jos\\u00e9");
  CHECK(text::to_ascii("\xff") == "\\xff");
  CHECK(text::to_ascii("\xf0\x9f\x98\x80") == "\\U0001f600");
}

TEST_CASE("a locale is UTF-8 only when its charset says so", "[render][layout]") {
  CHECK(text::locale_is_utf8("C.UTF-8"));
  CHECK(text::locale_is_utf8("en_US.utf8"));
  CHECK(text::locale_is_utf8("de_DE.UTF-8@euro"));
  CHECK_FALSE(text::locale_is_utf8("C"));
  CHECK_FALSE(text::locale_is_utf8("POSIX"));
  CHECK_FALSE(text::locale_is_utf8("en_US"));
  CHECK_FALSE(text::locale_is_utf8("en_US.ISO-8859-1"));
  CHECK_FALSE(text::locale_is_utf8(""));
}

TEST_CASE("a check line leads with its message: the id follows in brackets", "[render]") {
  ReportBuilder builder;
  builder.add("gpu.none", "Hardware", Status::pass, Severity::error, "1 AMD GPU found");
  builder.add("perm.kfd", "Permissions", Status::fail, Severity::error, "cannot open /dev/kfd");
  const std::string out = builder.render();
  CHECK(out.find("  ✗ cannot open /dev/kfd  [perm.kfd]\n") != std::string::npos);
  CHECK(out.find("gpu.none  1 AMD GPU") == std::string::npos);
  // An area with nothing wrong is one line; -v lists its checks.
  CHECK(out.find("✓ Hardware: 1 check passed\n") != std::string::npos);
  const std::string verbose = builder.render(0, Glyphs::unicode, Verbosity::verbose);
  CHECK(verbose.find("  ✓ 1 AMD GPU found  [gpu.none]\n") != std::string::npos);
  CHECK(verbose.find("Hardware: 1 check passed") == std::string::npos);
}

TEST_CASE("one root cause: its fix once, what follows from it under it", "[render][causes]") {
  ReportBuilder builder;
  auto& relogin = builder.add("perm.relogin", "Permissions", Status::fail, Severity::error,
                              "this session does not have group render yet");
  relogin.evidence = {"/etc/group: alice is a member of render"};
  relogin.fix = {shell_fix("For this shell only:", "newgrp render")};
  relogin.fix.front().needs_relogin = true;
  auto& kfd =
      builder.add("perm.kfd", "Permissions", Status::fail, Severity::error, "cannot open /dev/kfd");
  kfd.evidence = {"/dev/kfd: mode 0660"};
  kfd.fix = {shell_fix("Use the group in this shell", "newgrp render")};
  kfd.caused_by = {"perm.relogin"};
  auto& render = builder.add("perm.render", "Permissions", Status::fail, Severity::error,
                             "cannot open /dev/dri/renderD128");
  render.fix = {shell_fix("Use the group in this shell", "newgrp render")};
  render.caused_by = {"perm.kfd"};  // a chain: its root is perm.relogin

  auto& unsupported = builder.add("arch.unsupported", "GPU architecture", Status::fail,
                                  Severity::error, "no code for gfx1102");
  unsupported.fix = {shell_fix("Install torch 2.7.0", "pip install torch==2.7.0"),
                     shell_fix("Or override", "export HSA_OVERRIDE_GFX_VERSION=11.0.0")};
  unsupported.fix_order = FixOrder::alternatives;
  auto& missing = builder.add("torch.arch-missing", "Python and PyTorch", Status::fail,
                              Severity::error, "the wheel has no code for gfx1102");
  missing.fix = unsupported.fix;
  missing.caused_by = {"arch.unsupported"};
  builder.add("torch.not-found", "Python and PyTorch", Status::pass, Severity::error,
              "torch found");

  auto& shm = builder.add("shm.small", "System tuning", Status::warn, Severity::warning,
                          "/dev/shm is small");
  shm.fix = {shell_fix("Remove the blacklist", "sudo rm /etc/modprobe.d/x.conf"),
             shell_fix("Rebuild the initramfs", "sudo update-initramfs -u"),
             shell_fix("Same as arch's, unlinked", "pip install torch==2.7.0")};
  shm.fix[1].needs_reboot = true;
  shm.fix_order = FixOrder::steps;

  const std::string out = builder.render();
  INFO(out);
  // Each fix command once in the whole report, linked or not.
  CHECK(count_of(out, "newgrp render\n") == 1);
  CHECK(count_of(out, "pip install torch==2.7.0\n") == 1);
  CHECK(out.find("Same as arch's, unlinked (the command shown for arch.unsupported above)") !=
        std::string::npos);
  // The consequences sit under their root, without fixes, and are not printed again.
  CHECK(out.find("      also because of this:\n"
                 "        ✗ cannot open /dev/kfd  [perm.kfd]\n"
                 "        ✗ cannot open /dev/dri/renderD128  [perm.render]\n") !=
        std::string::npos);
  CHECK(count_of(out, "[perm.kfd]") == 1);
  CHECK(count_of(out, "[perm.render]") == 1);
  CHECK(out.find("Use the group in this shell") == std::string::npos);
  CHECK(out.find("/dev/kfd: mode 0660") == std::string::npos);  // evidence only with -v
  // A consequence in another area: one line there, pointing at its cause; its words are printed
  // once, under the cause (issue 22, N17).
  CHECK(out.find("follows from arch.unsupported (GPU architecture): see it and its fix there  "
                 "[torch.arch-missing]") != std::string::npos);
  CHECK(count_of(out, "the wheel has no code for gfx1102") == 1);
  // Alternatives and steps.
  CHECK(out.find("      fix, one of:\n"
                 "        Install torch 2.7.0\n"
                 "          pip install torch==2.7.0\n"
                 "      or:\n"
                 "        Or override\n"
                 "          export HSA_OVERRIDE_GFX_VERSION=11.0.0\n") != std::string::npos);
  CHECK(out.find("      fix, in this order:\n"
                 "        1. Remove the blacklist\n"
                 "             sudo rm /etc/modprobe.d/x.conf\n"
                 "        2. Rebuild the initramfs (then reboot)\n"
                 "             sudo update-initramfs -u\n"
                 "        3. Same as arch's") != std::string::npos);
  // needs_relogin: a short suffix before the colon.
  CHECK(out.find("fix: For this shell only (then log out and back in):\n") != std::string::npos);
  // The summary counts root causes: perm.relogin, arch.unsupported, shm.small.
  CHECK(lines_of(out).back() == "3 problems: 5 errors, 1 warning (1 passed, 0 skipped)");

  const std::string verbose = builder.render(0, Glyphs::unicode, Verbosity::verbose);
  CHECK(verbose.find("        ✗ cannot open /dev/kfd  [perm.kfd]\n"
                     "            /dev/kfd: mode 0660\n") != std::string::npos);
  CHECK(count_of(verbose, "newgrp render\n") == 1);
}

TEST_CASE("a cause that is not a finding leaves the finding a root cause", "[render][causes]") {
  ReportBuilder builder;
  builder.add("perm.relogin", "Permissions", Status::pass, Severity::error, "fine");
  auto& kfd = builder.add("perm.kfd", "Permissions", Status::fail, Severity::error, "cannot open");
  kfd.fix = {shell_fix("Add yourself", "sudo usermod -aG render alice")};
  kfd.caused_by = {"perm.relogin", "no.such-check"};
  const std::string out = builder.render();
  CHECK(out.find("sudo usermod -aG render alice") != std::string::npos);
  CHECK(out.find("also because of this") == std::string::npos);
  CHECK(lines_of(out).back() == "1 problem: 1 error (1 passed, 0 skipped)");
}

TEST_CASE("a cycle of causes does not hang or hide both findings", "[render][causes]") {
  ReportBuilder builder;
  auto& a = builder.add("x.a", "X", Status::fail, Severity::error, "a is wrong");
  auto& b = builder.add("x.b", "X", Status::fail, Severity::error, "b is wrong");
  a.caused_by = {"x.b"};
  b.caused_by = {"x.a"};
  const std::string out = builder.render();
  CHECK(out.find("a is wrong") != std::string::npos);
  CHECK(out.find("b is wrong") != std::string::npos);
}

TEST_CASE("nothing checked is not 'No issues found'", "[render]") {
  ReportBuilder builder;
  builder.add("torch.cpu-wheel", "Python and PyTorch", Status::skip, Severity::error, "no AMD GPU");
  builder.add("torch.cuda-wheel", "Python and PyTorch", Status::skip, Severity::error,
              "no AMD GPU");
  std::string out = builder.render();
  CHECK(out.find("No issues found") == std::string::npos);
  CHECK(lines_of(out).back() == "Nothing could be checked: 2 checks skipped (no AMD GPU)");
  builder.add("os.wsl", "System tuning", Status::skip, Severity::info, "probe system failed");
  out = builder.render();
  CHECK(lines_of(out).back() ==
        "Nothing could be checked: 3 checks skipped (2: no AMD GPU; 1: probe system failed)");

  ReportBuilder none;
  CHECK(lines_of(none.render()).back() ==
        "Nothing could be checked: no check was selected (--only, --skip)");
}

TEST_CASE("wrapped lines keep to the width, with hanging indentation", "[render]") {
  ReportBuilder builder;
  auto& result = builder.add(
      "arch.unsupported", "GPU architecture", Status::fail, Severity::error,
      "no code for gfx1031 (Radeon RX 6700 / Radeon RX 6700 XT / Radeon RX 6750 XT) in torch "
      "2.6.0+rocm6.2.4: hipErrorNoBinaryForGpu is coming");
  result.evidence = {
      "Radeon RX 6700 XT (0000:03:00.0, gfx1031): gfx1031 has NO code in torch "
      "2.6.0+rocm6.2.4 in /home/alice/venv/lib/python3.10/site-packages"};
  const std::string command =
      "'/home/alice/venv/bin/python3' -m pip install --index-url "
      "https://stable.repo.amd.com/rocm/whl-next/ \"torch[device-gfx1031]==2.13.0+rocm10.0.0\"";
  result.fix = {
      shell_fix("No pytorch.org wheel has gfx1031; AMD builds torch per GPU target: "
                "install its gfx1031 build",
                command)};
  const std::string out = builder.render(60);
  INFO(out);
  const auto lines = lines_of(out);
  for (const auto& line : lines) {
    if (util::trim(line) != command) {
      CHECK(text::display_width(line) <= 60);
    }
  }
  // The command is whole on its own line, where it can be copied.
  CHECK(std::find(lines.begin(), lines.end(), "        " + command) != lines.end());
  // The message continues under its first word; the fix text under its own.
  CHECK(out.find("  ✗ no code for gfx1031 (Radeon RX 6700 / Radeon RX 6700 XT\n"
                 "    / Radeon RX 6750 XT) in torch 2.6.0+rocm6.2.4:\n"
                 "    hipErrorNoBinaryForGpu is coming  [arch.unsupported]\n") !=
        std::string::npos);
  // Evidence continues two columns in, so that each piece of evidence starts at the left.
  CHECK(out.find("      Radeon RX 6700 XT (0000:03:00.0, gfx1031): gfx1031 has\n"
                 "        NO code in torch 2.6.0+rocm6.2.4 in\n") != std::string::npos);
  CHECK(out.find("      fix: No pytorch.org wheel has gfx1031; AMD builds\n"
                 "           torch per GPU target: install its gfx1031 build\n") !=
        std::string::npos);
}

TEST_CASE("ASCII glyphs leave no byte above 0x7f", "[render]") {
  ReportBuilder builder;
  builder.add("gpu.none", "Hardware", Status::pass, Severity::error, "1 AMD GPU found");
  builder.add("perm.kfd", "Permissions", Status::fail, Severity::error, "cannot open /dev/kfd");
  builder.add("shm.small", "System tuning", Status::warn, Severity::warning, "small → 64 MiB");
  builder.add("rocm.not-installed", "ROCm", Status::warn, Severity::info, "no ROCm");
  builder.report.probes.push_back({"python", false, 0, "bad José"});
  const std::string out = builder.render(80, Glyphs::ascii);
  INFO(out);
  CHECK(std::none_of(out.begin(), out.end(),
                     [](char c) { return static_cast<unsigned char>(c) >= 0x80; }));
  CHECK(out.find("[ok]   Hardware: 1 check passed") != std::string::npos);
  CHECK(out.find("  [FAIL] cannot open /dev/kfd  [perm.kfd]") != std::string::npos);
  CHECK(out.find("  [warn] small -> 64 MiB  [shm.small]") != std::string::npos);
  CHECK(out.find("  [info] no ROCm  [rocm.not-installed]") != std::string::npos);
  CHECK(out.find("probe python failed: bad Jos\\u00e9") != std::string::npos);
}

TEST_CASE("the header marks the environment python3 runs and calls the others shadowed",
          "[render][human]") {
  // Issue 22, N9: which environment `python3` runs, in words, without nested parentheses.
  ReportBuilder builder;
  PythonFacts python;
  PythonEnvironment venv;
  venv.prefix = "/home/alice/venv";
  venv.site_dir = "/home/alice/venv/lib/python3.11/site-packages";
  venv.found_by = {"VIRTUAL_ENV", "venv python3 on PATH in /home/alice/venv/bin"};
  venv.python_version = "3.11";
  venv.runs_as_python3 = true;
  PythonEnvironment system;
  system.prefix = "/usr";
  system.site_dir = "/usr/lib/python3/dist-packages";
  system.found_by = {"python3 on PATH in /usr/bin", "system dist-packages"};
  system.python_version = "3.11";
  python.environments = {venv, system};
  builder.report.facts.python = python;
  const std::string out = builder.render(0, Glyphs::ascii, Verbosity::verbose);
  CHECK(out.find("/home/alice/venv (VIRTUAL_ENV, venv python3 on PATH in /home/alice/venv/bin) "
                 "<- python3") != std::string::npos);
  CHECK(out.find("/usr (python3 on PATH in /usr/bin, system dist-packages), shadowed") !=
        std::string::npos);
}

TEST_CASE("the environment python3 runs is shown first even without torch", "[render][human]") {
  // Issue 22, N9: a conda env with torch, and python3 resolving to one without: the header must
  // not hide what `python3 -c 'import torch'` imports in "1 more environment without torch".
  ReportBuilder builder;
  PythonFacts python;
  PythonEnvironment conda;
  conda.prefix = "/home/alice/miniforge3/envs/ml";
  conda.found_by = {"conda env ml"};
  conda.python_version = "3.11";
  conda.torch = TorchInstall{};
  conda.torch->version = "2.6.0+rocm6.2.4";
  PythonEnvironment pyenv;
  pyenv.prefix = "/home/alice/.pyenv/versions/3.11.7";
  pyenv.found_by = {"pyenv 3.11.7"};
  pyenv.python_version = "3.11";
  pyenv.runs_as_python3 = true;
  PythonEnvironment system;
  system.prefix = "/usr";
  system.found_by = {"system dist-packages"};
  system.python_version = "3.11";
  python.environments = {conda, system, pyenv};
  builder.report.facts.python = python;
  const std::string out = builder.render(0, Glyphs::ascii);
  INFO(out);
  const auto python3 = out.find("/home/alice/.pyenv/versions/3.11.7 (pyenv 3.11.7) <- python3");
  const auto shadowed = out.find("/home/alice/miniforge3/envs/ml (conda env ml), shadowed");
  REQUIRE(python3 != std::string::npos);
  REQUIRE(shadowed != std::string::npos);
  CHECK(python3 < shadowed);
  CHECK(out.find("1 more environment without torch (-v lists them)") != std::string::npos);
  CHECK(out.find("/usr (") == std::string::npos);
}
