/* The Black Reach board (templates/matches/black_reach/body.html): tap one of your units, then
   a highlighted square (the move or deployment form is filled with it and sent) or a target
   (its shot or assault forms open, with their exact odds, to be sent by their button).
   Without this script the same forms are there, with selects. */
(function () {
  "use strict";
  if (window.blackReachBoard) return;
  window.blackReachBoard = true;
  var selected = null;

  function root() { return document.getElementById("br-play"); }
  function taps() {
    var r = root();
    try { return r ? JSON.parse(r.dataset.taps || "{}") : {}; } catch (e) { return {}; }
  }
  function clear() {
    document.querySelectorAll("#br-play .hl, #br-play .selected, #br-play .target, #br-play .chosen")
      .forEach(function (el) { el.classList.remove("hl", "selected", "target", "chosen"); });
    document.querySelectorAll("#br-preview rect.flame").forEach(function (el) { el.remove(); });
  }
  function openForms(unit) {
    document.querySelectorAll("#br-play details.unit-forms").forEach(function (d) {
      d.open = d.dataset.unit === unit;
    });
  }
  function select(unit) {
    clear();
    var t = taps()[unit];
    selected = t ? unit : null;
    if (!t) return;
    document.querySelectorAll('#br-play [data-unit="' + CSS.escape(unit) + '"]')
      .forEach(function (el) { if (!el.matches("form, details")) el.classList.add("selected"); });
    Object.keys(t.squares).forEach(function (key) {
      var xy = key.split(",");
      var cell = document.querySelector('#br-board rect.sq[data-x="' + xy[0] + '"][data-y="' + xy[1] + '"]');
      if (cell) cell.classList.add("hl");
    });
    Object.keys(t.targets).forEach(function (target) {
      var c = document.querySelector('#br-board g.counter[data-unit="' + CSS.escape(target) + '"]');
      if (c) c.classList.add("target");
    });
    openForms(unit);
  }
  // a tap between the squares of a counter (a vehicle's two squares) lands on the board
  // square under it: that square's counter is the one tapped
  function counterOn(key) {
    var found = null;
    document.querySelectorAll("#br-board g.counter").forEach(function (g) {
      if (!found && (g.dataset.squares || "").split(" ").indexOf(key) >= 0) found = g;
    });
    return found;
  }
  function send(spec) {
    var form = document.getElementById(spec.form);
    if (!form) return;
    var field = form.querySelector('[name="path"], [name="square"]');
    if (field) field.value = spec.value;
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }
  function aim(unit, target) {
    var ids = taps()[unit].targets[target] || [];
    openForms(unit);
    ids.forEach(function (id) {
      var form = document.getElementById(id);
      if (!form) return;
      form.classList.add("chosen");
      // a heavy vehicle: each weapon that may fire at the target and does not yet takes it
      // in its first silent select (a Double Tir weapon has two, for two different targets)
      form.querySelectorAll("fieldset.weapon").forEach(function (box) {
        var value = "0|" + target;
        var sels = Array.prototype.slice.call(box.querySelectorAll('select[name^="shot."]'));
        if (sels.some(function (sel) { return sel.value === value; })) return;
        var free = sels.filter(function (sel) { return !sel.value; })[0];
        if (!free || !free.querySelector('option[value="' + CSS.escape(value) + '"]')) return;
        free.value = value;
        syncWeapon(free);
      });
    });
    var first = document.getElementById(ids[0]);
    // the first flame among them that reaches the target: its squares on the board
    flamePreview(ids.map(function (id) { return document.getElementById(id); })
      .filter(function (f) { return f && f.dataset.reached; })[0]);
    if (first) first.scrollIntoView({ behavior: "smooth", block: "center" });
  }
  // a Lance-Flammes form chosen: the squares its flame reaches drawn on the board
  function flamePreview(form) {
    var g = document.getElementById("br-preview");
    if (!g || !form || !form.dataset.reached) return;
    while (g.firstChild) g.removeChild(g.firstChild);
    var cells = [];
    try { cells = JSON.parse(form.dataset.reached); } catch (e) { cells = []; }
    var ns = "http://www.w3.org/2000/svg";
    cells.forEach(function (c) {
      var rect = document.createElementNS(ns, "rect");
      rect.setAttribute("class", "flame");
      rect.setAttribute("x", c[0] + 0.04);
      rect.setAttribute("y", c[1] + 0.04);
      rect.setAttribute("width", 0.92);
      rect.setAttribute("height", 0.92);
      rect.setAttribute("fill", "#ff3b00");
      rect.setAttribute("fill-opacity", "0.4");
      g.appendChild(rect);
    });
  }

  // a template (Tir Direct / Indirect, Da Krunch): "Place it on the board" arms its form;
  // a tap on the board then picks the nearest intercase, and its squares are drawn
  var armed = null;
  function templateOf(form) { return form && form.querySelector(".template"); }
  function preview(form) {
    var g = document.getElementById("br-preview");
    if (!g) return;
    while (g.firstChild) g.removeChild(g.firstChild);
    var t = templateOf(form);
    if (!t) return;
    var x = parseInt(form.querySelector('[name="x"]').value, 10);
    var y = parseInt(form.querySelector('[name="y"]').value, 10);
    if (isNaN(x) || isNaN(y)) return;
    var facing = form.querySelector('.template [name="facing"]').value || "N";
    var cells = {};
    try { cells = JSON.parse(t.dataset.squares || "{}"); } catch (e) { cells = {}; }
    var ns = "http://www.w3.org/2000/svg";
    (cells[facing] || []).forEach(function (c) {
      var rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", x + c[0] + 0.04);
      rect.setAttribute("y", y + c[1] + 0.04);
      rect.setAttribute("width", 0.92);
      rect.setAttribute("height", 0.92);
      rect.setAttribute("fill", "#ff8c00");
      rect.setAttribute("fill-opacity", "0.45");
      rect.setAttribute("stroke", "#ff8c00");
      rect.setAttribute("stroke-width", "0.05");
      g.appendChild(rect);
    });
    var dot = document.createElementNS(ns, "circle");
    dot.setAttribute("cx", x);
    dot.setAttribute("cy", y);
    dot.setAttribute("r", 0.12);
    dot.setAttribute("fill", "#000");
    g.appendChild(dot);
  }
  function intercase(event) {
    var svg = document.getElementById("br-board");
    if (!svg || !svg.getScreenCTM) return null;
    var pt = svg.createSVGPoint();
    pt.x = event.clientX;
    pt.y = event.clientY;
    var at = pt.matrixTransform(svg.getScreenCTM().inverse());
    return [Math.round(at.x), Math.round(at.y)];
  }
  function hint(text) {
    var h = document.getElementById("br-hint");
    if (h && text) h.textContent = text;
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("#br-play .aim-template");
    if (button) {
      var form = button.closest("form");
      if (armed === form) { armed = null; preview(null); return; }  // a second tap: done
      armed = form;
      hint(button.dataset.hint);
      preview(armed);
      var board = document.getElementById("br-board");
      if (board) board.scrollIntoView({ behavior: "smooth", block: "center" });
      return;
    }
    if (!armed || !document.body.contains(armed)) { armed = null; return; }
    var svg = document.getElementById("br-board");
    if (!svg || !svg.contains(event.target)) return;
    var xy = intercase(event);
    if (!xy) return;
    armed.querySelector('[name="x"]').value = xy[0];
    armed.querySelector('[name="y"]').value = xy[1];
    preview(armed);
    armed.classList.add("chosen");
    armed.scrollIntoView({ behavior: "smooth", block: "center" });
    event.stopImmediatePropagation();
  }, true);
  document.addEventListener("input", function (event) {
    var form = event.target.closest && event.target.closest("#br-play form");
    if (form && templateOf(form) && event.target.matches('[name="x"], [name="y"], [name="facing"]')) {
      armed = form;
      preview(form);
    }
  });
  // a heavy vehicle's weapon: once its targets are chosen, only those shots' odds stay shown
  // (two selects for a weapon with Double Tir)
  function syncWeapon(sel) {
    var box = sel.closest("fieldset.weapon");
    if (!box) return;
    var chosen = [];
    box.querySelectorAll('select[name^="shot."]').forEach(function (s) {
      if (s.value) chosen.push(s.value);
    });
    box.querySelectorAll(".weapon-choice").forEach(function (div) {
      div.hidden = chosen.length > 0 && chosen.indexOf(div.dataset.value) < 0;
    });
  }
  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("#br-play form");
    if (form && templateOf(form) && event.target.matches('[name="facing"]')) preview(form);
    if (event.target.matches && event.target.matches('select[name^="shot."]')) syncWeapon(event.target);
  });

  document.addEventListener("click", function (event) {
    var r = root();
    if (!r || !r.contains(event.target)) return;
    var picked = event.target.closest("g.counter, .counter-chip");
    var cell = event.target.closest("rect.sq");
    if (!picked && cell) picked = counterOn(cell.dataset.x + "," + cell.dataset.y);
    var t = taps();
    var unit = picked ? picked.dataset.unit : null;
    if (selected && unit && t[selected] && t[selected].targets[unit]) { aim(selected, unit); return; }
    if (unit && t[unit] && unit !== selected) { select(unit); return; }
    var key = null;
    if (cell) key = cell.dataset.x + "," + cell.dataset.y;
    else if (picked && picked.dataset.x) key = picked.dataset.x + "," + picked.dataset.y;
    if (selected && key && t[selected] && t[selected].squares[key]) { send(t[selected].squares[key]); return; }
    if (cell || picked) { selected = null; clear(); }
  });
  document.addEventListener("htmx:afterSwap", function () { selected = null; armed = null; });
})();
