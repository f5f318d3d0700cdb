# The Python package (python/contactd) as `make install` installs it for configure's
# Python: into pkgpythondir (PREFIX/lib/pythonX.Y/site-packages/contactd), byte-compiled,
# with _installed.py beside it naming the libdir libcontactd went to, so that the package
# loads that library without CONTACTD_LIBRARY or ldconfig (python/contactd/_lib.py). It is
# written at install time, so `make install prefix=...` names the libdir it installs to.
if HAVE_PYTHON
pkgpython_PYTHON = python/contactd/__init__.py python/contactd/_lib.py
pkgpython_DATA = python/contactd/tolerances.json python/contactd/py.typed
install-data-local: install-python-libdir
uninstall-local: uninstall-python-libdir
endif
install-python-libdir:
	$(MKDIR_P) '$(DESTDIR)$(pkgpythondir)'
	$(PYTHON) -c 'import sys; print("# written by make install: the libdir of libcontactd\nLIBDIR = %r" % sys.argv[1])' \
		'$(libdir)' >'$(DESTDIR)$(pkgpythondir)/_installed.py'
uninstall-python-libdir:
	rm -f '$(DESTDIR)$(pkgpythondir)/_installed.py' '$(DESTDIR)$(pkgpythondir)'/__pycache__/_installed.*.pyc
# What tests/python_install_test.sh needs to know of this build (eval'ed by it).
print-python-dirs:
	@echo "python='$(PYTHON)' pythondir='$(pythondir)' pkgpythondir='$(pkgpythondir)' libdir='$(libdir)'"
.PHONY: install-python-libdir uninstall-python-libdir print-python-dirs
