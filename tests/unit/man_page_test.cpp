// docs/rocdoc.1.md's Markdown subset to roff (src/man/roff.cpp, the build step rocdoc_manc).
#include <catch2/catch.hpp>

#include "src/man/roff.h"

using rocdoc::ManPageError;
using rocdoc::markdown_to_roff;

namespace {

std::string body(const std::string& markdown) {
  const std::string roff = markdown_to_roff("% T(1) rocdoc | Head\n\n" + markdown, "1.2.3", "d");
  return roff.substr(roff.find(".nh\n.ad l\n") + 10);
}

}  // namespace

TEST_CASE("man page: the title line gets the version of the build") {
  const std::string roff =
      markdown_to_roff("% ROCDOC(1) rocdoc | User Commands\n", "0.1.0", "2026-01-02");
  CHECK(roff.find(".TH \"ROCDOC\" \"1\" \"2026\\-01\\-02\" \"rocdoc 0.1.0\" \"User Commands\"\n") !=
        std::string::npos);
  CHECK_THROWS_AS(markdown_to_roff("# NAME\n", "0.1.0", ""), ManPageError);
}

TEST_CASE("man page: headings, paragraphs and emphasis") {
  CHECK(body("# NAME\n\nrocdoc - the doctor\n") == ".SH \"NAME\"\n.PP\nrocdoc \\- the doctor\n");
  CHECK(body("**check** [*FILE*]\n") == ".PP\n\\fBcheck\\fR [\\fIFILE\\fR]\n");
  CHECK(body("*AREA*.**\\***\n") == ".PP\n\\fIAREA\\fR.\\fB*\\fR\n");
  CHECK(body("*a **b** c*\n") == ".PP\n\\fIa \\f(BIb\\fI c\\fR\n");
  CHECK(body("2 * 3\n") == ".PP\n2 * 3\n");
  CHECK_THROWS_AS(body("**open\n"), ManPageError);
}

TEST_CASE("man page: backslashes, leading dots and apostrophes are escaped") {
  CHECK(body("*\\\\x1b* and \\uXXXX\n") == ".PP\n\\fI\\ex1b\\fR and \\euXXXX\n");
  CHECK(body("a\n.b\n'c'\n") == ".PP\na\n\\&.b\n\\&'c'\n");
  CHECK(body("/usr/bin:\\\n/bin\n") == ".PP\n/usr/bin:\n.br\n/bin\n");
  CHECK(body("\xe2\x9c\x93 ok\n").find("\\[u2713] ok") != std::string::npos);
  CHECK(markdown_to_roff("% T(1) r\n\n\xe2\x9c\x93\n", "", "")
            .find(".if !c\\[u2713] .char \\[u2713] [ok]\n") != std::string::npos);
}

TEST_CASE("man page: definition lists and code blocks") {
  CHECK(body("**--json**\n:   Print JSON,\n    always.\n\n    More.\n\nAfter.\n") ==
        ".TP\n\\fB\\-\\-json\\fR\nPrint JSON,\nalways.\n.IP\nMore.\n.PP\nAfter.\n");
  CHECK(body("Run:\n\n    rocdoc check --json > a\n    .x\n") ==
        ".PP\nRun:\n.IP\n.nf\nrocdoc check \\-\\-json > a\n\\&.x\n.fi\n");
}

TEST_CASE("man page: Markdown outside the subset fails the build") {
  CHECK_THROWS_AS(body("```\ncode\n```\n"), ManPageError);
  CHECK_THROWS_AS(body("- item\n"), ManPageError);
  CHECK_THROWS_AS(body("see [this](http://x)\n"), ManPageError);
  CHECK_THROWS_AS(body("`code`\n"), ManPageError);
  CHECK_THROWS_AS(body(":   no term\n"), ManPageError);
}
