"""Which sandbox this machine gives bots, decided once per process, and why."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

BUBBLEWRAP = "bubblewrap"
INSECURE = "insecure"


class SandboxError(RuntimeError):
    """The sandbox could not be set up for a bot (a cgroup write failed, etc.)."""


@dataclass(frozen=True)
class SandboxMode:
    """How this machine isolates bots, and why."""

    name: str
    """``bubblewrap`` or ``insecure``."""
    reason: str
    bwrap: str | None = None
    """The bwrap program, in bubblewrap mode."""
    bwrap_version: str = ""

    @property
    def isolated(self) -> bool:
        return self.name == BUBBLEWRAP


@functools.lru_cache(maxsize=1)
def detect() -> SandboxMode:
    """Decide the mode once per process (``SPITE_SANDBOX=insecure`` forces insecure)."""
    wanted = os.environ.get("SPITE_SANDBOX", "auto").strip().lower()
    bwrap = shutil.which("bwrap")
    version = ""
    if bwrap:
        try:
            version = subprocess.run([bwrap, "--version"], capture_output=True, text=True,
                                     timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            version = ""
    if wanted == INSECURE:
        return SandboxMode(INSECURE, "SPITE_SANDBOX=insecure was set: bots are not isolated", None, version)
    if not sys.platform.startswith("linux"):
        return SandboxMode(INSECURE, f"bubblewrap needs Linux; this is {sys.platform}")
    if bwrap is None:
        return SandboxMode(INSECURE, "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    trial = [bwrap, *NAMESPACES, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]
    try:
        done = subprocess.run(trial, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as error:
        return SandboxMode(INSECURE, f"a trial run of {bwrap} failed: {error}", None, version)
    if done.returncode != 0:
        why = (done.stderr.strip() or f"exit {done.returncode}").splitlines()[-1]
        return SandboxMode(INSECURE, f"a trial run of {bwrap} failed ({why}); user namespaces may be "
                                     "disabled, or this is a container without the rights bwrap needs",
                           None, version)
    return SandboxMode(BUBBLEWRAP, f"{bwrap} works here: private PID, network, IPC and UTS namespaces, "
                                   "a read-only system, no capabilities", bwrap, version)


NAMESPACES = ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL")


FIX_COMMAND = "sudo apt-get install bubblewrap" if shutil.which("apt-get") else "install bubblewrap (the bwrap program)"
"""The one command that gives this machine isolated bots (``make setup`` runs it where it can)."""


def unisolated_warning(mode: SandboxMode) -> str | None:
    """The one prominent line ``spite play`` and ``spite tournament`` print when bots would run
    unisolated here (None when they are isolated)."""
    if mode.isolated:
        return None
    return (f"WARNING: bots run UNISOLATED on this machine ({mode.reason}): a bot can read your files, other "
            f"bots' processes and tokens. Run only bots you trust, or fix it with: {_fix()}")


def untrusted_refusal(mode: SandboxMode) -> str | None:
    """Why a tournament of untrusted entrants (``entrants = "untrusted"``) cannot start here,
    with the command that fixes it (None when bots are isolated)."""
    if mode.isolated:
        return None
    return (f"entrants = \"untrusted\" needs isolated bots, and this machine cannot isolate them ({mode.reason}). "
            f"Fix: {_fix()}   (then `spite doctor` says BUBBLEWRAP)")


def _fix() -> str:
    forced = os.environ.get("SPITE_SANDBOX", "").strip().lower() == INSECURE
    return "unset SPITE_SANDBOX" if forced else FIX_COMMAND
