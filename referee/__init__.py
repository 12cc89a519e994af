"""Spite Arena's referee: it holds a match's hidden state and plays it by the rules engine
(``spite_engine``, a package of its own), sends each seat only what it may see and enforces
its time (``core``), starts bots in the sandbox (``processes``, ``sandbox``), reaches them
over gRPC or their pipes (``transports``), and plays matches here (``local``, ``pool``).
docs/architecture.md draws the layers."""

import os as _os

# Bots are started with fork+exec while gRPC's threads run; gRPC's fork handlers are not
# needed for that and only print warnings, so they are off unless the user says otherwise.
_os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
