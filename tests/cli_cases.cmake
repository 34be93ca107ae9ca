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
# main builds only the command argv names (the first argument that is not a flag): every other
# argument list builds them all, so the top-level help still lists each command.
ikfix_cli_case(help_lists_every_command 0
               "run.*check.*inspect.*terrain.*batch.*report.*map.*retarget" -q --help)
ikfix_cli_case(check_help_after_a_flag 0 "Measure a clip.*--terrain" -v check --help)
ikfix_cli_case(version 0 "ikfix [0-9]" --version)
# Assimp is loaded on the first import through it (io/assimp/assimp_module.hpp), never linked:
# linked, it is loaded and relocated before main on every start, a BVH or OBJ run included.
add_test(NAME cli.assimp_loaded_on_use_not_linked
         COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:ikfix_cli> -DLIBRARY=libassimp
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_not_linked.cmake)
set_tests_properties(cli.assimp_loaded_on_use_not_linked PROPERTIES LABELS cli)
ikfix_cli_case(run_basic 0 "unreachable" run ${WALK} --terrain ${STAIRS} -o @OUT@)
ikfix_cli_case(run_report 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --report ${IKFIX_CLI_DIR}/r.json)
# -v: where the run's time went, phase by phase.
ikfix_cli_case(run_verbose_phases 0 "setup [0-9.]+ ms, read [0-9.]+ ms, terrain [0-9.]+ ms, measure input [0-9.]+ ms, fix [0-9.]+ ms, measure [0-9.]+ ms, write [0-9.]+ ms, report [0-9.]+ ms" -v run ${WALK} --terrain ${STAIRS} -o @OUT@ --report ${IKFIX_CLI_DIR}/rv.json)
ikfix_cli_case(run_solver_ccd 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --solver ccd)
ikfix_cli_case(run_solver_two_bone 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --solver two-bone)
ikfix_cli_case(run_solver_dls 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --solver dls)
ikfix_cli_case(run_clip_unit 0 "unit cm \\(user\\)|unit custom \\(user\\)" run ${WALK} --terrain ${STAIRS} -o @OUT@ --clip-unit cm)
ikfix_cli_case(run_weight 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --weight 0.5)
ikfix_cli_case(run_quiet 0 "^$" -q run ${WALK} --terrain ${STAIRS} -o @OUT@)
ikfix_cli_case(run_threads 0 "unreachable" run ${WALK} --terrain ${STAIRS} -o @OUT@ --threads 2)
ikfix_cli_case(run_bad_threads 2 "error:.*--threads" run ${WALK} --terrain ${STAIRS} -o @OUT@ --threads -1 NO_FILE @OUT@)
ikfix_cli_case(run_legs 0 "legs by user" run ${WALK} --terrain ${STAIRS} -o @OUT@
               --legs LeftUpLeg,LeftLeg,LeftFoot,LeftToeBase,RightUpLeg,RightLeg,RightFoot,RightToeBase)
ikfix_cli_case(run_terrain_offset 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --terrain-offset 0 -0.1 0)
ikfix_cli_case(run_no_align 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --no-align-feet --max-pelvis-drop 0.2 --floor 0)
ikfix_cli_case(run_max_heel_lift 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --max-heel-lift 0)
ikfix_cli_case(run_no_place_plants 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --no-place-plants)
ikfix_cli_case(inspect 0 "LeftUpLeg" inspect ${WALK})

