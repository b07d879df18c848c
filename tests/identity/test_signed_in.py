"""Signed-in players against a real OpenID Connect provider and real server processes.

The provider is panva's ``oidc-provider`` (tests/oidc), run by :mod:`support.oidc` on a free
port: each test client gets JWT access tokens by the client_credentials grant (no browser),
and a client's id is its tokens' ``sub``, so two clients are two signed-in players. The server
is ``python -m scopa.server`` on the session's redis-server with SCOPA_OIDC_ISSUER pointing at
the provider. The attack tokens are signed by the tests, with the provider's own key where the
attack is about a claim, so only the check under test can refuse them.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import random
import time
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from integration.helpers import expect_error, move_request, rid
from support.oidc import AUDIENCE, OidcProvider, new_key, require_provider
from support.redis_server import RedisServer
from support.server_process import TOKEN_SECRET, ServerProcess, start_server, stop_server

from scopa.app import TokenAuthority
from scopa_client import bearer_metadata
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

Stub = scopa_pb2_grpc.GameServiceStub

ALICE = f"subject-alice-{uuid.uuid4().hex[:8]}"
BOB = f"subject-bob-{uuid.uuid4().hex[:8]}"
CAROL = f"subject-carol-{uuid.uuid4().hex[:8]}"
BRIEF = f"subject-brief-{uuid.uuid4().hex[:8]}"
"""A client whose tokens live 4 seconds."""
CLIENTS = {ALICE: 300, BOB: 300, CAROL: 300, BRIEF: 4}


def _env(provider: OidcProvider) -> dict[str, str]:
    return {
        "SCOPA_OIDC_ISSUER": provider.issuer,
        "SCOPA_OIDC_AUDIENCE": AUDIENCE,
        "SCOPA_OIDC_LEEWAY_S": "1",
        "SCOPA_OIDC_MIN_REFRESH_S": "1",
    }


@pytest.fixture(scope="module")
def key1() -> tuple[rsa.RSAPrivateKey, dict[str, Any]]:
    return new_key("key-1")


@pytest.fixture(scope="module")
def provider(key1: tuple[rsa.RSAPrivateKey, dict[str, Any]]) -> Iterator[OidcProvider]:
    require_provider()
    started = OidcProvider(CLIENTS, [key1[1]])
    started.start()
    try:
        yield started
    finally:
        started.close()


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, provider: OidcProvider) -> Iterator[ServerProcess]:
    process = start_server(redis_server.url, env=_env(provider))
    try:
        yield process
    finally:
        stop_server(process)


class Device:
    """One client instance of a player: its own channel, and a token from the provider."""

    def __init__(self, server: ServerProcess, token: str | None) -> None:
        self.channel = grpc.insecure_channel(server.target)
        self.stub = Stub(self.channel)
        self.metadata = bearer_metadata(token) if token else None

    def create(self, open_seats: tuple[int, ...] = (1,)) -> pb.CreateGameResponse:
        request = pb.CreateGameRequest(
            preset="scopa",
            options={"target_score": pb.OptionValue(int_value=1)},
            seats=[pb.SeatSpec(display_name=f"P{i}", open=i in open_seats) for i in range(2)],
            request_id=rid(),
        )
        response: pb.CreateGameResponse = self.stub.CreateGame(
            request, metadata=self.metadata, timeout=10
        )
        return response

    def join(self, name: str, code: str) -> pb.JoinGameResponse:
        request = pb.JoinGameRequest(
            name=name, invite_code=code, display_name="Joiner", request_id=rid()
        )
        response: pb.JoinGameResponse = self.stub.JoinGame(
            request, metadata=self.metadata, timeout=10
        )
        return response

    def view(self, name: str) -> pb.GameView:
        response: pb.GetStateResponse = self.stub.GetState(
            pb.GetStateRequest(name=name), metadata=self.metadata, timeout=10
        )
        return response.view

    def play(self, name: str, move: pb.LegalMove) -> pb.PlayCardResponse:
        response: pb.PlayCardResponse = self.stub.PlayCard(
            move_request(name, move, rid()), metadata=self.metadata, timeout=10
        )
        return response

    def close(self) -> None:
        self.channel.close()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _claims(issuer: str, subject: str = ALICE, **changes: Any) -> dict[str, Any]:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": issuer,
        "sub": subject,
        "aud": AUDIENCE,
        "iat": now,
        "exp": now + 300,
    }
    claims.update(changes)
    return claims


def _signed(private: rsa.RSAPrivateKey, kid: str, claims: dict[str, Any]) -> str:
    return jwt.encode(claims, private, algorithm="RS256", headers={"kid": kid})


def _refused(server: ServerProcess, token: str, reason: str = "IDENTITY_INVALID") -> None:
    """``token`` is refused for a read, a create and a move, and nothing is created."""
    device = Device(server, token)
    try:
        code = (
            grpc.StatusCode.UNAVAILABLE
            if reason == "IDENTITY_UNAVAILABLE"
            else grpc.StatusCode.UNAUTHENTICATED
        )
        expect_error(device.create, code, reason)
        anonymous = Device(server, None)
        created = anonymous.create(open_seats=())
        name = created.name
        expect_error(lambda: device.view(name), code, reason)
        move = created.view.legal_moves[0]
        expect_error(lambda: device.play(name, move), code, reason)
        assert anonymous.view(name).version == created.view.version
        anonymous.close()
    finally:
        device.close()


def test_two_signed_in_players_play_a_game_from_two_devices_each(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """Alice creates on one device and plays on another; Bob joins and plays the same way:
    no seat token is handed out or sent, and the game ends."""
    alice_phone = Device(server, provider.token(ALICE))
    created = alice_phone.create()
    assert [(c.seat, c.token) for c in created.credentials] == [(0, "")]
    bob_phone = Device(server, provider.token(BOB))
    joined = bob_phone.join(created.name, created.invites[0].invite_code)
    assert (joined.seat, joined.token) == (1, "")
    assert joined.view.seat == 1 and len(joined.view.hand) == 3
    devices = {
        0: Device(server, provider.token(ALICE)),  # Alice's laptop: a fresh token, no seat token
        1: Device(server, provider.token(BOB)),
    }
    rng = random.Random(28)
    name = created.name
    current = devices[0].view(name)
    assert current.seat == 0 and len(current.hand) == 3
    moves = 0
    while current.status != pb.GAME_STATUS_FINISHED:
        assert moves < 500
        device = devices[current.turn]
        mine = device.view(name)
        assert mine.seat == current.turn and mine.legal_moves
        response = device.play(name, rng.choice(list(mine.legal_moves)))
        moves += 1
        current = response.view
        # The other device of the same player sees the same seat.
        other = (alice_phone, bob_phone)[current.seat]
        assert other.view(name).seat == current.seat
    assert current.status == pb.GAME_STATUS_FINISHED and moves > 0
    for device in (alice_phone, bob_phone, *devices.values()):
        device.close()


def test_another_subject_cannot_act_for_a_seat(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """Carol holds no seat: she sees the game as a spectator and cannot move or resign."""
    alice = Device(server, provider.token(ALICE))
    created = alice.create(open_seats=())
    carol = Device(server, provider.token(CAROL))
    name = created.name
    seen = carol.view(name)
    assert not seen.hand and not seen.HasField("seat")
    move = created.view.legal_moves[0]
    expect_error(
        lambda: carol.play(name, move), grpc.StatusCode.PERMISSION_DENIED, "SEAT_NOT_YOURS"
    )
    expect_error(
        lambda: carol.stub.ResignGame(
            pb.ResignGameRequest(name=name), metadata=carol.metadata, timeout=10
        ),
        grpc.StatusCode.PERMISSION_DENIED,
        "SEAT_NOT_YOURS",
    )
    assert alice.view(name).version == created.view.version
    alice.close()
    carol.close()


def test_a_seat_token_cannot_act_for_a_signed_in_seat_and_a_game_mixes_both(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """An anonymous creator keeps its seat token; Bob joins signed in. A genuine seat token for
    Bob's seat (minted with the server's secret: the server never hands one out) is refused."""
    anonymous = Device(server, None)
    created = anonymous.create()
    token0 = created.credentials[0].token
    assert token0
    bob = Device(server, provider.token(BOB))
    name = created.name
    joined = bob.join(name, created.invites[0].invite_code)
    assert joined.token == ""
    forged = TokenAuthority(TOKEN_SECRET.encode()).issue(name.removeprefix("games/"), 1)
    stranger = Device(server, forged)
    expect_error(lambda: stranger.view(name), grpc.StatusCode.PERMISSION_DENIED, "SEAT_NOT_YOURS")
    seat0 = Device(server, token0)
    view = seat0.view(name)
    assert view.seat == 0 and len(view.hand) == 3
    turn_device = seat0 if view.turn == 0 else bob
    mover = turn_device.view(name)
    played = turn_device.play(name, mover.legal_moves[0])
    assert played.view.version > view.version
    if view.turn == 1:
        expect_error(
            lambda: stranger.play(name, mover.legal_moves[0]),
            grpc.StatusCode.PERMISSION_DENIED,
            "SEAT_NOT_YOURS",
        )
    for device in (anonymous, bob, stranger, seat0):
        device.close()


def test_alg_none_is_refused(server: ServerProcess, provider: OidcProvider) -> None:
    header = _b64(json.dumps({"alg": "none", "typ": "JWT", "kid": "key-1"}).encode())
    payload = _b64(json.dumps(_claims(provider.issuer)).encode())
    _refused(server, f"{header}.{payload}.")


def test_hs256_signed_with_the_public_key_is_refused(
    server: ServerProcess,
    provider: OidcProvider,
    key1: tuple[rsa.RSAPrivateKey, dict[str, Any]],
) -> None:
    public_pem = (
        key1[0]
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "key-1"}).encode())
    payload = _b64(json.dumps(_claims(provider.issuer)).encode())
    signature = hmac.new(public_pem, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    _refused(server, f"{header}.{payload}.{_b64(signature)}")


def test_a_token_of_another_issuer_is_refused(
    server: ServerProcess, key1: tuple[rsa.RSAPrivateKey, dict[str, Any]]
) -> None:
    """A second real provider with the very same key: only the issuer differs."""
    other = OidcProvider(CLIENTS, [key1[1]])
    other.start()
    try:
        token = other.token(ALICE)
        assert jwt.get_unverified_header(token)["kid"] == "key-1"
        _refused(server, token)
    finally:
        other.close()


def test_a_token_for_another_audience_is_refused(
    server: ServerProcess, provider: OidcProvider
) -> None:
    token = provider.token(ALICE, resource="https://another-api.test/")
    assert jwt.decode(token, options={"verify_signature": False})["aud"] != AUDIENCE
    _refused(server, token)


def test_an_expired_token_is_refused_and_cannot_be_replayed(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """A 4-second token works, then (past the 1-second leeway) is refused on replay."""
    token = provider.token(BRIEF)
    device = Device(server, token)
    created = device.create(open_seats=())
    assert created.view.seat == 0
    expires = jwt.decode(token, options={"verify_signature": False})["exp"]
    time.sleep(max(0.0, expires + 2.5 - time.time()))
    _refused(server, token)
    device.close()


def test_a_token_not_yet_valid_is_refused(
    server: ServerProcess, provider: OidcProvider, key1: tuple[rsa.RSAPrivateKey, dict[str, Any]]
) -> None:
    later = int(time.time()) + 120
    _refused(server, _signed(key1[0], "key-1", _claims(provider.issuer, nbf=later)))


def test_a_token_signed_by_a_key_not_in_the_jwks_is_refused(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """A rogue key, naming the provider's key id or its own: neither verifies."""
    rogue, _ = new_key("rogue")
    _refused(server, _signed(rogue, "key-1", _claims(provider.issuer)))
    _refused(server, _signed(rogue, "rogue", _claims(provider.issuer)))


