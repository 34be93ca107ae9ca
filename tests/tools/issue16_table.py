#!/usr/bin/env python3
# Issue 16's table, measured independently in Blender (tests/interop/blender_foot_depth.py), for
# a given ikfix binary, so that "before" and "after" come from the same commands:
#   python3 tests/tools/issue16_table.py IKFIX_BINARY OUTDIR [--shared DIR] [--blender BLENDER]
# Writes the cases' outputs, ikfix's reports and Blender's measures under OUTDIR, prints the
# table (markdown) and writes it to OUTDIR/table.md (and the figures to OUTDIR/table.json).
# The cases, on ../shared/data (found above this checkout, or --shared):
#   a. the CMU walk skeleton FBX (fbx/cmu_07_01_walk_skeleton.fbx) fixed onto data/terrain/slope.obj
#   b. the CMU walk that stops (bvh/cmu_131_01_start_walk_stop_max.bvh, CMU units) fixed onto
#      15 cm stairs (6 steps, 0.3 m treads) whose first riser stands 3 cm ahead of the most forward
#      toe tip of the clip's last frame, along the walk's main horizontal axis
#   c. the CMU dance (fbx/cmu_55_01_dance_whirl_skeleton.fbx) retargeted onto
#      retarget/kenney_rest.fbx, flat ground
#   d. the walk of b fixed onto flat ground: ankle and hips jerk against the input's
# Depths are nearest-surface depths (metres inside the terrain) unless said "vertical".
import argparse
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "tests", "interop", "blender_foot_depth.py")
CMU_UNIT_M = 0.0564444  # 1/0.45 inch
RISER_AHEAD_M = 0.03


def find_shared():
    folder = REPO
    while folder != os.path.dirname(folder):
        candidate = os.path.join(folder, "shared", "data")
        if os.path.isdir(os.path.join(candidate, "anim")):
            return candidate
        folder = os.path.dirname(folder)
    sys.exit("../shared/data not found above %s: give --shared DIR" % REPO)


def run(command, log):
    """Runs a command, its output appended to `log`; exits on failure."""
    with open(log, "a") as f:
        f.write("$ " + " ".join(command) + "\n")
        f.flush()
        code = subprocess.call(command, stdout=f, stderr=subprocess.STDOUT)
    if code != 0:
        sys.exit("failed (exit %d): %s (see %s)" % (code, " ".join(command), log))


def measure(args, clip, terrain, name, scale=None, trajectories=False):
    out = os.path.join(args.outdir, name + ".blender.json")
    command = [args.blender, "-b", "--factory-startup", "--python", SCRIPT, "--", "--clip", clip,
               "--terrain", terrain, "--json", out]
    if scale:
        command += ["--scale", str(scale)]
    if trajectories:
        command.append("--trajectories")
    run(command, os.path.join(args.outdir, "log.txt"))
    with open(out) as f:
        return json.load(f)


def ikfix(args, *words):
    run([args.ikfix] + list(words), os.path.join(args.outdir, "log.txt"))


def ikfix_penetration(report_path):
    """What ikfix's own report says: metrics.after.penetration (first take)."""
    with open(report_path) as f:
        report = json.load(f)
    if "takes" in report and "metrics" not in report:
        report = report["takes"][0]
    after = report.get("metrics", {}).get("after", {})
    pen = after.get("penetration") or report.get("quality", {}).get("penetration") or {}
    return pen.get("max_m")


def cm(metres):
    return "—" if metres is None else "%.1f cm" % (100 * metres)


def depth(metres):
    """A depth (metres, positive inside the terrain) as words."""
    if metres is None:
        return "—"
    return "%.1f cm %s" % (100 * abs(metres), "inside" if metres > 0 else "above")


def toe_tips(measured):
    return [(foot["side"], foot["toe_tip"], measured["points"][foot["toe_tip"]])
            for foot in measured["feet"]]


