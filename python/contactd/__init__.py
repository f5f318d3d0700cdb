"""contactd from Python: MuJoCo's soft-contact numbers, as contactd's HTTP API answers them.

Every function here asks libcontactd's one JSON entry point, ctd_answer(), which answers
exactly the bytes ``POST /v1/ENDPOINT`` of the daemon answers (the same service code),
without a daemon::

    import contactd
    contactd.answer("drop", {"height": 0.1})["rebound"]          # the API's answer, parsed
    contactd.eval("impedance", r=0.0005, solimp=[0.9, 0.95, 0.001, 0.5, 2])["value"]
    contactd.grade("impedance", 0.925, r=0.0005, solimp=[0.9, 0.95, 0.001, 0.5, 2])["pass"]
    for row in contactd.sweep("drop", vary=[{"path": "dampratio", "values": [0.1, 1]}]):
        print(row["/geom/solref/1"], row["rebound"])

Every endpoint the library lists (endpoints(), its ctd_endpoints()) has a function of its
name here: contactd.drop(height=0.1), contactd.hold(grip_force=5), ... (the request's
fields as keywords, or the request as a dict), made from the library's table when the
package is imported; sweep, eval and grade take arguments of their own. A grasp is the
hold request's fields::

    contactd.hold(object={"shape": "capsule", "size": [0.004, 0.02], "mass": 0.045},
                  pad={"joint": {"damping": 100},
                       "actuator": {"type": "position", "kp": 20000, "squeeze": 0.002}})

A refusal raises ContactdError, carrying the HTTP status, the error's name, the field at
fault (a JSON Pointer) and the message. The library is found through the system's library
path (after ``make install``: ldconfig) or the CONTACTD_LIBRARY environment variable (the
path of libcontactd.so). The grading tolerances are shipped with the package
(tolerances(): the same as ``POST /v1/grade {"tolerances": true}`` answers).
"""

import json
import math
import os

from . import _lib
from ._lib import LibraryNotFound

__version__ = "0.1.0"

__all__ = [
    "ContactdError",
    "LibraryNotFound",
    "answer",
    "answer_bytes",
    "ask",
    "endpoints",
    "sweep",
    "eval",
    "eval_batch",
    "grade",
    "grade_batch",
    "tolerances",
    "tolerance",
    "version",
    "within",
    "library",
    "BATCH_CALLS",
]  # and each endpoint's function (rest, drop, stability, hold, find, model, ...), below

# Calls sent in one eval or grade request by eval_batch() and grade_batch(): well under
# the API's 10,000-call and body limits, so any number of calls goes through.
BATCH_CALLS = 1000


class ContactdError(Exception):
    """A request contactd refused: what the API answers with a 4xx or 5xx status.

    status   the HTTP status (400, 404, 413, 422, 500, 503, ...)
    error    the error's name ("bad_value", "unknown_field", "missing_field", ...)
    message  the API's sentence
    path     the JSON Pointer of the field at fault ("" for the whole request); also field
    body     the error object as the API answered it (a batch's failed call also carries
             "function" and "id" when readable)
    """

    def __init__(self, status, body):
        self.status = status
        self.body = body
        self.error = body.get("error", "")
        self.message = body.get("message", "")
        self.path = body.get("path", "")
        self.function = body.get("function")
        self.id = body.get("id")
        where = " at %s" % self.path if self.path else ""
        super().__init__("%d %s%s: %s" % (status, self.error, where, self.message))

    @property
    def field(self):
        """The field at fault, as a JSON Pointer ("/args/r"); "" for the whole request."""
        return self.path


def _plain(value):
    """What json cannot write but a course's code hands in: numpy arrays and scalars."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError("%r is not a JSON value" % (value,))


# A student's non-finite float as POST /v1/grade reads it: JSON has no NaN or Infinity,
# and json.dumps would write bare tokens that no JSON parser (the daemon's included) takes.
_NONFINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _student(value):
    """A student's value with every non-finite float spelt as grade reads it ("NaN",
    "Infinity", "-Infinity"), through dicts, lists, tuples and numpy arrays."""
    if isinstance(value, float):
        return value if math.isfinite(value) else _NONFINITE[repr(float(value))]
    if isinstance(value, dict):
        return {k: _student(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_student(v) for v in value]
    if hasattr(value, "tolist"):  # numpy's arrays and scalars: Python's lists and numbers
        return _student(value.tolist())
    return value


def _body(request):
    if request is None:
        return b"{}"
    if isinstance(request, bytes):
        return request
    if isinstance(request, str):
        return request.encode("utf-8")
    return json.dumps(request, default=_plain).encode("utf-8")


def ask(endpoint, request=None):
    """(status, bytes): what POST /v1/ENDPOINT answers, never raising for a refusal.

    request: a dict (or list) sent as JSON, or the JSON text itself (str or bytes);
    None is {}. The bytes are the API's exactly: canonical JSON, newline-terminated."""
    return _lib.call(endpoint, _body(request))


