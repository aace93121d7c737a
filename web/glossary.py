"""What the codes the pictures and the move labels show mean, in words taken from the games' data tables.

The pictures and `action_to_str` use the rules' own short codes: Hadara's card codes (`II-P07`), colonies
(`C14`) and purple abilities (`SELL_BONUS`), Carpe Diem's scoring cards (`B09 W+G+H>5VP`), tiles (`L04`) and
frame tasks (`m3`), Attika's building types (`Qu`), tiles (`T05`) and landscape letters, Utopia's districts
(`FIR-3`) and civilizations (`MAY`), every game's decision names (`A_DRAFT`) and action names
(`PICK_Y_BUY`). `find(game_name, text)` returns each code in a text with its explanation; the browser app's
board (`web/targets.py`) puts them on the page as tooltips over the picture and as the page's list of the
codes on the board (docs/web.md).

Every explanation is built from the game's `data` tables (names, numbers, and each action group's meaning
in `ACTION_GROUPS`) and, where they already say it in words, the game's text views (`render`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

MAX_DECISION_TEXT = 240  # characters of a decision's explanation (the meanings of the moves it offers)


class Code(NamedTuple):
    """A code found in a text: where it is (start, end), the code, what it means there, and its line in the
    page's list of codes (the same, except for an action name: its group's pattern and meaning)."""

    start: int
    end: int
    code: str
    text: str
    entry: str = ""

    @property
    def line(self) -> str:
        return self.entry or self.text


Rule = tuple[re.Pattern, Callable[[re.Match], "tuple[str, str] | None"]]


class Glossary:
    """One game's codes: fixed codes (`entries`, found as whole words) and pattern rules (`rules`, each a
    regex and a function of its match giving (code, explanation) or None; the code's place in the text is
    the regex's group "at", else the whole match); `groups` gives each action name its group's pattern and
    meaning."""

    def __init__(self, entries: dict[str, str], rules: list[Rule], groups: dict[str, tuple[str, str]]) -> None:
        self.entries = entries
        self.rules = rules
        self.groups = groups
        words = sorted(entries, key=len, reverse=True)
        self.pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, words)) + r")(?![\w-])") if words else None

    def find(self, text: str) -> list[Code]:
        """The codes in `text`, in order; where matches overlap, the rule's (listed first) or the longer wins."""
        found: list[Code] = []
        taken: list[tuple[int, int]] = []

        def free(a: int, b: int) -> bool:
            return all(b <= s or a >= e for s, e in taken)

        for regex, explain in self.rules:
            for match in regex.finditer(text):
                hit = explain(match)
                span = match.span("at") if "at" in regex.groupindex else match.span()
                if hit and free(*span):
                    line = hit[1] if hit[1].startswith(hit[0]) else f"{hit[0]}: {hit[1]}"  # each line names its code
                    found.append(Code(span[0], span[1], hit[0], line))
                    taken.append(span)
        if self.pattern is not None:
            for match in self.pattern.finditer(text):
                if free(*match.span(1)):
                    found.append(Code(match.start(1), match.end(1), match.group(1), self.entries[match.group(1)]))
                    taken.append(match.span(1))
        return sorted(found)

    def action(self, name: str) -> tuple[str, str] | None:
        """(the group's pattern, its meaning) of action name `name`, or None."""
        return self.groups.get(name)


def _groups(data: Any, game: Any) -> list[tuple]:
    """The action groups of the game's encoding (Attika has two): of the tables in `data`, the groups that
    lie within its actions and whose names match the game's action names (a variant's extra actions, such as
    Roll Through the Ages' trade, are left out when the game has none)."""
    best: list[tuple] = []
    for table in ("ACTION_GROUPS", "FLAT_ACTION_GROUPS"):
        groups = [g for g in getattr(data, table, ()) if g[0] + g[1] <= game.num_actions]
        if all(game.action_names[first].startswith(pattern.split("{")[0]) for first, _, pattern, _, _ in groups) \
                and sum(g[1] for g in groups) > sum(g[1] for g in best):
            best = groups
    return best


