"""What environment each process of a bot's launch starts with, and which variables a manifest may set.

A bot is started through a chain of processes, some of which run as the organizer (root on a
hosted machine) outside the sandbox: the supervisor (``python -I -S supervisor.py``), then
``bwrap``, then inside the sandbox the supervisor again, which becomes the bot's uid. Every one
of them loads shared objects and reads variables before it runs a line of its own, so none of
them may start with a bot's environment: ``LD_PRELOAD = "./evil.so"`` in a manifest's ``[env]``
would run the entrant's code as root on the host.

So every process of the chain starts with :data:`LAUNCH_ENVIRONMENT` (fixed, the same on every
machine), and the bot's environment travels in a pipe (:func:`encode`) to the
last supervisor, which applies it with ``execve`` only after it has become the bot's uid (inside
the sandbox under bubblewrap). On top of that, :func:`refused` names the variables a manifest may
not set at all (:data:`LOADER`, :data:`INTERPRETER`, :data:`PLATFORM`): the dynamic loader's and
the interpreters' start-up hooks would change how the platform's own code that runs in the bot's
process behaves (the Python SDK from the organizer's checkout, the supervisor), and the platform's
own variables are the referee's to set. A bot that needs one sets it in its own program.
"""

from __future__ import annotations

import re
from typing import Mapping

LAUNCH_ENVIRONMENT: Mapping[str, str] = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                                         "LANG": "C.UTF-8"}
"""The whole environment of the supervisor and of bubblewrap, whoever starts them."""

LOADER = ("LD_*", "GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH",
          "MALLOC_*", "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR")
"""The dynamic loader's and the C library's (glibc's list of variables it drops for set-uid
programs, ``LD_*`` and ``MALLOC_*`` whole)."""

INTERPRETER = ("PYTHON*", "PERL5*", "PERLLIB", "PERLIO", "NODE_OPTIONS", "NODE_PATH", "JAVA_TOOL_OPTIONS",
               "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "RUBYOPT", "RUBYLIB", "BASH_ENV", "ENV",
               "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "DOTNET_STARTUP_HOOKS")
"""Interpreters' and shells' start-up code and module paths."""

PLATFORM = ("HOME", "SPITE_ADDRESS", "SPITE_TOKEN", "SPITE_TOKEN_FILE", "SPITE_STDIO", "SPITE_BOT_SEED",
            "SPITE_CONNECT_TIMEOUT", "SPITE_ARENA", "SPITE_BOT_KEY", "SPITE_ARENA_CAPACITY")
"""Set by the referee for each seat (docs/protocol.md)."""

MAX_VARIABLES = 64
MAX_VALUE_CHARS = 4096
MAX_TOTAL_BYTES = 32 * 1024
"""A manifest's ``[env]``: at most this many variables, this long each, this many bytes in all."""

PIPE_BYTES = 60 * 1024
"""The most a bot's whole environment may take in the pipe that carries it (a pipe holds 64 KiB
before a writer blocks, and the launcher writes it before the bot starts)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in patterns)


def refused(name: str) -> str:
    """Why a manifest's ``[env]`` may not set ``name`` ("" if it may)."""
    if not _NAME.match(name):
        return "not a variable name (letters, digits and _, not starting with a digit)"
    if _matches(name, LOADER):
        return "the dynamic loader's"
    if _matches(name, INTERPRETER):
        return "an interpreter's start-up hook"
    if name in PLATFORM:
        return "set by the referee for each seat"
    return ""


def check_manifest_env(env: Mapping[str, object]) -> str:
    """The first problem with a manifest's ``[env]`` table, as one sentence ("" if none)."""
    if len(env) > MAX_VARIABLES:
        return f"field 'env' has {len(env)} variables; at most {MAX_VARIABLES}"
    total = 0
    for name, value in env.items():
        if not isinstance(value, str):
            return f"field 'env': {name[:64]!r} must be a string"
        if not _NAME.match(name):
            return (f"field 'env': {name[:64]!r} is not a variable name "
                    "(letters, digits and _, not starting with a digit)")
        why = refused(name)
        if why:
            return (f"field 'env': {name[:64]!r} is {why}; a manifest may not set the loader's, interpreters' "
                    f"start-up or the referee's variables (docs/security.md, 'Environment'): set it in your "
                    f"program if it needs it")
        if "\0" in value or len(value) > MAX_VALUE_CHARS:
            return f"field 'env': {name!r} must be at most {MAX_VALUE_CHARS} characters, without NUL"
        total += len(name.encode()) + len(value.encode()) + 2
    if total > MAX_TOTAL_BYTES:
        return f"field 'env' takes {total} bytes; at most {MAX_TOTAL_BYTES}"
    return ""


def encode(env: Mapping[str, str]) -> bytes:
    """``env`` as the supervisor reads it from its ``--env-fd``: ``NAME=VALUE`` entries, each
    ended by a NUL (as in ``/proc/PID/environ``)."""
    data = b"".join(f"{name}={value}".encode() + b"\0" for name, value in env.items())
    if len(data) > PIPE_BYTES:
        raise ValueError(f"the bot's environment takes {len(data)} bytes; at most {PIPE_BYTES}")
    return data


__all__ = ["INTERPRETER", "LAUNCH_ENVIRONMENT", "LOADER", "MAX_TOTAL_BYTES", "MAX_VALUE_CHARS", "MAX_VARIABLES",
           "PLATFORM", "check_manifest_env", "encode", "refused"]
