"""Benchmarks: `kit` (the embedded Postgres every benchmark shares), `corpus` (the synthetic
corpus and template database of the archive benchmarks), and one module per benchmark; `all`
runs them on one server."""
