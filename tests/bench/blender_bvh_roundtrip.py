# Blender 3.4's BVH importer opens files with mode 'rU', which Python 3.11 rejects: strip the U.
import builtins, sys
_open = builtins.open
def _compat_open(file, mode='r', *args, **kwargs):
    return _open(file, mode.replace('U', ''), *args, **kwargs)
builtins.open = _compat_open
import bpy
argv = sys.argv[sys.argv.index("--") + 1:]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_anim.bvh(filepath=argv[0], update_scene_duration=True)
arm = [o for o in bpy.context.scene.objects if o.type == 'ARMATURE'][0]
bpy.context.view_layer.objects.active = arm
arm.select_set(True)
r = bpy.ops.export_anim.bvh(filepath=argv[1], frame_start=bpy.context.scene.frame_start, frame_end=bpy.context.scene.frame_end)
print("EXPORT", r)
