"""A literal, slow re-statement of the authors' bucketing and test (spec sections 1.5-1.8).

Built from scikit-learn's NearestNeighbors and KMeans and scipy's chi2_contingency, step by
step as the spec describes them; the fast kernels of pudd_core must agree with it.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.stats import chi2_contingency
from sklearn.cluster import KMeans
from sklearn.neighbors import NearestNeighbors

THETAS = np.arange(0.0, 1.0, 0.05)


def greedy_init(s: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` k-means seeds of the greedy start, one group of ``s.size // k`` per seed."""
    p = s.size // k
    remaining = np.arange(s.size)
    seeds = []
    for _ in range(k - 1):
        vals = s[remaining][:, None]
        nn = NearestNeighbors(n_neighbors=p).fit(vals)
        dist, ind = nn.kneighbors(vals)
        chosen = int(np.argsort(dist[:, -1])[-1])
        group = remaining[ind[chosen]]
        seeds.append(s[group.min()])
        remaining = np.setdiff1d(remaining, group)
    seeds.append(s[remaining.min()])
    return np.array(seeds)


def kmeans(s: np.ndarray, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's k-means of ``s`` from ``seeds``: the centres and each value's label."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        km = KMeans(n_clusters=seeds.size, init=seeds[:, None], n_init=1, random_state=0)
        km.fit(s[:, None])
    return km.cluster_centers_[:, 0], km.labels_


def build(s: np.ndarray, k: int = 5, min_size: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Centres and weights of the buckets of ``s``: fewer buckets until each holds enough."""
    stored = k
    while True:
        if k <= 1:
            c, _ = kmeans(s, greedy_init(s, stored))
            return c, np.ones(stored)
        seeds = greedy_init(s, k)
        if np.unique(np.round(seeds, 4)).size < k:
            k = stored = np.unique(np.round(seeds, 4)).size
            continue
        c, labels = kmeans(s, seeds)
        counts = np.bincount(labels, minlength=k)
        ratio = counts / (s.size / k)
        a = np.ones(k)
        for theta in THETAS:
            a = np.exp(theta * (ratio - 1))
            lab = np.argmin(np.abs(s[:, None] - c[None, :]) * a, axis=1)
            counts = np.bincount(lab, minlength=k)
            ratio = counts / (s.size // k)
            if counts.min() > min_size:
                break
        if counts.min() >= min_size:
            return c, a
        k -= 1


def two_sample_p(u_old, c_old, u_new, c_new, clamp=5):
    """p-value of one cut with reference windows <= 1000 values (no sampling)."""
    s = u_old[c_old]
    c, a = build(s)
    bins_old = np.argmin(np.abs(u_old[c_old][:, None] - c) * a, axis=1)
    bins_new = np.argmin(np.abs(u_new[c_new][:, None] - c) * a, axis=1)
    k = c.size
    row_old = np.append(np.bincount(bins_old, minlength=k), (~c_old).sum())
    row_new = np.append(np.bincount(bins_new, minlength=k), (~c_new).sum())
    table = np.maximum(np.vstack([row_old, row_new]), clamp)
    return chi2_contingency(table).pvalue, table
