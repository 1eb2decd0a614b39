from __future__ import annotations

import numpy as np
import pytest

from pudd_core import is_correct, pu_index


def test_pu_index_is_one_minus_true_class_probability_on_a_three_class_toy():
    proba = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.25, 0.25, 0.5]])
    y = np.array([0, 1, 2])
    np.testing.assert_allclose(pu_index(proba, y), [0.3, 0.7, 0.5])
    assert is_correct(proba, y).tolist() == [True, False, True]


def test_argmax_ties_go_to_the_lowest_class_index_like_predict():
    proba = np.array([[0.5, 0.5], [0.5, 0.5]])
    assert is_correct(proba, [0, 1]).tolist() == [True, False]


def test_float32_softmax_rows_are_accepted():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(100, 10)).astype(np.float32)
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    u = pu_index(proba, rng.integers(0, 10, 100))
    assert u.dtype == np.float64 and ((u >= 0) & (u <= 1)).all()


@pytest.mark.parametrize(
    ("proba", "y", "match"),
    [
        ([0.2, 0.8], [1], "2-D array"),
        ([[0.2, 0.8]], [[1]], "1-D array"),
        ([[0.2, 0.8], [0.5, 0.5]], [1], "2 rows but y has 1 labels"),
        ([[np.nan, 1.0]], [1], "NaN or infinity"),
        ([[np.inf, 0.0]], [1], "NaN or infinity"),
        ([[0.6, 0.6]], [1], "sum to 1"),
        ([[1.5, -0.5]], [1], r"lie in \[0, 1\]"),
        ([[0.2, 0.8]], [2], "class indices in 0..1"),
        ([[0.2, 0.8]], [-1], "class indices in 0..1"),
        ([[0.2, 0.8]], [0.5], "integer class indices"),
    ],
)
def test_invalid_input_raises_a_value_error_naming_the_problem(proba, y, match):
    with pytest.raises(ValueError, match=match):
        pu_index(proba, y)
    with pytest.raises(ValueError, match=match):
        is_correct(proba, y)
