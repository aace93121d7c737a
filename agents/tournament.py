"""A tournament between any agents: every line-up in every seating, duplicate deals, ratings.

    from meeple.agents.tournament import run_tournament
    result = run_tournament("roll_through_the_ages", ["heuristic", "random", "mcts:200"], num_players=2, games=400)

**Schedule.** With n agents and P seats:
- n <= P: the agents are cycled over the seats as in `arena.play_games` (seat s holds agent
  (s + r) mod n for each r < n), so every agent plays every game and some hold several seats;
- n > P: every P-combination of the agents is a line-up (all C(n, P) of them, not a sample).
Each line-up is played in all its distinct seatings: every permutation of its seats
(`seating="permutations"`, the default) or only its cyclic rotations (`seating="rotations"`, P per
line-up, for 5 players or many agents). One **deal** is every seating of every line-up; `games` is
rounded up to whole deals so every agent meets every other equally often in every seat.

**Duplicate seeding.** Every game of deal d draws its chance from `np.random.default_rng([seed, d])`
(`arena.DealStreams`): the same start player and first dice, then the same block of uniforms at every
step. Swapping who sits where keeps the luck, so a seat's advantage and a lucky deal cancel out within a
deal (as in duplicate bridge); identical deterministic agents replay the same game in every seating.
Agents' own generators come from the seed (one stream per agent and batch).

**Results** (a JSON-ready dict):
- per agent (`arena.summarize`): win rate with its 95% Wilson interval over the agent's games (a win
  tied between k seats counts 1/k), mean score (per seat) with a normal 95% interval, games, seats;
- `pairwise`: a head-to-head finishing-order matrix. win_rate[a][b] is, over the games in which both
  a and b sit, the fraction of (a-seat, b-seat) pairs where a finished strictly ahead of b (higher
  return); tie_rate[a][b] the fraction of equal finishes, so win_rate[a][b] + win_rate[b][a] +
  tie_rate[a][b] = 1. With 2 players this is a's win rate against b. The diagonal is None;
- ratings: OpenSkill `PlackettLuce` (default parameters), updated once per game in schedule order
  (deal by deal) from the final ranks by return, ties sharing a rank. An agent holding several seats
  of a game enters once, ranked by the mean return of its seats. Reported as mu, sigma, ordinal
  (mu - 3 sigma, the conservative rating) and the interval mu +- 1.96 sigma. Solo tournaments have no
  pairwise matrix and no ratings (mean scores only); without openskill installed ratings are None.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from meeple.agents import make_agent
from meeple.agents.arena import play_games, summarize, unique_labels
from meeple.envs import core, make
from meeple.envs import first_use

SEATINGS = ("permutations", "rotations")


def lineups(n_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """The line-ups (agent index per seat, in base order): cycled agents if n <= P, else all P-combinations."""
    if n_agents <= num_players:
        return [tuple((s + r) % n_agents for s in range(num_players)) for r in range(n_agents)]
    return list(itertools.combinations(range(n_agents), num_players))


def seatings(n_agents: int, num_players: int, seating: str = "permutations") -> list[tuple[int, ...]]:
    """The distinct seat assignments of one deal: every line-up's permutations (or rotations), in order."""
    if seating not in SEATINGS:
        raise ValueError(f"seating must be one of {SEATINGS}, got {seating!r}")
    out: dict[tuple[int, ...], None] = {}  # an ordered set
    for base in lineups(n_agents, num_players):
        if seating == "permutations":
            orders = itertools.permutations(base)
        else:
            orders = (base[r:] + base[:r] for r in range(num_players))
        out.update(dict.fromkeys(orders))
    return list(out)


def schedule(n_agents: int, num_players: int, games: int, seating: str = "permutations") -> tuple[np.ndarray, np.ndarray]:
    """(seats (G, P), deals (G,)) int64: whole deals, deal-major, G = games rounded up to whole deals."""
    one = np.array(seatings(n_agents, num_players, seating), dtype=np.int64)
    n_deals = max(1, math.ceil(games / len(one)))
    return np.tile(one, (n_deals, 1)), np.repeat(np.arange(n_deals, dtype=np.int64), len(one))


