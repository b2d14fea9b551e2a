#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks what the release executables link and load at start-up (docs/PACKAGING.md, "Linking and start-up"): that
# they start without libstdc++ and still reach it when the Swift runtime needs it (Sources/CPrefsCxxRuntime), and
# that they carry no _StringProcessing:
#
#   scripts/check-linking.sh BIN_DIR      (the release executables, as scripts/build-release.sh makes them)
#
# - no executable in BIN_DIR has libstdc++ NEEDED, and each names libstdc++.so.6 for dlopen;
# - their everyday commands do not load it (the loader's LD_DEBUG=files trace), nor does prefsd serving without a
#   fleet, which loads OpenSSL only for a fleet reached over https (Sources/CPrefsOpenSSL), and names it for dlopen;
# - Tests/CxxRuntime/probe.swift, linked the same way, makes the runtime call both kinds of function (its own and
#   those forwarded to libstdc++, from many threads), prints what is expected, and loads libstdc++ only by dlopen;
# - Tests/CxxRuntime/guards.c races the guards of function-local statics;
# - no executable has a symbol of _StringProcessing or _RegexParser, which one call of `contains(_:)` or
#   `replacing(_:with:)` on a string pulls in whole (1.2 MB; StringProtocol+Search.swift in PrefsPlist says more).
# `make test` runs it in its release lane. SWIFT overrides the swift command.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:?usage: scripts/check-linking.sh BIN_DIR}"
failures=0
pass() { echo "ok: $*"; }
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

work="$(mktemp -d "${TMPDIR:-/tmp}/check-linking.XXXXXX")"
trap 'rm -rf "$work"' EXIT

for tool in defaults defaults-fleet defaults-browse plutil prefsd; do
    needed="$(readelf -d "$bin/$tool" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | xargs)"
    if [[ " $needed " == *" libstdc++.so.6 "* ]]; then
        fail "$tool has libstdc++.so.6 NEEDED ($needed): is scripts/cxx-runtime.sh's linker script on its library path?"
    elif ! grep -qaF "libstdc++.so.6" "$bin/$tool"; then
        fail "$tool neither links libstdc++ nor names it for dlopen: was it linked with CPrefsCxxRuntime?"
    else
        pass "$tool: NEEDED $needed; libstdc++.so.6 on demand"
    fi
    regex="$(nm "$bin/$tool" 2>/dev/null | grep -cE '17_StringProcessing|12_RegexParser' || true)"
    if [ "$regex" != 0 ]; then
        fail "$tool has $regex symbols of _StringProcessing: $(nm "$bin/$tool" | grep -E '17_StringProcessing' |
            head -3 | awk '{print $3}' | swift demangle --simplified | xargs)"
    else
        pass "$tool has no _StringProcessing"
    fi
done

# The commands that run most, each traced by the loader: libstdc++ must not be among the files it maps.
export PREFERENCES_HOME="$work/home" PREFERENCES_DAEMON=off PREFERENCES_SYSTEM_DIR="$work/system"
export PREFERENCES_DOMAINS_DIR="$work/domains"
"$bin/defaults" write com.example.Probe Key -int 1
commands=(
    "defaults read com.example.Probe Key"
    "defaults write com.example.Probe Key -int 2"
    "defaults write com.example.Probe List -array-add a"
    "defaults read com.example.Probe"
    "defaults explain com.example.Probe Key"
    "defaults domains"
    "defaults raed"
    "plutil -p $work/home/com.example.Probe.plist"
    "plutil -convert xml1 -o $work/probe.xml $work/home/com.example.Probe.plist"
    "plutil -lint $work/probe.xml"
    "prefsd --version"
)
# prefsd from start to stop, without a fleet: neither libstdc++ nor OpenSSL (loaded with the first TLS context).
mkdir -p "$work/runtime"
chmod 700 "$work/runtime"
LD_DEBUG=files LD_DEBUG_OUTPUT="$work/prefsd-trace" PREFSD_SOCKET="$work/runtime/socket" \
    XDG_RUNTIME_DIR="$work/runtime" "$bin/prefsd" 2>"$work/prefsd.log" &
