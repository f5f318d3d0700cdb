"""The Python package against libcontactd and the `contact` CLI (tests/python_test.sh runs
it with CONTACTD_LIBRARY naming the build's shared library and CONTACT its CLI)."""

import json
import os
import subprocess
import sys
import threading

import pytest

import contactd

CONTACT = os.environ["CONTACT"]
HERE = os.path.dirname(os.path.abspath(__file__))

SOLIMP = [0.9, 0.95, 0.001, 0.5, 2]

# one request per endpoint, answered (an endpoint of the library's table that is not here
# is asked {}: its defaults)
REQUESTS = [
    ("rest", {"body": {"shape": "sphere", "size": 0.05, "mass": 1}, "duration": 0.5}),
    ("drop", {"height": 0.1, "duration": 0.3}),
    ("stability", {"solref": [0.02, 0.05]}),
    ("sweep", {"query": "drop", "base": {"height": 0.1, "duration": 0.3},
               "vary": [{"path": "dampratio", "values": [0.1, 0.5, 1]}]}),
    ("eval", {"function": "impedance", "args": {"r": 0.0005, "solimp": SOLIMP}}),
    ("find", {"query": "stability", "path": "/solref/1", "field": "growth", "target": 1,
              "bracket": [0.01, 1]}),
    ("hold", {"duration": 0.05}),
    ("model", {"main": "a.xml", "files": {"a.xml": "<mujoco><worldbody><geom type=\"plane\" "
               "size=\"1 1 0.1\"/><body pos=\"0 0 0.1\"><freejoint/><geom type=\"sphere\" "
               "size=\"0.02\" mass=\"0.1\"/></body></worldbody></mujoco>"}}),
    ("grade", {"function": "impedance", "args": {"r": 0.0005, "solimp": SOLIMP}, "value": 0.925}),
]
# the endpoints the library answers, as it lists them (ctd_endpoints())
ENDPOINTS = [e["name"] for e in contactd.endpoints()]
ASKED = [(name, dict(REQUESTS).get(name, {})) for name in ENDPOINTS]


