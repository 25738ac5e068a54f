#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tests/suites.sh [-j N] [--logs DIR] NAME=COMMAND ...: run test suites,
# up to N at a time (default 1), each COMMAND through bash -c with its
# output in DIR/NAME.log (default: a new folder under /tmp). Suites start
# in the order given: give the longest first. `make check` and its
# targets run their suites through it (docs/testing.md).
#
# A suite that starts with "@" (@NAME=COMMAND) runs alone: it waits for
# the running ones to end, and nothing starts beside it (for a suite that
# needs the whole machine or changes what others share).
#
# Output, as each suite ends: "== NAME: P passed, F failed[, S skipped]
# (T s)", and for a suite that failed its failed checks with their log
# lines (or, where it printed none, the end of its log). At the end: the
# same line for every suite, in the order given, the failed checks'
# names ("!! NAME: not ok ...", each with its first three "FAIL" lines),
# and the total as
# "P passed, F failed[, S skipped]". Exit 0 only when every suite exited
# 0 and counted no failure.
#
# Counts come from the suite's own summaries, added up (a suite may run
# several programs): "P passed, F failed" lines (tests/integration, TAP's
# "# P passed, F failed, S skipped"; a nested run's lines of its suites
# start with "== " and only its total counts),
# cmocka's "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)", or
# unittest's "Ran N tests" with "OK" / "FAILED (failures=A, errors=B)".
# A suite that prints none counts as one check: passed when it exits 0.
set -u

JOBS=1
LOGS=
while [ $# -gt 0 ]; do
	case $1 in
	-j) JOBS=${2:?-j needs a number}; shift 2 ;;
	--logs) LOGS=${2:?--logs needs a folder}; shift 2 ;;
	--) shift; break ;;
	-*) echo "tests/suites.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "tests/suites.sh: -j wants a number >= 1, got '$JOBS'" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: tests/suites.sh [-j N] [--logs DIR] NAME=COMMAND ..." >&2; exit 2; }
[ -n "$LOGS" ] || LOGS=$(mktemp -d /tmp/xn-suites.XXXXXX)
mkdir -p "$LOGS" || exit 2

