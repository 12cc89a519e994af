"""``spite doctor``: what this machine gives bots -- the sandbox mode and why, whether each
bot gets a uid of its own, the cgroup hierarchy (v1, v2 or hybrid) and the controllers the
resource limits use (or the rlimit fallbacks), and the toolchains found.

Always exits 0: it reports, it does not judge. ``--json`` prints the same as one object.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, TextIO

from referee.sandbox import (
    CONTROLLERS,
    LANGUAGE_LIMITS,
    PRIVATE_SPACE_BYTES,
    cgroup_parents,
    detect,
    uid_range,
    unreachable,
)
from referee.sandbox.cgroups import UNIFIED, hierarchy

TOOLCHAINS: dict[str, tuple[str, ...]] = {
    "python": (sys.executable, "--version"),
    "node": ("node", "--version"),
    "go": ("go", "version"),
    "cargo": ("cargo", "--version"),
    "java": ("java", "-version"),
    "perl": ("perl", "-e", "print $^V"),
}
"""Each toolchain's program and the arguments that make it print its version."""

_FALLBACKS = {
    "pids": "RLIMIT_NPROC (not for root, which it does not bind): a fork bomb is not contained",
    "memory": "RLIMIT_AS (address space; none for Go, the JVM and Node)",
    "cpuacct": "CPU time summed over the bot's processes in /proc at every decision",
    "freezer": "SIGSTOP/SIGCONT to each of the bot's processes",
    "cpu": "none: each process of a bot weighs as much as the referee (forked spinners can starve it)",
}
_USES = {"pids": "processes and threads (pids.max)", "memory": "resident memory (memory.limit_in_bytes)",
         "cpuacct": "CPU time of the whole bot (cpuacct.usage)", "freezer": "pause and resume (freezer.state)",
         "cpu": "the whole bot weighs as one process against the referee (cpu.shares)"}


def report() -> dict[str, Any]:
    """What ``spite doctor`` prints, as plain data."""
    mode = detect()
    parents = cgroup_parents()
    cgroups = {c: {"usable": c in parents, "path": str(parents[c]) if c in parents else None,
                   "for": _USES[c], "fallback": None if c in parents else _FALLBACKS[c]} for c in CONTROLLERS}
    return {"sandbox": {"mode": mode.name, "reason": mode.reason, "bwrap": mode.bwrap or shutil.which("bwrap"),
                        "bwrap_version": mode.bwrap_version},
            "cgroups": cgroups,
            "cgroup_hierarchy": hierarchy(),
            "cgroup_v2": {"usable": UNIFIED in parents, "path": str(parents[UNIFIED]) if UNIFIED in parents else None},
            "identities": _identities(mode.isolated),
            "private_space_mb": PRIVATE_SPACE_BYTES // (1024 * 1024) if mode.isolated else None,
            "limits": {lang or "default": vars(limits) for lang, limits in LANGUAGE_LIMITS.items()},
            "toolchains": {name: _toolchain(argv) for name, argv in TOOLCHAINS.items()},
            "root": os.geteuid() == 0}


def _identities(isolated: bool) -> dict[str, Any]:
    """Whether each bot gets a uid of its own here, and why not."""
    try:
        bounds = uid_range()
    except ValueError as error:
        return {"separate": False, "range": None, "why": str(error)}
    if bounds is None:
        why = "not root: bots run as the organizer's user" if os.geteuid() != 0 else "SPITE_BOT_UIDS=off"
        return {"separate": False, "range": None, "why": why}
    blocked = "" if isolated else unreachable(bounds[0], [Path(sys.executable)])
    if blocked:
        return {"separate": False, "range": list(bounds),
                "why": f"without bubblewrap a bot uid cannot reach {blocked} on the way to this Python"}
    return {"separate": True, "range": list(bounds), "why": "root: each bot runs as a uid of its own"}


def _toolchain(argv: tuple[str, ...]) -> dict[str, Any]:
    path = shutil.which(argv[0])
    if path is None:
        return {"found": False, "path": None, "version": None}
    try:
        done = subprocess.run([path, *argv[1:]], capture_output=True, text=True, timeout=20)
        text = (done.stdout.strip() or done.stderr.strip()).splitlines()
        version = text[0] if text else ""
    except (OSError, subprocess.SubprocessError) as error:
        version = f"(could not run: {error})"
    return {"found": True, "path": path, "version": version}


def print_report(data: dict[str, Any], out: TextIO) -> None:
    """The human-readable form."""
    sandbox = data["sandbox"]
    label = "BUBBLEWRAP (isolated)" if sandbox["mode"] == "bubblewrap" else "INSECURE (bots are NOT isolated)"
    print(f"sandbox     {label}", file=out)
    print(f"            {sandbox['reason']}", file=out)
    print(f"bwrap       {sandbox['bwrap'] or 'not found'}"
          + (f" ({sandbox['bwrap_version']})" if sandbox["bwrap_version"] else ""), file=out)
    identities = data["identities"]
    users = "one uid per bot " + "-".join(map(str, identities["range"])) if identities["separate"] \
        else "the organizer's"
    print(f"bot users   {users}  ({identities['why']})", file=out)
    if data["private_space_mb"]:
        print(f"bot space   HOME and /tmp: private tmpfs of {data['private_space_mb']} MiB each, gone with the match",
              file=out)
    v2 = data["cgroup_v2"]
    print(f"cgroups     hierarchy {data['cgroup_hierarchy']}; v2 group "
          + (f"usable at {v2['path']} (cgroup.kill, cgroup.freeze, cpu.stat)" if v2["usable"] else "not usable"),
          file=out)
    print("cgroups (v1 controllers, or their v2 files in the v2 group)", file=out)
    for name, group in data["cgroups"].items():
        status = f"usable  {group['for']}" if group["usable"] else f"missing -> {group['fallback']}"
        print(f"  {name:<9} {status}", file=out)
    print("default limits per language (a bot.toml [limits] table overrides)", file=out)
    for lang, limits in data["limits"].items():
        print(f"  {lang:<11} " + ", ".join(f"{k}={v}" for k, v in limits.items()), file=out)
    print("toolchains", file=out)
    for name, tool in data["toolchains"].items():
        shown = f"{tool['version']}  ({tool['path']})" if tool["found"] else "not found"
        print(f"  {name:<9} {shown}", file=out)
    if sandbox["mode"] != "bubblewrap":
        print("\nOnly run bots you trust here: install bubblewrap (apt-get install bubblewrap) to isolate them.",
              file=out)


def main(as_json: bool = False, out: TextIO | None = None) -> int:
    """Print the report (text, or JSON with ``as_json``) to ``out`` (stdout); always 0."""
    out = out or sys.stdout
    data = report()
    if as_json:
        json.dump(data, out, indent=2)
        out.write("\n")
    else:
        print_report(data, out)
    return 0
