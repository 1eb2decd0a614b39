"""What more than one subcommand uses.

The executors, the check that a log file can be written, the torch classifier's device and
pretrained backbone, and JSON for numpy scalars.
"""

from __future__ import annotations

import sys
from typing import Any

EXECUTORS = ("serial", "joblib", "ray", "dask")  # experiments.grid.EXECUTORS, no pandas


class LazyChoices:
    """An option's choices read from a registry only when argparse needs them.

    argparse asks ``value in choices`` when it parses the option, and lists the choices in
    that command's ``--help``; building the parser itself reads nothing, so a command that
    does not parse the option (``monitor --help``) never imports the registry (river's, about
    1.2 s).

    Examples
    --------
    >>> calls = []
    >>> c = LazyChoices(lambda: calls.append(1) or ("a", "b"))
    >>> len(calls)
    0
    >>> "a" in c, "z" in c, list(c), len(calls)
    (True, False, ['a', 'b'], 1)
    """

    def __init__(self, load: Any) -> None:
        self._load = load
        self._names: tuple[str, ...] | None = None

    def _get(self) -> tuple[str, ...]:
        if self._names is None:
            self._names = tuple(self._load())
        return self._names

    def __contains__(self, value: object) -> bool:
        return value in self._get()

    def __iter__(self) -> Any:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


def check_log_path(path: str, param: str = "log") -> None:
    """Fail before any work if the log cannot be created (missing folder, a folder, no rights)."""
    import os

    from pudd_core._validation import ParameterError

    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    if os.path.isdir(target):
        raise ParameterError(param, f"--{param} {path} is a folder; name a file")
    if not os.path.isdir(folder):
        raise ParameterError(param, f"the folder of --{param} {path} does not exist; create "
                                    f"{folder} first or choose another path")
    existed = os.path.exists(target)
    try:
        with open(target, "ab"):
            pass
    except OSError as exc:
        raise ParameterError(param, f"--{param} {path} cannot be written ({exc.strerror}); "
                                    "choose another path") from None
    if not existed:
        os.unlink(target)


def progress_line(what: str) -> Any:
    """A ``progress(done, total)`` that rewrites one line on stderr."""

    def report(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        print(f"\r{what}: {done}/{total}", end=end, file=sys.stderr, flush=True)

    return report


def prepare_classifier(name: str, options: dict[str, Any], data_dir: str | None) -> str | None:
    """Say which device a torch classifier uses; find (or build once, here) the backbone.

    Returns the device name (None for the classifiers without torch). The shipped backbone is
    checked here; where it is absent, building it before the runs keeps parallel workers from
    each pretraining their own copy.
    """
    from pudd_core.classifiers import TORCH_CLASSIFIERS, pretrained_backbone, resolve_device

    if name not in TORCH_CLASSIFIERS:
        return None
    device = resolve_device(str(options.get("device", "auto")))
    print(f"{name} runs on {device}", file=sys.stderr)
    if name == "pretrained-cnn" and "weights_path" not in options:
        info = pretrained_backbone(
            data_dir=data_dir,
            decode_progress=progress_line("decoding the CIFAR-10 test images"),
            progress=progress_line("pretraining the backbone on the CIFAR-10 test images"),
        )
        how = "built" if info.built else "shipped" if info.shipped else "loaded"
        print(f"backbone {how}: {info.path} (sha256 {info.sha256[:12]}, "
              f"{info.record['n_train_images']} test images, held-out 10-class accuracy "
              f"{100 * info.record['holdout_accuracy']:.1f} %)", file=sys.stderr)
    return device


def jsonable(value: object) -> object:
    if hasattr(value, "item"):
        return value.item()
    return str(value)
