"""Agent specs: the one parser of the strings that name an agent (`make_agent`, `--agents`, the web's opponents).

    spec = parse_spec("mcts:200:rollout=heuristic,prior=net:hadara-2p")
    spec.kind, spec.args, spec.options   # "mcts", ("200",), {"rollout": "heuristic", "prior": "net:hadara-2p"}
    format_spec("search", ["hadara-2p"], {"sims": "64"})   # "search:hadara-2p:sims=64"

The grammar (the kind is the text before the first ':'; `args` has a fixed length per kind):

    random | heuristic | human        nothing after the kind (`random:1` is refused); args ()
    mcts[:N[:key=value,...]]         args (N,), N as written ("" when absent: the default number of
                                     simulations). The options are all the text after the second ':',
                                     split at ','; an empty item is skipped; each other item is key=value,
                                     split at its first '=', so a value may hold ':' and '=' (but not ','):
                                     `rollout=` and `prior=` hold further agent specs, e.g.
                                     `mcts:200:prior=net:hadara-2p:sample=1`. A key given twice: the items
                                     keep both, in order, and `options` the last.
    net:<path>[:key=value,...]       args (path,): a net file or a shipped net's name. The path may contain
    search:<path>[:key=value,...]    ':' (`net:C:\\nets\\x.safetensors`): the options are the text after the
                                     LAST ':', and only when it reads as key=value pairs (keys of letters and
                                     '_', values without ',', '/' or '\\'); otherwise that text belongs to the
                                     path. A key given twice is refused.
    ppo:<path>                       args (path,): all the text after `ppo:` (it may contain ':')
    py:<module>:<name>               args (module, name): the name is the text after the last ':'

What a spec means (which keys a kind takes, what its values must be) is for the code that builds the agent;
this module only splits the text. `parse_spec(text, strict=True)` also refuses what is merely untidy (empty
option items, a key given twice, `mcts::...` without its N), for callers that accept a closed set only
(`meeple.web.specs`). Every error is a `SpecError`, a ValueError whose message names the spec and the problem.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

AGENT_SPECS = ("random", "heuristic", "mcts[:N[:key=value,...]]", "ppo:<path to model.zip>",
               "net:<path to net.safetensors>[:sample=1]", "search:<path to net.safetensors>[:sims=N,key=value,...]",
               "py:<module>:<policy>", "human")
SIMPLE_KINDS = ("random", "heuristic", "human")
KINDS = (*SIMPLE_KINDS, "mcts", "ppo", "net", "search", "py")
NET_KINDS = ("net", "search")

# the text after a net spec's last ':' is its options only when it reads as key=value pairs
_NET_OPTIONS = re.compile(r"^[A-Za-z_]+=[^,/\\]*(,[A-Za-z_]+=[^,/\\]*)*$")


class SpecError(ValueError):
    """A spec `parse_spec` refuses: `text` the spec, `problem` what is wrong in short (one of "not text",
    "unknown" kind, "no number" (strict mcts), "no path" (net, search, ppo), "no object" (py), "bad option");
    the message says it in full, naming the spec."""

    def __init__(self, text: str, problem: str, message: str) -> None:
        super().__init__(message)
        self.text = text
        self.problem = problem


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: `text` as written, its `kind`, its positional `args` (a fixed number per kind,
    see the module docstring) and its options as `items`, (key, value) pairs in the order written."""

    text: str
    kind: str
    args: tuple[str, ...] = ()
    items: tuple[tuple[str, str], ...] = ()

    @property
    def options(self) -> dict[str, str]:
        """The options as a dict (for a key given twice, which only `mcts` allows, the last value)."""
        return dict(self.items)

    def format(self) -> str:
        """The spec written canonically (`format_spec`): `mcts:10:,c_uct=1,` -> `mcts:10:c_uct=1`."""
        return format_spec(self.kind, self.args, self.items)

    def __str__(self) -> str:
        return self.text


def spec_kind(text: str) -> str:
    """The kind a spec names (the text before its first ':'), without checking the rest."""
    return text.partition(":")[0]


