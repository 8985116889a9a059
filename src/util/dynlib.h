// A shared library loaded at run time (dlopen), closed when the object goes.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace rocdoc::util {

class DynLib {
 public:
  /// Tries each soname in order; loaded() tells whether one worked, error() why not.
  explicit DynLib(std::initializer_list<const char*> sonames);
  ~DynLib();
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;

  bool loaded() const { return m_handle != nullptr; }
  /// The file that was loaded, links resolved (dlinfo), when one was.
  std::optional<std::string> real_path() const;
  /// The name it was opened by ("libamd_smi.so", a path, or a soname).
  const std::string& soname() const { return m_soname; }
  /// The loaded file's own DT_SONAME ("libamd_smi.so.26"), whatever name opened it.
  std::optional<std::string> elf_soname() const;
  const std::string& error() const { return m_error; }

  /// A symbol typed from the real prototype: lib.symbol<decltype(&pci_alloc)>("pci_alloc").
  template <typename Function>
  Function symbol(const char* name) const {
    return reinterpret_cast<Function>(raw_symbol(name));
  }

 private:
  void* raw_symbol(const char* name) const;

  void* m_handle = nullptr;
  std::string m_soname;
  std::string m_error;
};

}  // namespace rocdoc::util