def case_slope(args, shared):
    clip = os.path.join(shared, "anim", "fbx", "cmu_07_01_walk_skeleton.fbx")
    terrain = os.path.join(REPO, "data", "terrain", "slope.obj")
    out, report = os.path.join(args.outdir, "a_walk_on_slope.fbx"), os.path.join(args.outdir, "a.json")
    ikfix(args, "run", clip, "--terrain", terrain, "-o", out, "--report", report)
    m = measure(args, out, terrain, "a", CMU_UNIT_M)
    tips = "; ".join("%s %s %s at frame %d, %d frames > 1 cm inside" % (
        side, name, depth(p["worst"]["depth_m"]), p["worst"]["frame"], p["frames_deeper_than_1cm"])
        for side, name, p in toe_tips(m))
    w = m["worst"]["any"]
    seen = "deepest %s %s (vertical %s) at frame %d; toe tips: %s; %s of %d frames with a foot point > 1 cm inside" % (
        w["point"], depth(w["depth_m"]), cm(w["vertical_m"]), w["frame"], tips,
        m["frames_deeper_than"]["0.01"], m["frame_count"])
    return {"case": "a. CMU walk skeleton FBX fixed onto the 10° slope", "blender": seen,
            "ikfix": "penetration %s" % cm(ikfix_penetration(report)), "measure": m}


def stairs_for(args, walk_flat):
    """Stairs (OBJ, Y up) whose first riser is RISER_AHEAD_M ahead of where the walk stops:
    the most forward toe tip of the last frame along the main horizontal axis of the hips'
    travel. Blender's Z-up (x, y) is the OBJ's (x, -z)."""
    traj = walk_flat["trajectories"]
    hips = traj[walk_flat["root"] + ":head"]
    dx, dy = hips[-1][0] - hips[0][0], hips[-1][1] - hips[0][1]
    if abs(dx) >= abs(dy):
        axis, sign, coord = ("+x" if dx > 0 else "-x"), (1 if dx > 0 else -1), 0
    else:  # OBJ z = -Blender y
        axis, sign, coord = ("-z" if dy > 0 else "+z"), (1 if dy > 0 else -1), 1
    front = max(sign * traj[f["toe_tip"]][-1][coord] for f in walk_flat["feet"])
    start = front + RISER_AHEAD_M
    path = os.path.join(args.outdir, "b_stairs.obj")
    ikfix(args, "terrain", "stairs", "--step-height", "0.15", "--step-depth", "0.3", "--steps", "6",
          "--axis", axis, "--start", "%.4f" % start, "-o", path)
    return path, axis, start


def case_stairs(args, shared, walk_flat):
    clip = os.path.join(shared, "anim", "bvh", "cmu_131_01_start_walk_stop_max.bvh")
    terrain, axis, start = stairs_for(args, walk_flat)
    out, report = os.path.join(args.outdir, "b_walk_stop_at_stairs.bvh"), os.path.join(args.outdir, "b.json")
    ikfix(args, "run", clip, "--terrain", terrain, "-o", out, "--report", report)
    m = measure(args, out, terrain, "b", CMU_UNIT_M)
    w = m["worst"]["any"]
    frames = m["frames_deeper_than"]["0.01"]
    longest = max((p["worst_vertical"]["vertical_m"] for p in m["points"].values()
                   if p["kind"] != "display_tail" and p["worst_vertical"]), default=None)
    seen = ("%d of %d frames (%.2f s) with a foot point > 1 cm inside; deepest %s %s "
            "(vertical %s) at frame %d; deepest below a tread (vertical) %s" % (
                frames, m["frame_count"], frames / m["fps"], w["point"], depth(w["depth_m"]),
                cm(w["vertical_m"]), w["frame"], cm(longest)))
    return {"case": "b. CMU walk (BVH, 3ds Max names) stopping at 15 cm stairs (6 steps, first "
            "riser %.3f m along %s, 3 cm ahead of the stop)" % (start, axis), "blender": seen,
            "ikfix": "penetration %s" % cm(ikfix_penetration(report)), "measure": m}


def case_retarget(args, shared):
    clip = os.path.join(shared, "anim", "fbx", "cmu_55_01_dance_whirl_skeleton.fbx")
    target = os.path.join(shared, "retarget", "kenney_rest.fbx")
    terrain = os.path.join(REPO, "data", "terrain", "flat.obj")
    out, report = os.path.join(args.outdir, "c_dance_on_kenney.fbx"), os.path.join(args.outdir, "c.json")
    ikfix(args, "retarget", clip, "--to", target, "--terrain", terrain, "-o", out, "--report", report)
    m = measure(args, out, terrain, "c", 1.0)
    parts = []
    for side, name, p in toe_tips(m):
        parts.append("%s toe tip (%s) median %s, worst %s at frame %d, %d frames > 1 cm inside" % (
            side, name, depth(p["median_depth_m"]), depth(p["worst"]["depth_m"]),
            p["worst"]["frame"], p["frames_deeper_than_1cm"]))
    others = [(n, p) for n, p in m["points"].items()
              if p["kind"] == "head" and n not in {t for _, t, _ in toe_tips(m)}]
    worst_other = max(others, key=lambda np: np[1]["worst"]["depth_m"])
    parts.append("deepest other joint %s %s" % (worst_other[0],
                                               depth(worst_other[1]["worst"]["depth_m"])))
    seen = "; ".join(parts) + " (of %d frames)" % m["frame_count"]
    return {"case": "c. CMU dance (FBX) retargeted onto kenney_rest.fbx, flat ground",
            "blender": seen, "ikfix": "penetration %s" % cm(ikfix_penetration(report)),
            "measure": m}


