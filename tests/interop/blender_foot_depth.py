# An independent measure of how deep a clip's feet go into a terrain, made entirely by Blender:
# Blender's own importers open the clip (BVH, FBX, glTF/GLB) and the terrain (OBJ), Blender
# evaluates every frame, and mathutils.bvhtree answers the terrain queries. It shares no code
# (and no rule) with ikfix: feet are found here by names and shapes of its own.
#
#   blender -b --factory-startup --python tests/interop/blender_foot_depth.py -- \
#       --clip OUT.bvh|fbx|glb|gltf --terrain T.obj [--json OUT.json] [--scale M] [--action NAME]
#       [--trajectories]
#
# --scale M: metres per unit of the clip as Blender imports it (a BVH's own unit; an FBX's after
#   Blender applied its UnitScaleFactor). Default: guessed from the height of the first frame's
#   pose (see guess_scale); the guess and its reason go in the JSON.
# --action NAME: the action (take, animation) whose name contains NAME; default: the one the
#   importer assigned, else the longest.
# --trajectories: also write, per frame, the world position (metres, Z up) of each foot's top
#   bone head (its ankle), each foot's toe tip and the armature's root bone head.
#
# What is measured, every frame of the action (Blender frames start..end; JSON frames are 0-based
# from the action's first frame):
# - Foot points: every foot bone's head, and its tail where the tail is a point of the file (BVH:
#   the End Site, or the child's head). FBX and glTF bone tails are Blender's display choice (a
#   length along the bone's Y axis), so they are measured but kept apart as `display_tail` and
#   not judged.
# - Sole: for a skinned mesh (Armature modifier on our armature), the evaluated mesh's vertices
#   whose weights on the foot bones sum to 0.5 or more.
# A foot is a bone whose name says foot/ankle (foot, ankle, pied) or, failing that, toe/ball
# (toe, ball, orteil), with two or more ancestors that are not foot bones, and not a control
# (ik, ctrl, control, roll, pole, target, effector, helper), with every bone below it. Without
# such names: the lowest bones of each leaf chain (rest-pose heads within 15 % of the rest height
# above the lowest head), from the lowest chains up.
#
# Depths are metres, positive inside the terrain. A point is inside when it is below the topmost
# surface at its (x, y) (Blender's Z up): a ray cast straight down from above the terrain finds
# that surface. vertical depth = that surface's z minus the point's z; nearest depth = the
# distance to the nearest surface point (find_nearest), positive when inside, negative (the
# clearance) when not. A point is planted on a frame when it is inside or within 2 cm above the
# surface (nearest) and moving slower than 0.2 m/s (central difference of its world position).
#
# Jerk: for each foot's top bone head (the ankle) and the root bone head, the magnitude of the
# third difference of the world position times fps^3 (m/s^3) on frames 2..n-2: mean, largest
# and its frame.
import argparse
import builtins
import json
import math
import re
import statistics
import sys

import bpy
from mathutils import Matrix, Vector
from mathutils.bvhtree import BVHTree

# Blender 3.4's BVH importer opens files with mode 'rU', which Python 3.11 rejects: strip the U.
_open = builtins.open


def _compat_open(file, mode="r", *args, **kwargs):
    return _open(file, mode.replace("U", ""), *args, **kwargs)


builtins.open = _compat_open
# Blender 3.4's glTF importer uses numpy.bool, removed in numpy 1.24 (Debian 12's).
try:
    import numpy

    if "bool" not in vars(numpy):
        numpy.bool = bool
except ImportError:
    pass

PLANTED_CLEARANCE_M = 0.02
PLANTED_SPEED_MPS = 0.2
SOLE_WEIGHT = 0.5
LEAF_CHAIN_HEIGHT = 0.15
FOOT_WORDS = re.compile(r"foot|ankle|pied", re.I)
TOE_WORDS = re.compile(r"toe|ball|orteil", re.I)
CONTROL_WORDS = re.compile(r"ik|ctrl|control|roll|pole|target|effector|helper", re.I)
JUDGED_KINDS = ("head", "end_site", "tail", "sole")


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser(prog="blender_foot_depth.py")
    parser.add_argument("--clip", required=True)
    parser.add_argument("--terrain", required=True)
    parser.add_argument("--json")
    parser.add_argument("--scale", type=float)
    parser.add_argument("--action")
    parser.add_argument("--trajectories", action="store_true")
    return parser.parse_args(argv)


