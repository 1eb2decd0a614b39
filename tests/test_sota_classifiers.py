"""Table 2's SOTA learners: AMF (river), NS and ADLTER (boosted trees that prune and regrow)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from river.forest import AMFClassifier as RiverAMF

from pudd_core.__main__ import main
from pudd_core.classifiers import (
    ADLTERClassifier,
    AMFClassifier,
    NSClassifier,
    make_classifier,
)
from pudd_core.classifiers._gbdt import Booster
from pudd_core.experiments.runner import RunConfig, run_experiment


def sea(seed: int, n: int = 500, theta: float = 8.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, size=(n, 3))
    return X, (X[:, 0] + X[:, 1] <= theta).astype(np.int64)


# --- AMF ------------------------------------------------------------------------------------


def test_amf_equals_river_fed_dense_rows_in_order():
    X, y = sea(0, 300)
    Xt, _ = sea(1, 50)
    clf = AMFClassifier(n_features=3, n_classes=2, seed=4)
    clf.fit(X, y)
    ref = RiverAMF(seed=clf.forest.seed)
    for row, label in zip(X.tolist(), y.tolist(), strict=True):
        ref.learn_one({j: v for j, v in enumerate(row)}, label)
    expected = np.array([[ref.predict_proba_one(dict(enumerate(r))).get(c, 0.0) for c in (0, 1)]
                         for r in Xt.tolist()])
    np.testing.assert_allclose(clf.predict_proba(Xt), expected / expected.sum(1, keepdims=True))


def test_amf_feeds_zero_features_so_one_hot_data_is_learned():
    # one-hot rows: the label is feature 0; a sparse feed (zeros dropped) would lose it
    rng = np.random.default_rng(0)
    hot = rng.integers(0, 4, 2000)
    X = np.eye(4)[hot]
    y = (hot == 0).astype(np.int64)
    clf = AMFClassifier(n_features=4, n_classes=2, seed=0)
    clf.fit(X[:1500], y[:1500])
    acc = (clf.predict_proba(X[1500:]).argmax(axis=1) == y[1500:]).mean()
    assert acc == 1.0


def test_amf_is_deterministic_under_a_seed_and_adapt_starts_a_new_forest():
    X, y = sea(0, 200)
    a, b = (AMFClassifier(n_features=3, n_classes=2, seed=1) for _ in range(2))
    for clf in (a, b):
        clf.fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    before = a.forest
    a.adapt(X[:10], y[:10])
    assert a.forest is not before and a.forest.seed != before.seed


# --- the booster ----------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_booster_contributions_equal_sklearn_predict(depth):
    rng = np.random.default_rng(depth)
    X = np.hstack([rng.normal(size=(400, 3)), np.eye(5)[rng.integers(0, 5, 400)]])
    y = ((X[:, 0] > 0) ^ (X[:, 4] > 0)).astype(float)
    b = Booster(max_depth=depth, learning_rate=0.1, subsample=0.8, rng=rng)
    b.start(y)
    b.grow(X, y, 40)
    b.keep(np.arange(40) % 3 != 0)
    Xt = rng.normal(size=(100, 8))
    expected = np.column_stack([0.1 * t.predict(Xt.astype(np.float32)) for t in b.trees])
    np.testing.assert_array_equal(b.contributions(Xt), expected)
    np.testing.assert_allclose(b.cumulative_scores(Xt)[:, -1], b.prior + expected.sum(1))


# --- NS -------------------------------------------------------------------------------------


def test_ns_pruning_rules_follow_the_loss_improvement_ratio():
    clf = NSClassifier(n_features=1, n_classes=2)
    # losses after the prior and after each of 3 trees, for 4 rows
    losses = np.array([[0.5, 0.4, 0.5, 0.3],
                       [0.5, 0.4, 0.5, 0.3],
                       [0.5, 0.4, 0.5, 0.3],
                       [0.5, 0.6, 0.3, 0.3]])
    # tree 1: mean 0.5 -> 0.45, LIR -0.1; tree 2: 0.45 -> 0.45, LIR 0 (kept by both);
    # tree 3: 0.45 -> 0.3 (kept)
    assert clf.prune_mask(losses, "naive").tolist() == [True, True, True]
    losses[3, 2] = 0.35  # tree 2 now raises the mean: LIR > 0, three rows up by 0.1, one down
    assert clf.prune_mask(losses, "naive").tolist() == [True, False, True]
    # one-sided t-test of the increases (0.1, 0.1, 0.1, -0.25): p > 0.05, so kept
    assert clf.prune_mask(losses, "statistical").tolist() == [True, True, True]


def test_ns_regrows_to_its_initial_size_plus_the_new_trees():
    X, y = sea(0)
    clf = NSClassifier(n_features=3, n_classes=2, n_trees=30, n_new=4, seed=0)
    clf.fit(X, y)
    Xn, yn = sea(1)
    flipped = 1 - yn
    masks = {}
    for rule, model in clf.models.items():
        losses = np.abs(flipped[:, None] - model.cumulative_scores(Xn))
        masks[rule] = clf.prune_mask(losses, rule)
    clf.partial_fit(Xn, flipped)
    for rule, model in clf.models.items():
        kept = int(masks[rule].sum())
        assert len(model) == max(kept, 30) + 4
    assert masks["naive"].sum() < 30  # every tree now hurts on average: the naive rule prunes


def test_ns_predicts_each_chunk_with_the_model_better_on_the_previous_chunk():
    # SEA concepts switching every two chunks: the two models disagree now and then
    thetas = [8, 8, 11, 11, 8, 8, 5, 5, 9, 9, 7, 7]
    clf = NSClassifier(n_features=3, n_classes=2, n_trees=40, n_new=10, seed=0)
    X0, y0 = sea(100, theta=thetas[0])
    clf.fit(X0, y0)
    chosen_worse = 0
    expected_active = "statistical"  # before any tested chunk
    for t, theta in enumerate(thetas[1:], start=1):
        X, y = sea(100 + t, theta=theta)
        acc = {rule: float(((m.scores(X) > 0.5) == (y == 1)).mean())
               for rule, m in clf.models.items()}
        proba = {rule: m.scores(X) for rule, m in clf.models.items()}
        assert clf.active == expected_active
        np.testing.assert_array_equal(clf.predict_proba(X)[:, 1],
                                      np.clip(proba[expected_active], 0, 1))
        other = "naive" if expected_active == "statistical" else "statistical"
        chosen_worse += acc[expected_active] < acc[other]
        clf.partial_fit(X, y)
        assert clf.last_accuracy == acc
        expected_active = "naive" if acc["naive"] > acc["statistical"] else "statistical"
    # choosing on the tested chunk's own labels would have picked the other model here
    assert chosen_worse >= 1


# --- ADLTER ---------------------------------------------------------------------------------


def test_adlter_rolls_back_to_the_best_prefix_then_grows_its_increment():
    X, y = sea(0)
    clf = ADLTERClassifier(n_features=3, n_classes=2, n_trees=20, increments=(3, 6), seed=0)
    clf.fit(X, y)
    Xn, yn = sea(1)
    plan = []
    for m in clf.members:
        per_tree = np.column_stack([0.01 * t.predict(Xn.astype(np.float32)) for t in m.trees])
        mean_loss = np.abs(yn[:, None] - (m.prior + np.cumsum(per_tree, axis=1))).mean(0)
        plan.append((list(m.trees), int(np.argmin(mean_loss)) + 1))
    clf.partial_fit(Xn, yn)
    for (trees, best), m, inc, again in zip(plan, clf.members, (3, 6), clf.retrained,
                                            strict=True):
        assert again == (best < 20)
        if again:
            assert len(m) == 20 and not set(map(id, m.trees)) & set(map(id, trees))
        else:
            assert m.trees[:best] == trees[:best] and len(m) == best + inc


def test_adlter_retrains_a_member_after_a_severe_drift():
    X, y = sea(0)
    clf = ADLTERClassifier(n_features=3, n_classes=2, n_trees=20, increments=(3,),
                           learning_rate=0.2, seed=0)
    clf.fit(X, y)
    clf.partial_fit(X, 1 - y)
    assert clf.retrained == [True]
    assert (clf.predict_proba(X).argmax(axis=1) == 1 - y).mean() > 0.8


@pytest.mark.parametrize("name", ["ns", "adlter"])
def test_boosted_sota_is_deterministic_under_a_seed(name):
    X, y = sea(0)
    Xn, yn = sea(1)
    out = []
    for seed in (3, 3, 4):
        clf = make_classifier(name, input_shape=(3,), n_classes=2, seed=seed, n_trees=20)
        clf.fit(X, y)
        clf.partial_fit(Xn, yn)
        out.append(clf.predict_proba(Xn))
    np.testing.assert_array_equal(out[0], out[1])
    assert not np.array_equal(out[0], out[2])


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("ns", {"n_classes": 3}, "binary classifier"),
        ("adlter", {"n_classes": 3}, "binary classifier"),
        ("ns", {"alpha": 1.5}, "alpha must be in"),
        ("ns", {"subsample": 1.5}, "subsample must be in"),
        ("adlter", {"increments": ()}, "increments must be"),
        ("adlter", {"max_trees": 10, "n_trees": 20}, "max_trees must be an integer >= 20"),
        ("amf", {"n_estimators": 0}, "n_estimators must be"),
    ],
)
def test_bad_options_are_refused_with_the_reason(name, options, message):
    kwargs = {"n_classes": 2, **options}
    with pytest.raises(ValueError, match=message):
        make_classifier(name, input_shape=(3,), seed=0, **kwargs)


# --- through the runner and the CLI ---------------------------------------------------------


@pytest.mark.parametrize("name", ["amf", "ns", "adlter"])
def test_sota_learners_run_without_a_detector_through_the_runner(name):
    opts = {} if name == "amf" else {"n_trees": 20}
    res = run_experiment(RunConfig("sea0", name, "none", n_chunks=4, seed=1,
                                   classifier_options=opts))
    assert len(res.chunks) == 3 and res.alarms == ()
    assert res.accuracy > 0.7  # SEA's majority class is about 0.6


def test_cli_runs_a_sota_learner_and_option(tmp_path, capsys):
    code = main(["run", "--dataset", "sea0", "--classifier", "ns", "--detector", "none",
                 "--n-chunks", "3", "--classifier-option", "n_trees=10", "--json",
                 "--store", str(tmp_path), "--executor", "serial"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and len(out["runs"]) == 1
    cfg = out["config"]
    assert (cfg["classifier"], cfg["detector"]) == ("ns", "none")
    assert dict(map(tuple, cfg["classifier_options"])) == {"n_trees": 10}
    assert 0.5 < out["accuracy_mean"] <= 1
