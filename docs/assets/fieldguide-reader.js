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

// Code names in table cells (torch._dynamo.config.recompile_limit, snippets/guards/x.py) may
// break after a dot, a slash or an underscore, never mid-word: add <wbr> there. Copying the
// code copies no extra character. Without JavaScript a wide table scrolls in its own box.
(function () {
  "use strict";
  var BREAK = /([./_])(?=[^./_\s]{3})/g;
  document.querySelectorAll(".md-typeset table code").forEach(function (code) {
    var walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT), texts = [];
    while (walker.nextNode()) texts.push(walker.currentNode);
    texts.forEach(function (node) {
      var parts = node.nodeValue.split(BREAK);
      if (parts.length < 2) return;
      var frag = document.createDocumentFragment();
      parts.forEach(function (part) {
        if (!part) return;
        frag.appendChild(document.createTextNode(part));
        if (part.length === 1 && "./_".indexOf(part) >= 0) frag.appendChild(document.createElement("wbr"));
      });
      node.parentNode.replaceChild(frag, node);
    });
  });
})();