def import_clip(path):
    """Imports the clip with Blender's importer for its extension; returns the new objects."""
    before = set(bpy.data.objects)
    lower = path.lower()
    if lower.endswith(".bvh"):
        bpy.ops.import_anim.bvh(filepath=path, update_scene_fps=True, update_scene_duration=True)
    elif lower.endswith(".fbx"):
        bpy.ops.import_scene.fbx(filepath=path)
    elif lower.endswith(".glb") or lower.endswith(".gltf"):
        bpy.ops.import_scene.gltf(filepath=path)
    else:
        raise SystemExit("unknown clip format: " + path)
    return [o for o in bpy.data.objects if o not in before]


def import_terrain(path):
    """The terrain OBJ (Y up, as every clip importer assumes) as a world-space BVHTree."""
    before = set(bpy.data.objects)
    if hasattr(bpy.ops.wm, "obj_import"):
        bpy.ops.wm.obj_import(filepath=path, forward_axis="NEGATIVE_Z", up_axis="Y")
    else:
        bpy.ops.import_scene.obj(filepath=path, axis_forward="-Z", axis_up="Y")
    verts, polys, top = [], [], -math.inf
    for obj in bpy.data.objects:
        if obj in before or obj.type != "MESH":
            continue
        base = len(verts)
        for v in obj.data.vertices:
            p = obj.matrix_world @ v.co
            verts.append(p)
            top = max(top, p.z)
        polys.extend([base + i for i in poly.vertices] for poly in obj.data.polygons)
        obj.hide_render = True
    if not polys:
        raise SystemExit("terrain has no faces: " + path)
    return BVHTree.FromPolygons(verts, polys), top


def pick_armature(objects):
    arms = [o for o in objects if o.type == "ARMATURE"]
    if not arms:
        raise SystemExit("no armature in the clip")
    return max(arms, key=lambda o: len(o.data.bones))


def pick_action(arm, wanted):
    """The action to evaluate, assigned to the armature."""
    actions = list(bpy.data.actions)
    if wanted:
        actions = [a for a in actions if wanted in a.name]
        if not actions:
            raise SystemExit("no action named like " + wanted)
    elif arm.animation_data and arm.animation_data.action:
        return arm.animation_data.action
    if not actions:
        raise SystemExit("the clip has no action")
    action = max(actions, key=lambda a: a.frame_range[1] - a.frame_range[0])
    arm.animation_data_create().action = action
    return action


def apply_scale(objects, scale):
    """Parents the clip's top objects to an empty scaled about the origin: Blender units become
    metres. (An FBX action may key the armature object's own transform, so the scale cannot go
    on the armature itself.)"""
    units = bpy.data.objects.new("clip_units", None)
    bpy.context.scene.collection.objects.link(units)
    units.scale = (scale, scale, scale)
    for obj in objects:
        if obj.parent is None:
            obj.parent = units
            obj.matrix_parent_inverse = Matrix.Identity(4)


def guess_scale(arm, first_frame):
    """Metres per unit from the standing height of the first frame's pose (every bone head and
    tail): a person is 0.3-6 m tall in metres (Kenney's character is 3.7 m, the barbarian
    5 m), 12-40 CMU units (0.0564444 m), 60-110 inches, 110-600 cm."""
    bpy.context.scene.frame_set(first_frame)
    zs = [z for b in arm.pose.bones for z in ((arm.matrix_world @ b.head).z,
                                              (arm.matrix_world @ b.tail).z)]
    height = max(zs) - min(zs)
    for low, high, scale, name in ((0.3, 6.0, 1.0, "m"), (12.0, 40.0, 0.0564444, "CMU units"),
                                   (60.0, 110.0, 0.0254, "inches"), (110.0, 600.0, 0.01, "cm")):
        if low <= height < high:
            return scale, "guessed: pose height %.3f units, so %s" % (height, name)
    return 1.0, "guessed: pose height %.3f units fits no unit; taken as metres" % height


def ancestors(bone):
    out = []
    while bone.parent:
        bone = bone.parent
        out.append(bone)
    return out


def subtree(bone):
    out = [bone]
    for child in bone.children:
        out.extend(subtree(child))
    return out


def feet_by_name(arm, words):
    """Top-most bones named by `words` that hang below two non-foot bones and are no controls."""
    feet = []
    for bone in arm.data.bones:
        if not words.search(bone.name) or CONTROL_WORDS.search(bone.name):
            continue
        ups = ancestors(bone)
        if any(words.search(a.name) for a in ups):
            continue  # a lower bone of a foot already found
        legs = [a for a in ups if not FOOT_WORDS.search(a.name) and not TOE_WORDS.search(a.name)]
        if len(legs) >= 2 and not any(CONTROL_WORDS.search(a.name) for a in ups[:2]):
            feet.append(bone)
    return feet


