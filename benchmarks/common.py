"""What every benchmark shares: the line naming the machine, and the corpora paths."""

from __future__ import annotations

import os
import platform
from importlib.metadata import version
from pathlib import Path

import numpy as np

__all__ = ["ROOT", "SHARED", "load_average", "machine", "peak_rss_mb"]

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def machine() -> str:
    """The machine a run measured: processor model, cores, Python, python-sat, numpy."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = f"{model} ({line.split(':', 1)[1].strip()})"
                break
    except OSError:
        pass
    return (
        f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"python-sat {version('python-sat')}, ortools {version('ortools')}, numpy {np.__version__}"
    )


def load_average() -> str:
    """The 1-minute load average, to judge how busy the machine was during a run."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
