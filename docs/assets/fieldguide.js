// Site-wide touches, shipped with the site (no external scripts).
(function () {
  "use strict";
  // Material's search overlay is a dialog without a name; give it one for assistive technology.
  document.querySelectorAll('.md-search[role="dialog"]').forEach(function (dialog) {
    if (!dialog.getAttribute("aria-label")) dialog.setAttribute("aria-label", "Search");
  });
})();

// Evidence markers (fieldguide.guide.claims): each ↑ after a claim links to the output line it rests on.
// The line is found in the output block titled with the marker's run, wrapped in a focusable
// span with the marker's id, so the link works by mouse, keyboard and URL; following it opens a
// collapsed block around the line, highlights it and moves focus there (Escape goes back).
(function () {
  "use strict";
  function blocks(run) {
    var out = [];
    document.querySelectorAll(".highlight .filename").forEach(function (title) {
      if (title.textContent.trim() === "$ " + run) out.push(title.parentNode.querySelector("code"));
    });
    return out;
  }
  function lineNodes(code) {
    // Lines start at the anchors pymdownx.highlight emits (anchor_linenums); group the nodes between them.
    var lines = [], current = null;
    Array.prototype.slice.call(code.childNodes).forEach(function (node) {
      if (node.nodeType === 1 && node.tagName === "A" && /^__codelineno-/.test(node.id || "")) {
        current = [];
        lines.push(current);
      } else if (current) {
        current.push(node);
      }
    });
    return lines;
  }
  function wrap(nodes, id) {
    // keep the line's newline outside the highlight, so the block keeps its line breaks
    var last = nodes[nodes.length - 1];
    if (last.nodeType === 3 && /\n$/.test(last.data) && last.data.length > 1) {
      last.splitText(last.data.length - 1);
    } else if (last.nodeType === 3 && last.data === "\n" && nodes.length > 1) {
      nodes = nodes.slice(0, -1);
    }
    var span = document.createElement("span");
    span.className = "fg-evidence-line";
    span.id = id;
    span.tabIndex = -1;
    nodes[0].parentNode.insertBefore(span, nodes[0]);
    nodes.forEach(function (n) { span.appendChild(n); });
    return span;
  }
  function target(marker) {
    var id = marker.getAttribute("href").slice(1);
    var found = document.getElementById(id);
    if (found) return found;
    var want = marker.dataset.line, nth = parseInt(marker.dataset.nth || "0", 10), seen = 0, hit = null;
    blocks(marker.dataset.run).some(function (code) {
      return lineNodes(code).some(function (nodes) {
        if (!nodes.length) return false;
        var text = nodes.map(function (n) { return n.textContent; }).join("");
        if (text.indexOf(want) === -1) return false;
        if (seen++ < nth) return false;
        hit = wrap(nodes, id);
        return true;
      });
    });
    return hit;
  }
  function show(line, marker) {
    for (var p = line.parentNode; p; p = p.parentNode) {
      if (p.tagName === "DETAILS") p.open = true;
    }
    document.querySelectorAll(".fg-evidence-line.fg-ev-active").forEach(function (el) { el.classList.remove("fg-ev-active"); });
    line.classList.add("fg-ev-active");
    line.scrollIntoView({ block: "center" });
    line.focus({ preventScroll: true });
    if (marker) line._fgMarker = marker;
  }
  var markers = document.querySelectorAll(".fg-ev a[data-run]");
  markers.forEach(function (marker, i) {
    marker.textContent = "[" + (i + 1) + "]";
    marker.setAttribute("aria-label", "Evidence " + (i + 1) + ": the output line this rests on");
    var line = target(marker);
    if (!line) { marker.classList.add("fg-ev-missing"); return; }
    marker.addEventListener("click", function (event) {
      event.preventDefault();
      history.replaceState(null, "", "#" + line.id);
      show(line, marker);
    });
  });
  document.addEventListener("keydown", function (event) {
    var el = document.activeElement;
    if (event.key === "Escape" && el && el.classList && el.classList.contains("fg-evidence-line") && el._fgMarker) {
      el._fgMarker.focus();
    }
  });
  function fromHash() {
    if (location.hash.indexOf("#fg-ev-") !== 0) return;
    var line = document.getElementById(location.hash.slice(1));
    if (line) show(line);
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
