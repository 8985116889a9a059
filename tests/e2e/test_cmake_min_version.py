"""Guard: the CMake files use nothing newer than CMake 3.22 (Ubuntu 22.04's CMake).

Usage: test_cmake_min_version.py

This is a guard, not a build with CMake 3.22: no 3.22 binary is available here (Debian 12 has
3.25, and there is no PyPI access for the cmake wheel). It asserts that cmake_minimum_required
says at most 3.22, and greps every CMake file of the project (CMakeLists.txt, cmake/*.cmake,
tests/**/CMakeLists.txt) for the commands, signatures, generator expressions, variables and
`cmake -E` modes that CMake 3.23 and later added (from the `versionadded` notes of CMake's own
reference, /usr/share/cmake-3.25/Help, and the 3.26+ release notes), with comments removed.
Each pattern is first checked to match an example of the feature, so that a broken pattern
cannot pass silently.
"""
import glob
import os
import re
import sys

from common import SOURCE_DIR, Results

# (pattern, CMake version that added it, example that must match)
NEWER_THAN_3_22 = [
    (r"\bblock\s*\(", "3.25 block()", "block(SCOPE_FOR VARIABLES)"),
    (r"\bendblock\s*\(", "3.25 endblock()", "endblock()"),
    (r"\breturn\s*\(\s*PROPAGATE\b", "3.25 return(PROPAGATE)", "return(PROPAGATE x)"),
    (r"\bcmake_language\s*\(\s*GET_MESSAGE_LOG_LEVEL\b", "3.25 cmake_language(GET_MESSAGE_LOG_LEVEL)",
     "cmake_language(GET_MESSAGE_LOG_LEVEL v)"),
    (r"\bcmake_language\s*\(\s*SET_DEPENDENCY_PROVIDER\b", "3.24 dependency providers",
     "cmake_language(SET_DEPENDENCY_PROVIDER f SUPPORTED_METHODS FIND_PACKAGE)"),
    (r"\bSOURCE_FROM_(CONTENT|FILE|VAR)\b", "3.25 try_compile/try_run SOURCE_FROM_*", "SOURCE_FROM_CONTENT a.cpp"),
    (r"\b(try_compile|try_run)\s*\([^)]*\bNO_CACHE\b", "3.25 try_compile/try_run NO_CACHE",
     "try_compile(r SOURCES a.cpp NO_CACHE)"),
    (r"\b(try_compile|try_run)\s*\(\s*\w+\s+(PROJECT|SOURCES)\b", "3.25 try_compile without bindir",
     "try_compile(r SOURCES a.cpp)"),
    (r"\badd_subdirectory\s*\([^)]*\bSYSTEM\b", "3.25 add_subdirectory(SYSTEM)", "add_subdirectory(x SYSTEM)"),
    (r"\bif\s*\((NOT\s+)?\$?\{?LINUX\}?\b", "3.25 the LINUX variable", "if(LINUX)"),
    (r"\bCMAKE_HOST_LINUX\b", "3.25 CMAKE_HOST_LINUX", "if(CMAKE_HOST_LINUX)"),
    (r"\$<PATH(_EQUAL)?:", "3.24 $<PATH:...> and $<PATH_EQUAL:...>", "$<PATH:GET_FILENAME,a/b>"),
    (r"\$<LINK_(LIBRARY|GROUP):", "3.24 $<LINK_LIBRARY:...>, $<LINK_GROUP:...>", "$<LINK_LIBRARY:WHOLE_ARCHIVE,x>"),
    (r"COMPILE_WARNING_AS_ERROR\b", "3.24 (CMAKE_)COMPILE_WARNING_AS_ERROR",
     "set(CMAKE_COMPILE_WARNING_AS_ERROR ON)"),
    (r"\bPATH_EQUAL\b", "3.24 if(PATH_EQUAL)", "if(a PATH_EQUAL b)"),
    (r"\bfind_package\s*\([^)]*\bGLOBAL\b", "3.24 find_package(GLOBAL)", "find_package(fmt CONFIG GLOBAL)"),
    (r"FIND_PACKAGE_TARGETS_GLOBAL\b", "3.24 CMAKE_FIND_PACKAGE_TARGETS_GLOBAL",
     "set(CMAKE_FIND_PACKAGE_TARGETS_GLOBAL ON)"),
    (r"\b(FIND_PACKAGE_ARGS|OVERRIDE_FIND_PACKAGE)\b", "3.24 FetchContent and find_package integration",
     "FetchContent_Declare(x GIT_REPOSITORY u FIND_PACKAGE_ARGS)"),
    (r"\bDOWNLOAD_EXTRACT_TIMESTAMP\b", "3.24 DOWNLOAD_EXTRACT_TIMESTAMP", "DOWNLOAD_EXTRACT_TIMESTAMP ON"),
    (r"\bCMAKE_PROJECT_TOP_LEVEL_INCLUDES\b", "3.24 CMAKE_PROJECT_TOP_LEVEL_INCLUDES",
     "CMAKE_PROJECT_TOP_LEVEL_INCLUDES"),
    (r"\bfile\s*\(\s*ARCHIVE_EXTRACT\b[^)]*\bTOUCH\b", "3.24 file(ARCHIVE_EXTRACT TOUCH)",
     "file(ARCHIVE_EXTRACT INPUT a DESTINATION b TOUCH)"),
    (r"\bfile\s*\(\s*DOWNLOAD\b[^)]*\bRANGE_(START|END)\b", "3.24 file(DOWNLOAD RANGE_START)",
     "file(DOWNLOAD u f RANGE_START 1)"),
    (r"\bWINDOWS_REGISTRY\b", "3.24 cmake_host_system_information(QUERY WINDOWS_REGISTRY)",
     "cmake_host_system_information(RESULT r QUERY WINDOWS_REGISTRY k)"),
    (r"\bREGISTRY_VIEW\b", "3.24 find_*(REGISTRY_VIEW)", "find_program(x y REGISTRY_VIEW 64)"),
    (r"\bFILE_SET\b", "3.23 file sets (target_sources, install)", "target_sources(x PUBLIC FILE_SET HEADERS)"),
    (r"HEADER_SETS?\b", "3.23/3.24 header sets", "set(CMAKE_VERIFY_INTERFACE_HEADER_SETS ON)"),
    (r"\bINITIALIZE_FROM_VARIABLE\b", "3.23 define_property(INITIALIZE_FROM_VARIABLE)",
     "define_property(TARGET PROPERTY P INITIALIZE_FROM_VARIABLE V)"),
    (r"\bstring\s*\(\s*TIMESTAMP\b[^)]*%f", "3.23 string(TIMESTAMP %f)", 'string(TIMESTAMP t "%H%f")'),
    # 3.26 and later, which a newer CMake would also accept without complaint here.
    (r"\$<(LIST|BUILD_LOCAL_INTERFACE|COMPILE_ONLY|TARGET_RUNTIME_DLL_DIRS|TARGET_INTERMEDIATE_DIR|QUOTE|"
     r"STRING|CONFIG_DIR|TARGET_IMPORTED)\b", "3.26+ generator expressions", "$<LIST:LENGTH,a;b>"),
    (r"\bINPUT_MAY_BE_RECENT\b", "3.26 file(COPY_FILE INPUT_MAY_BE_RECENT)",
     "file(COPY_FILE a b INPUT_MAY_BE_RECENT)"),
    (r"-E\s+copy_directory_if_different\b", "3.26 cmake -E copy_directory_if_different",
     "COMMAND ${CMAKE_COMMAND} -E copy_directory_if_different a b"),
    (r"-E\s+copy\s+-t\b", "3.26 cmake -E copy -t", "COMMAND cmake -E copy -t dir a"),
    (r"-E\s+env\s+--modify\b", "3.27 cmake -E env --modify", "cmake -E env --modify PATH=path_list_append:/x"),
    (r"\bcmake_file_api\s*\(", "3.27 cmake_file_api()", "cmake_file_api(QUERY API_VERSION 1)"),
    (r"\bcmake_pkg_config\s*\(", "3.31 cmake_pkg_config()", "cmake_pkg_config(EXTRACT zlib)"),
    (r"\bCMAKE_LINK_LIBRARY_USING_\w+", "3.24 CMAKE_LINK_LIBRARY_USING_<FEATURE>",
     "set(CMAKE_LINK_LIBRARY_USING_X y)"),
]

