// "Paste your log": match each pasted line against the patterns this build measured (messages page).
// Everything happens in this page: no request is made, so it works offline and from disk.
(function () {
  "use strict";
  // The two logger prefixes torch prints (fieldguide/logs.py): torch >= 2.3 and torch 2.2.
  var PREFIX_NEW = /^[VIWEDCF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+[^\]\s]+:\d+\]\s?(?:\[[^\]]*\d[^\]]*\]\s?)?(?:\[__\w+\]\s?)?/;
  var PREFIX_OLD = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[,.]\d+\]\s(?:\[[^\]]*\]\s)?[\w.]+:\s\[[A-Z]+\]\s?/;
  var PY_WARNING = /^\S.*:\d+: \w*Warning: /;
  var TRACE = /^(?:User stack trace:|File ".*", line \d+)/;
  // A guard dump (TORCH_LOGS=guards): its header, tree lines (torch >= 2.4) and flat lines (2.2-2.3).
  var DUMP_HEAD = /^(?:GUARDS:|TREE_GUARD_MANAGER:|Guard eval latency)/;
  var DUMP_TREE = /^[| ]*\+- /;

  function stripPrefix(line) {
    return line.replace(PREFIX_NEW, "").replace(PREFIX_OLD, "").replace(PY_WARNING, "");
  }

  // The same as fieldguide.messages.message_text.
  function messageText(line) {
    var text = line.trim().replace(/^-\s+(?:\d+\/\d+:\s+)?/, "").replace(/\s{2,}#\s.*$/, "").trim();
    return text.replace(/^(last reason: )\d+\/\d+: /, "$1");
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text) node.textContent = text;
    return node;
  }

  function init() {
    var source = document.getElementById("message-patterns");
    var input = document.getElementById("fg-log");
    if (!source || !input) return;
    var data = JSON.parse(source.textContent);
    var patterns = data.patterns.map(function (p) {
      var head = p.pattern.split(/<(?:id|n|name|file|expr|value|state)>/)[0];
      return { p: p, re: new RegExp(p.re), head: head.length >= 16 ? head : "" };
    });
    var list = document.getElementById("fg-lines");
    var summary = document.getElementById("fg-summary");

    function find(text) {
      for (var i = 0; i < patterns.length; i++) if (patterns[i].re.test(text)) return { how: "exact", p: patterns[i].p };
      for (var j = 0; j < patterns.length; j++) {
        if (patterns[j].head && text.indexOf(patterns[j].head) === 0) return { how: "similar", p: patterns[j].p };
      }
      return null;
    }

    function note(found) {
      var p = found.p, kind = data.kinds[p.kind];
      var box = el("div", { "class": "fg-note" });
      var head = el("p");
      head.appendChild(el("strong", {}, kind.title + (found.how === "similar" ? " (a similar message)" : "")));
      head.appendChild(document.createTextNode(" " + kind.text));
      box.appendChild(head);
      var where = el("p");
      if (p.sections.length) {
        where.appendChild(document.createTextNode("Explained in "));
        p.sections.forEach(function (s, i) {
          if (i) where.appendChild(document.createTextNode(", "));
          where.appendChild(el("a", { href: s.href, "class": "fg-section" }, s.title));
        });
        where.appendChild(document.createTextNode(". "));
      }
      where.appendChild(document.createTextNode("Printed in this guide by "));
      p.snippets.forEach(function (s, i) {
        if (i) where.appendChild(document.createTextNode(", "));
        var a = el("a", { href: s.href });
        a.appendChild(el("code", {}, s.path.replace(/^snippets\//, "")));
        where.appendChild(a);
      });
      where.appendChild(document.createTextNode(" (torch " + p.releases + "). "));
      where.appendChild(el("a", { href: "#" + p.id }, "Its pattern"));
      box.appendChild(where);
      return box;
    }

    function explain() {
      list.textContent = "";
      var lines = input.value.split(/\r?\n/), total = 0, matched = 0, inTrace = false, inDump = false;
      lines.forEach(function (raw) {
        var line = stripPrefix(raw).replace(/\s+$/, "");
        if (!line.trim()) return;
        var text = messageText(line);
        var item = el("li");
        item.appendChild(el("code", { "class": "fg-line" }, line));
        if (!/^-\s/.test(line.trim())) inTrace = false;
        if (TRACE.test(text) || (inTrace && /^-\s/.test(line.trim()))) {
          inTrace = true;
          item.setAttribute("data-match", "trace");
          item.appendChild(el("div", { "class": "fg-note fg-quiet" }, "The user code behind the guard above (a stack trace)."));
          list.appendChild(item);
          return;
        }
        if (DUMP_HEAD.test(text)) inDump = true;
        if (inDump && (DUMP_HEAD.test(text) || DUMP_TREE.test(line) || !/^(?:Recompiling function|-\s|torch\._dynamo hit)/.test(line.trim()))) {
          item.setAttribute("data-match", "dump");
          var box = el("div", { "class": "fg-note fg-quiet" });
          box.appendChild(document.createTextNode("Part of a guard dump (TORCH_LOGS=guards): the checks one compiled entry runs on every call. "));
          data.dumps.forEach(function (s, i) {
            box.appendChild(document.createTextNode(i ? ", " : "Read one in "));
            box.appendChild(el("a", { href: s.href, "class": "fg-section" }, s.title));
          });
          if (data.dumps.length) box.appendChild(document.createTextNode("."));
          item.appendChild(box);
          list.appendChild(item);
          return;
        }
        inDump = false;
        total += 1;
        var found = find(text);
        if (found) {
          matched += 1;
          item.setAttribute("data-match", found.how);
          item.setAttribute("data-kind", found.p.kind);
          item.setAttribute("data-role", found.p.role);
          item.appendChild(note(found));
        } else {
          item.setAttribute("data-match", "none");
          item.appendChild(el("div", { "class": "fg-note fg-quiet" }, "No message this guide measured looks like this line."));
        }
        list.appendChild(item);
      });
      summary.textContent = total ? matched + " of " + total + " lines recognised." : "Paste a log above first.";
    }

    document.getElementById("fg-explain").addEventListener("click", explain);
    document.getElementById("fg-clear").addEventListener("click", function () {
      input.value = "";
      list.textContent = "";
      summary.textContent = "";
      input.focus();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
