/* Polls that ask "anything new?" with what they show: an htmx element marked data-etag-poll
 * keeps the ETag of the answer it shows and sends it as If-None-Match; a 304 (nothing
 * changed) leaves it as it is (the page's htmx-config swaps nothing on a 304). The server
 * renders each answer once per results version for every poller (tarot_club/kit/cached_read.py). */
(function () {
  "use strict";

  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.hasAttribute("data-etag-poll") && elt.dataset.etag) {
      event.detail.headers["If-None-Match"] = elt.dataset.etag;
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    var xhr = event.detail.xhr;
    if (elt && elt.hasAttribute("data-etag-poll") && xhr && xhr.status === 200) {
      var tag = xhr.getResponseHeader("ETag");
      if (tag) {
        elt.dataset.etag = tag;
      } else {
        delete elt.dataset.etag;
      }
    }
  });
}());
