# Interop checks against third-party tools (CTest label `interop`, not part of `make test`'s
# default labels): Khronos glTF-Validator, run through node on what ikfix writes, and Blender 3.4
# (headless) opening ikfix's outputs and measuring their feet (blender_foot_depth.py).
# The validator is an npm package installed in tests/interop/node_modules (`npm install` there;
# .ci/setup does it when node exists). Without node or the package, the cases skip.

file(GLOB IKFIX_INTEROP_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
if(IKFIX_INTEROP_TESTS)
  add_executable(ikfix_interop_tests ${IKFIX_INTEROP_TESTS})
  target_link_libraries(ikfix_interop_tests PRIVATE ikfix ikfix_test_support GTest::gtest_main)
  add_dependencies(ikfix_interop_tests ikfix_cli)
  gtest_discover_tests(ikfix_interop_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS interop)
endif()

# The validator script on its own, on an input it must accept (exit 2 = validator not installed).
find_program(IKFIX_NODE node)
if(IKFIX_NODE)
  add_test(NAME interop.validate_gltf_script
           COMMAND ${IKFIX_NODE} ${CMAKE_CURRENT_LIST_DIR}/validate_gltf.mjs
                   ${IKFIX_SHARED_DATA}/anim/gltf/CesiumMan.glb)
  set_tests_properties(interop.validate_gltf_script PROPERTIES LABELS interop SKIP_RETURN_CODE 2)
endif()
