"""Independent reference values for per_resolved_uncertainty_test.ts (python3 with numpy).

Recomputes, without ledgerbench's code:

1. the task-cluster percentile bootstrap of tokens and seconds per resolved (each round draws the
   agent's distinct tasks, sorted, with replacement and takes all its attempts at each), and the
   same bootstrap over episodes, with a line-by-line port of seedrandom's Alea
   (node_modules/seedrandom/lib/alea.js), so the bounds must match ledgerbench's to the bit;
2. the task-paired frontier probability (one draw of the tasks per round for every agent; the
   frontier by the plain pairwise definition of Pareto dominance, not ledgerbench's sweep), and
   the earlier independent per-agent episode resampling, to measure what pairing changes;
3. exactly, by enumerating every resample (numpy), the seed-001 sample's task-paired and
   independent frontier probabilities and the cluster bootstrap's exact quantiles there;
4. with numpy's own generator and many rounds, the widths of the task and episode bootstraps on
   the correlated-attempts fixture, as a check that does not share ledgerbench's random stream.

Inputs: ledgers/examples/sample_ledger.jsonl, ledgers/examples/synthetic_ledger.jsonl with
ledgers/examples/synthetic_errata.jsonl applied (rescore_episode sets `resolved`,
invalidate_episode makes the row invalid), tests/fixtures/correlated_attempts.jsonl (written by
`--write-fixture`, deterministic: random.Random(23)).

Run: python3 analysis/_per_resolved_reference.py [--write-fixture]
"""
import itertools
import json
import random
import sys
from collections import Counter
from math import floor, prod, sqrt

import numpy as np

from _alea_reference import alea

FIXTURE = "tests/fixtures/correlated_attempts.jsonl"


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def episode_id(r):
    return r.get("episode_id") or f"{r['run_id']}/{r['agent_id']}/{r['task_id']}/{r.get('attempt', 1)}"


def apply_errata(rows, errata):
    by_id = {e["episode_id"]: e for e in errata if "episode_id" in e}
    out = []
    for r in rows:
        e = by_id.get(episode_id(r))
        if e is not None and e["kind"] == "rescore_episode":
            r = {**r, "status": "scored", "resolved": e["resolved"]}
        elif e is not None and e["kind"] == "invalidate_episode":
            r = {**r, "status": "invalid"}
        out.append(r)
    return out


def scored(rows):
    """Scored rows: status "scored", or no status (seed 001's sample: every row scored)."""
    return [r for r in rows if r.get("status", "scored") == "scored"]


def by_agent(rows):
    out = {}
    for r in scored(rows):
        out.setdefault(r["agent_id"], []).append(r)
    return dict(sorted(out.items()))


def tokens(r):
    return r["prompt_tokens"] + r["completion_tokens"]


def seconds(r):
    return r["wall_ms"] / 1000


def ratio_bootstrap(rows, value, rounds, seed, unit):
    """Percentile bootstrap of sum(value) / sum(resolved); unit "task" or "episode"."""
    if unit == "task":
        ids = sorted({r["task_id"] for r in rows})
        index = {t: u for u, t in enumerate(ids)}
        units = [index[r["task_id"]] for r in rows]
        c = len(ids)
    else:
        units = list(range(len(rows)))
        c = len(rows)
    sums = [0.0] * c
    wins = [0] * c
    for r, u in zip(rows, units):
        sums[u] += value(r)
        wins[u] += 1 if r["resolved"] else 0
    rnd = alea(str(seed))
    stats = []
    without = 0
    for _ in range(rounds):
        total = 0.0
        hits = 0
        for _ in range(c):
            j = floor(rnd() * c)
            total += sums[j]
            hits += wins[j]
        if hits == 0:
            without += 1
        stats.append(float("inf") if hits == 0 else total / hits)
    stats.sort()
    bound = lambda x: None if x == float("inf") else x
    return bound(stats[floor(0.025 * rounds)]), bound(stats[floor(0.975 * rounds)]), without


def frontier(points):
    """Ids of the points no other point dominates (cost lower-or-equal, rate higher-or-equal, one strict)."""
    usable = {a: p for a, p in points.items() if p is not None}
    return {
        a
        for a, (cost, rate) in usable.items()
        if not any(
            c2 <= cost and r2 >= rate and (c2 < cost or r2 > rate)
            for b, (c2, r2) in usable.items()
            if b != a
        )
    }