# Negative: usage.
ikfix_cli_case(no_command 2 "error:")
ikfix_cli_case(unknown_command_with_a_clip 2 "error: unknown command 'fixx'.*run, check" fixx ${WALK})
ikfix_cli_case(unknown_command_after_a_flag 2 "error: unknown command 'bogus'" -q bogus)
ikfix_cli_case(unknown_command 2 "error: unknown command 'frobnicate'.*map and retarget" frobnicate)
ikfix_cli_case(help_before_an_unknown_word 0 "Usage" --help frobnicate)
ikfix_cli_case(bad_flag 2 "error:.*--bogus" run ${WALK} --terrain ${STAIRS} --bogus)
ikfix_cli_case(missing_terrain_flag 2 "error:.*terrain" run ${WALK} NO_FILE @OUT@)
ikfix_cli_case(bad_solver 2 "error:" run ${WALK} --terrain ${STAIRS} --solver magic -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(bad_weight 2 "error:" run ${WALK} --terrain ${STAIRS} --weight 2 -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(bad_max_heel_lift 2 "error:.*max-heel-lift" run ${WALK} --terrain ${STAIRS} --max-heel-lift 90 -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(bad_clip_unit 2 "error:.*clip-unit" run ${WALK} --terrain ${STAIRS} --clip-unit parsecs -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(bad_fail_on 2 "error:.*fail-on" run ${WALK} --terrain ${STAIRS} --fail-on sometimes -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(bad_legs 2 "error:.*NoSuchJoint" run ${WALK} --terrain ${STAIRS} -o @OUT@
               --legs NoSuchJoint,LeftLeg,LeftFoot,LeftToeBase,RightUpLeg,RightLeg,RightFoot,RightToeBase NO_FILE @OUT@)
ikfix_cli_case(output_is_input 2 "error:.*in-place" run ${IKFIX_CLI_DIR}/nolegs.bvh --terrain ${STAIRS} -o ${IKFIX_CLI_DIR}/nolegs.bvh)
ikfix_cli_case(bad_terrain_kind 2 "error:" terrain volcano -o ${IKFIX_CLI_DIR}/t.obj NO_FILE ${IKFIX_CLI_DIR}/t.obj)
ikfix_cli_case(bad_terrain_value 2 "error:" terrain stairs --steps 0 -o ${IKFIX_CLI_DIR}/t.obj NO_FILE ${IKFIX_CLI_DIR}/t.obj)
# Prepared terrains (issue 18): prepare, then refuse what is not one (a text file named
# .ikterrain, written at configure time), a prepare without input or to another extension, and
# a unit given with a prepared file.
file(WRITE "${IKFIX_CLI_DIR}/notprepared.ikterrain" "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n")
ikfix_cli_case(terrain_prepare 0 "wrote .*prepared_stairs.ikterrain: 42 triangles" terrain prepare ${STAIRS} -o ${IKFIX_CLI_DIR}/prepared_stairs.ikterrain)
ikfix_cli_case(terrain_prepare_no_input 2 "error:.*terrain prepare: give the terrain mesh" terrain prepare -o ${IKFIX_CLI_DIR}/p.ikterrain NO_FILE ${IKFIX_CLI_DIR}/p.ikterrain)
ikfix_cli_case(terrain_prepare_bad_output 2 "error:.*must be a .ikterrain file" terrain prepare ${STAIRS} -o ${IKFIX_CLI_DIR}/p.obj NO_FILE ${IKFIX_CLI_DIR}/p.obj)
ikfix_cli_case(terrain_input_not_prepare 2 "error:.*takes no input file" terrain flat ${STAIRS} -o ${IKFIX_CLI_DIR}/t2.obj NO_FILE ${IKFIX_CLI_DIR}/t2.obj)
ikfix_cli_case(run_not_prepared 2 "error:.*notprepared.ikterrain: not a prepared terrain" run ${WALK} --terrain ${IKFIX_CLI_DIR}/notprepared.ikterrain -o @OUT@ NO_FILE @OUT@)

# Negative: bad files. The message names the file.
ikfix_cli_case(missing_clip 2 "error:.*nosuch.bvh" run ${IKFIX_CLI_DIR}/nosuch.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(empty_clip 2 "error:.*empty.bvh" run ${IKFIX_CLI_DIR}/empty.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(truncated_clip 2 "error:.*truncated.bvh" run ${IKFIX_CLI_DIR}/truncated.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(nan_clip 2 "error:.*nan.bvh:[0-9]+" run ${IKFIX_CLI_DIR}/nan.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(no_legs 2 "error:.*nolegs.bvh.*legs" run ${IKFIX_CLI_DIR}/nolegs.bvh --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(unsupported_format 2 "error:.*notaclip.fbx" run ${IKFIX_CLI_DIR}/notaclip.fbx --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(missing_terrain 2 "error:.*nosuch.obj" run ${WALK} --terrain ${IKFIX_CLI_DIR}/nosuch.obj -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(garbage_terrain 2 "error:.*garbage.obj" run ${WALK} --terrain ${IKFIX_CLI_DIR}/garbage.obj -o @OUT@ NO_FILE @OUT@)
# The terrain is built while the clip is read; a bad terrain is still the error reported, first.
ikfix_cli_case(garbage_terrain_and_clip 2 "error:.*garbage.obj:2" run ${IKFIX_CLI_DIR}/nan.bvh --terrain ${IKFIX_CLI_DIR}/garbage.obj -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(check_garbage_terrain_and_clip 2 "error:.*garbage.obj:2" check ${IKFIX_CLI_DIR}/nan.bvh --terrain ${IKFIX_CLI_DIR}/garbage.obj)
ikfix_cli_case(clip_is_directory 2 "error:" run ${IKFIX_CLI_DIR} --terrain ${STAIRS} -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(unwritable_output 2 "error:.*out.bvh" run ${WALK} --terrain ${STAIRS} -o /proc/ikfix-no/out.bvh)
ikfix_cli_case(inspect_missing 2 "error:.*nosuch.bvh" inspect ${IKFIX_CLI_DIR}/nosuch.bvh)
# --max-joints: walk.bvh has 24 joints; below that it is refused naming the file and both numbers.
ikfix_cli_case(max_joints_refuses 2 "error:.*walk.bvh: 24 joints, more than the limit of 23 .--max-joints." inspect ${WALK} --max-joints 23)
ikfix_cli_case(max_joints_run 2 "error:.*walk.bvh: 24 joints, more than the limit of 5" run ${WALK} --terrain ${STAIRS} -o @OUT@ --max-joints 5 NO_FILE @OUT@)
ikfix_cli_case(max_joints_enough 0 "LeftUpLeg" inspect ${WALK} --max-joints 24)
ikfix_cli_case(max_joints_not_a_number 2 "max-joints" inspect ${WALK} --max-joints 0)

# ---- ikfix batch and ikfix report merge (cli/REFERENCE.md "ikfix batch") ----
# Each case writes under its own folder ${IKFIX_CLI_DIR}/<case>.d so parallel cases never race.
set(BATCH_LIB "${IKFIX_CLI_DIR}/batch_lib")         # two good clips in two folders
set(BATCH_BAD "${IKFIX_CLI_DIR}/batch_bad")         # a good clip and a broken one
set(BATCH_DUP "${IKFIX_CLI_DIR}/batch_dup/a")       # a/walk1.bvh again: same output as BATCH_LIB's
configure_file(${WALK} "${BATCH_LIB}/a/walk1.bvh" COPYONLY)
configure_file(${WALK} "${BATCH_LIB}/b/walk2.bvh" COPYONLY)
configure_file(${WALK} "${BATCH_BAD}/good.bvh" COPYONLY)
configure_file(${WALK} "${BATCH_DUP}/walk1.bvh" COPYONLY)
file(WRITE "${BATCH_BAD}/bad.bvh" "HIERARCHY\nROOT Hips\n{\n")
file(MAKE_DIRECTORY "${IKFIX_CLI_DIR}/batch_empty")
file(WRITE "${IKFIX_CLI_DIR}/batch_list.txt" "# clips\n${BATCH_LIB}/a/walk1.bvh\n\nb/walk2.bvh\n")
configure_file(${WALK} "${IKFIX_CLI_DIR}/b/walk2.bvh" COPYONLY)  # the list's relative entry
file(WRITE "${IKFIX_CLI_DIR}/batch_list_empty.txt" "# nothing here\n\n")
file(WRITE "${IKFIX_CLI_DIR}/batch_list_bad.txt" "${WALK}\nno/such/clip.bvh\n")
file(WRITE "${IKFIX_CLI_DIR}/not_batch.json" "{\"schema_version\": 1, \"command\": \"run\"}\n")
set(B "${IKFIX_CLI_DIR}")

# Positive: each flag.
ikfix_cli_case(batch_help 0 "--out-dir" batch --help)
ikfix_cli_case(report_merge_help 0 "--junit" report merge --help)
ikfix_cli_case(batch_dir 0 "2 clip\\(s\\): 2 fixed" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/batch_dir.d)
ikfix_cli_case(batch_file 0 "1 clip\\(s\\): 1 fixed" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_file.d)
ikfix_cli_case(batch_jobs 0 "with 1 job" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/batch_jobs.d --jobs 1)
ikfix_cli_case(batch_jobs_all 0 "job" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/batch_jobs_all.d -j 0)
ikfix_cli_case(batch_shard 0 "shard 2/2 of 2" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/batch_shard.d --shard 2/2)
ikfix_cli_case(batch_report 0 "" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/batch_report.d --report ${B}/batch_report.d/r.json)
ikfix_cli_case(batch_junit 0 "" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/batch_junit.d --junit ${B}/batch_junit.d/r.xml)
ikfix_cli_case(batch_resume 0 "kept by --resume" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/batch_resume.d --resume)
ikfix_cli_case(batch_quiet 0 "^$" -q batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/batch_quiet.d)
ikfix_cli_case(batch_quiet_local 0 "^$" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/batch_quiet_local.d -q)
ikfix_cli_case(batch_glob 0 "2 clip\\(s\\): 2 fixed" batch ${BATCH_LIB}/*/*.bvh --terrain ${STAIRS} --out-dir ${B}/batch_glob.d)
ikfix_cli_case(batch_list 0 "2 clip\\(s\\): 2 fixed" batch @${IKFIX_CLI_DIR}/batch_list.txt --terrain ${STAIRS} --out-dir ${B}/batch_list.d)
ikfix_cli_case(batch_fix_options 0 "1 fixed" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_fix_options.d
               --solver two-bone --weight 0.5 --clip-up y --terrain-offset 0 -0.1 0 --no-align-feet --floor 0
               --legs LeftUpLeg,LeftLeg,LeftFoot,LeftToeBase,RightUpLeg,RightLeg,RightFoot,RightToeBase)
ikfix_cli_case(batch_fail_on_unreachable 1 "fail-on condition held: unreachable" batch ${WALK} --terrain ${STAIRS}
               --out-dir ${B}/batch_fail_on_unreachable.d --max-pelvis-drop 0 --fail-on unreachable)
ikfix_cli_case(batch_fail_on_threshold 0 "" batch ${WALK} --terrain ${STAIRS}
               --out-dir ${B}/batch_fail_on_threshold.d --max-pelvis-drop 0 --fail-on unreachable>100000)
ikfix_cli_case(batch_clip_fails_mid_batch 1 "error:.*bad.bvh.*1 fixed, 1 failed" batch ${BATCH_BAD} --terrain ${STAIRS}
               --out-dir ${B}/batch_clip_fails_mid_batch.d --jobs 1 NO_FILE ${B}/batch_clip_fails_mid_batch.d/bad.bvh)
ikfix_cli_case(batch_allow_errors 0 "1 failed" batch ${BATCH_BAD} --terrain ${STAIRS} --out-dir ${B}/batch_allow_errors.d --allow-errors)
ikfix_cli_case(batch_fail_on_errors_limit 0 "1 failed" batch ${BATCH_BAD} --terrain ${STAIRS}
               --out-dir ${B}/batch_fail_on_errors_limit.d --fail-on errors>1)
# --format (issue 5): BVH to BVH is the usual patch; a conversion that would lose data fails the
# clip (exit 1, no file), as `run -o` with another extension does (exit 2).
ikfix_cli_case(batch_format_same 0 "1 fixed" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_format_same.d --format bvh)
ikfix_cli_case(batch_format_lossy 1 "cannot write a .bvh clip as .fbx without losing data" batch ${WALK} --terrain ${STAIRS}
               --out-dir ${B}/batch_format_lossy.d --format fbx NO_FILE ${B}/batch_format_lossy.d/walk.fbx)
ikfix_cli_case(batch_format_unknown 2 "error:.*--format" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_format_unknown.d
               --format obj NO_FILE ${B}/batch_format_unknown.d)
ikfix_cli_case(run_output_lossy_format 2 "error:.*cannot write a .bvh clip as .fbx" run ${WALK} --terrain ${STAIRS}
               -o ${B}/run_output_lossy_format.fbx NO_FILE ${B}/run_output_lossy_format.fbx)

# Negative: bad usage and bad inputs, each exit 2 with one error line and no work done.
ikfix_cli_case(batch_no_inputs 2 "error:.*inputs" batch --terrain ${STAIRS} --out-dir ${B}/batch_no_inputs.d)
ikfix_cli_case(batch_no_out_dir 2 "error:.*out-dir" batch ${WALK} --terrain ${STAIRS})
ikfix_cli_case(batch_no_terrain 2 "error:.*terrain" batch ${WALK} --out-dir ${B}/batch_no_terrain.d)
ikfix_cli_case(batch_missing_input 2 "error:.*nosuch.bvh" batch ${B}/nosuch.bvh --terrain ${STAIRS}
               --out-dir ${B}/batch_missing_input.d NO_FILE ${B}/batch_missing_input.d)
ikfix_cli_case(batch_empty_dir 2 "error:.*no clips" batch ${B}/batch_empty --terrain ${STAIRS} --out-dir ${B}/batch_empty_dir.d
               NO_FILE ${B}/batch_empty_dir.d)
ikfix_cli_case(batch_glob_no_match 2 "error:.*matches no clip" batch ${B}/nosuch*/*.bvh --terrain ${STAIRS}
               --out-dir ${B}/batch_glob_no_match.d)
ikfix_cli_case(batch_list_missing 2 "error:.*nolist.txt" batch @${B}/nolist.txt --terrain ${STAIRS} --out-dir ${B}/batch_list_missing.d)
ikfix_cli_case(batch_list_empty 2 "error:.*names no clip" batch @${B}/batch_list_empty.txt --terrain ${STAIRS}
               --out-dir ${B}/batch_list_empty.d)
ikfix_cli_case(batch_list_bad_entry 2 "error:.*batch_list_bad.txt:2: no/such/clip.bvh" batch @${B}/batch_list_bad.txt
               --terrain ${STAIRS} --out-dir ${B}/batch_list_bad_entry.d NO_FILE ${B}/batch_list_bad_entry.d)
ikfix_cli_case(batch_list_is_dir 2 "error:.*folder" batch @${B}/batch_empty --terrain ${STAIRS} --out-dir ${B}/batch_list_is_dir.d)
ikfix_cli_case(batch_bad_shard 2 "error:.*shard" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_bad_shard.d --shard 5/4)
ikfix_cli_case(batch_bad_shard_zero 2 "error:.*shard" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_bad_shard_zero.d --shard 0/4)
ikfix_cli_case(batch_bad_shard_text 2 "error:.*shard" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_bad_shard_text.d --shard half)
ikfix_cli_case(batch_bad_jobs 2 "error:.*jobs" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_bad_jobs.d --jobs -1)
ikfix_cli_case(batch_unwritable_out_dir 2 "error:.*out-dir.*/proc/ikfix-no" batch ${WALK} --terrain ${STAIRS} --out-dir /proc/ikfix-no/out)
ikfix_cli_case(batch_out_dir_is_file 2 "error:.*out-dir" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${B}/garbage.obj)
ikfix_cli_case(batch_out_dir_is_input 2 "error:.*overwrite the input" batch ${BATCH_LIB} --terrain ${STAIRS} --out-dir ${BATCH_LIB})
ikfix_cli_case(batch_same_output_twice 2 "error:.*both be written to a/walk1.bvh" batch ${BATCH_LIB} ${IKFIX_CLI_DIR}/batch_dup
               --terrain ${STAIRS} --out-dir ${B}/batch_same_output_twice.d)
ikfix_cli_case(batch_unwritable_report 2 "error:.*--report" batch ${WALK} --terrain ${STAIRS}
               --out-dir ${B}/batch_unwritable_report.d --report /proc/ikfix-no/r.json)
ikfix_cli_case(batch_bad_fail_on 2 "error:.*fail-on.*errors" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_bad_fail_on.d
               --fail-on sometimes)
ikfix_cli_case(batch_bad_errors_limit 2 "error:.*fail-on.*errors>x" batch ${WALK} --terrain ${STAIRS}
               --out-dir ${B}/batch_bad_errors_limit.d --fail-on errors>x)
ikfix_cli_case(batch_missing_terrain 2 "error:.*nosuch.obj" batch ${WALK} --terrain ${B}/nosuch.obj --out-dir ${B}/batch_missing_terrain.d)
ikfix_cli_case(batch_bad_clip_unit 2 "error:.*clip-unit" batch ${WALK} --terrain ${STAIRS} --out-dir ${B}/batch_bad_clip_unit.d
               --clip-unit parsecs)
ikfix_cli_case(report_no_subcommand 2 "error:" report)
ikfix_cli_case(report_merge_missing 2 "error:.*nosuch.json" report merge ${B}/nosuch.json -o ${B}/merged_missing.json
               NO_FILE ${B}/merged_missing.json)
ikfix_cli_case(report_merge_not_json 2 "error:.*garbage.obj.*not JSON" report merge ${B}/garbage.obj -o ${B}/merged_not_json.json
               NO_FILE ${B}/merged_not_json.json)
ikfix_cli_case(report_merge_not_batch 2 "error:.*not an ikfix batch report" report merge ${B}/not_batch.json
               -o ${B}/merged_not_batch.json NO_FILE ${B}/merged_not_batch.json)
ikfix_cli_case(report_merge_no_output 2 "error:.*output" report merge ${B}/not_batch.json)

# ikfix check: measure only.
ikfix_cli_case(check_basic 0 "penetration max" check ${WALK} --terrain ${STAIRS})
ikfix_cli_case(check_report 0 "" check ${WALK} --terrain ${STAIRS} --report ${IKFIX_CLI_DIR}/check_report.json)
# The flat-ground clip stands inside the stairs before it is fixed: the condition holds.
ikfix_cli_case(check_fail_on_penetration 1 "fail-on condition held: penetration" check ${WALK} --terrain ${STAIRS}
               --fail-on penetration>0.005)
ikfix_cli_case(check_fail_on_foot_penetration 1
               "fail-on condition held: planted-foot-penetration-vertical=1.5>0.005"
               check ${WALK} --terrain ${STAIRS}
               --fail-on foot-penetration>0.005,planted-foot-penetration-vertical>0.005)
ikfix_cli_case(check_fail_on_passes 0 "" check ${WALK} --terrain ${CMAKE_SOURCE_DIR}/data/terrain/flat.obj
               --fail-on penetration>0.005,bone-length>0.00001,nan)
# The walk's largest ankle jerk is some hundreds of m/s^3: above 10, below 100000.
ikfix_cli_case(check_fail_on_foot_jerk 1 "fail-on condition held: foot-jerk=" check ${WALK} --terrain ${STAIRS}
               --fail-on foot-jerk>10)
ikfix_cli_case(check_fail_on_jerk_passes 0 "" check ${WALK} --terrain ${STAIRS}
               --fail-on foot-jerk>100000,pelvis-jerk>100000,foot-jerk-mean>100000,pelvis-jerk-mean>100000)
ikfix_cli_case(check_bad_fail_on 2 "error:.*fail-on" check ${WALK} --terrain ${STAIRS} --fail-on wobble>1)
ikfix_cli_case(check_missing_clip 2 "error:.*nosuch.bvh" check ${IKFIX_CLI_DIR}/nosuch.bvh --terrain ${STAIRS})
ikfix_cli_case(check_no_legs 2 "error:.*nolegs.bvh.*legs" check ${IKFIX_CLI_DIR}/nolegs.bvh --terrain ${STAIRS})
ikfix_cli_case(check_missing_terrain_flag 2 "error:.*terrain" check ${WALK})

# Contact files (--contacts / --contacts-out): dumped, then refused when they do not fit.
file(WRITE "${IKFIX_CLI_DIR}/contacts_overlap.json" "{\"ikfix_contacts\": 1, \"frames\": 2, \"left\": [[0, 1], [1, 1]], \"right\": []}")
file(WRITE "${IKFIX_CLI_DIR}/contacts_key.json" "{\"ikfix_contacts\": 1, \"frames\": 2, \"left\": [], \"right\": [], \"both\": []}")
ikfix_cli_case(check_contacts_out 0 "" check ${WALK} --terrain ${STAIRS} --contacts-out ${IKFIX_CLI_DIR}/contacts_out.json)
ikfix_cli_case(run_contacts_missing 2 "error:.*nosuch.contacts.json" run ${WALK} --terrain ${STAIRS} -o @OUT@
               --contacts ${IKFIX_CLI_DIR}/nosuch.contacts.json NO_FILE @OUT@)
ikfix_cli_case(run_contacts_wrong_frames 2 "error:.*contacts_overlap.json: is for 2 frames but the clip has" run ${WALK}
               --terrain ${STAIRS} -o @OUT@ --contacts ${IKFIX_CLI_DIR}/contacts_overlap.json NO_FILE @OUT@)
ikfix_cli_case(check_contacts_unknown_key 2 "error:.*contacts_key.json: unknown key \"both\"" check ${WALK}
               --terrain ${STAIRS} --contacts ${IKFIX_CLI_DIR}/contacts_key.json)

# --take: a take by index or name; an unknown take is bad input. (Shared data: the gtest suites
# report it missing, failing under CI=true.)
if(EXISTS "${IKFIX_SHARED_DATA}/anim/gltf/Fox.glb")
  ikfix_cli_case(inspect_take_by_name 0 "take: 1 'Walk' of 3" inspect ${IKFIX_SHARED_DATA}/anim/gltf/Fox.glb --take Walk)
  ikfix_cli_case(inspect_take_unknown 2 "error:.*Fox.glb.*no animation 'Dance'" inspect ${IKFIX_SHARED_DATA}/anim/gltf/Fox.glb --take Dance)
endif()
ikfix_cli_case(run_bvh_take_other_than_0 2 "error:.*one take" run ${WALK} --terrain ${STAIRS} -o @OUT@ --take 1 NO_FILE @OUT@)

# batch --check-only: measure a library, write no clips.
ikfix_cli_case(batch_check_only 0 "" batch ${WALK} --terrain ${CMAKE_SOURCE_DIR}/data/terrain/flat.obj --check-only
               --report ${IKFIX_CLI_DIR}/batch_check_only.json --fail-on penetration>0.005)
ikfix_cli_case(batch_check_only_fail_on 1 "fail-on held" batch ${WALK} --terrain ${STAIRS} --check-only
               --fail-on penetration>0.005)
ikfix_cli_case(batch_check_only_resume 2 "error:.*--resume" batch ${WALK} --terrain ${STAIRS} --check-only --resume)

# --config: clip settings JSON (a sidecar CLIP.ikfix.json wins); bad configs are bad input.
file(WRITE "${IKFIX_CLI_DIR}/legs_config.json" "{\"legs\": \"LeftUpLeg,LeftLeg,LeftFoot,LeftToeBase,RightUpLeg,RightLeg,RightFoot,RightToeBase\", \"clip_unit\": \"cm\"}")
file(WRITE "${IKFIX_CLI_DIR}/unknown_key_config.json" "{\"legz\": \"x\"}")
file(WRITE "${IKFIX_CLI_DIR}/not_json_config.json" "legs = x")
file(WRITE "${IKFIX_CLI_DIR}/bad_offset_config.json" "{\"terrain_offset\": [0, 1]}")
ikfix_cli_case(run_config 0 "legs by user" run ${WALK} --terrain ${STAIRS} -o @OUT@ --config ${IKFIX_CLI_DIR}/legs_config.json)
ikfix_cli_case(run_config_unknown_key 2 "error:.*unknown_key_config.json.*unknown key" run ${WALK} --terrain ${STAIRS}
               -o @OUT@ --config ${IKFIX_CLI_DIR}/unknown_key_config.json NO_FILE @OUT@)
ikfix_cli_case(run_config_not_json 2 "error:.*not_json_config.json.*not valid JSON" run ${WALK} --terrain ${STAIRS}
               -o @OUT@ --config ${IKFIX_CLI_DIR}/not_json_config.json NO_FILE @OUT@)
ikfix_cli_case(run_config_bad_offset 2 "error:.*bad_offset_config.json.*terrain_offset" run ${WALK} --terrain ${STAIRS}
               -o @OUT@ --config ${IKFIX_CLI_DIR}/bad_offset_config.json NO_FILE @OUT@)
ikfix_cli_case(batch_bad_config 2 "error:.*unknown_key_config.json" batch ${WALK} --terrain ${STAIRS}
               --out-dir ${IKFIX_CLI_DIR}/batch_bad_config.d --config ${IKFIX_CLI_DIR}/unknown_key_config.json)

# --take all: every take (BVH: its one take); inspect lists the takes.
ikfix_cli_case(inspect_take_all_bvh 0 "take 0 '': [0-9]+ frames" inspect ${WALK} --take all)
if(EXISTS "${IKFIX_SHARED_DATA}/anim/gltf/Fox.glb")
  ikfix_cli_case(inspect_take_all_fox 0 "take 2 'Run': 36 frames" inspect ${IKFIX_SHARED_DATA}/anim/gltf/Fox.glb --take all)
endif()
ikfix_cli_case(run_take_all_bvh 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --take all)

# inspect shows the skinned mesh and the sole vertices the foot model picks per leg.
ikfix_cli_case(inspect_no_skin 0 "skin: none" inspect ${WALK})
if(EXISTS "${IKFIX_SHARED_DATA}/anim/gltf/CesiumMan.glb")
  ikfix_cli_case(inspect_skin_glb 0 "skin: 3273 skinned vertices. sole vertices left [1-9][0-9]*, right [1-9]"
                 inspect ${IKFIX_SHARED_DATA}/anim/gltf/CesiumMan.glb)
  ikfix_cli_case(inspect_skin_fbx_json 0 "skin.: {[^}]*vertices.: 804,[^}]*sole_vertices.: {[^}]*left.: [1-9]"
                 inspect ${IKFIX_SHARED_DATA}/anim/fbx/kenney_character_maya_7700.fbx --json)
endif()

# --verify-assimp: the FBX output is also read back through Assimp (and passes); the check with
# our own reader runs either way.
if(EXISTS "${IKFIX_SHARED_DATA}/anim/fbx/cmu_07_01_walk_skeleton.fbx")
  ikfix_cli_case(run_fbx_verify_assimp 0 "-> .*run_fbx_verify_assimp.fbx" run
                 ${IKFIX_SHARED_DATA}/anim/fbx/cmu_07_01_walk_skeleton.fbx --terrain ${STAIRS}
                 -o ${IKFIX_CLI_DIR}/run_fbx_verify_assimp.fbx --verify-assimp)
endif()
ikfix_cli_case(check_has_no_verify_assimp 2 "verify-assimp" check ${WALK} --terrain ${STAIRS} --verify-assimp)

# map: the automatic bone map, as a table, JSON or a saved file; unusable maps and bad inputs
# are bad input.
ikfix_cli_case(map_help 0 "--to" map --help)
ikfix_cli_case(map_identity 0 "LeftUpLeg +LeftUpLeg +left_thigh +exact_name" map ${WALK} --to ${WALK})
ikfix_cli_case(map_json 0 "ikfix-bone-map-v1" map ${WALK} --to ${WALK} --json)
ikfix_cli_case(map_save 0 "" map ${WALK} --to ${WALK} --save ${IKFIX_CLI_DIR}/map_save.json)
ikfix_cli_case(map_missing_to 2 "error:.*--to" map ${WALK})
ikfix_cli_case(map_missing_source 2 "error:" map --to ${WALK})
ikfix_cli_case(map_no_legs 2 "error:.*nolegs.bvh.*required roles not found.*hips.*left_thigh"
               map ${WALK} --to ${IKFIX_CLI_DIR}/nolegs.bvh --save ${IKFIX_CLI_DIR}/map_no_legs.json
               NO_FILE ${IKFIX_CLI_DIR}/map_no_legs.json)
ikfix_cli_case(map_target_not_a_clip 2 "error:.*notaclip.fbx" map ${WALK} --to ${IKFIX_CLI_DIR}/notaclip.fbx)
ikfix_cli_case(map_source_missing_file 2 "error:.*nope.bvh" map ${IKFIX_CLI_DIR}/nope.bvh --to ${WALK})
ikfix_cli_case(map_source_empty 2 "error:.*empty.bvh" map ${IKFIX_CLI_DIR}/empty.bvh --to ${WALK})
ikfix_cli_case(map_save_unwritable 2 "error:.*map.json" map ${WALK} --to ${WALK} --save ${WALK}/map.json)
if(EXISTS "${IKFIX_SHARED_DATA}/retarget/kenney_rest.fbx")
  # A character without animation, controls beside the deform bones: the controls are excluded.
  ikfix_cli_case(map_rest_fbx_controls_excluded 0 "excluded target.*LeftFootIK.*HipsCtrl"
                 map ${IKFIX_SHARED_DATA}/anim/bvh/cmu_02_01_walk.bvh --to ${IKFIX_SHARED_DATA}/retarget/kenney_rest.fbx
                 --save ${IKFIX_CLI_DIR}/map_kenney.json)
endif()
if(EXISTS "${IKFIX_SHARED_DATA}/anim/gltf/Fox.glb")
  ikfix_cli_case(map_quadruped 2 "error:.*Fox.glb.*required roles not found"
                 map ${WALK} --to ${IKFIX_SHARED_DATA}/anim/gltf/Fox.glb)
endif()
if(EXISTS "${IKFIX_SHARED_DATA}/retarget/barbarian_rest.bvh")
  ikfix_cli_case(map_barbarian_end_site 0 "LeftFoot +pied_gauche \\(end\\) +left_foot"
                 map ${IKFIX_SHARED_DATA}/anim/bvh/cmu_02_01_walk.bvh --to ${IKFIX_SHARED_DATA}/retarget/barbarian_rest.bvh)
endif()

# retarget: the bundled walk onto itself works without shared data; bad inputs fail cleanly.
ikfix_cli_case(retarget_help 0 "--to" retarget --help)
ikfix_cli_case(retarget_self 0 "bones mapped" retarget ${WALK} --to ${WALK} -o @OUT@)
ikfix_cli_case(retarget_self_stairs_report 0 "" retarget ${WALK} --to ${WALK} --terrain ${STAIRS} -o @OUT@
               --report ${IKFIX_CLI_DIR}/retarget_report.json)
ikfix_cli_case(retarget_no_foot_fix 0 "" retarget ${WALK} --to ${WALK} --no-foot-fix -o @OUT@)
ikfix_cli_case(retarget_missing_to 2 "error:.*--to" retarget ${WALK} -o @OUT@)
ikfix_cli_case(retarget_missing_character 2 "error:.*nobody.fbx" retarget ${WALK} --to ${IKFIX_CLI_DIR}/nobody.fbx
               -o ${IKFIX_CLI_DIR}/retarget_missing.fbx NO_FILE ${IKFIX_CLI_DIR}/retarget_missing.fbx)
ikfix_cli_case(retarget_unmappable 2 "error:.*nolegs.bvh" retarget ${WALK} --to ${IKFIX_CLI_DIR}/nolegs.bvh
               -o ${IKFIX_CLI_DIR}/retarget_unmappable.bvh NO_FILE ${IKFIX_CLI_DIR}/retarget_unmappable.bvh)
ikfix_cli_case(retarget_bad_map_file 2 "error:.*notaclip.fbx" retarget ${WALK} --to ${WALK}
               --map ${IKFIX_CLI_DIR}/notaclip.fbx -o @OUT@ NO_FILE @OUT@)
ikfix_cli_case(retarget_arm_reach_range 2 "error:.*--arm-reach" retarget ${WALK} --to ${WALK} --arm-reach 2 -o @OUT@)
ikfix_cli_case(retarget_output_is_input 2 "error:.*overwrite an input" retarget ${WALK} --to ${WALK} -o ${WALK})
ikfix_cli_case(retarget_wrong_output_format 2 "error:.*retarget writes" retarget ${WALK} --to ${WALK}
               -o ${IKFIX_CLI_DIR}/retarget_out.fbx NO_FILE ${IKFIX_CLI_DIR}/retarget_out.fbx)
ikfix_cli_case(batch_to_check_only 2 "error:.*--to has nothing to write" batch ${WALK} --to ${WALK}
               --terrain ${STAIRS} --check-only)

# --html / --html-dir (the HTML report): written; never over the input or the output clip.
ikfix_cli_case(run_html 0 "" run ${WALK} --terrain ${STAIRS} -o @OUT@ --html ${IKFIX_CLI_DIR}/run.html)
ikfix_cli_case(check_html 0 "" check ${WALK} --terrain ${STAIRS} --html ${IKFIX_CLI_DIR}/check.html)
ikfix_cli_case(run_html_is_input 2 "--html .* is the input .*refusing to overwrite it" run ${WALK} --terrain ${STAIRS} -o @OUT@ --html ${WALK})
ikfix_cli_case(run_html_is_output 2 "--html .* and -o .* are the same file" run ${WALK} --terrain ${STAIRS} -o ${IKFIX_CLI_DIR}/same.bvh --html ${IKFIX_CLI_DIR}/same.bvh NO_FILE ${IKFIX_CLI_DIR}/same.bvh)
ikfix_cli_case(batch_html_dir 0 "" batch ${WALK} --terrain ${STAIRS} --out-dir ${IKFIX_CLI_DIR}/html_batch --html-dir ${IKFIX_CLI_DIR}/html_batch_pages)
