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


def test_a_password_masked_already_keeps_what_follows_it() -> None:
    """The error line is redacted twice (the URL, then the whole line): the second pass must
    not take the separator after a masked password with it."""
    line = "cannot connect to the database at postgresql://u@h:1/db?password=***: refused"
    assert redact(line) == line
    assert redact("postgresql://u@h:1/db?password=hunter2: refused") == (
        "postgresql://u@h:1/db?password=*** refused"
    )
