"""Game-agnostic Monte Carlo tree search over the batched rules API (open-loop UCT).

The tree is over action sequences only; nodes store no states. Every simulation starts from the
root (for a game with hidden information, a fresh `game.determinize(root, to_play, rng)`: the
searcher never reads what it may not see), replays the path's actions with fresh uniforms from the
agent's generator (so dice and cards are sampled through the rules core), and at each node selects
by UCB1 among the actions legal *in that sampled state*, for the seat to move *in that sampled
state*. It expands one new child, rolls out (random by default, or any Agent), values the leaf
(terminal: `game.returns`; otherwise an `Evaluator`) and backs a value vector (one per seat) up the
path. Because legal sets vary between samples, UCB uses availability counts (how often a child was
legal when its parent was visited) instead of the parent's visits, as in ISMCTS (Cowling, Powley and
Whitehouse 2012, "Information Set Monte Carlo Tree Search"). With a `prior_agent` (e.g. the game's
heuristic) selection is PUCT instead (AlphaZero): the prior agent's move gets `prior_weight` of the
prior, so the search follows it unless the simulations show a better move. That matters when
rollouts are short and noisy: plain UCB then picks among near-equal values almost at random.

`act` gets B independent positions and runs the B searches in lockstep: the tree is a set of numpy
arrays with a leading B axis, each tree depth is one batched `game.apply` over the rows still
descending, and each simulation's rollout is one batched loop over all rows. Rows with a single
legal action (or finished) are answered without search.

    agent = MCTSAgent(simulations=200, rollout_depth=30)
    actions = agent.act(game, state, rng)        # (B,) int64
    MCTSAgent.from_spec("mcts:200:rollout_depth=30,rollout=heuristic,prior=heuristic", game_name)

`RolloutAgent` (spec `mcts:N:mode=rollout,rollout=<agent>`) spends the same budget differently: N
playouts to the end of the game with a base policy, spread over the root's legal actions by
sequential halving with common random numbers, and it plays the base policy's move unless a paired
test shows another one better (rollout-based policy improvement). With the heuristic as base policy
it is the stronger player on Roll Through the Ages (README).

    MCTSAgent.from_spec("mcts:200:mode=rollout,rollout=heuristic", game_name)   # a RolloutAgent
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from meeple.agents.random_agent import sample_masked
from meeple.agents.spec import AgentSpec, parse_spec
from meeple.envs import core
from meeple.envs.batch import step_own
from meeple.envs.jit import bits_to_uniform, splitmix64


@runtime_checkable
class Evaluator(Protocol):
    """Values of unfinished positions: `__call__(game, state) -> (B, P)` float, about [-1, 1].

    Entry p is the value for seat p. MCTS uses `game.returns` instead in finished rows of games
    with 2 or more players; in solo games finished rows are valued by the evaluator too (their
    returns are raw scores), so an evaluator must accept finished rows.
    """

    def __call__(self, game: Any, state: Any) -> np.ndarray: ...


class ScoreEvaluator:
    """tanh((score_p - best other score) / scale); solo: tanh(score / solo_scale).

    Args:
        scale: score difference that maps to tanh(1) ~ 0.76 (a clear but not certain lead).
        solo_scale: the same for solo scores, which are absolute and larger than typical margins
            (scale 10 would squash every decent Roll Through the Ages solo score to ~1).
    """

    def __init__(self, scale: float = 10.0, solo_scale: float = 30.0) -> None:
        if not (scale > 0 and solo_scale > 0):
            raise ValueError(f"scales must be > 0, got {scale!r}, {solo_scale!r}")
        self.scale = float(scale)
        self.solo_scale = float(solo_scale)

    def __call__(self, game: Any, state: Any) -> np.ndarray:
        scores = np.asarray(game.scores(state), dtype=np.float64)
        if scores.shape[1] == 1:
            return np.tanh(scores / self.solo_scale)
        # best opponent of p: the top score, or the second one for the seat that holds the top
        order = np.argsort(-scores, axis=1, kind="stable")
        top = np.take_along_axis(scores, order[:, :1], axis=1)
        second = np.take_along_axis(scores, order[:, 1:2], axis=1)
        is_top = np.arange(scores.shape[1])[None, :] == order[:, :1]
        best_other = np.where(is_top, second, top)
        return np.tanh((scores - best_other) / self.scale)


def _ints(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def _act_where_choice(game: Any, state: Any, choose: Callable[[Any, np.ndarray], np.ndarray]) -> np.ndarray:
    """(B,) int64 actions of a searching agent's `act`: for the b rows that are not finished and have at least
    two legal actions, `choose(root, mask)` with their states (all of `state` when that is every row) and their
    (b, A) legal masks; in the others the only legal action (any when finished). `choose` is not called when
    there is no such row."""
    mask = np.asarray(game.legal_action_mask(state), dtype=np.bool_)
    actions = np.argmax(mask, axis=1).astype(np.int64)  # the only legal action, or any when done
    search = ~np.asarray(state.done, dtype=np.bool_) & (mask.sum(axis=1) > 1)
    rows = np.flatnonzero(search)
    if rows.size:
        root = state if rows.size == mask.shape[0] else core.take(state, rows)
        actions[rows] = choose(root, mask[rows])
    return actions


class MCTSAgent:
    """Open-loop UCT with per-simulation chance and determinization (module docstring).

    Args:
        simulations: simulations per decision (the budget).
        c_uct: exploration constant of UCB1 (values are in [-1, 1]).
        rollout_depth: steps per rollout before the evaluator is asked; None plays to the end.
        rollout_agent: the rollout policy (any Agent); None = uniformly random legal actions.
        evaluator: values non-terminal leaves; None = `ScoreEvaluator()`.
        prior_agent: an Agent whose move gets prior weight: selection becomes PUCT (AlphaZero's
            Q + c * prior * sqrt(N) / (1 + n)) over all legal actions instead of UCB1.
        prior_weight: prior mass on the prior agent's move; the rest is uniform over legal moves.
        seed: seeds the agent's own generator, used when `act` is called with rng=None.
    """

    def __init__(self, simulations: int = 400, c_uct: float = 1.4, rollout_depth: int | None = None,
                 rollout_agent: Any = None, evaluator: Evaluator | None = None,
                 prior_agent: Any = None, prior_weight: float = 0.5, seed: int | None = None) -> None:
        if int(simulations) < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations!r}")
        if rollout_depth is not None and int(rollout_depth) < 0:
            raise ValueError(f"rollout_depth must be >= 0 or None, got {rollout_depth!r}")
        if not c_uct >= 0:
            raise ValueError(f"c_uct must be >= 0, got {c_uct!r}")
        self.simulations = int(simulations)
        self.c_uct = float(c_uct)
        self.rollout_depth = None if rollout_depth is None else int(rollout_depth)
        self.rollout_agent = rollout_agent
        self.evaluator = evaluator if evaluator is not None else ScoreEvaluator()
        if not 0.0 <= prior_weight <= 1.0:
            raise ValueError(f"prior_weight must be in [0, 1], got {prior_weight!r}")
        self.prior_agent = prior_agent
        self.prior_weight = float(prior_weight)
        self.rng = np.random.default_rng(seed)
        self.root_q: np.ndarray | None = None  # (B, A) after a search (`_search`)
        options = []
        if self.c_uct != 1.4:
            options.append(f"c_uct={self.c_uct:g}")
        if self.rollout_depth is not None:
            options.append(f"rollout_depth={self.rollout_depth}")
        if rollout_agent is not None:
            options.append(f"rollout={getattr(rollout_agent, 'name', type(rollout_agent).__name__)}")
        if prior_agent is not None:
            options.append(f"prior={getattr(prior_agent, 'name', type(prior_agent).__name__)}")
            if self.prior_weight != 0.5:
                options.append(f"prior_weight={self.prior_weight:g}")
        if isinstance(self.evaluator, ScoreEvaluator):
            if self.evaluator.scale != 10.0:
                options.append(f"scale={self.evaluator.scale:g}")
            if self.evaluator.solo_scale != 30.0:
                options.append(f"solo_scale={self.evaluator.solo_scale:g}")
        self.name = f"mcts:{self.simulations}" + (":" + ",".join(options) if options else "")

    # --- construction from a spec string -----------------------------------------------------

    @classmethod
    def from_spec(cls, spec: str | AgentSpec, game_name: str | None = None) -> MCTSAgent | RolloutAgent:
        """`mcts`, `mcts:200` or `mcts:200:key=value,...`, the inverse of `name`.

        Keys: c_uct, rollout_depth (an int or none), scale, solo_scale, seed, rollout and prior (agent
        specs for `meeple.agents.make_agent`, e.g. `rollout=heuristic,prior=heuristic`), prior_weight.
        With `mode=rollout` the result is a `RolloutAgent` (`RolloutAgent.from_spec` lists its keys).

        Args:
            spec: the agent spec, as text (read by `meeple.agents.spec.parse_spec`) or an `AgentSpec`.
            game_name: the game; needed only for a `rollout=` or `prior=` agent other than random.
        Raises:
            ValueError: for a malformed spec or an unknown option.
        """
        parsed = spec if isinstance(spec, AgentSpec) else parse_spec(spec)
        if parsed.kind != "mcts":
            raise ValueError(f"not an MCTS spec: {parsed.text!r}")
        if ("mode", "rollout") in parsed.items:
            return RolloutAgent.from_spec(parsed, game_name)
        kwargs: dict[str, Any] = {}
        scales: dict[str, float] = {}
        try:
            if parsed.args[0]:
                kwargs["simulations"] = int(parsed.args[0])
            for key, value in parsed.items:  # in the order written: a key given twice, the last value
                if key in ("c_uct", "prior_weight"):
                    kwargs[key] = float(value)
                elif key == "rollout_depth":
                    kwargs[key] = None if value.lower() == "none" else int(value)
                elif key == "seed":
                    kwargs[key] = int(value)
                elif key in ("scale", "solo_scale"):
                    scales[key] = float(value)
                elif key in ("rollout", "prior"):
                    kwargs[f"{key}_agent"] = _agent_from_spec(value, game_name)
                else:
                    raise ValueError(f"unknown MCTS option {key!r}; known: c_uct, rollout_depth, "
                                     "scale, solo_scale, seed, rollout, prior, prior_weight")
            if scales:
                kwargs["evaluator"] = ScoreEvaluator(**scales)
        except ValueError as exc:
            raise ValueError(f"bad MCTS spec {parsed.text!r}: {exc}") from None
        return cls(**kwargs)

    # --- acting ------------------------------------------------------------------------------

    def act(self, game: Any, state: Any, rng: np.random.Generator | None = None) -> np.ndarray:
        """(B,) int64: the most visited legal root action per row (ties: lowest index)."""
        rng = self.rng if rng is None else rng

        def most_visited(root: Any, mask: np.ndarray) -> np.ndarray:
            visits = self._search(game, root, rng)  # (b, A) root-child visit counts
            return np.argmax(np.where(mask, visits, -1), axis=1)

        return _act_where_choice(game, state, most_visited)

    def _search(self, game: Any, root: Any, rng: np.random.Generator) -> np.ndarray:
        """Run the simulations for every row of `root`; return (B, A) visit counts of root children."""
        B = int(root.done.shape[0])
        A = int(game.num_actions)
        P = int(game.num_players)
        K = int(game.uniforms_per_step)
        N = self.simulations + 1  # each simulation adds at most one node; node 0 is the root
        hidden = bool(game.info.has_hidden_information)
        to_play = _ints(root.to_play)
        rows_all = np.arange(B)

        children = np.full((B, N, A), -1, dtype=np.int32)
        visits = np.zeros((B, N), dtype=np.int64)
        avail = np.zeros((B, N), dtype=np.int64)  # times the node was legal when its parent was visited
        value_sum = np.zeros((B, N, P), dtype=np.float64)
        n_nodes = np.ones(B, dtype=np.int64)
        log_cache = np.log(np.maximum(np.arange(self.simulations + 2), 1)).astype(np.float64)

        leaf = core.clone(root)  # every row's leaf position, rewritten each simulation
        for _ in range(self.simulations):
            cur = game.determinize(root, to_play, rng) if hidden else root
            path = [(rows_all, np.zeros(B, dtype=np.int64))]  # per depth: (rows, node) on the path
            idx = rows_all  # rows still descending
            node = np.zeros(B, dtype=np.int64)
            while idx.size:
                done = np.asarray(cur.done, dtype=np.bool_)
                own_mask = game.legal_action_mask(cur)  # (also the legality check of the apply below)
                mask = own_mask & ~done[:, None]
                kids = children[idx, node]  # (k, A)
                legal_kids = mask & (kids >= 0)
                # availability: each expanded child legal in this sample had one more chance
                kk, aa = np.nonzero(legal_kids)
                avail[idx[kk], kids[kk, aa]] += 1
                seat = _ints(cur.to_play)
                safe = np.where(kids >= 0, kids, 0)
                n_child = visits[idx[:, None], safe] * legal_kids  # 0 where not expanded
                q = value_sum[idx[:, None], safe, seat[:, None]] / np.maximum(n_child, 1)
                if not self._has_prior():
                    # UCB1 among the legal expanded children, for the seat to move in this sample;
                    # a random untried legal action is expanded first
                    unexpanded = mask & (kids < 0)
                    expand = unexpanded.any(axis=1)
                    ucb = q + self.c_uct * np.sqrt(log_cache[avail[idx[:, None], safe]] / np.maximum(n_child, 1))
                    chosen = np.argmax(np.where(legal_kids, ucb, -np.inf), axis=1)
                    if expand.any():
                        chosen[expand] = sample_masked(unexpanded[expand], rng)
                else:
                    # PUCT with the prior agent's move as prior; untried actions get the parent's value
                    prior = self._prior(game, cur, mask, rng, depth=len(path) - 1)
                    parent_n = visits[idx, node].astype(np.float64)
                    parent_q = value_sum[idx, node, seat] / np.maximum(parent_n, 1)
                    q = np.where(n_child > 0, q, parent_q[:, None])
                    u_term = self.c_uct * prior * np.sqrt(np.maximum(parent_n, 1))[:, None] / (1 + n_child)
                    chosen = np.argmax(np.where(mask, q + u_term, -np.inf), axis=1)
                    expand = mask[np.arange(idx.size), chosen] & (kids[np.arange(idx.size), chosen] < 0)
                next_node = kids[np.arange(idx.size), chosen].astype(np.int64)
                if expand.any():  # the chosen untried action becomes a new child
                    e_rows = idx[expand]
                    new_action = chosen[expand]
                    new_node = n_nodes[e_rows]
                    n_nodes[e_rows] += 1
                    children[e_rows, node[expand], new_action] = new_node
                    avail[e_rows, new_node] = 1
                    next_node[expand] = new_node
                if done.any():  # a terminal position is its own leaf
                    _scatter(leaf, idx[done], cur, done)
                go = ~done
                idx, node = idx[go], next_node[go]
                if idx.size == 0:
                    break
                if go.all():
                    cur = step_own(game, cur, chosen, own_mask, u=rng.random((idx.size, K)), copy=cur is root)
                else:  # (a row subset is a new state: apply computes its mask)
                    cur = game.apply(core.take(cur, go), chosen[go], rng.random((idx.size, K)))
                path.append((idx, node))
                expand = expand[go]
                if expand.any():  # the new child is the leaf; the rollout starts there
                    _scatter(leaf, idx[expand], cur, expand)
                    idx, node = idx[~expand], node[~expand]
                    cur = core.take(cur, ~expand)

            value = self._rollout_value(game, leaf, rng)  # (B, P)
            for rws, nds in path:
                visits[rws, nds] += 1
                value_sum[rws, nds] += value[rws]

        root_kids = children[:, 0]  # (B, A)
        safe = np.maximum(root_kids, 0)
        child_visits = np.where(root_kids >= 0, visits[rows_all[:, None], safe], 0)
        # the root children's mean values for the seat to move at the root (NaN where never visited):
        # what a subclass needs for a policy target beyond the visit counts (NetSearchAgent's "improved")
        with np.errstate(invalid="ignore", divide="ignore"):
            self.root_q = np.where(child_visits > 0, value_sum[rows_all[:, None], safe, to_play[:, None]]
                                   / child_visits, np.nan)
        return child_visits

    def _has_prior(self) -> bool:
        """Whether selection is PUCT with `_prior` (True) or UCB1; a subclass with its own prior says True."""
        return self.prior_agent is not None

    def _prior(self, game: Any, state: Any, mask: np.ndarray, rng: np.random.Generator, depth: int = 0) -> np.ndarray:
        """(k, A) prior: `prior_weight` on the prior agent's move, the rest spread over legal moves.

        `state` holds the k rows descending at tree depth `depth` (0: the root, every row in order);
        this prior ignores the depth, a subclass may use it (e.g. to reuse one root prior per search).
        """
        choice = np.asarray(self.prior_agent.act(game, state, rng), dtype=np.int64)
        n_legal = np.maximum(mask.sum(axis=1, keepdims=True), 1)
        prior = (1.0 - self.prior_weight) * mask / n_legal
        prior[np.arange(mask.shape[0]), choice] += self.prior_weight
        return prior

    def _rollout_value(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        """Play the rollout policy from `state` for `rollout_depth` steps; (B, P) leaf values."""
        limit = self.rollout_depth if self.rollout_depth is not None else int(game.info.max_game_length)
        K = int(game.uniforms_per_step)
        final = core.clone(state)
        live = ~np.asarray(state.done, dtype=np.bool_)
        rows = np.flatnonzero(live)  # rows of `final` still playing; `cur` holds them
        cur = core.take(state, rows)
        for _ in range(limit):
            if rows.size == 0:
                break
            mask = game.legal_action_mask(cur)
            if self.rollout_agent is None:
                actions = sample_masked(mask, rng)
            else:
                actions = np.asarray(self.rollout_agent.act(game, cur, rng), dtype=np.int64)
            cur = step_own(game, cur, actions, mask, u=rng.random((rows.size, K)), copy=False)  # (our own copy)
            finished = np.asarray(cur.done, dtype=np.bool_)
            if finished.any():  # finished rows leave, so later steps only pay for live ones
                _scatter(final, rows[finished], cur, finished)
                rows = rows[~finished]
                cur = core.take(cur, ~finished)
        if rows.size:
            _scatter(final, rows, cur, slice(None))
        value = np.asarray(self.evaluator(game, final), dtype=np.float64).reshape(-1, game.num_players)
        if game.num_players > 1:
            done = np.asarray(final.done, dtype=np.bool_)
            value = np.where(done[:, None], np.asarray(game.returns(final), dtype=np.float64), value)
        return value


class RolloutAgent:
    """Rollout-based policy improvement over a base policy (`mcts:N:mode=rollout,rollout=<agent>`).

    The "rollout algorithm" (Tesauro and Galperin 1996; Bertsekas 2019): every legal root action is
    valued by playouts to the end of the game with the base policy (`rollout_agent`) for every seat,
    and the best is played, which improves on the base policy when the values are accurate. With
    N = `simulations` playouts per decision the values are noisy, so:

    - **sequential halving** (Karnin, Koren and Somekh 2013): ceil(log2(#legal)) rounds of about
      N / rounds playouts each, spread over the surviving candidates; after each round the worse half
      is dropped, except the base policy's own move, which always survives;
    - **common random numbers**: playout k of every candidate starts from the same determinization
      and draws the same chance. The uniforms of a step come from a counter-based hash of (decision
      seed, row, k, seat to move, how many of that seat's steps so far consumed chance), and a step
      counts as consuming chance when `apply` with the uniforms shifted by 0.5 (mod 1) gives a
      different state. So the n-th roll of a seat is the same dice in every candidate's playout even
      when candidates take different numbers of steps (e.g. marking more dice before rolling);
    - **a paired test against the base move**: the best survivor (by mean value) replaces the base
      policy's move only if its mean paired difference over the common playouts exceeds `margin`
      and has t-statistic >= `z`. Otherwise the base move is played, so the agent never strays from
      its base policy on noise.

    The value of a playout for the seat to move at the root is `game.returns` plus `score_weight` x
    tanh(score difference to the best other seat / `scale`) (`ScoreEvaluator`), a finer signal than
    the win alone. Hidden information: every playout starts from `game.determinize(root, to_play,
    rng)` (one per k, shared by the candidates); nothing else reads the root. Deterministic given
    `rng`; rows are batched: each halving round is one batched playout of every row's candidates x
    playouts, one `game.apply` (plus one for the chance test) and one base-policy call per step.

    Args:
        simulations: playouts per decision (the budget; at least one per surviving candidate per round).
        rollout_agent: the base policy (any Agent), also the playout policy; None = uniformly random.
        z: t-statistic the best candidate's paired gain over the base move must reach (0: any gain).
        margin: least mean paired gain (value units) to leave the base move.
        score_weight, scale: the score term of the value (0 = returns only).
        halving: sequential halving; False spreads the budget evenly over all legal actions.
        max_steps: playout step limit (default the game's max_game_length); unfinished playouts are
            valued by `leaf_evaluator` plus the score term, or without one by the score term alone.
        leaf_evaluator: an `Evaluator` (e.g. a net's value head) that stands in for the rest of a playout
            cut by `max_steps`: its value estimates the returns the playout would have reached.
        seed: seeds the agent's own generator, used when `act` is called with rng=None.
        base_agent: the policy whose root move is improved (kept unless beaten); None = `rollout_agent`.
            A learned policy here with the heuristic's playouts is `search:<net>:mode=rollout`.
        top_k: consider only the base policy's k most likely legal moves (its own move among them), so
            the same playouts are spread over fewer candidates and compare them more precisely; the
            root of Gumbel MuZero's sequential halving (Danihelka et al. 2022) without the Gumbel noise.
            0 = every legal move. Needs a base agent with `policy_logits(game, state)` (a net's policy).
    """

    def __init__(self, simulations: int = 200, rollout_agent: Any = None, z: float = 1.0, margin: float = 0.0,
                 score_weight: float = 1.0, scale: float = 10.0, halving: bool = True,
                 max_steps: int | None = None, seed: int | None = None, base_agent: Any = None,
                 leaf_evaluator: Evaluator | None = None, top_k: int = 0) -> None:
        if int(simulations) < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations!r}")
        if not (z >= 0 and margin >= 0 and score_weight >= 0):
            raise ValueError(f"z, margin and score_weight must be >= 0, got {z!r}, {margin!r}, {score_weight!r}")
        if max_steps is not None and int(max_steps) < 1:
            raise ValueError(f"max_steps must be >= 1 or None, got {max_steps!r}")
        if int(top_k) == 1 or int(top_k) < 0:
            raise ValueError(f"top_k must be 0 (every legal move) or at least 2, got {top_k!r}")
        if int(top_k) and not callable(getattr(base_agent, "policy_logits", None)):
            raise ValueError("top_k needs a base agent with a policy (policy_logits), e.g. a net's")
        self.top_k = int(top_k)
        self.simulations = int(simulations)
        self.rollout_agent = rollout_agent
        self.base_agent = base_agent
        self.z = float(z)
        self.margin = float(margin)
        self.score_weight = float(score_weight)
        self.evaluator = ScoreEvaluator(scale=scale)
        self.halving = bool(halving)
        self.max_steps = None if max_steps is None else int(max_steps)
        self.leaf_evaluator = leaf_evaluator
        self.rng = np.random.default_rng(seed)
        options = ["mode=rollout"]
        if rollout_agent is not None:
            options.append(f"rollout={getattr(rollout_agent, 'name', type(rollout_agent).__name__)}")
        defaults = {"z": 1.0, "margin": 0.0, "score_weight": 1.0, "scale": 10.0}
        for key, default in defaults.items():
            value = self.evaluator.scale if key == "scale" else getattr(self, key)
            if value != default:
                options.append(f"{key}={value:g}")
        if not self.halving:
            options.append("halving=0")
        if self.max_steps is not None:
            options.append(f"max_steps={self.max_steps}")
        if self.top_k:
            options.append(f"top_k={self.top_k}")
        self.name = f"mcts:{self.simulations}:" + ",".join(options)

    @classmethod
    def from_spec(cls, spec: str | AgentSpec, game_name: str | None = None) -> RolloutAgent:
        """`mcts:N:mode=rollout,key=value,...` (text, read by `meeple.agents.spec.parse_spec`, or an `AgentSpec`);
        keys: rollout (an agent spec), z, margin, score_weight, scale, halving (0/1), max_steps, seed.
        Raises ValueError for a malformed spec."""
        parsed = spec if isinstance(spec, AgentSpec) else parse_spec(spec)
        kwargs: dict[str, Any] = {}
        try:
            if parsed.kind != "mcts":
                raise ValueError("not an MCTS spec")
            if parsed.args[0]:
                kwargs["simulations"] = int(parsed.args[0])
            for key, value in parsed.items:  # in the order written: a key given twice, the last value
                if key == "mode":
                    if value != "rollout":
                        raise ValueError(f"unknown mode {value!r}")
                elif key in ("z", "margin", "score_weight", "scale"):
                    kwargs[key] = float(value)
                elif key in ("seed", "max_steps"):
                    kwargs[key] = int(value)
                elif key == "halving":
                    if value not in ("0", "1"):
                        raise ValueError(f"halving must be 0 or 1, got {value!r}")
                    kwargs[key] = value == "1"
                elif key == "rollout":
                    kwargs["rollout_agent"] = _agent_from_spec(value, game_name)
                else:
                    raise ValueError(f"unknown rollout option {key!r}; known: mode, rollout, z, margin, "
                                     "score_weight, scale, halving, max_steps, seed")
        except ValueError as exc:
            raise ValueError(f"bad MCTS spec {parsed.text!r}: {exc}") from None
        return cls(**kwargs)

    # --- acting ------------------------------------------------------------------------------

    def act(self, game: Any, state: Any, rng: np.random.Generator | None = None) -> np.ndarray:
        """(B,) int64: per row the base policy's move, or a candidate shown better (class docstring)."""
        rng = self.rng if rng is None else rng
        return _act_where_choice(game, state, lambda root, mask: self._choose(game, root, mask, rng))

    def _policy(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        if self.rollout_agent is None:
            return sample_masked(game.legal_action_mask(state), rng)
        return np.asarray(self.rollout_agent.act(game, state, rng), dtype=np.int64)

    def _choose(self, game: Any, root: Any, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(b,) chosen actions for b unfinished roots with at least two legal actions each."""
        b, A = mask.shape
        rows = np.arange(b)
        to_play = _ints(root.to_play)
        if self.base_agent is not None:
            base = np.asarray(self.base_agent.act(game, root, rng), dtype=np.int64)
        else:
            base = self._policy(game, root, rng)
        seed = int(rng.integers(1 << 62))
        alive = mask.copy()  # surviving candidates
        if self.top_k:  # the policy's k most likely legal moves, and the base move whatever its rank
            logits = np.where(mask, np.asarray(self.base_agent.policy_logits(game, root), dtype=np.float64), -np.inf)
            rank = np.empty((b, A), dtype=np.int64)
            np.put_along_axis(rank, np.argsort(-logits, axis=1, kind="stable"), np.arange(A)[None, :], axis=1)
            alive &= rank < self.top_k
            alive[rows, base] = True
        n_cand = alive.sum(axis=1)
        n_rounds = np.ceil(np.log2(n_cand)).astype(np.int64) if self.halving else np.ones(b, dtype=np.int64)
        per_round = np.maximum(1, self.simulations // n_rounds)
        grid = np.full((b, A, self.simulations + int(n_rounds.max())), np.nan)  # value of (row, action, k)
        used = np.zeros(b, dtype=np.int64)  # playouts k < used[r] were run for every survivor of row r
        for rnd in range(int(n_rounds.max())):
            live = rnd < n_rounds
            k_new = np.where(live, np.maximum(1, per_round // np.maximum(alive.sum(axis=1), 1)), 0)
            # the new (row, k) streams and the playouts: every survivor of the row on every new stream
            s_row = np.repeat(rows, k_new)
            s_k = np.arange(s_row.size) - np.repeat(np.cumsum(k_new) - k_new, k_new) + used[s_row]
            s_idx, p_act = np.nonzero(alive[s_row])
            if game.info.has_hidden_information:
                start = game.determinize(core.take(root, s_row), to_play[s_row], rng)
            else:
                start = core.take(root, s_row)
            p_row, p_k = s_row[s_idx], s_k[s_idx]
            values = self._playouts(game, core.take(start, s_idx), p_act, to_play[p_row],
                                    p_row * (self.simulations + 64) + p_k, seed, rng)
            grid[p_row, p_act, p_k] = values
            used += k_new
            last = rnd == n_rounds - 1
            halve = live & ~last & (alive.sum(axis=1) > 2)
            if halve.any():  # keep the better half (by mean over the common playouts) and the base move
                mean = _masked_mean(grid, alive)
                order = np.argsort(-mean, axis=1, kind="stable")
                rank = np.empty_like(order)
                np.put_along_axis(rank, order, np.arange(A)[None, :], axis=1)
                keep = alive & (rank < ((alive.sum(axis=1) + 1) // 2)[:, None])
                keep[rows, base] = True
                alive = np.where(halve[:, None], keep, alive)
        mean = _masked_mean(grid, alive)
        mean[rows, base] = -np.inf
        best = np.argmax(mean, axis=1)  # the best challenger of the base move
        diff = grid[rows, best] - grid[rows, base]  # (b, K) paired differences, NaN where unplayed
        n = np.sum(~np.isnan(diff), axis=1)
        gain = np.nanmean(np.where(n[:, None] > 0, diff, 0.0), axis=1)
        if self.z > 0:
            centred = np.where(np.isnan(diff), 0.0, diff - gain[:, None])
            sd = np.sqrt((centred ** 2).sum(axis=1) / np.maximum(n - 1, 1))
            se = sd / np.sqrt(np.maximum(n, 1))
            t_ok = np.where(se > 0, gain >= self.z * se, gain > 0) & (n > 1)
        else:
            t_ok = np.ones(b, dtype=np.bool_)
        switch = t_ok & (gain > self.margin) & (best != base)
        return np.where(switch, best, base).astype(np.int64)

    def playout_values(self, game: Any, state: Any, first: np.ndarray, seat: np.ndarray, stream: np.ndarray,
                       seed: int, rng: np.random.Generator, poll: Any = None) -> np.ndarray:
        """(n,) values for `seat` of playouts that play `first` in each row of `state` (modified: pass a copy)
        and then the rollout policy for every seat to the end.

        The pairing contract (class docstring, "common random numbers"): two rows with the same start state,
        `stream` and `seed` draw the same dice and cards in the same order, whatever their first moves, so
        their values differ by what the moves did, not by luck; rows with equal first moves get equal values
        (the heuristic's moves depend on its row alone). `poll()`, if given, is called before every step (it
        may raise to abandon the playouts). `meeple.agents.advantage` labels moves with it."""
        return self._playouts(game, state, first, seat, stream, seed, rng, poll)

    def _playouts(self, game: Any, state: Any, first: np.ndarray, seat: np.ndarray, stream: np.ndarray,
                  seed: int, rng: np.random.Generator, poll: Any = None) -> np.ndarray:
        """Play `first` and then the base policy to the end in every row of `state` (modified);
        (n,) values for `seat`. Chance is drawn from the hash of (seed, stream, seat to move, that
        seat's chance steps so far), as described in the class docstring."""
        n = int(seat.shape[0])
        K = int(game.uniforms_per_step)
        limit = self.max_steps if self.max_steps is not None else int(game.info.max_game_length)
        chance = np.zeros((n, int(game.num_players)), dtype=np.int64)
        values = np.zeros(n, dtype=np.float64)
        ids = np.arange(n)  # playouts still running; `state` holds them
        actions = first
        for step in range(limit):
            if poll is not None:
                poll()
            actor = _ints(state.to_play)
            u = _hashed_uniforms(seed, stream[ids], actor, chance[ids, actor], K)
            mask = game.legal_action_mask(state)  # one legality check for both applies
            other = step_own(game, state, actions, mask, u=np.mod(u + 0.5, 1.0))
            state = step_own(game, state, actions, mask, u=u, copy=False)  # (`state` is our own copy)
            used_chance = _rows_differ(state, other)
            chance[ids[used_chance], actor[used_chance]] += 1
            done = np.asarray(state.done, dtype=np.bool_)
            if done.any():
                finished = core.take(state, done)
                values[ids[done]] = self._value(game, finished, seat[ids[done]], True)
                ids = ids[~done]
                if ids.size == 0:
                    return values
                state = core.take(state, ~done)
            if step + 1 < limit:
                actions = self._policy(game, state, rng)
        values[ids] = self._value(game, state, seat[ids], False)
        return values

    def _value(self, game: Any, state: Any, seat: np.ndarray, finished: bool) -> np.ndarray:
        """Values for `seat` of each row: returns + score_weight x score term. A playout cut short has no
        returns yet: the leaf evaluator's value stands in for them, or without one the score term does."""
        rows = np.arange(seat.shape[0])
        score = np.asarray(self.evaluator(game, state), dtype=np.float64)[rows, seat]
        if not finished:
            if self.leaf_evaluator is not None:
                leaf = np.asarray(self.leaf_evaluator(game, state), dtype=np.float64)[rows, seat]
                return leaf + self.score_weight * score
            return (1.0 + self.score_weight) * score
        return np.asarray(game.returns(state), dtype=np.float64)[rows, seat] + self.score_weight * score


def _masked_mean(grid: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """(b, A) mean of grid over its last axis (NaN = not played), -inf where not alive."""
    played = ~np.isnan(grid)
    total = np.where(played, grid, 0.0).sum(axis=2)
    count = played.sum(axis=2)
    return np.where(alive & (count > 0), total / np.maximum(count, 1), -np.inf)


def _hashed_uniforms(seed: int, stream: np.ndarray, seat: np.ndarray, count: np.ndarray, K: int) -> np.ndarray:
    """(n, K) uniforms in [0, 1), a fixed function of (seed, stream, seat, count) per row."""
    key = splitmix64(np.full(stream.shape, seed, dtype=np.uint64) ^ splitmix64(stream.astype(np.uint64)))
    key = splitmix64(key ^ (seat.astype(np.uint64) << np.uint64(40)) ^ count.astype(np.uint64))
    with np.errstate(over="ignore"):
        steps = np.arange(1, K + 1, dtype=np.uint64) * np.uint64(0xD1B54A32D192ED03)
        return bits_to_uniform(splitmix64(key[:, None] + steps[None, :]))


def _rows_differ(a: Any, b: Any) -> np.ndarray:
    """(B,) bool: rows where two batched states differ in any field."""
    out = np.zeros(a[0].shape[0], dtype=np.bool_)
    for x, y in zip(a, b):
        out |= (x != y).reshape(x.shape[0], -1).any(axis=1)
    return out


def _agent_from_spec(spec: str, game_name: str | None) -> Any:
    """The agent of a nested spec (the value of `rollout=` or `prior=`); only `random` needs no game."""
    nested = parse_spec(spec)
    if nested.kind == "random":
        from meeple.agents.random_agent import RandomAgent

        return RandomAgent()
    if game_name is None:
        raise ValueError(f"agent {spec!r} needs the game name")
    from meeple.agents import make_agent

    return make_agent(nested, game_name)


def _scatter(dst: Any, rows: np.ndarray, src: Any, where: Any) -> None:
    """dst[rows] = src[where], field by field (in place)."""
    for d, s in zip(dst, src):
        d[rows] = s[where]

