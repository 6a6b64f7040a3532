/* The table's page: enter a donne's result, pass the phone, confirm with a code.
 * Entries go to an IndexedDB queue first, each with its Idempotency-Key, and are sent from
 * there: a dropped connection keeps them on the phone and a resend never doubles a result.
 * A conflict (the result changed meanwhile) is shown, never overwritten. The last state seen is
 * kept on the phone too: a page reopened offline (the service worker's copy, printed when it
 * was first loaded) shows the results saved since, not an older picture.
 * Who enters or confirms proves it: name and personal code, or a phone bound to him (the signed
 * token the first save with a code returns, kept per tournament in localStorage and sent, also
 * from the offline queue, instead of the code). */
(function () {
  "use strict";
  var root = document.getElementById("table-page");
  if (!root) return;
  var T = JSON.parse(document.getElementById("table-i18n").textContent);
  var state = JSON.parse(document.getElementById("table-state").textContent);
  var base = root.dataset.save;
  var secret = root.dataset.secret;
  var form = document.getElementById("entry-form");
  var confirmForm = document.getElementById("confirm-form");
  var current = null; // donne number on screen
  var pending = {}; // donne number -> queued entries count
  var sending = false;
  var db = null;
  var DB_NAME = "tarot-table", STORE = "queue";

  function $(id) { return document.getElementById(id); }
  function fmt(s, n) { return s.replace("%(n)s", n); }
  function key() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.prototype.map.call(b, function (x) { return ("0" + x.toString(16)).slice(-2); }).join("");
  }
  function donneOf(n) {
    for (var i = 0; i < state.donnes.length; i++) if (state.donnes[i].number === n) return state.donnes[i];
    return null;
  }
  // A score as the other pages write it: "+204", "\u221268" (the minus sign, U+2212).
  function signed(v) { return v > 0 ? "+" + v : String(v).replace("-", "\u2212"); }

  /* --- the last state seen, kept on the phone -------------------------------------------- */
  var STATE_KEY = "tarot-table-state:" + secret;
  // A result's version only grows (results are never deleted): per donne, the higher wins.
  function merge(older) {
    (older && older.donnes || []).forEach(function (o) {
      var d = donneOf(o.number);
      if (d && o.result && (!d.result || o.result.version > d.result.version)) d.result = o.result;
    });
  }
  function remember() {
    try { localStorage.setItem(STATE_KEY, JSON.stringify(state)); } catch (e) { /* full or off */ }
  }
  function recalled() {
    try { return JSON.parse(localStorage.getItem(STATE_KEY) || "null"); } catch (e) { return null; }
  }

  /* --- the phone bound to a player, per tournament --------------------------------------- */
  var BIND_KEY = "tarot-table-binding:" + state.tournament_id;
  function binding() {
    var b = null;
    try { b = JSON.parse(localStorage.getItem(BIND_KEY) || "null"); } catch (e) { b = null; }
    if (!b || !b.token) return null;
    // Bound to a player of another table this round: not usable here (hand it over).
    for (var i = 0; i < state.players.length; i++) if (state.players[i].id === b.player) return b;
    return null;
  }
  function bind(b) {
    try {
      if (b && b.tournament === state.tournament_id) localStorage.setItem(BIND_KEY, JSON.stringify(b));
      else if (!b) localStorage.removeItem(BIND_KEY);
    } catch (e) { /* full or off */ }
  }
  function showBinding() {
    var b = binding();
    $("bound").hidden = !b;
    $("who-enters").hidden = Boolean(b);
    $("entry-binding").disabled = !b;
    $("entry-binding").value = b ? b.token : "";
    ["player", "entry-code", "bind"].forEach(function (id) { $(id).disabled = Boolean(b); });
    if (b) {
      $("bound-who").textContent = fmt(T.bound_to, b.name);
      $("unbind").textContent = fmt(T.unbind, b.name);
    }
  }

  /* --- IndexedDB queue ------------------------------------------------------------------ */
  function openDb() {
    return new Promise(function (resolve) {
      if (!window.indexedDB) return resolve(null);
      var req = indexedDB.open(DB_NAME, 1);
      req.onupgradeneeded = function () {
        req.result.createObjectStore(STORE, { keyPath: "key" }).createIndex("secret", "secret");
      };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { resolve(null); };
    });
  }
  function tx(mode, fn) {
    return new Promise(function (resolve, reject) {
      var t = db.transaction(STORE, mode);
      var out = fn(t.objectStore(STORE));
      t.oncomplete = function () { resolve(out && out.result); };
      t.onerror = function () { reject(t.error); };
    });
  }
  function queued() {
    if (!db) return Promise.resolve(memQueue.slice());
    return tx("readonly", function (s) { return s.index("secret").getAll(secret); }).then(function (rows) {
      return (rows || []).sort(function (a, b) { return a.at - b.at; });
    });
  }
  var memQueue = [];
  function enqueue(item) {
    if (!db) { memQueue.push(item); return Promise.resolve(); }
    return tx("readwrite", function (s) { return s.put(item); });
  }
  function dequeue(k) {
    if (!db) { memQueue = memQueue.filter(function (i) { return i.key !== k; }); return Promise.resolve(); }
    return tx("readwrite", function (s) { return s.delete(k); });
  }

  /* --- network ---------------------------------------------------------------------------- */
  function post(url, body, idem) {
    var headers = { "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json" };
    if (idem) headers["Idempotency-Key"] = idem;
    return fetch(url, { method: "POST", headers: headers, body: body, credentials: "omit" }).then(function (r) {
      return r.json().then(function (data) { return { status: r.status, data: data }; });
    });
  }
  function showNet() {
    $("net").textContent = navigator.onLine ? T.online : T.offline;
    $("net").className = "net " + (navigator.onLine ? "on" : "off");
  }
  function showQueue() {
    return queued().then(function (rows) {
      var before = Boolean(pending[current]);
      pending = {};
      rows.forEach(function (r) { pending[r.donne] = (pending[r.donne] || 0) + 1; });
      var q = $("queue");
      q.hidden = rows.length === 0;
      q.textContent = fmt(rows.length === 1 ? T.queue_one : T.queue_many, rows.length);
      q.dataset.count = rows.length;
      if (before !== Boolean(pending[current])) render(); else renderTabs();
    });
  }
  function flush() {
    if (sending) return Promise.resolve();
    sending = true;
    return queued().then(function next(rows) {
      if (!rows.length) return null;
      var item = rows[0];
      return post(base + "donne/" + item.donne + "/save/", item.body, item.key).then(function (res) {
        return dequeue(item.key).then(function () {
          var d = donneOf(item.donne);
          if (res.status === 200) {
            d.result = res.data.result;
            if (res.data.binding) { bind(res.data.binding); showBinding(); }
          } else if (res.status === 409) {
            if (res.data.result) d.result = res.data.result;
            conflict(item.donne, res.data.errors);
          } else {
            d.failed = res.data.errors || { __all__: [T.error] };
            if (d.failed.binding) { bind(null); showBinding(); }
          }
          remember();
          return showQueue().then(function () {
            if (current === item.donne) render();
            return queued().then(next);
          });
        });
      });
    }).catch(function () { /* still offline: the queue stays */ }).then(function () {
      sending = false;
      return showQueue();
    });
  }
  function conflict(n, errors) {
    var li = document.createElement("li");
    li.textContent = fmt(T.conflict, n) + " — " + ((errors && errors.__all__) || []).join(" ");
    $("conflict-list").appendChild(li);
    $("conflicts").hidden = false;
  }
  function refresh() {
    return fetch(root.dataset.state, { credentials: "omit", cache: "no-store" }).then(function (r) {
      if (!r.ok) return;
      return r.json().then(function (s) {
        var known = state;
        state = s;
        merge(known);
        remember();
        render();
      });
    }).catch(function () {});
  }

  /* --- rendering -------------------------------------------------------------------------- */
  function renderTabs() {
    var nav = $("donne-tabs");
    nav.textContent = "";
    state.donnes.forEach(function (d) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "tab" + (d.number === current ? " current" : "");
      b.dataset.donne = d.number;
      if (d.number === current) b.setAttribute("aria-current", "true");
      var label = pending[d.number] ? T.queued : d.result ? d.result.entry_label : T.to_enter;
      b.innerHTML = "";
      var strong = document.createElement("strong");
      strong.textContent = fmt(T.donne, d.number);
      var small = document.createElement("small");
      small.textContent = label;
      b.appendChild(strong);
      b.appendChild(small);
      b.dataset.status = pending[d.number] ? "queued" : d.result ? d.result.entry_status : "missing";
      b.addEventListener("click", function () { show(d.number); });
      nav.appendChild(b);
    });
  }
  function scoreRows(table, scores, seats) {
    var body = table.tBodies[0];
    body.textContent = "";
    ["N", "E", "S", "W"].forEach(function (p) {
      var tr = document.createElement("tr");
      tr.dataset.position = p;
      var th = document.createElement("th");
      th.scope = "row";
      th.textContent = state.positions[p] + (seats[p] ? " · " + seats[p].name : "");
      var td = document.createElement("td");
      td.dataset.score = "";
      td.textContent = scores && p in scores ? signed(scores[p]) : "—";
      tr.appendChild(th);
      tr.appendChild(td);
      body.appendChild(tr);
    });
  }
  function clearErrors(scope) {
    scope.querySelectorAll("[data-errors]").forEach(function (e) { e.textContent = ""; });
  }
  function showErrors(scope, errors) {
    clearErrors(scope);
    Object.keys(errors || {}).forEach(function (k) {
      var el = scope.querySelector('[data-errors="' + k + '"]') || scope.querySelector('[data-errors="__all__"]');
      if (el) el.textContent += (el.textContent ? " " : "") + errors[k].join(" ");
    });
  }
  function setRadio(name, value) {
    form.querySelectorAll('input[name="' + name + '"]').forEach(function (i) { i.checked = i.value === (value || ""); });
  }
  function fill(r) {
    form.reset();
    form.elements.version.value = r ? r.version : "";
    var who = localStorage.getItem("tarot-table-player:" + secret);
    if (who) form.elements.player.value = who;
    showBinding();
    if (!r) { setRadio("petit_au_bout", ""); setRadio("chelem", ""); return; }
    setRadio("contract", r.status === "all_passed" ? "all_passed" : r.contract);
    setRadio("taker", r.taker);
    setRadio("bouts", r.bouts === null ? "" : String(r.bouts));
    form.elements.points.value = r.points || "";
    setRadio("petit_au_bout", r.petit_au_bout);
    setRadio("chelem", r.chelem);
    ["N", "E", "S", "W"].forEach(function (p) { setRadio("poignee_" + p, (r.poignees || {})[p] || ""); });
  }
  function render() {
    renderTabs();
    var d = donneOf(current);
    if (!d) return;
    $("entry-title").textContent = fmt(T.donne, d.number);
    $("sitter").hidden = !d.sitter;
    $("sitter").textContent = d.sitter ? fmt(T.sitter, d.sitter) : "";
    document.querySelectorAll("[data-seat]").forEach(function (s) {
      var seat = d.seats[s.dataset.seat];
      s.textContent = seat ? "· " + seat.name : "";
    });
    var r = d.result;
    var box = $("result-box");
    box.hidden = !r;
    var waiting = Boolean(pending[d.number]);
    $("entry-note").hidden = !waiting;
    $("entry-note").textContent = !waiting ? "" : navigator.onLine ? T.sending : T.saved_offline;
    var editing = !waiting && (!r || (!r.counts && form.dataset.editing === String(d.number)));
    form.hidden = !editing;
    if (r) {
      $("result-summary").textContent = r.summary;
      $("result-status").textContent = ((T.entry_labels || {})[r.entry_status] || r.entry_label) +
        (r.entry_status === "confirmed" && r.confirmed_by ? " " + fmt(T.confirmed_by, nameOf(r.confirmed_by)) : "");
      $("result-status").dataset.status = r.entry_status;
      scoreRows($("result-scores"), r.scores, d.seats);
      $("call-arbiter").hidden = ["needs_arbiter", "contested"].indexOf(r.entry_status) < 0;
      confirmForm.hidden = r.entry_status !== "awaiting";
      $("correct").hidden = r.counts || editing || waiting;
      if (!confirmForm.hidden) players(d, r);
      var b = binding();
      var mayConfirm = !confirmForm.hidden && b && confirmForm.querySelector('input[name="player"][value="' + b.player + '"]');
      $("confirm-as").hidden = !mayConfirm;
      if (mayConfirm) $("confirm-as").textContent = fmt(T.confirm_as, b.name);
    }
    if (editing) {
      if (form.dataset.filled !== String(d.number)) { fill(r); form.dataset.filled = String(d.number); }
      toggle();
      showErrors(form, d.failed || {});
      scoreRows($("preview"), null, d.seats);
      preview();
    }
  }
  function nameOf(id) {
    for (var i = 0; i < state.players.length; i++) if (state.players[i].id === id) return state.players[i].name;
    return "";
  }
  function players(d, r) {
    var box = $("confirm-players");
    var keep = (box.querySelector("input:checked") || {}).value;
    var mine = null; // the enterer's position: his camp cannot confirm
    Object.keys(d.seats).forEach(function (p) { if (d.seats[p].id === r.entered_by) mine = p; });
    box.textContent = "";
    ["N", "E", "S", "W"].forEach(function (p) {
      var seat = d.seats[p];
      if (!seat || seat.id === r.entered_by) return;
      if (r.status === "played" && mine && (p === r.taker) === (mine === r.taker)) return;
      var label = document.createElement("label");
      label.className = "choice";
      var input = document.createElement("input");
      input.type = "radio";
      input.name = "player";
      input.value = seat.id;
      input.required = true;
      input.checked = String(seat.id) === keep;
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + seat.name + " (" + state.positions[p] + ")"));
      box.appendChild(label);
    });
  }
  function show(n) {
    current = n;
    form.dataset.filled = "";
    form.dataset.editing = "";
    $("confirm-code").value = "";
    clearErrors(confirmForm);
    render();
    window.scrollTo(0, 0);
  }
  function toggle() {
    var c = (form.querySelector('input[name="contract"]:checked') || {}).value;
    form.querySelectorAll("[data-played]").forEach(function (el) { el.hidden = c === "all_passed"; });
  }

  /* --- live preview ------------------------------------------------------------------------ */
  var timer = null, seq = 0;
  function preview() {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var d = donneOf(current);
      if (!navigator.onLine) { $("preview-note").textContent = T.no_preview; return; }
      $("preview-note").textContent = "";
      var mine = ++seq;
      post(base + "donne/" + current + "/preview/", new URLSearchParams(new FormData(form)).toString())
        .then(function (res) {
          if (mine !== seq || res.status !== 200) return;
          scoreRows($("preview"), res.data.scores, d.seats);
          var warn = Object.keys(res.data.warnings || {}).map(function (k) { return res.data.warnings[k]; });
          var problems = res.data.errors || {};
          showErrors(form, problems);
          // The table cannot confirm a warning: saved as it is, the entry goes to the arbiter.
          if (warn.length) warn.push(T.warning_calls_arbiter);
          $("preview-note").textContent = warn.join(" ");
        }).catch(function () { $("preview-note").textContent = T.no_preview; });
    }, 150);
  }

  /* --- actions ------------------------------------------------------------------------------ */
  form.addEventListener("input", function () { toggle(); preview(); });
  form.addEventListener("change", function (e) {
    if (e.target.name === "player") localStorage.setItem("tarot-table-player:" + secret, e.target.value);
  });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var d = donneOf(current);
    d.failed = null;
    var item = {
      key: key(), secret: secret, donne: current, at: Date.now(),
      body: new URLSearchParams(new FormData(form)).toString()
    };
    enqueue(item).then(function () {
      form.dataset.editing = "";
      return showQueue();
    }).then(function () {
      if (!navigator.onLine) { render(); return; }
      return flush().then(function () {
        var now = donneOf(item.donne);
        if (now.failed) { form.dataset.editing = String(item.donne); }
        render();
        if (!now.failed && now.result && now.result.entry_status === "awaiting") $("result-status").textContent += " " + T.saved;
      });
    });
  });
  $("correct").addEventListener("click", function () {
    form.dataset.editing = String(current);
    form.dataset.filled = "";
    render();
  });
  function statusWrite(path, extra) {
    var d = donneOf(current);
    var data = new URLSearchParams();
    var who = confirmForm.querySelector('input[name="player"]:checked');
    var b = binding();
    // Nobody chosen in the list: the player this phone is bound to speaks.
    if (!who && b && !extra.code) data.set("binding", b.token);
    data.set("player", who ? who.value : "");
    data.set("version", d.result ? d.result.version : "");
    Object.keys(extra).forEach(function (k) { data.set(k, extra[k]); });
    if (!navigator.onLine) { showErrors(confirmForm, { __all__: [T.needs_connection] }); return; }
    post(base + "donne/" + current + "/" + path + "/", data.toString(), key()).then(function (res) {
      if (res.status === 200) {
        d.result = res.data.result;
        remember();
        $("confirm-code").value = "";
        clearErrors(confirmForm);
        render();
        $("result-status").textContent += " " + (path === "confirm" ? T.confirmed : T.contested);
      } else {
        if (res.status === 409 && res.data.result) { d.result = res.data.result; remember(); render(); }
        var errs = res.data.errors || {};
        if (errs.binding) { bind(null); showBinding(); render(); }
        $("confirm-errors").textContent = Object.keys(errs).map(function (k) { return errs[k].join(" "); }).join(" ");
      }
    }).catch(function () { showErrors(confirmForm, { __all__: [T.needs_connection] }); });
  }
  confirmForm.addEventListener("submit", function (e) {
    e.preventDefault();
    statusWrite("confirm", { code: $("confirm-code").value });
  });
  $("confirm-as").addEventListener("click", function () {
    var b = binding();
    if (b) statusWrite("confirm", { binding: b.token });
  });
  $("unbind").addEventListener("click", function () {
    bind(null);
    showBinding();
    $("player").value = "";
    $("player").focus();
  });
  $("contest-send").addEventListener("click", function () {
    var extra = { note: $("contest-note").value };
    if ($("confirm-code").value) extra.code = $("confirm-code").value;
    statusWrite("contest", extra);
  });
  window.addEventListener("online", function () { showNet(); flush().then(refresh); });
  window.addEventListener("offline", showNet);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && navigator.onLine) flush().then(refresh);
  });
  setInterval(function () { if (navigator.onLine) flush(); }, 5000);

  if ("serviceWorker" in navigator && root.dataset.sw) {
    navigator.serviceWorker.register(root.dataset.sw).catch(function () {});
    // Once the worker controls the page, fetch the page through it so it keeps a copy.
    var warm = function () {
      if (navigator.serviceWorker.controller) fetch(location.href, { credentials: "omit" }).catch(function () {});
    };
    navigator.serviceWorker.addEventListener("controllerchange", warm);
    warm();
  }
  showNet();
  showBinding();
  merge(recalled());
  remember();
  var first = state.donnes.filter(function (d) { return !d.result; })[0] || state.donnes[0];
  current = first ? first.number : null;
  openDb().then(function (handle) {
    db = handle;
    return showQueue();
  }).then(render).then(function () { if (navigator.onLine) flush(); });
})();
