# Browser tests of the HTML report (CTest label `browser`): Debian's chromium driven by
# puppeteer-core (tests/browser/node_modules, `npm ci` there; .ci/setup does it). Without node,
# chromium or the package the cases skip (exit 77); under CI=true .ci/setup installs them.

add_executable(fk_dump ${CMAKE_CURRENT_LIST_DIR}/fk_dump.cpp)
target_link_libraries(fk_dump PRIVATE ikfix)

find_program(IKFIX_NODE node)
if(IKFIX_NODE)
  set(IKFIX_BROWSER_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/report_page_test.mjs)
  set(IKFIX_BROWSER_OUT ${CMAKE_BINARY_DIR}/browser)  # screenshots and pages, kept
  set(IKFIX_BVH ${CMAKE_SOURCE_DIR}/data/clips/walk.bvh)
  set(IKFIX_FBX ${IKFIX_SHARED_DATA}/anim/fbx/cmu_07_01_walk_skeleton.fbx)
  set(IKFIX_GLB ${IKFIX_SHARED_DATA}/anim/gltf/CesiumMan.glb)
  # A 4.7 m tall skinned character: the camera must start outside it.
  set(IKFIX_BARBARIAN ${IKFIX_SHARED_DATA}/anim/fbx/barbarian_blender_7400.fbx)
  set(IKFIX_STAIRS ${CMAKE_SOURCE_DIR}/data/terrain/stairs.obj)
  foreach(case bvh fbx glb barbarian)
    string(TOUPPER ${case} var)
    add_test(NAME browser.clip_page_${case}
             COMMAND ${IKFIX_NODE} ${IKFIX_BROWSER_SCRIPT} clip $<TARGET_FILE:ikfix_cli>
                     $<TARGET_FILE:fk_dump> ${IKFIX_${var}} ${IKFIX_STAIRS}
                     ${IKFIX_BROWSER_OUT}/${case})
  endforeach()
  add_test(NAME browser.batch_index
           COMMAND ${IKFIX_NODE} ${IKFIX_BROWSER_SCRIPT} index $<TARGET_FILE:ikfix_cli>
                   $<TARGET_FILE:fk_dump> ${IKFIX_STAIRS} ${IKFIX_BROWSER_OUT}/index
                   ${IKFIX_BVH} ${IKFIX_FBX})
  set_tests_properties(browser.clip_page_bvh browser.clip_page_fbx browser.clip_page_glb
                       browser.clip_page_barbarian
                       browser.batch_index PROPERTIES LABELS browser SKIP_RETURN_CODE 77
                       TIMEOUT 120 RUN_SERIAL TRUE)
endif()
