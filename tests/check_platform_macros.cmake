# cmake -DPROX_SOURCE=<tree> -P check_platform_macros.cmake
# prox/core/platform.hpp is the one place that looks at the compiler's
# instruction-set macros and includes the intrinsics headers (issue 8); every
# other source tests the PROX_ macros it defines. This test reads the library,
# the CLI, the benchmark and the Python module, and fails naming each file and
# line that tests an ISA macro (__SSE*, __AVX*, __FMA__, __BMI*, __F16C__) or
# includes an intrinsics header itself.
set(offenders "")
set(files "")
foreach(dir IN ITEMS include src apps bench python)
  file(GLOB_RECURSE found ${PROX_SOURCE}/${dir}/*.hpp ${PROX_SOURCE}/${dir}/*.cpp
       ${PROX_SOURCE}/${dir}/*.h ${PROX_SOURCE}/${dir}/*.cc)
  list(APPEND files ${found})
endforeach()
foreach(f IN LISTS files)
  if(f MATCHES "/include/prox/core/platform\\.hpp$")
    continue()
  endif()
  file(STRINGS ${f} lines REGEX "(__SSE[0-9_]*__|__AVX[0-9A-Z_]*__|__FMA__|__BMI2?__|__F16C__|[a-z]*mmintrin\\.h|<x86intrin\\.h>)")
  foreach(line IN LISTS lines)
    file(RELATIVE_PATH rel ${PROX_SOURCE} ${f})
    string(STRIP "${line}" line)
    string(APPEND offenders "\n  ${rel}: ${line}")
  endforeach()
endforeach()
list(LENGTH files n)
if(n LESS 50)
  message(FATAL_ERROR "check_platform_macros: only ${n} sources found under ${PROX_SOURCE}")
endif()
if(offenders)
  message(FATAL_ERROR "ISA macros or intrinsics headers outside prox/core/platform.hpp "
                      "(test the PROX_ macros instead):${offenders}")
endif()
message(STATUS "check_platform_macros: ${n} sources, ISA macros only in prox/core/platform.hpp")
