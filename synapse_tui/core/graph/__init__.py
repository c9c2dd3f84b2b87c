"""How facts are linked: kNN and NPMI edges, their build, cache, reading, ego graphs and paths."""
