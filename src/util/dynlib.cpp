#include "src/util/dynlib.h"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdlib>

namespace rocdoc::util {

DynLib::DynLib(std::initializer_list<const char*> sonames) {
  for (const char* soname : sonames) {
    m_handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (m_handle != nullptr) {
      m_soname = soname;
      m_error.clear();
      return;
    }
    const char* message = dlerror();
    if (m_error.empty()) {  // the first candidate is the one that matters to the user
      m_error = message != nullptr ? message : soname;
    }
  }
}

DynLib::~DynLib() {
  if (m_handle != nullptr) {
    dlclose(m_handle);
  }
}

std::optional<std::string> DynLib::real_path() const {
  link_map* map = nullptr;
  if (m_handle == nullptr || ::dlinfo(m_handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr ||
      map->l_name == nullptr || map->l_name[0] == '\0') {
    return std::nullopt;
  }
  char resolved[PATH_MAX];
  if (::realpath(map->l_name, resolved) == nullptr) {
    return std::string(map->l_name);
  }
  return std::string(resolved);
}

std::optional<std::string> DynLib::elf_soname() const {
  link_map* map = nullptr;
  if (m_handle == nullptr || ::dlinfo(m_handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr ||
      map->l_ld == nullptr) {
    return std::nullopt;
  }
  ElfW(Addr) strings = 0;
  std::optional<ElfW(Xword)> soname;
  for (const ElfW(Dyn)* entry = map->l_ld; entry->d_tag != DT_NULL; ++entry) {
    if (entry->d_tag == DT_STRTAB) {
      strings = entry->d_un.d_ptr;
    } else if (entry->d_tag == DT_SONAME) {
      soname = entry->d_un.d_val;
    }
  }
  if (strings == 0 || !soname) {
    return std::nullopt;
  }
  // glibc relocates the dynamic section's addresses where it is writable (x86-64, AArch64);
  // where it is read-only (RISC-V, MIPS) they are still offsets from the load address.
  if (strings < map->l_addr) {
    strings += map->l_addr;
  }
  return std::string(reinterpret_cast<const char*>(strings) + *soname);
}

void* DynLib::raw_symbol(const char* name) const {
  return m_handle != nullptr ? dlsym(m_handle, name) : nullptr;
}

}  // namespace rocdoc::util
