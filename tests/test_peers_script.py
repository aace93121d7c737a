"""benchmarks/peers.py's paired bursts: the worker protocol, the quartiles and the argument checks.

The peers themselves (OpenSpiel, pgx) live in a separate virtual environment that CI does not build, so the
burst protocol is exercised with a stand-in worker that speaks it; the real workers are run by the script.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

PEERS = Path(__file__).resolve().parents[1] / "benchmarks" / "peers.py"


@pytest.fixture(scope="module")
def peers():
    spec = importlib.util.spec_from_file_location("meeple_bench_peers", PEERS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    compile_mode = os.environ.get("MEEPLE_COMPILE")  # the script sets a default for its own process
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)
        if compile_mode is None:
            os.environ.pop("MEEPLE_COMPILE", None)
        else:
            os.environ["MEEPLE_COMPILE"] = compile_mode


# answers each burst with a fixed rate: 1,000 steps per (requested) second
FAKE_WORKER = r"""
import json, sys
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    seconds = float(line)
    print(json.dumps({"steps": int(1000 * seconds), "seconds": seconds}), flush=True)
"""


def test_burst_server_protocol(peers):
    server = peers.BurstServer([sys.executable, "-c", FAKE_WORKER])
    try:
        assert server.rate(0.25) == pytest.approx(1000.0)
        assert server.rate(2.0) == pytest.approx(1000.0)
    finally:
        server.close()
    assert server.proc.returncode == 0


def test_burst_server_reports_a_failing_worker(peers):
    with pytest.raises(RuntimeError, match="no such peer"):
        peers.BurstServer([sys.executable, "-c", "raise SystemExit('no such peer')"])


@pytest.mark.parametrize("values", [[1.0], [3.0, 1.0], [0.9, 1.2, 1.1, 1.05, 1.3, 0.95, 1.0, 1.15]])
def test_quartiles_match_numpy(peers, values):
    assert peers.quartiles(values) == pytest.approx(tuple(np.quantile(values, [0.25, 0.5, 0.75])))


@pytest.mark.parametrize("change, message", [({"pairs": -1}, "--pairs"), ({"burst": 0.0}, "--burst"),
                                             ({"burst": float("nan")}, "--burst")])
def test_bad_pairing_arguments_are_refused(peers, change, message, tmp_path):
    args = replace(peers.Args(), peers=(), peers_venv=str(tmp_path), **change)
    with pytest.raises(SystemExit, match=message):
        peers.validate(args)


def test_paired_median_is_judged_against_the_target(peers):
    meeple = {"hadara": {"available": True, "aec": 50_000.0, "core": 1.0e6, "core+encode": 5.0e5}}
    peer_rows = {"openspiel": {"peer": "openspiel", "available": True, "steps_per_s": 60_000.0}}
    paired = {"hadara": {"available": True, "ratio_median": 1.05}}
    targets = peers.compare(meeple, peer_rows, paired)["games"]["hadara"]["targets"]
    assert targets["aec >= 1x openspiel"] is False  # the single-run ratio, 0.83
    assert targets["aec >= 1x openspiel, paired median"] is True
    assert "aec >= 1x openspiel, paired median" not in peers.compare(meeple, peer_rows)["games"]["hadara"]["targets"]