def parse_spec(text: str, *, strict: bool = False) -> AgentSpec:
    """The `AgentSpec` of `text` (grammar in the module docstring); otherwise a `SpecError` (a ValueError)
    naming the spec and the problem.

    With `strict`, also refused: empty option items (`mcts:10:c_uct=1,`), a key given twice
    (`mcts:10:c_uct=1,c_uct=2`) and `mcts::...` (options without the number of simulations)."""
    if not isinstance(text, str):
        raise SpecError(repr(text), "not text", f"an agent spec is a string, got {type(text).__name__}")
    kind, colon, rest = text.partition(":")
    if kind in SIMPLE_KINDS:
        if colon:
            raise SpecError(text, "unknown", f"unknown agent spec {text!r} ({kind} takes nothing after it); "
                                             f"known specs: {', '.join(AGENT_SPECS)}")
        return AgentSpec(text, kind)
    if kind == "mcts":
        simulations, colon, option_text = rest.partition(":")
        if strict and colon and not simulations:
            raise SpecError(text, "no number", f"agent spec {text!r}: write mcts:N or mcts:N:key=value,...")
        return AgentSpec(text, kind, (simulations,), _items(text, option_text, strict))
    if kind in NET_KINDS:
        path, items = rest, ()
        head, colon, tail = rest.rpartition(":")
        if colon and _NET_OPTIONS.match(tail):
            path, items = head, _items(text, tail, strict=True)
        if not path:
            raise SpecError(text, "no path", f"agent spec {text!r} needs a net file or a net's name: "
                                             f"{kind}:<path or name>")
        return AgentSpec(text, kind, (path,), items)
    if kind == "ppo":
        if not rest:
            raise SpecError(text, "no path", f"agent spec {text!r} needs a model path: ppo:<path to model.zip>")
        return AgentSpec(text, kind, (rest,))
    if kind == "py":
        module, colon, name = rest.rpartition(":")
        if not colon or not module or not name:
            raise SpecError(text, "no object", f"agent spec {text!r} must name a module and an object in it: "
                                               "py:<module>:<name>")
        return AgentSpec(text, kind, (module, name))
    raise SpecError(text, "unknown", f"unknown agent spec {text!r}; known specs: {', '.join(AGENT_SPECS)}")


def _items(text: str, option_text: str, strict: bool) -> tuple[tuple[str, str], ...]:
    """`key=value,...` -> ((key, value), ...) in order; "" -> (). Empty items are skipped (refused if strict)."""
    items: list[tuple[str, str]] = []
    if not option_text:
        return ()
    for item in option_text.split(","):
        if not item:
            if strict:
                raise SpecError(text, "bad option", f"agent spec {text!r}: options are key=value pairs separated "
                                                    "by commas (this one has an empty item)")
            continue
        key, eq, value = item.partition("=")
        if not eq:
            raise SpecError(text, "bad option", f"agent spec {text!r}: option {item!r} is not key=value "
                                                "(options are key=value pairs separated by commas)")
        if strict and any(key == seen for seen, _ in items):
            raise SpecError(text, "bad option", f"agent spec {text!r}: option {key!r} given twice")
        items.append((key, value))
    return tuple(items)


def format_spec(kind: str, args: Sequence[str] = (),
                options: Mapping[str, str | AgentSpec] | Iterable[tuple[str, str | AgentSpec]] = ()) -> str:
    """The spec text of `kind` with positional `args` and `options` (values may be `AgentSpec`s: nested specs,
    as in `format_spec("mcts", ["200"], {"prior": parse_spec("net:hadara-2p")})`), the inverse of `parse_spec`.

    ValueError when no text reads back as exactly these parts: a nested spec or value with a ',' in it, a
    key with '=' or ',', a net path whose last ':' part reads as options, the wrong number of args, ..."""
    pairs = options.items() if isinstance(options, Mapping) else options
    items = tuple((key, value.text if isinstance(value, AgentSpec) else value) for key, value in pairs)
    args = tuple(args)
    if kind == "mcts" and not args:
        args = ("",)
    text = kind
    if args and (args != ("",) or items):  # `mcts`, not `mcts:`, for the default number of simulations
        text += ":" + ":".join(args)
    if items:
        text += ":" + ",".join(f"{key}={value}" for key, value in items)
    try:
        parsed = parse_spec(text)
    except ValueError as exc:
        raise ValueError(f"cannot write a {kind!r} spec with args {args} and options {dict(items)}: {exc}") from None
    if (parsed.kind, parsed.args, parsed.items) != (kind, args, items):
        raise ValueError(f"cannot write a {kind!r} spec with args {args} and options {dict(items)}: "
                         f"{text!r} reads back as args {parsed.args} and options {dict(parsed.items)}")
    return text
