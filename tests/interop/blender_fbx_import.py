# Imports FBX files into Blender (bpy.ops.import_scene.fbx) and writes what Blender sees as
# JSON: per file, the armatures with their bone names, the actions with their frame range
# and F-curve count, and the meshes with their vertices, vertex groups, armature modifiers and
# materials. Run by tests/interop/fbx_blender_tests.cpp:
#   blender -b --factory-startup --python blender_fbx_import.py -- OUT.json FILE...
import json
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
        # What a character file must keep: meshes with their vertices, skins (vertex groups and
        # armature modifiers) and materials.
        entry["meshes"] = {o.name: {"vertices": len(o.data.vertices),
                                    "vertex_groups": sorted(g.name for g in o.vertex_groups),
                                    "armature_modifiers": sum(1 for m in o.modifiers if m.type == "ARMATURE"),
                                    "materials": sorted(m.name for m in o.data.materials if m)}
                           for o in bpy.data.objects if o.type == "MESH"}
        entry["materials"] = sorted(m.name for m in bpy.data.materials)
    except Exception as e:  # report, do not crash: the test prints it
        entry["error"] = str(e)
    result[path] = entry
with open(out_path, "w") as f:
    json.dump(result, f)
