# cmake -DPROX_SOURCE=... -DPROX_BUILD=... -DPROX_WORK=... [-DPROX_GENERATOR=...]
#       [-DPROX_CXX=...] -P run_install_test.cmake
# Installs the already-built prox tree into a scratch prefix once, then, for
# each exported target, configures, builds and runs a separate project
# (consumers/<name>/) that finds it with find_package(prox [COMPONENTS name])
# and checks a real answer of that module (a wrong answer exits non-zero).
# Then the package's promises about dependencies: a header-only user needs no
# TBB, libpng or tinyobjloader, and a required component whose package is
# missing makes prox not found, saying why.
file(REMOVE_RECURSE ${PROX_WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${PROX_BUILD} --prefix ${PROX_WORK}/prefix
                OUTPUT_QUIET RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()

set(common_args -DCMAKE_PREFIX_PATH=${PROX_WORK}/prefix)
if(PROX_GENERATOR)
  list(APPEND common_args -G ${PROX_GENERATOR})
endif()
if(PROX_CXX)
  list(APPEND common_args -DCMAKE_CXX_COMPILER=${PROX_CXX})
endif()

# configure(name build_dir result_var output_var args...)
function(configure name dir rc_var out_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${PROX_SOURCE}/tests/install/consumers/${name}
                          -B ${dir} ${common_args} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(${rc_var} ${rc} PARENT_SCOPE)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# consume(name suffix args...): configure (with args), build and run one
# consumer in ${PROX_WORK}/<name><suffix>; its program prints what it checked.
function(consume name suffix)
  set(dir ${PROX_WORK}/${name}${suffix})
  configure(${name} ${dir} rc out ${ARGN})
  if(rc)
    message(FATAL_ERROR "consumer ${name}: configuring with find_package(prox) failed:\n${out}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${dir}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "consumer ${name}: build failed:\n${out}")
  endif()
  execute_process(COMMAND ${dir}/consumer WORKING_DIRECTORY ${dir}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(STRIP "${out}" out)
  message(STATUS "consumer ${name}: ${out}")
  if(rc)
    message(FATAL_ERROR "consumer ${name}: wrong answer or crash (exit ${rc})")
  endif()
endfunction()

foreach(name IN ITEMS header bvh mesh image io planar)
  consume(${name} "")
endforeach()

# Header-only with every compiled module's package hidden: still found, still builds.
set(hidden -DCMAKE_DISABLE_FIND_PACKAGE_TBB=ON -DCMAKE_DISABLE_FIND_PACKAGE_PNG=ON
           -DCMAKE_DISABLE_FIND_PACKAGE_tinyobjloader=ON)
consume(header -no-deps ${hidden} -DPROX_EXPECT_NO_DEPENDENCIES=ON)

# COMPONENTS mesh without TBB, and a component that does not exist: not found, with the reason.
configure(mesh ${PROX_WORK}/mesh-no-tbb rc out -DCMAKE_DISABLE_FIND_PACKAGE_TBB=ON)
string(REGEX REPLACE "[ \n]+" " " out "${out}")  # CMake wraps the reason
if(NOT rc OR NOT out MATCHES "mesh needs component bvh, which needs package TBB, not found")
  message(FATAL_ERROR "COMPONENTS mesh without TBB should fail, naming TBB (rc ${rc}):\n${out}")
endif()
message(STATUS "COMPONENTS mesh without TBB: not found, as it should be")
file(MAKE_DIRECTORY ${PROX_WORK}/unknown)
file(WRITE ${PROX_WORK}/unknown/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.22)\nproject(unknown NONE)\n"
     "find_package(prox REQUIRED COMPONENTS nosuch)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${PROX_WORK}/unknown -B ${PROX_WORK}/unknown/build
                        ${common_args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX REPLACE "[ \n]+" " " out "${out}")
if(NOT rc OR NOT out MATCHES "nosuch is not a component of prox")
  message(FATAL_ERROR "COMPONENTS nosuch should fail, naming it (rc ${rc}):\n${out}")
endif()
message(STATUS "COMPONENTS nosuch: not found, as it should be")
