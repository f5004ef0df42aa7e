// The page of `mandel serve`: the Mandelbrot set explored live, like a map.
//
// The view is an anchor (a picture: centre, zoom, and the viewport's size when it was anchored) and
// the integer offset of the viewport's top-left corner in that picture's pixel grid. Tiles are
// 256×256 windows of the anchored picture, rendered by the server with the chosen strategy. Panning
// moves the offset only, so loaded tiles stay valid; anything else (a zoom, a control, a resize, a URL)
// anchors a new picture, and the old one's loaded tiles stay on screen, scaled, as placeholders.
//
// The page keeps its own queue of wanted tiles, nearest the viewport's centre first, and sends at most
// six at once (Chromium's connections per host over HTTP/1.1): a tile nobody wants any more is dropped
// before it is sent, and one already sent is aborted, which closes its connection and tells the server
// to stop rendering it.
//
// Side by side (`&compare=STRATEGY`), the viewport is one of two halves of the screen: the same view,
// anchored once, has a tile layer per half, the left rendered by the page's strategy and the right by the
// compared one; both pan and zoom together, and their requests take turns for the six in flight.
//
// A live panel per half shows what the server reports for that half's strategy (GET /events, every
// 250 ms) beside what the page measures itself (last move to a full viewport), and the strategy's lesson
// from /config.

import * as decimal from "./decimal.js";

window.mandelDecimal = decimal;

/** The side of a tile in pixels: /config's tile_side (256). */
let tileSide = 256;
const MAX_IN_FLIGHT = 6;
const CACHE_LIMIT = 300; // tile records kept for the current anchor (loaded ones included)
const LOG_LIMIT = 5000;
const MAX_PLACEHOLDER_LAYERS = 2;
const MIN_ZOOM = "0.001";
const MAX_ZOOM = "1e1000000"; // mandel's deepest (Limits.maximumZoomExponent)
const RESIZE_DELAY_MS = 200;
const WHEEL_STEP = 100; // deltaY units per zoom step
const WHEEL_INTERVAL_MS = 150; // at most one wheel step per interval
const URL_WRITE_INTERVAL_MS = 150; // while dragging (Chromium throttles the history API)
const COALESCE_MS = 800; // wheel steps and held keys within this make one history entry
const NETWORK_RETRY_MS = 2000;
const DRAG_THRESHOLD = 3; // CSS pixels a pointer moves before a press becomes a drag
const PANE_GAP = 2; // CSS pixels between the halves side by side
const MOVES_KEPT = 20; // last-move-to-full times kept per half
const EVENTS_RETRY_MS = 2000;
const PANEL_INTERVAL_MS = 250; // the panel is redrawn at most this often

/** The view keys the page manages; every other key of `start` (or of the URL) is passed along as is. */
const MANAGED = ["center", "zoom", "iterations", "color", "palette", "strategy"];
/** Keys that describe a request, not a view: never read from the page's URL. */
const NOT_VIEW = new Set(["size", "window"]);
/** The page's own key: the strategy of the second half side by side (never sent to the server). */
const COMPARE_KEY = "compare";
/** Options the command line accepts only with a colouring that uses a palette. */
const PALETTE_OPTIONS = new Set(["palette", "palette-cycle", "palette-offset"]);
const PALETTE_COLORS = new Set(["smooth", "histogram"]);

const FALLBACK_CONFIG = {
  start: {
    center: "-0.5,0",
    zoom: "1",
    iterations: "256",
    color: "smooth",
    palette: "classic",
    strategy: "gcd",
  },
  tile_side: tileSide,
  strategies: [{ name: "gcd", summary: "" }],
  palettes: ["classic"],
  colors: ["bw", "gray", "smooth"],
  max_iterations: 4294967294,
};

const dom = {
  view: document.getElementById("view"),
  layers: document.getElementById("layers"),
  placeholders: document.getElementById("placeholders"),
  bar: document.getElementById("bar"),
  iterations: document.getElementById("iterations"),
  color: document.getElementById("color"),
  palette: document.getElementById("palette"),
  strategy: document.getElementById("strategy"),
  zoom: document.getElementById("zoom"),
  precision: document.getElementById("precision"),
  command: document.getElementById("command"),
  copy: document.getElementById("copy"),
  status: document.getElementById("status"),
  compare: document.getElementById("compare"),
  compareLayers: document.getElementById("compare-layers"),
  comparePlaceholders: document.getElementById("compare-placeholders"),
  divider: document.getElementById("divider"),
  live: document.getElementById("live"),
  compareLive: document.getElementById("compare-live"),
};

// MARK: - State

let config = FALLBACK_CONFIG;
/**
 * The current picture: {id, center, zoom, width, height, settings, sides}. A side is one half's tiles of
 * it: {anchor, pane, strategy, query, tiles: Map, layer}; sides[0] is the primary half's.
 */
let anchor = null;
let anchorCount = 0;
/** The viewport's top-left corner in the anchor's pixel grid, whole pixels. */
let offset = [0, 0];
/** The strategy of the second half, or "" when nothing is compared: the layout on screen now. */
let layoutCompare = "";
/** The viewport's size in CSS pixels (one half's, side by side). */
let viewportSize = measureViewport();
let inFlight = 0;
/** A resize waiting to re-anchor: {center, size (the viewport's when it began), timer}. */
let pendingResize = null;
const statusLines = new Map(); // source → line
const log = []; // the primary half's tile log (mandelPage.log)
const compareLog = []; // the second half's (mandelPage.compare.log)

/**
 * A half of the screen (the whole of it when nothing is compared): where its tiles and placeholders go,
 * its log, its own timings and its live panel. placeholderLayers: earlier pictures shown under the
 * current one, [{layer, picture, placement: {scale, x, y}}], oldest first.
 */
function makePane(name, layers, placeholders, panelRoot, paneLog) {
  return {
    name,
    layers,
    placeholders,
    placeholderLayers: [],
    log: paneLog,
    timing: { firstTile: null, full: null, moves: [], pending: null, wasFilled: false },
    panel: makePanel(panelRoot),
  };
}

let panes = null; // [primary, compare], made once the DOM is read (main)
const primaryPane = () => panes[0];
const comparePane = () => panes[1];

// MARK: - Views and URLs

/** The settings of a view other than its place: {iterations, color, palette, strategy, compare, extra}. */
function settingsOf(view) {
  return {
    iterations: view.iterations,
    color: view.color,
    palette: view.palette,
    strategy: view.strategy,
    compare: view.compare ?? "",
    extra: { ...view.extra },
  };
}

function usesPalette(settings) {
  return PALETTE_COLORS.has(settings.color);
}

/** `key=value` pairs of the settings, in the command line's order; `forServer` leaves out what it would refuse. */
function settingPairs(settings, forServer) {
  const pairs = [
    ["iterations", settings.iterations],
    ["color", settings.color],
  ];
  if (!forServer || usesPalette(settings)) pairs.push(["palette", settings.palette]);
  pairs.push(["strategy", settings.strategy]);
  if (!forServer && settings.compare) pairs.push([COMPARE_KEY, settings.compare]);
  for (const [key, value] of Object.entries(settings.extra)) {
    if (forServer && PALETTE_OPTIONS.has(key) && !usesPalette(settings)) continue;
    pairs.push([key, value]);
  }
  return pairs;
}

// Commas stay readable (a centre is "re,im"); everything else that needs it is escaped, "+" included.
function encodeValue(value) {
  return encodeURIComponent(value).replace(/%2C/gi, ",");
}

function queryOf(pairs) {
  return pairs.map(([key, value]) => `${encodeValue(key)}=${encodeValue(value)}`).join("&");
}

/**
 * The page's own URL for a view: ?center=…&zoom=…&iterations=…&color=…&palette=…&strategy=…, then &compare=…
 * side by side, then the extra keys.
 */
function pageURL(view) {
  return `${location.pathname}?${queryOf([["center", view.center], ["zoom", view.zoom], ...settingPairs(view, false)])}`;
}

/** The query of a request to the server for a picture of `size` ("WxH"), without `window`. */
function serverQuery(view, size) {
  return queryOf([["size", size], ["center", view.center], ["zoom", view.zoom], ...settingPairs(view, true)]);
}

// Reads a query string. A "+" is a plus sign (as in "1e+5"), never a space.
function parseQuery(search) {
  const decode = (text) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const pairs = [];
  for (const part of search.replace(/^\?/, "").split("&")) {
    if (!part) continue;
    const equals = part.indexOf("=");
    pairs.push(equals < 0 ? [decode(part), ""] : [decode(part.slice(0, equals)), decode(part.slice(equals + 1))]);
  }
  return pairs;
}

