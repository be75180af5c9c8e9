"""The extractor the settings name."""

from __future__ import annotations

from archivist.config import Settings
from archivist.extract.base import Extractor, RulesExtractor


def make_extractor(settings: Settings) -> Extractor:
    """The extractor the settings name: the rules, or an Ollama chat model."""
    if settings.extractor == "ollama":
        from archivist.extract.llm import OllamaExtractor  # the ollama client is slow to import

        return OllamaExtractor(
            model=settings.llm_model,
            host=settings.ollama_host,
            timeout_s=settings.llm_timeout_s,
            max_prompt_chars=settings.llm_max_prompt_chars,
        )
    return RulesExtractor()
