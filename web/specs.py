"""Opponent specs from the browser, parsed into a closed set and built without `make_agent`.

A spec the browser sends is text, and nothing in it is passed on as text: it is parsed here into an
`AgentChoice` (a kind from an allow-list, numbers within bounds, a model named by its listed name) and the
agent is then built from that choice with the agents' constructors. The text is split by the agents' own
parser (`meeple.agents.spec.parse_spec`, strict: no empty option items, no option twice); the checks here
narrow what it accepts. The accepted forms:

    random
    heuristic
    mcts[:N[:key=value,...]]     N simulations, 1..MAX_MCTS_SIMULATIONS (default 200); keys:
                                 c_uct (0..10), rollout_depth (0..1000 or none), prior_weight (0..1),
                                 scale and solo_scale (0.01..1000), rollout and prior (random or heuristic
                                 only: a name, never another spec, so searches cannot nest)
    net:<model>[:sample=0|1]     the policy of an expert-iteration net
    search:<model>[:key=value,...]  search with that net; keys: sims (1..MAX_MCTS_SIMULATIONS),
                                 c_uct (0..10), temperature (0..10)

<model> is one of the names `ModelIndex.names()` lists: a `.safetensors` file inside the server's models
folder by its path there (`run1/net.safetensors`), or a net shipped with meeple by its name
(`hadara-2p`). Paths are never followed: the name is looked up in the index, and the index gives the file.

Refused: `human` (the person at the browser is the only human at the table, and a HumanAgent would wait
at the server's terminal), `ppo:` (SB3 zips load by unpickling, and no file is unpickled because of a
request), every other kind, every option not listed, numbers out of bounds or not plain decimals.
Messages never show a server path: they name models by their listed names only.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meeple.agents.spec import AgentSpec, SpecError, parse_spec, spec_kind
from meeple.envs import GAMES
from meeple.web.errors import ApiError
from meeple.web.folders import FolderIndex

PLAYABLE_AGENTS = ("random", "heuristic", "mcts:200")
MAX_SPEC_LENGTH = 200
# The server runs an opponent's search inside the request; 2,000 simulations already take ~10 s a move here,
# so a larger number would let one request occupy a core for minutes.
MAX_MCTS_SIMULATIONS = 2000
DEFAULT_MCTS_SIMULATIONS = 200
DEFAULT_SEARCH_SIMULATIONS = 64
MAX_MODELS_LISTED = 200
NET_SUFFIX = ".safetensors"
MAX_NET_BYTES = 64 * 2**20  # a listed net larger than this is not loaded (the shipped ones are 0.3-2 MB)

_INT = re.compile(r"[0-9]{1,7}")
_FLOAT = re.compile(r"[0-9]{1,7}(\.[0-9]{1,7})?")
_KEY = re.compile(r"[a-z_]{1,20}")
_MODEL_NAME = re.compile(r"[A-Za-z0-9_.\-/]{1,150}")
SIMPLE_AGENTS = ("random", "heuristic")


def _number(spec: str, key: str, value: str, lo: float, hi: float, integer: bool = False) -> float | int:
    pattern = _INT if integer else _FLOAT
    if not pattern.fullmatch(value) or not lo <= float(value) <= hi:
        kind = "an integer" if integer else "a number"
        raise ApiError(400, f"agent spec {spec!r}: {key} must be {kind} from {lo:g} to {hi:g}, got {value[:20]!r}")
    return int(value) if integer else float(value)


# per kind: key -> (low, high, integer) for numbers, or a tuple of allowed names
MCTS_OPTIONS: dict[str, Any] = {"c_uct": (0, 10, False), "rollout_depth": (0, 1000, True),
                                "prior_weight": (0, 1, False), "scale": (0.01, 1000, False),
                                "solo_scale": (0.01, 1000, False), "rollout": SIMPLE_AGENTS, "prior": SIMPLE_AGENTS}
SEARCH_OPTIONS: dict[str, Any] = {"sims": (1, MAX_MCTS_SIMULATIONS, True), "c_uct": (0, 10, False),
                                  "temperature": (0, 10, False)}
NET_OPTIONS: dict[str, Any] = {"sample": ("0", "1")}


def _options(parsed: AgentSpec, allowed: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The options of a strictly parsed spec (no empty item, no key twice) checked against `allowed`; a sorted
    tuple of (key, parsed value)."""
    spec = parsed.text
    out: dict[str, Any] = {}
    for key, value in parsed.items:
        if not _KEY.fullmatch(key):
            raise ApiError(400, f"agent spec {spec!r}: options are key=value pairs separated by commas")
        if key not in allowed:
            raise ApiError(400, f"agent spec {spec!r}: unknown option {key!r}; allowed here: {', '.join(allowed)}")
        rule = allowed[key]
        if isinstance(rule, tuple) and isinstance(rule[0], str):
            if value not in rule:
                raise ApiError(400, f"agent spec {spec!r}: {key} must be one of {', '.join(rule)} here "
                                    f"(not another agent spec), got {value[:40]!r}")
            out[key] = value
        elif key == "rollout_depth" and value == "none":
            out[key] = None
        else:
            out[key] = _number(spec, key, value, *rule)
    return tuple(sorted(out.items()))


