# SPDX-License-Identifier: Apache-2.0
# Sourced by the tests: a user's Preferences directories and prefsd's socket in a temporary directory, and the
# installed /usr/bin/prefsd serving them in the background until the test exits. defaults is told to go through the
# daemon (PREFERENCES_DAEMON=on), so a write that prefsd did not take fails.

work="$(mktemp -d "${AUTOPKGTEST_TMP:-${TMPDIR:-/tmp}}/prefsd-test.XXXXXX")"
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work/runtime"
export PREFERENCES_SYSTEM_DIR="$work/system" PREFSD_SOCKET="$work/runtime/prefsd/socket" PREFERENCES_DAEMON=on
unset PREFERENCES_HOME PREFERENCES_DOMAINS_DIR NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID LISTEN_FDS LISTEN_PID LISTEN_FDNAMES
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$PREFERENCES_SYSTEM_DIR"
mkdir -m 700 "$XDG_RUNTIME_DIR"
prefsd_pid=""

stop_prefsd() {
    if [ -n "$prefsd_pid" ] && kill -0 "$prefsd_pid" 2>/dev/null; then
        kill -TERM "$prefsd_pid"
        wait "$prefsd_pid" || { echo "error: prefsd exited with status $? after SIGTERM; its log:" >&2; cat "$work/prefsd.log" >&2; return 1; }
    fi
    prefsd_pid=""
}
trap 'stop_prefsd || true; rm -rf "$work"' EXIT

/usr/bin/prefsd >"$work/prefsd.log" 2>&1 &
prefsd_pid=$!
for _ in $(seq 1 100); do
    [ -S "$PREFSD_SOCKET" ] && break
    kill -0 "$prefsd_pid" 2>/dev/null || { echo "error: prefsd exited at start; its log:" >&2; cat "$work/prefsd.log" >&2; exit 1; }
    sleep 0.1
done
[ -S "$PREFSD_SOCKET" ] || { echo "error: prefsd did not listen on $PREFSD_SOCKET within 10 s; its log:" >&2; cat "$work/prefsd.log" >&2; exit 1; }
echo "prefsd $(/usr/bin/prefsd --version | sed -n '1s/^prefsd //p') (pid $prefsd_pid) listens on $PREFSD_SOCKET"

# expect DESCRIPTION EXPECTED ACTUAL: prints PASS or fails the test.
expect() {
    if [ "$2" = "$3" ]; then
        echo "PASS  $1: $3"
    else
        echo "FAIL  $1: expected '$2', got '$3'" >&2
        exit 1
    fi
}
