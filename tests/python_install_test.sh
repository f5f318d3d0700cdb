#!/bin/sh
# python_install_test.sh: the Python package (python/) installed the ways its users install
# it, and used from outside the source tree; in each, a grade call through it: the value
# eval() answers passes, one outside the tolerance (by the package's offline rule) fails,
# and the libcontactd loaded is the one expected.
# 1. `pip install` of python/ into a venv of configure's PYTHON3 made without the system's
#    packages: pip, ensurepip's setuptools (Python 3.11 and older) and no `wheel` (where a
#    setuptools build stopped at "invalid command 'bdist_wheel'"), with
#    --no-build-isolation --no-index; then, setuptools removed, with the README's command
#    (--no-index, build isolation on): the package's own build backend needs neither.
# 2. The same with the Pythons that are not Debian's, pyenv's, when pyenv is installed: every
#    3.9+ (the issue's was a 3.11 with setuptools 65 and no wheel), each in a venv of its own,
#    with the --no-build-isolation --no-index command. An extra: step 1 holds everywhere.
# 3. `make install` into a prefix under the build tree: configure's Python imports the
#    package from the installed pythondir and loads the installed libcontactd with no
#    CONTACTD_LIBRARY; `make uninstall` then leaves no file of it.
# Nothing is written into the source tree or the system's Python (no registry either).
set -u
: "${srcdir:=.}"
make=${MAKE:-make}
python=${PYTHON3:-python3}
lib=$PWD/.libs/libcontactd.so
work=$PWD/tests/python-inst
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
[ -f "$lib" ] || fail "no $lib (make builds libcontactd)"
# a sanitised build's library needs AddressSanitizer's runtime loaded first (as in
# tests/python_test.sh)
preload=
case " ${SANITIZER_CFLAGS:-} " in
*address*) preload="LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0" ;;
esac
export PYTHONDONTWRITEBYTECODE=1
rm -rf "$work" && mkdir -p "$work/run" || fail "cannot make $work"

# the use, run in an empty directory: check.py WHERE LIBRARY (the package's directory must
# be under WHERE, the mapped libcontactd must be LIBRARY)
cat >"$work/check.py" <<'EOF'
import os
import sys

import contactd

where, library = sys.argv[1], os.path.realpath(sys.argv[2])
assert contactd.__file__.startswith(where + os.sep), "imported %s, not under %s" % (contactd.__file__, where)
args = {"r": 0.0005, "solimp": [0.9, 0.95, 0.001, 0.5, 2]}
value = contactd.eval("impedance", **args)["value"]
wrong = value * (1 + 1e-6)
assert contactd.within("impedance", value, value) and not contactd.within("impedance", wrong, value)
good, bad = contactd.grade("impedance", value, **args), contactd.grade("impedance", wrong, **args)
assert good["pass"] is True and bad["pass"] is False, (good, bad)
with open("/proc/self/maps") as maps:
    mapped = {os.path.realpath(line.split()[-1]) for line in maps if "libcontactd" in line}
assert mapped == {library}, "loaded %s, not %s" % (sorted(mapped), library)
print("  Python %s: %s; %s; grades %s and %s" % (sys.version.split()[0], contactd.__file__,
      library, good["pass"], bad["pass"]))
