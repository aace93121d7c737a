"""The batch entry points of every game, generated from its field table and its row functions.

A game writes what one row of its batch does, as numba kernels in `envs/<game>/kernels.py` named the same
in every game, and its consistency rules as named invariants in `envs/<game>/invariants.py`; its encoders
write one observation row each. This module writes the rest once, for every game, into
`envs/<game>/entries.py`: the loops over the batch, the rebuilding of the State and View from their fields
(in the field table's order, so no file lists fields by hand), the done-row conventions and the fused
one-row AEC step. The files are generated source rather than closures built at import time because numba
caches compiled code per source file (`python -m meeple.envs.codegen` rewrites them;
`tests/test_codegen.py` fails when one is stale).

Row functions (leading parameters fixed; any further parameter is one of the game's kernel arguments, by
name: its configuration values, `kernel_config()`, and scratch arrays, `SCRATCH`):

    init_row(s, b, u, ...)                 fill row b of an empty state from the uniforms u
    apply_row(s, b, a, u, ...)             apply legal action a to live row b, then its automatic steps
    advance_row(s, b, u, ...)              recompute derived fields, then the automatic steps (any row)
    fill_mask(s, b, row, ...)              set the legal actions of live row b in row (cleared before)
    score_of(s, b, p, ...)                 seat p's score in row b
    observe_row(s, b, me, <view outputs>, ...)   optional: the View fields seat `me` may see
    determinize_row(s, b, me, seed, ...)   optional: resample what `me` has not seen
    apply_mask_row(s, b, a, u, mask, ...)  optional: apply and the new mask of row b in one pass
    prefetch(s, b)                         optional: start loading row b (large rows)

An invariant is `name(s, b, ...) -> bool` (True when it holds), listed in order in the game's
`invariants.INVARIANTS` as `Invariant(function, message)`; an encoder's row function is
`<row>(v, b, row, ...)` writing one zeroed row, its further parameters the encoder's own arguments.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
DECORATOR = "@" "kernel"  # (split so that this file is not itself a kernel source: numba_hooks.kernel_source_files)

# role -> (leading parameters of the row function, whether the game must define it)
ROW_FUNCTIONS = {
    "init_row": (("s", "b", "u"), True),
    "apply_row": (("s", "b", "a", "u"), True),
    "advance_row": (("s", "b", "u"), True),
    "fill_mask": (("s", "b", "row"), True),
    "score_of": (("s", "b", "p"), True),
    "observe_row": (("s", "b", "me"), False),
    "determinize_row": (("s", "b", "me", "seed"), False),
    "apply_mask_row": (("s", "b", "a", "u", "mask"), False),
    "prefetch": (("s", "b"), False),
}


# Row functions the generated loops inline (`jit.inline_copy`: typed once, inlined by LLVM into each loop): a
# kernel call passes the State as every field's array struct, a few hundred machine words, which cost more than
# a cheap row's work (a legal-action mask: ~140 ns a row in the call against ~30 in the work, measured on Roll
# Through the Ages at B = 256). The heavier rows (init, advance, encode, and Attika's one-pass apply_mask_row)
# stay calls: an inlined body is optimized again in every entry using it. Measured in CPU seconds of a cold
# compile, when numba inlined (and typed) the bodies itself: the encoders' rows inlined made core + observation
# 1.03-1.19x faster but the compile of all five games 1.41x longer; Attika's apply_mask_row inlined into its two
# entries cost its "play" part 305 s against 234 s as a call.
INLINED = ("apply_row", "fill_mask", "observe_row", "score_of")


def _params(function: Any) -> list[str]:
    return list(inspect.signature(getattr(function, "py_func", function)).parameters)


class _Game:
    """What the generator reads of one game."""

    def __init__(self, name: str) -> None:
        from meeple.envs import GAMES

        entry = GAMES[name]
        module, cls = entry.rules.split(":")
        self.name = name
        self.rules = getattr(importlib.import_module(module), cls)
        self.kernels = self.rules.kernels
        self.package = self.kernels.__name__.rsplit(".", 1)[0]
        self.arg_order: list[str] = []  # every kernel argument a row function takes, first use first
        self.view_outputs = [f.name for f in self.rules.VIEW_FIELDS]
        fields = [f.name for f in self.rules.FIELDS]
        view = self.rules.CLASSES.View._fields
        self.view_from_state = ["viewer" if src == 0 else f"s.{fields[i]}" if src == 1 else self.view_outputs[i]
                                for (src, i), _ in zip(self.rules.CLASSES.view_sources, view)]
        self.rows: dict[str, list[str]] = {}  # role -> its further (argument) parameters
        for role, (lead, required) in ROW_FUNCTIONS.items():
            function = getattr(self.kernels, role, None)
            if function is None:
                if required:
                    raise TypeError(f"{self.kernels.__name__} has no row function {role}{lead}")
                continue
            params = _params(function)
            if tuple(params[:len(lead)]) != lead:
                raise TypeError(f"{self.kernels.__name__}.{role} must start with {lead}, has {params}")
            extra = params[len(lead):]
            if role == "observe_row":
                missing = [n for n in self.view_outputs if n not in extra]
                if missing:
                    raise TypeError(f"{self.kernels.__name__}.observe_row lacks the view outputs {missing}")
                extra = [n for n in extra if n not in self.view_outputs]
            self._note_args(extra)
            self.rows[role] = extra
        try:
            invariants = importlib.import_module(f"{self.package}.invariants")
        except ModuleNotFoundError:
            invariants = None
        self.invariants: list[tuple[str, list[str]]] = []
        if invariants is not None:
            for inv in invariants.INVARIANTS:
                params = _params(inv.function)
                if params[:2] != ["s", "b"]:
                    raise TypeError(f"invariant {inv.name} must start with (s, b), has {params}")
                self._note_args(params[2:])
                self.invariants.append((inv.name, params[2:]))
        encoders = importlib.import_module(entry.encoder)
        kinds = getattr(encoders, "ENCODERS", None) or {"default": encoders.DEFAULT}
        self.encoder_module = encoders.__name__
        self.encoders: list[tuple[str, str, list[str]]] = []  # (kind, row function, its arguments)
        for kind, encoder in kinds.items():
            row = getattr(encoders, encoder.row)
            params = _params(row)
            if params[:3] != ["v", "b", "row"]:
                raise TypeError(f"{encoders.__name__}.{encoder.row} must start with (v, b, row), has {params}")
            self.encoders.append((kind, encoder.row, params[3:]))

    def _note_args(self, names: list[str]) -> None:
        self.arg_order += [n for n in names if n not in self.arg_order]

    def union(self, *groups: list[str]) -> list[str]:
        """The kernel arguments of several row functions (an entry's parameters), in one fixed order."""
        names = {n for group in groups for n in group}
        return [n for n in self.arg_order if n in names]


def _signature(name: str, *params: str, cold: bool = False) -> str:
    return f"{DECORATOR}{'(cold=True)' if cold else ''}\ndef {name}({', '.join([*params, '*fields'])}):"


def _call(function: str, *args: str) -> str:
    return f"{function}({', '.join(args)})"


def generate(name: str) -> str:
    """The source of `envs/<name>/entries.py`."""
    g = _Game(name)
    r = g.rows
    out: list[str] = []
    emit = out.append
    emit(f'"""The batch entry points of {g.rules.__name__}: generated by `python -m meeple.envs.codegen` from its field '
         f'table\n(state.py), its row functions (kernels.py){", its invariants (invariants.py)" if g.invariants else ""} '
         f'and its encoders. Do not edit: tests/test_codegen.py\nfails when this file is stale. '
         f'The conventions are in envs/codegen.py."""\n')
    emit("# ruff: noqa: E501")
    emit("from meeple.encoders.base import end_row, end_rows")
    emit("from meeple.envs.jit import inline_copy, kernel")
    emit(f"from {g.package} import kernels as K")
    if g.invariants:
        emit(f"from {g.package} import invariants as I")
    emit(f"from {g.package}.state import State, View")
    emit(f"from {g.encoder_module} import {', '.join(sorted({row for _, row, _ in g.encoders}))}")
    emit(f"\nNUM_INVARIANTS = {len(g.invariants)}")
    emit("\n# the row functions inlined into the loops below (envs/codegen.py, INLINED)")
    for role in INLINED:
        if role in r:
            emit(f"{role} = inline_copy(K.{role})")
    if "apply_mask_row" in r:
        emit("apply_mask_row = K.apply_mask_row  # (a call: large, see INLINED)")

    def body(*lines: str) -> None:
        out.extend("    " + line for line in lines)

    def entry(title: str, name_: str, lead: list[str], args: list[str], doc: str, lines: list[str],
              cold: bool = False) -> None:
        emit(f"\n\n# --- {title}")
        emit(_signature(name_, *lead, *args, cold=cold))
        body(f'"""{doc}"""', "s = State(*fields)", *lines)

    entry("init or advance", "init_nb", ["u", "advance"], g.union(r["init_row"], r["advance_row"]),
          "Fill an empty state from the uniforms u (B, UNIFORMS_AT_INIT); with `advance`, instead recompute every "
          "row's derived fields and run its automatic steps\n    (positions set by hand). (One entry for both: "
          "each entry compiles its own copy of the rules they share.)",
          ["for b in range(s.done.shape[0]):", "    if advance:",
           "        " + _call("K.advance_row", "s", "b", "u", *r["advance_row"]), "    else:",
           "        " + _call("K.init_row", "s", "b", "u", *r["init_row"])])

    def mask_lines(b: str) -> list[str]:
        return [f"if s.done[{b}]:", f"    mask[{b}, :] = True", "else:", f"    mask[{b}, :] = False",
                "    " + _call("fill_mask", "s", b, f"mask[{b}]", *r["fill_mask"])]

    def fused(b: str) -> list[str]:
        """Apply and the new mask of row `b` (the body of step_observe's loop, and of step_nb's with both)."""
        if "apply_mask_row" in r:
            return [f"if s.done[{b}]:", f"    mask[{b}, :] = True", "else:",
                    "    " + _call("apply_mask_row", "s", b, f"actions[{b}]", "u", "mask", *r["apply_mask_row"])]
        return [f"if not s.done[{b}]:", "    " + _call("apply_row", "s", b, f"actions[{b}]", "u", *r["apply_row"]),
                *mask_lines(b)]

    prefetch = ["    if b + 1 < B:", "        K.prefetch(s, b + 1)"] if "prefetch" in r else []
    step_args = g.union(r["apply_row"], r["fill_mask"], r.get("apply_mask_row", []))
    apply_only = ["if not s.done[b]:", "    " + _call("apply_row", "s", "b", "actions[b]", "u", *r["apply_row"])]
    if "apply_mask_row" in r:
        rows = ["if apply and with_mask:", *["    " + line for line in fused("b")], "elif apply:",
                *["    " + line for line in apply_only], "elif with_mask:", *["    " + line for line in mask_lines("b")]]
    else:
        rows = ["if apply:", *["    " + line for line in apply_only], "if with_mask:",
                *["    " + line for line in mask_lines("b")]]
    entry("step: apply, the legal-action mask, or both", "step_nb", ["actions", "u", "mask"], step_args,
          "Apply actions[b] to every live row (then its automatic steps; finished rows are untouched) unless actions "
          "has no rows,\n    then write every row's legal-action mask into mask (B, A) (finished rows all True) "
          "unless mask has no rows: the step,\n    the mask, or both in one pass over the rows. (One entry for the "
          "three: each entry compiles its own copy of the rules.)",
          ["B = s.done.shape[0]", "apply = actions.shape[0] > 0", "with_mask = mask.shape[0] > 0", "for b in range(B):",
           *prefetch, *["    " + line for line in rows]])
    entry("scores", "scores_nb", ["out"], g.union(r["score_of"]), "out (B, P): every seat's score.",
          ["for b in range(s.done.shape[0]):", "    for p in range(out.shape[1]):",
           "        out[b, p] = " + _call("score_of", "s", "b", "p", *r["score_of"])])
    if "observe_row" in r:
        entry("observe", "observe_nb", ["viewer", *g.view_outputs], g.union(r["observe_row"]),
              "The View fields that viewer[b] may see (the observe outputs), row by row.",
              ["for b in range(s.done.shape[0]):",
               "    " + _call("observe_row", "s", "b", "viewer[b]", *_observe_params(g))])
    if "determinize_row" in r:
        entry("determinize", "determinize_nb", ["viewer", "seeds"], g.union(r["determinize_row"]),
              "Resample what viewer[b] has not seen, from the splitmix64 seed seeds[b].",
              ["for b in range(s.done.shape[0]):",
               "    " + _call("K.determinize_row", "s", "b", "viewer[b]", "seeds[b]", *r["determinize_row"])])
    if g.invariants:
        lines = ["for b in range(s.done.shape[0]):", "    err[b] = 0"]
        for k, (inv, params) in enumerate(g.invariants):
            lines += [f"    if not {_call('I.' + inv, 's', 'b', *params)}:", f"        err[b] = {k + 1}", "        continue"]
        entry("validate", "validate_nb", ["err"], g.union(*(p for _, p in g.invariants)),
              "err[b] = 0 if row b keeps every invariant, else 1 + the index of the first broken one in "
              "invariants.INVARIANTS (in order: later ones may rely on earlier ones).", lines,
              cold=True)  # (run on loads and checks, not per step: envs/numba_hooks.py, "lower LLVM level")
    view = ", ".join(g.view_from_state)
    for kind, row, params in g.encoders:
        emit(f"\n\n# --- encoder {kind!r}: {row}")
        emit(_signature(f"encode_{kind}_nb", *params, "out", "scratch"))
        body(f'"""out (B, size): the observation rows of a batch of views ({row} per row; see encoders/base.py for '
             f'scratch)."""', "v = View(*fields)", "for b in range(v.viewer.shape[0]):",
             "    row = scratch if scratch.shape[0] > 0 else out[b]", "    row[:] = 0.0",
             "    " + _call(row, "v", "b", "row", *params),
             "    end_row(out, b, scratch)", "end_rows(scratch)")
        enc = [f"enc_{p}" for p in params]
        game_args = g.union(r["apply_mask_row"] if "apply_mask_row" in r else g.union(r["apply_row"], r["fill_mask"]),
                            r.get("observe_row", []))
        # the loop bodies of step_nb, observe_nb and encode_<kind>_nb, not calls of those entries: a kernel
        # called from a kernel is compiled again for its star arguments as typed there; and a loop over the one
        # row rather than a constant row 0, which numba would type as a literal and compile every row function
        # again for
        observe = [_call("observe_row", "s", "b", "viewer[b]", *_observe_params(g))] if "observe_row" in r else []
        emit(f"\n\n# --- one AEC step with the {kind!r} observation")
        emit(_signature(f"step_observe_{kind}_nb", "actions", "u", "mask", "viewer", *g.view_outputs, "obs", *enc,
                        *game_args))
        body('"""One AEC step in one compiled call (envs.batch.StepObserve, at batch size one): apply actions[b], the new '
             'mask,\n    the seat to play next into viewer[b] and its encoded observation into obs[b]."""',
             "s = State(*fields)", "for b in range(actions.shape[0]):",
             *["    " + line for line in [*fused("b"), "viewer[b] = s.to_play[b]", *observe,
                                           f"v = View({view})", "row = obs[b]", "row[:] = 0.0",
                                           _call(row, "v", "b", "row", *enc)]])
    return "\n".join(out) + "\n"


def _observe_params(g: _Game) -> list[str]:
    """observe_row's arguments after (s, b, me): view outputs and kernel arguments, in its own order."""
    params = _params(g.kernels.observe_row)[3:]
    return params


def path_of(name: str) -> Path:
    from meeple.envs import GAMES

    module = GAMES[name].rules.split(":")[0].rsplit(".", 1)[0]
    return PACKAGE_ROOT.joinpath(*module.split(".")[1:], "entries.py")


def stale(names: list[str] | None = None) -> list[str]:
    """The games whose entries.py differs from what `generate` writes now."""
    from meeple.envs import GAMES

    return [n for n in names or sorted(GAMES)
            if not path_of(n).exists() or path_of(n).read_text() != generate(n)]


def main(argv: list[str] | None = None) -> int:
    from meeple.envs import GAMES

    parser = argparse.ArgumentParser(prog="python -m meeple.envs.codegen", description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", help=f"games to write (default: all of {sorted(GAMES)})")
    parser.add_argument("--check", action="store_true", help="only report stale files (exit 1 if any)")
    args = parser.parse_args(argv)
    unknown = [n for n in args.games if n not in GAMES]
    if unknown:
        parser.error(f"unknown game(s) {unknown}")
    names = args.games or sorted(GAMES)
    if args.check:
        bad = stale(names)
        for n in bad:
            print(f"stale: {path_of(n)}")
        return 1 if bad else 0
    for n in names:
        text = generate(n)
        path = path_of(n)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
