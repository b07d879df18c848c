"""Tests of scopa._frozen: frozen dataclasses built by their own (compiled) ``__init__``."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from typing import Any

import pytest

from scopa._frozen import FROZEN_INITS, frozen_init
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameSnapshot,
    PlayResult,
    SeatSpec,
    TokenAuthority,
)
from scopa.app._meta import GameMeta, SeatMeta
from scopa.storage import MemoryStore


@dataclasses.dataclass(frozen=True, slots=True)
class _Pair:
    a: str
    b: int = 0

    def __init__(self, a: str, b: int = 0) -> None:
        (self.a, self.b) = (a, b)  # type: ignore[misc]


frozen_init(_Pair)


def test_a_class_of_its_own_init_is_built_compared_and_replaced_as_a_dataclass() -> None:
    pair = _Pair("x", 2)
    assert (pair.a, pair.b) == ("x", 2) and pair == _Pair("x", 2) != _Pair("x")
    assert hash(pair) == hash(_Pair("x", 2)) and repr(pair) == "_Pair(a='x', b=2)"
    assert dataclasses.replace(pair, b=3) == _Pair("x", 3)


@pytest.mark.parametrize("cls", [_Pair, *FROZEN_INITS], ids=lambda c: c.__name__)
def test_no_field_is_written_after_init(cls: type[Any]) -> None:
    """Frozen as the generated ``__init__`` leaves it, compiled or interpreted; and built from
    its fields' values, an equal object."""
    made = _samples()[cls]
    assert cls(*[getattr(made, f.name) for f in dataclasses.fields(cls)]) == made
    for field in dataclasses.fields(cls):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, field.name, getattr(made, field.name))


@pytest.mark.interpreted_only  # compiled by mypyc, an __init__ shows no parameters
@pytest.mark.parametrize("cls", FROZEN_INITS, ids=lambda c: c.__name__)
def test_an_own_init_takes_the_fields_in_order_with_their_defaults(cls: type[Any]) -> None:
    """An ``__init__`` written beside the fields takes exactly them (a field added to one
    and not the other fails here), and sets each to its argument."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields, strict=True):
        expected = (
            inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
        )
        assert parameter.default == expected, field.name
    values = _arguments(cls)
    made = cls(*values)
    assert [getattr(made, f.name) for f in fields] == values


def _samples() -> dict[type[Any], Any]:
    """An object of each class, from a game's first move on the embedded store."""

    async def played() -> PlayResult:
        core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings())
        seats = [SeatSpec("ann"), SeatSpec("bob")]
        created = await core.create_game(CreateGameCommand("scopa", {}, seats, public=True))
        turn = created.snapshot.view.turn
        token = dict(created.tokens)[turn]
        move = (await core.get_state(created.game_id, token)).view.legal_moves[0]
        return await core.play_card(created.game_id, token, move)

    result = asyncio.run(played())
    seats = result.snapshot.seats
    meta = GameMeta(seats, last_events=b"x", turn_timeout_s=30, public=True)
    return {
        _Pair: _Pair("x"),
        PlayResult: result,
        GameSnapshot: result.snapshot,
        SeatMeta: seats[0],
        GameMeta: meta,
    }


def _arguments(cls: type[Any]) -> list[Any]:
    """One distinct object per field (their types do not matter to ``__init__``)."""
    return [object() for _ in dataclasses.fields(cls)]
