"""Generated code for the scopa.v1 API (do not edit; see tools/generate.py)."""
