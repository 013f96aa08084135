// The calculator on a phone: after Calculate the form folds away so that the results are seen
// without scrolling; "Edit the attack" unfolds it. Without this script the form's action
// (/calculator#results) still lands on the results.
(function () {
  "use strict";
  function form() { return document.getElementById("calculator-form"); }
  function fold() {
    var f = form();
    if (!f) { return; }
    f.classList.add("collapsed");
    var results = document.getElementById("results");
    if (results) { results.scrollIntoView(); }
  }
  // the ability picker's search box: typing filters its list (the browser's datalist); only
  // a chosen ability (its "change") reaches the server, not every key
  document.addEventListener("keyup", function (event) {
    var t = event.target;
    if (t && t.name && /\.pick$/.test(t.name)) { event.stopPropagation(); }
  }, true);
  document.addEventListener("DOMContentLoaded", function () {
    if (window.location.hash === "#results") { fold(); }
    var edit = document.getElementById("edit-attack");
    if (edit) {
      edit.addEventListener("click", function (event) {
        event.preventDefault();
        form().classList.remove("collapsed");
        form().scrollIntoView();
      });
    }
  });
})();
