# cmake -DPROX_SOURCE=<tree> -P check_lists.cmake
# The build lists every source and test file by name (no globs), so a file
# added without its line in a CMakeLists.txt, or a line lost in a merge, would
# silently not be built. This test looks at the tree (globbing here costs the
# build nothing) and fails naming each file that no list mentions.
set(missing "")

# `file` must appear in `list_file` as a whole name (not inside a longer one).
function(expect_listed list_file name)
  if(NOT EXISTS ${list_file})
    set(missing "${missing}\n  ${name}: ${list_file} does not exist" PARENT_SCOPE)
    return()
  endif()
  file(READ ${list_file} text)
  string(REPLACE "." "\\." pattern "${name}")
  if(NOT text MATCHES "(^|[^A-Za-z0-9_])${pattern}($|[^A-Za-z0-9_])")
    set(missing "${missing}\n  ${name}: not in ${list_file}" PARENT_SCOPE)
  endif()
endfunction()

# `dir` must be added by `list_file` with add_subdirectory(dir).
function(expect_subdirectory list_file dir)
  file(READ ${list_file} text)
  if(NOT text MATCHES "add_subdirectory\\(${dir}[ )]")
    set(missing "${missing}\n  ${dir}/: no add_subdirectory(${dir}) in ${list_file}" PARENT_SCOPE)
  endif()
endfunction()

# Modules: each src/<m>/ in the top-level list, each .cpp in its module's list.
file(GLOB modules LIST_DIRECTORIES true ${PROX_SOURCE}/src/*)
foreach(dir IN LISTS modules)
  get_filename_component(m ${dir} NAME)
  expect_subdirectory(${PROX_SOURCE}/CMakeLists.txt src/${m})
  file(GLOB sources RELATIVE ${dir} ${dir}/*.cpp)
  foreach(s IN LISTS sources)
    expect_listed(${dir}/CMakeLists.txt ${s})
  endforeach()
endforeach()

# Tests: each area in tests/CMakeLists.txt, each test_*.cpp in its area's list.
file(GLOB areas LIST_DIRECTORIES true ${PROX_SOURCE}/tests/*)
foreach(dir IN LISTS areas)
  get_filename_component(area ${dir} NAME)
  if(NOT IS_DIRECTORY ${dir} OR area STREQUAL "support" OR area STREQUAL "install")
    continue()
  endif()
  expect_subdirectory(${PROX_SOURCE}/tests/CMakeLists.txt ${area})
  file(GLOB tests RELATIVE ${dir} ${dir}/test_*.cpp)
  foreach(t IN LISTS tests)
    expect_listed(${dir}/CMakeLists.txt ${t})
  endforeach()
endforeach()

# The prox command and its subcommands, the examples, the benchmark areas.
file(GLOB app_sources RELATIVE ${PROX_SOURCE}/apps
     ${PROX_SOURCE}/apps/*.cpp ${PROX_SOURCE}/apps/commands/*.cpp ${PROX_SOURCE}/apps/gui/*.cpp)
foreach(s IN LISTS app_sources)
  expect_listed(${PROX_SOURCE}/apps/CMakeLists.txt ${s})
endforeach()
file(GLOB examples RELATIVE ${PROX_SOURCE}/examples ${PROX_SOURCE}/examples/*.cpp)
foreach(s IN LISTS examples)
  expect_listed(${PROX_SOURCE}/examples/CMakeLists.txt ${s})
endforeach()
file(GLOB bench_areas LIST_DIRECTORIES true ${PROX_SOURCE}/bench/*)
foreach(dir IN LISTS bench_areas)
  if(IS_DIRECTORY ${dir})
    get_filename_component(area ${dir} NAME)
    expect_subdirectory(${PROX_SOURCE}/bench/CMakeLists.txt ${area})
    file(GLOB sources RELATIVE ${dir} ${dir}/*.cpp)
    foreach(s IN LISTS sources)
      expect_listed(${dir}/CMakeLists.txt ${s})
    endforeach()
  endif()
endforeach()

# The fuzz targets (fuzz/, a project of its own that scripts/fuzz.sh builds).
file(GLOB fuzz_sources RELATIVE ${PROX_SOURCE}/fuzz ${PROX_SOURCE}/fuzz/*.cpp)
foreach(s IN LISTS fuzz_sources)
  expect_listed(${PROX_SOURCE}/fuzz/CMakeLists.txt ${s})
endforeach()

if(missing)
  message(FATAL_ERROR "files that no CMakeLists.txt builds:${missing}")
endif()
message(STATUS "every source and test file is in a build list")
