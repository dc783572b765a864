// The site's search worker: material's own (lunr, offline), loaded as it is, with its results
// ranked for a reader who types a name or a message. overrides/main.html points material at this
// file, passing the address of material's worker (relative to this file) as ?worker=.
//  - A section whose text holds the whole query (`inference_mode`, `cache_size_limit`, a message's
//    words) comes before one that only matches its parts: the query is split at `_` and `.` and
//    each part matches as a prefix, so "mode" alone would match "model". Among those, a section
//    naming it in its title, then in its prose (not only in code), comes first; within a page that
//    section leads, above the page's top, instead of being folded under "more on this page".
//  - An excerpt is a few lines around the first match, code blocks and tables included as
//    running text, so that more than one or two results fit on a screen.
(function () {
  "use strict";
  var workerPath = new URLSearchParams(self.location.search).get("worker");
  var docs = {};  // location -> {title, prose, all}: lower-cased plain text
  var handlers = [];
  var listen = self.addEventListener.bind(self);
  var post = self.postMessage.bind(self);

  function plain(html) {
    return String(html || "").replace(/<[^>]+>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&").replace(/\s+/g, " ").toLowerCase();
  }

  function remember(setup) {
    (setup.docs || []).forEach(function (doc) {
      var text = String(doc.text || "");
      docs[doc.location] = {
        title: plain(doc.title),
        prose: plain(text.replace(/<pre>[\s\S]*?<\/pre>/g, " ")),
        all: plain(text),
        boost: +doc.boost || 1  // a chapter's pages weigh more (the plugin's CHAPTER_SEARCH_BOOST)
      };
    });
  }

  function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  // How well a document holds the whole query: 3 in its title, 2 in its prose, 1 only in code, 0 not at all.
  function holds(location, phrase) {
    var doc = docs[location];
    if (!doc || !phrase) return 0;
    if (phrase.test(doc.title)) return 3;
    if (phrase.test(doc.prose)) return 2;
    return phrase.test(doc.all) ? 1 : 0;
  }

  // A short excerpt around the first match: the text's runs (code or not, matched or not) from a
  // little before the first <mark> to a few lines after it, code blocks inline as code.
  var BEFORE = 60, LENGTH = 260;
  function excerpt(html) {
    var runs = [], code = 0, mark = 0;
    String(html || "").split(/(<[^>]+>)/).forEach(function (part) {
      var tag = /^<(\/?)(\w+)/.exec(part);
      if (tag) {
        var step = tag[1] ? -1 : 1;
        if (tag[2] === "code" || tag[2] === "pre") code = Math.max(0, code + step);
        else if (tag[2] === "mark") mark = Math.max(0, mark + step);
        else if (/^(p|li|ul|ol)$/.test(tag[2])) runs.push({ text: " ", code: false, mark: false });
        return;
      }
      if (part) runs.push({ text: part.replace(/\s+/g, " "), code: code > 0, mark: mark > 0 });
    });
    var first = runs.findIndex(function (r) { return r.mark; });
    var from = 0, skipped = false;
    if (first > 0) {
      var room = BEFORE;
      for (from = first; from > 0 && room > 0; from--) room -= runs[from - 1].text.length;
      if (from > 0 || room < 0) {
        skipped = true;
        var head = runs[from].text;
        if (room < 0 && head.length > -room) runs[from] = { text: head.slice(-room).replace(/^\S*\s?/, ""), code: runs[from].code, mark: false };
      }
    }
    var out = skipped ? "… " : "", used = 0, inCode = false;
    for (var i = from; i < runs.length && used < LENGTH; i++) {
      var text = runs[i].text, cut = false;
      if (!runs[i].mark && used + text.length > LENGTH) {
        text = text.slice(0, LENGTH - used).replace(/\s?\S*$/, "");
        cut = true;
      }
      used += text.length;
      if (runs[i].code !== inCode && (text.trim() || !runs[i].code)) {
        out += inCode ? "</code>" : "<code>";
        inCode = !inCode;
      }
      out += runs[i].mark ? "<mark>" + text + "</mark>" : text;
      if (cut) break;
    }
    out += (inCode ? "</code>" : "") + (used >= LENGTH ? " …" : "");
    return "<p>" + out.replace(/\s+/g, " ").trim() + "</p>";
  }

  function rank(query, result) {
    var words = String(query || "").replace(/["+\-~^*]/g, " ").trim().toLowerCase().replace(/\s+/g, " ");
    // the whole query, not inside a longer word: "size_limit" is in cache_size_limit, "mode" is not in "model"
    var phrase = words.length >= 3 ? new RegExp("(^|[^a-z0-9])" + escapeRe(words) + "(?![a-z0-9])") : null;
    var groups = (result.items || []).map(function (items) {
      items.forEach(function (item) {
        item.fgHolds = holds(item.location, phrase);
        if (typeof item.text === "string") item.text = excerpt(item.text);
      });
      items.sort(function (a, b) { return b.fgHolds - a.fgHolds || b.score - a.score; });
      // material's list shows a page's sections scoring at least its first item's score, and folds the rest
      var top = items[0];
      if (top && top.fgHolds > 0) {
        items.forEach(function (item) {
          if (item !== top && item.score >= top.score && item.fgHolds < top.fgHolds) item.score = top.score * 0.999;
        });
      }
      return items;
    });
    // pages whose text holds the query first, a chapter before the other pages, then as material ranks them
    function key(items) {
      var top = items[0] || { fgHolds: 0, score: 0 }, doc = docs[top.location] || { boost: 1 };
      return [top.fgHolds > 0 ? 1 : 0, top.fgHolds > 0 ? doc.boost : 0, top.fgHolds, top.score];
    }
    groups.sort(function (a, b) {
      var x = key(a), y = key(b);
      for (var i = 0; i < x.length; i++) if (x[i] !== y[i]) return y[i] - x[i];
      return 0;
    });
    result.items = groups;
    return result;
  }

  var pending = [];  // queries, in order: material answers each before the next (one worker, in order)
  self.addEventListener = function (type, fn, options) {
    if (type === "message") handlers.push(fn);
    else listen(type, fn, options);
  };
  self.postMessage = function (message) {
    if (message && message.type === 3 && message.data) message.data = rank(pending.shift(), message.data);
    post(message);
  };
  listen("message", function (ev) {
    var message = ev.data;
    if (message && message.type === 0 && message.data) remember(message.data);
    if (message && message.type === 2) pending.push(message.data);
    handlers.forEach(function (fn) { fn(ev); });
  });
  self.importScripts(new URL(workerPath, self.location.href).href);
})();
