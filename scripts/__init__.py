"""Benchmarks (`scripts.bench`) and evaluations (`scripts.evals`), run from the repository root
as `python -m scripts.bench.NAME` or `python -m scripts.evals.NAME`. Not part of the installed
package."""