def pairwise(n_agents: int, seats: np.ndarray, returns: np.ndarray) -> dict:
    """Head-to-head finishing order between every two agents (module docstring)."""
    seats, returns = np.asarray(seats), np.asarray(returns, dtype=np.float64)
    ahead = returns[:, :, None] > returns[:, None, :]  # (G, P, P): seat i finished ahead of seat j
    level = returns[:, :, None] == returns[:, None, :]
    win = [[None] * n_agents for _ in range(n_agents)]
    tie = [[None] * n_agents for _ in range(n_agents)]
    count = [[0] * n_agents for _ in range(n_agents)]
    for a, b in itertools.permutations(range(n_agents), 2):
        pairs = (seats == a)[:, :, None] & (seats == b)[:, None, :]
        n_pairs = pairs.sum(axis=(1, 2))
        both = n_pairs > 0
        count[a][b] = int(both.sum())
        if both.any():
            win[a][b] = float(((ahead & pairs).sum(axis=(1, 2))[both] / n_pairs[both]).mean())
            tie[a][b] = float(((level & pairs).sum(axis=(1, 2))[both] / n_pairs[both]).mean())
    return {"definition": "win_rate[a][b]: share of a's and b's seat pairs, over games with both, where a "
                          "finished strictly ahead of b (by return); ties in tie_rate",
            "win_rate": win, "tie_rate": tie, "games": count}