EOF
use() { # use INTERPRETER WHERE LIBRARY [VAR=VALUE...]: check.py with them, from $work/run
	interpreter=$1 where=$2 library=$3
	shift 3
	(cd "$work/run" && env "$@" $preload "$interpreter" ../check.py "$where" "$library")
}
has() { "$1" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$2') is None)" 2>/dev/null; }

# 1. a venv with what ensurepip gives it: pip, setuptools up to Python 3.11, never wheel
venv=$work/venv
"$python" -m venv "$venv" || fail "$python -m venv (Debian's python3-venv)"
vpy=$venv/bin/python
if has "$vpy" wheel; then "$vpy" -m pip uninstall -q -y wheel || fail "pip uninstall wheel"; fi
has "$vpy" wheel && fail "the venv has the wheel package"
echo "a venv of $python with $("$vpy" -m pip --version | cut -d' ' -f1-2), setuptools: $(has "$vpy" setuptools && echo yes || echo no), no wheel:"
"$vpy" -m pip install -q --no-build-isolation --no-index "$srcdir/python" >"$work/pip.log" 2>&1 ||
	{ cat "$work/pip.log" >&2; fail "pip install --no-build-isolation --no-index ./python in a venv without wheel"; }
site=$("$vpy" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
use "$vpy" "$site" "$lib" CONTACTD_LIBRARY="$lib" || fail "the package pip installed in the venv"
"$vpy" -m pip uninstall -q -y contactd || fail "pip uninstall contactd"
if has "$vpy" setuptools; then "$vpy" -m pip uninstall -q -y setuptools || fail "pip uninstall setuptools"; fi
has "$vpy" setuptools && fail "setuptools is still in the venv"
echo "the same venv without setuptools, build isolation on:"
"$vpy" -m pip install -q --no-index "$srcdir/python" >"$work/pip.log" 2>&1 ||
	{ cat "$work/pip.log" >&2; fail "pip install --no-index ./python in a venv without setuptools or wheel"; }
use "$vpy" "$site" "$lib" CONTACTD_LIBRARY="$lib" || fail "the package pip installed without setuptools"

# 2. pyenv's Pythons, when there are some: every 3.9+
pyenv=${PYENV_ROOT:-$HOME/.pyenv}/versions
found=
for py in $(ls -d "$pyenv"/*/bin/python3 2>/dev/null | sort -V); do
	"$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null && has "$py" pip &&
		found="$found $py"
done
for py in $found; do
	pv=$work/venv-$(basename "$(dirname "$(dirname "$py")")")
	"$py" -m venv "$pv" || fail "$py -m venv"
	echo "a venv of pyenv's $("$py" --version) ($("$pv/bin/python" -m pip --version | cut -d' ' -f1-2); setuptools: $(has "$pv/bin/python" setuptools && echo yes || echo no); wheel: $(has "$pv/bin/python" wheel && echo yes || echo no)):"
	"$pv/bin/python" -m pip install -q --no-build-isolation --no-index "$srcdir/python" >"$work/pip.log" 2>&1 ||
		{ cat "$work/pip.log" >&2; fail "$py: pip install --no-build-isolation --no-index ./python"; }
	use "$pv/bin/python" "$("$pv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
		"$lib" CONTACTD_LIBRARY="$lib" || fail "the package $py installed"
done
[ -n "$found" ] || echo "(no pyenv Python 3.9+ in $pyenv)"

# 3. make install into a prefix; every directory it writes must follow it (one given to
# configure as an absolute path would send files out of the build tree: refused)
root=$work/prefix
over="prefix=$root exec_prefix=$root systemdsystemunitdir=$root/lib/systemd/system"
eval "$(MAKEFLAGS= $make -s --no-print-directory print-install-dirs $over 2>/dev/null)"
eval "$(MAKEFLAGS= $make -s --no-print-directory print-python-dirs $over 2>/dev/null)"
for d in "$bindir" "$libdir" "$includedir" "$mandir" "$systemdsystemunitdir" "$pythondir" "$pkgpythondir"; do
	case $d in "$root"/*) ;; *) fail "$d does not follow the prefix (configure it under \${prefix})" ;; esac
done
MAKEFLAGS= $make install $over >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log" >&2; fail "make install $over"; }
echo "make install: $python with PYTHONPATH=$pythondir, no CONTACTD_LIBRARY:"
use "$python" "$pkgpythondir" "$libdir/libcontactd.so.4" -u CONTACTD_LIBRARY -u LD_LIBRARY_PATH \
	PYTHONPATH="$pythondir" || fail "the package make install installed"
MAKEFLAGS= $make uninstall $over >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log" >&2; fail "make uninstall $over"; }
left=$(find "$root" -type f)
[ -z "$left" ] || fail "make uninstall left $left"
rm -rf "$work"
echo "python_install_test: installed by pip without wheel, and by make install, and used"
