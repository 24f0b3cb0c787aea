# Warnings, sanitizers and helpers shared by every prox target.

add_library(prox_warnings INTERFACE)
target_compile_options(prox_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
  -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual)
# No fused multiply-add contraction anywhere in prox's own code: the same
# source then rounds the same way on every ISA path (answers are bit for bit
# the same under SSE2, AVX2 and AVX-512, and equal to the brute-force twin).
target_compile_options(prox_warnings INTERFACE -ffp-contract=off)
if(PROX_WERROR)
  target_compile_options(prox_warnings INTERFACE -Werror)
endif()
# GCC 12 at -O2/-O3 reports -Wrestrict on plain std::string concatenation
# (a false positive, GCC bug 105329), which -Werror turns into a failed build.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(prox_warnings INTERFACE -Wno-restrict)
endif()
if(PROX_NATIVE)
  add_compile_options(-march=native)
endif()
if(PROX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# prox_add_library(NAME module SOURCES ... [LIBS ...] [FIND_DEPENDENCIES ...])
# A compiled module, exported as prox::<module> and found again by find_package(prox).
function(prox_add_library)
  cmake_parse_arguments(A "" "NAME" "SOURCES;LIBS;FIND_DEPENDENCIES" ${ARGN})
  set(target prox_${A_NAME})
  add_library(${target} ${A_SOURCES})
  add_library(prox::${A_NAME} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${A_NAME}
                        POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${target} PUBLIC prox::prox ${A_LIBS}
                        PRIVATE $<BUILD_INTERFACE:prox_warnings>)
  install(TARGETS ${target} EXPORT proxTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY PROX_TEST_LIBS prox::${A_NAME})
  foreach(dep IN LISTS A_FIND_DEPENDENCIES)
    set_property(GLOBAL APPEND PROPERTY PROX_FIND_DEPENDENCIES ${dep})
  endforeach()
endfunction()
