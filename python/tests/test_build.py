"""The package's own build backend (backend/contactd_build.py): what it reads of
pyproject.toml, and the wheel and sdist it writes (tests/python_install_test.sh installs
them with pip)."""

import base64
import hashlib
import importlib.util
import os
import sys
import tarfile
import zipfile

import pytest

import contactd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _backend(root=ROOT, name="contactd_build"):
    spec = importlib.util.spec_from_file_location(name, os.path.join(root, "backend", "contactd_build.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _toml():
    # the standard library's TOML reader (3.11+), else Debian's python3-tomli
    try:
        import tomllib
    except ImportError:
        import tomli as tomllib
    return tomllib


def test_project_reads_as_toml_does():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        expected = _toml().load(f)["project"]
    assert _backend()._project() == expected
    assert expected["version"] == contactd.__version__


@pytest.mark.parametrize("line", [
    "version = '0.1.0'",                  # a TOML literal string: not Python's quoting
    'version = "0.1\\u0030"',             # an escape
    'version = 1',                         # not a string
    'license = {text = "MIT"}',            # a key the backend does not write
    'name = ["contactd", 1]',              # not a list of strings
])
def test_project_refuses_what_it_does_not_read(tmp_path, line):
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "contactd"\n%s\n' % line)
    with pytest.raises(ValueError, match="pyproject.toml"):
        _backend()._project(str(path))


def test_wheel(tmp_path):
    backend = _backend()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    name = backend.build_wheel(str(tmp_path / "a"))
    assert name == "contactd-%s-py3-none-any.whl" % contactd.__version__
    assert backend.build_wheel(str(tmp_path / "b")) == name
    data = (tmp_path / "a" / name).read_bytes()
    assert (tmp_path / "b" / name).read_bytes() == data  # the same tree, the same bytes
    info = "contactd-%s.dist-info/" % contactd.__version__
    package = sorted("contactd/" + f for f in os.listdir(os.path.join(ROOT, "contactd"))
                     if f != "__pycache__" and not f.endswith(".pyc"))
    with zipfile.ZipFile(str(tmp_path / "a" / name)) as z:
        names = z.namelist()
        assert sorted(names) == sorted(package + [info + "METADATA", info + "WHEEL", info + "RECORD"])
        for f in package:
            with open(os.path.join(ROOT, f), "rb") as src:
                assert z.read(f) == src.read()
        metadata = z.read(info + "METADATA").decode()
        assert "\nName: contactd\n" in metadata
        assert "\nVersion: %s\n" % contactd.__version__ in metadata
        assert "\nRequires-Python: >=3.9\n" in metadata
        assert "Tag: py3-none-any\n" in z.read(info + "WHEEL").decode()
        # RECORD: every other file, its sha256 (urlsafe base64, unpadded) and size
        record = [line.split(",") for line in z.read(info + "RECORD").decode().splitlines()]
        assert sorted(r[0] for r in record) == sorted(names)
        for path, digest, size in record:
            if path == info + "RECORD":
                assert digest == size == ""
                continue
            content = z.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=")
            assert digest == "sha256=" + expected.decode() and int(size) == len(content)


def test_sdist_builds_the_same_wheel(tmp_path):
    backend = _backend()
    name = backend.build_sdist(str(tmp_path))
    assert name == "contactd-%s.tar.gz" % contactd.__version__
    with tarfile.open(str(tmp_path / name)) as t:
        members = t.getnames()
        assert "contactd-%s/PKG-INFO" % contactd.__version__ in members
        t.extractall(str(tmp_path / "x"))
    unpacked = _backend(str(tmp_path / "x" / ("contactd-%s" % contactd.__version__)), "unpacked_build")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    wheel = backend.build_wheel(str(tmp_path / "a"))
    assert unpacked.build_wheel(str(tmp_path / "b")) == wheel
    assert (tmp_path / "a" / wheel).read_bytes() == (tmp_path / "b" / wheel).read_bytes()
    sys.modules.pop("unpacked_build", None)
