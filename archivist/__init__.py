"""archivist: chat-bot conversations into versioned extractions and searchable memory."""

__version__ = "0.1.0"
