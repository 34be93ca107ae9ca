# Imports FBX files into Blender (bpy.ops.import_scene.fbx) and writes what Blender sees as
# JSON: per file, the armatures with their bone names, the actions with their frame range
# and F-curve count, every object's type and parent, and each mesh's vertex count, vertex groups
# and armature modifiers (its skin) and materials. With IKFIX_POSE_ACTION=NAME and IKFIX_POSE_FRAMES=1,5,...,
# also the world position (metres, Blender's Z up) of every bone's head at those frames of the
# action whose name contains NAME. Run by tests/interop/fbx_blender_tests.cpp:
#   blender -b --factory-startup --python blender_fbx_import.py -- OUT.json FILE...
import json
import os
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
out_path, files = args[0], args[1:]
result = {}
for path in files:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    entry = {"ok": False}
    try:
        bpy.ops.import_scene.fbx(filepath=path)
        entry["ok"] = True
        entry["armatures"] = {o.name: sorted(b.name for b in o.data.bones)
                              for o in bpy.data.objects if o.type == "ARMATURE"}
        entry["actions"] = {a.name: {"frame_range": list(a.frame_range), "fcurves": len(a.fcurves)}
                            for a in bpy.data.actions}
        entry["objects"] = {o.name: {"type": o.type, "parent": o.parent.name if o.parent else ""}
                            for o in bpy.data.objects}
        entry["meshes"] = {o.name: {"vertices": len(o.data.vertices),
                                    "vertex_groups": sorted(g.name for g in o.vertex_groups),
                                    "armatures": sorted(m.object.name for m in o.modifiers
                                                        if m.type == "ARMATURE" and m.object),
                                    "materials": sorted(m.name for m in o.data.materials if m)}
                           for o in bpy.data.objects if o.type == "MESH"}
        entry["materials"] = sorted(m.name for m in bpy.data.materials)
        pose_action = os.environ.get("IKFIX_POSE_ACTION")
        if pose_action:
            frames = [int(f) for f in os.environ.get("IKFIX_POSE_FRAMES", "1").split(",")]
            entry["poses"] = {}
            for action in bpy.data.actions:
                if pose_action not in action.name:
                    continue
                for o in bpy.data.objects:
                    if o.type != "ARMATURE":
                        continue
                    o.animation_data_create().action = action
                    for frame in frames:
                        bpy.context.scene.frame_set(frame)
                        entry["poses"][str(frame)] = {b.name: list(o.matrix_world @ b.head) for b in o.pose.bones}
    except Exception as e:  # report, do not crash: the test prints it
        entry["error"] = str(e)
    result[path] = entry
with open(out_path, "w") as f:
    json.dump(result, f)
