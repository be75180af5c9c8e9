"""The CLI's choice types offer exactly the values the models and settings declare: a new item
type, status, source or mode cannot be missing from (or extra in) a command's choices."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, get_args

import pytest

from archivist import models
from archivist.cli import common
from archivist.config import SearchMode, Settings


@pytest.mark.parametrize(
    ("choices", "declared"),
    [
        (common.ItemType, models.ItemType),
        (common.ItemStatus, models.ItemStatus),
        (common.SourceName, models.ChunkSource),
        (common.Mode, SearchMode),
        (common.EmbedderName, Settings.model_fields["embedder"].annotation),
        (common.ExtractorName, Settings.model_fields["extractor"].annotation),
    ],
)
def test_a_cli_choice_type_matches_its_declaration(choices: type[StrEnum], declared: Any) -> None:
    assert {c.value for c in choices} == set(get_args(declared))
