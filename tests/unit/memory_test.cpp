// The memory facts and arithmetic behind apu.memory and kernel.param-ignored, on real strings:
// /proc/meminfo, kernel command lines and modprobe.d lines from the threads the fixtures cite.
#include <catch2/catch.hpp>

#include "probes/driver.h"
#include "probes/system.h"
#include "src/checks/checks.h"
#include "src/checks/memory_sizes.h"

using namespace rocdoc;
using namespace rocdoc::checks;

TEST_CASE("MemTotal of /proc/meminfo, in bytes") {
  CHECK(mem_total_from_meminfo("MemTotal:       32646368 kB\nMemFree:        1000 kB\n") ==
        std::uint64_t{32646368} * 1024);
  CHECK(mem_total_from_meminfo("MemFree:        1000 kB\nMemTotal: 131145072 kB\n") ==
        std::uint64_t{131145072} * 1024);
  CHECK_FALSE(mem_total_from_meminfo("MemFree:        1000 kB\n"));
  CHECK_FALSE(mem_total_from_meminfo("MemTotal:       32646368 MB\n"));
  CHECK_FALSE(mem_total_from_meminfo("MemTotal:       99999999999999999999 kB\n"));
  CHECK_FALSE(mem_total_from_meminfo("MemTotal:       18014398509481984 kB\n"));  // × 1024 > 2^64
}

TEST_CASE("The memory modules' settings on the kernel command line") {
  struct Row {
    const char* cmdline;
    std::vector<std::tuple<std::string, std::string, std::string>> settings;
  };
  const Row rows[] = {
      // ROCm/legacy-rocm-build#5595
      {"BOOT_IMAGE=/boot/vmlinuz-6.14.0-1014-oem ro quiet splash amdgpu.gtt_size=122880",
       {{"amdgpu", "gtt_size", "122880"}}},
      // ROCm/ROCm#5562
      {"ro ttm.pages_limit=32768000 ttm.page_pool_size=32768000 amdttm.pages_limit=32768000 "
       "amdttm.page_pool_size=32768000",
       {{"ttm", "pages_limit", "32768000"},
        {"ttm", "page_pool_size", "32768000"},
        {"amdttm", "pages_limit", "32768000"},
        {"amdttm", "page_pool_size", "32768000"}}},
      // antirez/ds4#16
      {"iommu=pt amdgpu.gttsize=126976 ttm.pages_limit=32505856",
       {{"amdgpu", "gttsize", "126976"}, {"ttm", "pages_limit", "32505856"}}},
      {"amdgpu.runpm ttm. ttmx.pages_limit=1 amdgpu.=3 vt.handoff=7", {{"amdgpu", "runpm", ""}}},
  };
  for (const auto& row : rows) {
    INFO(row.cmdline);
    DriverFacts facts;
    parse_cmdline_for_driver(row.cmdline, facts);
    std::vector<std::tuple<std::string, std::string, std::string>> found;
    for (const auto& setting : facts.memory_module_settings) {
      CHECK_FALSE(setting.file);
      found.emplace_back(setting.module, setting.name, setting.value);
    }
    CHECK(found == row.settings);
  }
}

TEST_CASE("The memory modules' options lines of modprobe.d") {
  // amd-ttm's /etc/modprobe.d/ttm.conf; ROCm/ROCm#5853's two lines; an amdgpu line with a comment.
  const auto found = find_module_options(
      "# written by amd-ttm\noptions ttm pages_limit=31457280\n"
      "options ttm page_pool_size=15728640\n  options amdgpu gttsize=122880 runpm=0 # laptop\n"
      "options nvidia NVreg_X=1\nblacklist amdgpu\noptions amdttm\n",
      "/etc/modprobe.d/ttm.conf");
  REQUIRE(found.size() == 4);
  CHECK(found[0].module == "ttm");
  CHECK(found[0].name == "pages_limit");
  CHECK(found[0].value == "31457280");
  REQUIRE(found[0].file);
  CHECK(found[0].file->line == 2);
  CHECK(found[0].file->file == "/etc/modprobe.d/ttm.conf");
  CHECK(found[1].name == "page_pool_size");
  CHECK(found[2].module == "amdgpu");
  CHECK(found[2].value == "122880");
  CHECK(found[2].file->line == 4);
  CHECK(found[3].name == "runpm");
}

