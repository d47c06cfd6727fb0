"""Side-by-side benchmark: our package against the published openhands-ai 0.59.0.

``make bench-compare`` runs this with our venv's Python (standard library only here). It

1. finds a Python 3.12 and installs ``openhands-ai==0.59.0`` from PyPI into its own venv,
   ``.bench/compare/venv-ref``, pinned by ``constraints-0.59.txt`` (skipped while the venv
   matches the constraints file);
2. runs every workload script of this folder under both interpreters, ours and the
   reference, alternately for ``--rounds`` rounds (at least 3; who goes first alternates
   from round to round). Both packages have the same import paths, so one script serves
   both. Each run gets a fresh directory under ``~/.cache/openhands-bench/compare`` (not
   ``/tmp``: see bench/event_stream.py on recently freed inodes), a time limit, and its own
   process group; all directories are deleted at the end, not between runs, so no run
   pays for another's deletions;
3. prints a markdown table: per metric the median over the rounds of each side and the
   ratio ours / reference. A workload that fails on one side shows its error in that
   side's cell and the run goes on.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from glob import glob
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OURS = REPO / ".venv" / "bin" / "python"
REF_VENV = REPO / ".bench" / "compare" / "venv-ref"
REF = REF_VENV / "bin" / "python"
CONSTRAINTS = HERE / "constraints-0.59.txt"
REFERENCE_REQUIREMENT = "openhands-ai==0.59.0"
WORK_ROOT = Path(os.environ.get("OH_BENCH_DIR") or Path.home() / ".cache" / "openhands-bench")
WORK_ROOT = WORK_ROOT / "compare"
MIN_ROUNDS = 3
# Settings of either implementation that must not leak from the caller's environment.
LEAKY_PREFIXES = ("LLM_", "AGENT_", "SANDBOX_")
LEAKY_NAMES = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "RUNTIME", "FILE_STORE"}
LEAKY_NAMES |= {"FILE_STORE_PATH", "WORKSPACE_BASE", "SESSION_API_KEY", "JWT_SECRET"}


@dataclass(frozen=True)
class Workload:
    title: str
    script: str
    timeout_s: float
    # metric key -> (label, True when higher is better)
    metrics: dict[str, tuple[str, bool]]


WORKLOADS = [
    Workload(
        "event stream",
        "workload_event_stream.py",
        300,
        {
            "add_events_per_s": ("add_event, 5,000 events, events/s", True),
            "callback_p50_ms": ("add → callback p50, ms", False),
            "callback_p99_ms": ("add → callback p99, ms", False),
            "paced_callback_p50_ms": ("paced add → callback p50, ms", False),
            "paced_callback_p99_ms": ("paced add → callback p99, ms", False),
            "reopen_20k_ms": ("reopen 20,000-event stream, ms", False),
            "iterate_20k_ms": ("iterate 20,000 events, ms", False),
            "search_20k_ms": ("text search over 20,000, ms", False),
            "reverse_limit20_1k_ms": ("reverse, limit 20 at 1,000, ms", False),
            "reverse_limit20_20k_ms": ("reverse, limit 20 at 20,000, ms", False),
        },
    ),
    Workload(
        "server",
        "workload_server.py",
        420,
        {
            "cold_start_s": ("cold start → /alive, s", False),
            "idle_rss_mb": ("idle RSS, MB", False),
            "models_first_ms": ("first GET /api/options/models, ms", False),
            "models_p50_ms": ("steady GET /api/options/models p50, ms", False),
            "models_p99_ms": ("steady GET /api/options/models p99, ms", False),
            "list_200_p50_ms": ("GET /api/conversations, 200 stored, p50 ms", False),
            "list_2000_p50_ms": ("GET /api/conversations, 2,000 stored, p50 ms", False),
            "replay_1k_first_event_ms": ("Socket.IO replay of 1,000: first event, ms", False),
            "replay_1k_last_event_ms": ("Socket.IO replay of 1,000: last event, ms", False),
        },
    ),
    Workload(
        "agent",
        "workload_agent.py",
        300,
        {
            "step_mean_ms": ("step, instant scripted LLM, mean ms", False),
            "step_p50_ms": ("step, instant scripted LLM, p50 ms", False),
            "steps_per_s": ("steps/s", True),
            "run_100_steps_s": ("run_controller, 100 steps incl. set-up, s", False),
        },
    ),
    Workload(
        "imports",
        "workload_imports.py",
        420,
        {
            "import_event_stream_s": ("import openhands.events.stream, s", False),
            "import_server_s": ("import openhands.server.listen, s", False),
            "import_core_main_s": ("import openhands.core.main, s", False),
        },
    ),
    Workload(
        "install size",
        "workload_size.py",
        120,
        {
            "package_mb": ("openhands package, MB", False),
            "dependencies_mb": ("runtime dependencies, MB", False),
            "dependency_count": ("runtime dependencies, count", False),
        },
    ),
]


@dataclass
class Results:
    """Per workload and side: the metric samples and the errors of failed runs."""

    samples: dict[tuple[str, str], dict[str, list[float]]] = field(default_factory=dict)
    errors: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def add(self, workload: str, side: str, metrics: dict[str, float]) -> None:
        bucket = self.samples.setdefault((workload, side), {})
        for key, value in metrics.items():
            bucket.setdefault(key, []).append(value)

    def fail(self, workload: str, side: str, error: str) -> None:
        self.errors.setdefault((workload, side), []).append(error)


# --- the reference install -----------------------------------------------------------------


def _python_version(python: str) -> tuple[int, int] | None:
    try:
        done = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    major, minor = done.stdout.split()
    return int(major), int(minor)


def find_python312(uv: str) -> str:
    candidates: list[str] = []
    found = subprocess.run([uv, "python", "find", "3.12"], capture_output=True, text=True)
    if found.returncode == 0 and found.stdout.strip():
        candidates.append(found.stdout.strip())
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    candidates += sorted(glob(f"{pyenv_root}/versions/3.12*/bin/python3.12"), reverse=True)
    candidates += [p for p in (shutil.which("python3.12"),) if p]
    candidates += ["/usr/local/bin/python3.12", "/usr/bin/python3.12"]
    for candidate in candidates:
        if _python_version(candidate) == (3, 12):
            return candidate
    raise SystemExit(
        "bench-compare: no Python 3.12 found (tried `uv python find 3.12`, pyenv's versions, "
        "python3.12 on PATH, /usr/local/bin and /usr/bin). openhands-ai 0.59.0 needs 3.12: "
        "install one (e.g. `pyenv install 3.12`, or `uv python install 3.12` where uv can "
        "download it) and run `make bench-compare` again."
    )


def find_uv() -> str:
    for candidate in (shutil.which("uv"), str(Path.home() / ".local" / "bin" / "uv")):
        if candidate and Path(candidate).exists():
            return candidate
    raise SystemExit("bench-compare: uv not found (`make deps` installs it)")


def ensure_reference() -> str:
    """The reference venv's Python; installs it unless it matches the constraints file."""
    stamp = hashlib.sha256(
        (REFERENCE_REQUIREMENT + "\n").encode() + CONSTRAINTS.read_bytes()
    ).hexdigest()
    marker = REF_VENV / ".bench-installed"
    if marker.exists() and marker.read_text().strip() == stamp and REF.exists():
        print(f"reference venv up to date: {REF_VENV.relative_to(REPO)}")
        return str(REF)
    uv = find_uv()
    python = find_python312(uv)
    print(f"installing {REFERENCE_REQUIREMENT} with {python} into {REF_VENV.relative_to(REPO)}")
    started = time.perf_counter()
    shutil.rmtree(REF_VENV, ignore_errors=True)
    subprocess.run([uv, "venv", "--quiet", "--python", python, str(REF_VENV)], check=True)
    install = [uv, "pip", "install", "--quiet", "--python", str(REF), "--compile-bytecode"]
    install += [REFERENCE_REQUIREMENT, "-c", str(CONSTRAINTS)]
    subprocess.run(install, check=True)
    marker.write_text(stamp + "\n")
    print(f"  installed in {time.perf_counter() - started:.0f} s")
    return str(REF)


