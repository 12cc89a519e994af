"""What the sandbox costs per decision: ``BotProcess.cpu_seconds()``, ``pause()`` and
``resume()``, which the referee calls at every decision (CPU time per decision, frozen
thinking), timed over a sleeping bot in each way this machine can run one.

    python bench/sandbox_cost.py [--calls N]

Rows: with the per-bot cgroups (cpuacct, freezer) under bubblewrap; without cgroups
(the /proc scan and SIGSTOP/SIGCONT fallbacks) under bubblewrap; and without either.
Figures in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
import time
from pathlib import Path

import referee.sandbox as sandbox
from referee.processes.launcher import BotProcess
from referee.sandbox import Isolation


async def cost(calls: int, isolated: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="spite-bench-") as scratch:
        home = Path(scratch)
        bot = BotProcess("cost", [sys.executable, "-c", "import time; time.sleep(120)"], home,
                         BotProcess.clean_env({"HOME": scratch}), None, language="python",
                         isolation=Isolation(home=home) if isolated else None)
        await bot.start()
        await asyncio.sleep(0.5)  # started and asleep
        out = {}
        for name, call in (("cpu_seconds", bot.cpu_seconds), ("pause", bot.pause), ("resume", bot.resume)):
            started = time.perf_counter()
            for _ in range(calls):
                call()
            out[name] = (time.perf_counter() - started) / calls * 1e6
        bot.resume()
        await bot.stop(grace=0)
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    mode = sandbox.detect()
    print(f"{platform.node()} · {platform.processor() or platform.machine()} · Python {platform.python_version()} · "
          f"sandbox {mode.name} · cgroups {sorted(sandbox.cgroup_parents()) or 'none'} · {args.calls} calls each")
    rows = []
    if mode.bwrap is not None:
        rows.append(("cgroups + bubblewrap", True, None))
    rows.append(("no cgroups" + (" + bubblewrap" if mode.bwrap else ""), mode.bwrap is not None, {}))
    print(f"{'':24} {'cpu_seconds us':>15} {'pause us':>10} {'resume us':>10}")
    for label, isolated, parents in rows:
        if parents is not None:
            sandbox.cgroups.cgroup_parents = lambda: parents  # type: ignore[assignment]  # the fallbacks alone
        result = asyncio.run(cost(args.calls, isolated))
        print(f"{label:24} {result['cpu_seconds']:15.1f} {result['pause']:10.1f} {result['resume']:10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
