"""Regenerate the generated tables of README.md and docs/ (and check they are current).

    python scripts/gen_docs.py           # rewrite the generated sections
    python scripts/gen_docs.py --check   # exit 1 if a page is out of date (tests/test_docs.py)

A page marks each generated section with `<!-- BEGIN GENERATED: key -->` ... `<!-- END GENERATED -->`.

- docs/<game>.md: `actions` (from the game's data.ACTION_GROUPS), `observation` (the default encoder's
  blocks) and `state` (the field table in envs/<game>/state.py).
- README.md and docs/performance.md: tables of measured figures, from benchmarks/results.json (written by
  the benchmark scripts and scripts/run.sh, see benchmarks/results.py) and agents/baselines/baselines.json
  (written by scripts/ship_baseline.py): `games` (the games with their speed), `first_run` (the main job and
  the tests, phase by phase), `baselines` (the heuristics against random play), `nets` (the shipped trained
  nets), `cold_start` and `peers` (docs/performance.md). Each table says when, on which commit and machine
  its figures were measured.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

import numpy as np

from meeple.envs import GAMES, default_encoder, make

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results.json"
BASELINES = ROOT / "agents" / "baselines" / "baselines.json"
TITLES = {"roll_through_the_ages": "Roll Through the Ages", "hadara": "Hadara", "carpe_diem": "Carpe Diem",
          "attika": "Attika", "utopia": "Utopia"}
SECTION = re.compile(r"(<!-- BEGIN GENERATED: (\w+) -->\n)(.*?)(<!-- END GENERATED -->)", re.DOTALL)


def action_table(name: str) -> str:
    data = importlib.import_module(f"meeple.envs.{name}.data")
    last_group = data.ACTION_GROUPS[-1]
    names = data.action_names(last_group[0] + last_group[1])
    rows = ["| Index | Name | Phase | Meaning |", "|---|---|---|---|"]
    for first, count, _, phase, meaning in data.ACTION_GROUPS:
        last = first + count - 1
        index = str(first) if count == 1 else f"{first}..{last}"
        shown = f"`{names[first]}`" if count == 1 else f"`{names[first]}` … `{names[last]}`"
        rows.append(f"| {index} | {shown} | {phase} | {meaning} |")
    return "\n".join(rows)


def observation_table(name: str) -> str:
    config = GAMES[name].test_configs[-1]
    encoder = default_encoder(name, make(name, **config))
    return f"Total size: **{encoder.size}** float32 values.\n\n" + encoder.layout_table()


def state_table(name: str) -> str:
    """The game's field table (envs/<game>/state.py): the one description of every state field."""
    from meeple.envs.base import field_range

    state = importlib.import_module(f"meeple.envs.{name}.state")
    rows = ["| Field | Shape | Type | Range | Visible to | Meaning |", "|---|---|---|---|---|---|"]
    seen = {"public": "everyone", "private": "its owner", "hidden": "nobody"}
    for f in state.FIELDS:
        shape = "(B" + "".join(f", {d}" for d in f.shape) + ("," if not f.shape else "") + ")"
        bounds = field_range(f, 2)
        shown = "" if bounds is None else f"{f.lo if f.lo is not None else bounds[0]}..{f.hi if f.hi is not None else 'max'}"
        rows.append(f"| `{f.name}` | {shape} | {np.dtype(f.dtype).name} | {shown} | {seen[f.visibility]} | {f.doc} |")
    if state.VIEW_FIELDS:
        rows += ["", "A seat's `View` holds the viewer, every field visible to everyone, and these fields the observe "
                 "kernel writes for it:", "", "| View field | Shape | Meaning |", "|---|---|---|"]
        for f in state.VIEW_FIELDS:
            rows.append(f"| `{f.name}` | (B{''.join(f', {d}' for d in f.shape)}) | {f.doc} |")
    return "\n".join(rows)


GENERATORS = {"actions": action_table, "observation": observation_table, "state": state_table}


# --- measured figures: benchmarks/results.json and agents/baselines/baselines.json -----------------------

def title(name: str) -> str:
    return TITLES.get(name, name.replace("_", " ").title())


def n(x: float | None, spec: str = ",.0f") -> str:
    """A figure, or — where the results file has none."""
    return "—" if x is None else format(x, spec)


