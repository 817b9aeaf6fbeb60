# tests/cli_lib.sh: what the command-line tests in tests/cli/ share; each sources it after setting gpusim:
#   . "$(dirname "$0")/../cli_lib.sh"
# It gives a temporary folder $tmp (removed on exit), the counters and their verdict (cli_done: prints
# "N passed, N failed" and exits nonzero when a check failed), and, for tests that run gpusim and look at what it
# printed: run ARGS... (leaves $rc, $tmp/out, $tmp/err), expect_rc, expect_out, expect_err, expect_no_out.
# Not a test itself: ctest runs tests/cli/*.sh only.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
rc=0

ok() { passed=$((passed + 1)); }
fail() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}
# fail_run WHAT: a failed check on the last run, with what gpusim printed
fail_run() {
	fail "$*"
	echo "  exit $rc; stdout: $(head -c 600 "$tmp/out")"
	echo "  stderr: $(head -c 600 "$tmp/err")"
}
run() {
	"$gpusim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
expect_rc() {  # expect_rc CODE DESCRIPTION
	if [ "$rc" -eq "$1" ]; then ok; else fail_run "$2: expected exit $1"; fi
}
expect_out() {  # expect_out REGEX DESCRIPTION
	if grep -Eq -- "$1" "$tmp/out"; then ok; else fail_run "$2: stdout lacks /$1/"; fi
}
expect_err() {  # expect_err REGEX DESCRIPTION
	if grep -Eq -- "$1" "$tmp/err"; then ok; else fail_run "$2: stderr lacks /$1/"; fi
}
expect_no_out() {  # expect_no_out DESCRIPTION
	if [ ! -s "$tmp/out" ]; then ok; else fail_run "$1: stdout is not empty"; fi
}
cli_done() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
