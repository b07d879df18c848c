"""Tests of scopa.storage._errors: what a failed store call tells a client."""

from __future__ import annotations

import pytest

from scopa.storage import GameNotFound, OutcomeUnknown, StorageUnavailable
from scopa.storage._errors import read_only


async def test_a_read_whose_reply_never_came_is_unavailable_not_an_unknown_write() -> None:
    """``read_only``: a script call that only reads turns OutcomeUnknown (sent, no reply) into
    StorageUnavailable, whose words a client can act on; other errors pass through."""

    async def lost() -> None:
        raise OutcomeUnknown("timeout reading from socket")

    with pytest.raises(StorageUnavailable) as err:
        await read_only(lost())
    assert type(err.value) is StorageUnavailable and err.value.reason == "STORAGE_UNAVAILABLE"

    async def gone() -> None:
        raise GameNotFound("g")

    with pytest.raises(GameNotFound):
        await read_only(gone())
