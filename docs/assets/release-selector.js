/* The guide on your torch: the release selector's companion (one copy of the site per torch
 * release, built by `nox -s publish`; material draws the selector from ../versions.json).
 *  - switching releases keeps the page and the section (hash) when the other copy has the page,
 *    and remembers the choice (the site's root sends a returning reader to it);
 *  - every output block gets a menu linking the same block on the other releases' copies;
 *  - on the Across releases page, each value also links to where that release's copy shows the
 *    output it was read from (each copy's snippet-places.json says where).
 * On a single build (nox -s docs) there is no versions.json and this script does nothing. */
(function () {
  "use strict";
  var KEY = "fieldguide.release";
  var config = document.getElementById("__config");
  if (!config || !JSON.parse(config.textContent).version) return;  // a single build: no other releases
  var base = new URL(JSON.parse(config.textContent).base.replace(/\/?$/, "/"), location.href);
  var root = new URL("../", base);
  var here = location.pathname.indexOf(base.pathname) === 0 ? location.pathname.slice(base.pathname.length) : "";
  var current = base.pathname.replace(/\/$/, "").split("/").pop();

  function remember(version) {
    try { localStorage.setItem(KEY, version); } catch (e) { /* storage disabled: the choice lasts this visit */ }
  }
  function samePlace(version, hash) {
    return new URL(version + "/" + here + location.search + (hash === undefined ? location.hash : hash), root);
  }
  function go(version, hash) {
    var target = samePlace(version, hash);
    var fallback = new URL(version + "/", root).href;
    fetch(target.href.split("#")[0], { method: "HEAD" }).then(
      function (r) { location.href = r.ok ? target.href : fallback; },
      function () { location.href = fallback; }
    );
  }
  function versionOf(href) {
    var m = new URL(href, location.href).pathname.match(/([^/]+)\/?$/);
    return m ? m[1] : null;
  }

  // The selector's accessible name starts with what it shows ("torch 2.13.0"), as WCAG 2.5.3 asks
  // (material names it "Select version" whatever it shows); material draws it after reading
  // versions.json, so it is named when it appears.
  function nameSelector() {
    document.querySelectorAll(".md-version__current").forEach(function (button) {
      var shown = button.textContent.replace(/\s+/g, " ").trim();
      var name = shown + ": choose another release";
      if (shown && button.getAttribute("aria-label") !== name) button.setAttribute("aria-label", name);
    });
  }
  nameSelector();
  new MutationObserver(nameSelector).observe(document.body, { childList: true, subtree: true });

  // Runs before material's own handler (capture phase), which would drop the section.
  document.addEventListener("click", function (ev) {
    var link = ev.target.closest && ev.target.closest(".md-version__link, .fg-other-releases a");
    if (!link || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    var version = link.getAttribute("data-version") || versionOf(link.href);
    if (!version) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    remember(version);
    go(version, link.hash || undefined);
  }, true);

  fetch(new URL("versions.json", root).href).then(function (r) { return r.ok ? r.json() : []; }).then(function (versions) {
    var others = versions.filter(function (v) { return v.version !== current && (v.aliases || []).indexOf(current) < 0; });
    if (!others.length) return;
    document.querySelectorAll(".fg-snippet[id]").forEach(function (block) {
      var details = document.createElement("details");
      details.className = "fg-other-releases";
      var summary = document.createElement("summary");
      summary.textContent = "This output on other torch releases";
      details.appendChild(summary);
      var list = document.createElement("ul");
      others.forEach(function (v) {
        var item = document.createElement("li");
        var a = document.createElement("a");
        a.href = samePlace(v.version, "#" + block.id).href;
        a.setAttribute("data-version", v.version);
        a.textContent = v.title;
        item.appendChild(a);
        list.appendChild(item);
      });
      details.appendChild(list);
      block.appendChild(details);
    });
    linkMatrix(versions);
  }, function () { /* a single build: no other releases */ });

  function linkMatrix(versions) {
    var cells = document.querySelectorAll('.fg-matrix td a[href*="outputs/torch-"]');
    if (!cells.length) return;
    var copies = {}, places = {};
    versions.forEach(function (v) { copies[v.version] = true; });
    cells.forEach(function (a) {
      var m = new URL(a.href).pathname.match(/outputs\/torch-([^/]+)\/(.+)\.txt$/);
      if (!m || !copies[m[1]]) return;
      var release = m[1], key = decodeURIComponent(m[2]);
      places[release] = places[release] || fetch(new URL(release + "/snippet-places.json", root).href)
        .then(function (r) { return r.ok ? r.json() : {}; }, function () { return {}; });
      places[release].then(function (where) {
        if (!where[key]) return;
        var link = document.createElement("a");
        link.className = "fg-on-page";
        link.href = new URL(release + "/" + where[key], root).href;
        link.setAttribute("data-version", release);
        link.setAttribute("aria-label", "torch " + release + ": " + key + " on its page");
        link.title = "on torch " + release + "'s copy of the guide";
        link.textContent = "↗";
        a.after(" ", link);
      });
    });
  }
})();
