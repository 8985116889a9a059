#include "src/util/dynlib.h"

#include <dlfcn.h>

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

void* DynLib::raw_symbol(const char* name) const {
  return m_handle != nullptr ? dlsym(m_handle, name) : nullptr;
}

}  // namespace rocdoc::util