def feet_by_leaf_chains(arm):
    """The top bone of each leaf chain's run of bones whose rest heads are low."""
    heads = {b.name: (arm.matrix_world @ b.head_local).z for b in arm.data.bones}
    lowest, highest = min(heads.values()), max(heads.values())
    limit = lowest + LEAF_CHAIN_HEIGHT * (highest - lowest)
    feet = []
    for leaf in (b for b in arm.data.bones if not b.children):
        if heads[leaf.name] > limit:
            continue
        top = leaf
        while top.parent and heads[top.parent.name] <= limit:
            top = top.parent
        if top not in feet and top.parent is not None:
            feet.append(top)
    return feet


def side_of(arm, bone):
    """left/right from the name (Left, L, l-prefix as SL's lFoot), else from the rest x."""
    name = bone.name
    for side, word, letter in (("left", "left", "l"), ("right", "right", "r")):
        if re.search(word, name, re.I) or re.search(r"(^|[^a-zA-Z])%s($|[^a-zA-Z])" % letter,
                                                    name, re.I) or re.match(letter + "[A-Z]", name):
            return side
    return "left" if (arm.matrix_world @ bone.head_local).x > 0 else "right"


def find_feet(arm):
    for words, method in ((FOOT_WORDS, "names: foot/ankle"), (TOE_WORDS, "names: toe/ball")):
        feet = feet_by_name(arm, words)
        if len(feet) >= 2:
            break
    else:
        feet, method = feet_by_leaf_chains(arm), "leaf chains"
    if not feet:
        raise SystemExit("no foot bones found")
    return [{"bone": f.name, "side": side_of(arm, f), "method": method,
             "bones": [b.name for b in subtree(f)]} for f in feet]


def foot_points(arm, feet, is_bvh):
    """(point name, bone name, 'head'|'tail', kind, foot index) for every foot point."""
    points = []
    for index, foot in enumerate(feet):
        for name in foot["bones"]:
            bone = arm.data.bones[name]
            points.append((name + ":head", name, "head", "head", index))
            if not is_bvh:
                kind = "display_tail"
            else:
                kind = "tail" if bone.children else "end_site"
            points.append((name + ":tail", name, "tail", kind, index))
    return points


def toe_tip(arm, foot, is_bvh):
    """The point at the end of the foot's longest chain: a BVH leaf's End Site, else the leaf's
    head (an FBX/glTF `*_end` bone is the toe tip itself)."""
    leaf = max((arm.data.bones[n] for n in foot["bones"]), key=lambda b: len(ancestors(b)))
    return leaf.name + (":tail" if is_bvh else ":head")


def sole_vertices(arm, objects, feet):
    """Per skinned mesh: the vertex indices mostly weighted to foot bones, and their foot."""
    soles = []
    foot_of_bone = {n: i for i, f in enumerate(feet) for n in f["bones"]}
    for obj in objects:
        if obj.type != "MESH":
            continue
        if not any(m.type == "ARMATURE" and m.object == arm for m in obj.modifiers):
            continue
        group_foot = {g.index: foot_of_bone[g.name] for g in obj.vertex_groups
                      if g.name in foot_of_bone}
        chosen = []
        for v in obj.data.vertices:
            weights = {}
            for g in v.groups:
                if g.group in group_foot:
                    weights[group_foot[g.group]] = weights.get(group_foot[g.group], 0) + g.weight
            if weights and sum(weights.values()) >= SOLE_WEIGHT:
                chosen.append((v.index, max(weights, key=weights.get)))
        if chosen:
            soles.append((obj, chosen))
    return soles


def sample(arm, action, points, soles, extra_heads):
    """World positions per frame: points, sole vertices (list per mesh), extra bone heads."""
    scene = bpy.context.scene
    start, end = int(round(action.frame_range[0])), int(round(action.frame_range[1]))
    frames = []
    for frame in range(start, end + 1):
        scene.frame_set(frame)
        mw = arm.matrix_world
        pts = {}
        for name, bone, end_name, _, _ in points:
            pb = arm.pose.bones[bone]
            pts[name] = (mw @ (pb.head if end_name == "head" else pb.tail)).copy()
        heads = {n: (mw @ arm.pose.bones[n].head).copy() for n in extra_heads}
        verts = []
        depsgraph = bpy.context.evaluated_depsgraph_get()
        for obj, chosen in soles:
            evaluated = obj.evaluated_get(depsgraph)
            mesh = evaluated.to_mesh()
            ow = evaluated.matrix_world
            if len(mesh.vertices) == len(obj.data.vertices):
                verts.append([(ow @ mesh.vertices[i].co).copy() for i, _ in chosen])
            else:
                verts.append([])
            evaluated.to_mesh_clear()
        frames.append((pts, verts, heads))
    return start, end, frames


