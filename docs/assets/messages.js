// "Paste your log": match each pasted line against the patterns this build measured (messages page).
// Everything happens in this page: no request is made, so it works offline and from disk.
(function () {
  "use strict";
  // The two logger prefixes torch prints (fieldguide/run/logs.py): torch >= 2.3 and torch 2.2. Group 1 is the
  // artifact (guards, recompiles, ...) or the logger's name.
  var PREFIX_NEW = /^[VIWEDCF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+[^\]\s]+:\d+\]\s?(?:\[[^\]]*\d[^\]]*\]\s?)?(?:\[__(\w+)\]\s?)?/;
  var PREFIX_OLD = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[,.]\d+\]\s(?:\[[^\]]*\]\s)?([\w.]+):\s\[[A-Z]+\]\s?/;
  var PY_WARNING = /^\S.*:\d+: \w*Warning: /;
  var TRACE = /^(?:User stack trace:|File ".*", line \d+)/;
  var FRAME = /^(\s*)File ".*", line \d+/;
  // A guard dump (TORCH_LOGS=guards): its headers, tree lines (torch >= 2.4), flat lines (2.2-2.3), and
  // the shape guard function some entries print before it.
  var DUMP_HEAD = /^(?:GUARDS:|TREE_GUARD_MANAGER:|Guard eval latency|Python shape guard function:)/;
  var DUMP_TREE = /^[| ]*\+- /;
  var DUMP_LINE = /^(?:def ___make_guard_fn|\s|___|[LG]\[|\(|not |hasattr\(|isinstance\(|check_tensor\(|utils_device\.|len\(|.*\s#\s)/;

  // One pasted line: its text without logger prefix, and whether it had one (and from the guards channel).
  function parseLine(line) {
    var m = PREFIX_NEW.exec(line), guards = false, prefixed = "", warning = PY_WARNING.test(line);
    if (m) { prefixed = "new"; guards = m[1] === "guards"; line = line.slice(m[0].length); }
    else if ((m = PREFIX_OLD.exec(line))) { prefixed = "old"; guards = /\.__guards$/.test(m[1]); line = line.slice(m[0].length); }
    return { text: line.replace(PY_WARNING, ""), prefixed: prefixed, guards: guards, warning: warning };
  }

  // The same as fieldguide.guide.messages.message_text.
  function messageText(line) {
    var text = line.trim().replace(/^-\s+(?:\d+\/\d+:(?:\s+|$))?/, "").replace(/\s{2,}(?:#\s|\(HINT: ).*$/, "").trim();
    return text.replace(/^(last reason: )\d+\/\d+: /, "$1");
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text) node.textContent = text;
    return node;
  }

  // A kind's text is the page's Markdown (docs/messages.md): `code` spans become <code>, the rest is text.
  function inline(node, text) {
    text.split("`").forEach(function (part, i) {
      if (i % 2) node.appendChild(el("code", {}, part));
      else if (part) node.appendChild(document.createTextNode(part));
    });
  }

  function init() {
    var source = document.getElementById("message-patterns");
    var input = document.getElementById("fg-log");
    if (!source || !input) return;
    var data = JSON.parse(source.textContent);
    var placeholder = new RegExp("<(?:" + data.placeholders.join("|") + ")>");
    // data.patterns is in matching order (fieldguide.guide.messages.data): the first pattern that matches wins.
    var patterns = data.patterns.map(function (p) {
      var head = p.pattern.split(placeholder)[0];
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
      head.appendChild(document.createTextNode(" "));
      inline(head, kind.text);
      box.appendChild(head);
      if (p.part_of) {
        var part = el("p");
        part.appendChild(document.createTextNode("A line of a longer message, the one that starts "));
        part.appendChild(el("code", {}, p.part_of));
        part.appendChild(document.createTextNode("."));
        box.appendChild(part);
      }
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

    function quiet(item, match, text) {
      item.setAttribute("data-match", match);
      var box = el("div", { "class": "fg-note fg-quiet" }, text);
      item.appendChild(box);
      return box;
    }

    function explain() {
      list.textContent = "";
      var parsed = input.value.split(/\r?\n/).map(parseLine).filter(function (l) { return l.text.trim(); });
      var anyPrefix = parsed.some(function (l) { return l.prefixed; });
      // torch >= 2.3 prefixes every line of a record; 2.2 may leave a record's later lines bare
      var newPrefix = parsed.some(function (l) { return l.prefixed === "new"; });
      var total = 0, matched = 0, dumped = 0, inTrace = false, inDump = false, frameIndent = -1, lastGuards = false;
      parsed.forEach(function (pl) {
        var line = pl.text.replace(/\s+$/, "");
        var text = messageText(line);
        var indent = line.length - line.replace(/^\s+/, "").length;
        var item = el("li");
        item.appendChild(el("code", { "class": "fg-line" }, line));
        list.appendChild(item);
        // A guard dump: with logger prefixes, the lines of the guards channel (an unprefixed line after
        // them is your program's output); without prefixes, from a dump header on, the lines shaped like one.
        var dump = anyPrefix ? pl.guards : (DUMP_HEAD.test(text) || (inDump && (DUMP_TREE.test(line) || DUMP_LINE.test(line))));
        var output = anyPrefix && !pl.prefixed && !pl.warning && (newPrefix || lastGuards);  // a dump's lines all carry it
        if (pl.prefixed) lastGuards = pl.guards;
        inDump = dump;
        if (output) {
          quiet(item, "output", "Not a torch log line (it has no logger prefix): your program's own output, most likely.");
          return;
        }
        if (dump) {
          dumped += 1;
          var box = quiet(item, "dump", "Part of a guard dump (TORCH_LOGS=guards): the checks of one compiled entry, which a call must pass to use it. ");
          data.dumps.forEach(function (s, i) {
            box.appendChild(document.createTextNode(i ? ", " : "Read one in "));
            box.appendChild(el("a", { href: s.href, "class": "fg-section" }, s.title));
          });
          if (data.dumps.length) box.appendChild(document.createTextNode("."));
          return;
        }
        if (frameIndent >= 0 && indent > frameIndent && !/^-\s/.test(line.trim())) {
          quiet(item, "trace", "A line of your code, under the stack frame above.");
          return;
        }
        frameIndent = -1;
        // a stack trace in a recompile log: "- User stack trace:", then "-   File ..." and "-     source" lines
        if (!/^-\s{2,}/.test(line.trim())) inTrace = false;
        if (TRACE.test(text) || (inTrace && /^-\s{2,}/.test(line.trim()))) {
          inTrace = true;
          var frame = FRAME.exec(line);
          if (frame) frameIndent = frame[1].length;
          quiet(item, "trace", "The user code behind the message above (a stack trace).");
          return;
        }
        if (/^[~^\s]+$/.test(text)) {
          quiet(item, "trace", "Marks the code torch points to in the line above.");
          return;
        }
        if (!text && /^-\s+\d+\/\d+:$/.test(line.trim())) {
          quiet(item, "empty", "A guard failure of the entry numbered, printed without a reason.");
          return;
        }
        total += 1;
        var found = find(text);
        if (found) {
          matched += 1;
          item.setAttribute("data-match", found.how);
          item.setAttribute("data-kind", found.p.kind);
          item.setAttribute("data-role", found.p.role);
          item.setAttribute("data-pattern", found.p.id);
          item.appendChild(note(found));
        } else {
          quiet(item, "none", "No message this guide measured looks like this line.");
        }
      });
      var dumpText = dumped ? "a guard dump of " + dumped + " line" + (dumped > 1 ? "s" : "") + " (TORCH_LOGS=guards)" : "";
      if (total) summary.textContent = matched + " of " + total + " lines recognised" + (dumped ? ", and " + dumpText : "") + ".";
      else if (dumped) summary.textContent = "This is " + dumpText + ": the guards each compiled entry checks, no recompile message.";
      else summary.textContent = "Paste a log above first.";
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
