// `rocdoc explain ID`'s three outputs, terminal text, Markdown and JSON: the check's table entry,
// its section of docs/checks.md (explain.cpp cuts it) and the rules entries it reads with their
// sources.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "src/knowledge/explain.h"
#include "src/render/markdown_text.h"
#include "src/render/page.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

std::string collapse_spaces(std::string_view text) {
  return util::join(
      [&] {
        std::vector<std::string> words;
        for (const auto word : util::split_whitespace(text)) {
          words.emplace_back(word);
        }
        return words;
      }(),
      " ");
}

// ---- the rules entries a check reads -----------------------------------------------------

enum class Topic {
  gfx_targets,
  overrides,
  broken_firmware,
  pci_ids,
  torch,
  amd_wheels,
  radeon_wheels,
  rocm_releases,
  driver_versions,
  env_variables,
  wsl,
  cuda_packages,
};

/// Which rules entries each check's verdict or fix depends on (src/checks/, software.cpp).
const std::map<std::string_view, std::vector<Topic>>& topics_read() {
  using T = Topic;
  static const std::map<std::string_view, std::vector<Topic>> k_reads = {
      {"gpu.igpu-visible", {T::gfx_targets}},
      {"driver.firmware", {T::broken_firmware}},
      {"driver.version", {T::driver_versions, T::rocm_releases}},
      {"rocm.agents", {T::pci_ids, T::gfx_targets}},
      {"rocm.not-installed", {T::torch}},
      {"rocm.os-unsupported", {T::rocm_releases}},
      {"arch.unsupported",
       {T::gfx_targets, T::overrides, T::torch, T::amd_wheels, T::rocm_releases}},
      {"arch.override-wrong", {T::gfx_targets, T::overrides}},
      {"arch.override-unneeded", {T::overrides, T::torch}},
      {"arch.override-mixed", {T::gfx_targets, T::overrides, T::env_variables}},
      {"wsl.runtime-missing", {T::wsl}},
      {"wsl.dxg-detection", {T::wsl}},
      {"torch.not-found", {T::torch, T::amd_wheels}},
      {"torch.cuda-wheel", {T::torch, T::amd_wheels}},
      {"torch.cpu-wheel", {T::torch, T::amd_wheels}},
      {"torch.rocm-mismatch", {T::torch}},
      {"torch.companions", {T::torch, T::amd_wheels, T::radeon_wheels}},
      {"python.cuda-packages", {T::cuda_packages}},
      {"torch.arch-missing", {T::overrides, T::torch, T::amd_wheels}},
      {"env.unknown", {T::env_variables}},
      {"numa.balancing", {T::gfx_targets}},
  };
  return k_reads;
}

struct TopicSources {
  std::string_view file;
  std::string_view what;
  std::string_view show;                  ///< a `rules show` that prints one entry's source
  std::vector<std::string_view> entries;  ///< each entry's source
};