def test_a_server_without_an_issuer_refuses_identity_tokens(
    redis_server: RedisServer, provider: OidcProvider
) -> None:
    plain = start_server(redis_server.url)
    try:
        _refused(plain, provider.token(ALICE))
    finally:
        stop_server(plain)


def test_a_rotated_key_is_picked_up(
    redis_server: RedisServer, key1: tuple[rsa.RSAPrivateKey, dict[str, Any]]
) -> None:
    """The provider rotates to a new signing key: its tokens verify once the server refreshed
    the JWKS for the unknown kid, and a seat bound before the rotation stays the player's."""
    require_provider()
    provider = OidcProvider(CLIENTS, [key1[1]])
    provider.start()
    server = start_server(redis_server.url, env=_env(provider))
    try:
        before = Device(server, provider.token(ALICE))
        created = before.create(open_seats=())
        _, key2 = new_key("key-2")
        provider.restart([key2, key1[1]])
        time.sleep(1.5)  # past SCOPA_OIDC_MIN_REFRESH_S since the first fetch
        token = provider.token(ALICE)
        assert jwt.get_unverified_header(token)["kid"] == "key-2"
        after = Device(server, token)
        view = after.view(created.name)
        assert view.seat == 0 and len(view.hand) == 3
        before.close()
        after.close()
    finally:
        stop_server(server)
        provider.close()


