# Installs the already-built prox tree into a scratch prefix, then configures,
# builds and runs a separate project that uses find_package(prox).
file(REMOVE_RECURSE ${PROX_WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${PROX_BUILD} --prefix ${PROX_WORK}/prefix
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${PROX_SOURCE}/tests/install/consumer
                        -B ${PROX_WORK}/build -DCMAKE_PREFIX_PATH=${PROX_WORK}/prefix
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer with find_package(prox) failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${PROX_WORK}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${PROX_WORK}/build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "consumer printed: ${out}")
if(rc)
  message(FATAL_ERROR "the consumer failed: ${rc}")
endif()
