# Checks that a program does not link a library (none of its ELF NEEDED entries matches), for
# libraries it loads on first use instead, so that they stay off every command's start-up.
#   cmake -DPROGRAM=path -DLIBRARY=regex -P expect_not_linked.cmake
find_program(READELF readelf REQUIRED)
execute_process(COMMAND ${READELF} -d ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${PROGRAM} failed (${rc}): ${err}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${out}")
if(NOT needed)
  message(FATAL_ERROR "no NEEDED entries found in ${PROGRAM}:\n${out}")
endif()
foreach(entry IN LISTS needed)
  if(entry MATCHES "${LIBRARY}")
    message(FATAL_ERROR "${PROGRAM} links ${LIBRARY}, which it should load on first use: ${entry}")
  endif()
endforeach()
message(STATUS "ok: ${PROGRAM} does not link ${LIBRARY}")