function startView() {
  const start = config.start;
  const view = { extra: {} };
  for (const [key, value] of Object.entries(start)) {
    if (MANAGED.includes(key)) view[key] = String(value);
    else if (!NOT_VIEW.has(key)) view.extra[key] = String(value);
  }
  for (const key of MANAGED) view[key] ??= FALLBACK_CONFIG.start[key];
  view.compare = "";
  return view;
}

/**
 * The view a query describes, missing keys taken from `start`, and a line for each value it could not use
 * (that value is replaced by start's). Centre and zoom are written back in decimal.js's forms.
 */
function viewFromQuery(search) {
  const fallback = startView();
  const view = { ...fallback, extra: { ...fallback.extra } };
  for (const [key, value] of parseQuery(search)) {
    if (NOT_VIEW.has(key) || key === "" || value === "") continue; // an empty value means nothing to mandel
    if (key === COMPARE_KEY) view.compare = value;
    else if (MANAGED.includes(key)) view[key] = value;
    else view.extra[key] = value;
  }
  const complaints = [];
  const check = (key, normalise) => {
    try {
      view[key] = normalise(view[key]);
    } catch (error) {
      complaints.push(`${key}=${view[key]}: ${error.message}; showing ${fallback[key]}`);
      view[key] = normalise(fallback[key]);
    }
  };
  check("center", (text) =>
    decimal
      .parseComplex(text)
      .map((part) => decimal.formatDecimal(part))
      .join(","));
  check("zoom", (text) => {
    const zoom = decimal.parseDecimal(text);
    if (zoom.m <= 0n) throw new RangeError("a zoom must be greater than 0");
    return decimal.formatDecimal(zoom, "auto");
  });
  check("iterations", (text) => checkedIterations(text));
  check("color", (text) => oneOf(text, config.colors, "colour"));
  check("strategy", (text) => oneOf(text, config.strategies.map((s) => s.name), "strategy"));
  check("palette", (text) => (String(text).trim().startsWith("#") ? String(text).trim() : oneOf(text, config.palettes, "palette")));
  check("compare", (text) =>
    text === "" || text === "off" ? "" : oneOf(text, config.strategies.map((s) => s.name), "strategy to compare"));
  return { view, complaints };
}

function oneOf(text, allowed, kind) {
  const word = String(text).trim();
  if (!allowed.includes(word)) throw new RangeError(`unknown ${kind}; choose from ${allowed.join(", ")}`);
  return word;
}

function checkedIterations(text) {
  const trimmed = String(text).trim();
  const value = Number(trimmed);
  if (!/^[0-9]+$/.test(trimmed) || !(value >= 1 && value <= config.max_iterations)) {
    throw new RangeError(`iterations must be a whole number from 1 to ${config.max_iterations}`);
  }
  return String(value);
}

/** The view on screen now: the viewport's centre as an exact decimal, and the anchor's settings. */
function currentView() {
  return { ...settingsOf(anchor.settings), center: currentCentre(), zoom: anchor.zoom };
}

let centreCache = { key: "", value: "" };

/** The viewport's centre: the anchor's centre moved by the offset, rounded below 1/10,000 of a pixel. */
function currentCentre() {
  if (pendingResize) return pendingResize.center;
  const [vw, vh] = viewportSize;
  // The viewport's centre is grid point offset + (vw, vh)/2; the picture's is (W, H)/2.
  const dx = offset[0] + vw / 2 - anchor.width / 2;
  const dy = offset[1] + vh / 2 - anchor.height / 2;
  const key = `${anchor.id} ${dx} ${dy}`;
  if (centreCache.key !== key) {
    centreCache = { key, value: decimal.centreAfterPan(anchor.center, anchor.zoom, [anchor.width, anchor.height], dx, dy) };
  }
  return centreCache.value;
}

function sizeText([width, height]) {
  return `${width}x${height}`;
}

function pictureOf(someAnchor) {
  return { center: someAnchor.center, zoom: someAnchor.zoom, size: [someAnchor.width, someAnchor.height] };
}

function sameSettings(a, b) {
  return JSON.stringify(settingPairs(a, false)) === JSON.stringify(settingPairs(b, false));
}

// MARK: - Anchors

/**
 * Makes `view` the anchored picture, at the viewport's size; the old picture's loaded tiles become placeholders.
 * A view with `compare` set has two sides, one per half, each its own strategy's tiles of the same picture.
 * @param {object} view - {center, zoom, iterations, color, palette, strategy, compare, extra}.
 * @param {object} [options] - offset: the viewport's corner in the new grid ([0, 0]); history: "push",
 *   "replace" or none; send: false to queue its tiles without sending them (a picture about to be replaced).
 */
function anchorAt(view, options = {}) {
  const previous = anchor;
  const previousFilled = previous ? previous.sides.map(sideFilled) : [];
  const compare = view.compare ?? "";
  if (compare !== layoutCompare) setLayout(compare);
  const [width, height] = viewportSize;
  const next = {
    id: ++anchorCount,
    center: view.center,
    zoom: view.zoom,
    width,
    height,
    settings: settingsOf(view),
    sides: [],
  };
  const strategies = compare ? [next.settings.strategy, compare] : [next.settings.strategy];
  next.sides = strategies.map((strategy, index) => {
    const layer = document.createElement("div");
    layer.className = "layer";
    layer.dataset.anchor = String(next.id);
    const picture = { ...next.settings, strategy, center: next.center, zoom: next.zoom };
    const query = serverQuery(picture, sizeText([width, height]));
    return { anchor: next, pane: panes[index], strategy, query, tiles: new Map(), layer, lastFailure: "" };
  });
  anchor = next;
  offset = options.offset ? [Math.round(options.offset[0]), Math.round(options.offset[1])] : [0, 0];
  if (previous) retire(previous, previousFilled);
  for (const side of next.sides) side.pane.layers.replaceChildren(side.layer);
  setStatus("tiles", "");
  showSettings();
  holdSends = options.send === false;
  updateView();
  holdSends = false;
  if (options.history) writeHistory(options.history);
  scheduleViewCheck();
  schedulePanels();
}

/**
 * Ends an anchor once the new one is current: its requests are aborted or dropped, never shown, and each
 * side's loaded tiles become a placeholder layer under the new picture in the same half. At most two
 * placeholder layers stay per half: the ended picture's on top of the one before it, unless the ended
 * picture covered the whole viewport. A half no longer shown keeps nothing.
 */
function retire(old, wasFilled) {
  old.sides.forEach((side, index) => {
    const pane = side.pane;
    const shown = anchor.sides.some((other) => other.pane === pane);
    let loaded = 0;
    for (const tile of side.tiles.values()) {
      if (tile.state === "loading") abortTile(tile);
      if (tile.state === "loaded" && shown) {
        tile.img.classList.add("placeholder");
        loaded += 1;
      } else {
        dropImage(tile.img);
      }
    }
    side.tiles = new Map();
    side.layer.classList.add("placeholder");
    if (!shown) {
      discardLayer(side.layer);
      removePlaceholders(pane);
      return;
    }
    const candidates = wasFilled[index] ? [] : pane.placeholderLayers;
    if (wasFilled[index]) for (const entry of pane.placeholderLayers) discardLayer(entry.layer);
    if (loaded) candidates.push({ layer: side.layer, picture: pictureOf(old) });
    else discardLayer(side.layer);
    pane.placeholderLayers = [];
    for (const entry of candidates) {
      entry.placement = placementOf(entry.picture);
      if (entry.placement) pane.placeholderLayers.push(entry);
      else discardLayer(entry.layer);
    }
    while (pane.placeholderLayers.length > MAX_PLACEHOLDER_LAYERS) discardLayer(pane.placeholderLayers.shift().layer);
    pruneHiddenPlaceholders(pane);
    pane.placeholders.replaceChildren(...pane.placeholderLayers.map((entry) => entry.layer));
    pane.placeholders.hidden = pane.placeholderLayers.length === 0;
  });
}

// Where a picture's grid lies in the current anchor's grid, or null when it would be useless on screen.
function placementOf(picture) {
  try {
    const placement = decimal.relativePlacement(picture, pictureOf(anchor));
    const usable =
      placement.scale >= 1 / 64 &&
      placement.scale <= 64 &&
      Math.abs(placement.x) < 1e7 &&
      Math.abs(placement.y) < 1e7;
    return usable ? placement : null;
  } catch {
    return null;
  }
}

function discardLayer(layer) {
  for (const img of layer.querySelectorAll("img")) dropImage(img);
  layer.remove();
}

function dropImage(img) {
  if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
  img.removeAttribute("src");
  img.remove();
}