def cli(endpoint, request):
    """contact ENDPOINT's stdout and exit status for the request on stdin."""
    run = subprocess.run([CONTACT, endpoint, "-"], input=json.dumps(request).encode(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return run.returncode, run.stdout, run.stderr


@pytest.mark.parametrize("endpoint,request_", ASKED, ids=ENDPOINTS)
def test_answer_is_the_apis_bytes(endpoint, request_):
    code, out, _ = cli(endpoint, request_)
    assert code == 0
    raw = contactd.answer(endpoint, request_, raw=True)
    assert raw == out                      # the exact bytes, newline and all
    assert contactd.answer(endpoint, request_) == json.loads(out)
    # the JSON text itself (str or bytes) is the same request
    assert contactd.answer_bytes(endpoint, json.dumps(request_)) == out
    assert contactd.ask(endpoint, json.dumps(request_).encode()) == (200, out)


def test_every_endpoint_is_covered():
    # contact --help lists the endpoints of the table, as the library does; every one is
    # asked above
    help_text = subprocess.run([CONTACT, "--help"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, check=False).stdout.decode()
    listed = help_text.split("ENDPOINT is one of:\n")[1].split("\n\n")[0].splitlines()
    assert ENDPOINTS == [line.split()[0] for line in listed]
    for endpoint in ("rest", "drop", "stability", "sweep", "eval", "find", "hold", "model",
                     "grade"):
        assert endpoint in ENDPOINTS
    assert set(dict(REQUESTS)) <= set(ENDPOINTS)


def test_each_endpoint_has_its_function():
    # NAME(request=None, **fields), made from the library's table; sweep, eval and grade
    # take arguments of their own
    for row in contactd.endpoints():
        name = row["name"]
        assert callable(getattr(contactd, name)) and name in contactd.__all__
        assert row["summary"] and isinstance(row["sweepable"], bool)
        if name in ("sweep", "eval", "grade"):
            continue
        function = getattr(contactd, name)
        assert function.__name__ == name and row["summary"] in function.__doc__
        request = dict(REQUESTS).get(name, {})
        assert function(request) == contactd.answer(name, request)
        assert function(**request) == contactd.answer(name, request)
        if "fields" in row:
            # the answer's members (its keys sorted; a sweep's columns keep the order),
            # numbers with their units
            assert {f["name"] for f in row["fields"]} == set(contactd.answer(name, request))
            assert row["headline"] in [f["name"] for f in row["fields"] if "unit" in f]
    assert contactd.drop({"height": 0.2}, height=0.1) == contactd.drop(height=0.1)
    assert not hasattr(contactd, "nope")


def test_reals_read_back_to_the_bit():
    out = contactd.answer("rest", REQUESTS[0][1], raw=True)
    parsed = contactd.answer("rest", REQUESTS[0][1])
    # the penetration's text is its shortest exact form: float() of it is the number
    text = out.decode().split('"penetration":')[1].split(",")[0]
    assert float(text) == parsed["penetration"]
    assert repr(parsed["penetration"]) == text


def test_refusal_is_an_exception_naming_the_field():
    with pytest.raises(contactd.ContactdError) as e:
        contactd.drop(height=-1)
    assert e.value.status == 422
    assert e.value.error == "bad_value"
    assert e.value.field == "/height" == e.value.path
    assert "must be >= 0" in e.value.message
    # the same refusal as the CLI's (its JSON error on stderr, exit status 2)
    code, _, err = cli("drop", {"height": -1})
    assert code == 2
    assert json.loads(err) == e.value.body
    status, text = contactd.ask("drop", {"height": -1})
    assert status == 422 and json.loads(text) == e.value.body


def test_unknown_field_missing_field_and_endpoint():
    with pytest.raises(contactd.ContactdError) as e:
        contactd.eval("impedance", r=0.001)
    assert (e.value.status, e.value.error, e.value.field) == (400, "missing_field",
                                                              "/args/solimp")
    with pytest.raises(contactd.ContactdError) as e:
        contactd.rest(bogus=1)
    assert (e.value.status, e.value.error, e.value.field) == (400, "unknown_field", "/bogus")
    with pytest.raises(contactd.ContactdError) as e:
        contactd.answer("nope", {})
    assert (e.value.status, e.value.error) == (404, "not_found")
    with pytest.raises(contactd.ContactdError) as e:
        contactd.answer("drop", "{not json")
    assert (e.value.status, e.value.error) == (400, "bad_json")


def test_eval_reads_naturally():
    result = contactd.eval("impedance", r=0.0005, solimp=SOLIMP)
    assert result == contactd.answer("eval", REQUESTS[4][1])["result"]
    assert set(result) == {"value", "derivative"}
    kb = contactd.eval("solref_kb", solref=[0.02, 1], dmax=0.95, h=0.002)
    assert {"K", "B", "timeconst_used"} <= set(kb)
    old = contactd.eval("solref_kb", solref=[0.02, 1], dmax=0.95, h=0.002, mujoco="2.2.2")
    assert old["K"] == kb["K"]  # the rule did not change between releases
    series = contactd.eval("semi_implicit_euler", x0=0.1, v0=0, h=0.002, steps=10,
                           accel={"function": "spring", "args": {"k": 100, "c": 1}})
    assert len(series["x"]) == len(series["v"]) == 11


def test_eval_batch_of_any_size_equals_single_calls():
    # 2,500 calls: three requests of BATCH_CALLS; each result as the call alone answers
    calls = [("impedance", {"r": 1e-5 * i, "solimp": SOLIMP}) for i in range(2500)]
    calls[1700] = ("impedance", {"r": 0.001})          # refused: no solimp
    results = contactd.eval_batch(calls)
    assert len(results) == 2500
    for i in (0, 1, 999, 1000, 1699, 1701, 2499):
        assert results[i] == contactd.eval("impedance", **calls[i][1])
    failure = results[1700]
    assert isinstance(failure, contactd.ContactdError)
    assert failure.status == 400 and failure.field == "/calls/1700/args/solimp"
    with pytest.raises(contactd.ContactdError):
        contactd.eval_batch(calls, raise_errors=True)
    # dicts as the API takes them
    assert contactd.eval_batch([{"function": "error_reduction",
                                 "args": {"timeconst": 0.02, "dampratio": 1, "dt": 0.002}}]) \
        == [contactd.eval("error_reduction", timeconst=0.02, dampratio=1, dt=0.002)]


def test_grade_and_grade_batch():
    g = contactd.grade("impedance", 0.925, r=0.0005, solimp=SOLIMP)
    assert g["pass"] is True and g["expected"] == 0.925
    assert g["tolerance"] == contactd.tolerance("impedance")
    bad = contactd.grade("impedance", 0.9, r=0.0005, solimp=SOLIMP)
    assert bad["pass"] is False and "reason" in bad
    calls = [("impedance", {"r": 0.0005, "solimp": SOLIMP}, 0.925)] * 1500 + \
        [("impedance", {"r": 0.0005}, 0.925)]
    total = contactd.grade_batch(calls)
    assert (total["passed"], total["graded"], total["failed"]) == (1500, 1500, 1)
    assert total["results"][1500]["path"] == "/calls/1500/args/solimp"


def test_sweep_as_rows():
    request = REQUESTS[3][1]
    rows = contactd.sweep("drop", vary=request["vary"], base=request["base"])
    whole = contactd.answer("sweep", request)
    assert len(rows) == 3
    assert [r["/geom/solref/1"] for r in rows] == [0.1, 0.5, 1]
    assert [list(r.values()) for r in rows] == whole["rows"]
    assert list(rows[0]) == whole["columns"]


def test_tolerances_shipped_are_the_apis():
    served = contactd.answer_bytes("grade", {"tolerances": True})
    shipped_path = os.path.join(os.path.dirname(contactd.__file__), "tolerances.json")
    with open(shipped_path, "rb") as f:
        shipped = f.read()
    # regenerate with: contact grade <<<'{"tolerances": true}' >python/contactd/tolerances.json
    assert shipped == served
    t = contactd.tolerances()
    assert set(t["tolerances"]) == {"impedance", "solref_kb", "solref_to_spring", "a_ref",
                                    "contact_accel", "resting_penetration",
                                    "semi_implicit_euler", "step_growth", "error_reduction"}
    assert contactd.tolerance("semi_implicit_euler")["scale"] == "series_max"
    assert contactd.within("impedance", 0.925 * (1 + 1e-13), 0.925)
    assert not contactd.within("impedance", 0.925 * (1 + 1e-11), 0.925)
    with pytest.raises(KeyError):
        contactd.tolerance("nope")


def test_threads_answer_alike():
    expected = contactd.answer("drop", REQUESTS[1][1], raw=True)
    seen = []

    def ask():
        for _ in range(5):
            seen.append(contactd.answer("drop", REQUESTS[1][1], raw=True))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [expected] * 20


def test_version_and_library():
    assert contactd.version() == os.environ["CONTACTD_VERSION"] == contactd.__version__
    with open(os.path.join(HERE, "..", "pyproject.toml")) as f:
        assert 'version = "%s"' % contactd.__version__ in f.read()


def test_library_not_found_names_the_variable():
    env = dict(os.environ, CONTACTD_LIBRARY="/nonexistent/libcontactd.so")
    run = subprocess.run([sys.executable, "-c", "import contactd; contactd.version()"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    assert run.returncode != 0
    assert b"LibraryNotFound" in run.stderr and b"CONTACTD_LIBRARY" in run.stderr
    # the package imports without it; an endpoint's function asks for it then
    run = subprocess.run([sys.executable, "-c", "import contactd; "
                          "contactd.tolerance('impedance'); contactd.drop(height=0.1)"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    assert run.returncode != 0
    assert b"LibraryNotFound" in run.stderr and b"CONTACTD_LIBRARY" in run.stderr


def test_grade_batch_judges_nonfinite_and_wrong_shapes_call_by_call():
    # a student's NaN, +inf and -inf, and [K, B] where solref_kb's outputs object goes:
    # the batch answers, those calls fail saying why, the others pass
    kb_args = {"solref": [0.02, 1], "dmax": 0.95, "h": 0.002}
    kb = contactd.eval("solref_kb", **kb_args)
    good = ("impedance", {"r": 0.0005, "solimp": SOLIMP}, 0.925)
    calls = [good,
             ("impedance", {"r": 0.0005, "solimp": SOLIMP}, float("nan")),
             ("solref_kb", kb_args, {"K": float("inf"), "B": kb["B"]}),
             {"function": "semi_implicit_euler",
              "args": {"x0": 0.1, "v0": 0, "h": 0.01, "steps": 2,
                       "accel": {"function": "spring", "args": {"k": 100, "c": 1}}},
              "value": [0.1, -float("inf"), 0.09702]},
             ("solref_kb", kb_args, [kb["K"], kb["B"]]),
             ("solref_kb", kb_args, {"K": kb["K"], "B": kb["B"]})]
    total = contactd.grade_batch(calls)
    assert (total["passed"], total["graded"], total["failed"]) == (2, 6, 0)
    results = total["results"]
    assert [r["pass"] for r in results] == [True, False, False, False, False, True]
    assert results[1]["reason"] == "value is not finite: NaN"
    assert results[2]["reason"] == "K is not finite: Infinity"
    assert results[3]["reason"] == "x[1] is not finite: -Infinity"
    assert results[4]["reason"].startswith("the value must be an object of solref_kb's outputs")
    assert "not an array of 2 values" in results[4]["reason"]
    assert results[4]["failures"] == [{"output": None, "error": results[4]["reason"]}]
    # one call alone says the same
    alone = contactd.grade("impedance", float("-inf"), r=0.0005, solimp=SOLIMP)
    assert alone["pass"] is False and alone["reason"] == "value is not finite: -Infinity"


def test_grade_names_every_failing_output_and_hints():
    # the lesson's solref_kb without refsafe at a timeconst below 2h: K and B both fail,
    # both named, with the refsafe hint
    dmax, tc = 0.95, 0.002
    g = contactd.grade("solref_kb", {"K": 1 / (dmax**2 * tc**2), "B": 2 / (dmax * tc)},
                       solref=[tc, 1], dmax=dmax, h=0.002)
    assert [f["output"] for f in g["failures"]] == ["K", "B"]
    assert all(f["hint"].startswith("refsafe forgotten") for f in g["failures"])
    assert g["reason"].startswith("K is outside the tolerance; B is outside the tolerance. "
                                  "Hint for K and B: refsafe forgotten")


# issue 48's grasps: the hold function takes the object's shape and size, the pads' joint
# and actuator as its request's fields, with the API's bytes and refusals
CAPSULE_ON_SERVOS = {
    "object": {"shape": "capsule", "size": [0.004, 0.02], "mass": 0.045},
    "pad": {"joint": {"damping": 100},
            "actuator": {"type": "position", "kp": 20000, "squeeze": 0.002}},
    "duration": 0.2,
}


def test_hold_takes_a_grasp():
    code, out, _ = cli("hold", CAPSULE_ON_SERVOS)
    assert code == 0
    assert contactd.hold(**CAPSULE_ON_SERVOS) == json.loads(out)
    assert contactd.hold(CAPSULE_ON_SERVOS) == json.loads(out)
    # contact hold's flags ask the same question
    flags = subprocess.run(
        [CONTACT, "hold", "-", "--shape", "capsule", "--size", "0.004,0.02", "--damping", "100",
         "--actuator", "position", "--kp", "20000", "--squeeze", "0.002"],
        input=json.dumps({"object": {"mass": 0.045}, "duration": 0.2}).encode(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    assert flags.returncode == 0 and flags.stdout == out


@pytest.mark.parametrize("fields,path", [
    ({"grip_force": 5, "pad": {"actuator": {"type": "position", "kp": 100, "squeeze": 0.001}}},
     "/grip_force"),
    ({"object": {"shape": "capsule", "size": [0.004]}}, "/object/size"),
    ({"object": {"shape": "box", "size": [0.01, 0.01, -1]}}, "/object/size/2"),
    ({"pad": {"joint": {"armature": -1}}}, "/pad/joint/armature"),
    ({"pad": {"actuator": {"type": "position", "kp": 100, "squeeze": 0.001,
                           "forcerange": [2, 1]}}}, "/pad/actuator/forcerange"),
])
def test_hold_refuses_a_bad_grasp_at_its_field(fields, path):
    with pytest.raises(contactd.ContactdError) as refused:
        contactd.hold(**fields)
    assert refused.value.status == 422 and refused.value.field == path
