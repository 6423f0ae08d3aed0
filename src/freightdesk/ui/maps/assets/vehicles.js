/* FreightDesk maps: the available vehicles round a search's centre, with the search circle.
 *
 * Runs in the map page (after map.js) of the Available vehicles pane, which loads it once the
 * page is ready; it adds FD.vehicles* functions and leaves the other maps as they are.
 * A click on a vehicle tells Python "vehicle:<id>"; a click elsewhere on the map tells the
 * point ("pick:<lat>,<lon>"), which the pane's form takes as the next search's centre.
 */
(function () {
  "use strict";

  const FD = window.FD;
  if (!FD || FD.vehiclesShow) return; // loaded already (the tiles were configured again)

  const CIRCLE_STYLE = {
    color: "#2563eb",
    weight: 2,
    dashArray: "6 4",
    fillColor: "#2563eb",
    fillOpacity: 0.06,
    interactive: false,
  };
  const state = { layer: null, circle: null, centre: null, markers: {}, selected: null };

  const map = () => FD._map();
  const tell = FD._tell;
  const afterPaint = FD._afterPaint;

  function esc(text) {
    const span = document.createElement("span");
    span.textContent = text == null ? "" : String(text);
    return span.innerHTML;
  }

  function ensure() {
    if (state.layer) return;
    state.layer = L.layerGroup().addTo(map());
    map().on("click", (e) => tell("itemClicked", "pick:" + e.latlng.lat + "," + e.latlng.lng));
  }

  function style(vehicle, selected) {
    return {
      radius: selected ? 8 : 6,
      color: selected ? "#111827" : "#ffffff",
      weight: selected ? 3 : 1.5,
      fillColor: vehicle.mine ? "#d97706" : "#16a34a",
      fillOpacity: 0.95,
    };
  }

  // data: {centre: [lat, lon] or null, radius: metres, vehicles: [{key, at: [lat, lon],
  // title, lines, mine}]}; options: {token, fit}.
  FD.vehiclesShow = function (data, options) {
    ensure();
    state.layer.clearLayers();
    state.markers = {};
    state.circle = null;
    state.centre = null;
    if (data.centre) {
      state.circle = L.circle(data.centre, Object.assign({ radius: data.radius }, CIRCLE_STYLE));
      state.centre = L.circleMarker(data.centre, {
        radius: 4,
        color: "#2563eb",
        fillColor: "#2563eb",
        fillOpacity: 1,
        interactive: false,
      });
      state.layer.addLayer(state.circle);
      state.layer.addLayer(state.centre);
    }
    for (const vehicle of data.vehicles) {
      const marker = L.circleMarker(vehicle.at, style(vehicle, vehicle.key === state.selected));
      marker.bindTooltip(
        "<b>" + esc(vehicle.title) + "</b><br>" + vehicle.lines.map(esc).join("<br>"),
        { direction: "top" }
      );
      marker.on("click", (e) => {
        L.DomEvent.stopPropagation(e);
        tell("itemClicked", "vehicle:" + vehicle.key);
      });
      marker.vehicle = vehicle;
      state.layer.addLayer(marker);
      state.markers[vehicle.key] = marker;
    }
    if (!options || options.fit !== false) FD.vehiclesFit();
    afterPaint(options ? options.token : null);
  };

  FD.vehiclesFit = function () {
    if (state.circle) {
      map().fitBounds(state.circle.getBounds(), { padding: [16, 16] });
    } else {
      const points = Object.values(state.markers).map((m) => m.getLatLng());
      if (points.length) map().fitBounds(L.latLngBounds(points), { padding: [24, 24], maxZoom: 11 });
    }
  };

  FD.vehiclesSelect = function (key) {
    const before = state.markers[state.selected];
    if (before) before.setStyle(style(before.vehicle, false));
    state.selected = key;
    const marker = state.markers[key];
    if (marker) {
      marker.setStyle(style(marker.vehicle, true));
      marker.bringToFront();
    }
  };

  FD.vehiclesStats = function () {
    return {
      vehicles: Object.keys(state.markers).length,
      circle: state.circle ? state.circle.getRadius() : null,
      centre: state.circle ? [state.circle.getLatLng().lat, state.circle.getLatLng().lng] : null,
      selected: state.selected,
      zoom: map().getZoom(),
    };
  };
})();
