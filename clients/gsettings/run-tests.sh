#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Tests the GSettings backend (docs/GSETTINGS.md) with real parts: the built prefsd and defaults, GLib's gsettings
# tool, the installed GNOME schemas and the test schema in tests/, each run in a temporary home.
# usage: clients/gsettings/run-tests.sh <bin-dir>      (<bin-dir>: "$(swift build --show-bin-path)")
set -uo pipefail

bin_dir="${1:?usage: $0 <bin-dir with prefsd and defaults>}"
bin_dir="$(cd "$bin_dir" && pwd)"
for program in prefsd defaults; do
    [ -x "$bin_dir/$program" ] || { echo "error: $bin_dir/$program is missing; build first" >&2; exit 1; }
done
for tool in gsettings glib-compile-schemas make cc; do
    command -v "$tool" >/dev/null || { echo "error: $tool is not installed (libglib2.0-bin, build tools)" >&2; exit 1; }
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repository="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-$repository/.build/c}"
# Absolute: the Makefiles run in their own directories.
case "$build" in /*) ;; *) build="$repository/$build" ;; esac
started=$SECONDS

make -s -C "$repository/clients/c" BUILD_DIR="$build" || { echo "error: libpreferences does not build" >&2; exit 1; }
make -s -C "$here" BUILD_DIR="$build" tests || { echo "error: the GSettings module does not build" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/gsettings-tests.XXXXXX")"
prefsd_pid=""
background=()
cleanup() {
    for pid in "${background[@]}" $prefsd_pid; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# The home of clients/python/tests/support.py: a Preferences directory, a system directory, the repository's
# shipped domains, a private runtime directory and the socket prefsd makes (its directory 0700).
mkdir -p "$work/prefs" "$work/system/forced" "$work/config" "$work/schemas"
install -d -m 0700 "$work/runtime"
unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID LISTEN_FDS LISTEN_PID LISTEN_FDNAMES JOURNAL_STREAM G_MESSAGES_DEBUG
export PREFERENCES_HOME="$work/prefs" PREFERENCES_SYSTEM_DIR="$work/system"
export PREFERENCES_DOMAINS_DIR="$repository/Domains"
export XDG_RUNTIME_DIR="$work/runtime" XDG_CONFIG_HOME="$work/config" HOME="$work" PREFSD_SOCKET="$work/run/socket"
export PREFERENCES_DAEMON=on
export GIO_EXTRA_MODULES="$build/gio-modules" GSETTINGS_BACKEND=preferences GSETTINGS_SCHEMA_DIR="$work/schemas"
export LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cp "$here"/tests/*.gschema.xml "$work/schemas/"
glib-compile-schemas --strict "$work/schemas" || { echo "error: the test schemas do not compile" >&2; exit 1; }

S=org.example.preferences.types
P=org.example.preferences.profile
F="$PREFERENCES_HOME/$S.plist"
probe="$build/gsettings/settings-probe"
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
expect() { # what, expected, actual
    if [ "$2" == "$3" ]; then pass; else fail "$1: expected [$2], got [$3]"; fi
}
expect_contains() { # what, needle, haystack
    if [[ "$3" == *"$2"* ]]; then pass; else fail "$1: [$3] does not contain [$2]"; fi
}
defaults() { "$bin_dir/defaults" "$@"; }
plist() { # a plist file holding the given XML body
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">%s</plist>\n' "$1"
}
wait_for_line() { # file, line[, tries of 50 ms, default 200]: waits for the file to hold that line
    local tries="${3:-200}"
    while [ "$tries" -gt 0 ]; do
        grep -qxF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
        tries=$((tries - 1))
    done
    return 1
}
start_prefsd() {
    "$bin_dir/prefsd" >>"$work/prefsd.log" 2>&1 &
    prefsd_pid=$!
    local deadline=$((SECONDS + 10))
    until defaults domains >/dev/null 2>&1; do
        kill -0 "$prefsd_pid" 2>/dev/null || { echo "error: prefsd exited: $(cat "$work/prefsd.log")" >&2; exit 1; }
        [ $SECONDS -lt $deadline ] || { echo "error: prefsd did not answer within 10 s" >&2; exit 1; }
        sleep 0.05
    done
}
stop_prefsd() {
    kill "$prefsd_pid" && wait "$prefsd_pid" 2>/dev/null
    prefsd_pid=""
}
# A `gsettings monitor` of the schema, ready once it has reported a write (it may subscribe after it started).
start_monitor() { # output file, monitor arguments...
    local output="$1"
    shift
    gsettings monitor "$@" >"$output" 2>>"$work/monitor.stderr" &
    background+=($!)
    local deadline=$((SECONDS + 10)) mark=1000
    while [ $SECONDS -lt $deadline ]; do
        mark=$((mark + 1))
        defaults write "$S" uint16 -int $mark
        if wait_for_line "$output" "uint16: uint16 $mark" 4; then return 0; fi
    done
    fail "gsettings monitor $* reported nothing within 10 s"
}

# ---- The mapping, without prefsd ---------------------------------------------------------------------------------
if "$build/gsettings/test-gvariant-mapping" >"$work/unit.log" 2>&1; then pass; else fail "test-gvariant-mapping:
$(cat "$work/unit.log")"; fi

# Forced and system layers exist before prefsd starts; later changes to them are live.
plist "<dict><key>forced</key><string>admin</string></dict>" >"$work/system/forced/$S.plist"
plist "<dict><key>system</key><integer>42</integer></dict>" >"$work/system/$S.plist"
plist "<dict><key>gtk-theme</key><string>SystemTheme</string></dict>" >"$work/system/org.gnome.desktop.interface.plist"
start_prefsd

# ---- Every type class: gsettings set, the natural plist where there is one, gsettings get back ------------------
# key | value given to gsettings set | what gsettings get prints | defaults read-type (- for the tagged form)
while IFS='|' read -r key value printed type; do
    [ -z "$key" ] && continue
    gsettings set "$S" "$key" "$value" 2>>"$work/set.stderr" || fail "gsettings set $S $key $value failed"
    expect "get $key" "$printed" "$(gsettings get "$S" "$key" 2>&1)"
    if [ "$type" == "-" ]; then
        expect_contains "$key stored tagged" '"$gvariant" = ' "$(defaults read "$S" "$key")"
    else
        expect "read-type $key" "Type is $type" "$(defaults read-type "$S" "$key")"
    fi
done <<'EOF'
boolean|true|true|boolean
byte|200|byte 0xc8|integer
int16|-300|int16 -300|integer
uint16|60000|uint16 60000|integer
int32|-2000000000|-2000000000|integer
uint32|4000000000|uint32 4000000000|integer
int64|-9000000000000000000|int64 -9000000000000000000|integer
uint64|18000000000000000000|uint64 18000000000000000000|integer
handle|handle 3|handle 3|-
double|0.1|0.10000000000000001|float
string|it's|"it's"|string
object-path|'/a/b'|objectpath '/a/b'|-
signature|'a{sv}'|signature 'a{sv}'|-
bytes|b'abc'|b'abc'|data
strings|['a', 'b c']|['a', 'b c']|array
string-dictionary|{'a': 'y', 'b': 'x'}|{'a': 'y', 'b': 'x'}|dictionary
pair|(1, 2)|(1, 2)|-
maybe|just ('x',)|@m(s) ('x',)|-
variant|<(1, 'a')>|<(1, 'a')>|-
records|[('a', 1)]|[('a', 1)]|-
int64s|[int64 1, 2]|[int64 1, 2]|-
doubles|[1.5, -0.0]|[1.5, -0.0]|-
byte-strings|[b'a', b'']|[b'a', b'']|-
nested|{'a': {'b': <1>}}|{'a': {'b': <1>}}|-
int-dictionary|{1: 'one'}|{1: 'one'}|-
tuple|('s', true, 1.25, <'v'>)|('s', true, 1.25, <'v'>)|-
variants|[<1>, <'s'>]|[<1>, <'s'>]|-
maybe-maybe|just nothing|@mmb just nothing|-
color|green|'green'|string
EOF
# An a{sv} of every kind of value inside a variant, natural and tagged.
vardict="{'as': <['q']>, 'b': <true>, 'big': <int64 5000000000>, 'd': <2.5>, 'i': <1>, 'n': <{'k': <'v'>}>, "
vardict+="'o': <objectpath '/p'>, 's': <'t'>, 'tag': <{'\$gvariant': <'x'>}>, 'u': <uint32 5>, 'v': <<1>>, "
vardict+="'x': <int64 5>}"
gsettings set "$S" vardict "$vardict" || fail "gsettings set $S vardict failed"
expect "get vardict" "$vardict" "$(gsettings get "$S" vardict)"
expect "read-type vardict" "Type is dictionary" "$(defaults read-type "$S" vardict)"
# The natural values as defaults prints them.
expect "defaults read int32" "-2000000000" "$(defaults read "$S" int32)"
expect "defaults read uint64" "18000000000000000000" "$(defaults read "$S" uint64)"
expect "defaults read string" "it's" "$(defaults read "$S" string)"
expect "defaults read color" "green" "$(defaults read "$S" color)"
expect "defaults read bytes" "{length = 4, bytes = 0x61626300}" "$(defaults read "$S" bytes)"
expect "defaults read strings" "$(printf '(\n    a,\n    "b c"\n)')" "$(defaults read "$S" strings)"
expect "defaults read pair" "$(printf '{\n    "$gvariant" = "(1, 2)";\n}')" "$(defaults read "$S" pair)"
vardict="$(defaults read "$S" vardict)"
expect_contains "vardict big stays an integer" "big = 5000000000;" "$vardict"
expect_contains "vardict int64 5 is tagged" '"$gvariant" = "int64 5";' "$vardict"
expect_contains "vardict tag-shaped value is tagged" "\"\$gvariant\" = \"{'\$gvariant': <'x'>}\";" "$vardict"
expect "range check still applies" "1" "$(gsettings set "$S" ranged 11 >/dev/null 2>&1; echo $?)"

# ---- Values written with defaults: the natural ones read, the wrong ones give the schema's default ---------------
defaults write "$S" int32 -int 91
expect "defaults write -int" "91" "$(gsettings get "$S" int32)"
defaults write "$S" double -int 3
expect "an integer for a double" "3.0" "$(gsettings get "$S" double)"
defaults write "$S" vardict "<dict><key>arr</key><array><integer>1</integer><string>x</string></array>$(
    )<key>r</key><real>1.5</real><key>t</key><true/><key>e</key><array/></dict>"
expect "a plist dictionary as a{sv}" "{'arr': <[<1>, <'x'>]>, 'e': <@as []>, 'r': <1.5>, 't': <true>}" \
    "$(gsettings get "$S" vardict)"
while IFS='|' read -r key arguments printed; do
    [ -z "$key" ] && continue
    eval "defaults write $S $key $arguments"
    expect "wrong type for $key reads the default" "$printed" "$(gsettings get "$S" "$key" 2>"$work/wrong.stderr")"
    expect_contains "wrong type for $key is reported" "key /org/example/preferences/types/$key" \
        "$(cat "$work/wrong.stderr")"
done <<'EOF'
int32|hello|-32
byte|-int 300|byte 0x07
uint32|-int -1|uint32 32
boolean|-int 1|false
double|hello|0.5
strings|-array a -int 1|['default']
string-dictionary|-dict k -int 1|{'default': 'value'}
vardict|-dict d -date 2024-01-01|{'default': <1>}
pair|'<dict><key>$gvariant</key><string>(1,</string></dict>'|(0, 0)
pair|"<dict><key>\$gvariant</key><string>('a', 'b')</string></dict>"|(0, 0)
handle|-int 3|handle 0
bytes|abc|b''
EOF
expect_contains "the reason is given" "a string is stored where an int32 (i) is expected" \
    "$(gsettings get "$S" int32 2>&1 >/dev/null)"

# ---- Reset, list-recursively ----------------------------------------------------------------------------------
gsettings set "$S" int32 5
gsettings reset "$S" int32
expect "reset reads the default" "-32" "$(gsettings get "$S" int32)"
expect "reset removes the key" "1" "$(defaults read "$S" int32 >/dev/null 2>&1; echo $?)"
gsettings set "$S" string "listed"
listing="$(gsettings list-recursively "$S" 2>/dev/null)"
expect "list-recursively lists every key" "$(gsettings list-keys "$S" | wc -l)" "$(printf '%s\n' "$listing" | wc -l)"
expect_contains "list-recursively shows a set value" "$S string 'listed'" "$listing"
expect_contains "list-recursively shows a default" "$S int32 -32" "$listing"

# ---- Relocatable schemas, and paths that name no domain ---------------------------------------------------------
gsettings set "$P:/org/example/profiles/p1/" name first
gsettings set "$P:/org/example/profiles/p2/" size 20
expect "relocatable p1 in its domain" "first" "$(defaults read org.example.profiles.p1 name)"
expect "relocatable p2 in its domain" "20" "$(defaults read org.example.profiles.p2 size)"
expect "relocatable p1 back" "'first'" "$(gsettings get "$P:/org/example/profiles/p1/" name)"
expect "relocatable p2 keeps its default" "'unnamed'" "$(gsettings get "$P:/org/example/profiles/p2/" name)"
for path in /org/example/bad:path/ /org/example/dotted.name/; do
    expect "$path not writable" "false" "$(gsettings writable "$P:$path" name 2>/dev/null)"
    expect "$path set fails" "1" "$(gsettings set "$P:$path" name x 2>/dev/null; echo $?)"
    expect "$path reads the default" "'unnamed'" "$(gsettings get "$P:$path" name 2>"$work/path.stderr")"
    expect_contains "$path is reported" "key ${path}name is not stored in Preferences" "$(cat "$work/path.stderr")"
done

# ---- Layers: forced is locked, system and the rest are defaults ---------------------------------------------------
expect "forced value" "'admin'" "$(gsettings get "$S" forced)"
expect "forced not writable" "false" "$(gsettings writable "$S" forced)"
expect "forced set fails" "1" "$(gsettings set "$S" forced "'mine'" 2>"$work/forced.stderr"; echo $?)"
expect_contains "forced set names the file" "$work/system/forced/$S.plist" "$(cat "$work/forced.stderr")"
expect "forced value kept" "'admin'" "$(gsettings get "$S" forced)"
expect "forced explain" "forced = admin from forced $S ($work/system/forced/$S.plist)" "$(defaults explain "$S" forced)"
expect "writable key" "true" "$(gsettings writable "$S" string)"
expect "system default" "value=42 user=none default=42 writable=true" "$("$probe" describe "$S" system)"
gsettings set "$S" system 7
expect "user over system" "value=7 user=7 default=42 writable=true" "$("$probe" describe "$S" system)"
gsettings reset "$S" system
expect "reset to system" "42" "$(gsettings get "$S" system)"
expect "forced is the default value too" "value='admin' user=none default='admin' writable=false" \
    "$("$probe" describe "$S" forced)"
expect "schema default when no layer holds it" "value=5 user=none default=5 writable=true" \
    "$("$probe" describe "$S" ranged)"

# A real GNOME schema: where a setting comes from.
I=org.gnome.desktop.interface
expect "GNOME system default" "'SystemTheme'" "$(gsettings get $I gtk-theme)"
expect "explain system" "\"gtk-theme\" = SystemTheme from system $I ($work/system/$I.plist)" \
    "$(defaults explain $I gtk-theme)"
gsettings set $I gtk-theme 'Adwaita-dark'
expect "GNOME user value" "Adwaita-dark" "$(defaults read $I gtk-theme)"
expect "explain user over system" "$(printf '%s\n  %s' \
    "\"gtk-theme\" = \"Adwaita-dark\" from user $I ($PREFERENCES_HOME/$I.plist)" \
    "shadows SystemTheme from system $I ($work/system/$I.plist)")" "$(defaults explain $I gtk-theme)"
gsettings reset $I gtk-theme
expect "GNOME reset" "'SystemTheme'" "$(gsettings get $I gtk-theme)"
gsettings set $I clock-show-seconds true
gsettings set $I text-scaling-factor 1.25
gsettings set $I cursor-size 32
gsettings set $I color-scheme prefer-dark
gsettings set org.gnome.desktop.input-sources sources "[('xkb', 'us'), ('xkb', 'de')]"
gsettings set org.gnome.desktop.wm.keybindings switch-windows "['<Alt>Tab']"
expect "GNOME boolean" "Type is boolean" "$(defaults read-type $I clock-show-seconds)"
expect "GNOME double" "1.25" "$(defaults read $I text-scaling-factor)"
expect "GNOME int" "32" "$(defaults read $I cursor-size)"
expect "GNOME enum" "prefer-dark" "$(defaults read $I color-scheme)"
expect "GNOME a(ss)" "[('xkb', 'us'), ('xkb', 'de')]" "$(gsettings get org.gnome.desktop.input-sources sources)"
expect "GNOME as" "$(printf '(\n    "<Alt>Tab"\n)')" "$(defaults read org.gnome.desktop.wm.keybindings switch-windows)"

# ---- Several keys at once (write_tree): one atomic change, refused whole when a key is forced -------------------
expect "apply" "0" "$("$probe" apply "$S" int32 5 string "'applied'" strings "['x']"; echo $?)"
expect "apply int32" "5" "$(defaults read "$S" int32)"
expect "apply string" "applied" "$(defaults read "$S" string)"
expect "apply with a forced key fails" "1" \
    "$("$probe" apply "$S" int32 6 forced "'no'" 2>/dev/null; echo $?)"
expect "nothing of a refused apply is written" "5" "$(defaults read "$S" int32)"

# ---- Notifications ------------------------------------------------------------------------------------------------
expect "one notification per write (the echo is dropped)" "1" "$("$probe" notify-count "$S" int32 77)"
# A change made while the key's subscription is still being made (100 others queued before it) is notified.
expect "a change before the subscription exists" "notified 501" \
    "$("$probe" early-change "$S" int32 "$bin_dir/defaults" write "$S" int32 -int 501)"
start_monitor "$work/monitor.out" "$S"
defaults write "$S" int32 -int 91
wait_for_line "$work/monitor.out" "int32: 91" && pass || fail "monitor did not see defaults write"
gsettings set "$S" string "'before edit'" # gsettings syncs: the file on disk holds it
sed -i "s|<string>before edit</string>|<string>hand edited</string>|" "$F"
wait_for_line "$work/monitor.out" "string: 'hand edited'" && pass || fail "monitor did not see the hand edit"
plist "<dict><key>forced</key><string>admin</string><key>int16</key><integer>-5</integer></dict>" \
    >"$work/system/forced/$S.plist"
wait_for_line "$work/monitor.out" "int16: int16 -5" && pass || fail "monitor did not see a new forced value"
expect "newly forced key not writable" "false" "$(gsettings writable "$S" int16)"
plist "<dict><key>forced</key><string>admin</string></dict>" >"$work/system/forced/$S.plist"
wait_for_line "$work/monitor.out" "int16: int16 -300" && pass || fail "monitor did not see the forced value go"
expect "unforced key writable again" "true" "$(gsettings writable "$S" int16)"
plist "<dict><key>system</key><integer>43</integer></dict>" >"$work/system/$S.plist"
wait_for_line "$work/monitor.out" "system: 43" && pass || fail "monitor did not see the system layer change"
gsettings set "$S" double 2.5
wait_for_line "$work/monitor.out" "double: 2.5" && pass || fail "monitor did not see another process's gsettings set"
"$probe" apply "$S" int32 8 uint32 9 >/dev/null
wait_for_line "$work/monitor.out" "uint32: uint32 9" && pass || fail "monitor did not see an applied tree"

# gsettings set, seen by defaults watch.
"$bin_dir/defaults" watch "$S" >"$work/watch.out" 2>"$work/watch.err" &
background+=($!)
wait_for_line "$work/watch.err" "Watching domain $S; press Control-C to stop." || fail "defaults watch did not start"
gsettings set "$S" string "'from gsettings'"
wait_for_line "$work/watch.out" "$S string = \"from gsettings\"" && pass || fail "defaults watch did not see the set"
gsettings reset "$S" string
wait_for_line "$work/watch.out" "$S string deleted" && pass || fail "defaults watch did not see the reset"

# ---- prefsd away: defaults and failed writes, one warning; back again: notifications resume ----------------------
stop_prefsd
away="$(gsettings get "$S" int32 2>"$work/away.stderr")"
expect "prefsd away: the default" "-32" "$away"
expect "prefsd away: warned once" "1" "$(grep -c 'prefsd cannot be reached' "$work/away.stderr")"
expect "prefsd away: set fails" "1" "$(gsettings set "$S" int32 4 2>/dev/null; echo $?)"
gsettings monitor "$S" >"$work/late.out" 2>/dev/null &
background+=($!)
sleep 0.3 # the late monitor has found prefsd away and waits to subscribe
start_prefsd
defaults write "$S" int32 -int 123
wait_for_line "$work/monitor.out" "int32: 123" && pass || fail "monitor did not resume after prefsd restarted"
deadline=$((SECONDS + 10))
until grep -qxF "int32: 124" "$work/late.out" || [ $SECONDS -ge $deadline ]; do
    defaults write "$S" int32 -int 124
    sleep 0.2
    defaults write "$S" int32 -int 0
done
grep -qxF "int32: 124" "$work/late.out" && pass || fail "a monitor started while prefsd was away never subscribed"

# ---- Shipped (registration) defaults: prefsd again, with a shipped directory holding one of the schema's keys ----
stop_prefsd
mkdir -p "$work/domains"
cp -R "$repository/Domains/." "$work/domains/"
plist "<dict><key>byte</key><integer>9</integer></dict>" >"$work/domains/$S.plist"
export PREFERENCES_DOMAINS_DIR="$work/domains"
start_prefsd
gsettings reset "$S" byte
expect "shipped default" "value=byte 0x09 user=none default=byte 0x09 writable=true" "$("$probe" describe "$S" byte)"
expect "explain shipped" "byte = 9 from shipped $S ($work/domains/$S.plist)" "$(defaults explain "$S" byte)"
gsettings set "$S" byte 10
expect "user over shipped" "value=byte 0x0a user=byte 0x0a default=byte 0x09 writable=true" \
    "$("$probe" describe "$S" byte)"

# ---- Migration: values GSettings wrote through dconf, adopted by `defaults migrate -from dconf`, read back here ----
# The same schema keys, each set through the real dconf backend (dconf-service on a private session bus), then read
# through both backends: what this one gives after the migration is what dconf gives, for every type class. Both
# implementations of the mapping (PrefsGVariant for migrate, gvariant-mapping.c here) meet in this check. A
# dictionary's keys are in byte order, as the store keeps them (docs/GSETTINGS.md, "Dictionaries").
if command -v dconf >/dev/null && command -v dbus-run-session >/dev/null; then
    migrated=(boolean=true byte=42 int16=-7 uint16=9 int32=-99 uint32=99 int64=-9000000000
        uint64=18446744073709551615 "handle=handle 3" double=2.75 "string='from dconf'" "object-path='/from/dconf'"
        "signature='a{sv}'" "bytes=[byte 0x01, 0x02]" "strings=['a', 'b']" "string-dictionary={'x': 'y'}"
        "vardict={'b': <true>, 'j': <(1, 'x')>, 'k': <int64 3>, 'n': <@ms nothing>}" "pair=(3, 4)"
        "maybe=just ('m',)" "variant=<uint32 8>" "records=[('r', 1)]" "int64s=[1, 2]" "doubles=[1.5]"
        "byte-strings=[b'ab']" "nested={'o': {'i': <'v'>}}" "int-dictionary={1: 'one'}"
        "tuple=('t', true, 1.5, <'v'>)" "variants=[<1>, <'s'>]" "maybe-maybe=just nothing" "color='blue'")
    printf '%s\n' "${migrated[@]}" >"$work/migrated.txt"
    GSETTINGS_BACKEND=dconf dbus-run-session -- bash -c '
        while IFS= read -r line; do gsettings set '"$S"' "${line%%=*}" "${line#*=}" || exit 1; done <"$1"
        gsettings set '"$P"':/org/example/profiles/migrated/ name "from dconf"
    ' migrate "$work/migrated.txt" 2>"$work/dconf.stderr" || fail "gsettings set through dconf: $(cat "$work/dconf.stderr")"
    output="$(defaults migrate -from dconf -overwrite 2>&1)"
    expect "migrate -from dconf exit status" "0" "$?"
    expect_contains "migrate names the domain" "$S from dconf" "$output"
    for line in "${migrated[@]}"; do
        key="${line%%=*}"
        expect "migrated $key" "$(GSETTINGS_BACKEND=dconf gsettings get "$S" "$key" 2>&1)" "$(gsettings get "$S" "$key" 2>&1)"
    done
    expect "migrated relocatable" "'from dconf'" "$(gsettings get "$P":/org/example/profiles/migrated/ name)"
else
    echo "gsettings backend: dconf or dbus-run-session is not installed; the migration check was skipped"
fi

echo "gsettings backend: $passed passed, $failed failed in $((SECONDS - started)) s"
[ "$failed" -eq 0 ]
