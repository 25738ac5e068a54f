#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# bridge_mld's "MLDv2 report ff02::cc exclude -> block", alone, eight times
# (README, "Kernels tested"): with xdpnet's follower and without one, then
# both beside a busy loop. Run in a guest with the selftests:
#   XNK_SUITE=bookworm XNK_PARTS=none XNK_SELFTESTS=1 \
#     XNK_SCRIPT=tests/kernels/mld-timing.sh tests/kernels/run.sh
# Each line: whether it passed on the plain bridge ("SKIP fails on the
# plain bridge") and then with xdpnet. A look, not a check: exit 0.
cd "$(dirname "$0")/../.." || exit 1
S=$(mktemp -d /tmp/mldsel.XXXXXX)
cp -a "${XNK_SELFTESTS_DIR:?run in a guest with XNK_SELFTESTS=1}/." "$S"
sed -i '/^ALL_TESTS=/,/"$/c ALL_TESTS="mldv2exc_block_test"' "$S/forwarding/bridge_mld.sh"
mkdir -p build
cat >build/xn-nofollow <<'EOT'
#!/bin/sh
X=$(dirname "$0")/xdpnet
if [ "$1" = attach ]; then b=$2; shift 2; exec "$X" attach "$b" --no-follow "$@"; fi
exec "$X" "$@"
EOT
chmod +x build/xn-nofollow
one() { # LABEL
	local t0=$SECONDS out
	out=$(tests/kernels/selftests.sh "$S" bridge_mld.sh 2>&1)
	echo "== $1 ($((SECONDS - t0)) s): $(echo "$out" | grep -E '^(ok|not ok)' | cut -c1-150)"
}
for i in 1 2 3; do
	one "follower $i"
	XDPNET=$PWD/build/xn-nofollow one "no follower $i"
done
nice -n 19 sh -c 'while :; do :; done' &
HOG=$!
one "follower, busy loop beside"
XDPNET=$PWD/build/xn-nofollow one "no follower, busy loop beside"
kill "$HOG"
rm -rf "$S" build/xn-nofollow
