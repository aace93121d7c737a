"""The one agent-spec parser (`meeple.agents.spec`): every kind, the options, nested specs, every error, the
strict form the web uses, `format_spec` back to text, and the places that parse through it."""

from __future__ import annotations

import dataclasses

import pytest

from meeple.agents import make_agent
from meeple.agents.io import ArgsError, check_agent_specs
from meeple.agents.spec import AGENT_SPECS, KINDS, SpecError, format_spec, parse_spec, spec_kind

RTTA = "roll_through_the_ages"


# --- each kind --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, kind, args, items", [
    ("random", "random", (), ()),
    ("heuristic", "heuristic", (), ()),
    ("human", "human", (), ()),
    ("mcts", "mcts", ("",), ()),
    ("mcts:", "mcts", ("",), ()),
    ("mcts:200", "mcts", ("200",), ()),
    ("mcts:200:", "mcts", ("200",), ()),
    ("mcts::c_uct=1", "mcts", ("",), (("c_uct", "1"),)),
    ("mcts:x", "mcts", ("x",), ()),  # the number is checked by MCTSAgent.from_spec, not here
    ("mcts:50:rollout_depth=30,c_uct=1.0,scale=5", "mcts", ("50",),
     (("rollout_depth", "30"), ("c_uct", "1.0"), ("scale", "5"))),
    ("mcts:200:mode=rollout,rollout=heuristic", "mcts", ("200",), (("mode", "rollout"), ("rollout", "heuristic"))),
    ("net:hadara-2p", "net", ("hadara-2p",), ()),
    ("net:runs/x/net.safetensors:sample=1", "net", ("runs/x/net.safetensors",), (("sample", "1"),)),
    ("search:hadara-2p:sims=64,c_uct=1.4", "search", ("hadara-2p",), (("sims", "64"), ("c_uct", "1.4"))),
    ("search:n.safetensors:mode=rollout,sims=8,playout=net", "search", ("n.safetensors",),
     (("mode", "rollout"), ("sims", "8"), ("playout", "net"))),
    ("ppo:runs/x/model.zip", "ppo", ("runs/x/model.zip",), ()),
    ("ppo:C:\\runs\\model.zip", "ppo", ("C:\\runs\\model.zip",), ()),
    ("py:examples.my_policy:policy", "py", ("examples.my_policy", "policy"), ()),
    ("py:mypkg.agents:zoo.best", "py", ("mypkg.agents", "zoo.best"), ()),
    ("py:a:b:c", "py", ("a:b", "c"), ()),  # the object is named after the last ':'
])
def test_each_kind_parses_into_its_parts(text, kind, args, items):
    spec = parse_spec(text)
    assert (spec.text, spec.kind, spec.args, spec.items) == (text, kind, args, items)
    assert spec.options == dict(items) and str(spec) == text and spec_kind(text) == kind
    assert spec == parse_spec(text) and hash(spec) == hash(parse_spec(text))  # frozen, comparable, hashable
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.kind = "random"


def test_every_kind_is_listed_among_the_known_specs():
    assert all(any(entry.split(":")[0].split("[")[0] == kind for entry in AGENT_SPECS) for kind in KINDS)


# --- net paths with ':' -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, path, options", [
    ("net:C:\\nets\\x.safetensors", "C:\\nets\\x.safetensors", {}),  # a Windows drive letter
    ("net:C:\\nets\\x.safetensors:sample=1", "C:\\nets\\x.safetensors", {"sample": "1"}),
    ("search:C:/nets/x.safetensors:sims=3,c_uct=2", "C:/nets/x.safetensors", {"sims": "3", "c_uct": "2"}),
    ("net:a:b", "a:b", {}),  # the text after the last ':' is not key=value: part of the path
    ("net:a:b=c", "a", {"b": "c"}),  # ... and is the options when it is
    ("net:x:sims=1/2", "x:sims=1/2", {}),  # a value with '/' or '\\' cannot be an option: part of the path
    ("net:x:sims=1,,c=2", "x:sims=1,,c=2", {}),  # nor an empty item
    ("net:x:Sample=", "x", {"Sample": ""}),  # keys of letters and '_', values may be empty
    ("net:x:", "x:", {}),  # an empty tail is part of the path (there is no net file 'x:')
])
def test_a_net_path_may_contain_colons(text, path, options):
    spec = parse_spec(text)
    assert spec.args == (path,) and spec.options == options


# --- options -------------------------------------------------------------------------------------

