"""libstdc++'s `std::stable_sort` (GCC 12, `bits/stl_algo.h`), step for step, for ranges whose comparator is not a
strict weak order.

TSORT32's simulator sorts each 32-element block with `std::stable_sort` and the comparator
`a.score != b.score ? a.score > b.score : a.index < b.index`. With a NaN score that comparator is not a strict weak
order (a NaN is "equivalent" to every value, and equivalence is then not transitive), so where a NaN ends up is
whatever the library's algorithm does with it. Without a NaN any stable sort gives the same order, and the caller
uses NumPy; this module replays the library's algorithm for the blocks that hold a NaN.

The algorithm for n elements with a buffer of (n + 1) / 2 (the size GCC 12 asks for, and gets for n <= 32):
split at middle = (n + 1) / 2; sort each half by insertion sort in chunks of 7, then merge passes (range -> buffer
-> range, doubling the step); finally merge the halves through the buffer, forwards when the halves have equal
length, backwards otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Less = Callable[[Any, Any], bool]
_CHUNK = 7


def _insertion_sort(a: list[Any], first: int, last: int, comp: Less) -> None:
    if first == last:
        return
    for i in range(first + 1, last):
        val = a[i]
        if comp(val, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            j = i
            while comp(val, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = val


def _move_merge(src: list[Any], f1: int, l1: int, f2: int, l2: int, out: list[Any], r: int, comp: Less) -> int:
    while f1 != l1 and f2 != l2:
        if comp(src[f2], src[f1]):
            out[r] = src[f2]
            f2 += 1
        else:
            out[r] = src[f1]
            f1 += 1
        r += 1
    for k in range(f1, l1):
        out[r] = src[k]
        r += 1
    for k in range(f2, l2):
        out[r] = src[k]
        r += 1
    return r


def _merge_sort_loop(src: list[Any], first: int, last: int, out: list[Any], r: int, step: int, comp: Less) -> None:
    two = 2 * step
    while last - first >= two:
        r = _move_merge(src, first, first + step, first + step, first + two, out, r, comp)
        first += two
    step = min(last - first, step)
    _move_merge(src, first, first + step, first + step, last, out, r, comp)


def _merge_sort_with_buffer(a: list[Any], first: int, last: int, buf: list[Any], comp: Less) -> None:
    length = last - first
    step = _CHUNK
    f = first
    while last - f >= step:
        _insertion_sort(a, f, f + step, comp)
        f += step
    _insertion_sort(a, f, last, comp)
    while step < length:
        _merge_sort_loop(a, first, last, buf, 0, step, comp)
        step *= 2
        _merge_sort_loop(buf, 0, length, a, first, step, comp)
        step *= 2


def _merge_adaptive(a: list[Any], first: int, middle: int, last: int, buf: list[Any], comp: Less) -> None:
    len1, len2 = middle - first, last - middle
    if len1 <= len2:  # forwards: the first half goes to the buffer
        buf[:len1] = a[first:middle]
        f1, l1, f2, r = 0, len1, middle, first
        while f1 != l1 and f2 != last:
            if comp(a[f2], buf[f1]):
                a[r] = a[f2]
                f2 += 1
            else:
                a[r] = buf[f1]
                f1 += 1
            r += 1
        a[r:r + l1 - f1] = buf[f1:l1]
        return
    buf[:len2] = a[middle:last]  # backwards: the second half goes to the buffer
    f1, l1, l2, r = first, middle, len2, last
    if f1 == l1:
        a[r - l2:r] = buf[:l2]
        return
    if l2 == 0:
        return
    l1 -= 1
    l2 -= 1
    while True:
        if comp(buf[l2], a[l1]):
            r -= 1
            a[r] = a[l1]
            if f1 == l1:
                a[r - (l2 + 1):r] = buf[:l2 + 1]
                return
            l1 -= 1
        else:
            r -= 1
            a[r] = buf[l2]
            if l2 == 0:
                return
            l2 -= 1


def stable_sort(items: Sequence[Any], comp: Less) -> list[Any]:
    """`std::stable_sort(items, comp)` as libstdc++ 12 runs it (a buffer of (n + 1) / 2 elements)."""
    a = list(items)
    n = len(a)
    if n == 0:
        return a
    buf: list[Any] = [None] * ((n + 1) // 2)
    middle = (n + 1) // 2
    _merge_sort_with_buffer(a, 0, middle, buf, comp)
    _merge_sort_with_buffer(a, middle, n, buf, comp)
    _merge_adaptive(a, 0, middle, n, buf, comp)
    return a
