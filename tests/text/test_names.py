"""Names in told fights (vtm_sim.text.names): full once, short after, pronouns where safe."""

from __future__ import annotations

import pytest

from vtm_sim.text.names import Cast, Person, cast_of, they_form


def test_short_names_from_the_short_key_the_comma_or_the_whole_name() -> None:
    people = cast_of([
        {"name": "Jax, Brujah Neonate", "pronoun": "he"},
        {"name": "Mags the Bartender", "short": "Mags", "pronoun": "she"},
        {"name": "Nikolai"},
        {"name": "The Thing in the Pines", "short": "The Thing", "pronoun": "it"},
        {"name": "Odd One", "pronoun": "xe"},  # not a pronoun the sheet accepts: they
    ])
    assert people == [
        Person("Jax, Brujah Neonate", "Jax", "he"),
        Person("Mags the Bartender", "Mags", "she"),
        Person("Nikolai", "Nikolai", "they"),
        Person("The Thing in the Pines", "The Thing", "it"),
        Person("Odd One", "Odd One", "they"),
    ]


def test_two_of_one_sheet_are_numbered_and_shared_short_names_fall_back() -> None:
    """Two Goons stay two (Goon 1, Goon 2, as the state files' Goon#1, Goon#2); two
    sheets that would both be "Jax" keep their full names."""
    people = cast_of([
        {"name": "Goon"}, {"name": "Goon"},
        {"name": "SWAT Rifleman", "short": "The Rifleman"},
        {"name": "SWAT Rifleman", "short": "The Rifleman"},
        {"name": "Jax, Brujah Neonate"}, {"name": "Jax, Ghoul"},
        {"name": "Wren, Gangrel Neonate"}, {"name": "Wren"},
    ])
    assert [(p.full, p.short) for p in people] == [
        ("Goon 1", "Goon 1"), ("Goon 2", "Goon 2"),
        ("SWAT Rifleman 1", "The first Rifleman"), ("SWAT Rifleman 2", "The second Rifleman"),
        ("Jax, Brujah Neonate", "Jax, Brujah Neonate"), ("Jax, Ghoul", "Jax, Ghoul"),
        ("Wren, Gangrel Neonate", "Wren, Gangrel Neonate"), ("Wren", "Wren"),
    ]
    assert len({p.short for p in people}) == len(people)


@pytest.mark.parametrize(("verb", "plural"), [
    ("reloads", "reload"), ("is stunned and will lose turn 3", "are stunned and will lose turn 3"),
    ("has", "have"), ("tries to get up and ^fails", "try to get up and fail"),
    ("goes down and ^stays down", "go down and stay down"), ("misses", "miss"),
    ("catches up with", "catch up with"), ("squeezes", "squeeze"), ("closes to", "close to"),
    ("empties the magazine at", "empty the magazine at"), ("can't clear it", "can't clear it"),
    ("sprays fire at", "spray fire at"), ("pushes", "push"), ("fixes", "fix"),
    ("stumbles, off balance", "stumble, off balance"),
])
def test_they_form_makes_the_verbs_agree(verb: str, plural: str) -> None:
    assert they_form(verb) == plural


def cast(*people: Person, pronouns: bool = True) -> Cast:
    return Cast(list(people), pronouns=pronouns)


JAX = Person("Jax, Brujah Neonate", "Jax", "he")
WREN = Person("Wren, Gangrel Neonate", "Wren", "she")
ELDER = Person("The Elder", "The Elder", "he")
THUG = Person("Street Thug", "Street Thug", "they")


def test_full_name_first_then_short_and_the_lowercased_mid_sentence() -> None:
    c = cast(JAX, ELDER, pronouns=False)
    lines = [c.resolve(c.subject(0, "faces") + f" {c.ref(1)}."),
             c.resolve(c.subject(1, "strikes") + f" {c.ref(0)}."),
             c.resolve(c.subject(0, "reloads") + "."),
             c.resolve(c.subject(0, "reloads") + "."),
             c.resolve(f"Acting order: {c.ref(0, True)}, {c.ref(1, True)}.")]
    assert lines == ["Jax, Brujah Neonate faces the Elder.", "The Elder strikes Jax.",
                     "Jax reloads.", "Jax reloads.",  # no pronouns in the dice log
                     "Acting order: Jax, The Elder."]
    assert c.subjects == [0, 1, 0, 0, None]


def test_a_pronoun_only_for_the_same_subject_with_nobody_named_who_shares_it() -> None:
    c = cast(JAX, WREN, ELDER, THUG)
    c.mentioned = {0, 1, 2, 3}
    say = c.resolve
    assert say(c.subject(0, "spends blood to heal 1 level") + ".") == (
        "Jax spends blood to heal 1 level.")
    # nobody else named: "he"
    assert say(c.subject(0, "closes to 2 yards of") + f" {c.ref(1)}.") == (
        "He closes to 2 yards of Wren.")
    # Wren is "she": "he" cannot be misread
    assert say(c.subject(0, "swings the club at") + f" {c.ref(1)} and ^hits.") == (
        "He swings the club at Wren and hits.")
    assert say(c.subject(0, "backs off from") + f" {c.ref(2)}.") == (
        "He backs off from the Elder.")
    # the Elder, just named, is "he" too: the name again
    assert say(c.subject(0, "reloads") + ".") == "Jax reloads."
    # a sentence that does not open with a combatant breaks the chain
    assert say("Turn 2.") == "Turn 2."
    assert say(c.subject(0, "reloads") + ".") == "Jax reloads."
    # another subject in between
    assert say(c.subject(1, "reloads") + ".") == "Wren reloads."
    assert say(c.subject(0, "reloads") + ".") == "Jax reloads."


def test_they_takes_plural_verbs_in_the_whole_sentence() -> None:
    c = cast(THUG, WREN)
    c.mentioned = {0, 1}
    assert c.resolve(c.subject(0, "closes to 2 yards of") + f" {c.ref(1)}.") == (
        "Street Thug closes to 2 yards of Wren.")
    assert c.resolve(c.subject(0, "swings the knife at") + f" {c.ref(1)}, but ^misses.") == (
        "They swing the knife at Wren, but miss.")
    assert c.resolve(c.subject(0, "goes down and ^stays down") + ".") == (
        "They go down and stay down.")
    assert c.they(0, "is") == "they are" and c.they(1, "is") == "she is"
    assert (c.possessive(0), c.reflexive(1), c.object(1)) == ("their", "herself", "her")