def test_mcts_options_keep_their_order_skip_empty_items_and_let_the_last_repeat_win():
    spec = parse_spec("mcts:10:,c_uct=1,,prior_weight=0.5,c_uct=2,")
    assert spec.items == (("c_uct", "1"), ("prior_weight", "0.5"), ("c_uct", "2"))
    assert spec.options == {"c_uct": "2", "prior_weight": "0.5"}
    assert parse_spec("mcts:10:=5").items == (("", "5"),)  # an empty key is for MCTSAgent.from_spec to refuse


def test_option_values_may_hold_colons_and_equals_signs():
    spec = parse_spec("mcts:5:rollout_depth=none,x=a=b:c")
    assert spec.options == {"rollout_depth": "none", "x": "a=b:c"}


# --- nested specs ---------------------------------------------------------------------------------

def test_nested_specs_are_option_values_that_parse_in_turn():
    spec = parse_spec("mcts:200:rollout=heuristic,prior=net:hadara-2p")
    assert spec.options == {"rollout": "heuristic", "prior": "net:hadara-2p"}
    assert parse_spec(spec.options["prior"]).args == ("hadara-2p",)
    deep = parse_spec("mcts:200:prior=net:C:\\nets\\x.safetensors:sample=1")
    prior = parse_spec(deep.options["prior"])
    assert (prior.kind, prior.args, prior.options) == ("net", ("C:\\nets\\x.safetensors",), {"sample": "1"})
    inner = parse_spec(parse_spec("mcts:2:rollout=mcts:3:prior=random").options["rollout"])
    assert inner.args == ("3",) and inner.options == {"prior": "random"}
    # a ',' ends a nested spec, as it always did: the rest are the outer spec's options
    outer = parse_spec("mcts:2:rollout=mcts:3:c_uct=1,seed=4")
    assert outer.options == {"rollout": "mcts:3:c_uct=1", "seed": "4"}


# --- every error ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("alphago", r"unknown agent spec 'alphago'; known specs: .*mcts.*ppo:<path.*human"),
    ("", "unknown agent spec ''"),
    ("MCTS:5", "unknown agent spec 'MCTS:5'"),
    ("random:1", r"unknown agent spec 'random:1' \(random takes nothing after it\)"),
    ("heuristic:", "unknown agent spec 'heuristic:'"),
    ("human:x", "unknown agent spec 'human:x'"),
    ("mcts:10:c_uct", r"agent spec 'mcts:10:c_uct': option 'c_uct' is not key=value"),
    ("mcts:10:c_uct=1,seed", "option 'seed' is not key=value"),
    ("net", "agent spec 'net' needs a net file"),
    ("net:", "agent spec 'net:' needs a net file"),
    ("search::sims=3", "agent spec 'search::sims=3' needs a net file"),
    ("net:x:sample=1,sample=0", "agent spec 'net:x:sample=1,sample=0': option 'sample' given twice"),
    ("ppo", "agent spec 'ppo' needs a model path"),
    ("ppo:", "agent spec 'ppo:' needs a model path"),
    ("py", "agent spec 'py' must name a module and an object"),
    ("py:", "must name a module and an object"),
    ("py:examples.my_policy", "must name a module and an object"),
    ("py::policy", "must name a module and an object"),
    ("py:examples.my_policy:", "must name a module and an object"),
    (None, "an agent spec is a string, got NoneType"),
])
def test_every_malformed_spec_is_refused_naming_it(text, message):
    with pytest.raises(SpecError, match=message) as raised:
        parse_spec(text)
    assert raised.value.text == (text if isinstance(text, str) else repr(text))
    assert raised.value.problem in ("not text", "unknown", "no path", "no object", "bad option")


# --- strict (the web's opponents) -------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("mcts:10:c_uct=1,", "options are key=value pairs separated by commas"),
    ("mcts:10:,c_uct=1", "options are key=value pairs separated by commas"),
    ("mcts:10:,", "options are key=value pairs separated by commas"),
    ("mcts:10:c_uct=1,c_uct=2", "option 'c_uct' given twice"),
    ("mcts::c_uct=1", r"write mcts:N or mcts:N:key=value,\.\.\."),
    ("mcts::", r"write mcts:N or mcts:N:key=value,\.\.\."),
])
def test_strict_refuses_untidy_specs_the_agents_accept(text, message):
    parse_spec(text)
    with pytest.raises(ValueError, match=message):
        parse_spec(text, strict=True)


@pytest.mark.parametrize("text", ["mcts", "mcts:", "mcts:5", "mcts:5:", "mcts:5:c_uct=1,prior=heuristic",
                                  "net:hadara-2p", "search:hadara-2p:sims=5,c_uct=1", "random"])
def test_strict_accepts_tidy_specs_as_they_are(text):
    assert parse_spec(text, strict=True) == parse_spec(text)


