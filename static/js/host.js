// The instructor's key handed over after '#' in the address (the JSON API's host_url,
// /class/<code>/host#key=…). A browser never sends that part, so the key reaches no server's
// or proxy's log. This drops it from the address and the history at once, puts it in the
// page's form and sends that: the key travels in a POST body, and the server keeps it in an
// HttpOnly cookie for this class (app/classes/pages.py). Without JavaScript, or with a
// key that is not this class's, the form stays for the instructor to paste it.

const KEY = /^#key=([A-Za-z0-9_-]{1,256})$/; // secrets.token_urlsafe's alphabet

const form = document.querySelector("form[data-host-handover]");
const found = KEY.exec(window.location.hash);
if (window.location.hash || window.location.search) {
  // Whatever came after '#' (or an old address's ?key=), not left in the bar or the history.
  window.history.replaceState(null, "", window.location.pathname);
}
if (form && found) {
  form.elements.namedItem("key").value = found[1];
  form.requestSubmit();
}
