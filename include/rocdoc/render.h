// Renderers: a Report (rocdoc/report.h) to text. They only format; they read nothing else.
#pragma once

#include <ostream>

#include "rocdoc/report.h"

namespace rocdoc {

enum class Color { off, on };
enum class Verbosity { normal, verbose };
void render_human(const Report& report, std::ostream& out, Color color, Verbosity verbosity);
void render_json(const Report& report, std::ostream& out);

}  // namespace rocdoc
