"""Spite Arena's referee: it holds a match's hidden state and plays it by the rules engine
(``spite_engine``, a package of its own), sends each seat only what it may see and enforces
its time (``core``), starts bots in the sandbox (``processes``, ``sandbox``), reaches them
over gRPC or their pipes (``transports``), and plays matches here (``local``, ``pool``).
docs/architecture.md draws the layers."""

import os as _os

# Bots are started with fork+exec while gRPC's threads run (a preexec_fn: a real fork, so
# pthread_atfork handlers run); gRPC's fork handlers are not needed for that, print warnings,
# and now and then abort the child before its exec (seen in a ladder test: the bot never
# starts). So they are off unless the user says otherwise. gRPC reads this when it is
# imported, so a process that would import grpc (or spite_sdk) first imports this package
# before it: the ``spite`` command does, and so do tests/conftest.py and bench/bot_strength.py.
_os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
