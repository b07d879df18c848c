"""Tests of scopa.storage."""
