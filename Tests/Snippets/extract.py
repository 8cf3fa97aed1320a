#!/usr/bin/env python3
"""Turns the Swift code blocks of README.md and the DocC articles into a package that builds.

Each document becomes one module (as if a reader pasted its blocks, in order, into one file of
an app), with only the context files from Context/ that the document names in a
`<!-- snippet: context Film FilmsState -->` comment (what the text takes as given: a `Film`
type, a service) beside it, and `Platform.swift` (UIKit's few stand-ins on Linux). A name the
text uses but neither defines nor takes from a named context fails the build. Top-level statements go into a function per block, since a library
module cannot run them. A block after `<!-- snippet: separate -->` becomes a module of its own
(a variant of code shown before); one after `<!-- snippet: skip -->` is not compiled (say why
in the comment). The tutorials' code files compile step by step (see below). The package is
written to .build/snippets and built tested by `.ci/snippets` (`swift test`: the modules build, and their `@Test` functions run).
"""
import glob
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
here = os.path.join(root, "Tests", "Snippets")
out = os.path.join(root, ".build", "snippets")

# What every module gets: stand-ins for the platform (UIKit on Linux), not for the text.
PLATFORM = "Platform"
# `<!-- snippet: context A B -->`: the files of Context/ a document takes as given, in order.
context_comment = re.compile(r"<!--\s*snippet:\s*context\s+([^>]*?)\s*-->")

documents = ["README.md"] + sorted(
    os.path.relpath(os.path.join(folder, name), root)
    for folder, _, names in os.walk(os.path.join(root, "Sources"))
    if folder.endswith(".docc") or folder.endswith("Articles")
    for name in names if name.endswith(".md"))

block = re.compile(r"(?:<!--\s*snippet:\s*(\w+)[^>]*-->\s*\n)?```swift\n(.*?)```", re.S)
declaration = re.compile(
    r"^(?:@|import |(?:public |private |fileprivate |internal |final |nonisolated |static )*"
    r"(?:struct|enum|class|actor|protocol|extension|func|let|var|typealias|#if|#else|#endif)\b"
    r"|//|}|\)|$)")


def is_declaration(line):
    """Whether a line that starts a top-level item declares something (else it is a statement)."""
    awaits = re.match(r"(let|var) .*(\bawait\b|\btry\b(?![?!]))", line)
    return bool(declaration.match(line)) and not awaits


def split(code):
    """The block's declarations, and its top-level statements wrapped in a function.

    An `#if` group goes where its first line of code goes: `#if DEBUG` around a statement is a
    statement, and its `#else` and `#endif` stay with it.
    """
    declarations, statements, current, groups = [], [], None, []
    lines = code.splitlines()
    for number, line in enumerate(lines):
        if line.startswith("#if"):
            first = next((l.strip() for l in lines[number + 1:]
                          if l.strip() and not l.strip().startswith(("//", "#"))), "")
            current = declarations if is_declaration(first) else statements
            groups.append(current)
        elif line.startswith(("#elseif", "#else", "#endif")) and groups:
            current = groups[-1]
            if line.startswith("#endif"):
                groups.pop()
        elif line and not line[0].isspace() and not line.startswith(("}", ")", "]")):
            current = declarations if is_declaration(line) else statements
        (current if current is not None else declarations).append(line)
    return "\n".join(declarations), "\n".join(statements)


def module_name(document, index):
    base = re.sub(r"[^A-Za-z0-9]", "", os.path.splitext(os.path.basename(document))[0])
    return f"Snippets{base}" + (f"{index}" if index else "")


modules = {}
contexts = {}
for document in documents:
    text = open(os.path.join(root, document), encoding="utf-8").read()
    named = [name for found in context_comment.findall(text)
             for name in found.replace(",", " ").split()]
    for name in named:
        if not os.path.exists(os.path.join(here, "Context", name + ".swift")):
            sys.exit(f"{document}: its snippet context names {name}, which Tests/Snippets/Context lacks")
    contexts[document] = [PLATFORM] + named
    separate = 0
    for number, match in enumerate(block.finditer(text), 1):
        marker, code = match.group(1), match.group(2)
        if marker == "skip":
            continue
        if marker == "separate":
            separate += 1
            name = module_name(document, separate)
        else:
            name = module_name(document, 0)
        line = text[: match.start()].count("\n") + 1
        declarations, statements = split(code)
        source = f"// {document}, block {number} (line {line})\n{declarations}\n"
        if statements.strip():
            source += (f"\n@MainActor func block{number}() async throws {{\n"
                       + "\n".join("  " + l if l else l for l in statements.splitlines()) + "\n}\n")
        modules.setdefault(name, {"document": document, "blocks": []})["blocks"].append(source)

