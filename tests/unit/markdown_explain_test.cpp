// The Markdown escaping helpers (src/render/markdown_text.h) and the slicing of docs/checks.md that
// `rocdoc explain` prints (src/knowledge/explain.h).
#include <catch2/catch.hpp>
#include <sstream>

#include "rocdoc/check.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"
#include "src/knowledge/explain.h"
#include "src/render/markdown_text.h"

using namespace rocdoc;

TEST_CASE("markdown text escapes what could start a construct") {
  CHECK(markdown::text("gfx1100") == "gfx1100");
  CHECK(markdown::text("a|b") == "a\\|b");
  CHECK(markdown::text("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;");
  CHECK(markdown::text("a & b") == "a &amp; b");
  CHECK(markdown::text("`x`") == "\\`x\\`");
  CHECK(markdown::text("*em* [l](u) ~s~ $m$") == "\\*em\\* \\[l\\](u) \\~s\\~ \\$m\\$");
  CHECK(markdown::text("back\\slash") == "back\\\\slash");
  // Intra-word underscores cannot open emphasis and stay readable; others are escaped.
  CHECK(markdown::text("kfd_topology") == "kfd_topology");
  CHECK(markdown::text("_x_") == "\\_x\\_");
}

TEST_CASE("markdown text neutralises line-start constructs") {
  CHECK(markdown::text("# heading") == "\\# heading");
  CHECK(markdown::text("- item") == "\\- item");
  CHECK(markdown::text("+ item") == "\\+ item");
  CHECK(markdown::text("===") == "\\===");
  CHECK(markdown::text("12. item") == "12\\. item");
  CHECK(markdown::text("3) item") == "3\\) item");
  CHECK(markdown::text("> quote") == "&gt; quote");
  CHECK(markdown::text("    code") == "&#32;&#32;&#32;&#32;code");
  CHECK(markdown::text("---") == "\\---");
  CHECK(markdown::text("-") == "\\-");
  // Not a marker (no space after it), or not at the start: left as it is.
  CHECK(markdown::text("0.1.0") == "0.1.0");
  CHECK(markdown::text("-x") == "-x");
  CHECK(markdown::text("a - b 1. c") == "a - b 1. c");
}

TEST_CASE("markdown text puts a line break on no line of its own") {
  // util::printable writes the control characters as escapes first; the backslash of an
  // escape is itself escaped, so the reader sees "\n" and the text stays one line.
  const std::string escaped = markdown::text("a\n# b\r\x1b[2J");
  CHECK(escaped.find('\n') == std::string::npos);
  CHECK(escaped.find('\r') == std::string::npos);
  CHECK(escaped.find('\x1b') == std::string::npos);
  CHECK(escaped == "a\\\\n\\# b\\\\r\\\\x1b\\[2J");
}

TEST_CASE("markdown code spans and fences outgrow the backticks inside") {
  CHECK(markdown::longest_backtick_run("a``b```c`") == 3);
  CHECK(markdown::longest_backtick_run("none") == 0);
  CHECK(markdown::code("/dev/kfd") == "`/dev/kfd`");
  CHECK(markdown::code("a`b") == "``a`b``");
  CHECK(markdown::code("`x") == "`` `x ``");
  CHECK(markdown::code(" x ") == "`  x  `");
  CHECK(markdown::code("<b>&") == "`<b>&`");
  CHECK(markdown::code("").empty());
  CHECK(markdown::fence({"sudo usermod -aG render 'alice'"}, "sh") ==
        "```sh\nsudo usermod -aG render 'alice'\n```\n");
  CHECK(markdown::fence({"echo ```", "x"}, "sh") == "````sh\necho ```\nx\n````\n");
  CHECK(markdown::fence({"a\nb"}) == "```\na\\nb\n```\n");
}

namespace {

constexpr std::string_view k_doc =
    "# Checks\n"
    "\n"
    "## Hardware\n"
    "\n"
    "Shared words for the area.\n"
    "\n"
    "### gpu.none\n"
    "\n"
    "*AMD GPU present* · **error** · needs `pci` · bare\n"
    "metal\n"
    "\n"
    "**Looks at** every function under `/sys/bus/pci/devices`.\n"
    "\n"
    "**Why.** Nothing to use ([ROCm/cvs](https://github.com/ROCm/cvs)); see\n"
    "kyuz0/amd-strix-halo-toolboxes#53 and ZhiyuanSue/RendezvOS:docs/ROCm.md.\n"
    "\n"
    "- **skip** — never.\n"
    "- **fail** — no AMD GPU.\n"
    "\n"
    "**Fixes**, for the first one: the [driver-load\n"
    "fixes](#driver-load-fixes) above:\n"
    "\n"
    "```\n"
    "### not a heading inside a code block\n"
    "sudo modprobe amdgpu\n"
    "```\n"
    "\n"
    "---\n"
    "\n"
    "### gpu.next\n"
    "\n"
    "Next.\n"
    "\n"
    "## Planned\n"
    "\n"
    "- `runtime.smi` — rocm_smi_lib cannot initialise or disagrees with the\n"
    "  topology.\n"
    "- `topology.p2p` — GPUs cannot talk directly.\n";

}  // namespace

TEST_CASE("doc_section slices one check's section") {
  const auto section = doc_section(k_doc, "gpu.none");
  REQUIRE(section);
  CHECK(section->substr(0, 13) == "### gpu.none\n");
  // Up to the next heading; a heading inside a code block does not end it; the rule goes.
  CHECK(section->find("sudo modprobe amdgpu\n```") != std::string_view::npos);
  CHECK(section->substr(section->size() - 3) == "```");
  CHECK(section->find("gpu.next") == std::string_view::npos);
  CHECK(doc_section(k_doc, "gpu.next") == std::optional<std::string_view>("### gpu.next\n\nNext."));
  CHECK_FALSE(doc_section(k_doc, "gpu.no"));
  CHECK_FALSE(doc_section(k_doc, "gpu"));
  CHECK_FALSE(doc_section(k_doc, "not a heading inside a code block"));
}

TEST_CASE("check_doc cuts a section into its parts") {
  const auto doc = check_doc(k_doc, "gpu.none");
  REQUIRE(doc);
  CHECK(doc->summary == "*AMD GPU present* · **error** · needs `pci` · bare metal");
  CHECK(doc->looks_at == "Every function under `/sys/bus/pci/devices`.");
  CHECK(doc->why.substr(0, 16) == "Nothing to use (");
  CHECK(doc->verdicts == "- **skip** — never.\n- **fail** — no AMD GPU.");
  CHECK(doc->fix.substr(0, 22) == "For the first one: the");
  CHECK(doc->fix.find("sudo modprobe amdgpu") != std::string::npos);
  CHECK(doc->area == "Hardware");
  CHECK(doc->area_intro == "Shared words for the area.");
}

TEST_CASE("planned_check reads the Planned list") {
  CHECK(
      planned_check(k_doc, "runtime.smi") ==
      std::optional<std::string>("rocm_smi_lib cannot initialise or disagrees with the topology."));
  CHECK(planned_check(k_doc, "topology.p2p") ==
        std::optional<std::string>("GPUs cannot talk directly."));
  CHECK_FALSE(planned_check(k_doc, "runtime"));
  CHECK_FALSE(planned_check(k_doc, "gpu.none"));
}

TEST_CASE("doc_sources lists links and GitHub references once") {
  const auto sources = doc_sources(
      "([ROCm/cvs](https://github.com/ROCm/cvs)) and https://example.org/page. again "
      "[cvs](https://github.com/ROCm/cvs), kyuz0/amd-strix-halo-toolboxes#53 and "
      "ZhiyuanSue/RendezvOS:docs/ROCm.md; not /sys/bus/pci or docker/podman: or "
      "[here](#anchor).");
  REQUIRE(sources.size() == 4);
  CHECK(sources[0].text == "ROCm/cvs");
  CHECK(sources[0].url == "https://github.com/ROCm/cvs");
  CHECK(sources[1].url == "https://example.org/page");
  CHECK(sources[2].text == "kyuz0/amd-strix-halo-toolboxes#53");
  CHECK(sources[2].url == "https://github.com/kyuz0/amd-strix-halo-toolboxes/issues/53");
  CHECK(sources[3].text == "ZhiyuanSue/RendezvOS:docs/ROCm.md");
  CHECK(sources[3].url.empty());
}

TEST_CASE("markdown_without_comments drops the developers' notes, not the text or code") {
  CHECK(markdown_without_comments("a fix.\n<!-- fixture: user-needs-relogin -->\nnext\n") ==
        "a fix.\nnext\n");
  CHECK(markdown_without_comments("before <!-- fixtures: a, b --> after\n") == "before  after\n");
  CHECK(markdown_without_comments("x <!-- one\ntwo -->\ny\n") == "x\ny\n");
  CHECK(markdown_without_comments("```\n<!-- in code -->\n```\n") ==
        "```\n<!-- in code -->\n```\n");
  CHECK(markdown_without_comments("para\n\nmore\n") == "para\n\nmore\n");
}

TEST_CASE("a check's parts leave out the HTML comments of its section") {
  const std::string doc =
      "## Area\n\n### a.check\n\n*Title* · **error**\n\n**Looks at** x.\n\n"
      "**Why.** y.\n<!-- fixture: some-machine -->\n\n- **pass** — ok.\n\n**Fix:** z.\n";
  const auto parts = check_doc(doc, "a.check");
  REQUIRE(parts);
  CHECK(parts->why == "Y.");
  CHECK(parts->fix == "Z.");
}

TEST_CASE("terminal_text turns Markdown into plain lines") {
  CHECK(terminal_text("**Why.** see [ROCm/cvs](https://github.com/ROCm/cvs) and `a*b`") ==
        "Why. see ROCm/cvs (https://github.com/ROCm/cvs) and `a*b`");
  CHECK(terminal_text("the [driver-load\nfixes](#driver-load-fixes), *Title* · x") ==
        "the driver-load\nfixes (docs/checks.md#driver-load-fixes), Title · x");
  CHECK(terminal_text("[json-report.md](json-report.md#status)") ==
        "json-report.md (docs/json-report.md#status)");
  CHECK(terminal_text("Run:\n\n  ```\n  sudo x \\\n  ```\n") == "Run:\n\n      sudo x \\");
  CHECK(terminal_text("a \\| b") == "a | b");
}

TEST_CASE("every check of the table has its section in the embedded docs/checks.md") {
  const Knowledge knowledge = load_embedded_knowledge();
  for (const auto& check : check_table()) {
    INFO(check.id);
    const auto doc = check_doc(embedded_checks_doc(), check.id);
    REQUIRE(doc);
    CHECK_FALSE(doc->looks_at.empty());
    CHECK_FALSE(doc->why.empty());
    CHECK_FALSE(doc->verdicts.empty());
    CHECK_FALSE(doc->fix.empty());
    for (const auto format : {ExplainFormat::human, ExplainFormat::markdown, ExplainFormat::json}) {
      std::ostringstream out;
      CHECK(render_explain(check, knowledge, embedded_checks_doc(), format, out));
      CHECK(out.str().find(std::string(check.id)) != std::string::npos);
    }
  }
  // The deep checks and topology.p2p were planned once: now they are explained, and no longer
  // planned (the Planned list is empty).
  for (const std::string_view id : {"runtime.hip-init", "runtime.smi", "topology.p2p"}) {
    CHECK(find_check(id) != nullptr);
    CHECK_FALSE(planned_check(embedded_checks_doc(), id));
    CHECK(check_doc(embedded_checks_doc(), id));
  }
}
