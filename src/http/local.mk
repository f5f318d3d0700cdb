# http: the contactd daemon (libmicrohttpd). Front end over the service layer.
# The calibration seam (http_calib.h) is documented there; http_calib.c is its
# default, empty implementation, replaced by the calibration layer.
noinst_HEADERS += src/http/http.h src/http/http_calib.h
EXTRA_DIST += src/http/http_calib.c
