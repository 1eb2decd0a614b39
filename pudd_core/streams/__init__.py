"""Streams and datasets: the paper's synthetic, real and image streams, and user files.

`list_streams` is the registry, `load_stream` returns a chunked `Stream` with its ground
truth, `stream_from_csv` turns a user's table into one, and `markov_interest_stream` is the
CIFAR-10-CD labelling kernel.
"""

from __future__ import annotations

from pudd_core.streams.chunking import Stream, StreamInfo
from pudd_core.streams.cifar10_cd import MarkovInterestResult, markov_interest_stream
from pudd_core.streams.locate import ChecksumMismatchError, DatasetUnavailableError
from pudd_core.streams.registry import (
    DataSource,
    data_source,
    drifts_known,
    get_info,
    list_streams,
    load_stream,
)
from pudd_core.streams.user import stream_from_csv

__all__ = [
    "ChecksumMismatchError",
    "DataSource",
    "DatasetUnavailableError",
    "MarkovInterestResult",
    "Stream",
    "StreamInfo",
    "data_source",
    "drifts_known",
    "get_info",
    "list_streams",
    "load_stream",
    "markov_interest_stream",
    "stream_from_csv",
]
