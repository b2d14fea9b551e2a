#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the kept corpus (Fuzz/Corpus): no file in it may be identical to a file of ../shared/corpus, whose files
# are under their own licences and are read in place, never copied into the repository; and it stays small (2 MiB
# in all). libFuzzer names a corpus file by its SHA-1, but a file's name proves nothing, so contents are hashed.
# usage: Fuzz/check-corpus.sh             fail on an identical file or an oversized corpus
#        Fuzz/check-corpus.sh --remove D  delete the files of D identical to a shared file (after a merge)
set -euo pipefail
cd "$(dirname "$0")"
shared="../../shared/corpus"
limit_kib=2048
remove=0
dirs=(Corpus)
if [ "${1:-}" = --remove ]; then
    remove=1
    dirs=("$2")
fi
[ -d "${dirs[0]}" ] || exit 0
if [ -d "$shared" ]; then
    # Hashes of the kept files that also hash as a shared file.
    shared_hashes="$(find "$shared" -type f -exec sha256sum {} + | awk '{print $1}' | sort -u)"
    identical="$(find "${dirs[@]}" -type f -exec sha256sum {} + | sort |
        join -j 1 -o 1.2 - <(printf '%s\n' "$shared_hashes") || true)"
    if [ -n "$identical" ]; then
        if [ "$remove" = 1 ]; then
            printf '%s\n' "$identical" | xargs rm -f
        else
            printf 'Fuzz/%s is identical to a file of the shared corpus\n' $identical >&2
            exit 1
        fi
    fi
fi
size_kib="$(du -sk --apparent-size Corpus | cut -f1)"
if [ "$size_kib" -gt "$limit_kib" ]; then
    echo "Fuzz/Corpus is $size_kib KiB, more than $limit_kib KiB: minimise it or lower FUZZ_MAX_LEN" >&2
    [ "$remove" = 1 ] || exit 1
fi
