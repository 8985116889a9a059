#include <catch2/catch.hpp>

#include "rocdoc/gfx_target.h"

using namespace rocdoc;

TEST_CASE("KFD gfx_target_version decodes with hex minor and stepping", "[gfx]") {
  CHECK(gfx_name_from_kfd(90010) == "gfx90a");
  CHECK(gfx_name_from_kfd(90402) == "gfx942");
  CHECK(gfx_name_from_kfd(100301) == "gfx1031");
  CHECK(gfx_name_from_kfd(110003) == "gfx1103");
  CHECK(gfx_name_from_kfd(90012) == "gfx90c");
  CHECK(gfx_name_from_kfd(120001) == "gfx1201");
  CHECK_FALSE(gfx_name_from_kfd(0).has_value());
  CHECK_FALSE(gfx_name_from_kfd(90016).has_value());
  // A major above 63 has no name that reads back (found by fuzz_kfd_properties: 810503 gave
  // "gfx8153", which kfd_from_gfx_name refuses).
  CHECK(gfx_name_from_kfd(630000) == "gfx6300");
  CHECK_FALSE(gfx_name_from_kfd(810503).has_value());
}

TEST_CASE("gfx names encode back to KFD numbers", "[gfx]") {
  CHECK(kfd_from_gfx_name("gfx90a") == 90010u);
  CHECK(kfd_from_gfx_name("gfx90a:xnack-") == 90010u);
  CHECK(kfd_from_gfx_name("gfx1151") == 110501u);
  CHECK_FALSE(kfd_from_gfx_name("gfx").has_value());
  CHECK_FALSE(kfd_from_gfx_name("sm_90").has_value());
}