def _common(data: Any, game: Any) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """The decisions (each explained by the meanings of the moves it offers) and the action names."""
    groups = _groups(data, game)
    names = game.action_names
    actions = {}
    for first, count, pattern, _, meaning in groups:
        for a in range(first, first + count):
            actions[names[a]] = (pattern, meaning)
    decisions = {}
    for d in getattr(data, "DECISION_NAMES", ()):
        meanings = list(dict.fromkeys(meaning for _, _, _, where, meaning in groups
                                      if d in [w.strip() for w in where.split(",")]))
        text = "; ".join(meanings) if meanings else ("the game is over" if d == "GAME_OVER" else "")
        if text:
            if len(text) > MAX_DECISION_TEXT:
                text = text[:MAX_DECISION_TEXT - 3].rsplit(" ", 1)[0] + "..."
            decisions[d] = f"decision {d}: {text}"
    return decisions, actions


def _amounts(values: Any, names: tuple) -> str:
    return ", ".join(f"+{int(v)} {names[k]}" for k, v in enumerate(values) if v)


# --- per game -----------------------------------------------------------------------------------------

def _hadara(game: Any) -> Glossary:
    from meeple.envs.hadara import data as d

    entries, actions = _common(d, game)
    ability = {
        d.SELL_BONUS: f"+{d.SELL_BONUS_COINS} coin on every sale, per copy",
        d.TILE_STEPS: f"assign a free bonus tile to the card: +{d.TILE_STEPS_STEPS} steps on that tile's track",
        d.PER_BLUE_CUL: "+1 culture step per blue card in the tableau",
        d.PER_YELLOW_INC: "+1 income step per yellow card in the tableau",
        d.PER_GREEN_FOOD: "+1 food step per green card in the tableau",
        d.PER_RED_MIL: "+1 military step per red card in the tableau",
        d.COLONY_COINS: f"+{d.COLONY_COINS_AMOUNT} coins on taking a colony, before plundering or allying",
        d.CHEAP_SEALS: "seals cost less: silver " + "/".join(map(str, d.CHEAP_SILVER_PRICE.tolist()))
                       + ", gold " + "/".join(map(str, d.CHEAP_GOLD_PRICE.tolist())) + " coins in epochs I/II/III",
        d.TRACK_INCOME: f"each Income: +{d.TRACK_INCOME_PER} coins per other track above income, at most "
                        f"{d.TRACK_INCOME_MAX} per copy",
        d.FOOD_SURPLUS: f"after Feeding: +{d.FOOD_SURPLUS_PER_POINT} coins per food above the card count, at most "
                        f"{d.FOOD_SURPLUS_MAX} per copy",
        d.BUST_BOOST: f"every carved bust gives +{d.BUST_BOOST_STEPS} more: steps (front tile) or VP (back tile)",
        d.FEED_COINS: f"Feeding: pay {d.FEED_COINS_COST} coins to cover one card, at most {d.FEED_COINS_MAX_CARDS} cards",
        d.SILVER_FULL: "a silver seal scores its whole track instead of half, one seal per copy",
        d.SET_POINTS: f"+{d.SET_POINTS_VP} VP per complete 5-colour set, per copy",
        d.REQ_MINUS_4: f"colonies and busts need {d.REQ_MINUS} military / culture less",
        d.GOLD_WILDCARD: "gold seals count one more set when a single colour is missing from the next set",
        d.DOUBLE_SECTION: "two colonies / busts per section instead of one",
        d.BUY_REQUIREMENT: f"missing military / culture for a colony or bust may be bought at "
                           f"{d.BUY_REQUIREMENT_COINS_PER_POINT} coins a point, at most "
                           f"{d.BUY_REQUIREMENT_MAX_COINS} coins a section",
    }
    for a, name in enumerate(d.ABILITY_NAMES):
        entries[name] = f"purple ability {name}: {ability[a]}"
    for card, name in enumerate(d.CARD_NAMES):
        colour = d.COLOUR_NAMES[int(d.CARD_COLOUR[card])]
        parts = [f"price {int(d.CARD_PRICE[card])} coins"]
        steps = _amounts(d.CARD_TRACKS[card], d.TRACK_NAMES)
        if steps:
            parts.append(steps)
        parts.append(f"{int(d.CARD_VP[card])} VP")
        text = f"card {name}: epoch {d.EPOCH_NAMES[int(d.CARD_EPOCH[card])]} {colour} card, {', '.join(parts)}"
        a = int(d.CARD_ABILITY[card])
        if a >= 0:
            text += f"; ability {d.ABILITY_NAMES[a]}: {ability[a]}"
            if d.CARD_STARRED[card]:
                text += " (advanced game)"
        entries[name] = text
    for c, name in enumerate(d.COLONY_NAMES):
        back = _amounts(d.COLONY_BACK_TRACKS[c], d.TRACK_NAMES)
        entries[name] = (f"colony {name} of tier {int(d.COLONY_TIER[c])}, allied: its back gives "
                         f"{back + ', ' if back else ''}{int(d.COLONY_BACK_VP[c])} VP")
    entries["plun"] = "a plundered colony (its back stays secret)"
    tracks = {name[:3]: f"{name[:3]}: a silver seal scoring the {name} track" for name in d.TRACK_NAMES}
    rules: list[Rule] = [
        (re.compile(r"^(inc|mil|cul|foo)$"), lambda m: (m.group(1), tracks[m.group(1)])),
    ]
    return Glossary(entries, rules, actions)


