"""The package's own PEP 517 build backend (pyproject.toml's backend-path): a wheel and an
sdist written with the standard library alone.

Why not setuptools: `pip install ./python` with setuptools needs the `wheel` package too
(setuptools before 70.1 builds wheels through it), which a Python from python.org, pyenv
or a plain venv often lacks, and without a registry pip cannot fetch it (the build then
stops at "invalid command 'bdist_wheel'"). The package is a few pure-Python files and two
data files, and a wheel is a zip of them with three metadata files (METADATA, WHEEL,
RECORD), so this module writes it itself: any pip that knows backend-path (20.0 and later)
installs the package on any Python 3.9+, offline, with no setuptools or wheel installed,
build isolation or not.

The metadata comes from pyproject.toml's [project] table, read by _project() below: the
standard library reads TOML only from Python 3.11 (tomllib), so the table is restricted to
`key = value` lines whose values are a string or a list of strings, which this reads;
anything else there is an error, not a guess (the package's tests compare this reading
with tomllib's).
"""

import ast
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE = "contactd"
_TAG = "py3-none-any"
# the keys of [project] this backend writes into METADATA (others are refused)
_KEYS = ("name", "version", "description", "readme", "requires-python", "classifiers")
# a fixed date for the files of a wheel, so that the same tree builds the same bytes
_DATE = (2020, 1, 1, 0, 0, 0)


def _project(path=None):
    """pyproject.toml's [project] table as a dict of strings and lists of strings."""
    with open(path or os.path.join(_ROOT, "pyproject.toml"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    table, project, n = None, {}, 0
    while n < len(lines):
        line = lines[n].strip()
        n += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            table = line
            continue
        if table != "[project]":
            continue
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        # a list may run over several lines, up to its closing bracket
        while value.startswith("[") and not value.rstrip().endswith("]") and n < len(lines):
            value += " " + lines[n].strip()
            n += 1
        try:
            parsed = ast.literal_eval(value) if sep and '"' in value else None
        except (SyntaxError, ValueError):
            parsed = None
        ok = isinstance(parsed, str) or (
            isinstance(parsed, list) and all(isinstance(v, str) for v in parsed)
        )
        # TOML's literal strings ('...') and escapes are not Python's: refused, not guessed
        literal = "'" in re.sub(r'"[^"]*"', "", value)
        if key not in _KEYS or not ok or literal or "\\" in value:
            raise ValueError(
                "pyproject.toml, [project]: %r is not one of %s with a double-quoted string "
                "or a list of them (contactd_build reads no other TOML)" % (line, ", ".join(_KEYS))
            )
        project[key] = parsed
    for key in ("name", "version"):
        if key not in project:
            raise ValueError("pyproject.toml, [project]: no %s" % key)
    return project


def _metadata(project):
    """The core metadata (METADATA of a wheel, PKG-INFO of an sdist), version 2.1."""
    out = [
        "Metadata-Version: 2.1",
        "Name: %s" % project["name"],
        "Version: %s" % project["version"],
    ]
    if "description" in project:
        out.append("Summary: %s" % project["description"])
    if "requires-python" in project:
        out.append("Requires-Python: %s" % project["requires-python"])
    out += ["Classifier: %s" % c for c in project.get("classifiers", [])]
    text = "\n".join(out) + "\n"
    if "readme" in project:
        with open(os.path.join(_ROOT, project["readme"]), encoding="utf-8") as f:
            text += "Description-Content-Type: text/markdown\n\n" + f.read()
    return text.encode("utf-8")


def _files():
    """The package's files, relative to the project's root (no byte code)."""
    out = []
    for top, dirs, names in os.walk(os.path.join(_ROOT, _PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if not name.endswith((".pyc", ".pyo")):
                out.append(os.path.relpath(os.path.join(top, name), _ROOT).replace(os.sep, "/"))
    return out


def _dist_name(project):
    # the escaped name and version of wheel and sdist file names (PEP 427, PEP 625)
    name = re.sub(r"[-_.]+", "_", project["name"]).lower()
    return "%s-%s" % (name, project["version"])


def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 517: the wheel, written into wheel_directory; its file name."""
    project = _project()
    base = _dist_name(project)
    info = base + ".dist-info"
    entries = []
    for rel in _files():
        with open(os.path.join(_ROOT, rel), "rb") as f:
            entries.append((rel, f.read()))
    entries.append((info + "/METADATA", _metadata(project)))
    wheel = "Wheel-Version: 1.0\nGenerator: contactd_build\nRoot-Is-Purelib: true\nTag: %s\n"
    entries.append((info + "/WHEEL", (wheel % _TAG).encode("ascii")))
    record = "".join("%s,%s,%d\n" % (n, _record_hash(d), len(d)) for n, d in entries)
    entries.append((info + "/RECORD", (record + info + "/RECORD,,\n").encode("utf-8")))
    filename = "%s-%s.whl" % (base, _TAG)
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            entry = zipfile.ZipInfo(name, _DATE)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return filename


def build_sdist(sdist_directory, config_settings=None):
    """PEP 517: the source archive (what pip needs to build the wheel again); its file name."""
    project = _project()
    base = _dist_name(project)
    names = ["pyproject.toml", "backend/contactd_build.py"] + _files()
    if "readme" in project:
        names.append(project["readme"])
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as t:
        pkg_info = _metadata(project)
        entry = tarfile.TarInfo(base + "/PKG-INFO")
        entry.size, entry.mode = len(pkg_info), 0o644
        t.addfile(entry, io.BytesIO(pkg_info))
        for rel in sorted(set(names)):
            t.add(os.path.join(_ROOT, rel), arcname=base + "/" + rel, recursive=False)
    return filename
