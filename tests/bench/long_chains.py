#!/usr/bin/env python3
"""Retargeting between chains of different lengths (issue 19 item 4: per-joint passes).

Writes two BVH bipeds (legs, two arms at the chest, a neck of N joints, a head; 2 frames) whose
necks differ by one joint, so the bone map pairs the two necks by height
(core/retarget/chain_pairing), and times `ikfix -q retarget SRC --to TGT -o OUT --max-joints
1000000` for each N: wall and user seconds, peak resident memory (/usr/bin/time).

usage: tests/bench/long_chains.py [path/to/ikfix] [N ...]   (default build/ikfix, 1000 3000 10000)
"""
import os
import subprocess
import sys
import tempfile

ROT = "CHANNELS 3 Zrotation Yrotation Xrotation"


def joint(name, offset):
    return [f"JOINT {name}", "{", f"OFFSET {offset}", ROT]


def biped_with_neck(n, prefix):
    out = ["HIERARCHY", "ROOT Hips", "{", "OFFSET 0 0 0",
           "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"]
    for side, x in (("Left", 10), ("Right", -10)):
        for name, offset in (("UpLeg", f"{x} -5 0"), ("Leg", "0 -45 0"), ("Foot", "0 -42 0"),
                             ("ToeBase", "0 -5 12")):
            out += joint(side + name, offset)
        out += ["End Site", "{", "OFFSET 0 0 5", "}"] + ["}"] * 4
    out += joint("Spine", "0 20 0") + joint("Chest", "0 20 0")
    for side, x in (("Left", 1), ("Right", -1)):
        for name, offset in (("Arm", f"{15 * x} 0 0"), ("ForeArm", f"{25 * x} 0 0"),
                             ("Hand", f"{25 * x} 0 0")):
            out += joint(side + name, offset)
        out += ["End Site", "{", f"OFFSET {8 * x} 0 0", "}"] + ["}"] * 3
    for i in range(n):
        out += joint(f"{prefix}{i}", f"0 {20.0 / n:.6f} 0")
    out += joint("Head", "0 5 0") + ["End Site", "{", "OFFSET 0 10 0", "}", "}"]
    out += ["}"] * n + ["}", "}", "}"]
    channels = 6 + 3 * (8 + 2 + 6 + n + 1)
    out += ["MOTION", "Frames: 2", "Frame Time: 0.0333333"]
    for f in range(2):
        out.append(" ".join(["0", str(92 + f), "0"] + ["0"] * (channels - 3)))
    return "\n".join(out) + "\n"


def main():
    ikfix = sys.argv[1] if len(sys.argv) > 1 else "build/ikfix"
    sizes = [int(a) for a in sys.argv[2:]] or [1000, 3000, 10000]
    with tempfile.TemporaryDirectory() as tmp:
        print("| neck joints (source / target) | wall | user | peak RSS | exit |")
        print("|---|---|---|---|---|")
        for n in sizes:
            src, tgt = os.path.join(tmp, "src.bvh"), os.path.join(tmp, "tgt.bvh")
            with open(src, "w") as f:
                f.write(biped_with_neck(n, "Neck"))
            with open(tgt, "w") as f:
                f.write(biped_with_neck(n - 1, "Nk"))
            r = subprocess.run(["/usr/bin/time", "-f", "%e %U %M", ikfix, "-q", "retarget", src,
                                "--to", tgt, "-o", os.path.join(tmp, "out.bvh"),
                                "--max-joints", "1000000"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            wall, user, kb = r.stderr.strip().splitlines()[-1].split()
            print(f"| {n:,} / {n - 1:,} | {wall} s | {user} s | {int(kb) // 1024} MB | "
                  f"{r.returncode} |")


if __name__ == "__main__":
    main()
