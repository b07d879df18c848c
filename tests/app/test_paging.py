"""Tests of scopa.app._paging: ListGames page sizes and page tokens."""

from __future__ import annotations

import base64

import pytest

from scopa.app import InvalidArgument
from scopa.app._paging import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    page_size,
    page_token,
    read_page_token,
)


def test_a_page_holds_the_default_when_unset_and_at_most_the_maximum() -> None:
    assert page_size("", 0) == DEFAULT_PAGE_SIZE
    assert page_size("scopa", 7) == 7
    assert page_size("", 10**6) == MAX_PAGE_SIZE


@pytest.mark.parametrize(
    ("preset", "size", "field"), [("nope", 1, "preset"), ("", -1, "page_size")]
)
def test_a_bad_listing_names_its_field(preset: str, size: int, field: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        page_size(preset, size)
    assert refused.value.field == field


def test_a_page_token_reads_back_as_its_cursor_under_the_same_filter_only() -> None:
    token = page_token("scopone", 1234, "g1")
    assert read_page_token(token, "scopone") == (1234, "g1")
    assert read_page_token("", "scopone") is None
    with pytest.raises(InvalidArgument, match="another preset filter"):
        read_page_token(token, "")


@pytest.mark.parametrize(
    "token",
    [
        "%%%",
        "bm90IGpzb24",
        base64.urlsafe_b64encode(b'["", "x", "g"]').decode(),
        "WzFd",
        base64.urlsafe_b64encode(b"[" * 5000).decode(),  # nested past the decoder's depth
    ],
)
def test_a_malformed_page_token_is_refused(token: str) -> None:
    with pytest.raises(InvalidArgument, match="not a token of ListGames"):
        read_page_token(token, "")


def test_another_listings_tokens_name_it_and_are_not_taken_by_any_other() -> None:
    """A ListMyGames token reads back under its method and filter only: ListGames refuses it,
    and it refuses ListGames' tokens, each naming the listing and the filter in its words."""
    mine = page_token("FINISHED", 7, "g1", method="ListMyGames")
    assert read_page_token(mine, "FINISHED", method="ListMyGames", filter_name="status") == (
        7,
        "g1",
    )
    with pytest.raises(InvalidArgument, match="another status filter"):
        read_page_token(mine, "ACTIVE", method="ListMyGames", filter_name="status")
    with pytest.raises(InvalidArgument, match="not a token of ListGames"):
        read_page_token(mine, "FINISHED")
    with pytest.raises(InvalidArgument, match="not a token of ListMyGames"):
        read_page_token(page_token("FINISHED", 7, "g1"), "FINISHED", method="ListMyGames")
