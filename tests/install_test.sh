#!/bin/sh
# install_test.sh: `make install` into a directory under the build tree (DESTDIR), then
# what a user of the library does: compile tests/install_rest.c against the installed
# libcontactd through pkg-config, shared and static, and check its rest answer against
# `contact rest` bit for bit, and its ctd_answer("rest") against `contact rest`'s bytes.
# Also checks what else is installed (header, pkg-config file, programs, man pages,
# systemd unit), that the shared library and the static archive define no global name
# the header does not declare, and that ctd_version() is the package's version.
# Run by `make check` from the build directory; MAKE, CC and the flags come from it.
set -u
make=${MAKE:-make}
cc=${CC:-cc}
root=$PWD/tests/install-root
rm -rf "$root"
failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# the installation, as `make install` does it, under $root
MAKEFLAGS= $make install DESTDIR="$root" >tests/install-root.log 2>&1 || {
	cat tests/install-root.log >&2
	echo "FAIL: make install DESTDIR=$root" >&2
	exit 1
}
eval "$(MAKEFLAGS= $make -s --no-print-directory print-install-dirs 2>/dev/null)"
# Every directory is absolute, so each file lands under DESTDIR (a relative one, such as
# configure's old "auto" unit directory, made $root's sibling "install-rootauto/").
for d in "$bindir" "$includedir" "$libdir" "$mandir" "$systemdsystemunitdir"; do
	case $d in /*) ;; *) fail "an install directory is not absolute: \"$d\"" ;; esac
done
for f in "$bindir/contact" "$bindir/contactd" "$includedir/contactd.h" \
	"$libdir/libcontactd.a" "$libdir/libcontactd.so" "$libdir/pkgconfig/contactd.pc" \
	"$mandir/man1/contact.1" "$mandir/man8/contactd.8" \
	"$systemdsystemunitdir/contactd.service"; do
	[ -e "$root$f" ] || fail "make install did not install $f"
done
grep -q "^ExecStart=$bindir/contactd " "$root$systemdsystemunitdir/contactd.service" ||
	fail "the unit's ExecStart is not $bindir/contactd"

# the shared library exports exactly the functions the installed header declares
# (CTD_API ... name(), one declaration per function): nothing internal, no test hook
declared=$(tr '\n' ' ' <"$root$includedir/contactd.h" | grep -o 'CTD_API[^;(]*(' |
	sed 's/.*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\)($/\1/' | grep '^ctd_' | sort -u)
[ -n "$declared" ] || fail "contactd.h declares no CTD_API function"
exported=$(nm -D --defined-only "$root$libdir/libcontactd.so" | awk 'NF == 3 && $2 != "A" {print $3}' | sort -u)
others=$(echo "$exported" | grep -vxF "$declared")
[ -z "$others" ] || fail "libcontactd.so exports names contactd.h does not declare: $(echo $others)"
missing=$(echo "$declared" | grep -vxF "$exported")
[ -z "$missing" ] || fail "contactd.h declares functions libcontactd.so does not export: $(echo $missing)"
# the static archive is one object whose only global names are the header's too (make
# install links its objects into one and makes the hidden names local): nothing of the
# service layer or its helpers can clash with a program's own names
others=$(nm -g --defined-only "$root$libdir/libcontactd.a" | awk 'NF == 3 {print $3}' | grep -vxF "$declared")
[ -z "$others" ] || fail "libcontactd.a defines global names contactd.h does not declare: $(echo $others)"
# every macro of the header carries the prefix CTD_, but the version's CONTACTD_VERSION_
others=$(sed -n 's/^#define \([A-Za-z_0-9]*\).*/\1/p' "$root$includedir/contactd.h" |
	grep -v -e '^CTD_' -e '^CONTACTD_VERSION_')
[ -z "$others" ] || fail "contactd.h defines macros without CTD_: $others"

# the same scene through the CLI: a 5 cm, 1 kg sphere resting for 0.5 s
answer=$(echo '{"body": {"shape": "sphere", "size": 0.05, "mass": 1}, "height": 0, "duration": 0.5}' |
	"$root$bindir/contact" rest) || fail "contact rest failed"
field() { echo "$answer" | sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }
set -- "$(field penetration)" "$(field settled_penetration)" "$(field K)" "$(field B)"
echo "contact rest: $answer"

export PKG_CONFIG_PATH="$root$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
pkg-config --exists contactd || fail "pkg-config does not find contactd"
[ "$(pkg-config --modversion contactd)" = "$version" ] || fail "contactd.pc's version is not $version"
# shared: the program runs against the installed libcontactd.so
$cc $SANITIZER_CFLAGS -o tests/install_rest_shared "$srcdir/tests/install_rest.c" \
	$(pkg-config --cflags --libs contactd) $SANITIZER_LDFLAGS || fail "cannot build against the shared library"
if [ -x tests/install_rest_shared ]; then
	ldd tests/install_rest_shared | grep -q "$root$libdir/libcontactd.so" ||
		LD_LIBRARY_PATH="$root$libdir" ldd tests/install_rest_shared | grep -q "$root$libdir/libcontactd.so" ||
		fail "install_rest_shared is not linked to the installed libcontactd.so"
	out=$(LD_LIBRARY_PATH="$root$libdir" ./tests/install_rest_shared "$@") ||
		fail "the shared library's rest differs from contact rest"
	echo "$out"
	[ "$(echo "$out" | sed -n 's/^version //p')" = "$version" ] ||
		fail "ctd_version() is not $version"
	[ "$(echo "$out" | sed -n 's/^header_version //p')" = "$version" ] ||
		fail "contactd.h's CONTACTD_VERSION_MAJOR.MINOR.PATCH is not $version"
	[ "$(echo "$out" | sed -n 's/^answer //p')" = "200 $answer" ] ||
		fail "the shared library's ctd_answer(\"rest\") is not contact rest's answer"
fi
# static: the archive and its private dependencies (pkg-config --static)
$cc $SANITIZER_CFLAGS -o tests/install_rest_static "$srcdir/tests/install_rest.c" \
	$(pkg-config --cflags contactd) "$root$libdir/libcontactd.a" \
	$(pkg-config --static --libs contactd | sed 's/-lcontactd//') $SANITIZER_LDFLAGS ||
	fail "cannot build against the static library"
if [ -x tests/install_rest_static ]; then
	ldd tests/install_rest_static | grep -q libcontactd && fail "install_rest_static links libcontactd.so"
	out=$(./tests/install_rest_static "$@") || fail "the static library's rest differs from contact rest"
	[ "$(echo "$out" | sed -n 's/^answer //p')" = "200 $answer" ] ||
		fail "the static library's ctd_answer(\"rest\") is not contact rest's answer"
fi
rm -f tests/install_rest_shared tests/install_rest_static
[ "$failures" -eq 0 ] && rm -rf "$root" tests/install-root.log
exit $((failures > 0))
