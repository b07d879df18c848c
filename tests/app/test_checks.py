"""Tests of scopa.app._checks: a request's input refused with the field it names."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scopa.app import CreateGameCommand, InvalidArgument, SeatSpec
from scopa.app._checks import (
    check_bot,
    check_clock,
    check_display_name,
    check_game_id,
    check_preset,
    check_request_id,
)

COMMAND = CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("b")])


@pytest.mark.parametrize("game_id", ["", "a/b", "x" * 65, "g\u00e8"])
def test_a_game_id_out_of_its_alphabet_or_length_is_refused(game_id: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        check_game_id(game_id)
    assert err.value.field == "game_id"


def test_request_ids_are_optional_and_bounded() -> None:
    assert check_request_id("") is None
    assert check_request_id("r-1.2:3_4") == "r-1.2:3_4"
    for bad in ("r 1", "x" * 129):
        with pytest.raises(InvalidArgument) as err:
            check_request_id(bad)
        assert err.value.field == "request_id"


@pytest.mark.parametrize("name", ["x" * 65, "a\u202eb", "nul\x00", "zero\u200bwidth"])
def test_a_display_name_too_long_or_with_control_or_format_characters_is_refused(
    name: str,
) -> None:
    with pytest.raises(InvalidArgument) as err:
        check_display_name(name, "display_name")
    assert err.value.field == "display_name"
    check_display_name("Bea \u00e8 \u4e2d", "display_name")  # letters of any script pass


def test_a_preset_is_required_and_a_bot_seat_named_and_held() -> None:
    with pytest.raises(InvalidArgument):
        check_preset("")
    check_bot(SeatSpec("b", bot="greedy"), "seats[1].bot")
    for spec in (SeatSpec("b", bot="genius"), SeatSpec("b", bot="greedy", open=True)):
        with pytest.raises(InvalidArgument) as err:
            check_bot(spec, "seats[1].bot")
        assert err.value.field == "seats[1].bot"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"turn_timeout_s": -1}, "turn_timeout_s"),
        ({"turn_timeout_s": 7 * 24 * 3600 + 1}, "turn_timeout_s"),
        ({"turn_timeout_s": 30, "on_timeout": "sleep"}, "timeout_action"),
        ({"turn_timeout_s": 30, "forfeit_after": 101}, "forfeit_after"),
        ({"turn_timeout_s": 30, "timeout_bot": "genius"}, "timeout_bot"),
        ({"forfeit_after": 2}, "turn_timeout_s"),
    ],
)
def test_clock_settings_are_bounded_and_need_a_clock(
    changes: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidArgument) as err:
        check_clock(replace(COMMAND, **changes))  # type: ignore[arg-type]
    assert err.value.field == field
    check_clock(replace(COMMAND, turn_timeout_s=30, on_timeout="forfeit", forfeit_after=2))
