/* The arbiter's dashboard: the live panel of calls (htmx asks it every second) keeps its ages
 * ticking by the server's clock (a laptop's clock minutes off does not age the calls), the
 * page title shows how many calls are open ("(2) Arbitre · …"), and a short beep (WebAudio,
 * nothing downloaded) says a new call came, if the arbiter switched the sound on (kept on
 * this computer). */
(function () {
  "use strict";
  var box = document.getElementById("calls");
  if (!box) return;
  var baseTitle = document.title.replace(/^\(\d+\)\s*/, "");
  var SOUND_KEY = "tarot-arbiter-calls-sound";
  var sound = document.getElementById("calls-sound");
  var audio = null;
  var seen = null; // ids of the open calls already seen
  var skew = 0; // this computer's clock minus the server's, from the panel's data-now

  function ids() {
    var live = document.getElementById("calls-live");
    return ((live && live.dataset.newest) || "").split(" ").filter(Boolean);
  }
  function beep() {
    if (!sound || !sound.checked) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      var osc = audio.createOscillator(), gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.2, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.6);
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.6);
    } catch (e) { /* no sound on this browser */ }
  }
  function age(since) {
    var s = Math.max(0, Math.round((Date.now() - skew - since) / 1000));
    var m = Math.floor(s / 60);
    return (m ? m + " min " : "") + (s % 60) + " s";
  }
  function tick() {
    box.querySelectorAll(".call-age[data-since]").forEach(function (el) {
      var since = Date.parse(el.dataset.since);
      if (!isNaN(since)) el.textContent = age(since);
    });
  }
  function update() {
    var live = document.getElementById("calls-live");
    var open = live ? Number(live.dataset.open || 0) : 0;
    var server = live ? Date.parse(live.dataset.now || "") : NaN;
    if (!isNaN(server)) skew = Date.now() - server;  // the ages by the server's clock
    document.title = (open ? "(" + open + ") " : "") + baseTitle;
    var now = ids();
    if (seen !== null && now.some(function (id) { return seen.indexOf(id) < 0; })) beep();
    seen = now;
    tick();
  }
  if (sound) {
    try { sound.checked = localStorage.getItem(SOUND_KEY) === "1"; } catch (e) { /* off */ }
    sound.addEventListener("change", function () {
      try { localStorage.setItem(SOUND_KEY, sound.checked ? "1" : "0"); } catch (e) { /* off */ }
      if (sound.checked) beep(); // a gesture: the browser lets the page make sounds from now on
    });
  }
  document.body.addEventListener("htmx:afterSwap", update);
  setInterval(tick, 1000);
  update();
})();
