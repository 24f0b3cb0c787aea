# The flags every prox target builds with, and prox_add_library.
#
# prox_build_flags is an INTERFACE target that each prox library, test, app,
# benchmark and example links PRIVATE (libraries through $<BUILD_INTERFACE:>),
# so nothing here is global and nothing here reaches a find_package(prox)
# consumer: the installed targets carry neither warnings nor sanitizers nor
# -march=native. (prox_warnings is its old name, kept as an alias.)

add_library(prox_build_flags INTERFACE)
add_library(prox_warnings ALIAS prox_build_flags)
target_compile_options(prox_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow
  -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual)
# No fused multiply-add contraction anywhere in prox's own code: the same
# source then rounds the same way on every ISA path (answers are bit for bit
# the same under SSE2, AVX2 and AVX-512, and equal to the brute-force twin).
target_compile_options(prox_build_flags INTERFACE -ffp-contract=off)
if(PROX_WERROR)
  target_compile_options(prox_build_flags INTERFACE -Werror)
endif()
# GCC 12 at -O2/-O3 reports -Wrestrict on plain std::string concatenation
# (a false positive, GCC bug 105329), which -Werror turns into a failed build.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(prox_build_flags INTERFACE -Wno-restrict)
endif()
if(PROX_NATIVE)
  target_compile_options(prox_build_flags INTERFACE -march=native)
endif()
if(PROX_SANITIZE)
  target_compile_options(prox_build_flags INTERFACE -fsanitize=address,undefined
                         -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(prox_build_flags INTERFACE -fsanitize=address,undefined)
endif()
# ThreadSanitizer (scripts/build.sh tsan): the threaded tests, see docs/reliability.md.
if(PROX_TSAN)
  if(PROX_SANITIZE)
    message(FATAL_ERROR "PROX_TSAN and PROX_SANITIZE cannot be combined (TSan excludes ASan)")
  endif()
  target_compile_options(prox_build_flags INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(prox_build_flags INTERFACE -fsanitize=thread)
endif()

# prox_add_library(NAME module SOURCES ... [LIBS ...] [FIND_DEPENDENCIES ...])
# A compiled module: target prox_<module>, alias prox::<module>, installed as
# the package component <module> with its own export file
# (lib/cmake/prox/prox-<module>-targets.cmake). LIBS are PUBLIC; those named
# prox::<other> are the components it needs, which must be added first.
# FIND_DEPENDENCIES are find_package() arguments ("TBB", "tinyobjloader CONFIG")
# that proxConfig.cmake runs before loading the component.
function(prox_add_library)
  cmake_parse_arguments(A "" "NAME" "SOURCES;LIBS;FIND_DEPENDENCIES" ${ARGN})
  set(target prox_${A_NAME})
  add_library(${target} ${A_SOURCES})
  add_library(prox::${A_NAME} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${A_NAME}
                        POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${target} PUBLIC prox::prox ${A_LIBS}
                        PRIVATE $<BUILD_INTERFACE:prox_build_flags>)
  install(TARGETS ${target} EXPORT prox-${A_NAME}-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  prox_add_component(${A_NAME} LIBS ${A_LIBS} FIND_DEPENDENCIES ${A_FIND_DEPENDENCIES})
endfunction()

# prox_add_component(module [LIBS ...] [FIND_DEPENDENCIES ...]): records, for
# proxConfig.cmake, the components a module needs and the packages to find.
function(prox_add_component name)
  cmake_parse_arguments(A "" "" "LIBS;FIND_DEPENDENCIES" ${ARGN})
  get_property(known GLOBAL PROPERTY PROX_COMPONENTS)
  foreach(lib IN LISTS A_LIBS)
    if(lib MATCHES "^prox::(.+)$")
      if(NOT CMAKE_MATCH_1 IN_LIST known)
        message(FATAL_ERROR "prox::${name} links prox::${CMAKE_MATCH_1}: add src/${CMAKE_MATCH_1} "
                            "before src/${name} in the top-level CMakeLists.txt")
      endif()
      set_property(GLOBAL APPEND PROPERTY PROX_COMPONENT_REQUIRES_${name} ${CMAKE_MATCH_1})
    endif()
  endforeach()
  foreach(dep IN LISTS A_FIND_DEPENDENCIES)
    set_property(GLOBAL APPEND PROPERTY PROX_COMPONENT_PACKAGES_${name} "${dep}")
  endforeach()
  if(NOT name IN_LIST known)
    set_property(GLOBAL APPEND PROPERTY PROX_COMPONENTS ${name})
  endif()
endfunction()

# prox_install_package(): lib/cmake/prox/ with proxConfig.cmake, its version
# file, prox-targets.cmake (prox::prox) and one prox-<module>-targets.cmake per
# component. Call once, after every module.
function(prox_install_package)
  set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/prox)
  get_property(components GLOBAL PROPERTY PROX_COMPONENTS)
  # The component table proxConfig.cmake reads: what each one needs.
  set(PROX_COMPONENT_TABLE "set(_prox_components ${components})\n")
  foreach(c IN LISTS components)
    get_property(requires GLOBAL PROPERTY PROX_COMPONENT_REQUIRES_${c})
    get_property(packages GLOBAL PROPERTY PROX_COMPONENT_PACKAGES_${c})
    list(REMOVE_DUPLICATES requires)
    string(APPEND PROX_COMPONENT_TABLE "set(_prox_requires_${c} ${requires})\n")
    set(quoted "")
    foreach(p IN LISTS packages)
      string(APPEND quoted " \"${p}\"")
    endforeach()
    string(APPEND PROX_COMPONENT_TABLE "set(_prox_packages_${c}${quoted})\n")
    install(EXPORT prox-${c}-targets NAMESPACE prox:: DESTINATION ${cmake_dir})
  endforeach()
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/proxConfig.cmake.in
    ${PROJECT_BINARY_DIR}/proxConfig.cmake INSTALL_DESTINATION ${cmake_dir})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/proxConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(EXPORT prox-targets NAMESPACE prox:: DESTINATION ${cmake_dir})
  install(FILES ${PROJECT_BINARY_DIR}/proxConfig.cmake
                ${PROJECT_BINARY_DIR}/proxConfigVersion.cmake
          DESTINATION ${cmake_dir})
endfunction()
