"""The plotly.js that the browser player loads: plotly's own partial bundle of what it draws.

The player (``ui/player_component``) draws scatter and bar traces only. plotly.js publishes
a *basic* partial bundle (scatter, bar, pie) that a browser parses about five times faster
than the full bundle the plotly package ships (BENCHMARKS.md, "App: page load"), which is
most of a new visitor's wait. :func:`fetch_basic_bundle` downloads it once from the npm
registry (``scripts/setup_env.sh`` does, at set-up), checked against the registry's sha512
integrity; :func:`player_js` returns it when it is there and matches the plotly package's
plotly.js version, else the full bundle: the player works either way, offline too.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import plotly

__all__ = ["BASIC", "BASIC_TRACE_TYPES", "FULL_JS", "basic_bundle_path", "fetch_basic_bundle",
           "player_js", "plotly_js_version"]

#: plotly.js as the plotly package ships it (every trace type).
FULL_JS = Path(plotly.__file__).with_name("package_data") / "plotly.min.js"


@dataclass(frozen=True)
class Release:
    """One npm release of a plotly.js partial bundle: where it is and what it must hash to."""

    package: str
    version: str
    integrity: str  # the registry's ``dist.integrity``: "sha512-" + base64 of the tarball's digest
    member: str  # the bundle's path inside the tarball

    @property
    def url(self) -> str:
        """The tarball's address on the npm registry."""
        return f"https://registry.npmjs.org/{self.package}/-/{self.package}-{self.version}.tgz"


#: The basic bundle of the plotly.js version that plotly==6.5.2 ships (tests check they agree).
BASIC = Release(
    package="plotly.js-basic-dist-min", version="3.3.1",
    integrity="sha512-txVJKqXoFd/eRq7MEN14bVpycDa5gzvnQAZqJ9dZEKhrWHSuIUCoV9UIzliwOjxbJkDVmSmHTb3d4"
              "bNuBI/97Q==",
    member="package/plotly-basic.min.js",
)
#: The trace types the basic bundle draws (plotly.js ``lib/index-basic.js``).
BASIC_TRACE_TYPES = frozenset({"scatter", "bar", "pie"})


def plotly_js_version(path: Path = FULL_JS) -> str | None:
    """The ``vX.Y.Z`` in a plotly.js bundle's header comment, or None if it has none.

    Examples
    --------
    >>> plotly_js_version() == BASIC.version
    True
    """
    try:
        with path.open("rb") as f:
            head = f.read(300).decode("utf-8", "replace")
    except OSError:
        return None
    found = re.search(r"plotly\.js[^\n]*? v(\d+\.\d+\.\d+)", head)
    return found.group(1) if found else None


def basic_bundle_path(cache: Path | None = None) -> Path:
    """Where the basic bundle is kept: ``<cache>/plotly/plotly-basic-<version>.min.js``."""
    if cache is None:
        from pudd_core.streams.locate import cache_dir

        cache = cache_dir()
    return cache / "plotly" / f"plotly-basic-{BASIC.version}.min.js"


def _digest_file(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def fetch_basic_bundle(cache: Path | None = None, *, tarball: bytes | None = None,
                       timeout: float = 60.0) -> Path:
    """Download the basic bundle (once), check the tarball's integrity, keep the bundle.

    ``tarball`` skips the download (tests, or a copy fetched by other means). Raises
    ``OSError`` when the registry cannot be reached and ``ValueError`` when the tarball's
    sha512 is not the registry's: nothing is kept then.
    """
    from pudd_core.streams.locate import atomic_write_bytes

    target = basic_bundle_path(cache)
    if player_js(cache) == target:
        return target
    if tarball is None:
        with urllib.request.urlopen(BASIC.url, timeout=timeout) as response:  # noqa: S310
            tarball = response.read()
    algorithm, _, expected = BASIC.integrity.partition("-")
    actual = base64.b64encode(hashlib.new(algorithm, tarball).digest()).decode()
    if actual != expected:
        raise ValueError(f"{BASIC.url}: {algorithm} is {actual}, the registry says {expected}; "
                         "not kept")
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        member = archive.extractfile(BASIC.member)
        if member is None:
            raise ValueError(f"{BASIC.url} has no file {BASIC.member}")
        bundle = member.read()
    atomic_write_bytes(target, bundle)
    atomic_write_bytes(_digest_file(target), hashlib.sha256(bundle).hexdigest().encode())
    return target


def player_js(cache: Path | None = None) -> Path:
    """The plotly.js the player loads: the basic bundle when it is kept whole, else the full one.

    The basic bundle is used only if its version is the plotly package's (the figures' JSON
    is made by that version) and its bytes still hash to what was kept at download.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:  # nothing fetched: the full bundle
    ...     player_js(Path(d)) == FULL_JS
    True
    """
    path = basic_bundle_path(cache)
    try:
        recorded = _digest_file(path).read_text().strip()
        intact = hashlib.sha256(path.read_bytes()).hexdigest() == recorded
    except OSError:
        return FULL_JS
    if intact and plotly_js_version(path) == plotly_js_version(FULL_JS):
        return path
    return FULL_JS
