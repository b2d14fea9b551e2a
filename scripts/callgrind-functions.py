#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints the functions named in callgrind output files, each once, in the order callgrind first meets them.

usage: scripts/callgrind-functions.py CALLGRIND_OUT...   (made with --demangle=no, so the names are the symbols)

Used by scripts/instruction-counts.sh (the code regions `defaults read` runs) and scripts/update-symbol-order.sh (the
release build's symbol order). Names callgrind makes up, "(below main)" or a bare address, are left out.
"""
import re
import sys

seen = set()
for path in sys.argv[1:]:
    for line in open(path, errors="replace"):
        match = re.match(r"c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if not match or match.group(1).startswith(("0x", "(")):
            continue
        name = re.sub(r"'\d+$", "", match.group(1))  # callgrind marks recursion levels with 'N
        if name not in seen:
            seen.add(name)
            print(name)
