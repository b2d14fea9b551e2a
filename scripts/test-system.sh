#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Proof under a real systemd: boots a minimal Debian 12 root with its own systemd as PID 1, installs the packages,
# and checks prefsd as a socket-activated user service of a real user manager; runs the packages' autopkgtests
# (debian/tests) there, as a user whose manager runs; and installs GNUstep's gnustep-base-runtime beside them, which
# holds /usr/bin/defaults and /usr/bin/plutil as files (docs/PACKAGING.md, "The alternatives"). Needs root and takes
# minutes: `make test-system`, and CI (.ci/run) after `make test` where it runs as root and may make the namespaces;
# not part of `make test`.
#
#   scripts/test-system.sh [CHANGES]   (default: builds the packages with scripts/build-deb.sh)
#
# The root (debootstrap --variant=minbase bookworm, with systemd, systemd-sysv, dbus, dbus-user-session,
# libpam-systemd, libxml2, libssl3, libglib2.0-0 and python3 for the packages and the test, autopkgtest, and gcc,
# libc6-dev, pkg-config and dpkg-dev for the c-library autopkgtest) is made once and kept as
# .build/system/root-<hash of the package list>.tar; every run unpacks a fresh copy into .build/system/root. Its
# systemd is started as PID 1 of new PID, mount, UTS, IPC and cgroup namespaces (unshare), inside a cgroup of its own,
# on proc, a read-only sysfs, cgroup2, a /dev of its own (tmpfs with the standard device nodes, a new devpts instance,
# /dev/shm, /dev/mqueue) and fresh tmpfs on /run and /tmp, after pivot_root into the root (never chroot: the kernel
# refuses user namespaces to a chrooted process, and the unit's sandboxing needs them). Everything is driven from
# outside with nsenter. systemd is never started anywhere else: in the machine's own root it would empty /tmp and
# start services.
#
# Each check prints PASS or FAIL with what it saw; the script exits 1 when any check failed. On exit, whatever
# happened, it kills the namespace's PID 1 (which ends every process in it and drops its mounts) and removes its
# cgroup. The record of a run is in docs/SYSTEMD.md ("Proof under a real systemd").
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" -eq 0 ] || { echo "error: test-system needs root (debootstrap, namespaces, mounts)" >&2; exit 1; }
for tool in debootstrap unshare nsenter findmnt tar; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing; run scripts/install-deps.sh --system" >&2; exit 1; }
done

system_dir="$PWD/.build/system"
root="$system_dir/root"
user=alice
# dbus-user-session gives each user manager a bus, which deb-systemd-invoke --user needs to reach it; python3 runs
# Tests/System/pending-writes.py; autopkgtest runs debian/tests inside the booted root (its null backend: the root is
# the testbed), never in this machine's own. libglib2.0-0 is what preferences-gsettings-backend links; gcc, libc6-dev,
# pkg-config and dpkg-dev are the c-library test's Depends (debian/tests/control), in the cached root so that
# autopkgtest has nothing to download for them on every run.
include=systemd,systemd-sysv,dbus,dbus-user-session,libpam-systemd,libxml2,libssl3,libglib2.0-0,libncursesw6,python3,autopkgtest
include+=,gcc,libc6-dev,pkg-config,dpkg-dev
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mkdir -p "$system_dir"

changes="${1:-$(PREFERENCES_DEB_COMPRESSION="-Zgzip -z1" scripts/build-deb.sh)}"
changes="$(readlink -f "$changes")"
[ -f "$changes" ] || { echo "error: no .changes at $changes" >&2; exit 1; }
# The binary packages the .changes names, but the -dbgsym ones: exactly those of debian/control, so that a package
# added there without being added here is noticed rather than left untested.
packages=(preferences libpreferences1 libpreferences-dev preferences-gsettings-backend python3-preferences)
declare -A deb_of=()
while read -r file; do
    case "$file" in *-dbgsym_*) ;; *.deb) deb_of["${file%%_*}"]="$(dirname "$changes")/$file" ;; esac
