"""Spite Arena's web face: ``spite web`` (leaderboards, bot pages, games, replays) and the
self-contained replay file of ``spite replay --html``. Read-only over the results store,
through :mod:`tournaments.queries`. See docs/web.md."""
