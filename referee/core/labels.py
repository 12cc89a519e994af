"""Text that bots and entrants chose, shown to people: one validator for labels and one
neutraliser for what is printed to a terminal.

A **label** (a bot version's name on the ladder, the version a remote bot sends when it
joins) is at most :data:`LABEL_CHARS` printable characters: no control characters (ANSI
escapes start with one), no bidirectional overrides (U+202A-U+202E, U+2066-U+2069 turn
"evil" into "live" on a page), no invisible format characters. A bot manifest's ``name``
is one (``referee.processes.manifest``, which also keeps path separators out of it: it names log
files), and the hosted ladder checks every label with :func:`check_label` before it stores
it; the ladder's names (entrants, bots) are stricter still (``spite_arena.store.check_name``).

A bot's output (its log, the faults it causes, the version string in its Hello) reaches
``spite check-bot`` and ``spite submit``; :func:`terminal_safe` shows its control and bidi
characters as escapes (``\\x1b``, ``\\u202e``) so it cannot move the cursor, recolour,
retitle or reverse the organizer's terminal.
"""

from __future__ import annotations

import unicodedata

LABEL_CHARS = 64
"""The longest label, in characters (the lobby's limit on a remote bot's version)."""

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
"""Embeddings, overrides, isolates and marks: they reorder the text around them."""


class LabelError(ValueError):
    """A label that may not be shown; the message says why in one line."""


def check_label(text: str, what: str = "the version label") -> str:
    """``text`` if it may be shown on a page or a terminal, else :class:`LabelError`."""
    if not isinstance(text, str):
        raise LabelError(f"{what} must be text")
    if len(text) > LABEL_CHARS:
        raise LabelError(f"{what} is {len(text)} characters long; at most {LABEL_CHARS} are allowed")
    for char in text:
        if char in BIDI_CONTROLS:
            raise LabelError(f"{what} holds the bidirectional control U+{ord(char):04X}, which reorders text "
                             f"on a page; remove it")
        if not char.isprintable():
            raise LabelError(f"{what} holds the control or invisible character U+{ord(char):04X} "
                             f"({unicodedata.name(char, 'unnamed')}); use printable characters only")
    return text


def terminal_safe(text: str) -> str:
    """``text`` with every character that could steer a terminal (C0 and C1 controls but
    newline and tab, DEL, bidi controls, other invisible format characters) shown as an
    escape; everything else, accents and emoji included, as it was."""
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char in "\n\t" or (char.isprintable() and char not in BIDI_CONTROLS):
            out.append(char)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        else:
            out.append(f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)
