// A game against agents (module of play.html): the setup form, then the table with the person's moves.
"use strict";

const game = {view: null, pending: false, options: null};

function $(id) {
  return document.getElementById(id);
}

function fillSelect(select, items, selected) {
  select.replaceChildren(...items.map(([value, label]) => el("option", {value: String(value)}, label)));
  if (selected !== undefined) select.value = String(selected);
}

function onGameChange() {
  const entry = game.options.games.find((g) => g.name === $("game").value);
  fillSelect($("players"), entry.players.map((p) => [p, String(p)]), entry.default_players);
  onPlayersChange();
}

function onPlayersChange() {
  const players = Number($("players").value);
  fillSelect($("seat"), Array.from({length: players}, (_, p) => [p, `player_${p}`]), 0);
  $("opponent").disabled = $("opponent-spec").disabled = players === 1;
}

async function loadOptions() {
  try {
    game.options = await api("/api/options");
  } catch (err) {
    showError(`Could not load the games: ${err.message}`);
    return;
  }
  fillSelect($("game"), game.options.games.map((g) => [g.name, gameTitle(g.name)]), "roll_through_the_ages");
  const specs = [...game.options.agents, ...game.options.models];
  fillSelect($("opponent"), specs.map((s) => [s, s]), "random");
  onGameChange();
}

async function startGame(event) {
  event.preventDefault();
  showError("");
  const spec = $("opponent-spec").value.trim() || $("opponent").value;
  const payload = {game: $("game").value, num_players: Number($("players").value), seat: Number($("seat").value),
    opponents: spec};
  $("start").disabled = true;
  $("status").textContent = "Starting (the agents make their first moves)...";
  try {
    render(await postJson("/api/play", payload));
  } catch (err) {
    showError(`Could not start the game: ${err.message}`);
  } finally {
    $("start").disabled = false;
  }
}

async function resume(id) {
  try {
    render(await api(`/api/play/${encodeURIComponent(id)}`));
  } catch (err) {
    history.replaceState(null, "", "/play");
    showError(`Could not resume that game: ${err.message}`);
  }
}

async function play(action) {
  if (game.pending) return;
  game.pending = true;
  showError("");
  for (const button of $("moves").querySelectorAll("button")) button.disabled = true;
  $("board").classList.add("waiting");
  $("status").textContent = "Your move is played; the other players are thinking...";
  try {
    render(await postJson(`/api/play/${encodeURIComponent(game.view.id)}/move`, {action, version: game.view.version}));
  } catch (err) {
    showError(err.message);
    await resume(game.view.id);  // show the game as the server has it
  } finally {
    game.pending = false;
    $("board").classList.remove("waiting");
  }
}

function logItem(entry, view) {
  // the narration names the player ("player_1: ...", "player_0 (you): ..."); the agent goes in the tooltip
  const item = el("li", {title: entry.seat === view.seat ? "you" : `player_${entry.seat}: ${entry.by}`},
    el("span", {class: "who"}, `${entry.step}.`),
    el("span", {class: "lines"}, entry.lines.join(" · ")));
  item.querySelector(".who").style.color = SEAT_COLOURS[entry.seat % SEAT_COLOURS.length];
  return item;
}

function render(view) {
  game.view = view;
  history.replaceState(null, "", `/play#game=${encodeURIComponent(view.id)}`);
  $("setup").hidden = true;
  $("table").hidden = false;
  const others = view.agents.filter((_, p) => p !== view.seat);
  $("play-title").textContent = `${gameTitle(view.game)}: you are player_${view.seat}`
    + (others.length ? ` against ${others.join(", ")}` : " (solo)");
  $("table").dataset.version = String(view.version);
  $("table").dataset.done = String(view.done);
  if (view.done) {
    $("status").textContent = `The game is over after ${view.version} moves.`;
  } else if (view.stopped) {
    $("status").textContent = `The game stopped: ${view.stopped}`;
  } else if (view.your_turn) {
    $("status").textContent = `Move ${view.version + 1}: your turn. Scores ${view.scores.join(" : ")}`;
  } else {
    $("status").textContent = `Move ${view.version + 1}: player_${view.to_play} to play.`;
  }
  drawBoard(view, view.picture ? `/api/play/${encodeURIComponent(view.id)}/picture.png?v=${view.version}` : null, play);
  if (!view.picture) $("text-details").open = true;
  const codes = view.board.glossary || [];
  $("glossary-details").hidden = !codes.length;
  $("glossary-count").textContent = String(codes.length);
  $("glossary").replaceChildren(...codes.map((entry) => el("li", {}, el("code", {}, entry.code), " ", entry.text)));
  $("text-view").textContent = view.text;
  $("moves-heading").hidden = view.done;
  $("moves").replaceChildren(...view.legal.map((move) => {
    const attrs = {type: "button", class: "move", dataset: {action: String(move.action)}};
    if (move.explain && move.explain.length) attrs.title = move.explain.join("\n");
    const button = el("button", attrs, el("span", {class: "action-id"}, String(move.action)), el("span", {}, move.name));
    button.addEventListener("click", () => play(move.action));
    return el("li", {}, button);
  }));
  $("log").replaceChildren(...view.log.map((entry) => logItem(entry, view)));
  if ($("log").lastElementChild) scrollWithin($("log"), $("log").lastElementChild);
  $("download").href = `/api/play/${encodeURIComponent(view.id)}/record`;
  const result = $("result");
  result.hidden = !view.result;
  if (view.result) {
    const rows = view.result.scores.map((score, p) => {
      const name = p === view.seat ? `you (player_${p})` : `player_${p} (${view.agents[p]})`;
      const won = view.result.winners.includes(p);
      return el("li", {class: won ? "winner" : ""}, `${name}: ${score}${won ? " (wins)" : ""}`);
    });
    const headline = view.result.winners.length === 0 ? "Final score"
      : view.result.winners.includes(view.seat) ? (view.result.winners.length > 1 ? "You share the win" : "You win")
        : "You lose";
    result.replaceChildren(el("h3", {}, headline), el("ol", {class: "scores"}, ...rows));
  }
}

document.addEventListener("DOMContentLoaded", async () => {
  $("game").addEventListener("change", onGameChange);
  $("players").addEventListener("change", onPlayersChange);
  $("setup").addEventListener("submit", startGame);
  $("new-game").addEventListener("click", () => {
    history.replaceState(null, "", "/play");
    game.view = null;
    $("table").hidden = true;
    $("setup").hidden = false;
    showError("");
  });
  await loadOptions();
  const match = location.hash.match(/^#game=([A-Za-z0-9_-]+)$/);
  if (match) resume(match[1]);
});
