#!/usr/bin/env python3
"""Times several commands in alternation, so a change in the machine's load hits them all alike.

    tests/bench/alternate.py ROUNDS NAME='COMMAND ARGS' [NAME='COMMAND ARGS' ...]

Each round runs every command once (the order rotates each round; two warm-up rounds are not
counted). Wall time from the parent's clock, CPU time (user + system) from wait4. Prints the
median and mean of both per command. A command that exits non-zero stops the run.
"""
import os
import shlex
import statistics
import sys
import time


def main() -> None:
    rounds = int(sys.argv[1])
    commands = [(arg.split("=", 1)[0], shlex.split(arg.split("=", 1)[1])) for arg in sys.argv[2:]]
    # posix_spawn (glibc: a vfork-style clone) instead of fork + exec: a forked copy of this
    # interpreter costs ~7 ms on the build VM (its page tables copied, then written to), which
    # fork charged to every command's wall and CPU time alike and so shrank every ratio.
    quiet = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
             (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    wall = {name: [] for name, _ in commands}
    cpu = {name: [] for name, _ in commands}
    for r in range(rounds + 2):
        shift = r % len(commands)
        for name, argv in commands[shift:] + commands[:shift]:
            start = time.perf_counter()
            pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=quiet)
            _, status, usage = os.wait4(pid, 0)
            elapsed = time.perf_counter() - start
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"{name} failed: {shlex.join(argv)}")
            if r >= 2:
                wall[name].append(elapsed * 1e3)
                cpu[name].append((usage.ru_utime + usage.ru_stime) * 1e3)
    for name, _ in commands:
        w, c = wall[name], cpu[name]
        print(f"{name:16s} wall median {statistics.median(w):6.1f} ms, mean {statistics.mean(w):6.1f}; "
              f"cpu median {statistics.median(c):6.1f} ms, mean {statistics.mean(c):6.1f} (n={len(w)})")


if __name__ == "__main__":
    main()
