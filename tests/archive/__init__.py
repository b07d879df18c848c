"""Tests of scopa.archive."""
