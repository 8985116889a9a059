#include <sstream>

#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "tests/fuzz/fuzz.h"

namespace rocdoc::fuzz {

void report_on(const Host& host) {
  const Report report = run_report(host, knowledge(), CheckSelection{});
  std::ostringstream human;
  render_human(report, human, Color::on, Verbosity::verbose);
  std::ostringstream json;
  render_json(report, json);
  ROCDOC_FUZZ_CHECK(!json.str().empty(), "render_json wrote nothing");
}

}  // namespace rocdoc::fuzz