def paired_frontier(agents, rounds, seed):
    """Task-paired: one draw of the sorted union of tasks per round, applied to every agent."""
    ids = sorted({r["task_id"] for rows in agents.values() for r in rows})
    cells = {a: {t: [0.0, 0, 0] for t in ids} for a in agents}
    for a, rows in agents.items():
        for r in rows:
            cell = cells[a][r["task_id"]]
            cell[0] += tokens(r)
            cell[1] += 1 if r["resolved"] else 0
            cell[2] += 1
    rnd = alea(str(seed))
    on = Counter()
    T = len(ids)
    for _ in range(rounds):
        draw = [ids[floor(rnd() * T)] for _ in range(T)]
        points = {}
        for a in agents:
            total = 0.0
            hits = 0
            tries = 0
            for t in draw:
                total += cells[a][t][0]
                hits += cells[a][t][1]
                tries += cells[a][t][2]
            points[a] = None if hits == 0 else (total / hits, hits / tries)
        for a in frontier(points):
            on[a] += 1
    return {a: on[a] for a in agents}


def independent_frontier(agents, rounds, seed):
    """The earlier rule: one generator; each agent in order draws its n episodes with replacement."""
    rnd = alea(str(seed))
    on = Counter()
    for _ in range(rounds):
        points = {}
        for a, rows in agents.items():
            n = len(rows)
            picks = [rows[floor(rnd() * n)] for _ in range(n)]
            hits = sum(1 for r in picks if r["resolved"])
            total = 0.0
            for r in picks:
                total += tokens(r)
            points[a] = None if hits == 0 else (total / hits, hits / n)
        for a in frontier(points):
            on[a] += 1
    return {a: on[a] for a in agents}


def multinomial_draws(T):
    """Every multiset of T draws from T tasks, with its probability (counts, weight)."""
    fact = [1]
    for i in range(1, T + 1):
        fact.append(fact[-1] * i)
    for counts in itertools.product(range(T + 1), repeat=T):
        if sum(counts) != T:
            continue
        yield counts, fact[T] / prod(fact[c] for c in counts) / T**T


def exact_sample():
    """Seed 001's sample (4 tasks, one attempt each): exact frontier shares and cluster quantiles."""
    agents = by_agent(load("ledgers/examples/sample_ledger.jsonl"))
    ids = sorted({r["task_id"] for rows in agents.values() for r in rows})
    cell = {a: {r["task_id"]: r for r in rows} for a, rows in agents.items()}

    def point(a, counts):
        hits = sum(c for t, c in zip(ids, counts) if cell[a][t]["resolved"])
        total = sum(c * tokens(cell[a][t]) for t, c in zip(ids, counts))
        return None if hits == 0 else (total / hits, hits / len(ids))

    draws = list(multinomial_draws(len(ids)))
    paired = Counter()
    for counts, w in draws:
        for a in frontier({a: point(a, counts) for a in agents}):
            paired[a] += w
    independent = Counter()
    names = list(agents)
    for (ca, wa), (cb, wb) in itertools.product(draws, draws):
        pts = {names[0]: point(names[0], ca), names[1]: point(names[1], cb)}
        for a in frontier(pts):
            independent[a] += wa * wb
    # Exact cluster-bootstrap distribution of a's tokens per resolved: its 2.5% and 97.5% quantiles
    # in seed 001's convention (the sorted entry at floor(0.025 R), R large: the smallest x with
    # P(ratio <= x) > 0.025), "no ratio" sorted above every ratio.
    quantiles = {}
    for a in agents:
        dist = Counter()
        for counts, w in draws:
            p = point(a, counts)
            dist[float("inf") if p is None else p[0]] += w
        xs = sorted(dist)
        cum = np.cumsum([dist[x] for x in xs])
        lo = xs[int(np.searchsorted(cum, 0.025, side="right"))]
        hi = xs[int(np.searchsorted(cum, 0.975, side="right"))]
        quantiles[a] = (lo, None if hi == float("inf") else hi, dist[float("inf")])
    return dict(paired), dict(independent), quantiles


