// The clickable board of the play page: the game's picture with the server's targets drawn over it (module of
// play.html); in the replay viewer, the move played next drawn over the picture (replay.html). The server sends, per legal move, where it sits (web/targets.py); this file only draws that.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const HOVER_HINT = "Highlighted places on the board are your moves: hover for what they do, click to play.";

function svgEl(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function hexPoints(cx, cy, r) {
  const points = [];
  for (let k = 0; k < 6; k++) {
    const angle = Math.PI / 6 + (k * Math.PI) / 3;
    points.push(`${(cx + r * Math.cos(angle)).toFixed(1)},${(cy + r * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

function linePath(g) {
  return g.length === 6 ? `M${g[0]},${g[1]} Q${g[2]},${g[3]} ${g[4]},${g[5]}` : `M${g[0]},${g[1]} L${g[2]},${g[3]}`;
}

// the shape of a target (or a decoration) as SVG elements
function targetShape(target) {
  const g = target.geometry;
  switch (target.kind) {
    case "rect":
    case "button":
      return [svgEl("rect", {x: g[0], y: g[1], width: g[2], height: g[3], rx: target.kind === "button" ? 6 : 3, class: "shape"})];
    case "circle":
      return [svgEl("circle", {cx: g[0], cy: g[1], r: g[2], class: "shape"})];
    case "hex":
      return [svgEl("polygon", {points: hexPoints(g[0], g[1], g[2]), class: "shape"})];
    case "line":  // a wide transparent stroke to hit, a visible one to see
      return [svgEl("path", {d: linePath(g), class: "hit"}), svgEl("path", {d: linePath(g), class: "shape"})];
    default:
      return [];
  }
}

function describe(target) {
  if (target.moves.length === 1) return `${target.label}: ${target.moves[0].label}`;
  return `${target.label}: ${target.moves.length} moves (click to choose): ` + target.moves.map((m) => m.label).join(" | ");
}

// the tooltip of a target: its description, then what the codes of its label and moves mean
function tooltip(target) {
  return [describe(target), ...(target.explain || [])].join("\n");
}

const board = {onMove: null};

function closeMenu() {
  const menu = document.getElementById("board-menu");
  menu.hidden = true;
  menu.replaceChildren();
}

function openMenu(target, event) {
  const menu = document.getElementById("board-menu");
  const frame = menu.parentElement.getBoundingClientRect();
  menu.replaceChildren(el("div", {class: "menu-title"}, target.label), ...target.moves.map((move) => {
    const button = el("button", {type: "button", role: "menuitem", dataset: {action: String(move.action)}}, move.label);
    button.addEventListener("click", (e) => {
      e.stopPropagation();
      closeMenu();
      board.onMove(move.action);
    });
    return button;
  }));
  menu.hidden = false;
  const left = Math.min(event.clientX - frame.left + 8, frame.width - menu.offsetWidth - 4);
  const top = Math.min(event.clientY - frame.top + 8, frame.height - menu.offsetHeight - 4);
  menu.style.left = `${Math.max(0, left)}px`;
  menu.style.top = `${Math.max(0, top)}px`;
}

// the board's labels and drawn lines (edges, routes, coordinates) of `spec` into `svg`: lines first (under
// the targets), then the texts (last, over everything; they let clicks through)
function drawDecor(svg, spec, layer) {
  for (const item of spec.decor) {
    if (item.kind === "line" && layer === "lines") {
      const path = svgEl("path", {d: linePath(item.geometry), class: `decor ${item.class}`});
      if (item.text) path.append(svgEl("title", {}, item.text));
      svg.append(path);
    } else if (item.kind === "text" && layer === "texts") {
      svg.append(svgEl("text", {x: item.geometry[0], y: item.geometry[1], class: `decor-text ${item.class}`}, item.text));
    }
  }
}

// the replay viewer's overlay: over the picture (`spec.width` x `spec.height`), its labels and the place of
// the move played next; a click there steps forward (`onNext`). A move without a place on the picture (the
// play page's action bar) is only named below it.
function drawNextMove(svg, spec, onNext) {
  svg.setAttribute("viewBox", `0 0 ${spec.width} ${spec.height}`);
  svg.replaceChildren();
  drawDecor(svg, spec, "lines");
  for (const target of spec.targets) {
    if (target.kind === "button") continue;
    const group = svgEl("g", {class: `target target-${target.kind} next-move`, "data-target": target.id,
      "data-actions": target.moves.map((m) => m.action).join(" ")});
    group.append(...targetShape(target), svgEl("title", {}, `played next: ${describe(target)}`));
    group.addEventListener("click", (event) => {
      event.stopPropagation();
      onNext();
    });
    svg.append(group);
  }
  drawDecor(svg, spec, "texts");
}

// draw `view.board` over the picture at `pictureUrl` (null: no picture); moves call onMove(action)
function drawBoard(view, pictureUrl, onMove) {
  board.onMove = onMove;
  closeMenu();
  const svg = document.getElementById("board");
  const spec = view.board;
  svg.setAttribute("viewBox", spec.view.join(" "));
  svg.replaceChildren();
  if (pictureUrl) {
    const image = svgEl("image", {href: pictureUrl, x: 0, y: 0, width: spec.width, height: spec.height, id: "board-picture"});
    image.addEventListener("error", () => showError("The picture could not be drawn; the text view shows the position."));
    svg.append(image);
  }
  drawDecor(svg, spec, "lines");
  const hover = document.getElementById("board-hover");
  const idle = spec.targets.length ? HOVER_HINT : (view.done ? "The game is over." : "Waiting for the other players.");
  hover.textContent = idle;
  for (const item of spec.decor) {  // invisible boxes over the picture's codes: the tooltip says what they mean
    if (item.kind === "hint") {
      const g = item.geometry;
      const box = svgEl("rect", {x: g[0], y: g[1], width: g[2], height: g[3], class: "hint"});
      box.append(svgEl("title", {}, item.text));
      box.addEventListener("mouseenter", () => { hover.textContent = item.text; });
      box.addEventListener("mouseleave", () => { hover.textContent = idle; });
      svg.append(box);
    }
  }
  for (const target of spec.targets) {
    const group = svgEl("g", {class: `target target-${target.kind}`, "data-target": target.id,
      "data-actions": target.moves.map((m) => m.action).join(" ")});
    group.append(...targetShape(target), svgEl("title", {}, tooltip(target)));
    if (target.kind === "button") {
      const g = target.geometry;
      group.append(svgEl("text", {x: g[0] + g[2] / 2, y: g[1] + g[3] / 2 + 5, class: "button-label"}, target.label));
    }
    group.addEventListener("mouseenter", () => { hover.textContent = describe(target); });
    group.addEventListener("mouseleave", () => { hover.textContent = idle; });
    group.addEventListener("click", (event) => {
      event.stopPropagation();
      if (target.moves.length === 1) {
        closeMenu();
        onMove(target.moves[0].action);
      } else {
        openMenu(target, event);
      }
    });
    svg.append(group);
  }
  drawDecor(svg, spec, "texts");
}

document.addEventListener("click", (event) => {
  const menu = document.getElementById("board-menu");
  if (menu && !menu.hidden && !menu.contains(event.target)) closeMenu();
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") closeMenu();
});
