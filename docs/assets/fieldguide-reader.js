// The reader's site: small accessibility touches, shipped with the site (no external scripts).
(function () {
  "use strict";
  // Material gives each code block a <nav> for its buttons; name each one so that landmarks differ.
  var count = 0;
  function label(root) {
    (root.querySelectorAll ? root : document).querySelectorAll(".md-code__nav:not([aria-label])").forEach(function (nav) {
      count += 1;
      nav.setAttribute("aria-label", "Code block " + count + " actions");
    });
  }
  label(document);
  new MutationObserver(function () { label(document); }).observe(document.body, { childList: true, subtree: true });
})();

// Opened from disk (file://), a link to a folder ("guards/") shows a folder listing: point each
// such link of the site at the folder's index.html instead. Served pages are left as they are.
(function () {
  "use strict";
  if (window.location.protocol !== "file:") return;
  function fix(root) {
    root.querySelectorAll("a[href]").forEach(function (a) {
      var href = a.getAttribute("href");
      if (/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(href)) return;  // another scheme, or an anchor on this page
      var m = href.match(/^([^?#]*)([?#].*)?$/);
      var path = m[1], rest = m[2] || "";
      if (path === "" || path.slice(-1) === "/" || path === "." || path === "..") {
        a.setAttribute("href", (path === "" ? "./" : path.replace(/\/?$/, "/")) + "index.html" + rest);
      }
    });
  }
  fix(document);
  new MutationObserver(function (records) {
    records.forEach(function (r) { r.addedNodes.forEach(function (n) { if (n.querySelectorAll) fix(n); }); });
  }).observe(document.body, { childList: true, subtree: true });
})();

// Code names in table cells (torch._dynamo.config.recompile_limit, snippets/guards/x.py), and the
// values of the Across releases table, may break after a dot, a slash, an underscore, =, ( or [,
// never mid-word: add <wbr> there. Copying the
// code copies no extra character. Without JavaScript a wide table scrolls in its own box.
(function () {
  "use strict";
  var BREAK = /([./_=(\[])(?=[^./_=(\[\s]{3})/g;
  document.querySelectorAll(".md-typeset table code, .fg-matrix td > a:first-child").forEach(function (code) {
    var walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT), texts = [];
    while (walker.nextNode()) texts.push(walker.currentNode);
    texts.forEach(function (node) {
      var parts = node.nodeValue.split(BREAK);
      if (parts.length < 2) return;
      var frag = document.createDocumentFragment();
      parts.forEach(function (part) {
        if (!part) return;
        frag.appendChild(document.createTextNode(part));
        if (part.length === 1 && "./_=([".indexOf(part) >= 0) frag.appendChild(document.createElement("wbr"));
      });
      node.parentNode.replaceChild(frag, node);
    });
  });
})();

// Across releases on a narrow screen: fifteen columns do not fit a phone. A reader compares two
// releases at a time (this copy's and one they pick), or shows every release in a box that scrolls
// both ways; the header row and the fact column stay in view either way. Wide screens start
// with every release, narrow ones with two. Without JavaScript the table scrolls in its own box.
(function () {
  "use strict";
  var NARROW = window.matchMedia("(max-width: 44.9375em)");
  var shown = 0;
  document.querySelectorAll(".fg-matrix").forEach(function (box) {
    var table = box.querySelector("table");
    if (!table || !table.tHead) return;
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var releases = heads.map(function (th) { return th.getAttribute("data-release"); });
    var columns = releases.map(function (r, i) { return r ? i : -1; }).filter(function (i) { return i > 0; });
    if (columns.length < 3) return;
    shown += 1;
    var banner = document.querySelector(".fg-release[data-torch]");
    var mine = banner ? banner.getAttribute("data-torch").split("+")[0] : null;
    var live = heads.findIndex(function (th) { return / \(this build\)$/.test(th.textContent); });
    var a = releases.indexOf(mine) > 0 ? releases.indexOf(mine) : live > 0 ? live : columns[columns.length - 1];
    var b = a === columns[0] ? columns[1] : a - 1;

    var bar = document.createElement("div");
    bar.className = "fg-compare";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", "Releases shown in the table " + (box.getAttribute("aria-label") || ""));
    function picker(label, value) {
      var wrap = document.createElement("label");
      var select = document.createElement("select");
      select.id = "fg-compare-" + shown + "-" + label.replace(/\W+/g, "");
      columns.forEach(function (i) {
        var option = document.createElement("option");
        option.value = String(i);
        option.textContent = "torch " + releases[i] + (i === a && mine === releases[i] ? " (this copy)" : "");
        select.appendChild(option);
      });
      select.value = String(value);
      wrap.appendChild(document.createTextNode(label + " "));
      wrap.appendChild(select);
      bar.appendChild(wrap);
      return select;
    }
    var first = picker("Compare", a), second = picker("with", b);
    var allLabel = document.createElement("label");
    var all = document.createElement("input");
    all.type = "checkbox";
    all.className = "fg-compare-all";
    allLabel.appendChild(all);
    allLabel.appendChild(document.createTextNode(" every release"));
    bar.appendChild(allLabel);
    box.parentNode.insertBefore(bar, box);

    var every = !NARROW.matches;
    function apply() {
      var keep = { 0: true };
      keep[first.value] = true;
      keep[second.value] = true;
      box.classList.toggle("fg-matrix--two", !every);
      Array.prototype.forEach.call(table.rows, function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, i) {
          cell.classList.toggle("fg-col-off", !every && !keep[i]);
        });
        if (row.parentNode === table.tHead) return;
        var x = row.cells[+first.value], y = row.cells[+second.value];
        var differs = !every && x && y && (x.getAttribute("data-value") || "") !== (y.getAttribute("data-value") || "");
        row.classList.toggle("fg-row-differs", !!differs);
      });
      first.disabled = second.disabled = every;
      all.checked = every;
    }
    first.addEventListener("change", apply);
    second.addEventListener("change", apply);
    all.addEventListener("change", function () { every = all.checked; apply(); });
    apply();
  });
})();

// Which release am I reading? The banner at the top says it; once the reader scrolls past it (or
// lands on a section, as switching releases does), material's header shows the page's title in
// place of the site's name and the release selector: the release goes there too, ahead of the
// title so that a narrow screen's ellipsis never hides it.
(function () {
  "use strict";
  var banner = document.querySelector(".fg-release[data-torch]");
  var topic = document.querySelector('.md-header__topic[data-md-component="header-topic"]');
  if (!banner || !topic) return;
  var badge = document.createElement("span");
  badge.className = "fg-header-release";
  badge.textContent = "torch " + banner.getAttribute("data-torch").split("+")[0];
  topic.insertBefore(badge, topic.firstChild);
})();
