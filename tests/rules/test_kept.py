"""Tests of scopa.rules._kept: values kept by the identity of their object."""

from __future__ import annotations

import pytest

from scopa.rules import ByIdentity


class _Key:
    """Equal to every other _Key and hashing alike: only identity tells them apart."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key)

    def __hash__(self) -> int:
        return 1


def test_a_value_is_found_by_its_very_object_not_an_equal_one() -> None:
    kept: ByIdentity[_Key, str] = ByIdentity(4)
    first, equal = _Key(), _Key()
    assert kept.put(first, "a") == "a"
    assert kept.get(first) == "a"
    assert kept.get(equal) is None
    kept.put(first, "b")
    assert (kept.get(first), len(kept)) == ("b", 1)


def test_when_full_the_oldest_entry_goes_first() -> None:
    kept: ByIdentity[_Key, int] = ByIdentity(3)
    keys = [_Key() for _ in range(5)]
    for i, key in enumerate(keys):
        kept.put(key, i)
    assert len(kept) == 3
    assert [kept.get(k) for k in keys] == [None, None, 2, 3, 4]
    kept.clear()
    assert len(kept) == 0 and kept.get(keys[4]) is None


def test_an_entry_holds_its_object_so_its_id_is_never_reused_while_kept() -> None:
    kept: ByIdentity[object, int] = ByIdentity(2)
    kept.put(object(), 1)  # a temporary: the entry keeps it alive
    for i in range(100):
        probe = object()
        assert kept.get(probe) is None, i


def test_the_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        ByIdentity(0)