def answer_bytes(endpoint, request=None):
    """The exact bytes POST /v1/ENDPOINT answers; ContactdError for a refusal."""
    status, text = ask(endpoint, request)
    if status != 200:
        raise ContactdError(status, json.loads(text))
    return text


def answer(endpoint, request=None, raw=False):
    """What POST /v1/ENDPOINT answers, parsed (raw=True: its exact bytes).

    Every real of an answer is its shortest exact text, so float() reads it back to the
    bit. A refusal raises ContactdError."""
    text = answer_bytes(endpoint, request)
    return text if raw else json.loads(text)


def _request(request, fields):
    out = dict(request or {})
    out.update(fields)
    return out


def sweep(query, vary, base=None, **fields):
    """POST /v1/sweep as rows: one dict per point, keyed by the answer's columns (the
    varied paths first, then the question's fields). The whole answer, with its columns
    and query: answer("sweep", ...)."""
    request = dict(fields, query=query, vary=vary)
    if base is not None:
        request["base"] = base
    out = answer("sweep", request)
    columns = out["columns"]
    return [dict(zip(columns, row)) for row in out["rows"]]


def _call(function, args, mujoco=None, id=None):
    call = {"function": function, "args": args}
    if mujoco is not None:
        call["mujoco"] = mujoco
    if id is not None:
        call["id"] = id
    return call


def eval(function, mujoco=None, id=None, **args):
    """POST /v1/eval of one of the lesson's functions, as MuJoCo computes it: the call's
    result ({"value": ...}; impedance's value and derivative; solref_kb's K, B and
    timeconst_used; semi_implicit_euler's x and v series; "diverged" when set).

        contactd.eval("impedance", r=0.0005, solimp=[0.9, 0.95, 0.001, 0.5, 2])
        contactd.eval("solref_kb", solref=[0.02, 1], dmax=0.95, h=0.002)["K"]

    mujoco names the release ("2.2.2"; default the newest). The whole answer, with the
    release and core that computed it: answer("eval", {...})."""
    return answer("eval", _call(function, args, mujoco, id))["result"]


def _as_call(call):
    """A batch's call: a dict as the API takes it, or (function, args[, value])."""
    if isinstance(call, dict):
        if "value" in call:
            call = dict(call, value=_student(call["value"]))
        return call
    function, args = call[0], call[1]
    out = {"function": function, "args": dict(args)}
    if len(call) > 2:
        out["value"] = _student(call[2])
    return out


def _renumber(failure, offset):
    """A failed call's error with its /calls/N path counted in the caller's whole list."""
    path = failure.get("path", "")
    if offset and path.startswith("/calls/"):
        rest = path[len("/calls/"):]
        index, sep, tail = rest.partition("/")
        if index.isdigit():
            failure = dict(failure, path="/calls/%d%s%s" % (int(index) + offset, sep, tail))
    return failure


def _batches(endpoint, calls, mujoco):
    calls = [_as_call(c) for c in calls]
    for offset in range(0, len(calls), BATCH_CALLS):
        request = {"calls": calls[offset:offset + BATCH_CALLS]}
        if mujoco is not None:
            request["mujoco"] = mujoco
        yield offset, answer(endpoint, request)


def eval_batch(calls, mujoco=None, raise_errors=False):
    """Many eval calls: a list with, for each call, its result (as eval() returns it) or,
    for a call the API refused, a ContactdError (raised instead with raise_errors=True).

    calls: dicts {"function", "args"[, "id", "mujoco"]} or (function, args) pairs; any
    number (sent BATCH_CALLS at a time; a refused call's path counts in this list)."""
    out = []
    for offset, part in _batches("eval", calls, mujoco):
        for item in part["results"]:
            if "error" in item:
                failure = ContactdError(item.get("status", 500), _renumber(item, offset))
                if raise_errors:
                    raise failure
                out.append(failure)
            else:
                out.append(item["result"])
    return out


def grade(function, value, mujoco=None, id=None, **args):
    """POST /v1/grade: a student's value of function(**args) against MuJoCo's.

    value: a number (the function's value), a list (semi_implicit_euler's x), a dict of
    some outputs ({"K": ..., "B": ...}), or None; a NaN or infinite float (numpy's too) is
    sent as "NaN", "Infinity" or "-Infinity" and fails its call ("value is not finite:
    NaN"). The answer: "pass", "expected", "relative_error", "absolute_error", "ulps", the
    "tolerance" used and, on a fail, the "reason" and the "failures" ({"output", "error",
    "hint"} for every failing output)."""
    call = _call(function, args, mujoco, id)
    call["value"] = _student(value)
    return answer("grade", call)