done < <(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$changes")
if [ "$(printf '%s\n' "${!deb_of[@]}" | sort | paste -sd' ')" != "$(printf '%s\n' "${packages[@]}" | sort | paste -sd' ')" ]; then
    echo "error: $changes names the packages ${!deb_of[*]}, not ${packages[*]}" >&2
    exit 1
fi
debs=()
for package in "${packages[@]}"; do
    [ -f "${deb_of[$package]}" ] || { echo "error: ${deb_of[$package]} (named by $changes) is missing" >&2; exit 1; }
    debs+=("${deb_of[$package]}")
done

failures=0
pass() { printf 'PASS  %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }
section() { printf '\n== %s\n' "$*"; }

# ---------------------------------------------------------------------------------------------------------------
# The root: debootstrapped once, unpacked fresh for every run.
tarball="$system_dir/root-$(printf '%s %s' "$include" bookworm | sha256sum | cut -c1-12).tar"
if [ ! -f "$tarball" ]; then
    section "debootstrap (once; cached as $tarball)"
    rm -rf "$system_dir/bootstrap"
    mkdir -p "$system_dir/debs"
    bootstrap_started=$SECONDS
    # Its hundreds of progress lines go to a log: CI's output keeps the checks readable.
    if ! debootstrap --variant=minbase --include="$include" --cache-dir="$system_dir/debs" bookworm \
        "$system_dir/bootstrap" "$mirror" > "$system_dir/debootstrap.log" 2>&1; then
        tail -n 30 "$system_dir/debootstrap.log" | sed 's/^/      /'
        echo "error: debootstrap failed; see $system_dir/debootstrap.log" >&2
        exit 1
    fi
    tar -C "$system_dir/bootstrap" -cf "$tarball.partial" .
    mv "$tarball.partial" "$tarball"
    rm -rf "$system_dir/bootstrap"
    echo "root made in $((SECONDS - bootstrap_started)) s ($(du -h "$tarball" | cut -f1)): $include"
fi
if findmnt -rn -o TARGET | grep -q "^$root\(/\|$\)"; then
    echo "error: something is mounted under $root (another run?)" >&2
    exit 1
fi
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
echo "prefs-system" > "$root/etc/hostname"
# A persistent journal, so that each user gets a journal file of their own that they may read (journalctl --user).
mkdir -p "$root/var/log/journal"
install -m 755 Tests/System/pending-writes.py "$root/usr/local/bin/pending-writes"
install -d -m 700 "$root/root/package"
cp "${debs[@]}" "$root/root/package/"
debs_in_root=()
for deb in "${debs[@]}"; do debs_in_root+=("/root/package/$(basename "$deb")"); done
# Removed in the order that leaves no installed package without its dependencies (dpkg -r takes them in order).
removal_order=(preferences-gsettings-backend libpreferences-dev libpreferences1 python3-preferences preferences)
# The source tree for autopkgtest (debian/tests and the Python client's tests): the files git tracks or would track.
mkdir -p "$root/root/package/source"
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' path; do [ -e "$path" ] && printf '%s\0' "$path"; done |
    tar --null --no-recursion -T - -cf - | tar -C "$root/root/package/source" -xf -

# ---------------------------------------------------------------------------------------------------------------
# Boot. The cgroup keeps whatever the booted systemd creates out of the machine's own cgroup tree.
cgroup_mount="$(findmnt -rn -t cgroup2 -o TARGET | head -n1)"
[ -n "$cgroup_mount" ] || { echo "error: no cgroup2 hierarchy is mounted on this machine" >&2; exit 1; }
cgroup="$cgroup_mount/preferences-test-system"
unshare_pid=""
init_pid=""

cleanup() {
    local status=$?
    if [ -n "$init_pid" ] && kill -0 "$init_pid" 2>/dev/null; then
        kill -KILL "$init_pid" 2>/dev/null || true
    fi
    if [ -n "$unshare_pid" ]; then
        wait "$unshare_pid" 2>/dev/null || true
    fi
    # The mounts belonged to the namespace and went with it; should one have leaked (it cannot with private
    # propagation), it is detached here rather than left behind.
    { findmnt -rn -o TARGET | grep "^$root/" || true; } | sort -r | while read -r target; do umount -l "$target" || true; done
    if [ -d "$cgroup" ]; then
        # A cgroup can be removed only when no process is left in it; the killed ones take a moment to go.
        for _ in $(seq 1 50); do
            grep -qx "populated 0" "$cgroup/cgroup.events" 2>/dev/null && break
            sleep 0.1
        done
        find "$cgroup" -depth -type d -exec rmdir {} \; 2>/dev/null || true
        [ ! -d "$cgroup" ] || echo "warning: could not remove the cgroup $cgroup" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Runs as PID 1 of the new namespaces: sets up the root's mounts, pivots into it and becomes its systemd.
boot_script='
set -euo pipefail
root="$1"
mount --make-rprivate /
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs -o ro sysfs "$root/sys"
mount -t cgroup2 cgroup2 "$root/sys/fs/cgroup"
# A /dev of its own, not a bind of the machine devtmpfs: that is one file system shared by the whole machine, and a
# booted systemd creates, replaces and removes entries in its /dev (links, VT devices, the devices of its services).
mount -t tmpfs -o mode=0755,nosuid tmpfs "$root/dev"
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    IFS=: read -r name major minor <<< "$node"
    mknod -m 666 "$root/dev/$name" c "$major" "$minor"
done
mkdir -m 755 "$root/dev/pts" "$root/dev/mqueue"
mkdir -m 1777 "$root/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts"
ln -s pts/ptmx "$root/dev/ptmx"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"
mount -t mqueue mqueue "$root/dev/mqueue"
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$root/run"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/tmp"
cd "$root"
mkdir -p .old-root
pivot_root . .old-root
umount -l /.old-root
rmdir /.old-root
exec env -i container=other PATH=/usr/sbin:/usr/bin:/sbin:/bin /lib/systemd/systemd
'

section "boot"
mkdir -p "$cgroup"
echo $$ > "$cgroup/cgroup.procs"
unshare --pid --fork --mount --uts --ipc --cgroup --propagation private \
    bash -c "$boot_script" boot "$root" < /dev/null > "$system_dir/console.log" 2>&1 &
unshare_pid=$!
# Back to the machine's root cgroup: only the namespace stays in ours.
echo $$ > "$cgroup_mount/cgroup.procs"
for _ in $(seq 1 50); do
    init_pid="$(cat "/proc/$unshare_pid/task/$unshare_pid/children" 2>/dev/null | awk '{print $1}')"
    [ -n "$init_pid" ] && break
    sleep 0.1
done
[ -n "$init_pid" ] || { echo "error: the namespace's PID 1 did not start; see $system_dir/console.log" >&2; exit 1; }

# Commands inside the booted system, as root and as the test user (with the environment a login session has).
in_root() { nsenter -t "$init_pid" -m -p -u -i -C -r -w -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
uid=""
as_user() {
    in_root runuser -u "$user" -- env HOME="/home/$user" USER="$user" XDG_RUNTIME_DIR="/run/user/$uid" \
        DBUS_SESSION_BUS_ADDRESS="unix:path=/run/user/$uid/bus" PATH=/usr/bin:/bin "$@"
}
# wait_for SECONDS COMMAND…: runs COMMAND every half second until it succeeds; fails after SECONDS.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.5
    done
}

state=""
for _ in $(seq 1 240); do
    state="$(in_root systemctl is-system-running 2>/dev/null || true)"
    case "$state" in running | degraded) break ;; esac
    sleep 0.5
done
systemd_version="$(in_root systemctl --version | head -n1)"
echo "booted: $systemd_version, kernel $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
case "$state" in
    running) pass "system is running" ;;
    degraded)
        pass "system is up (degraded); failed units:"
        in_root systemctl --failed --no-legend --plain | sed 's/^/      /'
        ;;
    *) fail "system did not reach running within 120 s (state: ${state:-none}); see $system_dir/console.log"; exit 1 ;;