def _roll_through_the_ages(game: Any) -> Glossary:
    from meeple.envs.roll_through_the_ages import data as d

    entries, actions = _common(d, game)
    for k, name in enumerate(d.DEVELOPMENT_NAMES):
        entries[name] = (f"development {name}: costs {int(d.DEVELOPMENT_COST[k])} coins, scores "
                         f"{int(d.DEVELOPMENT_POINTS[k])} points")
    for m, name in enumerate(d.MONUMENT_NAMES):
        entries[name] = (f"monument {name}: {int(d.MONUMENT_WORKERS[m])} workers; {int(d.MONUMENT_FIRST[m])} points to "
                         f"the first to complete it, {int(d.MONUMENT_LATER[m])} to the later ones")
    entries["food/wk"] = "a food-or-workers die: its owner chooses food or workers (FW_FOOD, FW_WORKERS)"
    return Glossary(entries, [], actions)


def _carpe_diem(game: Any) -> Glossary:
    from meeple.envs.carpe_diem import data as d
    from meeple.envs.carpe_diem.render import COUNTABLE_SHORT, FEATURE_CHAR, GOOD_LETTERS, KIND_CHAR, card_text

    entries, actions = _common(d, game)
    for card, name in enumerate(d.CARD_NAMES):
        colour = "red: pay goods" if d.CARD_RED[card] else "green: count features"
        entries[name] = f"scoring card {card_text(card)}, per unit ({colour})"
    centre = ("", "a market", "a bakery", "a fountain")
    for t, name in enumerate(d.TILE_NAMES):
        sides = []
        for side, where in enumerate(("north", "east", "south", "west")):
            labels = {int(d.TILE_PORTS[t, 2 * side]), int(d.TILE_PORTS[t, 2 * side + 1])} - {d.MEADOW}
            features = [d.FEATURE_NAMES[int(d.LABEL_FEATURE[lab])] for lab in sorted(labels)]
            if features:
                sides.append(f"{where} {' / '.join(features)}")
        parts = ["light" if t < d.NUM_LIGHT else "dark", "building tile"]
        text = f"tile {name}: {' '.join(parts)}: {', '.join(sides) or 'meadow only'}"
        if d.TILE_CENTRE[t]:
            text += f"; {centre[int(d.TILE_CENTRE[t])]} in the centre"
        if d.TILE_CHIMNEYS[t]:
            text += f"; {int(d.TILE_CHIMNEYS[t])} chimneys"
        entries[name] = text
    fountain = {short: (f"{short}: a fountain card of kind {d.FEATURE_NAMES[k]}, {d.FOUNTAIN_CARD_VP} VP per "
                        f"{'' if k in (d.MARKET, d.BAKERY, d.FOUNTAIN) else 'completed '}{d.FEATURE_NAMES[k]}")
                for k, short in enumerate(d.FEATURE_SHORT)}
    kinds = "|".join(sorted(map(re.escape, fountain), key=len, reverse=True))
    ports = ", ".join(f"{ch} {'meadow' if lab == d.MEADOW else d.FEATURE_NAMES[int(d.LABEL_FEATURE[lab])]}"
                      for lab, ch in enumerate(d.LABEL_CHARS))
    goods = ", ".join(f"{GOOD_LETTERS[g]} {d.GOOD_NAMES[g]}" for g in range(d.NUM_GOODS))
    feature_of = {ch: d.FEATURE_NAMES[k] for k, ch in enumerate(FEATURE_CHAR)}
    task_of = {ch: d.FEATURE_NAMES[k] for k, ch in KIND_CHAR.items()}
    countable = dict(zip(COUNTABLE_SHORT, d.FEATURE_NAMES + ("chimneys", "lodgings (any)", "landscapes (any)")))

    def completed(m: re.Match) -> tuple[str, str]:
        items = [f"{feature_of[tok[0]]} {tok[1:]}" for tok in m.group(1).split()]
        return m.group(1), "completed features: " + ", ".join(items)

    card_of = {name: entries[name] for name in d.CARD_NAMES}
    rules: list[Rule] = [
        (re.compile(r"^goods (?P<at>(?:[WGHP]\d+ ?)+\b)"), lambda m: (m.group("at"), f"goods: {goods}")),
        (re.compile(r"^completed: (?P<at>(?:[WGHPmbacMBFV]\d+ ?)+\b)"), completed),
        (re.compile(r"^([VmbacWGHP])([345])$"),
         lambda m: (m.group(0), f"frame task {m.group(0)}: {task_of[m.group(1)]} in the row or column it marks, "
                                f"{m.group(2)} VP once met")),
        (re.compile(rf"^(?P<at>{kinds}) x\d+$"), lambda m: (m.group("at"), fountain[m.group("at")])),
        (re.compile(rf"(?:fountain cards: |returned )(?P<at>(?:{kinds})(?: x\d+)?(?:, (?:{kinds})(?: x\d+)?)*)"),
         lambda m: (m.group("at"), "fountain cards: " + "; ".join(fountain[k.split()[0]] for k in m.group("at").split(", ")))),
        (re.compile(r"(?<![\w.])(?:[.VmbacWGHP]{2} ){3}[.VmbacWGHP]{2}(?![\w.])"),
         lambda m: (m.group(0), f"a tile's ports, two per side, north east south west: {ports}")),
        (re.compile(r"(?<![\w-])([A-D]\d\d)(?: (?:\d*(?:" + "|".join(sorted(map(re.escape, countable), key=len, reverse=True))
                    + r")\+?)+>(?:\d+(?:VP|c|b|s))+)?(?![\w-])"),
         lambda m: (m.group(1), card_of[m.group(1)]) if m.group(1) in card_of else None),
    ]
    return Glossary(entries, rules, actions)


