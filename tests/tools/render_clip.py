# Renders one frame of a BVH clip standing on a terrain OBJ, seen from the side, to a PNG, so a
# person can look at a fix (armatures do not render, so each bone is drawn as a tube).
#   blender -b --factory-startup --python tests/tools/render_clip.py -- CLIP.bvh TERRAIN.obj OUT.png FRAME [SCALE]
# SCALE: metres per clip unit (default 0.01: the bundled clip is in centimetres). For a side
# view of wide stairs, make a narrow copy: ikfix terrain stairs --width 0.6 -o narrow.obj
import builtins, sys, math
_open = builtins.open
builtins.open = lambda f, mode='r', *a, **k: _open(f, mode.replace('U', ''), *a, **k)
import bpy
argv = sys.argv[sys.argv.index("--") + 1:]
bvh, obj, out, frame = argv[0], argv[1], argv[2], int(argv[3])
scale = float(argv[4]) if len(argv) > 4 else 0.01
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.obj(filepath=obj, axis_forward='-Z', axis_up='Y')
bpy.ops.import_anim.bvh(filepath=bvh, global_scale=scale, axis_forward='-Z', axis_up='Y', update_scene_duration=True)
arm = [o for o in bpy.context.scene.objects if o.type == 'ARMATURE'][0]
arm.data.display_type = 'STICK'
arm.show_in_front = True
scene = bpy.context.scene
scene.frame_set(frame)
cam_data = bpy.data.cameras.new("cam"); cam = bpy.data.objects.new("cam", cam_data)
scene.collection.objects.link(cam); scene.camera = cam
# Blender is Z up after import; the camera stands 5 m to the side (+X) of the hips, looking at them.
hips = arm.matrix_world @ arm.pose.bones[0].head
cam.location = (hips.x + 5.0, hips.y, hips.z - 0.2); cam.rotation_euler = (math.radians(90), 0, math.radians(90))
cam_data.lens = 50

# Armatures do not render: draw each bone as a tube at this frame.
curve = bpy.data.curves.new("bones", 'CURVE'); curve.dimensions = '3D'; curve.bevel_depth = 0.02
for pb in arm.pose.bones:
    sp = curve.splines.new('POLY'); sp.points.add(1)
    h = arm.matrix_world @ pb.head; t = arm.matrix_world @ pb.tail
    sp.points[0].co = (h.x, h.y, h.z, 1); sp.points[1].co = (t.x, t.y, t.z, 1)
bones_obj = bpy.data.objects.new("bones", curve); scene.collection.objects.link(bones_obj)
scene.render.engine = 'BLENDER_WORKBENCH'
scene.display.shading.show_xray = True
scene.render.resolution_x = 800; scene.render.resolution_y = 450
scene.render.filepath = out
bpy.ops.render.render(write_still=True)