// The screen rectangle of a placeholder tile in its half: [left, top, side].
function placeholderRect(entry, img) {
  const [shiftX, shiftY] = resizeShift();
  const { scale, x, y } = entry.placement;
  const left = scale * Number(img.dataset.x) + x - offset[0] + shiftX;
  const top = scale * Number(img.dataset.y) + y - offset[1] + shiftY;
  return [left, top, scale * tileSide];
}

function onScreen([left, top, side]) {
  const [vw, vh] = viewportSize;
  return left < vw && top < vh && left + side > 0 && top + side > 0;
}

// A half's placeholder tiles off screen are dropped, and layers left empty with them.
function pruneHiddenPlaceholders(pane) {
  pane.placeholderLayers = pane.placeholderLayers.filter((entry) => {
    for (const img of entry.layer.querySelectorAll("img")) {
      if (!onScreen(placeholderRect(entry, img))) dropImage(img);
    }
    if (entry.layer.querySelector("img")) return true;
    entry.layer.remove();
    return false;
  });
}

function removePlaceholders(pane) {
  for (const entry of pane.placeholderLayers) discardLayer(entry.layer);
  pane.placeholderLayers = [];
  pane.placeholders.hidden = true;
}

// MARK: - Tiles

function tileWindow(i, j) {
  return `${i * tileSide},${j * tileSide},${tileSide},${tileSide}`;
}

// The tiles (i, j) whose squares meet the viewport grown by `margin` pixels: [i0, i1, j0, j1], inclusive.
function tileRange(margin) {
  const [vw, vh] = viewportSize;
  const [ox, oy] = offset;
  return [
    Math.floor((ox - margin) / tileSide),
    Math.floor((ox + vw + margin - 1) / tileSide),
    Math.floor((oy - margin) / tileSide),
    Math.floor((oy + vh + margin - 1) / tileSide),
  ];
}

function inRange(tile, [i0, i1, j0, j1]) {
  return tile.i >= i0 && tile.i <= i1 && tile.j >= j0 && tile.j <= j1;
}

// The squared distance from a tile's centre to the viewport's centre.
function distance(tile) {
  const [vw, vh] = viewportSize;
  const dx = tile.i * tileSide + tileSide / 2 - (offset[0] + vw / 2);
  const dy = tile.j * tileSide + tileSide / 2 - (offset[1] + vh / 2);
  return dx * dx + dy * dy;
}

// The tiles of a side that meet the viewport (created as needed only by updateView).
function visibleTiles(side) {
  const range = tileRange(0);
  const tiles = [];
  for (let j = range[2]; j <= range[3]; j++) {
    for (let i = range[0]; i <= range[1]; i++) tiles.push(side.tiles.get(`${i},${j}`) ?? { state: "absent" });
  }
  return tiles;
}

/** Whether every tile of a side that meets the viewport is loaded. */
function sideFilled(side) {
  return visibleTiles(side).every((tile) => tile.state === "loaded");
}

function makeTile(side, i, j) {
  const window = tileWindow(i, j);
  const img = document.createElement("img");
  img.alt = "";
  img.draggable = false;
  img.decoding = "async";
  img.width = tileSide;
  img.height = tileSide;
  img.style.width = `${tileSide}px`;
  img.style.height = `${tileSide}px`;
  img.style.left = `${i * tileSide}px`;
  img.style.top = `${j * tileSide}px`;
  img.dataset.window = window;
  img.dataset.x = String(i * tileSide);
  img.dataset.y = String(j * tileSide);
  const tile = {
    key: `${i},${j}`,
    i,
    j,
    window,
    url: `/tile?${side.query}&window=${window}`,
    state: "queued",
    img,
    anchor: side.anchor,
    side,
    controller: null,
    release: null,
    notBefore: 0,
    retryAt: 0,
  };
  setState(tile, "queued");
  side.layer.append(img);
  side.tiles.set(tile.key, tile);
  return tile;
}

function setState(tile, state) {
  tile.state = state;
  tile.img.dataset.state = state;
}

// Each half logs its own tiles.
function record(tile, type) {
  const paneLog = tile.side.pane.log;
  paneLog.push({ type, url: tile.url, t: performance.now() });
  if (paneLog.length > LOG_LIMIT) paneLog.splice(0, paneLog.length - LOG_LIMIT);
}

/**
 * Stops a tile that is no longer wanted. Logged "aborted" while its answer has not begun (the
 * server then cancels it), "discarded" once it has (the server had rendered and sent it).
 */
function abortTile(tile) {
  const controller = tile.controller;
  tile.controller = null;
  tile.release?.();
  setState(tile, "aborted");
  record(tile, tile.answered ? "discarded" : "aborted");
  controller?.abort();
}

function forgetTile(tile) {
  if (tile.state === "loading") abortTile(tile);
  dropImage(tile.img);
  tile.side.tiles.delete(tile.key);
}

/**
 * Brings the tiles in line with the view: wanted ones queued, far ones aborted or forgotten, then sends.
 * Every call follows a move (a pan, a zoom, a control, a resize): each half's next full viewport is timed from it.
 */
function updateView() {
  applyTransforms();
  if (!anchor || pendingResize) return;
  const now = performance.now();
  const visible = tileRange(0);
  const kept = tileRange(tileSide);
  for (const side of anchor.sides) {
    for (let j = visible[2]; j <= visible[3]; j++) {
      for (let i = visible[0]; i <= visible[1]; i++) {
        const tile = side.tiles.get(`${i},${j}`);
        if (!tile) makeTile(side, i, j);
        else if (tile.state === "aborted" || (tile.state === "failed" && tile.retryAt && now >= tile.retryAt)) {
          tile.notBefore = 0;
          setState(tile, "queued");
        }
      }
    }
    for (const tile of [...side.tiles.values()]) {
      if (tile.state === "queued" && !inRange(tile, visible)) forgetTile(tile); // never sent
      else if (tile.state === "loading" && !inRange(tile, kept)) abortTile(tile);
    }
    if (side.tiles.size > CACHE_LIMIT) {
      const far = [...side.tiles.values()]
        .filter((tile) => tile.state !== "loading" && !inRange(tile, visible))
        .sort((a, b) => distance(b) - distance(a));
      for (const tile of far.slice(0, side.tiles.size - CACHE_LIMIT)) forgetTile(tile);
    }
    side.pane.timing.pending = sideFilled(side) ? null : { t: moveTime ?? now };
  }
  moveTime = null;
  pump();
  for (const side of anchor.sides) checkFilled(side.pane);
}

/** When the input that moves the view next happened (an event's timeStamp), or null for now. */
let moveTime = null;
let pumpTimer = 0;
let holdSends = false;
/** After a 503, nothing new is sent before this time (the server's Retry-After): its queue is full for everyone. */
let busyUntil = 0;
/** The side whose turn it is to send next, side by side: the halves take turns for the six in flight. */
let nextSide = 0;

/** Sends the nearest queued tiles while fewer than six are in flight, taking each half in turn. */
function pump() {
  if (!anchor || pendingResize || holdSends) return;
  const now = performance.now();
  let earliest = busyUntil > now ? busyUntil : Infinity;
  const sides = anchor.sides;
  while (inFlight < MAX_IN_FLIGHT && busyUntil <= now) {
    let best = null;
    for (let k = 0; k < sides.length && !best; k++) {
      const side = sides[(nextSide + k) % sides.length];
      let bestDistance = Infinity;
      for (const tile of side.tiles.values()) {
        if (tile.state !== "queued") continue;
        if (tile.notBefore > now) {
          earliest = Math.min(earliest, tile.notBefore);
          continue;
        }
        const d = distance(tile);
        if (d < bestDistance) [best, bestDistance] = [tile, d];
      }
    }
    if (!best) break;
    nextSide = (sides.indexOf(best.side) + 1) % sides.length;
    send(best);
  }
  clearTimeout(pumpTimer);
  if (earliest < Infinity) pumpTimer = setTimeout(pump, Math.max(0, earliest - now) + 5);
}

