# SPDX-License-Identifier: GPL-2.0
"""The confidence interval of a median that the bench reports share."""

import math


def median_ci(xs, level=0.95):
    """The distribution-free confidence interval of the median of xs.

    With n values sorted, the median lies between the k-th smallest and
    the k-th largest with probability 1 - 2 P(Binomial(n, 1/2) < k); k is
    the largest that keeps this at or above level.  None if n is too small
    for any k (n < 6 at 95%).
    """
    xs = sorted(xs)
    n = len(xs)
    tail, k = 0.0, 0
    while k < n:
        nxt = tail + math.comb(n, k) / 2 ** n
        if 2 * nxt > 1 - level:
            break
        tail, k = nxt, k + 1
    if k == 0:
        return None
    return xs[k - 1], xs[n - k]


def fmt_ci(s, spec):
    """'median [lo, hi]' of a {'median', 'ci95'} summary, in @spec; '-' for
    none, and '-' for the bounds of an interval too few runs give"""
    if s is None:
        return '-'
    ci = s['ci95']
    return '%s [%s, %s]' % (spec % s['median'],
                            *(('-', '-') if ci is None else
                              (spec % ci[0], spec % ci[1])))
