// The gym: guess-the-verdict drills. Plain JavaScript shipped with the site (no CDN, works offline).
// Each scenario's measured answer and its explanation travel encoded in its data-key attribute
// (see fieldguide/guide/gym.py: encode): decoded only when the reader answers. Answers persist in localStorage.
(function () {
  "use strict";
  var LABELS = { reuses: "reuses the entry", recompiles: "recompiles", "compiles new code": "compiles new code" };

  function load(storeKey) {
    try {
      var data = JSON.parse(window.localStorage.getItem(storeKey) || "{}");
      return data && typeof data === "object" ? data : {};
    } catch (e) {
      return {};
    }
  }

  function save(storeKey, answers) {
    try {
      window.localStorage.setItem(storeKey, JSON.stringify(answers));
    } catch (e) {
      /* storage may be disabled: the drill still works for this visit */
    }
  }

  function decode(blob, salt) {
    var raw = window.atob(blob), key = salt || "gym", bytes = new Uint8Array(raw.length);
    var keyBytes = new TextEncoder().encode(key);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i) ^ keyBytes[i % keyBytes.length];
    return JSON.parse(new TextDecoder("utf-8").decode(bytes));
  }

  function initDrill(drill) {
    var drillId = drill.getAttribute("data-drill");
    var decoded = {};
    var key = {
      get: function (section) {
        var id = section.getAttribute("data-scenario");
        if (!decoded[id]) decoded[id] = decode(section.getAttribute("data-key"), drillId + "/" + id);
        return decoded[id];
      }
    };
    // one key per torch release: each release's copy of the site has its own answer key, so answers
    // given on one release's gym must not show up as answered (and scored) on another's, same origin
    var storeKey = "fieldguide-gym:" + (drill.getAttribute("data-torch") || "") + ":" + drillId;
    var answers = load(storeKey);
    var scenarios = Array.prototype.slice.call(drill.querySelectorAll(".gym-scenario"));
    var score = drill.querySelector(".gym-score");

    function reveal(section, choice, moveFocus) {
      var answer = key.get(section);
      var correct = answer.verdict === choice;
      section.classList.remove("gym-correct", "gym-wrong");
      section.classList.add(correct ? "gym-correct" : "gym-wrong");
      section.querySelectorAll(".gym-choice").forEach(function (button) {
        button.disabled = true;
        button.setAttribute("aria-pressed", String(button.getAttribute("data-choice") === choice));
      });
      var panel = section.querySelector(".gym-reveal");
      panel.querySelector(".gym-explain").innerHTML = answer.html;  // built by the site's own build, escaped there
      panel.querySelector(".gym-result").textContent =
        (correct ? "Correct. " : "Not this time. ") + "You said it " + LABELS[choice] + ".";
      panel.hidden = false;
      if (moveFocus) panel.focus();
    }

    function conceal(section) {
      section.classList.remove("gym-correct", "gym-wrong");
      section.querySelectorAll(".gym-choice").forEach(function (button) {
        button.disabled = false;
        button.removeAttribute("aria-pressed");
      });
      var panel = section.querySelector(".gym-reveal");
      panel.hidden = true;
      panel.querySelector(".gym-explain").textContent = "";
    }

    function updateScore() {
      var answered = 0, right = 0;
      scenarios.forEach(function (section) {
        var id = section.getAttribute("data-scenario");
        if (answers[id]) {
          answered += 1;
          if (key.get(section).verdict === answers[id]) right += 1;
        }
      });
      score.textContent = "Score: " + right + " correct of " + answered + " answered (" + scenarios.length + " scenarios)";
      score.setAttribute("data-right", String(right));
      score.setAttribute("data-answered", String(answered));
    }

    scenarios.forEach(function (section) {
      var id = section.getAttribute("data-scenario");
      section.querySelectorAll(".gym-choice").forEach(function (button) {
        button.addEventListener("click", function () {
          if (answers[id]) return;
          answers[id] = button.getAttribute("data-choice");
          save(storeKey, answers);
          reveal(section, answers[id], true);
          updateScore();
        });
      });
      if (answers[id] && LABELS[answers[id]]) reveal(section, answers[id], false);
    });

    drill.querySelector(".gym-reset").addEventListener("click", function () {
      answers = {};
      try {
        window.localStorage.removeItem(storeKey);
      } catch (e) {
        /* ignore */
      }
      scenarios.forEach(conceal);
      updateScore();
      var first = drill.querySelector(".gym-choice");
      if (first) first.focus();
    });
    updateScore();
  }

  // A keyboard reader reaches the first question unanswered in a few key presses: a second skip
  // link, after material's "Skip to content", leads to its heading (the next Tab reaches its choices).
  function skipLink() {
    var skip = document.querySelector(".md-skip");
    if (!skip) return;
    var link = document.createElement("a");
    link.className = "md-skip gym-skip";
    link.textContent = "Skip to the first unanswered question";
    function aim() {
      var open = document.querySelector(".gym-scenario:not(.gym-correct):not(.gym-wrong) h3[id]") ||
        document.querySelector(".gym-scenario h3[id]");
      if (open) link.href = "#" + open.id;
    }
    aim();
    link.addEventListener("focus", aim);
    skip.parentNode.insertBefore(link, skip.nextSibling);
  }

  function init() {
    document.querySelectorAll(".gym-drill").forEach(initDrill);
    if (document.querySelector(".gym-drill")) skipLink();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
