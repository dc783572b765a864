// "Paste your log": match each pasted line against the patterns this build measured (messages page).
// Everything happens in this page: no request is made, so it works offline and from disk.
(function () {
  "use strict";
  // The two logger prefixes torch prints (fieldguide/run/logs.py): torch >= 2.3 and torch 2.2, each after the
  // "[rank0]:" a distributed run puts first. Group 1 is the artifact (guards, recompiles, ...) or the logger's name.
  var PREFIX_NEW = /^(?:\[rank\d+\]:)?[VIWEDCF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+[^\]\s]+:\d+\]\s?(?:\[[^\]]*\d[^\]]*\]\s?)?(?:\[__(\w+)\]\s?)?/;
  var PREFIX_OLD = /^(?:\[rank\d+\]:)?\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[,.]\d+\]\s(?:\[[^\]]*\]\s)?([\w.]+):\s\[[A-Z]+\]\s?/;
  var LIMIT_HIT = /hit config\.\w*limit/;
  var LIMIT_CONTINUED = /^\s+(?:function: |last reason: )|^To (?:log|diagnose) /;
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

  // A kind's text is the page's Markdown (docs/messages.md): `code` spans become <code>, [links](href) links
  // (fieldguide.guide.messages.data made their targets links from this page), the rest is text.
  function inline(node, text) {
    text.split("`").forEach(function (part, i) {
      if (i % 2) { node.appendChild(el("code", {}, part)); return; }
      var link = /\[([^\]]+)\]\(([^)\s]+)\)/g, pos = 0, m;
      while ((m = link.exec(part))) {
        if (m.index > pos) node.appendChild(document.createTextNode(part.slice(pos, m.index)));
        node.appendChild(el("a", { href: m[2] }, m[1]));
        pos = m.index + m[0].length;
      }
      if (pos < part.length) node.appendChild(document.createTextNode(part.slice(pos)));
    });
  }

  // The words of a line no pattern or cause knows, without the program's names, numbers, ids and paths:
  // what to search for elsewhere.
  function searchWords(text) {
    var t = text.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, " ").replace(/\S*\/\S*/g, " ")
      .replace(/\b0x[0-9a-fA-F]+\b/g, " ").replace(/-?\b\d+(?:\.\d+)?(?:e[-+]?\d+)?\b/g, " ");
    var words = (t.match(/[A-Za-z_][\w.]*\w/g) || []).filter(function (w) { return w.length > 1; });
    return words.join(" ") || text;
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
    // what a line checks, in order: the first cause that matches gives the line its section
    var causes = data.causes.map(function (c) { return { c: c, re: new RegExp(c.re) }; });
    var list = document.getElementById("fg-lines");
    var summary = document.getElementById("fg-summary");

    // The same as fieldguide.guide.messages._read and explain: a measured pattern, else a cause, else a
    // pattern the line starts as; a limit warning's "last reason:" line is read as the guard it quotes.
    function read(text) {
      var exact = null, cause = null, i;
      for (i = 0; i < patterns.length && !exact; i++) if (patterns[i].re.test(text)) exact = patterns[i].p;
      for (i = 0; i < causes.length && !cause; i++) if (causes[i].re.test(text)) cause = causes[i].c;
      // a cause that would link the section the pattern links first adds nothing (the line keeps its row's links)
      if (exact && cause && exact.sections.length && exact.sections[0].href === cause.section.href) cause = null;
      if (exact) return { how: "exact", p: exact, cause: cause, kind: exact.kind };
      if (cause) return { how: "cause", p: null, cause: cause, kind: cause.kind };
      for (i = 0; i < patterns.length; i++) {
        if (patterns[i].head && text.indexOf(patterns[i].head) === 0) {
          return { how: "similar", p: patterns[i].p, cause: null, kind: patterns[i].p.kind };
        }
      }
      return null;
    }

    function explainText(text) {
      var last = /^last reason: (.+)$/.exec(text);
      var found = last ? read(last[1]) : null;
      if (found) found.lastReason = true;
      else if ((found = read(text))) found.lastReason = false;
      else return null;
      var links = found.cause ? [found.cause.section] : found.p.sections.slice();
      if (found.lastReason && data.limit) links.splice(1, 0, data.limit);
      var seen = {};
      found.sections = links.filter(function (s) { var dup = seen[s.href]; seen[s.href] = true; return !dup; }).slice(0, 3);
      return found;
    }

    var told = {};  // the kinds whose text an answer has shown: a later group of the kind names it only
    function note(found) {
      var p = found.p, kind = data.kinds[found.kind];
      var box = el("div", { "class": "fg-note" });
      var head = el("p");
      head.appendChild(el("strong", {}, kind.title + (found.how === "similar" ? " (a similar message)" : "")));
      head.appendChild(document.createTextNode(" "));
      if (told[found.kind]) head.appendChild(document.createTextNode("(as above)"));
      else inline(head, kind.text);
      told[found.kind] = true;
      box.appendChild(head);
      if (found.lastReason) {
        var last = el("p");
        last.appendChild(document.createTextNode("The "));
        last.appendChild(el("code", {}, "last reason:"));
        last.appendChild(document.createTextNode(" line of a warning of the kind "));
        last.appendChild(el("a", { href: "#kind-limit" }, data.kinds.limit ? data.kinds.limit.title : "limit"));
        last.appendChild(document.createTextNode(": read as the guard failure it quotes."));
        box.appendChild(last);
      } else if (p && p.part_of) {
        var part = el("p");
        part.appendChild(document.createTextNode("A line of a longer message, the one that starts "));
        part.appendChild(el("code", {}, p.part_of));
        part.appendChild(document.createTextNode("."));
        box.appendChild(part);
      }
      var where = el("p");
      if (found.sections.length) {
        where.appendChild(document.createTextNode("Explained in "));
        found.sections.forEach(function (s, i) {
          if (i) where.appendChild(document.createTextNode(", "));
          where.appendChild(el("a", { href: s.href, "class": "fg-section" }, s.title));
        });
        where.appendChild(document.createTextNode(". "));
      }
      if (p) {
        where.appendChild(document.createTextNode("Printed in this guide by "));
        p.snippets.forEach(function (s, i) {
          if (i) where.appendChild(document.createTextNode(", "));
          var a = el("a", { href: s.href });
          a.appendChild(el("code", {}, s.path.replace(/^snippets\//, "")));
          where.appendChild(a);
        });
        where.appendChild(document.createTextNode(" ("));
        where.appendChild(el("a", { href: "#" + p.id }, "its row"));
        where.appendChild(document.createTextNode(")."));
      }
      box.appendChild(where);
      return box;
    }

    function quiet(text) {
      return el("div", { "class": "fg-note fg-quiet" }, text);
    }

    // Lines are shown in groups: the lines read the same way (one pattern and cause, or one kind of quiet
    // line), at the place of the first of them, with the explanation once.
    var SHOWN = 3;  // lines of a group shown; the others are behind "N more"
    function render(groups) {
      groups.forEach(function (g) {
        var item = el("li", { "class": "fg-group" });
        Object.keys(g.attrs).forEach(function (k) { if (g.attrs[k]) item.setAttribute("data-" + k, g.attrs[k]); });
        item.setAttribute("data-lines", String(g.lines.length));
        var lines = el("ul", { "class": "fg-group-lines" }), more = null;
        g.lines.forEach(function (ln, i) {
          var li = el("li", { "data-n": String(ln.n) });  // the line's place in the paste, and how it was read
          Object.keys(ln.attrs).forEach(function (k) { if (ln.attrs[k]) li.setAttribute("data-" + k, ln.attrs[k]); });
          li.appendChild(el("code", { "class": "fg-line", title: ln.line }, ln.line));
          if (i < SHOWN || g.lines.length === SHOWN + 1) { lines.appendChild(li); return; }
          if (!more) {
            more = el("details", { "class": "fg-more" });
            more.appendChild(el("summary", {}, (g.lines.length - SHOWN) + " more line" + (g.lines.length - SHOWN > 1 ? "s" : "") + " like these"));
            more.appendChild(el("ul", { "class": "fg-group-lines" }));
          }
          more.lastChild.appendChild(li);
        });
        item.appendChild(lines);
        if (more) item.appendChild(more);
        item.appendChild(g.box);
        list.appendChild(item);
      });
    }

    function explain() {
      list.textContent = "";
      told = {};
      var parsed = input.value.split(/\r?\n/).map(parseLine).filter(function (l) { return l.text.trim(); });
      var anyPrefix = parsed.some(function (l) { return l.prefixed; });
      // torch >= 2.3 prefixes every line of a record; 2.2 may leave a record's later lines bare
      var newPrefix = parsed.some(function (l) { return l.prefixed === "new"; });
      var total = 0, matched = 0, dumped = 0, inTrace = false, inDump = false, frameIndent = -1, lastGuards = false;
      var inLimit = false;
      var groups = [], byKey = {};
      var n = 0;
      function add(key, line, attrs, box) {
        var g = byKey[key];
        if (!g) {
          g = byKey[key] = { lines: [], attrs: attrs, box: typeof box === "function" ? box() : box };
          groups.push(g);
        }
        g.lines.push({ line: line, attrs: attrs, n: n++ });
      }
      function addQuiet(match, line, text) {
        add("quiet|" + match, line, { match: match }, function () { return quiet(text); });
      }
      parsed.forEach(function (pl) {
        var line = pl.text.replace(/\s+$/, "");
        var text = messageText(line);
        var indent = line.length - line.replace(/^\s+/, "").length;
        // A guard dump: with logger prefixes, the lines of the guards channel (an unprefixed line after
        // them is your program's output); without prefixes, from a dump header on, the lines shaped like one.
        var dump = anyPrefix ? pl.guards : (DUMP_HEAD.test(text) || (inDump && (DUMP_TREE.test(line) || DUMP_LINE.test(line))));
        // torch prints a limit warning as one record: its function:, last reason: and hint lines may follow bare
        var limitLine = !pl.prefixed && inLimit && LIMIT_CONTINUED.test(line);
        inLimit = pl.prefixed ? LIMIT_HIT.test(text) : limitLine;
        var output = anyPrefix && !pl.prefixed && !pl.warning && !limitLine && (newPrefix || lastGuards);  // a dump's lines all carry it
        if (output && /^\S*Error: /.test(text)) {  // an error torch raised (the fail_on_recompile one) is no print
          var error = explainText(text);
          output = !(error && error.kind === "stance");
        }
        if (pl.prefixed) lastGuards = pl.guards;
        inDump = dump;
        if (output) {
          addQuiet("output", line, "Not torch log lines (they have no logger prefix): your program's own output, most likely.");
          return;
        }
        if (dump) {
          dumped += 1;
          add("quiet|dump", line, { match: "dump" }, function () {
            var box = quiet("Part of a guard dump (TORCH_LOGS=guards): the checks of one compiled entry, which a call must pass to use it. ");
            data.dumps.forEach(function (s, i) {
              box.appendChild(document.createTextNode(i ? ", " : "Read one in "));
              box.appendChild(el("a", { href: s.href, "class": "fg-section" }, s.title));
            });
            if (data.dumps.length) box.appendChild(document.createTextNode("."));
            return box;
          });
          return;
        }
        if (frameIndent >= 0 && indent > frameIndent && !/^-\s/.test(line.trim())) {
          addQuiet("trace", line, "The user code behind a message (a stack trace): lines of your program, not messages.");
          return;
        }
        frameIndent = -1;
        // a stack trace in a recompile log: "- User stack trace:", then "-   File ..." and "-     source" lines
        if (!/^-\s{2,}/.test(line.trim())) inTrace = false;
        if (TRACE.test(text) || (inTrace && /^-\s{2,}/.test(line.trim()))) {
          inTrace = true;
          var frame = FRAME.exec(line);
          if (frame) frameIndent = frame[1].length;
          addQuiet("trace", line, "The user code behind a message (a stack trace): lines of your program, not messages.");
          return;
        }
        if (/^[~^\s]+$/.test(text)) {
          addQuiet("trace", line, "The user code behind a message (a stack trace): lines of your program, not messages.");
          return;
        }
        if (!text && /^-\s+\d+\/\d+:$/.test(line.trim())) {
          addQuiet("empty", line, "A guard failure of the entry numbered, printed without a reason.");
          return;
        }
        total += 1;
        var found = explainText(text);
        if (found) {
          matched += 1;
          var attrs = {
            match: found.how, kind: found.kind, pattern: found.p ? found.p.id : "",
            role: found.lastReason ? "warning" : found.p ? found.p.role : "",  // a last reason: a warning's line
            cause: found.cause ? found.cause.id : "", "last-reason": found.lastReason ? "true" : ""
          };
          // one group per answer: the lines of one kind read one way (cause, links) are one group, whatever
          // pattern each matched (a warning's lines, a recompile's header lines)
          var key = [found.how, found.kind, attrs.cause, attrs["last-reason"]].concat(
            found.sections.map(function (s) { return s.href; })).join("|");
          add(key, line, attrs, function () { return note(found); });
        } else {
          var words = searchWords(text);
          add("none|" + words, line, { match: "none" }, function () {
            var box = quiet("This guide has no section for this message. To look it up elsewhere (the PyTorch documentation, its issue tracker), search for its words without your names and numbers: ");
            box.appendChild(el("code", { "class": "fg-search" }, words));
            return box;
          });
        }
      });
      render(groups);
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