# --- back to text ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["random", "heuristic", "human", "mcts", "mcts:200", "mcts::c_uct=1",
                                  "mcts:200:rollout=heuristic,prior=net:hadara-2p", "mcts:5:c_uct=1,c_uct=2",
                                  "net:hadara-2p", "net:C:\\nets\\x.safetensors", "net:a:b",
                                  "search:C:\\x.safetensors:mode=rollout,sims=8", "ppo:C:\\m.zip", "py:a.b:c.d",
                                  "py:a:b:c"])
def test_format_writes_a_canonical_spec_back(text):
    assert parse_spec(text).format() == text
    assert format_spec(*dataclasses.astuple(parse_spec(text))[1:]) == text


def test_format_canonicalises_and_builds_nested_specs():
    assert parse_spec("mcts:").format() == "mcts"
    assert parse_spec("mcts:10:,c_uct=1,").format() == "mcts:10:c_uct=1"
    assert format_spec("search", ["hadara-2p"], {"sims": "64"}) == "search:hadara-2p:sims=64"
    assert format_spec("mcts", (), {"c_uct": "2"}) == "mcts::c_uct=2"
    prior = parse_spec("net:C:\\nets\\x.safetensors:sample=1")
    text = format_spec("mcts", ["200"], {"rollout": "heuristic", "prior": prior})
    assert text == "mcts:200:rollout=heuristic,prior=net:C:\\nets\\x.safetensors:sample=1"
    assert parse_spec(parse_spec(text).options["prior"]) == prior


@pytest.mark.parametrize("kind, args, options, message", [
    ("mcts", ["2"], {"rollout": "mcts:3:c_uct=1,seed=4"}, "reads back as"),  # a nested spec with ','
    ("net", ["a:b=c"], {}, "reads back as"),  # a path whose last part reads as options
    ("net", ["x"], {"path": "a/b"}, "reads back as"),  # a net option value with '/'
    ("mcts", ["2"], {"a=b": "1"}, "reads back as"),
    ("random", ["1"], {}, "unknown agent spec"),
    ("net", [], {}, "needs a net file"),
    ("py", ["onlymodule"], {}, "must name a module"),
    ("chess", [], {}, "unknown agent spec"),
])
def test_format_refuses_what_no_text_can_say(kind, args, options, message):
    with pytest.raises(ValueError, match=message):
        format_spec(kind, args, options)


# --- the places that parse through it ------------------------------------------------------------------

def test_mcts_from_spec_reads_parsed_and_written_specs_alike():
    from meeple.agents.mcts import MCTSAgent, RolloutAgent
    from meeple.agents.random_agent import RandomAgent

    spec = "mcts:50:rollout_depth=30,c_uct=1.0,scale=5"
    assert MCTSAgent.from_spec(parse_spec(spec)).name == MCTSAgent.from_spec(spec).name
    assert MCTSAgent.from_spec("mcts:10:c_uct=1,c_uct=2").c_uct == 2.0  # the last repeat, as before
    assert MCTSAgent.from_spec("mcts:10:,c_uct=3,").c_uct == 3.0  # empty items skipped, as before
    assert MCTSAgent.from_spec("mcts::c_uct=3").simulations == 400
    assert isinstance(MCTSAgent.from_spec("mcts:10:rollout=random").rollout_agent, RandomAgent)
    rollout = MCTSAgent.from_spec("mcts:10:z=2,mode=rollout")
    assert isinstance(rollout, RolloutAgent) and rollout.z == 2.0
    for bad, message in [("mcts:10:mode=tree,mode=rollout", "unknown mode 'tree'"),  # item by item, as before
                         ("mcts:10:mode=rollout,mode=tree", "unknown mode 'tree'"),
                         ("mcts:10:mode=tree", "unknown MCTS option 'mode'"),
                         ("mcts:many", "bad MCTS spec 'mcts:many'"),
                         ("mcts:10:rollout=bogus", "unknown agent spec 'bogus'"),
                         ("mcts:10:rollout=heuristic", "needs the game name"),
                         ("mcts:10:c_uct", "not key=value"),
                         ("random", "not an MCTS spec: 'random'")]:
        with pytest.raises(ValueError, match=message):
            MCTSAgent.from_spec(bad)
    with pytest.raises(ValueError, match="not an MCTS spec"):
        RolloutAgent.from_spec("heuristic")


