// Where a torch build comes from: pytorch.org, AMD, TheRock, a distribution, a source build.
#pragma once

#include <string>
#include <string_view>

#include "rocdoc/facts.h"
#include "rocdoc/knowledge.h"

namespace rocdoc {

/// Sets torch.origin and origin_detail from its version string, its INSTALLER file, the site
/// directory it lives in and the knowledge base's list of pytorch.org indexes per release.
void classify_torch(TorchInstall& torch, std::string_view site_dir, const Knowledge& knowledge);

/// "pytorch.org", "amd", ... as the JSON report spells it.
std::string_view to_string(TorchOrigin origin);

}  // namespace rocdoc