def ankle_held(walk_in, walk_out):
    """Largest distance (m) between an output ankle and the input's, same frame, and where."""
    worst = (0.0, "", -1)
    for foot in walk_in["feet"]:
        name = foot["bone"] + ":head"
        for i, (a, b) in enumerate(zip(walk_in["trajectories"][name], walk_out["trajectories"][name])):
            d = sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5
            worst = max(worst, (d, foot["side"], i))
    return worst


def case_jerk(args, shared, walk_in):
    clip = os.path.join(shared, "anim", "bvh", "cmu_131_01_start_walk_stop_max.bvh")
    terrain = os.path.join(REPO, "data", "terrain", "flat.obj")
    out, report = os.path.join(args.outdir, "d_walk_on_flat.bvh"), os.path.join(args.outdir, "d.json")
    ikfix(args, "run", clip, "--terrain", terrain, "-o", out, "--report", report)
    m = measure(args, out, terrain, "d", CMU_UNIT_M, trajectories=True)
    parts = []
    for before, after in zip(walk_in["feet"], m["feet"]):
        jb, ja = before["ankle_jerk"], after["ankle_jerk"]
        parts.append("%s ankle mean %.2fx the input's (%.0f vs %.0f m/s³), largest %.0f m/s³ at "
                     "frame %d = %.2fx the input's largest (%.0f)" % (
                         after["side"], ja["mean_mps3"] / jb["mean_mps3"], ja["mean_mps3"],
                         jb["mean_mps3"], ja["max_mps3"], ja["frame"],
                         ja["max_mps3"] / jb["max_mps3"], jb["max_mps3"]))
    rb, ra = walk_in["root_jerk"], m["root_jerk"]
    parts.append("hips mean %.2fx, largest %.2fx the input's" % (
        ra["mean_mps3"] / rb["mean_mps3"], ra["max_mps3"] / rb["max_mps3"]))
    held = ankle_held(walk_in, m)
    parts.append("%s ankle held up to %s from the input's (frame %d)" % (held[1], cm(held[0]), held[2]))
    return {"case": "d. the walk of b fixed onto flat ground: ankle jerk (third difference x fps³)",
            "blender": "; ".join(parts), "ikfix": "—", "measure": m}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("ikfix")
    parser.add_argument("outdir")
    parser.add_argument("--shared")
    parser.add_argument("--blender", default="blender")
    args = parser.parse_args()
    args.ikfix = os.path.abspath(args.ikfix)
    os.makedirs(args.outdir, exist_ok=True)
    open(os.path.join(args.outdir, "log.txt"), "w").close()
    shared = args.shared or find_shared()
    walk = os.path.join(shared, "anim", "bvh", "cmu_131_01_start_walk_stop_max.bvh")
    walk_flat = measure(args, walk, os.path.join(REPO, "data", "terrain", "flat.obj"), "walk_input",
                        CMU_UNIT_M, trajectories=True)
    rows = [case_slope(args, shared), case_stairs(args, shared, walk_flat),
            case_retarget(args, shared), case_jerk(args, shared, walk_flat)]
    version = subprocess.run([args.ikfix, "--version"], capture_output=True, text=True).stdout.strip()
    lines = ["Issue 16's table, measured in Blender (tests/interop/blender_foot_depth.py) on the "
             "outputs of %s (%s)" % (args.ikfix, version), "",
             "| case | what Blender measures | what ikfix's report says |", "|---|---|---|"]
    lines += ["| %s | %s | %s |" % (r["case"], r["blender"], r["ikfix"]) for r in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(args.outdir, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.outdir, "table.json"), "w") as f:
        json.dump({"ikfix": args.ikfix, "version": version,
                   "rows": [{k: v for k, v in r.items() if k != "measure"} for r in rows]}, f, indent=1)


if __name__ == "__main__":
    main()
