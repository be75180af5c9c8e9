"""The values a text states: its numbers, each with the kind of quantity it is.

"The API answers in 220 ms" and "it is down to 180 ms" give one quantity two values; "we use
OpenWeather API 2.5" and "the quota is 1,200 calls" give two quantities one value each. Telling
them apart keeps a version number in a URL from reading as a changed response time. A number's
kind comes from the words around it: money ($, €, £ before it, or a currency after it), a
percentage, a date (a month name, an ordinal), a time of day (am/pm or h:mm), a version (v1.2
or 1.2.3), a year, a reference (#123), a duration, size, weight or distance (by its unit),
else a count. A number said in words counts before a unit ("two full days", "a full day
off"; not "a week ago", nor "a week" after an amount: "three hours a week"): on BEAM's 500K
tuning chats with MiniLM it takes one more update above its original (13 of 16, from 12), and
changes nothing else there or on the 100K tuning chats. Code (fenced or inline) and web
addresses state no values and are left out.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"\d[\d,.:]*\d|\d")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_VALUE = re.compile(
    rf"(?i)(?P<pre>[$€£#]|\bv|\b{_MONTH})?\s*(?P<num>\d[\d,.:]*\d|\d)"
    r"(?P<ordinal>(?:st|nd|rd|th)\b)?\s*(?P<post>%|[a-z]+)?"
)
_NOT_PROSE = re.compile(
    r"```.*?(?:```|$)|`[^`\n]*`|https?://\S+|\b\S+\.(?:com|org|io|net)\S*", re.S
)
_CURRENCIES = frozenset("usd cad eur gbp dollar dollars euro euros pound pounds bucks".split())
_MEASURES = {
    "duration": "ms s sec secs second seconds min mins minute minutes h hr hrs hour hours day "
    "days week weeks month months year years",
    "size": "b kb mb gb tb bytes",
    "weight": "g kg lb lbs",
    "distance": "m km mi mile miles",
}
_MEASURE_OF = {unit: kind for kind, units in _MEASURES.items() for unit in units.split()}
_WORD_NUMBERS = {
    w: str(n)
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
} | {"a": "1", "an": "1", "half a": "0.5"}
# A number in words before a unit of time, size, weight or distance, one adjective between.
_SPELLED = re.compile(
    rf"(?i)\b(?P<num>{'|'.join(sorted(_WORD_NUMBERS, key=len, reverse=True))})\s+"
    r"(?:(?:full|whole|extra|more|additional|entire|straight|working|business)\s+)?"
    rf"(?P<unit>{'|'.join(u for u in _MEASURE_OF if len(u) > 2)})\b"
    r"(?!\s+(?:ago|later|earlier|before|after|back)\b)"  # "a week ago" is when, not how long
)
# What ends just before "a week" when it means per week: "three hours a week", "$500 a month".
_PER = re.compile(rf"(?i)(?:\d|\b(?:{'|'.join(_MEASURE_OF)}|{'|'.join(_WORD_NUMBERS)}))\s*$")
# Kinds that name something rather than measure it: two mentions that differ are no change.
NAMING = frozenset({"year", "reference"})


def numbers(text: str) -> frozenset[str]:
    """The numbers `text` names ("4,500" and "4500" alike), without trailing punctuation."""
    return frozenset(n.replace(",", "") for n in _NUMBER.findall(text))


def prose(text: str) -> str:
    """`text` without code and web addresses."""
    return _NOT_PROSE.sub(" ", text)


def stated_values(text: str) -> frozenset[tuple[str, str]]:
    """(kind, number) for each number `text` names, commas dropped from the number; a number
    said in words counts where a unit follows it ("a full day off", "two full days")."""
    digits = {
        (_kind(m["pre"], m["num"], m["ordinal"], m["post"]), m["num"].replace(",", ""))
        for m in _VALUE.finditer(text)
    }
    words = {
        (_MEASURE_OF[m["unit"].lower()], _WORD_NUMBERS[m["num"].lower()])
        for m in _SPELLED.finditer(text)
        if not (m["num"].lower() in ("a", "an") and _PER.search(text, 0, m.start()))
    }
    return frozenset(digits | words)


def _kind(pre: str | None, num: str, ordinal: str | None, post: str | None) -> str:
    pre, post = (pre or "").lower(), (post or "").lower()
    if pre in ("$", "€", "£") or post in _CURRENCIES:
        return "money"
    if post in ("%", "percent"):
        return "percent"
    if ordinal or re.fullmatch(_MONTH, pre) or re.fullmatch(_MONTH, post):
        return "date"
    if post in ("am", "pm") or ":" in num:
        return "time of day"
    if pre == "v" or num.count(".") >= 2:
        return "version"
    if pre == "#":
        return "reference"
    if re.fullmatch(r"(?:19|20)\d\d", num):
        return "year"
    return _MEASURE_OF.get(post, "count")
