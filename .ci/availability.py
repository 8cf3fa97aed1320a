#!/usr/bin/env python3
"""Lists the toolchain APIs the library products use that need more than the package's floor.

Linux cannot check Apple availability, but the toolchain's module interfaces carry it. This
reads `@available(macOS …, iOS …)` from the standard library's interfaces (Swift, _Concurrency,
Synchronization, Observation), finds the declarations newer than the floor, and looks for their
names in the products' sources. With --check, it fails when a name it finds is missing from
Docs/Platforms.md, so the list there stays current.
"""
import glob
import os
import re
import sys

FLOOR = {"macOS": (12, 0), "iOS": (15, 0), "tvOS": (15, 0), "watchOS": (8, 0)}
MODULES = ["Swift", "_Concurrency", "Synchronization", "Observation"]
PRODUCTS = [
    "Statecraft", "StatecraftTesting", "StatecraftTools", "StatecraftObservation", "StatecraftEntities",
    "StatecraftInspector", "StatecraftPrimitives",
]

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
toolchain = os.path.dirname(os.path.dirname(os.path.realpath(
    os.popen("command -v swift").read().strip())))


def versions(line):
    found = {}
    for platform, major, minor in re.findall(r"\b(macOS|iOS|tvOS|watchOS) (\d+)(?:\.(\d+))?", line):
        found[platform] = (int(major), int(minor or 0))
    return found


def newer(found):
    return any(found.get(p, (0, 0)) > v for p, v in FLOOR.items() if p in found)


decl = re.compile(
    r"\b(?:func|struct|class|enum|protocol|actor|typealias|var|let|macro)\s+([A-Za-z_][A-Za-z0-9_]*)"
    r"(?:\s*(?:<[^>]*>)?\(\s*([A-Za-z_][A-Za-z0-9_]*)?)?")
new, old = {}, set()
attribute = re.compile(r"^(@[A-Za-z_]+(\([^()]*(\([^()]*\)[^()]*)*\))?\s*)+")
for module in MODULES:
    for path in glob.glob(f"{toolchain}/lib/swift/linux/{module}.swiftmodule/*-linux-gnu.swiftinterface"):
        pending = None
        # The availability and name of enclosing extensions and types, with their depth.
        scopes = [({}, 0, "")]
        depth = 0
        for line in open(path, encoding="utf-8"):
            stripped = line.strip()
            if stripped.startswith("@available(") and ("macOS" in stripped or "iOS" in stripped):
                found = versions(stripped.split(")")[0])
                pending = found if pending is None else {**pending, **found}
                stripped = stripped[stripped.index(")") + 1 :].strip()
            stripped = attribute.sub("", stripped)
            inherited = scopes[-1][0]
            effective = {**inherited, **(pending or {})}
            match = decl.search(stripped) if stripped else None
            if match:
                name, label = match.group(1), match.group(2)
                key = f"{name}({label}:" if label and label != "_" and "func" in stripped else name
                keys = [key]
                # A static member is also found as `Type.member`, whatever arguments a call
                # leaves to their defaults (`Task.immediate(operation:)`).
                if re.search(r"\bstatic\s+(func|var|let)\b", stripped) and scopes[-1][2]:
                    keys.append(f"{scopes[-1][2]}.{name}")
                for key in keys:
                    if newer(effective):
                        new.setdefault(key, effective)
                    else:
                        old.add(key)
            opened = stripped.count("{") - stripped.count("}")
            if opened > 0 and stripped:
                kinds = r"\b(?:extension|struct|class|enum|actor|protocol)"
                owner = re.search(kinds + r"\s+(?:[A-Za-z_]+\.)*([A-Za-z_]\w*)", stripped)
                scopes.append((effective, depth, owner.group(1) if owner else scopes[-1][2]))
            depth += opened
            while len(scopes) > 1 and depth <= scopes[-1][1]:
                scopes.pop()
            if stripped:
                pending = None

own = set()
for path in glob.glob(f"{root}/Sources/**/*.swift", recursive=True):
    text = open(path, encoding="utf-8").read()
    for match in decl.finditer(text):
        name, label = match.group(1), match.group(2)
        own.add(name)
        own.add(f"{name}({label}:")
    own.update(re.findall(r"\bcase\s+([A-Za-z_][A-Za-z0-9_]*)", text))
keywords = {"didSet", "willSet", "get", "set", "init", "deinit", "subscript"}
candidates = {
    key: v for key, v in new.items()
    if key not in old and key not in own and key not in keywords and not key.startswith("_")
}
uses = {}
for product in PRODUCTS:
    for path in glob.glob(f"{root}/Sources/{product}/**/*.swift", recursive=True):
        text = re.sub(r"//.*", "", open(path, encoding="utf-8").read())
        # Words inside string literals ("Set thunkErrorHandler to handle it") are not API uses.
        text = re.sub(r'"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"', '""', text)
        for key in candidates:
            pattern = re.escape(key[:-1]) + r"\s*:" if key.endswith(":") else rf"\b{re.escape(key)}\b"
            pattern = pattern.replace(r"\(", r"\(\s*")
            if re.search(pattern, text):
                uses.setdefault(key, set()).add(os.path.relpath(path, root))

for key in sorted(uses):
    needs = ", ".join(f"{p} {a}.{b}" for p, (a, b) in sorted(candidates[key].items()))
    print(f"{key}\t{needs}\t{' '.join(sorted(uses[key]))}")

if "--check" in sys.argv:
    listed = open(os.path.join(root, "Docs/Platforms.md"), encoding="utf-8").read()
    missing = [key for key in uses if f"`{key.rstrip(':').split('(')[0]}" not in listed]
    if missing:
        print("Docs/Platforms.md does not list: " + ", ".join(sorted(missing)), file=sys.stderr)
        sys.exit(1)