def _attika(game: Any) -> Glossary:
    from meeple.envs.attika import data as d
    from meeple.envs.attika.render import GROUP_SHORT, TILE_NAMES, TYPE_CODES

    entries, actions = _common(d, game)
    lands = dict(zip(d.LANDSCAPES, d.LANDSCAPE_NAMES))
    types = {}
    for t, code in enumerate(TYPE_CODES):
        cost = " ".join(f"{d.LANDSCAPES[k]}{int(v)}" for k, v in enumerate(d.COST[t]) if v)
        if t == d.ROAD:
            cost = f"{d.ROAD_COST} any"
        after = int(d.PREDECESSOR[t])
        text = f"{code}: {d.BUILDING_NAMES[t]} ({d.GROUP_NAMES[int(d.BUILDING_GROUP[t])]} group, costs {cost or 'nothing'}"
        text += f", free next to an own {d.BUILDING_NAMES[after]})" if after >= 0 else ", a main building)"
        types[code] = text
    for x, name in enumerate(TILE_NAMES):
        fields = ", ".join(lands.get(ch, "blank") for ch in d.TILE_CODES[x])
        entries[name] = f"map tile {name}: 7 fields, centre first then E NE NW W SW SE: {fields}"
    groups = dict(zip(GROUP_SHORT, d.GROUP_NAMES))
    rules: list[Rule] = [
        (re.compile(r"^(" + "|".join(TYPE_CODES) + r")(\d*)$"),
         lambda m: (m.group(1), types[m.group(1)] + (f"; {m.group(2)} waiting" if m.group(2) else ""))),
        (re.compile(r"^([WFHM]) (\d+)$"), lambda m: (m.group(1), f"{m.group(1)}: {lands[m.group(1)]} cards in your hand")),
        (re.compile(r"(?<![\w-])([WFHM])(\d+)(?![\w-])"),
         lambda m: (m.group(1), f"{m.group(1)}: {lands[m.group(1)]} (landscape cards)")),
        (re.compile(r"groups rewarded: (?P<at>\w+(?:, \w+)*)"),
         lambda m: (m.group("at"), "groups rewarded: " + ", ".join(groups.get(g.strip(), g) for g in m.group("at").split(",")))),
    ]
    return Glossary(entries, rules, actions)