def test_make_agent_takes_text_or_a_parsed_spec_and_refuses_by_name(tmp_path):
    from meeple.agents.mcts import MCTSAgent
    from meeple.agents.random_agent import RandomAgent

    assert isinstance(make_agent(parse_spec("random"), RTTA), RandomAgent)
    agent = make_agent("mcts:7:prior=random", RTTA)
    assert isinstance(agent, MCTSAgent) and agent.simulations == 7 and isinstance(agent.prior_agent, RandomAgent)
    for bad, message in [("alphago", "known specs"), ("random:1", "unknown agent spec 'random:1'"),
                         ("ppo:", "needs a model path"), (f"ppo:{tmp_path / 'none.zip'}", "no model file"),
                         ("py:nothing", "must name a module and an object"),
                         ("net:", "needs a net file"), ("mcts:3:c_uct", "not key=value")]:
        with pytest.raises(ValueError, match=message):
            make_agent(bad, RTTA)
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("random:1", "chess")  # the game is checked first, as before


def test_load_policy_reads_a_target_or_a_py_spec(monkeypatch):
    from pathlib import Path

    from meeple.agents.external import load_policy

    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    by_target = load_policy("examples.my_policy:policy")
    assert load_policy(parse_spec("py:examples.my_policy:policy")) is by_target
    for bad, message in [("examples.my_policy", "agent spec 'py:examples.my_policy' must name a module"),
                         ("examples.my_policy:nothing", "agent spec 'py:examples.my_policy:nothing': module"),
                         ("no_such_module_for_meeple:x", "cannot import module 'no_such_module_for_meeple'")]:
        with pytest.raises(ValueError, match=message):
            load_policy(bad)
    with pytest.raises(ValueError, match="not a py:<module>:<name> spec"):
        load_policy(parse_spec("random"))


def test_check_agent_specs_names_the_option_and_refuses_human_where_asked():
    check_agent_specs("--agents", ["random", "human", "mcts:3"], RTTA, 2, {})
    with pytest.raises(ArgsError, match="--opponents: agent spec 'human' cannot play here"):
        check_agent_specs("--opponents", ["random", "human"], RTTA, 2, {}, allow_human=False)
    with pytest.raises(ArgsError, match=r"--agents: unknown agent spec 'human:x'"):
        check_agent_specs("--agents", ["human:x"], RTTA, 2, {}, allow_human=False)
    with pytest.raises(ArgsError, match="--agents: agent spec 'mcts:3:c_uct': option 'c_uct' is not key=value"):
        check_agent_specs("--agents", ["mcts:3:c_uct"], RTTA, 2, {})


def test_net_specs_resolve_their_path_after_parsing():
    pytest.importorskip("torch")
    from meeple.agents.net import agent_from_spec

    with pytest.raises(ValueError, match=r"no net file at 'C:\\\\nets\\\\x.safetensors'"):
        agent_from_spec("net:C:\\nets\\x.safetensors:sample=1", RTTA)
    with pytest.raises(ValueError, match="not a net spec: 'mcts:5'"):
        agent_from_spec("mcts:5", RTTA)
    with pytest.raises(ValueError, match="no shipped baseline of that name"):
        agent_from_spec(parse_spec("search:hadara-9p:sims=3"), "hadara")


class _Models:
    """A stand-in for the web's ModelIndex: two listed names."""

    def path(self, name):
        return {"hadara-2p": "/shipped/hadara-2p.safetensors", "a:b.safetensors": "/models/a:b.safetensors"}.get(name)

    def names(self):
        return ["a:b.safetensors", "hadara-2p"]


def test_web_specs_parse_through_the_strict_parser():
    pytest.importorskip("flask")
    from meeple.web.errors import ApiError
    from meeple.web.specs import parse_agent_spec

    choice = parse_agent_spec("mcts:5:rollout=heuristic,c_uct=2", _Models())
    assert (choice.kind, choice.simulations, choice.options) == ("mcts", 5, (("c_uct", 2.0), ("rollout", "heuristic")))
    assert parse_agent_spec("mcts:", _Models()).simulations == 200
    choice = parse_agent_spec("search:hadara-2p:sims=8", _Models())
    assert (choice.kind, choice.model, choice.options) == ("search", "hadara-2p", (("sims", 8),))
    for bad, message in [("mcts:5:c_uct=1,", "options are key=value pairs"), ("mcts:5:c_uct=1,c_uct=1", "given twice"),
                         ("mcts::c_uct=1", "write mcts:N"), ("mcts:5:prior=net:hadara-2p", "prior must be one of"),
                         ("net:", "name a listed model as net:<model>"), ("search::sims=2", "name a listed model"),
                         ("net:hadara-2p:x", "options are key=value pairs"),
                         ("net:a:b.safetensors", "a listed model's name has no ':'"),  # listed, but never by a name with ':'
                         ("net:hadara-2p:", "write net:<model>:key=value"), ("py:a:b", "unknown agent spec"),
                         ("random:1", "unknown agent spec"), ("human:x", "not an opponent here"), ("ppo", "unpickling")]:
        with pytest.raises(ApiError, match=message):
            parse_agent_spec(bad, _Models())
