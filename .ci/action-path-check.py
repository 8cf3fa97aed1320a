"""Judges ../shared/tools/action-path's output (standard input) against .ci/action-path-ceilings.

Each probe must be listed, run through at most its ceiling of files, and have no two-way pair
(two files calling each other) but those its line allows. Exits 1 with the reasons otherwise.
"""

import re
import sys


def read_ceilings(path):
    ceilings = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        probe, files, pairs = re.split(r"\s+", line, maxsplit=2)
        allowed = set() if pairs == "-" else {p.strip() for p in pairs.split(",")}
        ceilings[probe] = (int(files), allowed)
    return ceilings


def main():
    ceilings = read_ceilings(sys.argv[1])
    output = sys.stdin.read()
    counts = {m[1]: int(m[2]) for m in re.finditer(r"^(probe\w+): (\d+) files$", output, re.M)}
    pairs = {}
    for m in re.finditer(r"^(probe\w+) calls: .*two-way pairs: (\d+)(?: \((.*)\))?$", output, re.M):
        pairs[m[1]] = {p.strip() for p in m[3].split(",")} if m[3] else set()
    problems = []
    for probe, (ceiling, allowed) in ceilings.items():
        if probe not in counts or probe not in pairs:
            problems.append(f"{probe}: not in the tool's output")
            continue
        if counts[probe] > ceiling:
            problems.append(f"{probe}: {counts[probe]} files, over its ceiling of {ceiling}")
        for pair in sorted(pairs[probe] - allowed):
            problems.append(f"{probe}: files call each other back and forth: {pair}")
    for probe in sorted(set(counts) - set(ceilings)):
        problems.append(f"{probe}: no ceiling in .ci/action-path-ceilings")
    if problems:
        print("\n".join(problems))
        print("the path must go down the layers; lower a ceiling when the engine allows, never raise it")
        sys.exit(1)
    for probe, (ceiling, _) in ceilings.items():
        print(f"{probe}: {counts[probe]} of at most {ceiling} files")


main()
