# tests: each area includes its own fragment
