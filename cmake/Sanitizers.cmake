# Test builds only: sanitizers and libFuzzer instrumentation for every target. The default
# build (both options unset) is untouched. Included before any target is defined.
#
#   -DROCDOC_SANITIZE=address,undefined   gcc or clang; UB stops the program (tests fail)
#   -DROCDOC_FUZZ=ON                      clang only: the libFuzzer harnesses of tests/fuzz
#                                         (fuzz_<harness>), everything built with
#                                         -fsanitize=fuzzer-no-link,address,undefined
set(ROCDOC_SANITIZE "" CACHE STRING
    "Sanitizers for every target, as -fsanitize takes them (address,undefined); test builds only")
option(ROCDOC_FUZZ "Build the libFuzzer harnesses of tests/fuzz (clang only)" OFF)

set(rocdoc_sanitizers "${ROCDOC_SANITIZE}")
if(ROCDOC_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ROCDOC_FUZZ=ON needs clang's libFuzzer: configure with "
                        "-DCMAKE_CXX_COMPILER=clang++-14 (scripts/install-test-deps.sh installs it)")
  endif()
  if(rocdoc_sanitizers STREQUAL "")
    set(rocdoc_sanitizers "address,undefined")
  endif()
  # Coverage feedback in every library; only the harnesses link libFuzzer's main.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(NOT rocdoc_sanitizers STREQUAL "")
  add_compile_options(-fsanitize=${rocdoc_sanitizers} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${rocdoc_sanitizers})
  # Executables not position-independent: every UBSan check site and ASan global is data with
  # pointers in it, about 1.9 million relocations in a PIE rocdoc, which the loader applies (and
  # LSan then scans) at each of the e2e suites' thousands of starts: 0.36 s a start with PIE,
  # 0.24 s without. The release and default builds keep the compiler's default (PIE).
  string(APPEND CMAKE_EXE_LINKER_FLAGS " -no-pie")
  message(STATUS "rocdoc test build: -fsanitize=${rocdoc_sanitizers} (fuzz harnesses: ${ROCDOC_FUZZ})")
endif()
