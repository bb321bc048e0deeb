"""Narration and the story dispatch on the event's class and read typed attributes.

Every event class is either handled or deliberately left out, and neither
reader touches an event's JSON form: a live log narrates with ``to_json``
broken, and a log read back from JSONL narrates and is told line for line
alike.
"""

from __future__ import annotations

from typing import Any

import pytest

from vtm_sim.events import (
    EVENT_CLASSES,
    AmmoEvent,
    Event,
    EventLog,
    ExchangeEvent,
    InitiativeEvent,
    RollEvent,
)
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.play import play
from vtm_sim.text import narration, story
from vtm_sim.text.narration import narrate
from vtm_sim.text.story import tell


def test_every_event_class_is_handled_or_left_out_on_purpose() -> None:
    assert set(narration._HANDLERS) == set(EVENT_CLASSES) - {AmmoEvent}
    # the story reads an order for who sits a stunned turn out, an action for its target
    assert set(story._HANDLERS) == set(EVENT_CLASSES) - {
        ExchangeEvent, InitiativeEvent, RollEvent}


def _no_json(self: Event, *args: Any) -> Any:
    raise AssertionError(f"{type(self).__name__}: read by key or as JSON")


@pytest.mark.parametrize("name", ["gunfight", "grapple_and_bite", "rooftops"])
def test_typed_events_narrate_without_their_json(name: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    log = play(load_scenario(name).battle(seed=3)).log
    read_back = EventLog.parse(log.jsonl())
    want = (narrate(log.events), tell(log.events))
    assert want == (narrate(read_back.events), tell(read_back.events))
    try:
        for cls in EVENT_CLASSES:
            monkeypatch.setattr(cls, "to_json", _no_json)
    except (AttributeError, TypeError):  # a compiled build's classes cannot be patched
        pytest.skip("event classes are compiled")
    assert (narrate(log.events), tell(log.events)) == want
