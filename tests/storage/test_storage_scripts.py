"""Tests of scopa.storage._scripts: the Lua files shipped with the package and their SHA1s."""

from __future__ import annotations

import hashlib
import importlib.resources

import pytest

from scopa.storage._scripts import Script, script_text

SHIPPED = sorted(
    p.name
    for p in importlib.resources.files("scopa.storage.lua").iterdir()
    if p.name.endswith(".lua")
)


def test_the_package_ships_the_scripts_the_stores_run() -> None:
    """Every script a store loads is a file of scopa.storage.lua."""
    assert {"commit.lua", "create.lua", "deadline.lua", "lobby.lua", "time.lua"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_a_script_is_its_file_and_the_sha1_evalsha_names_it_by(name: str) -> None:
    """Script(name) holds the file's text and its SHA1 in hex, as Redis' SCRIPT LOAD answers."""
    script = Script(name)
    assert script.text == script_text(name) and "redis.call" in script.text
    assert script.sha == hashlib.sha1(script.text.encode()).hexdigest()


def test_an_unknown_script_is_an_error() -> None:
    """A name no file has fails at once, when the store is built, not at its first call."""
    with pytest.raises(FileNotFoundError):
        Script("nope.lua")


@pytest.mark.parametrize("name", ["lobby.lua", "owned.lua"])
def test_an_include_line_is_replaced_by_the_file_it_names(name: str) -> None:
    """The lobby and the owner index page with page.lua's function: its text stands where the
    script's include line was, before the SHA1 is taken, so Redis runs one whole script."""
    raw = importlib.resources.files("scopa.storage.lua").joinpath(name).read_text("utf-8")
    assert "\n-- include: page.lua\n" in raw and "local function newest_page" not in raw
    before, after = raw.split("\n-- include: page.lua\n")
    script = Script(name)
    assert script.text == f"{before}\n{script_text('page.lua')}\n{after}"
    assert script.sha == hashlib.sha1(script.text.encode()).hexdigest()
