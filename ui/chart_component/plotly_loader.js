// plotlyFrom(src, wider): plotly.js loaded once per page and bundle, by one <script>, for every chart
// of ui/chart.py and the player of ui/player.py (both modules start with this file: see
// ui/chart.py's MODULE_HEAD); the pages opened after it await the same load.
const LOADS = (window.__puddPlotlyLoads ??= {});

// wider: a bundle that draws every trace type of src and more (the cartesian one for the
// basic one); when this page has loaded it already, or is loading it, it serves this chart too.
function plotlyFrom(src, wider = null) {
  if (wider) {
    const loaded = LOADS[new URL(wider, document.baseURI).href];
    if (loaded) return loaded;
  }
  const url = new URL(src, document.baseURI).href; // under the app's URL path
  LOADS[url] ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.async = true;
    script.onload = () => resolve(window.Plotly);
    script.onerror = () => {
      delete LOADS[url]; // the next chart tries again
      reject(new Error(`plotly.js could not be loaded from ${url}`));
    };
    document.head.appendChild(script);
  });
  return LOADS[url];
}

