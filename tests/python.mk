# The Python package (python/): its pytest suite against the build's libcontactd and
# `contact`, and `pip install` of it into a venv in the build directory
# (tests/python_test.sh), and the README's grader example run. Needs configure's PYTHON3 (pytest, setuptools, venv).
TESTS += tests/python_test.sh
EXTRA_DIST += tests/python_test.sh python/pyproject.toml python/README.md \
	python/contactd/__init__.py python/contactd/_lib.py python/contactd/tolerances.json \
	python/contactd/py.typed python/tests/test_contactd.py
AM_TESTS_ENVIRONMENT += PYTHON3='$(PYTHON3)'; export PYTHON3; VERSION='$(VERSION)'; \
	export VERSION;
clean-local: clean-python-test
clean-python-test:
	rm -rf tests/python-src tests/python-venv tests/python-pip.log tests/python-grader.*
.PHONY: clean-python-test