def test_jwks_down_at_start_fails_closed_then_recovers(
    redis_server: RedisServer, key1: tuple[rsa.RSAPrivateKey, dict[str, Any]]
) -> None:
    """No provider when the server starts: identity tokens get UNAVAILABLE while anonymous
    play goes on; once the provider is up, the same token works."""
    require_provider()
    provider = OidcProvider(CLIENTS, [key1[1]])  # not started yet
    server = start_server(redis_server.url, env=_env(provider))
    try:
        token = _signed(key1[0], "key-1", _claims(provider.issuer))
        _refused(server, token, "IDENTITY_UNAVAILABLE")
        provider.start()
        time.sleep(1.5)
        device = Device(server, token)
        assert device.create(open_seats=()).view.seat == 0
        device.close()
        records = [r for r in server.log_records() if r.get("event", "").startswith("identity_")]
        assert {r["event"] for r in records} >= {
            "identity_keys_unavailable",
            "identity_keys_fetched",
        }
    finally:
        stop_server(server)
        provider.close()


def test_jwks_down_while_running_uses_the_kept_keys(
    redis_server: RedisServer, key1: tuple[rsa.RSAPrivateKey, dict[str, Any]]
) -> None:
    """The provider goes away: tokens of the kept key still verify; a token of a key the
    server cannot fetch fails closed (UNAVAILABLE), not open."""
    require_provider()
    provider = OidcProvider(CLIENTS, [key1[1]])
    provider.start()
    server = start_server(redis_server.url, env=_env(provider))
    try:
        token = provider.token(ALICE)
        device = Device(server, token)
        created = device.create(open_seats=())
        provider.stop()
        time.sleep(1.5)
        assert device.view(created.name).seat == 0
        unknown, _ = new_key("key-unfetchable")
        _refused(
            server,
            _signed(unknown, "key-unfetchable", _claims(provider.issuer)),
            "IDENTITY_UNAVAILABLE",
        )
        assert device.view(created.name).seat == 0
        device.close()
    finally:
        stop_server(server)
        provider.close()