prefsd_pid=$!
for _ in $(seq 100); do [ -S "$work/runtime/socket" ] && break; sleep 0.05; done
PREFERENCES_DAEMON=on PREFSD_SOCKET="$work/runtime/socket" "$bin/defaults" read com.example.Probe Key >/dev/null ||
    fail "defaults read through the release prefsd failed: $(cat "$work/prefsd.log")"
kill -TERM "$prefsd_pid"
wait "$prefsd_pid" || fail "prefsd exited with status $? on SIGTERM: $(cat "$work/prefsd.log")"
loaded="$(cat "$work"/prefsd-trace.* | { grep -oE "file=(libstdc\+\+|libssl|libcrypto)[^ ]*" || true; } | sort -u | xargs)"
if [ -n "$loaded" ]; then
    fail "prefsd, serving without a fleet, loaded $loaded"
else
    pass "prefsd, serving without a fleet, loads neither libstdc++ nor OpenSSL"
fi
for tool in defaults-fleet prefsd; do
    needed="$(readelf -d "$bin/$tool" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | xargs)"
    if [[ " $needed " == *" libssl.so.3 "* ]] || [[ " $needed " == *" libcrypto.so.3 "* ]]; then
        fail "$tool has OpenSSL NEEDED ($needed): it is loaded with dlopen (Sources/CPrefsOpenSSL/openssl.c)"
    elif ! grep -qaF "libssl.so.3" "$bin/$tool"; then
        fail "$tool neither links OpenSSL nor names libssl.so.3 for dlopen"
    else
        pass "$tool: OpenSSL on demand"
    fi
done

for command in "${commands[@]}"; do
    read -r -a words <<<"$command"
    trace="$(LD_DEBUG=files "$bin/${words[0]}" "${words[@]:1}" 2>&1 >/dev/null || true)"
    if grep -q "file=libstdc++" <<<"$trace"; then
        fail "\`$command\` loaded libstdc++: $(grep "file=libstdc++" <<<"$trace" | head -1)"
    else
        pass "\`$command\` does not load libstdc++"
    fi
done

mapfile -t flags < <(scripts/cxx-runtime.sh swiftc-flags "$work/link")
swift_bin="$(dirname "$(readlink -f "$(command -v "${SWIFT:-swift}")")")"
"$swift_bin/swiftc" "${flags[@]}" Tests/CxxRuntime/probe.swift -o "$work/probe"
needed="$(readelf -d "$work/probe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | xargs)"
[[ " $needed " != *" libstdc++.so.6 "* ]] || fail "the probe has libstdc++.so.6 NEEDED: $needed"
expected='Box<Dictionary<Int, String>>
probe.Box<Swift.Dictionary<Swift.Int, Swift.String>>(value: [1: "one"])
Array<Box<Double>> Box<(Int, Node)> Box<Box<String>> Box<Int>
8191'
output="$(LD_DEBUG=files LD_DEBUG_OUTPUT="$work/trace" "$work/probe")" || fail "the probe exited with status $?"
if [ "$output" != "$expected" ]; then
    fail "the probe printed:"$'\n'"$output"$'\n'"expected:"$'\n'"$expected"
elif ! cat "$work"/trace.* | grep -q "file=libstdc++.so.6 .*dynamically loaded"; then
    fail "the probe built a type name without loading libstdc++ by dlopen: $(grep -h "file=" "$work"/trace.* | xargs)"
else
    pass "the probe's runtime calls reach libstdc++, loaded by dlopen, and print what is expected"
fi

"$swift_bin/clang" -O2 -pthread -DPREFERENCES_CXX_RUNTIME_ON_DEMAND Tests/CxxRuntime/guards.c \
    Sources/CPrefsCxxRuntime/cxx_runtime.c -o "$work/guards" -ldl
if guard_output="$("$work/guards" 2>&1)"; then pass "$guard_output"; else fail "guards: $guard_output"; fi

if [ "$failures" -ne 0 ]; then
    echo "check-linking: $failures failed" >&2
    exit 1
fi
echo "check-linking: every check passed"
