// keyhook developer portal: the few things script adds to pages that work without it.
// No inline script anywhere (the Content-Security-Policy allows only this file).
(function () {
  "use strict";

  // Opening a link: its token is in the fragment, which never reaches a server. Drop it from
  // the address bar and history first, then post it like the paste form does.
  function openLink() {
    var form = document.getElementById("exchange");
    if (!form) return;
    var token = window.location.hash.slice(1);
    if (!token) return;
    history.replaceState(null, "", window.location.pathname + window.location.search);
    var input = document.getElementById("token");
    var opening = document.getElementById("opening");
    if (opening) opening.hidden = false;
    input.value = decodeURIComponent(token);
    form.submit();
  }

  // Copy buttons: data-copy names the element whose text is copied.
  function copyButtons() {
    document.querySelectorAll("button[data-copy]").forEach(function (b) {
      b.addEventListener("click", function () {
        var el = document.getElementById(b.getAttribute("data-copy"));
        if (!el || !navigator.clipboard) return;
        navigator.clipboard.writeText(el.textContent).then(function () {
          var was = b.textContent;
          b.textContent = "Copied";
          setTimeout(function () { b.textContent = was; }, 2000);
        });
      });
    });
  }

  // Live deliveries: the table is fetched again every few seconds (the server renders it;
  // nothing of the response is turned into markup here but that server-escaped table).
  function liveDeliveries() {
    var box = document.getElementById("attempts");
    if (!box) return;
    var url = box.getAttribute("data-poll").replace(/\.json$/, ".html");
    setInterval(function () {
      if (document.hidden) return;
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html === null) return;
          var doc = new DOMParser().parseFromString(html, "text/html");
          var fresh = doc.body;
          var open = box.querySelectorAll("details[open]").length;
          if (fresh && !open) box.replaceChildren.apply(box, Array.prototype.slice.call(fresh.childNodes));
        })
        .catch(function () {});
    }, 5000);
  }

  // Trying a filter without leaving the page: the form's own "Try filter" submit, posted in
  // the background, and the result block of the page that comes back put in place.
  function tryFilter() {
    document.querySelectorAll("form.webhook-form").forEach(function (form) {
      var button = form.querySelector("button[value=try]");
      var result = form.querySelector("#filter-result");
      if (!button || !result) return;
      button.addEventListener("click", function (ev) {
        ev.preventDefault();
        var data = new URLSearchParams(new FormData(form));
        data.set("intent", "try");
        fetch(form.action, { method: "POST", credentials: "same-origin", body: data })
          .then(function (r) { return r.text(); })
          .then(function (html) {
            var doc = new DOMParser().parseFromString(html, "text/html");
            var fresh = doc.querySelector("#filter-result");
            var errors = doc.querySelectorAll("form.webhook-form .field-error");
            result.replaceChildren();
            if (fresh) result.replaceChildren.apply(result, Array.prototype.slice.call(fresh.childNodes));
            errors.forEach(function (e) { if (/^(filter|event)-error$/.test(e.id)) result.appendChild(e); });
          })
          .catch(function () { form.requestSubmit(button); });
      });
    });
  }

  function start() {
    openLink();
    copyButtons();
    liveDeliveries();
    tryFilter();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