@dataclass(frozen=True)
class AgentChoice:
    """A parsed opponent: `label` is the spec the browser sent (the seat's name in records); `kind` one of
    random, heuristic, mcts, net, search; `simulations` for mcts; `options` the checked options; `model`
    the listed name of the net for net and search."""

    label: str
    kind: str
    simulations: int = 0
    options: tuple[tuple[str, Any], ...] = ()
    model: str | None = None


class ModelIndex:
    """The nets an opponent may use: `.safetensors` files of the models folder (indexed in the background,
    see `FolderIndex`) and the nets shipped with meeple. SB3 zips are not listed: they are refused."""

    def __init__(self, folder: Path | None) -> None:
        self.index = FolderIndex(folder, (NET_SUFFIX,), MAX_MODELS_LISTED)
        self.folder = self.index.folder
        try:
            from meeple.agents.net import BASELINES_DIR, baselines

            self.shipped = {name: BASELINES_DIR / entry["file"] for name, entry in baselines().items()}
        except (ImportError, OSError, ValueError, KeyError):
            self.shipped = {}

    def names(self) -> list[str]:
        self.index.maybe_refresh()
        return [entry.name for entry in self.index.entries()] + sorted(self.shipped)

    def specs(self) -> list[str]:
        """The model specs offered in the play form: net: and search: for every listed net."""
        return [spec for name in self.names() for spec in (f"net:{name}", f"search:{name}:sims=200")]

    def path(self, name: str) -> Path | None:
        entry = self.index.get(name)
        if entry is not None:
            return entry.path
        self.index.maybe_refresh()  # a new file shows up after the next background walk
        return self.shipped.get(name)


def parse_agent_spec(raw: Any, models: ModelIndex) -> AgentChoice:
    """The closed form (module docstring) of the spec a browser sent; ApiError 400 naming what is wrong."""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_SPEC_LENGTH:
        raise ApiError(400, f"an agent spec is a string of 1 to {MAX_SPEC_LENGTH} characters")
    if not raw.isprintable():
        raise ApiError(400, "an agent spec is printable text")
    if raw in SIMPLE_AGENTS:
        return AgentChoice(raw, raw)
    kind = spec_kind(raw)
    if kind == "human":
        raise ApiError(400, "'human' is not an opponent here: you are the human at this table "
                            "(choose random, heuristic, mcts:N or a listed model)")
    if kind == "ppo":
        raise ApiError(400, f"agent spec {raw[:60]!r}: ppo: models are SB3 zip files, which load by unpickling; "
                            "this server never loads them because of a request (play them with meeple evaluate)")
    if kind not in ("mcts", "net", "search"):
        raise ApiError(400, f"unknown agent spec {raw[:60]!r}; choose random, heuristic, mcts:N[:options], "
                            "or net:<model> / search:<model> with a listed model")
    try:
        parsed = parse_spec(raw, strict=True)  # the agents' own grammar, without empty option items or repeats
    except SpecError as exc:  # the message shows only the spec the browser sent
        if exc.problem == "no path":
            raise ApiError(400, f"agent spec {raw!r}: name a listed model as {kind}:<model>") from None
        raise ApiError(400, str(exc)) from None
    if kind == "mcts":
        simulations = DEFAULT_MCTS_SIMULATIONS
        if parsed.args[0]:
            simulations = int(_number(raw, "the number of simulations", parsed.args[0], 1, MAX_MCTS_SIMULATIONS,
                                      integer=True))
        return AgentChoice(raw, "mcts", simulations, _options(parsed, MCTS_OPTIONS))
    (name,) = parsed.args
    if ":" in name:  # the text after the name's ':' did not read as options, so the parser kept it in the name
        raise ApiError(400, f"agent spec {raw[:60]!r}: write {kind}:<model>:key=value,... (options are key=value "
                            "pairs separated by commas, and a listed model's name has no ':')")
    if models.path(name) is None:
        listed = ", ".join(models.names()[:12]) or "none"
        shown = name if _MODEL_NAME.fullmatch(name) and not name.startswith("/") else "that name"
        raise ApiError(400, f"agent spec {raw[:60]!r}: {shown} is not a listed model (models are named as "
                            f"the list shows them, never by a path); listed: {listed}")
    return AgentChoice(raw, kind, 0, _options(parsed, NET_OPTIONS if kind == "net" else SEARCH_OPTIONS), name)


