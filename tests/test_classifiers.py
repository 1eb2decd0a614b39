from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pudd_core.classifiers import (
    CLASSIFIERS,
    Classifier,
    CNNClassifier,
    DNNClassifier,
    DNNEnsembleClassifier,
    GNBClassifier,
    VFDTClassifier,
    make_classifier,
)

torch = pytest.importorskip("torch")

IMAGE = (3, 32, 32)
SHAPES = {
    "gnb": (3,),
    "vfdt": (3,),
    "dnn": (3,),
    "dnn-ensemble": (3,),
    "pretrained-cnn": IMAGE,
    "small-cnn": IMAGE,
    "resnet18": IMAGE,
    "amf": (3,),
    "ns": (3,),
    "adlter": (3,),
}


@pytest.fixture(scope="module")
def tiny_backbone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Weights of a backbone pretrained for one step on noise: no data, no 2-min build."""
    from pudd_core.classifiers._pretrain import PretrainRecipe, _state_bytes, pretrain_network

    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, *IMAGE)).astype(np.float32)
    net = pretrain_network(x, np.arange(16) % 10, PretrainRecipe(epochs=1, batch_size=16))
    path = tmp_path_factory.mktemp("backbone") / "tiny.pt"
    path.write_bytes(_state_bytes(net))
    return path


@pytest.fixture(autouse=True)
def _no_backbone_build(monkeypatch: pytest.MonkeyPatch, tiny_backbone: Path) -> None:
    """pretrained-cnn without weights_path uses the tiny backbone instead of the cache."""
    from pudd_core.classifiers import _pretrain

    monkeypatch.setattr(_pretrain, "pretrained_backbone", lambda *a, **k: _pretrain.BackboneInfo(
        tiny_backbone, {}, built=False))


def sea_like(seed: int, n: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """SEA-like data: 3 uniform features on [0, 10), label x0 + x1 <= 8."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, size=(n, 3))
    return X, (X[:, 0] + X[:, 1] <= 8).astype(np.int64)