esac

# ---------------------------------------------------------------------------------------------------------------
section "install"
in_root useradd --create-home --shell /bin/bash "$user"
uid="$(in_root id -u "$user")"
# Everything on the root file system but the user's home, journals, dpkg's own records and the package we copied.
file_list() {
    in_root find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
        -o -path "/home/$user" -o -path /var/log/journal -o -path /root/package -o -path /var/lib/dpkg \
        -o -path /var/cache/debconf -o -path /var/log \) -prune -o -print | LC_ALL=C sort
}
file_list > "$system_dir/files-before"
if in_root dpkg -i "${debs_in_root[@]}"; then
    pass "dpkg -i ${debs_in_root[*]##*/}"
else
    fail "dpkg -i ${debs_in_root[*]##*/}"
    exit 1
fi
in_root dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' "${packages[@]}" | sed 's/^/      /'
in_root dpkg -s preferences | grep -E '^Depends:' | sed 's/^/      preferences /'
# alternative PATH: where the alternative's two links (PATH, then /etc/alternatives/NAME) lead. Not readlink -f:
# /usr/libexec/preferences/plutil is itself a link to defaults (one executable that acts by the name it is run as).
alternative() { in_root readlink "$(in_root readlink "$1" || true)" 2>/dev/null || echo "(not the alternative's link)"; }
links="$(alternative /usr/bin/defaults) $(alternative /usr/bin/plutil) $(alternative /usr/share/man/man1/defaults.1.gz)"
if [ "$links" = "/usr/libexec/preferences/defaults /usr/libexec/preferences/plutil /usr/share/man/man1/defaults.preferences.1.gz" ]; then
    pass "the alternatives: /usr/bin/defaults, /usr/bin/plutil and defaults.1.gz lead to $links"
