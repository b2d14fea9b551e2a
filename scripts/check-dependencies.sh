#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The module layering of docs/ARCHITECTURE.md, checked on the manifest: what each module may not reach, directly or
# through another (`swift package describe`), and that every module of this package or its dependencies that a
# target's sources import is a dependency the target declares (not one that only happens to be built before it). A
# new dependency that breaks a rule fails `make test` here, before the build, instead of showing up later as a bigger
# client or a slower `defaults`.
set -euo pipefail
cd "$(dirname "$0")/.."

"${SWIFT:-swift}" package describe --type json | python3 -c '
import json, os, re, sys

targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}

def reach(name):
    """Every target and product the target depends on, directly or through other targets."""
    seen, stack = set(), [name]
    while stack:
        target = targets[stack.pop()]
        for product in target.get("product_dependencies", []):
            seen.add(product)
        for dependency in target.get("target_dependencies", []):
            if dependency not in seen:
                seen.add(dependency)
                stack.append(dependency)
    return seen

# Every target and every product a target depends on.
everything = set(targets) | {p for t in targets.values() for p in t.get("product_dependencies", [])}

# Each module, and what it must never reach, with the reason.
rules = [
    ("PrefsErrors", everything, "the error template is the bottom module: every module may adopt it"),
    ("PrefsPlist", {"PrefsPOSIX", "PrefsDomain", "PrefsStore"}, "the codecs are pure: bytes in, values out"),
    ("PrefsDomain", {"PrefsPOSIX", "PrefsStore", "PrefsWire"}, "the vocabulary has no files and no protocol"),
    ("PrefsWire", {"PrefsStore", "PrefsPOSIX", "NIOCore"}, "the protocol is pure and speaks the vocabulary"),
    ("PrefsClient", {"PrefsStore", "NIOCore", "NIOPosix", "CPrefsOpenSSL"}, "a client links no storage engine"),
    ("DefaultsCommand", {"NIOCore", "NIOPosix", "CPrefsOpenSSL", "ServiceLifecycle", "PrefsFleet"},
     "the everyday command stays small and fast to start"),
    ("PlutilCommand", {"PrefsStore", "PrefsClient", "NIOCore"}, "plutil works on files only"),
]
failed = False
for name, forbidden, why in rules:
    reached = reach(name) & forbidden
    if reached:
        failed = True
        names = ", ".join(sorted(reached))
        print(f"error: {name} reaches {names}: {why} (docs/ARCHITECTURE.md)", file=sys.stderr)

# The modules a source file may name: the targets of this package and the products of its dependencies (the
# toolchain modules, Glibc or Synchronization, are not declared; Python embedded in a test string is not Swift).
declarable = everything
import_line = re.compile(r"^[ \t]*(?:@\w+(?:\([^)]*\))? )*(?:public |package |internal )?import (\w+)$", re.M)
for name, target in sorted(targets.items()):
    declared = set(target.get("target_dependencies", [])) | set(target.get("product_dependencies", []))
    for directory, _, files in os.walk(target["path"]):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(directory, file)
            with open(path) as source:
                imported = set(import_line.findall(source.read()))
            for module in sorted((imported & declarable) - declared - {name}):
                failed = True
                print(f"error: {path} imports {module}, which {name} does not declare (Package.swift)",
                      file=sys.stderr)
sys.exit(1 if failed else 0)
'
echo "module layering: every rule holds, every import is declared"
