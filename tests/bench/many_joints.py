#!/usr/bin/env python3
"""Leg detection and reading on skeletons of many joints (issue 19 row 6).

Writes BVH files (a named biped plus N extra joints: siblings under the root, or one chain
hanging from the root; 2 frames) into a temp folder and times `ikfix inspect FILE --max-joints
1000000` on each: wall seconds and peak resident memory (/usr/bin/time). Then the default
--max-joints on the 30,000-sibling file (refused).

usage: tests/bench/many_joints.py [path/to/ikfix] [N ...]   (default build/ikfix, 10^4 3*10^4 10^5)
"""
import os
import subprocess
import sys
import tempfile


def biped_with(n, nested):
    out = ["HIERARCHY", "ROOT Hips", "{", "OFFSET 0 0 0",
           "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"]
    for side, x in (("Left", 10), ("Right", -10)):
        for name, offset in (("UpLeg", f"{x} -5 0"), ("Leg", "0 -45 0"), ("Foot", "0 -42 0"),
                             ("ToeBase", "0 -5 12")):
            out += [f"JOINT {side}{name}", "{", f"OFFSET {offset}",
                    "CHANNELS 3 Zrotation Yrotation Xrotation"]
        out += ["End Site", "{", "OFFSET 0 0 5", "}"] + ["}"] * 4
    for i in range(n):
        out += [f"JOINT X{i}", "{", "OFFSET 0 0.001 0" if nested else "OFFSET 0 10 0",
                "CHANNELS 3 Zrotation Yrotation Xrotation"]
        if not nested:
            out += ["End Site", "{", "OFFSET 0 5 0", "}", "}"]
    if nested:
        out += ["End Site", "{", "OFFSET 0 0.001 0", "}"] + ["}"] * n
    channels = 6 + 8 * 3 + 3 * n
    out += ["}", "MOTION", "Frames: 2", "Frame Time: 0.0333333"]
    for f in range(2):
        out.append(" ".join(["0", str(92 + f), "0"] + ["0"] * (channels - 3)))
    return "\n".join(out) + "\n"


def timed(cmd):
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    seconds, kb = r.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kb) // 1024, r.returncode


def main():
    ikfix = sys.argv[1] if len(sys.argv) > 1 else "build/ikfix"
    sizes = [int(a) for a in sys.argv[2:]] or [10000, 30000, 100000]
    with tempfile.TemporaryDirectory() as tmp:
        print("| joints | layout | inspect wall | peak RSS | exit |\n|---|---|---|---|---|")
        for n in sizes:
            for nested in (False, True):
                path = os.path.join(tmp, f"{n}_{nested}.bvh")
                with open(path, "w") as f:
                    f.write(biped_with(n, nested))
                s, mb, rc = timed([ikfix, "inspect", path, "--max-joints", "1000000"])
                layout = "one chain" if nested else "siblings"
                print(f"| {n + 9:,} | {layout} | {s:.2f} s | {mb} MB | {rc} |")
        path = os.path.join(tmp, "default.bvh")
        with open(path, "w") as f:
            f.write(biped_with(30000, False))
        s, mb, rc = timed([ikfix, "inspect", path])
        print(f"\n30,009 siblings, default --max-joints: {s:.2f} s, {mb} MB, exit {rc}")


if __name__ == "__main__":
    main()
