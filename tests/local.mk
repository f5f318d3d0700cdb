# tests: each area includes its own fragment
include $(srcdir)/tests/core.mk
include $(srcdir)/tests/parity.mk
include $(srcdir)/tests/service.mk
include $(srcdir)/tests/http.mk
include $(srcdir)/tests/calib.mk
include $(srcdir)/tests/install.mk
include $(srcdir)/tests/requirements.mk
