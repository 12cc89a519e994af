"""Tests of the rules engine (``spite_engine``); see ``README.md`` here."""
