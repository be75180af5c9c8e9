"""What the tests share: the source tables and CLI runners (`sources`), the Ollama test
server (`ollama_server`), the Supabase REST gateway double (`postgrest_double`), the
whole-database invariants (`invariants`), crash and fault helpers (`faults`) and the catalog
of what the migrations create (`catalog`). The benchmarks in scripts/ use some of them too."""