async function send(tile) {
  const controller = new AbortController();
  let held = true;
  inFlight += 1;
  const release = () => {
    if (held) {
      held = false;
      inFlight -= 1;
    }
  };
  tile.controller = controller;
  tile.release = release;
  tile.answered = false;
  setState(tile, "loading");
  record(tile, "sent");
  const current = () => tile.controller === controller;
  try {
    const response = await fetch(tile.url, { signal: controller.signal });
    if (!current()) return;
    tile.answered = true;
    if (response.status === 503) {
      response.body?.cancel().catch(() => {});
      const seconds = Number(response.headers.get("Retry-After"));
      release();
      tile.controller = null;
      tile.notBefore = performance.now() + 1000 * (seconds >= 0 && seconds <= 60 ? seconds : 1);
      busyUntil = Math.max(busyUntil, tile.notBefore);
      setState(tile, "queued");
      record(tile, "retry");
      showTileStatus();
      return;
    }
    if (!response.ok) {
      const line = await firstLine(response);
      if (current()) failTile(tile, `tile ${tile.window}: ${line}`, false);
      return;
    }
    const blob = await response.blob();
    if (!current()) return;
    // The slot is held until the picture is decoded, so that the log's sent and loaded pair up in time.
    const url = URL.createObjectURL(blob);
    tile.img.src = url;
    try {
      await tile.img.decode();
    } catch {
      if (current()) failTile(tile, `tile ${tile.window}: the server's answer is not a picture`, false);
      return;
    }
    if (!current() || tile.anchor !== anchor) {
      // Left the view or superseded while decoding: never shown.
      if (tile.img.src === url) tile.img.removeAttribute("src");
      URL.revokeObjectURL(url);
      return;
    }
    tile.controller = null;
    tile.release = null;
    setState(tile, "loaded");
    record(tile, "loaded");
    tile.side.pane.timing.firstTile ??= performance.now();
    showTileStatus();
    checkFilled(tile.side.pane);
  } catch (error) {
    if (error.name === "AbortError" || !current()) return;
    failTile(tile, `tile ${tile.window}: network: ${error.message}`, true);
  } finally {
    release();
    pump();
  }
}

async function firstLine(response) {
  const type = response.headers.get("Content-Type") ?? "";
  let text = "";
  if (type.startsWith("text/plain")) {
    try {
      text = (await response.text()).split("\n")[0].trim().slice(0, 300);
    } catch {
      text = "";
    }
  } else {
    response.body?.cancel().catch(() => {});
  }
  return text || `${response.status} ${response.statusText}`.trim();
}

function failTile(tile, line, retryable) {
  tile.release?.();
  tile.controller = null;
  tile.retryAt = retryable ? performance.now() + NETWORK_RETRY_MS : 0;
  if (tile.img.src.startsWith("blob:")) URL.revokeObjectURL(tile.img.src);
  tile.img.removeAttribute("src");
  setState(tile, "failed");
  record(tile, "failed");
  tile.side.lastFailure = line;
  showTileStatus();
}

function showTileStatus() {
  if (!anchor) return;
  let failed = 0;
  let waiting = 0;
  let lastFailure = "";
  const now = performance.now();
  for (const side of anchor.sides) {
    for (const tile of side.tiles.values()) {
      if (tile.state === "failed") {
        failed += 1;
        lastFailure ||= side.lastFailure;
      } else if (tile.state === "queued" && tile.notBefore > now) {
        waiting += 1;
      }
    }
  }
  const lines = [];
  if (failed) lines.push(`${lastFailure}${failed > 1 ? ` (${failed} tiles failed)` : ""}`);
  if (waiting) lines.push(`the server is busy: ${waiting} tile${waiting > 1 ? "s wait" : " waits"} to retry`);
  setStatus("tiles", lines.join("\n"));
}

/**
 * Whether every tile that meets a half's viewport is loaded and no placeholder is left there; drops them
 * when it is, and times the half's viewport as full.
 * @param {object} [pane] - the half (the primary one unless given).
 */
function checkFilled(pane = primaryPane()) {
  if (!anchor || pendingResize) return false;
  const side = anchor.sides.find((candidate) => candidate.pane === pane);
  if (!side) return false;
  const filled = sideFilled(side);
  if (filled) noteFilled(pane);
  if (filled && pane.placeholderLayers.length) removePlaceholders(pane);
  return filled && pane.placeholderLayers.length === 0;
}

// A half's viewport is full: the first time since the navigation, and the time since the last move.
function noteFilled(pane) {
  const timing = pane.timing;
  const now = performance.now();
  timing.full ??= now;
  if (!timing.pending) return;
  timing.moves.push(Math.max(0, now - timing.pending.t));
  if (timing.moves.length > MOVES_KEPT) timing.moves.shift();
  timing.pending = null;
  schedulePanels();
}

// MARK: - Placing layers

// While a resize waits, the layers move (whole pixels) so that the old centre stays at the viewport's centre.
function resizeShift() {
  if (!pendingResize) return [0, 0];
  return [
    Math.round((viewportSize[0] - pendingResize.size[0]) / 2),
    Math.round((viewportSize[1] - pendingResize.size[1]) / 2),
  ];
}

// A translation on whole device pixels: tiles at fractional positions show seams between them.
function snap(value) {
  const ratio = window.devicePixelRatio || 1;
  return Math.round(value * ratio) / ratio;
}

function applyTransforms() {
  if (!anchor) return;
  const [shiftX, shiftY] = resizeShift();
  const transform = `translate(${snap(shiftX - offset[0])}px, ${snap(shiftY - offset[1])}px)`;
  for (const side of anchor.sides) {
    side.layer.style.transform = transform;
    for (const { layer, placement } of side.pane.placeholderLayers) {
      const x = snap(placement.x - offset[0] + shiftX);
      const y = snap(placement.y - offset[1] + shiftY);
      layer.style.transform = `translate(${x}px, ${y}px) scale(${placement.scale})`;
    }
  }
}

// MARK: - Halves

/**
 * Shows one half or two: where the containers and the panels go, and the viewport's size (one half's).
 * @param {string} compare - the second half's strategy, or "" for the whole screen to one.
 */
function setLayout(compare) {
  layoutCompare = compare;
  const comparing = compare !== "";
  dom.view.classList.toggle("comparing", comparing);
  dom.compareLayers.hidden = !comparing;
  dom.divider.hidden = !comparing;
  dom.compareLive.hidden = !comparing;
  if (!comparing) {
    removePlaceholders(comparePane());
    dom.compareLayers.replaceChildren();
  }
  placePanes();
  viewportSize = measureViewport();
}

// Side by side, the halves are equally wide (one viewport's size), with a thin gap between them.
function placePanes() {
  const total = dom.view.clientWidth;
  const width = layoutCompare ? Math.max(1, Math.floor((total - PANE_GAP) / 2)) : total;
  const second = total - width; // the second half's left edge
  for (const element of [dom.layers, dom.placeholders]) element.style.width = layoutCompare ? `${width}px` : "";
  for (const element of [dom.compareLayers, dom.comparePlaceholders]) {
    element.style.left = `${second}px`;
    element.style.width = `${width}px`;
  }
  dom.divider.style.left = `${width}px`;
  dom.divider.style.width = `${Math.max(0, second - width)}px`;
  dom.live.style.right = layoutCompare ? `${second + 8}px` : "";
}

/** A point in the view's box as a point in the half it falls in. */
function toPane([x, y]) {
  if (!layoutCompare) return [x, y];
  const second = dom.view.clientWidth - viewportSize[0];
  return [x >= second ? x - second : Math.min(x, viewportSize[0] - 1), y];
}

// MARK: - Pan and zoom

/** Moves the picture by (dx, dy) CSS pixels, as a drag does (whole pixels: the offset stays an integer). */
function panBy(dx, dy) {
  if (!anchor) return;
  flushResize();
  const x = Math.round(dx);
  const y = Math.round(dy);
  if (x === 0 && y === 0) return;
  offset = [offset[0] - x, offset[1] - y];
  updateView();
  showZoom();
}

/**
 * Zooms by `factor` (2 or 1/2) about the viewport point (x, y), which stays where it is: a new anchor.
 * @returns {boolean} whether it zoomed (false at the zoom's limits, with a status line).
 */
function zoomAbout(x, y, factor) {
  if (!anchor) return false;
  flushResize({ send: false }); // the zoom is about the picture as anchored at the viewport's size
  const f = Number(factor) >= 1 ? 2 : 0.5;
  const next = decimal.centreAfterZoom(
    anchor.center,
    anchor.zoom,
    [anchor.width, anchor.height],
    Math.round(x),
    Math.round(y),
    f,
    offset,
  );
  if (f > 1 && decimal.compare(next.zoom, MAX_ZOOM) > 0) {
    setStatus("input", `the deepest zoom mandel renders is ${MAX_ZOOM}`);
    return false;
  }
  if (f < 1 && decimal.compare(next.zoom, MIN_ZOOM) < 0) {
    setStatus("input", `the page zooms out to ${MIN_ZOOM}`);
    return false;
  }
  setStatus("input", "");
  anchorAt({ ...settingsOf(anchor.settings), center: next.center, zoom: next.zoom });
  return true;
}

// MARK: - History

