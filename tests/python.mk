# The Python package (python/): its pytest suite against the build's libcontactd and
# `contact`, and the README's grader example run (tests/python_test.sh); the package
# installed by pip with no `wheel` (a venv of PYTHON3 without the system's packages, and
# pyenv's Pythons where there are some) and by `make install` into a prefix, then used from
# outside the tree (tests/python_install_test.sh). Needs configure's PYTHON3 (pytest, venv).
TESTS += tests/python_test.sh tests/python_install_test.sh
EXTRA_DIST += tests/python_test.sh tests/python_install_test.sh python/pyproject.toml \
	python/README.md python/backend/contactd_build.py \
	python/contactd/__init__.py python/contactd/_lib.py python/contactd/tolerances.json \
	python/contactd/py.typed python/tests/test_contactd.py python/tests/test_build.py
AM_TESTS_ENVIRONMENT += PYTHON3='$(PYTHON3)'; export PYTHON3; VERSION='$(VERSION)'; \
	export VERSION;
clean-local: clean-python-test
clean-python-test:
	rm -rf tests/python-inst tests/python-grader.*
.PHONY: clean-python-test
