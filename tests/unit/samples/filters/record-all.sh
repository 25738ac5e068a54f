#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Re-records every sample here (root; run under xn-heavy).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/record-libvirt.sh"
"$HERE/record-synthetic.sh"
