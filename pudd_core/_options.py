"""Option values written as text (``KEY=VALUE`` on the command line) parsed by the parameter's type.

The type comes from the parameter's annotation (``bool``, ``int``, ``float``, ``str``, a
``Literal`` of choices, ``None`` in a union) or, for unannotated parameters such as river's,
from its default value. Text that does not parse raises :class:`ParameterError` naming the
option, what it expects and, for a ``Literal``, the choices: ``"False"`` never becomes true.
"""

from __future__ import annotations

import ast
import inspect
import json
import math
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, Union

from pudd_core._validation import ParameterError

__all__ = ["options_json", "parse_bool", "parse_option", "read_options_json"]

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "null")


def options_json(options: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> str:
    """A run's options as text, the one way summaries and the results store write them.

    Examples
    --------
    >>> options_json((("yates", False), ("cut_points", "all")))
    '{"cut_points": "all", "yates": false}'
    """
    return json.dumps(dict(options), sort_keys=True, default=str)


def read_options_json(text: str) -> dict[str, Any] | None:
    """Options back from :func:`options_json` text; ``None`` when the text is neither form.

    Stores written before the options were always JSON hold ``str(dict)`` in their error
    rows (``"{'yates': False}"``): that form is still read.

    Examples
    --------
    >>> read_options_json('{"yates": false}') == read_options_json("{'yates': False}")
    True
    >>> read_options_json("garbage") is None
    True
    """
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, dict):
            return value
    return None


def parse_bool(name: str, raw: str) -> bool:
    """``true/yes/on/1`` or ``false/no/off/0``, in any case; anything else raises.

    Examples
    --------
    >>> parse_bool("yates", "False"), parse_bool("yates", "YES")
    (False, True)
    >>> parse_bool("yates", "maybe")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: yates expects true or false, got 'maybe'
    """
    text = raw.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ParameterError(name, f"{name} expects true or false, got {raw!r}", (True, False))


def _hints(target: Callable[..., Any]) -> dict[str, Any]:
    func = vars(target).get("__init__", target) if isinstance(target, type) else target
    try:
        return typing.get_type_hints(func)
    except Exception:  # unresolvable names (TYPE_CHECKING imports): use the defaults instead
        return {}


def _alternatives(hint: Any) -> list[Any]:
    """A union's members (``X | None`` too), else the hint itself."""
    origin = typing.get_origin(hint)
    if origin is Union or origin is types.UnionType:
        out: list[Any] = []
        for arg in typing.get_args(hint):
            out.extend(_alternatives(arg))
        return out
    return [hint]


def _parse_as(name: str, raw: str, kind: Any) -> tuple[bool, Any]:
    """(parsed, value) for one alternative type; ``parsed`` is False when it does not fit."""
    text = raw.strip()
    if typing.get_origin(kind) is Literal:
        for choice in typing.get_args(kind):
            if str(choice) == text:
                return True, choice
        return False, None
    if kind is type(None):
        return (True, None) if text.lower() in _NONE else (False, None)
    if kind is bool:
        try:
            return True, parse_bool(name, text)
        except ParameterError:
            return False, None
    if kind is int:
        try:
            return True, int(text)
        except ValueError:
            return False, None
    if kind is float:
        try:
            value = float(text)
        except ValueError:
            return False, None
        return (True, value) if math.isfinite(value) else (False, None)
    if kind is str:
        return True, raw
    origin = typing.get_origin(kind)
    if origin in (tuple, list):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return False, None
        if isinstance(value, list):
            return True, tuple(value) if origin is tuple else value
        return False, None
    return False, None


def _describe(kind: Any) -> str:
    if typing.get_origin(kind) is Literal:
        return " or ".join(repr(c) for c in typing.get_args(kind))
    return {bool: "true or false", int: "an integer", float: "a finite number",
            str: "text", type(None): "none"}.get(kind, getattr(kind, "__name__", str(kind)))


def parse_option(target: Callable[..., Any], name: str, raw: str) -> Any:
    """The value of option ``name`` of ``target`` (a class or function) written as ``raw`` text.

    Examples
    --------
    >>> from pudd_core.detector import ChunkPUDD
    >>> parse_option(ChunkPUDD, "yates", "False"), parse_option(ChunkPUDD, "skip_rule", "None")
    (False, None)
    >>> parse_option(ChunkPUDD, "n_buckets", "1.5")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: option n_buckets expects an integer, got '1.5'
    >>> parse_option(ChunkPUDD, "cut_points", "foo")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: option cut_points expects 'pow2' or 'all', got 'foo'
    """
    hint = _hints(target).get(name)
    param = inspect.signature(target).parameters.get(name)
    default = param.default if param is not None else inspect.Parameter.empty
    if hint is None or hint is Any:
        if isinstance(default, bool):
            hint = bool
        elif isinstance(default, int):
            hint = int
        elif isinstance(default, float):
            hint = float
        elif isinstance(default, str):
            hint = str
        else:  # nothing to go by: JSON if it is JSON (numbers, lists), else the text
            try:
                return json.loads(raw)
            except json.JSONDecodeError:
                return raw
        if default is None:
            hint = hint | None
    kinds = _alternatives(hint)
    # int before float ("3" stays an int), None before str ("None" means None where allowed)
    order = sorted(kinds, key=lambda k: (k is not type(None), k is str))
    for kind in order:
        ok, value = _parse_as(name, raw, kind)
        if ok:
            return value
    choices: list[Any] = []
    for kind in kinds:
        if typing.get_origin(kind) is Literal:
            choices.extend(typing.get_args(kind))
        elif kind is type(None):
            choices.append(None)
    expected = " or ".join(_describe(k) for k in kinds)
    raise ParameterError(name, f"option {name} expects {expected}, got {raw!r}",
                         choices if choices else None)
