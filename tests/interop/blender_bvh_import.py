# Imports BVH files into Blender (bpy.ops.import_anim.bvh) and writes, per file, the bone names
# and the world position (Blender's Z up) of every bone's head at the frames IKFIX_POSE_FRAMES
# (Blender frame 1 is the file's first frame). Run by tests/interop/bvh_blender_tests.cpp:
#   IKFIX_POSE_FRAMES=1,10 blender -b --factory-startup --python blender_bvh_import.py -- OUT.json FILE...
import builtins
import json
import os
import sys

import bpy

# Blender 3.4's BVH importer opens files with mode 'rU', which Python 3.11 rejects: strip the U.
_open = builtins.open


def _compat_open(file, mode="r", *args, **kwargs):
    return _open(file, mode.replace("U", ""), *args, **kwargs)


builtins.open = _compat_open

args = sys.argv[sys.argv.index("--") + 1:]
out_path, files = args[0], args[1:]
frames = [int(f) for f in os.environ.get("IKFIX_POSE_FRAMES", "1").split(",")]
result = {}
for path in files:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    entry = {"ok": False}
    try:
        bpy.ops.import_anim.bvh(filepath=path)
        arm = [o for o in bpy.data.objects if o.type == "ARMATURE"][0]
        entry["ok"] = True
        entry["bones"] = sorted(b.name for b in arm.data.bones)
        entry["poses"] = {}
        for frame in frames:
            bpy.context.scene.frame_set(frame)
            entry["poses"][str(frame)] = {b.name: list(arm.matrix_world @ b.head) for b in arm.pose.bones}
    except Exception as e:  # report, do not crash: the test prints it
        entry["error"] = str(e)
    result[path] = entry
with open(out_path, "w") as f:
    json.dump(result, f)
