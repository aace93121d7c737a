// The replay viewer: the record list, uploads, and stepping through one record (module of replay.html).
"use strict";

const PLAY_INTERVAL_MS = 700;
const MAX_UPLOAD_BYTES = 4 * 1024 * 1024;  // the server's cap on a record (meeple.envs.record)

const viewer = {summary: null, step: 0, seat: "", timer: null, request: 0};

function $(id) {
  return document.getElementById(id);
}

function recordItem(entry) {
  const details = entry.error
    ? `unreadable: ${entry.error}`
    : `${gameTitle(entry.game)}, ${entry.num_players} players, ${entry.moves} moves · ${entry.agents.join(" vs ")}`
      + (entry.scores ? ` · scores ${entry.scores.join(":")}` : " · unfinished");
  const button = el("button", {type: "button", class: "record", dataset: {id: entry.id}},
    el("strong", {}, entry.name), el("span", {}, details));
  button.disabled = Boolean(entry.error);
  button.addEventListener("click", () => openRecord(entry.id));
  return el("li", {}, button);
}

async function loadLibrary() {
  try {
    const listing = await api("/api/records");
    $("record-list").replaceChildren(...listing.records.map(recordItem));
    $("library-note").textContent = !listing.folder
      ? "This server lists no records folder (meeple serve --records DIR); open a record file instead."
      : listing.records.length ? "" : "The records folder has no records yet.";
  } catch (err) {
    showError(`Could not list the records: ${err.message}`);
  }
}

async function upload(file) {
  showError("");
  if (file.size > MAX_UPLOAD_BYTES) {
    showError(`${file.name} is larger than the ${MAX_UPLOAD_BYTES} bytes a record may have`);
    return;
  }
  try {
    const text = await file.text();
    const entry = await api(`/api/records?name=${encodeURIComponent(file.name)}`,
      {method: "POST", headers: {"Content-Type": "application/json"}, body: text});
    $("record-list").prepend(recordItem(entry));
    await openRecord(entry.id);
  } catch (err) {
    showError(`${file.name}: ${err.message}`);
  }
}

function seatQuery() {
  return viewer.seat === "" ? "spectator" : viewer.seat;
}

async function openRecord(id, step = 0) {
  showError("");
  pause();
  try {
    const summary = await api(`/api/records/${encodeURIComponent(id)}?seat=${seatQuery()}`);
    if (!viewer.summary || viewer.summary.id !== id) fillSeats(summary);
    viewer.summary = summary;
    history.replaceState(null, "", `/replay?id=${encodeURIComponent(id)}`);
    for (const button of document.querySelectorAll("#record-list button")) {
      button.classList.toggle("selected", button.dataset.id === id);
    }
    $("replay-title").textContent = `${gameTitle(summary.game)}: ${summary.name}`;
    const result = summary.final ? `final scores ${summary.final.scores.join(" : ")}` : "unfinished game";
    $("replay-meta").textContent = `${summary.num_players} players (${summary.agents.join(" vs ")}), `
      + `${summary.steps} moves, ${result}; seed ${summary.seed}, deal ${summary.deal}`;
    $("slider").max = String(summary.steps);
    $("picture").hidden = !summary.picture;
    $("text-details").open = !summary.picture;
    fillLog(summary);
    $("viewer").hidden = false;
    await showStep(Math.min(step, summary.steps));
  } catch (err) {
    showError(`Could not open the record: ${err.message}`);
  }
}

function fillSeats(summary) {
  const options = [el("option", {value: ""}, "spectator")];
  summary.agents.forEach((agent, seat) => options.push(el("option", {value: String(seat)}, seatLabel(seat, summary.agents))));
  $("seat").replaceChildren(...options);
  viewer.seat = "";
}

function fillLog(summary) {
  const items = summary.moves.map((move) => {
    const item = el("li", {dataset: {step: String(move.step)}},
      el("span", {class: "who"}, `${move.step}.`),  // the lines name the player
      el("span", {class: "lines"}, move.lines.join(" · ")));
    item.querySelector(".who").style.color = SEAT_COLOURS[move.seat % SEAT_COLOURS.length];
    item.addEventListener("click", () => showStep(move.step));
    return item;
  });
  $("log").replaceChildren(...items);
}