def numpy_widths(rows, rounds=200_000, seed=23):
    """Task and episode bootstrap 95% widths of tokens per resolved with numpy's own generator."""
    g = np.random.default_rng(seed)
    ids = sorted({r["task_id"] for r in rows})
    tok = np.array([tokens(r) for r in rows], dtype=float)
    win = np.array([1.0 if r["resolved"] else 0.0 for r in rows])
    unit = np.array([ids.index(r["task_id"]) for r in rows])
    ct = np.bincount(unit, weights=tok, minlength=len(ids))
    cw = np.bincount(unit, weights=win, minlength=len(ids))

    def width(sums, wins):
        picks = g.integers(0, len(sums), size=(rounds, len(sums)))
        hits = wins[picks].sum(axis=1)
        ratio = np.where(hits > 0, sums[picks].sum(axis=1) / np.maximum(hits, 1), np.inf)
        ratio.sort()
        return ratio[floor(0.025 * rounds)], ratio[floor(0.975 * rounds)]

    return width(ct, cw), width(tok, win)


def write_fixture():
    """Three agents, 12 tasks, 3 attempts each; attempts at one task share its difficulty."""
    rng = random.Random(23)
    tasks = [f"t{i:02d}" for i in range(1, 13)]
    difficulty = {t: rng.random() for t in tasks}
    size = {t: rng.choice([2000, 4000, 8000, 16000]) for t in tasks}
    skill = {"agent-a": 0.75, "agent-b": 0.5, "agent-c": 0.35}
    scale = {"agent-a": 1.6, "agent-b": 1.0, "agent-c": 0.7}
    lines = []
    for agent in skill:
        for t in tasks:
            solves = difficulty[t] < skill[agent]
            for attempt in (1, 2, 3):
                # Attempts at a task agree but for a rare flip: correlated within the task.
                ok = solves if rng.random() > 0.08 else not solves
                spend = size[t] * scale[agent] * (1.0 if ok else 1.8) * rng.uniform(0.9, 1.1)
                prompt = int(spend * 0.7)
                lines.append(json.dumps({
                    "run_id": "r23", "agent_id": agent, "task_id": t, "attempt": attempt,
                    "seed": 7, "resolved": ok, "prompt_tokens": prompt,
                    "completion_tokens": int(spend) - prompt, "tool_calls": 3,
                    "wall_ms": int(spend * 4), "price_table_id": "local-0",
                }, separators=(",", ":")))
    open(FIXTURE, "w").write("\n".join(lines) + "\n")


def main():
    if "--write-fixture" in sys.argv:
        write_fixture()
    print("alea('7') first draws", [alea("7")() for _ in range(1)])
    fixture = by_agent(load(FIXTURE))
    print("== correlated-attempts fixture: tokens and seconds per resolved, 2000 rounds, seed 7")
    for a, rows in fixture.items():
        for name, value in (("tokens", tokens), ("seconds", seconds)):
            task = ratio_bootstrap(rows, value, 2000, 7, "task")
            episode = ratio_bootstrap(rows, value, 2000, 7, "episode")
            ratio = (task[1] - task[0]) / (episode[1] - episode[0])
            print(f"{a} {name}: task {task}, episode {episode}, width ratio {ratio:.4f}")
    print("frontier paired", paired_frontier(fixture, 2000, 7))
    print("frontier independent", independent_frontier(fixture, 2000, 7))
    for a, rows in fixture.items():
        (tl, th), (el, eh) = numpy_widths(rows)
        print(f"numpy {a}: task [{tl:.1f}, {th:.1f}], episode [{el:.1f}, {eh:.1f}], "
              f"ratio {(th - tl) / (eh - el):.4f}")

    print("== seed-001 sample")
    sample = by_agent(load("ledgers/examples/sample_ledger.jsonl"))
    for a, rows in sample.items():
        print(a, "tokens task", ratio_bootstrap(rows, tokens, 2000, 7, "task"))
        print(a, "seconds task", ratio_bootstrap(rows, seconds, 2000, 7, "task"))
    print("frontier paired", paired_frontier(sample, 2000, 7))
    print("frontier independent", independent_frontier(sample, 2000, 7))
    paired, independent, quantiles = exact_sample()
    print("exact paired", paired)
    print("exact independent", independent)
    print("exact cluster quantiles of tokens per resolved (lo, hi, P(no ratio))", quantiles)

    print("== synthetic example (tokens), 2000 rounds, seed 7")
    errata = load("ledgers/examples/synthetic_errata.jsonl")
    synthetic = by_agent(apply_errata(load("ledgers/examples/synthetic_ledger.jsonl"), errata))
    p = paired_frontier(synthetic, 2000, 7)
    i = independent_frontier(synthetic, 2000, 7)
    print("frontier paired", p)
    print("frontier independent", i)
    print("largest |paired - independent| share",
          max(abs(p[a] - i[a]) for a in p) / 2000)


if __name__ == "__main__":
    main()
