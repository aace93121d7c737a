"""Every core on the batch: a batch split into row chunks on several threads gives, bit for bit, what one
serial call gives, for every kernel entry the rules core and the encoders run (meeple.envs.threads)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import default_encoder, make, threads

from helpers import game_cases

BATCH = 45  # three uneven chunks of >= 8 rows


@pytest.fixture
def thread_settings():
    """Restore the process-wide settings after a test changes them."""
    saved = (threads.get_num_threads(), threads.min_rows_per_thread(), threads.split_seconds())
    yield
    threads.set_num_threads(*saved)


def _play(name: str, config: dict, num_threads: int, steps: int = 40) -> list[np.ndarray]:
    """Everything a batch of random games produces through the public API, with `num_threads` threads."""
    threads.set_num_threads(num_threads, min_rows_per_thread=8, split_seconds=0.0)  # split every call
    game = make(name, **config)
    encoder = default_encoder(name, game)
    rng = np.random.default_rng(7)
    state = game.init_from_uniforms(rng.random((BATCH, 1)))
    out: list[np.ndarray] = []
    for t in range(steps):
        mask = game.legal_action_mask(state)
        out.append(mask)
        actions = sample_masked(mask, rng)
        state = game.apply(state, actions, rng.random((BATCH, game.uniforms_per_step)))
        if t % 10 == 9:
            seats = state.to_play.astype(np.int64)
            out.append(encoder.encode(game.observe(state, seats)))
            other = game.determinize(state, (seats + 1) % game.num_players, np.random.default_rng(t))
            game.validate(other)
            out.extend(np.asarray(f) for f in other)
            out.append(game.scores(state))
            game.validate(state)
    out.extend(np.asarray(f) for f in state)
    out.append(game.returns(state))
    return out


@pytest.mark.parametrize("case", game_cases())
def test_threaded_batch_equals_serial(case, thread_settings):
    name, config = case
    serial = _play(name, config, 1)
    threaded = _play(name, config, 3)
    assert len(serial) == len(threaded)
    for i, (a, b) in enumerate(zip(serial, threaded)):
        np.testing.assert_array_equal(a, b, err_msg=f"output {i} differs between 1 and 3 threads")


def test_chunks_cover_the_batch_in_order(thread_settings):
    threads.set_num_threads(4, min_rows_per_thread=10)
    for batch in (0, 1, 19, 20, 29, 41, 1000):
        bounds = threads.chunk_bounds(batch)
        assert bounds[0][0] == 0 and bounds[-1][1] == batch
        assert all(hi == lo for (_, hi), (lo, _) in zip(bounds, bounds[1:]))
        assert len(bounds) == max(1, min(4, batch // 10))
        assert all(hi - lo >= 10 for lo, hi in bounds) or len(bounds) == 1


def test_only_calls_that_take_long_enough_are_split(thread_settings):
    threads.set_num_threads(2, min_rows_per_thread=4, split_seconds=1e-3)
    calls: list[str] = []
    cost = threads.RowCost()
    slow = lambda: calls.append("serial") or __import__("time").sleep(2e-3)  # noqa: E731
    cost.run(16, slow, lambda t, lo, hi: calls.append("chunk"))  # timed serially first
    cost.run(16, slow, lambda t, lo, hi: calls.append("chunk"))  # 2 ms > 1 ms: split in two
    assert calls == ["serial", "chunk", "chunk"]
    fast = threads.RowCost()
    calls.clear()
    for _ in range(3):
        fast.run(16, lambda: calls.append("serial"), lambda t, lo, hi: calls.append("chunk"))
    assert calls == ["serial"] * 3


def test_errors_in_a_chunk_reach_the_caller(thread_settings):
    threads.set_num_threads(2, min_rows_per_thread=1)

    def call(chunk: int, lo: int, hi: int) -> None:
        if chunk == 1:
            raise RuntimeError(f"chunk {chunk} rows {lo}..{hi}")

    with pytest.raises(RuntimeError, match="chunk 1 rows 2..4"):
        threads.run_chunks(4, call)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_thread_settings_are_refused(bad, thread_settings):
    with pytest.raises(ValueError, match="positive integer"):
        threads.set_num_threads(bad)
    with pytest.raises(ValueError, match="positive integer"):
        threads.set_num_threads(2, min_rows_per_thread=bad)
    if bad == -1 or isinstance(bad, (bool, str)):  # 0 and 1.5 are valid times
        with pytest.raises(ValueError, match="split_seconds"):
            threads.set_num_threads(2, split_seconds=bad)


@pytest.mark.parametrize("raw, ok", [("1", True), ("3", True), ("0", False), ("x", False), ("-2", False)])
def test_thread_count_from_the_environment(raw, ok):
    code = "from meeple.envs import threads; print(threads.get_num_threads())"
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "MEEPLE_NUM_THREADS": raw},
                          capture_output=True, text=True)
    if ok:
        assert proc.returncode == 0 and proc.stdout.strip() == raw
    else:
        assert proc.returncode != 0 and "MEEPLE_NUM_THREADS must be a positive integer" in proc.stderr


def test_a_forked_child_splits_batches_with_a_pool_of_its_own(thread_settings):
    threads.set_num_threads(2, min_rows_per_thread=1, split_seconds=0.0)
    threads.run_chunks(4, lambda t, lo, hi: None)  # the parent's pool exists now
    pid = os.fork()
    if pid == 0:  # the child: a split call must finish (it would hang on the parent's dead threads)
        seen = []
        threads.run_chunks(4, lambda t, lo, hi: seen.append(t))
        os._exit(0 if sorted(seen) == [0, 1] else 1)
    deadline = time.monotonic() + 60
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("a split call in a forked child never finished")
    assert os.WEXITSTATUS(done[1]) == 0
