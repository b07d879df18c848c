"""Tests of the rules documents the presets and options cite (scopa.rules._sources)."""

from __future__ import annotations

import re

import pytest

from scopa.rules import PRESETS, SOURCES, Source, list_options
from scopa.rules._sources import SPAZZINO, WIKIPEDIA, cite, ruling

_SOURCE_LINES = {f"preset {p.id}": p.source for p in PRESETS.values()} | {
    f"option {o.name}": o.source for o in list_options()
}
"""Every source line ListRulesets serves, by what it belongs to."""


def test_cite_joins_documents_and_other_citations() -> None:
    """A source line names each document by its name, in order, with "; " between."""
    assert cite(SPAZZINO, "pagat.com/fishing/cicera.html", WIKIPEDIA.on("Scopa d'assi")) == (
        "Lo Spazzino (Cuperativa, invido.it); pagat.com/fishing/cicera.html; "
        'it.wikipedia, "Scopa (gioco)" (Scopa d\'assi)'
    )


def test_a_ruling_says_whose_it_is_and_why() -> None:
    """A default no document decides is cited as the project's, with its reason."""
    assert ruling("the texts do not say") == "this project's ruling (the texts do not say)"


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.name.split(" (")[0])
def test_every_rules_text_is_cited_and_described(source: Source) -> None:
    """Each document of the table is cited by some preset or option, and says what it covers."""
    assert any(str(source) in line for line in _SOURCE_LINES.values())
    assert source.covers


def test_source_lines_cite_nothing_only_the_project_can_read() -> None:
    """Every preset and option has a source, and none points at the project's own files or
    tracker (docs/rules.md, an issue number): a reader outside cannot open them."""
    private = re.compile(r"RULINGS|seeds?\b|\bissue \d+", re.IGNORECASE)
    assert len(_SOURCE_LINES) == len(PRESETS) + len(list_options())
    assert [name for name, line in _SOURCE_LINES.items() if not line.strip()] == []
    assert {name: line for name, line in _SOURCE_LINES.items() if private.search(line)} == {}
