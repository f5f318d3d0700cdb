#!/bin/sh
# python_test.sh: the Python package (python/) in `make check`: its pytest suite against the
# build's libcontactd and `contact`, from the source tree (PYTHONPATH), and the README's
# grader example, run, printing what the README shows (installing the package:
# tests/python_install_test.sh). PYTHON3 is configure's (it imports pytest).
set -u
: "${srcdir:=.}"
python=${PYTHON3:-python3}
lib=$PWD/.libs/libcontactd.so
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
[ -f "$lib" ] || fail "no $lib (make builds libcontactd)"
"$python" -c 'import pytest, venv' ||
	fail "$python lacks pytest or venv (Debian packages python3-pytest, python3-venv)"
# A sanitised build's library needs AddressSanitizer's runtime loaded first, which the
# Python interpreter is not linked with: preload it, and leave leak checks to the C tests
# (tests/answer_test.sh), since the interpreter keeps its own objects to the end.
preload=
case " ${SANITIZER_CFLAGS:-} " in
*address*)
	preload="LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0"
	;;
esac
CONTACTD_LIBRARY=$lib CONTACT=$PWD/contact CONTACTD_VERSION=${VERSION:?} PYTHONDONTWRITEBYTECODE=1 \
	PYTHONPATH="$srcdir/python" env $preload "$python" -m pytest -q -p no:cacheprovider "$srcdir/python/tests" ||
	fail "the package's tests"

# the README's grader example: its python block run, its output as the text block after it
readme=$srcdir/README.md
awk '/<!-- the grader example/ {on = 1; next} on && /^```python$/ {code = 1; next}
	code && /^```$/ {exit} code {print}' "$readme" >tests/python-grader.py
awk '/<!-- the grader example/ {on = 1} on && /^```text$/ {text = 1; next}
	text && /^```$/ {exit} text {print}' "$readme" >tests/python-grader.expected
[ -s tests/python-grader.py ] && [ -s tests/python-grader.expected ] ||
	fail "README.md has no grader example (a python block and a text block after the marker)"
CONTACTD_LIBRARY=$lib PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$srcdir/python" \
	env $preload "$python" tests/python-grader.py >tests/python-grader.out 2>&1 ||
	{ cat tests/python-grader.out >&2; fail "the README's grader example does not run"; }
cmp -s tests/python-grader.out tests/python-grader.expected ||
	{ diff tests/python-grader.expected tests/python-grader.out >&2; fail "the README's grader example prints something else than README.md says"; }
rm -f tests/python-grader.py tests/python-grader.expected tests/python-grader.out

echo "python_test: pytest passed; the README grader printed its text"