# --- running the workloads -----------------------------------------------------------------


def _environment(workdir: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in LEAKY_NAMES and not key.startswith(LEAKY_PREFIXES)
    }
    env["OH_COMPARE_WORKDIR"] = str(workdir)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def run_one(python: str, workload: Workload, workdir: Path) -> dict[str, float]:
    """One run of one workload; its metrics, or RuntimeError with a one-line reason."""
    log = workdir / "workload.log"
    with open(log, "wb") as err:
        process = subprocess.Popen(
            [python, "-W", "ignore", str(HERE / workload.script)],
            cwd=workdir,
            env=_environment(workdir),
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,
        )
        try:
            out, _ = process.communicate(timeout=workload.timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise RuntimeError(f"timed out after {workload.timeout_s:.0f} s") from None
        finally:
            try:  # whatever the workload left in its group (servers, runtimes)
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    lines = [line for line in out.decode(errors="replace").splitlines() if line.startswith("{")]
    if process.returncode == 0 and lines:
        return {k: float(v) for k, v in json.loads(lines[-1]).items()}
    tail = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    reason = tail[-1] if tail else f"exit code {process.returncode}, no output"
    raise RuntimeError(reason[:160])


def run_all(sides: dict[str, str], workloads: list[Workload], rounds: int) -> Results:
    results = Results()
    WORK_ROOT.mkdir(parents=True, exist_ok=True)
    workdirs: list[Path] = []
    try:
        for round_index in range(rounds):
            order = list(sides) if round_index % 2 == 0 else list(reversed(sides))
            for workload in workloads:
                timings = []
                for side in order:
                    workdir = Path(
                        tempfile.mkdtemp(
                            prefix=f"{workload.script[9:-3]}-{side}-r{round_index}-", dir=WORK_ROOT
                        )
                    )
                    workdirs.append(workdir)
                    started = time.perf_counter()
                    try:
                        results.add(workload.title, side, run_one(sides[side], workload, workdir))
                        status = "ok"
                    except RuntimeError as error:
                        results.fail(workload.title, side, str(error))
                        status = f"FAILED: {error}"
                    timings.append(f"{side} {time.perf_counter() - started:.0f} s {status}")
                print(
                    f"  round {round_index + 1}/{rounds} {workload.title:<13} {'; '.join(timings)}",
                    flush=True,
                )
    finally:
        for workdir in workdirs:
            shutil.rmtree(workdir, ignore_errors=True)
    return results


# --- the table -------------------------------------------------------------------------------


def _number(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}" if value < 1 else f"{value:.2f}"


def _cell(results: Results, workload: str, side: str, key: str) -> tuple[str, float | None]:
    samples = results.samples.get((workload, side), {}).get(key, [])
    if samples:
        median = statistics.median(samples)
        failed = len(results.errors.get((workload, side), []))
        note = f" ({len(samples)} of {len(samples) + failed} runs)" if failed else ""
        return _number(median) + note, median
    errors = results.errors.get((workload, side))
    return (f"error: {errors[-1]}" if errors else "missing"), None


def table(results: Results, workloads: list[Workload]) -> str:
    rows = [
        "| workload | metric | better | ours (median) | reference (median) | ours / reference |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for workload in workloads:
        for key, (label, higher_better) in workload.metrics.items():
            ours, ours_value = _cell(results, workload.title, "ours", key)
            ref, ref_value = _cell(results, workload.title, "reference", key)
            ratio = "n/a"
            if ours_value is not None and ref_value:
                ratio = f"{ours_value / ref_value:.2f}"
            better = "higher" if higher_better else "lower"
            rows.append(f"| {workload.title} | {label} | {better} | {ours} | {ref} | {ratio} |")
    return "\n".join(rows)


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=MIN_ROUNDS)
    parser.add_argument(
        "--only", action="append", help="run only this workload (title); may repeat"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    load_before = _load()
    if not OURS.exists():
        raise SystemExit("bench-compare: .venv is missing (run `make deps`)")
    sides = {"ours": str(OURS), "reference": ensure_reference()}
    workloads = [w for w in WORKLOADS if not args.only or w.title in args.only]
    versions = {
        side: subprocess.run(
            [python, "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        for side, python in sides.items()
    }
    print(
        f"running {len(workloads)} workloads × {args.rounds} rounds, alternating sides "
        f"(ours: Python {versions['ours']}, reference: Python {versions['reference']}); "
        f"load average {load_before}",
        flush=True,
    )
    results = run_all(sides, workloads, max(1, args.rounds))
    rendered = table(results, workloads)
    summary = (
        f"\n{rendered}\n\nMedians over {args.rounds} rounds on {os.cpu_count()} CPUs; ours on "
        f"Python {versions['ours']}, {REFERENCE_REQUIREMENT} on Python {versions['reference']}.\n"
        f"Ratio < 1 means ours is smaller (faster, lighter) — better except where 'better' "
        f"says higher.\nLoad average: {load_before} at the start, {_load()} at the end. "
        f"Total {time.perf_counter() - started:.0f} s."
    )
    print(summary)
    (REF_VENV.parent / "last-table.md").write_text(summary.lstrip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
