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
      if (form) form.classList.add("chosen");
    });
    var first = document.getElementById(ids[0]);
    if (first) first.scrollIntoView({ behavior: "smooth", block: "center" });
  }

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
  document.addEventListener("htmx:afterSwap", function () { selected = null; });
})();