def grade_batch(calls, mujoco=None):
    """Many grades: {"passed", "graded", "failed", "results"} as POST /v1/grade answers
    a batch, over any number of calls (sent BATCH_CALLS at a time). calls: dicts
    {"function", "args", "value"[, "id"]} or (function, args, value) triples, non-finite
    floats sent as grade() sends them. A student's value of any shape is graded (a wrong
    one fails its call, saying why); a call the API refused (bad arguments, no value) is
    its error object in results (with "status"), counted in "failed"."""
    total = {"passed": 0, "graded": 0, "failed": 0, "results": []}
    for offset, part in _batches("grade", calls, mujoco):
        for key in ("passed", "graded", "failed"):
            total[key] += part[key]
        total["results"].extend(
            _renumber(r, offset) if "error" in r else r for r in part["results"]
        )
    return total


_TOLERANCES = None


def tolerances():
    """The grading tolerances: {"rule", "tolerances": {FUNCTION: {"relative", "absolute",
    "scale", "why"}}, "mujoco", "core_version"}, shipped with the package (the same as
    POST /v1/grade {"tolerances": true} answers; the tests hold them equal)."""
    global _TOLERANCES
    if _TOLERANCES is None:
        with open(os.path.join(os.path.dirname(__file__), "tolerances.json"), "rb") as f:
            _TOLERANCES = json.load(f)
    return json.loads(json.dumps(_TOLERANCES))


def tolerance(function):
    """One function's tolerance: {"relative", "absolute", "scale", "why"}; scale
    "expected" is |expected|, "series_max" the series' largest |expected|."""
    try:
        return tolerances()["tolerances"][function]
    except KeyError:
        raise KeyError("no tolerance for %r (the lesson's functions: %s)"
                       % (function, ", ".join(sorted(tolerances()["tolerances"])))) from None


def within(function, student, expected):
    """The grading rule on two plain numbers, offline: |student - expected| <=
    max(relative * |expected|, absolute) with function's tolerance."""
    t = tolerance(function)
    if student is None or expected is None:
        return student is None and expected is None
    if not (math.isfinite(student) and math.isfinite(expected)):
        return False
    return abs(student - expected) <= max(t["relative"] * abs(expected), t["absolute"])


def endpoints():
    """The question endpoints the library answers (ctd_endpoints()), in its table's order:
    a list of {"name", "summary", "sweepable", "csv"} with, where the endpoint has them,
    "units" (one line), "headline" (the field a plot of its sweep draws first) and
    "fields" (its answer's members in order, each {"name"[, "unit"]}: a number's SI
    unit, "" for a pure number)."""
    return _lib.endpoints()


def version():
    """The loaded libcontactd's version (ctd_version())."""
    return _lib.library().ctd_version().decode("ascii")


def library(path=None):
    """The loaded ctypes library; library(path) loads the one at path instead (and
    defines the functions of any endpoint it answers that the first did not)."""
    lib = _lib.library(path)
    if path is not None:
        _define_questions()
    return lib


# ---- one function per endpoint, from the library's table ----

_questions = set()  # the names _define_questions() defined


def _question(name, summary):
    def question(request=None, **fields):
        return answer(name, _request(request, fields))

    question.__name__ = question.__qualname__ = name
    question.__doc__ = (
        "POST /v1/%s: %s. The request as a dict, its fields as keywords, or both (the "
        "keywords win); the answer parsed, as answer(%r, request) gives it."
        % (name, summary, name)
    )
    return question


def _define_questions():
    """NAME(request=None, **fields) for every endpoint of the library's table
    (ctd_endpoints()), but those this module defines itself (sweep, eval, grade take
    arguments of their own). LibraryNotFound when the library cannot be loaded."""
    for row in _lib.endpoints():
        name = row["name"]
        if name in globals() and name not in _questions:
            continue
        globals()[name] = _question(name, row["summary"])
        _questions.add(name)
        if name not in __all__:
            __all__.append(name)


def __getattr__(name):
    """An endpoint's function when the library could not be loaded at import: asking
    for one loads it (LibraryNotFound, naming CONTACTD_LIBRARY, when it still cannot)."""
    if not name.startswith("_"):
        _define_questions()
        if name in _questions:
            return globals()[name]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


try:
    _define_questions()
except LibraryNotFound:
    pass  # defined by __getattr__ once the library loads
