"""Independent reference values for judge_calibration_test.ts (python3, standard library only).

Recomputes the calibration of the test's golden set by hand: the label sets, agreement,
Cohen's kappa (p_o and p_e from counts, Cohen 1960), swap consistency, Wilson intervals
(closed form), and the kappa percentile bootstrap with a line-by-line port of seedrandom's
Alea (node_modules/seedrandom/lib/alea.js), so the bootstrap bounds are checked too.

Run: python3 analysis/judge/_calibration_reference.py
"""
import os
import sys
from collections import Counter
from math import floor, sqrt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from _alea_reference import alea  # noqa: E402

Z = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


def kappa(pairs):
    n = len(pairs)
    if n == 0:
        return None
    po = sum(a == b for a, b in pairs) / n
    ca, cb = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    pe = sum(ca[c] / n * cb[c] / n for c in set(ca) | set(cb))
    return None if pe == 1 else (po - pe) / (1 - pe)


def bootstrap(pairs, rounds, seed):
    rnd = alea(str(seed))
    n = len(pairs)
    kept = []
    for _ in range(rounds):
        k = kappa([pairs[floor(rnd() * n)] for _ in range(n)])
        if k is not None:
            kept.append(k)
    kept.sort()
    v = len(kept)
    return kept[floor(0.025 * v)], kept[floor(0.975 * v)], rounds - v


def wilson(k, n):
    p = k / n
    d = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / d
    half = Z / d * sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return (0 if k == 0 else max(0, centre - half)), (1 if k == n else min(1, centre + half))


def swapped(first, second):
    back = {"A": "B", "B": "A", "tie": "tie"}[second]
    return (first if first == back else "tie"), first == back


THRESHOLD = {"t-essay": 60, "t-code": 70}
# item: (kind, task, [(version, seen, human)], judgment) -- the test's golden set.
ITEMS = [
    ("s1", "score", "t-essay", [(1, False, 80)], True),
    ("s2", "score", "t-essay", [(1, False, 40)], False),
    ("s3", "score", "t-essay", [(1, False, 75)], False),
    ("s4", "score", "t-essay", [(1, False, 55), (2, False, 65)], True),
    ("s5", "score", "t-essay", [(1, False, 30)], None),
    ("s6", "score", "t-essay", [(1, False, 50), (2, True, 70)], True),
    ("s7", "score", "t-code", [(1, False, 70)], True),
    ("s8", "score", "t-code", [(1, True, 90)], True),
    ("p1", "pairwise", "t-essay", [(1, False, "A")], ("A", "B")),
    ("p2", "pairwise", "t-essay", [(1, False, "B")], ("B", "A")),
    ("p3", "pairwise", "t-essay", [(1, False, "tie")], ("tie", "tie")),
    ("p4", "pairwise", "t-essay", [(1, False, "A")], ("A", "A")),
    ("p5", "pairwise", "t-essay", [(1, False, "tie")], ("B", "B")),
    ("p6", "pairwise", "t-essay", [(1, False, "B")], (None, "A")),
    ("p7", "pairwise", "t-essay", [(1, False, "A"), (2, True, "tie")], ("A", "A")),
]


def label_set(blind):
    out = []
    for item, kind, task, versions, judged in ITEMS:
        chosen = [v for v in versions if not (blind and v[1])]
        if chosen:
            out.append((item, kind, task, max(chosen), judged))
    return out


def figures(name, rows, rounds, seed):
    result = {"items": len(rows)}
    agree_all = 0
    for kind in ("score", "pairwise"):
        agree = faults = 0
        pairs = []
        mine = [r for r in rows if r[1] == kind]
        for item, _, task, (_, _, human), judged in mine:
            if kind == "score":
                human = "pass" if human >= THRESHOLD[task] else "fail"
                judge = None if judged is None else ("pass" if judged else "fail")
            else:
                judge = None if None in judged else swapped(*judged)[0]
            if judge is None:
                faults += 1
                continue
            agree += human == judge
            pairs.append((human, judge))
        agree_all += agree
        result[kind] = dict(items=len(mine), agreeing=agree, faults=faults,
                            wilson=wilson(agree, len(mine)), kappa=kappa(pairs),
                            bootstrap=bootstrap(pairs, rounds, seed))
    result["agreement"] = (agree_all, len(rows), agree_all / len(rows), wilson(agree_all, len(rows)))
    print(name)
    for key, value in result.items():
        print(" ", key, value)


if __name__ == "__main__":
    rnd = alea("7")
    print("alea('7') first draws", [rnd() for _ in range(3)])
    figures("latest", label_set(False), 2000, 7)
    figures("blind", label_set(True), 2000, 7)
    pairs = [j for _, k, _, _, j in ITEMS if k == "pairwise"]
    measured = [p for p in pairs if None not in p]
    consistent = sum(swapped(*p)[1] for p in measured)
    # A pair with a judge fault counts as inconsistent: the rate is over all pairs (issue 23).
    print("swap", consistent, len(measured), len(pairs), consistent / len(pairs),
          wilson(consistent, len(pairs)))
