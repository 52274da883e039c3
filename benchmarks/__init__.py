"""Benchmarks of the retrieval engine: quality on the shared data, speed and memory at scale."""
