/* The table's page: enter a donne's result, pass the phone, confirm with a code.
 * Entries go to an IndexedDB queue first, each with its Idempotency-Key, and are sent from
 * there: a dropped connection keeps them on the phone and a resend never doubles a result.
 * A conflict (the result changed meanwhile) is shown, never overwritten. The last state seen is
 * kept on the phone too: a page reopened offline (the service worker's copy, printed when it
 * was first loaded) shows the results saved since, not an older picture.
 * Who enters or confirms proves it: name and personal code, or a phone bound to him (the token
 * a save with his code and the box ticked returns, kept in localStorage for this table page and
 * sent, also from the offline queue, instead of the code). The box is ticked by default only on
 * a phone bound to nobody else or to the player chosen; "Not N? Hand this phone over" lends the
 * phone for one entry: no box, and the phone stays N's. Each phone keeps a random id (sent as
 * "phone"): the server binds it to one player at a time and throttles wrong codes per phone.
 * Keyboard and screen readers: focus stays where the player acts (after a save, the status or
 * the first field refused; after a confirmation, the status); the tabs and the confirm choices
 * are updated in place, never rebuilt under the focus; a refused field is marked invalid,
 * described by its error and the errors are said in a live region. A page holding unsent
 * results asks before it is left (reloaded offline over plain HTTP, it would not come back). */
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
  var inflight = null; // the flush running now
  var unsent = 0; // entries in the queue
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
  // Focus a message or a field; a message gets tabindex -1 so that it can hold the focus.
  var placing = false, moves = 0; // moves: how often the player moved the focus himself
  document.addEventListener("focusin", function () { if (!placing) moves++; });
  function focusOn(el) {
    if (!el || el.hidden) return;
    if (!/^(INPUT|SELECT|TEXTAREA|BUTTON|A)$/.test(el.tagName) && !el.hasAttribute("tabindex")) {
      el.setAttribute("tabindex", "-1");
    }
    placing = true;
    el.focus();
    placing = false;
  }
  // The focus once an answer comes: not if the player has moved it meanwhile.
  function focusAfter(since, el) { if (moves === since) focusOn(el); }
  // Adds a sentence to a message, after a full stop ("En attente de confirmation. Enregistré.").
  function addSentence(el, text) {
    var said = el.textContent.replace(/\s+$/, "");
    el.textContent = said + (!said || /[.!?…]$/.test(said) ? " " : ". ") + text;
  }
  // Said by screen readers (a polite live region); emptied first so a repeat is said again.
  function announce(text) {
    var box = $("announce");
    box.textContent = "";
    setTimeout(function () { box.textContent = text; }, 50);
  }

  /* --- the last state seen, kept on the phone -------------------------------------------- */
  var STATE_KEY = "tarot-table-state:" + secret;
  // A result's version only grows (results are never deleted): per donne, the higher wins.
  function merge(older) {
    (older && older.donnes || []).forEach(function (o) {
      var d = donneOf(o.number);
      if (d && o.result && (!d.result || o.result.version > d.result.version)) d.result = o.result;
      if (d && o.kept && !d.kept) d.kept = o.kept; // an entry refused by a conflict, kept
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
  var handed = false; // lent for one entry: the phone's binding is set aside, not dropped
  function phoneId() {
    var id = null;
    try { id = localStorage.getItem("tarot-table-phone"); } catch (e) { id = null; }
    if (!id) { id = key(); try { localStorage.setItem("tarot-table-phone", id); } catch (e) { /* off */ } }
    return id;
  }
  function stored() {
    try { return JSON.parse(localStorage.getItem(BIND_KEY) || "null"); } catch (e) { return null; }
  }
  function binding() {
    var b = stored();
    // Valid only on the table page (table and round) where it was made.
    if (handed || !b || !b.token || b.secret !== secret) return null;
    // Bound to a player of another table this round: not usable here (hand it over).
    for (var i = 0; i < state.players.length; i++) if (state.players[i].id === b.player) return b;
    return null;
  }
  function bind(b) {
    try {
      if (b && b.tournament === state.tournament_id) {
        b.secret = secret;
        localStorage.setItem(BIND_KEY, JSON.stringify(b));
      }
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
    bindDefault();
    if (b) {
      $("bound-who").textContent = fmt(T.bound_to, b.name);
      $("unbind").textContent = fmt(T.unbind, b.name);
    }
  }

  // "Keep this phone as mine": never offered on a phone lent; ticked by default only when this
  // phone was kept by the player chosen earlier in the tournament (another table or round).
  // The first time, its owner ticks it: whoever types a code first on a phone is not always
  // its owner, and a binding is a credential.
  function bindDefault() {
    var s = stored();
    $("bind-choice").hidden = handed;
    $("bind").disabled = handed || Boolean(binding());
    $("bind").checked = !handed && Boolean(s && s.player) && String(s.player) === $("player").value;
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
      unsent = rows.length;
      var q = $("queue");
      q.hidden = rows.length === 0;
      q.textContent = fmt(rows.length === 1 ? T.queue_one : T.queue_many, rows.length);
      q.dataset.count = rows.length;
      if (before !== Boolean(pending[current])) render(); else renderTabs();
    });
  }
  // Sends the queue, oldest first; a call while a flush runs waits for it, then sends what is left.
  function flush() {
    if (inflight) return inflight.then(flush);
    inflight = queued().then(function next(rows) {
      if (!rows.length) return null;
      var item = rows[0];
      return post(base + "donne/" + item.donne + "/save/", item.body, item.key).then(function (res) {
        return dequeue(item.key).then(function () {
          var d = donneOf(item.donne);
          if (res.status === 200) {
            d.result = res.data.result;
            forget(d);
            if (res.data.binding) { bind(res.data.binding); showBinding(); }
          } else if (res.status === 409) {
            if (res.data.result) d.result = res.data.result;
            d.kept = keepable(item.body); // what she typed stays on screen, beside the saved one
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
      inflight = null;
      return showQueue();
    });
    return inflight;
  }
  function conflict(n, errors) {
    var li = document.createElement("li");
    li.dataset.donne = n;
    li.textContent = fmt(T.conflict, n) + " — " + ((errors && errors.__all__) || []).join(" ");
    $("conflict-list").appendChild(li);
    $("conflicts").hidden = false;
  }

  /* --- following the table while the page is open ---------------------------------------- */
  // Every few seconds while the page is seen and online, the state is asked with the ETag last
  // received: unchanged, it is a 304 without a body; changed, it is merged and drawn in place
  // (tabs and choices are updated, never rebuilt under the focus; an entry being typed stays
  // open, `keeping`). A hidden page or a phone offline does not ask; it asks at once when it
  // comes back (visibilitychange, online).
  var POLL_MS = 3000;
  var stateTag = state.version ? '"' + state.version + '"' : "";
  var pollTimer = null;
  var closed = false; // the page was revoked or its round closed (403): nothing more to follow
  // A refusal only this phone knows of survives a new state from the site (`merge` keeps the
  // newer results and the entries kept after a conflict).
  function carry(known) {
    (known && known.donnes || []).forEach(function (o) {
      var d = donneOf(o.number);
      if (d && o.failed && !d.failed) d.failed = o.failed;
    });
  }
  function refresh() {
    var headers = { "Accept": "application/json" };
    if (stateTag) headers["If-None-Match"] = stateTag;
    return fetch(root.dataset.state, { credentials: "omit", cache: "no-store", headers: headers }).then(function (r) {
      if (r.status === 403) {
        closed = true;
        return r.json().then(showClosed, function () { showClosed(null); });
      }
      if (r.status === 304 || !r.ok) return;
      return r.json().then(function (s) {
        var known = state;
        state = s;
        stateTag = r.headers.get("ETag") || (s.version ? '"' + s.version + '"' : "");
        merge(known);
        carry(known);
        remember();
        render();
        // The calls to the arbiter (calls.js) follow the same state.
        document.dispatchEvent(new CustomEvent("table:state", { detail: state }));
      });
    }).catch(function () {});
  }
  // The round closed (or the arbiter replaced the page) while it was open: say why, with the
  // site's words, and offer the page that follows (after play: the claims window's line and
  // the claim form). Nothing typed or queued is thrown away by a reload the player did not ask.
  function showClosed(data) {
    var all = data && data.errors && data.errors.__all__;
    $("closed-msg").textContent = (all && all[0]) || "";
    $("closed").hidden = false;
  }
  function follow() {
    clearTimeout(pollTimer);
    if (closed) return;
    pollTimer = setTimeout(function () {
      // Not while the queue is being sent: its answers bring the newer results themselves.
      if (document.visibilityState !== "visible" || !navigator.onLine || inflight) { follow(); return; }
      refresh().then(follow);
    }, POLL_MS);
  }

  /* --- rendering -------------------------------------------------------------------------- */
  // The tabs are built once per set of donnes and then updated in place: a tab that has the
  // focus keeps it while the page refreshes every 5 s.
  function renderTabs() {
    var nav = $("donne-tabs");
    var sig = state.donnes.map(function (d) { return d.number; }).join(",");
    if (nav.dataset.sig !== sig) {
      var focused = document.activeElement && nav.contains(document.activeElement) ? document.activeElement.dataset.donne : null;
      nav.textContent = "";
      state.donnes.forEach(function (d) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "tab";
        b.dataset.donne = d.number;
        var strong = document.createElement("strong");
        strong.textContent = fmt(T.donne, d.number);
        // Read "Donne 5, à saisir", not "Donne 5à saisir": the two lines are two text nodes.
        var comma = document.createElement("span");
        comma.className = "sep";
        comma.textContent = ",";
        strong.appendChild(comma);
        b.appendChild(strong);
        b.appendChild(document.createElement("small"));
        nav.appendChild(b);
      });
      nav.dataset.sig = sig;
      if (focused) focusOn(nav.querySelector('[data-donne="' + focused + '"]'));
    }
    state.donnes.forEach(function (d, i) {
      var b = nav.children[i];
      var label = pending[d.number] ? T.queued : d.result ? d.result.entry_label : T.to_enter;
      var status = pending[d.number] ? "queued" : d.result ? d.result.entry_status : "missing";
      b.classList.toggle("current", d.number === current);
      if (d.number === current) b.setAttribute("aria-current", "true"); else b.removeAttribute("aria-current");
      if (b.lastChild.textContent !== label) b.lastChild.textContent = label;
      b.dataset.status = status;
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
  // The controls an error key speaks of ("poignees.N" is the radios named "poignee_N").
  function fieldsOf(scope, k) {
    var name = k.indexOf("poignees.") === 0 ? "poignee_" + k.slice(9) : k;
    return Array.prototype.filter.call(scope.querySelectorAll('[name="' + name + '"]'), function (i) {
      return i.type !== "hidden";
    });
  }
  function clearErrors(scope) {
    scope.querySelectorAll("[data-errors]").forEach(function (e) { e.textContent = ""; });
    scope.querySelectorAll("[aria-invalid]").forEach(function (i) {
      i.removeAttribute("aria-invalid");
      i.removeAttribute("aria-describedby");
    });
  }
  // Writes each error under its field (or in the form's message) and ties it to the field:
  // aria-invalid, aria-describedby the error's id. Returns what should take the focus: the
  // first refused field on screen, else the message.
  function showErrors(scope, errors) {
    clearErrors(scope);
    var general = scope.querySelector('[data-errors="__all__"]');
    var invalid = [];
    Object.keys(errors || {}).forEach(function (k) {
      var el = scope.querySelector('[data-errors="' + k + '"]') || general;
      if (!el) return;
      el.textContent += (el.textContent ? " " : "") + errors[k].join(" ");
      fieldsOf(scope, k).forEach(function (i) {
        i.setAttribute("aria-invalid", "true");
        i.setAttribute("aria-describedby", el.id);
        invalid.push(i);
      });
    });
    var first = null;
    scope.querySelectorAll('[aria-invalid="true"]').forEach(function (i) {
      if (first || i.disabled || i.closest("[hidden]")) return;
      // In a group of radios, the one chosen, else the first.
      if (i.type === "radio" && !i.checked) {
        var chosen = scope.querySelector('input[name="' + i.name + '"]:checked');
        if (chosen) { first = chosen; return; }
      }
      first = i;
    });
    return first || (general && general.textContent ? general : null);
  }
  // After a refusal: the focus on the first refused field (opening the announcements if it is
  // there) or the message, and every error said once.
  function refused(scope, errors, target, since) {
    var details = target && target.closest("details");
    if (since !== moves) target = null; // the player has moved on meanwhile
    if (details && target) details.open = true;
    focusOn(target);
    announce(Object.keys(errors || {}).map(function (k) { return errors[k].join(" "); }).join(" "));
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
    var focused = document.activeElement;
    draw();
    // The control that had the focus was hidden (the result came from another phone, the
    // entry was sent): the focus goes to what now stands in its place, never to <body>.
    if (focused && focused !== document.body && (!focused.isConnected || focused.closest("[hidden]"))) {
      focusOn(!$("result-box").hidden ? $("result-status") : $("entry-title"));
    }
  }
  function draw() {
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
    // An entry typed here stays open when the donne was saved elsewhere meanwhile (seen by the
    // poll, or a conflict refused it): she compares it with the saved one above.
    var keeping = Boolean(r) && (Boolean(d.kept) ||
      (form.dataset.dirty === String(d.number) && String(r.version) !== form.dataset.base));
    var editing = !waiting && (!r || keeping || (!r.counts && form.dataset.editing === String(d.number)));
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
      if (form.dataset.filled !== String(d.number)) {
        fill(r);
        if (d.kept) restore(d.kept);
        form.dataset.filled = String(d.number);
        form.dataset.base = r ? String(r.version) : ""; // the result the form started from
      }
      showKept(d, r, keeping);
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
  // Who may confirm: rebuilt only when the list changes (another donne, another entry), so
  // that a choice that has the focus keeps it while the page refreshes.
  function players(d, r) {
    var box = $("confirm-players");
    var mine = null; // the enterer's position: his camp cannot confirm
    Object.keys(d.seats).forEach(function (p) { if (d.seats[p].id === r.entered_by) mine = p; });
    var who = [];
    ["N", "E", "S", "W"].forEach(function (p) {
      var seat = d.seats[p];
      if (!seat || seat.id === r.entered_by) return;
      if (r.status === "played" && mine && (p === r.taker) === (mine === r.taker)) return;
      who.push({ id: String(seat.id), text: " " + seat.name + " (" + state.positions[p] + ")" });
    });
    var sig = who.map(function (w) { return w.id + w.text; }).join("|");
    if (box.dataset.sig === sig) return;
    var keep = (box.querySelector("input:checked") || {}).value;
    var focused = document.activeElement && box.contains(document.activeElement);
    box.textContent = "";
    who.forEach(function (w) {
      var label = document.createElement("label");
      label.className = "choice";
      var input = document.createElement("input");
      input.type = "radio";
      input.name = "player";
      input.value = w.id;
      input.required = true;
      // The only one who may confirm is chosen already.
      input.checked = w.id === keep || who.length === 1;
      label.appendChild(input);
      label.appendChild(document.createTextNode(w.text));
      box.appendChild(label);
    });
    box.dataset.sig = sig;
    if (focused) focusOn(box.querySelector("input:checked") || box.querySelector("input"));
  }
  function show(n) {
    current = n;
    form.dataset.filled = "";
    form.dataset.editing = "";
    form.dataset.dirty = "";
    $("confirm-code").value = "";
    clearErrors(confirmForm);
    render();
    window.scrollTo(0, 0);
  }
  function toggle() {
    var c = (form.querySelector('input[name="contract"]:checked') || {}).value;
    form.querySelectorAll("[data-played]").forEach(function (el) { el.hidden = c === "all_passed"; });
  }

  /* --- an entry kept beside the saved one ------------------------------------------------- */
  // An entry's form body as kept on the phone (in localStorage, until it is settled): without
  // the personal code nor the binding token, which prove who she is.
  function keepable(body) {
    var data = new URLSearchParams(body);
    data.delete("code");
    data.delete("binding");
    return data.toString();
  }
  // Puts an entry's form body (as queued) back into the form's fields.
  function restore(body) {
    var data = new URLSearchParams(body);
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.type === "hidden" || el.disabled || !data.has(el.name)) return;
      if (el.type === "radio") el.checked = el.value === data.get(el.name);
      else if (el.type === "checkbox") el.checked = data.getAll(el.name).indexOf(el.value) >= 0;
      else el.value = data.get(el.name);
    });
  }
  // The note over an entry kept open beside the saved result: what happened, what she can do.
  // Refused by a conflict, saving it again corrects the saved one (its version is now known),
  // unless that one already counts: then only the arbiter can change it.
  function showKept(d, r, keeping) {
    $("kept").hidden = !keeping;
    $("save").hidden = keeping && r.counts;
    if (!keeping) return;
    var text = r.counts ? T.kept_counts : d.kept ? T.kept_conflict : T.kept_meanwhile;
    if ($("kept-note").textContent !== text) $("kept-note").textContent = text;
    if (d.kept) form.elements.version.value = r.version;
  }
  // The donne's entry is settled (saved, confirmed or dropped): nothing more to keep.
  function forget(d) {
    delete d.kept;
    if (form.dataset.dirty === String(d.number)) { form.dataset.dirty = ""; form.dataset.filled = ""; }
  }
  $("kept-drop").addEventListener("click", function () {
    var d = donneOf(current);
    if (!d) return;
    forget(d);
    d.failed = null;
    form.dataset.editing = "";
    remember();
    render();
    focusOn(!$("result-box").hidden ? $("result-status") : $("entry-title"));
  });

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
          // The save's refusal stays beside what the preview finds, until its field changes.
          var problems = {};
          [d.failed || {}, res.data.errors || {}].forEach(function (errs) {
            Object.keys(errs).forEach(function (k) { problems[k] = (problems[k] || []).concat(errs[k]); });
          });
          showErrors(form, problems);
          // The table cannot confirm a warning: saved as it is, the entry goes to the arbiter.
          if (warn.length) warn.push(T.warning_calls_arbiter);
          $("preview-note").textContent = warn.join(" ");
        }).catch(function () { $("preview-note").textContent = T.no_preview; });
    }, 150);
  }

  /* --- actions ------------------------------------------------------------------------------ */
  form.addEventListener("input", function (e) {
    var d = donneOf(current);
    var name = e.target.name || "";
    if (d && d.failed) delete d.failed[name.indexOf("poignee_") === 0 ? "poignees." + name.slice(8) : name];
    // Typed into the result (not who enters): kept open if another phone saves it meanwhile.
    if (["player", "code", "bind"].indexOf(name) < 0) form.dataset.dirty = String(current);
    toggle();
    preview();
  });
  form.addEventListener("change", function (e) {
    if (e.target.name === "player") {
      localStorage.setItem("tarot-table-player:" + secret, e.target.value);
      bindDefault();
    }
  });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var d = donneOf(current);
    var since = moves;
    d.failed = null;
    form.elements.phone.value = phoneId();
    var item = {
      key: key(), secret: secret, donne: current, at: Date.now(),
      body: new URLSearchParams(new FormData(form)).toString()
    };
    enqueue(item).then(function () {
      form.dataset.editing = "";
      return showQueue();
    }).then(function () {
      if (!navigator.onLine) { render(); focusAfter(since, $("entry-note")); return; }
      return flush().then(function () {
        var now = donneOf(item.donne);
        if (now.failed) { form.dataset.editing = String(item.donne); }
        // The lent phone's entry is made: the phone is its owner's again.
        else if (handed && !pending[item.donne]) { handed = false; showBinding(); }
        render();
        if (current !== item.donne) return;
        if (pending[item.donne]) { focusAfter(since, $("entry-note")); return; }
        if (now.failed) { refused(form, now.failed, showErrors(form, now.failed), since); return; }
        if (!$("conflicts").hidden && $("conflict-list").lastChild &&
            $("conflict-list").lastChild.dataset.donne === String(item.donne)) {
          focusAfter(since, $("conflicts"));
          return;
        }
        if (now.result && now.result.entry_status === "awaiting") addSentence($("result-status"), T.saved);
        focusAfter(since, $("result-status"));
      });
    });
  });
  $("correct").addEventListener("click", function () {
    form.dataset.editing = String(current);
    form.dataset.filled = "";
    render();
    // The button is gone: the focus goes to the form's first field.
    focusOn(!$("player").disabled ? $("player") :
      form.querySelector('input[name="contract"]:checked') || form.querySelector('input[name="contract"]'));
  });
  function statusWrite(path, extra) {
    var d = donneOf(current);
    var since = moves;
    var data = new URLSearchParams();
    var who = confirmForm.querySelector('input[name="player"]:checked');
    var b = binding();
    // Nobody chosen in the list: the player this phone is bound to speaks.
    if (!who && b && !extra.code) data.set("binding", b.token);
    data.set("player", who ? who.value : "");
    data.set("version", d.result ? d.result.version : "");
    data.set("phone", phoneId());
    Object.keys(extra).forEach(function (k) { data.set(k, extra[k]); });
    var offline = { __all__: [T.needs_connection] };
    if (!navigator.onLine) { refused(confirmForm, offline, showErrors(confirmForm, offline), since); return; }
    post(base + "donne/" + current + "/" + path + "/", data.toString(), key()).then(function (res) {
      if (res.status === 200) {
        d.result = res.data.result;
        forget(d);
        remember();
        $("confirm-code").value = "";
        clearErrors(confirmForm);
        render();
        addSentence($("result-status"), path === "confirm" ? T.confirmed : T.contested);
        focusAfter(since, $("result-status"));
      } else {
        if (res.status === 409 && res.data.result) { d.result = res.data.result; remember(); render(); }
        var errs = res.data.errors || { __all__: [T.error] };
        if (errs.binding) { bind(null); showBinding(); render(); }
        var target = showErrors(confirmForm, errs);
        if (target === $("confirm-code") && since === moves) target.select();
        refused(confirmForm, errs, target, since);
      }
    }).catch(function () { refused(confirmForm, offline, showErrors(confirmForm, offline), since); });
  }
  confirmForm.addEventListener("submit", function (e) {
    e.preventDefault();
    // Nobody chosen (and no bound phone to speak): the page's own words, not the browser's.
    var code = $("confirm-code").value;
    if (!confirmForm.querySelector('input[name="player"]:checked') && !(binding() && !code)) {
      var errs = { player: [T.who_confirms] };
      refused(confirmForm, errs, showErrors(confirmForm, errs), moves);
      return;
    }
    statusWrite("confirm", { code: code });
  });
  confirmForm.addEventListener("change", function (e) {
    if (e.target.name !== "player") return;
    $("confirm-err-player").textContent = "";
    fieldsOf(confirmForm, "player").forEach(function (i) {
      i.removeAttribute("aria-invalid");
      i.removeAttribute("aria-describedby");
    });
  });
  $("confirm-as").addEventListener("click", function () {
    var b = binding();
    if (b) statusWrite("confirm", { binding: b.token });
  });
  $("unbind").addEventListener("click", function () {
    handed = true;
    showBinding();
    $("player").value = "";
    $("player").focus();
  });
  $("contest-send").addEventListener("click", function () {
    var extra = { note: $("contest-note").value };
    if ($("confirm-code").value) extra.code = $("confirm-code").value;
    statusWrite("contest", extra);
  });
  $("donne-tabs").addEventListener("click", function (e) {
    var tab = e.target.closest(".tab");
    if (tab) show(Number(tab.dataset.donne));
  });
  // Unsent results: leaving (or reloading without a connection) must be a choice.
  window.addEventListener("beforeunload", function (e) {
    if (!unsent) return undefined;
    e.preventDefault();
    e.returnValue = "";
    return "";
  });
  window.addEventListener("online", function () { showNet(); flush().then(refresh).then(follow); });
  window.addEventListener("offline", showNet);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && navigator.onLine) flush().then(refresh).then(follow);
  });
  setInterval(function () { if (navigator.onLine && !inflight) flush(); }, 5000);

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
  }).then(render).then(function () { if (navigator.onLine) flush(); follow(); });
})();