NAMES=()
declare -A CMD=() ALONE=() PID=() T0=() RESULT=()
for a in "$@"; do
	n=${a%%=*}
	[ "$n" != "$a" ] && [ -n "$n" ] || { echo "tests/suites.sh: '$a' is not NAME=COMMAND" >&2; exit 2; }
	ALONE[${n#@}]=0
	[ "${n#@}" != "$n" ] && ALONE[${n#@}]=1
	n=${n#@}
	[ -z "${CMD[$n]+x}" ] || { echo "tests/suites.sh: suite '$n' given twice" >&2; exit 2; }
	CMD[$n]=${a#*=}
	NAMES+=("$n")
done

# counts LOG RC: "PASSED FAILED SKIPPED" from a suite's log.
counts() {
	local log=$1 rc=$2
	awk -v rc="$rc" '
		/^(# |[A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed/ {
			s = $0; sub(/^(# |[A-Za-z-]+: )/, "", s)
			split(s, w, /[ ,]+/); p += w[1]; f += w[3]
			if (s ~ /[0-9]+ skipped/) { t = s; sub(/.* failed, /, "", t); k += t + 0 }
			have = 1; next
		}
		/^\[  PASSED  \] [0-9]+ test/ { cp += $4; cm = 1 }
		/^\[  FAILED  \] [0-9]+ test/ { cf += $4; cm = 1 }
		/^Ran [0-9]+ tests? in/ { ur += $2; um = 1 }
		/^FAILED \(/ {
			t = $0
			while (match(t, /(failures|errors)=[0-9]+/)) {
				x = substr(t, RSTART, RLENGTH); sub(/.*=/, "", x); uf += x
				t = substr(t, RSTART + RLENGTH)
			}
		}
		/^OK \(.*skipped=[0-9]+/ { t = $0; sub(/.*skipped=/, "", t); us += t + 0 }
		END {
			if (have) print p, f, k + 0
			else if (cm) print cp + 0, cf + 0, 0
			else if (um) print ur - uf - us, uf + 0, us + 0
			else print (rc == 0 ? 1 : 0), (rc == 0 ? 0 : 1), 0
		}' "$log"
}

line() { # NAME: the suite's line
	local n=$1 p f k rc secs
	read -r rc secs p f k <<<"${RESULT[$n]}"
	printf '== %s: %s passed, %s failed%s (%s s)%s\n' "$n" "$p" "$f" \
		"$([ "$k" = 0 ] || echo ", $k skipped")" "$secs" \
		"$([ "$rc" = 0 ] || [ "$f" != 0 ] || echo ", exit $rc")"
}

# Its failed checks and their log lines, else the end of its log.
failures() {
	local log=$1
	if grep -q '^not ok' "$log"; then
		awk '/^not ok/ { on = 1; print; next } /^ok / { on = 0 } on && /^#/ { print }' "$log" | head -n 200
	else
		tail -n 30 "$log"
	fi | sed 's/^/   | /'
}

start() {
	local n=$1
	T0[$n]=$SECONDS
	echo "== $n: started"
	bash -c "${CMD[$n]}" </dev/null >"$LOGS/$n.log" 2>&1 &
	PID[$n]=$!
}

# reap: wait for one running suite to end and report it.
reap() {
	local n rc c
	wait -n "${PID[@]}" 2>/dev/null
	for n in "${!PID[@]}"; do
		kill -0 "${PID[$n]}" 2>/dev/null && continue
		wait "${PID[$n]}"
		rc=$?
		unset "PID[$n]"
		c=$(counts "$LOGS/$n.log" "$rc")
		# A suite that failed without counting it: one failure.
		[ "$rc" = 0 ] || [ "${c#* }" != "0 ${c##* }" ] || c="${c%% *} 1 ${c##* }"
		RESULT[$n]="$rc $((SECONDS - T0[$n])) $c"
		line "$n"
		read -r _ f _ <<<"$c"
		if [ "$rc" != 0 ] || [ "$f" != 0 ]; then
			echo "   log: $LOGS/$n.log"
			failures "$LOGS/$n.log"
		fi
	done
}

# Stop what runs on a signal: the suites clean up after themselves on TERM.
on_signal() {
	local n
	for n in "${!PID[@]}"; do kill -TERM "${PID[$n]}" 2>/dev/null; done
	wait
	echo "tests/suites.sh: interrupted"
	exit 130
}
trap 'on_signal' INT TERM

START=$SECONDS
for n in "${NAMES[@]}"; do
	if [ "${ALONE[$n]}" = 1 ]; then
		while [ ${#PID[@]} -gt 0 ]; do reap; done
		start "$n"
		reap
		continue
	fi
	while [ ${#PID[@]} -ge "$JOBS" ]; do reap; done
	start "$n"
done
while [ ${#PID[@]} -gt 0 ]; do reap; done

P=0 F=0 K=0 st=0
echo "== suites (-j $JOBS, $((SECONDS - START)) s in all; logs in $LOGS):"
for n in "${NAMES[@]}"; do
	line "$n"
	read -r rc _ p f k <<<"${RESULT[$n]}"
	P=$((P + p)) F=$((F + f)) K=$((K + k))
	{ [ "$rc" = 0 ] && [ "$f" = 0 ]; } || st=1
done
# The failed checks again, by name, just above the total: the end of the
# output is what a CI log shows first.
for n in "${NAMES[@]}"; do
	read -r rc _ _ f _ <<<"${RESULT[$n]}"
	{ [ "$rc" = 0 ] && [ "$f" = 0 ]; } && continue
	# Each failed check with its first failed expectations ("FAIL:"
	# lines of its log, tests/integration/lib.sh).
	awk -v n="$n" '/^not ok/ { if (++k > 10) exit; on = 1; f = 0; print "!! " n ": " $0; next }
		/^ok / { on = 0 } on && /^#.*FAIL/ && f++ < 3 { print "!!    " $0 }' "$LOGS/$n.log"
	grep -q '^not ok' "$LOGS/$n.log" || grep -m 10 -E '^(FAIL|ERROR):|\[  FAILED  \] [^0-9]' "$LOGS/$n.log" | sed "s/^/!! $n: /"
done
echo "$P passed, $F failed$([ "$K" = 0 ] || echo ", $K skipped")"
exit $st
