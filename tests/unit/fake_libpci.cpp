// A fake libpci.so.3 whose calls fail the way libpci reports errors: through the error
// callback, which must not return. pci_names_test.cpp loads it instead of the real one.
extern "C" {
#include <pci/pci.h>
}

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

extern "C" {

pci_access* pci_alloc(void) { return static_cast<pci_access*>(std::calloc(1, sizeof(pci_access))); }

void pci_init(pci_access* access) { access->error(const_cast<char*>("fake: %s"), "no sysfs"); }

void pci_cleanup(pci_access* access) {
  const decltype(access->error) error = access->error;
  std::free(access);
  // Reached only through PciNameSource's destructor, which must catch this too.
  error(const_cast<char*>("fake: cleanup complains"));
}

int pci_set_param(pci_access*, char*, char*) { return 0; }

char* pci_lookup_name(pci_access* access, char* buf, int size, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const int vendor = va_arg(args, int);
  const int device = (flags & PCI_LOOKUP_DEVICE) != 0 ? va_arg(args, int) : 0;
  va_end(args);
  if (vendor == 0xdead) {
    access->error(const_cast<char*>("fake: no names for %04x"), vendor);
  }
  if ((flags & PCI_LOOKUP_DEVICE) != 0) {
    std::snprintf(buf, static_cast<std::size_t>(size), "Fake device %04x", device);
  } else {
    std::snprintf(buf, static_cast<std::size_t>(size), "Fake vendor %04x", vendor);
  }
  return buf;
}

}  // extern "C"
