"""View patches of a realtime session (SessionHello.view_patches): what changed in its view.

A patched session keeps the last view it sent as the wire bytes of each top-level GameView
field, and sends as a ViewPatch only the fields whose bytes changed: their names in the
update mask, their new values in the patch's view (a field absent there is cleared). The view
is built as a whole view is, without its options and hand results (a game's same objects from
version to version: their fields are split once per object and kept, as the tails of
:mod:`._convert` are), and with the update's events as its last events when they are the same.
"""

from __future__ import annotations

from typing import Final

from scopa import rules
from scopa.app import GameSnapshot, split_fields, varint
from scopa_client.v1 import scopa_pb2 as pb

from ._convert import options_view, results_view
from ._view_wire import view_wire_fields

__all__ = ["ViewPatches"]


_PATHS: Final = {
    field.number: b"\x0a" + varint(len(field.name)) + field.name.encode()
    for field in pb.GameView.DESCRIPTOR.fields
}
"""Each GameView field's entry of FieldMask.paths (field 1) on the wire, by field number."""
_MASK_KEY: Final = b"\x0a"
"""ViewPatch.update_mask (field 1, length-delimited)."""
_PATCH_VIEW_KEY: Final = b"\x12"
"""ViewPatch.view (field 2)."""
_UPDATE_PATCH_KEY: Final = b"\x32"
"""SessionUpdate.view_patch (field 6)."""

_SPLIT: Final[rules.ByIdentity[object, dict[int, bytes]]] = rules.ByIdentity(4096)
"""The fields of a view's options (and deck size) or hand results, by the object they were
made from (as _convert's tails): a game's objects are the same from version to version."""


def _options_fields(options: rules.Options) -> dict[int, bytes]:
    """The fields of a GameView holding only ``options`` and the deck size, split once per
    Options object and kept."""
    kept = _SPLIT.get(options)
    return kept if kept is not None else _SPLIT.put(options, split_fields(options_view(options)))


def _results_fields(results: tuple[rules.HandResult, ...]) -> dict[int, bytes]:
    """The hand results' field, likewise per results tuple (none: no field)."""
    if not results:
        return {}
    kept = _SPLIT.get(results)
    return kept if kept is not None else _SPLIT.put(results, split_fields(results_view(results)))


class ViewPatches:
    """The last view a patched session sent, field by field; the patch to each next view."""

    def __init__(self) -> None:
        self._sent: dict[int, bytes] = {}

    def sent_whole(self, view: pb.GameView, snapshot: GameSnapshot) -> None:
        """The session sent ``view`` whole (its welcome's: without options and hand results,
        which are ``snapshot``'s)."""
        fields = split_fields(view.SerializeToString())
        fields.update(_options_fields(snapshot.view.options))
        fields.update(_results_fields(snapshot.view.results))
        self._sent = fields

    def patch(self, snapshot: GameSnapshot, last_events: list[bytes] | None) -> bytes:
        """The wire bytes of a SessionUpdate holding only the view patch from the view sent
        last to ``snapshot``'s, which then counts as sent. ``last_events``: the view's last
        events already serialized (each an Event's wire bytes), or None to convert them."""
        fields = view_wire_fields(snapshot, last_events)
        fields.update(_options_fields(snapshot.view.options))
        if snapshot.view.results:
            fields.update(_results_fields(snapshot.view.results))
        sent, self._sent = self._sent, fields
        changed = [n for n, data in fields.items() if sent.get(n) != data]
        changed += [n for n in sent if n not in fields]  # cleared: in the mask, not the view
        changed.sort()
        mask = b"".join([_PATHS[n] for n in changed])
        view = b"".join([fields.get(n, b"") for n in changed])
        body = _MASK_KEY + varint(len(mask)) + mask + _PATCH_VIEW_KEY + varint(len(view)) + view
        return _UPDATE_PATCH_KEY + varint(len(body)) + body
