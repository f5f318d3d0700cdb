# tests: each area includes its own fragment
include $(srcdir)/tests/core.mk
include $(srcdir)/tests/parity.mk
include $(srcdir)/tests/service.mk
include $(srcdir)/tests/http.mk
include $(srcdir)/tests/calib.mk
include $(srcdir)/tests/install.mk
include $(srcdir)/tests/requirements.mk

# The README's two commands in fresh clones, in both orders (tests/fresh_clone.sh). Not in
# `make check`: it runs the whole suite twice. Clones the source tree's committed HEAD.
check-fresh-clone:
	$(SHELL) $(srcdir)/tests/fresh_clone.sh $(abs_top_srcdir)
.PHONY: check-fresh-clone
EXTRA_DIST += tests/fresh_clone.sh tests/run-all.sh
