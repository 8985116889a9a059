#include "probes/pci_names.h"

extern "C" {
#include <pci/pci.h>
}

#include <array>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "src/util/dynlib.h"

namespace rocdoc {

namespace {

// libpci's default error handler calls exit(1). Ours records the message and jumps back to
// the call that failed; the library is C, so no C++ frames are skipped.
thread_local std::jmp_buf* t_on_error = nullptr;
thread_local std::string t_last_error;

void on_error(char* format, ...) {
  std::array<char, 512> message{};
  va_list args;
  va_start(args, format);
  std::vsnprintf(message.data(), message.size(), format, args);
  va_end(args);
  t_last_error = message.data();
  if (t_on_error != nullptr) {
    std::longjmp(*t_on_error, 1);
  }
}

void on_warning(char*, ...) {}

}  // namespace

struct PciNameSource::Impl {
  util::DynLib lib{"libpci.so.3", "libpci.so"};
  decltype(&pci_alloc) alloc = lib.symbol<decltype(&pci_alloc)>("pci_alloc");
  decltype(&pci_init) init = lib.symbol<decltype(&pci_init)>("pci_init");
  decltype(&pci_cleanup) cleanup = lib.symbol<decltype(&pci_cleanup)>("pci_cleanup");
  decltype(&pci_set_param) set_param = lib.symbol<decltype(&pci_set_param)>("pci_set_param");
  decltype(&pci_lookup_name) lookup_name =
      lib.symbol<decltype(&pci_lookup_name)>("pci_lookup_name");
  pci_access* access = nullptr;
  std::string problem;
};

PciNameSource::PciNameSource(const std::optional<std::string>& sysfs_path)
    : m_impl(std::make_unique<Impl>()) {
  Impl& impl = *m_impl;
  if (!impl.lib.loaded()) {
    impl.problem = impl.lib.error();
    return;
  }
  if (impl.alloc == nullptr || impl.init == nullptr || impl.cleanup == nullptr ||
      impl.set_param == nullptr || impl.lookup_name == nullptr) {
    impl.problem = impl.lib.soname() + " lacks the functions rocdoc needs";
    return;
  }
  impl.access = impl.alloc();
  if (impl.access == nullptr) {
    impl.problem = "pci_alloc failed";
    return;
  }
  impl.access->error = on_error;
  impl.access->warning = on_warning;
  impl.access->debug = on_warning;
  impl.access->method = PCI_ACCESS_SYS_BUS_PCI;
  std::jmp_buf on_failure;
  t_on_error = &on_failure;
  if (setjmp(on_failure) == 0) {
    if (sysfs_path) {
      impl.set_param(impl.access, const_cast<char*>("sysfs.path"),
                     const_cast<char*>(sysfs_path->c_str()));
    }
    impl.set_param(impl.access, const_cast<char*>("hwdb.disable"), const_cast<char*>("1"));
    impl.init(impl.access);
  } else {
    // pci_init reports a missing sysfs tree; the name list still works.
    impl.problem.clear();
  }
  t_on_error = nullptr;
}

PciNameSource::~PciNameSource() {
  if (m_impl->access != nullptr) {
    std::jmp_buf on_failure;
    t_on_error = &on_failure;
    if (setjmp(on_failure) == 0) {
      m_impl->cleanup(m_impl->access);
    }
    t_on_error = nullptr;
  }
}

bool PciNameSource::available() const { return m_impl->access != nullptr; }

const std::string& PciNameSource::problem() const { return m_impl->problem; }

std::optional<PciNames> PciNameSource::lookup(std::uint16_t vendor, std::uint16_t device) {
  Impl& impl = *m_impl;
  if (impl.access == nullptr) {
    return std::nullopt;
  }
  std::array<char, 256> vendor_name{};
  std::array<char, 256> device_name{};
  const char* found_vendor = nullptr;
  const char* found_device = nullptr;
  std::jmp_buf on_failure;
  t_on_error = &on_failure;
  if (setjmp(on_failure) != 0) {
    t_on_error = nullptr;
    impl.problem = "libpci: " + t_last_error;
    return std::nullopt;
  }
  found_vendor =
      impl.lookup_name(impl.access, vendor_name.data(), static_cast<int>(vendor_name.size()),
                       PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS, vendor);
  found_device =
      impl.lookup_name(impl.access, device_name.data(), static_cast<int>(device_name.size()),
                       PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS, vendor, device);
  t_on_error = nullptr;
  return PciNames{found_vendor != nullptr ? found_vendor : "",
                  found_device != nullptr ? found_device : ""};
}

}  // namespace rocdoc
