"""Sums and products over ranges that may be empty, beyond the sampled sizes too."""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from derivations.engine import Domain
from derivations.redteam.own.common import (
    H,
    Mod,
    case,
    claim,
    differ,
    half,
    i_,
    j,
    k,
    l,
    n,
    py_heaviside,
)


# ================================================================ 2. sums / products
def textbook_sum(f, lo, hi):
    return sum(f(t) for t in range(lo, hi + 1)) if hi >= lo else 0


def textbook_prod(f, lo, hi):
    r = mp.mpf(1)
    for t in range(lo, hi + 1):
        r *= f(t)
    return r


def first_bad(fn, sizes):
    bad = [N for N in sizes if fn(N)]
    return bool(bad), f"false at sizes {bad[:8]}" if bad else "no size where it is false"


@case("S01_karr_sum_n_to_5", False, "Karr: true for n<=6, textbook 0 for n>=7")
def _():
    return (
        lambda: claim("S01_karr_sum_n_to_5", sp.Sum(1, (k, n, 5)), 6 - n, Domain(dims=(n,))),
        lambda: first_bad(lambda N: textbook_sum(lambda t: 1, N, 5) != 6 - N, range(1, 70)),
    )


@case(
    "S02_karr_product_n_to_3",
    False,
    "Karr: 2^(4-n) for all n; textbook 1 for n>=4, so it differs for n>=5",
)
def _():
    return (
        lambda: claim(
            "S02_karr_product_n_to_3", sp.Product(2, (k, n, 3)), 2 ** (4 - n), Domain(dims=(n,))
        ),
        lambda: first_bad(
            lambda N: differ(textbook_prod(lambda t: 2, N, 3), mp.mpf(2) ** (4 - N)), range(1, 70)
        ),
    )


@case("S03_telescoping_from_3", False, "1/2-1/n is wrong at n=1 (empty sum)")
def _():
    return (
        lambda: claim(
            "S03_telescoping_from_3",
            sp.Sum(1 / (k * (k - 1)), (k, 3, n)),
            half - 1 / n,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: differ(
                textbook_sum(lambda t: mp.mpf(1) / (t * (t - 1)), 3, N),
                mp.mpf(1) / 2 - mp.mpf(1) / N,
            ),
            range(1, 70),
        ),
    )


@case("S04_index_offset_two", False, "j in 1..n: at j=n the sum is 0, not -1")
def _():
    return (
        lambda: claim(
            "S04_index_offset_two",
            sp.Sum(1, (k, j + 2, n)),
            n - j - 1,
            Domain(dims=(n,), indices={j: (1, n)}),
        ),
        lambda: first_bad(
            lambda N: any(
                textbook_sum(lambda t: 1, J + 2, N) != N - J - 1 for J in range(1, N + 1)
            ),
            range(1, 20),
        ),
    )


@case(
    "S05_nested_inner_to_3", False, "inner sum empty for i>3; Karr form 4n-n(n+1)/2 wrong for n>=5"
)
def _():
    return (
        lambda: claim(
            "S05_nested_inner_to_3",
            sp.Sum(sp.Sum(1, (k, i_, 3)), (i_, 1, n)),
            4 * n - n * (n + 1) / 2,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: (
                sum(textbook_sum(lambda t: 1, I, 3) for I in range(1, N + 1))
                != 4 * N - N * (N + 1) // 2
            ),
            range(1, 70),
        ),
    )


@case("S06_nested_upper_n_minus_1", False, "Karr closed form n(n-3)/2; textbook (n-1)(n-2)/2")
def _():
    return (
        lambda: claim(
            "S06_nested_upper_n_minus_1",
            sp.Sum(sp.Sum(1, (l, k + 1, n - 1)), (k, 1, n)),
            n * (n - 3) / 2,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: (
                2 * sum(textbook_sum(lambda t: 1, K + 1, N - 1) for K in range(1, N + 1))
                != N * (N - 3)
            ),
            range(1, 70),
        ),
    )


@case("S07_range_n_plus_1_to_2n_minus_2", False, "at n=1 the range 2..0 is empty: 0, not -1")
def _():
    return (
        lambda: claim(
            "S07_range_n_plus_1_to_2n_minus_2",
            sp.Sum(1, (k, n + 1, 2 * n - 2)),
            n - 2,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: textbook_sum(lambda t: 1, N + 1, 2 * N - 2) != N - 2, range(1, 70)
        ),
    )


@case("S08_telescoping_product", False, "empty product at n=1 is 1, not n-1=0")
def _():
    return (
        lambda: claim(
            "S08_telescoping_product",
            sp.Product((k + 1) / k, (k, 1, n - 2)),
            n - 1,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: differ(textbook_prod(lambda t: mp.mpf(t + 1) / t, 1, N - 2), N - 1),
            range(1, 70),
        ),
    )


@case("S09_index_to_5", False, "j up to n: for j>=7 the sum is empty (0), not 6-j")
def _():
    return (
        lambda: claim(
            "S09_index_to_5", sp.Sum(1, (k, j, 5)), 6 - j, Domain(dims=(n,), indices={j: (1, n)})
        ),
        lambda: first_bad(
            lambda N: any(textbook_sum(lambda t: 1, J, 5) != 6 - J for J in range(1, N + 1)),
            range(1, 20),
        ),
    )


@case("S10_heaviside_mod200_partial_sums", False, "terms vanish for k<100 only: false for n>=100")
def _():
    return (
        lambda: claim(
            "S10_heaviside_mod200_partial_sums",
            sp.Sum(H(Mod(k, 200) - 100), (k, 1, n)),
            sp.Integer(0),
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: textbook_sum(lambda t: py_heaviside(t % 200 - 100), 1, N) != 0, range(1, 130)
        ),
    )


