#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The version of the packages and manual pages, from the repository: the
# series' version, then the day and commit it was built from, as a Debian
# version that sorts by day: 0.3~git20261204.432817a.  "+dirty" when the
# tree has uncommitted changes.  Outside a git checkout: the series'.
SERIES=0.3
TOP=$(cd "$(dirname "$0")/.." && pwd)

if ! git -C "$TOP" rev-parse --git-dir > /dev/null 2>&1; then
	echo "$SERIES"
	exit 0
fi
v=$SERIES~git$(git -C "$TOP" log -1 --format=%cd --date=format:%Y%m%d).$(git -C "$TOP" rev-parse --short=7 HEAD)
if [ -n "$(git -C "$TOP" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	v=$v+dirty
fi
echo "$v"
