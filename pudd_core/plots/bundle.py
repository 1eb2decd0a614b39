"""The plotly.js that the browser loads: plotly's own partial bundles of what the app draws.

The player (``ui/player_component``) draws scatter and bar traces only. plotly.js publishes
a *basic* partial bundle (scatter, bar, pie) that a browser parses about five times faster
than the full bundle the plotly package ships (BENCHMARKS.md, "App: page load"), which is
most of a new visitor's wait. The pages' charts (``ui/chart.py``) also draw heatmaps,
contours and images: the *cartesian* partial bundle has them. :func:`fetch_bundle`
downloads a bundle once from the npm registry (``scripts/setup_env.sh`` does, at set-up),
checked against the registry's sha512 integrity; :func:`kept_bundle` returns it when it is
there whole and matches the plotly package's plotly.js version. Without it the player loads
the full bundle (:func:`player_js`) and the charts are Streamlit's: the app works either
way, offline too.
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

__all__ = ["BASIC", "BASIC_TRACE_TYPES", "CARTESIAN", "CARTESIAN_TRACE_TYPES", "FULL_JS",
           "Release", "basic_bundle_path", "bundle_path", "chart_js", "fetch_basic_bundle",
           "fetch_bundle", "kept_bundle", "player_js", "plotly_js_version"]

#: plotly.js as the plotly package ships it (every trace type).
FULL_JS = Path(plotly.__file__).with_name("package_data") / "plotly.min.js"


@dataclass(frozen=True)
class Release:
    """One npm release of a plotly.js partial bundle: where it is and what it must hash to.

    Examples
    --------
    >>> BASIC.url
    'https://registry.npmjs.org/plotly.js-basic-dist-min/-/plotly.js-basic-dist-min-3.3.1.tgz'
    >>> CARTESIAN.integrity.startswith("sha512-"), CARTESIAN.member
    (True, 'package/dist/plotly-cartesian.min.js')
    """

    name: str  # the bundle's name in plotly.js (``dist/plotly-<name>.min.js``)
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
    name="basic", package="plotly.js-basic-dist-min", version="3.3.1",
    integrity="sha512-txVJKqXoFd/eRq7MEN14bVpycDa5gzvnQAZqJ9dZEKhrWHSuIUCoV9UIzliwOjxbJkDVmSmHTb3d4"
              "bNuBI/97Q==",
    member="package/plotly-basic.min.js",
)
#: The trace types the basic bundle draws (plotly.js ``lib/index-basic.js``).
BASIC_TRACE_TYPES = frozenset({"scatter", "bar", "pie"})
#: The cartesian bundle of the same version. The registry has no
#: ``plotly.js-cartesian-dist-min`` 3.3.1, so it is taken from the ``plotly.js`` package of that
#: version, whose ``dist/`` holds every partial bundle (its basic one is byte for byte
#: ``plotly.js-basic-dist-min``'s): a 29 MB download once, 1.4 MB kept.
CARTESIAN = Release(
    name="cartesian", package="plotly.js", version="3.3.1",
    integrity="sha512-SrGSZ02HvCWQIYsbQX4sgjgGo7k4T+Oz8a+RQwE5Caz+yu1vputBM1UThmiOPY51B5HzO9ajy"
              "m8Rl4pmLj+i9Q==",
    member="package/dist/plotly-cartesian.min.js",
)
#: The trace types the cartesian bundle draws (plotly.js ``lib/index-cartesian.js``).
CARTESIAN_TRACE_TYPES = frozenset({
    "scatter", "bar", "box", "heatmap", "histogram", "histogram2d", "histogram2dcontour",
    "contour", "scatterternary", "violin", "image", "pie"})


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


def bundle_path(release: Release, cache: Path | None = None) -> Path:
    """Where a bundle is kept: ``<cache>/plotly/plotly-<name>-<version>.min.js``.

    Examples
    --------
    >>> bundle_path(CARTESIAN, Path("/cache")).as_posix()
    '/cache/plotly/plotly-cartesian-3.3.1.min.js'
    """
    if cache is None:
        from pudd_core.streams.locate import cache_dir

        cache = cache_dir()
    return cache / "plotly" / f"plotly-{release.name}-{release.version}.min.js"


def basic_bundle_path(cache: Path | None = None) -> Path:
    """Where the basic bundle is kept: ``<cache>/plotly/plotly-basic-<version>.min.js``.

    Examples
    --------
    >>> basic_bundle_path(Path("/cache")) == bundle_path(BASIC, Path("/cache"))
    True
    """
    return bundle_path(BASIC, cache)


def _digest_file(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def fetch_bundle(release: Release, cache: Path | None = None, *, tarball: bytes | None = None,
                 timeout: float = 60.0) -> Path:
    """Download a bundle (once), check the tarball's integrity, keep the bundle.

    ``tarball`` skips the download (tests, or a copy fetched by other means). Raises
    ``OSError`` when the registry cannot be reached and ``ValueError`` when the tarball's
    sha512 is not the registry's: nothing is kept then.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:  # a tarball that is not the release
    ...     try:
    ...         fetch_bundle(CARTESIAN, Path(d), tarball=b"not plotly.js")
    ...     except ValueError as err:
    ...         print(str(err).endswith("not kept"), list(Path(d).iterdir()))
    True []
    """
    from pudd_core.streams.locate import atomic_write_bytes

    target = bundle_path(release, cache)
    if kept_bundle(release, cache) == target:
        return target
    if tarball is None:
        with urllib.request.urlopen(release.url, timeout=timeout) as response:  # noqa: S310
            tarball = response.read()
    algorithm, _, expected = release.integrity.partition("-")
    actual = base64.b64encode(hashlib.new(algorithm, tarball).digest()).decode()
    if actual != expected:
        raise ValueError(f"{release.url}: {algorithm} is {actual}, the registry says {expected}; "
                         "not kept")
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        try:
            member = archive.extractfile(release.member)
        except KeyError:
            member = None
        if member is None:
            raise ValueError(f"{release.url} has no file {release.member}")
        bundle = member.read()
    atomic_write_bytes(target, bundle)
    atomic_write_bytes(_digest_file(target), hashlib.sha256(bundle).hexdigest().encode())
    return target


def fetch_basic_bundle(cache: Path | None = None, *, tarball: bytes | None = None,
                       timeout: float = 60.0) -> Path:
    """:func:`fetch_bundle` of the basic bundle, the player's.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     try:
    ...         fetch_basic_bundle(Path(d), tarball=b"")
    ...     except ValueError as err:
    ...         print(BASIC.url in str(err), "not kept" in str(err))
    True True
    """
    return fetch_bundle(BASIC, cache, tarball=tarball, timeout=timeout)


def kept_bundle(release: Release, cache: Path | None = None) -> Path | None:
    """The kept bundle of ``release`` if it is whole and of the plotly package's version.

    Whole: its bytes still hash to what was kept at download. The version must be the
    plotly package's plotly.js, since the figures' JSON is made by that version.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:  # nothing fetched
    ...     kept_bundle(CARTESIAN, Path(d)) is None
    True
    """
    path = bundle_path(release, cache)
    try:
        recorded = _digest_file(path).read_text().strip()
        intact = hashlib.sha256(path.read_bytes()).hexdigest() == recorded
    except OSError:
        return None
    if intact and plotly_js_version(path) == plotly_js_version(FULL_JS):
        return path
    return None


def chart_js(cache: Path | None = None) -> Path | None:
    """The plotly.js the pages' charts load: the cartesian bundle when kept whole, else None.

    None: the charts are drawn by ``st.plotly_chart`` (Streamlit's own, full plotly.js).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:  # nothing fetched
    ...     chart_js(Path(d)) is None
    True
    """
    return kept_bundle(CARTESIAN, cache)


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
    return kept_bundle(BASIC, cache) or FULL_JS
