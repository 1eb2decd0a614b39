// The Stream explorer's player: a finished run (pudd_core/plots/player.py's spec) shown up to a
// chunk cursor that the browser moves itself. Stepping and playing never ask the server for a
// frame, so Pause stops at once and a class of players costs the server nothing.
//
// A custom component of st.components.v2 (ui/player.py): it is drawn in the page, not in an
// iframe, and draws with the plotly.js that the page's charts load (one load per page and
// bundle, ui/chart_component/plotly_loader.js), so a page with the player loads no plotly.js
// of its own. The cursor goes to the page's address (?chunk=) when the player stops,
// so links follow it. data: {spec: the spec's JSON, id: its id, start, detail, src: plotly.js}.

// plotlyFrom: ui/chart_component/plotly_loader.js, put before this module by ui/player.py

const CHARTS = ["c-trace", "c-minp", "c-cuts", "c-hist"];

function mount(root) {
  const byId = {};
  const $ = (id) => (byId[id] ??= root.querySelector("#" + id));
  let Plotly = null;      // set once plotly.js has loaded
  let dead = false;
  // the toolbar saves each figure as it is shown at the cursor, as PNG or SVG
  function plotConfig(id) {
    return {
      displaylogo: false, responsive: true,
      modeBarButtonsToRemove: ["lasso2d", "select2d", "toImage"],
      modeBarButtonsToAdd: [
        { name: "Download plot as a PNG", icon: Plotly.Icons.camera,
          click: () => saveImage(id, "png") },
        { name: "Download plot as SVG", icon: Plotly.Icons.disk,
          click: () => saveImage(id, "svg") },
      ],
    };
  }
  let spec = null;
  let start = 1;
  let startDetail = 1;
  let k = 1;              // the cursor: chunks 1 .. spec.last
  let d = 0;              // the setting whose details are shown: 0 .. settings - 1
  let playing = false;
  let speed = 5;          // chunks per second
  let timer = null;
  let clock = null;       // {t0, k0}: when and where the current play (or speed) started
  let shownHist = undefined;
  // read by the browser tests and the benchmark: frames drawn and due while playing
  const stats = { plays: 0, drawn: 0, renders: 0, lastRenderMs: 0, lastPause: null,
                  lastStep: null };
  const shown = [];  // [time, chunk] of the latest frames: which chunk a click saw
  const api = {
    get cursor() { return k; }, get playing() { return playing; }, get last() {
      return spec && Plotly ? spec.last : 0; }, get speed() { return speed; }, stats,
    get id() { return spec ? spec.id : null; }, get detail() { return d + 1; },
    get names() { return spec ? spec.names : []; },
  };
  window.__player = api;

  // --- figures ------------------------------------------------------------------------------
  function clone(obj) { return JSON.parse(JSON.stringify(obj)); }

  // points of a growing trace with x <= cursor (x ascending); arrays of x's length follow
  function upTo(trace, cursor) {
    const x = trace.x;
    if (!Array.isArray(x)) return trace;
    let n = 0;
    while (n < x.length && x[n] <= cursor) n++;
    if (n === x.length) return trace;
    const length = x.length;
    const cut = (v) => (Array.isArray(v) && v.length === length ? v.slice(0, n) : v);
    const out = {};
    for (const [key, value] of Object.entries(trace)) {
      if (value && typeof value === "object" && !Array.isArray(value)) {
        const inner = {};
        for (const [k2, v2] of Object.entries(value)) inner[k2] = cut(v2);
        out[key] = inner;
      } else {
        out[key] = cut(value);
      }
    }
    return out;
  }

  function growing(figure, cursor) {
    const data = figure.data.map((t) => (t.meta === "prefix" ? upTo(t, cursor) : t));
    const layout = Object.assign({}, figure.layout);
    if (Array.isArray(layout.shapes)) {
      layout.shapes = layout.shapes.filter((s) => !(s.name === "alarm" && s.x0 > cursor));
    }
    return { data: data, layout: layout };
  }

  // the template with one chunk's update: the same merge as pudd_core.plots.player.apply_update
  function applyUpdate(figure, update) {
    const traces = update.traces || {};
    const data = figure.data.map((trace) => {
      const changes = traces[trace.name];
      if (!changes) return trace;
      const out = Object.assign({}, trace);
      for (const [attr, value] of Object.entries(changes)) {
        out[attr] = value && typeof value === "object" && !Array.isArray(value)
          ? Object.assign({}, trace[attr] || {}, value) : value;
      }
      return out;
    });
    return { data: data, layout: Object.assign({}, figure.layout, update.layout || {}) };
  }

  // the figure's title goes above it as a heading: a legend of many detectors wraps onto
  // several rows, which plotly makes room for but a title inside the figure would overlap
  function prepare(figure) {
    const f = clone(figure);  // plotly writes computed ranges back into what it is given
    const title = f.layout.title && f.layout.title.text;
    f.layout.title = { text: "" };
    const top = (f.layout.margin && f.layout.margin.t) || 90;  // the title's room, wrapped too
    f.layout.margin = Object.assign({}, f.layout.margin || {}, { t: 30 });
    f.layout.height = (f.layout.height || 400) - Math.max(top - 30, 0);
    // a heading wraps by itself: the library's line breaks for plotly become spaces
    return { data: f.data, layout: f.layout, title: (title || "").replace(/<br>/g, " ") };
  }

  const shows = {};  // chart id -> () => the figure it shows now, for the export buttons

  // the heading and the box's height, which need no plotly.js: the page keeps its layout
  // while plotly.js loads
  function frameOf(id, figure) {
    const f = prepare(figure);
    const heading = $(id + "-title");
    if (heading && heading.textContent !== f.title) heading.textContent = f.title;
    // the chart's box holds the figure's height: plotly's responsive resize (a narrower
    // column) autosizes the height from the box, which otherwise measures 0 and lets the
    // figure overlap what follows it (the cut table, the windows)
    $(id).style.height = f.layout.height + "px";
    return f;
  }

  function draw(id, figure) {
    const f = frameOf(id, figure);
    shows[id] = () => figure;
    if (!Plotly) return null;
    return Plotly.react($(id), f.data, f.layout, plotConfig(id));
  }

  // pudd_<chart>[_<setting>_seed<s>]_chunk<k>: the charts of one setting's details name it
  const PER_SETTING = ["c-cuts", "c-hist"];
  function imageName(id) {
    let name = "pudd_" + id.replace("c-", "");
    if (PER_SETTING.includes(id) && spec && spec.settings[d]) {
      const s = spec.settings[d];
      const label = String(s.label).replace(/[^A-Za-z0-9.]+/g, "-").replace(/^-+|-+$/g, "");
      name += "_" + label + "_seed" + s.seed;
    }
    return name + "_chunk" + k;
  }
  api.imageName = imageName;  // read by the browser tests

  // what is on screen, never the run's future: the growing charts are saved cut at the cursor
  function saveImage(id, format) {
    const gd = $(id);
    const f = prepare(shows[id]());
    Plotly.downloadImage({ data: f.data, layout: f.layout }, {
      format: format, filename: imageName(id),
      width: gd._fullLayout.width, height: gd._fullLayout.height,
      scale: format === "png" ? 2 : 1,
    });
  }

  // A growing chart is drawn whole once per run; moving the cursor then only hides what lies
  // after it: an SVG clip ends each trace's line and fill at the cursor's chunk, each point and
  // its label after the cursor is hidden, and so are the alarm lines. Redrawing the figure cut
  // at the cursor instead costs plotly a full replot per frame (150 ms for the error chart of
  // seven detectors), which is what held playing back.
  const SVG = "http://www.w3.org/2000/svg";
  const drawnRun = {};  // chart id -> the spec.id whose whole figure it holds

  function showGrowing(id, figure) {
    const gd = $(id);
    if (!Plotly) { frameOf(id, figure); return; }
    if (drawnRun[id] !== spec.id) {
      const f = clone(figure);
      for (const s of f.layout.shapes || []) { if (s.name === "alarm") s.visible = s.x0 <= k; }
      draw(id, f);
      shows[id] = () => growing(figure, k);
      drawnRun[id] = spec.id;
      if (!gd.__puddHooks) {
        gd.__puddHooks = true;
        gd.on("plotly_afterplot", () => clipAtCursor(gd));  // a resize or a legend click redraws
        // hovering where the traces are clipped would tell the run's future
        gd.on("plotly_hover", (ev) => {
          if (ev.points.some((pt) => pt.x > k)) Plotly.Fx.unhover(gd);
        });
      }
    } else {
      const edits = {};
      (gd.layout.shapes || []).forEach((s, j) => {
        if (s.name === "alarm" && (s.visible !== false) !== s.x0 <= k) {
          edits[`shapes[${j}].visible`] = s.x0 <= k;
        }
      });
      if (Object.keys(edits).length) Plotly.relayout(gd, edits);
    }
    clipAtCursor(gd);
  }

  function clipAtCursor(gd) {
    const full = gd._fullLayout;
    const svg = gd.querySelector("svg.main-svg");
    if (!full || !full._plots || !svg) return;
    let defs = svg.querySelector("defs");
    if (!defs) defs = svg.insertBefore(document.createElementNS(SVG, "defs"), svg.firstChild);
    for (const [name, plot] of Object.entries(full._plots)) {
      const group = plot.plot && plot.plot.node && plot.plot.node();
      const layer = group && group.querySelector(".scatterlayer");
      if (!layer || !plot.xaxis) continue;
      const clipId = `pudd-cursor-${gd.id}-${name}`;
      let clip = svg.querySelector(`clipPath[id="${clipId}"]`);
      if (!clip) {
        clip = defs.appendChild(document.createElementNS(SVG, "clipPath"));
        clip.id = clipId;
        const rect = clip.appendChild(document.createElementNS(SVG, "rect"));
        rect.setAttribute("x", "-1000");
        rect.setAttribute("y", "-100000");
        rect.setAttribute("height", "200000");
      }
      // the layer sits in the subplot's frame, x = 0 at the axis' left end: the line ends in
      // the cursor's point, whose marker covers the cut
      const width = Math.max(0, 1000 + plot.xaxis.l2p(k));
      clip.firstChild.setAttribute("width", String(width));
      const url = `url(#${clipId})`;
      for (const g of layer.querySelectorAll(".trace > .lines, .trace > .fills")) {
        if (g.getAttribute("clip-path") !== url) g.setAttribute("clip-path", url);
      }
    }
    // points and labels: plotly binds each to its point's data (d3's __data__)
    for (const el of svg.querySelectorAll(".scatterlayer .point, .scatterlayer .textpoint")) {
      const hide = !!el.__data__ && el.__data__.x > k;
      if (el.__puddHidden !== hide) {
        el.style.display = hide ? "none" : "";
        el.__puddHidden = hide;
      }
    }
  }

  // --- text ---------------------------------------------------------------------------------
  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;",
                                                     '"': "&quot;", "'": "&#39;" })[c]);
  }

  function markdown(text) {  // the captions use **bold** only
    return escapeHtml(text || "").replace(/\*\*(.+?)\*\*/g, "<b>$1</b>");
  }

  function table(t) {
    const head = "<thead><tr><th></th>" + t.columns.map((c) => `<th>${escapeHtml(c)}</th>`)
      .join("") + "</tr></thead>";
    const body = t.rows.map((r) => "<tr>" + r.map((v, i) => (i === 0 ? `<th>${escapeHtml(v)}</th>`
      : `<td>${escapeHtml(v)}</td>`)).join("") + "</tr>").join("");
    return head + "<tbody>" + body + "</tbody>";
  }

  function statsTable(rows) {
    const head = "<thead><tr><th>cut (chunks)</th><th>χ²</th><th>dof</th><th>p</th>" +
      "<th>decided by</th></tr></thead>";
    const body = rows.map((r) => `<tr${r[5] ? ' class="winner"' : ""}>` +
      r.slice(0, 5).map((v, j) => (j === 0 ? `<th>${escapeHtml(v)}${r[5] ? " ◎" : ""}</th>`
        : `<td>${escapeHtml(v)}</td>`)).join("") + "</tr>").join("");
    return head + "<tbody>" + body + "</tbody>";
  }

  // --- one frame ------------------------------------------------------------------------------
  function render() {
    const t = performance.now();
    const i = k - 1;
    const s = spec.settings[d];
    const m = s.metrics;
    $("m-chunk").textContent = `${k} / ${spec.last}`;
    $("m-accuracy").textContent = m.accuracy[i];
    $("m-p").textContent = m.p_text[i];
    $("m-alarm").textContent = m.alarm[i] ? "alarm" : "no alarm";
    $("m-alarm").className = "delta " + (m.alarm[i] ? "alarm" : "quiet");
    $("m-alarms").textContent = String(m.alarms_so_far[i]);
    controls();

    const c = spec.charts;
    showGrowing("c-trace", c.trace.figure);
    $("cap-trace").innerHTML = markdown(c.trace.caption[i]);
    showGrowing("c-minp", c.minp.figure);
    $("cap-minp").innerHTML = markdown(c.minp.caption);
    draw("c-cuts", applyUpdate(s.cuts.figure, s.cuts.frames[i]));
    $("cap-cuts").innerHTML = markdown(s.cuts.caption[i]);
    const rows = s.stats[i];
    $("stats-part").hidden = rows.length === 0;
    $("stats-title").textContent = `Every cut's χ² test at chunk ${k} (${s.label}, seed ${s.seed})`;
    $("stats").innerHTML = statsTable(rows);

    const at = s.hist.at[i];
    const shownKey = d + ":" + at + ":" + !!Plotly;
    $("no-test").hidden = at !== null;
    $("no-test").textContent = at !== null ? "" : `No cut of ${s.label} was tested up to `
      + `chunk ${k}: the windows and the contingency table appear with its first test.`;
    $("window-part").hidden = at === null;
    if (at !== null && shownKey !== shownHist) {
      draw("c-hist", applyUpdate(s.hist.figure, s.hist.frames[String(at)]));
      $("table-title").textContent = `Contingency table of the test at chunk ${at} (${s.label})`;
      $("table").innerHTML = table(s.tables[String(at)]);
    }
    shownHist = shownKey;
    $("cap-hist").innerHTML = markdown(s.hist.caption[i]);
    stats.renders++;
    stats.lastRenderMs = performance.now() - t;
    shown.push([performance.now(), k]);
    if (shown.length > 64) shown.shift();
    remember();
  }

  function controls() {
    const still = !Plotly;  // nothing to press until the charts can follow
    $("prev").disabled = still || playing || k <= 1;
    $("next").disabled = still || playing || k >= spec.last;
    $("reset").disabled = still || playing || k <= 1;
    $("play").disabled = still;
    $("play").textContent = playing ? "❚❚ Pause" : "▶ Play";
    $("play").setAttribute("aria-pressed", playing ? "true" : "false");
    $("play").classList.toggle("primary", playing);
    $("jump").max = String(spec.last);
    $("jump").value = String(k);
    $("jump").disabled = still || spec.last < 2;
    $("jump-label").textContent = playing ? `Playing: chunk ${k} of ${spec.last}`
      : `Chunk ${k} of ${spec.last}`;
    const s = spec.settings[d];
    $("detail").value = String(d);
    $("detail").style.borderLeft = `6px solid ${s.colour}`;
    $("l-accuracy").textContent = `Accuracy (${s.label}'s model)`;
    $("l-p").textContent = `${s.label}: smallest p`;
    $("l-alarms").textContent = `${s.label} alarms so far`;
  }

  // --- where we are: the session (coming back to the page) and the address bar (links) -------
  // one place per tab, not per runs: a settings change brings new runs (a new spec) while the
  // page still says the chunk it opened at, and the player must stay where it was (README)
  function storageKey() {
    return "pudd-player:place:" + window.location.pathname;
  }

  function remember() {
    try {
      sessionStorage.setItem(storageKey(), JSON.stringify({ k: k, start: start, d: d,
                                                            startDetail: startDetail }));
    } catch (e) { /* storage off: the position is not kept across pages */ }
  }

  function syncAddress() {
    if (dead || !root.isConnected) return;  // another page's address is not ours
    const loc = window.location;
    const params = new URLSearchParams(loc.search);
    if (params.get("chunk") === String(k) && params.get("detail") === String(d + 1)) return;
    params.set("chunk", String(k));
    params.set("detail", String(d + 1));
    window.history.replaceState(window.history.state, "",
                                loc.pathname + "?" + params.toString() + loc.hash);
  }

  // --- moving the cursor ----------------------------------------------------------------------
  function go(to, ev) {
    if (!spec || !Plotly) return;
    const target = Math.min(Math.max(Math.round(to), 1), spec.last);
    if (target === k && !playing) { controls(); return; }
    k = target;
    render();
    if (!playing) syncAddress();
    if (ev && ev.timeStamp) {  // from the press to the next frame painted: what a person waits
      const pressed = ev.timeStamp;
      requestAnimationFrame(() => { stats.lastStep = { delayMs: performance.now() - pressed }; });
    }
  }

  function play() {
    if (!spec || !Plotly || playing) return;
    if (k >= spec.last) { k = 1; }
    playing = true;
    stats.plays++;
    clock = { t0: performance.now(), k0: k };
    render();
    schedule();
  }

  // the chunk on screen at time t (an input event's timeStamp)
  function shownAt(t) {
    let chunk = shown.length ? shown[0][1] : k;
    for (const [when, c] of shown) { if (when <= t) chunk = c; }
    return chunk;
  }

  function pause(ev) {
    if (!playing) return;
    playing = false;
    clearTimeout(timer);
    timer = null;
    if (ev && ev.timeStamp) {  // from the press to stopped: what a person waits and sees
      stats.lastPause = { delayMs: performance.now() - ev.timeStamp,
                          seen: shownAt(ev.timeStamp), stopped: k };
    }
    controls();
    syncAddress();
  }

  // every chunk is drawn: the next frame is due 1/speed s after the previous one was due,
  // or at once when drawing took longer (then playing runs slower than the chosen speed)
  function schedule() {
    const due = clock.t0 + ((k - clock.k0 + 1) * 1000) / speed;
    timer = setTimeout(() => requestAnimationFrame(tick), Math.max(0, due - performance.now()));
  }

  function tick() {
    if (!playing) return;
    if (!root.isConnected) { destroy(); return; }  // the page went: stop playing
    k += 1;
    stats.drawn++;
    render();
    if (k >= spec.last) { pause(); return; }
    schedule();
  }

  function setSpeed(value) {
    speed = Number(value);
    try { localStorage.setItem("pudd-player:speed", String(speed)); } catch (e) { /* off */ }
    if (playing) {
      clearTimeout(timer);
      clock = { t0: performance.now(), k0: k };
      schedule();
    }
  }

  // --- set-up ---------------------------------------------------------------------------------
  function setDetail(value) {
    d = Math.min(Math.max(Number(value) || 0, 0), spec.settings.length - 1);
    render();
    if (!playing) syncAddress();
  }

  function load(newSpec, newStart, newDetail) {
    pause();
    spec = newSpec;
    start = newStart;
    startDetail = newDetail;
    shownHist = undefined;
    let stored = null;
    try { stored = JSON.parse(sessionStorage.getItem(storageKey()) || "null"); } catch (e) { }
    // the page opened at the chunk it opened at before: coming back, or new runs of changed
    // settings, so resume where it was (a link to another chunk opens there)
    k = stored && stored.start === start ? stored.k : start;
    k = Math.min(Math.max(k, 1), spec.last);
    d = stored && stored.start === start && stored.startDetail === startDetail ? stored.d
      : startDetail - 1;
    d = Math.min(Math.max(d, 0), spec.settings.length - 1);
    $("detail").innerHTML = spec.settings.map((s, j) =>
      `<option value="${j}">${escapeHtml(s.label)}</option>`).join("");
    $("detail-label").hidden = spec.settings.length < 2;
    const select = $("speed");
    select.innerHTML = spec.speeds.map((s) => `<option value="${s}">${s} chunk${s === 1 ? "" : "s"}/s</option>`).join("");
    let saved = NaN;
    try { saved = Number(localStorage.getItem("pudd-player:speed")); } catch (e) { }
    speed = spec.speeds.includes(saved) ? saved : spec.default_speed;
    select.value = String(speed);
    render();
    syncAddress();
  }

  $("reset").addEventListener("click", () => go(1));
  $("prev").addEventListener("click", (ev) => go(k - 1, ev));
  $("next").addEventListener("click", (ev) => go(k + 1, ev));
  $("play").addEventListener("click", (ev) => (playing ? pause(ev) : play()));
  $("speed").addEventListener("change", (ev) => setSpeed(ev.target.value));
  $("detail").addEventListener("change", (ev) => setDetail(ev.target.value));
  $("jump").addEventListener("input", (ev) => { if (playing) pause(ev); go(Number(ev.target.value)); });
  // the keys act while the focus is in the player (as they did in its frame): the page's
  // own fields keep their arrow keys
  root.addEventListener("keydown", (ev) => {
    if (!spec || ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowRight" && !playing) { go(k + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft" && !playing) { go(k - 1); ev.preventDefault(); }
    else if (ev.key === " ") { (playing ? pause(ev) : play()); ev.preventDefault(); }
    else if (ev.key === "Home" && !playing) { go(1); ev.preventDefault(); }
  });
  // the column's width changes without a window resize (the sidebar folds): follow it
  let width = 0;
  const observer = new ResizeObserver(() => {
    const now = root.clientWidth;
    if (!Plotly || now === width || now === 0) return;
    width = now;
    for (const id of CHARTS) {
      const gd = $(id);
      if (gd._fullLayout && gd.offsetParent !== null) {
        requestAnimationFrame(() => Plotly.Plots.resize(gd));
      }
    }
  });
  observer.observe(root);
  // Streamlit writes the address it knows (the chunk the page opened at) when a rerun ends,
  // after the player has loaded the new runs: keep the chunk on screen in the address
  const addressTimer = setInterval(() => {
    if (!root.isConnected) { destroy(); return; }
    if (spec && !playing) syncAddress();
  }, 300);

  function destroy() {
    if (dead) return;
    dead = true;
    playing = false;
    clearTimeout(timer);
    clearInterval(addressTimer);
    observer.disconnect();
    if (Plotly) for (const id of CHARTS) Plotly.purge($(id));
    if (window.__player === api) delete window.__player;
  }

  // one call of the component: the same runs again (any rerun of the page) keep playing
  // where they are; new runs are loaded, drawn once plotly.js is there
  function update(data) {
    if (dead) return;
    window.__player = api;
    if (spec && data.id === spec.id) return;
    load(JSON.parse(data.spec), Number(data.start) || 1, Number(data.detail) || 1);
    if (Plotly) return;
    plotlyFrom(data.src, data.wider).then((loaded) => {
      if (dead || Plotly) return;
      Plotly = loaded;
      render();
      root.dataset.puddChart = "drawn";
    }).catch((err) => {
      root.dataset.puddChart = "failed";
      $("no-test").hidden = false;
      $("no-test").textContent = `The player's charts could not be drawn: ${err.message}`;
    });
  }

  return { update, destroy, root };
}

export default function (component) {
  const { data, parentElement } = component;
  const root = parentElement.querySelector(".pudd-player");
  if (!root) return undefined;
  if (parentElement.__puddPlayer && parentElement.__puddPlayer.root !== root) {
    parentElement.__puddPlayer.destroy();  // Streamlit put new markup in: start again
    delete parentElement.__puddPlayer;
  }
  const player = (parentElement.__puddPlayer ??= mount(root));
  player.update(data);
  // Streamlit calls the latest call's cleanup when the element leaves the page, but also a
  // call's own when a newer call came before its module loaded: only a player whose
  // markup has left the page stops (its timers check the same, in case)
  return () => {
    setTimeout(() => {
      if (!root.isConnected && parentElement.__puddPlayer === player) {
        player.destroy();
        delete parentElement.__puddPlayer;
      }
    }, 0);
  };
}
