"use strict";
(function () {
  // Findings: filters built from the rows' own values, and a search.
  var table = document.getElementById("findings");
  if (table) {
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var keys = ["severity", "signal", "rule", "server"];
    var selects = {};
    keys.forEach(function (k) {
      var sel = document.getElementById("filter-" + k);
      selects[k] = sel;
      var seen = {};
      rows.forEach(function (r) { seen[r.dataset[k]] = true; });
      Object.keys(seen).sort().forEach(function (v) {
        var o = document.createElement("option");
        o.value = v;
        o.textContent = v === "" ? "(none)" : v;
        sel.appendChild(o);
      });
      sel.addEventListener("change", apply);
    });
    var search = document.getElementById("filter-search");
    var shown = document.getElementById("findings-shown");
    search.addEventListener("input", apply);
    function apply() {
      var q = search.value.toLowerCase(), n = 0;
      rows.forEach(function (r) {
        var ok = keys.every(function (k) {
          return selects[k].value === "*" || r.dataset[k] === selects[k].value;
        }) && (q === "" || r.textContent.toLowerCase().indexOf(q) >= 0);
        r.hidden = !ok;
        if (ok) n++;
      });
      shown.textContent = n + " of " + rows.length + " shown";
    }
    apply();
  }
  // Timelines: a call's excerpts on click (or Enter), one at a time per session.
  Array.prototype.forEach.call(document.querySelectorAll(".timeline .call"), function (g) {
    function show() {
      var id = g.getAttribute("data-call");
      var box = document.getElementById(id);
      if (!box) return;
      var section = g.closest("section");
      Array.prototype.forEach.call(section.querySelectorAll(".excerpt"), function (e) { e.hidden = e !== box; });
      Array.prototype.forEach.call(section.querySelectorAll(".timeline .call"), function (c) {
        c.classList.toggle("selected", c === g);
      });
      box.scrollIntoView({ block: "nearest" });
    }
    g.addEventListener("click", show);
    g.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); show(); } });
  });
})();
