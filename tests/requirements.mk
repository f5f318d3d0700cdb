# `make check` runs every test or fails: before it builds a test, it names every test-only
# package configure did not find (the programs build without them), and sets up the
# browser suite's playwright-core (npm ci in tests/browser, pinned by package-lock.json)
# when its node_modules is missing, or fails naming that. Never a silent skip.
check-am: check-requirements
check-requirements:
	@missing='$(TEST_MISSING)'; \
	if test -n "$$missing"; then \
		echo "make check: these tests' packages are missing (configure said so):" >&2; \
		for m in $$missing; do \
			echo "  $${m%%=*} (Debian package $${m#*=})" >&2; \
		done; \
		echo "make check: install them (deploy/setup-debian.sh, as root), then run configure again" >&2; \
		exit 1; \
	fi
	@case ' $(TESTS) ' in *test_browser.sh*) ;; *) exit 0 ;; esac; \
	modules='$(BROWSER_NODE_MODULES)'; \
	test -d "$$modules/playwright-core" && exit 0; \
	dir=$${modules%/node_modules}; \
	if test "$$dir" != "$$modules" && test -f "$$dir/package-lock.json"; then \
		echo "make check: the browser tests need playwright-core: npm ci in $$dir"; \
		(cd "$$dir" && $(NPM) ci --no-audit --no-fund) && \
			test -d "$$modules/playwright-core" && exit 0; \
	fi; \
	echo "make check: the browser tests need playwright-core in $$modules:" \
		"run npm ci in tests/browser (npm: Debian package npm)" >&2; \
	exit 1
.PHONY: check-requirements
