// One chart of ui/chart.py, drawn in the page (a custom component of st.components.v2,
// no iframe) by a partial plotly.js bundle (the basic or the cartesian one: ui/chart.py).
// A bundle is loaded once per page, by one
// <script>, and every chart (of this page and of the pages opened after it) awaits it:
// ui/chart.py puts plotly_loader.js (plotlyFrom) before this module, and before the player's.
// data: {spec: the figure's JSON (plotly.io.to_json), config, height, src: the bundle's URL,
// wider: a bundle that may serve instead when loaded already (plotly_loader.js)}.

// A chart out of sight (more than half a screen below what the visitor sees, or in a closed
// expander) waits, marked data-pudd-chart="deferred", and is drawn when it comes near: the
// first screen is drawn first, and a page whose first screen has no chart evaluates
// plotly.js only when the visitor scrolls to one.
const NEAR = "400px 0px"; // how far beyond the scrolled column's edges a chart is near

// chart.go() once the chart is near; at once for one drawn before
function whenSeen(chart, go) {
  chart.go = go;
  if (chart.shown) {
    go();
    return;
  }
  if (chart.seen) { // still waiting: the newest go is called
    if (chart.far) chart.box.dataset.puddChart = "deferred";
    return;
  }
  // the window is the root; scrollMargin widens the scrolled column (Streamlit's main),
  // which clips the chart, as rootMargin widens the window
  chart.seen = new IntersectionObserver((entries) => {
    chart.far = !entries[entries.length - 1].isIntersecting;
    if (!chart.far) {
      chart.shown = true;
      chart.seen.disconnect();
      chart.go();
    } else {
      chart.box.dataset.puddChart = "deferred";
    }
  }, { rootMargin: NEAR, scrollMargin: NEAR });
  chart.seen.observe(chart.box);
}

// Streamlit's chart had a fullscreen button in its modebar; so has this one (own icons).
const EXPAND = { width: 24, height: 24,
  path: "M3 3h6v2H5v4H3zm12 0h6v6h-2V5h-4zM3 15h2v4h4v2H3zm16 0h2v6h-6v-2h4z" };
const COLLAPSE = { width: 24, height: 24,
  path: "M7 3h2v6H3V7h4zm8 0h2v4h4v2h-6zM3 15h6v6H7v-4H3zm12 0h6v2h-4v4h-2z" };

function setUp(parentElement) {
  const box = document.createElement("div");
  box.className = "pudd-chart";
  box.style.background = "white";
  const plot = document.createElement("div");
  plot.style.width = "100%";
  box.appendChild(plot);
  parentElement.appendChild(box);
  const chart = { box, plot, gen: 0, drawn: null, data: null, Plotly: null, width: 0 };
  // the column's width changes without a window resize (the sidebar folds): follow it
  chart.observer = new ResizeObserver(() => {
    const width = plot.clientWidth;
    if (chart.Plotly && chart.drawn && width > 0 && width !== chart.width) {
      chart.width = width;
      requestAnimationFrame(() => chart.Plotly.Plots.resize(plot));
    }
  });
  chart.observer.observe(plot);
  chart.onFullscreen = () => draw(chart, true);
  box.addEventListener("fullscreenchange", chart.onFullscreen);
  return chart;
}

function draw(chart, force = false) {
  const { box, plot, data, Plotly } = chart;
  const full = document.fullscreenElement === box;
  const height = full ? window.innerHeight : data.height;
  plot.style.height = `${height}px`;
  const figure = JSON.parse(data.spec);
  const layout = { ...figure.layout, height, autosize: true };
  delete layout.width; // as wide as the column, as st.plotly_chart draws it
  const toggle = {
    name: full ? "Close fullscreen" : "Fullscreen", title: full ? "Close fullscreen" : "Fullscreen",
    icon: full ? COLLAPSE : EXPAND,
    // a refusal (no user gesture, an iframe without the permission) leaves the chart as it is
    click: () => (full ? document.exitFullscreen() : box.requestFullscreen()).catch(() => {}),
  };
  const added = data.config.modeBarButtonsToAdd ?? [];
  const config = { ...data.config, modeBarButtonsToAdd: [toggle, ...added] };
  const key = data.spec + JSON.stringify(data.config);
  if (!force && chart.drawn === key) return Promise.resolve();
  chart.drawn = key;
  return Plotly.react(plot, figure.data, layout, config).then(() => {
    chart.width = plot.clientWidth;
  });
}

export default function (component) {
  const { data, parentElement } = component;
  const chart = (parentElement.__puddChart ??= setUp(parentElement));
  const gen = ++chart.gen; // a rerun may send a new figure before the last one is drawn
  chart.data = data;
  chart.box.dataset.puddChart = "loading";
  chart.plot.style.height = `${data.height}px`;
  whenSeen(chart, () => {
    if (gen !== chart.gen || chart.dead) return;
    chart.box.dataset.puddChart = "loading";
    plotlyFrom(data.src, data.wider)
      .then((Plotly) => {
        if (gen !== chart.gen || chart.dead) return null;
        chart.Plotly = Plotly;
        return draw(chart);
      })
      .then(() => {
        if (gen === chart.gen && !chart.dead) chart.box.dataset.puddChart = "drawn";
      })
      .catch((err) => {
        chart.box.dataset.puddChart = "failed";
        chart.plot.textContent = `The chart could not be drawn: ${err.message}`;
      });
  });
  return () => {
    if (gen !== chart.gen) return; // a newer call owns the chart
    chart.dead = true;
    chart.observer.disconnect();
    chart.seen?.disconnect();
    chart.box.removeEventListener("fullscreenchange", chart.onFullscreen);
    if (chart.Plotly) chart.Plotly.purge(chart.plot);
    chart.box.remove();
    delete parentElement.__puddChart;
  };
}