let lastCommit = null; // {kind, t}
let lastURLWrite = 0;
let urlTimer = 0;

function historyState() {
  return {
    mandel: 1,
    anchor: { center: anchor.center, zoom: anchor.zoom, width: anchor.width, height: anchor.height, settings: anchor.settings },
    offset: [...offset],
  };
}

/** Writes the current view into the URL: a new history entry ("push") or the current one ("replace"). */
function writeHistory(mode) {
  if (!anchor) return;
  clearTimeout(urlTimer);
  const url = pageURL(currentView());
  const same = url === location.pathname + location.search;
  if (mode === "push" && !same) history.pushState(historyState(), "", url);
  else history.replaceState(historyState(), "", url);
  lastURLWrite = performance.now();
  document.title = `mandel · ${decimal.formatShort(anchor.zoom)}×`;
  scheduleViewCheck();
}

/** A discrete change ended: a new history entry, or the same one for a burst of the same kind (wheel, held key). */
function commit(kind, coalesce = false) {
  const now = performance.now();
  const joins = coalesce && lastCommit?.kind === kind && now - lastCommit.t < COALESCE_MS;
  writeHistory(joins ? "replace" : "push");
  lastCommit = { kind, t: now };
  setStatus("url", ""); // what the opened URL got wrong no longer describes the view
}

// While a drag goes on, the URL follows it (replaceState), at most every URL_WRITE_INTERVAL_MS.
function followInURL() {
  const wait = lastURLWrite + URL_WRITE_INTERVAL_MS - performance.now();
  clearTimeout(urlTimer);
  if (wait <= 0) writeHistory("replace");
  else urlTimer = setTimeout(() => writeHistory("replace"), wait);
}

function restore(state) {
  if (!anchor) return;
  cancelResize();
  setStatus("input", "");
  const saved = state?.mandel === 1 ? state.anchor : null;
  // The entry's halves first: the viewport's size depends on them.
  const savedCompare = saved?.settings?.compare ?? "";
  if (saved && savedCompare !== layoutCompare) setLayout(savedCompare);
  const fits = saved && saved.width === viewportSize[0] && saved.height === viewportSize[1];
  if (fits && anchor && saved.center === anchor.center && saved.zoom === anchor.zoom &&
      anchor.width === saved.width && anchor.height === saved.height && sameSettings(saved.settings, anchor.settings)) {
    offset = [...state.offset]; // the same picture: its loaded tiles serve again
    updateView();
    showZoom();
  } else if (fits) {
    anchorAt({ ...settingsOf(saved.settings), center: saved.center, zoom: saved.zoom }, { offset: state.offset });
  } else {
    const { view, complaints } = viewFromQuery(location.search);
    setStatus("url", complaints.join("\n"));
    anchorAt(view);
  }
  lastCommit = null;
  document.title = `mandel · ${decimal.formatShort(anchor.zoom)}×`;
  scheduleViewCheck();
}

// MARK: - Resize

/** The viewport's size: the view's box, or one half of it side by side. */
function measureViewport() {
  const width = Math.max(1, dom.view.clientWidth);
  const height = Math.max(1, dom.view.clientHeight);
  return [layoutCompare ? Math.max(1, Math.floor((width - PANE_GAP) / 2)) : width, height];
}

function onResize() {
  placePanes();
  const size = measureViewport();
  if (size[0] === viewportSize[0] && size[1] === viewportSize[1]) return;
  if (!anchor) {
    viewportSize = size;
    return;
  }
  if (!pendingResize) pendingResize = { center: currentCentre(), size: viewportSize, timer: 0 };
  viewportSize = size;
  applyTransforms();
  clearTimeout(pendingResize.timer);
  pendingResize.timer = setTimeout(flushResize, RESIZE_DELAY_MS);
}

/**
 * Ends a pending resize: re-anchors at the same centre and zoom with the new viewport's size.
 * @param {object} [options] - send: false when another anchor follows at once (no requests, no history).
 */
function flushResize(options = {}) {
  if (!pendingResize) return;
  const { center, size, timer } = pendingResize;
  clearTimeout(timer);
  pendingResize = null;
  const quiet = options.send === false;
  if (size[0] === viewportSize[0] && size[1] === viewportSize[1]) {
    if (quiet) applyTransforms();
    else updateView(); // back to the size it had: the same picture
    return;
  }
  const view = { ...settingsOf(anchor.settings), center, zoom: anchor.zoom };
  anchorAt(view, quiet ? { send: false } : { history: "replace" });
}

/** Forgets a pending resize, for a change that anchors anew anyway (it reads the view first). */
function cancelResize() {
  if (!pendingResize) return;
  clearTimeout(pendingResize.timer);
  pendingResize = null;
  applyTransforms();
}

// MARK: - Controls

function fillSelect(select, options) {
  select.replaceChildren(
    ...options.map(({ value, label, title }) => {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = label ?? value;
      if (title) option.title = title;
      return option;
    }),
  );
}

function setUpControls() {
  fillSelect(dom.color, config.colors.map((value) => ({ value })));
  fillSelect(dom.strategy, config.strategies.map(({ name, summary }) => ({ value: name, title: summary })));
  fillSelect(dom.compare, [
    { value: "off", title: "one strategy on the whole screen" },
    ...config.strategies.map(({ name, summary }) => ({ value: name, title: summary })),
  ]);
  dom.iterations.max = String(config.max_iterations);

  dom.bar.addEventListener("submit", (event) => event.preventDefault());
  dom.iterations.addEventListener("change", () => {
    try {
      changeSetting("iterations", checkedIterations(dom.iterations.value));
      setStatus("input", "");
    } catch (error) {
      setStatus("input", error.message);
      dom.iterations.value = anchor.settings.iterations;
    }
  });
  dom.iterations.addEventListener("keydown", (event) => {
    if (event.key === "Enter") dom.iterations.dispatchEvent(new Event("change"));
    if (event.key === "Escape") {
      dom.iterations.value = anchor.settings.iterations;
      dom.iterations.blur();
    }
  });
  for (const key of ["color", "palette", "strategy"]) {
    dom[key].addEventListener("change", () => changeSetting(key, dom[key].value));
  }
  dom.compare.addEventListener("change", () => {
    changeSetting("compare", dom.compare.value === "off" ? "" : dom.compare.value);
  });
  dom.copy.addEventListener("click", copyCommand);
  dom.command.addEventListener("focus", () => dom.command.select());
}

// A control changed: the same place with the new setting, anchored anew, and a history entry.
function changeSetting(key, value) {
  if (!anchor || anchor.settings[key] === value) return;
  const view = currentView();
  cancelResize();
  view[key] = value;
  anchorAt(view);
  commit("control");
}

function showSettings() {
  const settings = anchor.settings;
  dom.iterations.value = settings.iterations;
  dom.color.value = settings.color;
  const palettes = config.palettes.map((value) => ({ value }));
  if (!config.palettes.includes(settings.palette)) palettes.push({ value: settings.palette, label: "custom", title: settings.palette });
  fillSelect(dom.palette, palettes);
  dom.palette.value = settings.palette;
  dom.palette.disabled = !usesPalette(settings);
  dom.palette.title = usesPalette(settings) ? "" : "bw and gray use no palette";
  dom.strategy.value = settings.strategy;
  dom.strategy.title = config.strategies.find((s) => s.name === settings.strategy)?.summary ?? "";
  dom.compare.value = settings.compare || "off";
  dom.compare.title = settings.compare
    ? `the right half: ${config.strategies.find((s) => s.name === settings.compare)?.summary ?? settings.compare}`
    : "show the same view rendered by a second strategy, side by side";
  showZoom();
}

// The zoom read-out, and the command composed here (the server's, from /view, replaces it when it comes).
function showZoom() {
  if (!anchor) return;
  dom.zoom.textContent = decimal.formatShort(anchor.zoom);
  dom.zoom.title = `zoom ${anchor.zoom}`;
  dom.command.value = composeCommand(currentView(), sizeText(viewportSize));
}

// MARK: - The command