else
    fail "the alternatives lead to: $links"
fi

# ---------------------------------------------------------------------------------------------------------------
section "socket activation"
in_root loginctl enable-linger "$user"
if wait_for 60 as_user systemctl --user is-system-running; then
    pass "user manager of $user (uid $uid, pid $(in_root systemctl show -P MainPID "user@$uid.service")) started by enable-linger: $(as_user systemctl --user is-system-running)"
else
    fail "user manager of $user is not running: $(as_user systemctl --user is-system-running 2>&1 || true)"
fi
socket_state="$(as_user systemctl --user is-active prefsd.socket 2>&1 || true)"
socket_enabled="$(as_user systemctl --user is-enabled prefsd.socket 2>&1 || true)"
listen="$(as_user systemctl --user show -P Listen prefsd.socket 2>&1 || true)"
if [ "$socket_state" = active ] && [ "$socket_enabled" = enabled ] && [ -S "/proc/$init_pid/root/run/user/$uid/prefsd/socket" ]; then
    pass "prefsd.socket is $socket_enabled by the package and $socket_state, listening on $listen"
else
    fail "prefsd.socket: enabled=$socket_enabled active=$socket_state listen=$listen"
fi
service_before="$(as_user systemctl --user is-active prefsd.service 2>&1 || true)"
as_user defaults write com.example.SystemTest Greeting hello
service_after="$(as_user systemctl --user is-active prefsd.service 2>&1 || true)"
read_back="$(as_user defaults read com.example.SystemTest Greeting 2>&1 || true)"
if [ "$service_before" = inactive ] && [ "$service_after" = active ] && [ "$read_back" = hello ]; then
    pass "the first defaults write started prefsd.service ($service_before -> $service_after); read back: $read_back"
else
    fail "socket activation: prefsd.service $service_before -> $service_after, read back '$read_back'"
fi

# The package made /etc/preferences/forced, so the running prefsd watches it: a policy an administrator puts there
# now reaches what the user's programs read without a restart, and taking it away gives the user's value back.
# explain_until PREFIX: how the user's defaults explains Greeting, once that begins with PREFIX (or after 5 s).
explain_until() {
    local said=""
    for _ in $(seq 50); do
        said="$(as_user defaults explain com.example.SystemTest Greeting 2>&1 || true)"
        [[ "$said" == "$1"* ]] && break
        sleep 0.1
    done
    printf '%s' "$said"
}
in_root sh -c 'mkdir -p /etc/preferences/forced && printf "{ Greeting = admin; }\n" > /etc/preferences/forced/com.example.SystemTest.plist'
forced_read="$(explain_until "Greeting = admin from forced com.example.SystemTest ")"
in_root rm /etc/preferences/forced/com.example.SystemTest.plist
user_read="$(explain_until "Greeting = hello from user com.example.SystemTest ")"
if [[ "$forced_read" == "Greeting = admin from forced "* ]] && [[ "$user_read" == "Greeting = hello from user "* ]]; then
    pass "a forced file put in /etc/preferences/forced while prefsd runs is in effect at once; removed, the user's value is back"
