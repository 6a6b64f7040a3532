/* Calling the arbiter from the table's page (issue 34).
 * A call goes to a queue kept on the phone (localStorage) first, with the phone's time, its
 * Idempotency-Key and its own id ("ref"), and is sent from there: without a connection it
 * stays on the phone and goes when the connection returns; a resend never makes two calls.
 * Who calls proves it like any write here: the phone bound to him, or his name and code.
 * The table's calls, their state and the ruling come with the table's state (table.js sends
 * it in a "table:state" event each time it changes). Never a hand on this page. */
(function () {
  "use strict";
  var root = document.getElementById("table-page");
  var form = document.getElementById("call-form");
  if (!root || !form) return;
  var T = JSON.parse(document.getElementById("call-i18n").textContent);
  var state = JSON.parse(document.getElementById("table-state").textContent);
  var secret = root.dataset.secret;
  var url = root.dataset.save + "call/";
  var QUEUE = "tarot-table-calls:" + secret;
  var sending = false;

  function $(id) { return document.getElementById(id); }
  function fmt(s, n) { return s.replace("%(n)s", n); }
  function key() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.prototype.map.call(b, function (x) { return ("0" + x.toString(16)).slice(-2); }).join("");
  }
  function load() {
    try { return JSON.parse(localStorage.getItem(QUEUE) || "[]"); } catch (e) { return []; }
  }
  function save(q) {
    try { localStorage.setItem(QUEUE, JSON.stringify(q)); } catch (e) { /* full or off */ }
    showQueue(q);
  }
  function showQueue(q) {
    $("call-queue").hidden = !q.length;
    $("call-queue").textContent = fmt(T.queue, q.length);
  }
  // The phone bound to a player of this table at this page (table.js keeps it), or null.
  function binding() {
    var b = null;
    try { b = JSON.parse(localStorage.getItem("tarot-table-binding:" + state.tournament_id) || "null"); } catch (e) { b = null; }
    if (!b || !b.token || b.secret !== secret) return null;
    for (var i = 0; i < state.players.length; i++) if (state.players[i].id === b.player) return b;
    return null;
  }
  function phoneId() {
    try { return localStorage.getItem("tarot-table-phone") || ""; } catch (e) { return ""; }
  }
  function showWho() {
    var b = binding();
    $("call-who").hidden = Boolean(b);
    $("call-bound").hidden = !b;
    if (b) $("call-bound").textContent = fmt(T.bound, b.name);
  }
  function showErrors(errors) {
    form.querySelectorAll("[data-errors]").forEach(function (p) {
      var list = errors[p.dataset.errors] || [];
      p.textContent = list.join(" ");
    });
  }
  function renderCalls(calls) {
    var ul = $("call-list");
    ul.textContent = "";
    (calls || []).forEach(function (c) {
      var li = document.createElement("li");
      li.dataset.call = c.id;
      li.dataset.state = c.state;
      var text = fmt(T.donne, c.donne) + (c.trick ? " (" + fmt(T.trick, c.trick) + ")" : "") +
        " — " + c.irregularity_label + " · " + c.state_label;
      if (c.ruling) {
        var ruling = c.ruling_label;
        if (c.penalty) ruling += " (" + c.penalty.player + ", " + c.penalty.points + ")";
        if (c.ruling_note) ruling += " — « " + c.ruling_note + " »";
        text += ". " + fmt(T.ruling, ruling);
      }
      li.textContent = text;
      ul.appendChild(li);
    });
  }
  function post(item) {
    var headers = { "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json", "Idempotency-Key": item.key };
    return fetch(url, { method: "POST", headers: headers, body: item.body, credentials: "omit" }).then(function (r) {
      return r.json().then(function (data) { return { status: r.status, data: data }; });
    });
  }
  // Sends the queue, oldest first; stops at the first network failure (still offline).
  function flush() {
    if (sending) return Promise.resolve();
    var q = load();
    if (!q.length || !navigator.onLine) return Promise.resolve();
    sending = true;
    var item = q[0];
    return post(item).then(function (res) {
      save(load().filter(function (i) { return i.key !== item.key; }));
      if (res.status === 200) {
        renderCalls(res.data.calls);
        $("call-queue").hidden = load().length === 0;
        say(res.data.call.joined ? T.joined : T.sent);
      } else {
        var errors = (res.data && res.data.errors) || { __all__: [T.error] };
        showErrors(errors);
        $("call-open").open = true;
        // Refused: what was typed comes back into the form, to be put right and sent again.
        restore(item.body);
      }
      sending = false;
      return flush();
    }).catch(function () { sending = false; });
  }
  function say(text) {
    var box = $("announce");
    if (box) { box.textContent = ""; setTimeout(function () { box.textContent = text; }, 50); }
    var status = $("call-queue");
    status.hidden = false;
    status.textContent = text;
  }
  function restore(body) {
    var data = new URLSearchParams(body);
    ["donne", "trick", "note", "player"].forEach(function (n) {
      if (form.elements[n] && data.has(n)) form.elements[n].value = data.get(n);
    });
    var kind = form.querySelector('input[name="irregularity"][value="' + data.get("irregularity") + '"]');
    if (kind) kind.checked = true;
  }
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    if (!form.querySelector('input[name="irregularity"]:checked')) {
      showErrors({ irregularity: [T.choose] });
      return;
    }
    showErrors({});
    var data = new URLSearchParams(new FormData(form));
    var b = binding();
    if (b) { data.delete("player"); data.delete("code"); data.set("binding", b.token); }
    data.set("phone", phoneId());
    data.set("phone_time", String(Date.now()));
    data.set("ref", key());
    var q = load();
    q.push({ key: key(), body: data.toString(), at: Date.now() });
    save(q);
    form.reset();
    $("call-open").open = false;
    if (!navigator.onLine) { say(T.queued); return; }
    flush();
  });
  document.addEventListener("table:state", function (e) {
    state = e.detail;
    renderCalls(state.calls);
    showWho();
    showQueue(load()); // "the arbiter is called" gives way to the call's state in the list
  });
  window.addEventListener("online", flush);
  setInterval(flush, 5000);
  // The donne on screen is the one a call is about, unless the player chooses another.
  function current() {
    var tab = document.querySelector("#donne-tabs .tab.current");
    if (tab) $("call-donne").value = tab.dataset.donne;
    showWho();
  }
  $("call-button").addEventListener("click", current);
  // The header's link: straight to the open form, on the donne on screen.
  $("call-jump").addEventListener("click", function () {
    current();
    $("call-open").open = true;
  });
  renderCalls(state.calls);
  showWho();
  showQueue(load());
  flush();
})();
