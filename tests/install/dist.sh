#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make dist (no root): the release tarball holds the tree under
# xdpnet-VERSION/ with LICENSE, COPYING and .git-describe and without
# debian/ or build/; it is reproducible: made again after a file's mtime
# changed, and made from the tarball itself, it is the same bytes.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$(mktemp -d /tmp/xndist.XXXXXX)
trap 'rm -rf "$D"' EXIT
. "$ROOT/tests/install/checks.sh"

version=$(sed -n 's/^#define XDPNET_VERSION_STR "\(.*\)"$/\1/p' "$ROOT/include/xdpnet.h")
name=xdpnet-$version
# A copy of the work tree (its git metadata too), so that nothing here
# touches the work tree's build/.
mkdir -p "$D/tree"
GIT=0
git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 && GIT=1
if [ $GIT = 1 ]; then
	git -C "$ROOT" ls-files -co --exclude-standard | (cd "$ROOT" && tar -cf - -T -)
else
	(cd "$ROOT" && tar --exclude=./build --exclude=./results --exclude=./.git -cf - .)
fi | tar -xf - -C "$D/tree"
if [ $GIT = 1 ]; then
	# The copy's git: the work tree's history (the last commit's time).
	git clone -q --no-checkout "$ROOT" "$D/clone" && mv "$D/clone/.git" "$D/tree/.git"
	git -C "$D/tree" reset -q
fi
dist() { make -s -C "$1" dist OUT="$2" >"$D/make.log" 2>&1 || cat "$D/make.log"; }

dist "$D/tree" "$D/out1"
tgz=$D/out1/$name.tar.gz
check "make dist makes $name.tar.gz" [ -s "$tgz" ]
list=$(tar -tzf "$tgz")
check "every file under $name/" bash -c "! grep -v '^$name/' <<<'$list'"
for f in LICENSE COPYING Makefile README.md .git-describe include/xdpnet.h; do
	check "it holds $f" grep -qx "$name/$f" <<<"$list"
done
check "no debian/, build/ or .git in it" \
	bash -c "! grep -E '^$name/(debian|build|results|\\.git)/' <<<'$list'"
check "files owned by 0/0, no group- or other-writable file" \
	bash -c "! tar -tzvf '$tgz' | awk '\$2 != \"0/0\" || substr(\$1, 6, 1) == \"w\" || substr(\$1, 9, 1) == \"w\"' | grep -q ."

check "no file dated before 1980 (lintian: ancient files)" \
	bash -c "! tar -tzvf '$tgz' | awk '\$4 < \"1980\"' | grep -q ."
# Without git: the time is debian/changelog's (no .git-describe yet).
mkdir -p "$D/nogit"
(cd "$D/tree" && tar --exclude=./.git -cf - .) | tar -xf - -C "$D/nogit"
dist "$D/nogit" "$D/outng"
check "made without git: no file dated before 1980" \
	bash -c "! tar -tzvf '$D/outng/$name.tar.gz' | awk '\$4 < \"1980\"' | grep -q ."

touch "$D/tree/README.md"
dist "$D/tree" "$D/out2"
check "made again after a touch: the same bytes" cmp -s "$tgz" "$D/out2/$name.tar.gz"

mkdir -p "$D/unpacked"
tar -xzf "$tgz" -C "$D/unpacked"
dist "$D/unpacked/$name" "$D/out3"
check "made from the tarball itself: the same bytes" cmp -s "$tgz" "$D/out3/$name.tar.gz"
desc=$(cat "$D/unpacked/$name/.git-describe" 2>/dev/null)
if [ $GIT = 1 ]; then
	check "its .git-describe records the tree's git description ($desc)" \
		bash -c "[ -n '$desc' ] && [ '$desc' != unknown ]"
else
	check "its .git-describe says what the tree's build says ($desc)" [ -n "$desc" ]
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
