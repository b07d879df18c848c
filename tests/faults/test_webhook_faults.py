"""A replica SIGKILLed while it holds webhook notifications: another replica sends them once
the dead one's lease has run out, under the same webhook-id (at least once, de-duplicable)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable

from integration.helpers import create, stub_pair
from support.redis_server import RedisServer
from support.server_process import ServerProcess
from support.webhooks import running_receiver, webhook_env

from faults.conftest import StartServers


def _wait(check: Callable[[], object], what: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _delivered(server: ServerProcess, game: str) -> list[dict[str, object]]:
    return [
        r
        for r in server.log_records()
        if r.get("event") == "webhook_delivered" and r.get("game_id") == game
    ]


def test_a_killed_replicas_leased_notification_is_sent_by_another(
    own_redis: list[RedisServer], start_servers: StartServers
) -> None:
    """Replica A claims the game's "your turn" and is killed mid-request (the receiver never
    answers); replica B, started afterwards, sends it once A's lease ran out: one delivery,
    the second attempt, with the id A's request carried."""
    with running_receiver(started=False) as receiver:
        receiver.start(hang=True)
        env = webhook_env(receiver, SCOPA_WEBHOOK_TIMEOUT_S="2")  # a 10 s lease
        (first,) = start_servers(1, **env)
        with stub_pair([first.target] * 2) as (stub, _):
            game = create(stub).name.removeprefix("games/")
        _wait(receiver.deliveries, "replica A's request")
        (hung,) = receiver.deliveries()
        assert json.loads(hung["body"])["data"]["game_id"] == game
        os.kill(first.process.pid, signal.SIGKILL)
        first.process.wait()
        receiver.stop()
        receiver.start()
        (second,) = start_servers(1, **env)
        _wait(lambda: _delivered(second, game), "replica B's delivery")
        accepted = [d for d in receiver.deliveries() if d["status"] == 204]
        assert [d["id"] for d in accepted] == [hung["id"]]
        assert _delivered(second, game)[0]["attempts"] == 2
