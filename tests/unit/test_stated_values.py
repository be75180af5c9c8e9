"""The kind of quantity each number of a text states, so that only like values are compared."""

from __future__ import annotations

import pytest

from archivist.search.values import numbers, prose, stated_values


@pytest.mark.parametrize(
    ("text", "kind", "number"),
    [
        ("the API answers in 220ms", "duration", "220"),
        ("it took 3 weeks", "duration", "3"),
        ("a $700 budget", "money", "700"),
        ("I earn 75,000 CAD a year", "money", "75000"),
        ("coverage is at 85%", "percent", "85"),
        ("due March 29", "date", "29"),
        ("due on the 17th", "date", "17"),
        ("the call is at 4:30 PM", "time of day", "4:30"),
        ("Bootstrap 5.3.0", "version", "5.3.0"),
        ("back in 2023", "year", "2023"),
        ("fixes #123", "reference", "123"),
        ("a 4 GB image", "size", "4"),
        ("I have 7 mentees", "count", "7"),
    ],
)
def test_a_number_takes_its_kind_from_the_words_around_it(
    text: str, kind: str, number: str
) -> None:
    assert (kind, number) in stated_values(text)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("I took a full day off to recover", {("duration", "1")}),
        ("I extended it to two full days", {("duration", "2")}),
        ("the sync moved to three hours a week", {("duration", "3")}),
        ("a week ago I had two dogs", set()),  # when, not how long; no unit
    ],
)
def test_a_number_in_words_counts_before_a_unit(text: str, values: set[tuple[str, str]]) -> None:
    assert stated_values(text) == values


def test_code_and_web_addresses_state_no_values() -> None:
    text = (
        "Call https://api.openweathermap.org/data/2.5/weather with `retries = 3`:\n"
        "```js\nconst quota = 1200;\n```\nThe quota is 1,000 calls."
    )
    assert numbers(prose(text)) == {"1000"}
