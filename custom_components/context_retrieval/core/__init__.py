"""The retrieval engine (exports are added once every module exists)."""
