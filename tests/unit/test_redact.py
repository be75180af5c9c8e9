"""Secrets are masked wherever they stand as themselves, and only there: a password that is
also a common word does not garble the words that contain it."""

from __future__ import annotations

from archivist.config import redact


def test_a_password_is_masked_where_it_stands_alone() -> None:
    text = 'connection to "db.local" failed for user "bob" with password postgres'
    assert redact(text, ["postgres"]).endswith("with password ***")
    assert redact("auth=Pw-5ecret-7731;", ["Pw-5ecret-7731"]) == "auth=***;"


def test_a_password_inside_a_longer_word_leaves_the_word_readable() -> None:
    text = "cannot connect to postgresql://bob:postgres@127.0.0.1:1/app"
    assert redact(text, ["postgres"]) == "cannot connect to postgresql://bob:***@127.0.0.1:1/app"
    assert redact("the pwned list", ["pw"]) == "the pwned list"


def test_a_secret_that_ends_in_a_sign_is_masked_before_any_letter() -> None:
    """The edge test applies only to a secret's letters and digits: "p@ss!" glued to a word
    is still the secret."""
    assert redact("token=p@ss!xyz", ["p@ss!"]) == "token=***xyz"
