"""Finding and calling libcontactd's one JSON entry point, ctd_answer() (contactd.h), and
the list of what it answers, ctd_endpoints().

Only C functions over plain bytes are used: no struct of the library is mirrored here,
so a new release of the library changes nothing in this file.
"""

import ctypes
import ctypes.util
import json
import os
import threading

# The shared library's names, most specific first: the soname this package was
# written against (libcontactd.so.4: interface 2 added ctd_answer(), 3 ctd_endpoints(), 4
# the hold question's shapes and drives), then the development link and whatever the
# system's library search finds.
_NAMES = ("libcontactd.so.4", "libcontactd.so")


def _installed_library():
    """The library `make install` installed with this package: `make install` writes
    _installed.py beside this file, naming the libdir (often outside the loader's search,
    such as /usr/local/lib before ldconfig, or a user's prefix). None for a copy of the
    package installed by pip or used from the source tree."""
    try:
        from . import _installed as where
    except ImportError:
        return None
    return os.path.join(where.LIBDIR, _NAMES[0])


_lock = threading.Lock()
_lib = None


class LibraryNotFound(OSError):
    """libcontactd could not be loaded (CONTACTD_LIBRARY names it explicitly)."""


def _load(path=None):
    tried = []
    candidates = [path] if path else []
    env = os.environ.get("CONTACTD_LIBRARY")
    if not path and env:
        candidates = [env]
    elif not path:
        installed = _installed_library()
        candidates = ([installed] if installed else []) + list(_NAMES)
        found = ctypes.util.find_library("contactd")
        if found:
            candidates.append(found)
    for name in candidates:
        try:
            lib = ctypes.CDLL(name)
        except OSError as e:
            tried.append("%s (%s)" % (name, e))
            continue
        lib.ctd_answer.restype = ctypes.c_int
        lib.ctd_answer.argtypes = [
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_void_p),
            ctypes.POINTER(ctypes.c_size_t),
        ]
        lib.ctd_answer_free.restype = None
        lib.ctd_answer_free.argtypes = [ctypes.c_void_p]
        lib.ctd_version.restype = ctypes.c_char_p
        lib.ctd_version.argtypes = []
        try:
            lib.ctd_endpoints.restype = ctypes.c_char_p
            lib.ctd_endpoints.argtypes = []
        except AttributeError:
            tried.append("%s (no ctd_endpoints(): a library older than interface 3)" % name)
            continue
        return lib
    raise LibraryNotFound(
        "cannot load libcontactd (install contactd with `make install`, or set "
        "CONTACTD_LIBRARY to the path of libcontactd.so); tried: " + "; ".join(tried)
    )


def library(path=None):
    """The loaded library (loaded once; path, or CONTACTD_LIBRARY, names the file)."""
    global _lib
    with _lock:
        if path is not None:
            _lib = _load(path)
        elif _lib is None:
            _lib = _load()
        return _lib


def call(endpoint, body):
    """(status, bytes) of ctd_answer(endpoint, body): the HTTP status and the exact
    bytes POST /v1/ENDPOINT answers. The library is thread-safe; so is this."""
    lib = library()
    text = ctypes.c_void_p()
    size = ctypes.c_size_t()
    status = lib.ctd_answer(
        endpoint.encode("utf-8"), body, len(body), ctypes.byref(text), ctypes.byref(size)
    )
    if not text.value:
        raise MemoryError("libcontactd ran out of memory answering /v1/%s" % endpoint)
    try:
        return status, ctypes.string_at(text.value, size.value)
    finally:
        lib.ctd_answer_free(text)


def endpoints():
    """The question endpoints the library answers, as ctd_endpoints() lists them: a list
    of {"name", "summary", "sweepable", "csv"[, "units", "headline", "fields"]}, in the
    table's order. LibraryNotFound when the library cannot be loaded."""
    text = library().ctd_endpoints()
    if text is None:
        raise MemoryError("libcontactd ran out of memory listing its endpoints")
    return json.loads(text)["endpoints"]