TEST_CASE("GiB and TTM pages") {
  // ROCm/rocm-systems#351: 48 GB is 12582912 pages; noamsto/nix-amd-ai#42: 25165824 pages are
  // exactly 96 GiB of GTT.
  CHECK(48 * k_pages_per_gib == 12582912);
  CHECK(25165824 / k_pages_per_gib == 96);
  CHECK(gib_text(std::uint64_t{103079215104}) == "96 GiB");
  CHECK(gib_text(std::uint64_t{66818834432}) == "62.2 GiB");
  CHECK(gib_text(std::uint64_t{512} << 20) == "0.5 GiB");
  // amd-ttm's 'Total system memory: 125.65 GB': 90 % is 113 GiB.
  CHECK(suggested_gtt_gib(std::uint64_t{131752345} * 1024) == 113);
  CHECK(suggested_gtt_gib(0) == 0);
}

TEST_CASE("The TTM limit amdgpu obeys, and what the user asked for") {
  DriverFacts driver;
  CHECK(active_ttm_module(driver).empty());
  CHECK_FALSE(ttm_limit_bytes(driver));
  CHECK_FALSE(requested_gtt(driver));
  driver.module_parameters["ttm"].values["pages_limit"] = "31457280";
  CHECK(active_ttm_module(driver) == "ttm");
  CHECK(ttm_limit_bytes(driver) == std::uint64_t{31457280} * 4096);
  // amdgpu-dkms loads amdttm beside ttm: amdttm's limit is the one (ROCm/legacy-rocm-build#5595).
  driver.module_parameters["amdttm"].values["pages_limit"] = "16313192";
  CHECK(active_ttm_module(driver) == "amdttm");
  CHECK(ttm_limit_bytes(driver) == std::uint64_t{66818834432});
  driver.memory_module_settings.push_back(
      {"ttm", "pages_limit", "31457280", ModprobeLine{"/etc/modprobe.d/ttm.conf", 1, ""}});
  driver.memory_module_settings.push_back({"amdgpu", "gttsize", "40960", std::nullopt});
  auto request = requested_gtt(driver);
  REQUIRE(request);
  CHECK(request->bytes == std::uint64_t{120} << 30);
  CHECK(request->setting == "ttm.pages_limit=31457280");
  CHECK(request->where == "/etc/modprobe.d/ttm.conf:1");
  // The active module's own setting wins.
  driver.memory_module_settings.push_back({"amdttm", "pages_limit", "25165824", std::nullopt});
  request = requested_gtt(driver);
  REQUIRE(request);
  CHECK(request->bytes == std::uint64_t{96} << 30);
  CHECK(request->where == "the kernel command line");
  // gttsize (MiB) only when no limit was set.
  DriverFacts gtt_only;
  gtt_only.memory_module_settings.push_back({"amdgpu", "gttsize", "40960", std::nullopt});
  CHECK(requested_gtt(gtt_only)->bytes == std::uint64_t{40} << 30);
  gtt_only.memory_module_settings.front().value = "-1";
  CHECK_FALSE(requested_gtt(gtt_only));
}

TEST_CASE("The kernel log's unknown module parameters") {
  const auto typo =
      parse_unknown_parameter("[    3.636913] amdgpu: unknown parameter 'gtt_size' ignored");
  REQUIRE(typo);
  CHECK(typo->module == "amdgpu");
  CHECK(typo->name == "gtt_size");
  const auto ttm = parse_unknown_parameter("ttm: unknown parameter 'pages_limt' ignored");
  REQUIRE(ttm);
  CHECK(ttm->module == "ttm");
  CHECK(ttm->name == "pages_limt");
  CHECK_FALSE(parse_unknown_parameter("[    2.1] snd_hda_intel: unknown parameter 'foo' ignored"));
  CHECK_FALSE(parse_unknown_parameter("amdgpu: unknown parameter '' ignored"));
  CHECK_FALSE(parse_unknown_parameter("amdgpu: unknown parameter 'x' was ignored"));
  CHECK_FALSE(parse_unknown_parameter("[drm] amdgpu: 122880M of GTT memory ready."));
}

