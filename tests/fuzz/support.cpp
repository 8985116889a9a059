#include <sstream>

#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "tests/fuzz/fuzz.h"

namespace rocdoc::fuzz {

void report_on(const Host& host) {
  const Report report = run_report(host, knowledge(), CheckSelection{});
  std::ostringstream human;
  render_human(report, human, {Color::on, Verbosity::verbose, 80, Glyphs::unicode});
  std::ostringstream ascii;
  render_human(report, ascii, {Color::off, Verbosity::normal, 40, Glyphs::ascii});
  for (const char byte : ascii.str()) {
    ROCDOC_FUZZ_CHECK(static_cast<unsigned char>(byte) < 0x80,
                      "an ASCII report holds a non-ASCII byte");
  }
  std::ostringstream json;
  render_json(report, json);
  ROCDOC_FUZZ_CHECK(!json.str().empty(), "render_json wrote nothing");
}

}  // namespace rocdoc::fuzz