# CMake 3.22's last policy is CMP0128: setting a newer one fails on 3.22.
LAST_POLICY_OF_3_22 = 128


def cmake_files():
    files = [os.path.join(SOURCE_DIR, "CMakeLists.txt")]
    files += sorted(glob.glob(os.path.join(SOURCE_DIR, "cmake", "*.cmake")))
    files += sorted(glob.glob(os.path.join(SOURCE_DIR, "tests", "**", "CMakeLists.txt"), recursive=True))
    return files


def without_comments(text):
    """CMake source with # comments removed (not inside quoted arguments or bracket arguments)."""
    text = re.sub(r"#\[(=*)\[.*?\]\1\]", "", text, flags=re.S)
    lines = []
    for line in text.splitlines():
        out, quoted, i = [], False, 0
        while i < len(line):
            c = line[i]
            if c == "\\" and quoted:
                out.append(line[i:i + 2])
                i += 2
                continue
            if c == '"':
                quoted = not quoted
            elif c == "#" and not quoted:
                break
            out.append(c)
            i += 1
        lines.append("".join(out))
    return "\n".join(lines)


def main():
    r = Results()
    for pattern, what, example in NEWER_THAN_3_22:
        r.check(re.search(pattern, example) is not None, f"guard pattern for {what} matches its example {example!r}")
    r.check(without_comments('set(a "#x") # comment block()') == 'set(a "#x") ', "comments are removed")

    top = open(os.path.join(SOURCE_DIR, "CMakeLists.txt")).read()
    minimum = re.findall(r"^\s*cmake_minimum_required\s*\(\s*VERSION\s+([0-9.]+)", top, flags=re.M)
    r.check(len(minimum) == 1 and tuple(int(x) for x in minimum[0].split(".")[:2]) <= (3, 22),
            f"CMakeLists.txt: cmake_minimum_required(VERSION {minimum}), expected 3.22 or lower")

    files = cmake_files()
    r.check(len(files) >= 8, f"CMake files found: {files}")
    for path in files:
        name = os.path.relpath(path, SOURCE_DIR)
        with open(path) as f:
            text = without_comments(f.read())
        for pattern, what, _ in NEWER_THAN_3_22:
            for match in re.finditer(pattern, text):
                line = text.count("\n", 0, match.start()) + 1
                r.check(False, f"{name}:{line}: {what} is newer than CMake 3.22: {match.group(0)!r}")
        for match in re.finditer(r"\bCMP0*(\d+)\b", text):
            r.check(int(match.group(1)) <= LAST_POLICY_OF_3_22,
                    f"{name}: policy CMP{match.group(1)} is newer than CMake 3.22")
        for match in re.finditer(r"cmake_minimum_required\s*\(\s*VERSION\s+([0-9.]+)", text):
            version = tuple(int(x) for x in match.group(1).split("...")[0].split(".")[:2])
            r.check(version <= (3, 22), f"{name}: cmake_minimum_required({match.group(1)}) above 3.22")
    r.finish()


if __name__ == "__main__":
    sys.exit(main())
