#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The module layering of docs/ARCHITECTURE.md, checked on the manifest: what each module may not reach, directly or
# through another (`swift package describe`). A new dependency that breaks a rule fails `make test` here, before the
# build, instead of showing up later as a bigger client or a slower `defaults`.
set -euo pipefail
cd "$(dirname "$0")/.."

"${SWIFT:-swift}" package describe --type json | python3 -c '
import json, sys

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

# Each module, and what it must never reach, with the reason.
rules = [
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
sys.exit(1 if failed else 0)
'
echo "module layering: every rule holds"
