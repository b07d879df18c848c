"""WatchGame over REST as Server-Sent Events: ids, resume with Last-Event-ID, keep-alives."""

from __future__ import annotations

import httpx

from web.conftest import KEEPALIVE_S
from web.helpers import bearer, check_error, create, play_one, read_events, tokens_of


def _versions(events: list[dict[str, object]]) -> list[int]:
    versions = []
    for event in events:
        data = event["data"]
        assert isinstance(data, dict)
        versions += [e["version"] for e in data["events"]]
    return versions


def test_a_dropped_stream_resumes_with_nothing_missing_or_repeated(client: httpx.Client) -> None:
    """Events before a drop plus those after resuming from Last-Event-ID cover each version once."""
    created = create(client, "scopa", 2)
    name, tokens = created["name"], tokens_of(created)
    start = created["view"]["version"]
    watch = f"/v1/{name}:watch?fromVersion={start}"
    with client.stream("GET", watch, headers=bearer(tokens[0])) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        first, _ = read_events(lines, 1)
        play_one(client, name, tokens)
        second, _ = read_events(lines, 1)
    before = [*first, *second]
    assert [int(e["id"]) for e in before] == [start, start + 1]
    assert [e["data"]["version"] for e in before] == [start, start + 1]
    for _ in range(3):  # played while nobody listens
        play_one(client, name, tokens)
    now = client.get(f"/v1/{name}").json()["view"]["version"]
    resume = {**bearer(tokens[0]), "Last-Event-ID": before[-1]["id"]}
    with client.stream("GET", f"/v1/{name}:watch", headers=resume) as stream:
        after, _ = read_events(stream.iter_lines(), 1)
    assert int(after[0]["id"]) == now
    seen = _versions(before) + _versions(after)
    assert sorted(set(seen)) == list(range(start + 1, now + 1))
    assert len(seen) == len(set(seen)), seen


def test_an_idle_stream_gets_keep_alive_comments(client: httpx.Client) -> None:
    """With no change for a while, comment lines keep the stream open."""
    created = create(client, "scopa", 2)
    with client.stream("GET", f"/v1/{created['name']}:watch") as stream:
        lines = stream.iter_lines()
        read_events(lines, 1)
        comments = 0
        for line in lines:
            if line.startswith(":"):
                comments += 1
            if comments == 2:
                break
    assert comments == 2, f"no keep-alive within {KEEPALIVE_S}s intervals"


def test_stream_errors_before_the_first_event_are_json(client: httpx.Client) -> None:
    """A watch of a missing game is a plain 404 JSON error, not an event stream."""
    check_error(client.get("/v1/games/missing:watch"), 404, "GAME_NOT_FOUND")
    created = create(client, "scopa", 2)
    bad = client.get(f"/v1/{created['name']}:watch", headers={"Last-Event-ID": "x"})
    check_error(bad, 400, "INVALID_ARGUMENT")
    huge = client.get(f"/v1/{created['name']}:watch", headers={"Last-Event-ID": "3000000000"})
    check_error(huge, 400, "INVALID_ARGUMENT")


def test_events_carry_the_views_options_and_deck_size(client: httpx.Client) -> None:
    """Each event's view holds the game's whole options map and deck size, as CreateGame's."""
    created = create(client, "scopa", 2, target=1)
    name, tokens = created["name"], tokens_of(created)
    with client.stream("GET", f"/v1/{name}:watch", headers=bearer(tokens[0])) as stream:
        lines = stream.iter_lines()
        first, _ = read_events(lines, 1)
        play_one(client, name, tokens)
        second, _ = read_events(lines, 1)
    for event in (*first, *second):
        view = event["data"]["view"]
        assert view["options"] == created["view"]["options"] and view["deckSize"] == 40
