from __future__ import annotations

import dataclasses
import json

import pytest

from pudd_core.cli import main
from pudd_core.streams import Stream, StreamInfo, get_info, list_streams, load_stream

NAMES = ["sea0", "sea10", "sea20", "sine", "mixed", "elec2", "powersupply", "airline", "cifar10-cd"]


def test_registry_lists_the_papers_streams_in_order():
    infos = list_streams()
    assert [i.name for i in infos] == NAMES
    assert all(isinstance(i, StreamInfo) for i in infos)
    cards = {i.name: i for i in infos}
    assert (cards["elec2"].n_chunks, cards["powersupply"].n_chunks) == (45, 29)
    assert (cards["airline"].n_chunks, cards["airline"].n_features) == (50, 601)
    assert "SUBSTITUTE" in cards["airline"].description
    assert (cards["cifar10-cd"].chunk_size, cards["cifar10-cd"].feature_shape) == (500, (3, 32, 32))
    assert {i.kind for i in infos} == {"synthetic", "real", "image"}


def test_unknown_name_lists_the_known_names():
    with pytest.raises(ValueError, match="unknown stream 'sea5'; known streams: sea0, sea10"):
        get_info("sea5")
    with pytest.raises(ValueError, match="known streams"):
        load_stream("sea5")


def test_unknown_option_is_a_type_error_naming_the_accepted_ones():
    with pytest.raises(
        TypeError, match="unexpected option.*foo; accepted: drift_period, drift_width"
    ):
        load_stream("sea0", foo=1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"chunk_size": 0}, "chunk_size must be an integer >= 1"),
        ({"n_chunks": 2.5}, "n_chunks must be None or an integer >= 1"),
    ],
)
def test_invalid_sizes_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        load_stream("sea0", **kwargs)


def test_stream_chunk_indexing_and_iteration():
    s = load_stream("sine", seed=0, n_chunks=4, chunk_size=10)
    assert isinstance(s, Stream) and len(s) == 4 and s.n_features == 2
    assert s.chunk(-1)[0].tobytes() == s.chunk(3)[0].tobytes()
    assert sum(1 for _ in s) == 4
    with pytest.raises(IndexError, match="the stream has 4 chunks"):
        s.chunk(4)


def test_chunks_are_fresh_arrays_the_caller_may_modify():
    s = load_stream("sea0", seed=0, n_chunks=2, chunk_size=10)
    X, y = s.chunk(0)
    X[:] = -1
    y[:] = 9
    assert s.chunk(0)[0].min() >= 0 and s.chunk(0)[1].max() <= 1


def test_loaded_info_reflects_the_requested_sizes():
    s = load_stream("mixed", seed=0, n_chunks=3, chunk_size=7)
    assert (s.info.name, s.chunk_size, s.n_chunks) == ("mixed", 7, 3)
    # the stream reads its sizes from its card, so the card is the loaded stream's
    assert (s.info.chunk_size, s.info.n_chunks) == (7, 3)
    assert s.chunk(2)[0].shape == (s.info.chunk_size, s.info.n_features)


def test_a_cards_feature_count_is_derived_from_its_shape():
    card = get_info("sea0")
    assert card.n_features == 3
    image = dataclasses.replace(card, feature_shape=(3, 8, 8))
    assert image.n_features == 192
    with pytest.raises(TypeError):
        StreamInfo(name="x", title="x", description="x", kind="user", n_chunks=2,
                   feature_shape=(2,), n_features=3, source="x", licence="x", ground_truth="x")


def test_cli_lists_the_registry_as_a_table(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("| name")
    for name in NAMES:
        assert f"| {name}" in out


def test_cli_json_has_every_card_field(capsys):
    assert main(["datasets", "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in cards] == NAMES
    assert set(cards[0]) == set(StreamInfo.__dataclass_fields__)


def test_cli_requires_a_command():
    with pytest.raises(SystemExit):
        main([])


def test_streams_survive_pickling_for_the_apps_cache():
    import io
    import pickle

    from pudd_core.streams import stream_from_csv

    for s in (
        load_stream("sea0", seed=1, n_chunks=3, chunk_size=10),
        stream_from_csv(io.StringIO("x,c,y\n1,a,0\n2,b,1\n"), label="y", chunk_size=1),
    ):
        copy = pickle.loads(pickle.dumps(s))
        assert copy.chunk(1)[0].tobytes() == s.chunk(1)[0].tobytes()
        assert copy.info == s.info and copy.drift_chunks == s.drift_chunks
