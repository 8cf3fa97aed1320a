#!/usr/bin/env python3
"""Checks that every public member the library declares says its cost with `- Complexity:`.

Reads the symbol graphs `.ci/docs` dumped into .build-docs (run it first). Members the
compiler synthesizes or a protocol extension of the standard library provides have no
location in Sources/ and are skipped.
"""

import glob
import json
import sys

MODULES = sys.argv[1:] or ["Statecraft"]
MEMBER_KINDS = (
    "swift.method", "swift.type.method", "swift.property", "swift.type.property",
    "swift.init", "swift.subscript", "swift.type.subscript", "swift.func", "swift.func.op",
    "swift.var",
)

missing = []
for module in MODULES:
    graphs = glob.glob(f".build-docs/*/symbolgraph/{module}.symbols.json")
    graphs += glob.glob(f".build-docs/*/symbolgraph/{module}@*.symbols.json")
    if not graphs:
        sys.exit(f"complexity: no symbol graph for {module}; run .ci/docs first")
    seen = set()
    for path in graphs:
        for symbol in json.load(open(path))["symbols"]:
            if symbol.get("accessLevel") != "public":
                continue
            if symbol["kind"]["identifier"] not in MEMBER_KINDS:
                continue
            uri = symbol.get("location", {}).get("uri", "")
            if f"/Sources/{module}/" not in uri:
                continue
            lines = (symbol.get("docComment") or {}).get("lines", [])
            if any("- Complexity:" in line["text"] for line in lines):
                continue
            where = uri.split("/Sources/", 1)[1]
            line = symbol["location"]["position"]["line"] + 1
            name = ".".join(symbol["pathComponents"])
            if (where, line) not in seen:
                seen.add((where, line))
                missing.append(f"Sources/{where}:{line}: {name}")

if missing:
    print("public members without `- Complexity:` in their documentation:")
    print("\n".join(sorted(missing)))
    sys.exit(1)
print(f"every public member of {', '.join(MODULES)} says its complexity")
