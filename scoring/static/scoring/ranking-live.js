/* The live ranking: polls the page's URL with the snapshot it shows and the ETag of the
 * fragment it merged last (If-None-Match; 304 or 204: nothing new), and
 * merges a new ranking into the table in place, row by row, keyed by player: unchanged rows
 * are not touched, so keyboard and screen-reader focus stays where the reader left it. A
 * polite live region says how many lines changed; a button pauses the updates.
 * The table is the same for every reader (rendered once per snapshot): the reader's own row
 * is marked here, from data-me. */
(function () {
  "use strict";

  var live = document.getElementById("ranking-live");
  if (!live) {
    return;
  }
  var news = document.getElementById("ranking-news");
  var pauseButton = document.getElementById("ranking-pause");
  var timer = null;
  var paused = false;
  var etag = null; // of the last fragment merged: the page's own table has none

  function markMe(root) {
    var me = live.dataset.me;
    var rows = root.querySelectorAll("tbody tr");
    for (var i = 0; i < rows.length; i += 1) {
      rows[i].classList.toggle("me", Boolean(me) && rows[i].dataset.p === me);
    }
  }

  function announce(text) {
    if (news) {
      news.textContent = "";
      // a fresh text node after clearing: read even when the words repeat
      window.setTimeout(function () { news.textContent = text; }, 50);
    }
  }

  function changedText(count) {
    if (!news) {
      return "";
    }
    return count === 1 ? news.dataset.one : news.dataset.many.replace("{n}", String(count));
  }

  function sameHead(oldTable, newTable) {
    var a = oldTable.querySelector("thead");
    var b = newTable.querySelector("thead");
    return a && b && a.innerHTML === b.innerHTML;
  }

  // A cell's children replaced one by one when they line up (the player's link kept, and
  // the keyboard's focus on it, while the line under the name changes), else all at once.
  function syncCell(cell, fresh) {
    var olds = cell.childNodes;
    var news = fresh.childNodes;
    if (olds.length !== news.length) {
      cell.innerHTML = fresh.innerHTML;
      return;
    }
    for (var k = news.length - 1; k >= 0; k -= 1) {
      if (!olds[k].isEqualNode(news[k])) {
        cell.replaceChild(document.importNode(news[k], true), olds[k]);
      }
    }
  }

  /* Make oldBody's rows those of newBody, touching only what differs. Returns the number of
   * lines that changed (content, place, new or gone). */
  function mergeRows(oldBody, newBody) {
    var focused = document.activeElement;
    var hadFocus = focused && oldBody.contains(focused);
    var byPlayer = {};
    var current = oldBody.rows;
    var i;
    for (i = 0; i < current.length; i += 1) {
      byPlayer[current[i].dataset.p] = current[i];
    }
    var incoming = Array.prototype.slice.call(newBody.rows);
    var changed = 0;
    incoming.forEach(function (fresh, index) {
      var row = byPlayer[fresh.dataset.p];
      var moved = false;
      if (row) {
        delete byPlayer[fresh.dataset.p];
        var touched = false;
        for (var c = 0; c < fresh.cells.length; c += 1) {
          var cell = row.cells[c];
          var freshCell = fresh.cells[c];
          if (!cell) {
            row.appendChild(freshCell.cloneNode(true));
            touched = true;
          } else if (cell.innerHTML !== freshCell.innerHTML || cell.className !== freshCell.className) {
            syncCell(cell, freshCell);
            cell.className = freshCell.className;
            touched = true;
          }
        }
        while (row.cells.length > fresh.cells.length) {
          row.deleteCell(-1);
          touched = true;
        }
        if (oldBody.rows[index] !== row) {
          oldBody.insertBefore(row, oldBody.rows[index] || null);
          moved = true;
        }
        if (touched || moved) {
          changed += 1;
          row.classList.remove("changed");
          void row.offsetWidth; // restart the highlight
          row.classList.add("changed");
        }
      } else {
        row = document.importNode(fresh, true);
        row.classList.add("changed");
        oldBody.insertBefore(row, oldBody.rows[index] || null);
        changed += 1;
      }
    });
    Object.keys(byPlayer).forEach(function (key) {
      byPlayer[key].remove();
      changed += 1;
    });
    // Moving a row can drop the focus of a link inside it: give it back, without scrolling.
    if (hadFocus && document.activeElement !== focused && document.contains(focused)) {
      focused.focus({ preventScroll: true });
    }
    return changed;
  }

  function merge(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById("ranking-live");
    if (!fresh) {
      return;
    }
    ["since", "cur", "poll", "version"].forEach(function (key) {
      live.dataset[key] = fresh.dataset[key] || "";
    });
    var oldTable = live.querySelector("table.ranking");
    var newTable = fresh.querySelector("table.ranking");
    var changed = 0;
    // Everything around the table (freshness, method) is small: replaced as a whole. The
    // table's wrapper stays where it is (moving it would drop the focus inside it).
    var wrap = oldTable && newTable ? oldTable.closest(".table-wrap") : null;
    Array.prototype.slice.call(live.children).forEach(function (child) {
      if (child !== wrap) {
        child.remove();
      }
    });
    var beforeTable = true;
    Array.prototype.slice.call(fresh.children).forEach(function (child) {
      if (wrap && child.querySelector("table.ranking")) {
        beforeTable = false;
        return;
      }
      var node = document.importNode(child, true);
      if (wrap && beforeTable) {
        live.insertBefore(node, wrap);
      } else {
        live.appendChild(node);
      }
    });
    if (oldTable && newTable && sameHead(oldTable, newTable)) {
      changed = mergeRows(oldTable.tBodies[0], newTable.tBodies[0]);
    } else if (oldTable && newTable) {
      oldTable.replaceWith(document.importNode(newTable, true));
      changed = newTable.tBodies[0].rows.length;
    } else if (newTable) {
      changed = newTable.tBodies[0].rows.length;
    }
    markMe(live);
    if (changed) {
      announce(changedText(changed));
    }
  }

  function schedule() {
    window.clearTimeout(timer);
    timer = null;
    var seconds = parseInt(live.dataset.poll, 10);
    if (paused || !seconds) {
      return;
    }
    timer = window.setTimeout(poll, seconds * 1000);
  }

  function poll() {
    var url = window.location.pathname + "?partial=1&since=" +
      encodeURIComponent(live.dataset.since || "") + "&cur=" + encodeURIComponent(live.dataset.cur || "") +
      (live.dataset.view ? "&view=" + encodeURIComponent(live.dataset.view) : "");
    var headers = { Accept: "text/html" };
    if (etag) {
      headers["If-None-Match"] = etag;
    }
    window.fetch(url, { credentials: "same-origin", headers: headers })
      .then(function (response) {
        if (response.status === 200 && !paused) {
          etag = response.headers.get("ETag");
          return response.text().then(merge);
        }
        return null;
      })
      .catch(function () { return null; }) // offline for a moment: try again at the next tick
      .then(schedule);
  }

  if (pauseButton) {
    pauseButton.addEventListener("click", function () {
      paused = !paused;
      pauseButton.setAttribute("aria-pressed", paused ? "true" : "false");
      pauseButton.textContent = paused ? pauseButton.dataset.resume : pauseButton.dataset.pause;
      if (news) {
        announce(paused ? news.dataset.paused : news.dataset.resumed);
      }
      if (paused) {
        window.clearTimeout(timer);
        timer = null;
      } else {
        poll();
      }
    });
  }

  markMe(live);
  schedule();
}());