TopicSources topic_sources(Topic topic, const Knowledge& knowledge) {
  TopicSources out;
  switch (topic) {
    case Topic::gfx_targets:
      out = {"gfx_targets.yaml", "gfx targets", "rocdoc rules show gfx1100", {}};
      for (const auto& target : knowledge.targets) {
        out.entries.push_back(target.source);
      }
      break;
    case Topic::overrides:
      out = {
          "gfx_targets.yaml", "HSA_OVERRIDE_GFX_VERSION verdicts", "rocdoc rules show gfx1031", {}};
      for (const auto& target : knowledge.targets) {
        if (target.override_value) {
          out.entries.push_back(target.override_value->source);
        }
      }
      break;
    case Topic::broken_firmware:
      out = {"gfx_targets.yaml", "broken firmware", "rocdoc rules show gfx1151", {}};
      for (const auto& target : knowledge.targets) {
        for (const auto& firmware : target.broken_firmware) {
          out.entries.push_back(firmware.source);
        }
      }
      break;
    case Topic::pci_ids:
      out = {"pci_ids.yaml", "PCI device ids", "rocdoc rules show 744c", {}};
      for (const auto& entry : knowledge.pci_ids) {
        out.entries.push_back(entry.source);
      }
      break;
    case Topic::torch:
      out = {"torch.yaml", "torch releases", "rocdoc rules show torch 2.6", {}};
      for (const auto& release : knowledge.torch_releases) {
        out.entries.push_back(release.source);
      }
      break;
    case Topic::amd_wheels:
      out = {"torch.yaml", "AMD's wheel sets", "", {}};
      for (const auto& wheels : knowledge.amd_wheels) {
        out.entries.push_back(wheels.source);
      }
      break;
    case Topic::radeon_wheels:
      out = {"torch.yaml", "AMD's wheel files on repo.radeon.com", "", {}};
      for (const auto& files : knowledge.radeon_wheels) {
        out.entries.push_back(files.source);
      }
      break;
    case Topic::rocm_releases:
      out = {"rocm_releases.yaml", "ROCm releases", "rocdoc rules show 6.4", {}};
      for (const auto& release : knowledge.rocm_releases) {
        out.entries.push_back(release.source);
      }
      break;
    case Topic::driver_versions:
      out = {"rocm_releases.yaml", "amdgpu driver versions", "", {}};
      for (const auto& driver : knowledge.driver_versions) {
        out.entries.push_back(driver.source);
      }
      break;
    case Topic::env_variables:
      out = {"env_vars.yaml", "environment variables", "", {}};
      for (const auto& variable : knowledge.env_variables) {
        out.entries.push_back(variable.source);
      }
      break;
    case Topic::wsl:
      out = {"wsl.yaml", "WSL releases", "", {}};
      for (const auto& release : knowledge.wsl_releases) {
        out.entries.push_back(release.source);
      }
      break;
    case Topic::cuda_packages:
      out = {"cuda_packages.yaml", "CUDA-only Python packages", "", {}};
      out.entries.push_back(knowledge.build_libraries.source);
      for (const auto& package : knowledge.cuda_packages) {
        out.entries.push_back(package.source);
      }
      break;
  }
  return out;
}

