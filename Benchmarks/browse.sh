#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The terminal browser's speed, in a real terminal: from starting `defaults browse` in a new tmux window to its first
# screen, and from typing 50 Page Down and End in a domain to the screen showing its last key.
#
#   [RUNS=5] Benchmarks/browse.sh [BIN_DIR]
#
# The Preferences directory is the scale probe's: 1,000 domains of 1,000 keys, and one domain of 10,000 keys.
# Targets (docs/BROWSE.md): the first screen of the 1,001-domain directory within 200 ms, a 10,000-key domain
# within 100 ms, scrolling without lag. Each figure is the median of RUNS; the time includes starting the tmux
# window, so it is an upper bound of the browser's own.
# The terminal inside tmux is screen-256color, the keys tmux sends (End is ESC [ 4 ~, not xterm's ESC O F).
# Needs: tmux, python3 (scripts/install-deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-$(swift build -c release --show-bin-path)}"
[ -x "$bin/defaults" ] && [ -x "$bin/defaults-browse" ] || { echo "error: $bin has no defaults and defaults-browse" >&2; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/browse-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

python3 - "$work/prefs" <<'EOF'
import os, plistlib, sys
directory = sys.argv[1]
os.makedirs(directory)
for domain in range(1000):
    with open(f"{directory}/com.example.d{domain:04}.plist", "wb") as file:
        plistlib.dump({f"Key{key:04}": f"value {key}" for key in range(1000)}, file)
with open(f"{directory}/com.example.big.plist", "wb") as file:
    plistlib.dump({f"Key{key:05}": key for key in range(10000)}, file)
EOF

RUNS="${RUNS:-5}" python3 - "$bin/defaults" "$work" <<'EOF'
import os, statistics, subprocess, sys, time
defaults, work = sys.argv[1], sys.argv[2]
runs = int(os.environ["RUNS"])
environment = (f"unset NO_COLOR; PREFERENCES_HOME={work}/prefs PREFERENCES_SYSTEM_DIR={work}/system "
               f"PREFERENCES_DOMAINS_DIR={work}/domains PREFERENCES_DAEMON=off TERM=screen-256color LANG=C.UTF-8")

def measure(domain, marker, last_key):
    socket = f"browse-bench-{os.getpid()}-{time.monotonic_ns()}"
    tmux = lambda *arguments: subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", *arguments],
                                             capture_output=True, text=True)
    start = time.monotonic()
    tmux("new-session", "-d", "-x", "120", "-y", "40", f"{environment} {defaults} browse {domain}; sleep 60")
    def wait_for(text, what):
        while text not in (screen := tmux("capture-pane", "-p").stdout):
            if time.monotonic() - start > 30:
                tmux("kill-server")
                sys.exit(f"error: {what}: {text!r} not on the screen after 30 s:\n{screen}")
    wait_for(marker, "first screen")
    opened = time.monotonic() - start
    start = time.monotonic()
    tmux("send-keys", *(["PageDown"] * 50), "End")
    wait_for(last_key, "50 pages and End")
    scrolled = time.monotonic() - start
    tmux("kill-server")
    return opened, scrolled

cases = [("1,001 domains, none selected", "", "1001 domains", "com.example.d0999"),
         ("the 10,000-key domain", "com.example.big", "10000 keys", "Key09999"),
         ("a 1,000-key domain", "com.example.d0500", "1000 keys", "Key0999")]
for name, domain, marker, last_key in cases:
    results = [measure(domain, marker, last_key) for _ in range(runs)]
    opened = statistics.median(result[0] for result in results) * 1000
    scrolled = statistics.median(result[1] for result in results) * 1000
    print(f"browse {name}: first screen {opened:.0f} ms, 50 pages and End {scrolled:.0f} ms (median of {runs})")
EOF