# The DocC tutorials: after each step, the latest version of each file the tutorial has shown
# is a module, so every step's code compiles. The last step's app files are a module named
# after the app, with the tutorial's test file in a test module beside it.
tutorial_targets = []
code = re.compile(r'@Code\(name:\s*"([^"]+)",\s*file:\s*"?([^,")\s]+)"?')
for catalog in sorted(glob.glob(os.path.join(root, "Sources", "*", "*.docc"))):
    for tutorial in sorted(glob.glob(os.path.join(catalog, "Tutorials", "*.tutorial"))):
        latest, snapshots = {}, []
        for name, file in code.findall(open(tutorial, encoding="utf-8").read()):
            if not name.endswith(".swift") or name == "Package.swift":
                continue
            latest[name] = glob.glob(os.path.join(catalog, "Resources", "**", file), recursive=True)[0]
            snapshots.append(dict(latest))
        if not snapshots:
            continue
        base = re.sub(r"[^A-Za-z0-9]", "", os.path.splitext(os.path.basename(tutorial))[0])
        final = snapshots[-1]
        app = {n: f for n, f in final.items() if not n.endswith("Tests.swift")}
        tests = {n: f for n, f in final.items() if n.endswith("Tests.swift")}
        steps = [(f"Tutorial{base}Step{i + 1}", {n: f for n, f in snap.items()
                  if n != "main.swift" and not n.endswith("Tests.swift")})
                 for i, snap in enumerate(snapshots[:-1])]
        # The app's module gets a name of its own (the repository's example may use the app's
        # name); the tests' `@testable import` is pointed at it.
        final_name = f"Tutorial{base}App"
        steps.append((final_name, {n: f for n, f in app.items() if n != "main.swift"}))
        for target, files in steps:
            folder = os.path.join(out, "Sources", target)
            os.makedirs(folder, exist_ok=True)
            for old in os.listdir(folder):
                os.remove(os.path.join(folder, old))
            for name, path in files.items():
                with open(path, encoding="utf-8") as source, \
                     open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                    f.write(source.read())
            with open(os.path.join(folder, "Context-Tutorial.swift"), "w", encoding="utf-8") as f:
                f.write(open(os.path.join(here, "Context", "Tutorial.swift"), encoding="utf-8").read())
            tutorial_targets.append(f'    .target(name: "{target}", dependencies: products),\n')
        if tests:
            folder = os.path.join(out, "Tests", final_name + "Tests")
            os.makedirs(folder, exist_ok=True)
            for name, path in tests.items():
                with open(path, encoding="utf-8") as source, \
                     open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                    f.write(re.sub(r"@testable import \w+", f"@testable import {final_name}",
                                   source.read()))
            tutorial_targets.append(
                f'    .testTarget(name: "{final_name}Tests", dependencies: ["{final_name}"] + products),\n')

os.makedirs(out, exist_ok=True)
targets = []
for name, module in sorted(modules.items()):
    folder = os.path.join(out, "Tests", name)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        os.remove(os.path.join(folder, old))
    imports = "import Foundation\nimport Statecraft\nimport StatecraftTesting\nimport StatecraftTools\n"
    imports += "import StatecraftInspector\n"
    imports += "import StatecraftObservation\nimport StatecraftEntities\nimport Testing\nimport XCTest\n"
    with open(os.path.join(folder, "Snippets.swift"), "w", encoding="utf-8") as f:
        f.write(imports + "\n" + "\n".join(module["blocks"]))
    for context in contexts[module["document"]]:
        path = os.path.join(here, "Context", context + ".swift")
        with open(path, encoding="utf-8") as source, \
             open(os.path.join(folder, f"Context-{context}.swift"), "w", encoding="utf-8") as f:
            f.write(imports + source.read())
    targets.append(name)

with open(os.path.join(out, "Package.swift"), "w", encoding="utf-8") as f:
    f.write("""// swift-tools-version:6.2
// Generated by Tests/Snippets/extract.py: the documentation's code blocks, one module each.
import PackageDescription

let products: [Target.Dependency] = [
  .product(name: "Statecraft", package: "Statecraft"),
  .product(name: "StatecraftTesting", package: "Statecraft"),
  .product(name: "StatecraftTools", package: "Statecraft"),
  .product(name: "StatecraftInspector", package: "Statecraft"),
  .product(name: "StatecraftObservation", package: "Statecraft"),
  .product(name: "StatecraftEntities", package: "Statecraft"),
]

let package = Package(
  name: "Snippets",
  platforms: [.macOS(.v14)],
  dependencies: [.package(name: "Statecraft", path: "../..")],
  targets: [
""" + "".join(f'    .testTarget(name: "{t}", dependencies: products),\n' for t in targets)
            + "".join(tutorial_targets) + """  ],
  swiftLanguageModes: [.v6]
)
""")
print(f"{sum(len(m['blocks']) for m in modules.values())} blocks in {len(targets)} modules, "
      f"{len(tutorial_targets)} tutorial modules")
