/* Keyboard shortcuts of the arbiter's result form (listed on the page).
 *
 * Why a script: htmx sends the live preview, but choosing a radio by a letter and moving on
 * to the next field is plain DOM work. Without this file the form still works with Tab,
 * the arrow keys and Enter on the points.
 *
 * - In a radio group, a shortcut key (data-keys) chooses that radio and moves to the next field.
 * - Enter on a radio or a checkbox saves, like Enter in a text field.
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

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var form = target && target.form;
    if (!form || !form.hasAttribute("data-arbiter-form")) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
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
      form.requestSubmit();
    }
  });
})();