def _simple_agent(name: str, game_name: str) -> Any:
    if name == "random":
        from meeple.agents.random_agent import RandomAgent

        return RandomAgent()
    try:
        module = importlib.import_module(GAMES[game_name].heuristic)
    except (ModuleNotFoundError, AttributeError):
        raise ApiError(400, f"{game_name} has no heuristic player") from None
    return module.Heuristic()


def build_agent(choice: AgentChoice, game_name: str, config: dict, models: ModelIndex) -> Any:
    """The agent of a parsed choice, built with the agents' constructors (no spec text reaches them)."""
    options = dict(choice.options)
    if choice.kind in SIMPLE_AGENTS:
        return _simple_agent(choice.kind, game_name)
    if choice.kind == "mcts":
        from meeple.agents.mcts import MCTSAgent, ScoreEvaluator

        evaluator = None
        if "scale" in options or "solo_scale" in options:
            evaluator = ScoreEvaluator(options.get("scale", 10.0), options.get("solo_scale", 30.0))
        agent = MCTSAgent(simulations=choice.simulations, c_uct=options.get("c_uct", 1.4),
                          rollout_depth=options.get("rollout_depth"),
                          rollout_agent=_simple_agent(options["rollout"], game_name) if "rollout" in options else None,
                          prior_agent=_simple_agent(options["prior"], game_name) if "prior" in options else None,
                          prior_weight=options.get("prior_weight", 0.5), evaluator=evaluator)
        agent.name = choice.label
        return agent
    path = models.path(choice.model or "")
    if path is None:
        raise ApiError(400, f"agent {choice.label!r}: that model is no longer listed")
    try:
        if path.stat().st_size > MAX_NET_BYTES:
            raise ApiError(400, f"agent {choice.label!r}: the model is larger than the {MAX_NET_BYTES >> 20} MiB "
                                "this server loads")
        from meeple.agents.net import NetAgent, NetSearchAgent, load_net
        from meeple.envs import make

        net = load_net(path, game_name)
        net.encoder_for(make(game_name, **config))  # a net of another configuration is refused now
    except ModuleNotFoundError as exc:
        raise ApiError(400, f"agent {choice.label!r} needs {exc.name}, which this server has not installed "
                            "(the train extra: pip install 'meeple[train]')") from None
    except (ValueError, OSError) as exc:
        message = str(exc).replace(str(path), choice.model or "the model")
        raise ApiError(400, f"agent {choice.label!r}: {message}"[:500]) from None
    try:  # (an advantage-head net plays neither sampled nor under MCTS: refused with the agents' own reason)
        if choice.kind == "net":
            return NetAgent(net, sample=options.get("sample") == "1", name=choice.label)
        return NetSearchAgent(net, simulations=options.get("sims", DEFAULT_SEARCH_SIMULATIONS),
                              c_uct=options.get("c_uct", 1.4), temperature=options.get("temperature", 0.0),
                              name=choice.label)
    except ValueError as exc:
        raise ApiError(400, f"agent {choice.label!r}: {exc}"[:500]) from None