@case("S11_alternating_to_n_minus_2", False, "at n=1 empty sum 0, closed form gives -1")
def _():
    return (
        lambda: claim(
            "S11_alternating_to_n_minus_2",
            sp.Sum((-1) ** k, (k, 1, n - 2)),
            ((-1) ** n - 1) / 2,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: textbook_sum(lambda t: (-1) ** t, 1, N - 2) * 2 != (-1) ** N - 1, range(1, 70)
        ),
    )


@case("S12_product_n_to_4", False, "Karr: 24/(n-1)!; textbook 1 for n>=6")
def _():
    return (
        lambda: claim(
            "S12_product_n_to_4",
            sp.Product(k, (k, n, 4)),
            24 / sp.factorial(n - 1),
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: differ(textbook_prod(lambda t: t, N, 4), mp.mpf(24) / mp.factorial(N - 1)),
            range(1, 70),
        ),
    )


@case(
    "S13_sum_mod_k_floor_identity",
    False,
    "sum floor(k/2) = floor(n^2/4); (n^2-1)/4 is right for odd n only",
)
def _():
    return (
        lambda: claim(
            "S13_sum_mod_k_floor_identity",
            sp.Sum(sp.floor(k / 2), (k, 1, n)),
            (n**2 - 1) / 4,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: 4 * textbook_sum(lambda t: t // 2, 1, N) != N * N - 1, range(1, 70)
        ),
    )


@case(
    "S14_karr_empty_beyond_64",
    False,
    "Sum_{k=1}^{70-n} 1 is 0 for n>=70; 70-n (Karr) is wrong for n>=71",
)
def _():
    return (
        lambda: claim(
            "S14_karr_empty_beyond_64", sp.Sum(1, (k, 1, 70 - n)), 70 - n, Domain(dims=(n,))
        ),
        lambda: first_bad(lambda N: textbook_sum(lambda t: 1, 1, 70 - N) != 70 - N, range(1, 100)),
    )


@case(
    "S15_karr_product_beyond_64",
    False,
    "Prod_{k=n}^{66} 2 is 1 for n>=67; 2^(67-n) (Karr) is wrong for n>=68",
)
def _():
    return (
        lambda: claim(
            "S15_karr_product_beyond_64",
            sp.Product(2, (k, n, 66)),
            2 ** (67 - n),
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: differ(textbook_prod(lambda t: 2, N, 66), mp.mpf(2) ** (67 - N)),
            range(1, 100),
        ),
    )


# ---- true twins (sums)
@case("TS1_pairs", True)
def _():
    return (
        lambda: claim(
            "TS1_pairs",
            sp.Sum(sp.Sum(1, (l, k + 1, n)), (k, 1, n)),
            n * (n - 1) / 2,
            Domain(dims=(n,)),
        ),
        lambda: (
            not first_bad(
                lambda N: (
                    2 * sum(textbook_sum(lambda t: 1, K + 1, N) for K in range(1, N + 1))
                    != N * (N - 1)
                ),
                range(1, 70),
            )[0],
            "all sizes 1..69",
        ),
    )


@case("TS2_telescoping_product_full", True)
def _():
    return (
        lambda: claim(
            "TS2_telescoping_product_full",
            sp.Product(1 + 1 / k, (k, 1, n)),
            n + 1,
            Domain(dims=(n,)),
        ),
        lambda: (
            not first_bad(
                lambda N: differ(textbook_prod(lambda t: 1 + mp.mpf(1) / t, 1, N), N + 1),
                range(1, 70),
            )[0],
            "all sizes 1..69",
        ),
    )


@case("TS3_sum_n_to_5_max", True)
def _():
    return (
        lambda: claim(
            "TS3_sum_n_to_5_max", sp.Sum(1, (k, n, 5)), sp.Max(6 - n, 0), Domain(dims=(n,))
        ),
        lambda: (
            not first_bad(lambda N: textbook_sum(lambda t: 1, N, 5) != max(6 - N, 0), range(1, 70))[
                0
            ],
            "all sizes 1..69",
        ),
    )


@case("TS4_alternating_from_0", True)
def _():
    return (
        lambda: claim(
            "TS4_alternating_from_0", sp.Sum((-1) ** k, (k, 0, n - 1)), Mod(n, 2), Domain(dims=(n,))
        ),
        lambda: (
            not first_bad(
                lambda N: textbook_sum(lambda t: (-1) ** t, 0, N - 1) != N % 2, range(1, 70)
            )[0],
            "all sizes 1..69",
        ),
    )


@case("TS5_telescoping_piecewise", True)
def _():
    rhs = sp.Piecewise((half - 1 / n, n >= 2), (0, True))
    return (
        lambda: claim(
            "TS5_telescoping_piecewise",
            sp.Sum(1 / (k * (k - 1)), (k, 3, n)),
            rhs,
            Domain(dims=(n,)),
        ),
        lambda: (
            not first_bad(
                lambda N: differ(
                    textbook_sum(lambda t: mp.mpf(1) / (t * (t - 1)), 3, N),
                    (mp.mpf(1) / 2 - mp.mpf(1) / N) if N >= 2 else 0,
                ),
                range(1, 70),
            )[0],
            "all sizes 1..69",
        ),
    )


@case("TS6_floor_half_sum", True)
def _():
    return (
        lambda: claim(
            "TS6_floor_half_sum",
            sp.Sum(sp.floor(k / 2), (k, 1, n)),
            sp.floor(n**2 / 4),
            Domain(dims=(n,)),
        ),
        lambda: (
            not first_bad(
                lambda N: textbook_sum(lambda t: t // 2, 1, N) != N * N // 4, range(1, 200)
            )[0],
            "all sizes 1..199",
        ),
    )
