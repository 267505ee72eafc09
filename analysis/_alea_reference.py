"""A line-by-line port of seedrandom's Alea (node_modules/seedrandom/lib/alea.js) for the
python reference scripts, so that their bootstrap bounds can match ledgerbench's to the bit.

Used by analysis/_per_resolved_reference.py and analysis/judge/_calibration_reference.py.
"""


def mash_factory():
    n = 0xEFC8249D

    def mash(data):
        nonlocal n
        for ch in str(data):
            n += ord(ch)
            h = 0.02519603282416938 * n
            n = int(h) % 2**32
            h -= n
            h *= n
            n = int(h) % 2**32
            h -= n
            n += h * 0x100000000
        return (int(n) % 2**32) * 2.3283064365386963e-10

    return mash


def alea(seed):
    mash = mash_factory()
    s = [mash(" "), mash(" "), mash(" ")]
    for i in range(3):
        s[i] -= mash(seed)
        if s[i] < 0:
            s[i] += 1
    c = 1

    def nxt():
        nonlocal c
        t = 2091639 * s[0] + c * 2.3283064365386963e-10
        s[0], s[1] = s[1], s[2]
        c = int(t)
        s[2] = t - c
        return s[2]

    return nxt
