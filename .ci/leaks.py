#!/usr/bin/env python3
"""Reads LeakSanitizer's reports (files named by LSAN_OPTIONS' log_path) and fails on a leak.

LeakSanitizer cannot see one kind of pointer the Swift runtime stores: an object's reference-count
word holds the address of its side table (made by the first weak reference to it) shifted right
by three bits. So the side table of every object that ever had a weak reference, alive or not,
is reported as a direct leak of its own, allocated from `formWeakReference`. Suppressing those
reports in .ci/lsan-suppressions.txt would hide real leaks too: LeakSanitizer treats a suppressed
block as a root, and a leaked object with a weak reference hangs below its side table.

What tells them apart: the side table of a live object points only to that object, which is
reachable, so such a report stands alone. A leaked object is reachable only from its side table
and shows as an indirect leak, with all it holds. This script therefore fails on
- any indirect leak, and
- any direct leak not allocated from `formWeakReference`,
and counts the side-table reports it lets through. Usage: leaks.py REPORT_PREFIX
"""
import glob
import re
import sys

HEADER = re.compile(r"^(Direct|Indirect) leak of (\d+) byte\(s\) in (\d+) object\(s\) allocated from:")


def leaks(text):
    """Yields (kind, bytes, frames) for each leak in one report."""
    kind = None
    frames = []
    size = 0
    for line in text.splitlines() + [""]:
        match = HEADER.match(line.strip())
        if match or (kind and not line.strip()):
            if kind:
                yield kind, size, frames
            kind, frames = None, []
        if match:
            kind, size = match.group(1), int(match.group(2))
        elif kind and line.strip().startswith("#"):
            frames.append(line.strip())


def main():
    prefix = sys.argv[1]
    files = sorted(glob.glob(prefix + "*"))
    side_tables = 0
    failures = []
    for path in files:
        with open(path, errors="replace") as report:
            text = report.read()
        if "ERROR: AddressSanitizer" in text and "ERROR: LeakSanitizer" not in text:
            failures.append(f"{path}: an AddressSanitizer error\n{text[:4000]}")
            continue
        for kind, size, frames in leaks(text):
            if kind == "Direct" and any("formWeakReference" in frame for frame in frames):
                side_tables += 1
                continue
            failures.append(f"{path}: {kind.lower()} leak of {size} bytes\n  " + "\n  ".join(frames[:12]))
    print(f"leak reports read: {len(files)}; side tables of weakly referenced objects let through: {side_tables}")
    if failures:
        print(f"{len(failures)} leak(s):")
        print("\n".join(failures[:20]))
        sys.exit(1)
    print("no leaks")


if __name__ == "__main__":
    main()
