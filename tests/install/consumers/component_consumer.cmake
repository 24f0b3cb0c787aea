# Included by each component consumer after project(): finds prox with
# COMPONENTS ${component}, checks that exactly that component and those it
# needs (${needs}) were loaded, and builds main.cpp against prox::${component}.
find_package(prox REQUIRED COMPONENTS ${component})
set(loaded prox ${needs} ${component})
foreach(t IN LISTS loaded)
  if(NOT TARGET prox::${t})
    message(FATAL_ERROR "prox::${t} is needed by prox::${component} but was not loaded")
  endif()
endforeach()
foreach(t bvh mesh image io planar)
  if(NOT t IN_LIST loaded AND TARGET prox::${t})
    message(FATAL_ERROR "prox::${t} was loaded, but only ${component} was asked for")
  endif()
endforeach()
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE prox::${component})