def pct(rate: float | None, ci: list[float] | None = None) -> str:
    """62.0% [55.1, 68.4]: a rate with its 95% interval, in percent."""
    if rate is None:
        return "—"
    out = f"{100 * rate:.1f}%"
    return out + (f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else "")


def minutes(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds / 60:.1f} min"


def provenance(entry: dict) -> str:
    """When, on which tree and machine an entry was measured, as far as the results file knows."""
    m = entry.get("machine") or {}
    parts = [f"measured {entry['date']}" if entry.get("date") else "date not recorded"]
    if entry.get("commit"):
        parts.append(f"commit {entry['commit']}" + (" with uncommitted edits" if entry.get("dirty") else ""))
    elif entry.get("recorded_in"):
        parts.append(f"recorded in commit {entry['recorded_in']}")
    machine = m.get("cpu_model") or m.get("description")
    if machine:
        cores = f", {m['cores']} cores" if m.get("cores") and m.get("cpu_model") else ""
        versions = ", ".join(f"{k} {m[k]}" for k in ("python", "numba") if m.get(k))
        parts.append(machine + cores + (f" ({versions})" if versions else ""))
    return "; ".join(parts)


def source_line(entry: dict) -> str:
    note = f" {entry['note'][0].upper()}{entry['note'][1:]}." if entry.get("note") else ""
    return f"Source: `{entry['script']}`; {provenance(entry)}.{note}"


def games_table(results: dict, baselines: dict) -> str:
    """README's games table: what each game is (from the code) and how fast it runs (results.json `peers`)."""
    from meeple.cli import game_rows

    entry = results["entries"].get("peers") or {"figures": {"games": {}, "peers": {}}, "script": "benchmarks/peers.py"}
    fig = entry["figures"]
    rows = ["| Game | Players | Actions | Observation | AEC `env()` steps/s | × OpenSpiel (paired median) "
            "| Core steps/s, B=4096 | + learner's observation |", "|---|---|---|---|---|---|---|---|"]
    for r in game_rows():
        g = fig["games"].get(r["game"], {})
        players = f"{r['players'][0]}–{r['players'][-1]}" if len(r["players"]) > 1 else str(r["players"][0])
        actions = f"{r['actions']:,}" + "".join(f" ({v:,} with {k})" for k, v in r["variant_actions"].items())
        rows.append(f"| [{title(r['game'])}](docs/{r['game']}.md) | {players} | {actions} | {r['observation']:,} "
                    f"| {n(g.get('aec'))} | {n(g.get('paired_median'), '.2f')} | {n(g.get('core'))} "
                    f"| {n(g.get('core_encode'))} |")
    peers = fig.get("peers", {})
    rows += ["", f"Random legal play at {fig.get('num_players', 2)} players, {fig.get('seconds', '?')} s per row. "
             f"Beside it in the same run: OpenSpiel backgammon with observation {n(peers.get('openspiel_backgammon_obs'))} "
             f"steps/s, pgx backgammon {n(peers.get('pgx_backgammon_b256'))} at B=256, PettingZoo `connect_four_v3` "
             f"{n(peers.get('pettingzoo_connect_four_aec'))}. {source_line(entry)}"]
    return "\n".join(rows)


def first_run_table(results: dict, baselines: dict) -> str:
    """README's table of the two commands: time per phase, and the main job's result."""
    job = results["entries"].get("main_job")
    tests = results["entries"].get("test_run")
    rows = ["| Command | Phase | First run | Later run |", "|---|---|---|---|"]
    if job:
        first, later = job["figures"].get("first_run") or {}, job["figures"].get("later_run") or {}
        games = ", ".join(title(g) for g in first.get("compiled_games", []))
        for key, label in (("install_s", "install (pip, into `.venv`)"),
                           ("compile_s", f"compile the kernels ({games or '—'}; first run: the wait after the install)"),
                           ("training_s", "training"), ("tournament_s", "tournament"),
                           ("training_and_tournament_s", "training and tournament"), ("total_s", "**total**")):
            if key in first or key in later:
                rows.append(f"| `bash scripts/run.sh` | {label} | {minutes(first.get(key))} | {minutes(later.get(key))} |")
    if tests:
        f = tests["figures"]
        rows.append(f"| `bash scripts/test.sh` | **total** (of which compiling: {minutes(f.get('cold_compile_s'))}) "
                    f"| {minutes(f.get('cold_s'))} | {minutes(f.get('cached_s'))} |")
    out = "\n".join(rows)
    if job:
        t = job["figures"].get("tournament") or {}
        h, r = t.get("policy_vs_heuristic") or {}, t.get("policy_vs_random") or {}
        out += (f"\n\nThe main job's result: the trained policy alone against the heuristic in their "
                f"**{n(h.get('games'))}** head-to-head games of the {n(t.get('games'))}-game tournament: "
                f"**{pct(h.get('win_rate'), h.get('win_ci95'))}** (95% interval)"
                + (f"; against random play {pct(r.get('win_rate'), r.get('win_ci95'))} of {n(r.get('games'))}" if r else "")
                + ".\n\n" + "\n\n".join(source_line(e) for e in (job, tests) if e))
    return out


