# Fails when an ISA object defines a weak / unique symbol outside its ISA
# namespace (see src/mesh/CMakeLists.txt). OBJECTS: "path|isa;path|isa".
set(bad "")
foreach(entry IN LISTS OBJECTS)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 obj)
  list(GET parts 1 isa)
  execute_process(COMMAND ${NM} -C --defined-only ${obj} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "nm failed on ${obj}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  set(count 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9a-f]+ ([WVu]) (.*)$")
      set(name "${CMAKE_MATCH_2}")  # the next MATCHES resets CMAKE_MATCH_*
      math(EXPR count "${count} + 1")
      # DW.ref.__gxx_personality_v0: the C++ runtime's exception personality
      # pointer (data, the same in every object), not code built for an ISA.
      if(NOT name MATCHES "::${isa}::" AND NOT name MATCHES "^DW\\.ref\\.__gxx_personality_v0$")
        string(APPEND bad "  ${isa}: ${name}\n")
      endif()
    endif()
  endforeach()
  message(STATUS "${obj}: ${count} weak symbols checked")
endforeach()
if(bad)
  message(FATAL_ERROR "ISA objects define shared symbols outside their namespace:\n${bad}")
endif()
