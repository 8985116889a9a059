// --python PATH (check, snapshot): the one program rocdoc ever runs, and only when asked.
#pragma once

#include <string>

#include "rocdoc/probes.h"

namespace rocdoc {

/// Asks an interpreter named with --python for its sys.path, with a deadline; a bare name is
/// looked up on PATH. Throws std::runtime_error saying why it gave none.
PythonInterpreter ask_interpreter(const std::string& name);

}  // namespace rocdoc
