#!/usr/bin/env python3
"""What a first touch of memory costs on this machine: the fixed costs under every ikfix run.

    tests/bench/page_costs.py [FILE]      (FILE: a file to map, default: build/ikfix)

An `ikfix run` of cmu_01_01 (a 2 MB BVH) first-touches ~10 huge pages of heap and takes ~180
other page faults (~140 of them in its own and its libraries' mapped code and data); on a virtual
machine each costs what the host charges for it, several milliseconds per run in all, and that
differs from one hour to the next. Timings (tests/bench/README.md) compare only between runs in
a similar machine state; print this beside them. Each line is a median (of five; three for the
idle one):

- a 4 KiB anonymous page's first touch (a page fault and a zeroed page);
- a 2 MiB huge page's first touch right after a mapping of as many was freed (the kernel hands
  back pages it just had: what back-to-back runs of ikfix get);
- the same after the memory sat free for IDLE seconds (a host that takes back free guest memory,
  as free page reporting does, makes this the cost of a fresh page from the host; thirty-two
  pages: on the build VM 20 MiB left free for 2.5 s were not taken back, 32 and 64 MiB were);
- a page of FILE's first touch through a mapping (the page cache's page mapped, no copy), one
  touch per 64 KiB and one per 4 KiB.
"""
import ctypes
import mmap
import os
import statistics
import sys
import time

PAGE = 4096
HUGE = 2 << 20
IDLE = 2.5  # seconds: longer than the reporting delay seen on the build VM (about 1-2 s)


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def anonymous(size: int, advice: int) -> tuple[int, int]:
    """A fresh anonymous mapping with `size` bytes at a 2 MiB boundary given `advice`: (the
    mapping's start, its first 2 MiB-aligned byte)."""
    start = _libc.mmap(None, size + HUGE, mmap.PROT_READ | mmap.PROT_WRITE,
                       mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if start in (None, ctypes.c_void_p(-1).value):
        sys.exit(f"mmap failed: {os.strerror(ctypes.get_errno())}")
    aligned = (start + HUGE - 1) // HUGE * HUGE
    _libc.madvise(aligned, size, advice)
    return start, aligned


def touch_every_page(address: int, size: int) -> float:
    """Writes one byte in each 4 KiB page of [address, address + size); milliseconds taken."""
    began = time.perf_counter()
    for at in range(address, address + size, PAGE):
        ctypes.c_char.from_address(at).value = b"\1"
    return (time.perf_counter() - began) * 1e3


def small_pages_ms(pages: int = 2048) -> float:
    """Milliseconds per first touch of a 4 KiB anonymous page."""
    start, aligned = anonymous(pages * PAGE, mmap.MADV_NOHUGEPAGE)
    ms = touch_every_page(aligned, pages * PAGE)
    _libc.munmap(start, pages * PAGE + HUGE)
    return ms / pages


def huge_pages_ms(count: int = 16, idle: float = 0.0) -> float:
    """Milliseconds per first touch of a 2 MiB huge page (each of its 4 KiB pages written once),
    `idle` seconds after the same number were freed."""
    size = count * HUGE
    start, aligned = anonymous(size, mmap.MADV_HUGEPAGE)
    touch_every_page(aligned, size)  # take huge pages, then free them for the kernel to hand back
    _libc.munmap(start, size + HUGE)
    time.sleep(idle)
    start, aligned = anonymous(size, mmap.MADV_HUGEPAGE)
    ms = touch_every_page(aligned, size)
    _libc.munmap(start, size + HUGE)
    return ms / count


def read_every(view: mmap.mmap, size: int, step: int) -> float:
    began = time.perf_counter()
    total = 0
    for at in range(0, size, step):
        total += view[at]
    return (time.perf_counter() - began) * 1e3


def file_pages_ms(path: str, step: int) -> float:
    """Milliseconds per touch of a mapped file page, one touch every `step` bytes."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size // PAGE * PAGE
        view = mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ)
    ms = read_every(view, size, step)
    touches = (size + step - 1) // step
    view.close()
    return ms / touches


def main() -> None:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "ikfix")
    median = lambda f: statistics.median(f() for _ in range(5))
    print(f"4 KiB anonymous page, first touch:        {median(small_pages_ms) * 1e3:7.1f} us")
    print(f"2 MiB huge page, right after one freed:   {median(huge_pages_ms):7.3f} ms")
    print(f"2 MiB huge page, after {IDLE:g} s free:        "
          f"{statistics.median(huge_pages_ms(32, IDLE) for _ in range(3)):7.3f} ms")
    if os.path.exists(path):
        for step in (64 * 1024, PAGE):
            us = median(lambda: file_pages_ms(path, step)) * 1e3
            print(f"file page, a touch every {step // 1024:2d} KiB:       {us:7.1f} us")


if __name__ == "__main__":
    main()
