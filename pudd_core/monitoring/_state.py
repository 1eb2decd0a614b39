"""Saved monitor states as data: JSON for the structure, NumPy ``.npy`` for the arrays.

A state file is read back by the monitor (``Monitor.restore``, ``monitor --follow --state``),
so it is data, never code: nothing here unpickles. The file is

- 8 bytes of :data:`MAGIC`, then 8 bytes of a counter the follower advances in place (lines
  written; 0 for a plain saved monitor), then the SHA-256 of the payload (32 bytes);
- the payload: an uncompressed ZIP archive holding ``state.json`` (the object tree) and one
  ``.npy`` file per array, written and read by NumPy with ``allow_pickle=False``.

The tree names the class of each object it holds; only the classes of the monitor itself
(:data:`ALLOWED_MODULES`) and river's drift detectors and statistics are ever made, by
``cls.__new__`` and their attributes set from the tree (no ``__init__``, no other callable
named by the file), so a crafted file can at worst be refused. A file from before this format
(a pickle) is refused with what to do.

Examples
--------
>>> import io, numpy as np
>>> blob = dumps({"a": np.arange(3), "b": (1.5, float("nan"), b"x")}, kind="example")
>>> blob[:8] == MAGIC
True
>>> back = loads(blob, kind="example", where="blob")
>>> back["a"].tolist(), back["b"][0], back["b"][2]
([0, 1, 2], 1.5, b'x')
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import io
import json
import math
import os
import random
import tempfile
import types
import zipfile
from collections import deque
from typing import Any

import numpy as np

from pudd_core._validation import ParameterError

__all__ = ["ALLOWED_MODULES", "FORMAT", "MAGIC", "StateError", "dumps", "loads",
           "write_atomic"]

#: The file's first bytes.
MAGIC = b"PUDDST04"
#: The layout's version, in the JSON too; a file with another is refused by name.
FORMAT = 4
#: Bytes before the payload: magic, counter, SHA-256.
HEADER = len(MAGIC) + 8 + 32
#: The modules whose classes a state may hold (exact names).
ALLOWED_MODULES = frozenset({
    "pudd_core._scan", "pudd_core.bucketing", "pudd_core.chi2", "pudd_core.detector",
    "pudd_core.experiments.kswin", "pudd_core.experiments.records",
    "pudd_core.monitoring._follow", "pudd_core.monitoring._incremental",
    "pudd_core.monitoring._labels",
    "pudd_core.monitoring._log", "pudd_core.monitoring._result",
    "pudd_core.monitoring._score", "pudd_core.monitoring._windows",
})
#: river's modules whose classes a state may hold (the baselines and their statistics).
ALLOWED_PREFIXES = ("river.drift.", "river.stats.", "river._river_rust.")
#: The one callable a state may name besides classes: NumPy's bit generators, by name.
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


class StateError(ValueError):
    """A state that cannot be written or read as data (the message says which part)."""


def _allowed(module: str) -> bool:
    package = module.rpartition(".")[0]  # a module of an allowed package (pudd_core._scan.x)
    return (module in ALLOWED_MODULES or package in ALLOWED_MODULES
            or module.startswith(ALLOWED_PREFIXES))


#: Classes of the allowed modules a state never holds: they act on files when called.
FORBIDDEN = frozenset({"pudd_core.monitoring._follow:Follower"})


def _class(name: str) -> type:
    module, _, qual = name.rpartition(":")
    if not _allowed(module) or not qual.isidentifier() or name in FORBIDDEN:
        raise StateError(f"it names the class {name!r}, which a monitor state never holds")
    try:
        cls = getattr(importlib.import_module(module), qual)
    except (ImportError, AttributeError):
        raise StateError(f"it names the class {name!r}, which this version lacks") from None
    if not isinstance(cls, type):
        raise StateError(f"{name!r} is not a class")
    return cls


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


class _Writer:
    """Turns an object tree into JSON-able data, arrays set aside."""

    def __init__(self) -> None:
        self.arrays: list[np.ndarray[Any, Any]] = []
        self.ids: dict[int, int] = {}
        self.keep: list[Any] = []  # keeps ids stable while writing

    def ref(self, obj: Any) -> tuple[int, bool]:
        key = id(obj)
        if key in self.ids:
            return self.ids[key], True
        self.ids[key] = len(self.ids)
        self.keep.append(obj)
        return self.ids[key], False

    def __call__(self, obj: Any) -> Any:  # noqa: C901 - one branch per kind of value
        import pandas as pd

        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int) and type(obj) is int:
            return obj
        if type(obj) is float:
            return obj if math.isfinite(obj) else {"$float": repr(obj)}
        if isinstance(obj, bytes):
            return {"$bytes": base64.b64encode(obj).decode("ascii")}
        if isinstance(obj, np.ndarray) or isinstance(obj, np.generic):
            arr = np.asarray(obj)
            if arr.dtype.hasobject:
                raise StateError("an array of Python objects cannot be saved as data")
            n, seen = self.ref(obj) if isinstance(obj, np.ndarray) else (-1, False)
            if seen:
                return {"$ref": n}
            self.arrays.append(np.ascontiguousarray(arr))
            out = {"$array": len(self.arrays) - 1, "scalar": isinstance(obj, np.generic)}
            return out if n < 0 else {**out, "id": n}
        if isinstance(obj, np.dtype):
            return {"$dtype": obj.str}
        if isinstance(obj, tuple):
            return {"$tuple": [self(v) for v in obj]}
        if isinstance(obj, (list, dict, deque, set, frozenset)):
            n, seen = self.ref(obj)
            if seen:
                return {"$ref": n}
            if isinstance(obj, list):
                return {"$list": [self(v) for v in obj], "id": n}
            if isinstance(obj, dict):
                return {"$dict": [[self(k), self(v)] for k, v in obj.items()], "id": n}
            if isinstance(obj, deque):
                return {"$deque": [self(v) for v in obj], "maxlen": obj.maxlen, "id": n}
            return {"$set": [self(v) for v in obj], "frozen": isinstance(obj, frozenset),
                    "id": n}
        if isinstance(obj, (np.random.Generator, random.Random)):  # shared: kept shared
            n, seen = self.ref(obj)
            if seen:
                return {"$ref": n}
            if isinstance(obj, random.Random):
                return {"$random": self(obj.getstate()), "id": n}
            return {"$generator": self(obj.bit_generator.state), "id": n}
        if isinstance(obj, pd.DateOffset):
            from pandas.tseries.frequencies import to_offset

            if to_offset(obj.freqstr) != obj:
                raise StateError(f"the time offset {obj!r} does not round-trip its name")
            return {"$offset": obj.freqstr}
        if isinstance(obj, pd.Index):
            values = obj.tolist()
            return {"$index": self(values), "dtype": str(obj.dtype)}
        if isinstance(obj, types.MethodType):  # a bound method: its object and its name
            if callable(getattr(type(obj.__self__), obj.__name__, None)):
                return {"$method": obj.__name__, "self": self(obj.__self__)}
        return self.instance(obj)

    def instance(self, obj: Any) -> Any:
        cls = type(obj)
        if not _allowed(cls.__module__) or _name(cls) in FORBIDDEN:
            raise StateError(f"a {_name(cls)} cannot be saved in a monitor state")
        n, seen = self.ref(obj)
        if seen:
            return {"$ref": n}
        if hasattr(obj, "__dict__") or hasattr(cls, "__slots__"):
            return {"$obj": _name(cls), "state": self(obj.__getstate__()), "id": n}
        return self.extension(obj, n)

    def extension(self, obj: Any, n: int) -> Any:
        """An extension type (river's Rust statistics): its class, arguments and bytes."""
        import copyreg

        reduced = obj.__reduce_ex__(4)
        if not (isinstance(reduced, tuple) and len(reduced) >= 3
                and reduced[0] is copyreg.__newobj__ and reduced[1][0] is type(obj)  # type: ignore[attr-defined]
                and isinstance(reduced[2], bytes) and all(r is None for r in reduced[3:])):
            raise StateError(f"a {_name(type(obj))} does not reduce to its arguments and bytes")
        return {"$ext": _name(type(obj)), "args": self(tuple(reduced[1][1:])),
                "state": self(reduced[2]), "id": n}


class _Reader:
    """Builds the object tree back from the JSON-able data and the arrays."""

    def __init__(self, arrays: list[np.ndarray[Any, Any]]) -> None:
        self.arrays = arrays
        self.objs: dict[int, Any] = {}

    def keep(self, node: dict[str, Any], obj: Any) -> Any:
        n = node.get("id")
        if n is not None:
            if not isinstance(n, int) or n in self.objs:
                raise StateError("an object id is repeated or not a number")
            self.objs[n] = obj
        return obj

    def __call__(self, node: Any) -> Any:  # noqa: C901 - one branch per kind of value
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict) or not node:
            raise StateError(f"an element of type {type(node).__name__} is not a value")
        tag = next(iter(node))
        body = node[tag]
        if tag == "$ref":
            if body not in self.objs:
                raise StateError(f"a reference to object {body!r}, not defined before it")
            return self.objs[body]
        if tag == "$float":
            if body not in ("nan", "inf", "-inf"):
                raise StateError(f"{body!r} is not a float")
            return float(body)
        if tag == "$bytes":
            return base64.b64decode(body.encode("ascii"), validate=True)
        if tag == "$array":
            arr = self.arrays[body]
            value = arr[()] if node.get("scalar") else arr
            return self.keep(node, value)
        if tag == "$dtype":
            return np.dtype(body)
        if tag == "$tuple":
            return tuple(self(v) for v in body)
        if tag == "$list":
            out: list[Any] = self.keep(node, [])
            out.extend(self(v) for v in body)
            return out
        if tag == "$dict":
            d: dict[Any, Any] = self.keep(node, {})
            for k, v in body:
                d[self(k)] = self(v)
            return d
        if tag == "$deque":
            q: deque[Any] = self.keep(node, deque(maxlen=node.get("maxlen")))
            q.extend(self(v) for v in body)
            return q
        if tag == "$set":
            values = [self(v) for v in body]
            return self.keep(node, frozenset(values) if node.get("frozen") else set(values))
        if tag == "$generator":
            state = self(body)
            name = state.get("bit_generator") if isinstance(state, dict) else None
            if name not in BIT_GENERATORS:
                raise StateError(f"{name!r} is not one of NumPy's bit generators")
            gen = np.random.Generator(getattr(np.random, name)())
            gen.bit_generator.state = state
            return self.keep(node, gen)
        if tag == "$random":
            r = random.Random()
            r.setstate(self(body))
            return self.keep(node, r)
        if tag == "$offset":
            from pandas.tseries.frequencies import to_offset

            return to_offset(str(body))
        if tag == "$index":
            import pandas as pd

            return pd.Index(self(body), dtype=str(node.get("dtype")))
        if tag == "$method":  # river's detectors keep a bound method (PageHinkley's test)
            owner = self(node["self"])
            if not type(owner).__module__.startswith("river.") or not isinstance(body, str) \
                    or body.startswith("__") or not callable(getattr(type(owner), body, None)):
                raise StateError(f"{body!r} is not a method of a river detector")
            return getattr(owner, body)
        if tag == "$obj":
            return self.instance(node, _class(body))
        if tag == "$ext":
            cls = _class(body)
            obj = self.keep(node, cls.__new__(cls, *self(node["args"])))
            obj.__setstate__(self(node["state"]))
            return obj
        raise StateError(f"{tag!r} is not a kind of value a state holds")

    def instance(self, node: dict[str, Any], cls: type) -> Any:
        obj = self.keep(node, cls.__new__(cls))  # type: ignore[call-overload]
        state = self(node["state"])
        if hasattr(cls, "__setstate__") and "__setstate__" in _own(cls):
            obj.__setstate__(state)
            return obj
        attrs, slots = state if isinstance(state, tuple) and len(state) == 2 else (state, None)
        for mapping in (attrs, slots):
            if mapping is None:
                continue
            if not isinstance(mapping, dict) or not all(isinstance(k, str) for k in mapping):
                raise StateError(f"the attributes of a {cls.__name__} are not named")
            for k, v in mapping.items():
                object.__setattr__(obj, k, v)
        return obj


