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
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from meeple.agents.random_agent import sample_masked
from meeple.envs import core


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
    def from_spec(cls, spec: str, game_name: str | None = None) -> MCTSAgent:
        """`mcts`, `mcts:200` or `mcts:200:key=value,...`, the inverse of `name`.

        Keys: c_uct, rollout_depth (an int or none), scale, solo_scale, seed, rollout and prior (agent
        specs for `meeple.agents.make_agent`, e.g. `rollout=heuristic,prior=heuristic`), prior_weight.

        Args:
            spec: the agent spec.
            game_name: the game; needed only for a `rollout=` or `prior=` agent other than random.
        Raises:
            ValueError: for a malformed spec or an unknown option.
        """
        head, _, rest = spec.partition(":")
        if head != "mcts":
            raise ValueError(f"not an MCTS spec: {spec!r}")
        sims, _, opts = rest.partition(":")
        kwargs: dict[str, Any] = {}
        scales: dict[str, float] = {}
        try:
            if sims:
                kwargs["simulations"] = int(sims)
            for item in filter(None, opts.split(",")):
                key, eq, value = item.partition("=")
                if not eq:
                    raise ValueError(f"option {item!r} is not key=value")
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
            raise ValueError(f"bad MCTS spec {spec!r}: {exc}") from None
        return cls(**kwargs)

    # --- acting ------------------------------------------------------------------------------

    def act(self, game: Any, state: Any, rng: np.random.Generator | None = None) -> np.ndarray:
        """(B,) int64: the most visited legal root action per row (ties: lowest index)."""
        rng = self.rng if rng is None else rng
        mask = np.asarray(game.legal_action_mask(state), dtype=np.bool_)
        B = mask.shape[0]
        actions = np.argmax(mask, axis=1).astype(np.int64)  # the only legal action, or any when done
        search = ~np.asarray(state.done, dtype=np.bool_) & (mask.sum(axis=1) > 1)
        rows = np.flatnonzero(search)
        if rows.size == 0:
            return actions
        root = state if rows.size == B else core.take(state, rows)
        visits = self._search(game, root, rng)  # (b, A) root-child visit counts
        visits = np.where(mask[rows], visits, -1)
        actions[rows] = np.argmax(visits, axis=1)
        return actions

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
                mask = game.legal_action_mask(cur) & ~done[:, None]
                kids = children[idx, node]  # (k, A)
                legal_kids = mask & (kids >= 0)
                # availability: each expanded child legal in this sample had one more chance
                kk, aa = np.nonzero(legal_kids)
                avail[idx[kk], kids[kk, aa]] += 1
                seat = _ints(cur.to_play)
                safe = np.where(kids >= 0, kids, 0)
                n_child = visits[idx[:, None], safe] * legal_kids  # 0 where not expanded
                q = value_sum[idx[:, None], safe, seat[:, None]] / np.maximum(n_child, 1)
                if self.prior_agent is None:
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
                    prior = self._prior(game, cur, mask, rng)
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
                cur = core.take(cur, go) if not go.all() else cur
                cur = game.apply(cur, chosen[go], rng.random((idx.size, K)))
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
        return np.where(root_kids >= 0, visits[rows_all[:, None], np.maximum(root_kids, 0)], 0)

    def _prior(self, game: Any, state: Any, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(k, A) prior: `prior_weight` on the prior agent's move, the rest spread over legal moves."""
        choice = np.asarray(self.prior_agent.act(game, state, rng), dtype=np.int64)
        n_legal = np.maximum(mask.sum(axis=1, keepdims=True), 1)
        prior = (1.0 - self.prior_weight) * mask / n_legal
        prior[np.arange(mask.shape[0]), choice] += self.prior_weight
        return prior

    def _rollout_value(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        """Play the rollout policy from `state` for `rollout_depth` steps; (B, P) leaf values."""
        limit = self.rollout_depth if self.rollout_depth is not None else int(game.info.max_game_length)
        K = int(game.uniforms_per_step)
        inplace = getattr(game, "apply_inplace", None)  # optional: `apply` without the copy
        final = core.clone(state)
        live = ~np.asarray(state.done, dtype=np.bool_)
        rows = np.flatnonzero(live)  # rows of `final` still playing; `cur` holds them
        cur = core.take(state, rows)
        for _ in range(limit):
            if rows.size == 0:
                break
            if self.rollout_agent is None:
                actions = sample_masked(game.legal_action_mask(cur), rng)
            else:
                actions = np.asarray(self.rollout_agent.act(game, cur, rng), dtype=np.int64)
            if inplace is not None:  # `cur` is our own copy: skip apply's defensive copy
                inplace(cur, actions, rng.random((rows.size, K)))
            else:
                cur = game.apply(cur, actions, rng.random((rows.size, K)))
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


def _agent_from_spec(spec: str, game_name: str | None) -> Any:
    if spec == "random":
        from meeple.agents.random_agent import RandomAgent

        return RandomAgent()
    if game_name is None:
        raise ValueError(f"agent {spec!r} needs the game name")
    from meeple.agents import make_agent

    return make_agent(spec, game_name)


def _scatter(dst: Any, rows: np.ndarray, src: Any, where: Any) -> None:
    """dst[rows] = src[where], field by field (in place)."""
    for d, s in zip(dst, src):
        d[rows] = s[where]