def test_no_token_or_subject_is_logged_or_shown(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """After signed-in games, the server's log names no subject and holds no token, and a
    player's view (and a spectator's) names neither player's subject."""
    alice_token, bob_token = provider.token(ALICE), provider.token(BOB)
    alice, bob = Device(server, alice_token), Device(server, bob_token)
    created = alice.create()
    joined = bob.join(created.name, created.invites[0].invite_code)
    shown = [
        joined.SerializeToString(),
        alice.view(created.name).SerializeToString(),
        Device(server, None).view(created.name).SerializeToString(),
    ]
    for blob in shown:
        for secret in (ALICE, BOB):
            assert secret.encode() not in blob
    log = server.log_text()
    assert "identity_keys_fetched" in log  # the log is the server's, and it saw the tokens
    for secret in (ALICE, BOB, alice_token, bob_token, alice_token.split(".")[2]):
        assert secret not in log
    alice.close()
    bob.close()


def test_a_retried_create_or_join_of_another_subject_is_refused(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """The same request_id from another subject (or anonymously) is not a retry: it gets
    REQUEST_ID_REUSED, never the first caller's view of its seat."""
    alice, carol = Device(server, provider.token(ALICE)), Device(server, provider.token(CAROL))
    anonymous = Device(server, None)
    request = pb.CreateGameRequest(
        preset="scopa",
        seats=[pb.SeatSpec(display_name="P0"), pb.SeatSpec(display_name="P1", open=True)],
        request_id=rid(),
    )
    first = alice.stub.CreateGame(request, metadata=alice.metadata, timeout=10)
    again = alice.stub.CreateGame(request, metadata=alice.metadata, timeout=10)
    assert again.name == first.name and list(again.view.hand) == list(first.view.hand)
    for other in (carol, anonymous):
        expect_error(
            functools.partial(other.stub.CreateGame, request, metadata=other.metadata, timeout=10),
            grpc.StatusCode.INVALID_ARGUMENT,
            "REQUEST_ID_REUSED",
        )
    join = pb.JoinGameRequest(
        name=first.name, invite_code=first.invites[0].invite_code, request_id=rid()
    )
    joined = carol.stub.JoinGame(join, metadata=carol.metadata, timeout=10)
    assert joined.seat == 1 and joined.token == ""
    expect_error(
        lambda: alice.stub.JoinGame(join, metadata=alice.metadata, timeout=10),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
    )
    assert carol.stub.JoinGame(join, metadata=carol.metadata, timeout=10).seat == 1
    for device in (alice, carol, anonymous):
        device.close()


def test_signed_in_seats_take_their_places_in_the_rematch(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """Alice's and Bob's seats are bound to them: after the game, Bob asks for the rematch with
    his identity token and both see their own seats of it, with no join; Carol, holding no
    seat, is refused."""
    alice = Device(server, provider.token(ALICE))
    created = alice.create()
    bob = Device(server, provider.token(BOB))
    bob.join(created.name, created.invites[0].invite_code)
    name = created.name
    alice.stub.ResignGame(pb.ResignGameRequest(name=name), metadata=alice.metadata, timeout=10)
    carol = Device(server, provider.token(CAROL))
    expect_error(
        lambda: carol.stub.RematchGame(
            pb.RematchGameRequest(name=name), metadata=carol.metadata, timeout=10
        ),
        grpc.StatusCode.PERMISSION_DENIED,
        "PERMISSION_DENIED",
    )
    asked: pb.RematchGameResponse = bob.stub.RematchGame(
        pb.RematchGameRequest(name=name), metadata=bob.metadata, timeout=10
    )
    assert asked.view.seat == 1 and asked.view.previous_game == name
    mine = alice.view(asked.game)
    assert mine.seat == 0 and len(mine.hand) == 3
    assert mine.turn == 1 and asked.view.dealer == 0  # seat 1 dealt first, now seat 0
    theirs = bob.view(asked.game)
    bob.play(asked.game, theirs.legal_moves[0])
    assert alice.view(asked.game).turn == 0
    for device in (alice, bob, carol):
        device.close()
