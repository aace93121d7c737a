"""The generated entry points (`envs/codegen.py`): current, and passed exactly the arguments they name."""

from __future__ import annotations

import inspect

import pytest

from meeple.envs import GAMES, codegen, make, make_encoder, encoder_kinds

# an entry's parameters before its kernel arguments: the arrays each call passes itself
_OWN = {"u", "actions", "mask", "out", "viewer", "seeds", "err", "obs", "scratch", "advance"}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_entries_are_generated_from_the_current_sources(name):
    assert codegen.path_of(name).read_text() == codegen.generate(name), (
        f"{codegen.path_of(name)} is stale: run `python -m meeple.envs.codegen {name}`")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_entry_parameter_is_an_output_a_view_field_or_a_kernel_argument(name):
    """A row function naming something that is neither a configuration value nor a scratch array would get
    nothing passed for it: caught here, not at the first call."""
    game = make(name, **GAMES[name].test_configs[0])
    known = set(game._kernel_arg_names) | _OWN | {f.name for f in game.VIEW_FIELDS}
    encoders = [make_encoder(name, game, kind) for kind in encoder_kinds(name)] or [make_encoder(name, game)]
    known |= {f"enc_{p}" for e in encoders for p in e.row_args(game)}
    for entry, function in vars(game.entries).items():
        if entry.endswith("_nb") and callable(function):
            params = inspect.signature(getattr(function, "py_func", function)).parameters
            unknown = [p for p, v in params.items() if v.kind is not v.VAR_POSITIONAL and p not in known]
            assert not unknown, f"{name}: {entry} takes {unknown}"


def test_the_generator_is_not_a_kernel_source():
    """Editing the generator recompiles nothing by itself (its output files are the kernel sources)."""
    from meeple.envs.numba_hooks import kernel_source_files

    assert codegen.PACKAGE_ROOT / "envs" / "codegen.py" not in kernel_source_files()
