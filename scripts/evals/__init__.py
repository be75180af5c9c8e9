"""Evaluations: retrieval on the generated set (`retrieval`, `retrieval_set`), state quality
(`state`, `current`), and outside benchmarks and tools (`beam`, `splinter`)."""
