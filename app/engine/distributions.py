"""Exact discrete probability distributions over integers.

A :class:`Dist` stores integer weights over a contiguous range of integers plus one common
total, so P(v) = weight(v) / total. Arithmetic (convolution, mixtures, compounding) works on
Python integers only; a :class:`~fractions.Fraction` is built only when a probability is read.
Weights are kept reduced (their gcd with the total is 1), so two equal distributions compare
equal. Convolution of long supports uses Kronecker substitution (one big-integer product).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction

from gmpy2 import bit_scan1, divexact, gcd, mpz, pack, remove, unpack

__all__ = ["Dist", "convolve_weights", "lowest_terms", "power_weights"]

_KRONECKER_MIN = 48  # use big-integer multiplication once len(a) * len(b) exceeds this
# totals longer than this reduce their weights with GMP (gcd and exact division about ten
# times faster than CPython's at the 12,000 bits of issue 18's answers; slower when short)
_GMP_GCD_BITS = 2000


def convolve_weights(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """Convolution of two non-negative integer weight vectors (polynomial product)."""
    la, lb = len(a), len(b)
    if la == 0 or lb == 0:
        return []
    if la == 1:
        x = a[0]
        return [x * y for y in b]
    if lb == 1:
        y = b[0]
        return [x * y for x in a]
    if la * lb <= _KRONECKER_MIN * 4 or min(la, lb) <= 4:
        out = [0] * (la + lb - 1)
        if la < lb:
            a, b, la, lb = b, a, lb, la
        for j, y in enumerate(b):
            if y:
                for i, x in enumerate(a):
                    out[i + j] += x * y
        return out
    # Kronecker substitution: pack each vector into one big integer, multiply, unpack; GMP
    # integers (its products are subquadratic where CPython's Karatsuba is not: two weapons'
    # 945 mortal-wound counts of 816 bits, 325 -> 10 ms), Python integers out.
    bound = max(a).bit_length() + max(b).bit_length() + min(la, lb).bit_length() + 1
    n = la + lb - 1
    raw = unpack(pack(list(a), bound) * pack(list(b), bound), bound)[:n]
    return [int(x) for x in raw] + [0] * (n - len(raw))


def power_weights(a: Sequence[int], n: int, cut: int | None = None) -> list[int]:
    """The ``n``-th convolution power of a non-negative integer weight vector (the
    coefficients of the polynomial ``a(z) ** n``), only its first ``cut`` coefficients when
    ``cut`` is given.

    J.C.P. Miller's recurrence: with ``g = a ** n`` and ``a[0] != 0``,
    ``k a[0] g[k] = sum_j ((n + 1) j - k) a[j] g[k - j]``; the division is exact because the
    coefficients of an integer polynomial's power are integers. Each coefficient costs
    ``len(a)`` products of a big number by a small one, instead of the big-by-big products of
    binary powering.
    """
    if n < 0:
        raise ValueError("power must be >= 0")
    shift = 0
    while shift < len(a) and a[shift] == 0:
        shift += 1
    if shift == len(a):
        raise ValueError("the zero polynomial has no useful power")
    core = list(a[shift:])
    while len(core) > 1 and core[-1] == 0:
        core.pop()
    full = (len(core) - 1) * n + 1
    start = shift * n
    length = full if cut is None else max(0, min(full, cut - start))
    out = [0] * start if cut is None else [0] * min(start, cut)
    if length == 0:
        return out
    if length == full and n > 1:
        # every coefficient: one power of the packed polynomial (Kronecker substitution),
        # GMP's squarings being much faster than the recurrence's many small products; a
        # coefficient is at most sum(core) ** n, so slots of that many bits hold each one
        slot = (sum(core) ** n).bit_length() + 1
        raw = unpack(pack(core, slot) ** n, slot)
        return out + [int(x) for x in raw] + [0] * (length - len(raw))
    # GMP integers inside (faster products and exact divisions), Python integers out
    a0 = mpz(core[0])
    g = [a0**n]
    d = len(core) - 1
    for k in range(1, length):
        acc = mpz(0)
        for j in range(1, min(k, d) + 1):
            c = (n + 1) * j - k
            if c and core[j]:
                acc += c * core[j] * g[k - j]
        g.append(acc // (k * a0))
    return out + [int(x) for x in g]


_DICE_PRIMES = (3, 5, 7)  # with 2: every prime factor of a product of D2, D3, D6, D10 sides
_SHORT_VALUATION = 24  # beyond this many factors of one prime, the gcd is cheaper


def _valuation(n: int, p: int) -> tuple[int, int]:
    """(v, n / p**v) with p**v the largest power of ``p`` dividing ``n`` > 0: squaring
    powers, so a few big divisions even for thousands of factors."""
    if n % p:
        return 0, n
    powers = [p]
    while True:
        q, r = divmod(n, powers[-1])
        if r:
            break
        n = q
        powers.append(powers[-1] * powers[-1])
    v = (1 << (len(powers) - 1)) - 1
    for k in range(len(powers) - 2, -1, -1):
        q, r = divmod(n, powers[k])
        if not r:
            n = q
            v += 1 << k
    return v, n


@functools.lru_cache(maxsize=64)
def _dice_exponents(total: int) -> tuple[tuple[int, int], ...] | None:
    """((p, e), ...) when ``total`` > 0 is a product of the primes 2, 3, 5, 7 (the totals of
    dice distributions), else ``None``."""
    out = []
    twos = (total & -total).bit_length() - 1
    rest = total >> twos
    if twos:
        out.append((2, twos))
    for p in _DICE_PRIMES:
        e, rest = _valuation(rest, p)
        if e:
            out.append((p, e))
    return tuple(out) if rest == 1 else None


def _reduced(x: int, total: int, exponents: tuple[tuple[int, int], ...] | None) -> Fraction:
    """``Fraction(x, total)``; when the prime factors of ``total`` are known small primes the
    common factor is found by a few divisions by them (linear in the size) instead of a gcd
    of two numbers of thousands of digits (quadratic)."""
    if exponents is None or x == 0 or x == total:
        return Fraction(x, total)
    x0 = x
    g = 1
    for p, e in exponents:
        if p == 2:
            v = min((x & -x).bit_length() - 1, e)
            if v:
                x >>= v
                g <<= v
            continue
        v = 0
        while v < e and x % p == 0:
            if v == _SHORT_VALUATION:
                return Fraction(x0, total)
            x //= p
            v += 1
        g *= p**v
    return _coprime(x, total // g)


def _reduced_many(xs: Sequence[int], total: int) -> list[Fraction]:
    """``[Fraction(x, total) for x in xs]`` (each ``x`` in ``0 .. total``), as
    :func:`_reduced` does one, for a whole table: the reduced denominators, one per set of
    prime exponents divided out, are computed once, not once per value."""
    return [_coprime(n, d) for n, d in _reduced_pairs(xs, total)]


def _reduced_pairs(xs: Sequence[int], total: int) -> list[tuple[int, int]]:
    """The lowest terms ``(numerator, denominator)`` of every ``x / total`` (each ``x`` in
    ``0 .. total``), Python ``int`` pairs (see :func:`lowest_terms`)."""
    nums, keys, dens = lowest_terms(xs, total)
    return [(int(n), dens[k]) for n, k in zip(nums, keys, strict=True)]


def lowest_terms(xs: Sequence[int], total: int) -> tuple[list[mpz], list[int], dict[int, int]]:
    """The lowest terms of every ``x / total`` (each ``x`` >= 0) of a whole table, without
    building a :class:`Fraction` (the serialisation of an answer needs only the integers):
    ``(numerators, keys, denominators)``, the reduced numerator of each ``x`` as a GMP integer
    and a key of its reduced denominator ``denominators[key]`` (a Python ``int``). A table has
    few distinct denominators (one per common factor divided out): each is computed once, by
    GMP's exact division (a Python ``//`` of a 12,000-bit total was most of the cost).

    When ``total`` is a product of 2, 3, 5 and 7 (dice), the common factor is each prime's
    valuation (the lowest set bit for 2; GMP's ``remove``, repeated squaring, for 3, 5 and 7)
    instead of a gcd of two numbers of thousands of digits. Each step is one pass over the
    table (a list comprehension, not a dozen interpreted operations per value), and each
    denominator one exact division per odd part, then a shift. Otherwise one GMP gcd per
    value."""
    big = mpz(total)
    ys = [mpz(x) for x in xs]
    dens: dict[int, int] = {}
    exps = _dice_exponents(total)
    if exps is None:
        gs = [gcd(y, big) for y in ys]
        keys = [int(g) for g in gs]
        for g, k in zip(gs, keys, strict=True):
            if k not in dens:
                dens[k] = int(divexact(big, g))
        return [divexact(y, g) for y, g in zip(ys, gs, strict=True)], keys, dens
    zeros = [i for i, y in enumerate(ys) if not y]
    for i in zeros:  # reduced as total / total (den 1), numerator set to 0 below
        ys[i] = big
    # a key packs each prime's valuation (at most its exponent in the total) in a field of
    # its own width
    keys = [0] * len(ys)
    fields: list[tuple[int, int, int]] = []  # (prime, shift, width mask)
    shift = 0
    for p, e in exps:
        width = e.bit_length()
        fields.append((p, shift, (1 << width) - 1))
        if p == 2:  # the first prime: its field at shift 0
            keys = [v if v < e else e for v in map(bit_scan1, ys)]
            ys = [y >> v for y, v in zip(ys, keys, strict=True)]
        else:
            pairs = [remove(y, p) for y in ys]
            ys = [y for y, _ in pairs]
            found = [v for _, v in pairs]
            if found and max(found) > e:  # more factors than the total: ``e`` are common
                for i, v in enumerate(found):
                    if v > e:
                        ys[i] *= mpz(p) ** (v - e)
                        found[i] = e
            keys = [k | v << shift for k, v in zip(keys, found, strict=True)]
        shift += width
    # the denominators: total / (2**a * odd), the exact division once per odd part (few),
    # a shift per power of two
    twos_mask = fields[0][2] if fields and fields[0][0] == 2 else 0
    odd_shift = twos_mask.bit_length()
    odd_totals: dict[int, mpz] = {}
    for k in set(keys):
        odd_key = k >> odd_shift
        rest = odd_totals.get(odd_key)
        if rest is None:
            g = mpz(1)
            for p, at, mask in fields:
                if p != 2:
                    g *= mpz(p) ** ((k >> at) & mask)
            rest = odd_totals[odd_key] = divexact(big, g)
        dens[k] = int(rest >> (k & twos_mask))
    for i in zeros:
        ys[i] = mpz(0)
    return ys, keys, dens


# Python 3.12 has a constructor for a numerator and denominator known to be coprime; 3.11
# takes a keyword instead. Either skips the gcd that the caller has made unnecessary.
_FROM_COPRIME: Callable[[int, int], Fraction] | None = getattr(Fraction, "_from_coprime_ints", None)


def _coprime(n: int, d: int) -> Fraction:
    if _FROM_COPRIME is not None:
        return _FROM_COPRIME(n, d)
    out: Fraction = Fraction(n, d, _normalize=False)  # type: ignore[call-overload]
    return out


def _lcm(values: Iterable[int]) -> int:
    out = 1
    for v in values:
        out = out * v // math.gcd(out, v)
    return out


class Dist:
    """An immutable exact distribution over integers.

    Build one with :meth:`constant`, :meth:`die`, :meth:`from_weights`, :meth:`from_probs`,
    :meth:`bernoulli` or :meth:`mixture`; combine with ``+`` (convolution), :meth:`map`,
    :meth:`bind` and :meth:`repeat`.
    """

    __slots__ = ("_hash", "_lo", "_total", "_w")

    _lo: int
    _w: tuple[int, ...]
    _total: int
    _hash: int | None

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def _make(cls, lo: int, weights: Sequence[int], total: int | None = None) -> Dist:
        """Internal: dense weights starting at value ``lo``; trims zeros and reduces."""
        start = 0
        end = len(weights)
        while start < end and weights[start] == 0:
            start += 1
        while end > start and weights[end - 1] == 0:
            end -= 1
        if start == end:
            raise ValueError("a distribution needs at least one outcome with positive weight")
        w = weights[start:end]
        tot = sum(w) if total is None else total
        if tot.bit_length() <= _GMP_GCD_BITS:
            g = math.gcd(tot, *w)
            if g > 1:
                w = [x // g for x in w]
                tot //= g
        else:  # thousands of digits (an answer's weights): GMP's gcd and exact division
            big = mpz(tot)
            for x in w:
                big = gcd(big, x)
                if big == 1:
                    break
            if big > 1:
                w = [int(divexact(mpz(x), big)) for x in w]
                tot = int(divexact(mpz(tot), big))
        d = object.__new__(cls)
        d._lo = lo + start
        d._w = tuple(w)
        d._total = tot
        d._hash = None
        return d

    @classmethod
    def constant(cls, v: int) -> Dist:
        """Always ``v``."""
        return cls._make(int(v), (1,), 1)

    @classmethod
    def die(cls, sides: int) -> Dist:
        """A fair die: uniform over 1..sides."""
        if sides < 1:
            raise ValueError(f"a die needs at least one side, not {sides}")
        return cls._make(1, (1,) * sides, sides)

    @classmethod
    def uniform(cls, lo: int, hi: int) -> Dist:
        """Uniform over lo..hi inclusive."""
        if hi < lo:
            raise ValueError(f"empty range {lo}..{hi}")
        return cls._make(lo, (1,) * (hi - lo + 1))

    @classmethod
    def from_weights(cls, w: Mapping[int, int]) -> Dist:
        """From non-negative integer weights (need not sum to anything in particular)."""
        if not w:
            raise ValueError("a distribution needs at least one outcome")
        for value, weight in w.items():
            if weight < 0:
                raise ValueError(f"negative weight {weight} for {value}")
        lo = min(w)
        hi = max(w)
        dense = [0] * (hi - lo + 1)
        for value, weight in w.items():
            dense[value - lo] += int(weight)
        return cls._make(lo, dense)

    @classmethod
    def from_probs(cls, p: Mapping[int, Fraction]) -> Dist:
        """From exact probabilities, which must be non-negative and sum to exactly 1."""
        if not p:
            raise ValueError("a distribution needs at least one outcome")
        probs = {k: Fraction(v) for k, v in p.items()}
        if any(v < 0 for v in probs.values()):
            raise ValueError("probabilities must be non-negative")
        if sum(probs.values()) != 1:
            raise ValueError(f"probabilities sum to {sum(probs.values())}, not 1")
        den = _lcm(v.denominator for v in probs.values())
        return cls.from_weights({k: v.numerator * (den // v.denominator) for k, v in probs.items()})

    @classmethod
    def bernoulli(cls, p: Fraction) -> Dist:
        """1 with probability ``p``, else 0."""
        q = Fraction(p)
        if not 0 <= q <= 1:
            raise ValueError(f"probability {q} outside [0, 1]")
        return cls._make(0, (q.denominator - q.numerator, q.numerator), q.denominator)

    @classmethod
    def binomial(cls, n: int, p: Fraction) -> Dist:
        """Number of successes in ``n`` independent trials of probability ``p``."""
        if n < 0:
            raise ValueError("n must be >= 0")
        q = Fraction(p)
        if not 0 <= q <= 1:
            raise ValueError(f"probability {q} outside [0, 1]")
        a, b = q.numerator, q.denominator - q.numerator
        weights = [math.comb(n, k) * a**k * b ** (n - k) for k in range(n + 1)]
        return cls._make(0, weights, q.denominator**n)

    @classmethod
    def mixture(cls, parts: Iterable[tuple[Fraction, Dist]]) -> Dist:
        """P(v) = sum of weight * part.prob(v); the weights must sum to 1."""
        items = [(Fraction(p), d) for p, d in parts if p != 0]
        if not items:
            raise ValueError("a mixture needs at least one part of positive weight")
        if sum(p for p, _ in items) != 1:
            raise ValueError("mixture weights must sum to 1")
        if any(p < 0 for p, _ in items):
            raise ValueError("mixture weights must be non-negative")
        den = _lcm(p.denominator * d._total for p, d in items)
        lo = min(d._lo for _, d in items)
        hi = max(d._lo + len(d._w) - 1 for _, d in items)
        dense = [0] * (hi - lo + 1)
        for p, d in items:
            scale = p.numerator * (den // (p.denominator * d._total))
            off = d._lo - lo
            for i, x in enumerate(d._w):
                dense[off + i] += x * scale
        return cls._make(lo, dense, den)

    # -- reading ----------------------------------------------------------------------------

    @property
    def total(self) -> int:
        """The common denominator of the (reduced) weights."""
        return self._total

    def weights(self) -> dict[int, int]:
        """The integer weights of every value of the support (over :attr:`total`)."""
        return {self._lo + i: x for i, x in enumerate(self._w) if x}

    def prob(self, v: int) -> Fraction:
        i = v - self._lo
        if 0 <= i < len(self._w):
            return Fraction(self._w[i], self._total)
        return Fraction(0)

    def items(self) -> list[tuple[int, Fraction]]:
        """(value, probability) for every value of positive probability, sorted by value."""
        lo = self._lo
        values = [(lo + i, x) for i, x in enumerate(self._w) if x]
        probs = _reduced_many([x for _, x in values], self._total)
        return [(v, p) for (v, _), p in zip(values, probs, strict=True)]

    def support(self) -> list[int]:
        return [self._lo + i for i, x in enumerate(self._w) if x]

    @property
    def min(self) -> int:
        return self._lo

    @property
    def max(self) -> int:
        return self._lo + len(self._w) - 1

    def mean(self) -> Fraction:
        s = sum(i * x for i, x in enumerate(self._w))
        return self._lo + Fraction(s, self._total)

    def variance(self) -> Fraction:
        m = Fraction(sum(i * x for i, x in enumerate(self._w)), self._total)
        m2 = Fraction(sum(i * i * x for i, x in enumerate(self._w)), self._total)
        return m2 - m * m

    def p_at_least(self, k: int) -> Fraction:
        i = max(0, k - self._lo)
        return Fraction(sum(self._w[i:]), self._total)

    def p_at_most(self, k: int) -> Fraction:
        i = k - self._lo + 1
        if i <= 0:
            return Fraction(0)
        return Fraction(sum(self._w[:i]), self._total)

    def p_more_than(self, k: int) -> Fraction:
        return self.p_at_least(k + 1)

    def p_less_than(self, k: int) -> Fraction:
        return self.p_at_most(k - 1)

    def at_least_table(self) -> list[tuple[int, Fraction]]:
        """(k, P(X >= k)) for every k of the support, sorted by k."""
        keys: list[int] = []
        tails: list[int] = []
        acc = self._total
        for i, x in enumerate(self._w):
            if x:
                keys.append(self._lo + i)
                tails.append(acc)
            acc -= x
        return list(zip(keys, _reduced_many(tails, self._total), strict=True))

    def reduced_rows(self) -> list[tuple[int, int, int, int, int]]:
        """``(value, p_num, p_den, at_least_num, at_least_den)`` for every value of the
        support, sorted: :meth:`items` and :meth:`at_least_table` in lowest terms as integer
        pairs, without a :class:`Fraction` per value (what the serialisation needs)."""
        keys: list[int] = []
        xs: list[int] = []
        tails: list[int] = []
        acc = self._total
        for i, x in enumerate(self._w):
            if x:
                keys.append(self._lo + i)
                xs.append(x)
                tails.append(acc)
            acc -= x
        pairs = _reduced_pairs(xs + tails, self._total)
        n = len(keys)
        rows = []
        for i, v in enumerate(keys):
            (pn, pd), (an, ad) = pairs[i], pairs[n + i]
            rows.append((v, pn, pd, an, ad))
        return rows

    # -- combining --------------------------------------------------------------------------

    def __add__(self, other: Dist | int) -> Dist:
        if isinstance(other, int):
            return Dist._make(self._lo + other, self._w, self._total)
        if not isinstance(other, Dist):
            return NotImplemented
        w = convolve_weights(self._w, other._w)
        return Dist._make(self._lo + other._lo, w, self._total * other._total)

    def __radd__(self, other: int) -> Dist:
        if isinstance(other, int):
            return self + other
        return NotImplemented

    def __neg__(self) -> Dist:
        return Dist._make(-self.max, self._w[::-1], self._total)

    def __sub__(self, other: Dist | int) -> Dist:
        if isinstance(other, int):
            return self + (-other)
        if not isinstance(other, Dist):
            return NotImplemented
        return self + (-other)

    def map(self, f: Callable[[int], int]) -> Dist:
        out: dict[int, int] = {}
        for i, x in enumerate(self._w):
            if x:
                k = int(f(self._lo + i))
                out[k] = out.get(k, 0) + x
        return Dist.from_weights(out)

    def bind(self, f: Callable[[int], Dist]) -> Dist:
        """Compound: the distribution of ``f(v)`` for ``v`` drawn from this one."""
        parts: list[tuple[int, Dist]] = []
        for i, x in enumerate(self._w):
            if x:
                parts.append((x, f(self._lo + i)))
        den = _lcm(d._total for _, d in parts)
        lo = min(d._lo for _, d in parts)
        hi = max(d.max for _, d in parts)
        dense = [0] * (hi - lo + 1)
        for x, d in parts:
            scale = x * (den // d._total)
            off = d._lo - lo
            for j, y in enumerate(d._w):
                dense[off + j] += y * scale
        return Dist._make(lo, dense, den * self._total)

    def repeat(self, n: int) -> Dist:
        """The sum of ``n`` independent copies (``n`` >= 0; 0 copies sum to 0)."""
        if n < 0:
            raise ValueError("repeat count must be >= 0")
        if n >= 4 and len(self._w) <= 4 * n:  # short support, many copies: Miller's recurrence
            return Dist._make(self._lo * n, power_weights(self._w, n), self._total**n)
        result = Dist.constant(0)
        base: Dist = self
        while n:
            if n & 1:
                result = result + base
            n >>= 1
            if n:
                base = base + base
        return result

    def compound(self, inner: Dist) -> Dist:
        """The sum of N independent copies of ``inner``, N drawn from this distribution
        (N >= 0). Horner's scheme on integer weights: one convolution per value of N."""
        if self._lo < 0:
            raise ValueError("compound needs a count distribution over N >= 0")
        if inner._lo < 0:
            return self.bind(inner.repeat)
        if len(self._w) == 1:
            return inner.repeat(self._lo)
        j = (0,) * inner._lo + inner._w  # dense from value 0
        jt = inner._total
        n_max = self.max
        acc: list[int] = [self._w[-1]]
        scale = 1
        for n in range(n_max - 1, -1, -1):
            acc = convolve_weights(acc, j)
            scale *= jt
            i = n - self._lo
            if i >= 0 and self._w[i]:
                acc[0] += self._w[i] * scale
        return Dist._make(0, acc, self._total * scale)

    def thin(self, p: Fraction) -> Dist:
        """Each unit of this count kept independently with probability ``p`` (binomial
        thinning, ``bind(lambda n: binomial(n, p))``). The generating function ``G(c + a z)``
        (``p = a / b``, ``c = b - a``) by Horner's scheme on one packed integer: four
        big-integer operations per value of the count, instead of a binomial per value."""
        if self._lo < 0:
            raise ValueError("thinning needs a count distribution over N >= 0")
        p = Fraction(p)
        if not 0 <= p <= 1:
            raise ValueError("a probability is between 0 and 1")
        if p == 1:
            return self
        if p == 0:
            return Dist.constant(0)
        a, b = p.numerator, p.denominator
        c = b - a
        w = (0,) * self._lo + self._w
        n = len(w) - 1
        total = self._total * b**n
        slot = -(-(total.bit_length() + 1) // 8) * 8  # no coefficient exceeds ``total``
        acc = w[n]
        scale = 1
        for k in range(n - 1, -1, -1):
            scale *= b
            acc = acc * c + ((acc * a) << slot) + w[k] * scale
        step = slot // 8
        raw = acc.to_bytes((n + 1) * step, "little")
        weights = [int.from_bytes(raw[i : i + step], "little") for i in range(0, len(raw), step)]
        return Dist._make(0, weights, total)

    def dense(self) -> tuple[int, tuple[int, ...], int]:
        """(lowest value, weights of every value from it, total): the raw representation."""
        return self._lo, self._w, self._total

    def clamp(self, lo: int, hi: int) -> Dist:
        if hi < lo:
            raise ValueError(f"empty clamp range {lo}..{hi}")
        return self.map(lambda v: lo if v < lo else hi if v > hi else v)

    def max_with(self, other: Dist) -> Dist:
        """Distribution of max(X, Y) for independent X (self) and Y."""
        out: dict[int, int] = {}
        for a, x in self.weights().items():
            for b, y in other.weights().items():
                k = a if a >= b else b
                out[k] = out.get(k, 0) + x * y
        return Dist.from_weights(out)

    # -- dunder -----------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dist):
            return NotImplemented
        return self._lo == other._lo and self._total == other._total and self._w == other._w

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._lo, self._total, self._w))
        return self._hash

    def __repr__(self) -> str:
        inner = ", ".join(f"{v}: {p}" for v, p in self.items()[:12])
        more = ", ..." if len(self.support()) > 12 else ""
        return f"Dist({{{inner}{more}}})"

    def __len__(self) -> int:
        return sum(1 for x in self._w if x)
