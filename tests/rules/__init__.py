"""Tests of the rules engine (``referee.rules``); see ``README.md`` here."""
