#include "src/render/fix_json.h"

namespace rocdoc {

nlohmann::ordered_json fix_json(const Fix& fix) {
  using json = nlohmann::ordered_json;
  return {{"description", fix.description},
          {"command", fix.command.empty() ? json(nullptr) : json(fix.command)},
          {"kind", to_string(fix.command.empty() ? FixKind::manual : fix.kind)},
          {"needs_root", fix.needs_root},
          {"needs_reboot", fix.needs_reboot},
          {"needs_relogin", fix.needs_relogin}};
}

}  // namespace rocdoc