def blobs(seed: int, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """Two well separated Gaussian blobs in 2-D."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, 3.0, -3.0)
    return X, y


def images(seed: int, n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, *IMAGE)).astype(np.float32)
    return X, np.arange(n) % 2


def linear_weights(net) -> list[np.ndarray]:
    return [m.weight.detach().numpy().copy() for m in net if isinstance(m, torch.nn.Linear)]


# --- make_classifier: contract and validation -------------------------------------------------


def test_classifiers_lists_every_buildable_name_with_a_description():
    assert list(CLASSIFIERS) == list(SHAPES)
    assert all(isinstance(d, str) and d for d in CLASSIFIERS.values())


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_classifier_gives_probability_rows_over_its_outputs_before_training(name):
    clf = make_classifier(name, input_shape=SHAPES[name], n_classes=2, seed=0)
    assert isinstance(clf, Classifier)
    assert clf.name == name and clf.n_classes == 2
    X = np.zeros((2, *SHAPES[name]))
    proba = clf.predict_proba(X)
    assert proba.dtype == np.float64
    assert proba.shape == (2, clf.n_outputs)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)


def test_image_networks_keep_the_authors_ten_logits():
    for name in ("small-cnn", "resnet18"):
        assert make_classifier(name, input_shape=IMAGE, n_classes=2).n_outputs == 10
    assert make_classifier("dnn", input_shape=(3,), n_classes=2).n_outputs == 2


def test_unknown_name_raises_listing_the_valid_names():
    with pytest.raises(ValueError, match=r"unknown classifier 'mlp'; choose one of 'gnb', 'vfdt'"):
        make_classifier("mlp", input_shape=(3,), n_classes=2)


@pytest.mark.parametrize("name", ["small-cnn", "resnet18"])
def test_image_networks_reject_feature_vectors(name):
    with pytest.raises(ValueError, match=rf"{name} needs input_shape \(3, 32, 32\)"):
        make_classifier(name, input_shape=(3,), n_classes=2)


@pytest.mark.parametrize("name", ["gnb", "vfdt", "dnn", "dnn-ensemble"])
def test_tabular_models_reject_image_shapes(name):
    with pytest.raises(ValueError, match=rf"{name} needs a 1-D input_shape \(d,\)"):
        make_classifier(name, input_shape=IMAGE, n_classes=2)


def test_unknown_option_raises_listing_the_valid_options():
    with pytest.raises(
        ValueError, match=r"unknown classifier 'dnn' option\(s\) 'momentum'; valid options: hidden"
    ):
        make_classifier("dnn", input_shape=(3,), n_classes=2, momentum=0.9)
    with pytest.raises(ValueError, match=r"'gnb' option\(s\) 'arch'; valid options: var_smoothing"):
        make_classifier("gnb", input_shape=(3,), n_classes=2, arch="x")


def test_fixed_architecture_is_not_an_option():
    with pytest.raises(ValueError, match=r"'small-cnn' option\(s\) 'arch';"):
        make_classifier("small-cnn", input_shape=IMAGE, n_classes=2, arch="resnet18")


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("dnn", {"epochs": 0}, "epochs must be an integer >= 1"),
        ("dnn", {"hidden": ()}, "hidden must be a non-empty sequence"),
        ("dnn", {"lr": -1.0}, "lr must be a positive number"),
        ("vfdt", {"leaf_prediction": "knn"}, "leaf_prediction must be one of 'nba', 'nb', 'mc'"),
        ("dnn-ensemble", {"n_models": 0}, "n_models must be an integer >= 1"),
        ("small-cnn", {"n_outputs": 1}, "n_outputs must be an integer >= 2"),
        ("small-cnn", {"max_batch": 0}, "max_batch must be an integer >= 1"),
        ("small-cnn", {"weights_path": "/nonexistent.pt"}, "is not a file"),
    ],
)
def test_invalid_option_values_raise(name, options, message):
    with pytest.raises(ValueError, match=message):
        make_classifier(name, input_shape=SHAPES[name], n_classes=2, **options)


def test_more_classes_than_logits_raises():
    with pytest.raises(ValueError, match=r"n_classes \(12\) must not exceed n_outputs \(10\)"):
        make_classifier("small-cnn", input_shape=IMAGE, n_classes=12)


def test_labels_outside_the_class_set_raise():
    clf = make_classifier("gnb", input_shape=(3,), n_classes=2)
    X, _ = sea_like(0, 10)
    with pytest.raises(ValueError, match=r"class indices in \[0, 2\); got values from 0 to 2"):
        clf.fit(X, np.r_[np.zeros(9, int), 2])


def test_input_with_the_wrong_width_raises():
    clf = make_classifier("dnn", input_shape=(3,), n_classes=2, seed=0)
    with pytest.raises(ValueError, match=r"X must have shape \(n, 3\)"):
        clf.predict_proba(np.zeros((4, 2)))
    cnn = make_classifier("small-cnn", input_shape=IMAGE, n_classes=2, seed=0)
    with pytest.raises(ValueError, match=r"X must have shape \(n, 3, 32, 32\)"):
        cnn.predict_proba(np.zeros((4, 3, 16, 16)))


def test_airline_presets_and_explicit_options_override_them():
    vfdt = make_classifier("vfdt", input_shape=(679,), n_classes=2, dataset="airline")
    assert vfdt.leaf_prediction == "mc"
    nba = make_classifier(
        "vfdt", input_shape=(3,), n_classes=2, dataset="airline", leaf_prediction="nba"
    )
    assert nba.leaf_prediction == "nba"
    dnn = make_classifier("dnn", input_shape=(679,), n_classes=2, dataset="airline", seed=0)
    assert [w.shape for w in linear_weights(dnn.network)] == [
        (512, 679),
        (256, 512),
        (64, 256),
        (2, 64),
    ]
    ens = make_classifier("dnn-ensemble", input_shape=(679,), n_classes=2, dataset="airline")
    assert ens.reinit_on_adapt is False
    assert [w.shape[0] for w in linear_weights(ens.members[0].network)] == [64, 64, 2]
    assert (
        make_classifier("vfdt", input_shape=(3,), n_classes=2, dataset="sea0").leaf_prediction
        == "nba"
    )


@pytest.mark.integration
def test_importing_the_package_does_not_import_torch():
    code = "import sys, pudd_core, pudd_core.classifiers; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_building_and_training_networks_leaves_the_global_torch_rng_unchanged():
    state = torch.random.get_rng_state()
    X, y = sea_like(0, 50)
    clf = make_classifier("dnn", input_shape=(3,), n_classes=2, seed=1, epochs=2)
    clf.fit(X, y)
    clf.adapt(X, y)
    make_classifier("small-cnn", input_shape=IMAGE, n_classes=2, seed=1)
    assert torch.equal(torch.random.get_rng_state(), state)


# --- GaussianNB --------------------------------------------------------------------------------


def test_gnb_partial_fit_over_chunks_equals_fit_on_their_concatenation():
    X, y = sea_like(0, 3000)
    batch = GNBClassifier(n_features=3, n_classes=2)
    batch.fit(X, y)
    incremental = GNBClassifier(n_features=3, n_classes=2)
    incremental.fit(X[:1000], y[:1000])
    incremental.partial_fit(X[1000:2000], y[1000:2000])
    incremental.partial_fit(X[2000:], y[2000:])
    np.testing.assert_array_equal(batch.estimator.class_count_, incremental.estimator.class_count_)
    np.testing.assert_allclose(batch.estimator.theta_, incremental.estimator.theta_, rtol=1e-12)
    np.testing.assert_allclose(batch.estimator.var_, incremental.estimator.var_, rtol=1e-9)
    np.testing.assert_allclose(batch.predict_proba(X), incremental.predict_proba(X), atol=1e-9)


def test_gnb_adapt_forgets_everything_before_the_window():
    X, y = sea_like(1, 3000)
    adapted = GNBClassifier(n_features=3, n_classes=2)
    adapted.fit(X[:1000], 1 - y[:1000])  # an opposite concept, to be forgotten
    adapted.partial_fit(X[1000:2000], 1 - y[1000:2000])
    adapted.adapt(X[2000:], y[2000:])
    fresh = GNBClassifier(n_features=3, n_classes=2)
    fresh.fit(X[2000:], y[2000:])
    np.testing.assert_array_equal(adapted.predict_proba(X), fresh.predict_proba(X))


def test_gnb_gives_zero_to_a_class_not_seen_since_the_reset(recwarn):
    X, y = sea_like(2, 200)
    clf = GNBClassifier(n_features=3, n_classes=4)
    clf.fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.shape == (200, 4)
    np.testing.assert_array_equal(proba[:, 2:], 0.0)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_gnb_before_training_is_uniform():
    np.testing.assert_array_equal(GNBClassifier(3, 4).predict_proba(np.zeros((2, 3))), 0.25)


# --- VFDT --------------------------------------------------------------------------------------


def test_vfdt_probabilities_cover_the_fixed_class_set_with_unseen_classes_zero():
    X, y = sea_like(0, 2000)
    clf = VFDTClassifier(n_features=3, n_classes=4)
    clf.fit(X, np.where(y == 1, 3, 0))  # classes 1 and 2 never seen
    proba = clf.predict_proba(X)
    assert proba.shape == (2000, 4) and proba.dtype == np.float64
    np.testing.assert_array_equal(proba[:, 1:3], 0.0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    accuracy = (proba.argmax(axis=1) == np.where(y == 1, 3, 0)).mean()
    assert accuracy > 0.9


def test_vfdt_before_training_is_uniform():
    proba = VFDTClassifier(n_features=3, n_classes=4).predict_proba(np.zeros((3, 3)))
    np.testing.assert_array_equal(proba, 0.25)


def test_vfdt_partial_fit_over_chunks_equals_fit_on_their_concatenation():
    X, y = sea_like(3, 3000)
    whole = VFDTClassifier(n_features=3, n_classes=2)
    whole.fit(X, y)
    chunks = VFDTClassifier(n_features=3, n_classes=2)
    chunks.fit(X[:1000], y[:1000])
    chunks.partial_fit(X[1000:2000], y[1000:2000])
    chunks.partial_fit(X[2000:], y[2000:])
    np.testing.assert_array_equal(whole.predict_proba(X), chunks.predict_proba(X))


def test_vfdt_adapt_grows_a_new_tree_on_the_window_only():
    X, y = sea_like(4, 3000)
    adapted = VFDTClassifier(n_features=3, n_classes=2)
    adapted.fit(X[:2000], 1 - y[:2000])
    adapted.adapt(X[2000:], y[2000:])
    fresh = VFDTClassifier(n_features=3, n_classes=2)
    fresh.fit(X[2000:], y[2000:])
    np.testing.assert_array_equal(adapted.predict_proba(X), fresh.predict_proba(X))


def test_vfdt_uses_the_authors_hyper_parameters():
    tree = make_classifier("vfdt", input_shape=(3,), n_classes=2).tree
    assert (tree.grace_period, tree.delta, tree.tau) == (200, 1e-7, 0.05)
    assert (tree.split_criterion, tree.leaf_prediction) == ("info_gain", "nba")


# --- DNN ---------------------------------------------------------------------------------------


@pytest.mark.integration
def test_dnn_same_seed_gives_identical_probabilities():
    X, y = sea_like(0, 300)
    probas = []
    for _ in range(2):
        clf = make_classifier("dnn", input_shape=(3,), n_classes=2, seed=11, epochs=20)
        clf.fit(X, y)
        clf.partial_fit(X[::-1], y[::-1])
        clf.adapt(X[:100], y[:100])
        probas.append(clf.predict_proba(X))
    np.testing.assert_array_equal(probas[0], probas[1])


def test_dnn_different_seeds_give_different_probabilities():
    X, y = sea_like(0, 300)
    a = make_classifier("dnn", input_shape=(3,), n_classes=2, seed=1, epochs=5)
    b = make_classifier("dnn", input_shape=(3,), n_classes=2, seed=2, epochs=5)
    a.fit(X, y)
    b.fit(X, y)
    assert not np.allclose(a.predict_proba(X), b.predict_proba(X))


def test_dnn_fit_restarts_from_the_seeded_initial_weights():
    X, y = sea_like(0, 300)
    clf = make_classifier("dnn", input_shape=(3,), n_classes=2, seed=3, epochs=10)
    clf.fit(X, y)
    first = clf.predict_proba(X)
    clf.partial_fit(X, 1 - y)
    clf.fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(X), first)


@pytest.mark.integration
def test_dnn_learns_a_separable_toy_problem():
    X, y = blobs(0)
    clf = make_classifier("dnn", input_shape=(2,), n_classes=2, seed=0)
    clf.fit(X, y)
    assert (clf.predict_proba(X).argmax(axis=1) == y).mean() > 0.9


def adapt_and_watch_head(reproduce_frozen_head: bool):
    """Adapt a fitted DNN: (head at the first adapt step, head after, hidden before, after)."""
    X, y = blobs(1)
    clf = DNNClassifier(2, 2, seed=5, epochs=30, reproduce_frozen_head=reproduce_frozen_head)
    clf.fit(X, y)
    hidden_before = linear_weights(clf.network)[:-1]
    seen: list[np.ndarray] = []
    hook = clf.network.register_forward_pre_hook(
        lambda net, args: seen.append(net[-1].weight.detach().numpy().copy()) if not seen else None
    )
    clf.adapt(X, 1 - y)
    hook.remove()
    return seen[0], linear_weights(clf.network)[-1], hidden_before, linear_weights(clf.network)[:-1]


@pytest.mark.integration
def test_dnn_adapt_trains_the_new_last_layer_by_default():
    head_start, head_end, hidden_before, hidden_after = adapt_and_watch_head(False)
    assert not np.allclose(head_start, head_end)
    assert all(not np.allclose(b, a) for b, a in zip(hidden_before, hidden_after, strict=True))


@pytest.mark.integration
def test_dnn_reproduce_frozen_head_leaves_the_new_last_layer_untrained():
    head_start, head_end, hidden_before, hidden_after = adapt_and_watch_head(True)
    np.testing.assert_array_equal(head_start, head_end)  # the authors' bug: never in the optimizer
    assert all(not np.allclose(b, a) for b, a in zip(hidden_before, hidden_after, strict=True))


@pytest.mark.integration
def test_dnn_frozen_head_stays_frozen_in_later_incremental_training():
    X, y = blobs(2)
    clf = DNNClassifier(2, 2, seed=6, epochs=20, reproduce_frozen_head=True)
    clf.fit(X, y)
    clf.adapt(X, y)
    head = linear_weights(clf.network)[-1]
    clf.partial_fit(X, 1 - y)
    np.testing.assert_array_equal(linear_weights(clf.network)[-1], head)


@pytest.mark.integration
def test_dnn_adapt_replaces_the_last_layer():
    X, y = blobs(3)
    clf = DNNClassifier(2, 2, seed=7, epochs=5)
    clf.fit(X, y)
    old_head = clf.network[-1]
    clf.adapt(X, y)
    assert clf.network[-1] is not old_head


# --- DNN ensemble -------------------------------------------------------------------------------


def test_ensemble_probabilities_are_the_mean_of_its_members():
    X, y = sea_like(0, 200)
    ens = make_classifier("dnn-ensemble", input_shape=(3,), n_classes=2, seed=0, epochs=5)
    assert len(ens.members) == 5 and ens.epochs == 5
    ens.fit(X, y)
    ens.partial_fit(X, y)
    mean = np.mean([m.predict_proba(X) for m in ens.members], axis=0)
    np.testing.assert_allclose(ens.predict_proba(X), mean, rtol=0, atol=1e-15)


def test_ensemble_defaults_follow_the_authors_code():
    ens = make_classifier("dnn-ensemble", input_shape=(3,), n_classes=2)
    assert (len(ens.members), ens.epochs, ens.lr, ens.reinit_on_adapt) == (5, 50, 0.01, True)


def test_ensemble_members_are_seeded_independently_and_reproducibly():
    X, y = sea_like(1, 200)
    a = DNNEnsembleClassifier(3, 2, n_models=3, epochs=3, seed=4)
    b = DNNEnsembleClassifier(3, 2, n_models=3, epochs=3, seed=4)
    a.fit(X, y)
    b.fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    first, second = (m.predict_proba(X) for m in a.members[:2])
    assert not np.allclose(first, second)


def test_ensemble_adapt_rebuilds_members_or_keeps_them_on_airline():
    X, y = sea_like(2, 200)
    fresh = DNNEnsembleClassifier(3, 2, n_models=2, epochs=3, seed=0)
    kept = DNNEnsembleClassifier(3, 2, n_models=2, epochs=3, seed=0, reinit_on_adapt=False)
    for ens in (fresh, kept):
        ens.fit(X, y)
    fresh_nets = [m.network for m in fresh.members]
    kept_nets = [m.network for m in kept.members]
    fresh.adapt(X, y)
    kept.adapt(X, y)
    assert all(m.network is not n for m, n in zip(fresh.members, fresh_nets, strict=True))
    assert all(m.network is n for m, n in zip(kept.members, kept_nets, strict=True))
    # airline rule: the optimizer is back at lr 0.01 with fresh state after the lr-0.1 steps
    for m in kept.members:
        assert m._optimizer.param_groups[0]["lr"] == 0.01
        assert not m._optimizer.state


# --- image networks ------------------------------------------------------------------------------


def test_resnet18_has_no_batchnorm_left_and_a_ten_way_fc():
    clf = make_classifier("resnet18", input_shape=IMAGE, n_classes=2, seed=0)
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in clf.network.modules())
    assert clf.network.fc.out_features == 10


@pytest.mark.integration
@pytest.mark.parametrize("name", ["small-cnn", "resnet18"])
def test_image_networks_map_float32_images_to_ten_probabilities(name):
    clf = make_classifier(name, input_shape=IMAGE, n_classes=2, seed=0)
    X, y = images(0, n=3)
    clf.fit(X, y)  # full protocol, 10 steps on 3 images
    proba = clf.predict_proba(X)
    assert proba.shape == (3, 10) and proba.dtype == np.float64
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.integration
def test_small_cnn_same_seed_gives_identical_probabilities():
    X, y = images(1)
    probas = []
    for _ in range(2):
        clf = CNNClassifier("small-cnn", 2, seed=3)
        clf.fit(X, y)
        clf.adapt(X, y)
        probas.append(clf.predict_proba(X))
    np.testing.assert_array_equal(probas[0], probas[1])


def body_and_head(clf: CNNClassifier) -> tuple[list[np.ndarray], list[np.ndarray]]:
    head = {id(p) for p in clf.network[-1].parameters()}
    params = list(clf.network.parameters())
    body = [p.detach().numpy().copy() for p in params if id(p) not in head]
    return body, [p.detach().numpy().copy() for p in params if id(p) in head]


@pytest.mark.integration
def test_cnn_adapt_is_the_incremental_steps_then_head_only_fine_tuning():
    X, y = images(2)
    plain, adapted = CNNClassifier("small-cnn", 2, seed=1), CNNClassifier("small-cnn", 2, seed=1)
    for clf in (plain, adapted):
        clf.fit(X, y)
    plain.partial_fit(X, 1 - y)
    adapted.adapt(X, 1 - y)
    plain_body, plain_head = body_and_head(plain)
    adapted_body, adapted_head = body_and_head(adapted)
    for a, b in zip(plain_body, adapted_body, strict=True):
        np.testing.assert_array_equal(a, b)  # the fine-tuning steps leave the body alone
    assert not all(np.array_equal(a, b) for a, b in zip(plain_head, adapted_head, strict=True))
    assert adapted._optimizer.param_groups[0]["lr"] == 0.01
    assert all(p.requires_grad for p in adapted.network.parameters())


@pytest.mark.integration
def test_max_batch_accumulates_to_the_full_batch_step():
    X, y = images(3, n=7)
    full, sliced = (
        CNNClassifier("small-cnn", 2, seed=2),
        CNNClassifier("small-cnn", 2, seed=2, max_batch=3),
    )
    for clf in (full, sliced):
        clf.fit(X, y)
    np.testing.assert_allclose(full.predict_proba(X), sliced.predict_proba(X), rtol=1e-4, atol=1e-6)


@pytest.mark.integration
def test_accumulated_slices_train_the_same_parameters_as_one_batch():
    X, y = images(6, n=5)
    one, sliced = (
        CNNClassifier("small-cnn", 2, seed=3, epochs=3, max_batch=None),
        CNNClassifier("small-cnn", 2, seed=3, epochs=3, max_batch=2),
    )
    for clf in (one, sliced):
        clf.fit(X, y)
        clf.adapt(X, 1 - y)
    for a, b in zip(one.network.parameters(), sliced.network.parameters(), strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["small-cnn", "resnet18"])
def test_image_networks_cap_a_forward_pass_at_1000_images_by_default(name):
    clf = make_classifier(name, input_shape=IMAGE, n_classes=2, seed=0, epochs=1)
    assert clf.max_batch == 1000


def test_training_on_more_than_max_batch_images_runs_in_slices():
    X, y = images(7, n=1001)
    clf = CNNClassifier("small-cnn", 2, seed=0, epochs=1, finetune_epochs=0)
    sizes: list[int] = []
    clf.network.register_forward_pre_hook(lambda module, args: sizes.append(len(args[0])))
    clf.partial_fit(X, y)
    assert sizes == [1000, 1]


@pytest.mark.integration
def test_weights_path_loads_a_local_state_dict(tmp_path):
    source = CNNClassifier("small-cnn", 2, seed=1)
    source.fit(*images(4))
    path = tmp_path / "small_cnn.pt"
    torch.save(source.network.state_dict(), path)
    loaded = CNNClassifier("small-cnn", 2, seed=99, weights_path=path)
    X, _ = images(5)
    np.testing.assert_array_equal(loaded.predict_proba(X), source.predict_proba(X))


def test_weights_path_without_matching_weights_raises(tmp_path):
    path = tmp_path / "other.pt"
    torch.save({"encoder.weight": torch.zeros(3)}, path)
    with pytest.raises(ValueError, match="holds no weights matching the small-cnn network"):
        CNNClassifier("small-cnn", 2, weights_path=path)


# --- the pretrained CNN's features computed ahead of a run (issue 34) -------------------------
def _image_stream():
    from pudd_core.streams import get_info
    from pudd_core.streams.cifar10_cd import interest_stream

    images = np.random.default_rng(1).integers(0, 256, (300, 32, 32, 3), dtype=np.uint8)
    return interest_stream(get_info("cifar10-cd"), images, np.arange(300) % 10, seed=2,
                           chunk_size=30)  # 10 chunks


class _Counting(torch.nn.Module):
    """The backbone, counting the images it is given."""

    def __init__(self, inner: torch.nn.Module) -> None:
        super().__init__()
        self.inner, self.images = inner, 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.images += len(x)
        return self.inner(x)


def _counted_model(weights: Path):
    from pudd_core.classifiers import PretrainedCNNClassifier

    model = PretrainedCNNClassifier(2, weights_path=weights, device="cpu", seed=0, epochs=3)
    model.backbone = _Counting(model.backbone)
    return model


def _untimed(logs) -> list[str]:
    return [repr(dataclasses.replace(log, predict_ms=0.0, detect_ms=0.0, train_ms=0.0))
            for log in logs]


@pytest.mark.integration
def test_features_ahead_give_the_same_run_and_pass_each_image_through_the_backbone_once(
    tiny_backbone: Path, tmp_path: Path
) -> None:
    from pudd_core.experiments.detectors import FixedAlarms
    from pudd_core.experiments.runner import run_chunks

    stream = _image_stream()
    # two copies of the weights: two feature caches, so neither run reads the other's
    alone, ahead = (shutil.copy(tiny_backbone, tmp_path / f"{n}.pt") for n in ("alone", "ahead"))
    first = _counted_model(Path(alone))
    logs = run_chunks(stream, first, FixedAlarms(frozenset({4})))  # an alarm: an adaptation
    second = _counted_model(Path(ahead))
    with second.features_ahead(stream):
        logs_ahead = run_chunks(stream, second, FixedAlarms(frozenset({4})))
    assert _untimed(logs_ahead) == _untimed(logs)
    assert [log.adapted for log in logs].count(True) == 1
    assert first.backbone.images == second.backbone.images == 300  # no image twice


@pytest.mark.integration
def test_a_run_computes_the_features_ahead_and_stops_them_with_the_run(
    tiny_backbone: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pudd_core.classifiers import PretrainedCNNClassifier
    from pudd_core.experiments.runner import RunConfig, run_experiment

    entered: list[int] = []
    real = PretrainedCNNClassifier.features_ahead

    def recording(self, stream):
        entered.append(stream.n_chunks)
        return real(self, stream)

    monkeypatch.setattr(PretrainedCNNClassifier, "features_ahead", recording)
    config = RunConfig("cifar10-cd", "pretrained-cnn", "pudd", seed=0, n_chunks=10,
                       classifier_options=(("weights_path", str(tiny_backbone)), ("epochs", 2)))
    result = run_experiment(config, stream=_image_stream())
    assert entered == [10] and len(result.chunks) == 9
