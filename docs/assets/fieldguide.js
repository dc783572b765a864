// Site-wide touches, shipped with the site (no external scripts).
(function () {
  "use strict";
  // Material's search overlay is a dialog without a name; give it one for assistive technology.
  document.querySelectorAll('.md-search[role="dialog"]').forEach(function (dialog) {
    if (!dialog.getAttribute("aria-label")) dialog.setAttribute("aria-label", "Search");
  });
})();