def depths(tree, top, p):
    """(vertical depth or None where no terrain is under p, nearest depth); metres, + inside."""
    hit = tree.ray_cast(Vector((p.x, p.y, top + 1.0)), Vector((0.0, 0.0, -1.0)))
    nearest = tree.find_nearest(p)
    distance = nearest[3] if nearest[0] is not None else math.inf
    if hit[0] is None:
        return None, -distance
    vertical = hit[0].z - p.z
    return vertical, (distance if vertical > 0 else -distance)


def speeds(track, fps):
    """Central-difference speed (m/s) per frame of a list of positions (one-sided at the ends)."""
    n = len(track)
    out = []
    for i in range(n):
        a, b = track[max(i - 1, 0)], track[min(i + 1, n - 1)]
        steps = min(i + 1, n - 1) - max(i - 1, 0)
        out.append((b - a).length * fps / steps if steps else 0.0)
    return out


def jerk(track, fps):
    """|third difference| * fps^3 (m/s^3) on frames 2..n-2 of a track of positions."""
    values = []
    for i in range(2, len(track) - 1):
        d = track[i + 1] - 3 * track[i] + 3 * track[i - 1] - track[i - 2]
        values.append((i, d.length * fps ** 3))
    if not values:
        return None
    worst = max(values, key=lambda v: v[1])
    return {"mean_mps3": statistics.fmean(v for _, v in values), "max_mps3": worst[1],
            "frame": worst[0]}


def measure_track(tree, top, track, fps):
    """Per frame: (vertical depth, nearest depth, planted) of one point's positions."""
    out = []
    for p, speed in zip(track, speeds(track, fps)):
        vertical, nearest = depths(tree, top, p)
        out.append((vertical, nearest, nearest >= -PLANTED_CLEARANCE_M and speed < PLANTED_SPEED_MPS))
    return out


def worst_of(samples, planted_only=False):
    """The deepest (nearest depth) of (frame, label, vertical, nearest, planted) samples."""
    pool = [s for s in samples if s[4] or not planted_only]
    if not pool:
        return None
    s = max(pool, key=lambda s: s[3])
    return {"depth_m": round(s[3], 6), "vertical_m": None if s[2] is None else round(s[2], 6),
            "frame": s[0], "point": s[1]}


def summarize(samples, kind, foot):
    """A point's (or a foot's sole's) figures from its samples."""
    nearest = [s[3] for s in samples]
    vertical = [s[2] for s in samples if s[2] is not None]
    deepest_vertical = max((s for s in samples if s[2] is not None), key=lambda s: s[2],
                           default=None)
    return {
        "kind": kind, "foot": foot, "worst": worst_of(samples),
        "worst_planted": worst_of(samples, True),
        "worst_vertical": None if deepest_vertical is None else
        {"vertical_m": round(deepest_vertical[2], 6), "frame": deepest_vertical[0],
         "point": deepest_vertical[1]},
        "median_depth_m": round(statistics.median(nearest), 6),
        "median_vertical_m": round(statistics.median(vertical), 6) if vertical else None,
        "frames_deeper_than_1cm": len({s[0] for s in samples if s[3] > 0.01}),
        "planted_frames": len({s[0] for s in samples if s[4]}),
    }


def measure(tree, top, frames, points, soles, feet, fps):
    """Every point's and sole's figures, plus the samples of the judged kinds."""
    results, judged, by_kind = {}, [], {}
    for name, _, _, kind, foot in points:
        track = [f[0][name] for f in frames]
        samples = [(i, name, v, n, p) for i, (v, n, p) in
                   enumerate(measure_track(tree, top, track, fps))]
        results[name] = summarize(samples, kind, feet[foot]["bone"])
        by_kind.setdefault(kind, []).extend(samples)
        if kind in JUDGED_KINDS:
            judged.extend(samples)
    for mesh_index, (obj, chosen) in enumerate(soles):
        per_foot = {}
        for k, (vertex, foot) in enumerate(chosen):
            track = [f[1][mesh_index][k] for f in frames if f[1][mesh_index]]
            label = "%s:vertex %d" % (obj.name, vertex)
            per_foot.setdefault(foot, []).extend(
                (i, label, v, n, p) for i, (v, n, p) in enumerate(measure_track(tree, top, track, fps)))
        for foot, samples in per_foot.items():
            results["sole:%s:%s" % (obj.name, feet[foot]["bone"])] = summarize(
                samples, "sole", feet[foot]["bone"])
            by_kind.setdefault("sole", []).extend(samples)
            judged.extend(samples)
    return results, judged, by_kind