else
    fail "forced file while prefsd runs: explain said '$forced_read' with it, '$user_read' after its removal"
fi

# ---------------------------------------------------------------------------------------------------------------
section "READY and STATUS"
status_text="$(as_user systemctl --user show -P StatusText prefsd.service)"
sub_state="$(as_user systemctl --user show -P SubState prefsd.service)"
as_user systemctl --user status --no-pager --lines=0 prefsd.service | sed 's/^/      /' || true
if [ "$sub_state" = running ] && [[ "$status_text" =~ ^[0-9]+\ domains?,\ [0-9]+\ clients?$ ]]; then
    pass "Type=notify service is running (READY=1 received), STATUS: $status_text"
else
    fail "READY/STATUS: SubState=$sub_state StatusText='$status_text'"
fi

# ---------------------------------------------------------------------------------------------------------------
section "watchdog"
watchdog_sec="$(as_user systemctl --user show -P WatchdogUSec prefsd.service)"
old_pid="$(as_user systemctl --user show -P MainPID prefsd.service)"
old_restarts="$(as_user systemctl --user show -P NRestarts prefsd.service)"
in_root bash -c "kill -STOP $old_pid"
stopped_at=$SECONDS
restarted() {
    local pid restarts
    pid="$(as_user systemctl --user show -P MainPID prefsd.service)"
    restarts="$(as_user systemctl --user show -P NRestarts prefsd.service)"
    [ "$pid" != 0 ] && [ "$pid" != "$old_pid" ] && [ "$restarts" -gt "$old_restarts" ] &&
        [ "$(as_user systemctl --user show -P SubState prefsd.service)" = running ]
}
if wait_for 75 restarted; then
    new_pid="$(as_user systemctl --user show -P MainPID prefsd.service)"
    pass "SIGSTOPped prefsd (pid $old_pid) was killed by the watchdog ($watchdog_sec) and restarted as pid $new_pid after $((SECONDS - stopped_at)) s"
    as_user journalctl --user --no-pager -o cat -u prefsd.service --since "-120s" |
        grep -E "[Ww]atchdog|Main process exited|Scheduled restart" | sed 's/^/      /' || true
else
    fail "no watchdog restart within 75 s of SIGSTOP (WatchdogSec $watchdog_sec)"
    in_root bash -c "kill -CONT $old_pid" 2>/dev/null || true
fi
read_back="$(as_user defaults read com.example.SystemTest Greeting 2>&1 || true)"
if [ "$read_back" = hello ]; then
    pass "the value written before the watchdog kill is still there: $read_back"
else
    fail "after the watchdog restart, Greeting reads '$read_back'"
fi

# ---------------------------------------------------------------------------------------------------------------
section "journal"
journal="$(as_user journalctl --user --no-pager -o verbose -u prefsd.service 2>&1 || true)"
missing=()
for field in SYSLOG_IDENTIFIER=prefsd LOGGER_LABEL=prefsd CODE_FILE= CODE_LINE= CODE_FUNC= LOGGER_SOURCE= PRIORITY=; do
    grep -q "^    $field" <<< "$journal" || missing+=("$field")
