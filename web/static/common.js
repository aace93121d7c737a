// Helpers of the replay and play pages: API calls, DOM building (text only: nothing from a record or the
// server is ever parsed as HTML), seat names and the score chart.
"use strict";

const SEAT_COLOURS = ["#d1495b", "#00798c", "#edae49", "#30638e", "#66a182", "#8d5a97", "#3d405b", "#e07a5f"];

// fetch + JSON; a refused request throws an Error carrying the server's message
async function api(path, options = {}) {
  const response = await fetch(path, options);
  let body = null;
  try {
    body = await response.json();
  } catch (err) {
    body = null;
  }
  if (!response.ok) {
    throw new Error(body && body.error ? body.error : `${response.status} ${response.statusText}`);
  }
  return body;
}

function postJson(path, payload) {
  return api(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(payload)});
}

// an element with attributes and children (strings become text nodes)
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(typeof child === "string" ? document.createTextNode(child) : child);
  return node;
}

// "roll_through_the_ages" -> "Roll Through the Ages"
function gameTitle(name) {
  const small = new Set(["the", "of", "a"]);
  return name.split("_").map((word, i) => (i > 0 && small.has(word) ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join(" ");
}

function seatLabel(seat, agents) {
  return `player_${seat} (${agents[seat]})`;
}

// scroll a list so that `item` shows, without scrolling the page itself (scrollIntoView would move the window)
function scrollWithin(list, item) {
  const top = item.offsetTop;  // the list is positioned (style.css), so offsets are relative to it
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + item.offsetHeight - list.clientHeight;
}

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message || "";
  box.hidden = !message;
}

// scores: one row per position, one column per seat; current: the position shown (a cursor line); high: the
// top of the scale (null: the largest value)
function drawScoreChart(svg, scores, labels, current, high = null) {
  const NS = "http://www.w3.org/2000/svg";
  const width = 460, height = 200, left = 36, right = 10, top = 10, bottom = 24;
  const legendHeight = 18 * Math.ceil(labels.length / 2);
  svg.setAttribute("viewBox", `0 0 ${width} ${height + legendHeight}`);
  svg.replaceChildren();
  const steps = Math.max(scores.length - 1, 1);
  const values = scores.flat();
  high = high === null ? Math.max(1, ...values) : high;
  const low = Math.min(0, ...values);
  const x = (k) => left + (k / steps) * (width - left - right);
  const y = (v) => top + (1 - (v - low) / (high - low)) * (height - top - bottom);
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  add("line", {x1: left, y1: y(low), x2: width - right, y2: y(low), class: "axis"});
  add("line", {x1: left, y1: top, x2: left, y2: y(low), class: "axis"});
  add("text", {x: left - 4, y: y(high) + 4, "text-anchor": "end", class: "tick"}, String(high));
  add("text", {x: left - 4, y: y(low) + 4, "text-anchor": "end", class: "tick"}, String(low));
  add("text", {x: width - right, y: height - 6, "text-anchor": "end", class: "tick"}, `move ${steps}`);
  add("text", {x: left, y: height - 6, class: "tick"}, "0");
  labels.forEach((label, seat) => {
    const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
    const points = scores.map((row, k) => `${x(k).toFixed(1)},${y(row[seat]).toFixed(1)}`).join(" ");
    add("polyline", {points, fill: "none", stroke: colour, "stroke-width": 2, class: "series"});
    const lx = left + (seat % 2) * 210, ly = height + 14 + 18 * Math.floor(seat / 2);
    add("rect", {x: lx, y: ly - 9, width: 12, height: 10, fill: colour});
    add("text", {x: lx + 16, y: ly, class: "legend"}, `${label}: ${scores[Math.min(current, scores.length - 1)][seat]}`);
  });
  add("line", {x1: x(current), y1: top, x2: x(current), y2: y(low), class: "cursor"});
}