TEST_CASE("gttsize taken off the kernel command line, per distribution", "[memory]") {
  const auto with_os = [](const char* id, const char* id_like) {
    Facts facts;
    facts.system = SystemFacts{};
    facts.system->os_release["ID"] = id;
    if (id_like[0] != '\0') {
      facts.system->os_release["ID_LIKE"] = id_like;
    }
    return facts;
  };
  CHECK(
      remove_kernel_argument_fix(with_os("ubuntu", "debian"), "amdgpu.gttsize", "126976").command ==
      "sudo sed -i -E 's/ ?amdgpu\\.gttsize(=[^\" ]*)?//' /etc/default/grub && sudo update-grub");
  CHECK(remove_kernel_argument_fix(with_os("pop", "ubuntu debian"), "amdgpu.gttsize", "126976")
            .command == "sudo kernelstub -d \"amdgpu.gttsize=126976\"");
  CHECK(remove_kernel_argument_fix(with_os("fedora", ""), "amdgpu.gttsize", "126976").command ==
        "sudo grubby --update-kernel=ALL --remove-args=\"amdgpu.gttsize\"");
  const Fix nixos = remove_kernel_argument_fix(with_os("nixos", ""), "amdgpu.gttsize", "126976");
  CHECK(nixos.command == "sudo nixos-rebuild boot");
  CHECK(nixos.description.find("\"amdgpu.gttsize=126976\" out of boot.kernelParams") !=
        std::string::npos);
}

TEST_CASE("systemd-boot: the command line lives in /etc/kernel/cmdline", "[memory]") {
  Facts facts;
  facts.system = SystemFacts{};
  facts.system->os_release["ID"] = "arch";
  facts.system->kernel_cmdline_file = true;
  const std::string reinstall =
      "sudo kernel-install add \"$(uname -r)\" \"/usr/lib/modules/$(uname -r)/vmlinuz\"";
  CHECK(add_kernel_argument_command(facts, "ttm.pages_limit=27648000") ==
        "sudo sed -i 's/$/ ttm.pages_limit=27648000/' /etc/kernel/cmdline && " + reinstall);
  CHECK(remove_kernel_argument_fix(facts, "amdgpu.gttsize", "126976").command ==
        "sudo sed -i -E 's/ ?amdgpu\\.gttsize(=[^ ]*)?//' /etc/kernel/cmdline && " + reinstall);
  // GRUB present too (Fedora keeps both): GRUB's tools stay in charge.
  facts.system->grub_defaults = true;
  facts.system->os_release["ID"] = "fedora";
  CHECK(add_kernel_argument_command(facts, "iommu=pt") ==
        "sudo grubby --update-kernel=ALL --args=\"iommu=pt\"");
}

TEST_CASE("GRUB regenerated as each family does it: Arch, Gentoo, SUSE: grubby on Fedora",
          "[memory]") {
  const auto with_grub = [](const char* id, const char* id_like) {
    Facts facts;
    facts.system = SystemFacts{};
    facts.system->os_release["ID"] = id;
    if (id_like[0] != '\0') {
      facts.system->os_release["ID_LIKE"] = id_like;
    }
    facts.system->grub_defaults = true;
    return facts;
  };
  const std::string add =
      "sudo sed -i 's/^GRUB_CMDLINE_LINUX_DEFAULT=\"/&iommu=pt /' /etc/default/grub && ";
  CHECK(add_kernel_argument_command(with_grub("arch", ""), "iommu=pt") ==
        add + "sudo grub-mkconfig -o /boot/grub/grub.cfg");
  CHECK(add_kernel_argument_command(with_grub("manjaro", "arch"), "iommu=pt") ==
        add + "sudo grub-mkconfig -o /boot/grub/grub.cfg");
  CHECK(add_kernel_argument_command(with_grub("gentoo", ""), "iommu=pt") ==
        add + "sudo grub-mkconfig -o /boot/grub/grub.cfg");
  CHECK(
      add_kernel_argument_command(with_grub("opensuse-tumbleweed", "opensuse suse"), "iommu=pt") ==
      add + "sudo grub2-mkconfig -o /boot/grub2/grub.cfg");
  CHECK(remove_kernel_argument_fix(with_grub("sles", "suse"), "amdgpu.gttsize", "126976").command ==
        "sudo sed -i -E 's/ ?amdgpu\\.gttsize(=[^\" ]*)?//' /etc/default/grub && sudo "
        "grub2-mkconfig -o /boot/grub2/grub.cfg");
  CHECK(add_kernel_argument_command(with_grub("fedora", ""), "iommu=pt") ==
        "sudo grubby --update-kernel=ALL --args=\"iommu=pt\"");
  CHECK(add_kernel_argument_command(with_grub("archarm", ""), "iommu=pt") ==
        "sudo grubby --update-kernel=ALL --args=\"iommu=pt\"");  // not Arch by name: unknown
  Facts no_grub = with_grub("arch", "");
  no_grub.system->grub_defaults = false;  // no /etc/default/grub: not GRUB's file to edit
  CHECK(add_kernel_argument_command(no_grub, "iommu=pt") ==
        "sudo grubby --update-kernel=ALL --args=\"iommu=pt\"");
}