def baselines_table(results: dict, baselines: dict) -> str:
    """The heuristics against random play (results.json `heuristic_vs_random`)."""
    entry = results["entries"].get("heuristic_vs_random")
    if not entry:
        return "(no figures in benchmarks/results.json)"
    rows = ["| Game | heuristic vs random | heuristic mean score | random mean score |", "|---|---|---|---|"]
    for name in GAMES:
        g = entry["figures"]["games"].get(name)
        if g:
            rows.append(f"| {title(name)} | {pct(g['win_rate'], g['win_ci95'])} of {g['games']:,} "
                        f"| {n(g.get('heuristic_mean_score'), '.1f')} | {n(g.get('random_mean_score'), '.1f')} |")
    return "\n".join(rows) + "\n\n" + source_line(entry)


def nets_table(results: dict, baselines: dict) -> str:
    """The shipped trained nets (agents/baselines/baselines.json), the policy alone."""
    rows = ["| Agent | Game, players | Training | vs heuristic | vs random | With search, vs heuristic | Measured |",
            "|---|---|---|---|---|---|---|"]
    for name, b in baselines["baselines"].items():
        policy = {p["opponent"]: p for p in b["policy"]}
        h, r = policy.get("heuristic"), policy.get("random")
        if b["num_players"] > 2 and "one_seat_vs_heuristics" in b:
            o = b["one_seat_vs_heuristics"]
            vs_h = (f"first in {pct(o['first_place_rate'], o['first_place_ci95'])} of {o['games']:,} "
                    f"(one seat against {b['num_players'] - 1} heuristics; 1/{b['num_players']} = "
                    f"{100 / b['num_players']:.0f}%)")
        else:
            vs_h = "—" if h is None else f"{pct(h['win_rate'], h['win_ci95'])} of {h['games']:,}"
        vs_r = "—" if r is None else f"{pct(r['win_rate'], r['win_ci95'])} of {r['games']:,}"
        # an advantage run: hours and labelled states (an exit run's minutes are its whole story)
        training = (f"{b['train_minutes'] / 60:.1f} h, {b['labelled_states']:,} labelled states"
                    if "labelled_states" in b else f"{b['train_minutes']:g} min")
        s = next((x for x in b.get("search", ()) if x["opponent"] == "heuristic" and "spec" in x), None)
        search = "—" if s is None else (f"`{s['spec'].split(':', 2)[2]}`: {pct(s['win_rate'], s['win_ci95'])} of "
                                       f"{s['games']:,}, {s['ms_per_decision']:g} ms per decision")
        rows.append(f"| `net:{name}` | {title(b['game'])}, {b['num_players']} | {training} "
                    f"| {vs_h} | {vs_r} | {search} | {b.get('measured', '—')} |")
    return "\n".join(rows) + ("\n\nSource: `agents/baselines/baselines.json` (written by `scripts/ship_baseline.py`, "
                              "with each net's training command).")


def cold_start_table(results: dict, baselines: dict) -> str:
    """docs/performance.md: first use of each game on a cold and on a filled compile cache."""
    entry = results["entries"].get("cold_start")
    if not entry:
        return "(no figures in benchmarks/results.json)"
    rows = ["| Game | first use, cold cache (s) | background compile ready after (s) | first use, cached (s) |",
            "|---|---|---|---|"]
    for name, g in entry["figures"]["games"].items():
        rows.append(f"| {title(name)} | {n(g.get('cold_first_use_s'), '.2f')} | {n(g.get('compile_ready_s'), '.0f')} "
                    f"| {n(g.get('cached_first_use_s'), '.2f')} |")
    return "\n".join(rows) + "\n\n" + source_line(entry)