def openskill_ratings(n_agents: int, seats: np.ndarray, returns: np.ndarray) -> list[dict] | None:
    """OpenSkill Plackett-Luce ratings updated game by game in order; None without openskill."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    ratings = [model.rating(name=str(k)) for k in range(n_agents)]
    seats, returns = np.asarray(seats), np.asarray(returns, dtype=np.float64)
    for g in range(seats.shape[0]):
        present = np.unique(seats[g])
        if present.size < 2:
            continue
        value = np.array([returns[g, seats[g] == k].mean() for k in present])
        ranks = [1 + int((value > v).sum()) for v in value]  # ties share a rank
        new = model.rate([[ratings[k]] for k in present], ranks=ranks)
        for k, team in zip(present, new):
            ratings[k] = team[0]
    return [{"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma,
             "interval95": [r.mu - 1.96 * r.sigma, r.mu + 1.96 * r.sigma]} for r in ratings]


def run_tournament(game_name: str, agent_specs: Sequence[Any], num_players: int = 2, games: int = 400, seed: int = 0,
                   variant: dict[str, Any] | None = None, progress: bool = False, *, seating: str = "permutations",
                   duplicate: bool = True, batch_size: int | None = None, record: bool = False) -> dict:
    """Play the tournament between `agent_specs` and return a JSON-ready dict (module docstring).

    Args:
        game_name: a key of `meeple.envs.GAMES`.
        agent_specs: `make_agent` specs ("random", "heuristic", "mcts:200", "ppo:<path>") or agent
            objects (with `name` and `act`); repeated names get `#index` labels.
        num_players: seats per game.
        games: at least this many games; rounded up to whole deals.
        seed: seeds the deals and the agents' generators.
        variant: the game's variant flags.
        progress: show a tqdm bar over finished games.
        seating: "permutations" (every seat order of a line-up) or "rotations" (cyclic shifts only).
        duplicate: share each deal's chance stream among its games (False: every game its own deal).
        batch_size: play at most about this many games per batch (whole deals; None: one batch),
            to bound memory (an MCTS tree per searched row).
        record: keep every game's actions in per_game["actions"].
    Returns:
        {"game", "config", "num_players", "specs", "seating", "duplicate", "games", "deals",
        "games_per_deal", "seed", "steps", "truncated", "agents": [per agent: the `summarize` fields
        plus "rating" (or None)], "rating_model", "pairwise" (None solo), "per_game": {"seat_agent",
        "deal", "scores", "returns", "length"[, "actions"]}}.
    """
    if not agent_specs:
        raise ValueError("a tournament needs at least one agent")
    variant = dict(variant or {})
    game = make(game_name, num_players=num_players, **variant)
    first_use.wait_for_kernels()  # a tournament is timed: not as Python while its kernels compile
    agents = [make_agent(s, game_name, num_players, **variant) if isinstance(s, str) else s for s in agent_specs]
    labels = unique_labels([s if isinstance(s, str) else str(s.name) for s in agent_specs])
    n, P = len(agents), game.num_players
    seats, deals = schedule(n, P, games, seating)
    per_deal = int((deals == 0).sum())
    G, n_deals = len(deals), int(deals[-1]) + 1
    if not duplicate:
        deals = np.arange(G, dtype=np.int64)
    deals_per_batch = n_deals if not batch_size else max(1, batch_size // per_deal)

    # --- play, whole deals per batch ---
    parts = []
    with tqdm(total=G, disable=not progress, unit="game", desc=f"{game_name} tournament", smoothing=0.05) as bar:
        for k, first in enumerate(range(0, n_deals, deals_per_batch)):
            rows = slice(first * per_deal, min(n_deals, first + deals_per_batch) * per_deal)
            parts.append(play_games(game, agents, rows.stop - rows.start, seed, names=labels, seats=seats[rows],
                                    deals=deals[rows], record=record, agent_seed=[seed, k],
                                    progress=bar if progress else False))
    per_game = {key: sum((part["per_game"][key] for part in parts), []) for key in parts[0]["per_game"]}
    returns = np.array(per_game["returns"], dtype=np.float64)

    # --- results ---
    summaries = summarize(labels, seats, np.array(per_game["scores"]), returns)
    ratings = openskill_ratings(n, seats, returns) if P > 1 else None
    for k, s in enumerate(summaries):
        s["rating"] = ratings[k] if ratings else None
    return {
        "game": game_name,
        "config": asdict(game.config),
        "num_players": P,
        "specs": [s if isinstance(s, str) else str(s.name) for s in agent_specs],
        "seating": seating,
        "duplicate": duplicate,
        "games": G,
        "deals": n_deals,
        "games_per_deal": per_deal,
        "seed": seed,
        "steps": sum(part["steps"] for part in parts),
        "truncated": sum(part["truncated"] for part in parts),
        "agents": summaries,
        "rating_model": ("openskill PlackettLuce (default parameters), one update per game in schedule order; "
                         "interval95 = mu +- 1.96 sigma, ordinal = mu - 3 sigma") if ratings else None,
        "pairwise": pairwise(n, seats, returns) if P > 1 else None,
        "per_game": per_game,
    }


# --- time per decision ------------------------------------------------------------------------

def heuristic_positions(game: Any, heuristic: Any, batch: int, moves: int, seed: int) -> Any:
    """Up to `batch` unfinished positions: 2 x `batch` seeded games of the heuristic in every seat, each
    advanced by `moves` moves (finished rows wait)."""
    rng = np.random.default_rng(seed)
    state = game.init(rng, 2 * batch)
    for _ in range(moves):
        live = ~state.done
        actions = np.argmax(game.legal_action_mask(state), axis=1)  # finished rows: any action, ignored
        if live.any():
            actions[live] = heuristic.act(game, core.take(state, np.flatnonzero(live)), rng)
        state = game.step(state, actions, rng)
    return core.take(state, np.flatnonzero(~state.done)[:batch])


def ms_per_decision(game: Any, agents: list[Any], state: Any, repeats: int, seed: int) -> list[float]:
    """Each agent's milliseconds per decision on the rows of `state`: a first call on two rows (compiles or
    loads kernels), then `repeats` calls on every row, agents in turn; the median call / rows."""
    rows = core.batch_size(state)
    for agent in agents:
        agent.act(game, core.take(state, np.arange(min(2, rows))), np.random.default_rng(seed))
    times: list[list[float]] = [[] for _ in agents]
    for repeat in range(repeats):
        for k, agent in enumerate(agents):
            start = time.perf_counter()
            agent.act(game, state, np.random.default_rng(seed + 1 + repeat))
            times[k].append(time.perf_counter() - start)
    return [1000 * float(np.median(t)) / rows for t in times]