def frames_deeper(judged, limits=(0.002, 0.005, 0.01)):
    return {"%g" % limit: len({s[0] for s in judged if s[3] > limit}) for limit in limits}


def main():
    args = parse_args()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    tree, top = import_terrain(args.terrain)
    objects = import_clip(args.clip)
    arm = pick_armature(objects)
    action = pick_action(arm, args.action)
    is_bvh = args.clip.lower().endswith(".bvh")
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    if args.scale:
        scale, unit = args.scale, "given"
    else:
        scale, unit = guess_scale(arm, int(round(action.frame_range[0])))
    apply_scale(objects, scale)
    feet = find_feet(arm)
    points = foot_points(arm, feet, is_bvh)
    soles = sole_vertices(arm, objects, feet)
    root = next(b.name for b in arm.data.bones if b.parent is None and
                any(f["bone"] in (c.name for c in b.children_recursive) for f in feet))
    start, end, frames = sample(arm, action, points, soles, [root] + [f["bone"] for f in feet])
    results, judged, by_kind = measure(tree, top, frames, points, soles, feet, fps)
    for foot in feet:
        foot["toe_tip"] = toe_tip(arm, foot, is_bvh)
        foot["ankle_jerk"] = jerk([f[2][foot["bone"]] for f in frames], fps)
    report = {
        "clip": args.clip, "terrain": args.terrain, "armature": arm.name, "action": action.name,
        "fps": fps, "blender_frames": [start, end], "frame_count": len(frames),
        "unit": {"metres_per_unit": scale, "source": unit},
        "planted": {"clearance_m": PLANTED_CLEARANCE_M, "speed_mps": PLANTED_SPEED_MPS},
        "feet": feet, "root": root, "root_jerk": jerk([f[2][root] for f in frames], fps),
        "sole_vertices": sum(len(c) for _, c in soles),
        "worst": {"any": worst_of(judged), "planted": worst_of(judged, True)},
        "worst_by_kind": {k: {"any": worst_of(s), "planted": worst_of(s, True)}
                          for k, s in by_kind.items()},
        "frames_deeper_than": frames_deeper(judged),
        "points": results,
    }
    if args.trajectories:
        names = [root] + [f["bone"] for f in feet]
        report["trajectories"] = {n + ":head": [[round(c, 5) for c in f[2][n]] for f in frames]
                                  for n in names}
        for foot in feet:
            report["trajectories"][foot["toe_tip"]] = [
                [round(c, 5) for c in f[0][foot["toe_tip"]]] for f in frames]
    print_summary(report)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


def describe(w):
    if w is None:
        return "none"
    vertical = "" if w["vertical_m"] is None else ", vertical %.4f" % w["vertical_m"]
    return "%.4f m (nearest%s) at frame %d, %s" % (w["depth_m"], vertical, w["frame"], w["point"])


def print_summary(report):
    print("foot depth: %s on %s, %d frames at %g fps, unit %g m (%s)" % (
        report["clip"], report["terrain"], report["frame_count"], report["fps"],
        report["unit"]["metres_per_unit"], report["unit"]["source"]))
    for foot in report["feet"]:
        print("  foot %s (%s, %s): %s" % (foot["bone"], foot["side"], foot["method"],
                                         " ".join(foot["bones"])))
    for kind, w in sorted(report["worst_by_kind"].items()):
        judged = "" if kind in JUDGED_KINDS else " (not judged)"
        print("  worst %s%s: any %s; planted %s" % (kind, judged, describe(w["any"]),
                                                    describe(w["planted"])))
    print("  worst judged: any %s; planted %s" % (describe(report["worst"]["any"]),
                                                  describe(report["worst"]["planted"])))
    print("  frames with a judged point deeper than 2 mm / 5 mm / 1 cm: %s" % " / ".join(
        str(v) for v in report["frames_deeper_than"].values()))


main()
