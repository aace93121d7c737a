"""The helpers the trainers share: `meeple.agents.net.minibatch_epochs` (the loop of `fit` and `fit_advantages`),
`meeple.cli.trainers` (argument checks, the run folder, the command line's exit codes) and
`StopRequest.interruptible` (the last evaluation)."""

from __future__ import annotations

import math
import signal
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the train extra

from meeple.agents.io import ArgsError  # noqa: E402
from meeple.agents.net import minibatch_epochs  # noqa: E402
from meeple.cli.trainers import check_hidden, check_seed, check_time_limit, make_run_folder, run_trainer  # noqa: E402


def test_minibatch_epochs_steps_every_minibatch_and_returns_the_last_epochs_means():
    torch.manual_seed(0)
    net, x = torch.nn.Linear(3, 1), torch.randn(10, 3)
    seen, steps = [], []

    def loss_of(idx: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        seen.append(idx.tolist())
        err = ((net(x[idx]) - 1.0) ** 2).mean()
        return 2 * err, {"err": float(err.detach()), "one": 1.0}

    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    stats = minibatch_epochs(net, optimizer, 10, 2, 4, np.random.default_rng(0), loss_of, ("err", "one"), 1.0,
                             on_batch=lambda: steps.append(net.training))
    assert list(stats) == ["err", "one", "loss"]
    assert steps == [True] * 6 and not net.training  # 3 minibatches (4, 4, 2 rows) per epoch; eval mode after
    assert [len(idx) for idx in seen] == [4, 4, 2] * 2
    for epoch in (seen[:3], seen[3:]):
        assert sorted(sum(epoch, [])) == list(range(10))
    assert stats["one"] == 1.0 and stats["loss"] == pytest.approx(2 * stats["err"])

    untouched = minibatch_epochs(net, optimizer, 10, 0, 4, np.random.default_rng(0), loss_of, ("err",), 1.0,
                                 initial=float("nan"))
    assert list(untouched) == ["err", "loss"] and all(math.isnan(v) for v in untouched.values())

    def stop() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        minibatch_epochs(net, optimizer, 10, 1, 4, np.random.default_rng(0), loss_of, ("err",), 1.0, on_batch=stop)
    assert not net.training


def test_trainer_checks_and_run_folder(tmp_path):
    check_seed(SimpleNamespace(seed=2**32 - 1))
    with pytest.raises(ArgsError, match=r"--seed must be in \[0, 2\*\*32\), got -1"):
        check_seed(SimpleNamespace(seed=-1))
    check_time_limit(SimpleNamespace(time_limit_minutes=0.0))
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ArgsError, match="--time-limit-minutes"):
            check_time_limit(SimpleNamespace(time_limit_minutes=bad))
    check_hidden(SimpleNamespace(hidden=(1,)))
    for bad, shown in (((), "nothing"), ((4, 0), "4 0")):
        with pytest.raises(ArgsError, match=f"got {shown}$"):
            check_hidden(SimpleNamespace(hidden=bad))

    args = SimpleNamespace(exp_name="", game="hadara", num_players=3, seed=7, run_dir=str(tmp_path / "runs"))
    run = make_run_folder(args, "exit_")
    assert run.is_dir() and run == tmp_path / "runs" / args.run_name and args.run_name.startswith("exit_hadara_3p_s7_")
    args.exp_name = "named"
    assert make_run_folder(args) == tmp_path / "runs" / "named" and args.run_name == "named"
    assert make_run_folder(args).is_dir()  # an existing folder is fine


@dataclass
class _Args:
    fail: str = ""
    """how main fails: args, interrupt, or not at all"""


def _main(args: _Args) -> None:
    if args.fail == "args":
        raise ArgsError("--fail was asked to")
    if args.fail == "interrupt":
        raise KeyboardInterrupt("sigterm: stopped at once")


def test_run_trainer_exit_codes(capsys):
    assert run_trainer(_Args, _main, [], "prog", "kept") == 0
    assert run_trainer(_Args, _main, ["--fail", "args"], "prog", "kept") == 2
    assert capsys.readouterr().err == "error: --fail was asked to\n"
    assert run_trainer(_Args, _main, ["--fail", "interrupt"], "prog", "the files are as they were") == 130
    assert capsys.readouterr().err == "sigterm: stopped at once; the files are as they were\n"


def test_a_signal_stops_an_interruptible_step_at_once_and_what_follows_still_runs():
    from meeple.cli.train import StopRequest

    stop, seen = StopRequest(), []
    stop.immediate = False

    def work() -> None:
        seen.append(stop.immediate)
        stop.handler(signal.SIGINT, None)  # raises Interrupted: the step is stopped at once
        seen.append("not reached")

    stop.interruptible(work)
    assert seen == [True] and stop.reason == "interrupt" and stop.immediate is False
