#!/bin/sh
# python_test.sh: the Python package (python/) in `make check`: its pytest suite against the
# build's libcontactd and `contact`, from the source tree (PYTHONPATH), then `pip install`
# of a copy of python/ into a venv in the build directory (no registry: Debian's setuptools,
# --no-build-isolation --no-index) and a call through the installed package. Nothing is
# installed into the system's Python. PYTHON3 is configure's (it imports pytest).
set -u
: "${srcdir:=.}"
python=${PYTHON3:-python3}
lib=$PWD/.libs/libcontactd.so
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
[ -f "$lib" ] || fail "no $lib (make builds libcontactd)"
"$python" -c 'import pytest, setuptools, venv' ||
	fail "$python lacks pytest, setuptools or venv (Debian packages python3-pytest, python3-setuptools, python3-venv)"
CONTACTD_LIBRARY=$lib CONTACT=$PWD/contact CONTACTD_VERSION=${VERSION:?} PYTHONDONTWRITEBYTECODE=1 \
	PYTHONPATH="$srcdir/python" "$python" -m pytest -q -p no:cacheprovider "$srcdir/python/tests" ||
	fail "the package's tests"

# pip install from the tree: a copy (setuptools builds in it), into a venv here
rm -rf tests/python-src tests/python-venv
cp -R "$srcdir/python" tests/python-src && chmod -R u+w tests/python-src || fail "cannot copy python/"
"$python" -m venv --system-site-packages tests/python-venv || fail "python3 -m venv"
tests/python-venv/bin/python -m pip install -q --no-build-isolation --no-index --no-deps \
	tests/python-src >tests/python-pip.log 2>&1 || { cat tests/python-pip.log >&2; fail "pip install ./python"; }
out=$(cd tests && CONTACTD_LIBRARY=$lib ./python-venv/bin/python -c '
import contactd, sys
assert "python-venv" in contactd.__file__, contactd.__file__
assert contactd.tolerances()["tolerances"]["impedance"]["relative"] == 1e-12
print(contactd.eval("impedance", r=0.0005, solimp=[0.9, 0.95, 0.001, 0.5, 2])["value"])') ||
	fail "the installed package"
[ "$out" = 0.925 ] || fail "the installed package's impedance is $out, not 0.925"
rm -rf tests/python-src tests/python-venv tests/python-pip.log
echo "python_test: pytest passed; pip install ./python into a venv: impedance $out"
