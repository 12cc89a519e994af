"""Spite Arena's referee: the rules engine (``spite_engine``) and the gRPC server around it."""

import os as _os

# Bots are started with fork+exec while gRPC's threads run; gRPC's fork handlers are not
# needed for that and only print warnings, so they are off unless the user says otherwise.
_os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
