#!/usr/bin/env python3
"""Checks what each library product links, as Docs/Architecture.md ("Products and targets") says.

Reads the package's description (`swift package describe --type json`) and fails when:
- a product links a target it must not: the inspector's pages and test writer
  (StatecraftInspector) in StatecraftTools or StatecraftTesting, or anything but the primitives
  in the core;
- the primitives are a product, or import more than the standard library, Dispatch, the C
  atomics and the platform's C library;
- the inspector's types are declared outside StatecraftInspector;
- `inspect` does not link StatecraftInspector.
"""

import json
import pathlib
import re
import subprocess
import sys

# Each library product: the targets it may link (itself included), and none other.
ALLOWED = {
    "Statecraft": {"Statecraft", "StatecraftPrimitives", "StatecraftAtomics"},
    "StatecraftObservation": {
        "StatecraftObservation", "Statecraft", "StatecraftPrimitives", "StatecraftAtomics"},
    "StatecraftEntities": {
        "StatecraftEntities", "Statecraft", "StatecraftPrimitives", "StatecraftAtomics"},
    "StatecraftTools": {
        "StatecraftTools", "Statecraft", "StatecraftPrimitives", "StatecraftAtomics"},
    "StatecraftTesting": {
        "StatecraftTesting", "StatecraftTools", "Statecraft", "StatecraftPrimitives",
        "StatecraftAtomics"},
    "StatecraftInspector": {
        "StatecraftInspector", "StatecraftTools", "Statecraft", "StatecraftPrimitives",
        "StatecraftAtomics"},
}
PRIMITIVE_IMPORTS = {"Dispatch", "StatecraftAtomics", "Darwin", "Glibc", "Musl", "Android"}
INSPECTOR_TYPES = ("SessionReport", "LiveSession", "FuzzingEntryPoints")


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    described = subprocess.run(
        ["swift", "package", "describe", "--type", "json"], cwd=root, check=True,
        capture_output=True, text=True).stdout
    package = json.loads(described)
    targets = {target["name"]: target for target in package["targets"]}
    products = {product["name"]: product["targets"] for product in package["products"]}
    problems = []

    def linked(names):
        seen, stack = set(), list(names)
        while stack:
            name = stack.pop()
            if name in seen or name not in targets:
                continue
            seen.add(name)
            stack.extend(targets[name].get("target_dependencies", []))
        return seen

    for product, allowed in ALLOWED.items():
        if product not in products:
            problems.append(f"no library product {product}")
            continue
        extra = linked(products[product]) - allowed
        if extra:
            problems.append(f"{product} links {', '.join(sorted(extra))}")
    if "StatecraftPrimitives" in products:
        problems.append("StatecraftPrimitives is a product: it is package API, a target only")
    if "StatecraftInspector" not in linked(products.get("inspect", [])):
        problems.append("inspect does not link StatecraftInspector")

    for file in sorted((root / "Sources/StatecraftPrimitives").rglob("*.swift")):
        for module in re.findall(r"^\s*import (\w+)", file.read_text(), re.MULTILINE):
            if module not in PRIMITIVE_IMPORTS:
                problems.append(f"{file.relative_to(root)} imports {module}")

    declaration = re.compile(
        r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public\s+|package\s+)?(?:final\s+)?"
        r"(?:struct|class|enum|extension)\s+(" + "|".join(INSPECTOR_TYPES) + r")\b",
        re.MULTILINE)
    for file in sorted((root / "Sources").rglob("*.swift")):
        relative = file.relative_to(root)
        if relative.parts[1] == "StatecraftInspector":
            continue
        for name in declaration.findall(file.read_text()):
            problems.append(f"{relative} declares {name}, which belongs to StatecraftInspector")

    if problems:
        print("\n".join(problems))
        return 1
    for product in ALLOWED:
        print(f"{product}: {', '.join(sorted(linked(products[product]) - {product}))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
