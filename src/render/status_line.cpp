#include "src/render/status_line.h"

#include <algorithm>

#include "src/render/causes.h"

namespace rocdoc {

namespace {

/// The longest prefix of `text` of at most `bytes` bytes that ends on a character boundary.
std::string_view utf8_prefix(std::string_view text, std::size_t bytes) {
  if (text.size() <= bytes) {
    return text;
  }
  std::size_t end = bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0U) == 0x80U) {
    --end;  // text[end] continues a character that starts before it
  }
  return text.substr(0, end);
}

}  // namespace

std::vector<std::string> gate_causes(const Report& report) {
  const Causes causes(report);
  std::vector<const CheckRecord*> roots;
  for (const auto& record : report.checks) {
    if (!counts_toward_gate(record.result, report.outcome.fail_on)) {
      continue;
    }
    const CheckRecord* root = causes.root_of(record);
    root = root != nullptr ? root : &record;
    if (std::find(roots.begin(), roots.end(), root) == roots.end()) {
      roots.push_back(root);
    }
  }
  std::stable_partition(roots.begin(), roots.end(), [](const CheckRecord* record) {
    return record->result.status == Status::fail;
  });
  std::vector<std::string> items;
  for (const CheckRecord* root : roots) {
    items.emplace_back(root->info->id);
  }
  for (const auto& id : report.outcome.required) {
    const auto it = std::find_if(report.checks.begin(), report.checks.end(),
                                 [&](const CheckRecord& r) { return r.info->id == id; });
    if (it == report.checks.end() || it->result.status == Status::skip) {
      items.push_back(id + " not run");
    }
  }
  return items;
}

std::string fit_line(std::string_view prefix, const std::vector<std::string>& items,
                     std::size_t max_bytes) {
  const std::size_t total = items.size();
  for (std::size_t shown = total; shown > 0; --shown) {
    std::string line(prefix);
    for (std::size_t i = 0; i < shown; ++i) {
      line += (i == 0 ? "" : ", ") + items[i];
    }
    if (shown < total) {
      line += ", +" + std::to_string(total - shown) + " more";
    }
    if (line.size() <= max_bytes) {
      return line;
    }
  }
  // Not even the first item fits: cut it at a character boundary.
  const std::string more = total > 1 ? ", +" + std::to_string(total - 1) + " more" : "";
  const std::string_view mark = "...";
  std::string line(utf8_prefix(prefix, max_bytes));
  const std::size_t fixed = line.size() + mark.size() + more.size();
  if (total == 0 || fixed >= max_bytes) {
    return line;
  }
  line += utf8_prefix(items.front(), max_bytes - fixed);
  return line + std::string(mark) + more;
}

std::string still_a_problem(const Report& report) {
  const bool deep = report.facts.runtime.has_value();
  const bool smoke = report.facts.smoke.has_value();
  std::string next;
  if (!deep && !smoke) {
    next =
        "Run `rocdoc check --deep --smoke` (it loads the GPU runtime, runs work on each GPU "
        "and runs torch on them), then ";
  } else if (!deep) {
    next = "Run `rocdoc check --deep` (it loads the GPU runtime and runs work on each GPU), then ";
  } else if (!smoke) {
    next = "Run `rocdoc check --smoke` (it runs torch on the GPUs), then ";
  }
  return "Still a problem? " + next +
         "`rocdoc snapshot --redact`, and report it with that file: "
         "https://github.com/ROCm/ROCm/issues for ROCm and its runtime, "
         "https://github.com/pytorch/pytorch/issues for torch, your distribution's tracker for "
         "its packages.";
}

}  // namespace rocdoc
