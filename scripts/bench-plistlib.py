#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python plistlib peer on the shared ~1 MB input: load and dump, XML and binary.

usage: bench-plistlib.py <dir with big.xml and big.bin>           prints the median time and MB/s of each
       bench-plistlib.py --serve <dir with big.xml and big.bin>   for Benchmarks' PlistRatios: reads lines
           "<operation> <runs>" (operation: xml-load, binary-load, xml-dump, binary-dump) and answers each with the
           median seconds of that many runs, so that the caller can alternate plistlib with its own rounds
"""
import plistlib, statistics, sys, time

serve = sys.argv[1] == "--serve"
directory = sys.argv[2] if serve else sys.argv[1]
xml = open(f"{directory}/big.xml", "rb").read()
binary = open(f"{directory}/big.bin", "rb").read()
value = plistlib.loads(xml)

operations = {
    "xml-load": (len(xml), lambda: plistlib.loads(xml)),
    "binary-load": (len(binary), lambda: plistlib.loads(binary)),
    "xml-dump": (len(xml), lambda: plistlib.dumps(value, fmt=plistlib.FMT_XML)),
    "binary-dump": (len(binary), lambda: plistlib.dumps(value, fmt=plistlib.FMT_BINARY)),
}


def median_seconds(action, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


if serve:
    print("ready", flush=True)
    for line in sys.stdin:
        name, runs = line.split()
        print(median_seconds(operations[name][1], int(runs)), flush=True)
else:
    for name, (size, action) in operations.items():
        seconds = median_seconds(action, 15)
        print(f"plistlib {name:12s} {seconds * 1e3:8.2f} ms  {size / seconds / 1e6:7.1f} MB/s")