// the move played from this position: named below the picture, and highlighted on it where it has a place
function showNextMove(view) {
  const board = $("replay-board");
  const next = view.next;
  board.style.display = viewer.summary.picture && next ? "" : "none";  // an svg has no `hidden` property
  if (next && viewer.summary.picture) {
    drawNextMove(board, next.board, () => { pause(); showStep(viewer.step + 1); });
  } else {
    board.replaceChildren();
  }
  const onPicture = next && next.board.targets.some((t) => t.kind !== "button");
  $("next-move").textContent = !next ? "The game is over."
    : `Next: ${seatLabel(next.seat, viewer.summary.agents)} plays ${next.name}`
      + (onPicture && viewer.summary.picture ? " (highlighted: click it to step forward)" : "");
}

async function showStep(step) {
  const summary = viewer.summary;
  step = Math.max(0, Math.min(step, summary.steps));
  viewer.step = step;
  const request = ++viewer.request;  // answers to older requests (fast stepping) are dropped
  $("step-counter").textContent = `${step} / ${summary.steps}`;
  $("slider").value = String(step);
  $("first").disabled = $("back").disabled = step === 0;
  $("last").disabled = $("forward").disabled = step === summary.steps;
  for (const item of $("log").children) {
    const k = Number(item.dataset.step);
    item.classList.toggle("future", k > step);
    item.classList.toggle("current", k === step);
  }
  const current = $("log").querySelector("li.current");
  if (current) scrollWithin($("log"), current);
  $("chart-title").textContent = summary.chart.title;
  drawScoreChart($("chart"), summary.chart.series, summary.agents.map((agent, seat) => seatLabel(seat, summary.agents)), step,
    summary.chart.high);
  const base = `/api/records/${encodeURIComponent(summary.id)}/steps/${step}`;
  if (summary.picture) $("picture").src = `${base}/picture.png?seat=${seatQuery()}`;
  try {
    const view = await api(`${base}?seat=${seatQuery()}`);
    if (request !== viewer.request) return;
    showNextMove(view);
    $("text-view").textContent = view.text;
    $("position").textContent = view.done
      ? `After move ${step}: the game is over, scores ${view.scores.join(" : ")}`
      : `After move ${step}: ${seatLabel(view.to_play, summary.agents)} to play; scores ${view.scores.join(" : ")}`;
  } catch (err) {
    if (request === viewer.request) showError(err.message);
  }
}

function pause() {
  if (viewer.timer !== null) clearInterval(viewer.timer);
  viewer.timer = null;
  $("play-pause").textContent = "play";
}

function togglePlay() {
  if (viewer.timer !== null) {
    pause();
    return;
  }
  if (viewer.step >= viewer.summary.steps) showStep(0);
  $("play-pause").textContent = "pause";
  viewer.timer = setInterval(() => {
    if (viewer.step >= viewer.summary.steps) pause();
    else showStep(viewer.step + 1);
  }, PLAY_INTERVAL_MS);
}

document.addEventListener("DOMContentLoaded", () => {
  $("first").addEventListener("click", () => { pause(); showStep(0); });
  $("back").addEventListener("click", () => { pause(); showStep(viewer.step - 1); });
  $("forward").addEventListener("click", () => { pause(); showStep(viewer.step + 1); });
  $("last").addEventListener("click", () => { pause(); showStep(viewer.summary.steps); });
  $("play-pause").addEventListener("click", togglePlay);
  $("slider").addEventListener("input", () => { pause(); showStep(Number($("slider").value)); });
  $("seat").addEventListener("change", () => {
    viewer.seat = $("seat").value;
    openRecord(viewer.summary.id, viewer.step);
  });
  $("upload").addEventListener("change", () => {
    const file = $("upload").files[0];
    if (file) upload(file);
    $("upload").value = "";
  });
  $("picture").addEventListener("error", () => {
    if (viewer.summary) showError("The picture could not be drawn; the text view shows the position.");
  });
  document.addEventListener("keydown", (event) => {
    if (!viewer.summary || event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "ArrowRight") showStep(viewer.step + 1);
    if (event.key === "ArrowLeft") showStep(viewer.step - 1);
  });
  loadLibrary();
  const id = new URLSearchParams(location.search).get("id");
  if (id) openRecord(id);
});
