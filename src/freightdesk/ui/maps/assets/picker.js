/* FreightDesk maps: choosing a stop location's point, with its geofence drawn around it.
 *
 * Runs in the map page (after map.js) of the location picker, which loads it once the page is
 * ready; it adds FD.picker* functions and leaves the shipment and fleet maps as they are.
 * A click on the map, or the pin dragged, tells Python the chosen point through the bridge
 * ("pick:<lat>,<lon>"), and Escape pressed in the map ("key:Escape"). A point typed in the dialog arrives as FD.pickerPoint, which does not
 * tell Python again.
 */
(function () {
  "use strict";

  const FD = window.FD;
  if (!FD || FD.pickerPoint) return; // loaded already (the tiles were configured again)

  const FENCE_STYLE = {
    pane: "fences",
    color: "#7b3fbf",
    weight: 2,
    fillColor: "#7b3fbf",
    fillOpacity: 0.1,
    interactive: false,
  };
  const FENCE_ZOOM = 15; // the closest a fence change zooms in
  const CLOSE_ZOOM = 12; // streets: below it, a click zooms in by ZOOM_STEP around the point
  const ZOOM_STEP = 4;
  const state = {
    ready: false,
    point: null, // L.LatLng
    marker: null,
    fence: null, // {shape, radius, approximate, ...} as payload.fence_of makes it
    fenceLayer: null,
  };

  function map() {
    return FD._map();
  }

  function tell(method, value) {
    const bridge = FD._bridge();
    if (bridge && typeof bridge[method] === "function") bridge[method](value);
  }

  function afterPaint(token) {
    if (token == null) return;
    requestAnimationFrame(() => requestAnimationFrame(() => tell("rendered", token)));
  }

  function ensure() {
    if (state.ready) return;
    state.ready = true;
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = "fdmap://app/assets/picker.css";
    document.head.appendChild(link);
    map().getContainer().classList.add("fd-picking");
    map().on("click", (e) => {
      choose(e.latlng);
      // A click on a whole country is only roughly right: zoom in on it to click again closer.
      const zoom = map().getZoom();
      if (zoom < CLOSE_ZOOM) {
        map().setView(state.point, Math.min(zoom + ZOOM_STEP, CLOSE_ZOOM), { animate: false });
      }
    });
    // QtWebEngine hands Enter on to the dialog but keeps Escape: tell it (unless the map used
    // the key itself, to close a popup).
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !e.defaultPrevented) tell("itemClicked", "key:Escape");
    });
  }

  // On the world the user sees several copies of; the point is told in -180..180.
  function normal(latlng) {
    const wrapped = latlng.wrap();
    return L.latLng(Math.max(-90, Math.min(90, wrapped.lat)), wrapped.lng);
  }

  function choose(latlng) {
    const point = normal(latlng);
    place(point);
    tell("itemClicked", "pick:" + point.lat.toFixed(6) + "," + point.lng.toFixed(6));
  }

  function place(latlng) {
    state.point = latlng;
    if (!state.marker) {
      state.marker = L.marker(latlng, {
        draggable: true,
        autoPan: true,
        title: "The stop location: drag to move it",
        alt: "The chosen point",
        zIndexOffset: 1000,
      });
      // The fence follows the pin while it moves; the point is told when it is let go.
      state.marker.on("drag", () => follow(state.marker.getLatLng()));
      state.marker.on("dragend", () => choose(state.marker.getLatLng()));
      state.marker.addTo(map());
    } else {
      state.marker.setLatLng(latlng);
    }
    follow(latlng);
  }

  function follow(latlng) {
    if (state.fenceLayer && state.fence && state.fence.shape === "circle") {
      state.fenceLayer.setLatLng(latlng);
    } else if (!state.fenceLayer) {
      drawFence();
    }
  }

  function drawFence() {
    if (state.fenceLayer) {
      map().removeLayer(state.fenceLayer);
      state.fenceLayer = null;
    }
    const fence = state.fence;
    if (!fence) return;
    const style = Object.assign({ dashArray: fence.approximate ? "6 6" : null }, FENCE_STYLE);
    if (fence.shape === "circle" && state.point) {
      state.fenceLayer = L.circle(state.point, Object.assign({ radius: fence.radius }, style));
    } else if (fence.shape === "rect") {
      state.fenceLayer = L.rectangle(
        [
          [fence.south, fence.west],
          [fence.north, fence.east],
        ],
        style
      );
    }
    if (state.fenceLayer) state.fenceLayer.addTo(map());
  }

  function showStart(options) {
    const m = map();
    if (state.point && state.fenceLayer) {
      const bounds = state.fenceLayer.getBounds().extend(state.point);
      m.fitBounds(bounds, { padding: [48, 48], maxZoom: options.zoom || 15, animate: false });
      m.panTo(state.point, { animate: false }); // centred on the point, the fence around it
    } else if (state.point) {
      m.setView(state.point, options.zoom || 15, { animate: false });
    } else if (options.region) {
      const r = options.region;
      m.fitBounds(
        [
          [r.south, r.west],
          [r.north, r.east],
        ],
        { padding: [24, 24], animate: false }
      );
    }
  }

  // --- what Python calls -------------------------------------------------------------------------

  FD.pickerStart = function (options) {
    // options: {point: [lat, lon] | null, region: {south, west, north, east} | null,
    //           fence: fence | null, zoom, token}
    ensure();
    state.fence = options.fence || null;
    if (options.point) {
      place(L.latLng(options.point[0], options.point[1]));
    } else if (state.marker) {
      map().removeLayer(state.marker);
      state.marker = null;
      state.point = null;
    }
    drawFence();
    showStart(options);
    afterPaint(options.token);
  };

  FD.pickerPoint = function (lat, lon) {
    ensure();
    const latlng = L.latLng(lat, lon);
    place(latlng);
    if (!map().getBounds().contains(latlng)) map().panTo(latlng, { animate: false });
  };

  FD.pickerFence = function (fence) {
    state.fence = fence || null;
    drawFence();
    // The view follows a fence grown past it or shrunk to a speck (the fence is what the
    // user is looking at now); in between it stays where the user left it.
    const layer = state.fenceLayer;
    if (!layer) return;
    const view = map().getBounds();
    const around = layer.getBounds();
    const speck = around.getNorth() - around.getSouth() < (view.getNorth() - view.getSouth()) / 8;
    if (!view.contains(around) || (speck && map().getZoom() < FENCE_ZOOM)) {
      map().fitBounds(around, { padding: [48, 48], maxZoom: FENCE_ZOOM, animate: false });
    }
  };

  FD.pickerCentre = function () {
    choose(map().getCenter());
  };

  FD.pickerStats = function () {
    const m = map();
    const layer = state.fenceLayer;
    return {
      point: state.point ? [state.point.lat, state.point.lng] : null,
      marker: !!(state.marker && m.hasLayer(state.marker)),
      draggable: !!(state.marker && state.marker.dragging && state.marker.dragging.enabled()),
      fence: layer
        ? {
            shape: state.fence.shape,
            radius: layer.getRadius ? layer.getRadius() : null,
            center: layer.getLatLng ? [layer.getLatLng().lat, layer.getLatLng().lng] : null,
            dashed: !!layer.options.dashArray,
            bounds: layer.getBounds().toBBoxString(),
          }
        : null,
      center: [m.getCenter().lat, m.getCenter().lng],
      zoom: m.getZoom(),
      view: m.getBounds().toBBoxString(),
      picking: m.getContainer().classList.contains("fd-picking"),
    };
  };
})();
