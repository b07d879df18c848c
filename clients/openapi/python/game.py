"""A whole 2-player game through a client that openapi-python-client generates from openapi.json.

Written as a team that takes no package of ours would write it, against the generated package
`scopa_rest` beside this file: no cast, no `Unset` check and no `type: ignore` on a field the
server always sends. tests/web/test_openapi_python_client.py generates the package, runs
`mypy --strict` on both, then runs `python game.py BASE_URL`, which prints a JSON summary.
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import Any, TypeVar

from scopa_rest import AuthenticatedClient, Client
from scopa_rest.api.game_service import (
    create_game,
    get_state,
    join_game,
    list_rulesets,
    play_card,
)
from scopa_rest.models import (
    JoinGameBody,
    PlayCardBody,
    ScopaV1CaptureChoice,
    ScopaV1CreateGameRequest,
    ScopaV1CreateGameRequestOptions,
    ScopaV1CreateGameResponse,
    ScopaV1EventKindCardPlayed,
    ScopaV1GameStatus,
    ScopaV1GetStateResponse,
    ScopaV1JoinGameResponse,
    ScopaV1ListRulesetsResponse,
    ScopaV1OptionValueKindIntValue,
    ScopaV1PlayCardResponse,
    ScopaV1SeatSpec,
)
from scopa_rest.types import Unset

T = TypeVar("T")
MAX_TURNS = 2000


def expect(result: object, kind: type[T]) -> T:
    """The call's answer, or exit naming the error the server sent instead."""
    if not isinstance(result, kind):
        raise SystemExit(f"expected a {kind.__name__}, got {result!r}")
    return result


def play(base_url: str) -> dict[str, Any]:
    """Create a game (no token), join it, watch it as a spectator and play it to the end."""
    anyone = Client(base_url=base_url, raise_on_unexpected_status=True)
    rulesets = expect(list_rulesets.sync(client=anyone), ScopaV1ListRulesetsResponse)
    assert any(r.id == "scopa" for r in rulesets.rulesets)

    options = ScopaV1CreateGameRequestOptions()
    options["target_score"] = ScopaV1OptionValueKindIntValue(int_value=1)
    request = ScopaV1CreateGameRequest(
        preset="scopa",
        options=options,
        seats=[ScopaV1SeatSpec(display_name="Ann"), ScopaV1SeatSpec(open_=True)],
        request_id=str(uuid.uuid4()),
    )
    created = expect(create_game.sync(client=anyone, body=request), ScopaV1CreateGameResponse)
    game = created.name.removeprefix("games/")
    ann, invite = created.credentials[0], created.invites[0]
    body = JoinGameBody(
        invite_code=invite.invite_code, display_name="Bob", request_id=str(uuid.uuid4())
    )
    joined = expect(join_game.sync(game, client=anyone, body=body), ScopaV1JoinGameResponse)
    seats = {
        credential.seat: AuthenticatedClient(base_url=base_url, token=credential.token)
        for credential in (ann, joined)
    }

    # A spectator: no token, so no authenticated client; hand sizes, never a card.
    spectator = expect(get_state.sync(game, client=anyone), ScopaV1GetStateResponse).view
    not_modified = get_state.sync_detailed(game, client=anyone, if_none_match=f'"{spectator.etag}"')

    view = spectator
    plays = 0
    while view.status != ScopaV1GameStatus.GAME_STATUS_FINISHED:
        assert plays < MAX_TURNS, "the game did not finish"
        turn = view.turn  # unset when no one can play: not always sent, so checked
        if isinstance(turn, Unset):
            raise SystemExit(f"an unfinished game with no turn: {view!r}")
        mine = expect(get_state.sync(game, client=seats[turn]), ScopaV1GetStateResponse).view
        move = mine.legal_moves[0]
        body_ = PlayCardBody(
            card=move.card,
            capture=ScopaV1CaptureChoice(cards=move.capture),
            etag=mine.etag,
            request_id=str(uuid.uuid4()),
        )
        played = expect(
            play_card.sync(game, client=seats[turn], body=body_), ScopaV1PlayCardResponse
        )
        # A oneof is a union of one class per member: isinstance narrows it.
        cards = [e.card_played for e in played.events if isinstance(e, ScopaV1EventKindCardPlayed)]
        assert cards[0].seat == turn, (cards, turn)
        plays += 1
        view = played.view
    return {
        "plays": plays,
        "winners": view.winners,
        "finish_reason": view.finish_reason.value,
        "spectator_hand": [c.to_dict() for c in spectator.hand],
        "spectator_seats": [s.display_name for s in spectator.seats],
        "not_modified": not_modified.status_code,
    }


if __name__ == "__main__":
    print(json.dumps(play(sys.argv[1])))
