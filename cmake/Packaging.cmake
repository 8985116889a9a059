# CPack: a .deb and an .rpm of what cmake/Install.cmake installs, prefix /usr.
#
#   cmake --build build && cd build && cpack          # rocdoc_<v>-1_<arch>.deb, rocdoc-<v>-1.<arch>.rpm
#   cpack --config build/CPackConfig.cmake -G DEB -B DIR
#
# DEB needs dpkg-deb (and dpkg-shlibdeps from dpkg-dev for the Depends line), RPM needs rpmbuild
# (Debian's rpm package). tests/e2e/test_packages.py builds both and inspects them (dpkg-deb,
# rpm, lintian), and installs the .deb into an empty root and runs it.
# Only CMake 3.22 features (Ubuntu 22.04): tests/e2e/test_cmake_min_version.py guards it.
set(CPACK_GENERATOR "DEB;RPM")
set(CPACK_PACKAGE_NAME rocdoc)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The rocdoc authors")
set(ROCDOC_PACKAGE_CONTACT "rocdoc maintainers <maintainers@users.noreply.a-seed-6180e1ac.example>"
    CACHE STRING "Maintainer of the .deb and .rpm, as \"Name <address>\"")
set(ROCDOC_PACKAGE_HOMEPAGE "" CACHE STRING "Homepage field of the packages (left out when empty)")
set(CPACK_PACKAGE_CONTACT "${ROCDOC_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "ROCm environment doctor: why ROCm or PyTorch cannot use the GPU")
set(CPACK_PACKAGE_DESCRIPTION
    "rocdoc check tells, in a few milliseconds and without guessing, why ROCm
or PyTorch cannot use the AMD GPUs of a machine, and exactly what to type to
fix it: PCI devices, the amdgpu driver and /dev/kfd, permissions, ROCm
installs, Python environments and their torch wheels against the GPUs' gfx
targets, environment variables. It only reads the machine. It also captures
snapshots for support, triages pasted logs and lists the GPU targets compiled
into HIP binaries.")
set(CPACK_PACKAGE_INSTALL_DIRECTORY rocdoc)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_SOURCE_GENERATOR "")

# Debian. Release 1: a non-native version (0.1.0-1), whose changelog is changelog.Debian.gz.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
if(ROCDOC_PACKAGE_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${ROCDOC_PACKAGE_HOMEPAGE}")
  set(CPACK_RPM_PACKAGE_URL "${ROCDOC_PACKAGE_HOMEPAGE}")
endif()
# The binary needs only libc (NEEDED: libc.so.6; libstdc++, yaml-cpp, libarchive, zlib and zstd
# are linked statically, libpci is dlopened). dpkg-shlibdeps derives the libc6 version from the
# symbols used; without it, the floor src/glibc_floor.cpp keeps.
# The release binary (ROCDOC_PACKAGE_BINARY) was built against glibc 2.31: its floor is the
# dependency. dpkg-shlibdeps on Debian 12 would say libc6 (>= 2.34) for it, because that libc6
# marks libdl.so.2 and libpthread.so.0 (NEEDED by a binary built against glibc < 2.34) as 2.34.
find_program(ROCDOC_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(ROCDOC_PACKAGE_BINARY)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.31)")
elseif(ROCDOC_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.35)")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pciutils")

# RPM. rpmbuild's automatic Requires lists the libc symbol versions.
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_RELEASE 1)
set(CPACK_RPM_PACKAGE_LICENSE MIT)
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
set(CPACK_RPM_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
# No /usr/lib/.build-id links: the .rpm holds the files cmake --install installs (and no
# debuginfo package exists for them to pair with).
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none")
# Directories that the distribution's own packages own (filesystem, man-db, bash-completion,
# zsh, fish): the .rpm must not claim them.
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    /usr/share/man /usr/share/man/man1 /usr/share/bash-completion
    /usr/share/bash-completion/completions /usr/share/zsh /usr/share/zsh/vendor-completions
    /usr/share/zsh/site-functions /usr/share/fish /usr/share/fish/vendor_completions.d)

# Files only one package format has, added while CPack stages that package
# (cmake/PackagingExtras.cmake): the Debian changelog and copyright for the .deb; for the .rpm,
# a copy of the zsh completion in site-functions, where Fedora/RHEL's zsh looks.
string(TIMESTAMP ROCDOC_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)  # SOURCE_DATE_EPOCH wins
configure_file("${PROJECT_SOURCE_DIR}/packaging/debian/changelog.in"
               "${CMAKE_BINARY_DIR}/packaging/changelog.Debian" @ONLY)
set(CPACK_ROCDOC_BINARY_DIR "${CMAKE_BINARY_DIR}")
set(CPACK_ROCDOC_SOURCE_DIR "${PROJECT_SOURCE_DIR}")
set(CPACK_ROCDOC_DOCDIR "${CMAKE_INSTALL_DOCDIR}")
set(CPACK_ROCDOC_ZSH_COMPLETIONSDIR "${ROCDOC_INSTALL_ZSH_COMPLETIONSDIR}")
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_SOURCE_DIR}/cmake/PackagingProjectConfig.cmake")

include(CPack)