function shellWord(word) {
  return /^[A-Za-z0-9_.,:=/@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The options in the order the server's /view writes them (`render`'s own); any others follow. */
const COMMAND_ORDER = [
  "strategy", "size", "center", "zoom", "precision", "bla", "iterations", "color", "palette", "palette-cycle",
  "palette-offset", "julia", "supersample",
];

/** `mandel render …` for a view, composed here when the server's /view cannot say. */
function composeCommand(view, size) {
  const options = new Map([["size", size], ["center", view.center], ["zoom", view.zoom], ...settingPairs(view, true)]);
  const keys = [
    ...COMMAND_ORDER.filter((key) => options.has(key)),
    ...[...options.keys()].filter((key) => !COMMAND_ORDER.includes(key)),
  ];
  const words = ["mandel", "render", ...keys.flatMap((key) => [`--${key}`, options.get(key)]), "-o", "mandel.png"];
  return words.map(shellWord).join(" ");
}

let viewCheck = { timer: 0, controller: null, available: true };

function scheduleViewCheck() {
  clearTimeout(viewCheck.timer);
  viewCheck.timer = setTimeout(checkView, 250);
}

/** Asks the server's /view for the command and the precision of the view on screen (and whether it is valid). */
async function checkView() {
  if (!anchor) return;
  showZoom();
  if (!viewCheck.available) return;
  viewCheck.controller?.abort();
  const controller = new AbortController();
  viewCheck.controller = controller;
  const query = serverQuery(currentView(), sizeText(viewportSize));
  try {
    const response = await fetch(`/view?${query}`, { signal: controller.signal });
    if (response.status === 400) {
      setStatus("view", await firstLine(response));
      return;
    }
    if (response.status === 404 || response.status === 405 || response.status === 501) {
      viewCheck.available = false; // a server without /view: the page composes the command itself
      return;
    }
    if (!response.ok) return;
    const answer = await response.json();
    if (controller !== viewCheck.controller) return;
    setStatus("view", "");
    if (typeof answer.command === "string") dom.command.value = answer.command;
    if (typeof answer.precision === "string") {
      dom.precision.textContent = answer.precision === "double" ? "" : answer.precision;
      dom.precision.title = `computed with ${answer.precision}`;
      viewPrecision = answer.precision;
      schedulePanels();
    }
  } catch {
    // No answer (aborted, offline): the composed command stays.
  }
}

async function copyCommand() {
  const text = dom.command.value;
  let copied = false;
  try {
    await navigator.clipboard.writeText(text);
    copied = true;
  } catch {
    dom.command.focus();
    dom.command.select();
    copied = document.execCommand("copy");
  }
  dom.copy.textContent = copied ? "copied" : "select + ⌘C";
  setTimeout(() => (dom.copy.textContent = "copy"), 1200);
}

// MARK: - Status

/** Sets the line of one source (tiles, view, url, input, config); an empty line clears it. */
function setStatus(source, line) {
  if (line) statusLines.set(source, line);
  else statusLines.delete(source);
  dom.status.textContent = [...statusLines.values()].join("\n");
}

// MARK: - Input

// Runs a move for an input event: the half's next full viewport is timed from the event, not the handler.
function asInput(event, move) {
  moveTime = event.timeStamp;
  try {
    return move();
  } finally {
    moveTime = null;
  }
}

function isTyping(target) {
  return target instanceof Element && target.closest("input, select, textarea, [contenteditable]") !== null;
}

function setUpInput() {
  const pointers = new Map(); // pointerId → {x, y}
  let drag = null; // {id, x, y, applied: [x, y], moved}
  let pinch = null; // {distance}

  const spread = () => {
    const [a, b] = [...pointers.values()];
    return { distance: Math.hypot(a.x - b.x, a.y - b.y), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  };
  const local = (event) => {
    const box = dom.view.getBoundingClientRect();
    return [event.clientX - box.left, event.clientY - box.top];
  };

  dom.view.addEventListener("pointerdown", (event) => {
    if (event.pointerType === "mouse" && event.button !== 0) return;
    dom.view.setPointerCapture(event.pointerId);
    const [x, y] = local(event);
    pointers.set(event.pointerId, { x, y });
    if (pointers.size === 1) {
      drag = { id: event.pointerId, x, y, applied: [0, 0], moved: false };
    } else if (pointers.size === 2) {
      endDrag();
      pinch = { distance: spread().distance };
    }
  });
  dom.view.addEventListener("pointermove", (event) => {
    if (!pointers.has(event.pointerId)) return;
    const [x, y] = local(event);
    pointers.set(event.pointerId, { x, y });
    if (pinch && pointers.size === 2) {
      const now = spread();
      const ratio = now.distance / Math.max(1, pinch.distance);
      if (ratio >= 1.6 || ratio <= 1 / 1.6) {
        if (asInput(event, () => zoomAbout(...toPane([now.x, now.y]), ratio > 1 ? 2 : 0.5))) commit("pinch", true);
        pinch.distance = now.distance;
      }
      return;
    }
    if (!drag || drag.id !== event.pointerId) return;
    if (!drag.moved && Math.hypot(x - drag.x, y - drag.y) < DRAG_THRESHOLD) return; // a click's jitter
    const total = [Math.round(x - drag.x), Math.round(y - drag.y)];
    const step = [total[0] - drag.applied[0], total[1] - drag.applied[1]];
    if (step[0] === 0 && step[1] === 0) return;
    drag.applied = total;
    asInput(event, () => panBy(step[0], step[1]));
    if (!drag.moved) {
      drag.moved = true;
      dom.view.classList.add("dragging");
      commit("drag"); // the drag's own history entry, which it then keeps up to date
    } else {
      followInURL();
    }
  });
  const endDrag = () => {
    if (drag?.moved) writeHistory("replace");
    drag = null;
    dom.view.classList.remove("dragging");
  };
  let lastTap = { t: -Infinity, x: 0, y: 0 };
  let tapZoomed = -Infinity; // Chromium may follow a double tap with a dblclick: one zoom, not two
  const up = (event) => {
    if (!pointers.delete(event.pointerId)) return;
    if (drag?.id === event.pointerId) {
      // A double tap zooms in on touch screens, where a dblclick does not always come.
      if (event.pointerType === "touch" && !drag.moved && event.type === "pointerup") {
        const [x, y] = local(event);
        const now = performance.now();
        if (now - lastTap.t < 300 && Math.hypot(x - lastTap.x, y - lastTap.y) < 30) {
          asInput(event, () => zoomAt(...toPane([x, y]), 2));
          lastTap = { t: -Infinity, x: 0, y: 0 };
          tapZoomed = now;
        } else {
          lastTap = { t: now, x, y };
        }
      }
      endDrag();
    }
    if (pointers.size < 2) pinch = null;
  };
  dom.view.addEventListener("pointerup", up);
  dom.view.addEventListener("pointercancel", up);

  dom.view.addEventListener("dblclick", (event) => {
    event.preventDefault();
    if (performance.now() - tapZoomed < 600) return;
    const [x, y] = toPane(local(event));
    asInput(event, () => zoomAt(x, y, event.shiftKey ? 0.5 : 2));
  });

  let wheel = { sum: 0, last: 0, seen: 0 };
  dom.view.addEventListener(
    "wheel",
    (event) => {
      event.preventDefault();
      const unit = event.deltaMode === 1 ? 40 : event.deltaMode === 2 ? 800 : 1;
      const delta = event.deltaY * unit;
      const now = performance.now();
      // A new direction, or a pause, starts a new sum.
      if (Math.sign(delta) !== Math.sign(wheel.sum) || now - wheel.seen > 400) wheel.sum = 0;
      wheel.sum += delta;
      wheel.seen = now;
      if (Math.abs(wheel.sum) < WHEEL_STEP || now - wheel.last < WHEEL_INTERVAL_MS) return;
      const factor = wheel.sum < 0 ? 2 : 0.5;
      wheel = { sum: 0, last: now, seen: now };
      const [x, y] = toPane(local(event));
      if (asInput(event, () => zoomAbout(x, y, factor))) commit("wheel", true);
    },
    { passive: false },
  );

  window.addEventListener("keydown", (event) => {
    if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey || !anchor) return;
    const [vw, vh] = viewportSize;
    const pans = {
      ArrowLeft: [vw / 4, 0],
      ArrowRight: [-vw / 4, 0],
      ArrowUp: [0, vh / 4],
      ArrowDown: [0, -vh / 4],
    };
    if (pans[event.key]) {
      asInput(event, () => panBy(...pans[event.key]));
      commit("key-pan", event.repeat);
    } else if (event.key === "+" || event.key === "=") {
      if (asInput(event, () => zoomAbout(vw / 2, vh / 2, 2))) commit("key-zoom", event.repeat);
    } else if (event.key === "-" || event.key === "_") {
      if (asInput(event, () => zoomAbout(vw / 2, vh / 2, 0.5))) commit("key-zoom", event.repeat);
    } else {
      return;
    }
    event.preventDefault();
  });

  window.addEventListener("resize", onResize);
  window.addEventListener("popstate", (event) => restore(event.state));
}

// MARK: - The live panel

/** The latest /events message (null until one comes), how many came, when the last did, and the stream's state. */
const live = { figures: null, count: 0, at: null, state: "connecting" };
/** The view's precision as /view names it ("double", "perturbation"): the deep row shows only at a deep view. */
let viewPrecision = "double";

/** The panel's rows: key, label, and what the figure is (the row's tooltip). */
const PANEL_ROWS = [
  ["tiles", "tiles/s", "tiles of this strategy sent per second, over the server's last 2 s"],
  [
    "fill",
    "move → full",
    "from the last pan, zoom or control change to every visible tile loaded, timed by this page: " +
      "the latest, and the median of the last 20",
  ],
  ["cancel", "cancel p50 · p95", "from a tile's client going away to its render stopping, since the server started"],
  [
    "wasted",
    "CPU wasted",
    "processor time of tiles nobody saw (cancelled while rendering, or rendered and never sent), " +
      "its share of this strategy's tile CPU, and the part of it after the cancels: what the mechanism " +
      "controls (the rest was spent before the client went away)",
  ],
  [
    "late",
    "main queue late",
    "how late the server's main-queue heartbeat ran while this strategy rendered: " +
      "p99 and max of the last 2 s, and the worst since the server started",
  ],
  ["threads", "threads", "the most threads the server had while this strategy rendered in the last 2 s, and now"],
  ["memory", "memory", "the server's resident memory"],
  [
    "deep",
    "deep orbit",
    "at a deep view: the reference orbit's share of the last tile that computed one (it runs on one thread), " +
      "and Amdahl's bound on its workers",
  ],
];
/** The order of a strategy's details (/config's keys, the words of `mandel strategies --details`). */
const DETAIL_ORDER = ["cancel", "waits", "priority", "dependency", "recovers"];
/** The details always shown (the lessons the halves make visible); the others fold. */
const SHOWN_DETAILS = ["cancel", "waits"];

/** Builds a half's panel in `root`: a collapsible table of figures and the strategy's lesson. */
function makePanel(root) {
  const make = (tag, className) => {
    const element = document.createElement(tag);
    if (className) element.className = className;
    return element;
  };
  const details = make("details");
  details.open = true;
  const summary = make("summary");
  const name = make("span", "name");
  const brief = make("span", "brief");
  summary.append(name, brief);
  const table = make("table");
  const fields = {};
  for (const [key, label, title] of PANEL_ROWS) {
    const row = table.insertRow();
    row.title = title;
    const header = make("th");
    header.scope = "row";
    header.textContent = label;
    const cell = make("td");
    cell.textContent = "–";
    cell.dataset.field = key;
    fields[key] = cell;
    row.append(header, cell);
  }
  // The lesson: the summary and how the strategy cancels and waits, the rest a click away.
  const lesson = make("div", "lesson");
  const lessonSummary = make("p");
  const lessonList = make("dl");
  const more = make("details", "more");
  const moreTitle = make("summary");
  const moreList = make("dl");
  more.append(moreTitle, moreList);
  lesson.append(lessonSummary, lessonList, more);
  details.append(summary, table, lesson);
  root.replaceChildren(details);
  return { root, details, name, brief, fields, lessonSummary, lessonList, more, moreTitle, moreList, lessonFor: null };
}

function median(values) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// A number, or null for anything else (absent, null, NaN): the panel shows null as "–".
function finite(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function milliseconds(seconds) {
  const value = finite(seconds);
  return value === null ? null : value * 1000;
}

/** A half's figures now, as numbers (null where absent): what its panel shows. */
function panelValues(pane) {
  const side = anchor?.sides.find((candidate) => candidate.pane === pane) ?? null;
  const strategy = side?.strategy ?? null;
  const figures = live.figures;
  const now = strategy ? figures?.strategies?.[strategy] : undefined;
  const totals = strategy ? figures?.totals?.[strategy] : undefined;
  const moves = pane.timing.moves;
  const cpu = finite(totals?.cpu_seconds);
  const wasted = finite(totals?.cpu_seconds_wasted);
  const afterCancel = finite(totals?.cpu_seconds_after_cancel);
  const deep = viewPrecision !== "double" ? now?.deep : null;
  return {
    strategy,
    stream: live.state,
    updates: live.count,
    ageMs: live.at === null ? null : performance.now() - live.at,
    uptimeSeconds: finite(figures?.uptime_seconds),
    rendering: strategy !== null && figures?.rendering === strategy,
    tilesPerSecond: finite(now?.tiles_per_second),
    fillLatestMs: moves.length ? moves[moves.length - 1] : null,
    fillMedianMs: median(moves),
    fills: moves.length,
    cancelP50Ms: milliseconds(totals?.cancel_latency_seconds?.p50),
    cancelP95Ms: milliseconds(totals?.cancel_latency_seconds?.p95),
    cpuSeconds: cpu,
    cpuWastedSeconds: wasted,
    cpuWastedPercent: cpu !== null && wasted !== null && cpu > 0 ? (100 * wasted) / cpu : null,
    cpuAfterCancelSeconds: afterCancel,
    mainQueueP99Ms: milliseconds(now?.main_queue_late_seconds?.p99),
    mainQueueMaxMs: milliseconds(now?.main_queue_late_seconds?.max),
    mainQueueWorstMs: milliseconds(now?.main_queue_late_seconds?.worst),
    threads: finite(now?.threads),
    serverThreads: finite(figures?.threads),
    residentBytes: finite(figures?.resident_bytes),
    serialShare: finite(deep?.serial_share),
    amdahlBound: finite(deep?.amdahl_bound),
    workers: finite(deep?.workers),
  };
}

const dash = "–";

function showNumber(value, digits) {
  return value === null ? dash : value.toFixed(digits);
}

// Milliseconds with three significant figures or so, without the unit.
function msNumber(value) {
  if (value === null) return dash;
  return value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(1) : value.toFixed(2);
}

function showMs(value) {
  return value === null ? dash : `${msNumber(value)} ms`;
}

function showPercent(fraction) {
  if (fraction === null) return dash;
  const value = 100 * fraction;
  return `${value >= 10 || value === 0 ? value.toFixed(0) : value.toFixed(1)}%`;
}

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** Writes a half's figures into its panel: text only where it changed, nothing that reads layout. */
function drawPanel(pane) {
  const panel = pane.panel;
  const v = panelValues(pane);
  setText(panel.name, v.strategy ?? dash);
  setText(panel.brief, `${showNumber(v.tilesPerSecond, 1)} tiles/s · full ${showMs(v.fillLatestMs)}`);
  panel.root.classList.toggle("rendering", v.rendering);
  panel.root.classList.toggle("stale", live.state !== "open");
  const title = live.state === "open" ? "" : `no live figures: the server's /events is ${live.state}`;
  if (panel.root.title !== title) panel.root.title = title;
  const f = panel.fields;
  setText(f.tiles, showNumber(v.tilesPerSecond, 1));
  setText(f.fill, v.fills ? `${showMs(v.fillLatestMs)} · median ${showMs(v.fillMedianMs)} (${v.fills})` : dash);
  setText(f.cancel, v.cancelP50Ms === null ? dash : `${msNumber(v.cancelP50Ms)} · ${msNumber(v.cancelP95Ms)} ms`);
  setText(
    f.wasted,
    v.cpuWastedSeconds === null
      ? dash
      : `${v.cpuWastedSeconds.toFixed(2)} s · ${showPercent(v.cpuWastedPercent && v.cpuWastedPercent / 100)}` +
        (v.cpuAfterCancelSeconds === null ? "" : ` · ${v.cpuAfterCancelSeconds.toFixed(2)} s after cancels`),
  );
  setText(
    f.late,
    v.mainQueueWorstMs === null
      ? dash
      : `p99 ${msNumber(v.mainQueueP99Ms)} · max ${msNumber(v.mainQueueMaxMs)} · ` +
        `worst ${msNumber(v.mainQueueWorstMs)} ms`,
  );
  const threads = v.serverThreads === null ? dash : `${showNumber(v.threads, 0)} rendering · ${v.serverThreads} now`;
  setText(f.threads, threads);
  setText(f.memory, v.residentBytes === null ? dash : `${(v.residentBytes / 1048576).toFixed(1)} MB resident`);
  setText(
    f.deep,
    v.serialShare === null || v.amdahlBound === null || v.workers === null
      ? dash
      : `serial ${showPercent(v.serialShare)} → ${v.workers} worker${v.workers === 1 ? "" : "s"} ` +
        `at most ${v.amdahlBound.toFixed(1)}× one`,
  );
  if (panel.lessonFor !== v.strategy) showLesson(panel, v.strategy);
}

// The strategy's summary and details, as /config gives them (the words of `mandel strategies --details`).
function showLesson(panel, strategy) {
  panel.lessonFor = strategy;
  const entry = config.strategies.find((candidate) => candidate.name === strategy);
  setText(panel.lessonSummary, entry?.summary || dash);
  const details = entry?.details && typeof entry.details === "object" ? entry.details : {};
  const keys = [
    ...DETAIL_ORDER.filter((key) => key in details),
    ...Object.keys(details).filter((key) => !DETAIL_ORDER.includes(key)),
  ];
  const items = (list) =>
    list.flatMap((key) => {
      const term = document.createElement("dt");
      term.textContent = key;
      const text = document.createElement("dd");
      text.textContent = String(details[key]);
      return [term, text];
    });
  const first = keys.filter((key) => SHOWN_DETAILS.includes(key));
  const rest = keys.filter((key) => !SHOWN_DETAILS.includes(key));
  panel.lessonList.replaceChildren(...items(first));
  panel.moreList.replaceChildren(...items(rest));
  panel.moreTitle.textContent = rest.join(" · ");
  panel.more.hidden = rest.length === 0;
}

let panelTimer = 0;
let panelDrawn = -Infinity;

/** Redraws the panels soon: at most once every PANEL_INTERVAL_MS, in an animation frame. */
function schedulePanels() {
  if (panelTimer || !panes) return;
  const wait = Math.max(0, panelDrawn + PANEL_INTERVAL_MS - performance.now());
  panelTimer = setTimeout(() => {
    requestAnimationFrame(() => {
      panelTimer = 0;
      panelDrawn = performance.now();
      drawPanel(primaryPane());
      if (layoutCompare) drawPanel(comparePane());
    });
  }, wait);
}

/**
 * Follows the server's live figures (GET /events, server-sent events) for as long as the page is open.
 * Read with fetch, not EventSource: over HTTP/1.1 Chromium allows six connections per host, and an
 * EventSource would hold one of them for good, leaving five for the six tiles in flight. A request
 * without credentials travels in a socket group of its own.
 */
async function watchEvents() {
  for (;;) {
    try {
      const response = await fetch("/events", { credentials: "omit", cache: "no-store" });
      if (response.status === 404) {
        live.state = "absent"; // a server without the stream: the panel keeps its dashes
        schedulePanels();
        return;
      }
      if (!response.ok || !response.body) throw new Error(`${response.status}`);
      live.state = "open";
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, "\n");
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          readMessage(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // Gone (the server stopped, the network): try again in a while.
    }
    live.state = "closed";
    schedulePanels();
    await new Promise((resolve) => setTimeout(resolve, EVENTS_RETRY_MS));
  }
}

// One server-sent event: its `event:` and `data:` lines; a `stats` message replaces the figures.
function readMessage(message) {
  let type = "message";
  const data = [];
  for (const line of message.split("\n")) {
    if (line.startsWith("event:")) type = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (type !== "stats" || !data.length) return;
  try {
    live.figures = JSON.parse(data.join("\n"));
  } catch {
    return;
  }
  live.count += 1;
  live.at = performance.now();
  schedulePanels();
}

/** When the page had read /config and anchored its first picture (its first requests sent). */
let readyAt = null;

/** A half's own timings, in milliseconds on the page's clock (performance.now(): 0 is the navigation's start). */
function timingsOf(pane) {
  const { firstTile, full, moves, pending } = pane.timing;
  return {
    navigationToReadyMs: readyAt,
    navigationToFirstTileMs: firstTile,
    navigationToFullMs: full,
    lastMoveToFullMs: moves.length ? moves[moves.length - 1] : null,
    medianMoveToFullMs: median(moves),
    moves: [...moves],
    waitingSinceMove: pending !== null,
  };
}

// MARK: - Hooks for tests

/** Pans as a whole drag by (dx, dy) CSS pixels does, history entry included. */
function pan(dx, dy) {
  if (!anchor) return;
  panBy(dx, dy);
  commit("drag");
}

/** Zooms as a double-click at (x, y) does: factor 2 in, 1/2 out; returns whether it zoomed. */
function zoomAt(x, y, factor) {
  const zoomed = zoomAbout(x, y, factor);
  if (zoomed) commit("zoom");
  return zoomed;
}

function countPlaceholders(pane = primaryPane()) {
  let count = 0;
  for (const entry of pane.placeholderLayers) {
    for (const img of entry.layer.querySelectorAll("img")) if (onScreen(placeholderRect(entry, img))) count += 1;
  }
  return count;
}

function tileRecords(side) {
  return side ? [...side.tiles.values()].map(({ window, url, state }) => ({ window, url, state })) : [];
}

/** The view on screen, in the URL's strings; offset: the viewport's corner in the anchored picture's grid. */
function viewHook() {
  return (
    anchor && {
      center: currentCentre(),
      zoom: anchor.zoom,
      size: sizeText(viewportSize),
      iterations: anchor.settings.iterations,
      color: anchor.settings.color,
      palette: anchor.settings.palette,
      strategy: anchor.settings.strategy,
      extra: { ...anchor.settings.extra },
      offset: [...offset],
    }
  );
}

/** Shows `name` beside the page's strategy ("" or null: the whole screen to one); false for an unknown name. */
function setCompare(name) {
  const value = name ? String(name) : "";
  if (value && !config.strategies.some((strategy) => strategy.name === value)) return false;
  changeSetting("compare", value);
  return true;
}

let markReady;
const ready = new Promise((resolve) => (markReady = resolve));

/** The second half side by side: the same hooks as the page's, for its tiles; one view, so pan and zoom are shared. */
const compareHooks = {
  /** The second half's strategy, or null when nothing is compared. */
  strategy: () => anchor?.sides[1]?.strategy ?? null,
  /** The view as the primary's, with the second half's strategy; null when nothing is compared. */
  view: () => (anchor?.sides[1] ? { ...viewHook(), strategy: anchor.sides[1].strategy } : null),
  tiles: () => tileRecords(anchor?.sides[1]),
  placeholders: () => (layoutCompare ? countPlaceholders(comparePane()) : 0),
  filled: () => checkFilled(comparePane()),
  log: compareLog,
  pan,
  zoomAt,
  ready,
  panel: () => panelValues(comparePane()),
  timings: () => timingsOf(comparePane()),
};

window.mandelPage = {
  view: viewHook,
  /** The current anchor's tile records: {window, url, state}. */
  tiles: () => tileRecords(anchor?.sides[0]),
  placeholders: () => countPlaceholders(),
  filled: () => checkFilled(),
  log,
  pan,
  zoomAt,
  /** Resolves once the configuration is read and the first picture anchored. */
  ready,
  /** The second half's hooks (its strategy() is null when nothing is compared). */
  compare: compareHooks,
  setCompare,
  /** The live panel's figures for the page's strategy, as numbers (null where absent). */
  panel: () => panelValues(primaryPane()),
  /** The page's own timings: navigation to the first tile and to a full viewport, last move to a full viewport. */
  timings: () => timingsOf(primaryPane()),
};

// MARK: - Start

async function loadConfig() {
  try {
    const response = await fetch("/config", { cache: "no-store" });
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    const answer = await response.json();
    config = {
      ...FALLBACK_CONFIG,
      ...answer,
      start: { ...FALLBACK_CONFIG.start, ...(answer.start ?? {}) },
    };
    for (const key of ["strategies", "palettes", "colors"]) {
      if (!Array.isArray(config[key]) || config[key].length === 0) config[key] = FALLBACK_CONFIG[key];
    }
    if (!Number.isSafeInteger(config.max_iterations)) config.max_iterations = FALLBACK_CONFIG.max_iterations;
    if (Number.isSafeInteger(config.tile_side) && config.tile_side > 0) tileSide = config.tile_side;
  } catch (error) {
    setStatus("config", `cannot read /config (${error.message}); using built-in defaults`);
  }
}

async function main() {
  panes = [
    makePane("primary", dom.layers, dom.placeholders, dom.live, log),
    makePane("compare", dom.compareLayers, dom.comparePlaceholders, dom.compareLive, compareLog),
  ];
  watchEvents();
  await loadConfig();
  setUpControls();
  setUpInput();
  viewportSize = measureViewport();
  // A fresh load anchors at the URL's centre (the history entry's state is rewritten to match).
  const { view, complaints } = viewFromQuery(location.search);
  setStatus("url", complaints.join("\n"));
  anchorAt(view, { history: "replace" });
  // The first picture is timed from the navigation (timings().navigationToFullMs), not as a move.
  for (const pane of panes) pane.timing.pending = null;
  readyAt = performance.now();
}

main()
  .catch((error) => {
    setStatus("page", `the page failed to start: ${error.message}`);
    throw error;
  })
  .finally(() => markReady());
