// /etc/group and /etc/passwd (colon-separated account files): parse_group_file and
// home_from_passwd, then a whole report with the fuzzed file as both.
#include "probes/access.h"
#include "probes/python_locations.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  for (const auto& group : parse_group_file(input)) {
    ROCDOC_FUZZ_CHECK(group.name.find(':') == std::string::npos, "a group name holds no ':'");
    for (const auto& member : group.members) {
      ROCDOC_FUZZ_CHECK(member.find(',') == std::string::npos, "a member holds no ','");
    }
  }
  (void)home_from_passwd(input, "alice");
  (void)home_from_passwd(input, "");

  fuzz::OverlayHost host(fuzz::fixture("pyenv-shims-torch"));
  host.set_file("/etc/group", input);
  host.set_file("/etc/passwd", input);
  fuzz::report_on(host);
  return 0;
}