def peers_table(results: dict, baselines: dict) -> str:
    """docs/performance.md: the whole peers.py run, ratios included."""
    entry = results["entries"].get("peers")
    if not entry:
        return "(no figures in benchmarks/results.json)"
    fig = entry["figures"]
    rows = ["| Game | AEC `env()` | × OpenSpiel | paired × OpenSpiel: median (quartiles; smallest) | core B=4096 "
            "| × pgx best | core + observation B=4096 |", "|---|---|---|---|---|---|---|"]
    for name, g in fig["games"].items():
        paired = (f"{n(g.get('paired_median'), '.2f')} ({n(g.get('paired_q1'), '.2f')}–{n(g.get('paired_q3'), '.2f')}; "
                  f"{n(g.get('paired_min'), '.2f')})" if g.get("paired_median") is not None else "—")
        rows.append(f"| {title(name)} | {n(g.get('aec'))} | {n(g.get('aec_vs_openspiel'), '.2f')} | {paired} "
                    f"| {n(g.get('core'))} | {n(g.get('core_vs_pgx_best'), '.1f')} | {n(g.get('core_encode'))} |")
    p = fig.get("peers", {})
    rows += ["", "| Peer | steps/s |", "|---|---|",
             f"| PettingZoo `connect_four_v3` AEC | {n(p.get('pettingzoo_connect_four_aec'))} |",
             f"| OpenSpiel backgammon + observation (decisions) | {n(p.get('openspiel_backgammon_obs'))} |",
             f"| pgx backgammon, B = 256 | {n(p.get('pgx_backgammon_b256'))} |",
             f"| pgx backgammon, B = 4096 | {n(p.get('pgx_backgammon_b4096'))} |"]
    return "\n".join(rows) + "\n\n" + source_line(entry)


MEASURED = {"games": games_table, "first_run": first_run_table, "baselines": baselines_table, "nets": nets_table,
            "cold_start": cold_start_table, "peers": peers_table}
MEASURED_PAGES = ("README.md", "docs/performance.md")


def render(name: str, text: str) -> str:
    return SECTION.sub(lambda m: m.group(1) + GENERATORS[m.group(2)](name) + "\n" + m.group(4), text)


def render_measured(text: str, results: dict, baselines: dict) -> str:
    """`text` with its measured-figure sections rendered from `results` and `baselines`."""
    return SECTION.sub(lambda m: m.group(1) + MEASURED[m.group(2)](results, baselines) + "\n" + m.group(4), text)


def load_json(path: Path) -> dict:
    return json.loads(path.read_text())


def rendered(results: dict | None = None, baselines: dict | None = None) -> dict[Path, tuple[str, str]]:
    """{page: (text on disk, text as generated)} for every page with generated sections; `results` and
    `baselines` default to benchmarks/results.json and agents/baselines/baselines.json."""
    results = load_json(RESULTS) if results is None else results
    baselines = load_json(BASELINES) if baselines is None else baselines
    out = {}
    for name in GAMES:
        path = ROOT / "docs" / f"{name}.md"
        text = path.read_text()
        out[path] = (text, render(name, text))
    for page in MEASURED_PAGES:
        path = ROOT / page
        if path.exists():
            text = path.read_text()
            out[path] = (text, render_measured(text, results, baselines))
    return out


def stale(results: dict | None = None, baselines: dict | None = None) -> list[str]:
    """The pages whose generated sections differ from what the code and the figures give."""
    return [str(path.relative_to(ROOT)) for path, (old, new) in rendered(results, baselines).items() if old != new]


def main(check: bool) -> int:
    pages = rendered()
    out_of_date = [str(path.relative_to(ROOT)) for path, (old, new) in pages.items() if old != new]
    if check and out_of_date:
        print(f"out of date: {out_of_date}; run python scripts/gen_docs.py")
        return 1
    if not check:
        for path, (old, new) in pages.items():
            if old != new:
                path.write_text(new)
    print("docs updated: " + (", ".join(out_of_date) or "nothing to do"))
    return 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv))
