// The probes run side by side where the host allows it (src/pipeline/run_report.cpp): the report
// is the same as one probe after the other, and a refused input still refuses the whole report.
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "src/hosts/snapshot.h"
#include "src/util/threads.h"

using namespace rocdoc;

namespace {

/// A fixture read by many threads: every call goes to the snapshot under one lock (its caches
/// are not for threads), and the threads that called are counted.
class ManyThreads final : public Host {
  template <typename Call>
  auto call(const Call& inner_call) const -> decltype(inner_call()) {
    std::unique_lock lock(m_mutex);
    m_threads.insert(std::this_thread::get_id());
    // The first reads wait (a while at most) for a second thread: the probes must be side by
    // side, whatever the scheduler does with threads that start a little later.
    if (m_threads.size() >= 2) {
      m_second_thread.notify_all();
    } else if (!m_waited && util::usable_cpus() > 1) {
      m_waited = !m_second_thread.wait_for(lock, std::chrono::seconds(5),
                                           [this] { return m_threads.size() >= 2; });
    }
    return inner_call();
  }

 public:
  explicit ManyThreads(const Host& inner, std::string refused_dir = {})
      : m_inner(inner), m_refused_dir(std::move(refused_dir)) {}
  HostKind kind() const override { return m_inner.kind(); }
  HostThreads threads() const override { return HostThreads::many; }
  // Asked by run_report() itself, before and after the probes: not a probe's read.
  std::string origin() const override { return m_inner.origin(); }
  FileRead read_file_or_error(std::string_view path, std::size_t max_bytes) const override {
    return call([&] { return m_inner.read_file_or_error(path, max_bytes); });
  }
  std::optional<std::vector<std::string>> list_dir(std::string_view path) const override {
    if (path == m_refused_dir) {
      throw HostLimitError(std::string(path) + ": too many entries");
    }
    return call([&] { return m_inner.list_dir(path); });
  }
  std::optional<FileStat> stat(std::string_view path) const override {
    return call([&] { return m_inner.stat(path); });
  }
  std::optional<std::string> read_link(std::string_view path) const override {
    return call([&] { return m_inner.read_link(path); });
  }
  OpenResult open_device(std::string_view path) const override {
    return call([&] { return m_inner.open_device(path); });
  }
  std::optional<std::uint64_t> filesystem_size(std::string_view path) const override {
    return call([&] { return m_inner.filesystem_size(path); });
  }
  std::optional<std::string> env(std::string_view name) const override {
    return call([&] { return m_inner.env(name); });
  }
  std::vector<std::pair<std::string, std::string>> environment() const override {
    return call([&] { return m_inner.environment(); });
  }
  Identity identity() const override {
    return call([&] { return m_inner.identity(); });
  }
  Uname uname() const override {
    return call([&] { return m_inner.uname(); });
  }
  std::optional<std::vector<std::string>> offload_targets(std::string_view path) const override {
    return call([&] { return m_inner.offload_targets(path); });
  }
  std::optional<std::vector<std::string>> needed_libraries(std::string_view path) const override {
    return call([&] { return m_inner.needed_libraries(path); });
  }
  KernelLog kernel_log() const override {
    return call([&] { return m_inner.kernel_log(); });
  }
  std::optional<std::string> local_path(std::string_view path) const override {
    return call([&] { return m_inner.local_path(path); });
  }
  std::size_t threads_seen() const {
    std::lock_guard lock(m_mutex);
    return m_threads.size();
  }

 private:
  const Host& m_inner;
  std::string m_refused_dir;
  mutable std::mutex m_mutex;
  mutable std::condition_variable m_second_thread;
  mutable bool m_waited = false;  ///< gave up waiting: the probes ran one after the other
  mutable std::set<std::thread::id> m_threads;
};

/// What a report found, without its timings: each check's status, message and fix commands,
/// and each probe's name and result.
std::vector<std::string> findings(const Report& report) {
  std::vector<std::string> lines;
  for (const auto& probe : report.probes) {
    lines.push_back("probe " + probe.name + (probe.ok ? " ok" : " failed: " + probe.error));
  }
  for (const auto& check : report.checks) {
    std::string line = std::string(check.info->id) + " " +
                       std::to_string(static_cast<int>(check.result.status)) + " " +
                       check.result.message;
    for (const auto& fix : check.result.fix) {
      line += " | " + fix.command;
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

TEST_CASE("Probes run side by side give the report they give one after the other") {
  const Knowledge knowledge = load_embedded_knowledge();
  for (const char* fixture :
       {"full-stack-healthy", "amd-and-nvidia", "mi300x-cpx-partitions", "cpu-wheel"}) {
    INFO(fixture);
    const SnapshotHost snapshot(std::string(ROCDOC_FIXTURES_DIR) + "/" + fixture);
    const Report serial = run_report(snapshot, knowledge, {});
    const ManyThreads many(snapshot);
    const Report side_by_side = run_report(many, knowledge, {});
    CHECK(findings(side_by_side) == findings(serial));
    CHECK(side_by_side.probes.size() == serial.probes.size());
    CHECK(many.threads_seen() >= (util::usable_cpus() > 1 ? 2u : 1u));
  }
}

TEST_CASE("A probe's refused input refuses the whole report when the probes run side by side") {
  const Knowledge knowledge = load_embedded_knowledge();
  const SnapshotHost snapshot(std::string(ROCDOC_FIXTURES_DIR) + "/full-stack-healthy");
  const ManyThreads many(snapshot, "/sys/bus/pci/devices");
  CHECK_THROWS_AS(run_report(many, knowledge, {}), HostLimitError);
}

TEST_CASE("Rules still being built when the probes start give the report built rules give") {
  // check builds the embedded rules on another thread (start_loading_rules) while the probes that
  // do not read them run; those that do wait. The rules here are held back until a probe has
  // read the machine, so the probes surely start first.
  const SnapshotHost snapshot(std::string(ROCDOC_FIXTURES_DIR) + "/full-stack-healthy");
  const ManyThreads many(snapshot);
  const Report ready = run_report(snapshot, embedded_knowledge(KnowledgeParts::machine), {});
  std::promise<std::shared_ptr<const Knowledge>> rules;
  std::thread builder([&] {
    while (many.threads_seen() == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    rules.set_value(load_rules("", KnowledgeParts::machine));
  });
  const Report waited = run_report(many, KnowledgeSource(rules.get_future().share()), {});
  builder.join();
  CHECK(findings(waited) == findings(ready));
  CHECK(waited.rules_revision == ready.rules_revision);
  CHECK(waited.rules_origin == "embedded");
}

TEST_CASE("Rules that fail to build fail the report that waits for them") {
  std::promise<std::shared_ptr<const Knowledge>> rules;
  rules.set_exception(std::make_exception_ptr(std::runtime_error("out of memory")));
  const SnapshotHost snapshot(std::string(ROCDOC_FIXTURES_DIR) + "/full-stack-healthy");
  CHECK_THROWS_WITH(run_report(snapshot, KnowledgeSource(rules.get_future().share()), {}),
                    "out of memory");
}
