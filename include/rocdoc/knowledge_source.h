// The knowledge base a report is made with, ready or still being built on another thread. A
// check builds the embedded rules while the probes that do not read them run (building them
// costs as much as the slowest probe); a probe that reads them waits in get().
#pragma once

#include <future>
#include <memory>

#include "rocdoc/knowledge.h"

namespace rocdoc {

class KnowledgeSource {
 public:
  /// A knowledge base already built, kept alive by the caller.
  explicit KnowledgeSource(const Knowledge& ready)
      : m_ready(std::shared_ptr<const Knowledge>(), &ready) {}
  /// A knowledge base already built, kept alive here.
  explicit KnowledgeSource(std::shared_ptr<const Knowledge> ready) : m_ready(std::move(ready)) {}
  /// One being built (std::async): get() waits for it, and rethrows what building it threw.
  explicit KnowledgeSource(std::shared_future<std::shared_ptr<const Knowledge>> coming)
      : m_coming(std::move(coming)) {}

  /// The knowledge base; from any thread.
  const Knowledge& get() const {
    if (m_ready) {
      return *m_ready;
    }
    // A copy per caller: threads share the state through copies of the future, never one object.
    const std::shared_future<std::shared_ptr<const Knowledge>> coming = m_coming;
    return *coming.get();
  }

 private:
  std::shared_ptr<const Knowledge> m_ready;
  std::shared_future<std::shared_ptr<const Knowledge>> m_coming;
};

}  // namespace rocdoc