def _utopia(game: Any) -> Glossary:
    from meeple.envs.utopia import data as d

    entries, actions = _common(d, game)
    for k, code in enumerate(d.DISTRICT_CODES):
        text = f"district {code}: on the {d.ISLAND_NAMES[int(d.DISTRICT_ISLAND[k])]} island, value {int(d.DISTRICT_VALUE[k])}"
        if d.DISTRICT_SEA[k]:
            text += f"; a sea district (ship) of sector {d.SECTOR_NAMES[int(d.DISTRICT_SECTOR[k])]}"
        entries[code] = text
    for c, code in enumerate(d.CIV_NAMES):
        entries[code] = f"{code}: the {d.CIV_LONG[c]}"
    return Glossary(entries, [], actions)


BUILDERS: dict[str, Callable[[Any], Glossary]] = {
    "hadara": _hadara, "roll_through_the_ages": _roll_through_the_ages, "carpe_diem": _carpe_diem, "attika": _attika,
    "utopia": _utopia,
}


_BY_GAME: dict[tuple, Glossary] = {}


def glossary(game_name: str, game: Any) -> Glossary | None:
    """The game's glossary (made once per game and action encoding), or None for a game without one."""
    if game_name not in BUILDERS:
        return None
    key = (game_name, game.num_actions, tuple(game.action_names[:3]))
    if key not in _BY_GAME:
        _BY_GAME[key] = BUILDERS[game_name](game)
    return _BY_GAME[key]


def find(game_name: str, game: Any, text: str) -> list[Code]:
    """The codes in `text` (a picture's string or a move's label) with their explanations."""
    g = glossary(game_name, game)
    return g.find(text) if g is not None else []


def explain_move(game_name: str, game: Any, action: int, label: str) -> list[Code]:
    """A move's codes: where its label starts with the action's engine name (`PICK_Y_BUY ...`), that name,
    explained by its action group; then the codes in the rest of the label."""
    g = glossary(game_name, game)
    if g is None:
        return []
    name = game.action_names[action]
    out, rest = [], 0
    group = g.action(name)
    if group is not None and label.startswith(name) and label[len(name):len(name) + 1] in ("", " ", ":", "("):
        out.append(Code(0, len(name), group[0], f"{name}: {group[1]}", f"{group[0]}: {group[1]}"))
        rest = len(name)
    out += [Code(c.start + rest, c.end + rest, c.code, c.text, c.entry) for c in g.find(label[rest:])]
    return out