/// The sources of a topic's entries ("a ; b" is two), most cited first, with their counts.
std::vector<std::pair<std::string, std::size_t>> cited(const TopicSources& topic) {
  std::vector<std::pair<std::string, std::size_t>> counts;  // in order of first appearance
  for (const auto entry : topic.entries) {
    for (const auto part : util::split(entry, ';')) {
      const std::string source(util::trim(part));
      if (source.empty()) {
        continue;
      }
      const auto it = std::find_if(counts.begin(), counts.end(),
                                   [&](const auto& count) { return count.first == source; });
      if (it == counts.end()) {
        counts.emplace_back(source, 1);
      } else {
        ++it->second;
      }
    }
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return counts;
}

/// How many of a topic's sources are listed; `rules show` names the rest, entry by entry.
constexpr std::size_t k_sources_shown = 6;

// ---- output ------------------------------------------------------------------------------

std::string scope_words(Scope scope) {
  return scope == Scope::bare_metal ? "bare metal (skipped on WSL)" : "anywhere (also on WSL)";
}

std::string judges_words(Judges judges) {
  switch (judges) {
    case Judges::software:
      return "judges the installed software (runs in GPU-less mode too)";
    case Judges::machine:
      return "judges the machine (skipped in GPU-less mode)";
    case Judges::code:
      break;
  }
  return "judges source code: rocdoc scan DIR, or rocdoc check --scan DIR (not run without it)";
}

/// "needs the probes pci, kfd_topology"; "needs no probe" (the code checks read a scanned tree).
std::string needs_words(const std::vector<std::string>& needs) {
  return needs.empty() ? "needs no probe" : "needs the probes " + util::join(needs, ", ");
}

std::vector<std::string> needs_of(const CheckInfo& check) {
  return {check.needs.begin(), check.needs.end()};
}

struct Part {
  std::string_view heading;
  const std::string* text;
};

std::array<Part, 4> parts_of(const CheckDoc& doc) {
  // What, why and how to fix it first, as rustc --explain has them; the exact messages after.
  return {Part{"What it looks at", &doc.looks_at}, Part{"Why it matters", &doc.why},
          Part{"How to fix it", &doc.fix},
          Part{"When it passes, warns, fails or skips", &doc.verdicts}};
}

void indented(std::string_view text, std::string_view indent, std::ostream& out) {
  for (const auto line : util::lines(text)) {
    out << (line.empty() ? std::string() : std::string(indent) + util::printable(line)) << "\n";
  }
}

void render_human_explain(const CheckInfo& check, const Knowledge& knowledge, const CheckDoc& doc,
                          const std::vector<DocSource>& sources, Color color, std::ostream& out) {
  const HumanOptions options{color};
  const Page page(out, options);  // colour as check's report has it (src/render/page.h)
  const auto bold = [&](std::string_view text) { return page.paint(text, k_bold); };
  out << bold(fmt::format("{}: {}", check.id, check.title)) << "\n";
  out << fmt::format("  area {} · default severity {} · {}\n  {}\n  {}\n", check.area,
                     to_string(check.severity), scope_words(check.scope),
                     judges_words(check.judges), needs_words(needs_of(check)));
  for (const Part& part : parts_of(doc)) {
    out << "\n" << bold(part.heading) << "\n";
    indented(terminal_text(*part.text), "  ", out);
  }
  if (!doc.area_intro.empty()) {
    out << "\n" << bold("About the " + doc.area + " checks") << "\n";
    indented(terminal_text(doc.area_intro), "  ", out);
  }
  out << "\n" << bold("Sources") << "\n";
  for (const auto& source : sources) {
    const std::string text = source.text.empty() || source.text == source.url ? source.url
                             : source.url.empty()                             ? source.text
                                                  : source.text + ": " + source.url;
    out << "  - " << util::printable(collapse_spaces(text)) << "\n";
  }
  if (sources.empty()) {
    out << "  (the section cites no link; the sources of its rules are below, if it reads any)\n";
  }
  const auto it = topics_read().find(check.id);
  if (it != topics_read().end()) {
    out << fmt::format(
        "  The rules entries it reads (rules revision {}), each source with the number of "
        "entries citing it:\n",
        util::printable(knowledge.revision));
    for (const Topic topic : it->second) {
      const TopicSources topic_data = topic_sources(topic, knowledge);
      const auto counts = cited(topic_data);
      out << fmt::format("    {} (rules/{}, {} entries):\n", topic_data.what, topic_data.file,
                         topic_data.entries.size());
      for (std::size_t i = 0; i < counts.size() && i < k_sources_shown; ++i) {
        out << fmt::format("      - {} ({})\n", util::printable(counts[i].first), counts[i].second);
      }
      if (counts.size() > k_sources_shown) {
        out << fmt::format(
            "      and {} more{}\n", counts.size() - k_sources_shown,
            topic_data.show.empty()
                ? std::string(" (in the file)")
                : fmt::format(" ('{}' shows one entry with its source)", topic_data.show));
      }
    }
  }
  out << "  This text: docs/checks.md, section " << check.id << ".\n";
}

void render_markdown_explain(const CheckInfo& check, const Knowledge& knowledge,
                             const CheckDoc& doc, const std::vector<DocSource>& sources,
                             std::ostream& out) {
  namespace md = markdown;
  std::vector<std::string> needs;
  for (const auto& need : needs_of(check)) {
    needs.push_back(md::code(need));
  }
  out << fmt::format("## {} — {}\n\n", md::code(check.id), md::text(check.title));
  out << fmt::format("Area {} · default severity **{}** · {} · {} · {}\n\n", md::text(check.area),
                     to_string(check.severity), scope_words(check.scope),
                     judges_words(check.judges), needs_words(needs));
  for (const Part& part : parts_of(doc)) {
    out << "### " << part.heading << "\n\n" << *part.text << "\n\n";
  }
  if (!doc.area_intro.empty()) {
    out << "### About the " << md::text(doc.area) << " checks\n\n" << doc.area_intro << "\n\n";
  }
  out << "### Sources\n\n";
  for (const auto& source : sources) {
    const std::string text =
        md::text(collapse_spaces(source.text.empty() ? source.url : source.text));
    out << "- " << (source.url.empty() ? text : "[" + text + "](" + source.url + ")") << "\n";
  }
  const auto it = topics_read().find(check.id);
  if (it != topics_read().end()) {
    for (const Topic topic : it->second) {
      const TopicSources topic_data = topic_sources(topic, knowledge);
      const auto counts = cited(topic_data);
      std::vector<std::string> shown;
      for (std::size_t i = 0; i < counts.size() && i < k_sources_shown; ++i) {
        shown.push_back(md::text(counts[i].first));
      }
      out << fmt::format("- rules/{} ({}, {} entries): {}{}\n", topic_data.file, topic_data.what,
                         topic_data.entries.size(), util::join(shown, "; "),
                         counts.size() > k_sources_shown
                             ? fmt::format("; and {} more", counts.size() - k_sources_shown)
                             : std::string());
    }
  }
  out << "- docs/checks.md, section " << md::code(check.id) << "\n";
}

void render_json_explain(const CheckInfo& check, const Knowledge& knowledge, const CheckDoc& doc,
                         const std::vector<DocSource>& sources, std::ostream& out) {
  using json = nlohmann::ordered_json;
  json links = json::array();
  for (const auto& source : sources) {
    links.push_back({{"text", collapse_spaces(source.text)},
                     {"url", source.url.empty() ? json(nullptr) : json(source.url)}});
  }
  json rules = json::array();
  const auto it = topics_read().find(check.id);
  if (it != topics_read().end()) {
    for (const Topic topic : it->second) {
      const TopicSources topic_data = topic_sources(topic, knowledge);
      json cites = json::array();
      for (const auto& [source, count] : cited(topic_data)) {
        cites.push_back({{"source", source}, {"entries", count}});
      }
      rules.push_back({{"file", "rules/" + std::string(topic_data.file)},
                       {"what", topic_data.what},
                       {"entries", topic_data.entries.size()},
                       {"sources", cites}});
    }
  }
  const json document = {
      {"id", check.id},
      {"area", check.area},
      {"title", check.title},
      {"severity", to_string(check.severity)},
      {"scope", check.scope == Scope::bare_metal ? "bare_metal" : "anywhere"},
      {"judges", check.judges == Judges::software  ? "software"
                 : check.judges == Judges::machine ? "machine"
                                                   : "code"},
      {"needs", needs_of(check)},
      {"looks_at", terminal_text(doc.looks_at)},
      {"why", terminal_text(doc.why)},
      {"verdicts", terminal_text(doc.verdicts)},
      {"fix", terminal_text(doc.fix)},
      {"area_notes", terminal_text(doc.area_intro)},
      {"sources", links},
      {"rules", rules},
      {"rules_revision", knowledge.revision},
      {"markdown", markdown_without_comments(doc.section)},
  };
  out << document.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace

bool render_explain(const CheckInfo& check, const Knowledge& knowledge, std::string_view doc,
                    ExplainFormat format, std::ostream& out, Color color) {
  const auto parts = check_doc(doc, check.id);
  if (!parts) {
    return false;
  }
  auto sources = doc_sources(parts->looks_at + "\n" + parts->why + "\n" + parts->verdicts + "\n" +
                             parts->fix + "\n" + parts->area_intro);
  switch (format) {
    case ExplainFormat::human:
      render_human_explain(check, knowledge, *parts, sources, color, out);
      break;
    case ExplainFormat::markdown:
      render_markdown_explain(check, knowledge, *parts, sources, out);
      break;
    case ExplainFormat::json:
      render_json_explain(check, knowledge, *parts, sources, out);
      break;
  }
  return true;
}

}  // namespace rocdoc