def _own(cls: type) -> set[str]:
    """The names defined by ``cls`` and its bases other than ``object``."""
    return {n for c in cls.__mro__ if c is not object for n in vars(c)}


def dumps(obj: Any, *, kind: str, counter: int = 0) -> bytes:
    """``obj`` as the bytes of a state file (``kind`` names what it holds)."""
    writer = _Writer()
    tree = {"format": FORMAT, "kind": kind, "root": writer(obj)}
    payload = io.BytesIO()
    with zipfile.ZipFile(payload, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("state.json", json.dumps(tree, allow_nan=False))
        for i, arr in enumerate(writer.arrays):
            with zf.open(f"a{i}.npy", "w") as fh:
                np.lib.format.write_array(fh, arr, allow_pickle=False)
    body = payload.getvalue()
    return MAGIC + counter.to_bytes(8, "little") + hashlib.sha256(body).digest() + body


def loads(raw: bytes, *, kind: str, where: str) -> Any:
    """The object a state file's bytes hold (written by :func:`dumps` with the same ``kind``).

    Raises
    ------
    ParameterError
        With ``param="state"``, naming ``where`` and what is wrong, for anything that is not
        such a file: another file, an earlier format, damaged or altered bytes.
    """
    try:
        return _loads(raw, kind, where)
    except ParameterError:
        raise
    except BaseException as exc:  # noqa: BLE001 - river's Rust code panics as BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit, MemoryError)):
            raise
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise ParameterError("state", f"{where} is a damaged monitor state ({reason}); "
                                      "start a new one (a new path, or delete it)") from None


def _loads(raw: bytes, kind: str, where: str) -> Any:
    if raw[:len(MAGIC)] != MAGIC:
        earlier = raw[:8] == b"PUDDFLW1" or raw[:1] == b"\x80"
        what = ("was written by an earlier version of PUDD Lab as a Python pickle, which this "
                "version never reads (a pickle can run code)" if earlier else
                "is not a state file of PUDD Lab's monitor")
        raise ParameterError("state", f"{where} {what}; start a new state: give a new path or "
                                      "delete it (a follower then reads the log from its "
                                      "first row)")
    if len(raw) < HEADER:
        raise StateError(f"it ends after {len(raw)} bytes, inside its header")
    body = raw[HEADER:]
    if hashlib.sha256(body).digest() != raw[len(MAGIC) + 8:HEADER]:
        raise StateError("its checksum does not match its contents: it was cut short or "
                         "altered")
    with zipfile.ZipFile(io.BytesIO(body)) as zf:
        infos = zf.infolist()
        if any(i.compress_type != zipfile.ZIP_STORED for i in infos):
            raise StateError("it holds compressed members; a state's are stored")
        names = [i.filename for i in infos]
        if not names or names[0] != "state.json" or \
                names[1:] != [f"a{i}.npy" for i in range(len(names) - 1)]:
            raise StateError("its members are not a state's")
        tree = json.loads(zf.read("state.json"))
        arrays = []
        for name in names[1:]:
            with zf.open(name) as fh:
                arrays.append(np.lib.format.read_array(fh, allow_pickle=False))
    if not isinstance(tree, dict) or tree.get("format") != FORMAT:
        got = tree.get("format") if isinstance(tree, dict) else None
        raise ParameterError("state", f"{where} holds a monitor state of format {got!r}; this "
                                      f"version reads format {FORMAT}: start a new state (a "
                                      "new path), or resume with the version that wrote it")
    if tree.get("kind") != kind:
        raise ParameterError("state", f"{where} holds a state of {tree.get('kind')!r}, not of "
                                      f"{kind!r}")
    return _Reader(arrays)(tree["root"])


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` whole with ``data``: a new temporary file beside it, then a rename.

    The temporary file is created new (``O_CREAT | O_EXCL``, by :func:`tempfile.mkstemp`),
    so no existing file or symbolic link is ever opened for writing; a kill mid-write leaves
    the old ``path`` whole. ``path`` itself, if a symbolic link, is replaced by the file, not
    followed.
    """
    target = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
