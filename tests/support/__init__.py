"""What the tests share: the source tables and CLI runners (`sources`), the Ollama test
server (`ollama_server`), the Supabase REST gateway double (`postgrest_double`), the
whole-database invariants (`invariants`), crash and fault helpers (`faults`), the catalog
of what the migrations create (`catalog`), the statement counter (`statements`), the generated
retrieval set (`retrieval_set`) and the scorers of the retrieval and state evaluations
(`retrieval_eval`, `state_quality`). The benchmarks and evaluations in scripts/ import them as
`tests.support`; the tests import them as `support` and never import scripts/."""
