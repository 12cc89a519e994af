"""Spite Arena's hosted ladder: ``spite serve COMPETITION.toml`` (docs/hosting.md).

Layers inside: :mod:`.config` (the competition file), :mod:`.store` (the arena's own
SQLite file: entrants, hashed keys, bot versions, ladder games), :mod:`.matchmaker` (who
plays next, a pure function of the store's rows and an explicit rng), :mod:`.ladder` (the
loop that plays games through the tournaments' workers), :mod:`.uploads` (safe unpacking
and the checks of an uploaded bot), :mod:`.web` (pages and the JSON API) and
:mod:`.service` (all of it in one process).
"""
