/* Keyboard shortcuts of the arbiter's result form (listed on the page).
 *
 * Why a script: htmx sends the live preview, but choosing a radio by a letter and moving on
 * to the next field is plain DOM work. Without this file the form still works with Tab,
 * the arrow keys and Enter on the points.
 *
 * - In a radio group, a shortcut key (data-keys) chooses that radio and moves to the next field.
 *   Only on a radio: a key typed in a text or number field (points, reason, jump box) is text,
 *   never a shortcut.
 * - Enter on a radio or a checkbox saves, like Enter in a text field; in a round not yet open
 *   (the page says so) it moves to the round's "open" button instead: nothing is sent.
 * - Alt+letter goes to the element with that accesskey (Alt+P points, Alt+R reason, Alt+J
 *   jump, Alt+S save) the same way in every browser, whatever the keyboard layout.
 * - After a save refused for warnings to confirm, the cursor starts on the first box to tick.
 */
(function () {
  "use strict";

  function stops(form) {
    // One stop per field: a radio group counts once (its checked radio, else its first).
    var seen = {};
    var out = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.disabled || el.type === "hidden" || el.tagName === "FIELDSET") return;
      if (el.type === "radio") {
        if (seen[el.name]) return;
        seen[el.name] = true;
        var checked = form.querySelector('input[type=radio][name="' + el.name + '"]:checked');
        out.push({ name: el.name, el: checked || el });
        return;
      }
      out.push({ name: el.name || el.id, el: el });
    });
    return out;
  }

  function moveOn(form, from) {
    var list = stops(form);
    for (var i = 0; i < list.length; i++) {
      if (list[i].name === from.name && i + 1 < list.length) {
        list[i + 1].el.focus();
        return;
      }
    }
  }

  function choose(radio) {
    radio.checked = true;
    radio.focus();
    radio.dispatchEvent(new Event("input", { bubbles: true }));
    radio.dispatchEvent(new Event("change", { bubbles: true }));
  }

  var TYPED = { text: 1, number: 1, search: 1, email: 1, tel: 1, url: 1, password: 1 };

  function isTyping(el) {
    if (!el) return false;
    if (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
    return el.tagName === "INPUT" && TYPED[(el.getAttribute("type") || "text").toLowerCase()] === 1;
  }

  function accessKey(event) {
    // The letter of the physical key (Alt changes event.key on some layouts and systems).
    var code = event.code || "";
    if (/^Key[A-Z]$/.test(code)) return code.slice(3).toLowerCase();
    return (event.key || "").length === 1 ? event.key.toLowerCase() : "";
  }

  document.addEventListener("keydown", function (event) {
    if (!event.altKey || event.ctrlKey || event.metaKey) return;
    var letter = accessKey(event);
    if (!letter || !document.querySelector("form[data-arbiter-form]")) return;
    var el = document.querySelector('[accesskey="' + letter + '"]');
    if (!el || el.disabled) return;
    event.preventDefault();
    if (el.tagName === "BUTTON") {
      el.click();
    } else {
      el.focus();
      if (typeof el.select === "function") el.select();
    }
  });

  function focusFirstConfirmation() {
    if (!document.getElementById("needs-confirmation")) return;
    var boxes = document.querySelectorAll('input[type=checkbox][name="confirm"]');
    for (var i = 0; i < boxes.length; i++) {
      if (!boxes[i].checked) {
        boxes[i].focus();
        return;
      }
    }
    if (boxes.length) boxes[0].focus();
  }

  // After a refused save, the cursor starts on the first field at fault, in the page's order
  // (a radio group's checked radio, else its first; the points; the reason), not on the taker.
  function focusFirstFault() {
    var form = document.querySelector("form[data-arbiter-form]");
    if (!form || document.getElementById("needs-confirmation")) return;
    var faults = Array.prototype.filter.call(
      document.querySelectorAll('[aria-invalid="true"], tr.invalid'),
      function (el) { return form.contains(el) || el.getAttribute("form") === form.id; }
    );
    if (!faults.length) return;
    var el = faults[0];
    if (el.tagName === "FIELDSET" || el.tagName === "TR") {
      el = el.querySelector("input[type=radio]:checked") || el.querySelector("input");
    }
    if (el && typeof el.focus === "function") el.focus();
  }

  function focusOnLoad() {
    focusFirstConfirmation();
    focusFirstFault();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", focusOnLoad);
  } else {
    focusOnLoad();
  }

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var form = target && target.form;
    if (!form || !form.hasAttribute("data-arbiter-form")) return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
    if (isTyping(target)) return; // typed text is text: never a shortcut
    if (target.type === "radio" && event.key.length === 1) {
      var key = event.key.toLowerCase();
      var group = form.querySelectorAll('input[type=radio][name="' + target.name + '"]');
      for (var i = 0; i < group.length; i++) {
        if ((group[i].getAttribute("data-keys") || "").indexOf(key) !== -1) {
          event.preventDefault();
          choose(group[i]);
          if (group[i].getAttribute("data-then") === "save") {
            var save = document.querySelector('button[type=submit][form="' + form.id + '"]');
            if (save) save.focus();
          } else {
            moveOn(form, group[i]);
          }
          return;
        }
      }
    }
    if (event.key === "Enter" && (target.type === "radio" || target.type === "checkbox")) {
      event.preventDefault();
      // A round not yet open takes no result: Enter goes to its "open" button instead.
      var notStarted = document.querySelector("#round-not-started button[type=submit]");
      if (notStarted) {
        notStarted.focus();
        return;
      }
      form.requestSubmit();
    }
  });
})();