done
if [ ${#missing[@]} -eq 0 ]; then
    pass "journalctl --user -u prefsd -o verbose shows our structured fields; the first entry of prefsd:"
    as_user journalctl --user --no-pager -o verbose -u prefsd.service SYSLOG_IDENTIFIER=prefsd -n 1 |
        grep -E '^    (MESSAGE|PRIORITY|SYSLOG_IDENTIFIER|CODE_[A-Z]+|LOGGER_[A-Z]+|PREFS_[A-Z_]+|SOCKET|_SYSTEMD_USER_UNIT)=' |
        sed 's/^    /      /'
else
    fail "journal fields missing: ${missing[*]}"
fi
priority_lines="$(grep -c "Failed to set thread priority" <<< "$journal" || true)"
echo "      libdispatch's 'Failed to set thread priority' lines in prefsd's journal: $priority_lines"
main_pid="$(as_user systemctl --user show -P MainPID prefsd.service)"
nice_values="$(in_root bash -c "for task in /proc/$main_pid/task/*; do cut -d' ' -f19 \$task/stat; done" | sort | uniq -c | xargs)"
echo "      nice values of prefsd's threads (count value): $nice_values"
if [ "$priority_lines" -eq 0 ]; then
    pass "no 'Failed to set thread priority for worker thread' line in prefsd's journal"
else
    fail "libdispatch logged 'Failed to set thread priority' $priority_lines times"
fi

# ---------------------------------------------------------------------------------------------------------------
section "hardening"
security="$(as_user systemd-analyze security --no-pager --user prefsd.service 2>&1 || true)"
score_line="$(grep -E "Overall exposure level" <<< "$security" || true)"
score="$(sed -n 's/.*Overall exposure level for prefsd.service: \([0-9.]*\).*/\1/p' <<< "$score_line")"
if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'; then
    pass "systemd-analyze security --user prefsd.service: $score_line"
else
    fail "systemd-analyze security --user prefsd.service: ${score_line:-no score} (at most 2.0 expected)"
fi
grep -E "^✗" <<< "$security" | sed 's/^/      /' || true
sandbox="$(as_user systemctl --user show -P ProtectSystem,PrivateUsers,MemoryDenyWriteExecute,NoNewPrivileges prefsd.service | paste -sd' ')"
echo "      ProtectSystem, PrivateUsers, MemoryDenyWriteExecute, NoNewPrivileges as applied: $sandbox"

# ---------------------------------------------------------------------------------------------------------------
section "stop and logout flush every change"
domain_file="/home/$user/.config/preferences/com.example.SystemTest.plist"
on_disk() { in_root runuser -u "$user" -- plutil -extract "$1" raw -o - "$domain_file" 2>/dev/null; }
# A long flush delay, so that changes are still only in prefsd when it stops. `defaults write` synchronizes before
# it exits, so the changes are made by Tests/System/pending-writes.py, which does not.
as_user defaults write prefsd FlushDelay -int 600
as_user systemctl --user restart prefsd.service
pairs=()
for i in $(seq 1 20); do pairs+=("Key$i=value$i"); done
as_user /usr/local/bin/pending-writes com.example.SystemTest "${pairs[@]}" | sed 's/^/      /'
pending="$(on_disk Key20 || echo '(not on disk)')"
as_user systemctl --user stop prefsd.service 2>/dev/null
written=0
for i in $(seq 1 20); do
    [ "$(on_disk "Key$i" || true)" = "value$i" ] && written=$((written + 1))
done
if [ "$pending" = "(not on disk)" ] && [ "$written" -eq 20 ]; then
    pass "systemctl --user stop: 20 changes pending in prefsd (Key20 on disk before: $pending) are all on disk after"
else
    fail "systemctl --user stop: Key20 before the stop: $pending; $written of 20 keys on disk after"
fi

pairs=()
for i in $(seq 1 20); do pairs+=("Key$i=after$i"); done
as_user /usr/local/bin/pending-writes com.example.SystemTest "${pairs[@]}" | sed 's/^/      /'
pending="$(on_disk Key20 || true)"
in_root loginctl disable-linger "$user"
if wait_for 60 bash -c "! nsenter -t $init_pid -m -p -r -- systemctl is-active --quiet user@$uid.service"; then
    written=0
    for i in $(seq 1 20); do
        [ "$(on_disk "Key$i" || true)" = "after$i" ] && written=$((written + 1))
    done
    if [ "$pending" = value20 ] && [ "$written" -eq 20 ]; then
        pass "logout (disable-linger ends the user manager): 20 pending changes (Key20 on disk before: $pending) all on disk after"
    else
        fail "logout: Key20 before: $pending; $written of 20 new values on disk after"
    fi
else
    fail "the user manager did not stop within 60 s of disable-linger"
fi

# ---------------------------------------------------------------------------------------------------------------
section "remove and purge"
in_root loginctl enable-linger "$user"
wait_for 60 as_user systemctl --user is-active --quiet prefsd.socket || true
if in_root dpkg -r "${removal_order[@]}" >/dev/null; then
    after_remove="$(as_user systemctl --user is-active prefsd.socket 2>&1 || true)"
    if [ "$after_remove" != active ]; then
        pass "dpkg -r: the running user manager's prefsd.socket is stopped ($after_remove)"
    else
        fail "dpkg -r left prefsd.socket listening in the running user manager"
    fi
else
    fail "dpkg -r ${removal_order[*]}"
fi
in_root loginctl disable-linger "$user"
wait_for 60 bash -c "! nsenter -t $init_pid -m -p -r -- systemctl is-active --quiet user@$uid.service" || true
# dpkg -r removed the packages without conffiles entirely; -P is for those it left in config-files state.
left=()
for package in "${removal_order[@]}"; do
    if [ "$(in_root dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)" = config-files ]; then
        left+=("$package")
    fi
done
if [ ${#left[@]} -eq 0 ] || in_root dpkg -P "${left[@]}" >/dev/null; then
    pass "dpkg -P ${left[*]} (the others had nothing left after dpkg -r)"
else
    fail "dpkg -P ${left[*]}"
fi
file_list > "$system_dir/files-after"
if diff -u "$system_dir/files-before" "$system_dir/files-after" > "$system_dir/files.diff"; then
    pass "after dpkg -r and dpkg -P the root holds exactly the files it held before dpkg -i ($(wc -l < "$system_dir/files-before") paths)"
else
    fail "files left behind or lost (diff of the file lists):"
    sed -n '3,$p' "$system_dir/files.diff" | grep '^[-+]' | sed 's/^/      /'
fi
known=()
for package in "${packages[@]}"; do
    status="$(in_root dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
    [ -z "$status" ] || known+=("$package ($status)")
done
echo "      known to dpkg after the purge: ${known[*]:-none of the ${#packages[@]} packages}"

# ---------------------------------------------------------------------------------------------------------------
section "autopkgtest (debian/tests), as $user with a running user manager"
in_root loginctl enable-linger "$user"
wait_for 60 as_user systemctl --user is-system-running || true
# The null backend: the booted root is the testbed. autopkgtest installs the packages and what the tests need.
autopkgtest_status=0
in_root autopkgtest --user="$user" --output-dir=/root/autopkgtest-out /root/package/source "${debs_in_root[@]}" \
    -- null > "$system_dir/autopkgtest.log" 2>&1 || autopkgtest_status=$?
summary="$(cat "$root/root/autopkgtest-out/summary" 2>/dev/null || true)"
sed 's/^/      /' <<< "$summary"
# Every test of debian/tests/control must pass, socket-activation included: alice's user manager runs, so it may not
# skip (exit status 2 would say that one did).
tests=()
while read -r line; do
    # shellcheck disable=SC2206
    tests+=(${line#Tests:})
done < <(grep '^Tests:' debian/tests/control | tr ',' ' ')
not_passed=()
for test in "${tests[@]}"; do
    grep -Eq "^$test +PASS" <<< "$summary" || not_passed+=("$test")
done
if [ "$autopkgtest_status" -eq 0 ] && [ ${#not_passed[@]} -eq 0 ]; then
    pass "autopkgtest: all ${#tests[@]} tests of debian/tests passed (${tests[*]}; log: $system_dir/autopkgtest.log)"
else
    fail "autopkgtest: exit status $autopkgtest_status, not passed: ${not_passed[*]:-none}; see $system_dir/autopkgtest.log"
    # allow-stderr: a test's own FAIL line is in its stderr file, which the log does not show.
    for test in "${not_passed[@]}"; do
        sed "s/^/      $test: /" "$root/root/autopkgtest-out/$test-stderr" 2>/dev/null || true
    done
    tail -n 20 "$system_dir/autopkgtest.log" | sed 's/^/      /'
fi

# ---------------------------------------------------------------------------------------------------------------
section "GNUstep's defaults and plutil beside ours"
# gnustep-base-runtime ships /usr/bin/defaults, /usr/bin/plutil and their manual pages as files. dpkg replaces the
# alternatives' links, which no package owns, with them; update-alternatives never replaces a file with a link.
in_root dpkg -i "${debs_in_root[@]}" >/dev/null
owner() { in_root dpkg -S "$1" 2>/dev/null | cut -d: -f1 || echo "no package"; }
if in_root bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnustep-base-runtime' \
    > "$system_dir/gnustep.log" 2>&1; then
    pass "gnustep-base-runtime installed beside preferences (no conflict): $(in_root dpkg-query -W -f='${Version}' gnustep-base-runtime)"
else
    fail "apt-get install gnustep-base-runtime beside preferences; see $system_dir/gnustep.log"
fi
gnustep_file="$(in_root stat -c %F /usr/bin/defaults) of $(owner /usr/bin/defaults)"
echo "      /usr/bin/defaults is now a $gnustep_file; update-alternatives --display defaults:"
in_root update-alternatives --display defaults | sed 's/^/        /'
reinstall="$(in_root dpkg -i "/root/package/$(basename "${deb_of[preferences]}")" 2>&1 || true)"
grep -i "not replacing" <<< "$reinstall" | sed 's/^/      preferences reinstalled: /' || true
if [ "$(in_root stat -c %F /usr/bin/defaults)" = "regular file" ] && [ "$(owner /usr/bin/defaults)" = gnustep-base-runtime ] &&
    [[ "$(as_user /usr/libexec/preferences/defaults explain prefsd IdleExitSeconds 2>&1)" == "IdleExitSeconds = 60 "* ]]; then
    pass "with both installed /usr/bin/defaults is GNUstep's file, ours runs as /usr/libexec/preferences/defaults"
else
    fail "with both installed: /usr/bin/defaults is a $(in_root stat -c %F /usr/bin/defaults) of $(owner /usr/bin/defaults)"
fi
# GNUstep's package removed: its files go, and nothing makes the links again until update-alternatives is run.
in_root apt-get remove -y -qq gnustep-base-runtime >> "$system_dir/gnustep.log" 2>&1
after_remove="$(in_root stat -c %F /usr/bin/defaults 2>&1 || true)"
in_root update-alternatives --auto defaults >/dev/null 2>&1
in_root update-alternatives --auto plutil >/dev/null 2>&1
if [[ "$after_remove" == *"No such file"* ]] &&
    [ "$(alternative /usr/bin/defaults)" = /usr/libexec/preferences/defaults ] &&
    [ "$(alternative /usr/bin/plutil)" = /usr/libexec/preferences/plutil ]; then
    pass "gnustep-base-runtime removed: no /usr/bin/defaults until update-alternatives --auto, which links ours again"
else
    fail "gnustep-base-runtime removed: /usr/bin/defaults was '$after_remove', then leads to $(alternative /usr/bin/defaults) and $(alternative /usr/bin/plutil)"
fi
in_root bash -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnustep-base-runtime' \
    >> "$system_dir/gnustep.log" 2>&1
# What an administrator does to have ours as defaults and plutil with GNUstep's installed: divert GNUstep's files out
# of the way, then let update-alternatives make its links again.
for path in /usr/bin/defaults /usr/bin/plutil /usr/share/man/man1/defaults.1.gz /usr/share/man/man1/plutil.1.gz; do
    in_root dpkg-divert --local --rename --divert "${path%%.1.gz}.gnustep${path#"${path%%.1.gz}"}" --add "$path" >/dev/null
done
in_root update-alternatives --auto defaults >/dev/null
in_root update-alternatives --auto plutil >/dev/null
if [ "$(alternative /usr/bin/defaults)" = /usr/libexec/preferences/defaults ] &&
    [ "$(alternative /usr/bin/plutil)" = /usr/libexec/preferences/plutil ] &&
    in_root test -f /usr/bin/defaults.gnustep && in_root test -f /usr/share/man/man1/defaults.gnustep.1.gz; then
    pass "after dpkg-divert of GNUstep's four files and update-alternatives --auto: ours is /usr/bin/defaults, GNUstep's /usr/bin/defaults.gnustep"
else
    fail "diversion: /usr/bin/defaults leads to $(alternative /usr/bin/defaults), /usr/bin/plutil to $(alternative /usr/bin/plutil)"
fi

section "result"
if [ "$failures" -eq 0 ]; then
    echo "every check passed"
else
    echo "$failures check(s) failed"
    exit 1
fi
