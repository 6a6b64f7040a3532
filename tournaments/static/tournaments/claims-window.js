/* The claims window's line, kept up to date (issue 34 §4): "provisional until HH:MM", then
 * "claims closed" when that time passes with a claim still open, then "final since HH:MM"
 * when the ranking becomes final (the task, the sweep, the last claim settled, or the
 * organiser closing early). Every line marked data-claims-live asks its URL with the stamp
 * it shows (tournaments.views.claims.claims_window_line): a 204 changes nothing, a 200 is
 * the new line, swapped in. It asks every EVERY ms, and once just after the closing time;
 * a final line asks no more. Once claims are no longer taken, the page's elements marked
 * data-claims-only (the links to the claim form) are hidden. Nothing here is about hands or
 * results: only the window's times. */
(function () {
  "use strict";

  var EVERY = 30000;
  var AFTER_CLOSE = 2000;

  function delay(line) {
    var closes = parseInt(line.dataset.closes || "", 10) * 1000;
    var wait = window.claimsWindowEvery || EVERY;  // a test may ask more often
    if (closes && !line.dataset.passed) {
      var untilClose = closes - Date.now() + AFTER_CLOSE;
      if (untilClose > 0 && untilClose < wait) wait = untilClose;
    }
    return wait + Math.floor(Math.random() * 1000);  // the room's phones not all at once
  }

  function swap(line, html) {
    var holder = document.createElement("template");
    holder.innerHTML = html.trim();
    var fresh = holder.content.firstElementChild;
    if (!fresh) return null;
    line.replaceWith(fresh);
    if (fresh.dataset.passed || fresh.dataset.claims === "final") {
      // claims are no longer taken: the page's links to the claim form go
      Array.prototype.forEach.call(document.querySelectorAll("[data-claims-only]"),
        function (link) { link.hidden = true; });
    }
    document.dispatchEvent(new CustomEvent("claims-window:changed", {
      detail: {state: fresh.dataset.claims || ""}
    }));
    return fresh;
  }

  function ask(line) {
    var url = line.dataset.claimsLive + "?stamp=" + encodeURIComponent(line.dataset.stamp || "");
    return fetch(url, {credentials: "same-origin", cache: "no-store",
                       headers: {"X-Requested-With": "fetch"}})
      .then(function (response) {
        if (response.status !== 200) return line;
        return response.text().then(function (html) { return swap(line, html) || line; });
      })
      .catch(function () { return line; });  // offline: ask again later
  }

  function follow(line) {
    if (!line || !line.dataset.claimsLive) return;  // final: nothing more will change
    window.setTimeout(function () {
      if (document.hidden) { follow(line); return; }
      ask(line).then(follow);
    }, delay(line));
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-claims-live]"), follow);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
