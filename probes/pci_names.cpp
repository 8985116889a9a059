#include "probes/pci_names.h"

extern "C" {
#include <pci/pci.h>
}

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/util/dynlib.h"
#include "src/util/unique_fd.h"

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

bool is_blank(char c) { return c == ' ' || c == '\t'; }

/// Four hex digits, either case, as libpci's id_hex reads them.
std::optional<std::uint16_t> hex4(std::string_view text) {
  if (text.size() < 4) {
    return std::nullopt;
  }
  unsigned value = 0;
  for (const char c : text.substr(0, 4)) {
    value <<= 4;
    if (c >= '0' && c <= '9') {
      value += static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      value += static_cast<unsigned>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      value += static_cast<unsigned>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
  }
  return static_cast<std::uint16_t>(value);
}

/// The name of an "ID  name" entry whose id is `id`; nullopt for another id or a malformed line.
/// libpci wants a blank after the id, skips the blanks after it and reads a C string.
std::optional<std::string_view> entry_name(std::string_view entry, std::uint16_t id) {
  if (hex4(entry) != id || entry.size() < 5 || !is_blank(entry[4])) {
    return std::nullopt;
  }
  std::string_view name = entry.substr(5);
  while (!name.empty() && is_blank(name.front())) {
    name.remove_prefix(1);
  }
  name = name.substr(0, name.find('\0'));
  if (name.empty()) {
    return std::nullopt;
  }
  return name;
}

// pci.ids is ~1.3 MB; a file past this is not pci.ids.
constexpr std::size_t k_max_pci_ids = 64u << 20;

// Where distributions put pci.ids (Debian and Ubuntu; Fedora, RHEL and Arch; SUSE). libpci built
// with zlib reads pci.ids.gz before pci.ids: where that exists, libpci names the devices.
constexpr const char* k_pci_ids_dirs[] = {"/usr/share/misc", "/usr/share/hwdata", "/usr/share"};

}  // namespace

PciNames pci_ids_lookup(std::string_view text, std::uint16_t vendor, std::uint16_t device) {
  PciNames names;
  bool in_vendor = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!in_vendor && !line.empty() && line.front() == '\t') {
      continue;  // a device or subsystem of another vendor, or a subclass
    }
    // As names-parse.c reads a line: it ends at '\r' too, and one trailing blank is dropped.
    line = line.substr(0, line.find('\r'));
    if (!line.empty() && is_blank(line.back())) {
      line.remove_suffix(1);
    }
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') {
      continue;  // blank lines and comments
    }
    const std::size_t nest = std::min(line.find_first_not_of('\t'), line.size());
    if (nest == 0) {
      if (in_vendor) {
        break;  // the next vendor, class or block: the vendor has no such device
      }
      if (const auto name = entry_name(line, vendor)) {
        names.vendor = std::string(*name);
        in_vendor = true;
      }
    } else if (in_vendor && nest == 1) {
      if (const auto name = entry_name(line.substr(1), device)) {
        names.device = std::string(*name);
        break;
      }
    }
  }
  return names;
}

/// pci.ids mapped read-only.
struct PciNameSource::MappedIds {
  /// The pci.ids libpci would read, mapped, when it is a plain file; nullptr otherwise, with
  /// `exists` false when no distribution's place holds one (plain or compressed).
  static std::unique_ptr<MappedIds> map_system_file(bool& exists);

  MappedIds(void* address, std::size_t size) : m_address(address), m_size(size) {}
  ~MappedIds() { ::munmap(m_address, m_size); }
  MappedIds(const MappedIds&) = delete;
  MappedIds& operator=(const MappedIds&) = delete;
  std::string_view text() const { return {static_cast<const char*>(m_address), m_size}; }

 private:
  void* m_address;
  std::size_t m_size;
};

std::unique_ptr<PciNameSource::MappedIds> PciNameSource::MappedIds::map_system_file(bool& exists) {
  exists = true;
  for (const char* dir : k_pci_ids_dirs) {
    const std::string path = std::string(dir) + "/pci.ids";
    struct stat st {};
    if (::stat((path + ".gz").c_str(), &st) == 0) {
      return nullptr;  // libpci reads the compressed file first
    }
    util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!fd.valid()) {
      if (errno == ENOENT) {
        continue;
      }
      return nullptr;
    }
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        static_cast<std::uint64_t>(st.st_size) > k_max_pci_ids) {
      return nullptr;
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (address == MAP_FAILED) {
      return nullptr;
    }
    return std::make_unique<MappedIds>(address, size);
  }
  exists = false;
  return nullptr;
}

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

PciNameSource::PciNameSource(const std::optional<std::string>& sysfs_path, PciNamesFrom from) {
  if (from == PciNamesFrom::pci_ids_file) {
    bool exists = false;
    m_ids = MappedIds::map_system_file(exists);
    if (m_ids) {
      return;  // libpci would load all of pci.ids to name one device: ~20 ms
    }
    if (!exists) {
      // libpci names devices from pci.ids alone (its hwdb lookup is off): without the file,
      // loading it (and the libraries it needs) names nothing.
      m_no_pci_ids = true;
      return;
    }
  }
  m_impl = std::make_unique<Impl>();
  Impl& impl = *m_impl;
  if (!impl.lib.loaded()) {
    impl.problem = "libpci is not available (" + impl.lib.error() + ")";
    return;
  }
  if (impl.alloc == nullptr || impl.init == nullptr || impl.cleanup == nullptr ||
      impl.set_param == nullptr || impl.lookup_name == nullptr) {
    impl.problem =
        "libpci is not available (" + impl.lib.soname() + " lacks the functions rocdoc needs)";
    return;
  }
  impl.access = impl.alloc();
  if (impl.access == nullptr) {
    impl.problem = "libpci is not available (pci_alloc failed)";
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
  if (m_impl && m_impl->access != nullptr) {
    Impl& impl = *m_impl;
    call_libpci([&impl] { impl.cleanup(impl.access); });
  }
}

bool PciNameSource::available() const {
  return m_ids != nullptr || (m_impl && m_impl->access != nullptr);
}

const std::string& PciNameSource::problem() const {
  static const std::string k_none;
  static const std::string k_no_ids =
      "no pci.ids in /usr/share/misc, /usr/share/hwdata or /usr/share (the pciutils or hwdata "
      "package installs it)";
  return m_impl ? m_impl->problem : m_no_pci_ids ? k_no_ids : k_none;
}

const char* PciNameSource::source() const { return m_ids ? "pci.ids" : "libpci"; }

std::optional<PciNames> PciNameSource::lookup(std::uint16_t vendor, std::uint16_t device) {
  if (m_ids) {
    return pci_ids_lookup(m_ids->text(), vendor, device);
  }
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
