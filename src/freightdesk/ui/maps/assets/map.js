/* FreightDesk maps: the page side.
 *
 * Python drives the page through FD.* (QWebEnginePage.runJavaScript); the page tells Python
 * what the user did through the QWebChannel object "bridge". The page is loaded once per view:
 * new data replaces or extends layers, so the user's zoom and pan survive every update.
 */
(function () {
  "use strict";

  const FD = (window.FD = {});
  const AGE_BINS = [
    { upTo: 3600, color: "#0b3d91", label: "last hour" },
    { upTo: 6 * 3600, color: "#1f6fd1", label: "1–6 h" },
    { upTo: 24 * 3600, color: "#4a90e2", label: "6–24 h" },
    { upTo: 72 * 3600, color: "#7b93c4", label: "1–3 days" },
    { upTo: Infinity, color: "#9ba5b7", label: "older" },
  ];
  const SPEED_BINS = [
    { upTo: 5, color: "#d0453a", label: "stopped" },
    { upTo: 30, color: "#f08c2e", label: "< 30 km/h" },
    { upTo: 60, color: "#d9b422", label: "30–60 km/h" },
    { upTo: 90, color: "#49a85a", label: "60–90 km/h" },
    { upTo: Infinity, color: "#16723f", label: "≥ 90 km/h" },
  ];
  const NO_SPEED = "#8a94a6";
  const STATUS_LABELS = {
    exception: "Open exception",
    transit: "In transit",
    stop: "At a stop",
    scheduled: "Scheduled",
    completed: "Completed",
  };

  let map = null;
  let bridge = null;
  let config = { kind: "shipment" };
  const state = {
    tiles: null,
    tilesOk: false,
    tileErrors: 0,
    basemap: null,
    note: null,
    notePlace: "corner", // where the note is (config.note: corner, strip or none)
    noteText: null, // what it says, on the map or not
    // shipment
    shipmentId: null,
    points: [], // [lat, lon, epochSeconds, kmh|null]
    colorBy: "age",
    layers: null, // groups by kind
    markers: {}, // key -> marker (stops, events, exceptions)
    selected: null,
    current: null,
    legend: null,
    eta: null,
    // fleet
    fleetGroup: null,
    fleetMarkers: {}, // id -> {marker, item}
    fleetFitted: false,
    fleetToken: null,
    // A shipment drawn while its view was hidden or small is fitted again when the view
    // takes its size, until the user moves the map.
    fitOnResize: false,
  };

  // --- small helpers ------------------------------------------------------------------------

  function esc(text) {
    return String(text == null ? "" : text)
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&#39;");
  }

  function tell(method, value) {
    if (bridge && typeof bridge[method] === "function") bridge[method](value);
  }

  function afterPaint(token) {
    if (token == null) return;
    requestAnimationFrame(() => requestAnimationFrame(() => tell("rendered", token)));
  }

  function ageText(epochSeconds) {
    const seconds = Math.max(0, Date.now() / 1000 - epochSeconds);
    if (seconds < 90) return "just now";
    if (seconds < 3600) return Math.round(seconds / 60) + " min ago";
    if (seconds < 48 * 3600) return Math.round(seconds / 3600) + " h ago";
    return Math.round(seconds / 86400) + " days ago";
  }

  function control(position, className, html) {
    const Box = L.Control.extend({
      onAdd: function () {
        const div = L.DomUtil.create("div", className);
        div.innerHTML = html || "";
        L.DomEvent.disableClickPropagation(div);
        L.DomEvent.disableScrollPropagation(div);
        return div;
      },
    });
    return new Box({ position: position }).addTo(map);
  }

  // --- the page --------------------------------------------------------------------------------

  FD.boot = function (leafletMap) {
    map = leafletMap;
    map.setMinZoom(2);
    map.setMaxZoom(19); // the clusters need one even while no tile layer sets it
    map.createPane("basemap").style.zIndex = 150; // under the tiles: seen only where they fail
    map.createPane("fences").style.zIndex = 380;
    map.createPane("route").style.zIndex = 390;
    map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
    state.note = control("bottomleft", "fd-note");
    state.note.getContainer().style.display = "none";
    loadBasemap();
    map.on("resize", function () {
      if (state.fitOnResize && state.shipmentId) fitShipment();
    });
    for (const kind of ["pointerdown", "wheel", "keydown", "touchstart"]) {
      map.getContainer().addEventListener(kind, () => (state.fitOnResize = false), true);
    }
    if (typeof QWebChannel !== "undefined" && window.qt && qt.webChannelTransport) {
      new QWebChannel(qt.webChannelTransport, function (channel) {
        bridge = channel.objects.bridge;
        tell("pageReady", "");
      });
    }
    setInterval(refreshAges, 30000);
  };

  // The outlines come as installed (TopoJSON by kind, see basemap.py) and are decoded here, as
  // basemap.py's `features` does for the picker's regions: decoded in Python, they held the
  // GUI thread (where the scheme answers) 0.2 to 0.5 s while a session's first map waited.
  function topologyFeatures(topology, kind) {
    const transform = topology.transform;
    const arcs = topology.arcs.map(function (arc) {
      let x = 0;
      let y = 0;
      return arc.map(function (delta) {
        if (!transform) return [delta[0], delta[1]];
        x += delta[0];
        y += delta[1];
        return [
          x * transform.scale[0] + transform.translate[0],
          y * transform.scale[1] + transform.translate[1],
        ];
      });
    });
    function ring(indexes) {
      const points = [];
      for (const index of indexes) {
        // A negative index ~i is arc i walked backwards.
        const arc = index < 0 ? arcs[~index].slice().reverse() : arcs[index];
        for (let n = points.length ? 1 : 0; n < arc.length; n++) points.push(arc[n]);
      }
      return points;
    }
    const found = [];
    for (const geometry of topology.objects.subunits.geometries || []) {
      let coordinates = null;
      if (geometry.type === "Polygon") coordinates = geometry.arcs.map(ring);
      else if (geometry.type === "MultiPolygon")
        coordinates = geometry.arcs.map((polygon) => polygon.map(ring));
      if (coordinates === null) continue;
      found.push({
        type: "Feature",
        properties: { kind: kind, name: (geometry.properties || {}).name || "" },
        geometry: { type: geometry.type, coordinates: coordinates },
      });
    }
    return found;
  }

  function loadBasemap() {
    fetch("fdmap://app/basemap.json")
      .then((answer) => answer.json())
      .then((topologies) => {
        const features = [];
        for (const kind of Object.keys(topologies)) {
          features.push(...topologyFeatures(topologies[kind], kind));
        }
        const renderer = L.canvas({ pane: "basemap", padding: 0.1 });
        state.basemap = L.geoJSON(
          { type: "FeatureCollection", features: features },
          {
            pane: "basemap",
            renderer: renderer,
            interactive: false,
            style: (feature) =>
              feature.properties.kind === "state"
                ? { color: "#c9bfae", weight: 0.8, fill: false, opacity: 0.9 }
                : { color: "#b3a892", weight: 1, fillColor: "#f6f3ea", fillOpacity: 1 },
          }
        ).addTo(map);
      })
      .catch(() => {
        state.basemap = null;
      });
  }

  FD.configure = function (options) {
    config = Object.assign({}, config, options);
    if (state.tiles) {
      map.removeLayer(state.tiles);
      state.tiles = null;
    }
    state.tilesOk = false;
    state.tileErrors = 0;
    if (!config.tileUrl) {
      placeNote();
      showNote("Map tiles are switched off. Showing outlines.", "Map tiles off: outlines only");
      return;
    }
    // Placed first: placing adds a new, empty box, which showNote then hides (an empty note
    // in sight read as a note until the first tile failed).
    placeNote();
    showNote(null);
    map.setMaxZoom(config.maxZoom || 19);
    state.tiles = L.tileLayer(config.tileUrl, {
      attribution: config.attribution || "",
      maxZoom: config.maxZoom || 19,
    });
    state.tiles.on("tileload", () => {
      if (!state.tilesOk) {
        state.tilesOk = true;
        showNote(null);
        tell("tilesChanged", true);
      }
    });
    state.tiles.on("tileerror", () => {
      state.tileErrors += 1;
      if (!state.tilesOk && state.tileErrors === 1) {
        showNote(
          "Offline: no map tiles from " + tileHost() + ". Showing outlines.",
          "Offline: outlines only",
        );
        tell("tilesChanged", false);
      }
    });
    state.tiles.addTo(map);
  };

  function tileHost() {
    const match = /^[a-z]+:\/\/([^/]+)/i.exec(config.tileUrl || "");
    return match ? match[1].replace("{s}.", "") : "the tile server";
  }

  // Where the view's Python side puts the note (page.py's NotePlace): a box at the bottom
  // left, a one-line strip beside the zoom buttons (its short words, which read whole beside
  // the ETA box in the Map tab at 1366 px; its whole text in its tooltip), or none (the view
  // says it beside the map, from tilesChanged).
  function placeNote() {
    const where = config.note || "corner";
    if (where === state.notePlace) return;
    state.notePlace = where;
    state.note.remove();
    if (where === "none") return;
    state.note.setPosition(where === "strip" ? "topleft" : "bottomleft");
    state.note.addTo(map); // added anew: a new box (the caller fills it)
    if (where === "strip") state.note.getContainer().classList.add("fd-note-strip");
  }

  function showNote(text, short) {
    state.noteText = text || null;
    const box = state.note.getContainer();
    box.textContent = (state.notePlace === "strip" && short) || text || "";
    box.title = text || "";
    box.style.display = text ? "" : "none";
  }

  // --- one shipment ----------------------------------------------------------------------------

  function ensureShipmentLayers() {
    if (state.layers) return;
    const routeRenderer = L.canvas({ pane: "route", padding: 0.1 });
    state.layers = {
      routeRenderer: routeRenderer,
      casing: L.layerGroup().addTo(map),
      route: L.layerGroup().addTo(map),
      fences: L.layerGroup().addTo(map),
      stops: L.layerGroup().addTo(map),
      events: L.layerGroup().addTo(map),
      current: L.layerGroup().addTo(map),
    };
    const fit = control("topleft", "leaflet-bar fd-fit");
    fit.getContainer().innerHTML =
      '<a href="#" role="button" title="Show the whole shipment" aria-label="Show the whole shipment">⤢</a>';
    fit.getContainer().firstChild.addEventListener("click", (e) => {
      e.preventDefault();
      fitShipment();
      state.fitOnResize = true; // the whole shipment again, until the user moves the map
    });
    state.legend = control("bottomright", "fd-legend");
    state.eta = control("topright", "fd-eta");
    state.eta.getContainer().style.display = "none";
    drawLegend();
  }

  FD.showShipment = function (data, options) {
    options = options || {};
    ensureShipmentLayers();
    const sameShipment = state.shipmentId === data.id;
    state.shipmentId = data.id;
    state.points = data.route || [];
    drawStops(data.stops || []);
    drawEvents(data.events || []);
    drawCurrent(data.current);
    drawEta(data.eta);
    if (options.fit || !sameShipment) {
      // Fitted before the track is drawn: fitting tries several views, and each zoom it
      // tries would project every point of a drawn track again (a long track's 12,000
      // points twice, casing and colours, per try).
      state.layers.route.clearLayers();
      state.layers.casing.clearLayers();
      fitShipment();
      state.fitOnResize = true;
    }
    drawRoute();
    if (state.selected && !state.markers[state.selected]) state.selected = null;
    if (state.selected) mark(state.selected, true);
    afterPaint(options.token);
  };

  FD.updateShipment = function (data, options) {
    // The same shipment, newer data: the route is extended (or redrawn when the service
    // thinned it differently), everything else replaced; the view stays where the user left it.
    options = options || {};
    if (!state.layers || state.shipmentId !== data.id) return FD.showShipment(data, options);
    if (data.appendRoute) appendRoute(data.appendRoute);
    else if (data.route) {
      state.points = data.route;
      drawRoute();
    }
    drawStops(data.stops || []);
    drawEvents(data.events || []);
    drawCurrent(data.current);
    drawEta(data.eta);
    if (state.selected) mark(state.selected, true);
    afterPaint(options.token);
  };

  FD.clearShipment = function () {
    if (!state.layers) return;
    state.shipmentId = null;
    state.points = [];
    for (const name of ["casing", "route", "fences", "stops", "events", "current"]) {
      state.layers[name].clearLayers();
    }
    state.markers = {};
    state.selected = null;
    state.current = null;
    drawEta(null);
  };

  function binOf(point) {
    if (state.colorBy === "speed") {
      if (point[3] == null) return { color: NO_SPEED };
      return SPEED_BINS.find((bin) => point[3] < bin.upTo);
    }
    const age = Date.now() / 1000 - point[2];
    return AGE_BINS.find((bin) => age < bin.upTo);
  }

  function runsOf(points, from) {
    // Consecutive segments of one colour form one polyline; a segment takes the colour of
    // its later point.
    const runs = [];
    let current = null;
    for (let i = Math.max(from, 1); i < points.length; i++) {
      const color = binOf(points[i]).color;
      if (!current || current.color !== color) {
        current = { color: color, latlngs: [[points[i - 1][0], points[i - 1][1]]] };
        runs.push(current);
      }
      current.latlngs.push([points[i][0], points[i][1]]);
    }
    return runs;
  }

  function addRuns(runs) {
    const renderer = state.layers.routeRenderer;
    for (const run of runs) {
      L.polyline(run.latlngs, {
        color: run.color,
        weight: 4,
        opacity: 0.95,
        renderer: renderer,
        interactive: false,
        lineJoin: "round",
      }).addTo(state.layers.route);
    }
  }

  function drawRoute() {
    state.layers.route.clearLayers();
    state.layers.casing.clearLayers();
    const points = state.points;
    if (points.length < 2) return;
    L.polyline(
      points.map((p) => [p[0], p[1]]),
      {
        color: "#ffffff",
        weight: 8,
        opacity: 0.85,
        renderer: state.layers.routeRenderer,
        interactive: false,
      }
    ).addTo(state.layers.casing);
    addRuns(runsOf(points, 1));
  }

  function appendRoute(fresh) {
    if (!fresh.length) return;
    const start = state.points.length;
    state.points = state.points.concat(fresh);
    if (start === 0) return drawRoute();
    const from = Math.max(start, 1);
    L.polyline(
      state.points.slice(from - 1).map((p) => [p[0], p[1]]),
      {
        color: "#ffffff",
        weight: 8,
        opacity: 0.85,
        renderer: state.layers.routeRenderer,
        interactive: false,
      }
    ).addTo(state.layers.casing);
    addRuns(runsOf(state.points, from));
  }

  FD.colorBy = function (kind) {
    state.colorBy = kind === "speed" ? "speed" : "age";
    if (state.layers) {
      drawRoute();
      drawLegend();
    }
  };

  function drawLegend() {
    const bins = state.colorBy === "speed" ? SPEED_BINS : AGE_BINS;
    const box = state.legend.getContainer();
    box.innerHTML =
      '<div class="fd-legend-head">Track by ' +
      '<button data-kind="age" class="' +
      (state.colorBy === "age" ? "on" : "") +
      '">age</button>' +
      '<button data-kind="speed" class="' +
      (state.colorBy === "speed" ? "on" : "") +
      '">speed</button></div>' +
      bins
        .map(
          (bin) =>
            '<div class="fd-legend-row"><span class="fd-swatch" style="background:' +
            bin.color +
            '"></span>' +
            esc(bin.label) +
            "</div>"
        )
        .join("");
    box.querySelectorAll("button").forEach((button) =>
      button.addEventListener("click", () => FD.colorBy(button.dataset.kind))
    );
  }

  function popupHtml(title, lines) {
    return (
      '<div class="fd-popup"><div class="fd-popup-title">' +
      esc(title) +
      "</div>" +
      lines
        .filter((line) => line && line[1])
        .map(
          (line) =>
            '<div class="fd-popup-line">' +
            (line[0] ? '<span class="fd-popup-label">' + esc(line[0]) + "</span> " : "") +
            esc(line[1]) +
            "</div>"
        )
        .join("") +
      "</div>"
    );
  }

  function clickable(marker, key) {
    marker.on("click", () => {
      select(key);
      tell("itemClicked", key);
    });
    state.markers[key] = marker;
  }

  function drawStops(stops) {
    for (const key of Object.keys(state.markers)) {
      if (key.startsWith("stop:")) delete state.markers[key];
    }
    state.layers.stops.clearLayers();
    state.layers.fences.clearLayers();
    for (const stop of stops) {
      if (stop.lat == null) continue;
      const icon = L.divIcon({
        className: "fd-stop fd-stop-" + esc(stop.kind),
        html: "<span>" + esc(stop.number) + "</span>",
        iconSize: [24, 24],
        iconAnchor: [12, 12],
      });
      const marker = L.marker([stop.lat, stop.lon], {
        icon: icon,
        title: stop.number + ". " + stop.typeLabel + ": " + (stop.name || ""),
        zIndexOffset: 200,
        riseOnHover: true,
      });
      marker.bindPopup(
        popupHtml(stop.number + ". " + stop.typeLabel + ": " + (stop.name || ""), [
          ["", stop.place],
          ["Appointment", stop.appointment],
          ["Geofence", stop.fence ? stop.fence.label : ""],
        ])
      );
      marker.bindTooltip(stop.typeLabel + ": " + (stop.name || ""), {
        direction: "top",
        offset: [0, -12],
      });
      clickable(marker, "stop:" + stop.id);
      marker.addTo(state.layers.stops);
      if (stop.fence) drawFence(stop, stop.fence);
    }
  }

  function drawFence(stop, fence) {
    const style = {
      pane: "fences",
      color: "#7b3fbf",
      weight: 1.5,
      dashArray: fence.approximate ? "5 5" : null,
      fillColor: "#7b3fbf",
      fillOpacity: 0.08,
      interactive: false,
    };
    let layer = null;
    if (fence.shape === "circle") {
      layer = L.circle([fence.lat, fence.lon], Object.assign({ radius: fence.radius }, style));
    } else if (fence.shape === "rect") {
      layer = L.rectangle(
        [
          [fence.south, fence.west],
          [fence.north, fence.east],
        ],
        style
      );
    }
    if (layer) layer.addTo(state.layers.fences);
  }

  FD.setFences = function (fences) {
    // Geofences arrive after the stops (they are looked up in the stop locations).
    if (!state.layers) return;
    state.layers.fences.clearLayers();
    for (const fence of fences) drawFence(null, fence);
  };

  function drawEvents(events) {
    for (const key of Object.keys(state.markers)) {
      if (!key.startsWith("stop:")) delete state.markers[key];
    }
    state.layers.events.clearLayers();
    for (const event of events) {
      // Around a stop's marker (never on it), or spread when several share a position.
      const angle = event.slot * 0.85 - Math.PI / 4;
      const spread = event.atStop ? 21 : event.slots > 1 ? 12 : 0;
      const dx = Math.round(Math.cos(angle) * spread);
      const dy = Math.round(Math.sin(angle) * spread);
      const icon = L.divIcon({
        className: "fd-event fd-event-" + esc(event.category),
        html: event.category === "exception" ? "<span>!</span>" : "<span></span>",
        iconSize: [14, 14],
        iconAnchor: [7 - dx, 7 - dy],
        popupAnchor: [dx, dy - 7],
      });
      const marker = L.marker([event.lat, event.lon], {
        icon: icon,
        title: event.label,
        zIndexOffset: 400,
        riseOnHover: true,
      });
      marker.bindPopup(
        popupHtml(event.label, [
          ["", event.type],
          ["", event.time],
          ["", event.description],
          ["", event.where],
        ])
      );
      clickable(marker, event.key);
      marker.addTo(state.layers.events);
    }
  }

  function drawCurrent(current) {
    state.layers.current.clearLayers();
    state.current = current || null;
    if (!current) return;
    const arrow = current.heading != null;
    const html = arrow
      ? '<svg viewBox="0 0 24 24" width="28" height="28" style="transform: rotate(' +
        Number(current.heading) +
        'deg)"><path d="M12 2 L20 21 L12 16.5 L4 21 Z"/></svg>'
      : "<span></span>";
    const icon = L.divIcon({
      className: arrow ? "fd-current fd-current-arrow" : "fd-current fd-current-dot",
      html: html,
      iconSize: [28, 28],
      iconAnchor: [14, 14],
    });
    const marker = L.marker([current.lat, current.lon], {
      icon: icon,
      zIndexOffset: 1000,
      keyboard: false,
    });
    marker.bindTooltip(fixText(current), {
      permanent: true,
      direction: "auto", // towards the map's middle: inside the view
      offset: [14, 0],
      className: "fd-fix",
    });
    marker.bindPopup(
      popupHtml("Last reported position", [
        ["", current.time],
        ["Speed", current.speedText],
        ["Heading", arrow ? Math.round(current.heading) + "°" : ""],
      ])
    );
    marker.addTo(state.layers.current);
  }

  function fixText(current) {
    const parts = [ageText(current.epoch)];
    if (current.speedText) parts.push(current.speedText);
    return parts.join(" · ");
  }

  function refreshAges() {
    if (state.current && state.layers) {
      state.layers.current.eachLayer((marker) => marker.setTooltipContent(fixText(state.current)));
    }
  }

  function drawEta(eta) {
    if (!state.eta) return;
    const box = state.eta.getContainer();
    if (!eta) {
      box.style.display = "none";
      return;
    }
    box.style.display = "";
    box.innerHTML =
      '<div class="fd-eta-label">' +
      esc(eta.label) +
      '</div><div class="fd-eta-time">' +
      esc(eta.time) +
      "</div>";
  }

  function shipmentBounds() {
    const bounds = L.latLngBounds([]);
    for (const point of state.points) bounds.extend([point[0], point[1]]);
    for (const marker of Object.values(state.markers)) bounds.extend(marker.getLatLng());
    if (state.current) bounds.extend([state.current.lat, state.current.lon]);
    return bounds;
  }

  // Between what a fit shows and the map's edge or a control over the map, in pixels.
  const FIT_MARGIN = 8;
  // Half a stop's or the truck's marker: the bounds are points, the markers are not.
  const FIT_PADDING = FIT_MARGIN + 14;

  function fitShipment() {
    // The whole shipment in sight: every stop, the track and the truck with its label, none
    // under a control (zoom, fit, ETA, legend, note, scale). Leaflet's fitBounds places the
    // points inside a padding; where a marker or a label still reaches under a control or off
    // the edge, the padding clears the controls' columns or rows, or the zoom steps out.
    const bounds = shipmentBounds();
    if (!bounds.isValid()) return;
    const base = {
      paddingTopLeft: [FIT_PADDING, FIT_PADDING],
      paddingBottomRight: [FIT_PADDING, FIT_PADDING],
    };
    const size = map.getSize();
    if (!size.x || !size.y) {
      // Hidden: fitted again once the view has its size (the map's resize).
      map.fitBounds(bounds, Object.assign({ maxZoom: 12, animate: false }, base));
      return;
    }
    // The layers that draw the whole view (the outlines, the tiles) leave the map while views
    // are tried: at each try they would project every outline again or ask for tiles. They
    // are put back once, for the view chosen.
    const detached = [state.basemap, state.tiles].filter((layer) => layer && map.hasLayer(layer));
    for (const layer of detached) map.removeLayer(layer);
    try {
      fitAmong(bounds, base);
    } finally {
      for (const layer of detached) layer.addTo(map);
    }
  }

  function fitAmong(bounds, base) {
    const view = overlays();
    let best = null;
    for (const padding of fitPaddings(view, base)) {
      let maxZoom = 12;
      while (maxZoom >= map.getMinZoom() && (!best || maxZoom > best.zoom)) {
        map.fitBounds(bounds, Object.assign({ maxZoom: maxZoom, animate: false }, padding));
        const zoom = map.getZoom();
        if (shownWhole(view)) {
          if (!best || zoom > best.zoom) best = { zoom: zoom, padding: padding };
          break;
        }
        maxZoom = Math.min(maxZoom, zoom) - 1;
      }
    }
    // A view too small for any: as close as it can be.
    const chosen = best || { zoom: 12, padding: base };
    map.fitBounds(bounds, Object.assign({ maxZoom: chosen.zoom, animate: false }, chosen.padding));
  }

  function overlays() {
    // The map's box and the controls over it, in the page's coordinates.
    const container = map.getContainer();
    const controls = [];
    for (const element of container.querySelectorAll(".leaflet-control")) {
      const rect = element.getBoundingClientRect();
      if (rect.width > 0 && rect.height > 0) controls.push(rect);
    }
    return { box: container.getBoundingClientRect(), controls: controls };
  }

  function fitPaddings(view, base) {
    // The plain padding, then paddings that keep clear of the controls' columns (left and
    // right), of their rows (top and bottom), and of both.
    const box = view.box;
    const [left, top] = base.paddingTopLeft;
    const [right, bottom] = base.paddingBottomRight;
    let [clearLeft, clearTop, clearRight, clearBottom] = [left, top, right, bottom];
    for (const rect of view.controls) {
      const middleX = (rect.left + rect.right) / 2 - box.left;
      const middleY = (rect.top + rect.bottom) / 2 - box.top;
      if (middleX < box.width / 2) {
        clearLeft = Math.max(clearLeft, rect.right - box.left + FIT_PADDING);
      } else {
        clearRight = Math.max(clearRight, box.right - rect.left + FIT_PADDING);
      }
      if (middleY < box.height / 2) {
        clearTop = Math.max(clearTop, rect.bottom - box.top + FIT_PADDING);
      } else {
        clearBottom = Math.max(clearBottom, box.bottom - rect.top + FIT_PADDING);
      }
    }
    const padding = (l, t, r, b) => ({ paddingTopLeft: [l, t], paddingBottomRight: [r, b] });
    return [
      base,
      padding(clearLeft, top, clearRight, bottom),
      padding(left, clearTop, right, clearBottom),
      padding(clearLeft, clearTop, clearRight, clearBottom),
    ];
  }

  function inSight(rect, view) {
    const box = view.box;
    const m = FIT_MARGIN;
    if (rect.left < box.left + m || rect.right > box.right - m) return false;
    if (rect.top < box.top + m || rect.bottom > box.bottom - m) return false;
    return !view.controls.some(
      (c) =>
        rect.left < c.right + m &&
        rect.right > c.left - m &&
        rect.top < c.bottom + m &&
        rect.bottom > c.top - m
    );
  }

  function shownWhole(view) {
    // Every stop and event marker, the truck and its label, every point of the track: in the
    // map and under no control.
    const elements = [];
    for (const marker of Object.values(state.markers)) elements.push(marker.getElement());
    state.layers.current.eachLayer((marker) => {
      elements.push(marker.getElement());
      const label = marker.getTooltip();
      if (label) elements.push(label.getElement());
    });
    for (const element of elements) {
      if (element && !inSight(element.getBoundingClientRect(), view)) return false;
    }
    for (const point of state.points) {
      const at = map.latLngToContainerPoint([point[0], point[1]]);
      const x = view.box.left + at.x;
      const y = view.box.top + at.y;
      if (!inSight({ left: x, right: x, top: y, bottom: y }, view)) return false;
    }
    return true;
  }

  FD.fit = function () {
    if (state.fleetGroup) return fitFleet();
    fitShipment();
  };

  function mark(key, on) {
    const marker = state.markers[key];
    const element = marker && marker.getElement();
    if (element) element.classList.toggle("fd-selected", on);
    if (marker) marker.setZIndexOffset(on ? 2000 : key.startsWith("stop:") ? 200 : 400);
  }

  function select(key) {
    if (state.selected && state.selected !== key) mark(state.selected, false);
    state.selected = key;
    mark(key, true);
  }

  FD.highlight = function (key) {
    const marker = state.markers[key];
    if (!marker) {
      if (state.selected) mark(state.selected, false);
      state.selected = null;
      return false;
    }
    select(key);
    if (!map.getBounds().contains(marker.getLatLng())) map.panTo(marker.getLatLng());
    marker.openPopup();
    return true;
  };

  // --- the fleet ---------------------------------------------------------------------------------

  function ensureFleet() {
    if (state.fleetGroup) return;
    const options = {
      // Markers are added in slices so the page stays responsive; the last slice reports
      // the drawing as done.
      chunkedLoading: true,
      chunkProgress: (processed, total) => {
        if (processed >= total && state.fleetToken != null) {
          afterPaint(state.fleetToken);
          state.fleetToken = null;
        }
      },
      showCoverageOnHover: false,
      spiderfyOnMaxZoom: true,
      maxClusterRadius: 48,
      iconCreateFunction: clusterIcon,
    };
    state.fleetGroup = L.markerClusterGroup
      ? L.markerClusterGroup(options)
      : L.featureGroup(); // without the plugin: every marker, unclustered
    state.fleetGroup.on("click", (e) => {
      const id = e.layer && e.layer.options.fdId;
      if (id) tell("itemClicked", "shipment:" + id);
    });
    // One tooltip, made when the pointer is on a shipment: thousands of bound tooltips
    // would cost memory and time at every update.
    state.fleetGroup.on("mouseover", (e) => {
      const entry = e.layer && state.fleetMarkers[e.layer.options.fdId];
      if (!entry) return;
      entry.marker
        .bindTooltip(fleetTooltip(entry.item), { direction: "top", offset: [0, -10] })
        .openTooltip();
    });
    state.fleetGroup.on("mouseout", (e) => {
      if (e.layer && e.layer.options.fdId) e.layer.unbindTooltip();
    });
    state.fleetGroup.addTo(map);
    const legend = control("bottomright", "fd-legend");
    legend.getContainer().innerHTML = Object.keys(STATUS_LABELS)
      .map(
        (key) =>
          '<div class="fd-legend-row"><span class="fd-dot fd-status-' +
          key +
          '"></span>' +
          esc(STATUS_LABELS[key]) +
          "</div>"
      )
      .join("");
  }

  const fleetIcons = {};

  function fleetIcon(status, heading) {
    const turn = heading == null ? null : Math.round(heading / 15) * 15;
    const key = status + ":" + turn;
    if (!fleetIcons[key]) {
      fleetIcons[key] = L.divIcon({
        className: "fd-vehicle fd-status-" + status,
        html:
          turn == null
            ? "<span></span>"
            : '<svg viewBox="0 0 24 24" width="20" height="20" style="transform: rotate(' +
              turn +
              'deg)"><path d="M12 2 L20 21 L12 16.5 L4 21 Z"/></svg>',
        iconSize: [20, 20],
        iconAnchor: [10, 10],
      });
    }
    return fleetIcons[key];
  }

  function clusterIcon(cluster) {
    const children = cluster.getAllChildMarkers();
    let exceptions = 0;
    for (const child of children) if (child.options.fdStatus === "exception") exceptions += 1;
    const count = children.length;
    const size = count < 10 ? 30 : count < 100 ? 36 : count < 1000 ? 42 : 48;
    return L.divIcon({
      className: "fd-cluster" + (exceptions ? " fd-cluster-alert" : ""),
      html:
        "<span>" +
        count +
        "</span>" +
        (exceptions ? '<b title="open exceptions">' + exceptions + "</b>" : ""),
      iconSize: [size, size],
      iconAnchor: [size / 2, size / 2],
    });
  }

  function fleetTooltip(item) {
    return (
      '<div class="fd-popup-title">' +
      esc(item.label) +
      "</div>" +
      (item.route ? "<div>" + esc(item.route) + "</div>" : "") +
      "<div>" +
      esc(STATUS_LABELS[item.status] || "") +
      (item.exceptions ? " · " + esc(item.exceptions) + " open exception(s)" : "") +
      "</div>" +
      "<div>Last fix " +
      esc(ageText(item.epoch)) +
      (item.speedText ? " · " + esc(item.speedText) : "") +
      "</div>"
    );
  }

  FD.setFleet = function (items, options) {
    options = options || {};
    ensureFleet();
    const seen = {};
    const added = [];
    const removed = [];
    for (const item of items) {
      seen[item.id] = true;
      const entry = state.fleetMarkers[item.id];
      if (entry) {
        const old = entry.item;
        const moved = old.lat !== item.lat || old.lon !== item.lon;
        const restyled = old.status !== item.status || old.heading !== item.heading;
        entry.item = item;
        if (!moved && !restyled) continue;
        removed.push(entry.marker);
        entry.marker.setLatLng([item.lat, item.lon]);
        entry.marker.setIcon(fleetIcon(item.status, item.heading));
        entry.marker.options.fdStatus = item.status;
        added.push(entry.marker);
        continue;
      }
      const marker = L.marker([item.lat, item.lon], {
        icon: fleetIcon(item.status, item.heading),
        fdId: item.id,
        fdStatus: item.status,
        riseOnHover: true,
      });
      state.fleetMarkers[item.id] = { marker: marker, item: item };
      added.push(marker);
    }
    for (const id of Object.keys(state.fleetMarkers)) {
      if (!seen[id]) {
        removed.push(state.fleetMarkers[id].marker);
        delete state.fleetMarkers[id];
      }
    }
    const group = state.fleetGroup;
    if (removed.length) {
      if (group.removeLayers) group.removeLayers(removed);
      else removed.forEach((marker) => group.removeLayer(marker));
    }
    if (options.fit || (!state.fleetFitted && items.length)) {
      state.fleetFitted = true;
      fitFleet();
    }
    if (added.length && group.addLayers) {
      state.fleetToken = options.token; // told when the last slice is in
      group.addLayers(added);
    } else {
      added.forEach((marker) => group.addLayer(marker));
      afterPaint(options.token);
    }
  };

  function fitFleet() {
    const bounds = L.latLngBounds([]);
    for (const entry of Object.values(state.fleetMarkers)) bounds.extend(entry.marker.getLatLng());
    if (bounds.isValid()) map.fitBounds(bounds, { padding: [30, 30], maxZoom: 10, animate: false });
  }

  FD.focusShipment = function (id) {
    const entry = state.fleetMarkers[id];
    if (!entry) return false;
    const group = state.fleetGroup;
    if (group.zoomToShowLayer) {
      group.zoomToShowLayer(entry.marker, () => entry.marker.openTooltip());
    } else {
      map.panTo(entry.marker.getLatLng());
    }
    return true;
  };

  // --- what tests and the benchmark look at ------------------------------------------------------

  FD._map = () => map;
  FD._bridge = () => bridge;
  FD._tell = tell; // for the scripts of other maps (picker.js, vehicles.js)
  FD._afterPaint = afterPaint;
  FD._markers = () => state.markers;
  FD._fleet = () => state.fleetMarkers;

  FD.stats = function () {
    let layers = 0;
    map.eachLayer(() => (layers += 1));
    const count = (group) => (group ? group.getLayers().length : 0);
    const visibleClusters = document.querySelectorAll(".fd-cluster").length;
    const visibleVehicles = document.querySelectorAll(".fd-vehicle").length;
    // The newest popup: one being closed fades out for a moment before it leaves the page.
    const popups = document.querySelectorAll(".leaflet-popup-content");
    const popup = popups.length ? popups[popups.length - 1] : null;
    const note = state.note.getContainer();
    return {
      layers: layers,
      zoom: map.getZoom(),
      center: [map.getCenter().lat, map.getCenter().lng],
      bounds: map.getBounds().toBBoxString(),
      routePoints: state.points.length,
      routeLayers: state.layers ? count(state.layers.route) : 0,
      casingLayers: state.layers ? count(state.layers.casing) : 0,
      stops: state.layers ? count(state.layers.stops) : 0,
      events: state.layers ? count(state.layers.events) : 0,
      fences: state.layers ? count(state.layers.fences) : 0,
      current: state.current,
      selected: state.selected,
      popup: popup ? popup.textContent : null,
      eta: state.eta && state.eta.getContainer().style.display !== "none"
        ? state.eta.getContainer().textContent
        : null,
      colorBy: state.colorBy,
      note: state.noteText, // the page's words, on the map or (note "none") not
      noteShown: document.contains(note) && note.style.display !== "none",
      basemap: !!(state.basemap && map.hasLayer(state.basemap)),
      basemapFeatures: state.basemap ? count(state.basemap) : 0,
      tiles: !!(state.tiles && map.hasLayer(state.tiles)),
      tilesOk: state.tilesOk,
      fleet: Object.keys(state.fleetMarkers).length,
      clustered: !!L.markerClusterGroup,
      visibleClusters: visibleClusters,
      visibleVehicles: visibleVehicles,
    };
  };
})();
