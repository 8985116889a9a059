#include "probes/pci_names.h"

extern "C" {
#include <pci/pci.h>
}

#include <array>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/util/dynlib.h"

namespace rocdoc {

namespace {

// libpci's default error handler calls exit(1). Ours records the message and jumps back to
// the guarded call that failed (call_libpci); the library is C, so no C++ frames are skipped.
thread_local std::jmp_buf* t_on_error = nullptr;
// The message, in a buffer: nothing may allocate (and so throw) inside libpci's C frames.
thread_local std::array<char, 512> t_last_error{};

// libpci declares the handler PCI_NONRET: it must never return. clang makes the GNU noreturn
// attribute part of the function pointer's type, so this is a GNU attribute, not [[noreturn]].
__attribute__((noreturn, format(printf, 1, 2))) void on_error(char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(t_last_error.data(), t_last_error.size(), format, args);
  va_end(args);
  if (t_on_error != nullptr) {
    std::longjmp(*t_on_error, 1);
  }
  // A libpci call outside call_libpci(): there is nowhere to return to.
  std::fprintf(stderr, "rocdoc: libpci: %s\n", t_last_error.data());
  std::_Exit(2);
}

__attribute__((format(printf, 1, 2))) void on_warning(char*, ...) {}

/// Runs `call` (libpci calls only); false when libpci reported an error and jumped back. The
/// setjmp lives here, in a function with no local that changes after it (-Wclobbered), and
/// `call` must hold no object with a destructor across the libpci call.
template <typename Call>
bool call_libpci(const Call& call) {
  std::jmp_buf on_failure;
  t_on_error = &on_failure;
  if (setjmp(on_failure) != 0) {
    t_on_error = nullptr;
    return false;
  }
  call();
  t_on_error = nullptr;
  return true;
}

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
  char* const sysfs = sysfs_path ? const_cast<char*>(sysfs_path->c_str()) : nullptr;
  // pci_init reports a missing sysfs tree as an error; the name list still works after it.
  call_libpci([&impl, sysfs] {
    if (sysfs != nullptr) {
      impl.set_param(impl.access, const_cast<char*>("sysfs.path"), sysfs);
    }
    impl.set_param(impl.access, const_cast<char*>("hwdb.disable"), const_cast<char*>("1"));
    impl.init(impl.access);
  });
}

PciNameSource::~PciNameSource() {
  if (m_impl->access != nullptr) {
    Impl& impl = *m_impl;
    call_libpci([&impl] { impl.cleanup(impl.access); });
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
  const bool returned = call_libpci([&] {
    found_vendor =
        impl.lookup_name(impl.access, vendor_name.data(), static_cast<int>(vendor_name.size()),
                         PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS, vendor);
    found_device =
        impl.lookup_name(impl.access, device_name.data(), static_cast<int>(device_name.size()),
                         PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS, vendor, device);
  });
  if (!returned) {
    impl.problem = "libpci: " + std::string(t_last_error.data());
    return std::nullopt;
  }
  return PciNames{found_vendor != nullptr ? found_vendor : "",
                  found_device != nullptr ? found_device : ""};
}

}  // namespace rocdoc
