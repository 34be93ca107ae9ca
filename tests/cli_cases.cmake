# Every CLI flag and every kind of bad input is its own CTest case (ozz style), most of them
# negative: each must fail cleanly with exit code 2, one line naming the problem, no output.
set(IKFIX_CLI_DIR "${CMAKE_CURRENT_BINARY_DIR}/cli_cases")
file(MAKE_DIRECTORY "${IKFIX_CLI_DIR}")
set(WALK "${CMAKE_SOURCE_DIR}/data/clips/walk.bvh")
set(STAIRS "${CMAKE_SOURCE_DIR}/data/terrain/stairs.obj")

# Bad inputs, written at configure time.
file(WRITE "${IKFIX_CLI_DIR}/empty.bvh" "")
file(WRITE "${IKFIX_CLI_DIR}/truncated.bvh" "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n")
file(WRITE "${IKFIX_CLI_DIR}/nan.bvh" "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xposition Yposition Zposition\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: 1\nFrame Time: 0.033333\n0 nan 0\n")
file(WRITE "${IKFIX_CLI_DIR}/nolegs.bvh" "HIERARCHY\nROOT Root\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n  JOINT Arm\n  {\n    OFFSET 1 0 0\n    CHANNELS 3 Zrotation Yrotation Xrotation\n    End Site\n    {\n      OFFSET 1 0 0\n    }\n  }\n}\nMOTION\nFrames: 2\nFrame Time: 0.033333\n0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0\n")
file(WRITE "${IKFIX_CLI_DIR}/garbage.obj" "this is not a mesh\nv 1 2\nf 9 9 9\n")
file(WRITE "${IKFIX_CLI_DIR}/notaclip.fbx" "not an fbx")

# "@OUT@" in a case stands for an output path of its own, so parallel cases never race.
function(ikfix_cli_case name expected_exit regex)
  string(REPLACE "@OUT@" "${IKFIX_CLI_DIR}/${name}.out.bvh" ARGN "${ARGN}")
  cmake_parse_arguments(ARG "" "NO_FILE" "" ${ARGN})
  set(extra)
  if(ARG_NO_FILE)
    set(extra -DNO_FILE=${ARG_NO_FILE})
  endif()
  # The command travels as one "|"-separated string (a ";" list would be split by add_test).
  string(REPLACE ";" "|" args "${ARG_UNPARSED_ARGUMENTS}")
  add_test(NAME cli.${name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:ikfix_cli>|${args}"
                   -DEXPECTED_EXIT=${expected_exit} "-DEXPECTED_REGEX=${regex}" ${extra}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_exit.cmake)
  set_tests_properties(cli.${name} PROPERTIES LABELS cli)
endfunction()

# Positive: help, version, each run flag.
ikfix_cli_case(help 0 "Usage" --help)
ikfix_cli_case(run_help 0 "--terrain" run --help)
ikfix_cli_case(version 0 "ikfix [0-9]" --version)
ikfix_cli_case(run_basic 0 "unreachable" run ${WALK} --terrain ${STAIRS} -o @OUT@)
ikfix_cli_case(run_report 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --report ${IKFIX_CLI_DIR}/r.json)
ikfix_cli_case(run_solver_ccd 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --solver ccd)
ikfix_cli_case(run_solver_two_bone 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --solver two-bone)
ikfix_cli_case(run_clip_unit 0 "unit cm \\(user\\)|unit custom \\(user\\)" run ${WALK} --terrain ${STAIRS} -o @OUT@ --clip-unit cm)
ikfix_cli_case(run_weight 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --weight 0.5)
ikfix_cli_case(run_quiet 0 "^$" -q run ${WALK} --terrain ${STAIRS} -o @OUT@)
ikfix_cli_case(run_legs 0 "legs by user" run ${WALK} --terrain ${STAIRS} -o @OUT@
               --legs LeftUpLeg,LeftLeg,LeftFoot,LeftToeBase,RightUpLeg,RightLeg,RightFoot,RightToeBase)
ikfix_cli_case(run_terrain_offset 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --terrain-offset 0 -0.1 0)
ikfix_cli_case(run_no_align 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --no-align-feet --max-pelvis-drop 0.2 --floor 0)
ikfix_cli_case(inspect 0 "LeftUpLeg" inspect ${WALK})

# Negative: usage.
ikfix_cli_case(no_command 2 "error:")
ikfix_cli_case(unknown_command 2 "error:" frobnicate)
ikfix_cli_case(bad_flag 2 "error:.*--bogus" run ${WALK} --terrain ${STAIRS} --bogus)
ikfix_cli_case(missing_terrain_flag 2 "error:.*terrain" run ${WALK} NO_FILE @OUT@)
ikfix_cli_case(bad_solver 2 "error:" run ${WALK} --terrain ${STAIRS} --solver magic -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(bad_weight 2 "error:" run ${WALK} --terrain ${STAIRS} --weight 2 -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(bad_clip_unit 2 "error:.*clip-unit" run ${WALK} --terrain ${STAIRS} --clip-unit parsecs -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(bad_fail_on 2 "error:.*fail-on" run ${WALK} --terrain ${STAIRS} --fail-on sometimes -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(bad_legs 2 "error:.*NoSuchJoint" run ${WALK} --terrain ${STAIRS} -o @OUT@
               --legs NoSuchJoint,LeftLeg,LeftFoot,LeftToeBase,RightUpLeg,RightLeg,RightFoot,RightToeBase NO_FILE @OUT@)
ikfix_cli_case(output_is_input 2 "error:.*in-place" run ${IKFIX_CLI_DIR}/nolegs.bvh --terrain ${STAIRS} -o ${IKFIX_CLI_DIR}/nolegs.bvh)
ikfix_cli_case(bad_terrain_kind 2 "error:" terrain volcano -o ${IKFIX_CLI_DIR}/t.obj NO_FILE ${IKFIX_CLI_DIR}/t.obj)
ikfix_cli_case(bad_terrain_value 2 "error:" terrain stairs --steps 0 -o ${IKFIX_CLI_DIR}/t.obj NO_FILE ${IKFIX_CLI_DIR}/t.obj)

# Negative: bad files. The message names the file.
ikfix_cli_case(missing_clip 2 "error:.*nosuch.bvh" run ${IKFIX_CLI_DIR}/nosuch.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(empty_clip 2 "error:.*empty.bvh" run ${IKFIX_CLI_DIR}/empty.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(truncated_clip 2 "error:.*truncated.bvh" run ${IKFIX_CLI_DIR}/truncated.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(nan_clip 2 "error:.*nan.bvh:[0-9]+" run ${IKFIX_CLI_DIR}/nan.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(no_legs 2 "error:.*nolegs.bvh.*legs" run ${IKFIX_CLI_DIR}/nolegs.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(unsupported_format 2 "error:.*notaclip.fbx" run ${IKFIX_CLI_DIR}/notaclip.fbx --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(missing_terrain 2 "error:.*nosuch.obj" run ${WALK} --terrain ${IKFIX_CLI_DIR}/nosuch.obj -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(garbage_terrain 2 "error:.*garbage.obj" run ${WALK} --terrain ${IKFIX_CLI_DIR}/garbage.obj -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(clip_is_directory 2 "error:" run ${IKFIX_CLI_DIR} --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(unwritable_output 2 "error:.*out.bvh" run ${WALK} --terrain ${STAIRS} -o /proc/ikfix-no/out.bvh)
ikfix_cli_case(inspect_missing 2 "error:.*nosuch.bvh" inspect ${IKFIX_CLI_DIR}/nosuch.bvh)
