#!/usr/bin/env python3
"""The Python plistlib peer on the shared ~1 MB input: load and dump, XML and binary, median MB/s.

usage: bench-plistlib.py <dir with big.xml and big.bin>
"""
import plistlib, statistics, sys, time

directory = sys.argv[1]
xml = open(f"{directory}/big.xml", "rb").read()
binary = open(f"{directory}/big.bin", "rb").read()
value = plistlib.loads(xml)


def median_seconds(action, runs=15):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


for name, size, action in [
    ("plistlib XML load", len(xml), lambda: plistlib.loads(xml)),
    ("plistlib binary load", len(binary), lambda: plistlib.loads(binary)),
    ("plistlib XML dump", len(xml), lambda: plistlib.dumps(value, fmt=plistlib.FMT_XML)),
    ("plistlib binary dump", len(binary), lambda: plistlib.dumps(value, fmt=plistlib.FMT_BINARY)),
]:
    seconds = median_seconds(action)
    print(f"{name:24s} {seconds * 1e3:8.2f} ms  {size / seconds / 1e6:7.1f} MB/s")
